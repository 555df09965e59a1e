//! Tests of merging results into a database.

use super::fixtures::{entry, form, pair, X60};
use super::*;
use crate::isa::Arch;

#[test]
fn vector_configs_merge_by_type_and_read_back() {
    let mut db = Database::default();
    let mut base = entry("VADD_VV");
    base.set_throughput(0.5, 0.5);
    db.merge(base.clone());
    let mut tp = entry("VADD_VV");
    tp.set_throughput(2.0, 2.0);
    db.merge_vector_config(base.clone(), VectorConfig::from_entry(&tp, 8, "m4"), false);
    let mut lat = entry("VADD_VV");
    lat.operand_latencies.push(OperandLatency {
        source_operand: "1".into(),
        target_operand: "0".into(),
        latency_min: Some(4.0),
        latency_max: Some(4.0),
    });
    db.merge_vector_config(base.clone(), VectorConfig::from_entry(&lat, 8, "m4"), true);
    db.merge_vector_config(base.clone(), VectorConfig::from_entry(&tp, 64, "m8"), false);
    let e = db.get("VADD_VV").unwrap();
    // WINIC's fields keep the e32 m1 values.
    assert_eq!(e.throughput, Some(0.5));
    assert_eq!(e.vector_configs.len(), 2);
    let c = &e.vector_configs[0];
    assert_eq!((c.sew, c.lmul.as_str()), (8, "m4"));
    assert_eq!((c.throughput, c.latency), (Some(2.0), Some(4.0)));
    let text = db.to_yaml();
    assert!(
        text.contains("  vectorConfigs:\n    - sew:             8\n      lmul:            m4\n"),
        "{text}"
    );
    assert!(text.contains("        - sourceOperand:   '1'\n"), "{text}");
    assert_eq!(Database::parse(&text).unwrap(), db);
}

#[test]
fn merge_replaces_in_place_and_appends() {
    let mut db = Database::parse(X60).unwrap();
    let n = db.entries.len();
    let mut xori = entry("XORI");
    xori.throughput = Some(1.0);
    db.merge(xori.clone());
    assert_eq!(db.entries.len(), n);
    assert_eq!(db.entries[1], xori);
    db.merge(entry("NEW"));
    assert_eq!(db.entries.len(), n + 1);
    assert_eq!(db.entries[n].llvm_name, "NEW");
}

#[test]
fn throughput_merge_keeps_latency_fields() {
    let mut db = Database::parse(X60).unwrap();
    let before = db.get("ADD").unwrap().clone();
    let mut tp = Entry::for_form(form(Arch::Riscv64, "ADD"));
    tp.set_throughput(0.333, 0.3449);
    db.merge_throughput(tp);
    let after = db.get("ADD").unwrap();
    assert_eq!(after.throughput, Some(0.33));
    assert_eq!(after.throughput_min, Some(0.33));
    assert_eq!(after.throughput_max, Some(0.34));
    assert_eq!(after.latency, before.latency);
    assert_eq!(after.operand_latencies, before.operand_latencies);
    assert_eq!(
        db.entries.iter().position(|e| e.llvm_name == "ADD"),
        Some(2)
    );
}

#[test]
fn latency_merge_keeps_throughput_and_other_pairs() {
    let mut db = Database::parse(X60).unwrap();
    let mut lat = entry("ADD");
    lat.set_operand_latency("2", "0", Some((2.0, 3.0)));
    lat.set_operand_latency("X5", "0", None);
    db.merge_latency(lat);
    let add = db.get("ADD").unwrap();
    assert_eq!(add.name, "add");
    assert_eq!(add.throughput, Some(0.5));
    let pairs: Vec<_> = add
        .operand_latencies
        .iter()
        .map(|l| (l.source_operand.as_str(), l.latency_max))
        .collect();
    assert_eq!(pairs, [("1", Some(1.0)), ("2", Some(3.0)), ("X5", None)]);
    // The range [2;3] does not set it: the kept pair 1 -> 0 is exact.
    assert_eq!(add.latency, Some(1.0));
    // A pair measured exact and higher raises it, and measured again
    // lower lowers it.
    for (v, want) in [(5.0, 5.0), (1.0, 1.0)] {
        let mut again = entry("ADD");
        again.set_operand_latency("2", "0", Some((v, v)));
        db.merge_latency(again);
        assert_eq!(db.get("ADD").unwrap().latency, Some(want));
    }
}

/// The rule holds however the entry is built: pair by pair, merged
/// into a database that has the form (from WINIC or an earlier run),
/// and as an RVV vector type's values; and the file written reads back
/// with the same `latency`.
#[test]
fn latency_survives_set_merge_and_a_round_trip() {
    let mut e = entry("VADDPDZrrk");
    e.set_operand_latency("1", "0", Some((1.0, 8.0)));
    assert_eq!(e.latency, Some(8.0));
    e.set_operand_latency("0", "0", Some((4.0, 4.0)));
    e.set_operand_latency("2", "0", Some((4.0, 4.0)));
    assert_eq!(e.latency, Some(4.0));
    // An old entry written by the largest-latencyMax rule.
    let mut old = entry("VADDPDZrrk");
    old.operand_latencies = vec![pair("1", Some((1.0, 8.0))), pair("3", Some((4.0, 4.0)))];
    old.latency = Some(8.0);
    old.throughput = Some(0.5);
    let mut db = Database { entries: vec![old] };
    db.merge_latency(e.clone());
    let got = db.get("VADDPDZrrk").unwrap();
    assert_eq!(got.latency, Some(4.0));
    assert_eq!(got.throughput, Some(0.5));
    let back = Database::parse(&db.to_yaml()).unwrap();
    assert_eq!(back.get("VADDPDZrrk").unwrap().latency, Some(4.0));
    assert!(db.to_yaml().contains("  latency:         4\n"));
    // RVV: a vector type's values merged pair by pair.
    let mut rv = Database::default();
    let base = entry("VADD_VV");
    let config = |pairs: Vec<OperandLatency>| VectorConfig {
        sew: 8,
        lmul: "m1".into(),
        measured: Measured {
            latency: form_latency(&pairs),
            operand_latencies: pairs,
            ..Measured::default()
        },
    };
    rv.merge_vector_config(
        base.clone(),
        config(vec![pair("1", Some((1.0, 6.0)))]),
        true,
    );
    rv.merge_vector_config(base, config(vec![pair("2", Some((2.0, 2.0)))]), true);
    assert_eq!(rv.entries[0].vector_configs[0].latency, Some(2.0));
}

/// An entry and a vector config merge by the same rule: a LAT result
/// whose pairs all failed replaces the pairs and keeps the `latency`
/// measured before, in both.
#[test]
fn entries_and_configs_keep_their_latency_when_a_new_run_fails() {
    let mut measured = entry("VADD_VV");
    measured.set_operand_latency("1", "0", Some((4.0, 4.0)));
    let mut failed = entry("VADD_VV");
    failed.set_operand_latency("1", "0", None);
    assert_eq!(failed.latency, None);
    let mut db = Database::default();
    for e in [&measured, &failed] {
        db.merge_latency(e.clone());
        let config = VectorConfig::from_entry(e, 8, "m2");
        db.merge_vector_config(entry("VADD_VV"), config, true);
    }
    let e = db.get("VADD_VV").unwrap();
    assert_eq!(e.operand_latencies, [pair("1", None)]);
    assert_eq!(e.latency, Some(4.0));
    assert_eq!(e.vector_configs[0].measured, e.measured);
}

#[test]
fn a_ports_run_replaces_every_forms_inferred_ports() {
    let mut db = Database::parse(X60).unwrap();
    let n = db.entries.len();
    let uses = |cycles: f64, ports: &[&str]| {
        vec![PortUse {
            cycles,
            ports: ports.iter().map(|p| p.to_string()).collect(),
        }]
    };
    let before = db.get("ADD").unwrap().clone();
    let first = vec![
        (form(Arch::Riscv64, "ADD"), uses(1.0, &["0", "1"])),
        (form(Arch::Riscv64, "XORI"), uses(1.0, &["0", "1"])),
    ];
    assert_eq!(db.replace_inferred_ports(first), 0);
    // XORI's are the nearest set, no set fitting its mixes.
    db.mark_inferred_misfits(&[(form(Arch::Riscv64, "XORI"), 0.13912)]);
    let add = db.get("ADD").unwrap();
    assert_eq!(add.inferred_ports, uses(1.0, &["0", "1"]));
    assert_eq!(add.inferred_ports_misfit, None);
    // Everything measured stays.
    assert_eq!(add.measured, before.measured);

    let text = db.to_yaml();
    assert!(
        text.contains(
            "  inferredPorts:\n    - cycles:          1\n      ports:           [ '0', '1' ]\n"
        ),
        "{text}"
    );
    assert_eq!(
        text.matches("  inferredPortsMisfit: 0.139\n").count(),
        1,
        "{text}"
    );
    assert_eq!(Database::parse(&text).unwrap(), db);

    // A second run numbers its ports its own way: XORI, not in it, loses
    // the first run's; a form new to the file is added.
    let second = vec![
        (form(Arch::Riscv64, "ADD"), uses(1.02, &["2"])),
        (form(Arch::Riscv64, "MUL"), uses(0.98, &["1"])),
    ];
    assert_eq!(db.replace_inferred_ports(second), 1);
    assert!(db.get("XORI").unwrap().inferred_ports.is_empty());
    assert_eq!(db.get("XORI").unwrap().inferred_ports_misfit, None);
    assert_eq!(db.get("ADD").unwrap().inferred_ports, uses(1.02, &["2"]));
    let mul = db.get("MUL").unwrap();
    assert_eq!((mul.throughput, mul.latency), (None, None));
    assert_eq!(db.entries.len(), n + 1);
    assert_eq!(Database::parse(&db.to_yaml()).unwrap(), db);
}

/// A `ports` run's repeated-string cycles are written as a list of sizes,
/// rounded to 0.01, read back equal, replace an earlier run's, and leave
/// out what is no measurement.
#[test]
fn a_ports_run_replaces_every_forms_repeated_cycles() {
    let mut db = Database::parse(X60).unwrap();
    let movsb = form(Arch::X86_64, "MOVSB");
    db.replace_repeated(&[(movsb, vec![(64, 14.0123), (8192, 281.98), (4096, f64::NAN)])]);
    let text = db.to_yaml();
    assert!(
        text.contains(
            "  repeated:\n    - bytes:           64\n      cycles:          14.01\n    - \
             bytes:           8192\n      cycles:          281.98\n"
        ),
        "{text}"
    );
    assert_eq!(Database::parse(&text).unwrap(), db);
    db.replace_repeated(&[(form(Arch::X86_64, "STOSQ"), vec![(64, 15.0)])]);
    assert!(db.get("MOVSB").unwrap().repeated.is_empty());
    assert_eq!(db.get("STOSQ").unwrap().repeated.len(), 1);
}

/// A `ports` run's line-split and misaligned costs are written after the
/// inferred ports, read back equal, and replace an earlier run's.
#[test]
fn a_ports_run_replaces_every_forms_access_costs() {
    let mut db = Database::parse(X60).unwrap();
    let costs = |line_split, misaligned| AccessCosts {
        line_split,
        misaligned,
        own_line: None,
    };
    db.replace_access_costs(&[
        (
            form(Arch::Riscv64, "ADD"),
            AccessCosts {
                own_line: Some(1.0),
                ..costs(2.08, 0.56)
            },
        ),
        (form(Arch::Riscv64, "XORI"), costs(1.0, 0.5)),
    ]);
    let text = db.to_yaml();
    assert!(
        text.contains(
            "  lineSplitThroughput: 2.08\n  misalignedThroughput: 0.56\n  ownLineThroughput: 1\n"
        ),
        "{text}"
    );
    assert_eq!(Database::parse(&text).unwrap(), db);
    db.replace_access_costs(&[(form(Arch::Riscv64, "MUL"), costs(1.0, 1.0))]);
    let add = db.get("ADD").unwrap();
    assert_eq!(
        (
            add.line_split_throughput,
            add.misaligned_throughput,
            add.own_line_throughput
        ),
        (None, None, None)
    );
    assert_eq!(db.get("MUL").unwrap().line_split_throughput, Some(1.0));
    // An impossible value is dropped with the others.
    let mut e = db.get("MUL").unwrap().clone();
    e.misaligned_throughput = Some(f64::NAN);
    assert_eq!(e.drop_impossible(), ["misaligned throughput of NaN cycles"]);
    assert_eq!(e.misaligned_throughput, None);
}

/// A form that failed gets no entry of nulls (issue 46: TP's failed
/// helper pass and LAT's all-failed pairs wrote them); one already in the
/// database is merged as before.
#[test]
fn a_form_without_a_value_gets_no_entry() {
    let mut db = Database::parse(X60).unwrap();
    let n = db.entries.len();
    let failed_tp = entry("NEWTP");
    db.merge_throughput(failed_tp.clone());
    let mut failed_lat = entry("NEWLAT");
    failed_lat.set_operand_latency("1", "0", None);
    db.merge_latency(failed_lat.clone());
    db.merge_vector_config(
        failed_tp.clone(),
        VectorConfig::from_entry(&failed_tp, 8, "m4"),
        false,
    );
    assert_eq!(db.entries.len(), n, "{:?}", db.entries.last());
    let mut measured = entry("NEWTP");
    measured.set_throughput(1.0, 1.0);
    db.merge_throughput(measured);
    assert_eq!(db.entries.len(), n + 1);
    db.merge_throughput(failed_tp);
    assert_eq!(
        db.get("NEWTP").unwrap().throughput,
        None,
        "a failed re-run clears"
    );
    let mut lat = entry("NEWLAT");
    lat.set_operand_latency("1", "0", Some((3.0, 3.0)));
    db.merge_latency(lat);
    assert_eq!(db.get("NEWLAT").unwrap().latency, Some(3.0));
}

/// Whether a memory form is its access alone is written as `accessAlone`,
/// read back equal, and a `ports` run replaces an earlier run's.
#[test]
fn a_ports_run_replaces_every_forms_access_alone() {
    let mut db = Database::parse(X60).unwrap();
    db.replace_access_alone(&[
        (form(Arch::X86_64, "MOVSDrm"), true),
        (form(Arch::X86_64, "PMOVZXBWrm"), false),
    ]);
    let text = db.to_yaml();
    assert!(text.contains("  accessAlone:     true\n"), "{text}");
    assert!(text.contains("  accessAlone:     false\n"), "{text}");
    assert_eq!(Database::parse(&text).unwrap(), db);
    db.replace_access_alone(&[(form(Arch::X86_64, "VPABSDYrm"), false)]);
    assert_eq!(db.get("MOVSDrm").unwrap().access_alone, None);
    assert_eq!(db.get("VPABSDYrm").unwrap().access_alone, Some(false));
}
