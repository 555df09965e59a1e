//! Forms that use the stack implicitly (`push`, `pop`, `pushf`): which a
//! kernel runs, and the walk that keeps the stack pointer in place.
//!
//! A body of pushes moves `rsp` down by its bytes every iteration, and a
//! body of pops moves it up past the kernel's own frame. So the loop moves
//! it back once per iteration ([`walk`]): first down by the most the body
//! rises above where it starts (pops read the words below the kernel's
//! frame, never the frame itself), then, after the body, back to where it
//! started. Both kernels of an unroll difference run the same two `lea`s
//! once per iteration, so they cancel; on Intel cores each may cost a
//! stack-engine sync micro-op, which cancels with them. `rsp` never rises
//! above its value at the loop's top, so a signal delivered mid-body
//! writes its frame below every word the kernel still needs.

use super::{build, plan_of};
use crate::arch::{inst_of, reg_of, EncodeError, Inst, Mem, OpValue, Walk};
use crate::isa::{Arch, Reg};
use iced_x86::{Code, Mnemonic, OpCodeOperandKind as OK};

const A: Arch = Arch::X86_64;

/// Why stack form `code` (iced's `is_stack_instruction`) must not run,
/// or `None` for the pushes and pops a kernel runs.
pub fn cannot_run(code: Code) -> Option<String> {
    let mnemonic = code.mnemonic();
    match mnemonic {
        Mnemonic::Pop if writes_segment(code) => Some("writes a segment register".into()),
        Mnemonic::Push | Mnemonic::Pop => None,
        Mnemonic::Pushf | Mnemonic::Pushfd | Mnemonic::Pushfq => None,
        Mnemonic::Popf | Mnemonic::Popfd | Mnemonic::Popfq => Some(
            "loads RFLAGS from the stack, whose words would set the trap, alignment-check or \
             direction flag (SIGTRAP, SIGBUS)"
                .into(),
        ),
        Mnemonic::Enter | Mnemonic::Leave => Some(format!(
            "{mnemonic:?} builds or tears down a frame through RBP, which a kernel does not set up"
        )),
        _ => Some("uses the stack implicitly".into()),
    }
}

/// `pop fs`, `pop gs`: a selector from the stack would fault.
fn writes_segment(code: Code) -> bool {
    code.op_code().op_kinds().iter().any(|k| {
        matches!(
            k,
            OK::es | OK::cs | OK::ss | OK::ds | OK::fs | OK::gs | OK::seg_reg
        )
    })
}

/// The bytes `inst` moves the stack pointer by: -8 for a 64-bit push, +2
/// for a 16-bit pop, 0 for a form that leaves it alone (iced's
/// `stack_pointer_increment`).
pub fn delta(inst: &Inst) -> i32 {
    plan_of(&inst.form)
        .ok()
        .and_then(|plan| build(plan, inst).ok())
        .map_or(0, |i| i.stack_pointer_increment())
}

/// The loop's walk for `body` (one iteration): `lea rsp, [rsp - up]` at
/// the top when the body rises `up` bytes above its start at some point,
/// and `lea rsp, [rsp + back]` at the bottom to return to the start.
/// Empty for a body that leaves the stack pointer alone.
pub fn walk(body: &[Inst]) -> Result<Walk, EncodeError> {
    let (mut at, mut up) = (0i64, 0i64);
    for inst in body {
        at += i64::from(delta(inst));
        up = up.max(at);
    }
    let mut out = Walk::default();
    if up > 0 {
        out.top.push(move_stack(-up)?);
    }
    // After the body the pointer is at `at - up` from the loop's start.
    let back = up - at;
    if back != 0 {
        out.bottom.push(move_stack(back)?);
    }
    Ok(out)
}

/// `lea rsp, [rsp + bytes]`: moves the stack pointer, flags untouched.
fn move_stack(bytes: i64) -> Result<Inst, EncodeError> {
    let disp = i32::try_from(bytes).map_err(|_| {
        EncodeError::BadOperand(format!("a body moving the stack by {bytes} bytes"))
    })?;
    let base = rsp()?;
    let rsp = OpValue::Reg(base);
    inst_of(
        A,
        "LEA64r",
        &[
            rsp,
            OpValue::Mem(Mem {
                base,
                index: None,
                disp,
            }),
        ],
    )
}

/// RSP, when `inst` moves it.
pub fn walked(inst: &Inst) -> Option<Reg> {
    (delta(inst) != 0).then(rsp).and_then(Result::ok)
}

fn rsp() -> Result<Reg, EncodeError> {
    match reg_of(A, "RSP")? {
        OpValue::Reg(r) => Ok(r),
        _ => unreachable!("reg_of gives registers"),
    }
}
