//! The branches winic's assembler (manual mode) knows on x86-64: `jmp` and
//! every `jcc` spelling to a label, rel8 when it reaches and rel32
//! otherwise, as an assembler relaxes them; encoded by iced-x86.

use super::cond::SPELLINGS;
use super::X86_64;
use crate::arch::{inst_of, AsmDialect, Dialect, EncodeError, Inst};
use crate::isa::{Arch, Instr};
use iced_x86::{Code, Encoder, Instruction};

/// The rel8 and rel32 codes of `jcc`, by condition in the order of
/// [`CONDITIONS`](super::cond::CONDITIONS), whose spellings
/// ([`SPELLINGS`]) name them.
const JCC: [(Code, Code); 16] = [
    (Code::Jo_rel8_64, Code::Jo_rel32_64),
    (Code::Jno_rel8_64, Code::Jno_rel32_64),
    (Code::Jb_rel8_64, Code::Jb_rel32_64),
    (Code::Jae_rel8_64, Code::Jae_rel32_64),
    (Code::Je_rel8_64, Code::Je_rel32_64),
    (Code::Jne_rel8_64, Code::Jne_rel32_64),
    (Code::Jbe_rel8_64, Code::Jbe_rel32_64),
    (Code::Ja_rel8_64, Code::Ja_rel32_64),
    (Code::Js_rel8_64, Code::Js_rel32_64),
    (Code::Jns_rel8_64, Code::Jns_rel32_64),
    (Code::Jp_rel8_64, Code::Jp_rel32_64),
    (Code::Jnp_rel8_64, Code::Jnp_rel32_64),
    (Code::Jl_rel8_64, Code::Jl_rel32_64),
    (Code::Jge_rel8_64, Code::Jge_rel32_64),
    (Code::Jle_rel8_64, Code::Jle_rel32_64),
    (Code::Jg_rel8_64, Code::Jg_rel32_64),
];

/// The rel8 and rel32 codes of the branch `mnemonic` (`jmp`, or `j` and
/// any spelling of a condition), if it is one.
fn codes(mnemonic: &str) -> Option<(Code, Code)> {
    if mnemonic == "jmp" {
        return Some((Code::Jmp_rel8_64, Code::Jmp_rel32_64));
    }
    let cond = mnemonic.strip_prefix('j')?;
    SPELLINGS
        .iter()
        .position(|s| s.contains(&cond))
        .map(|c| JCC[c])
}

/// What winic's assembler reads beyond LLVM's texts: a condition's
/// synonyms (`setz`, [`super::cond::synonym`]) and string operations
/// without operands (`movsb`, [`super::string::bare`]).
fn pseudo(mnemonic: &str, operands: &[&str]) -> Option<String> {
    super::cond::synonym(mnemonic, operands).or_else(|| super::string::bare(mnemonic, operands))
}

impl AsmDialect for X86_64 {
    fn dialect(&self) -> Dialect {
        Dialect {
            syntax: Some(".intel_syntax noprefix"),
            align_is_power: false,
            hash_comment_anywhere: true,
            pseudo,
            memory: Some(super::printer::parse_memory),
            isa_directives: &[],
        }
    }

    fn encoding_rank(&self, form: Instr) -> u8 {
        match form.encoding() {
            crate::isa::Encoding::X86(e) if e.openc() == "EncEVEX" => 1,
            _ => 0,
        }
    }

    fn branch(
        &self,
        mnemonic: &str,
        operands: &[&str],
        offset: i64,
        long: bool,
    ) -> Option<Result<Vec<u8>, EncodeError>> {
        let (short, near) = codes(mnemonic)?;
        if operands.len() != 1 {
            return Some(Err(EncodeError::BadOperand(format!(
                "{mnemonic} takes one operand, a label"
            ))));
        }
        let ip: u64 = 1 << 32;
        let target = ip.wrapping_add(offset as u64);
        let encode = |code: Code| -> Result<Vec<u8>, EncodeError> {
            let ins = Instruction::with_branch(code, target)
                .map_err(|e| EncodeError::BadOperand(format!("{mnemonic}: {e}")))?;
            let mut enc = Encoder::new(64);
            enc.encode(&ins, ip).map_err(|e| {
                EncodeError::BadOperand(format!("{mnemonic} {offset:+} bytes: {e}"))
            })?;
            Ok(enc.take_buffer())
        };
        Some(match long {
            false => encode(short).or_else(|_| encode(near)),
            true => encode(near),
        })
    }

    fn nop(&self) -> Result<Inst, EncodeError> {
        inst_of(Arch::X86_64, "NOOP", &[])
    }

    fn spellings(&self, form: Instr) -> Vec<Inst> {
        super::cond::spellings(form)
    }
}
