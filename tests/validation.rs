//! The validation on real loops (docs/validation.md), its cheap parts: every
//! committed kernel of validation/asm/ for the arch under test (x86, AArch64
//! or RISC-V; under qemu-user as the tests are) assembles with winic's own assembler
//! as `scripts/validate.py` hands it to `winic MAN` (those the assembler
//! cannot read yet are listed there, and fail the check when they start to
//! assemble), and the harness reads OSACA's report right (a committed
//! fixture of OSACA 0.7.1's output). The timing stays out of `cargo test`.

#[allow(dead_code)] // winic_command: the harness starts winic itself
mod common;

use common::host_arch;
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

/// Runs `validate.py --check-assembly` on the kernels of `suite` matching
/// `filter` for the arch under test, and checks that at least `least`
/// were checked, with no problem.
fn assembles(suite: &str, filter: &str, least: usize) {
    // The harness (host python) runs this build's binary: natively, or
    // under the emulator the tests themselves run under.
    let runner = std::env::var("WINIC_TEST_RUNNER").unwrap_or_default();
    if common::emulated() && runner.is_empty() {
        common::skip("emulated, and WINIC_TEST_RUNNER names no emulator to run winic under");
        return;
    }
    let out = harness(&[
        "--suite",
        suite,
        "--winic",
        env!("CARGO_BIN_EXE_winic"),
        "--runner",
        &runner,
        "--target",
        host_arch(),
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

#[test]
fn every_validation_kernel_assembles_with_winic() {
    // Reading an x86 line takes about 1 ms in a release build, ten times
    // that in a debug one; a debug build under qemu takes 11 s a RISC-V
    // file and about 40 s an AArch64 one (its aliases make ~170 `mov`
    // candidates): the AVX2 variants or all 25 AArch64 (NEON) or RISC-V
    // (RV64GC) kernels in release, four x86 or two others in debug (all
    // 25 NEON files assemble in `cargo test`'s gcc_aarch64_kernels_assemble).
    let (filter, least) = match (host_arch(), cfg!(debug_assertions)) {
        ("x86_64", true) => (r"^(triad|sum_f64|jacobi3d|gather)\.avx2", 4),
        ("x86_64", false) => (r"\.avx2\.s$", 20),
        (_, true) => (r"^(triad|jacobi3d)\.", 2),
        (_, false) => ("", 20),
    };
    assembles("kernels", filter, least);
}

/// The second suite, the Livermore loops (validation/lfk/README.md): every
/// x86 variant in a release build natively (48 files, about 2 s), four
/// kernels of the other arches (under qemu a file takes seconds), two in
/// debug.
#[test]
fn the_livermore_loops_assemble_with_winic() {
    let (filter, least) = match (host_arch(), cfg!(debug_assertions)) {
        (_, true) => (r"^lfk(07|18)_\w+\.(avx2|neon|rv64gc)\.s$", 2),
        ("x86_64", false) => ("", 48),
        (_, false) => (r"^lfk(01|07|18|23)_", 4),
    };
    assembles("lfk", filter, least);
}
