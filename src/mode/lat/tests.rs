use super::*;
use crate::arch::target;
use crate::isa::{Arch, Isa};
use crate::mode::reason::{ChainGap, Failure};

fn quick() -> Options {
    let mut opts = Options::default();
    opts.sampling.budget = std::time::Duration::from_millis(300);
    opts
}

#[test]
fn types_are_register_files_and_widths() {
    let isa = Isa::get(Arch::X86_64);
    let f = |n: &str| isa.instr(n).unwrap();
    assert_eq!(type_of(f("ADD64rr"), End::Op(0)).to_string(), "RAX:64");
    assert_eq!(type_of(f("ADD32rr"), End::Op(0)).to_string(), "RAX:32");
    assert_eq!(
        type_of(f("MOVPQIto64rr"), End::Op(1)),
        type_of(f("ADDPDrr"), End::Op(0))
    );
    let flags = isa.register("EFLAGS").unwrap();
    assert_eq!(
        type_of(f("ADD64rr"), End::Implicit(flags)).to_string(),
        "EFLAGS"
    );
    // A write mask (k1-k7) is of the file of every k operand (k0-k7): the
    // helper back from a masked form's destination is `vpcmp k, ...`.
    assert_eq!(
        type_of(f("VADDPDZ128rrk"), End::Op(2)),
        type_of(f("VPMOVM2DZ128rr"), End::Op(1))
    );
    assert_eq!(
        type_of(f("VPMOVM2DZ128rr"), End::Op(1)),
        type_of(f("KANDWrr"), End::Op(0))
    );
    let arm = Isa::get(Arch::Aarch64);
    let a = |n: &str| arm.instr(n).unwrap();
    assert_eq!(
        type_of(a("ADDXrr"), End::Op(0)),
        type_of(a("ADDXri"), End::Op(1))
    );
    let rv = Isa::get(Arch::Riscv64);
    let r = |n: &str| rv.instr(n).unwrap();
    assert_eq!(
        type_of(r("ADD"), End::Op(0)),
        type_of(r("ADDI"), End::Op(1))
    );
    // A tuple written is typed as its first part, the register the next
    // step reads: `vp2intersectd`'s pair `k0:k1` as a 16-bit k register,
    // AArch64's `ld2 {v0.4s, v1.4s}` as a q register. A tuple read stays
    // a type of its own (`tbl`'s table): no helper writes all of it.
    assert_eq!(
        type_of(f("VP2INTERSECTDZrr"), End::Op(0)),
        type_of(f("KMOVWrk"), End::Op(1))
    );
    assert_eq!(
        type_of(a("LD2Twov4s"), End::Op(0)),
        type_of(a("ADDv4i32"), End::Op(0))
    );
    assert!(type_of(a("TBLv16i8Two"), End::Op(1)).file().contains('_'));
    // And the chain reads the pair's first part.
    let k2_k3 = isa.register("K2_K3").unwrap();
    let vk16 = f("KMOVWrk").mc_operands()[1].ty.class().unwrap();
    assert_eq!(
        chain::partner(target(Arch::X86_64), vk16, k2_k3),
        isa.register("K2")
    );
}

/// A LAT run of a few forms on the host: every sub-latency of the
/// symmetric ones has a value, bts's to the flags goes through the adc
/// helper, and the entries carry WINIC's keys.
#[test]
fn a_small_run_measures_symmetric_and_asymmetric_sub_latencies() {
    let arch = Arch::host().expect("tests run on a host winic supports");
    let t = target(arch);
    let isa = Isa::get(arch);
    let names: &[&str] = match arch {
        Arch::X86_64 => &[
            "ADD64rr", "IMUL64rr", "BT64rr", "ADC64rr", "CMP64rr", "SYSCALL",
        ],
        Arch::Aarch64 => &["ADDXrs", "MADDXrrr", "FMOVXDr", "FMOVDXr", "SVC"],
        Arch::Riscv64 => &["ADD", "MUL", "FMV_X_D", "FMV_D_X", "ECALL"],
    };
    let forms: Vec<Instr> = names.iter().map(|n| isa.instr(n).unwrap()).collect();
    let mut seen = Vec::new();
    let run = run(
        t,
        &forms,
        &quick(),
        false,
        &mut |_, _, _| {},
        &mut |r, _| seen.push(r.form.name()),
    );
    // Every form once, skipped ones included.
    let mut sorted = seen.clone();
    sorted.sort();
    let mut want = names.to_vec();
    want.sort();
    assert_eq!(sorted, want);
    let emulated = crate::testing::emulated();
    let value = |form: &str, s: &str, d: &str| -> Result<(f64, f64), Failure> {
        let row = run.rows.iter().find(|r| r.form.name() == form).unwrap();
        let Outcome::Measured(subs, _) = &row.outcome else {
            panic!("{form}: {:?}", row.outcome)
        };
        subs.iter()
            .find(|x| x.edge.keys() == (s.to_string(), d.to_string()))
            .unwrap_or_else(|| panic!("{form} has no {s} -> {d}"))
            .value
            .clone()
    };
    let (first, asym) = match arch {
        Arch::X86_64 => (("ADD64rr", "1", "0"), ("BT64rr", "1", "EFLAGS")),
        Arch::Aarch64 => (("ADDXrs", "1", "0"), ("FMOVXDr", "1", "0")),
        Arch::Riscv64 => (("ADD", "1", "0"), ("FMV_X_D", "1", "0")),
    };
    for (f, s, d) in [first, asym] {
        match value(f, s, d) {
            Ok((lo, hi)) => assert!(lo <= hi && hi >= 0.0 && lo >= 0.0, "{f}: [{lo}, {hi}]"),
            Err(why) if emulated => eprintln!("{f} {s}->{d} under emulation: {why}"),
            Err(why) => panic!("{f} {s} -> {d}: {why}"),
        }
    }
    if !emulated {
        // A one-cycle add on every core this runs on.
        assert_eq!(value(first.0, first.1, first.2).ok(), Some((1.0, 1.0)));
    }
    // The asymmetric value came from a chain with a helper, which the
    // row names for reproduction (under emulation the chain may have
    // failed as noise, checked above: then there is no value to trace).
    let row = run.rows.iter().find(|r| r.form.name() == asym.0).unwrap();
    if value(asym.0, asym.1, asym.2).is_ok() {
        assert!(row.reproduce.len() >= 2, "{:?}", row.reproduce);
    }
    let e = entry(row).unwrap();
    assert!(e
        .operand_latencies
        .iter()
        .any(|l| l.source_operand == asym.1 && l.target_operand == asym.2));
    assert!(entry(
        run.rows
            .iter()
            .find(|r| r.form.name() == names[names.len() - 1])
            .unwrap()
    )
    .is_none());
}

#[test]
fn between_files_names_the_two_register_files_of_a_crossing() {
    let isa = Isa::get(Arch::X86_64);
    let t = target(Arch::X86_64);
    let edge = |name: &str, source: End, target: End| Edge {
        form: isa.instr(name).unwrap(),
        source,
        target,
    };
    // k -> xmm of vpmovm2d crosses; ymm -> xmm of vextractf128 does not.
    assert_eq!(
        between_files(&edge("VPMOVM2DZ128rr", End::Op(1), End::Op(0))),
        Some(("K0", "ZMM0"))
    );
    assert_eq!(
        between_files(&edge("VEXTRACTF128rr", End::Op(1), End::Op(0))),
        None
    );
    let flags = isa.register("EFLAGS").unwrap();
    let (bt, _) = chain::edges(t, isa.instr("BT64rr").unwrap());
    let to_flags = bt
        .iter()
        .find(|e| e.target == End::Implicit(flags))
        .unwrap();
    assert_eq!(between_files(to_flags), Some(("RAX", "EFLAGS")));
}

/// The summary counts sub-latencies without a value by the kind of their
/// reason: figures and registers do not split a kind (under qemu the
/// noise failures filled one line per figure). The report shows the lap
/// of a chain that ran and failed under its sub-latency.
#[test]
fn summary_groups_reasons_by_kind_and_report_shows_failed_chains() {
    let t = target(Arch::X86_64);
    let form = Isa::get(Arch::X86_64).instr("BTS64rr").unwrap();
    let (edges, _) = chain::edges(t, form);
    assert!(edges.len() >= 4, "{edges:?}");
    let values = [
        Err(Failure::NotPositive {
            cycles: -10.0,
            cost: Box::default(),
        }),
        Err(Failure::NotPositive {
            cycles: 0.0,
            cost: Box::default(),
        }),
        Err(Failure::NoChain {
            gap: ChainGap::NoHelperPath {
                from: "EFLAGS",
                to: "RAX",
            },
            detail: None,
        }),
        Ok((1.0, 3.0)),
    ];
    let subs = edges
        .into_iter()
        .zip(values)
        .enumerate()
        .map(|(k, (edge, value))| SubLatency {
            edge,
            died: if k == 0 {
                vec!["bts rax, rcx".into(), "adc rcx, 1".into()]
            } else {
                Vec::new()
            },
            value,
            chains: Vec::new(),
            unobservable: None,
        })
        .collect();
    let run = Run {
        rows: vec![Row {
            form,
            outcome: Outcome::Measured(subs, Vec::new()),
            reproduce: Vec::new(),
        }],
        measurements: Vec::new(),
        contradictions: Vec::new(),
    };
    let s = summary(&run, std::time::Duration::from_secs(1));
    assert!(
        s.contains("     2  the unroll difference was not positive: noise\n"),
        "{s}"
    );
    assert!(
        s.contains("     1  no helper chain leads back from EFLAGS to RAX\n"),
        "{s}"
    );
    let report = crate::mode::blocks::lat_block(t, &run.rows[0], &run.measurements);
    let lap = "noise]\n\t\tthe chain that ran and failed, one lap:\n\t\t\tbts rax, rcx\n\t\t\tadc rcx, 1\n";
    assert!(report.contains(lap), "{report}");
    assert_eq!(
        report.matches("the chain that ran and failed").count(),
        1,
        "{report}"
    );
    // No unanchored range: no empty list of file pairs.
    assert!(
        s.contains("  ranges: 1, none between two register files that no exact value anchors\n"),
        "{s}"
    );
}

/// RVV chains: a helper's result read as a larger group (`vmv.v.v` at
/// m2 feeding `vwadd.wv`'s wide source, a group of 4) moves where that
/// group covers no other source of the reader (two element widths on one
/// register is reserved: 17 such pairs died of SIGILL under qemu -cpu max),
/// and no result lands on a source LLVM's RVVConstraint keeps it off
/// (`vsha2ch`, `vsm3me` at m8 got one-lap self chains reading their own
/// result). Each chain is built, or refused with a reason.
#[test]
fn rvv_chains_keep_groups_off_other_sources() {
    use crate::arch::riscv64::vtype::VType;
    let isa = Isa::get(Arch::Riscv64);
    let cases = [
        ("e8m2", "VWADD_WV", "(1 -> 0)", Some("VMV_V_V")),
        ("e16m2", "VWADD_WV", "(1 -> 0)", Some("VMV_V_V")),
        ("e16m2", "VFWADD_WV", "(1 -> 0)", Some("VMV_V_V")),
        ("e16m2", "VWSUBU_WV", "(1 -> 0)", Some("VMV_V_V")),
        ("e32m8", "VSM3ME_VV", "(1 -> 0)", None),
        ("e32m8", "VSHA2CH_VV", "(1 -> 0)", None),
        ("e64m8", "VSHA2CL_VV", "(2 -> 0)", None),
        ("e32m8", "VSHA2MS_VV", "(1 -> 0)", None),
    ];
    let mut built = 0;
    for (v, name, edge, helper) in cases {
        let t = crate::arch::riscv64::at(VType::parse(v).unwrap());
        let pick = |form: &str, label: &str| {
            let (edges, _) = chain::edges(t, isa.instr(form).unwrap());
            edges
                .into_iter()
                .find(|e| e.label().contains(label))
                .unwrap()
        };
        let mut steps = vec![pick(name, edge)];
        steps.extend(helper.map(|h| pick(h, "(1 -> 0)")));
        let Ok(c) = chain::chain(t, &steps, None) else {
            continue;
        };
        built += 1;
        for inst in &c.body {
            let mc = inst.form.mc_operands();
            let regs = |n: &str| {
                mc.iter()
                    .position(|m| m.name == n)
                    .map(|k| t.operand_regs(inst, k))
                    .unwrap_or_default()
            };
            let overlap = |a: &[crate::isa::Reg], b: &[crate::isa::Reg]| {
                a.iter().any(|x| b.iter().any(|y| t.aliases(*x, *y)))
            };
            let text = t.print(inst).unwrap();
            if inst.form.name().ends_with("_WV") {
                assert!(!overlap(&regs("vs2"), &regs("vs1")), "{v} {name}: {text}");
            }
            let result = if regs("vd_wb").is_empty() {
                "vd"
            } else {
                "vd_wb"
            };
            for src in inst.form.result_must_not_overlap() {
                if src != "vm" {
                    assert!(!overlap(&regs(result), &regs(src)), "{v} {name}: {text}");
                }
            }
        }
    }
    // The widening chains have registers enough to exist at all.
    assert!(built >= 4, "only {built} chains built");
}

/// LLVM's RVVConstraint, as the tables carry it.
#[test]
fn rvv_constraint_comes_from_llvm() {
    let isa = Isa::get(Arch::Riscv64);
    let f = |n: &str| isa.instr(n).unwrap().result_must_not_overlap();
    assert_eq!(f("VSM3ME_VV"), ["vs2"]);
    assert_eq!(f("VSHA2CH_VV"), ["vs2", "vs1"]);
    assert_eq!(f("VWADD_WV"), ["vs1", "vm"]);
    assert_eq!(f("VRGATHER_VV"), ["vs2", "vs1", "vm"]);
    assert!(f("ADD").is_empty());
    assert!(Isa::get(Arch::X86_64)
        .instr("ADD64rr")
        .unwrap()
        .result_must_not_overlap()
        .is_empty());
}

/// A sub-latency measured as a fraction (a folded `add rax, 1` on Golden
/// Cove runs 0.19 cycles a lap) reaches the database and the report as
/// that fraction, not as the whole cycle 0 it used to be rounded to.
#[test]
fn a_fraction_reaches_the_database_and_the_report() {
    let t = target(Arch::X86_64);
    let form = Isa::get(Arch::X86_64).instr("ADD64ri8").unwrap();
    let (edges, _) = chain::edges(t, form);
    let subs: Vec<SubLatency> = edges
        .into_iter()
        .map(|edge| SubLatency {
            value: if edge.keys().1 == "0" {
                Ok((0.19, 0.19))
            } else {
                Err(Failure::NoChain {
                    gap: ChainGap::NoHelperPath {
                        from: "EFLAGS",
                        to: "RAX",
                    },
                    detail: None,
                })
            },
            edge,
            died: Vec::new(),
            chains: Vec::new(),
            unobservable: None,
        })
        .collect();
    let row = Row {
        form,
        outcome: Outcome::Measured(subs, Vec::new()),
        reproduce: vec![form],
    };
    let e = entry(&row).unwrap();
    let add = e
        .operand_latencies
        .iter()
        .find(|l| l.source_operand == "0" && l.target_operand == "0")
        .unwrap();
    assert_eq!((add.latency_min, add.latency_max), (Some(0.19), Some(0.19)));
    assert_eq!(e.latency, Some(0.19));
    let text = crate::db::Database { entries: vec![e] }.to_yaml();
    assert!(text.contains("  latency:         0.19\n"), "{text}");
    assert!(text.contains("      latencyMin:      0.19\n"), "{text}");
    let report = crate::mode::blocks::lat_block(t, &row, &[]);
    assert!(report.contains("ADD64ri8(0 -> 0) [0.19;0.19]"), "{report}");
}

/// Register copies, whose chain under one cycle is an eliminated move:
/// LLVM's isMoveReg ones and the plain copies LLVM leaves it off; not
/// forms that compute (`inc` and `not` are tied, `add r, imm` has an
/// immediate) or touch flags and implicit registers.
#[test]
fn copies_are_moves_by_flag_or_by_shape() {
    let x86 = Isa::get(Arch::X86_64);
    let f = |n: &str| x86.instr(n).unwrap();
    for name in [
        "MOV64rr",
        "MOVAPSrr",
        "VMOVDQA64Zrr",
        "MOVDQArr",
        "VMOVDQUYrr",
        "KMOVWkk",
    ] {
        assert!(f(name).is_register_copy(), "{name}");
    }
    for name in [
        "INC64r",
        "NOT64r",
        "ADD64ri8",
        "ADD64rr",
        "XCHG64rr",
        "CLC",
        "CDQ",
        "MOVZX32rr8",
    ] {
        assert!(!f(name).is_register_copy(), "{name}");
    }
    // The reason for the shape rule: LLVM has no isMoveReg on movdqa.
    assert!(!f("MOVDQArr").has(crate::isa::Flag::IsMoveReg));
}

/// adc's accumulator is broken, while its flags are measured, by a move of
/// an immediate onto the whole register, not by `rdtsc`: an interleaved
/// form's cost is in every lap, and rdtsc's 36 cycles on Zen 3 made adc's
/// flags -> flags 36. A 16-bit accumulator gets a 64-bit move (a 16-bit
/// write would merge into RAX and keep the dependency); the flags of
/// `adc ax, imm16` and `sbb al, imm8` break with a compare as before.
#[test]
fn an_implicit_accumulator_is_broken_by_a_move_of_an_immediate() {
    let t = target(Arch::X86_64);
    let isa = Isa::get(Arch::X86_64);
    let flags = isa.register("EFLAGS").unwrap();
    let edge_of = |name: &str, s: End, d: End| {
        chain::edges(t, isa.instr(name).unwrap())
            .0
            .into_iter()
            .find(|e| e.source == s && e.target == d)
            .unwrap_or_else(|| panic!("{name} has no such edge"))
    };
    for (name, acc, whole) in [
        ("ADC16i16", "AX", "RAX"),
        ("SBB8i8", "AL", "RAX"),
        ("ADC64i32", "RAX", "RAX"),
    ] {
        let e = edge_of(name, End::Implicit(flags), End::Implicit(flags));
        let b = breaker_for(t, &e).unwrap_or_else(|| panic!("{name}: no breaker"));
        assert!(
            b.form.has(crate::isa::Flag::IsMoveImm),
            "{name}: {}",
            b.label()
        );
        let (_, r) = b.onto.expect("an explicit destination");
        assert_eq!(r.name(), whole, "{name}: {}", b.label());
        let chain = chain::chain(t, &[e], Some(b)).unwrap();
        assert!(chain.bound.is_none(), "{name}: {:?}", chain.bound);
        let printed: Vec<String> = chain.body.iter().map(|i| t.print(i).unwrap()).collect();
        assert!(
            printed[1].contains(&whole.to_ascii_lowercase()),
            "{name}: {printed:?}"
        );
        // The accumulator's own chain needs no breaker.
        let a = isa.register(acc).unwrap();
        let own = edge_of(name, End::Implicit(a), End::Implicit(a));
        let b = breaker_for(t, &own).expect("the flags' breaker");
        assert!(
            b.form.has(crate::isa::Flag::IsCompare),
            "{name}: {}",
            b.label()
        );
    }
}

/// A sub-latency whose every chain ran a lap shorter than the steps on
/// it add up to (zen5's `vpconflictd zmm, [m]{1to16}` chase: 1.00 cycle
/// a lap through `movq`, `and` and `add`, each a cycle) is said to have
/// outrun them, with the fastest lap; one with any chain kept, or none
/// measured, is not.
#[test]
fn a_chain_faster_than_its_steps_says_the_result_did_not_wait() {
    use solve::{solve, Equation};
    let eq = |unknowns: Vec<usize>, cycles: f64| Equation {
        unknowns,
        cycles,
        exact: true,
        eliminable: false,
    };
    // Unknowns: 0 the form's address -> result, 1-3 the steps back,
    // each measured alone at one cycle.
    let equations = vec![
        eq(vec![1], 1.0),
        eq(vec![2], 1.0),
        eq(vec![3], 1.0),
        eq(vec![0, 1, 2, 3], 1.0),
        eq(vec![0, 1, 2, 3], 1.02),
    ];
    let (bounds, dropped) = solve(4, &equations);
    assert_eq!(bounds[0].cycles(), None, "{bounds:?}");
    let lap = |m: usize| equations[m].cycles;
    assert_eq!(outran(&[3, 4], &dropped, &lap), Some(1.0), "{dropped:?}");
    // A chain that was kept, or no chain at all: no such failure.
    assert_eq!(outran(&[3, 1], &dropped, &lap), None);
    assert_eq!(outran(&[], &dropped, &lap), None);
    let why = Failure::Outran { lap: 1.0 }.to_string();
    assert!(
        why.contains("1.00 cycles a lap") && why.contains("did not wait"),
        "{why}"
    );
}

/// A division's high half must stay 0 (its divisor is 1): a chain that
/// steps back into it (`add edx, 4660` before `div ecx`) would overflow
/// the quotient (#DE, SIGFPE), so such a sub-latency is not built and
/// says why, while the chains of copies (edx -> edx) run. Under an
/// emulator the planning is the same; only x86 has divisions that fault.
#[test]
fn a_division_keeps_its_high_half_out_of_helper_chains() {
    if Arch::host() != Some(Arch::X86_64) {
        crate::testing::skip("x86 divisions: the host is another arch");
        return;
    }
    let t = target(Arch::X86_64);
    let isa = Isa::get(Arch::X86_64);
    let forms: Vec<Instr> = ["DIV32r", "ADD32ri", "ADD64rr"]
        .iter()
        .map(|n| isa.instr(n).unwrap())
        .collect();
    let run = run(
        t,
        &forms,
        &quick(),
        false,
        &mut |_, _, _| {},
        &mut |_, _| {},
    );
    let row = run.rows.iter().find(|r| r.form.name() == "DIV32r").unwrap();
    let Outcome::Measured(subs, _) = &row.outcome else {
        panic!("{:?}", row.outcome)
    };
    let sub = |from: &str, to: &str| {
        subs.iter()
            .find(|s| s.edge.keys() == (from.to_string(), to.to_string()))
            .unwrap_or_else(|| panic!("{from} -> {to}: {subs:?}"))
    };
    match &sub("EDX", "EAX").value {
        Err(Failure::NoChain {
            gap: ChainGap::HeldValue,
            detail,
        }) => assert_eq!(detail.as_deref(), Some("edx = 0x0")),
        v => panic!("edx -> eax: {v:?}"),
    }
    if !crate::testing::emulated() {
        assert!(sub("EDX", "EDX").value.is_ok(), "{subs:?}");
    }
}

/// A chain through two sub-latencies (a helper pair's, a fastest
/// pair's) whose lap reads more than a quarter cycle off a whole sum is
/// marked for a second timing (`Lat::record_marking`); one read whole is
/// not. Both are recorded as equations.
#[test]
fn a_pair_read_off_whole_is_marked_for_a_second_look() {
    let t = target(Arch::X86_64);
    let isa = Isa::get(Arch::X86_64);
    let forms: Vec<Instr> = ["MOV64toPQIrr", "MOVPQIto64rr"]
        .iter()
        .map(|n| isa.instr(n).unwrap())
        .collect();
    let opts = quick();
    let mut lat = Lat::plan(t, &forms, &opts, false, &mut |_, _| {});
    let step = |k: usize| lat.all.iter().find(|(f, _)| *f == k).unwrap().1;
    let steps = vec![step(0), step(1)];
    let lap = |cycles: f64| Measurement {
        steps: steps.clone(),
        breaker: None,
        laps: 1,
        cycles,
        bound: None,
        body: Vec::new(),
        cost: Cost::default(),
    };
    let mut again = Vec::new();
    lat.record_marking(lap(7.0), &mut again);
    assert!(again.is_empty(), "a whole lap: {again:?}");
    lat.record_marking(lap(6.5), &mut again);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].1, steps);
    assert_eq!(lat.equations.len(), 2);
}
