//! winic measures, on the machine it runs on, the throughput and the
//! per-operand latencies of the instruction forms of x86-64, AArch64 and
//! RISC-V, from LLVM's TableGen records compiled into the binary.
//!
//! Modules, in pipeline order: [`isa`] (the tables), [`inspect`] (list and
//! show them), [`arch`] (the per-arch encoders, printers and decode checks
//! behind one trait), [`selfcheck`] (proving them on every form),
//! [`error`] (failures of winic itself), [`elf`] (kernels as static
//! executables), [`kernel`] (kernel functions and body shapes), [`exec`]
//! (running them in forked children), [`raw`] (what they measured, as
//! records a run keeps and a replay reads), [`runcheck`] (every form's kernels
//! run once), [`probe`] (features a host cannot report, tried), [`mode`]
//! (a TP or LAT run: selection, measuring, results, summary),
//! [`report`] (report files),
//! [`interrupt`] (stopping a run cleanly on SIGINT/SIGTERM),
//! [`db`] (the results database in WINIC's YAML format), [`lock`] (one
//! run per database), [`export`] (a database as an OSACA machine file),
//! [`testing`] (how a test that cannot run here says so), [`input`]
//! (reading files someone else wrote, bounded).

#![warn(missing_docs, unsafe_op_in_unsafe_fn)]

pub mod arch;
pub mod asm;
pub mod compare;
pub mod db;
pub mod elf;
pub mod error;
pub mod exec;
pub mod export;
pub mod html;
pub mod input;
pub mod inspect;
pub mod interrupt;
pub mod isa;
pub mod kernel;
pub mod lock;
pub mod measure;
pub mod mode;
pub mod probe;
pub mod raw;
pub mod report;
pub mod runcheck;
pub mod selfcheck;
#[doc(hidden)]
pub mod testing;

/// The stride of the whole-table sweeps in unit tests: every form on the
/// host, every fifth under emulation (`WINIC_EMULATED`, set by
/// scripts/test-cross.sh), where the same sweeps of another arch's tables
/// would take most of CI's time and prove nothing the host run did not.
#[cfg(test)]
pub(crate) fn test_stride() -> usize {
    if testing::emulated() {
        5
    } else {
        1
    }
}
