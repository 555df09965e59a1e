//! The branches winic's assembler (manual mode) knows on RISC-V, to a
//! label: `beq bne blt bge bltu bgeu`, the pseudo-instructions of the
//! unprivileged spec (table "conditional branch pseudoinstructions":
//! `beqz bnez blez bgez bltz bgtz bgt ble bgtu bleu`), `j` and `jal`;
//! encoded from LLVM's bit layouts of the B-type forms and JAL.

use super::Riscv64;
use crate::arch::bits::encode_fields;
use crate::arch::{inst_of, reg_of, AsmDialect, Dialect, EncodeError, Inst};
use crate::isa::{Arch, Encoding, Isa, Reg};

const A: Arch = Arch::Riscv64;

impl AsmDialect for Riscv64 {
    fn dialect(&self) -> Dialect {
        Dialect {
            syntax: None,
            align_is_power: true,
            hash_comment_anywhere: true,
            pseudo,
            memory: None,
            isa_directives: &[".option", ".attribute"],
        }
    }

    fn branch(
        &self,
        mnemonic: &str,
        operands: &[&str],
        offset: i64,
        _long: bool,
    ) -> Option<Result<Vec<u8>, EncodeError>> {
        let reg = |s: &str| crate::arch::reg_named(A, s);
        let zero = Isa::get(A).register("X0")?;
        let ra = Isa::get(A).register("X1")?;
        // (form, rs1 or rd, rs2)
        let (form, a, b): (&str, Reg, Option<Reg>) = match (mnemonic, operands) {
            ("beq" | "bne" | "blt" | "bge" | "bltu" | "bgeu", [x, y, _]) => {
                (upper(mnemonic), reg(x)?, Some(reg(y)?))
            }
            ("bgt" | "ble" | "bgtu" | "bleu", [x, y, _]) => {
                let f = match mnemonic {
                    "bgt" => "BLT",
                    "ble" => "BGE",
                    "bgtu" => "BLTU",
                    _ => "BGEU",
                };
                (f, reg(y)?, Some(reg(x)?))
            }
            ("beqz", [x, _]) => ("BEQ", reg(x)?, Some(zero)),
            ("bnez", [x, _]) => ("BNE", reg(x)?, Some(zero)),
            ("bltz", [x, _]) => ("BLT", reg(x)?, Some(zero)),
            ("bgez", [x, _]) => ("BGE", reg(x)?, Some(zero)),
            ("blez", [x, _]) => ("BGE", zero, Some(reg(x)?)),
            ("bgtz", [x, _]) => ("BLT", zero, Some(reg(x)?)),
            ("j", [_]) => ("JAL", zero, None),
            ("jal", [_]) => ("JAL", ra, None),
            ("jal", [x, _]) => ("JAL", reg(x)?, None),
            _ => return None,
        };
        Some(encode(form, a, b, offset))
    }

    fn nop(&self) -> Result<Inst, EncodeError> {
        inst_of(
            A,
            "ADDI",
            &[
                reg_of(A, "X0")?,
                reg_of(A, "X0")?,
                crate::arch::OpValue::Imm(0),
            ],
        )
    }
}

fn upper(m: &str) -> &'static str {
    match m {
        "beq" => "BEQ",
        "bne" => "BNE",
        "blt" => "BLT",
        "bge" => "BGE",
        "bltu" => "BLTU",
        _ => "BGEU",
    }
}

pub fn encode(name: &str, a: Reg, b: Option<Reg>, offset: i64) -> Result<Vec<u8>, EncodeError> {
    let form = Isa::get(A)
        .instr(name)
        .ok_or_else(|| EncodeError::Unsupported(format!("no form {name}")))?;
    let Encoding::Bits(layout) = form.encoding() else {
        return Err(EncodeError::Unsupported(format!(
            "{name} has no bit layout"
        )));
    };
    // Offsets in half-words: 12 bits for B-type (±4 KiB), 20 for JAL
    // (±1 MiB).
    let bits = if name == "JAL" { 20 } else { 12 };
    let half = 1i64 << (bits - 1);
    if offset % 2 != 0 || !(-half..half).contains(&(offset / 2)) {
        return Err(EncodeError::BadOperand(format!(
            "{name}: {offset} bytes is out of reach (an even number within ±{} bytes)",
            half * 2
        )));
    }
    let imm = (offset / 2) as u64 & ((1u64 << bits) - 1);
    let word = encode_fields(&form, &layout, |_, m| match m.name {
        "rs1" | "rd" => Ok(u64::from(a.encoding())),
        "rs2" => b
            .map(|r| u64::from(r.encoding()))
            .ok_or_else(|| EncodeError::BadOperand("missing rs2".into())),
        _ => Ok(imm),
    })?;
    Ok((word as u32).to_le_bytes().to_vec())
}

/// The pseudo-instructions of the unprivileged spec's table that are not
/// branches: `ret`, `nop`, `mv rd, rs`, `li rd, imm` (12-bit), `not`,
/// `neg`.
fn pseudo(mnemonic: &str, ops: &[&str]) -> Option<String> {
    Some(match (mnemonic, ops) {
        ("ret", []) => "jalr zero, 0(ra)".into(),
        ("nop", []) => "addi zero, zero, 0".into(),
        ("mv", [d, s]) => format!("addi {d}, {s}, 0"),
        ("li", [d, imm]) => format!("addi {d}, zero, {imm}"),
        ("not", [d, s]) => format!("xori {d}, {s}, -1"),
        ("neg", [d, s]) => format!("sub {d}, zero, {s}"),
        _ => return None,
    })
}
