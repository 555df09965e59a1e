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

/// Every spelling of each of [`CONDITIONS`], in its order, LLVM's first,
/// then its synonyms (Intel SDM Vol. 2, "Jcc", "CMOVcc", "SETcc"): what an
/// assembler reads in `jcc`, `cmovcc` and `setcc`, and compilers write
/// (`cmovnb`, `setz`).
pub const SPELLINGS: [&[&str]; 16] = [
    &["o"],
    &["no"],
    &["b", "c", "nae"],
    &["ae", "nb", "nc"],
    &["e", "z"],
    &["ne", "nz"],
    &["be", "na"],
    &["a", "nbe"],
    &["s"],
    &["ns"],
    &["p", "pe"],
    &["np", "po"],
    &["l", "nge"],
    &["ge", "nl"],
    &["le", "ng"],
    &["g", "nle"],
];

/// A `setcc` or `cmovcc` spelled with a synonym of its condition (`setz
/// cl`, `cmovnb eax, ecx`) as LLVM spells it (`sete cl`, `cmovae eax,
/// ecx`), which winic's assembler reads; `None` for everything else
/// (branches read every spelling themselves).
pub fn synonym(mnemonic: &str, operands: &[&str]) -> Option<String> {
    let (op, cond) = ["set", "cmov"]
        .iter()
        .find_map(|op| mnemonic.strip_prefix(op).map(|c| (*op, c)))?;
    let c = SPELLINGS.iter().position(|s| s[1..].contains(&cond))?;
    Some(format!("{op}{} {}", CONDITIONS[c], operands.join(", ")))
}

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
/// form with register operands, or a short (rel8) branch whose target is
/// the next instruction ([`to_next_instruction`]). The rel32 forms (`JMP_4`, `JCC_4`) print
/// as the rel8 ones do, and llvm-mc would pick rel8 for their text.
pub fn runs_anyway(form: &Instr) -> bool {
    let Ok(plan) = super::plan_of(form) else {
        return false;
    };
    let mc = form.mc_operands();
    if to_next_instruction(plan.code) {
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

/// Whether `code` is a short (rel8) branch a kernel points at the next
/// instruction: `jmp`, `jcc`, and the branches on rcx a kernel never
/// takes, `jrcxz`/`jecxz` (rcx starts at 0x4000400040004000) and `loope`
/// (ZF is 0 after the loop's `dec`). `loop` and `loopne` are taken every
/// time ([`always_taken`]).
pub fn to_next_instruction(code: iced_x86::Code) -> bool {
    code.is_jcc_short()
        || code.is_jmp_short()
        || code.is_jcx_short()
        || (code.is_loopcc() && code.condition_code() == iced_x86::ConditionCode::e)
}

/// `loop` and `loopne`: in a kernel rcx never reaches 0 (counted down
/// from 0x4000400040004000) and ZF is 0, so each is taken every time; a
/// run of taken branches to the next instruction times how many the
/// branch predictor holds (13.6 and 11.3 cycles a branch on zen3), not
/// the form.
pub fn always_taken(code: iced_x86::Code) -> bool {
    code.is_loop() || (code.is_loopcc() && code.condition_code() == iced_x86::ConditionCode::ne)
}

/// The instances winic's assembler reads a codegen-only condition form
/// by (`cmovl rax, rbx`, `setge byte ptr [rsi]`): its example once per
/// condition. Conditional branches are the assembler's own
/// ([`crate::arch::AsmDialect::branch`]), real forms it reads anyway.
pub fn spellings(form: Instr) -> Vec<Inst> {
    use crate::arch::Operands;
    if form.is_real() || form.has(Flag::IsBranch) {
        return Vec::new();
    }
    let Some(k) = super::plan_of(&form)
        .ok()
        .and_then(|p| p.cond.as_ref().map(|c| c.0))
    else {
        return Vec::new();
    };
    let Ok(example) = super::X86_64.example(form) else {
        return Vec::new();
    };
    (0..CONDITIONS.len() as i64)
        .map(|c| {
            let mut i = example.clone();
            i.ops[k] = OpValue::Imm(c);
            i
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::isa::{Arch, Isa};

    fn form(name: &str) -> Instr {
        Isa::get(Arch::X86_64).instr(name).unwrap()
    }

    /// Every condition of every condition form: the opcode's low nibble is
    /// the condition, the text spells it, capstone agrees.
    #[test]
    fn every_condition_encodes_prints_and_checks() {
        let t = target(Arch::X86_64);
        for (name, opcode_at) in [
            ("CMOV16rr", 2),
            ("CMOV32rr", 1),
            ("CMOV64rr", 2),
            ("SETCCr", 1),
            ("JCC_1", 0),
        ] {
            let f = form(name);
            assert!(runs_anyway(&f), "{name}");
            let base = t.example(f).unwrap();
            let k = f.mc_operands().iter().position(is_cond).unwrap();
            assert_eq!(base.ops[k], OpValue::Imm(DEFAULT), "{name}");
            for (c, cc) in CONDITIONS.iter().enumerate() {
                let mut inst = base.clone();
                inst.ops[k] = OpValue::Imm(c as i64);
                let line =
                    crate::arch::emit(t, &inst).unwrap_or_else(|e| panic!("{name} {cc}: {e}"));
                let mnemonic = line.text.split_whitespace().next().unwrap();
                let prefix = &f.asm_template()[..f.asm_template().find('$').unwrap()];
                assert_eq!(mnemonic, format!("{prefix}{cc}"), "{}", line.text);
                assert_eq!(
                    line.bytes[opcode_at] & 0x0f,
                    c as u8,
                    "{name} {cc}: {:02x?}",
                    line.bytes
                );
                if name == "JCC_1" {
                    // To the next instruction: displacement 0.
                    assert_eq!(line.text, format!("j{cc} .+2"));
                    assert_eq!(line.bytes, vec![0x70 + c as u8, 0]);
                }
            }
        }
        let jmp = crate::arch::emit(t, &t.example(form("JMP_1")).unwrap()).unwrap();
        assert_eq!(
            (jmp.text.as_str(), jmp.bytes.as_slice()),
            ("jmp .+2", &[0xeb, 0][..])
        );
    }

    /// Each synonym branches as the condition's first spelling does, and
    /// the sixteen conditions are sixteen opcodes (`jb`, `jc` and `jnae`
    /// are `72 rel8`).
    #[test]
    fn every_spelling_of_a_condition_branches_as_its_first() {
        use crate::arch::AsmDialect;
        let bytes = |m: String| {
            crate::arch::x86_64::X86_64
                .branch(&m, &["l"], 16, false)
                .unwrap()
                .unwrap()
        };
        let mut opcodes = Vec::new();
        for (c, spellings) in CONDITIONS.iter().zip(SPELLINGS) {
            assert_eq!(spellings[0], *c);
            let first = bytes(format!("j{c}"));
            for s in spellings {
                assert_eq!(bytes(format!("j{s}")), first, "j{s}");
            }
            opcodes.push(first[0]);
        }
        assert_eq!(opcodes, (0x70..0x80).collect::<Vec<u8>>());
        assert_eq!(bytes("jnae".into()), [0x72, 14]);
    }

    #[test]
    fn a_condition_out_of_range_is_refused() {
        let t = target(Arch::X86_64);
        let mut inst = t.example(form("SETCCr")).unwrap();
        inst.ops[1] = OpValue::Imm(16);
        assert!(crate::arch::emit(t, &inst).is_err());
    }

    #[test]
    fn only_short_branches_and_register_condition_forms_run() {
        for (name, runs) in [
            ("CMOV64rr", true),
            ("SETCCr", true),
            ("JCC_1", true),
            ("JMP_1", true),
            ("JCC_4", false),
            ("JMP_4", false),
            ("CMOV64rm", false),
            ("SETCCm", false),
            ("CMOV64rr_ND", false),
            ("ADD64rr", false),
        ] {
            assert_eq!(runs_anyway(&form(name)), runs, "{name}");
            let skip = crate::kernel::shape::skip_reason(target(Arch::X86_64), form(name));
            if runs {
                assert_eq!(skip, None, "{name}");
            }
        }
    }

    #[test]
    fn a_jcc_has_two_outcomes_and_a_jmp_none() {
        let t = target(Arch::X86_64);
        let jcc = t.example(form("JCC_1")).unwrap();
        let o = t.outcomes(&jcc);
        assert_eq!(o.len(), 2);
        assert!(o[0].0.starts_with("taken") && o[1].0.starts_with("not taken"));
        assert_eq!(t.print(&o[0].1).unwrap(), "jne .+2");
        assert_eq!(t.print(&o[1].1).unwrap(), "je .+2");
        assert!(t.outcomes(&t.example(form("JMP_1")).unwrap()).is_empty());
        assert!(t.outcomes(&t.example(form("CMOV64rr")).unwrap()).is_empty());
    }
}
