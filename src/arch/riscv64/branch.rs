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
/// branches: `ret`, `nop`, `mv rd, rs`, `li rd, imm` (any 64-bit value,
/// as GNU as expands it: [`li_sequence`]), `not`, `neg`, `sext.w`, `jr`,
/// `sgt(u)`, and `fmv`, `fneg`, `fabs` of `.s` and `.d`.
fn pseudo(mnemonic: &str, ops: &[&str]) -> Option<String> {
    Some(match (mnemonic, ops) {
        ("ret", []) => "jalr zero, 0(ra)".into(),
        ("nop", []) => "addi zero, zero, 0".into(),
        ("mv", [d, s]) => format!("addi {d}, {s}, 0"),
        ("li", [d, imm]) => match crate::arch::int_literal(imm) {
            Some(v) => li_sequence(v)
                .iter()
                .enumerate()
                .map(|(i, (op, k))| {
                    let from = if i == 0 && *op != "lui" { "zero" } else { d };
                    match *op {
                        "lui" => format!("lui {d}, {k}"),
                        _ => format!("{op} {d}, {from}, {k}"),
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
            None => format!("addi {d}, zero, {imm}"),
        },
        ("not", [d, s]) => format!("xori {d}, {s}, -1"),
        ("sext.w", [d, s]) => format!("addiw {d}, {s}, 0"),
        ("jr", [s]) => format!("jalr zero, 0({s})"),
        ("sgt", [d, a, b]) => format!("slt {d}, {b}, {a}"),
        ("sgtu", [d, a, b]) => format!("sltu {d}, {b}, {a}"),
        ("fmv.s" | "fmv.d", [d, s]) => format!("fsgnj.{} {d}, {s}, {s}", &mnemonic[4..]),
        ("fneg.s" | "fneg.d", [d, s]) => format!("fsgnjn.{} {d}, {s}, {s}", &mnemonic[5..]),
        ("fabs.s" | "fabs.d", [d, s]) => format!("fsgnjx.{} {d}, {s}, {s}", &mnemonic[5..]),
        ("neg", [d, s]) => format!("sub {d}, zero, {s}"),
        _ => return None,
    })
}

/// The instructions `li rd, v` stands for (LLVM's RISCVMatInt without its
/// shortcuts): a 12-bit value is one `addi`; a 32-bit one `lui` of the
/// upper 20 bits (rounded for the sign of the lower 12) and `addiw` of
/// the rest; a wider one the value without its low 12 bits and trailing
/// zeros, built the same way, shifted left, plus `addi` of the low 12.
/// Each step is (mnemonic, immediate).
fn li_sequence(v: i64) -> Vec<(&'static str, i64)> {
    let lo12 = (v << 52) >> 52;
    if i64::from(v as i32) == v {
        let hi20 = (v.wrapping_add(0x800) >> 12) & 0xf_ffff;
        let mut seq = Vec::new();
        if hi20 != 0 {
            seq.push(("lui", hi20));
        }
        if lo12 != 0 || hi20 == 0 {
            seq.push((if hi20 != 0 { "addiw" } else { "addi" }, lo12));
        }
        return seq;
    }
    let hi52 = v.wrapping_sub(lo12) >> 12;
    let shift = hi52.trailing_zeros() as i64;
    let mut seq = li_sequence(hi52 >> shift);
    seq.push(("slli", shift + 12));
    if lo12 != 0 {
        seq.push(("addi", lo12));
    }
    seq
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the sequence leaves in the register, as RV64 computes it.
    fn run(seq: &[(&str, i64)]) -> i64 {
        seq.iter().fold(0i64, |x, (op, k)| match *op {
            "lui" => i64::from((*k << 12) as i32),
            "addiw" => i64::from((x as i32).wrapping_add(*k as i32)),
            "addi" => {
                assert!((-2048..2048).contains(k), "addi {k}");
                x.wrapping_add(*k)
            }
            "slli" => x << k,
            _ => panic!("{op}"),
        })
    }

    #[test]
    fn li_builds_every_value() {
        let mut vals = vec![
            0,
            1,
            -1,
            2047,
            -2048,
            2048,
            0x4000_0000,
            0x7fff_f800,
            0x7fff_ffff,
            -0x8000_0000,
            0x8000_0000,
            0xffff_ffff,
            0x1_0000_01b3,
            0xcbf2_9ce4_8422_2325_u64 as i64,
            i64::MAX,
            i64::MIN,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x as i64);
            vals.push((x >> (x % 64)) as i64);
        }
        for v in vals {
            let seq = li_sequence(v);
            assert_eq!(run(&seq), v, "{v:#x}: {seq:?}");
            assert!(seq.len() <= 8, "{v:#x}: {seq:?}");
        }
        assert_eq!(li_sequence(0x4000_0000), [("lui", 0x40000)]);
        assert_eq!(
            pseudo("li", &["a7", "1073844224"]).unwrap(),
            "lui a7, 262169"
        );
        assert_eq!(
            pseudo("li", &["t3", "0x100000001b3"])
                .unwrap()
                .lines()
                .count(),
            3
        );
        assert_eq!(pseudo("li", &["a0", "-5"]).unwrap(), "addi a0, zero, -5");
    }
}
