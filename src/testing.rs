//! What the crate's unit tests and its CLI tests (`tests/`) share: how a
//! test that cannot run here says so.
//!
//! A reason known before a test starts (the arch it is built for, a
//! `cfg`) is an `#[ignore = "why"]`, which `cargo test` counts and lists
//! by itself. A reason known only at run time (the core, an emulator, a
//! tool that is missing) is [`skip`]: one line that `cargo test` shows
//! and `.ci/run` lists and counts per step. A test never returns early
//! without one of the two.

use std::io::Write;

/// The prefix of every skip line; `.ci/run` and `scripts/test-cross.sh`
/// collect the lines that carry it.
pub const SKIP_PREFIX: &str = "winic-test: skipped: ";

/// Says that the calling test does not run (the caller returns right
/// after): `winic-test: skipped: <test>: <why>` on standard error.
///
/// The line is written to the stderr handle, not with `eprintln!`, which
/// the test harness captures and shows only for failing tests: so a
/// plain `cargo test` prints it, under qemu too. The test's name is its
/// thread's, which the harness sets.
pub fn skip(why: impl std::fmt::Display) {
    let line = skip_line(&why.to_string());
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// The line [`skip`] writes for the calling thread's test.
fn skip_line(why: &str) -> String {
    let current = std::thread::current();
    let test = current.name().unwrap_or("(a test)");
    format!("{SKIP_PREFIX}{test}: {why}\n")
}

/// Whether this test runs under an emulator (`WINIC_EMULATED`, set by
/// `scripts/test-cross.sh`), where times mean nothing.
pub fn emulated() -> bool {
    std::env::var_os("WINIC_EMULATED").is_some()
}

#[cfg(test)]
mod tests {
    /// The skip line names the test it comes from (the harness's thread
    /// name), so a list of skips says which tests did not run.
    #[test]
    fn a_skip_names_its_test() {
        assert_eq!(
            super::skip_line("no such tool"),
            "winic-test: skipped: testing::tests::a_skip_names_its_test: no such tool\n"
        );
    }
}
