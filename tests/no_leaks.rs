//! A thousand faulting kernels in a row leave no zombie and no open
//! descriptor behind. Its own test binary: other tests' forks and pipes
//! would race with the counting.

use nix::errno::Errno;
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::Pid;
use std::time::Duration;
use winic::arch::{target, Line};
use winic::exec::{in_child, ChildError, Code};
use winic::isa::Arch;
use winic::kernel::{assemble, Regs};

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[test]
fn a_thousand_faulting_kernels_leave_nothing_behind() {
    let (arch, illegal) = if cfg!(target_arch = "x86_64") {
        (Arch::X86_64, vec![0x0f, 0x0b]) // ud2
    } else if cfg!(target_arch = "aarch64") {
        (Arch::Aarch64, vec![0, 0, 0, 0]) // udf #0
    } else {
        (Arch::Riscv64, vec![0, 0, 0, 0]) // illegal (all zero)
    };
    let line = Line {
        text: "illegal".into(),
        bytes: illegal,
    };
    let none = Regs {
        all: &[],
        bases: &[],
        lanes: &[],
    };
    let kernel = assemble(target(arch), &[line], &none, 1, None).unwrap();
    let code = Code::new(&kernel.bytes()).unwrap();
    // SAFETY: a complete kernel function; it runs only in the children.
    let f = unsafe { code.entry() };
    let before = open_descriptors();
    for i in 0..1000 {
        let got = in_child(None, Duration::from_secs(20), || {
            f(1);
            vec![]
        });
        assert_eq!(
            got,
            Err(ChildError::Signal(nix::sys::signal::Signal::SIGILL)),
            "run {i}"
        );
    }
    assert_eq!(open_descriptors(), before, "descriptors leaked");
    assert_eq!(
        waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)),
        Err(Errno::ECHILD),
        "a child is left"
    );
}
