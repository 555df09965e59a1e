//! The journal: the crash-safe record of a run in progress, from which
//! `--resume` continues it.

use super::Entry;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The crash-safe record of a run in progress: `<database>.TP.journal`,
/// first the run it belongs to ([`JournalRun`]), then one JSON line per
/// finished form (its name and, when it was measured, its entry),
/// appended and flushed as each form finishes. A run killed at any moment
/// loses at most the form it was measuring; `--resume` reads the journal
/// back, and a run that ends merges it into the database and removes it.
pub struct Journal {
    path: PathBuf,
    out: fs::File,
    /// Lines of forms it holds (read back and written).
    forms: usize,
}

/// One journal line.
#[derive(Serialize, Deserialize)]
struct JournalLine {
    #[serde(rename = "llvmName")]
    llvm_name: String,
    entry: Option<Entry>,
}

/// The journal's first line.
#[derive(Serialize, Deserialize)]
struct HeaderLine {
    run: JournalRun,
}

pub use crate::raw::Run as JournalRun;

/// What an interrupted run's journal holds, for `--resume`.
#[derive(Debug, Default)]
pub struct Resumed {
    /// The forms finished (measured or not), in journal order.
    pub names: Vec<String>,
    /// The entries of those measured.
    pub entries: Vec<Entry>,
    /// What the reader did not take, for standard error: a value no
    /// measurement gives (the form is measured again), a journal of an
    /// older winic.
    pub notes: Vec<String>,
    /// Whether there was a journal: an interrupted run is continued.
    pub existed: bool,
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

    /// Opens the journal of `run` into `database`. Without `resume`,
    /// refuses an existing journal (a run was interrupted: resume it or
    /// delete the file). With it, reads what is there: a journal of
    /// another run (selection, clock, arch) is refused, naming both and
    /// how to continue it; an entry with a value no measurement gives is
    /// left out, so the form is measured again. A new journal starts with
    /// `run`.
    pub fn open(
        database: &Path,
        run: &JournalRun,
        resume: bool,
    ) -> Result<(Journal, Resumed), Error> {
        let path = Journal::path_of(database, &run.mode);
        let mut resumed = Resumed::default();
        let mut header = true;
        if path.exists() {
            if !resume {
                return Err(Error::BadInput(format!(
                    "{} exists: an earlier run into {} was interrupted; give --resume to continue it, or delete the journal to start over",
                    path.display(),
                    database.display()
                )));
            }
            let mut text = crate::input::read_at_most(&path, super::bounds::MAX_BYTES)
                .map_err(|e| Error::Io(format!("reading {}", path.display()), e))?
                .ok_or_else(|| {
                    Error::BadInput(format!(
                        "{}: more than the {} a journal may have; delete it to start over",
                        path.display(),
                        crate::input::size(super::bounds::MAX_BYTES)
                    ))
                })?;
            let cut = !text.is_empty() && !text.ends_with('\n');
            if cut {
                text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
            }
            header = text.is_empty();
            // Another run's journal is refused as it was found.
            resumed = read(&path, &text, run)?;
            resumed.existed = true;
            if cut {
                // The line a crash cut: dropped from the file too, so the
                // next line starts clean.
                fs::write(&path, &text)
                    .map_err(|e| Error::Io(format!("repairing {}", path.display()), e))?;
            }
        }
        let mut out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::Io(format!("opening {}", path.display()), e))?;
        if header {
            let line = serde_json::to_string(&HeaderLine { run: run.clone() }).expect("plain data");
            writeln!(out, "{line}")
                .and_then(|()| out.flush())
                .map_err(|e| Error::Io(format!("writing {}", path.display()), e))?;
        }
        let forms = resumed.names.len() + resumed.notes.len();
        Ok((Journal { path, out, forms }, resumed))
    }

    /// Appends one finished form.
    pub fn record(&mut self, llvm_name: &str, entry: Option<&Entry>) -> Result<(), Error> {
        let line = serde_json::to_string(&JournalLine {
            llvm_name: llvm_name.to_string(),
            entry: entry.cloned(),
        })
        .expect("entries are plain data");
        // One write for the line and its end: a kill between two leaves
        // a line that looks whole but is not ended.
        self.out
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::Io(format!("writing {}", self.path.display()), e))?;
        self.forms += 1;
        Ok(())
    }

    /// Ends a run that failed before it measured anything (a clock that
    /// cannot be measured, a report that cannot be created): a journal
    /// of no form is removed, so that the next run is not told to resume
    /// it. Returns `why`.
    pub fn abandon(self, why: Error) -> Error {
        if self.forms == 0 {
            let _ = fs::remove_file(&self.path);
        }
        why
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the journal (after its entries are in the saved database).
    pub fn finish(self) -> Result<(), Error> {
        fs::remove_file(&self.path)
            .map_err(|e| Error::Io(format!("removing {}", self.path.display()), e))
    }
}

/// The lines of the journal `path` of `run`, whose text is `text`.
fn read(path: &Path, text: &str, run: &JournalRun) -> Result<Resumed, Error> {
    let mut r = Resumed::default();
    let count = text.lines().count();
    for (k, line) in text.lines().enumerate() {
        if k == 0 {
            if let Ok(h) = serde_json::from_str::<HeaderLine>(line) {
                if h.run != *run {
                    return Err(Error::BadInput(format!(
                        "{} belongs to another run: `{}`; this one is `{}`; continue that run \
                         as it was started (`{}`), or delete the journal to start over",
                        path.display(),
                        h.run.command(),
                        run.command(),
                        h.run.resume_command(&database_of(path, &run.mode))
                    )));
                }
                continue;
            }
            r.notes.push(format!(
                "{}: written by an older winic, which did not record its run's selection: \
                 resumed as `{}`",
                path.display(),
                run.command()
            ));
        }
        // A line cut by a crash is the form in progress: ignored.
        let Ok(mut j) = serde_json::from_str::<JournalLine>(line) else {
            if k + 1 == count {
                continue;
            }
            return Err(Error::BadInput(format!(
                "{}:{}: not a journal line; delete the journal to start over",
                path.display(),
                k + 1
            )));
        };
        if let Some(e) = &mut j.entry {
            let dropped = e.drop_impossible();
            if e.llvm_name != j.llvm_name || !dropped.is_empty() {
                let why = if dropped.is_empty() {
                    format!("an entry of {}", e.llvm_name)
                } else {
                    dropped.join(", ")
                };
                r.notes.push(format!(
                    "{}:{}: {}: {why}: no measurement, measured again",
                    path.display(),
                    k + 1,
                    j.llvm_name
                ));
                continue;
            }
        }
        r.names.push(j.llvm_name);
        r.entries.extend(j.entry);
    }
    Ok(r)
}

/// The database whose `mode` journal is `journal`.
fn database_of(journal: &Path, mode: &str) -> PathBuf {
    let s = journal.as_os_str().to_string_lossy();
    PathBuf::from(s.strip_suffix(&format!(".{mode}.journal")).unwrap_or(&s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Arch;

    fn run(args: &[&str]) -> JournalRun {
        JournalRun {
            mode: "TP".into(),
            arch: "x86_64".into(),
            global: vec!["-f".into(), "3.5".into()],
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("winic-journal-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn add64(throughput: f64) -> Entry {
        let form = crate::isa::Isa::get(Arch::X86_64).instr("ADD64rr").unwrap();
        let mut e = Entry::for_form(form);
        e.set_throughput(throughput, throughput);
        e
    }

    #[test]
    fn a_journal_survives_an_interrupted_run_and_is_refused_without_resume() {
        let dir = scratch("survives");
        let db = dir.join("db.yaml");
        let e = add64(0.25);
        let r = run(&[]);
        {
            let (mut j, got) = Journal::open(&db, &r, false).unwrap();
            assert!(got.names.is_empty());
            j.record("ADD64rr", Some(&e)).unwrap();
            j.record("SYSCALL", None).unwrap();
        }
        // A cut last line (the crash) is ignored.
        let jp = Journal::path_of(&db, "TP");
        let mut f = fs::OpenOptions::new().append(true).open(&jp).unwrap();
        write!(f, "{{\"llvmName\":\"IMU").unwrap();
        drop(f);
        let err = Journal::open(&db, &r, false).err().unwrap().to_string();
        assert!(err.contains("--resume"), "{err}");
        let (mut j, got) = Journal::open(&db, &r, true).unwrap();
        assert_eq!(got.names, ["ADD64rr", "SYSCALL"]);
        assert_eq!(got.entries, vec![e.clone()]);
        assert!(got.notes.is_empty(), "{:?}", got.notes);
        j.record("IMUL64rr", None).unwrap();
        drop(j);
        let (j, got) = Journal::open(&db, &r, true).unwrap();
        assert_eq!(got.names, ["ADD64rr", "SYSCALL", "IMUL64rr"]);
        j.finish().unwrap();
        assert!(!jp.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 46, case 5: a journal of `--filter '^[A-C]'` resumed by
    /// `-i ADD64rr IMUL64rr` merged 116 forms of the other selection.
    #[test]
    fn a_journal_of_another_run_is_refused_naming_both() {
        let dir = scratch("foreign");
        let db = dir.join("j.yaml");
        let theirs = run(&["--filter", "^[A-C]"]);
        let (mut j, _) = Journal::open(&db, &theirs, false).unwrap();
        j.record("ADD64rr", Some(&add64(0.25))).unwrap();
        drop(j);
        // The run was killed writing its next line: another run refuses
        // the journal and leaves it as it was (CI under qemu once saw a
        // refusing run cut that line first).
        let jp = Journal::path_of(&db, "TP");
        let mut f = fs::OpenOptions::new().append(true).open(&jp).unwrap();
        write!(f, "{{\"llvmName\":\"IMUL64rr\"").unwrap();
        drop(f);
        let found = fs::read_to_string(&jp).unwrap();
        let ours = run(&["-i", "ADD64rr", "IMUL64rr"]);
        let mut auto = theirs.clone();
        auto.global.clear();
        let mut lat = theirs.clone();
        lat.arch = "aarch64".into();
        for other in [ours, auto, lat] {
            let err = Journal::open(&db, &other, true).err().unwrap().to_string();
            assert!(
                err.contains("belongs to another run: `winic -f 3.5 TP --filter '^[A-C]'`")
                    && err.contains(&format!("this one is `{}`", other.command()))
                    && err.contains(&format!(
                        "`winic -f 3.5 TP --resume -o {} --filter '^[A-C]'`",
                        db.display()
                    )),
                "{err}"
            );
            assert_eq!(fs::read_to_string(&jp).unwrap(), found);
        }
        // Its own run drops the cut line and goes on.
        let (_, got) = Journal::open(&db, &theirs, true).unwrap();
        assert_eq!(got.names, ["ADD64rr"]);
        assert!(fs::read_to_string(&jp).unwrap().ends_with("}\n"));
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 46, case 5: a journalled throughput of -5 or 1e308 entered
    /// the database as it was. The lines are written as an editor (or
    /// another program) would: JSON that winic's writer never makes.
    #[test]
    fn journalled_values_no_measurement_gives_are_measured_again() {
        let dir = scratch("values");
        let db = dir.join("db.yaml");
        let r = run(&[]);
        let (mut j, _) = Journal::open(&db, &r, false).unwrap();
        let mut lat = add64(0.25);
        lat.set_operand_latency("1", "0", Some((2.0, 1.0)));
        j.record("ADD64rr", Some(&lat)).unwrap();
        drop(j);
        let good = serde_json::to_string(&JournalLine {
            llvm_name: "ADD64rr".into(),
            entry: Some(add64(0.25)),
        })
        .unwrap();
        assert!(good.contains("\"throughputMax\":0.25"), "{good}");
        let with =
            |v: &str| good.replace("\"throughputMax\":0.25", &format!("\"throughputMax\":{v}"));
        let lines = [
            with("-5"),
            with("1e308"),
            with("0"),
            good.replacen(
                "\"llvmName\":\"ADD64rr\",\"name\"",
                "\"llvmName\":\"SUB64rr\",\"name\"",
                1,
            ),
            good.clone(),
        ];
        let path = Journal::path_of(&db, "TP");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        for l in &lines {
            writeln!(f, "{l}").unwrap();
        }
        drop(f);
        let got = Journal::open(&db, &r, true);
        let (_, got) = got.unwrap();
        let notes = got.notes.join("\n");
        assert_eq!(got.names, ["ADD64rr"], "{notes}");
        assert_eq!(got.entries, vec![add64(0.25)]);
        for (line, says) in [
            (2, "1 -> 0 from 2 to 1"),
            (3, "throughputMax -5"),
            (4, "throughputMax 1e308"),
            (5, "throughputMax 0"),
            (6, "an entry of SUB64rr"),
        ] {
            let at = format!("{}:{line}: ADD64rr: ", path.display());
            assert!(
                got.notes
                    .iter()
                    .any(|n| n.starts_with(&at) && n.contains(says)),
                "line {line}, {says}:\n{notes}"
            );
        }
        // A number JSON cannot hold in an f64 is no journal line at all.
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(f, "{}\n{good}", with("1e400")).unwrap();
        drop(f);
        let err = Journal::open(&db, &r, true).err().unwrap().to_string();
        assert!(err.contains(":8: not a journal line"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A journal of a winic before the header is resumed, with a note.
    #[test]
    fn a_journal_without_its_run_is_resumed_with_a_note() {
        let dir = scratch("old");
        let db = dir.join("db.yaml");
        let line = serde_json::to_string(&JournalLine {
            llvm_name: "ADD64rr".into(),
            entry: Some(add64(0.25)),
        })
        .unwrap();
        fs::write(Journal::path_of(&db, "TP"), format!("{line}\n")).unwrap();
        let (_, got) = Journal::open(&db, &run(&[]), true).unwrap();
        assert_eq!(got.names, ["ADD64rr"]);
        assert!(
            got.notes.len() == 1 && got.notes[0].contains("written by an older winic"),
            "{:?}",
            got.notes
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
