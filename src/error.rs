//! Failures of winic itself (bad input, unreadable files). They stop the
//! command with a message that says what was wrong and what would be valid.
//! Failures of one instruction form (unencodable, SIGILL …) are data, not
//! errors, and do not live here.

use std::fmt;

/// A failure that stops the command.
#[derive(Debug)]
pub enum Error {
    /// The user asked for something that does not exist or is malformed.
    BadInput(String),
    /// The machine or the environment cannot do what was asked.
    Unsupported(String),
    /// An I/O failure, with what was being done.
    Io(String, std::io::Error),
    /// The command ran and found a failure it reports (selfcheck
    /// mismatches).
    Failed(String),
    /// A run stopped by SIGINT or SIGTERM after saving what it had: how
    /// to go on.
    Stopped(String),
}

impl Error {
    /// The process exit code for this error: 2 for bad input (as clap
    /// uses), 3 for unsupported, 1 for I/O and reported failures, 130
    /// (128 + SIGINT, as a shell reports it) for a stopped run.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::BadInput(_) => 2,
            Error::Unsupported(_) => 3,
            Error::Io(..) | Error::Failed(_) => 1,
            Error::Stopped(_) => crate::interrupt::EXIT_STATUS as i32,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadInput(m) | Error::Unsupported(m) | Error::Failed(m) | Error::Stopped(m) => {
                f.write_str(m)
            }
            Error::Io(what, e) => write!(f, "{what}: {e}"),
        }
    }
}

impl std::error::Error for Error {}
