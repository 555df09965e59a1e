//! How an AArch64 form addresses memory, read from its record: the
//! address is the bracket of the assembly template that starts an operand
//! (`ldr $Rt, [$Rn, $offset]`, `[$Rn], $Xm` post-index, `[$Rn, $offset]!`
//! pre-index); its first operand is the base (a `GPR64sp`-like class), the
//! other register operands inside (and a post-index register) are register
//! offsets, the immediate inside (or after it, post-index) the offset, in
//! vector lengths where the template says `mul vl`. A base tied to an
//! output (`$wback`) is written back.
//!
//! Kernels point the base at the data area, set register offsets to 0 and
//! give every access its own 64-byte slot where the offset field reaches
//! it; a writeback form gets offset 0 (and a post-index register 0), so its
//! base never moves.

use super::operands::ImmKind;
use super::{imm_kind_of, runnable::addresses_memory, AArch64};
use crate::arch::{Inst, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::{Instr, McOperand};

/// The parts of a form's address, as machine-operand indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Address {
    /// The base register.
    pub base: usize,
    /// The immediate offset (or post-index amount), when it is encoded.
    pub offset: Option<usize>,
    /// The offset counts vector lengths (SVE/SME `mul vl`).
    pub mul_vl: bool,
    /// Register offsets and post-index registers.
    pub index: Vec<usize>,
    /// The base is written back (pre- or post-index).
    pub writeback: bool,
}

/// The names of the `$name` / `${name}` placeholders of `s`, in order.
fn placeholders(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(k) = rest.find('$') {
        let after = &rest[k + 1..];
        let (name, tail) = if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            (&inner[..end], &inner[end..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if !name.is_empty() {
            out.push(name);
        }
        rest = tail;
    }
    out
}

fn is_gpr(m: &McOperand) -> bool {
    m.ty.kind() == OperandKind::Reg && m.ty.class().is_some_and(|c| c.name().starts_with("GPR"))
}

/// Whether the field of `m` is in the form's encoding (SME's `ldr za`
/// repeats the slice index as the address offset without encoding it).
fn encoded(form: &Instr, m: &McOperand) -> bool {
    AArch64::layout(form).is_ok_and(|l| l.fields().any(|f| f.var == m.name))
}

/// The address of `form`: `Ok(None)` when its template has none, `Err`
/// with the reason when winic cannot point it at the data area (a vector
/// of addresses or offsets, two addresses, a base that is no
/// general-purpose register).
pub fn address(form: &Instr) -> Result<Option<Address>, String> {
    let t = form.asm_template();
    if !addresses_memory(&t) {
        return Ok(None);
    }
    let b = t.as_bytes();
    let starts: Vec<usize> = (1..b.len())
        .filter(|&k| b[k] == b'[' && matches!(b[k - 1], b' ' | b'\t' | b','))
        .collect();
    let [start] = starts[..] else {
        return Err("two addresses (memory copy or set)".into());
    };
    let end = start + t[start..].find(']').ok_or("an address without ]")?;
    let inner = &t[start + 1..end];
    let mc = form.mc_operands();
    let find = |name: &str| {
        mc.iter()
            .position(|m| m.name == name || m.operand.name() == name)
    };
    let names = placeholders(inner);
    let base = names
        .first()
        .and_then(|n| find(n))
        .ok_or("an address without a base operand")?;
    if !is_gpr(&mc[base]) {
        return Err(if mc[base].ty.class().is_some() {
            "gather or scatter: a vector of addresses (not pointed at the data area)".into()
        } else {
            "an address whose base is no register".into()
        });
    }
    let bi = mc[base].operand.index();
    let writeback =
        mc[base].operand.tied_to().is_some() || mc.iter().any(|m| m.operand.tied_to() == Some(bi));
    let mut a = Address {
        base,
        writeback,
        ..Address::default()
    };
    let take = |k: usize, text_after: &str, a: &mut Address| -> Result<(), String> {
        let m = &mc[k];
        match m.ty.kind() {
            OperandKind::Reg if is_gpr(m) => a.index.push(k),
            OperandKind::Reg => {
                return Err(
                    "gather or scatter: a vector of offsets (not set to stay in the data area)"
                        .into(),
                )
            }
            OperandKind::Imm if a.offset.is_none() && encoded(form, m) => {
                a.offset = Some(k);
                a.mul_vl = text_after
                    .trim_start_matches([',', ' '])
                    .starts_with("mul vl");
            }
            _ => {}
        }
        Ok(())
    };
    for n in &names[1..] {
        let k = find(n).ok_or("an address operand without a value")?;
        let pos = inner.find(n).map_or(inner.len(), |p| p + n.len());
        let after = inner[pos..].trim_start_matches('}');
        take(k, after, &mut a)?;
    }
    // Post-index: `[$Rn], $Xm` or `[$Rn], $offset`.
    let rest = &t[end + 1..];
    if writeback && rest.starts_with(", ") {
        if let Some(k) = placeholders(rest).first().and_then(|n| find(n)) {
            take(k, "", &mut a)?;
        }
    }
    Ok(Some(a))
}

/// The offset of the access a kernel places at `offset` for an offset of
/// `kind` ([`crate::arch::slot_in_reach`]); `mul vl` offsets count vector
/// lengths: slot `offset / 64` gets 0, 1, … up to 7 of them. A writeback
/// form: 0. `None` when no such value is valid (the example's offset
/// stays).
pub fn place(offset: i32, kind: ImmKind, writeback: bool, mul_vl: bool) -> Option<i64> {
    let ImmKind::Num {
        min, max, scale, ..
    } = kind
    else {
        return None;
    };
    if !(min..=max).contains(&0) {
        return None;
    }
    if writeback {
        return Some(0);
    }
    if mul_vl {
        let k = (max / scale + 1).min(8);
        return Some(scale * i64::from(offset).div_euclid(64).rem_euclid(k));
    }
    crate::arch::slot_in_reach(offset, min, max, scale)
}

/// `inst` with its access at `offset`'s slot ([`place`]), or `None` when
/// its form addresses no memory winic runs.
pub fn at_offset(inst: &Inst, offset: i32) -> Option<Inst> {
    let a = address(&inst.form).ok()??;
    let mut out = inst.clone();
    if let Some(k) = a.offset {
        let m = inst.form.mc_operands()[k];
        let kind = imm_kind_of(&inst.form, &m).ok()?;
        if let Some(v) = place(offset, kind, a.writeback, a.mul_vl) {
            out.ops[k] = OpValue::Imm(v);
        }
    }
    Some(out)
}

/// The base register of `inst`'s address.
pub fn bases(inst: &Inst) -> Vec<crate::isa::Reg> {
    match address(&inst.form) {
        Ok(Some(a)) => match inst.ops.get(a.base) {
            Some(OpValue::Reg(r)) => vec![*r],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The register offsets of `inst`'s address, each set to 0.
pub fn offsets(inst: &Inst) -> Vec<(crate::isa::Reg, u64)> {
    match address(&inst.form) {
        Ok(Some(a)) => a
            .index
            .iter()
            .filter_map(|&k| match inst.ops.get(k) {
                Some(OpValue::Reg(r)) => Some((*r, 0)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{emit, KernelFrame, Operands};
    use crate::isa::{Arch, Isa};

    fn form(name: &str) -> Instr {
        Isa::get(Arch::Aarch64)
            .instr(name)
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// The form's example placed at slot `offset`: its text, decode-checked.
    fn placed(name: &str, offset: i32) -> String {
        let inst = AArch64.example(form(name)).unwrap();
        let out = AArch64.at_offset(&inst, offset).unwrap();
        emit(&AArch64, &out).unwrap().text
    }

    fn names(inst: &Inst, regs: &[crate::isa::Reg]) -> Vec<String> {
        let _ = inst;
        regs.iter().map(|r| r.asm_name()).collect()
    }

    #[test]
    fn bases_offsets_and_register_offsets_come_from_the_address() {
        for (name, base, offset, index) in [
            ("LDRXui", "x1", true, 0),
            ("LDURXi", "x1", true, 0),
            ("LDRXroX", "x1", false, 1),
            ("STRWui", "x1", true, 0),
            ("LDPXi", "x2", true, 0),
            ("LD1Onev16b", "x0", false, 0),
            ("LD1Onev16b_POST", "x0", false, 1),
            ("LDADDX", "x2", false, 0),
            ("CASX", "x2", false, 0),
            ("LDXRX", "x1", false, 0),
            ("LD1W", "x0", false, 1),
            ("LD1W_IMM", "x0", true, 0),
        ] {
            let inst = AArch64.example(form(name)).unwrap();
            let a = address(&inst.form).unwrap().unwrap();
            assert_eq!(
                names(&inst, &AArch64.address_bases(&inst)),
                [base],
                "{name}"
            );
            assert_eq!(a.offset.is_some(), offset, "{name}");
            assert_eq!(AArch64.address_offsets(&inst).len(), index, "{name}");
            assert!(AArch64.address_offsets(&inst).iter().all(|(_, v)| *v == 0));
        }
        assert_eq!(address(&form("ADDXrs")).unwrap(), None);
        assert_eq!(address(&form("ADR_LSL_ZZZ_D_2")).unwrap(), None);
    }

    #[test]
    fn accesses_move_to_slots_within_the_fields_reach() {
        // uimm12s8 reaches every slot; simm9 the first 4; writeback: 0.
        assert_eq!(placed("LDRXui", 8192), "ldr x0, [x1, #8192]");
        assert_eq!(placed("LDRXui", 8256), "ldr x0, [x1, #8256]");
        assert_eq!(placed("LDURXi", 8192), "ldur x0, [x1, #0]");
        assert_eq!(placed("LDURXi", 8256), "ldur x0, [x1, #64]");
        assert_eq!(placed("LDURXi", 8192 + 4 * 64), "ldur x0, [x1, #0]");
        assert_eq!(placed("LDPXi", 8256), "ldp x0, x1, [x2, #64]");
        assert_eq!(placed("LDRXpre", 8256), "ldr x1, [x0, #0]!");
        assert_eq!(placed("LDRXpost", 8256), "ldr x1, [x0], #0");
        // `mul vl`: one vector length per slot.
        assert_eq!(
            placed("LD1W_IMM", 8192 + 3 * 64),
            "ld1w { z0.s }, p0/z, [x0, #3, mul vl]"
        );
        assert_eq!(placed("LDADDX", 8256), "ldadd x1, x0, [x2]");
        // SME's `ldr za` repeats the slice index unencoded: it stays.
        let za = AArch64.example(form("LDR_ZA")).unwrap();
        assert_eq!(AArch64.at_offset(&za, 8256).unwrap().ops, za.ops);
    }

    #[test]
    fn vector_addresses_and_memory_copies_are_refused_with_a_reason() {
        assert!(address(&form("GLD1D_IMM"))
            .unwrap_err()
            .contains("addresses"));
        assert!(address(&form("GLD1D")).unwrap_err().contains("offsets"));
        assert!(address(&form("CPYFP"))
            .unwrap_err()
            .contains("two addresses"));
        let why = |n: &str| AArch64.cannot_run(form(n)).unwrap_or_default();
        assert!(why("SETP").contains("MOPS"), "{}", why("SETP"));
        assert!(why("LDRAAindexed").contains("authenticates"));
        assert!(why("GLD1D").contains("gather"));
        for n in ["LDRXui", "LDADDX", "LD1Onev16b", "LD1W_IMM", "STPQi"] {
            assert_eq!(AArch64.cannot_run(form(n)), None, "{n}");
        }
    }

    #[test]
    fn the_frame_sets_an_address_and_an_offset_in_one_instruction() {
        let x = Isa::get(Arch::Aarch64).register("X3").unwrap();
        let (whole, insts) = AArch64.init_address(x, 0x4000_0000).unwrap();
        assert_eq!(whole, x);
        let lines: Vec<String> = insts
            .iter()
            .map(|i| emit(&AArch64, i).unwrap().text)
            .collect();
        assert_eq!(lines, ["movz x3, #16384, lsl #16"]);
        let w = Isa::get(Arch::Aarch64).register("W5").unwrap();
        let (whole, insts) = AArch64.init_address(w, 0).unwrap();
        assert_eq!(whole.name(), "X5");
        assert_eq!(insts.len(), 1);
    }
}
