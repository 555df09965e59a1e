//! String operations in kernels (`movsb`, `lodsq`, `stosd`, `scasw`,
//! `cmpsb`, without a `rep` prefix): each moves `rsi` and/or `rdi` past
//! the element it accessed (the direction flag is clear, as the System V
//! ABI guarantees at a call), so a body of 12 `movsq` walks 96 bytes.
//!
//! The loop sets both pointers again at the top of every iteration
//! ([`walk`]): `rsi` to where reads start, `rdi` to where writes start,
//! two areas of the data part apart, so that a store never lands on a
//! word the same iteration loads. Both kernels of the unroll difference
//! set them once per iteration, so the two `mov`s cancel. Within the
//! body the copies depend on each other through the pointers, as every
//! run of string operations in real code does: TP reports that time.

use crate::arch::{inst_of, reg_of, EncodeError, Inst, OpValue, Starts, Walk};
use crate::isa::{Arch, Reg};

const A: Arch = Arch::X86_64;

/// The 64-bit pointers `inst` moves (`RSI`, `RDI`), in operand order.
pub fn pointers(inst: &Inst) -> Vec<Reg> {
    let mut out = Vec::new();
    for m in inst.form.mc_operands() {
        if let Some((name, _)) = m.ty.string_pointer() {
            if let Ok(OpValue::Reg(r)) = reg_of(A, name) {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

/// `mov esi, reads` and `mov edi, writes` at the loop's top, for the
/// pointers `body` moves (a 32-bit move zero-extends: the data area lies
/// below 2^31).
pub fn walk(body: &[Inst], starts: Starts) -> Result<Walk, EncodeError> {
    let mut moved: Vec<Reg> = Vec::new();
    for inst in body {
        for r in pointers(inst) {
            if !moved.contains(&r) {
                moved.push(r);
            }
        }
    }
    let mut out = Walk::default();
    for r in moved {
        let (low, at) = match r.name() {
            "RSI" => ("ESI", starts.reads),
            _ => ("EDI", starts.writes),
        };
        out.top.push(inst_of(
            A,
            "MOV32ri",
            &[reg_of(A, low)?, OpValue::Imm(at as i64)],
        )?);
    }
    Ok(out)
}

/// A string operation written without operands, as gcc and GNU as write
/// it (`movsb`, `lodsq`, `stosd`), in LLVM's text with its operands
/// (`movsb byte ptr es:[rdi], byte ptr [rsi]`), which winic's assembler
/// reads; `None` for everything else (`movsd xmm0, xmm1` has operands).
pub fn bare(mnemonic: &str, operands: &[&str]) -> Option<String> {
    if !operands.is_empty() {
        return None;
    }
    let (op, suffix) = mnemonic.split_at(mnemonic.len().checked_sub(1)?);
    let (size, acc) = match suffix {
        "b" => ("byte", "al"),
        "w" => ("word", "ax"),
        "d" => ("dword", "eax"),
        "q" => ("qword", "rax"),
        _ => return None,
    };
    let src = format!("{size} ptr [rsi]");
    let dst = format!("{size} ptr es:[rdi]");
    let ops = match op {
        "movs" => format!("{dst}, {src}"),
        "lods" => format!("{acc}, {src}"),
        "stos" => format!("{dst}, {acc}"),
        "scas" => format!("{acc}, {dst}"),
        "cmps" => format!("{src}, {dst}"),
        _ => return None,
    };
    Some(format!("{mnemonic} {ops}"))
}
