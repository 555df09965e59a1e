//! One measurement in a forked child: pinned to a CPU, its results sent back
//! over a pipe, watched with a deadline. Whatever the child does (fault,
//! exit, garbage, silence, hang) the parent reaps it and returns a value.

use super::jail;
use crate::raw::Fault;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::libc;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sched::{sched_setaffinity, CpuSet};
use nix::sys::signal::{kill, killpg, sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, pipe2, setpgid, ForkResult, Pid};
use std::fmt;
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

/// Why a child gave no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChildError {
    /// Killed by a signal (SIGILL for an instruction the CPU lacks, SIGSEGV,
    /// SIGBUS, SIGFPE, SIGTRAP ...).
    Signal(nix::sys::signal::Signal),
    /// Exited with a non-zero status.
    Exit(i32),
    /// Did not finish within the deadline; it was killed.
    Timeout(Duration),
    /// Sent something that is not a result.
    Garbage(String),
    /// winic could not fork, pin or talk to the child.
    System(String),
    /// The user stopped the run (SIGINT, SIGTERM) while the child ran; it
    /// was killed. Not the kernel's fault.
    Interrupted,
}

impl fmt::Display for ChildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChildError::Signal(Signal::SIGSYS) => write!(
                f,
                "killed by SIGSYS: it tried to create a process or thread (fork, \
                 vfork, clone or clone3), which measured code may not"
            ),
            ChildError::Signal(s) => write!(f, "killed by {}", s.as_str()),
            ChildError::Exit(c) => write!(f, "exited with status {c}"),
            ChildError::Timeout(d) => {
                write!(f, "no result within {:.1} s (killed)", d.as_secs_f64())
            }
            ChildError::Garbage(m) => write!(f, "sent no valid result: {m}"),
            ChildError::System(m) => write!(f, "{m}"),
            ChildError::Interrupted => write!(f, "stopped by SIGINT or SIGTERM (killed)"),
        }
    }
}

impl ChildError {
    /// The fault as a raw file records it; `None` for winic's own failure
    /// and an interrupted run, which blame no kernel.
    pub fn fault(&self) -> Option<Fault> {
        Some(match self {
            ChildError::Signal(s) => Fault::Signal(s.as_str().to_string()),
            ChildError::Exit(c) => Fault::Exit(*c),
            ChildError::Timeout(d) => Fault::Timeout(d.as_secs_f64()),
            ChildError::Garbage(m) => Fault::Garbage(m.clone()),
            ChildError::System(_) | ChildError::Interrupted => return None,
        })
    }
}

impl From<&Fault> for ChildError {
    /// A recorded fault; a signal this system does not know is garbage
    /// that names it.
    fn from(f: &Fault) -> ChildError {
        match f {
            Fault::Signal(name) => name.parse::<Signal>().map_or_else(
                |_| ChildError::Garbage(format!("killed by {name}, a signal unknown here")),
                ChildError::Signal,
            ),
            Fault::Exit(c) => ChildError::Exit(*c),
            Fault::Timeout(s) => ChildError::Timeout(Duration::from_secs_f64(s.max(0.0))),
            Fault::Garbage(m) => ChildError::Garbage(m.clone()),
        }
    }
}

/// Runs `work` in a forked child pinned to `cpu` (if given) and returns the
/// numbers it produced, or why there are none. The child is always reaped;
/// on timeout it is killed first. The child runs in a process group of its
/// own, which is killed whole on timeout and again once the child has
/// ended: nothing the child forked (a kernel may do the `fork` system
/// call) outlives it.
///
/// The child runs only `work` and then `_exit`s, so nothing of the parent's
/// state (buffers, destructors, other threads) is touched twice. It is
/// [`in_child_stream`]'s fork with one record and a deadline for the
/// whole run rather than between records.
pub fn in_child(
    cpu: Option<usize>,
    deadline: Duration,
    work: impl FnOnce() -> Vec<f64>,
) -> Result<Vec<f64>, ChildError> {
    let mut got = Vec::new();
    let fate = forked(
        cpu,
        Watch::Whole(deadline),
        |r| {
            // A parent gone before the result arrives reads nothing.
            let _ = r.send(&work());
        },
        &mut |v| got.push(v),
    );
    if let Some(e) = fate {
        return Err(e);
    }
    match got.len() {
        1 => Ok(got.pop().expect("one record")),
        n => Err(ChildError::Garbage(format!("{n} results, expected one"))),
    }
}

/// The child's end of [`in_child_stream`]: sends one record at a time, so
/// the parent keeps everything sent before a fault.
pub struct Records {
    tx: OwnedFd,
}

impl Records {
    /// Sends `values` as one record; `false` when the parent is gone.
    pub fn send(&mut self, values: &[f64]) -> bool {
        write_all(&self.tx, &encode(values))
    }
}

/// Runs `work` in a forked child pinned to `cpu` (if given), which sends
/// records as it goes ([`Records::send`]); `record` gets each complete
/// record in the parent as soon as it arrives (so a caller can save it
/// before the child is done: a run killed meanwhile keeps it). Returns,
/// if the child did not end cleanly, why: a signal, an exit status,
/// garbage, or `idle` passing without a record (then it is killed). The
/// child is always reaped.
pub fn in_child_stream(
    cpu: Option<usize>,
    idle: Duration,
    work: impl FnOnce(&mut Records),
    record: &mut dyn FnMut(Vec<f64>),
) -> Option<ChildError> {
    forked(cpu, Watch::Idle(idle), work, record)
}

/// How long the parent waits for a child: for all of it, or between two
/// of its records.
#[derive(Clone, Copy)]
enum Watch {
    /// The whole run.
    Whole(Duration),
    /// From the start, and from each chunk the child sent, to the next.
    Idle(Duration),
}

/// winic's one fork: `work` runs in a child set up by [`child_setup`] and
/// pinned to `cpu`, its records go to `record` as they arrive, and the
/// child is killed once `watch` runs out, then always reaped. Returns why
/// the child did not end cleanly, if it did not.
fn forked(
    cpu: Option<usize>,
    watch: Watch,
    work: impl FnOnce(&mut Records),
    record: &mut dyn FnMut(Vec<f64>),
) -> Option<ChildError> {
    let sys = |what: &str, e: Errno| ChildError::System(format!("{what}: {e}"));
    let (rx, tx) = match pipe2(OFlag::O_CLOEXEC) {
        Ok(p) => p,
        Err(e) => return Some(sys("pipe", e)),
    };
    let parent = nix::unistd::getpid();
    // SAFETY: the child only sets itself up, pins itself, runs `work`,
    // writes to the pipe and calls `_exit`; it never returns into the
    // caller's code.
    match unsafe { fork() } {
        Err(e) => Some(sys("fork", e)),
        Ok(ForkResult::Child) => {
            drop(rx);
            let jailed = child_setup(parent);
            let status = match pin(cpu) {
                Ok(()) => {
                    work(&mut Records { tx });
                    0
                }
                Err(code) => code,
            };
            if !jailed {
                jail::kill_descendants();
            }
            // SAFETY: `_exit` ends the process without running the
            // parent's atexit handlers or destructors.
            unsafe { libc::_exit(status) }
        }
        Ok(ForkResult::Parent { child }) => {
            own_group(child);
            drop(tx);
            let (problem, rest) = take_records(&rx, child, watch, record);
            drop(rx);
            let status = match reap(child) {
                Ok(s) => s,
                Err(e) => return Some(e),
            };
            match status {
                _ if problem.is_some() => problem,
                WaitStatus::Signaled(_, sig, _) => Some(ChildError::Signal(sig)),
                WaitStatus::Exited(_, code) if code != 0 => Some(ChildError::Exit(code)),
                _ if rest > 0 => Some(ChildError::Garbage(format!(
                    "{rest} bytes of an incomplete record"
                ))),
                _ => None,
            }
        }
    }
}

/// The parent's reading of a child's pipe: every complete record to
/// `record` until the child closes it; the child (its group) is killed
/// when `watch` runs out, the run is interrupted or the records are
/// garbage. Returns that problem and how many bytes were left over.
fn take_records(
    rx: &OwnedFd,
    child: Pid,
    watch: Watch,
    record: &mut dyn FnMut(Vec<f64>),
) -> (Option<ChildError>, usize) {
    let (limit, idle) = match watch {
        Watch::Whole(d) => (d, false),
        Watch::Idle(d) => (d, true),
    };
    let mut end = Instant::now() + limit;
    let mut buf = Vec::new();
    loop {
        match read_chunk(rx, end, limit) {
            Ok(chunk) if chunk.is_empty() => return (None, buf.len()),
            Ok(chunk) => {
                if idle {
                    end = Instant::now() + limit;
                }
                buf.extend_from_slice(&chunk);
                match split_records(&mut buf) {
                    Ok(got) => got.into_iter().for_each(&mut *record),
                    Err(e) => {
                        kill_group(child);
                        return (Some(e), buf.len());
                    }
                }
            }
            Err(e) => {
                if matches!(e, ChildError::Timeout(_) | ChildError::Interrupted) {
                    kill_group(child);
                }
                return (Some(e), buf.len());
            }
        }
    }
}

/// Takes every complete record off the front of `buf`.
fn split_records(buf: &mut Vec<u8>) -> Result<Vec<Vec<f64>>, ChildError> {
    let mut out = Vec::new();
    let mut at = 0;
    while buf.len() - at >= 8 {
        let n = u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
        if n > 1 << 20 {
            return Err(ChildError::Garbage(format!("a record of {n} values")));
        }
        let end = at + 8 + 8 * n as usize;
        if buf.len() < end {
            break;
        }
        out.push(decode(&buf[at..end])?);
        at = end;
    }
    buf.drain(..at);
    Ok(out)
}

fn encode(values: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 8 * values.len());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn write_all(tx: &OwnedFd, mut rest: &[u8]) -> bool {
    while !rest.is_empty() {
        match nix::unistd::write(tx, rest) {
            Ok(n) => rest = &rest[n..],
            Err(Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
    true
}

/// Pins the calling process to `cpu`; the child's exit status 101 when
/// that fails.
fn pin(cpu: Option<usize>) -> Result<(), i32> {
    if let Some(cpu) = cpu {
        let mut set = CpuSet::new();
        if set.set(cpu).is_err() || sched_setaffinity(Pid::from_raw(0), &set).is_err() {
            return Err(101);
        }
    }
    Ok(())
}

/// What a child of `parent` does first, right after the fork (`in_child`
/// and `in_child_stream`). Returns whether process creation is refused
/// from here on ([`jail`]); if not, the child must kill its descendants
/// before it ends.
fn child_setup(parent: Pid) -> bool {
    // The child dies with winic: killed with SIGKILL, which nothing can
    // catch, winic leaves no watchdog behind, and a hanging kernel would
    // run on, holding winic's open files (the database's lock among them).
    // Checked after setting it: winic may have died before.
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL);
    if nix::unistd::getppid() != parent {
        // SAFETY: ends the child at once, as it would have been killed.
        unsafe { libc::_exit(103) }
    }
    // A process group of its own, which the parent kills whole: a kernel
    // that forks leaves nothing running. (A terminal's Ctrl-C no longer
    // reaches the child either: the parent decides.) The parent sets it
    // too, so that neither can act before it is in place.
    let _ = setpgid(Pid::from_raw(0), Pid::from_raw(0));
    // A faulting kernel is a result, not a crash worth a core file (qemu-user
    // would write one per fault into the working directory).
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    // A kernel that overflows the stack or touches a bad address dies of
    // that signal: Rust's handler for stack overflows would print "has
    // overflowed its stack" and abort (SIGABRT), blaming winic.
    let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    for sig in [Signal::SIGSEGV, Signal::SIGBUS] {
        // SAFETY: restoring the default action installs no handler.
        let _ = unsafe { sigaction(sig, &default) };
    }
    jail::become_subreaper();
    jail::refuse_process_creation()
}

/// The parent's half of [`child_setup`]'s process group (whichever runs
/// first makes it; the second call finds it made).
fn own_group(child: Pid) {
    let _ = setpgid(child, child);
}

/// Kills the child and everything in its process group.
fn kill_group(child: Pid) {
    let _ = killpg(child, Signal::SIGKILL);
    // Should the group not exist (it always does once `own_group` ran),
    // the child itself still dies.
    let _ = kill(child, Signal::SIGKILL);
}

/// Reads what the pipe holds, waiting until `end` at most: empty when the
/// child closed it, [`ChildError::Timeout`] (of `limit`) when `end`
/// passed first.
fn read_chunk(rx: &OwnedFd, end: Instant, limit: Duration) -> Result<Vec<u8>, ChildError> {
    let mut buf = [0u8; 4096];
    loop {
        if crate::interrupt::requested() {
            return Err(ChildError::Interrupted);
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ChildError::Timeout(limit));
        }
        // A signal that comes between the check above and `poll` is seen
        // at the latest after this long.
        let ms = PollTimeout::try_from(left.as_millis().clamp(1, 250) as i32)
            .unwrap_or(PollTimeout::MAX);
        let mut fds = [PollFd::new(rx.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, ms) {
            Ok(0) | Err(Errno::EINTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(ChildError::System(format!("poll: {e}"))),
        }
        match nix::unistd::read(rx, &mut buf) {
            Ok(n) => return Ok(buf[..n].to_vec()),
            Err(Errno::EINTR | Errno::EAGAIN) => {}
            Err(e) => return Err(ChildError::System(format!("read: {e}"))),
        }
    }
}

/// Waits for `child` to end, kills whatever is left in its process group
/// (what it forked), then reaps it.
fn reap(child: Pid) -> Result<WaitStatus, ChildError> {
    // Waiting without reaping keeps the child a zombie, so its pid, the
    // group's id, cannot be taken by another process before the kill.
    loop {
        match waitid(Id::Pid(child), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(ChildError::System(format!("waitid: {e}"))),
            Ok(_) => break,
        }
    }
    let _ = killpg(child, Signal::SIGKILL);
    loop {
        match waitpid(child, None) {
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(ChildError::System(format!("waitpid: {e}"))),
            Ok(s @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => return Ok(s),
            Ok(_) => continue,
        }
    }
}

/// Parses the child's message: a count, then that many `f64`s.
fn decode(bytes: &[u8]) -> Result<Vec<f64>, ChildError> {
    let garbage = |m: String| Err(ChildError::Garbage(m));
    if bytes.len() < 8 {
        return garbage(format!("{} bytes, expected at least 8", bytes.len()));
    }
    let (head, body) = bytes.split_at(8);
    let n = u64::from_le_bytes(head.try_into().expect("8 bytes"));
    if body.len() as u64 != n.saturating_mul(8) {
        return garbage(format!("announced {n} values, sent {} bytes", body.len()));
    }
    Ok(body
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    const SHORT: Duration = Duration::from_secs(20);

    #[test]
    fn values_come_back() {
        let got = in_child(Some(0), SHORT, || vec![1.5, -2.0, 1e9]);
        assert_eq!(got, Ok(vec![1.5, -2.0, 1e9]));
        assert_eq!(in_child(None, SHORT, Vec::new), Ok(vec![]));
    }

    #[test]
    fn a_fault_is_a_value() {
        let got = in_child(None, SHORT, || {
            // SAFETY: not safe at all, on purpose: the child dies of a
            // real fault (raise() would be caught by std's handler).
            unsafe { std::ptr::null_mut::<u8>().write_volatile(1) };
            vec![1.0]
        });
        assert_eq!(
            got,
            Err(ChildError::Signal(nix::sys::signal::Signal::SIGSEGV))
        );
    }

    #[test]
    fn an_exit_status_is_reported() {
        let got = in_child(None, SHORT, || unsafe { libc::_exit(7) });
        assert_eq!(got, Err(ChildError::Exit(7)));
    }

    #[test]
    fn a_hang_is_killed_and_reaped() {
        let t = Instant::now();
        let got = in_child(None, Duration::from_millis(300), || loop {
            std::hint::spin_loop();
        });
        assert_eq!(got, Err(ChildError::Timeout(Duration::from_millis(300))));
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }

    #[test]
    fn garbage_is_recognised() {
        assert!(matches!(decode(&[1, 2, 3]), Err(ChildError::Garbage(_))));
        let mut msg = 2u64.to_le_bytes().to_vec();
        msg.extend_from_slice(&1.0f64.to_le_bytes());
        assert!(matches!(decode(&msg), Err(ChildError::Garbage(_))));
    }

    /// The records of a streaming child, collected, and its fate.
    fn stream(
        cpu: Option<usize>,
        idle: Duration,
        work: impl FnOnce(&mut Records),
    ) -> (Vec<Vec<f64>>, Option<ChildError>) {
        let mut got = Vec::new();
        let fate = in_child_stream(cpu, idle, work, &mut |r| got.push(r));
        (got, fate)
    }

    #[test]
    fn streamed_records_survive_a_fault() {
        let (got, fate) = stream(Some(0), SHORT, |r| {
            assert!(r.send(&[1.0, 2.0]));
            assert!(r.send(&[]));
            assert!(r.send(&[3.0]));
            // SAFETY: a deliberate fault (see `a_fault_is_a_value`).
            unsafe { std::ptr::null_mut::<u8>().write_volatile(1) };
        });
        assert_eq!(got, vec![vec![1.0, 2.0], vec![], vec![3.0]]);
        assert_eq!(
            fate,
            Some(ChildError::Signal(nix::sys::signal::Signal::SIGSEGV))
        );
        let (got, fate) = stream(None, SHORT, |r| {
            r.send(&[5.0]);
        });
        assert_eq!((got, fate), (vec![vec![5.0]], None));
    }

    /// A record reaches the parent while the child still runs, not when
    /// it ends: a parent killed meanwhile has saved it.
    #[test]
    fn records_arrive_while_the_child_runs() {
        let start = Instant::now();
        let mut arrived = Vec::new();
        let fate = in_child_stream(
            None,
            SHORT,
            |r| {
                r.send(&[1.0]);
                std::thread::sleep(Duration::from_millis(1500));
                r.send(&[2.0]);
            },
            &mut |r| arrived.push((r, start.elapsed())),
        );
        assert_eq!(fate, None);
        let ended = start.elapsed();
        assert_eq!(arrived.len(), 2, "{arrived:?}");
        assert_eq!(arrived[0].0, vec![1.0]);
        assert!(
            arrived[0].1 + Duration::from_millis(1000) < ended,
            "the first record came at {:?}, the child ended at {ended:?}",
            arrived[0].1
        );
    }

    #[test]
    fn a_silent_stream_is_killed_after_the_idle_time() {
        let idle = Duration::from_millis(300);
        let (got, fate) = stream(None, idle, |r| {
            r.send(&[1.0]);
            loop {
                std::hint::spin_loop();
            }
        });
        assert_eq!(got, vec![vec![1.0]]);
        assert_eq!(fate, Some(ChildError::Timeout(idle)));
    }

    /// How a kernel's fork tries to outlive it.
    #[derive(Clone, Copy, Debug)]
    enum Escape {
        /// A plain fork: the process stays in the child's group.
        Fork,
        /// A fork that calls `setsid`: a session and group of its own.
        Setsid,
        /// A fork that forks again, `setsid`s and exits: the spinner is an
        /// orphan in a group of its own.
        DoubleFork,
    }

    /// Forks a process that closes every inherited descriptor (so the
    /// pipe ends with the child) and spins, as `how` says; returns its pid,
    /// or -1 when the fork was refused.
    fn fork_spinner(how: Escape) -> i32 {
        let (rx, tx) = nix::unistd::pipe().unwrap();
        let spin = |tx: &OwnedFd| -> ! {
            let me = std::process::id().to_le_bytes();
            let _ = nix::unistd::write(tx, &me);
            for fd in 3..1024 {
                // SAFETY: closing descriptors the spinner does not use.
                unsafe { libc::close(fd) };
            }
            loop {
                std::hint::spin_loop();
            }
        };
        // SAFETY: the forked processes only make system calls and spin or
        // exit.
        match unsafe { libc::fork() } {
            0 => {
                if !matches!(how, Escape::Fork) {
                    let _ = nix::unistd::setsid();
                }
                if matches!(how, Escape::DoubleFork) && unsafe { libc::fork() } != 0 {
                    // SAFETY: the middle process ends at once.
                    unsafe { libc::_exit(0) }
                }
                spin(&tx)
            }
            -1 => -1,
            _ => {
                drop(tx);
                let mut pid = [0u8; 4];
                match nix::unistd::read(&rx, &mut pid) {
                    Ok(4) => i32::from_le_bytes(pid),
                    _ => -1,
                }
            }
        }
    }

    /// Whether `pid` is gone (or a zombie, which no longer runs) within
    /// `wait`; it is killed afterwards either way, so that a failing test
    /// leaves no spinner behind.
    fn gone_within(pid: i32, wait: Duration) -> bool {
        let pid = Pid::from_raw(pid);
        let end = Instant::now() + wait;
        let gone = loop {
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            });
            if kill(pid, None) == Err(Errno::ESRCH) || zombie {
                break true;
            }
            if Instant::now() > end {
                break false;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let _ = kill(pid, Signal::SIGKILL);
        gone
    }

    const ESCAPES: [Escape; 3] = [Escape::Fork, Escape::Setsid, Escape::DoubleFork];

    /// On Linux a child that creates a process is killed at the attempt
    /// (the seccomp filter); under qemu-user, which refuses filters, what
    /// it forked dies with it however it left the child's group.
    #[test]
    fn what_a_child_forks_is_refused_or_dies_with_it() {
        for how in ESCAPES {
            let got = in_child(None, SHORT, move || vec![fork_spinner(how) as f64]);
            if !crate::testing::emulated() {
                assert_eq!(got, Err(ChildError::Signal(Signal::SIGSYS)), "{how:?}");
                continue;
            }
            let spinner = got.as_ref().expect("the child exits normally")[0] as i32;
            assert!(spinner > 0, "{how:?}: {got:?}");
            assert!(
                gone_within(spinner, Duration::from_secs(2)),
                "{how:?}: spinner {spinner} still runs after the child was reaped"
            );
        }
    }

    /// The same for a child that then hangs and is killed (under qemu-user
    /// only the process group is killed: `setsid` escapes it there).
    #[test]
    fn what_a_hanging_child_forks_is_refused_or_dies_with_it() {
        let idle = Duration::from_millis(300);
        for how in ESCAPES {
            if crate::testing::emulated() && !matches!(how, Escape::Fork) {
                continue;
            }
            let (got, fate) = stream(None, idle, move |r| {
                r.send(&[fork_spinner(how) as f64]);
                loop {
                    std::hint::spin_loop();
                }
            });
            if !crate::testing::emulated() {
                assert_eq!(fate, Some(ChildError::Signal(Signal::SIGSYS)), "{how:?}");
                assert!(got.is_empty(), "{how:?}: {got:?}");
                continue;
            }
            assert_eq!(fate, Some(ChildError::Timeout(idle)));
            let spinner = got[0][0] as i32;
            assert!(spinner > 0, "{got:?}");
            assert!(
                gone_within(spinner, Duration::from_secs(2)),
                "spinner {spinner} still runs after the child was killed"
            );
        }
    }

    /// A child whose winic is killed with SIGKILL (no watchdog left)
    /// dies too, instead of running a hanging kernel for ever.
    #[test]
    fn a_child_dies_with_winic() {
        let (rx, tx) = nix::unistd::pipe().unwrap();
        // SAFETY: the forked "winic" only runs `in_child_stream` and
        // `_exit`s; it never returns into the test harness.
        let winic = match unsafe { fork() }.unwrap() {
            ForkResult::Child => {
                let _ = in_child_stream(
                    None,
                    Duration::from_secs(60),
                    |_| {
                        let me = std::process::id().to_le_bytes();
                        let _ = nix::unistd::write(&tx, &me);
                        loop {
                            std::hint::spin_loop();
                        }
                    },
                    &mut |_| {},
                );
                // SAFETY: see `in_child`.
                unsafe { libc::_exit(0) }
            }
            ForkResult::Parent { child } => child,
        };
        drop(tx);
        let mut pid = [0u8; 4];
        let n = nix::unistd::read(&rx, &mut pid).unwrap();
        kill(winic, Signal::SIGKILL).unwrap();
        waitpid(winic, None).unwrap();
        assert_eq!(n, 4, "no pid from the measuring child");
        let child = u32::from_le_bytes(pid) as i32;
        assert!(
            gone_within(child, Duration::from_secs(2)),
            "the child {child} of a killed winic still runs"
        );
    }

    /// Recurses until the stack is gone (`black_box` keeps every frame).
    fn deep(n: u64) -> u64 {
        let pad = std::hint::black_box([n; 64]);
        if std::hint::black_box(n) == u64::MAX {
            return 0;
        }
        deep(n + 1).wrapping_add(pad[7])
    }

    #[test]
    fn a_stack_overflow_is_a_sigsegv_and_prints_nothing() {
        for stream in [false, true] {
            let path = std::env::temp_dir()
                .join(format!("winic-overflow-{}-{stream}", std::process::id()));
            let file = std::fs::File::create(&path).unwrap();
            let err = file.as_raw_fd();
            // The child's standard error goes to the file.
            let overflow = move || {
                // SAFETY: `err` is open in the child (inherited).
                unsafe { libc::dup2(err, 2) };
                deep(0)
            };
            let fate = if stream {
                in_child_stream(
                    None,
                    SHORT,
                    |_| {
                        overflow();
                    },
                    &mut |_| {},
                )
            } else {
                in_child(None, SHORT, move || vec![overflow() as f64]).err()
            };
            drop(file);
            let printed = std::fs::read_to_string(&path).unwrap();
            let _ = std::fs::remove_file(&path);
            assert_eq!(
                fate,
                Some(ChildError::Signal(nix::sys::signal::Signal::SIGSEGV)),
                "stream {stream}"
            );
            // qemu-user reports the guest's death itself ("qemu: uncaught
            // target signal 11"); nothing else may be printed.
            let printed: Vec<&str> = printed
                .lines()
                .filter(|l| !l.starts_with("qemu: "))
                .collect();
            assert!(printed.is_empty(), "stream {stream}: {printed:?}");
        }
    }

    #[test]
    fn a_pin_to_a_missing_cpu_is_reported() {
        let got = in_child(Some(CpuSet::count() - 1 + 1), SHORT, || vec![0.0]);
        assert_eq!(got, Err(ChildError::Exit(101)));
    }
}
