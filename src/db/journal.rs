//! The journal: the crash-safe record of a run in progress, from which
//! `--resume` continues it.

use super::Entry;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The crash-safe record of a run in progress: `<database>.journal`, one
/// JSON line per finished form (its name and, when it was measured, its
/// entry), appended and flushed as each form finishes. A run killed at any
/// moment loses at most the form it was measuring; `--resume` reads the
/// journal back, and a run that ends merges it into the database and
/// removes it.
pub struct Journal {
    path: PathBuf,
    out: fs::File,
}

/// One journal line.
#[derive(Serialize, Deserialize)]
struct JournalLine {
    #[serde(rename = "llvmName")]
    llvm_name: String,
    entry: Option<Entry>,
}

impl Journal {
    /// The journal of a `mode` run (`TP`, `LAT`) into `database`:
    /// `FILE.TP.journal`, one per mode, so that an interrupted run of one
    /// mode never resumes as the other.
    pub fn path_of(database: &Path, mode: &str) -> PathBuf {
        let mut p = database.as_os_str().to_owned();
        p.push(format!(".{mode}.journal"));
        PathBuf::from(p)
    }

    /// Opens the journal of `database`: with `resume`, keeps what is there
    /// and returns the names of the forms it lists and their entries;
    /// without, refuses to overwrite an existing journal (a run was
    /// interrupted: resume it or delete the file).
    pub fn open(
        database: &Path,
        mode: &str,
        resume: bool,
    ) -> Result<(Journal, Vec<String>, Vec<Entry>), Error> {
        let path = Journal::path_of(database, mode);
        let (mut names, mut entries) = (Vec::new(), Vec::new());
        if path.exists() {
            if !resume {
                return Err(Error::BadInput(format!(
                    "{} exists: an earlier run into {} was interrupted; give --resume to continue it, or delete the journal to start over",
                    path.display(),
                    database.display()
                )));
            }
            let mut text = fs::read_to_string(&path)
                .map_err(|e| Error::Io(format!("reading {}", path.display()), e))?;
            if !text.is_empty() && !text.ends_with('\n') {
                // The line a crash cut: dropped from the file too, so the
                // next line starts clean.
                text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
                fs::write(&path, &text)
                    .map_err(|e| Error::Io(format!("repairing {}", path.display()), e))?;
            }
            for (k, line) in text.lines().enumerate() {
                // A line cut by a crash is the form in progress: ignored.
                let Ok(j) = serde_json::from_str::<JournalLine>(line) else {
                    if k + 1 == text.lines().count() {
                        continue;
                    }
                    return Err(Error::BadInput(format!(
                        "{}:{}: not a journal line; delete the journal to start over",
                        path.display(),
                        k + 1
                    )));
                };
                names.push(j.llvm_name);
                entries.extend(j.entry);
            }
        }
        let out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::Io(format!("opening {}", path.display()), e))?;
        Ok((Journal { path, out }, names, entries))
    }

    /// Appends one finished form.
    pub fn record(&mut self, llvm_name: &str, entry: Option<&Entry>) -> Result<(), Error> {
        let line = serde_json::to_string(&JournalLine {
            llvm_name: llvm_name.to_string(),
            entry: entry.cloned(),
        })
        .expect("entries are plain data");
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::Io(format!("writing {}", self.path.display()), e))
    }

    /// Removes the journal (after its entries are in the saved database).
    pub fn finish(self) -> Result<(), Error> {
        fs::remove_file(&self.path)
            .map_err(|e| Error::Io(format!("removing {}", self.path.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Arch;

    #[test]
    fn a_journal_survives_an_interrupted_run_and_is_refused_without_resume() {
        let dir = std::env::temp_dir().join(format!("winic-journal-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let db = dir.join("db.yaml");
        let form = crate::isa::Isa::get(Arch::X86_64).instr("ADD64rr").unwrap();
        let mut e = Entry::for_form(form);
        e.set_throughput(0.25, 0.25);
        {
            let (mut j, names, _) = Journal::open(&db, "TP", false).unwrap();
            assert!(names.is_empty());
            j.record("ADD64rr", Some(&e)).unwrap();
            j.record("SYSCALL", None).unwrap();
        }
        // A cut last line (the crash) is ignored.
        let jp = Journal::path_of(&db, "TP");
        let mut f = fs::OpenOptions::new().append(true).open(&jp).unwrap();
        write!(f, "{{\"llvmName\":\"IMU").unwrap();
        drop(f);
        let err = Journal::open(&db, "TP", false).err().unwrap().to_string();
        assert!(err.contains("--resume"), "{err}");
        let (mut j, names, entries) = Journal::open(&db, "TP", true).unwrap();
        assert_eq!(names, ["ADD64rr", "SYSCALL"]);
        assert_eq!(entries, vec![e.clone()]);
        j.record("IMUL64rr", None).unwrap();
        drop(j);
        let (j, names, _) = Journal::open(&db, "TP", true).unwrap();
        assert_eq!(names, ["ADD64rr", "SYSCALL", "IMUL64rr"]);
        j.finish().unwrap();
        assert!(!jp.exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
