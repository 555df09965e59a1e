//! A measuring run (TP or LAT): select the forms, open the database,
//! journal and report, measure, write every result as soon as it is
//! final, and sum up. The command line hands it a plain [`Request`].

pub mod blocks;
pub mod common;
pub mod lat;
pub mod man;
pub mod ports;
pub mod reason;
mod select;
mod sink;
mod sweep;
pub mod tp;

use crate::arch::{self, variant::VectorTypes};
use crate::db::{Database, Entry, Journal, JournalRun};
use crate::error::Error;
use crate::exec::run::{self, Clock};
use crate::isa::{Arch, Isa};
use crate::raw::{Header, Raw};
use sink::Sink;
use std::path::PathBuf;
use std::sync::Arc;

pub use select::select_forms;

/// The two measuring modes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Throughput.
    Tp,
    /// Latency, per pair of operands.
    Lat,
}

impl Mode {
    /// As WINIC names it on the command line and in file names.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Tp => "TP",
            Mode::Lat => "LAT",
        }
    }
}

/// What a run is asked to do: the command line's choices, as plain data.
#[derive(Clone, Debug)]
pub struct Request {
    /// TP or LAT.
    pub mode: Mode,
    /// The arch (the host's: kernels run here).
    pub arch: Arch,
    /// Only these forms (LLVM names); all when empty.
    pub instrs: Vec<String>,
    /// Only forms whose name or mnemonic matches this regular expression.
    pub filter: Option<String>,
    /// Only forms with an opcode number at least this.
    pub min_opcode: Option<u32>,
    /// Only forms with an opcode number at most this.
    pub max_opcode: Option<u32>,
    /// The database the results are merged into.
    pub output: PathBuf,
    /// Skip the forms the mode's journal lists.
    pub resume: bool,
    /// Write a report file (in the working directory).
    pub report: bool,
    /// Measure x87 forms too.
    pub x87: bool,
    /// The core to measure on (`None`: the first allowed).
    pub cpu: Option<usize>,
    /// How time becomes cycles.
    pub clock: Clock,
    /// Configurations besides the default (RVV vector types).
    pub vector_types: VectorTypes,
    /// The command line, for the report.
    pub command: String,
    /// Where the results come from.
    pub source: Source,
}

/// Where a run's results come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Measured now; every result also goes to the raw file beside the
    /// database ([`Raw::path_of`]).
    Measure,
    /// Replayed from a raw file (`winic analyse`): nothing is measured,
    /// every conclusion is drawn again from what the file recorded.
    Replay(Arc<Raw>, Box<Header>),
}

impl Request {
    /// The run its journal belongs to: the clock and the options that
    /// choose the forms or change their values (`--core` does neither;
    /// `--vtypes` only where the arch has vector types).
    pub fn journal_run(&self) -> JournalRun {
        let (global, mut args) = run_words(self.clock, &self.instrs, self.filter.as_deref());
        if let Some(n) = self.min_opcode {
            args.extend(["--minOpcode".to_string(), n.to_string()]);
        }
        if let Some(n) = self.max_opcode {
            args.extend(["--maxOpcode".to_string(), n.to_string()]);
        }
        if self.x87 {
            args.push("--x87FP".to_string());
        }
        let every = VectorTypes::parse("all").expect("`all` parses");
        let spec = self.vector_types.spec();
        if spec != "all" && !arch::target(self.arch).variants(&every).is_empty() {
            args.extend(["--vtypes".to_string(), spec]);
        }
        JournalRun {
            mode: self.mode.name().to_string(),
            arch: self.arch.to_string(),
            global,
            args,
        }
    }
}

impl Request {
    /// The run a raw file's `header` records, replayed from `raw` into
    /// `output`: its selection, clock and arch as they were given.
    pub fn replaying(
        raw: Raw,
        header: Header,
        output: PathBuf,
        report: bool,
        command: String,
    ) -> Result<Request, Error> {
        let mode = match header.run.mode.as_str() {
            "TP" => Mode::Tp,
            "LAT" => Mode::Lat,
            m => {
                return Err(recorded_error(
                    &raw,
                    &header.run,
                    format!("mode {m:?}; this winic replays TP, LAT and ports"),
                ))
            }
        };
        let arity = |o: &str| match o {
            "-i" => Some(Arity::Many),
            "--x87FP" => Some(Arity::Flag),
            "--filter" | "--minOpcode" | "--maxOpcode" | "--vtypes" => Some(Arity::One),
            _ => None,
        };
        let recorded = Recorded::read(&raw, &header.run, &arity)?;
        let mut req = Request {
            mode,
            arch: recorded.arch,
            instrs: Vec::new(),
            filter: None,
            min_opcode: None,
            max_opcode: None,
            output,
            resume: false,
            report,
            x87: false,
            cpu: None,
            clock: recorded.clock,
            vector_types: VectorTypes::parse("all").expect("`all` parses"),
            command,
            source: Source::Measure,
        };
        for (option, values) in &recorded.options {
            let value = || values[0].clone();
            match option.as_str() {
                "-i" => req.instrs = values.clone(),
                "--filter" => req.filter = Some(value()),
                "--minOpcode" => req.min_opcode = Some(recorded.number(option, &value())?),
                "--maxOpcode" => req.max_opcode = Some(recorded.number(option, &value())?),
                "--x87FP" => req.x87 = true,
                _ => {
                    req.vector_types =
                        VectorTypes::parse(&value()).map_err(|e| recorded.bad(e.to_string()))?
                }
            }
        }
        recorded.check(&req.journal_run())?;
        req.source = Source::Replay(Arc::new(raw), Box::new(header));
        Ok(req)
    }
}

/// How many values an option of a recorded run takes.
pub(crate) enum Arity {
    /// None: a switch.
    Flag,
    /// One.
    One,
    /// Every word up to the next option.
    Many,
}

/// A raw file's run read back: its arch, clock and options (each with
/// its values), for a replay to rebuild the request from.
pub(crate) struct Recorded {
    /// The arch.
    pub arch: Arch,
    /// The clock.
    pub clock: Clock,
    /// The options in their recorded order.
    pub options: Vec<(String, Vec<String>)>,
    /// The file and the run, for errors.
    context: String,
    /// The run's command line, to check a rebuilt request against.
    command: String,
}

impl Recorded {
    /// Reads `run` of the raw file `raw`; `arity` knows the mode's
    /// options (`None`: not one of them).
    pub fn read(
        raw: &Raw,
        run: &JournalRun,
        arity: &dyn Fn(&str) -> Option<Arity>,
    ) -> Result<Recorded, Error> {
        let bad = |what: String| recorded_error(raw, run, what);
        let arch = Arch::parse(&run.arch).map_err(bad)?;
        let clock = match run.global.as_slice() {
            [] => Clock::Auto,
            [f, g] if f == "-f" => Clock::Fixed(g.parse().map_err(|_| bad(format!("-f {g}")))?),
            other => return Err(bad(format!("options {other:?}"))),
        };
        let mut options = Vec::new();
        let mut words = run.args.iter().peekable();
        while let Some(w) = words.next() {
            let values: Vec<String> = match arity(w) {
                None => return Err(bad(format!("option {w:?}"))),
                Some(Arity::Flag) => Vec::new(),
                Some(Arity::One) => {
                    let v = words
                        .next()
                        .ok_or_else(|| bad(format!("{w} without its value")))?;
                    vec![v.clone()]
                }
                Some(Arity::Many) => std::iter::from_fn(|| words.next_if(|n| !n.starts_with("--")))
                    .cloned()
                    .collect(),
            };
            options.push((w.clone(), values));
        }
        Ok(Recorded {
            arch,
            clock,
            options,
            context: format!(
                "{}: the recorded run `{}`",
                raw.path().display(),
                run.command()
            ),
            command: run.command(),
        })
    }

    /// An error about the recorded run.
    pub fn bad(&self, what: String) -> Error {
        Error::BadInput(format!("{}: {what}", self.context))
    }

    /// `value` of `option` as a number.
    pub fn number<T: std::str::FromStr>(&self, option: &str, value: &str) -> Result<T, Error> {
        value
            .parse()
            .map_err(|_| self.bad(format!("{option} {value}")))
    }

    /// Refuses a request rebuilt from it that would not record the same
    /// run (`again`: its run line).
    pub fn check(&self, again: &JournalRun) -> Result<(), Error> {
        if again.command() == self.command {
            return Ok(());
        }
        Err(self.bad(format!("read back as `{}`", again.command())))
    }
}

/// An error about the run `run` a raw file `raw` records.
fn recorded_error(raw: &Raw, run: &JournalRun, what: String) -> Error {
    Error::BadInput(format!(
        "{}: the recorded run `{}`: {what}",
        raw.path().display(),
        run.command()
    ))
}

/// What a finished run hands back to print.
#[derive(Debug)]
pub struct Finished {
    /// The summary (also the report's last section).
    pub summary: String,
    /// Lines for standard error: where the database and report are.
    pub notes: Vec<String>,
    /// How the run ended: `Ok`, or stopped (by a signal or by winic's own
    /// failure) with what was saved and how to go on.
    pub end: Result<(), Error>,
}

/// Shows a run's progress: `(label, done, total, form)`.
pub type Progress<'a> = &'a mut dyn FnMut(&str, usize, usize, &str);

/// Runs `req`: selects the forms, opens the database, journal and report,
/// measures, writes every result as soon as it is final, and sums up.
/// Stopped by SIGINT or SIGTERM, or by winic's own failure (a result that
/// cannot be written, a child that cannot be forked): what was measured
/// is saved and the journal kept, and the error says how to go on.
pub fn run(req: &Request, progress: Progress) -> Result<Finished, Error> {
    let (arch, mode, output) = (req.arch, req.mode, &req.output);
    let mut forms = select_forms(
        arch,
        &req.instrs,
        req.filter.as_deref(),
        req.min_opcode,
        req.max_opcode,
    )?;
    // One run per database, until this function returns: before the
    // database and the journal are read.
    let lock = crate::lock::RunLock::acquire(output, mode.name())?;
    let mut db = Database::load(output)?;
    let journal_run = req.journal_run();
    let (journal, resumed) = Journal::open(output, &journal_run, req.resume)?;
    for n in &resumed.notes {
        eprintln!("winic: --resume: {n}");
    }
    let (mut done, mut earlier) = (resumed.names, resumed.entries);
    let provisional = provisional(mode, &earlier);
    done.retain(|n| !provisional.contains(n));
    if let Err(e) = crate::interrupt::install() {
        let why = Error::Failed(format!("installing the SIGINT/SIGTERM handler: {e}"));
        return Err(abandon(journal, why));
    }
    let resume_command = journal_run.resume_command(output);
    crate::interrupt::on_second_signal(
        &format!(
            "winic: stopped at once by a second SIGINT or SIGTERM: {} keeps every finished form \
             (the database {} as last saved, at most 30 s before); continue with `{resume_command}`\n",
            journal.path().display(),
            output.display()
        ),
        lock.path(),
    );
    let t = arch::target(arch);
    // A run that fails before it measures leaves no journal of no form:
    // the next run would be told to resume it.
    let opts = match options_with_raw(req, t, &journal_run, resumed.existed) {
        Ok(o) => o,
        Err(e) => return Err(abandon(journal, e)),
    };
    // TP's floor: the fastest rate this core sustains, once per run.
    let floor = match mode {
        Mode::Tp => tp::floor(t, &opts),
        Mode::Lat => None,
    };
    if let Some(f) = floor {
        below_floor(f, t, journal.path(), &mut earlier, &mut done);
    }
    for e in earlier {
        merge_result(&mut db, mode, e);
    }
    let all_forms = forms.clone();
    if !done.is_empty() {
        let before = forms.len();
        forms.retain(|f| !done.iter().any(|d| d == f.name()));
        eprintln!(
            "winic: --resume: {} of {before} forms were done before ({}), {} to go",
            before - forms.len(),
            journal.path().display(),
            forms.len()
        );
    }
    let floor_line = floor_line(floor);
    let report = if req.report {
        let created = crate::report::Report::create(
            std::path::Path::new("."),
            mode.name(),
            &report_header(
                req,
                &opts,
                forms.len(),
                (mode == Mode::Tp).then_some(&floor_line),
            ),
        );
        match created {
            Ok(r) => Some(r),
            Err(e) => {
                if let Some(raw) = &opts.raw {
                    raw.abandon();
                }
                return Err(abandon(journal, e));
            }
        }
    } else {
        None
    };
    // Throughputs the database already holds: TP's helpers need not be
    // measured again (the raw file records those used; a replay uses
    // those).
    let in_db: std::collections::HashMap<String, f64> = db
        .entries
        .iter()
        .filter_map(|e| Some((e.llvm_name.clone(), e.throughput?)))
        .collect();
    let known = |name: &str| {
        let v = in_db.get(name).copied();
        match &opts.raw {
            Some(raw) => raw.known(name, v).unwrap_or_else(|e| {
                crate::interrupt::abort(format!("a result could not be written: {e}"));
                v
            }),
            None => v,
        }
    };
    let looks_before = run::second_looks();
    let mut sink = Sink::new(mode, output, db, journal, report, resume_command);
    let mut summary = measure_forms(
        req,
        &forms,
        &opts,
        (floor, &floor_line),
        &known,
        &mut sink,
        &mut *progress,
    );
    let variants = t.variants(&req.vector_types);
    if !variants.is_empty() && !crate::interrupt::requested() {
        let sweep = sweep::Sweep {
            mode,
            opts: &opts,
            x87: req.x87,
            floor,
            known: &known,
            done: &done,
        };
        let tally = sweep.run(&variants, &all_forms, &mut sink, progress);
        summary.push_str(&tally.text(variants.len()));
    }
    summary.push_str(&second_look_line(looks_before, run::second_looks()));
    let finished = sink.finish(summary).map(|mut f| {
        if let (Source::Measure, Some(raw)) = (&req.source, &opts.raw) {
            f.notes.push(format!(
                "raw results: {} (`winic analyse {} -o FILE` draws the database from them again)",
                raw.path().display(),
                raw.path().display()
            ));
        }
        f
    });
    crate::interrupt::on_second_signal_forget();
    drop(lock);
    finished
}

/// The names of TP results `earlier` journalled as an upper bound only
/// (an implicit dependency, before the helper pass that would give its
/// range): not done, a run killed between the passes measures them again.
fn provisional(mode: Mode, earlier: &[Entry]) -> std::collections::HashSet<String> {
    earlier
        .iter()
        .filter(|e| mode == Mode::Tp && e.vector_configs.is_empty())
        .filter(|e| e.throughput_min.is_none() && e.throughput_max.is_some())
        .map(|e| e.llvm_name.clone())
        .collect()
}

/// A journalled throughput faster than the core can issue (`floor`) is
/// no measurement (an edited journal, or another machine's): its form is
/// taken out of `earlier` and `done`, to be measured again, as TP holds
/// back such a value, and the journal `path` is named.
fn below_floor(
    floor: tp::Floor,
    t: &dyn arch::Target,
    path: &std::path::Path,
    earlier: &mut Vec<Entry>,
    done: &mut Vec<String>,
) {
    let f = floor;
    let access = |e: &Entry| {
        Isa::get(t.arch())
            .instr(&e.llvm_name)
            .map_or(tp::Access::default(), |i| tp::Access::of(t, i))
    };
    let below = |e: &Entry| {
        std::iter::once(&e.measured)
            .chain(e.vector_configs.iter().map(|c| &c.measured))
            .any(|m| {
                m.throughput_min
                    .or(m.throughput)
                    .is_some_and(|v| f.undercut(access(e), v).is_some())
            })
    };
    let slow: Vec<String> = earlier
        .iter()
        .filter(|e| below(e))
        .map(|e| e.llvm_name.clone())
        .collect();
    if slow.is_empty() {
        return;
    }
    eprintln!(
        "winic: --resume: {}: {} below the floor of this core ({:.3} cycles per \
         instruction), measured again: {}",
        path.display(),
        if slow.len() == 1 {
            "a throughput"
        } else {
            "throughputs"
        },
        f.cycles,
        slow.join(", ")
    );
    earlier.retain(|e| !slow.contains(&e.llvm_name));
    done.retain(|n| !slow.contains(n));
}

/// The summary's and the report's line on TP's floor.
fn floor_line(floor: Option<tp::Floor>) -> String {
    floor.map_or_else(
        || "not measured (no plausible difference: an emulator?); no value is held back".to_string(),
        |f| {
            let stores = f.stores.map_or_else(String::new, |s| {
                format!(
                    "; forms that store, more than {:.0}% below {s:.3} cycles ({} stores a cycle, \
                     a block of {})",
                    100.0 * tp::FLOOR_SLACK,
                    (1.0 / s).round(),
                    tp::STORES_PROBE
                )
            });
            let loads = loads_floor_part(
                f.loads,
                ("forms that load 16 bytes or more", "vector loads"),
                tp::LOADS_PROBE,
                "the faster kernel alone is their upper bound",
            );
            let general = loads_floor_part(
                f.general_loads,
                ("other forms that load", "general-purpose loads"),
                tp::GENERAL_LOADS_PROBE,
                "likewise",
            );
            format!(
                "{:.3} cycles per instruction (a block of independent {}); TP holds back values more \
                 than {:.0}% below it{stores}{loads}{general}",
                f.cycles,
                f.probe,
                100.0 * tp::FLOOR_SLACK
            )
        },
    )
}

/// One loads floor's part of [`floor_line`]: the forms it holds (`who.0`)
/// more than [`tp::FLOOR_SLACK`] below `floor`, the block that set it
/// and what becomes of them (`then`); or that the block of `who.1` gave
/// none.
fn loads_floor_part(floor: Option<f64>, who: (&str, &str), probe: &str, then: &str) -> String {
    floor.map_or_else(
        || {
            format!(
                "; no floor for {} (their block was not measured, or noisy)",
                who.1
            )
        },
        |l| {
            format!(
                "; {}, more than {:.0}% below {l:.3} cycles ({} a cycle, a block of {probe}): \
                 {then}",
                who.0,
                100.0 * tp::FLOOR_SLACK,
                (1.0 / l).round()
            )
        },
    )
}

/// Measures `forms` in `req`'s mode, every result into `sink`; the
/// summary. TP takes its floor (and the floor's line for the summary) and
/// `known`, the throughputs a helper need not be measured for.
fn measure_forms(
    req: &Request,
    forms: &[crate::isa::Instr],
    opts: &run::Options,
    (floor, floor_line): (Option<tp::Floor>, &str),
    known: &dyn Fn(&str) -> Option<f64>,
    sink: &mut Sink,
    progress: Progress,
) -> String {
    let (t, arch) = (arch::target(req.arch), req.arch);
    let start = std::time::Instant::now();
    match req.mode {
        Mode::Tp => {
            let mut entries = tp::Entries::default();
            let rows = tp::run(
                t,
                forms,
                opts,
                req.x87,
                floor,
                known,
                &mut labelled(progress, format!("TP {arch}")),
                &mut |row| {
                    sink.put(
                        row.form.name(),
                        crate::mode::blocks::tp_block(t, row),
                        entries.of(row),
                    )
                },
            );
            let mut s = tp::summary(&rows, start.elapsed());
            s.push_str(&format!("  floor:      {floor_line}\n"));
            s
        }
        Mode::Lat => {
            let run = lat::run(
                t,
                forms,
                opts,
                req.x87,
                &mut labelled(progress, format!("LAT {arch}")),
                &mut |row, measurements| {
                    sink.put(
                        row.form.name(),
                        crate::mode::blocks::lat_block(t, row, measurements),
                        lat::entry(row),
                    )
                },
            );
            lat::summary(&run, start.elapsed())
        }
    }
}

/// Ends a run that failed before it measured anything: no second-signal
/// message is left to speak of it, and its journal of no form goes
/// ([`Journal::abandon`]). Returns `why`.
fn abandon(journal: Journal, why: Error) -> Error {
    crate::interrupt::on_second_signal_forget();
    journal.abandon(why)
}

/// How `req` times its kernels, with its raw file: a replay's, or a new
/// one beside the database (continuing an `interrupted` run, its raw
/// file, whose results are used, not measured again).
fn options_with_raw(
    req: &Request,
    t: &dyn arch::Target,
    run: &JournalRun,
    interrupted: bool,
) -> Result<run::Options, Error> {
    if let Source::Replay(raw, header) = &req.source {
        assume_host(t, raw, header)?;
        return Ok(replay_options(req.clock, raw, header));
    }
    let mut opts = measuring_options(t, req.clock, req.cpu)?;
    let path = Raw::path_of(&req.output, req.mode.name());
    // Only an interrupted run's raw file is continued: a finished run's
    // (there is no journal) or another run's is replaced.
    let resumed = if interrupted {
        Raw::resume(&path, run).unwrap_or_else(|why| {
            eprintln!("winic: --resume: {why}: not used; this run's results replace it");
            None
        })
    } else {
        None
    };
    raw_file(t, req.arch, &path, run, &mut opts, resumed)?;
    Ok(opts)
}

/// From now on, what runs is what ran on the host `header` records
/// (x86: the CPUID features it lacked).
pub(crate) fn assume_host(t: &dyn arch::Target, raw: &Raw, header: &Header) -> Result<(), Error> {
    match &header.lacking {
        Some(lacking) => t
            .assume_lacking(lacking)
            .map_err(|why| Error::BadInput(format!("{}: its host: {why}", raw.path().display()))),
        None => Ok(()),
    }
}

/// The options of a replay of `raw`: nothing is timed, so only the clock
/// and the run's fallback frequency matter.
pub(crate) fn replay_options(clock: Clock, raw: &Arc<Raw>, header: &Header) -> run::Options {
    run::Options {
        clock,
        cpu: None,
        plan: crate::measure::Plan::fast(),
        fallback_ghz: header.ghz,
        raw: Some(raw.clone()),
        ..run::Options::default()
    }
}

/// The header of a raw file of `run`, measured now on this `arch` host
/// (`ghz`: the clock measured at the start).
pub(crate) fn raw_header(
    t: &dyn arch::Target,
    arch: Arch,
    run: JournalRun,
    ghz: Option<f64>,
) -> Header {
    let cpu = crate::report::cpu_name(arch);
    Header::new(
        run,
        t.cpu_identity()
            .map_or(cpu.clone(), |id| format!("{cpu} ({id})")),
        ghz,
        t.lacking_features(),
    )
}

/// The words a run's line begins with: `-f GHz` (with a fixed clock),
/// then `-i` with the names sorted and `--filter`; the mode adds its own.
pub(crate) fn run_words(
    clock: Clock,
    instrs: &[String],
    filter: Option<&str>,
) -> (Vec<String>, Vec<String>) {
    let mut global = Vec::new();
    if let Clock::Fixed(g) = clock {
        global = vec!["-f".to_string(), format!("{g}")];
    }
    let mut args = Vec::new();
    if !instrs.is_empty() {
        let mut names = instrs.to_vec();
        names.sort();
        names.dedup();
        args.push("-i".to_string());
        args.extend(names);
    }
    if let Some(f) = filter {
        args.extend(["--filter".to_string(), f.to_string()]);
    }
    (global, args)
}

/// Gives `opts` its run's raw file at `path`: the interrupted run's
/// (`resumed`), whose results are used, said on standard error; else a
/// new one of `run` on this `arch` host, headed by the clock `opts`
/// measured at the start. A resumed run converts with the clock its
/// interrupted run started at, as a replay does: a recorded body whose
/// own calibration gave nothing was converted with that clock, and the
/// clock measured now (another moment, another load) gave a `ports`
/// run's resume other cycles than the run it continued (CI, 2026-12-02:
/// a line split 0.48 against 0.53).
pub(crate) fn raw_file(
    t: &dyn arch::Target,
    arch: Arch,
    path: &std::path::Path,
    run: &JournalRun,
    opts: &mut run::Options,
    resumed: Option<(Raw, Header)>,
) -> Result<(), Error> {
    let raw = match resumed {
        Some((raw, header)) => {
            eprintln!(
                "winic: --resume: {}: {} results of the interrupted run are used, not measured again",
                path.display(),
                raw.recorded()
            );
            opts.fallback_ghz = header.ghz.or(opts.fallback_ghz);
            raw
        }
        None => Raw::create(path, &raw_header(t, arch, run.clone(), opts.fallback_ghz))?,
    };
    opts.raw = Some(Arc::new(raw));
    Ok(())
}

/// How a measuring command times its kernels: `clock`, on `cpu` (`None`:
/// the first this process may use). With `-f auto`, the clock is measured
/// once first: a clock that cannot be measured is a property of the
/// machine, not of each form, and is said once, before anything is
/// measured.
pub(crate) fn measuring_options(
    t: &dyn arch::Target,
    clock: Clock,
    cpu: Option<usize>,
) -> Result<run::Options, Error> {
    let mut opts = run::Options {
        clock,
        cpu: cpu.or_else(run::default_cpu),
        plan: crate::measure::Plan::fast(),
        ..run::Options::default()
    };
    if clock == Clock::Auto {
        let g = run::check_clock(t, &opts).map_err(|why| {
            Error::Unsupported(format!(
                "the clock cannot be measured by timing on this machine ({why}): an emulator such as \
                 qemu-user, whose timings mean nothing? Give the frequency with -f GHz (under an \
                 emulator any value, e.g. -f 1) to run anyway"
            ))
        })?;
        opts.fallback_ghz = Some(g);
    }
    Ok(opts)
}

/// The summary's line on the second looks of the run's batches
/// ([`run::batch_costs`]), from the counts before and after it; empty when
/// no body wanted one.
fn second_look_line(before: (usize, usize, usize), after: (usize, usize, usize)) -> String {
    let (wanted, retried, improved) = (after.0 - before.0, after.1 - before.1, after.2 - before.2);
    if wanted == 0 {
        return String::new();
    }
    let rest = if retried < wanted {
        format!(
            "; {} kept their first values: a second look changed too few (the core's other \
             hardware thread stayed busy)",
            wanted - retried
        )
    } else {
        String::new()
    };
    format!(
        "  second look: {wanted} bodies wanted one (noisy, or judged by a probe that later \
         proved slow), {retried} got it, {improved} changed by it (each kernel's fastest time of \
         both looks){rest}\n"
    )
}

/// The report's header lines.
fn report_header(
    req: &Request,
    opts: &run::Options,
    forms: usize,
    floor: Option<&String>,
) -> Vec<(&'static str, String)> {
    let t = arch::target(req.arch);
    let frequency = match req.clock {
        Clock::Auto => format!(
            "auto (dependent adds, timed right after every kernel in every round, so that each is \
             converted at the clock it left the core in; {:.3} GHz at the start)",
            opts.fallback_ghz.unwrap_or(0.0)
        ),
        Clock::Fixed(g) => format!(
            "{g} GHz (given; dependent adds are still timed after every kernel, and a kernel that \
             ran more than 5% off it is flagged)"
        ),
    };
    let mode = match req.mode {
        Mode::Tp => "Throughput",
        Mode::Lat => "Latency",
    };
    [
        ("Timestamp", crate::report::timestamp()),
        ("Command", req.command.clone()),
        ("Frequency", frequency),
        (
            "Arch",
            format!("{} ({})", req.arch, crate::report::cpu_name(req.arch)),
        ),
        ("Mode", mode.into()),
        ("Forms", forms.to_string()),
    ]
    .into_iter()
    .chain(floor.map(|f| ("Floor", f.clone())))
    .chain(crate::probe::host_report(t))
    .collect()
}

/// Merges one result of `mode` into `db`: a form's own values, or (RVV)
/// its values at other vector types, carried in `vector_configs`.
fn merge_result(db: &mut Database, mode: Mode, mut e: Entry) {
    if e.vector_configs.is_empty() {
        match mode {
            Mode::Tp => db.merge_throughput(e),
            Mode::Lat => db.merge_latency(e),
        }
        return;
    }
    let configs = std::mem::take(&mut e.vector_configs);
    let base = Entry {
        measured: Default::default(),
        ..e
    };
    for c in configs {
        db.merge_vector_config(base.clone(), c, mode == Mode::Lat);
    }
}

/// `progress` with its label fixed, as the modes call it.
fn labelled<'a>(progress: Progress<'a>, label: String) -> impl FnMut(usize, usize, &str) + 'a {
    move |done, total, name| progress(&label, done, total, name)
}

#[cfg(test)]
mod tests {
    use super::second_look_line;

    /// A resumed run takes the clock its interrupted run started at, from
    /// the raw file's header; a new run heads its raw file with the one
    /// measured now and keeps it.
    #[test]
    fn a_resumed_run_converts_with_its_first_clock() {
        use crate::isa::Arch;
        use crate::raw::{Header, Raw};
        let dir = std::env::temp_dir().join(format!("winic-continue-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let run = crate::raw::Run {
            mode: "TP".into(),
            arch: "x86_64".into(),
            global: Vec::new(),
            args: vec!["-i".into(), "ADD64rr".into()],
        };
        let t = crate::arch::target(Arch::X86_64);
        let options = || super::run::Options {
            fallback_ghz: Some(4.2),
            ..super::run::Options::default()
        };
        let (old, new) = (dir.join("old.raw"), dir.join("new.raw"));
        drop(
            Raw::create(
                &old,
                &Header::new(run.clone(), "cpu".into(), Some(3.1), None),
            )
            .unwrap(),
        );
        let mut opts = options();
        super::raw_file(
            t,
            Arch::X86_64,
            &old,
            &run,
            &mut opts,
            Some(Raw::replay(&old).unwrap()),
        )
        .unwrap();
        assert_eq!(opts.fallback_ghz, Some(3.1));
        assert!(opts.raw.is_some());
        let mut opts = options();
        super::raw_file(t, Arch::X86_64, &new, &run, &mut opts, None).unwrap();
        assert_eq!(opts.fallback_ghz, Some(4.2));
        drop(opts);
        assert_eq!(Raw::replay(&new).unwrap().1.ghz, Some(4.2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The summary counts only this run's second looks, and says why
    /// some forms kept their first values only when some did.
    #[test]
    fn second_look_line_counts_this_run_and_says_what_was_left() {
        assert_eq!(second_look_line((5, 5, 1), (5, 5, 1)), "");
        let all = second_look_line((5, 5, 1), (105, 105, 40));
        assert!(all.contains("100 bodies wanted one"), "{all}");
        assert!(all.contains("100 got it, 39 changed by it"), "{all}");
        assert!(!all.contains("kept"), "{all}");
        let cut = second_look_line((0, 0, 0), (9904, 256, 6));
        assert!(cut.contains("9648 kept their first values"), "{cut}");
    }
}
