//! What the CLI test files share: the command that runs the real binary,
//! and the published tables with the rules a database is held to.

pub mod published;

use std::process::Command;

/// The command running winic with `args`: the binary cargo built for the
/// target, under qemu-user when `WINIC_TEST_RUNNER` names the emulator
/// (e.g. "qemu-aarch64 -cpu max").
#[allow(dead_code)] // not every test file runs the binary
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

/// A directory of the test's own under the system's temporary directory
/// (named by `label`, the process and a counter, so that tests running
/// in parallel never share one), removed with everything in it when the
/// value is dropped: at the end of the test, and when it panics.
#[allow(dead_code)] // not every test file writes files
pub struct Scratch(std::path::PathBuf);

#[allow(dead_code)]
impl Scratch {
    pub fn new(label: &str) -> Scratch {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("winic-{label}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
