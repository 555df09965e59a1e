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
    // The harness runs the binary itself, which is only this machine's
    // when the tests are built for it (under qemu-user it is AArch64's or
    // RISC-V's, and python cannot start it).
    if cfg!(not(target_arch = "x86_64")) || std::env::var_os("WINIC_EMULATED").is_some() {
        eprintln!(
            "skipped: the x86 validation kernels are checked by an x86-64 build run natively"
        );
        return;
    }
    // Reading an x86 line takes about 1 ms in a release build, ten times
    // that in a debug one: the AVX2 variants (25 files) in release, four
    // of them in debug.
    let (filter, least) = if cfg!(debug_assertions) {
        (r"^(triad|sum_f64|jacobi3d|gather)\.avx2", 4)
    } else {
        (r"\.avx2\.s$", 20)
    };
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
    assert!(n >= least, "only {n} kernels checked:\n{out}");
}
