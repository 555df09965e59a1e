//! MAN mode (`winic MAN`, WINIC's manual mode): the cost of one function
//! of an assembly file the user wrote, assembled by winic's own assembler
//! ([`crate::asm`]) and timed like a kernel
//! ([`crate::exec::run::function_cost`]).

use crate::arch::Target;
use crate::error::Error;
use crate::exec::run::{self, Clock};
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
    let source =
        std::fs::read_to_string(&req.path).map_err(|e| Error::Io(format!("reading {name}"), e))?;
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
    let opts = run::Options {
        clock: req.clock,
        ..run::Options::default()
    };
    let func_name = &req.func_name;
    let c = run::function_cost(t, &program.code, entry, init, &opts)
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
