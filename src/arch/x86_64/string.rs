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

use super::X86_64;
use crate::arch::{
    emit, inst_of, reg_of, EncodeError, Inst, KernelError, Line, OpValue, Starts, Walk,
};
use crate::isa::{Arch, Reg};
use iced_x86::{Decoder, DecoderOptions, Mnemonic};

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

/// The lines of `rep movsb` (or `rep stosq` …) over `count` elements:
/// the pointers set to `starts` and `ecx` to `count`, then the form with
/// a `rep` prefix (F3), which iced's decoder must read back as the form,
/// repeated. `None` for a form other than `movs` and `stos` (`rep lods`
/// is no loop anyone writes; `repe cmps` and `repne scas` stop where the
/// data says), and for SSE's `movsd xmm, [m]`, which shares the string
/// `movsd`'s mnemonic but moves no pointer.
pub fn repeated(
    t: &X86_64,
    inst: &Inst,
    count: u32,
    starts: Starts,
) -> Option<Result<Vec<Line>, KernelError>> {
    let plan = super::plan_of(&inst.form).ok()?;
    if !matches!(
        plan.code.mnemonic(),
        Mnemonic::Movsb
            | Mnemonic::Movsw
            | Mnemonic::Movsd
            | Mnemonic::Movsq
            | Mnemonic::Stosb
            | Mnemonic::Stosw
            | Mnemonic::Stosd
            | Mnemonic::Stosq
    ) || pointers(inst).is_empty()
    {
        return None;
    }
    let lines = || -> Result<Vec<Line>, KernelError> {
        let mut out = Vec::new();
        for i in walk(std::slice::from_ref(inst), starts)?.top {
            out.push(emit(t, &i)?);
        }
        let ecx = inst_of(
            A,
            "MOV32ri",
            &[reg_of(A, "ECX")?, OpValue::Imm(i64::from(count))],
        )?;
        out.push(emit(t, &ecx)?);
        let one = emit(t, inst)?;
        let mut bytes = vec![0xf3];
        bytes.extend(&one.bytes);
        let mut d = Decoder::new(64, &bytes, DecoderOptions::NONE);
        let got = d.decode();
        if got.code() != plan.code || !got.has_rep_prefix() || got.len() != bytes.len() {
            return Err(KernelError::Check(format!(
                "rep {}: iced decodes {got} from {bytes:02x?}",
                one.text
            )));
        }
        out.push(Line {
            text: format!("rep {}", one.text),
            bytes,
        });
        Ok(out)
    };
    Some(lines())
}
