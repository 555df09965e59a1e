//! The frame of an x86-64 kernel (System V ABI): RBX, RBP and R12-R15 are
//! callee-saved and pushed when touched (R15, the loop counter, always);
//! the iteration count arrives in RDI; `dec r15` / `jne` close the loop;
//! `vzeroupper` (on AVX hosts) and `emms` (after MMX) leave the vector and
//! x87 state as the caller expects.

use super::{LOOP_COUNTER, X86_64};
use crate::arch::{
    container_in, inst_of, reg_of, AsmDialect, EncodeError, Inst, KernelFrame, Line, OpValue,
};
use crate::isa::{Arch, Instr, Reg};

const A: Arch = Arch::X86_64;

/// Callee-saved general-purpose registers of the System V ABI.
const CALLEE_SAVED: [&str; 6] = ["RBX", "RBP", "R12", "R13", "R14", "R15"];

/// The value every data register starts with: 0x4000 in each 16-bit lane
/// is 2.0 as half and bfloat16, and the 32- and 64-bit lanes (2.0039…,
/// 2.0001…) are normal numbers too; as integers neither 0 nor 1.
pub const UNCRITICAL: i64 = 0x4000_4000_4000_4000;

/// The value every mask register starts with: all lanes on.
pub const ALL_LANES: i64 = -1;

/// The scratch register vector and mask initialisations go through.
pub(super) const SCRATCH: &str = "RAX";

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

fn saved(touched: &[Reg]) -> Result<Vec<OpValue>, EncodeError> {
    let mut out = Vec::new();
    for name in CALLEE_SAVED {
        let OpValue::Reg(reg) = r(name)? else {
            unreachable!("reg_of gives registers")
        };
        if name == LOOP_COUNTER || touched.iter().any(|t| t.overlaps(reg)) {
            out.push(OpValue::Reg(reg));
        }
    }
    Ok(out)
}

/// Whether `form` works on vector registers of 128 bits or more, and if
/// so whether in a VEX or EVEX encoding (`Some(true)`) or as legacy SSE
/// (`Some(false)`).
fn vex_vector(form: Instr) -> Option<bool> {
    let vector = form
        .operands()
        .filter_map(|o| o.ty().class())
        .any(|c| c.bits() >= 128);
    let crate::isa::Encoding::X86(enc) = form.encoding() else {
        return None;
    };
    vector.then(|| matches!(enc.openc(), "EncVEX" | "EncEVEX"))
}

impl KernelFrame for X86_64 {
    fn cannot_run(&self, form: Instr) -> Option<String> {
        super::runnable::cannot_run(&form)
    }

    /// Scalar floating point (`FR32`, `FR64`, `FR16`) computes in the
    /// vector units as 128-bit work; MMX (`VR64`) as 64-bit; mask
    /// registers (`VK*`) are not vector registers here.
    fn vector_bits(&self, form: Instr) -> Option<u32> {
        form.operands()
            .filter_map(|o| o.ty().class())
            .filter_map(|c| match c.name() {
                n if n.starts_with("FR") => Some(128),
                n if n.starts_with("VR") => Some(c.bits()),
                _ => None,
            })
            .max()
    }

    /// Vector registers (`FR*`, `VR*` of 128 bits or more) among the
    /// inputs, explicit or implicit; masks (`VK*`) and MMX are not counted.
    fn vector_sources(&self, form: Instr) -> usize {
        let vector = |name: &str, bits: u32| {
            name.starts_with("FR") || (name.starts_with("VR") && bits >= 128)
        };
        let explicit = form
            .operands()
            .filter(|o| !o.is_def())
            .filter_map(|o| o.ty().class())
            .filter(|c| vector(c.name(), c.bits()))
            .count();
        let implicit = form
            .implicit_uses()
            .filter(|r| r.name().starts_with("XMM") || r.name().starts_with("YMM"))
            .count();
        explicit + implicit
    }

    /// The files: general-purpose (`GR*`, and EFLAGS written by a vector
    /// form, as `ptest` and `comisd` do), MMX (`VR64`), SSE/AVX (`FR*`,
    /// `VR128`, `VR256`, `VR512`) and masks (`VK*`).
    fn crosses_register_files(&self, form: Instr) -> bool {
        let file = |name: &str| match name {
            n if n.starts_with("GR") => Some(0),
            "VR64" => Some(1),
            n if n.starts_with("FR") || n.starts_with("VR") => Some(2),
            n if n.starts_with("VK") => Some(3),
            _ => None,
        };
        let mut files: Vec<u8> = form
            .operands()
            .filter_map(|o| file(o.ty().class()?.name()))
            .collect();
        if form.implicit_defs().any(|r| r.name() == "EFLAGS") {
            files.push(0);
        }
        files.sort_unstable();
        files.dedup();
        files.len() > 1
    }

    fn mix_group(&self, form: Instr) -> u8 {
        match vex_vector(form) {
            Some(true) => 1,
            Some(false) => 2,
            None => 0,
        }
    }

    fn cannot_mix(&self, a: Instr, b: Instr) -> Option<&'static str> {
        let (a, b) = (self.mix_group(a), self.mix_group(b));
        (a != 0 && b != 0 && a != b).then_some(
            "legacy SSE beside a VEX or EVEX form: the state of the upper halves costs time no \
             port explains",
        )
    }

    fn runs_anyway(&self, form: Instr) -> bool {
        super::cond::runs_anyway(&form)
    }

    fn prologue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let mut out = Vec::new();
        for reg in saved(touched)? {
            out.push(inst_of(A, "PUSH64r", &[reg])?);
        }
        out.push(inst_of(A, "MOV64rr", &[r(LOOP_COUNTER)?, r("RDI")?])?);
        Ok(out)
    }

    fn epilogue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let mut out = Vec::new();
        for reg in saved(touched)?.into_iter().rev() {
            out.push(inst_of(A, "POP64r", &[reg])?);
        }
        if touched
            .iter()
            .any(|t| container_in(A, "VR64", *t).is_some())
        {
            out.push(inst_of(A, "MMX_EMMS", &[])?);
        }
        if host_has("avx") {
            out.push(inst_of(A, "VZEROUPPER", &[])?);
        }
        // The ABI wants the direction flag clear at every call and return;
        // `std` under test sets it, and a caller's memcpy then runs backwards.
        if touched
            .iter()
            .any(|t| t.name() == "EFLAGS" || t.name() == "DF")
        {
            out.push(inst_of(A, "CLD", &[])?);
        }
        out.push(inst_of(A, "RET64", &[OpValue::Imm(0)])?);
        Ok(out)
    }

    fn init(&self, reg: Reg) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let v = OpValue::Imm(UNCRITICAL);
        if let Some(g) = container_in(A, "GR64", reg) {
            return Ok((g, vec![inst_of(A, "MOV64ri", &[OpValue::Reg(g), v])?]));
        }
        // A mask starts with every lane on, as AArch64's predicates
        // (`ptrue`): the data value would leave a form of up to eight lanes
        // no lane at all, and a masked load of no lane took 0.4 cycles in one
        // run, 0.6 in the next and 17.4 alone (an assist; xeon-cf,
        // `VMOVUPDZrmkz`), where real code's masks are mostly full.
        let value = if container_in(A, "VK64", reg).is_some() {
            OpValue::Imm(ALL_LANES)
        } else {
            v
        };
        let load = inst_of(A, "MOV64ri", &[r(SCRATCH)?, value])?;
        // An XMM register a legacy SSE form can name is set by SSE forms: a
        // VEX or EVEX broadcast would leave the upper halves dirty, and legacy
        // SSE forms then merge into them (on Zen 4, addpd ran at 1 cycle
        // instead of 0.5, paddd at 0.5 instead of 0.25).
        let legacy_xmm = container_in(A, "VR128", reg) == Some(reg);
        let (whole, rest) = if legacy_xmm {
            let xv = OpValue::Reg(reg);
            (
                reg,
                vec![
                    inst_of(A, "MOV64toPQIrr", &[xv, r(SCRATCH)?])?,
                    inst_of(A, "PUNPCKLQDQrr", &[xv, xv, xv])?,
                ],
            )
        // The widest register the host has holds an xmm/ymm register; one that
        // exists only with AVX-512 (zmm, xmm16-31) is always set by EVEX: its
        // forms run only on such hosts, and a kernel emitted elsewhere for
        // another machine still sets it.
        } else if let Some(z) = container_in(A, "VR512", reg)
            .filter(|_| host_has("avx512f") || container_in(A, "VR256", reg).is_none())
        {
            (
                z,
                vec![inst_of(
                    A,
                    "VPBROADCASTQrZrr",
                    &[OpValue::Reg(z), r(SCRATCH)?],
                )?],
            )
        } else if let Some(y) = container_in(A, "VR256", reg).filter(|_| host_has("avx2")) {
            let x = OpValue::Reg(first_sub_in(y, "VR128")?);
            (
                y,
                vec![
                    inst_of(A, "VMOV64toPQIrr", &[x, r(SCRATCH)?])?,
                    inst_of(A, "VPBROADCASTQYrr", &[OpValue::Reg(y), x])?,
                ],
            )
        } else if let Some(x) = container_in(A, "VR128", reg) {
            let xv = OpValue::Reg(x);
            (
                x,
                vec![
                    inst_of(A, "MOV64toPQIrr", &[xv, r(SCRATCH)?])?,
                    inst_of(A, "PUNPCKLQDQrr", &[xv, xv, xv])?,
                ],
            )
        } else if let Some(k) = container_in(A, "VK64", reg) {
            let form = if host_has("avx512bw") {
                "KMOVQkr"
            } else {
                "KMOVWkr"
            };
            let src = if form == "KMOVQkr" {
                r(SCRATCH)?
            } else {
                r("EAX")?
            };
            (k, vec![inst_of(A, form, &[OpValue::Reg(k), src])?])
        } else if let Some(mm) = container_in(A, "VR64", reg) {
            (
                mm,
                vec![inst_of(
                    A,
                    "MMX_MOVD64to64rr",
                    &[OpValue::Reg(mm), r(SCRATCH)?],
                )?],
            )
        } else {
            return Err(EncodeError::Unsupported(format!(
                "{} is not a data register winic initialises (general-purpose, vector, mask or MMX)",
                reg.name()
            )));
        };
        let mut out = vec![load];
        out.extend(rest);
        Ok((whole, out))
    }

    fn init_lanes(&self, reg: Reg, lane_bytes: u32) -> Result<(Reg, Vec<Inst>), EncodeError> {
        super::gather::init_lanes(reg, lane_bytes)
    }

    fn init_address(&self, reg: Reg, addr: u64) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let g = container_in(A, "GR64", reg).ok_or_else(|| {
            EncodeError::Unsupported(format!("{} cannot hold an address", reg.name()))
        })?;
        let v = OpValue::Imm(addr as i64);
        Ok((g, vec![inst_of(A, "MOV64ri", &[OpValue::Reg(g), v])?]))
    }

    fn count_down(&self) -> Result<Vec<Inst>, EncodeError> {
        let c = r(LOOP_COUNTER)?;
        Ok(vec![inst_of(A, "DEC64r", &[c, c])?])
    }

    /// `jne` back, by the assembler's branch encoder: the short form when the
    /// loop is short enough.
    fn branch_back(&self, back: usize) -> Result<Line, EncodeError> {
        let label = crate::arch::LOOP_LABEL;
        let bytes = self
            .branch("jne", &[label], -(back as i64), false)
            .unwrap_or_else(|| Err(EncodeError::Unsupported("jne is no branch".into())))?;
        Ok(Line {
            text: format!("jne {label}"),
            bytes,
        })
    }

    fn chain_add(&self) -> Result<Inst, EncodeError> {
        inst_of(A, "ADD64rr", &[r("RAX")?, r("RAX")?, r("RBX")?])
    }

    fn wide_primer(&self) -> Option<Instr> {
        // `vaddpd zmm`: the FMA unit's 512-bit work, which fuses ports 0
        // and 1 on Intel cores; harmless where nothing is fused (Zen 4).
        host_has("avx512f")
            .then(|| crate::isa::Isa::get(A).instr("VADDPDZrr"))
            .flatten()
    }
}

/// The first member of `class` inside `reg` (XMM3 of YMM3).
pub(super) fn first_sub_in(reg: Reg, class: &str) -> Result<Reg, EncodeError> {
    reg.all_sub_regs()
        .find(|s| container_in(A, class, *s) == Some(*s))
        .ok_or_else(|| EncodeError::Unsupported(format!("{} has no {class} part", reg.name())))
}

/// Whether the host CPU has `feature` (CPUID and XCR0, or the recorded
/// host's features in a replay: [`super::host::assume_lacking`]), so that
/// a kernel replayed on another machine is the kernel the measuring one
/// ran. On another arch the x86 kernels are only written, never run:
/// assume the widest.
pub fn host_has(feature: &str) -> bool {
    use iced_x86::CpuidFeature as F;
    let f = match feature {
        "avx" => F::AVX,
        "avx2" => F::AVX2,
        "avx512f" => F::AVX512F,
        "avx512bw" => F::AVX512BW,
        _ => return false,
    };
    super::host::has(f).unwrap_or(true)
}
