//! Condition forms (`cmov${cond}`, `set${cond}`, `j${cond}`: LLVM's
//! `isCodeGenOnly` records with a `ccode` operand, which the assembler
//! reaches through one alias per condition) and direct branches to the next
//! instruction (`jmp`, `jcc` rel8): how they are printed, which condition a
//! kernel gives them, and the two outcomes of a conditional branch.
//!
//! Inside a kernel's loop the flags are those of the loop's own `dec r15`
//! (r15 ≥ 1 after it): ZF = 0, SF = 0, OF = 0; CF is what it was before the
//! loop and PF follows r15's low byte. So `ne` is always true and `e` always
//! false there.

use super::mapping::Plan;
use crate::arch::{EncodeError, Inst, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::{Flag, Instr, McOperand};

/// LLVM's `X86::CondCode` as `printCondCode` prints it; the value is the
/// low nibble of the opcode (`0F 40+cc` cmov, `0F 90+cc` setcc, `70+cc`
/// jcc). The isa-data has the operand type (`ccode`) but not the enum, so
/// this small table stands for it (Intel SDM Vol. 2, "Jcc": the same order).
pub const CONDITIONS: [&str; 16] = [
    "o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g",
];

/// `ne`: the condition every kernel gives a condition form. True after the
/// loop's `dec r15` (ZF = 0), so `jne` to the next instruction is taken;
/// it reads one flag, as `e` does (on Zen 4 `cmovbe`, which reads two,
/// costs the same: docs/method.md).
pub const DEFAULT: i64 = 5;

/// `e`: false after the loop's `dec r15`; `je` falls through.
pub const NOT_TAKEN: i64 = 4;

/// Whether `m` is a condition operand.
pub fn is_cond(m: &McOperand) -> bool {
    m.ty.print_method() == "printCondCode"
}

/// The mnemonic of `inst`, its condition spelled out (`cmov${cond}` with
/// 5 is `cmovne`).
pub fn mnemonic(plan: &Plan, inst: &Inst) -> Result<String, EncodeError> {
    let Some((k, _)) = &plan.cond else {
        return Ok(plan.mnemonic.to_string());
    };
    let name = match inst.ops.get(*k) {
        Some(OpValue::Imm(c)) => usize::try_from(*c).ok().and_then(|c| CONDITIONS.get(c)),
        _ => None,
    }
    .ok_or_else(|| EncodeError::BadOperand(format!("condition {:?}", inst.ops.get(*k))))?;
    Ok(plan.mnemonic.replace("${cond}", name))
}

/// A PC-relative target as GNU as and llvm-mc read it: `.+2` is 2 bytes
/// after the instruction's first byte (the next instruction of a 2-byte
/// `jne`).
pub fn pc_relative(offset: i64) -> String {
    if offset < 0 {
        format!(".-{}", offset.unsigned_abs())
    } else {
        format!(".+{offset}")
    }
}

/// Whether `form` is a condition form or a direct branch that a kernel
/// runs although LLVM marks it `isCodeGenOnly` or as a branch: a condition
/// form with register operands, or a short (rel8) `jmp`/`jcc`, whose
/// target is the next instruction. The rel32 forms (`JMP_4`, `JCC_4`) print
/// as the rel8 ones do, and llvm-mc would pick rel8 for their text.
pub fn runs_anyway(form: &Instr) -> bool {
    let Ok(plan) = super::plan_of(form) else {
        return false;
    };
    let mc = form.mc_operands();
    if plan.code.is_jcc_short() || plan.code.is_jmp_short() {
        return mc
            .iter()
            .all(|m| m.ty.kind() == OperandKind::PcRel || is_cond(m));
    }
    plan.cond.is_some()
        && !form.has(Flag::IsBranch)
        && mc
            .iter()
            .all(|m| matches!(m.ty.kind(), OperandKind::Reg | OperandKind::Imm))
}

/// The offset of the next instruction from `inst`'s first byte: its
/// length, once encoded with any target.
pub fn next_instruction(inst: &Inst) -> Result<i64, EncodeError> {
    use crate::arch::Encode;
    let mut probe = inst.clone();
    for (m, v) in inst.form.mc_operands().iter().zip(probe.ops.iter_mut()) {
        if m.ty.kind() == OperandKind::PcRel {
            *v = OpValue::Imm(2);
        }
    }
    let len = super::X86_64.encode(&probe)?.len() as i64;
    Ok(len)
}

/// The outcomes of a conditional branch to the next instruction that TP
/// reports: taken (`jne`, the default) and not taken (`je`).
pub fn outcomes(inst: &Inst) -> Vec<(String, Inst)> {
    let Ok(plan) = super::plan_of(&inst.form) else {
        return Vec::new();
    };
    let Some((k, _)) = plan.cond.as_ref().filter(|_| plan.code.is_jcc_short()) else {
        return Vec::new();
    };
    let with = |c: i64| {
        let mut i = inst.clone();
        i.ops[*k] = OpValue::Imm(c);
        i
    };
    vec![
        (
            "taken (jne: ZF = 0 after the loop's dec r15)".to_string(),
            with(DEFAULT),
        ),
        (
            "not taken (je: ZF = 0 after the loop's dec r15)".to_string(),
            with(NOT_TAKEN),
        ),
    ]
}
