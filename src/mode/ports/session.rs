//! A `winic ports` command whole: the references and the database read
//! first (a bad file is refused before anything is measured, and no other
//! run writes the database meanwhile), the raw file, the measuring or
//! its replay, the text, and the inferred ports written.

use super::Conflicts;
use crate::db::JournalRun;
use crate::error::Error;
use crate::exec::run::{Clock, Options};
use crate::isa::Arch;
use crate::mode::{Arity, Recorded, Source};
use crate::raw::{Header, Raw};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `winic ports` is asked to do: the command line's choices.
#[derive(Clone, Debug)]
pub struct PortsRequest {
    /// The arch (the host's: kernels run here).
    pub arch: Arch,
    /// The forms (LLVM names).
    pub instrs: Vec<String>,
    /// Forms whose name or mnemonic matches this regular expression.
    pub filter: Option<String>,
    /// In a full run: forms in every pair.
    pub seed: usize,
    /// Mixes of three fitted forms measured after the fit.
    pub held_back: usize,
    /// The core to measure on.
    pub cpu: Option<usize>,
    /// How time becomes cycles.
    pub clock: Clock,
    /// OSACA machine files to compare the fit with.
    pub compare: Vec<PathBuf>,
    /// The database the inferred ports go into.
    pub output: Option<PathBuf>,
    /// Continue from the raw file of an interrupted run.
    pub resume: bool,
    /// Where the results come from.
    pub source: Source,
}

impl PortsRequest {
    /// The run as its raw file names it: the clock and the options that
    /// choose the forms or the experiments (not `--core`, `--compare` or
    /// `-o`, which change no measurement).
    pub fn run_line(&self) -> JournalRun {
        let (global, mut args) =
            crate::mode::run_words(self.clock, &self.instrs, self.filter.as_deref());
        args.extend(["--seed".to_string(), self.seed.to_string()]);
        args.extend(["--held-back".to_string(), self.held_back.to_string()]);
        JournalRun {
            mode: "ports".into(),
            arch: self.arch.to_string(),
            global,
            args,
        }
    }

    /// The `ports` run a raw file's `header` records, replayed from
    /// `raw`: its forms, seed and held-back mixes as they were given;
    /// `compare` and `output` as for a run.
    pub fn replaying(
        raw: Raw,
        header: Header,
        compare: Vec<PathBuf>,
        output: Option<PathBuf>,
    ) -> Result<PortsRequest, Error> {
        let arity = |o: &str| match o {
            "-i" => Some(Arity::Many),
            "--filter" | "--seed" | "--held-back" => Some(Arity::One),
            _ => None,
        };
        let recorded = Recorded::read(&raw, &header.run, &arity)?;
        let mut req = PortsRequest {
            arch: recorded.arch,
            instrs: Vec::new(),
            filter: None,
            seed: 0,
            held_back: 0,
            cpu: None,
            clock: recorded.clock,
            compare,
            output,
            resume: false,
            source: Source::Measure,
        };
        for (option, values) in &recorded.options {
            match option.as_str() {
                "-i" => req.instrs = values.clone(),
                "--filter" => req.filter = Some(values[0].clone()),
                "--seed" => req.seed = recorded.number(option, &values[0])?,
                _ => req.held_back = recorded.number(option, &values[0])?,
            }
        }
        recorded.check(&req.run_line())?;
        req.source = Source::Replay(Arc::new(raw), Box::new(header));
        Ok(req)
    }
}

/// The raw file of a `ports` run into `output` (`FILE.ports.raw`), or in
/// the working directory (`ports.raw`) without one.
pub fn raw_path(output: Option<&Path>) -> PathBuf {
    match output {
        Some(db) => Raw::path_of(db, "ports"),
        None => PathBuf::from("ports.raw"),
    }
}

/// Runs `req`: its text (the experiments, the fit, the comparisons, the
/// held-back mixes, what was written), to print.
pub fn run(req: &PortsRequest, progress: &mut dyn FnMut(usize, usize)) -> Result<String, Error> {
    let arch = req.arch;
    let references = req
        .compare
        .iter()
        .map(|p| crate::export::PortReference::load(p, arch, "--compare"))
        .collect::<Result<Vec<_>, _>>()?;
    let database = match &req.output {
        Some(path) => Some((
            crate::lock::RunLock::acquire(path, "ports")?,
            crate::db::Database::load(path)?,
        )),
        None => None,
    };
    // A selection that is refused leaves no raw file behind.
    let selected = super::forms(arch, &req.instrs, req.filter.as_deref())?;
    let t = crate::arch::target(arch);
    let (opts, raw_note) = options(req, t)?;
    let found = super::measure(t, &opts, &selected, req.seed, req.held_back, progress);
    let units = super::memory::measure(t, &selected, &opts);
    // The memory experiments go on with the same display: on a busy
    // Xeon guest they took ten minutes of a full run.
    let splits = super::split::measure(t, &selected, &opts, progress);
    let repeats = super::repeat::measure(t, &selected, &opts, progress);
    let accesses = units
        .as_ref()
        .and_then(|u| super::memmix::Accesses::of(u, splits.as_ref()));
    let operations = accesses
        .as_ref()
        .and_then(|a| super::operation::measure(t, &found, a, &selected, &opts, progress));
    let memory_mixes = units.as_ref().zip(accesses.as_ref()).and_then(|(u, a)| {
        super::memmix::measure(
            t,
            &found,
            u,
            a,
            operations.as_ref(),
            &selected,
            req.held_back,
            &opts,
            progress,
        )
    });
    let forms: Vec<_> = found.singles.iter().map(|s| s.form).collect();
    let compared: Vec<(String, Vec<Option<Vec<String>>>)> = req
        .compare
        .iter()
        .zip(&references)
        .map(|(path, r)| (path.display().to_string(), r.single_uop_ports(&forms)))
        .collect();
    let compare: Vec<(&str, &[Option<Vec<String>>])> = compared
        .iter()
        .map(|(l, r)| (l.as_str(), r.as_slice()))
        .collect();
    let mut text = found.render(&compare);
    if let Some(u) = &units {
        text.push_str(&u.render());
    }
    if let Some(s) = &splits {
        text.push_str(&s.render());
    }
    if let Some(r) = &repeats {
        text.push_str(&r.render());
    }
    if let Some(o) = &operations {
        text.push_str(&o.render(&found));
    }
    if let Some(m) = &memory_mixes {
        let db = database.as_ref().map(|d| &d.1);
        let throughput = |f: crate::isa::Instr| db?.get(f.name())?.throughput;
        text.push_str(&m.render(&found, &throughput));
    }
    if let (Some(path), Some((_lock, db))) = (&req.output, database) {
        text.push_str(&write_ports(
            &found,
            units.as_ref(),
            splits.as_ref(),
            repeats.as_ref(),
            operations.as_ref(),
            path,
            db,
        )?);
    }
    text.push_str(&raw_note);
    Ok(text)
}

/// The measuring options of `req` with its raw file (a replay's; with
/// `--resume`, the interrupted run's; else a new one), and the line that
/// names the file.
fn options(req: &PortsRequest, t: &dyn crate::arch::Target) -> Result<(Options, String), Error> {
    let run = req.run_line();
    if let Source::Replay(raw, header) = &req.source {
        super::super::assume_host(t, raw, header)?;
        let opts = super::super::replay_options(req.clock, raw, header);
        return Ok((opts, String::new()));
    }
    let mut opts = super::super::measuring_options(t, req.clock, req.cpu)?;
    let path = raw_path(req.output.as_deref());
    let resumed = if req.resume {
        match Raw::resume(&path, &run) {
            Ok(r) => r,
            Err(why) => return Err(Error::BadInput(format!("--resume: {why}, not this one"))),
        }
    } else {
        None
    };
    crate::mode::raw_file(t, req.arch, &path, &run, &mut opts, resumed)?;
    let note = format!(
        "raw results: {} (`winic analyse {}` draws this from them again; `--resume` continues \
         an interrupted run)\n",
        path.display(),
        path.display()
    );
    Ok((opts, note))
}

/// Writes the inferred ports of `found` and of the loads and stores
/// (`units`), and the line-split throughputs (`splits`), into the
/// database `db` at `path`: what was written, as a line.
fn write_ports(
    found: &Conflicts,
    units: Option<&super::memory::Units>,
    splits: Option<&super::split::LineSplits>,
    repeats: Option<&super::repeat::Repeats>,
    operations: Option<&super::operation::Operations>,
    path: &Path,
    mut db: crate::db::Database,
) -> Result<String, Error> {
    let mut inferred = found.inferred_ports();
    inferred.extend(units.map(|u| u.inferred_ports()).unwrap_or_default());
    let nearest = found.nearest_ports();
    let misfits: Vec<(crate::isa::Instr, f64)> = nearest.iter().map(|n| (n.0, n.2)).collect();
    inferred.extend(nearest.into_iter().map(|(form, uses, _)| (form, uses)));
    let split = splits.map(|s| s.values()).unwrap_or_default();
    let repeated = repeats.map(|r| r.values()).unwrap_or_default();
    if inferred.is_empty() && split.is_empty() && repeated.is_empty() {
        return Ok(format!(
            "no port mapping was fitted: {} left as it was\n",
            path.display()
        ));
    }
    let n = inferred.len();
    let dropped = db.replace_inferred_ports(inferred);
    db.mark_inferred_misfits(&misfits);
    if splits.is_some() {
        db.replace_access_costs(&split);
    }
    if repeats.is_some() {
        db.replace_repeated(&repeated);
    }
    let alone = operations.map(|o| o.values()).unwrap_or_default();
    if operations.is_some() {
        db.replace_access_alone(&alone);
    }
    db.save(path)?;
    let with_splits = match (split.len(), repeated.len()) {
        (0, 0) => String::new(),
        (k, 0) => format!(" and the line-split costs of {k}"),
        (0, r) => format!(" and the repeated (rep) costs of {r}"),
        (k, r) => format!(", the line-split costs of {k} and the repeated (rep) costs of {r}"),
    };
    let nearest = match misfits.len() {
        0 => String::new(),
        k => format!(" ({k} of them the nearest set, no set fitting: inferredPortsMisfit)"),
    };
    let with_alone = match alone.len() {
        0 => String::new(),
        k => format!(
            " (and of {k} memory forms whether they are their access alone: accessAlone, {} \
             true)",
            alone.iter().filter(|a| a.1).count()
        ),
    };
    Ok(format!(
        "wrote the inferred ports of {n} forms{nearest}{with_splits}{with_alone} into {}{}\n",
        path.display(),
        match dropped {
            0 => String::new(),
            1 => " (1 form lost the ports of an earlier run)".into(),
            d => format!(" ({d} forms lost the ports of an earlier run)"),
        }
    ))
}
