//! The offline compaction step (scripts/compact_tablegen.py) on a small
//! hand-made TableGen dump: deterministic output and exact resolution of
//! register-class set expressions, tuples, ties and predicates.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the compaction on the fixture; None (with a printed reason) when
/// python3 is not installed.
fn compact(out: &Path) -> String {
    let r = repo();
    let status = Command::new("python3")
        .arg(r.join("scripts/compact_tablegen.py"))
        .args(["--arch", "riscv64", "--dump"])
        .arg(r.join("tests/fixtures/tablegen-mini.json"))
        .arg("--target-opcodes")
        .arg(r.join("tests/fixtures/TargetOpcodes-mini.def"))
        .arg("--out")
        .arg(out)
        .status();
    match status {
        Err(e) => panic!(
            "python3 runs scripts/compact_tablegen.py, which this test checks; install it \
             (apt-get install python3): {e}"
        ),
        Ok(s) => {
            assert!(s.success(), "compaction failed: {s}");
            std::fs::read_to_string(out).unwrap()
        }
    }
}

#[test]
fn compaction_is_deterministic_and_resolves_set_expressions() {
    let dir = common::Scratch::new("compaction");
    let first = compact(&dir.join("a.json"));
    let second = compact(&dir.join("b.json"));
    assert_eq!(first, second, "two runs gave different bytes");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let members = |c: &str| -> Vec<String> {
        v["register_classes"][c]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    // Each of LLVM's SetTheory operators, as LLVM evaluates them.
    let expect: [(&str, &[&str]); 13] = [
        ("GPRdown", &["X7", "X6", "X5", "X4"]),
        ("GPRstep", &["X0", "X2", "X4", "X6"]),
        ("GPRsub", &["X2", "X3", "X4", "X5", "X6", "X7"]),
        ("GPRand", &["X0", "X2", "X4", "X6"]),
        ("GPRrotl", &["X2", "X4", "X6", "X0"]),
        ("GPRrotr", &["X6", "X0", "X2", "X4"]),
        ("GPRtrunc", &["X0", "X1", "X2"]),
        ("GPRshl", &["X6", "X7"]),
        ("GPRdec", &["X0", "X3", "X6"]),
        ("GPRil", &["X0", "X6", "X1", "X7", "X2"]),
        ("GPRadd", &["X6", "X7", "X0"]),
        ("PAIR", &["X0_X2", "X2_X4", "X4_X6", "X6_X0"]),
        ("W32", &["W0", "W1", "W2", "W3", "W4", "W5", "W6", "W7"]),
    ];
    for (class, want) in expect {
        assert_eq!(members(class), want, "{class}");
    }
    // Tuple registers: named by their parts, encoding of the first part,
    // all sub-registers transitively.
    let t = &v["registers"]["X6_X0"];
    assert_eq!(t["enc"], 6);
    assert_eq!(t["sub"], serde_json::json!(["X6", "X0"]));
    assert_eq!(t["all_sub"], serde_json::json!(["W0", "W6", "X0", "X6"]));
    assert_eq!(v["register_classes"]["PAIR"]["bits"], 128);
    // Opcode order: target-independent first, then pseudos, then by name.
    let names: Vec<&str> = v["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["PHI", "INLINEASM", "PSEUDO_MOV", "ACC", "ADDI"]);
    let acc = &v["instructions"][3];
    assert_eq!(acc["ops"][0]["tied"], "src");
    assert_eq!(acc["earlyclobber"], serde_json::json!(["rd"]));
    assert_eq!(acc["defs"], serde_json::json!(["X7"]));
    assert_eq!(acc["uses"], serde_json::json!(["X6"]));
    // Predicates: from AssemblerCondDag, and from the C++ getter name.
    assert_eq!(v["predicates"]["HasBarNotFoo"]["cond"], "(bar && !foo)");
    assert_eq!(v["predicates"]["HasFoo"]["cond"], "foo");
    // Immediate range from isInt<6>, bit layout MSB first.
    assert_eq!(
        v["operand_types"]["simm6"]["imm"],
        serde_json::json!({"bits": 6, "signed": true, "min": -32, "max": 31})
    );
    let addi = &v["instructions"][4];
    assert_eq!(addi["inst"], "00000000000000000000vvvvvv-01vvv");
    assert_eq!(
        addi["fields"],
        serde_json::json!([["rd", 0, 0, 3], ["imm", 0, 6, 6]])
    );
    // RVVConstraint: the value of the record it names, kept when not 0.
    assert_eq!(addi["rvv_constraint"], 1);
    assert!(acc.get("rvv_constraint").is_none(), "{acc}");
}
