//! The start stub of a static x86-64 Linux executable around a kernel
//! (`crate::elf`): `mov edi, N` (or `movabs rdi, N` above 2^31 - 1), `call
//! kernel`, then `exit(0)`: `mov eax, 60` (`__NR_exit` of the x86-64
//! syscall table), `xor edi, edi`, `syscall`. At the entry point RSP is
//! 16-byte aligned (System V psABI §3.4.1), which is what a `call` site
//! needs (§3.2.2); the stub pushes nothing.

use super::X86_64;
use crate::arch::{inst_of, reg_of, EncodeError, Inst, KernelError, Line, OpValue, StartStub};
use crate::isa::Arch;
use iced_x86::{Code, Decoder, DecoderOptions, Encoder, Instruction};

const A: Arch = Arch::X86_64;

/// Linux x86-64 `exit`.
const NR_EXIT: i64 = 60;

/// Where the call is placed while encoding: far from 0, so that a kernel
/// before the stub has a positive address too.
const BASE: u64 = 1 << 32;

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

impl StartStub for X86_64 {
    fn start_count(&self, iterations: u64) -> Result<Vec<Inst>, EncodeError> {
        Ok(vec![if iterations <= i32::MAX as u64 {
            // Writing EDI zero-extends into RDI.
            inst_of(A, "MOV32ri", &[r("EDI")?, OpValue::Imm(iterations as i64)])?
        } else {
            inst_of(A, "MOV64ri", &[r("RDI")?, OpValue::Imm(iterations as i64)])?
        }])
    }

    /// `call rel32` at byte `at` of the stub to byte `to` (both relative to
    /// the stub's first byte), encoded by iced (winic's x86 encoder leaves
    /// PC-relative operands out) and decoded again by iced to prove its target.
    fn start_call(&self, at: i64, to: i64) -> Result<Line, KernelError> {
        let ip = BASE.wrapping_add_signed(at);
        let target = BASE.wrapping_add_signed(to);
        let ins = Instruction::with_branch(Code::Call_rel32_64, target)
            .map_err(|e| EncodeError::BadOperand(format!("call: {e}")))?;
        let mut enc = Encoder::new(64);
        enc.encode(&ins, ip)
            .map_err(|e| EncodeError::BadOperand(format!("call {} bytes away: {e}", to - at)))?;
        let bytes = enc.take_buffer();
        let back = Decoder::with_ip(64, &bytes, ip, DecoderOptions::NONE).decode();
        if back.code() != Code::Call_rel32_64
            || back.near_branch_target() != target
            || back.len() != bytes.len()
        {
            return Err(KernelError::Check(format!(
                "call kernel: iced decodes {back} (target {:#x}), intended call to {target:#x}",
                back.near_branch_target()
            )));
        }
        Ok(Line {
            text: "call kernel".into(),
            bytes,
        })
    }

    fn start_exit(&self) -> Result<Vec<Inst>, EncodeError> {
        Ok(vec![
            inst_of(A, "MOV32ri", &[r("EAX")?, OpValue::Imm(NR_EXIT)])?,
            inst_of(A, "XOR32rr", &[r("EDI")?, r("EDI")?, r("EDI")?])?,
            inst_of(A, "SYSCALL", &[])?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(lines: &[Line]) -> Vec<u8> {
        lines.iter().flat_map(|l| l.bytes.clone()).collect()
    }

    #[test]
    fn the_stub_loads_calls_and_exits() {
        let lines = X86_64.start(1000, -64).unwrap();
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "mov edi, 1000",
                "call kernel",
                "mov eax, 60",
                "xor edi, edi",
                "syscall"
            ]
        );
        // mov edi, imm32 (5 bytes), then call rel32 to -64 - (5 + 5).
        let b = bytes(&lines);
        assert_eq!(&b[5..10], &[0xe8, 0xb6, 0xff, 0xff, 0xff]);
    }

    #[test]
    fn large_counts_use_movabs() {
        let lines = X86_64.start(1 << 40, 100).unwrap();
        assert!(
            lines[0].text.starts_with("movabs rdi, "),
            "{}",
            lines[0].text
        );
        assert_eq!(lines[0].bytes.len(), 10);
        // Decode the call at its place: the target is 100 bytes from the
        // stub's start.
        let b = bytes(&lines);
        let ins = Decoder::with_ip(64, &b[10..], 10, DecoderOptions::NONE).decode();
        assert_eq!(ins.near_branch_target(), 100);
    }
}
