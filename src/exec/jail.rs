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
use nix::sys::wait::waitpid;
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

fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter: the native ABI's calls other than [`CREATE`] pass, the rest
/// kill the calling thread (the child has only one: the process dies of
/// SIGSYS).
fn program() -> Vec<libc::sock_filter> {
    let kill = op(RET_K, 0, 0, libc::SECCOMP_RET_KILL_THREAD);
    let allow = op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW);
    let n = CREATE.len() as u8;
    let mut p = vec![
        op(LD_W_ABS, 0, 0, ARCH),
        // A foreign ABI (i386's `int 0x80` on x86-64) numbers calls
        // differently: refused whole.
        op(JEQ_K, 1, 0, AUDIT_ARCH),
        kill,
        op(LD_W_ABS, 0, 0, NR),
        // x32 numbers (x86-64 only; no other arch has numbers this high).
        op(JGE_K, n + 1, 0, X32_BIT),
    ];
    // Each comparison jumps to the `kill` after the `allow`.
    for (i, nr) in CREATE.iter().enumerate() {
        p.push(op(JEQ_K, n - i as u8, 0, *nr));
    }
    p.push(allow);
    p.push(kill);
    p
}

/// Installs the filter in the calling process (a measuring child); `false`
/// where the kernel or an emulator refuses seccomp filters.
pub fn refuse_process_creation() -> bool {
    let prog = program();
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: plain prctl calls; `fprog` points at `prog`, alive across the
    // call (the kernel copies the program).
    unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &fprog as *const libc::sock_fprog,
            ) == 0
    }
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
        let p = program();
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
