use super::*;
use crate::db::Measured;

fn entry(name: &str, tp: Option<f64>, lat: Option<f64>) -> Entry {
    let form = Isa::get(Arch::X86_64).instr(name).expect(name);
    let mut e = Entry::for_form(form);
    e.measured = Measured {
        latency: lat,
        throughput: tp,
        throughput_min: tp,
        throughput_max: tp,
        ..Measured::default()
    };
    e
}

const BASE: &str = r#"osaca_version: 0.5.3
micro_architecture: Test core
arch_code: TEST
isa: x86
load_latency: {gpr: 4.0}
load_throughput_default: [[1, '23']]
store_throughput_default: [[1, '3']]
ports: ['0', '1', '2', '3']
port_model_scheme: |
  four ALUs
instruction_forms:
- name: [jmp, jne]
  operands:
  - class: identifier
  throughput: 0.0
  latency: 0.0
  port_pressure: []
- name: add  # the plain one
  operands:
  - class: register
    name: gpr
  - class: register
    name: gpr
  latency: 1
  port_pressure: [[1, '0123']]
  throughput: 0.25
  uops: 1
- name: vaddpd
  operands:
  - class: register
    name: zmm
  - class: register
    name: zmm
  - class: register
    name: zmm
  latency: 5
  port_pressure: [[1, '01']]
  throughput: 0.5
"#;

/// Writes `entries` as a database and `base` (if any) into a fresh
/// directory, exports, and returns the counts and the written file.
fn export(tag: &str, entries: Vec<Entry>, base: Option<&str>) -> (Counts, String) {
    let dir = std::env::temp_dir().join(format!("winic-export-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    Database { entries }.save(&db).unwrap();
    let base_path = base.map(|text| {
        let p = dir.join("base.yml");
        std::fs::write(&p, text).unwrap();
        p
    });
    let req = OsacaRequest {
        arch: Arch::X86_64,
        databases: vec![db],
        base: base_path,
        output: dir.join("out.yml"),
    };
    let done = osaca(&req).unwrap();
    let text = std::fs::read_to_string(&req.output).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (done.counts, text)
}

fn forms(text: &str) -> Vec<Mapping> {
    let doc: Value = serde_yaml::from_str(text).unwrap();
    doc["instruction_forms"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| f.as_mapping().unwrap().clone())
        .collect()
}

/// The names of a machine file's `ports`.
fn port_names(doc: &Value) -> Vec<&str> {
    doc["ports"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

fn find<'a>(forms: &'a [Mapping], llvm: &str) -> &'a Mapping {
    forms
        .iter()
        .find(|f| f.get("llvm_name").and_then(Value::as_str) == Some(llvm))
        .unwrap_or_else(|| panic!("no form of {llvm}"))
}

#[test]
fn without_a_base_every_form_is_added_with_abstract_ports() {
    let (counts, text) = export(
        "nobase",
        vec![
            entry("ADD64rr", Some(0.25), Some(1.0)),
            entry("ADD32rr", Some(0.3), Some(1.0)),
            entry("VADDPDZrr", Some(0.5), Some(3.0)),
            entry("VADDPDZrrk", Some(0.5), Some(8.0)),
            entry("VADDPDZrrb", Some(0.5), Some(3.0)),
            entry("DIV64r", Some(14.0), None),
        ],
        None,
    );
    assert_eq!(counts.measured, 6);
    assert_eq!(counts.added, 3, "{text}");
    assert_eq!(counts.folded, 2, "ADD32rr into ADD64rr, the masked form");
    assert_eq!(
        counts.not_exportable.values().map(|v| v.0).sum::<usize>(),
        1
    );
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    // The fastest form issues 4 per cycle: 4 abstract ports, and D, the
    // dispatch slots, 4 a cycle (`add r64, r64` writes a register).
    assert_eq!(
        doc["ports"],
        serde_yaml::from_str::<Value>("['0','1','2','3','D']").unwrap()
    );
    assert_eq!(counts.dispatch.as_ref().map(|w| w.slots), Some(4));
    assert_eq!(doc["isa"], Value::from("x86"));
    assert!(
        text.contains("What this file cannot know: the port model"),
        "{text}"
    );
    let f = forms(&text);
    // gpr has no width: the widest of add r32/r64 stands for both, even
    // where a narrower one is slower (add r16, imm16 stalls the decoder).
    let add = find(&f, "ADD64rr");
    assert_eq!(add["name"], Value::from("add"));
    assert_eq!(add["throughput"].as_f64(), Some(0.25));
    assert!(
        text.contains("# ADD64rr: add spelled alike in OSACA: ADD32rr\n"),
        "{text}"
    );
    // The plain form, not the masked one (whose 8 is a range's bound).
    let vadd = find(&f, "VADDPDZrr");
    assert_eq!(vadd["latency"].as_f64(), Some(3.0));
    assert_eq!(
        vadd["port_pressure"],
        serde_yaml::from_str::<Value>("[[1.0, ['0', '1']], [0.25, ['D']]]").unwrap()
    );
    // No latency measured: OSACA's `~`, not a made-up value.
    let div = find(&f, "DIV64r");
    assert_eq!(div["latency"], Value::Null);
    assert_eq!(port_bound(&div["port_pressure"]), Some(14.0));
}

/// A form with only an upper bound of its throughput (copies chained
/// through implicit registers: `div r64`'s rax and rdx) binds its port at
/// that bound, not at the one cycle a form without a throughput gets; its
/// `throughput` stays `~`.
#[test]
fn an_upper_bound_alone_binds_the_port_at_that_bound() {
    let mut div = entry("DIV64r", None, Some(15.0));
    div.measured.throughput_max = Some(17.0);
    let (_, text) = export(
        "bound",
        vec![entry("ADD64rr", Some(0.25), Some(1.0)), div],
        None,
    );
    let f = forms(&text);
    let div = find(&f, "DIV64r");
    assert_eq!(div["throughput"], Value::Null);
    assert_eq!(port_bound(&div["port_pressure"]), Some(17.0), "{text}");
}

/// Where no register tells forms spelled alike apart, one without the
/// 16-bit operand-size prefix stands for them (`push imm32`, `and [m],
/// imm8` at 32 bits), though the 16-bit one is slower: loops run the
/// others.
#[test]
fn a_form_without_the_16_bit_prefix_stands_for_its_spelling() {
    let (_, text) = export(
        "op16",
        vec![
            entry("PUSH16i", Some(1.0), None),
            entry("PUSH64i32", Some(0.5), None),
            entry("PUSH64i8", Some(0.5), None),
            entry("PUSH16rmm", Some(2.0), None),
            entry("PUSH64rmm", Some(0.71), None),
        ],
        None,
    );
    let f = forms(&text);
    assert_eq!(
        find(&f, "PUSH64i32")["throughput"].as_f64(),
        Some(0.5),
        "{text}"
    );
    assert_eq!(
        find(&f, "PUSH64rmm")["throughput"].as_f64(),
        Some(0.71),
        "{text}"
    );
    assert!(
        text.contains("# PUSH64rmm: push spelled alike in OSACA: PUSH16rmm\n"),
        "{text}"
    );
    assert!(!text.contains("llvm_name: \"PUSH16i\""), "{text}");
}

/// OSACA's Intel parser looks `mov QWORD PTR [m], rdx` up as `movq`
/// wherever its files have a `movq` of two operands: the general-purpose
/// moves of a DWORD or QWORD are also written under `movd`/`movq` then,
/// and only then; a form already spelled so keeps its name alone.
#[test]
fn a_dword_or_qword_form_is_also_under_the_name_osacas_intel_parser_gives_it() {
    let with_mmx = vec![
        entry("MOV64mr", Some(0.5), None),
        entry("MOV32rm", Some(0.33), Some(5.0)),
        entry("MOV8mr", Some(0.5), None),
        entry("MMX_MOVQ64mr", Some(1.0), None),
        entry("MMX_MOVD64grr", Some(1.0), None),
    ];
    let (counts, text) = export("sized", with_mmx, None);
    assert_eq!(counts.sized, 2, "{text}");
    let f = forms(&text);
    let named = |name: &str, llvm: &str| {
        f.iter()
            .any(|e| e["name"] == name && e["llvm_name"] == llvm)
    };
    for (name, llvm) in [("movq", "MOV64mr"), ("movd", "MOV32rm"), ("mov", "MOV64mr")] {
        assert!(named(name, llvm), "{name} {llvm}: {text}");
    }
    assert!(
        !named("movb", "MOV8mr") && !named("movq", "MOV8mr"),
        "{text}"
    );
    // `movq %mm, (m)` keeps its own values under its own operands.
    let mmx = f.iter().find(|e| e["llvm_name"] == "MMX_MOVQ64mr").unwrap();
    assert_eq!(mmx["throughput"], Value::from(1.0));
    // Without a `movq` or `movd` in the file, nothing is renamed.
    let (counts, _) = export("unsized", vec![entry("MOV64mr", Some(0.5), None)], None);
    assert_eq!(counts.sized, 0);
}

/// String operations are written as compilers write them and OSACA
/// parses them: `movsq`, `lodsb`, without the implicit `(%rsi)`,
/// `%es:(%rdi)` or `%al`.
#[test]
fn string_operations_are_exported_without_their_implicit_operands() {
    let (_, text) = export(
        "string",
        vec![
            entry("MOVSQ", Some(3.0), None),
            entry("LODSB", Some(3.0), None),
        ],
        None,
    );
    let f = forms(&text);
    for (llvm, name) in [("MOVSQ", "movsq"), ("LODSB", "lodsb")] {
        let e = find(&f, llvm);
        assert_eq!(e["name"], Value::from(name), "{text}");
        assert_eq!(e["operands"], Value::Sequence(Vec::new()), "{text}");
    }
}

#[test]
fn a_base_keeps_its_port_model_and_takes_winics_values() {
    let (counts, text) = export(
        "base",
        vec![
            entry("ADD64rr", Some(0.25), Some(1.0)),
            entry("VADDPDZrr", Some(1.0), Some(4.0)),
            entry("VMULPDZrr", Some(1.0), Some(4.0)),
        ],
        Some(BASE),
    );
    assert_eq!(
        (counts.updated, counts.added, counts.kept, counts.rescaled),
        (2, 1, 2, 1),
        "{text}"
    );
    assert!(
        text.contains("port_model_scheme: |\n  four ALUs\n"),
        "{text}"
    );
    assert!(
        text.contains("# forms: 2 updated with winic's values"),
        "{text}"
    );
    let f = forms(&text);
    let vadd = find(&f, "VADDPDZrr");
    assert_eq!(vadd["latency"].as_f64(), Some(4.0));
    assert_eq!(vadd["throughput"].as_f64(), Some(1.0));
    // The base's ports, scaled: alone it is bound at winic's 1.0.
    assert_eq!(port_bound(&vadd["port_pressure"]), Some(1.0));
    let add = find(&f, "ADD64rr");
    assert_eq!(add["uops"].as_f64(), Some(1.0));
    assert_eq!(
        add["port_pressure"],
        serde_yaml::from_str::<Value>("[[1, '0123']]").unwrap()
    );
    // An added form the base has nothing of takes the ports the base's
    // forms of its register kind use most (zmm: '01'), bound at winic's
    // 1.0; the list names (jmp, jne) were kept one per name, as OSACA
    // reads them.
    assert_eq!(
        find(&f, "VMULPDZrr")["port_pressure"],
        serde_yaml::from_str::<Value>("[[2.0, '01']]").unwrap()
    );
    let names: Vec<&str> = f.iter().filter_map(|m| m["name"].as_str()).collect();
    assert_eq!(names, ["add", "vaddpd", "vmulpd", "jmp", "jne"]);
}

/// A memory form the base lacks gets the ports OSACA would compose for
/// it: its register form's, plus a load's where it reads memory and a
/// store's where it writes it; then scaled to winic's throughput.
#[test]
fn an_added_memory_form_takes_its_register_forms_ports_and_a_loads() {
    let (counts, text) = export(
        "memory",
        vec![
            entry("VADDPDZrm", Some(0.5), Some(4.0)),
            entry("ADD64mr", Some(1.0), Some(7.0)),
            entry("VMULPDZrm", Some(0.5), Some(4.0)),
        ],
        Some(BASE),
    );
    assert_eq!(
        (counts.added, counts.added_with_ports, counts.added_composed),
        (3, 0, 2),
        "{text}"
    );
    let f = forms(&text);
    let pp = |llvm: &str| find(&f, llvm)["port_pressure"].clone();
    let yaml = |s: &str| serde_yaml::from_str::<Value>(s).unwrap();
    // vaddpd zmm's [[1, '01']] and a load's [[1, '23']]: bound 0.5 already.
    assert_eq!(pp("VADDPDZrm"), yaml("[[1, '01'], [1, '23']]"));
    // add gpr's [[1, '0123']], a load and a store, scaled to 1.0.
    let bound = port_bound(&pp("ADD64mr")).unwrap();
    assert!((bound - 1.0).abs() < 1e-3, "{bound}");
    assert_eq!(pp("ADD64mr").as_sequence().unwrap().len(), 3);
    // No register form in the base: the usual zmm ports and a load.
    assert_eq!(pp("VMULPDZrm"), yaml("[[1.0, '01'], [1, '23']]"));
    assert_eq!(counts.added_fallback, [0, 0, 1], "{text}");
    assert_eq!(counts.portless, 0, "{text}");
}

#[test]
fn bad_input_names_the_value_and_what_would_do() {
    let dir = std::env::temp_dir().join(format!("winic-export-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    Database {
        entries: vec![entry("ADD64rr", Some(0.25), None)],
    }
    .save(&db)
    .unwrap();
    let req = |arch, base: Option<PathBuf>, dbs: Vec<PathBuf>| OsacaRequest {
        arch,
        databases: dbs,
        base,
        output: dir.join("out.yml"),
    };
    let err = |r: OsacaRequest| osaca(&r).err().expect("an error").to_string();
    let e = err(req(Arch::Aarch64, None, vec![db.clone()]));
    assert!(
        e.contains("ADD64rr is no aarch64 form") && e.contains("--arch"),
        "{e}"
    );
    let e = err(req(Arch::X86_64, None, vec![dir.join("none.yaml")]));
    assert!(e.contains("none.yaml: no such database"), "{e}");
    let e = err(req(Arch::Riscv64, None, vec![db.clone()]));
    assert!(e.contains("no RISC-V parser"), "{e}");
    let v2 = dir.join("v2.yml");
    std::fs::write(&v2, BASE.replace("isa: x86", "isa: AArch64")).unwrap();
    let e = err(req(Arch::X86_64, Some(v2), vec![db.clone()]));
    assert!(
        e.contains("its isa is `AArch64`") && e.contains("x86"),
        "{e}"
    );
    let broken = dir.join("broken.yml");
    std::fs::write(&broken, "isa: x86\nports: []\n").unwrap();
    let e = err(req(Arch::X86_64, Some(broken), vec![db]));
    assert!(e.contains("no `instruction_forms` list"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pressure_is_fitted_to_the_throughput_by_its_bound() {
    let pp: Value = serde_yaml::from_str("[[1, '0246'], [2, ['1D', '3D']]]").unwrap();
    assert_eq!(port_bound(&pp), Some(1.0));
    let scaled = fitted_ports(&pp, &[], 0.5).unwrap();
    assert_eq!(port_bound(&scaled), Some(0.5));
    assert_eq!(
        fitted_ports(&pp, &[], 1.005),
        None,
        "within 1%: as the base had it"
    );
    // With ['1D', '3D'] a base's load ports, the load's share stays and
    // only the operation is fitted: the form is bound by its loads.
    let load: Vec<Value> = serde_yaml::from_str("[[1, ['3D', '1D']]]").unwrap();
    let fitted = fitted_ports(&pp, &load, 1.2).unwrap();
    assert_eq!(port_bound(&fitted), Some(1.2));
    assert_eq!(
        fitted,
        serde_yaml::from_str::<Value>("[[4.8, '0246'], [2, ['1D', '3D']]]").unwrap()
    );
    assert_eq!(port_bound(&Value::Sequence(vec![])), None);
}

/// A store's data -> memory is a round-trip bound, not OSACA's store
/// latency: a store gets OSACA's 0; a read-modify-write keeps its memory
/// -> memory; a load its latency.
#[test]
fn a_store_exports_osacas_latency_and_not_the_round_trip() {
    let mut store = entry("MOV64mr", Some(0.5), None);
    store.set_operand_latency("1", "0", Some((0.0, 5.17)));
    let mut rmw = entry("ADD64mr", Some(1.0), None);
    rmw.set_operand_latency("1", "0", Some((0.0, 7.1)));
    rmw.set_operand_latency("0", "0", Some((7.32, 7.32)));
    rmw.set_operand_latency("1", "EFLAGS", Some((1.0, 1.0)));
    let mut load = entry("MOV64rm", Some(0.33), None);
    load.set_operand_latency("1", "0", Some((5.0, 5.0)));
    assert_eq!(store.latency, Some(5.17));
    assert_eq!(osaca_latency(&store), Some(0.0));
    // As the database settles it: a store's `latency` is 0 there too.
    store.settle_latency();
    assert_eq!(store.latency, Some(0.0));
    assert_eq!(osaca_latency(&rmw), Some(7.32));
    assert_eq!(osaca_latency(&load), Some(5.0));
}

/// OSACA follows no flag: a form whose register result is faster than
/// its flags (`add r64, imm8` folded at rename on xeon-cf: 0.17 cycles
/// against their 1) exports the register's latency; a form that writes
/// only the flags, as `cmp`, keeps its own.
#[test]
fn a_register_result_exports_its_latency_not_the_flags() {
    let mut add = entry("ADD64ri8", Some(0.17), None);
    add.set_operand_latency("0", "0", Some((0.17, 0.17)));
    add.set_operand_latency("0", "EFLAGS", Some((1.0, 1.0)));
    assert_eq!(add.latency, Some(1.0));
    assert_eq!(osaca_latency(&add), Some(0.17));
    let mut cmp = entry("CMP64rr", Some(0.2), None);
    cmp.set_operand_latency("0", "EFLAGS", Some((1.0, 1.0)));
    cmp.set_operand_latency("1", "EFLAGS", Some((1.0, 1.0)));
    assert_eq!(osaca_latency(&cmp), Some(1.0));
    // A register path that failed leaves the flags' latency.
    let mut shl = entry("SHL64rCL", Some(1.0), None);
    shl.set_operand_latency("0", "0", None);
    shl.set_operand_latency("0", "EFLAGS", Some((2.0, 2.0)));
    assert_eq!(osaca_latency(&shl), Some(2.0));
    // A path into memory is no register result: a read-modify-write
    // whose memory -> memory failed keeps its flags' latency, not the
    // store's 0.
    let mut rmw = entry("ADD64mr", Some(1.0), None);
    rmw.set_operand_latency("1", "0", Some((0.0, 7.1)));
    rmw.set_operand_latency("0", "0", None);
    rmw.set_operand_latency("1", "EFLAGS", Some((1.0, 1.0)));
    assert_eq!(osaca_latency(&rmw), Some(1.0));
}

/// A load-op form exports its register path, which OSACA's register
/// dependences wait for, not its address -> result (winic's `latency`);
/// a plain extending load its address -> result, its only path.
#[test]
fn a_load_op_form_exports_its_register_path() {
    let mut add = entry("ADD64rm", Some(0.25), None);
    add.set_operand_latency("0", "0", Some((1.0, 1.0)));
    add.set_operand_latency("1", "0", Some((5.0, 5.0)));
    add.set_operand_latency("0", "EFLAGS", Some((1.0, 1.0)));
    // Set pair by pair, `latency` is the largest exact pair; the entry's
    // rule (as LAT and the database settle it) takes the register path.
    assert_eq!(add.latency, Some(5.0));
    assert_eq!(osaca_latency(&add), Some(1.0));
    add.settle_latency();
    assert_eq!(add.latency, Some(1.0));
    let mut movzx = entry("MOVZX32rm8", Some(0.25), None);
    movzx.set_operand_latency("1", "0", Some((4.0, 4.0)));
    assert_eq!(osaca_latency(&movzx), Some(4.0));
}

/// A base's default store written as one pair (OSACA 0.7.1's `zen3.yml`:
/// `store_throughput_default: [1 ,['13']]`), which OSACA cannot read, is
/// written as a list of that pair, and the header and summary say so; a
/// well-formed default is left as it was.
#[test]
fn a_default_written_as_one_pair_becomes_a_list_of_it() {
    let base = BASE.replace(
        "store_throughput_default: [[1, '3']]",
        "store_throughput_default: [1 ,['3']]  # as zen3.yml",
    );
    let (counts, text) = export(
        "pair",
        vec![entry("ADD64rr", Some(0.25), Some(1.0))],
        Some(&base),
    );
    assert_eq!(counts.repaired, ["store_throughput_default"]);
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(
        doc["store_throughput_default"],
        serde_yaml::from_str::<Value>("[[1, ['3']]]").unwrap(),
        "{text}"
    );
    assert_eq!(
        doc["load_throughput_default"],
        serde_yaml::from_str::<Value>("[[1, '23']]").unwrap()
    );
    assert!(
        text.contains("# base: store_throughput_default written as one"),
        "{text}"
    );
    let (counts, _) = export(
        "pairs",
        vec![entry("ADD64rr", Some(0.25), Some(1.0))],
        Some(BASE),
    );
    assert!(counts.repaired.is_empty());
}

/// Without a base, the load latencies and the forwarding latency come
/// from winic's loads and stores (Zen 3's: `mov r64, [m]` 4, a vector
/// load's range [4;8] read at its bound, the store and reload's round
/// trip 11.03), a kind whose load was not measured stays `~`, and the
/// forwarding latency is never `~`, which OSACA adds to a number.
#[test]
fn without_a_base_loads_and_stores_give_the_memory_latencies() {
    let mut load = entry("MOV64rm", Some(0.33), None);
    load.set_operand_latency("1", "0", Some((4.0, 4.0)));
    let mut vload = entry("VMOVAPSYrm", Some(0.5), None);
    vload.set_operand_latency("1", "0", Some((4.0, 8.0)));
    let mut store = entry("MOV64mr", Some(0.5), None);
    store.set_operand_latency("1", "0", Some((0.0, 11.03)));
    let db = Database {
        entries: vec![load.clone(), vload, store],
    };
    let m = memory_latencies(&db, Arch::X86_64);
    assert_eq!(
        m.load,
        [
            ("gpr", Some(4.0)),
            ("mm", None),
            ("xmm", None),
            ("ymm", Some(8.0)),
            ("zmm", None)
        ]
    );
    assert!((m.forward.unwrap() - 7.03).abs() < 1e-9, "{m:?}");
    let (_, text) = export("memory", db.entries, None);
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(doc["load_latency"]["gpr"].as_f64(), Some(4.0));
    assert_eq!(doc["load_latency"]["xmm"], Value::Null);
    assert!(doc["store_to_load_forward_latency"].as_f64().is_some());
    // No store measured: 0, as OSACA takes a file without the key.
    let (_, text) = export("memory-load", vec![load], None);
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(doc["store_to_load_forward_latency"].as_f64(), Some(0.0));
}

/// The line-split costs `winic ports` wrote reach the machine file as a
/// comment, with and without a base, and nowhere else; a database without
/// them adds no such lines.
#[test]
fn line_split_costs_are_named_in_a_comment() {
    let mut load = entry("VMOVUPSZrm", Some(0.5), None);
    load.line_split_throughput = Some(1.0);
    load.misaligned_throughput = Some(1.01);
    let mut store = entry("MOV64mr", Some(0.5), None);
    store.line_split_throughput = Some(2.0);
    store.misaligned_throughput = Some(0.75);
    store.own_line_throughput = Some(1.0);
    let plain = entry("ADD64rr", Some(0.25), Some(1.0));
    for base in [None, Some(BASE)] {
        let (_, text) = export(
            "split",
            vec![load.clone(), store.clone(), plain.clone()],
            base,
        );
        // Without an own-line figure (an earlier run's database): `~`.
        assert!(
            text.contains("#   VMOVUPSZrm 0.5 / 1 / 1.01 / ~; MOV64mr 0.5 / 2 / 0.75 / 1\n"),
            "{text}"
        );
        let doc: Value = serde_yaml::from_str(&text).unwrap();
        assert!(!serde_yaml::to_string(&doc).unwrap().contains("1.01"));
        let (_, text) = export("no-split", vec![plain.clone()], base);
        assert!(!text.contains("across two cache lines"), "{text}");
    }
}

/// `winic ports --compare` reads a form's ports where the machine file
/// has it as one micro-op: `add r64, r64` on the four ALUs, `vaddpd zmm`
/// on two; a form the file lacks, or one of several micro-ops, has none;
/// a file of another ISA is refused, naming the option.
#[test]
fn single_uop_ports_reads_the_ports_of_one_micro_op_forms() {
    let dir = std::env::temp_dir().join(format!("winic-ports-ref-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("test.yml");
    let two = BASE.replace("port_pressure: [[1, '01']]", "port_pressure: [[2, '01']]");
    let isa = Isa::get(Arch::X86_64);
    let forms: Vec<_> = ["ADD64rr", "VADDPDZrr", "IMUL64rr"]
        .iter()
        .map(|n| isa.instr(n).unwrap())
        .collect();
    std::fs::write(&path, BASE).unwrap();
    let got = PortReference::load(&path, Arch::X86_64, "--compare")
        .unwrap()
        .single_uop_ports(&forms);
    let names = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        got,
        [names(&["0", "1", "2", "3"]), names(&["0", "1"]), None]
    );
    std::fs::write(&path, two).unwrap();
    let reference = PortReference::load(&path, Arch::X86_64, "--compare").unwrap();
    assert_eq!(reference.single_uop_ports(&forms)[1], None);
    let e = PortReference::load(&path, Arch::Aarch64, "--compare")
        .err()
        .unwrap();
    assert!(e.to_string().contains("--compare"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Without a base, a memory form is its register form's ports plus its
/// loads and stores on winic's load and store ports, as many as the
/// fastest load and store issue per cycle; the file's top level names
/// them, and a loop of loads is bound by them.
#[test]
fn without_a_base_memory_forms_take_winics_load_and_store_ports() {
    let (counts, text) = export(
        "nobase-memory",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            entry("MOV64mr", Some(0.5), None),
            entry("VMOVAPSYrm", Some(0.5), Some(7.0)),
            // Its register form, a copy: no part of the load.
            entry("VMOVAPSYrr", Some(0.25), Some(0.0)),
            entry("VADDPDYrr", Some(0.5), Some(3.0)),
            entry("VADDPDYrm", Some(0.5), Some(10.0)),
            entry("VMASKMOVPSYmr", Some(12.0), None),
            entry("VMOVAPSZrm", Some(1.06), Some(8.0)),
        ],
        None,
    );
    assert_eq!(
        (counts.memory_composed, counts.memory_alone),
        (6, 5),
        "{text}"
    );
    // `vaddpd ymm` has no inferred ports: its load-op form's register
    // part is spread, and not counted as placed; with them, it is.
    assert_eq!(counts.memory_on_inferred, 0, "{text}");
    let mut add = entry("VADDPDYrr", Some(0.5), Some(3.0));
    add.inferred_ports = vec![crate::db::PortUse {
        cycles: 1.0,
        ports: vec!["2".into(), "3".into()],
    }];
    let (placed, _) = export(
        "nobase-memory-placed",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            entry("MOV64mr", Some(0.5), None),
            add,
            entry("VADDPDYrm", Some(0.5), Some(10.0)),
        ],
        None,
    );
    // The plain load and store are their accesses alone; the load-op
    // form is placed.
    assert_eq!(
        (
            placed.memory_composed,
            placed.memory_alone,
            placed.memory_on_inferred
        ),
        (3, 2, 1)
    );
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    let ports = port_names(&doc);
    assert!(
        ports.ends_with(&["L0", "L1", "L2", "L3", "S0", "S1", "LD", "D"]),
        "{ports:?}"
    );
    let yaml = |s: &str| serde_yaml::from_str::<Value>(s).unwrap();
    assert_eq!(
        doc["load_throughput_default"],
        yaml("[[1.0, ['L0', 'L1', 'L2', 'L3']]]")
    );
    let f = forms(&text);
    // Each form's last item is its dispatch slot (4 a cycle, as `mov
    // r64, [m]` ran), the rest its ports.
    let pp = |llvm: &str| {
        let mut pp = find(&f, llvm)["port_pressure"].clone();
        let slot = pp.as_sequence_mut().unwrap().pop();
        assert_eq!(slot, Some(yaml("[0.25, ['D']]")), "{llvm}");
        pp
    };
    // A 256-bit load (0.5 a load, the general-purpose one 0.25): a slot
    // of the four load ports and its half cycle on the wide loads' data
    // path, and no micro-op of `vmovaps ymm, ymm` beside them.
    assert_eq!(
        pp("VMOVAPSYrm"),
        yaml("[[1.0, ['L0', 'L1', 'L2', 'L3']], [0.5, ['LD']]]")
    );
    // A 512-bit load as slow as a cycle of every load port takes them all
    // and the data path as long (beside two 32-byte loads: 2.06, not 1.56).
    assert_eq!(
        pp("VMOVAPSZrm"),
        yaml("[[4.24, ['L0', 'L1', 'L2', 'L3']], [1.06, ['LD']]]")
    );
    // The load-op form: vaddpd's ports and the load's, each bound at 0.5.
    let vadd = pp("VADDPDYrm");
    assert_eq!(vadd.as_sequence().unwrap().len(), 3, "{vadd:?}");
    assert_eq!(vadd[1], yaml("[1.0, ['L0', 'L1', 'L2', 'L3']]"));
    assert_eq!(vadd[2], yaml("[0.5, ['LD']]"));
    assert_eq!(port_bound(&vadd), Some(0.5));
    // A store measured at 12 cycles is bound at 12, on the store ports.
    let masked = pp("VMASKMOVPSYmr");
    assert!(
        (port_bound(&masked).unwrap() - 12.0).abs() < 1e-3,
        "{masked:?}"
    );
}

/// A string operation reads `[rsi]` and writes `es:[rdi]`: without a
/// base it is a load and a store on winic's ports, bound at its
/// throughput, also from a database that recorded neither access (as
/// winic wrote them before it read every memory a form uses).
#[test]
fn a_string_move_is_a_load_and_a_store() {
    let mut movs = entry("MOVSQ", Some(3.0), None);
    for o in &mut movs.operands {
        (o.read, o.write) = (false, false);
    }
    let (counts, text) = export(
        "nobase-movs",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            entry("MOV64mr", Some(0.5), None),
            movs,
        ],
        None,
    );
    assert_eq!(counts.memory_alone, 3, "{text}");
    let f = forms(&text);
    let pp = find(&f, "MOVSQ")["port_pressure"].clone();
    let ports: Vec<&str> = pp
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|i| i[1].as_sequence().unwrap().iter().filter_map(Value::as_str))
        .collect();
    assert!(ports.contains(&"L0") && ports.contains(&"S0"), "{pp:?}");
    assert!((port_bound(&pp).unwrap() - 3.0).abs() < 1e-3, "{pp:?}");
}

/// Where `winic ports` found a store taking one of the loads' address
/// units (its inferred ports name the load ports), every store of the
/// no-base file takes one too.
#[test]
fn a_store_sharing_the_loads_address_units_takes_one_in_the_file() {
    let ports = |cycles: f64, names: &[&str]| crate::db::PortUse {
        cycles,
        ports: names.iter().map(|p| p.to_string()).collect(),
    };
    let mut store = entry("MOV64mr", Some(0.5), None);
    store.inferred_ports = vec![
        ports(1.0, &["S0", "S1"]),
        ports(1.0, &["L0", "L1", "L2", "L3"]),
    ];
    let (_, text) = export(
        "nobase-address",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            store,
            entry("VMOVAPSYmr", Some(0.5), None),
        ],
        None,
    );
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    let yaml = |s: &str| serde_yaml::from_str::<Value>(s).unwrap();
    let both = yaml("[[1.0, ['S0', 'S1']], [1.0, ['L0', 'L1', 'L2', 'L3']]]");
    assert_eq!(doc["store_throughput_default"], both);
    let f = forms(&text);
    // And its dispatch slot: 4 a cycle, as the load `mov r64, [m]` ran.
    assert_eq!(
        find(&f, "VMOVAPSYmr")["port_pressure"],
        yaml("[[1.0, ['S0', 'S1']], [1.0, ['L0', 'L1', 'L2', 'L3']], [0.25, ['D']]]")
    );
    // The store's inferred ports name L* and S* already: the file's port
    // list has each once (twice, OSACA's table had two columns of each,
    // seen on zen5's full export 2026-11-29).
    let names = port_names(&doc);
    let mut once = names.clone();
    once.sort_unstable();
    once.dedup();
    assert_eq!(once.len(), names.len(), "{names:?}");
    assert!(names.contains(&"L3") && names.contains(&"S1"), "{names:?}");
}

/// Without a base, SSE `movsd xmm, m64` and `movsd m64, xmm` are their
/// accesses alone although `movsd xmm, xmm` (a blend) is placed, while
/// `pmovzxbw xmm, m64`, shaped like a copy, keeps its register form's
/// micro-op beside the load.
#[test]
fn without_a_base_a_blends_load_is_the_access_alone_and_a_pmovzx_load_is_not() {
    let placed = |name: &str, ports: &[&str]| {
        let mut e = entry(name, Some(0.25), Some(1.0));
        e.inferred_ports = vec![crate::db::PortUse {
            cycles: 1.0,
            ports: ports.iter().map(|p| p.to_string()).collect(),
        }];
        e
    };
    let (counts, text) = export(
        "nobase-blend-load",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            entry("MOV64mr", Some(0.5), None),
            placed("MOVSDrr", &["0", "1", "2", "3"]),
            entry("MOVSDrm", Some(0.5), Some(8.0)),
            entry("MOVSDmr", Some(1.0), None),
            placed("PMOVZXBWrr", &["1", "2"]),
            entry("PMOVZXBWrm", Some(0.5), Some(8.0)),
        ],
        None,
    );
    assert_eq!(
        (
            counts.memory_composed,
            counts.memory_alone,
            counts.memory_on_inferred
        ),
        (5, 4, 1),
        "{text}"
    );
    let f = forms(&text);
    let names = |llvm: &str| -> Vec<String> {
        find(&f, llvm)["port_pressure"]
            .as_sequence()
            .unwrap()
            .iter()
            .flat_map(|item| item[1].as_sequence().unwrap().clone())
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect()
    };
    for llvm in ["MOVSDrm", "MOVSDmr"] {
        let ports = names(llvm);
        assert!(
            ports.iter().all(|p| p.starts_with(['L', 'S']) || p == "D"),
            "{llvm}: {ports:?}"
        );
    }
    let ports = names("PMOVZXBWrm");
    assert!(
        ports.contains(&"1".to_string()) && ports.contains(&"L0".to_string()),
        "{ports:?}"
    );
}

/// Where `winic ports` measured whether a memory form is its access alone
/// (`accessAlone`), the export composes it so, whatever the rule by name
/// says: `vbroadcastss ymm, [m]` measured alone loses its register
/// form's micro-op, an SSE `movsd xmm, m64` measured with it keeps it.
#[test]
fn a_measured_access_alone_overrides_the_rule() {
    let placed = |name: &str| {
        let mut e = entry(name, Some(0.25), Some(1.0));
        e.inferred_ports = vec![crate::db::PortUse {
            cycles: 1.0,
            ports: vec!["1".into(), "2".into()],
        }];
        e
    };
    let measured = |name: &str, alone: bool| {
        let mut e = entry(name, Some(0.5), Some(8.0));
        e.access_alone = Some(alone);
        e
    };
    let (counts, text) = export(
        "nobase-measured-alone",
        vec![
            entry("MOV64rm", Some(0.25), Some(4.0)),
            entry("MOV64mr", Some(0.5), None),
            placed("VBROADCASTSSYrr"),
            measured("VBROADCASTSSYrm", true),
            placed("MOVSDrr"),
            measured("MOVSDrm", false),
        ],
        None,
    );
    let f = forms(&text);
    let on_port_1 = |llvm: &str| {
        find(&f, llvm)["port_pressure"]
            .as_sequence()
            .unwrap()
            .iter()
            .any(|item| {
                item[1]
                    .as_sequence()
                    .unwrap()
                    .iter()
                    .any(|p| p.as_str() == Some("1"))
            })
    };
    assert!(!on_port_1("VBROADCASTSSYrm"), "{text}");
    assert!(on_port_1("MOVSDrm"), "{text}");
    assert_eq!(
        (counts.memory_alone, counts.memory_on_inferred),
        (3, 1),
        "{text}"
    );
}

/// OSACA balances a loop's pressure over each item's ports, so a form's
/// bound is where the balance leaves the most: on Zen 4 the `--base`
/// export's `vgatherdpd ymm` (1.71 on ports 9-12, 6.86 on 9 and 11, 3.43
/// on 10-12) was bound at winic's 5.0 on port 11 as written, and OSACA
/// ran it at 3.43, predicting a loop of two gathers at 7.09 cycles that
/// runs 11.76.
#[test]
fn a_bound_is_where_osaca_balances_overlapping_items() {
    let pp = |s: &str| serde_yaml::from_str::<Value>(s).unwrap();
    let near = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() < 1e-9);
    assert!(near(
        port_bound(&pp("[[6, ['9', '11']], [3, ['10', '11', '12']]]")),
        3.0
    ));
    // A port only one item reaches keeps that item's cycles.
    assert!(near(port_bound(&pp("[[2, ['0']], [1, ['0', '1']]]")), 2.0));
    // OSACA's strings, a character a port: '01' and '1' share 2 cycles.
    assert!(near(port_bound(&pp("[[1, '01'], [1, '1']]")), 1.0));
    // Disjoint items, and one item alone: its cycles over its ports.
    assert!(near(port_bound(&pp("[[1, ['0', '1']], [3, ['2']]]")), 3.0));
    assert!(near(port_bound(&pp("[[3, ['0', '1', '5']]]")), 1.0));
    let gather = "[[1.7143, ['9', '10', '11', '12']], [6.8571, ['9', '11']], \
                  [3.4286, ['10', '11', '12']], [1, ['1D', '3D']]]";
    assert!(near(port_bound(&pp(gather)), 6.8571 / 2.0));
    // Fitted to the measured 5.0, it is bound there as OSACA balances it.
    let (op, mem) = super::memory::split(&pp(gather), &[pp("[1, ['1D', '3D']]")]);
    let fitted = super::memory::fit(op, mem, Some(5.0));
    assert!(
        (port_bound(&fitted).unwrap() - 5.0).abs() < 1e-3,
        "{fitted:?}"
    );
}

/// A form with cycles on the read port (`winic ports` found pairs of
/// three-source forms slower than their ports) keeps them in the export,
/// the file lists the port, and its header says what it is; a form
/// without keeps its ports alone.
#[test]
fn without_a_base_the_read_port_is_written_and_explained() {
    let mut fma = entry("VFMADD213PSYr", Some(0.5), Some(4.0));
    fma.inferred_ports = vec![
        crate::db::PortUse {
            cycles: 1.0,
            ports: vec!["0".into(), "1".into()],
        },
        crate::db::PortUse {
            cycles: 0.5,
            ports: vec![crate::db::READ_PORT.into()],
        },
    ];
    let mut mul = entry("VMULPSYrr", Some(0.5), Some(3.0));
    mul.inferred_ports = vec![crate::db::PortUse {
        cycles: 1.0,
        ports: vec!["0".into(), "1".into()],
    }];
    let (counts, text) = export("nobase-read-port", vec![fma, mul], None);
    assert_eq!(counts.read_port, 1, "{text}");
    assert!(
        text.contains("# R: a read port beside the ports, taken by 1 forms"),
        "{text}"
    );
    let doc: Value = serde_yaml::from_str(&text).unwrap();
    let ports = port_names(&doc);
    assert!(ports.contains(&"R"), "{ports:?}");
    let f = forms(&text);
    let pp = |llvm: &str| find(&f, llvm)["port_pressure"].clone();
    let yaml = |s: &str| serde_yaml::from_str::<Value>(s).unwrap();
    assert_eq!(pp("VFMADD213PSYr")[1], yaml("[0.5, ['R']]"));
    assert_eq!(
        pp("VMULPSYrr").as_sequence().unwrap().len(),
        2,
        "its ports and D"
    );
}
