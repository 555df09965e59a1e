//! Stopping a long run cleanly: the first SIGINT (Ctrl-C) or SIGTERM asks
//! the run to stop; what was measured is saved and the journal kept, so
//! `--resume` goes on from there. A second one ends the process at once.
//! winic's own failures (it cannot fork, map code, or write its results)
//! stop the run the same way ([`abort`]), with the reason.
//!
//! The handler only sets a flag (async-signal-safe); the code that waits
//! on a measuring child ([`crate::exec`]) sees its `poll` interrupted,
//! reads the flag, kills the child and returns; the modes stop taking new
//! work when [`requested`] says so.

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Mutex;

static STOP: AtomicBool = AtomicBool::new(false);

/// Why winic stopped the run itself, when it did ([`abort`]).
static FAILURE: Mutex<Option<String>> = Mutex::new(None);

/// The exit status of a run stopped by a signal (128 + SIGINT, as shells
/// report it).
pub const EXIT_STATUS: u8 = 130;

/// What the second signal prints and removes ([`on_second_signal`]).
struct LastWords {
    message: Vec<u8>,
    /// The run's lock file, NUL-terminated.
    lock: std::ffi::CString,
}

/// The run's [`LastWords`], or null outside a run. Set and cleared by the
/// run, read by the handler: an atomic load is async-signal-safe, where a
/// lock is not. A replaced value is leaked (a few hundred bytes per run),
/// as a handler may still be reading it.
static LAST_WORDS: AtomicPtr<LastWords> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_signal(_: nix::libc::c_int) {
    if STOP.swap(true, Ordering::SeqCst) {
        // The second signal: the user means it. The journal holds every
        // finished form; say how to continue and remove the lock file (the
        // lock itself ends with the process). `write`, `unlink` and
        // `_exit` are async-signal-safe.
        let words = LAST_WORDS.load(Ordering::SeqCst);
        // SAFETY: a non-null pointer is a leaked, never freed `LastWords`.
        if let Some(w) = unsafe { words.as_ref() } {
            // SAFETY: plain system calls on memory that stays valid.
            unsafe {
                nix::libc::write(2, w.message.as_ptr().cast(), w.message.len());
                nix::libc::unlink(w.lock.as_ptr());
            }
        }
        // SAFETY: ends the process without running anything else.
        unsafe { nix::libc::_exit(EXIT_STATUS as i32) };
    }
}

/// What a second SIGINT or SIGTERM, which ends the run at once, prints
/// (`message`: how to resume) and which lock file it removes, until
/// [`on_second_signal_forget`].
pub fn on_second_signal(message: &str, lock: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let Ok(lock) = std::ffi::CString::new(lock.as_os_str().as_bytes()) else {
        return;
    };
    let words = Box::into_raw(Box::new(LastWords {
        message: message.as_bytes().to_vec(),
        lock,
    }));
    LAST_WORDS.store(words, Ordering::SeqCst);
}

/// The run has ended: a second signal no longer has a run to speak of.
pub fn on_second_signal_forget() {
    LAST_WORDS.store(std::ptr::null_mut(), Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM (once per run; installing
/// again is harmless).
pub fn install() -> nix::Result<()> {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
    // SA_RESTART: ordinary system calls (file writes) go on; `poll`
    // returns EINTR regardless, which is how a waiting parent notices.
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for sig in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only touches an atomic and calls `_exit`.
        unsafe { sigaction(sig, &action) }?;
    }
    Ok(())
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Stops the run because winic itself failed (not a form): every loop
/// that watches [`requested`] ends, and the run saves what it has and
/// reports `why` ([`failure`]). The first reason is kept.
pub fn abort(why: String) {
    let mut f = FAILURE.lock().unwrap_or_else(|e| e.into_inner());
    f.get_or_insert(why);
    STOP.store(true, Ordering::SeqCst);
}

/// Why winic stopped the run itself ([`abort`]), if it did.
pub fn failure() -> Option<String> {
    FAILURE.lock().unwrap_or_else(|e| e.into_inner()).clone()
}
