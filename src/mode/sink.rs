//! Where a run's results go, each as soon as it is final: the report (a
//! block of text), the journal (one line, flushed) and the database
//! (merged in memory, saved atomically every 30 s and at the end). A
//! result that cannot be written stops the run at once: measuring on
//! would produce values nobody keeps.

use super::{merge_result, Finished, Mode};
use crate::db::{Database, Entry, Journal};
use crate::error::Error;
use crate::report::Report;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often the database is saved during a run.
const SAVE_EVERY: Duration = Duration::from_secs(30);

pub(super) struct Sink {
    mode: Mode,
    output: PathBuf,
    db: Database,
    journal: Journal,
    report: Option<Report>,
    last_save: Instant,
    /// The first write that failed; the run was stopped for it.
    error: Option<Error>,
    /// The command that continues the run (its journal's).
    resume: String,
}

impl Sink {
    pub(super) fn new(
        mode: Mode,
        output: &std::path::Path,
        db: Database,
        journal: Journal,
        report: Option<Report>,
        resume: String,
    ) -> Sink {
        Sink {
            resume,
            mode,
            output: output.to_path_buf(),
            db,
            journal,
            report,
            last_save: Instant::now(),
            error: None,
        }
    }

    /// Writes one result everywhere: `block` to the report, `entry` (if
    /// any) to the journal under `name` and into the database. After a
    /// failed write nothing more is written, and the run is asked to stop.
    pub(super) fn put(&mut self, name: &str, block: String, entry: Option<Entry>) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write(name, &block, entry) {
            crate::interrupt::abort(format!("a result could not be written: {e}"));
            self.error = Some(e);
        }
    }

    fn write(&mut self, name: &str, block: &str, entry: Option<Entry>) -> Result<(), Error> {
        if let Some(r) = self.report.as_mut() {
            r.append(block)?;
        }
        self.journal.record(name, entry.as_ref())?;
        if let Some(e) = entry {
            merge_result(&mut self.db, self.mode, e);
        }
        if self.last_save.elapsed() > SAVE_EVERY {
            self.db.save(&self.output)?;
            self.last_save = Instant::now();
        }
        Ok(())
    }

    /// Ends the run: the summary goes to the report, the database is
    /// saved, and the journal is removed when the run completed. A run
    /// stopped by a signal or by winic's own failure keeps its journal;
    /// its [`Finished::end`] is the error, which says how to go on.
    pub(super) fn finish(mut self, mut summary: String) -> Result<Finished, Error> {
        if let Some(e) = self.error.take() {
            // The journal holds every result written before the failure;
            // the database may be what failed.
            let saved = self.db.save(&self.output);
            return Err(Error::Failed(format!(
                "a result could not be written, so the run stopped: {e}; {}",
                self.how_to_go_on(saved.err())
            )));
        }
        let failure = crate::interrupt::failure();
        let stopped = crate::interrupt::requested();
        if stopped {
            summary.push_str(if failure.is_some() {
                "  STOPPED by a failure of winic itself: the counts above are of the forms finished until then\n"
            } else {
                "  STOPPED by SIGINT or SIGTERM: the counts above are of the forms finished until then\n"
            });
        }
        // A write that fails from here on (a full disk) still leaves the
        // journal: the error says how to go on.
        let written = match &mut self.report {
            Some(r) => r.append(&format!("-----Summary-----\n{summary}")),
            None => Ok(()),
        }
        .and_then(|()| self.db.save(&self.output));
        if let Err(e) = written {
            let saved = self.db.save(&self.output);
            // What stopped the run first (a raw result that could not be
            // written) comes first.
            let first = failure.map_or(String::new(), |why| format!("{why}; "));
            return Err(Error::Failed(format!(
                "{first}the run's end could not be written: {e}; {}",
                self.how_to_go_on(saved.err())
            )));
        }
        let mut notes = vec![format!(
            "database: {} ({} entries)",
            self.output.display(),
            self.db.entries.len()
        )];
        if let Some(r) = &self.report {
            notes.push(format!("report: {}", r.path().display()));
        }
        let end = match (stopped, failure) {
            (_, Some(why)) => Err(Error::Failed(format!("{why}; {}", self.how_to_go_on(None)))),
            (true, None) => Err(Error::Stopped(format!(
                "stopped by SIGINT or SIGTERM: {}",
                self.how_to_go_on(None)
            ))),
            (false, None) => Ok(()),
        };
        if !stopped {
            self.journal.finish()?;
        }
        Ok(Finished {
            summary,
            notes,
            end,
        })
    }

    /// Where the results are and the command that continues the run;
    /// `unsaved`: why the database could not be saved.
    fn how_to_go_on(&self, unsaved: Option<Error>) -> String {
        let (db, journal) = (self.output.display(), self.journal.path().display());
        match unsaved {
            None => format!(
                "what was measured is saved in {db} and its journal {journal}; continue with \
                 `{}`",
                self.resume
            ),
            Some(e) => format!(
                "the database {db} could not be saved either ({e}), but its journal {journal} \
                 keeps every finished form: make room (or fix the cause), then continue with \
                 `{}`",
                self.resume
            ),
        }
    }
}
