//! The frame of an AArch64 kernel (AAPCS64): X19-X28 and the low halves of
//! V8-V15 (D8-D15) are callee-saved and stored below SP when touched (X28,
//! the loop counter, always); the iteration count arrives in X0; `subs
//! x28, x28, #1` / `b.ne` close the loop.

use super::{AArch64, LOOP_COUNTER};
use crate::arch::{
    container_in, inst_of, reg_of, EncodeError, Inst, KernelFrame, Line, ModeSwitch, OpValue,
};
use crate::isa::{Arch, Instr, Isa, Reg};

const A: Arch = Arch::Aarch64;

/// Callee-saved registers of AAPCS64 a kernel may touch (X29/X30 are
/// reserved and never touched).
const CALLEE_SAVED: [&str; 18] = [
    "X19", "X20", "X21", "X22", "X23", "X24", "X25", "X26", "X27", "X28", "D8", "D9", "D10", "D11",
    "D12", "D13", "D14", "D15",
];

/// 0x4000 in each 16-bit lane: 2.0 as half and bfloat16, normal numbers
/// in wider lanes, neither 0 nor 1 as an integer; a valid logical
/// immediate, so one `orr` sets it.
pub const UNCRITICAL: i64 = 0x4000_4000_4000_4000;

/// Vector initialisations broadcast from this register; the prologue has
/// already copied the iteration count out of it, and general-purpose
/// registers are initialised afterwards.
const SCRATCH: &str = "X0";

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

fn saved(touched: &[Reg]) -> Result<Vec<Reg>, EncodeError> {
    let isa = Isa::get(A);
    let mut out = Vec::new();
    for name in CALLEE_SAVED {
        let reg = isa
            .register(name)
            .ok_or_else(|| EncodeError::Unsupported(format!("no register {name}")))?;
        if name == LOOP_COUNTER || touched.iter().any(|t| t.overlaps(reg)) {
            out.push(reg);
        }
    }
    Ok(out)
}

/// Bytes of stack for `n` 8-byte slots, SP kept 16-byte aligned.
fn frame_size(n: usize) -> i64 {
    (n as i64 * 8 + 15) / 16 * 16
}

fn save_or_restore(touched: &[Reg], save: bool) -> Result<Vec<Inst>, EncodeError> {
    let regs = saved(touched)?;
    let mut out = Vec::new();
    for (k, reg) in regs.iter().enumerate() {
        let is_d = container_in(A, "FPR64", *reg) == Some(*reg);
        let form = match (is_d, save) {
            (false, true) => "STRXui",
            (false, false) => "LDRXui",
            (true, true) => "STRDui",
            (true, false) => "LDRDui",
        };
        out.push(inst_of(
            A,
            form,
            &[OpValue::Reg(*reg), r("SP")?, OpValue::Imm(8 * k as i64)],
        )?);
    }
    Ok(out)
}

impl KernelFrame for AArch64 {
    fn cannot_run(&self, form: Instr) -> Option<String> {
        super::runnable::cannot_run(&form)
    }

    fn mode_switch(&self, body: &[Instr]) -> Option<ModeSwitch> {
        body.iter()
            .any(|f| super::host::needs_streaming(*f))
            .then(streaming_with_za)
            .and_then(Result::ok)
    }

    fn prologue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let n = frame_size(saved(touched)?.len());
        let sp = r("SP")?;
        let mut out = vec![inst_of(
            A,
            "SUBXri",
            &[sp, sp, OpValue::Imm(n), OpValue::Imm(0)],
        )?];
        out.extend(save_or_restore(touched, true)?);
        out.push(inst_of(
            A,
            "ORRXrs",
            &[r(LOOP_COUNTER)?, r("XZR")?, r("X0")?, OpValue::Imm(0)],
        )?);
        Ok(out)
    }

    fn epilogue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let n = frame_size(saved(touched)?.len());
        let sp = r("SP")?;
        let mut out = save_or_restore(touched, false)?;
        out.push(inst_of(
            A,
            "ADDXri",
            &[sp, sp, OpValue::Imm(n), OpValue::Imm(0)],
        )?);
        out.push(inst_of(A, "RET", &[r("LR")?])?);
        Ok(out)
    }

    fn init(&self, reg: Reg) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let v = OpValue::Imm(UNCRITICAL);
        if let Some(x) = container_in(A, "GPR64", reg) {
            return Ok((
                x,
                vec![inst_of(A, "ORRXri", &[OpValue::Reg(x), r("XZR")?, v])?],
            ));
        }
        let load = inst_of(A, "ORRXri", &[r(SCRATCH)?, r("XZR")?, v])?;
        let (whole, set) = if let Some(z) = container_in(A, "ZPR", reg).filter(|_| host_has_sve()) {
            (z, inst_of(A, "DUP_ZR_D", &[OpValue::Reg(z), r(SCRATCH)?])?)
        } else if let Some(q) = container_in(A, "FPR128", reg) {
            (
                q,
                inst_of(A, "DUPv2i64gpr", &[OpValue::Reg(q), r(SCRATCH)?])?,
            )
        } else if let Some(p) = container_in(A, "PPR", reg) {
            // All lanes active (pattern 31, `all`).
            return Ok((
                p,
                vec![inst_of(A, "PTRUE_B", &[OpValue::Reg(p), OpValue::Imm(31)])?],
            ));
        } else {
            return Err(EncodeError::Unsupported(format!(
                "{} is not a data register winic initialises (general-purpose, FP/SIMD, SVE vector or predicate)",
                reg.name()
            )));
        };
        Ok((whole, vec![load, set]))
    }

    /// `movz` of the lowest non-zero 16-bit part, `movk` of the others
    /// (one instruction for the data area's address and for 0).
    fn init_address(&self, reg: Reg, addr: u64) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let x = container_in(A, "GPR64", reg).ok_or_else(|| {
            EncodeError::Unsupported(format!("{} cannot hold an address", reg.name()))
        })?;
        let xv = OpValue::Reg(x);
        let part = |k: u32| ((addr >> (16 * k)) & 0xffff) as i64;
        let first = (0..4).find(|&k| part(k) != 0).unwrap_or(0);
        let mut out = vec![inst_of(
            A,
            "MOVZXi",
            &[
                xv,
                OpValue::Imm(part(first)),
                OpValue::Imm(16 * i64::from(first)),
            ],
        )?];
        for k in first + 1..4 {
            if part(k) != 0 {
                out.push(inst_of(
                    A,
                    "MOVKXi",
                    &[
                        xv,
                        xv,
                        OpValue::Imm(part(k)),
                        OpValue::Imm(16 * i64::from(k)),
                    ],
                )?);
            }
        }
        Ok((x, out))
    }

    fn count_down(&self) -> Result<Vec<Inst>, EncodeError> {
        let c = r(LOOP_COUNTER)?;
        Ok(vec![inst_of(
            A,
            "SUBSXri",
            &[c, c, OpValue::Imm(1), OpValue::Imm(0)],
        )?])
    }

    /// `b.ne` back, by the assembler's branch encoder (LLVM's `Bcc` layout,
    /// `cond` = NE).
    fn branch_back(&self, back: usize) -> Result<Line, EncodeError> {
        Ok(Line {
            text: format!("b.ne {}", crate::arch::LOOP_LABEL),
            bytes: super::branch::encode("Bcc", Some(1), None, -(back as i64))?,
        })
    }

    fn chain_add(&self) -> Result<Inst, EncodeError> {
        inst_of(
            A,
            "ADDXrs",
            &[r("X1")?, r("X1")?, r("X2")?, OpValue::Imm(0)],
        )
    }
}

/// `smstart` (`msr svcrsmza, #1`: streaming mode and ZA on) and `smstop`,
/// for a body of SME forms. Entering streaming mode zeroes every Z and P
/// register, so the low halves D8-D15 (callee-saved) are saved whether
/// the body touches them or not; the initialisations come after it.
fn streaming_with_za() -> Result<ModeSwitch, EncodeError> {
    const SVCRSMZA: i64 = 0b011;
    let msr = |on| {
        inst_of(
            A,
            "MSRpstatesvcrImm1",
            &[OpValue::Imm(SVCRSMZA), OpValue::Imm(on)],
        )
    };
    let isa = Isa::get(A);
    Ok(ModeSwitch {
        enter: vec![msr(1)?],
        ready: Vec::new(),
        leave: vec![msr(0)?],
        clobbers: (8..16)
            .filter_map(|k| isa.register(&format!("D{k}")))
            .collect(),
    })
}

/// Whether the host has SVE (`HWCAP_SVE`). On another host the AArch64
/// kernels are only written, never run: assume it does.
fn host_has_sve() -> bool {
    super::host::detected().is_none_or(|(f, _)| f.lookup("sve") == Some(true))
}
