//! Tests of the AArch64 encoder, printer and check.

use super::*;
use crate::isa::Isa;

fn all_forms() -> impl Iterator<Item = Instr> {
    Isa::get(Arch::Aarch64)
        .real_instrs()
        .filter(reg_imm_only)
        .step_by(crate::test_stride())
}

/// `example(form)` with every register replaced by the highest free
/// member of its class (ties kept): other encodings, list wrap-around.
fn high_register_variant(form: Instr) -> Option<Inst> {
    let t = AArch64;
    let mut i = t.example(form).ok()?;
    let mc = form.mc_operands();
    let mut used: Vec<Reg> = Vec::new();
    for k in 0..mc.len() {
        let OpValue::Reg(_) = i.ops[k] else { continue };
        if mc[k].ty.parser_class() == "SyspXzrPair" {
            continue;
        }
        if let Some(tied) = mc[k]
            .operand
            .tied_to()
            .filter(|&x| x < mc[k].operand.index())
        {
            let j = mc.iter().position(|m| m.operand.index() == tied)?;
            i.ops[k] = i.ops[j];
            continue;
        }
        let class = mc[k].ty.class()?;
        let pick = class
            .members()
            .filter(|r| t.reserved(*r).is_none() && !used.iter().any(|u| u.overlaps(*r)))
            .last();
        if let Some(r) = pick {
            used.push(r);
            i.ops[k] = OpValue::Reg(r);
        }
    }
    Some(i)
}

/// `inst` with every immediate at the largest (or smallest) value its
/// type allows (complex operands and enumerations other than shifts and
/// extends kept).
fn extreme_immediates(mut i: Inst, max: bool) -> Inst {
    let form = i.form;
    for (k, m) in form.mc_operands().iter().enumerate() {
        if m.ty.kind() != OperandKind::Imm || complex_encoder(&m.operand).is_some() {
            continue;
        }
        let Ok(kind) = imm_kind_of(&form, m) else {
            continue;
        };
        let v = match kind {
            ImmKind::Num {
                min: lo, max: hi, ..
            } => {
                if max {
                    hi
                } else {
                    lo
                }
            }
            ImmKind::ShiftRight(n) | ImmKind::FixedPoint(n) => {
                if max {
                    n
                } else {
                    1
                }
            }
            ImmKind::ShiftLeft(n) => {
                if max {
                    n - 1
                } else {
                    0
                }
            }
            ImmKind::IncDec => {
                if max {
                    16
                } else {
                    1
                }
            }
            ImmKind::Logical(32) => {
                if max {
                    0x7fff_fffe
                } else {
                    1
                }
            }
            ImmKind::Logical(_) => {
                if max {
                    0x5555_5555_5555_5555
                } else {
                    1
                }
            }
            ImmKind::Shifter { max: hi, step, .. } if max => operands::shifter(0, hi / step * step),
            ImmKind::Extend { kinds } if max => {
                operands::arith_extend((0..8).rev().find(|k| kinds >> k & 1 == 1).unwrap_or(0), 4)
            }
            ImmKind::VecShifter { msl, max: hi } if max => {
                operands::shifter(if msl { 4 } else { 0 }, hi)
            }
            _ => continue,
        };
        i.ops[k] = OpValue::Imm(v);
    }
    i
}

/// An operand value in a test: a register by LLVM name, or an immediate.
enum V {
    R(&'static str),
    I(i64),
}

fn inst(name: &str, vals: &[V]) -> Inst {
    let isa = Isa::get(Arch::Aarch64);
    let form = isa.instr(name).unwrap_or_else(|| panic!("no form {name}"));
    let ops = vals
        .iter()
        .map(|v| match v {
            V::R(r) => OpValue::Reg(isa.register(r).unwrap_or_else(|| panic!("no register {r}"))),
            V::I(i) => OpValue::Imm(*i),
        })
        .collect();
    Inst { form, ops }
}

use V::{I, R};

/// (form, operands, text, bytes) as llvm-mc-19 -triple=aarch64 -mattr=+all
/// -show-encoding prints them (`mov` aliases written as their real forms).
fn known() -> Vec<(&'static str, Vec<V>, &'static str, [u8; 4])> {
    vec![
        (
            "ANDXri",
            vec![R("X0"), R("X1"), I(0xff)],
            "and x0, x1, #0xff",
            [0x20, 0x1c, 0x40, 0x92],
        ),
        (
            "ANDWri",
            vec![R("W3"), R("W4"), I(0xf0f0_f0f0)],
            "and w3, w4, #0xf0f0f0f0",
            [0x83, 0xcc, 0x04, 0x12],
        ),
        (
            "ADDXrs",
            vec![R("X0"), R("X1"), R("X2"), I(operands::shifter(0, 3))],
            "add x0, x1, x2, lsl #3",
            [0x20, 0x0c, 0x02, 0x8b],
        ),
        (
            "ADDv4i32",
            vec![R("Q0"), R("Q1"), R("Q2")],
            "add v0.4s, v1.4s, v2.4s",
            [0x20, 0x84, 0xa2, 0x4e],
        ),
        (
            "ADD_ZZZ_S",
            vec![R("Z0"), R("Z1"), R("Z2")],
            "add z0.s, z1.s, z2.s",
            [0x20, 0x00, 0xa2, 0x04],
        ),
        (
            "AND_ZI",
            vec![R("Z0"), R("Z0"), I(0xff)],
            "and z0.d, z0.d, #0xff",
            [0xe0, 0x00, 0x82, 0x05],
        ),
        (
            "FMLA_ZPmZZ_S",
            vec![R("Z0"), R("P1"), R("Z0"), R("Z2"), R("Z3")],
            "fmla z0.s, p1/m, z2.s, z3.s",
            [0x40, 0x04, 0xa3, 0x65],
        ),
        (
            "USHRv2i64_shift",
            vec![R("Q0"), R("Q1"), I(3)],
            "ushr v0.2d, v1.2d, #3",
            [0x20, 0x04, 0x7d, 0x6f],
        ),
        (
            "SHRNv8i8_shift",
            vec![R("D0"), R("Q1"), I(3)],
            "shrn v0.8b, v1.8h, #3",
            [0x20, 0x84, 0x0d, 0x0f],
        ),
        (
            "MOVZXi",
            vec![R("X0"), I(1), I(operands::shifter(0, 16))],
            "movz x0, #1, lsl #16",
            [0x20, 0x00, 0xa0, 0xd2],
        ),
        (
            "LDRXui",
            vec![R("X0"), R("X1"), I(8)],
            "ldr x0, [x1, #8]",
            [0x20, 0x04, 0x40, 0xf9],
        ),
        (
            "FCVTZSSWSri",
            vec![R("W0"), R("S1"), I(3)],
            "fcvtzs w0, s1, #3",
            [0x20, 0xf4, 0x18, 0x1e],
        ),
        (
            "CPY_ZPmI_B",
            vec![R("Z0"), R("Z0"), R("P0"), I(1), I(0)],
            "cpy z0.b, p0/m, #1",
            [0x20, 0x40, 0x10, 0x05],
        ),
        (
            "LD1Twov16b",
            vec![R("Q0_Q1"), R("X2")],
            "ld1 { v0.16b, v1.16b }, [x2]",
            [0x40, 0xa0, 0x40, 0x4c],
        ),
        (
            "LD4B",
            vec![R("Z0_Z1_Z2_Z3"), R("P0"), R("X0"), R("X1")],
            "ld4b { z0.b - z3.b }, p0/z, [x0, x1]",
            [0x00, 0xc0, 0x61, 0xa4],
        ),
        (
            "SMULHrr",
            vec![R("X0"), R("X1"), R("X2")],
            "smulh x0, x1, x2",
            [0x20, 0x7c, 0x42, 0x9b],
        ),
        (
            "FMOVDi",
            vec![R("D0"), I(0x70)],
            "fmov d0, #1.00000000",
            [0x00, 0x10, 0x6e, 0x1e],
        ),
        (
            "ADDXri",
            vec![R("X0"), R("X1"), I(1), I(operands::shifter(0, 12))],
            "add x0, x1, #1, lsl #12",
            [0x20, 0x04, 0x40, 0x91],
        ),
        (
            "LDRXroW",
            vec![R("X0"), R("X1"), R("W2"), I(0), I(1)],
            "ldr x0, [x1, w2, uxtw #3]",
            [0x20, 0x58, 0x62, 0xf8],
        ),
        (
            "DUP_ZZI_S",
            vec![R("Z0"), R("Z1"), I(1)],
            "dup z0.s, z1.s[1]",
            [0x20, 0x20, 0x2c, 0x05],
        ),
        // SME2 / SVE2.1, which Capstone 5.0.6 cannot decode: multi-vector
        // registers as multiples, strided lists, predicate-as-counter.
        (
            "ZIP_VG4_4Z4Z_S",
            vec![R("Z4_Z5_Z6_Z7"), R("Z8_Z9_Z10_Z11")],
            "zip { z4.s - z7.s }, { z8.s - z11.s }",
            [0x04, 0xe1, 0xb6, 0xc1],
        ),
        (
            "WHILELT_CXX_S",
            vec![R("PN9"), R("X0"), R("X1"), I(1)],
            "whilelt pn9.s, x0, x1, vlx4",
            [0x11, 0x64, 0xa1, 0x25],
        ),
        (
            "LD1B_2Z_STRIDED",
            vec![R("Z1_Z9"), R("PN9"), R("X0"), R("X1")],
            "ld1b { z1.b, z9.b }, pn9/z, [x0, x1]",
            [0x01, 0x04, 0x01, 0xa1],
        ),
        (
            "ST1W_4Z_STRIDED_IMM",
            vec![R("Z17_Z21_Z25_Z29"), R("PN10"), R("X0"), I(8)],
            "st1w { z17.s, z21.s, z25.s, z29.s }, pn10, [x0, #8, mul vl]",
            [0x11, 0xc8, 0x62, 0xa1],
        ),
        (
            "FMLA_VG4_M4ZZI_S",
            vec![
                R("ZA"),
                R("ZA"),
                R("W9"),
                I(2),
                R("Z4_Z5_Z6_Z7"),
                R("Z5"),
                I(2),
            ],
            "fmla za.s[w9, 2, vgx4], { z4.s - z7.s }, z5.s[2]",
            [0x82, 0xa8, 0x55, 0xc1],
        ),
    ]
}

#[test]
fn known_encodings_match_llvm_mc() {
    let t = AArch64;
    for (name, vals, text, bytes) in known() {
        let i = inst(name, &vals);
        assert_eq!(t.print(&i).unwrap(), text, "{name}");
        assert_eq!(t.encode(&i).unwrap(), bytes, "{name}: {text}");
        let want = match check::unchecked_reason(&i.form) {
            Some(why) => Check::Unchecked(why),
            None => Check::Ok,
        };
        assert_eq!(t.check(&i, &bytes, text), want, "{name}: {text}");
    }
}

#[test]
fn check_catches_a_wrong_register_and_a_wrong_immediate() {
    let t = AArch64;
    let i = inst(
        "ADDXrs",
        &[R("X0"), R("X1"), R("X2"), I(operands::shifter(0, 3))],
    );
    let text = t.print(&i).unwrap();
    // add x0, x1, x3, lsl #3 and add x0, x1, x2, lsl #4.
    for bad in [[0x20, 0x0c, 0x03, 0x8b], [0x20, 0x10, 0x02, 0x8b]] {
        assert!(
            matches!(t.check(&i, &bad, &text), Check::Mismatch(_)),
            "{bad:02x?}"
        );
    }
    // An alias: `movz x0, #1, lsl #16` decodes as `mov x0, #0x10000`, but
    // not as `mov x0, #0x20000`.
    let m = inst("MOVZXi", &[R("X0"), I(1), I(operands::shifter(0, 16))]);
    let text = t.print(&m).unwrap();
    assert_eq!(t.check(&m, &[0x20, 0x00, 0xa0, 0xd2], &text), Check::Ok);
    assert!(matches!(
        t.check(&m, &[0x40, 0x00, 0xa0, 0xd2], &text),
        Check::Mismatch(_)
    ));
}

/// Flipping any one bit of any operand field of any checked example must
/// make the check fail: the check compares every operand.
#[test]
fn check_catches_every_single_bit_operand_error() {
    let t = AArch64;
    let mut missed = Vec::new();
    for form in all_forms() {
        let Ok(inst) = t.example(form) else { continue };
        let (Ok(text), Ok(bytes)) = (t.print(&inst), t.encode(&inst)) else {
            continue;
        };
        if t.check(&inst, &bytes, &text) != Check::Ok {
            continue;
        }
        let Encoding::Bits(l) = form.encoding() else {
            continue;
        };
        let word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        for f in l.fields() {
            let bad = (word ^ (1 << f.inst_lo)).to_le_bytes();
            if t.check(&inst, &bad, &text) == Check::Ok {
                missed.push(format!("{} {}", form.name(), f.var));
            }
        }
    }
    assert!(missed.is_empty(), "{missed:?}");
}

#[test]
fn out_of_range_immediates_are_refused() {
    let t = AArch64;
    let cases = [
        inst("ADDXri", &[R("X0"), R("X1"), I(4096), I(0)]),
        inst(
            "ADDXri",
            &[R("X0"), R("X1"), I(1), I(operands::shifter(0, 8))],
        ),
        inst("ANDXri", &[R("X0"), R("X1"), I(0)]),
        inst("ANDXri", &[R("X0"), R("X1"), I(0b101)]),
        inst("ANDWri", &[R("W0"), R("W1"), I(0x1_0000_00ff)]),
        inst("USHRv2i64_shift", &[R("Q0"), R("Q1"), I(65)]),
        inst("USHRv2i64_shift", &[R("Q0"), R("Q1"), I(0)]),
        inst("SHRNv8i8_shift", &[R("D0"), R("Q1"), I(9)]),
        inst("LDRXui", &[R("X0"), R("X1"), I(12)]),
        inst("LDRXui", &[R("X0"), R("X1"), I(8 * 4096)]),
        inst("LDURXi", &[R("X0"), R("X1"), I(256)]),
        inst("MOVZXi", &[R("X0"), I(0x1_0000), I(0)]),
        inst(
            "ADDWrs",
            &[R("W0"), R("W1"), R("W2"), I(operands::shifter(0, 32))],
        ),
        inst(
            "ADDXrs",
            &[R("X0"), R("X1"), R("X2"), I(operands::shifter(3, 1))],
        ),
        inst("MOVZWi", &[R("W0"), I(1), I(operands::shifter(0, 32))]),
        inst(
            "ADDXrx64",
            &[R("X0"), R("X1"), R("X2"), I(operands::arith_extend(2, 0))],
        ),
        inst(
            "ADDXrx",
            &[R("X0"), R("X1"), R("W2"), I(operands::arith_extend(2, 5))],
        ),
        // Tied operands that differ.
        inst("AND_ZI", &[R("Z0"), R("Z1"), I(0xff)]),
        // A W register where the class is GPR64.
        inst("ADDXrr", &[R("X0"), R("W1"), R("X2")]),
    ];
    for i in cases {
        let e = t.encode(&i);
        assert!(
            matches!(e, Err(EncodeError::BadOperand(_))),
            "{:?} {:?}: {e:?}",
            i.form,
            i.ops
        );
    }
}

#[test]
fn logical_immediates_round_trip() {
    let mut values = std::collections::BTreeSet::new();
    for field in 0..(1u64 << 13) {
        if let Some(v) = imm_codec::decode_logical(field, 64) {
            values.insert(v);
            let back = imm_codec::encode_logical(v, 64).unwrap();
            assert_eq!(imm_codec::decode_logical(back, 64), Some(v), "{field:#x}");
        }
        if let Some(v) = imm_codec::decode_logical(field, 32) {
            assert_eq!(
                imm_codec::decode_logical(imm_codec::encode_logical(v, 32).unwrap(), 32),
                Some(v)
            );
        }
    }
    // The Arm ARM's count of distinct 64-bit bitmask immediates.
    assert_eq!(values.len(), 5334);
    assert_eq!(imm_codec::encode_logical(0xff, 64), Some(0x1007));
    assert_eq!(imm_codec::encode_logical(0, 64), None);
    assert_eq!(imm_codec::encode_logical(u64::MAX, 64), None);
}

#[test]
fn examples_never_use_reserved_registers() {
    let t = AArch64;
    for form in all_forms() {
        let Ok(i) = t.example(form) else { continue };
        for (m, v) in form.mc_operands().iter().zip(&i.ops) {
            if let OpValue::Reg(r) = v {
                let required = m.ty.parser_class() == "SyspXzrPair";
                assert!(
                    required || t.reserved(*r).is_none(),
                    "{}: {} ({:?})",
                    form.name(),
                    r.name(),
                    t.reserved(*r)
                );
            }
        }
    }
    let isa = Isa::get(Arch::Aarch64);
    for name in [
        "SP",
        "WSP",
        "XZR",
        "WZR",
        "X18",
        "FP",
        "LR",
        LOOP_COUNTER,
        "W28",
        "X28_FP",
    ] {
        assert!(t.reserved(isa.register(name).unwrap()).is_some(), "{name}");
    }
    assert!(t.reserved(isa.register("X27").unwrap()).is_none());
}

/// Every real register/immediate form: example, encode, print and check
/// without panic, no mismatch, and (nearly) all encodable.
#[test]
fn all_forms_encode_print_and_check() {
    let t = AArch64;
    let (mut total, mut ok, mut unchecked, mut failed) = (0, 0, 0, Vec::new());
    for form in all_forms() {
        total += 1;
        let r = t.example(form).and_then(|i| {
            let bytes = t.encode(&i)?;
            let text = t.print(&i)?;
            Ok(t.check(&i, &bytes, &text))
        });
        match r {
            Ok(Check::Ok) => ok += 1,
            Ok(Check::Unchecked(_)) => unchecked += 1,
            Ok(Check::Mismatch(m)) => failed.push(format!("{}: {m}", form.name())),
            Err(e) => failed.push(format!("{}: {e}", form.name())),
        }
    }
    // The same with the highest registers of each class, and with every
    // immediate at the top and at the bottom of its range: a field placed
    // or truncated wrongly shows only there.
    for form in all_forms() {
        let Some(high) = high_register_variant(form) else {
            failed.push(format!("{}: no high-register variant", form.name()));
            continue;
        };
        let Ok(ex) = t.example(form) else { continue };
        let variants = [
            ("high registers", high),
            ("largest immediates", extreme_immediates(ex.clone(), true)),
            ("smallest immediates", extreme_immediates(ex, false)),
        ];
        for (what, i) in variants {
            let r = t
                .encode(&i)
                .and_then(|b| Ok(t.check(&i, &b, &t.print(&i)?)));
            match r {
                Ok(Check::Mismatch(m)) => failed.push(format!("{} ({what}): {m}", form.name())),
                Err(e) => failed.push(format!("{} ({what}): {e}", form.name())),
                Ok(_) => {}
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(total * crate::test_stride() > 6500, "{total}");
    assert!((ok + unchecked) as f64 >= 0.98 * total as f64);
    // Capstone decodes the base ISA, NEON, SVE/SVE2 and SME1.
    assert!(ok as f64 >= 0.75 * total as f64, "{ok} of {total}");
}

#[test]
fn unchecked_is_decided_by_features() {
    let isa = Isa::get(Arch::Aarch64);
    let reason = |n: &str| check::unchecked_reason(&isa.instr(n).unwrap());
    assert_eq!(reason("ADDXrs"), None);
    assert_eq!(reason("ADD_ZZZ_S"), None);
    assert!(reason("ZIP_VG4_4Z4Z_S").is_some_and(|r| r.contains("sme2")));
    assert!(reason("UMINXrr").is_some_and(|r| r.contains("cssc")));
}

/// The text of the throughput kernel of `name` (`copies` copies).
fn kernel_text(name: &str) -> String {
    let t = AArch64;
    let form = Isa::get(Arch::Aarch64).instr(name).unwrap();
    let body = crate::kernel::shape::throughput(&t, form, 4).unwrap();
    crate::kernel::build(&t, &body, 1).unwrap().text()
}

#[test]
fn sme_kernels_run_in_streaming_mode_with_za_and_sve_kernels_do_not() {
    let fmopa = kernel_text("FMOPA_MPPZZ_S");
    let (start, stop) = (
        fmopa.find("msr svcrsmza, #1").expect(&fmopa),
        fmopa.find("msr svcrsmza, #0").expect(&fmopa),
    );
    let (lp, back, ret) = (
        fmopa.find(".Lloop:").unwrap(),
        fmopa.find("b.ne").unwrap(),
        fmopa.find("ret").unwrap(),
    );
    // smstart after the prologue and before the initialisations and the
    // loop; smstop after the loop, before the epilogue.
    assert!(start < lp && back < stop && stop < ret, "{fmopa}");
    assert!(fmopa[..start].contains("str d15, [sp"), "{fmopa}");
    assert!(fmopa[start..lp].contains("ptrue p"), "{fmopa}");
    // Streaming mode zeroes the Z registers: they are set after smstart.
    assert!(!fmopa[..start].contains("dup z"), "{fmopa}");
    let fmla = kernel_text("FMLA_ZPmZZ_D");
    assert!(!fmla.contains("svcr"), "{fmla}");
    assert!(fmla.contains("ptrue p"), "{fmla}");
    // A form with SVE2.1 as its alternative to SME runs in streaming mode
    // only where SVE2.1 is missing: as if every feature were there
    // (another host) it runs outside.
    if host::detected().is_none() {
        assert!(!host::needs_streaming(
            Isa::get(Arch::Aarch64).instr("SCLAMP_ZZZ_B").unwrap()
        ));
    }
}

#[test]
#[cfg_attr(
    not(target_arch = "aarch64"),
    ignore = "runs AArch64 kernels: on an AArch64 host or under qemu (scripts/test-cross.sh)"
)]
fn sve_and_sme_kernels_run_where_the_host_has_them() {
    assert!(host::detected().is_some(), "no AArch64 host detected");
    let t = AArch64;
    let isa = Isa::get(Arch::Aarch64);
    for name in [
        "FMLA_ZPmZZ_D",
        "ABS_ZPmZ_B",
        "TBL_ZZZ_S",
        "FMOPA_MPPZZ_S",
        "ADDHA_MPPZ_S",
        "SMOPA_MPPZZ_S",
        "REVD_ZPmZ",
        "ZERO_M",
        "EXTRACT_ZPMXI_H_B",
    ] {
        crate::runcheck::assert_runs_or_is_skipped(&t, isa.instr(name).unwrap());
    }
}
