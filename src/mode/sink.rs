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
}

impl Sink {
    pub(super) fn new(
        mode: Mode,
        output: &std::path::Path,
        db: Database,
        journal: Journal,
        report: Option<Report>,
    ) -> Sink {
        Sink {
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
        let (mode, output) = (self.mode.name(), &self.output);
        let resume = format!(
            "what was measured is saved in {} and its journal {}; continue with `winic {mode} \
             --resume -o {}` (with the same form selection)",
            output.display(),
            Journal::path_of(output, mode).display(),
            output.display()
        );
        if let Some(e) = self.error.take() {
            // The journal holds every result written before the failure;
            // the database may be what failed.
            return match self.db.save(output) {
                Ok(()) => Err(Error::Failed(format!(
                    "a result could not be written, so the run stopped: {e}; {resume}"
                ))),
                Err(_) => Err(e),
            };
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
        if let Some(r) = &mut self.report {
            r.append(&format!("-----Summary-----\n{summary}"))?;
        }
        self.db.save(output)?;
        if !stopped {
            self.journal.finish()?;
        }
        let mut notes = vec![format!(
            "database: {} ({} entries)",
            output.display(),
            self.db.entries.len()
        )];
        if let Some(r) = &self.report {
            notes.push(format!("report: {}", r.path().display()));
        }
        let end = match (stopped, failure) {
            (_, Some(why)) => Err(Error::Failed(format!("{why}; {resume}"))),
            (true, None) => Err(Error::Stopped(format!(
                "stopped by SIGINT or SIGTERM: {resume}"
            ))),
            (false, None) => Ok(()),
        };
        Ok(Finished {
            summary,
            notes,
            end,
        })
    }
}
