//! `winic export --osaca` through the binary: a small database (a TP file
//! and a LAT file, as the two runs write them) becomes an OSACA machine
//! file, and OSACA itself loads it and finds winic's values
//! (scripts/osaca-check.py), and predicts a reduction loop's loop-carried
//! dependency from winic's latency (scripts/osaca-predict.py). Both run
//! with OSACA 0.7.1: the python of `WINIC_OSACA_PYTHON` where it is set,
//! else a venv installed once from PyPI under `target/tmp/`; where neither
//! can be had, those tests skip (`winic-test: skipped:`), saying how to
//! install it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

const TP: &str = r#"---
- llvmName:        ADD64rr
  name:            add
  operands:
    - class:           register
      name:            GR64
      read:            true
      write:           true
    - class:           register
      name:            GR64
      read:            true
      write:           false
  latency:         null
  operandLatencies: []
  throughput:      0.25
  throughputMin:   0.25
  throughputMax:   0.25
- llvmName:        VADDPDYrr
  name:            vaddpd
  operands:
    - class:           register
      name:            VR256
      read:            false
      write:           true
    - class:           register
      name:            VR256
      read:            true
      write:           false
    - class:           register
      name:            VR256
      read:            true
      write:           false
  latency:         null
  operandLatencies: []
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        VPERMQZri
  name:            vpermq
  operands:
    - class:           register
      name:            VR512
      read:            false
      write:           true
    - class:           register
      name:            VR512
      read:            true
      write:           false
    - class:           immediate
      imd:             int
      read:            true
      write:           false
  latency:         null
  operandLatencies: []
  throughput:      1
  throughputMin:   1
  throughputMax:   1
...
"#;

const LAT: &str = r#"---
- llvmName:        VADDPDYrr
  name:            vaddpd
  operands:
    - class:           register
      name:            VR256
      read:            false
      write:           true
    - class:           register
      name:            VR256
      read:            true
      write:           false
    - class:           register
      name:            VR256
      read:            true
      write:           false
  latency:         3
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      3
      latencyMax:      3
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      3
      latencyMax:      3
  throughput:      null
  throughputMin:   null
  throughputMax:   null
...
"#;

/// A base as OSACA's shipped files are laid out (zen4.yml's fields).
const BASE: &str = r#"osaca_version: 0.5.3
micro_architecture: AMD Zen4
arch_code: ZEN4
isa: x86
ROB_size: 320
retired_uOps_per_cycle: ~
scheduler_size: ~
hidden_loads: false
load_latency: {gpr: 4.0, mm: 4.0, xmm: 4.0, ymm: 4.0, zmm: 4.0}
load_throughput:
- {dst: gpr, base: "*", index: "*", offset: "*", scale: "*", port_pressure:  [[1, '135'], [1, ['1D', '3D', '5D']]]}
load_throughput_default: [[1, '135'], [1, ['1D', '3D']]]
store_throughput:
- {src: gpr, base: "*", index: "*", offset: "*", scale: "*", port_pressure:  [[1, ['1', '3']], [1, ['8', '13']]]}
store_throughput_default: [[1 , ['1', '3']], [1, ['13']]]
store_to_load_forward_latency: 0.0
ports: ['0', '1', 1D, '2', '3', 3D, '4', 4DV, '5', 5D, '6', '7', '8', '9', 9DV, '10', '11', 11DV, '12', '13']
port_model_scheme: |
  ALU 0 2 4 6, AGU 1 3 5, FP 9-12
instruction_forms:
- name: add
  operands:
  - class: register
    name: gpr
  - class: register
    name: gpr
  latency: 1
  port_pressure: [[1, '0246']]
  throughput: 0.25
  uops: 1
- name: vaddpd
  operands:
  - class: register
    name: ymm
  - class: register
    name: ymm
  - class: register
    name: ymm
  latency: 4
  port_pressure: [[1, ['10', '12']]]
  throughput: 0.5
- name: [jmp, jne]
  operands:
  - class: identifier
  throughput: 0.0
  latency: 0.0
  port_pressure: []
"#;

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixture(tag: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("winic-export-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tp.yml"), TP).unwrap();
    std::fs::write(dir.join("lat.yml"), LAT).unwrap();
    std::fs::write(dir.join("zen4.yml"), BASE).unwrap();
    Dir(dir)
}

fn export(dir: &Path, base: bool) -> Output {
    let p = |n: &str| dir.join(n).display().to_string();
    let mut args = vec![
        "export".to_string(),
        "--osaca".into(),
        "--arch".into(),
        "x86_64".into(),
        p("tp.yml"),
        p("lat.yml"),
        "-o".into(),
        p("out.yml"),
    ];
    if base {
        args.extend(["--base".into(), p("zen4.yml")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::winic_command(&args).output().unwrap()
}

#[test]
fn export_merges_tp_and_lat_into_the_base() {
    let dir = fixture("base");
    let o = export(&dir.0, true);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("3 measured forms"), "{stdout}");
    assert!(
        stdout.contains("2 forms updated")
            && stdout.contains("1 added")
            && stdout.contains("2 left as the base had them"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(dir.0.join("out.yml")).unwrap();
    assert!(
        text.starts_with("# OSACA machine file written by winic"),
        "{text}"
    );
    assert!(text.contains("port_model_scheme: |\n  ALU 0 2 4 6, AGU 1 3 5, FP 9-12\n"));
    // vaddpd ymm: winic's TP from one file, its latency 3 from the other
    // (the base said 4).
    assert!(
        text.contains(
            "- name: \"vaddpd\"\n  operands:\n  - class: \"register\"\n    name: \"ymm\"\n  - class: \"register\"\n    name: \"ymm\"\n  - class: \"register\"\n    name: \"ymm\"\n  latency: 3.0\n  port_pressure: [[1, [\"10\", \"12\"]]]\n  throughput: 0.5\n  llvm_name: \"VADDPDYrr\"\n"
        ),
        "{text}"
    );
    // vpermq zmm, zmm, imm: added, AT&T order (the immediate first); the
    // base has no zmm form, so it takes the ports its ymm forms use most.
    assert!(
        text.contains("- name: \"vpermq\"\n  llvm_name: \"VPERMQZri\"\n  operands:\n  - class: \"immediate\"\n    imd: \"int\"\n  - class: \"register\"\n    name: \"zmm\"\n  - class: \"register\"\n    name: \"zmm\"\n  latency: ~\n  throughput: 1.0\n  port_pressure: [[2.0, [\"10\", \"12\"]]]\n"),
        "{text}"
    );
}

#[test]
fn export_refuses_a_missing_database_and_a_missing_format() {
    let dir = fixture("bad");
    let o = common::winic_command(&[
        "export",
        "--osaca",
        "--arch",
        "x86",
        &dir.0.join("nope.yml").display().to_string(),
    ])
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope.yml: no such database"));
    let o = common::winic_command(&["export", &dir.0.join("tp.yml").display().to_string()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--osaca"));
}

/// An empty file and a database without entries give no model (issue 46:
/// both were exported as a machine file of 0 forms).
#[test]
fn export_refuses_an_empty_file_and_a_database_without_entries() {
    let dir = fixture("empty");
    for (name, text, says) in [
        ("empty.yml", "", "the file is empty"),
        ("none.yml", "---\n[]\n...\n", "the database has no entries"),
    ] {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        let out = dir.0.join("out.yml");
        let o = common::winic_command(&[
            "export",
            "--osaca",
            "--arch",
            "x86_64",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{}: {says}", path.display())),
            "{name}: {err}"
        );
        assert!(!out.exists(), "{name}: a model was written");
    }
}

/// The python of a virtual environment with OSACA 0.7.1, or why there is
/// none: `WINIC_OSACA_PYTHON` where it is set, else a venv this test
/// binary installs once under `target/tmp/` from PyPI (`python3 -m venv`,
/// `pip install osaca==0.7.1`, about 20 s the first time), so that a plain
/// `cargo test` runs the OSACA tests too.
fn osaca_python() -> Result<PathBuf, String> {
    static PROVISIONED: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let p = match std::env::var_os("WINIC_OSACA_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PROVISIONED.get_or_init(provision_osaca).clone()?,
    };
    let ok = std::process::Command::new(&p)
        .args(["-c", "import osaca"])
        .output()
        .map_err(|e| format!("{}: {e}", p.display()))?;
    if !ok.status.success() {
        return Err(format!("{}: cannot import osaca", p.display()));
    }
    Ok(p)
}

/// OSACA 0.7.1 in a venv under `target/tmp/osaca-0.7.1/`, made once: built
/// in a folder of its own and renamed into place, so that a test binary
/// that stops half-way leaves no half-made venv behind.
fn provision_osaca() -> Result<PathBuf, String> {
    const HOW: &str = "to run these tests without PyPI, make a venv with \
        `python3 -m venv DIR && DIR/bin/pip install osaca==0.7.1` and set \
        WINIC_OSACA_PYTHON=DIR/bin/python";
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = tmp.join("osaca-0.7.1");
    let python = venv.join("bin/python");
    if python.exists() {
        return Ok(python);
    }
    let building = tmp.join(format!("osaca-0.7.1.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    let run = |cmd: &mut std::process::Command| -> Result<(), String> {
        let o = cmd.output().map_err(|e| format!("{cmd:?}: {e}; {HOW}"))?;
        if o.status.success() {
            return Ok(());
        }
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err.lines().rev().find(|l| !l.trim().is_empty());
        Err(format!(
            "{cmd:?} failed: {}; {HOW}",
            last.unwrap_or("").trim()
        ))
    };
    run(std::process::Command::new("python3")
        .args(["-m", "venv"])
        .arg(&building))?;
    run(std::process::Command::new(building.join("bin/pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "osaca==0.7.1",
    ]))?;
    // Another test binary may have finished first: either venv will do.
    if std::fs::rename(&building, &venv).is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    if !python.exists() {
        return Err(format!("no {} after installing; {HOW}", python.display()));
    }
    Ok(python)
}

/// OSACA's view of every form winic measured: (name, latency,
/// throughput, bound of the port pressure) per LLVM name.
fn osaca_view(python: &Path, file: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/osaca-check.py");
    let o = std::process::Command::new(python)
        .arg(script)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "OSACA does not load {}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn osaca_loads_the_export_and_sees_winics_values() {
    let python = match osaca_python() {
        Ok(p) => p,
        Err(why) => {
            common::skip(why);
            return;
        }
    };
    for base in [true, false] {
        let dir = fixture(if base { "osaca-base" } else { "osaca-nobase" });
        let o = export(&dir.0, base);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let view = osaca_view(&python, &dir.0.join("out.yml"));
        assert_eq!(view["isa"], "x86");
        let want = [
            ("ADD64rr", "add", None, 0.25),
            ("VADDPDYrr", "vaddpd", Some(3.0), 0.5),
            ("VPERMQZri", "vpermq", None, 1.0),
        ];
        for (llvm, name, lat, tp) in want {
            let got = &view["winic"][llvm][0];
            assert_eq!(got["name"], name, "{llvm}: {view}");
            assert_eq!(got["throughput"].as_f64(), Some(tp), "{llvm}: {view}");
            if let Some(lat) = lat {
                assert_eq!(got["latency"].as_f64(), Some(lat), "{llvm}: {view}");
            }
            // OSACA's throughput comes from the port pressure: bound at
            // winic's (added forms with a base have no ports).
            if let Some(bound) = got["bound"].as_f64() {
                assert!(
                    (bound - tp).abs() < 1e-3,
                    "{llvm}: bound {bound}, not {tp}: {view}"
                );
            } else {
                assert!(base && llvm == "VPERMQZri", "{llvm} has no ports: {view}");
            }
        }
        if base {
            // The base's add kept its latency (winic measured none).
            assert_eq!(view["winic"]["ADD64rr"][0]["latency"].as_f64(), Some(1.0));
        }
    }
}

/// OSACA's predictions of `jobs` (scripts/osaca-predict.py's list of
/// loops) with the machine file `model`, parsed as `arch`; the jobs file
/// goes to `dir`.
fn osaca_predict(
    python: &Path,
    dir: &Path,
    arch: &str,
    model: &str,
    jobs: &serde_json::Value,
) -> serde_json::Value {
    let file = dir.join("jobs.json");
    std::fs::write(&file, jobs.to_string()).unwrap();
    let o = std::process::Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/osaca-predict.py"))
        .args(["--arch", arch, "--model", model])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "OSACA: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The first and last line (1-based) of the loop between OSACA's markers,
/// as scripts/validate.py's marked_lines finds them.
fn marked_lines(text: &str) -> (usize, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.contains("OSACA START MARKER"))
        .expect("a start marker")
        + 2;
    let end = lines
        .iter()
        .position(|l| l.contains("OSACA END MARKER"))
        .expect("an end marker");
    (start, end)
}

#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "it measures an x86 latency, natively on an x86-64 host"
)]
fn osacas_lcd_of_a_reduction_is_winics_measured_latency() {
    if common::emulated() {
        common::skip("it measures an x86 latency, natively on an x86-64 host");
        return;
    }
    let python = match osaca_python() {
        Ok(p) => p,
        Err(why) => {
            common::skip(why);
            return;
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // OSACA's file of this CPU's core, as the validation picks it.
    let o = std::process::Command::new("python3")
        .arg(root.join("scripts/validate.py"))
        .arg("--osaca-python")
        .arg(&python)
        .arg("--which-model")
        .output()
        .unwrap();
    if !o.status.success() {
        let why = format!(
            "no OSACA model for this core: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
        common::skip(why);
        return;
    }
    let which = String::from_utf8_lossy(&o.stdout);
    let (arch, base) = which.trim().split_once(' ').expect("ARCH PATH");

    // sum_f64.avx2: one accumulator, xmm0, through every vaddsd of the
    // loop (`vaddsd xmm0, xmm0, QWORD PTR [rax]`: VADDSDrm_Int).
    let kernel = root.join("validation/asm/sum_f64.avx2.s");
    let text = std::fs::read_to_string(&kernel).unwrap();
    let (first, last) = marked_lines(&text);
    let chain = text.lines().collect::<Vec<_>>()[first - 1..last]
        .iter()
        .filter(|l| l.trim_start().starts_with("vaddsd\txmm0, xmm0, QWORD PTR"))
        .count();
    assert_eq!(chain, 4, "the loop of {} changed", kernel.display());

    let dir = fixture("lcd");
    let p = |n: &str| dir.0.join(n).display().to_string();
    let o = common::winic_command(&[
        "LAT",
        "-i",
        "VADDSDrm_Int",
        "-o",
        &p("db.yml"),
        "--noReport",
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let db: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(dir.0.join("db.yml")).unwrap()).unwrap();
    let form = &db[0];
    assert_eq!(form["llvmName"].as_str(), Some("VADDSDrm_Int"), "{db:?}");
    // The accumulator's path: $src1 (operand 1) -> $dst (operand 0).
    let path = form["operandLatencies"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|l| {
            l["sourceOperand"].as_str() == Some("1") && l["targetOperand"].as_str() == Some("0")
        })
        .unwrap_or_else(|| panic!("no 1 -> 0 latency: {form:?}"));
    let (min, max) = (
        path["latencyMin"].as_f64().unwrap(),
        path["latencyMax"].as_f64().unwrap(),
    );
    assert_eq!(min, max, "a range, not one latency: {form:?}");

    let o = common::winic_command(&[
        "export",
        "--osaca",
        "--arch",
        "x86_64",
        &p("db.yml"),
        "--base",
        base,
        "-o",
        &p("model.yml"),
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let jobs = serde_json::json!([{"file": kernel, "lines": [first, last]}]);
    let rows = osaca_predict(&python, &dir.0, arch, &p("model.yml"), &jobs);
    let lcd = rows[0]["lcd"].as_f64().unwrap();
    assert!(
        (lcd - chain as f64 * min).abs() < 1e-9,
        "OSACA ({arch}, exported with --base {base}) gives sum_f64.avx2 an LCD of {lcd} cycles, \
         not {chain} x winic's measured VADDSDrm_Int 1 -> 0 latency {min} = {}: {rows}",
        chain as f64 * min
    );
}

/// A database of fnv_hash's chain: `xor rdx, QWORD PTR [rax]` (XOR64rm,
/// 1 cycle from rdx to rdx) and `imul rdx, rsi` (IMUL64rr, 3 cycles).
const FNV: &str = r#"---
- llvmName:        XOR64rm
  name:            xor
  operands: []
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        IMUL64rr
  name:            imul
  operands: []
  latency:         3
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      3
      latencyMax:      3
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      3
      latencyMax:      3
  throughput:      1
  throughputMin:   1
  throughputMax:   1
...
"#;

#[test]
fn the_isa_file_gives_osaca_the_xor_dependency_it_loses() {
    let python = match osaca_python() {
        Ok(p) => p,
        Err(why) => {
            common::skip(why);
            return;
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new(&python)
        .args([
            "-c",
            "import os, osaca; print(os.path.join(os.path.dirname(osaca.__file__), 'data'))",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let data = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let dir = fixture("isa");
    std::fs::write(dir.0.join("fnv.yml"), FNV).unwrap();
    let p = |n: &str| dir.0.join(n).display().to_string();
    let o = common::winic_command(&[
        "export",
        "--osaca",
        "--arch",
        "x86_64",
        &p("fnv.yml"),
        "--base",
        &data.join("spr.yml").display().to_string(),
        "-o",
        &p("model.yml"),
        "--isa-out",
        &p("x86.yml"),
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("OSACA ISA file"), "{summary}");

    // fnv_hash's loop: `xor rax, QWORD PTR [rdx]; add rdx, 8; imul rax,
    // rcx`, a chain of 1 + 3 cycles through rax.
    let kernel = root.join("validation/asm/fnv_hash.sse.s");
    let text = std::fs::read_to_string(&kernel).unwrap();
    let (first, last) = marked_lines(&text);
    let body = text.lines().collect::<Vec<_>>()[first - 1..last].join("\n");
    assert!(
        body.contains("xor\trax, QWORD PTR [rdx]") && body.contains("imul\trax, rcx"),
        "the loop of {} changed:\n{body}",
        kernel.display()
    );
    let jobs = serde_json::json!([{"file": kernel, "lines": [first, last]}]);
    std::fs::write(dir.0.join("jobs.json"), jobs.to_string()).unwrap();
    let lcd = |isa: bool| {
        let mut cmd = std::process::Command::new(&python);
        cmd.arg(root.join("scripts/osaca-predict.py")).args([
            "--arch",
            "SPR",
            "--model",
            &p("model.yml"),
        ]);
        if isa {
            cmd.args(["--isa", &p("x86.yml")]);
        }
        let o = cmd.arg(p("jobs.json")).output().unwrap();
        assert!(
            o.status.success(),
            "OSACA: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        rows[0]["lcd"].as_f64().unwrap_or_else(|| panic!("{rows}"))
    };
    assert_eq!(lcd(true), 4.0, "with winic's ISA file: xor 1 + imul 3");
    // OSACA's own ISA file: the imul alone (OSACA 0.7.1; a later OSACA
    // that fixed its xor entries would make this 4 too).
    assert_eq!(lcd(false), 3.0, "with OSACA's ISA file");
}

#[test]
fn export_isa_out_names_the_isa_file_it_needs() {
    let dir = fixture("isa-bad");
    let p = |n: &str| dir.0.join(n).display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["export", "--osaca", "--arch", "x86_64"];
        let (tp, out) = (p("tp.yml"), p("out.yml"));
        args.extend([tp.as_str(), "-o", out.as_str()]);
        args.extend(extra);
        common::winic_command(&args).output().unwrap()
    };
    // No --base to find it beside, no --isa-base.
    let isa = p("isa.yml");
    let o = run(&["--isa-out", &isa]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--isa-base"), "{err}");
    // --base given, but no isa/x86.yml beside it.
    let base = p("zen4.yml");
    let o = run(&["--base", &base, "--isa-out", &isa]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("isa/x86.yml") && err.contains("--isa-base"),
        "{err}"
    );
    // An ISA file of another arch.
    std::fs::write(
        dir.0.join("a64.yml"),
        "isa: AArch64\ninstruction_forms: []\n",
    )
    .unwrap();
    let o = run(&["--isa-out", &isa, "--isa-base", &p("a64.yml")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("AArch64"), "{err}");
    assert!(!dir.0.join("isa.yml").exists());
    // --isa-base alone is refused: it says what --isa-out starts from.
    let o = run(&["--isa-base", &p("a64.yml")]);
    assert!(!o.status.success());
}

/// Without a base, the ports `winic ports -o` inferred become the forms'
/// port pressure, and OSACA predicts a mix by them: `add` (0.25 cycles)
/// on inferred ports {0, 1, 3, 4}, `vaddpd` ymm (1 cycle) on {2}. Four
/// adds and two vaddpd then take 2 cycles, each form on its own ports
/// (the dispatch port D, 4 a cycle as `add` ran, 1.5); four adds and
/// one vaddpd take a cycle on every port but 1.25 on D.
#[test]
fn export_without_base_carries_the_inferred_ports() {
    let dir = fixture("inferred");
    let p = |n: &str| dir.0.join(n).display().to_string();
    let mut db = winic::db::Database::parse(TP).unwrap();
    let set = |db: &mut winic::db::Database, name: &str, tp: f64, ports: &[&str]| {
        let e = db.entries.iter_mut().find(|e| e.llvm_name == name).unwrap();
        e.measured.throughput = Some(tp);
        e.inferred_ports = vec![winic::db::PortUse {
            cycles: tp * ports.len() as f64,
            ports: ports.iter().map(|p| p.to_string()).collect(),
        }];
    };
    set(&mut db, "ADD64rr", 0.25, &["0", "1", "3", "4"]);
    set(&mut db, "VADDPDYrr", 1.0, &["2"]);
    // The vector add's ports are the nearest set, no set fitting: the
    // export uses them and counts them apart.
    db.entries
        .iter_mut()
        .find(|e| e.llvm_name == "VADDPDYrr")
        .unwrap()
        .inferred_ports_misfit = Some(0.139);
    db.save(dir.0.join("tp.yml")).unwrap();
    let saved = std::fs::read_to_string(dir.0.join("tp.yml")).unwrap();
    assert!(saved.contains("  inferredPortsMisfit: 0.139\n"), "{saved}");
    let o = export(&dir.0, false);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout.contains(
            "3 forms added, 2 with the ports winic ports inferred (1 of them the nearest set, \
             no set fitting their mixes within 10%), 1 spread"
        ),
        "{stdout}"
    );
    let text = std::fs::read_to_string(dir.0.join("out.yml")).unwrap();
    assert!(
        text.contains("ports: [\"0\", \"1\", \"2\", \"3\", \"4\", \"D\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("5 ports inferred by winic ports from timing alone"),
        "{text}"
    );
    assert!(
        stdout.contains("dispatch: 4 instructions a cycle (ADD64rr at 0.25 cycles"),
        "{stdout}"
    );
    assert!(
        text.contains(
            "  throughput: 0.25\n  port_pressure: [[1.0, [\"0\", \"1\", \"3\", \"4\"]], \
             [0.25, [\"D\"]]]\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  throughput: 1.0\n  port_pressure: [[1.0, [\"2\"]], [0.25, [\"D\"]]]\n"),
        "{text}"
    );

    let python = match osaca_python() {
        Ok(p) => p,
        Err(why) => {
            common::skip(format!("its OSACA part: {why}"));
            return;
        }
    };
    let view = osaca_view(&python, &dir.0.join("out.yml"));
    for (llvm, tp) in [("ADD64rr", 0.25), ("VADDPDYrr", 1.0)] {
        assert_eq!(view["winic"][llvm][0]["bound"].as_f64(), Some(tp), "{view}");
    }
    let kernel = "\
        movl $111, %ebx\n\
        .byte 100,103,144\n\
        .L1:\n\
        addq %rax, %rbx\n\
        addq %rcx, %rdx\n\
        addq %rsi, %rdi\n\
        addq %r8, %r9\n\
        vaddpd %ymm1, %ymm2, %ymm3\n\
        vaddpd %ymm4, %ymm5, %ymm6\n\
        movl $222, %ebx\n\
        .byte 100,103,144\n";
    std::fs::write(dir.0.join("mix.s"), kernel).unwrap();
    let jobs = serde_json::json!([{"file": p("mix.s"), "lines": [4, 9]}]);
    let rows = osaca_predict(&python, &dir.0, "SPR", &p("out.yml"), &jobs);
    assert_eq!(rows[0]["unknown"].as_u64(), Some(0), "{rows}");
    let tp = rows[0]["tp"].as_f64().unwrap();
    assert!(
        (tp - 2.0).abs() < 1e-6,
        "OSACA's bound of the mix is {tp}, not 2: {rows}"
    );
    // Four adds and one vaddpd: a cycle on every port, but five
    // instructions at four a cycle take 1.25 on D.
    let body = "addq %rax, %rbx\n".repeat(4) + "vaddpd %ymm1, %ymm2, %ymm3\n";
    let kernel = format!(
        "movl $111, %ebx\n.byte 100,103,144\n.L1:\n{body}movl $222, %ebx\n.byte 100,103,144\n"
    );
    std::fs::write(dir.0.join("five.s"), kernel).unwrap();
    let jobs = serde_json::json!([{"file": p("five.s"), "lines": [4, 8]}]);
    let rows = osaca_predict(&python, &dir.0, "SPR", &p("out.yml"), &jobs);
    let tp = rows[0]["tp"].as_f64().unwrap();
    assert!(
        (tp - 1.25).abs() < 1e-6,
        "four adds and a vaddpd: {tp}, not 1.25: {rows}"
    );
}

/// `scripts/llvm-ports.py` writes LLVM's port model of a core in OSACA's
/// format, for the forms of an export, and `--compare` reads it: on
/// znver3, `add r64, r64` is one micro-op on the four integer ALUs and
/// `vaddpd ymm` one on the two floating-point adders. Bad input is
/// refused, naming it.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the script is a tool of the x86-64 development host"
)]
fn llvm_ports_writes_llvms_model_as_a_machine_file() {
    let mca = std::env::var("WINIC_LLVM_MCA").unwrap_or_else(|_| "llvm-mca-19".into());
    if std::process::Command::new(&mca)
        .arg("--version")
        .output()
        .is_err()
    {
        let why = format!(
            "no {mca}: install Debian's llvm-19 (`apt-get install llvm-19`; .ci/run does) \
             or set WINIC_LLVM_MCA to an llvm-mca"
        );
        common::skip(why);
        return;
    }
    let dir = fixture("llvm");
    let p = |n: &str| dir.0.join(n).display().to_string();
    let o = export(&dir.0, false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/llvm-ports.py");
    let run = |extra: &[&str]| {
        let mut cmd = std::process::Command::new("python3");
        cmd.args([
            script,
            "--llvm-mca",
            &mca,
            "--winic",
            env!("CARGO_BIN_EXE_winic"),
        ])
        .args(extra);
        cmd.output().unwrap()
    };
    let o = run(&["--mcpu", "znver3", &p("out.yml"), "-o", &p("llvm.yml")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // (LLVM's znver3 model has the AVX-512 form too, though Zen 3 lacks
    // AVX-512.)
    assert!(
        out.contains("3 of 3 forms with LLVM's znver3 resources"),
        "{out}"
    );
    let reference = winic::export::PortReference::load(
        &dir.0.join("llvm.yml"),
        winic::isa::Arch::X86_64,
        "--compare",
    )
    .unwrap();
    let isa = winic::isa::Isa::get(winic::isa::Arch::X86_64);
    let forms: Vec<_> = ["ADD64rr", "VADDPDYrr"]
        .iter()
        .map(|n| isa.instr(n).unwrap())
        .collect();
    let names = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(
        reference.single_uop_ports(&forms),
        vec![
            names(&["Zn3ALU0", "Zn3ALU1", "Zn3ALU2", "Zn3ALU3"]),
            names(&["Zn3FP2", "Zn3FP3"]),
        ]
    );
    // Bad input names the bad value.
    let o = run(&["--mcpu", "znver3", &p("missing.yml"), "-o", &p("x.yml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.yml"));
    let o = run(&["--mcpu", "no-such-cpu", &p("out.yml"), "-o", &p("x.yml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no-such-cpu"));
    // An llvm-mca that never returns on a form (llvm-mca-19 on
    // `vcvtne2ps2bf16` for sapphirerapids): that form is left out, named,
    // and the others are written.
    let hangs = dir.0.join("hanging-mca");
    std::fs::write(
        &hangs,
        format!(
            "#!/bin/sh\nfor a; do f=$a; done\n\
             if grep -q vaddpd \"$f\"; then exec sleep 30; fi\nexec {mca} \"$@\"\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hangs, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = std::process::Command::new("python3")
        .args([script, "--llvm-mca", &hangs.display().to_string()])
        .args(["--winic", env!("CARGO_BIN_EXE_winic"), "--mcpu", "znver3"])
        .args([&p("out.yml"), "-o", &p("hung.yml")])
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("2 of 3 forms") && out.contains("1 llvm-mca did not finish"),
        "{out}"
    );
    assert!(err.contains("did not finish VADDPDYrr"), "{err}");
}
