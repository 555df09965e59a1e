//! The validation on real loops (docs/validation.md), its cheap parts: every
//! committed kernel of validation/asm/ assembles with winic's own assembler
//! as `scripts/validate.py` hands it to `winic MAN` (those the assembler
//! cannot read yet are listed there, and fail the check when they start to
//! assemble), and the harness reads OSACA's report right (a committed
//! fixture of OSACA 0.7.1's output). The timing stays out of `cargo test`.

use std::path::Path;
use std::process::Command;

fn harness(args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("scripts/validate.py"))
        .args(args)
        .output()
        .expect("python3 runs scripts/validate.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "validate.py {args:?} failed:\n{text}");
    text
}

#[test]
fn the_harness_reads_osacas_report() {
    assert!(harness(&["--self-test"]).contains("self-test: ok"));
}

#[test]
fn every_validation_kernel_assembles_with_winic() {
    // A debug build reads x86 lines about ten times slower: one ISA there.
    let filter = if cfg!(debug_assertions) { "avx2" } else { "" };
    let out = harness(&[
        "--winic",
        env!("CARGO_BIN_EXE_winic"),
        "--check-assembly",
        "--filter",
        filter,
    ]);
    let n: usize = out
        .lines()
        .find_map(|l| l.strip_suffix(" kernels checked, 0 problems"))
        .unwrap_or_else(|| panic!("no summary in:\n{out}"))
        .parse()
        .unwrap();
    assert!(n >= 20, "only {n} kernels checked:\n{out}");
}
