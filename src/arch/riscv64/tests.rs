//! RISC-V encoder tests: known encodings (from llvm-mc-19 -show-encoding),
//! range checks, register choice and a sweep over every form.

use super::*;
use crate::isa::Isa;

fn form(name: &str) -> Instr {
    Isa::get(Arch::Riscv64)
        .instr(name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn reg(name: &str) -> OpValue {
    OpValue::Reg(
        Isa::get(Arch::Riscv64)
            .register(name)
            .unwrap_or_else(|| panic!("no {name}")),
    )
}

fn enc(name: &str, ops: Vec<OpValue>) -> (String, Vec<u8>) {
    let inst = Inst {
        form: form(name),
        ops,
    };
    let bytes = Riscv64.encode(&inst).unwrap();
    (Riscv64.print(&inst).unwrap(), bytes)
}

#[test]
fn known_encodings_from_llvm_mc() {
    use OpValue::Imm;
    let cases: Vec<(&str, Vec<OpValue>, &str, Vec<u8>)> = vec![
        (
            "ADD",
            vec![reg("X10"), reg("X11"), reg("X12")],
            "add a0, a1, a2",
            vec![0x33, 0x85, 0xc5, 0x00],
        ),
        (
            "C_ADDI",
            vec![reg("X10"), reg("X10"), Imm(-3)],
            "c.addi a0, -3",
            vec![0x75, 0x15],
        ),
        (
            "C_LUI",
            vec![reg("X10"), Imm(1)],
            "c.lui a0, 1",
            vec![0x05, 0x65],
        ),
        (
            "VADD_VV",
            vec![reg("V1"), reg("V2"), reg("V3"), reg("V0")],
            "vadd.vv v1, v2, v3, v0.t",
            vec![0xd7, 0x80, 0x21, 0x00],
        ),
        (
            "VSETVLI",
            vec![reg("X10"), reg("X11"), Imm(0xd0)],
            "vsetvli a0, a1, e32, m1, ta, ma",
            vec![0x57, 0xf5, 0x05, 0x0d],
        ),
        (
            "FMADD_D",
            vec![
                reg("F10_D"),
                reg("F11_D"),
                reg("F12_D"),
                reg("F13_D"),
                Imm(1),
            ],
            "fmadd.d fa0, fa1, fa2, fa3, rtz",
            vec![0x43, 0x95, 0xc5, 0x6a],
        ),
    ];
    for (name, ops, text, bytes) in cases {
        assert_eq!(enc(name, ops), (text.to_string(), bytes), "{name}");
    }
}

#[test]
fn check_catches_other_bytes() {
    let inst = Riscv64.example(form("ADD")).unwrap();
    let bytes = Riscv64.encode(&inst).unwrap();
    let text = Riscv64.print(&inst).unwrap();
    assert_eq!(Riscv64.check(&inst, &bytes, &text), Check::Ok);
    let mut wrong = bytes.clone();
    wrong[3] ^= 0x40; // ADD -> SUB
    assert!(matches!(
        Riscv64.check(&inst, &wrong, &text),
        Check::Mismatch(_)
    ));
}

#[test]
fn out_of_range_immediates_are_refused() {
    use OpValue::Imm;
    for (name, ops) in [
        ("ADDI", vec![reg("X10"), reg("X11"), Imm(2048)]),
        ("C_ADDI", vec![reg("X10"), reg("X10"), Imm(0)]),
        ("SLLI", vec![reg("X10"), reg("X11"), Imm(64)]),
        (
            "FADD_D",
            vec![reg("F10_D"), reg("F11_D"), reg("F12_D"), Imm(5)],
        ),
    ] {
        let inst = Inst {
            form: form(name),
            ops,
        };
        assert!(
            matches!(Riscv64.encode(&inst), Err(EncodeError::BadOperand(_))),
            "{name}"
        );
    }
}

#[test]
fn examples_never_use_reserved_registers() {
    for f in crate::selfcheck::forms(Isa::get(Arch::Riscv64)) {
        let Ok(inst) = Riscv64.example(f) else {
            continue;
        };
        let fixed = |r: &Reg| {
            f.mc_operands()
                .iter()
                .filter_map(|m| m.ty.class())
                .any(|c| c.contains(*r) && c.members().all(|x| reserved_reason(x).is_some()))
        };
        for v in &inst.ops {
            if let OpValue::Reg(r) = v {
                assert!(
                    reserved_reason(*r).is_none() || fixed(r),
                    "{}: {}",
                    f.name(),
                    r.name()
                );
            }
        }
    }
}

#[test]
fn every_register_immediate_form_encodes_and_checks() {
    let (_, s) = crate::selfcheck::run(&Riscv64, |_, _| {});
    let rv32: usize = s
        .unencodable_reasons
        .iter()
        .filter(|(why, _)| why.contains("RV32-only"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(s.mismatch, 0, "{}", s.render());
    let share = (s.ok + s.capstone_unsupported) as f64 / (s.total - rv32) as f64;
    assert!(share >= 0.98, "{:.3}\n{}", share, s.render());
}

/// Every register a copy of `body` occupies, group members included.
fn occupied(t: &dyn Target, inst: &Inst) -> Vec<(usize, Reg)> {
    (0..inst.ops.len())
        .flat_map(|k| t.operand_regs(inst, k).into_iter().map(move |r| (k, r)))
        .collect()
}

#[test]
fn vector_kernels_keep_register_groups_apart_and_run_where_the_host_has_v() {
    use super::vtype::{Lmul, VType};
    let types = [
        VType::DEFAULT,
        VType {
            sew: 8,
            lmul: Lmul::M8,
        },
        VType {
            sew: 16,
            lmul: Lmul::M4,
        },
        VType {
            sew: 64,
            lmul: Lmul::M2,
        },
        VType {
            sew: 8,
            lmul: Lmul::Mf8,
        },
    ];
    let mut at_types = 0;
    for v in types {
        at_types += vector_kernels_at(super::at(v), v);
    }
    // VADD_VV and VFADD_VV at all four others, VWADD_VV, VNSRL_WV and
    // VFWMACC_VV where widening is defined, VMERGE_VVM …
    assert!(at_types >= 20, "only {at_types} (form, type) pairs built");
}

/// Checks the kernels of a sample of vector forms at `t`'s vector type,
/// `v`; returns how many forms are defined there.
fn vector_kernels_at(t: &dyn Target, v: VType) -> usize {
    let mut built = 0;
    // LMUL 8 (whole-register move of eight), 2 and 4, a widening form (its
    // destination a pair at LMUL 1), a narrowing one, a mask form on v0.
    let names = [
        "VMV8R_V",
        "VMV2R_V",
        "VMV4R_V",
        "VWADD_VV",
        "VFWMACC_VV",
        "VNSRL_WV",
        "VADD_VV",
        "VMERGE_VVM",
        "VFADD_VV",
    ];
    for name in names {
        let f = form(name);
        if v != VType::DEFAULT && super::vtype::groups(f, v, 64).is_err() {
            continue;
        }
        built += 1;
        let body = crate::kernel::shape::throughput(t, f, 4).unwrap();
        for (i, a) in body.iter().enumerate() {
            let regs = occupied(t, a);
            // A group starts at a multiple of its size.
            for k in 0..a.ops.len() {
                let group = t.operand_regs(a, k);
                if group.len() > 1 {
                    let first = group[0].encoding() as usize;
                    assert_eq!(first % group.len(), 0, "{name} at {v}: {:?}", a.ops);
                }
            }
            // Within one instruction, a written group meets no read one
            // unless the form ties them (LLVM's constraints).
            let mc = f.mc_operands();
            for &(k, r) in &regs {
                if !mc[k].operand.is_def() {
                    continue;
                }
                for &(j, s) in &regs {
                    let tied = mc[k].operand.tied_to() == Some(mc[j].operand.index())
                        || mc[j].operand.tied_to() == Some(mc[k].operand.index());
                    let v0_mask = s.name() == "V0" && !mc[j].operand.is_def();
                    assert!(
                        j == k || tied || v0_mask || !t.aliases(r, s),
                        "{name}: {} and {} overlap in {:?}",
                        r.name(),
                        s.name(),
                        a.ops
                    );
                }
            }
            // A copy writes no register another copy uses.
            for b in &body[i + 1..] {
                for &(k, r) in &regs {
                    if !mc[k].operand.is_def() {
                        continue;
                    }
                    for (_, s) in occupied(t, b) {
                        assert!(!t.aliases(r, s), "{name}: copies share {}", r.name());
                    }
                }
            }
        }
        let k = crate::kernel::build(t, &body, 1).unwrap();
        let text = k.text();
        assert!(text.contains("vsetvli"), "{name}: {text}");
        if v != VType::DEFAULT {
            // Set after the initialisations, right before the loop.
            let set = format!("vsetvli zero, sp, e{}, {}, ta, ma", v.sew, v.lmul.name());
            let at = text
                .find(&set)
                .unwrap_or_else(|| panic!("{name} at {v}: {text}"));
            let loop_at = text.find(crate::arch::LOOP_LABEL).unwrap();
            assert!(
                at < loop_at && !text[at + 1..loop_at].contains("vsetvli"),
                "{text}"
            );
        }
        if host::detected().is_some() {
            crate::runcheck::assert_runs_or_is_skipped(t, f);
        }
    }
    built
}
