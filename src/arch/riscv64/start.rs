//! The start stub of a static RISC-V Linux executable around a kernel
//! (`crate::elf`): the iteration count into a0 (`lui`/`addiw`, and for
//! counts beyond 32 bits `slli`/`addi` as LLVM's `RISCVMatInt` builds
//! constants), `jal ra, kernel`, then `exit(0)`: `addi a7, zero, 93`
//! (`__NR_exit` of the generic syscall table), `addi a0, zero, 0`, `ecall`.
//! At the entry point sp is 16-byte aligned (RISC-V psABI, "Integer
//! Calling Convention" and the kernel's ELF loader), which the stub keeps:
//! it touches neither sp nor the stack.

use super::Riscv64;
use crate::arch::bits::encode_fields;
use crate::arch::{inst_of, reg_of, EncodeError, Inst, KernelError, Line, OpValue, StartStub};
use crate::isa::{Arch, Encoding, Isa};
use capstone::arch::riscv::{ArchExtraMode, ArchMode};
use capstone::arch::{BuildsCapstone, BuildsCapstoneExtraMode};
use capstone::Capstone;

const A: Arch = Arch::Riscv64;

/// Linux RISC-V `exit` (the generic table of `asm-generic/unistd.h`).
const NR_EXIT: i64 = 93;

/// Where the call is decoded: far from 0, so that a kernel before the stub
/// has a positive address too.
const BASE: u64 = 1 << 32;

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

/// The low 12 bits of `v`, sign-extended: what `addi`/`addiw` add.
fn lo12(v: i64) -> i64 {
    (v << 52) >> 52
}

/// Instructions that set `rd` to `v`, after LLVM's `RISCVMatInt`
/// (`generateInstSeqImpl`): a 32-bit signed value is `lui` + `addiw`; a
/// wider one is the value without its low 12 bits (shifted right past its
/// trailing zeros, built the same way), `slli`, then `addi` of the low 12.
pub(super) fn load(rd: OpValue, v: i64) -> Result<Vec<Inst>, EncodeError> {
    let zero = r("X0")?;
    if v == v as i32 as i64 {
        let hi20 = ((v + 0x800) >> 12) & 0xfffff;
        let lo = lo12(v);
        let mut out = Vec::new();
        if hi20 != 0 {
            out.push(inst_of(A, "LUI", &[rd, OpValue::Imm(hi20)])?);
        }
        if lo != 0 || hi20 == 0 {
            let (form, src) = if hi20 != 0 {
                ("ADDIW", rd)
            } else {
                ("ADDI", zero)
            };
            out.push(inst_of(A, form, &[rd, src, OpValue::Imm(lo)])?);
        }
        return Ok(out);
    }
    let lo = lo12(v);
    let hi52 = (v as u64).wrapping_add(0x800) >> 12;
    let shift = 12 + hi52.trailing_zeros();
    // Sign-extend the remaining 64 - shift bits.
    let rest = ((hi52 >> (shift - 12)) << shift) as i64 >> shift;
    let mut out = load(rd, rest)?;
    out.push(inst_of(A, "SLLI", &[rd, rd, OpValue::Imm(shift as i64)])?);
    if lo != 0 {
        out.push(inst_of(A, "ADDI", &[rd, rd, OpValue::Imm(lo)])?);
    }
    Ok(out)
}

impl StartStub for Riscv64 {
    fn start_count(&self, iterations: u64) -> Result<Vec<Inst>, EncodeError> {
        load(r("X10")?, iterations as i64)
    }

    /// `jal ra` at byte `at` of the stub to byte `to`, placed by LLVM's `JAL`
    /// layout (`imm20` = the offset in half-words, LLVM's
    /// `getImmOpValueAsr1`, 20 bits two's complement: ±1 MiB), and decoded
    /// again by capstone to prove its target.
    fn start_call(&self, at: i64, to: i64) -> Result<Line, KernelError> {
        let form = Isa::get(A)
            .instr("JAL")
            .ok_or_else(|| EncodeError::Unsupported("no form JAL".into()))?;
        let Encoding::Bits(layout) = form.encoding() else {
            return Err(EncodeError::Unsupported("JAL has no bit layout".into()).into());
        };
        let offset = to - at;
        if offset % 2 != 0 || !(-(1 << 20)..(1 << 20)).contains(&offset) {
            return Err(EncodeError::BadOperand(format!(
                "jal cannot reach {offset} bytes away (an even number within ±1 MiB)"
            ))
            .into());
        }
        let half_words = (offset / 2) as u64 & 0xfffff;
        let word = encode_fields(&form, &layout, |_, m| match m.name {
            "rd" => Ok(1), // ra
            _ => Ok(half_words),
        })?;
        let bytes = (word as u32).to_le_bytes().to_vec();
        let ip = BASE.wrapping_add_signed(at);
        let seen = decode(&bytes, ip);
        // Capstone 5 prints the offset of `jal`, not the address it reaches.
        let want = Some(("jal".to_string(), offset));
        if seen != want {
            return Err(KernelError::Check(format!(
                "jal ra, kernel: capstone decodes {seen:?}, intended jal with offset {offset}"
            )));
        }
        Ok(Line {
            text: "jal ra, kernel".into(),
            bytes,
        })
    }

    fn start_exit(&self) -> Result<Vec<Inst>, EncodeError> {
        let zero = r("X0")?;
        Ok(vec![
            inst_of(A, "ADDI", &[r("X17")?, zero, OpValue::Imm(NR_EXIT)])?,
            inst_of(A, "ADDI", &[r("X10")?, zero, OpValue::Imm(0)])?,
            inst_of(A, "ECALL", &[])?,
        ])
    }
}

/// Capstone's mnemonic and (signed) immediate of `bytes` decoded at `ip`.
fn decode(bytes: &[u8], ip: u64) -> Option<(String, i64)> {
    let cs = Capstone::new()
        .riscv()
        .mode(ArchMode::RiscV64)
        .extra_mode([ArchExtraMode::RiscVC].into_iter())
        .build()
        .ok()?;
    let insns = cs.disasm_count(bytes, ip, 1).ok()?;
    let i = insns.iter().next()?;
    let op = i.op_str()?.rsplit(", ").next()?;
    Some((i.mnemonic()?.to_string(), crate::arch::int_literal(op)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs LUI/ADDIW/ADDI/SLLI as RV64 does.
    fn run(insts: &[Inst]) -> i64 {
        let mut x = 0i64;
        for i in insts {
            let imm = match i.ops.last() {
                Some(OpValue::Imm(v)) => *v,
                _ => panic!("no immediate"),
            };
            let src = match i.ops.get(1) {
                Some(OpValue::Reg(r)) if r.name() == "X0" => 0,
                _ => x,
            };
            x = match i.form.name() {
                "LUI" => ((imm << 12) as i32) as i64,
                "ADDIW" => (src.wrapping_add(imm)) as i32 as i64,
                "ADDI" => src.wrapping_add(imm),
                "SLLI" => src << imm,
                other => panic!("{other}"),
            };
        }
        x
    }

    #[test]
    fn counts_are_loaded_exactly() {
        let a0 = r("X10").unwrap();
        let mut values = vec![1u64, 2, 1000, 0x7ff, 0x800, 0xfff, 0x1000, 0x7fff_f7ff];
        values.extend([
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            1 << 40,
            0x1234_5678_9abc_def0,
        ]);
        values.extend([u64::MAX, i64::MAX as u64, (1 << 63) + 0x801]);
        for v in values {
            let insts = load(a0, v as i64).unwrap();
            assert!(insts.len() <= 8, "{v:#x}: {} instructions", insts.len());
            assert_eq!(run(&insts) as u64, v, "{v:#x}");
        }
    }

    #[test]
    fn the_stub_loads_calls_and_exits() {
        let lines = Riscv64.start(1000, -64).unwrap();
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "addi a0, zero, 1000",
                "jal ra, kernel",
                "addi a7, zero, 93",
                "addi a0, zero, 0",
                "ecall"
            ]
        );
    }

    #[test]
    fn unreachable_or_odd_targets_are_refused() {
        assert!(Riscv64.start(1, 7).is_err());
        assert!(Riscv64.start(1, 1 << 21).is_err());
    }
}
