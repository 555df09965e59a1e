//! What the CLI test files share: the command that runs the real binary.

use std::process::Command;

/// The command running winic with `args`: the binary cargo built for the
/// target, under qemu-user when `WINIC_TEST_RUNNER` names the emulator
/// (e.g. "qemu-aarch64 -cpu max").
pub fn winic_command(args: &[&str]) -> Command {
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
    cmd.args(args);
    cmd
}

/// The arch this test binary runs as, as winic and kernels.json name it.
#[allow(dead_code)] // not every test file asks
pub fn host_arch() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "x86_64"
    } else if cfg!(target_arch = "aarch64") {
        "aarch64"
    } else {
        "riscv64"
    }
}

/// How a test that cannot run here says so (`winic-test: skipped: …`,
/// listed by `.ci/run`), and whether it runs under an emulator.
#[allow(unused_imports)] // not every test file skips
pub use winic::testing::{emulated, skip};
