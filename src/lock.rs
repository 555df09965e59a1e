//! One writer per database: a TP or LAT run holds an advisory lock
//! (`flock`) on `FILE.lock` beside its database `FILE` from before it opens
//! the database and journal until it ends. A second run on the same file
//! fails at once, naming the run that holds it; without the lock, TP and
//! LAT started together both ran and the second to save silently dropped
//! the first's values, and a second TP run called the running one's
//! journal "interrupted".
//!
//! The lock file holds the holder's PID, mode and start time as text, for
//! that message. The kernel releases a `flock` when its holder dies, so the
//! file of a killed run is stale: the next run takes it over, with a note.
//! A run that ends removes the file (while still holding the lock).

use crate::error::Error;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The lock of a run on one database; released (and its file removed)
/// when dropped.
pub struct RunLock {
    path: PathBuf,
    /// `None` where the file system has no `flock` (then nothing is
    /// detected, as before, and the file is left alone).
    file: Option<Flock<File>>,
}

impl RunLock {
    /// The lock file of `database`: `FILE.lock`.
    pub fn path_of(database: &Path) -> PathBuf {
        let mut p = database.as_os_str().to_owned();
        p.push(".lock");
        PathBuf::from(p)
    }

    /// Takes the lock of `database` for a run of `mode` (`TP`, `LAT`), or
    /// fails with [`Error::BadInput`] naming the run that holds it.
    pub fn acquire(database: &Path, mode: &str) -> Result<RunLock, Error> {
        let path = RunLock::path_of(database);
        let io = |what: &str, e: std::io::Error| Error::Io(format!("{what} {}", path.display()), e);
        loop {
            let file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| io("opening the lock file", e))?;
            let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(f) => f,
                Err((mut file, Errno::EWOULDBLOCK)) => {
                    let holder = holder(&read(&mut file));
                    return Err(Error::BadInput(format!(
                        "{db} is in use: {holder} is writing to it, and a second run would \
                         overwrite its results; wait for it to end, stop it{stop}, or give \
                         another database with -o (the lock is {lock})",
                        db = database.display(),
                        stop = holder_pid(&read(&mut file))
                            .map(|p| format!(" (kill {p}: its journal keeps what it measured)"))
                            .unwrap_or_default(),
                        lock = path.display(),
                    )));
                }
                Err((_, e @ (Errno::ENOLCK | Errno::EOPNOTSUPP | Errno::ENOSYS))) => {
                    eprintln!(
                        "winic: cannot lock {} ({e}): another run into {} would not be noticed",
                        path.display(),
                        database.display()
                    );
                    return Ok(RunLock { path, file: None });
                }
                Err((_, e)) => return Err(io("locking", e.into())),
            };
            // The run that held it may have removed the file between our
            // open and our lock (it ends that way): then this lock is on a
            // file no other run will open. Start over.
            if !same_file(&file, &path) {
                continue;
            }
            let stale = read(&mut file);
            if !stale.trim().is_empty() {
                eprintln!(
                    "winic: taking over {}, left by {} that ended without removing it (killed?)",
                    path.display(),
                    holder(&stale)
                );
            }
            let text = format!(
                "pid {}\nmode {mode}\nsince {}\n",
                std::process::id(),
                since()
            );
            file.set_len(0)
                .and_then(|()| file.rewind())
                .and_then(|()| file.write_all(text.as_bytes()))
                .map_err(|e| io("writing the lock file", e))?;
            return Ok(RunLock {
                path,
                file: Some(file),
            });
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Removed while locked, so that no run can lock this file after
            // it is gone (a run that opened it before checks, and retries).
            let _ = fs::remove_file(&self.path);
            drop(file);
        }
    }
}

/// The text of the lock file (empty when it cannot be read).
fn read(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.rewind().and_then(|()| file.read_to_string(&mut text));
    text
}

/// The value of `key` in the lock file's text.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then_some(v.trim())
    })
}

fn holder_pid(text: &str) -> Option<&str> {
    field(text, "pid")
}

/// The run a lock file's text describes: `winic TP (PID 12, since ...)`.
fn holder(text: &str) -> String {
    match (
        field(text, "pid"),
        field(text, "mode"),
        field(text, "since"),
    ) {
        (Some(pid), Some(mode), Some(since)) => {
            format!("winic {mode} (PID {pid}, since {since})")
        }
        // Locked a moment ago, not written yet, or not ours.
        _ => "another winic run".into(),
    }
}

/// Whether `file` is still the file at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Now, as `2026-11-30 12:00:00 UTC`.
fn since() -> String {
    let t = crate::report::timestamp();
    match t.split_once('_') {
        Some((day, time)) => format!("{day} {} UTC", time.replace('-', ":")),
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::signal::{kill, Signal};
    use nix::sys::wait::waitpid;
    use nix::unistd::{fork, ForkResult};

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("winic-lock-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_second_run_on_the_same_database_fails_naming_the_first() {
        let dir = scratch("second");
        let db = dir.join("x.yaml");
        let first = RunLock::acquire(&db, "TP").unwrap();
        assert_eq!(first.path(), dir.join("x.yaml.lock"));
        let text = fs::read_to_string(first.path()).unwrap();
        assert!(
            text.starts_with(&format!("pid {}\nmode TP\nsince 20", std::process::id())),
            "{text}"
        );
        // A second open file description, as a second process has.
        let err = RunLock::acquire(&db, "LAT").err().unwrap();
        assert!(matches!(err, Error::BadInput(_)), "{err:?}");
        let msg = err.to_string();
        let pid = std::process::id();
        assert!(
            msg.starts_with(&format!(
                "{} is in use: winic TP (PID {pid}, since 20",
                db.display()
            )) && msg.contains(&format!("kill {pid}"))
                && msg.contains("another database with -o"),
            "{msg}"
        );
        // The failed attempt changed nothing.
        assert_eq!(fs::read_to_string(first.path()).unwrap(), text);
        // Another database is another lock.
        let other = RunLock::acquire(&dir.join("y.yaml"), "LAT").unwrap();
        drop(other);
        drop(first);
        assert!(!dir.join("x.yaml.lock").exists());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        drop(RunLock::acquire(&db, "LAT").unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_lock_of_a_killed_run_is_taken_over() {
        let dir = scratch("killed");
        let db = dir.join("x.yaml");
        // A file no one holds (its run is gone): taken over.
        fs::write(
            RunLock::path_of(&db),
            "pid 999999\nmode LAT\nsince 2026-01-01 00:00:00 UTC\n",
        )
        .unwrap();
        let lock = RunLock::acquire(&db, "TP").unwrap();
        let text = fs::read_to_string(lock.path()).unwrap();
        assert!(
            text.starts_with(&format!("pid {}\nmode TP\n", std::process::id())),
            "{text}"
        );
        drop(lock);
        // A run (a forked child) that holds it and is killed: the kernel
        // releases its lock, the file stays, the next run takes it over.
        let (rx, tx) = nix::unistd::pipe().unwrap();
        // SAFETY: the child takes the lock, reports, and waits to be
        // killed; it never returns into the test harness.
        match unsafe { fork() }.unwrap() {
            ForkResult::Child => {
                let status = match RunLock::acquire(&db, "LAT") {
                    Ok(lock) => {
                        let _ = nix::unistd::write(&tx, b"1");
                        std::mem::forget(lock);
                        loop {
                            nix::unistd::pause();
                        }
                    }
                    Err(_) => 1,
                };
                // SAFETY: ends the child without touching the parent's state.
                unsafe { nix::libc::_exit(status) }
            }
            ForkResult::Parent { child } => {
                drop(tx);
                let mut got = [0u8; 1];
                let n = nix::unistd::read(&rx, &mut got).unwrap();
                let held = RunLock::acquire(&db, "TP").err().map(|e| e.to_string());
                let _ = kill(child, Signal::SIGKILL);
                waitpid(child, None).unwrap();
                assert_eq!(n, 1, "the child could not take the lock");
                let held = held.expect("the child's lock was not seen");
                assert!(
                    held.contains(&format!("winic LAT (PID {child}, since ")),
                    "{held}"
                );
                assert!(RunLock::path_of(&db).exists());
                let lock = RunLock::acquire(&db, "TP").unwrap();
                let text = fs::read_to_string(lock.path()).unwrap();
                assert!(
                    text.starts_with(&format!("pid {}\n", std::process::id())),
                    "{text}"
                );
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lock_on_a_removed_file_is_no_lock() {
        let dir = scratch("removed");
        let path = dir.join("x.yaml.lock");
        let file = File::create(&path).unwrap();
        assert!(same_file(&file, &path));
        fs::remove_file(&path).unwrap();
        assert!(!same_file(&file, &path));
        File::create(&path).unwrap();
        assert!(!same_file(&file, &path));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_lock_file_not_written_yet_names_another_run() {
        assert_eq!(holder(""), "another winic run");
        assert_eq!(
            holder("pid 7\nmode LAT\nsince 2026-01-01 00:00:00 UTC\n"),
            "winic LAT (PID 7, since 2026-01-01 00:00:00 UTC)"
        );
        assert!(
            since().ends_with(" UTC") && since().len() == 23,
            "{}",
            since()
        );
    }
}
