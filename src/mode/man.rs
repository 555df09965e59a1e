//! MAN mode (`winic MAN`, WINIC's manual mode): the cost of one function
//! of an assembly file the user wrote, assembled by winic's own assembler
//! ([`crate::asm`]) and timed like a kernel
//! ([`crate::exec::run::function_sample`]). With `--raw FILE` what the
//! child measured is kept as a raw file, whose replay (`winic analyse
//! FILE`) gives the same line on any machine ([`judge`]).

use crate::arch::Target;
use crate::db::JournalRun;
use crate::error::Error;
use crate::exec::run::{self, Clock, FnCost};
use crate::raw::{FunctionSample, Header, Raw};
use std::path::PathBuf;

/// What `winic MAN` is asked to do.
#[derive(Clone, Debug)]
pub struct ManRequest {
    /// The assembly file.
    pub path: PathBuf,
    /// The label of the function to time.
    pub func_name: String,
    /// Instructions one iteration executes, to divide by.
    pub n_inst: u64,
    /// The label of a function run once before the timing, if any.
    pub init_name: Option<String>,
    /// How time becomes cycles.
    pub clock: Clock,
    /// Where to keep what was measured, as a raw file.
    pub raw: Option<PathBuf>,
}

impl ManRequest {
    /// The run as its raw file names it.
    pub fn run_line(&self, arch: crate::isa::Arch) -> JournalRun {
        let (global, _) = crate::mode::run_words(self.clock, &[], None);
        let mut args = vec![
            "-p".to_string(),
            self.path.display().to_string(),
            "--funcName".into(),
            self.func_name.clone(),
            "-n".into(),
            self.n_inst.to_string(),
        ];
        if let Some(init) = &self.init_name {
            args.extend(["--initName".to_string(), init.clone()]);
        }
        JournalRun {
            mode: "MAN".into(),
            arch: arch.to_string(),
            global,
            args,
        }
    }

    /// The MAN run a raw file's `header` records, with its function's
    /// measurement: what `winic analyse` judges again.
    pub fn replaying(raw: &Raw, header: &Header) -> Result<(ManRequest, FunctionSample), Error> {
        let arity = |o: &str| match o {
            "-p" | "--funcName" | "-n" | "--initName" => Some(crate::mode::Arity::One),
            _ => None,
        };
        let recorded = crate::mode::Recorded::read(raw, &header.run, &arity)?;
        let mut req = ManRequest {
            path: PathBuf::new(),
            func_name: String::new(),
            n_inst: 0,
            init_name: None,
            clock: recorded.clock,
            raw: None,
        };
        for (option, values) in &recorded.options {
            let v = values[0].clone();
            match option.as_str() {
                "-p" => req.path = PathBuf::from(v),
                "--funcName" => req.func_name = v,
                "-n" => req.n_inst = recorded.number(option, &v)?,
                _ => req.init_name = Some(v),
            }
        }
        if req.n_inst == 0 {
            return Err(recorded.bad("no instruction count (-n)".into()));
        }
        recorded.check(&req.run_line(recorded.arch))?;
        let sample = raw
            .function()
            .ok_or_else(|| recorded.bad("no measurement of its function".into()))?;
        Ok((req, sample))
    }
}

/// Assembles `req.path` for `t`, calls `listing(line)` with each line of
/// the assembled listing (offset, bytes, file:line, text), times the
/// function and returns the result line.
pub fn run(
    t: &dyn Target,
    req: &ManRequest,
    listing: &mut dyn FnMut(&str),
) -> Result<String, Error> {
    let name = req.path.display().to_string();
    let source = crate::input::read_at_most(&req.path, crate::db::bounds::MAX_BYTES)
        .map_err(|e| Error::Io(format!("reading {name}"), e))?
        .ok_or_else(|| {
            Error::BadInput(format!(
                "{name}: more than the {} an assembly file may have",
                crate::input::size(crate::db::bounds::MAX_BYTES)
            ))
        })?;
    let program =
        crate::asm::assemble(t, &name, &source).map_err(|e| Error::BadInput(e.to_string()))?;
    for p in &program.listing {
        let hex: String = p.bytes.iter().map(|b| format!("{b:02x}")).collect();
        listing(&format!(
            "{:6x}  {hex:<24} {}:{}  {}",
            p.offset, name, p.line, p.text
        ));
    }
    let label = |l: &str| {
        program.label(l).ok_or_else(|| {
            let known: Vec<&str> = program.labels.iter().map(|(n, _)| n.as_str()).collect();
            Error::BadInput(format!(
                "{name} has no label `{l}` (labels: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
    };
    let entry = label(&req.func_name)?;
    let init = req.init_name.as_deref().map(label).transpose()?;
    let raw = match &req.raw {
        Some(path) => {
            let header = crate::mode::raw_header(t, t.arch(), req.run_line(t.arch()), None);
            Some(Raw::create(path, &header)?)
        }
        None => None,
    };
    let opts = options(req);
    let func_name = &req.func_name;
    let sample = run::function_sample(t, &program.code, entry, init, &opts)
        .map_err(|e| Error::Failed(format!("{name}: {func_name}: {e}")))?;
    if let Some(raw) = &raw {
        raw.put_function(&sample)?;
    }
    judge(req, &sample)
}

/// How MAN converts and judges: its clock, nothing else.
fn options(req: &ManRequest) -> run::Options {
    run::Options {
        clock: req.clock,
        ..run::Options::default()
    }
}

/// The result line of `req`'s function from what the child measured of
/// it (`sample`), or why it is no cost: the analysis of a MAN run, the
/// same in the run and in `winic analyse` of its raw file.
pub fn judge(req: &ManRequest, sample: &FunctionSample) -> Result<String, Error> {
    let name = req.path.display().to_string();
    let func_name = &req.func_name;
    let c = FnCost::of(sample, &options(req))
        .map_err(|e| Error::Failed(format!("{name}: {func_name}: {e}")))?;
    // Scaling stops at the cap for a function whose time does not grow,
    // or earlier when one slow run (a busy machine) seemed long enough:
    // four times the iterations then take about as long as one.
    if c.timing.iterations >= crate::measure::MAX_ITERATIONS || c.growth < 2.0 {
        // 0 cycles per instruction is no cost a core can have.
        return Err(Error::Failed(format!(
            "{name}: {func_name}: its time did not grow with the iteration count ({} iterations \
             took {:.3} ns in all, four times as many {:.2} times as long): the function must \
             run its own loop, as many times as its first argument register says (x86 rdi, \
             AArch64 x0, RISC-V a0); see docs/commands.md, Manual mode",
            c.timing.iterations,
            c.ns * c.timing.iterations as f64,
            c.growth
        )));
    }
    if !(c.cycles.is_finite() && c.cycles > 0.0) {
        // No cost a function can have: the times did not measure it.
        return Err(Error::Failed(format!(
            "{name}: {func_name}: the timing gave {} cycles per call ({:.3} ns per call at \
             {:.2} GHz), which no function costs: run it again, and if it repeats, check that \
             the function returns to its caller with the stack as it found it",
            c.cycles, c.ns, c.ghz
        )));
    }
    let how = match req.clock {
        Clock::Auto => format!("-f auto: measured, drift {:.1}%", 100.0 * c.clock_drift),
        Clock::Fixed(_) => "-f: given".into(),
    };
    let n_inst = req.n_inst;
    Ok(format!(
        "{func_name}: {:.3} cycles per instruction ({n_inst} instructions per iteration: {:.2} \
         cycles, {:.3} ns at {:.2} GHz ({how}); {} iterations per run, spread {:.1}%{})",
        c.cycles / n_inst as f64,
        c.cycles,
        c.ns,
        c.ghz,
        c.timing.iterations,
        100.0 * c.timing.spread,
        if c.timing.noisy {
            ", NOISY: repetitions disagreed"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Timing;

    fn request(clock: Clock) -> ManRequest {
        ManRequest {
            path: "k.s".into(),
            func_name: "f".into(),
            n_inst: 4,
            init_name: None,
            clock,
            raw: None,
        }
    }

    fn sample(ns: f64, growth: f64) -> FunctionSample {
        FunctionSample {
            timing: Timing {
                ns_per_iter: ns,
                iterations: 1000,
                spread: 0.01,
                noisy: false,
            },
            clock: (0.25, 0.25),
            growth,
        }
    }

    /// The judgment is a function of the sample and the request: cycles
    /// from the clock beside the timing (or the given one), a function
    /// whose time did not grow and a non-finite time refused.
    #[test]
    fn judge_converts_with_the_recorded_clock_and_refuses_what_no_function_costs() {
        let line = judge(&request(Clock::Auto), &sample(2.0, 4.0)).unwrap();
        assert!(line.starts_with("f: 2.000 cycles per instruction (4 instructions per iteration: 8.00 cycles, 2.000 ns at 4.00 GHz (-f auto"), "{line}");
        let line = judge(&request(Clock::Fixed(2.0)), &sample(2.0, 4.0)).unwrap();
        assert!(
            line.starts_with("f: 1.000 cycles per instruction"),
            "{line}"
        );
        let flat = judge(&request(Clock::Auto), &sample(2.0, 1.0)).unwrap_err();
        assert!(flat.to_string().contains("did not grow"), "{flat}");
        let nan = judge(&request(Clock::Auto), &sample(f64::NAN, 4.0)).unwrap_err();
        assert!(nan.to_string().contains("which no function costs"), "{nan}");
        let mut no_clock = sample(2.0, 4.0);
        no_clock.clock = (0.0, 0.0);
        assert!(judge(&request(Clock::Auto), &no_clock).is_err());
    }

    /// The run line names every option, and a raw file's run is read back
    /// into the same request.
    #[test]
    fn a_recorded_run_reads_back_into_its_request() {
        let dir = std::env::temp_dir().join(format!("winic-man-raw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("man.raw");
        let mut req = request(Clock::Fixed(3.5));
        req.init_name = Some("init".into());
        let run = req.run_line(crate::isa::Arch::X86_64);
        assert_eq!(
            run.command(),
            "winic -f 3.5 MAN -p k.s --funcName f -n 4 --initName init"
        );
        let raw = Raw::create(&path, &Header::new(run, "cpu".into(), None, None)).unwrap();
        raw.put_function(&sample(2.0, 4.0)).unwrap();
        drop(raw);
        let (raw, header) = Raw::replay(&path).unwrap();
        let (back, s) = ManRequest::replaying(&raw, &header).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(s, sample(2.0, 4.0));
        assert_eq!(
            (back.path, back.func_name, back.n_inst),
            (req.path, req.func_name, 4)
        );
        assert_eq!((back.init_name, back.clock), (req.init_name, req.clock));
    }
}
