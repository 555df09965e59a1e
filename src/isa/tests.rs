//! Tests of the generated tables against facts about LLVM 19's records.

use super::*;

fn x86() -> &'static Isa {
    Isa::get(Arch::X86_64)
}
fn a64() -> &'static Isa {
    Isa::get(Arch::Aarch64)
}
fn rv() -> &'static Isa {
    Isa::get(Arch::Riscv64)
}

fn instr(isa: &'static Isa, name: &str) -> Instr {
    isa.instr(name)
        .unwrap_or_else(|| panic!("{name} missing from {}", isa.arch()))
}

fn names(regs: impl Iterator<Item = Reg>) -> Vec<&'static str> {
    regs.map(|r| r.name()).collect()
}

#[test]
fn flag_order_matches_build_script() {
    let all = [
        Flag::IsPseudo,
        Flag::IsCodeGenOnly,
        Flag::IsAsmParserOnly,
        Flag::IsBranch,
        Flag::IsIndirectBranch,
        Flag::IsCall,
        Flag::IsReturn,
        Flag::IsTerminator,
        Flag::IsBarrier,
        Flag::IsTrap,
        Flag::MayLoad,
        Flag::MayStore,
        Flag::HasSideEffects,
        Flag::IsMoveReg,
        Flag::IsMoveImm,
        Flag::IsCompare,
        Flag::IsCommutable,
        Flag::IsNotDuplicable,
        Flag::MayRaiseFpException,
        Flag::IsPreIselOpcode,
        Flag::IsMeta,
    ];
    assert_eq!(all.len(), FLAG_NAMES.len());
    for (i, f) in all.iter().enumerate() {
        assert_eq!(*f as usize, i);
        let pascal = format!("{f:?}").to_ascii_lowercase();
        assert_eq!(pascal, FLAG_NAMES[i].to_ascii_lowercase(), "flag {i}");
    }
    // And the bits mean what they say on records we know.
    assert!(instr(x86(), "JMP_1").has(Flag::IsBranch));
    assert!(instr(x86(), "RET64").has(Flag::IsReturn));
    assert!(instr(x86(), "POP64r").has(Flag::MayLoad));
    // MOV64rm leaves mayLoad unset (`?`): LLVM infers it from the pattern.
    assert!(!instr(x86(), "MOV64rm").has(Flag::MayLoad));
    assert!(instr(x86(), "MOV64rm").unknown_flags().has(Flag::MayLoad));
    assert!(!instr(x86(), "ADD64rr").has(Flag::MayLoad));
}

#[test]
fn real_form_counts_are_plausible_for_llvm_19() {
    // LLVM 19.1.7: x86 17835, AArch64 6783, RISC-V 1904 real forms.
    for (isa, lo, hi) in [
        (x86(), 17_000, 18_500),
        (a64(), 6_500, 7_100),
        (rv(), 1_800, 2_000),
    ] {
        let n = isa.real_instrs().count();
        assert!((lo..=hi).contains(&n), "{}: {n} real forms", isa.arch());
        assert!(
            isa.instrs().count() > n,
            "{}: pseudos are kept too",
            isa.arch()
        );
    }
}

#[test]
fn opcode_numbers_are_llvms() {
    // From `llvm-mc-19 -show-inst`.
    assert_eq!(instr(x86(), "ADC64i32").opcode(), 457);
    assert_eq!(instr(a64(), "ADDXrs").opcode(), 1465);
    assert_eq!(instr(a64(), "FMADDDrrr").opcode(), 2919);
    assert_eq!(instr(rv(), "VADD_VV").opcode(), 13115);
    assert_eq!(x86().instr_by_opcode(457).unwrap().name(), "ADC64i32");
    // Target-independent opcodes come first, in TargetOpcodes.def order.
    assert_eq!(x86().instr_by_opcode(0).unwrap().name(), "PHI");
}

#[test]
fn adc64ri32_reads_and_writes_eflags_with_src1_tied_to_dst() {
    let i = instr(x86(), "ADC64ri32");
    assert_eq!(names(i.implicit_defs()), ["EFLAGS"]);
    assert_eq!(names(i.implicit_uses()), ["EFLAGS"]);
    let ops: Vec<Operand> = i.operands().collect();
    assert_eq!(
        ops.iter().map(|o| o.name()).collect::<Vec<_>>(),
        ["dst", "src1", "src2"]
    );
    assert!(ops[0].is_def() && !ops[1].is_def());
    assert_eq!(ops[1].tied_to(), Some(0));
    assert_eq!(ops[0].tied_to(), Some(1));
    assert_eq!(ops[0].ty().class().unwrap().name(), "GR64");
    let imm = ops[2].ty().imm().expect("imm info");
    assert_eq!(
        (imm.bits, imm.signed, imm.min, imm.max),
        (32, Some(true), Some(i32::MIN as i64), Some(i32::MAX as i64))
    );
    assert_eq!(i.mnemonic(), "adc");
    assert_eq!(i.asm_template(), "adc\t$src1, $src2");
    let Encoding::X86(e) = i.encoding() else {
        panic!("no x86 encoding")
    };
    assert_eq!((e.opcode(), e.form(), e.immt()), (0x81, "MRM2r", "Imm32S"));
    assert!(e.bits().has("rex_w"));
}

#[test]
fn bts16rr_writes_eflags() {
    let i = instr(x86(), "BTS16rr");
    assert!(names(i.implicit_defs()).contains(&"EFLAGS"));
}

#[test]
fn fmaddd_has_four_fpr64_operands_and_reads_fpcr() {
    let i = instr(a64(), "FMADDDrrr");
    let classes: Vec<&str> = i
        .operands()
        .map(|o| o.ty().class().unwrap().name())
        .collect();
    assert_eq!(classes, ["FPR64"; 4]);
    assert_eq!(names(i.implicit_uses()), ["FPCR"]);
    let Encoding::Bits(b) = i.encoding() else {
        panic!("no bit layout")
    };
    assert_eq!(b.width(), 32);
    // fmadd d0, d0, d0, d0 is 0x1f400000 (all register fields zero).
    assert_eq!(b.fixed(), 0x1f40_0000);
    assert_eq!(
        b.known()
            | b.fields()
                .fold(0, |m, f| m | (((1u64 << f.width) - 1) << f.inst_lo)),
        0xffff_ffff
    );
}

#[test]
fn riscv_add_has_three_gpr_operands() {
    let i = instr(rv(), "ADD");
    let classes: Vec<&str> = i
        .operands()
        .map(|o| o.ty().class().unwrap().name())
        .collect();
    assert_eq!(classes, ["GPR"; 3]);
    let Encoding::Bits(b) = i.encoding() else {
        panic!("no bit layout")
    };
    assert_eq!(b.fixed(), 0x33);
    let fields: Vec<(&str, u8, u8)> = b.fields().map(|f| (f.var, f.inst_lo, f.width)).collect();
    assert_eq!(fields, [("rd", 7, 5), ("rs1", 15, 5), ("rs2", 20, 5)]);
}

#[test]
fn gr64_holds_the_legacy_and_apx_registers() {
    let gr64 = x86().class("GR64").unwrap();
    assert_eq!(gr64.bits(), 64);
    let members = names(gr64.members());
    for r in ["RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI"] {
        assert!(members.contains(&r), "{r}");
    }
    for n in 8..32 {
        let r = format!("R{n}");
        assert!(members.contains(&r.as_str()), "{r}");
        // R16-R31 are the APX extended GPRs (encodings 16-31, feature egpr).
        assert_eq!(x86().register(&r).unwrap().encoding(), n);
    }
    assert!(x86().feature("egpr").is_some());
}

#[test]
fn fpr64_is_d0_to_d31() {
    let c = a64().class("FPR64").unwrap();
    let expect: Vec<String> = (0..32).map(|i| format!("D{i}")).collect();
    assert_eq!(names(c.members()), expect);
    assert_eq!(c.bits(), 64);
}

#[test]
fn tuple_classes_have_synthesized_members() {
    // QQ = (add QSeqPairs), QSeqPairs = zip of (rotl FPR128, 0) and (rotl FPR128, 1).
    let qq = a64().class("QQ").unwrap();
    let members = names(qq.members());
    assert_eq!(members.len(), 32);
    assert_eq!(members[0], "Q0_Q1");
    assert_eq!(members[31], "Q31_Q0");
    let q31_q0 = a64().register("Q31_Q0").unwrap();
    assert!(q31_q0.is_tuple());
    assert_eq!(q31_q0.encoding(), 31);
    assert_eq!(names(q31_q0.sub_regs()), ["Q31", "Q0"]);
    // RISC-V register groups: VRM2 holds the even-numbered pairs.
    let vrm2 = rv().class("VRM2").unwrap();
    assert_eq!(vrm2.members().count(), 16);
    let v8m2 = rv().register("V8M2").unwrap();
    assert_eq!(names(v8m2.sub_regs()), ["V8", "V9"]);
    assert_eq!(v8m2.encoding(), 8);
}

#[test]
fn sub_registers_alias() {
    let rax = x86().register("RAX").unwrap();
    for sub in ["EAX", "AX", "AL", "AH"] {
        assert!(
            rax.contains(x86().register(sub).unwrap()),
            "RAX contains {sub}"
        );
    }
    assert!(!rax.contains(x86().register("RBX").unwrap()));
    let (q0, d0, s0) = (
        a64().register("Q0").unwrap(),
        a64().register("D0").unwrap(),
        a64().register("S0").unwrap(),
    );
    assert!(q0.contains(d0) && d0.contains(s0) && q0.contains(s0));
    assert!(s0.overlaps(q0));
    // Tuples overlap their members and each other when they share one.
    let q0_q1 = a64().register("Q0_Q1").unwrap();
    assert!(q0_q1.overlaps(a64().register("Q1_Q2").unwrap()));
    assert!(!q0_q1.overlaps(a64().register("Q2_Q3").unwrap()));
    assert!(q0_q1.overlaps(s0));
    // RISC-V: the double register contains the single one.
    let (f0_d, f0_f) = (
        rv().register("F0_D").unwrap(),
        rv().register("F0_F").unwrap(),
    );
    assert!(f0_d.contains(f0_f));
}

#[test]
fn predicates_map_to_features() {
    let vpadd = instr(x86(), "VPADDDZ128rr");
    let req = vpadd.required_features().unwrap();
    assert!(req.contains("avx512vl") && req.contains("avx512f"), "{req}");
    let zbb = instr(rv(), "ANDN");
    assert!(zbb.required_features().unwrap().contains("zbb"));
    let sve = instr(a64(), "ADD_ZZZ_B");
    assert!(sve.required_features().unwrap().contains("sve"));
    assert!(x86().implied_features("avx512f").contains(&"avx2"));
}

#[test]
fn asm_variants_and_escapes() {
    assert_eq!(
        select_asm_variant("adc{q}\t{$src2, $src1|$src1, $src2}", 1),
        "adc\t$src1, $src2"
    );
    assert_eq!(
        select_asm_variant("adc{q}\t{$src2, $src1|$src1, $src2}", 0),
        "adcq\t$src2, $src1"
    );
    let vaddps = "vaddps\t{$src2, $src1, $dst {${mask}}|$dst {${mask}}, $src1, $src2}";
    assert_eq!(
        select_asm_variant(vaddps, 1),
        "vaddps\t$dst {${mask}}, $src1, $src2"
    );
    assert_eq!(
        select_asm_variant(vaddps, 0),
        "vaddps\t$src2, $src1, $dst {${mask}}"
    );
    assert_eq!(
        select_asm_variant("ld1b\t\\{$ZAt[$Rv, $imm]\\}, $Pg/z", 0),
        "ld1b\t{$ZAt[$Rv, $imm]}, $Pg/z"
    );
}

#[test]
fn unknown_names_get_close_suggestions() {
    assert_eq!(x86().closest_instr_names("add64rr", 1), ["ADD64rr"]);
    let s = a64().closest_instr_names("ADDXr", 3);
    assert!(s.iter().any(|n| n.starts_with("ADDXr")), "{s:?}");
}

#[test]
fn complex_operands_flatten_into_named_sub_operands() {
    let mc: Vec<(&str, &str)> = instr(a64(), "ADDXrs")
        .mc_operands()
        .iter()
        .map(|m| (m.name, m.ty.name()))
        .collect();
    assert_eq!(
        mc,
        [
            ("Rd", "GPR64"),
            ("Rn", "GPR64"),
            ("Rm", "GPR64"),
            ("shift", "arith_shift64")
        ]
    );
    // Every Inst field of a register/immediate form names one machine operand.
    let i = instr(a64(), "ADDXrs");
    let Encoding::Bits(b) = i.encoding() else {
        panic!()
    };
    let names: Vec<&str> = i.mc_operands().iter().map(|m| m.name).collect();
    assert!(b.fields().all(|f| names.contains(&f.var)));
}

/// A memory form does its register form's operation unless that form is
/// a copy, or a copy merged into its destination that the memory form
/// does not keep: SSE `movsd`/`movss` loads and stores are the access
/// alone, where `movsd xmm, xmm` blends; load-op forms, which keep their
/// destination tied, and truncating or masked stores do the operation.
#[test]
fn a_memory_form_does_its_register_forms_operation_unless_that_only_moves() {
    let f = |n: &str| instr(x86(), n);
    for (memory, register) in [
        ("MOVSDrm", "MOVSDrr"),
        ("MOVSSrm", "MOVSSrr"),
        ("MOVSDmr", "MOVSDrr"),
        ("MOVSSmr", "MOVSSrr"),
        ("MOVUPDrm", "MOVUPDrr"),
        ("VMOVDQU64Zmr", "VMOVDQU64Zrr"),
    ] {
        assert!(
            !f(memory).does_operation_of(f(register)),
            "{memory} of {register}"
        );
    }
    for (memory, register) in [
        ("ADDPSrm", "ADDPSrr"),
        ("ADDSDrm", "ADDSDrr"),
        ("PUNPCKLQDQrm", "PUNPCKLQDQrr"),
        ("VADDPSrm", "VADDPSrr"),
        ("PMOVZXBWrm", "PMOVZXBWrr"),
        ("VPABSDZ256rm", "VPABSDZ256rr"),
        ("MOVDDUPrm", "MOVDDUPrr"),
        ("VPMOVDBZmr", "VPMOVDBZrr"),
        ("VMOVDQU16Z128mrk", "VMOVDQU16Z128rrk"),
        ("ADD64mr", "ADD64rr"),
    ] {
        assert!(
            f(memory).does_operation_of(f(register)),
            "{memory} of {register}"
        );
    }
}

/// A copy by shape must also be a move by name: forms with one register
/// read and one written of the same class compute too.
#[test]
fn register_copies_are_moves_by_name_not_only_by_shape() {
    for (isa, copies, computes) in [
        (
            x86(),
            &["MOVDQArr", "VMOVDQUYrr", "MOVAPSrr", "MOVZPQILo2PQIrr"][..],
            &[
                "PMOVZXBWrr",
                "PABSDrr",
                "VPBROADCASTDZ128rr",
                "MOVDDUPrr",
                "VPOPCNTDZ128rr",
            ][..],
        ),
        (
            a64(),
            &["FMOVDr"][..],
            &["ABSv4i32", "CLZWr", "FABSDr", "REVXr"][..],
        ),
        (rv(), &["C_MV"][..], &["CLZ", "CPOP", "REV8_RV64"][..]),
    ] {
        for name in copies {
            assert!(instr(isa, name).is_register_copy(), "{name}");
        }
        for name in computes {
            assert!(!instr(isa, name).is_register_copy(), "{name}");
        }
    }
}
