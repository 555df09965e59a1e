//! The start stub of a static AArch64 Linux executable around a kernel
//! (`crate::elf`): `movz x0, #N` plus a `movk x0, #N, lsl #s` per further
//! non-zero 16-bit part, `bl kernel`, then `exit(0)`: `movz x8, #93`
//! (`__NR_exit` of the generic syscall table), `movz x0, #0`, `svc #0`.
//! At the entry point SP is 16-byte aligned (AAPCS64 §6.4.5.1, and the
//! kernel's ELF loader), which the stub keeps: it touches neither SP nor the
//! stack. `bl` overwrites X30, which nobody needs: the stub never returns.

use super::AArch64;
use crate::arch::bits::encode_fields;
use crate::arch::{inst_of, reg_of, EncodeError, Inst, KernelError, Line, OpValue, StartStub};
use crate::isa::{Arch, Encoding, Isa};
use capstone::arch::arm64::ArchMode;
use capstone::arch::BuildsCapstone;
use capstone::Capstone;

const A: Arch = Arch::Aarch64;

/// Linux AArch64 `exit` (the generic table of `asm-generic/unistd.h`).
const NR_EXIT: i64 = 93;

/// Where the call is decoded: far from 0, so that a kernel before the stub
/// has a positive address too.
const BASE: u64 = 1 << 32;

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

/// `movz`/`movk` of `value` into `rd`: LLVM's `MOVZXi`/`MOVKXi`, whose
/// shift operand is the shift in bits (0, 16, 32, 48).
fn load(rd: &str, value: u64) -> Result<Vec<Inst>, EncodeError> {
    let x = r(rd)?;
    let part = |k: u32| OpValue::Imm(((value >> (16 * k)) & 0xffff) as i64);
    let mut out = vec![inst_of(A, "MOVZXi", &[x, part(0), OpValue::Imm(0)])?];
    for k in 1..4 {
        if (value >> (16 * k)) & 0xffff != 0 {
            out.push(inst_of(
                A,
                "MOVKXi",
                &[x, x, part(k), OpValue::Imm(16 * k as i64)],
            )?);
        }
    }
    Ok(out)
}

impl StartStub for AArch64 {
    fn start_count(&self, iterations: u64) -> Result<Vec<Inst>, EncodeError> {
        load("X0", iterations)
    }

    /// `bl` at byte `at` of the stub to byte `to`, placed by LLVM's `BL`
    /// layout (`addr` = the word offset, 26 bits two's complement: ±128 MiB),
    /// and decoded again by capstone to prove its target.
    fn start_call(&self, at: i64, to: i64) -> Result<Line, KernelError> {
        let form = Isa::get(A)
            .instr("BL")
            .ok_or_else(|| EncodeError::Unsupported("no form BL".into()))?;
        let Encoding::Bits(layout) = form.encoding() else {
            return Err(EncodeError::Unsupported("BL has no bit layout".into()).into());
        };
        let offset = to - at;
        if offset % 4 != 0 || !(-(1 << 27)..(1 << 27)).contains(&offset) {
            return Err(EncodeError::BadOperand(format!(
                "bl cannot reach {offset} bytes away (a multiple of 4 within ±128 MiB)"
            ))
            .into());
        }
        let words = (offset / 4) as u64 & ((1 << 26) - 1);
        let word = encode_fields(&form, &layout, |_, _| Ok(words))?;
        let bytes = (word as u32).to_le_bytes().to_vec();
        let ip = BASE.wrapping_add_signed(at);
        let target = BASE.wrapping_add_signed(to);
        let seen = decode(&bytes, ip);
        if seen != Some(("bl".to_string(), target)) {
            return Err(KernelError::Check(format!(
                "bl kernel: capstone decodes {seen:?}, intended bl to {target:#x}"
            )));
        }
        Ok(Line {
            text: "bl kernel".into(),
            bytes,
        })
    }

    fn start_exit(&self) -> Result<Vec<Inst>, EncodeError> {
        let mut exit = load("X8", NR_EXIT as u64)?;
        exit.extend(load("X0", 0)?);
        exit.push(inst_of(A, "SVC", &[OpValue::Imm(0)])?);
        Ok(exit)
    }
}

/// Capstone's mnemonic and branch target of `bytes` decoded at `ip`.
fn decode(bytes: &[u8], ip: u64) -> Option<(String, u64)> {
    let cs = Capstone::new().arm64().mode(ArchMode::Arm).build().ok()?;
    let insns = cs.disasm_count(bytes, ip, 1).ok()?;
    let i = insns.iter().next()?;
    let op = i.op_str()?.trim_start_matches('#');
    let target = u64::from_str_radix(op.strip_prefix("0x")?, 16).ok()?;
    Some((i.mnemonic()?.to_string(), target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stub_loads_calls_and_exits() {
        let lines = AArch64.start(1000, -64).unwrap();
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "movz x0, #1000",
                "bl kernel",
                "movz x8, #93",
                "movz x0, #0",
                "svc #0x0"
            ]
        );
        // bl at byte 4 back to -64: -17 words.
        let word = u32::from_le_bytes(lines[1].bytes[..].try_into().unwrap());
        assert_eq!(word, 0x9400_0000 | ((-17i32 as u32) & 0x03ff_ffff));
    }

    #[test]
    fn every_non_zero_part_of_the_count_is_loaded() {
        let lines = AArch64.start(0x0001_0000_0000_0005, 8).unwrap();
        assert_eq!(lines[0].text, "movz x0, #5");
        assert_eq!(lines[1].text, "movk x0, #1, lsl #48");
        assert_eq!(lines[2].text, "bl kernel");
    }

    #[test]
    fn unreachable_or_misaligned_targets_are_refused() {
        assert!(AArch64.start(1, 6).is_err());
        assert!(AArch64.start(1, 1 << 28).is_err());
    }
}
