//! What each command does with its options: builds the request of the
//! library module that owns the work, runs it and writes its text. One
//! function per command; `main` only dispatches.

use crate::args::{
    allowed_cpu, AnalyseArgs, CompareArgs, EmitArgs, ExportArgs, HtmlArgs, ListArgs, ManArgs,
    ModeArgs, PortsArgs, RuncheckArgs, SelfcheckArgs, ShowArgs,
};
use crate::progress::{eta_progress, progress};
use std::io::Write;
use winic::error::Error;
use winic::exec::run::{self, Clock};
use winic::inspect::{self, ListQuery};
use winic::isa::{Arch, Isa};
use winic::mode::ports::session::PortsRequest;
use winic::mode::{Mode, Request};
use winic::{arch, selfcheck};

/// The error of a failed write to standard output.
fn io(e: std::io::Error) -> Error {
    Error::Io("writing to standard output".into(), e)
}

/// `winic MAN`: times a function of an assembly file.
pub fn man(a: ManArgs, frequency: Option<Clock>, out: &mut impl Write) -> Result<(), Error> {
    let req = winic::mode::man::ManRequest {
        path: a.path,
        func_name: a.func_name,
        n_inst: a.n_inst,
        init_name: a.init_name,
        clock: clock_of(frequency),
        raw: a.raw,
    };
    let t = arch::target(arch_or_host(None)?);
    let line = winic::mode::man::run(t, &req, &mut |l| {
        if a.listing {
            eprintln!("{l}");
        }
    })?;
    writeln!(out, "{line}").map_err(io)
}

/// `winic list`: one line per form; the count to standard error.
pub fn list(a: ListArgs, out: &mut impl Write) -> Result<(), Error> {
    let arch = arch_or_host(a.arch)?;
    let forms = inspect::select(&ListQuery {
        arch,
        filter: a.filter.as_deref(),
        all: a.all,
    })?;
    for i in &forms {
        if let Err(e) = writeln!(out, "{}", inspect::list_line(i)) {
            // A closed pipe (`winic list | head`) is not an error.
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(io(e));
        }
    }
    let isa = Isa::get(arch);
    eprintln!(
        "{} listed ({arch}: {} real, {} records in all)",
        match forms.len() {
            1 => "1 form".to_string(),
            n => format!("{n} forms"),
        },
        isa.real_instrs().count(),
        isa.instrs().count()
    );
    Ok(())
}

/// `winic host`: what winic detects of this machine.
pub fn host(out: &mut impl Write) -> Result<(), Error> {
    let arch = arch_or_host(None)?;
    writeln!(out, "Arch: {arch}").map_err(io)?;
    writeln!(out, "CPU: {}", winic::report::cpu_name(arch)).map_err(io)?;
    for (label, value) in winic::probe::host_report(arch::target(arch)) {
        writeln!(out, "{label}: {value}").map_err(io)?;
    }
    writeln!(
        out,
        "Frequency: auto by default (a chain of dependent one-cycle adds timed in every \
         measurement's child, before and after; -f GHz fixes it instead)"
    )
    .map_err(io)
}

/// `winic show`: one form's operands, registers, flags and encoding.
pub fn show(a: ShowArgs, out: &mut impl Write) -> Result<(), Error> {
    let arch = arch_or_host(a.arch)?;
    let form = inspect::find(arch, &a.name)?;
    write!(out, "{}", inspect::show(&form)).map_err(io)
}

/// `winic selfcheck`: the encoders against the decoders, per arch.
pub fn selfcheck(a: SelfcheckArgs, out: &mut impl Write) -> Result<(), Error> {
    let arches = match a.arch {
        Some(a) => vec![a],
        None => Arch::ALL.to_vec(),
    };
    let mut mismatches = 0;
    for arch in arches {
        let (rows, summary) = selfcheck::run(arch::target(arch), progress(arch));
        mismatches += summary.mismatch;
        if a.examples {
            for r in &rows {
                writeln!(out, "{}", selfcheck::example_line(arch.name(), r)).map_err(io)?;
            }
        } else if a.json {
            let line = serde_json::to_string(&summary).expect("a summary is plain data");
            writeln!(out, "{line}").map_err(io)?;
        } else {
            write!(out, "{}", summary.render()).map_err(io)?;
        }
    }
    out.flush().map_err(io)?;
    if mismatches > 0 {
        return Err(Error::Failed(format!(
            "{mismatches} instructions decode otherwise than intended (listed as MISMATCH)"
        )));
    }
    Ok(())
}

/// `winic analyse`: a recorded run's database (or ports text) again,
/// measuring nothing.
pub fn analyse(
    a: AnalyseArgs,
    frequency: Option<Clock>,
    out: &mut impl Write,
) -> Result<(), Error> {
    if let Some(f) = frequency {
        return Err(Error::BadInput(format!(
            "-f {}: `winic analyse` converts with the clock the recorded run used",
            match f {
                Clock::Fixed(g) => g.to_string(),
                Clock::Auto => "auto".into(),
            }
        )));
    }
    let (file, header) = winic::raw::Raw::replay(&a.raw)?;
    if header.run.mode == "MAN" {
        if a.output.is_some() || !a.compare.is_empty() {
            return Err(Error::BadInput(format!(
                "{}: a MAN raw file gives its result line, no database: drop -o and --compare",
                a.raw.display()
            )));
        }
        let (req, sample) = winic::mode::man::ManRequest::replaying(&file, &header)?;
        let line = winic::mode::man::judge(&req, &sample)?;
        return writeln!(out, "{line}").map_err(io);
    }
    if header.run.mode == "ports" {
        let req = PortsRequest::replaying(file, header, a.compare, a.output)?;
        return run_ports(&req, out);
    }
    if !a.compare.is_empty() {
        return Err(Error::BadInput(
            "--compare: only a `winic ports` raw file has a port mapping to compare".into(),
        ));
    }
    let Some(output) = a.output else {
        return Err(Error::BadInput(format!(
            "{}: a {} replay needs -o FILE, the database it writes",
            a.raw.display(),
            header.run.mode
        )));
    };
    let req = Request::replaying(file, header, output, !a.no_report, command_line())?;
    run_request(&req, out)
}

/// `winic html`: the page of the databases.
pub fn html(a: HtmlArgs, out: &mut impl Write) -> Result<(), Error> {
    let started = std::time::Instant::now();
    let (arch, sources) = winic::html::load(&a.dbs, &a.label, &a.report)?;
    let path = winic::html::write(&a.output, arch, &sources)?;
    let rows = winic::html::names(&sources).len();
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    writeln!(
        out,
        "page: {} ({} forms of {arch}, {} databases: {}; {:.1} MiB, written in {:.1} s)",
        path.display(),
        rows,
        sources.len(),
        sources
            .iter()
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        size as f64 / f64::from(1 << 20),
        started.elapsed().as_secs_f64()
    )
    .map_err(io)
}

/// `winic compare`: the forms two databases give different values; an
/// error (exit 1) after the report when more differ than allowed.
pub fn compare(a: CompareArgs, out: &mut impl Write) -> Result<(), Error> {
    let load = winic::compare::load;
    let (da, db) = (load(&a.a)?, load(&a.b)?);
    let c = winic::compare::compare(&da, &a.a, &db, &a.b)?;
    let threshold = f64::from(a.threshold) / 100.0;
    let labels = (a.a.display().to_string(), a.b.display().to_string());
    write!(
        out,
        "{}",
        c.render((&labels.0, &labels.1), threshold, a.top)
    )
    .map_err(io)?;
    let n = c.forms_differing(threshold);
    if n > a.allow {
        return Err(Error::Failed(format!(
            "{n} forms differ by more than {}% between {} and {} (--allow {})",
            a.threshold, labels.0, labels.1, a.allow
        )));
    }
    Ok(())
}

/// `winic runcheck`: every selected form's kernels run once.
pub fn runcheck(a: RuncheckArgs, out: &mut impl Write) -> Result<(), Error> {
    let arch = arch_or_host(None)?;
    let forms = inspect::select(&ListQuery {
        arch,
        filter: a.filter.as_deref(),
        all: false,
    })?;
    if forms.is_empty() {
        return Err(Error::BadInput(format!(
            "--filter '{}' matches no real {arch} form (try `winic list --filter`)",
            a.filter.unwrap_or_default()
        )));
    }
    let (rows, summary) = winic::runcheck::run(
        arch::target(arch),
        &forms,
        run::default_cpu(),
        std::time::Duration::from_secs(a.timeout),
        {
            let mut bar = eta_progress();
            let label = format!("runcheck {arch}");
            move |done, total, name| bar(&label, done, total, name)
        },
    );
    if a.json {
        let v = serde_json::json!({ "summary": summary, "rows": rows });
        writeln!(out, "{v}").map_err(io)?;
    } else {
        if a.list {
            for r in &rows {
                writeln!(out, "{}", winic::runcheck::row_line(r)).map_err(io)?;
            }
        }
        write!(out, "{}", summary.render()).map_err(io)?;
    }
    Ok(())
}

/// `winic ports`: the port-mapping experiments.
pub fn ports(a: PortsArgs, frequency: Option<Clock>, out: &mut impl Write) -> Result<(), Error> {
    let req = PortsRequest {
        arch: arch_or_host(None)?,
        instrs: a.instrs,
        filter: a.filter,
        seed: a.seed,
        held_back: a.held_back,
        cpu: a.cpu.map(allowed_cpu).transpose()?,
        clock: clock_of(frequency),
        compare: a.compare,
        output: a.output,
        resume: a.resume,
        source: winic::mode::Source::Measure,
    };
    run_ports(&req, out)
}

/// `winic emit`: one form's kernel as a listing, and as assembly
/// (`--dump-asm DIR`) or an ELF executable (`--elf`) if asked.
pub fn emit(
    a: EmitArgs,
    dump_asm: Option<&std::path::Path>,
    out: &mut impl Write,
) -> Result<(), Error> {
    let (form, unroll, iterations) = (&a.form, a.unroll, a.iterations);
    let arch = arch_or_host(a.arch)?;
    let program = winic::elf::emit_form(arch, form, unroll as usize, iterations)?;
    write!(out, "{}", program.listing()).map_err(io)?;
    if let Some(dir) = dump_asm {
        let kernel = program.kernel();
        let text = winic::kernel::asm_file(
            arch::target(arch),
            &format!("winic emit: {form} ({arch}), body x{unroll}\nrun: winic MAN --path {form}.s --funcName kernel --nInst {unroll}"),
            &[("kernel", &kernel)],
        );
        let path = dump_file(dir, form, &text)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(elf) = &a.elf {
        winic::elf::write_executable(elf, &program.elf())?;
        eprintln!(
            "wrote {}: {arch} kernel of {form} (unroll {unroll}, {iterations} iterations), {} bytes of code, entry {:#x}",
            elf.display(),
            program.code().len(),
            winic::elf::BASE + winic::elf::CODE_OFFSET + program.kernel_size as u64
        );
    }
    Ok(())
}

/// `winic export --osaca`: a database as OSACA's machine (and ISA) file.
pub fn export(a: ExportArgs, out: &mut impl Write) -> Result<(), Error> {
    let arch = arch_or_host(a.arch)?;
    // Where the ISA file starts from, found before the machine file is
    // written (a missing one stops the command first).
    let isa = match a.isa_out {
        Some(output) => Some(winic::export::isa::IsaRequest {
            arch,
            base: winic::export::isa::base_path(a.isa_base, a.base.as_deref(), arch)?,
            output,
        }),
        None => None,
    };
    let req = winic::export::OsacaRequest {
        arch,
        databases: a.databases,
        base: a.base,
        output: a.output,
    };
    let done = winic::export::osaca(&req)?;
    write!(out, "{}", done.summary).map_err(io)?;
    if let Some(isa) = isa {
        let (_, summary) = winic::export::isa::write(&isa)?;
        write!(out, "{summary}").map_err(io)?;
    }
    Ok(())
}

/// TP or LAT: the run ([`winic::mode`]) with this command line's choices;
/// its summary goes to `out`, where its files are to standard error.
pub fn run_mode(
    mode: Mode,
    args: ModeArgs,
    frequency: Option<Clock>,
    out: &mut impl Write,
) -> Result<(), Error> {
    let req = Request {
        mode,
        arch: arch_or_host(None)?,
        instrs: args.instrs,
        filter: args.filter,
        min_opcode: args.min_opcode,
        max_opcode: args.max_opcode,
        output: args.output,
        resume: args.resume,
        report: !args.no_report,
        x87: args.x87,
        cpu: args.cpu.map(allowed_cpu).transpose()?,
        clock: clock_of(frequency),
        vector_types: args.vtypes,
        command: command_line(),
        source: winic::mode::Source::Measure,
    };
    run_request(&req, out)
}

/// Runs `winic ports` as `req` asks; its text goes to `out`.
fn run_ports(req: &PortsRequest, out: &mut impl Write) -> Result<(), Error> {
    let mut bar = eta_progress();
    let label = format!("ports {}", req.arch);
    let text =
        winic::mode::ports::session::run(req, &mut |done, total| bar(&label, done, total, ""))?;
    write!(out, "{text}").map_err(io)
}

/// Runs `req`; its summary goes to `out`, where its files are to
/// standard error.
fn run_request(req: &Request, out: &mut impl Write) -> Result<(), Error> {
    let mut bar = eta_progress();
    let done = winic::mode::run(req, &mut |label, done, total, name| {
        bar(label, done, total, name)
    })?;
    write!(out, "{}", done.summary).map_err(io)?;
    for n in &done.notes {
        eprintln!("{n}");
    }
    done.end
}

/// The command line as the user gave it, for the database's record.
fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

/// Writes `text` as `DIR/NAME.s` (creating DIR), atomically: a crash never
/// leaves half a file.
fn dump_file(dir: &std::path::Path, name: &str, text: &str) -> Result<std::path::PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::Io(
            format!("creating --dump-asm directory {}", dir.display()),
            e,
        )
    })?;
    let path = dir.join(format!("{name}.s"));
    let tmp = dir.join(format!(".{name}.s.tmp"));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| Error::Io(format!("writing {}", path.display()), e))?;
    Ok(path)
}

/// The clock of `-f`, saying so on standard error when it was not given.
fn clock_of(f: Option<Clock>) -> Clock {
    f.unwrap_or_else(|| {
        eprintln!("winic: -f not given: measuring the clock with dependent adds (-f auto)");
        Clock::Auto
    })
}

fn arch_or_host(arch: Option<Arch>) -> Result<Arch, Error> {
    arch.or_else(Arch::host).ok_or_else(|| {
        Error::BadInput("this machine is not x86_64, aarch64 or riscv64: give --arch".into())
    })
}
