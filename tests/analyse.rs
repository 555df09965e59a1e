//! `winic analyse`: a TP and a LAT run of the real binary (under qemu-user
//! too, through `WINIC_TEST_RUNNER`) write their raw files, and the
//! database drawn from them again, measuring nothing, is the run's byte
//! for byte; a replay decides what runs as the recorded host did; bad
//! raw files are refused naming the file and the line.

use std::path::{Path, PathBuf};

mod common;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("winic-analyse-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs winic in `dir`; its exit code and standard error.
fn winic(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let out = common::winic_command(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `args` with the clock an emulator needs (it cannot measure one).
fn with_clock<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = if common::emulated() {
        vec!["-f", "1"]
    } else {
        Vec::new()
    };
    v.extend(args);
    v.push("--noReport");
    v
}

/// Forms of the host's arch for TP and LAT: one with an implicit
/// dependency (TP's helper pass) and a vector form where there is one.
fn forms() -> Vec<&'static str> {
    if cfg!(target_arch = "x86_64") {
        vec!["ADD64rr", "ADC64rr", "IMUL64rr", "VPADDDYrr", "CMP64rr"]
    } else if cfg!(target_arch = "aarch64") {
        vec!["ADDXrs", "ADCXr", "MADDXrrr", "ADDv4i32"]
    } else {
        vec!["ADD", "MUL", "SLLI"]
    }
}

#[test]
fn analyse_draws_the_same_tp_and_lat_database_from_the_raw_files() {
    let dir = scratch("same");
    let mut tp = vec!["TP", "-o", "run.yaml", "-i"];
    tp.extend(forms());
    let (code, err) = winic(&with_clock(&tp), &dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("raw results: run.yaml.TP.raw"), "{err}");
    let mut lat = tp.clone();
    lat[0] = "LAT";
    let (code, err) = winic(&with_clock(&lat), &dir);
    assert_eq!(code, Some(0), "{err}");
    let run = std::fs::read(dir.join("run.yaml")).unwrap();
    for mode in ["TP", "LAT"] {
        let raw = format!("run.yaml.{mode}.raw");
        let (code, err) = winic(&["analyse", &raw, "-o", "again.yaml", "--noReport"], &dir);
        assert_eq!(code, Some(0), "{mode}: {err}");
        assert!(!err.contains("not in the raw file"), "{mode}: {err}");
    }
    let again = std::fs::read(dir.join("again.yaml")).unwrap();
    assert!(
        run == again,
        "the database drawn from the raw files differs from the run's:\n{}\n---\n{}",
        String::from_utf8_lossy(&run),
        String::from_utf8_lossy(&again)
    );
    // A raw file names its run and its CPU.
    let raw = std::fs::read_to_string(dir.join("run.yaml.LAT.raw")).unwrap();
    let header: serde_json::Value = serde_json::from_str(raw.lines().next().unwrap()).unwrap();
    assert_eq!(header["run"]["mode"], "LAT");
    assert_eq!(header["run"]["arch"], common::host_arch());
    assert!(header["cpu"].as_str().is_some_and(|c| !c.is_empty()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `winic ports` keeps a raw file too: its replay prints the same
/// experiments, fit, held-back mixes and mixes with memory forms (with
/// the general-purpose load and store in the selection), and writes the
/// same inferred ports; `--resume` after a finished run measures nothing
/// again.
#[test]
fn a_ports_run_replays_to_the_same_text_and_ports() {
    let dir = scratch("ports");
    let mut args = vec!["ports", "-o", "run.yaml", "--held-back", "2", "-i"];
    args.extend(forms().iter().take(4));
    args.extend(match common::host_arch() {
        "x86_64" => ["MOV64rm", "MOV64mr"],
        "aarch64" => ["LDRXui", "STRXui"],
        _ => ["LD", "SD"],
    });
    let args = with_clock(&args);
    let args: Vec<&str> = args.into_iter().filter(|a| *a != "--noReport").collect();
    let out = common::winic_command(&args)
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("raw results: run.yaml.ports.raw"), "{text}");
    // The memory mixes test the fitted mapping: with one (always here on
    // x86; under an emulator the timings may fit none) they are there.
    if text.contains("\na port mapping of") {
        assert!(
            text.contains("\nmixes with memory forms, composed as the export"),
            "{text}"
        );
    } else {
        common::skip("no port mapping was fitted, so there are no memory mixes to check");
    }
    let again = common::winic_command(&["analyse", "run.yaml.ports.raw", "-o", "again.yaml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let again_text = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    // The same text, but for the lines naming the files written.
    let plain = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| {
                ![
                    "raw results:",
                    "wrote the inferred ports",
                    "no port mapping was fitted",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .map(String::from)
            .collect()
    };
    assert_eq!(plain(&text), plain(&again_text));
    if dir.join("run.yaml").exists() {
        assert_eq!(
            std::fs::read(dir.join("run.yaml")).unwrap(),
            std::fs::read(dir.join("again.yaml")).unwrap()
        );
    }
    let mut resume = args.clone();
    resume.push("--resume");
    let out = common::winic_command(&resume)
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("results of the interrupted run are used"),
        "{err}"
    );
    assert_eq!(plain(&String::from_utf8_lossy(&out.stdout)), plain(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raw file of a host that lacked AVX2 replays as that host: the forms
/// needing it are skipped, with CPUID's reason, although this machine
/// (which measured them) has it.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "AArch64 and RISC-V record no host yet (docs/raw.md)"
)]
fn a_replay_decides_what_runs_as_the_recorded_host_did() {
    let dir = scratch("host");
    let (code, err) = winic(
        &with_clock(&["TP", "-o", "run.yaml", "-i", "ADD64rr", "VPADDDYrr"]),
        &dir,
    );
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(dir.join("run.yaml.TP.raw")).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    let lacking = header["lacking"]
        .as_array_mut()
        .expect("x86 records its host");
    assert!(!lacking.iter().any(|f| f == "AVX2"), "this host lacks AVX2");
    lacking.push("AVX2".into());
    let edited = format!("{header}\n{rest}");
    std::fs::write(dir.join("no-avx2.raw"), edited).unwrap();
    let out = common::winic_command(&["analyse", "no-avx2.raw", "-o", "again.yaml", "--noReport"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{summary}");
    assert!(
        summary.contains("needs AVX2, which this CPU lacks (CPUID)"),
        "{summary}"
    );
    let again = std::fs::read_to_string(dir.join("again.yaml")).unwrap();
    assert!(again.contains("llvmName:        ADD64rr"), "{again}");
    assert!(!again.contains("VPADDDYrr"), "{again}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyse_refuses_what_is_no_raw_file_naming_it() {
    let dir = scratch("bad");
    let header = format!(
        "{{\"format\":1,\"winic\":\"0.1.0\",\"run\":{{\"mode\":\"TP\",\"arch\":\"{}\",\
         \"global\":[\"-f\",\"2\"],\"args\":[\"-i\",\"{}\"]}},\"cpu\":\"test\",\"ghz\":null,\
         \"lacking\":null}}\n",
        common::host_arch(),
        forms()[0]
    );
    let cases: Vec<(&str, String, Option<i32>, &str)> = vec![
        ("empty.raw", String::new(), Some(2), "empty.raw:1: empty"),
        (
            "yaml.raw",
            "---\n- llvmName: ADD64rr\n".into(),
            Some(2),
            "yaml.raw:1: not the header of a raw file",
        ),
        (
            "future.raw",
            header.replace("\"format\":1", "\"format\":9"),
            Some(2),
            "raw format 9",
        ),
        (
            "line.raw",
            format!("{header}{{\"body\":{{}}}}\n{{\"known\":1}}\n"),
            Some(2),
            "line.raw:2: not a raw record",
        ),
        (
            "mode.raw",
            header.replace("\"TP\"", "\"PORTS\""),
            Some(2),
            "mode \"PORTS\"; this winic replays TP, LAT and ports",
        ),
        (
            "option.raw",
            header.replace("\"-i\"", "\"--cpu\""),
            Some(2),
            "option \"--cpu\"",
        ),
    ];
    for (name, text, code, says) in cases {
        std::fs::write(dir.join(name), text).unwrap();
        let (got, err) = winic(&["analyse", name, "-o", "out.yaml"], &dir);
        assert_eq!(got, code, "{name}: {err}");
        assert!(err.contains(says), "{name}: wanted {says:?} in\n{err}");
        assert!(!dir.join("out.yaml").exists(), "{name}: wrote a database");
    }
    let (got, err) = winic(&["analyse", "none.raw", "-o", "out.yaml"], &dir);
    assert_eq!(got, Some(1), "{err}");
    assert!(err.contains("none.raw"), "{err}");
    let (got, err) = winic(&["-f", "3", "analyse", "empty.raw", "-o", "out.yaml"], &dir);
    assert_eq!(got, Some(2), "{err}");
    assert!(err.contains("the clock the recorded run used"), "{err}");
    // A last line cut by a crash is no error: the run it belongs to was
    // killed there. The header alone replays a run that measured nothing.
    std::fs::write(dir.join("cut.raw"), format!("{header}{{\"body\":{{\"ba")).unwrap();
    let (got, err) = winic(
        &["analyse", "cut.raw", "-o", "out.yaml", "--noReport"],
        &dir,
    );
    assert_eq!(got, Some(0), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
