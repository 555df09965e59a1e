//! CLI tests: run the real `winic` binary (the one cargo built for the
//! target; under qemu-user, `WINIC_TEST_RUNNER` names the emulator to put in
//! front of it, e.g. "qemu-aarch64 -cpu max").

use std::process::{Command, Output};

fn winic(args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_winic");
    let runner = std::env::var("WINIC_TEST_RUNNER").unwrap_or_default();
    let mut parts = runner.split_whitespace();
    let mut cmd = match parts.next() {
        Some(emu) => {
            let mut c = Command::new(emu);
            c.args(parts).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.args(args).output().expect("cannot run winic")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn version_names_the_program() {
    let o = winic(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("winic "), "{}", stdout(&o));
}

#[test]
fn list_defaults_to_the_host_arch() {
    let o = winic(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let host = if cfg!(target_arch = "x86_64") {
        "ADD64rr"
    } else if cfg!(target_arch = "aarch64") {
        "ADDXrs"
    } else {
        "VADD_VV"
    };
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.split_whitespace().nth(1) == Some(host)),
        "{host} not listed"
    );
}

#[test]
fn list_counts_real_forms_per_arch() {
    for (arch, lo, hi) in [
        ("x86", 17_000, 18_500),
        ("aarch64", 6_500, 7_100),
        ("riscv", 1_800, 2_000),
    ] {
        let o = winic(&["list", "--arch", arch]);
        assert!(o.status.success(), "{}", stderr(&o));
        let n = stdout(&o).lines().count();
        assert!((lo..=hi).contains(&n), "{arch}: {n} forms");
        assert!(
            stderr(&o).contains(&format!("{n} forms listed")),
            "{}",
            stderr(&o)
        );
        let all = stdout(&winic(&["list", "--arch", arch, "--all"]))
            .lines()
            .count();
        assert!(all > n, "{arch}: --all lists pseudos too");
    }
}

#[test]
fn list_filter_selects_by_regex() {
    let o = winic(&["list", "--arch", "x86", "--filter", "^VFMADD231PDZ128r$"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("vfmadd231pd"), "{out}");
}

#[test]
fn bad_filter_and_bad_arch_are_clear_errors() {
    let o = winic(&["list", "--filter", "(unclosed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--filter '(unclosed' is not a valid regular expression"),
        "{}",
        stderr(&o)
    );
    let o = winic(&["list", "--arch", "mips"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("valid: x86_64"), "{}", stderr(&o));
}

#[test]
fn show_describes_a_form() {
    let o = winic(&["show", "FMADDDrrr", "--arch", "aarch64"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "FMADDDrrr (aarch64, opcode 2919)",
        "$Rd",
        "write FPR64",
        "implicit reads:  FPCR",
        "requires:",
        "Inst[4:0] = Rd[4:0]",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn show_unknown_name_suggests_the_closest() {
    let o = winic(&["show", "add64rr", "--arch", "x86_64"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no instruction form 'add64rr' on x86_64"),
        "{err}"
    );
    assert!(err.contains("ADD64rr"), "{err}");
}
