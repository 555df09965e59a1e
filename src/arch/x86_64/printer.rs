//! Intel syntax as LLVM prints it (and as WINIC prints it), from the
//! record's `AsmString`, with a pseudo-prefix (`{vex}`, `{evex}`) where
//! llvm-mc could otherwise pick another encoding for the same text.

use super::mapping::{Plan, Tok};
use crate::arch::{container_in, reg_named, EncodeError, Inst, Mem, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::Arch;
use crate::isa::Reg;
use std::fmt::Write;

/// The text of `inst`.
pub fn print(plan: &Plan, inst: &Inst) -> Result<String, EncodeError> {
    let s = print_llvm(plan, inst)?;
    if has_short_address(inst.form) {
        // LLVM writes `mov al, byte ptr [1073741824]`, which GNU as and
        // llvm-mc read as the ModRM form `8a 04 25`; GNU as 2.40 reads
        // this spelling as `67 a0` and its 32-bit address (llvm-mc 19
        // has none: it makes `addr32` an instruction of its own).
        let rest = s.strip_prefix("mov").unwrap_or(&s);
        return Ok(format!("addr32 movabs{rest}"));
    }
    Ok(respelled(plan, s))
}

/// Whether `form` has an absolute address of 32 bits (`mov al,
/// [moffs32]`: the address-size prefix and 4 address bytes).
fn has_short_address(form: crate::isa::Instr) -> bool {
    form.mc_operands()
        .iter()
        .any(|m| m.ty.is_absolute_address() && m.ty.name().starts_with("offset32"))
}

/// LLVM's Intel text of far `call`/`jmp` through memory and of the 16-bit
/// `pushf`/`popf` names other forms: GNU as 2.40 and llvm-mc 19 read
/// `call [rcx]` as the near `ff 11`, `lcall [rcx]` without its prefix,
/// `pushf` as the 64-bit one. These spellings assemble to the same bytes
/// in both (checked with both, 2026-11-29). `push imm16` has none: llvm-mc
/// 19 makes `data16 push 4660` six bytes; it keeps LLVM's text.
fn respelled(plan: &Plan, s: String) -> String {
    let operand = s.split_once(' ').map_or("", |x| x.1);
    respelling(plan.code, operand).unwrap_or(s)
}

/// The text [`respelled`] gives form `code` with its memory operand
/// `operand`, where it changes LLVM's.
fn respelling(code: iced_x86::Code, operand: &str) -> Option<String> {
    use iced_x86::Code as C;
    let far = |prefix: &str, m: &str| format!("{prefix}{m} fword ptr {operand}");
    Some(match code {
        C::Call_m1632 => far("", "call"),
        C::Call_m1664 => far("rex64 ", "call"),
        C::Call_m1616 => far("data16 ", "call"),
        C::Jmp_m1632 => far("", "jmp"),
        C::Jmp_m1664 => far("rex64 ", "jmp"),
        C::Jmp_m1616 => far("data16 ", "jmp"),
        C::Pushfw => "pushfw".into(),
        C::Popfw => "popfw".into(),
        _ => return None,
    })
}

/// Whether [`print`] changes LLVM's text of `form` (planned as `plan`):
/// Capstone 5.0.6 prints LLVM's ambiguous text for them (`lcall [rcx]`
/// for both `66 ff 19` and `48 ff 19`), so iced's decoder checks them.
pub fn is_respelled(plan: &Plan, form: crate::isa::Instr) -> bool {
    respelling(plan.code, "").is_some() || has_short_address(form)
}

fn print_llvm(plan: &Plan, inst: &Inst) -> Result<String, EncodeError> {
    let mut s = String::with_capacity(48);
    s.push_str(plan.pseudo);
    s.push_str(&super::cond::mnemonic(plan, inst)?);
    for (n, op) in plan.operands.iter().enumerate() {
        s.push_str(if n == 0 { " " } else { ", " });
        for (k, t) in op.iter().enumerate() {
            // A broadcast follows its memory operand without a space.
            if k > 0 && !matches!(t, Tok::Lit(l) if l.starts_with("{1to")) {
                s.push(' ');
            }
            piece(&mut s, plan, inst, t)?;
        }
    }
    Ok(s)
}

fn piece(s: &mut String, plan: &Plan, inst: &Inst, t: &Tok) -> Result<(), EncodeError> {
    let value = |i: usize| {
        inst.ops
            .get(i)
            .copied()
            .ok_or_else(|| EncodeError::BadOperand(format!("missing operand {i}")))
    };
    match *t {
        Tok::Lit(l) => s.push_str(l),
        Tok::Zero => s.push_str("{z}"),
        Tok::Mask(i) => {
            s.push('{');
            reg_or_imm(s, value(i)?);
            s.push('}');
        }
        Tok::Mc(i) if plan.rc == Some(i) => {
            let OpValue::Imm(v) = value(i)? else {
                return Err(EncodeError::BadOperand(
                    "rounding mode is a register".into(),
                ));
            };
            let mode = ["rn", "rd", "ru", "rz"]
                .get(v as usize)
                .ok_or_else(|| EncodeError::BadOperand(format!("rounding mode {v}")))?;
            let _ = write!(s, "{{{mode}-sae}}");
        }
        Tok::Mc(i) => {
            let kind = inst.form.mc_operands().get(i).map(|m| m.ty.kind());
            match (kind, value(i)?) {
                (Some(OperandKind::Reg), v @ OpValue::Reg(_))
                | (Some(OperandKind::Imm), v @ OpValue::Imm(_)) => reg_or_imm(s, v),
                (Some(OperandKind::Mem), OpValue::Mem(m)) => {
                    let ty = inst.form.mc_operands()[i].ty;
                    // LLVM's `printSrcIdx8`, `printDstIdx64`: the size,
                    // and `es:` before the destination (always ES-based).
                    if let Some((reg, bytes)) = ty.string_pointer() {
                        let size = match bytes {
                            1 => "byte",
                            2 => "word",
                            4 => "dword",
                            _ => "qword",
                        };
                        let seg = if reg == "RDI" { "es:" } else { "" };
                        let _ = write!(s, "{size} ptr {seg}");
                        memory(s, &m);
                        return Ok(());
                    }
                    if let Some(size) = ty.memory_size() {
                        let _ = write!(s, "{size} ptr ");
                    }
                    memory(s, &m);
                }
                // An absolute address, as LLVM's `printMemOffset`
                // writes it: `byte ptr [1073750016]`.
                (Some(OperandKind::Mem), OpValue::Imm(x)) => {
                    let ty = inst.form.mc_operands()[i].ty;
                    let size = ty.memory_size().unwrap_or("qword");
                    let _ = write!(s, "{size} ptr [{x}]");
                }
                (Some(OperandKind::PcRel), OpValue::Imm(x)) => {
                    s.push_str(&super::cond::pc_relative(x))
                }
                (_, v) => return Err(EncodeError::BadOperand(format!("operand {i}: {v:?}"))),
            }
        }
    }
    Ok(())
}

fn reg_or_imm(s: &mut String, v: OpValue) {
    match v {
        OpValue::Reg(r) => s.push_str(&reg_name(r)),
        OpValue::Imm(x) => {
            let _ = write!(s, "{x}");
        }
        OpValue::Mem(m) => memory(s, &m),
    }
}

/// `[rbx + 4*rcx + 64]`, as LLVM's `printMemReference` writes it: the
/// scale before the index when it is not 1, the displacement in decimal,
/// subtracted when negative, left out when 0.
pub fn memory(s: &mut String, m: &Mem) {
    s.push('[');
    s.push_str(&reg_name(m.base));
    if let Some((index, scale)) = m.index {
        s.push_str(" + ");
        if scale != 1 {
            let _ = write!(s, "{scale}*");
        }
        s.push_str(&reg_name(index));
    }
    match m.disp {
        0 => {}
        d if d > 0 => {
            let _ = write!(s, " + {d}");
        }
        d => {
            let _ = write!(s, " - {}", -i64::from(d));
        }
    }
    s.push(']');
}

/// The memory reference inside `[` `]` as Intel syntax writes it, in any
/// order and base (`rbx + 4*rcx + 64`, `rsi+rax*8`, `rbp-0x8`), or `None`
/// when it is none winic encodes (no 64-bit base, RIP-relative, a
/// segment).
pub fn parse_memory(inner: &str) -> Option<Mem> {
    let mut base = None;
    let mut index = None;
    let mut disp: i64 = 0;
    let mut sign = 1;
    let mut term = String::new();
    let gr64 = |name: &str| {
        let r = reg_named(Arch::X86_64, name)?;
        (container_in(Arch::X86_64, "GR64", r) == Some(r)).then_some(r)
    };
    // An index is a 64-bit register, or a gather's vector (VSIB).
    let index_reg = |name: &str| {
        gr64(name).or_else(|| {
            let r = reg_named(Arch::X86_64, name)?;
            ["VR128X", "VR256X", "VR512"]
                .iter()
                .any(|c| container_in(Arch::X86_64, c, r) == Some(r))
                .then_some(r)
        })
    };
    let mut take = |term: &str, sign: i64| -> Option<()> {
        if let Some(v) = number(term) {
            disp += sign * v;
        } else if let Some((a, b)) = term.split_once('*') {
            let (scale, reg) = match number(a) {
                Some(s) => (s, b),
                None => (number(b)?, a),
            };
            if sign < 0 || index.is_some() || !matches!(scale, 1 | 2 | 4 | 8) {
                return None;
            }
            index = Some((index_reg(reg)?, scale as u8));
        } else if sign < 0 {
            return None;
        } else if base.is_none() {
            base = Some(gr64(term)?);
        } else if index.is_none() {
            index = Some((index_reg(term)?, 1));
        } else {
            return None;
        }
        Some(())
    };
    for c in inner.chars().chain(std::iter::once('+')) {
        match c {
            '+' | '-' => {
                if !term.is_empty() {
                    take(&term, sign)?;
                    term.clear();
                    sign = 1;
                }
                if c == '-' {
                    sign = -sign;
                }
            }
            c if c.is_whitespace() => {}
            c => term.push(c.to_ascii_lowercase()),
        }
    }
    Some(Mem {
        base: base?,
        index,
        disp: i32::try_from(disp).ok()?,
    })
}

/// `64`, `0x40`.
fn number(s: &str) -> Option<i64> {
    match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None if s.starts_with(|c: char| c.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// LLVM's Intel spelling of a register: `st(1)` for the x87 stack, the
/// first register of a mask pair, else the `AsmName`.
pub fn reg_name(r: Reg) -> String {
    let name = r.name();
    if let Some(n) = name.strip_prefix("ST") {
        return format!("st({n})");
    }
    if let Some((first, _)) = name.split_once('_') {
        return first.to_ascii_lowercase();
    }
    r.asm_name()
}
