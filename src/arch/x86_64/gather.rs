//! Gathers in kernels (x86 VSIB: `vpgatherdd ymm1, [rcx + ymm3], ymm2`,
//! `vgatherqpd zmm1 {k1}, [rcx + zmm2]`): what a kernel needs beyond a
//! plain load.
//!
//! - **The vector index** is set once, before the loop, to lanes i × 64
//!   ([`crate::arch::LANE_STEP`]): every element from a cache line of its
//!   own, all inside the data area (16 lanes span 960 bytes past the
//!   access's slot). Its bytes 0..15 are built in the xmm part (`vmovq`,
//!   `vpinsrq`), zero-extended to 32- or 64-bit lanes (`vpmovzxbd`,
//!   `vpmovzxbq`) and shifted by 6 (`vpslld`, `vpsllq`).
//! - **Before each gather** (its [resets](resets)): the mask set to all
//!   ones again (`kxnorw k, k, k`; `vpcmpeqd` for an AVX2 vector mask),
//!   because a gather clears it as it completes and the next one would
//!   load nothing, and the destination zeroed by an idiom (`vpxor`), since
//!   a gather merges into it and would otherwise wait for the gather
//!   before. gcc and clang emit the same pair before a gather in a loop,
//!   so the throughput winic reports is a gather's as loops run it.

use super::frame::{first_sub_in, SCRATCH};
use crate::arch::{container_in, inst_of, reg_of, EncodeError, Inst, OpValue};
use crate::isa::{Arch, Reg};
use iced_x86::OpCodeOperandKind as OK;

const A: Arch = Arch::X86_64;

/// The vector index of each VSIB operand of `inst` with the bytes of its
/// lanes, from the operand kind iced gives the form (`mem_vsib32y`: 4).
pub fn vector_indexes(inst: &Inst) -> Vec<(Reg, u32)> {
    if !inst.form.has_vector_index() {
        return Vec::new();
    }
    let Ok(plan) = super::plan_of(&inst.form) else {
        return Vec::new();
    };
    let kinds = plan.code.op_code().op_kinds();
    let lane = kinds.iter().find_map(|k| match k {
        OK::mem_vsib32x | OK::mem_vsib32y | OK::mem_vsib32z => Some(4),
        OK::mem_vsib64x | OK::mem_vsib64y | OK::mem_vsib64z => Some(8),
        _ => None,
    });
    let Some(lane) = lane else {
        return Vec::new();
    };
    inst.ops
        .iter()
        .filter_map(|v| match v {
            OpValue::Mem(m) => m.index.map(|(r, _)| (r, lane)),
            _ => None,
        })
        .collect()
}

/// The instructions before each gather: its destination zeroed (unless
/// it is among `kept`, written by the instruction right before it: a
/// chain through the merged destination), its mask set to all ones.
/// Nothing for a form without a vector index.
pub fn resets(inst: &Inst, kept: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
    if vector_indexes(inst).is_empty() {
        return Ok(Vec::new());
    }
    let mc = inst.form.mc_operands();
    let chained = |r: Reg| kept.iter().any(|w| w.overlaps(r));
    let mut out = Vec::new();
    for (m, v) in mc.iter().zip(&inst.ops) {
        let OpValue::Reg(r) = *v else { continue };
        if !m.operand.is_def() {
            continue;
        }
        let rv = OpValue::Reg(r);
        if container_in(A, "VK64", r).is_some() {
            out.push(inst_of(A, "KXNORWrr", &[rv, rv, rv])?);
        } else if m.name == "mask_wb" {
            let form = if container_in(A, "VR256", r) == Some(r) {
                "VPCMPEQDYrr"
            } else {
                "VPCMPEQDrr"
            };
            out.push(inst_of(A, form, &[rv, rv, rv])?);
        } else if !chained(r) {
            // The xmm part: a 128-bit idiom zeroes the whole register.
            let x = xmm_of(r)?;
            let xv = OpValue::Reg(x);
            let form = if high(x) { "VPXORDZ128rr" } else { "VPXORrr" };
            out.push(inst_of(A, form, &[xv, xv, xv])?);
        }
    }
    Ok(out)
}

/// Sets `reg` to lanes of `lane_bytes` bytes, lane i holding i × 64.
pub fn init_lanes(reg: Reg, lane_bytes: u32) -> Result<(Reg, Vec<Inst>), EncodeError> {
    let x = xmm_of(reg)?;
    let evex = high(x);
    let width = bits(reg);
    let widen = match (lane_bytes, width, evex) {
        (4, 512, _) => ("VPMOVZXBDZrr", "VPSLLDZri"),
        (4, 256, true) => ("VPMOVZXBDZ256rr", "VPSLLDZ256ri"),
        (4, 256, false) => ("VPMOVZXBDYrr", "VPSLLDYri"),
        (4, 128, true) => ("VPMOVZXBDZ128rr", "VPSLLDZ128ri"),
        (4, 128, false) => ("VPMOVZXBDrr", "VPSLLDri"),
        (8, 512, _) => ("VPMOVZXBQZrr", "VPSLLQZri"),
        (8, 256, true) => ("VPMOVZXBQZ256rr", "VPSLLQZ256ri"),
        (8, 256, false) => ("VPMOVZXBQYrr", "VPSLLQYri"),
        (8, 128, true) => ("VPMOVZXBQZ128rr", "VPSLLQZ128ri"),
        (8, 128, false) => ("VPMOVZXBQrr", "VPSLLQri"),
        _ => {
            return Err(EncodeError::Unsupported(format!(
                "{}: lanes of {lane_bytes} bytes",
                reg.name()
            )))
        }
    };
    let (rax, xv, rv) = (reg_of(A, SCRATCH)?, OpValue::Reg(x), OpValue::Reg(reg));
    let shift = crate::arch::LANE_STEP.trailing_zeros() as i64;
    let (movq, pinsrq) = if evex {
        ("VMOV64toPQIZrr", "VPINSRQZrr")
    } else {
        ("VMOV64toPQIrr", "VPINSRQrr")
    };
    Ok((
        reg,
        vec![
            inst_of(A, "MOV64ri", &[rax, OpValue::Imm(0x0706_0504_0302_0100)])?,
            inst_of(A, movq, &[xv, rax])?,
            inst_of(A, "MOV64ri", &[rax, OpValue::Imm(0x0f0e_0d0c_0b0a_0908)])?,
            inst_of(A, pinsrq, &[xv, xv, rax, OpValue::Imm(1)])?,
            inst_of(A, widen.0, &[rv, xv])?,
            inst_of(A, widen.1, &[rv, rv, OpValue::Imm(shift)])?,
        ],
    ))
}

/// The bytes the accesses of a gather or scatter span: its lanes, each
/// [`crate::arch::LANE_STEP`] apart (16 lanes: 1024 bytes); `None` for a
/// form without a vector index. A kernel gives each copy a block this
/// large, so that no two copies touch one cache line: two scatters whose
/// lines overlap ran 21-23 cycles on Zen 4 where apart they run 21.0.
pub fn footprint(inst: &Inst) -> Option<u32> {
    vector_indexes(inst)
        .iter()
        .map(|&(reg, lane)| bits(reg) / 8 / lane * crate::arch::LANE_STEP as u32)
        .max()
}

/// The bits of vector register `reg`: 128, 256 or 512.
fn bits(reg: Reg) -> u32 {
    if container_in(A, "VR512", reg) == Some(reg) {
        512
    } else if container_in(A, "VR256X", reg) == Some(reg) {
        256
    } else {
        128
    }
}

/// The xmm register `reg` is or holds (XMM3 of ZMM3).
fn xmm_of(reg: Reg) -> Result<Reg, EncodeError> {
    if container_in(A, "VR128X", reg) == Some(reg) {
        return Ok(reg);
    }
    first_sub_in(reg, "VR128X")
}

/// XMM16-XMM31: only EVEX encodes them.
fn high(x: Reg) -> bool {
    x.encoding() >= 16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::Operands;
    use crate::isa::Isa;

    fn example(name: &str) -> Inst {
        let form = Isa::get(A).instr(name).unwrap();
        crate::arch::x86_64::X86_64.example(form).unwrap()
    }

    fn names(insts: &[Inst]) -> Vec<&'static str> {
        insts.iter().map(|i| i.form.name()).collect()
    }

    #[test]
    fn gathers_reset_their_destination_and_mask_before_each() {
        let avx2 = example("VPGATHERDDYrm");
        assert_eq!(
            names(&resets(&avx2, &[]).unwrap()),
            ["VPXORrr", "VPCMPEQDYrr"]
        );
        let avx512 = example("VGATHERQPDZrm");
        assert_eq!(
            names(&resets(&avx512, &[]).unwrap()),
            ["VPXORrr", "KXNORWrr"]
        );
        // Each on the gather's own registers: the idiom on the
        // destination's xmm part, the mask on itself.
        let r = resets(&avx2, &[]).unwrap();
        let (OpValue::Reg(dst), OpValue::Reg(mask)) = (avx2.ops[0], avx2.ops[1]) else {
            panic!("{:?}", avx2.ops)
        };
        assert!(matches!(r[0].ops[0], OpValue::Reg(x) if x.overlaps(dst)));
        assert_eq!(r[1].ops[0], OpValue::Reg(mask));
        assert!(resets(&example("MOV64rm"), &[]).unwrap().is_empty());
        // After the gather before it into the same destination (a chain
        // through the merge), the mask only: zeroing would cut the chain.
        assert_eq!(
            names(&resets(&avx2, &[dst, mask]).unwrap()),
            ["VPCMPEQDYrr"]
        );
        let OpValue::Reg(zdst) = avx512.ops[0] else {
            panic!("{:?}", avx512.ops)
        };
        assert_eq!(names(&resets(&avx512, &[zdst]).unwrap()), ["KXNORWrr"]);
        // The xmm part of the destination written is the destination.
        let x = xmm_of(dst).unwrap();
        assert_eq!(names(&resets(&avx2, &[x]).unwrap()), ["VPCMPEQDYrr"]);
        // After another register written, both as before.
        let OpValue::Reg(ymm9) = reg_of(A, "YMM9").unwrap() else {
            panic!()
        };
        assert!(!ymm9.overlaps(dst));
        assert_eq!(resets(&avx2, &[ymm9, mask]).unwrap().len(), 2);
    }

    #[test]
    fn a_gathers_index_has_the_lanes_of_its_kind() {
        let index = |name: &str| vector_indexes(&example(name));
        let lanes = |name: &str| index(name).iter().map(|l| l.1).collect::<Vec<_>>();
        assert_eq!(lanes("VPGATHERDDZrm"), [4]);
        assert_eq!(lanes("VPGATHERQDZrm"), [8]);
        assert_eq!(lanes("VGATHERDPDYrm"), [4]);
        assert_eq!(lanes("VGATHERQPSrm"), [8]);
        assert!(index("ADD64rm").is_empty());
        // Set by widening bytes 0..15 and shifting them to i × 64; the
        // high registers by EVEX forms.
        let (reg, _) = index("VPGATHERDDZrm")[0];
        let (whole, insts) = init_lanes(reg, 4).unwrap();
        assert_eq!(whole, reg);
        assert_eq!(
            names(&insts),
            [
                "MOV64ri",
                "VMOV64toPQIrr",
                "MOV64ri",
                "VPINSRQrr",
                "VPMOVZXBDZrr",
                "VPSLLDZri"
            ]
        );
        assert_eq!(insts.last().unwrap().ops[2], OpValue::Imm(6));
        let high = reg_of(A, "YMM17").unwrap();
        let OpValue::Reg(high) = high else { panic!() };
        let (_, insts) = init_lanes(high, 8).unwrap();
        assert_eq!(
            names(&insts),
            [
                "MOV64ri",
                "VMOV64toPQIZrr",
                "MOV64ri",
                "VPINSRQZrr",
                "VPMOVZXBQZ256rr",
                "VPSLLQZ256ri"
            ]
        );
    }

    #[test]
    fn a_scatter_resets_only_its_mask_and_each_copy_has_lines_of_its_own() {
        let scatter = example("VPSCATTERDDZmr");
        assert_eq!(names(&resets(&scatter, &[]).unwrap()), ["KXNORWrr"]);
        // 16, 8, 2 lanes: a line each.
        assert_eq!(footprint(&scatter), Some(1024));
        assert_eq!(footprint(&example("VGATHERDPDZrm")), Some(512));
        assert_eq!(footprint(&example("VGATHERQPDrm")), Some(128));
        assert_eq!(footprint(&example("MOV64rm")), None);
        let t = crate::arch::x86_64::X86_64;
        let form = Isa::get(A).instr("VPSCATTERDDZmr").unwrap();
        let body = crate::kernel::shape::throughput(&t, form, 3).unwrap();
        let text = crate::kernel::build(&t, &body, 1).unwrap().text();
        for disp in ["8192]", "9216]", "10240]"] {
            assert!(text.contains(disp), "{disp}: {text}");
        }
    }

    #[test]
    fn every_gather_kernel_sets_its_index_and_encodes() {
        let t = crate::arch::x86_64::X86_64;
        let mut built = 0;
        for form in Isa::get(A).real_instrs() {
            if !form.has_vector_index() || crate::kernel::shape::skip_reason(&t, form).is_some() {
                continue;
            }
            let body = crate::kernel::shape::throughput(&t, form, 12).unwrap();
            let k = crate::kernel::build(&t, &body, 2)
                .unwrap_or_else(|e| panic!("{}: {e}", form.name()));
            assert!(
                k.uninitialised.is_empty(),
                "{}: {:?}",
                form.name(),
                k.uninitialised
            );
            let text = k.text();
            assert!(text.contains("vpmovzxb"), "{}: {text}", form.name());
            built += 1;
        }
        // 40 gathers and 24 scatters of AVX2 and AVX-512 (the AVX512PF
        // prefetches, which no core since Xeon Phi has, are skipped by
        // their feature only).
        assert!(built >= 64, "{built}");
    }
}
