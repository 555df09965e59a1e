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

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static STOP: AtomicBool = AtomicBool::new(false);

/// Why winic stopped the run itself, when it did ([`abort`]).
static FAILURE: Mutex<Option<String>> = Mutex::new(None);

/// The exit status of a run stopped by a signal (128 + SIGINT, as shells
/// report it).
pub const EXIT_STATUS: u8 = 130;

extern "C" fn on_signal(_: nix::libc::c_int) {
    if STOP.swap(true, Ordering::SeqCst) {
        // The second signal: the user means it. `_exit` is
        // async-signal-safe; the journal holds every finished form.
        // SAFETY: ends the process without running anything else.
        unsafe { nix::libc::_exit(EXIT_STATUS as i32) };
    }
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
