//! What measured code may not do: create a process. A kernel (a `MAN`
//! function above all: the user's own code) that forks, calls `setsid` and
//! spins would otherwise run for ever after winic returns, holding winic's
//! output open. Two guards, set up in every measuring child:
//!
//! - a seccomp filter that kills the child (SIGSYS) at the first system
//!   call that creates a process or thread (`clone`, `clone3`, `fork`,
//!   `vfork`, and any call through a foreign system-call ABI such as
//!   `int 0x80`), so nothing can escape, whatever it does next. Needs
//!   Linux's seccomp filters (3.5 and later; every distribution kernel);
//!   qemu-user refuses them for its guests;
//! - where the filter is missing, the child is a subreaper, so that what
//!   its kernel forked comes back to it when orphaned, and kills every
//!   descendant before it ends ([`kill_descendants`]). The parent kills the
//!   child's process group as well. A descendant that left the group
//!   (`setsid`) while its kernel then hung or crashed is not caught there:
//!   only the filter closes that gap.

use nix::errno::Errno;
use nix::libc;
use nix::sys::signal::{kill, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag};
use nix::unistd::Pid;

/// `AUDIT_ARCH_*` of the system-call ABI winic itself uses (linux/audit.h).
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(target_arch = "riscv64")]
const AUDIT_ARCH: u32 = 0xC000_00F3;

/// The system calls that create a process or a thread on this arch.
#[cfg(target_arch = "x86_64")]
const CREATE: [u32; 4] = [
    libc::SYS_clone as u32,
    libc::SYS_fork as u32,
    libc::SYS_vfork as u32,
    SYS_CLONE3,
];
#[cfg(not(target_arch = "x86_64"))]
const CREATE: [u32; 2] = [libc::SYS_clone as u32, SYS_CLONE3];

/// `clone3`, the same number on every arch (the generic table).
const SYS_CLONE3: u32 = 435;

/// x32's system calls are x86-64's numbers with this bit set.
const X32_BIT: u32 = 0x4000_0000;

// Classic BPF, as seccomp reads it (linux/filter.h, linux/seccomp.h).
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;
/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;

const fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter's length: the arch check, the x32 check, one comparison
/// per call, allow, kill.
const LEN: usize = 5 + CREATE.len() + 2;

/// The filter: the native ABI's calls other than [`CREATE`] pass, the rest
/// kill the calling thread (the child has only one: the process dies of
/// SIGSYS). Built at compile time: a child forked from a
/// process with other threads never waits for a lock to build it, and
/// under qemu-user no child translates code to build it (code a forked
/// child runs for the first time is translated again in every child).
static PROGRAM: [libc::sock_filter; LEN] = program();

const fn program() -> [libc::sock_filter; LEN] {
    let kill = op(RET_K, 0, 0, libc::SECCOMP_RET_KILL_THREAD);
    let allow = op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW);
    let n = CREATE.len() as u8;
    let mut p = [kill; LEN];
    p[0] = op(LD_W_ABS, 0, 0, ARCH);
    // A foreign ABI (i386's `int 0x80` on x86-64) numbers calls
    // differently: refused whole.
    p[1] = op(JEQ_K, 1, 0, AUDIT_ARCH);
    p[2] = kill;
    p[3] = op(LD_W_ABS, 0, 0, NR);
    // x32 numbers (x86-64 only; no other arch has numbers this high).
    p[4] = op(JGE_K, n + 1, 0, X32_BIT);
    // Each comparison jumps to the `kill` after the `allow`.
    let mut i = 0;
    while i < CREATE.len() {
        p[5 + i] = op(JEQ_K, n - i as u8, 0, CREATE[i]);
        i += 1;
    }
    p[LEN - 2] = allow;
    p[LEN - 1] = kill;
    p
}

/// Installs the filter in the calling process (a measuring child); `false`
/// where the kernel or an emulator refuses seccomp filters.
///
/// With `SECCOMP_FILTER_FLAG_SPEC_ALLOW` (Linux 4.17): without it, kernels
/// whose `spec_store_bypass_disable` is `seccomp` (the default before
/// 5.16, e.g. RHEL 8's 4.18) turn on the speculative store bypass
/// mitigation for a filtered process, which slows the very store-to-load
/// forwarding winic measures. Kernels without the flag get the filter
/// without it.
pub fn refuse_process_creation() -> bool {
    let fprog = libc::sock_fprog {
        len: LEN as u16,
        filter: PROGRAM.as_ptr() as *mut libc::sock_filter,
    };
    let install = |flags: libc::c_ulong| {
        // SAFETY: the seccomp system call with a constant program (the
        // kernel copies it).
        unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER as libc::c_ulong,
                flags,
                &fprog as *const libc::sock_fprog,
            ) == 0
        }
    };
    // SAFETY: a plain prctl call.
    let unprivileged = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 };
    unprivileged && (install(libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW) || install(0))
}

/// Makes the calling process the reaper of its orphaned descendants.
pub fn become_subreaper() {
    // SAFETY: a plain prctl call.
    let _ = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// Kills and reaps every descendant of the calling process, a subreaper
/// ([`become_subreaper`]): what a killed process forked comes back to it,
/// so it is repeated until none is left (a fork bomb at most a few
/// rounds). Returns how many it killed.
pub fn kill_descendants() -> usize {
    // Nearly always nothing to do: one system call says so (no child at
    // all, running or ended).
    if waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) == Err(Errno::ECHILD) {
        return 0;
    }
    let mut killed = 0;
    // A bound, should something fork faster than it is killed.
    for _ in 0..1000 {
        let children = children();
        if children.is_empty() {
            break;
        }
        for pid in children {
            let _ = kill(pid, Signal::SIGKILL);
            while let Err(Errno::EINTR) = waitpid(pid, None) {}
            killed += 1;
        }
    }
    killed
}

/// The calling process's children (every thread's; the children file of
/// /proc, Linux 3.5 and later).
fn children() -> Vec<Pid> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| {
            s.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .map(Pid::from_raw)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The program as seccomp runs it, on (arch, nr).
    fn run(arch: u32, nr: u32) -> u32 {
        let p = PROGRAM;
        let mut acc = 0;
        let mut pc = 0;
        loop {
            let i = p[pc];
            pc += 1;
            match i.code {
                LD_W_ABS => acc = if i.k == ARCH { arch } else { nr },
                JEQ_K | JGE_K => {
                    let taken = if i.code == JEQ_K {
                        acc == i.k
                    } else {
                        acc >= i.k
                    };
                    pc += usize::from(if taken { i.jt } else { i.jf });
                }
                RET_K => return i.k,
                c => panic!("unknown op {c:#x}"),
            }
        }
    }

    #[test]
    fn the_filter_refuses_process_creation_and_nothing_else() {
        let kill = libc::SECCOMP_RET_KILL_THREAD;
        for nr in CREATE {
            assert_eq!(run(AUDIT_ARCH, nr), kill, "call {nr}");
        }
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_mmap,
            libc::SYS_exit_group,
            libc::SYS_getpid,
        ] {
            assert_eq!(run(AUDIT_ARCH, nr as u32), libc::SECCOMP_RET_ALLOW);
        }
        assert_eq!(run(0x4000_0003, 2), kill, "i386's fork");
        assert_eq!(run(AUDIT_ARCH, X32_BIT | 57), kill, "x32's fork");
    }
}
