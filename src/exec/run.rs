//! The cost of a kernel body: the kernels with the body once and twice,
//! timed in one forked, pinned child by [`measure::time`], the unroll
//! difference taken, and converted to cycles with a fixed clock (`-f GHz`)
//! or one calibrated in the same child (`-f auto`): a chain of dependent
//! one-cycle adds timed before and after the measurement.

use super::{in_child, ChildError, Code};
use crate::arch::Target;
use crate::kernel::{add_chain, Kernel, KernelError};
use crate::measure::{self, Plan, Timing};
use std::fmt;
use std::time::{Duration, Instant};

/// Adds per calibration kernel body.
const CHAIN: usize = 64;

/// Where cycles come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// A fixed frequency in GHz, as WINIC's `-f`.
    Fixed(f64),
    /// Calibrated in every measurement's child.
    Auto,
}

/// How to run one measurement.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The CPU the child is pinned to.
    pub cpu: Option<usize>,
    /// The child is killed when it has not answered by then.
    pub deadline: Duration,
    /// Timing of each kernel.
    pub plan: Plan,
    /// Cycles from a fixed or a calibrated clock.
    pub clock: Clock,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cpu: default_cpu(),
            deadline: Duration::from_secs(10),
            plan: Plan::default(),
            clock: Clock::Auto,
        }
    }
}

/// The first CPU this process may run on (children are pinned there).
pub fn default_cpu() -> Option<usize> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok()?;
    (0..nix::sched::CpuSet::count()).find(|&c| set.is_set(c).unwrap_or(false))
}

/// What one body costs per copy.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    /// Nanoseconds of one copy of the body (unroll difference).
    pub ns: f64,
    /// The same in cycles.
    pub cycles: f64,
    /// The frequency used, GHz.
    pub ghz: f64,
    /// With `-f auto`: how far the calibrations before and after the
    /// measurement differ, relative (0.01 = 1%); 0 with a fixed clock.
    pub clock_drift: f64,
    /// The kernel with the body once.
    pub once: Timing,
    /// The kernel with the body twice.
    pub twice: Timing,
}

impl Cost {
    /// Whether the repetitions disagreed beyond the plan's spread in every
    /// attempt, or the clock moved by more than 5% during the measurement.
    pub fn noisy(&self) -> bool {
        self.once.noisy || self.twice.noisy || self.clock_drift > 0.05
    }
}

/// Why a body has no cost.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The kernels could not be built.
    Kernel(KernelError),
    /// The code could not be mapped.
    Map(String),
    /// The child faulted, hung or failed (the reason is in the value).
    Child(ChildError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Kernel(e) => write!(f, "kernel: {e}"),
            RunError::Map(e) => write!(f, "mapping the code: {e}"),
            RunError::Child(e) => write!(f, "{e}"),
        }
    }
}

impl From<KernelError> for RunError {
    fn from(e: KernelError) -> RunError {
        RunError::Kernel(e)
    }
}

fn map(k: &Kernel) -> Result<Code, RunError> {
    Code::new(&k.bytes()).map_err(|e| RunError::Map(e.to_string()))
}

/// Wall time of `f(n)`.
fn timed(f: extern "C" fn(u64), n: u64) -> Duration {
    let t = Instant::now();
    f(n);
    t.elapsed()
}

/// The cost of one body copy from the kernels with the body once and
/// twice (built by [`crate::kernel::build`] with `unroll` 1 and 2).
pub fn body_cost(
    t: &dyn Target,
    once: &Kernel,
    twice: &Kernel,
    opts: &Options,
) -> Result<Cost, RunError> {
    let (k1, k2) = (map(once)?, map(twice)?);
    let cal = match opts.clock {
        Clock::Auto => Some((
            map(&add_chain(t, CHAIN, 1)?)?,
            map(&add_chain(t, CHAIN, 2)?)?,
        )),
        Clock::Fixed(_) => None,
    };
    let plan = opts.plan;
    // SAFETY: kernels are complete functions `extern "C" fn(u64)` built by
    // `kernel`; they run only in the child.
    let (f1, f2) = unsafe { (k1.entry(), k2.entry()) };
    let calf = cal.as_ref().map(|(a, b)| unsafe { (a.entry(), b.entry()) });
    let ns_per_cycle = move || {
        calf.map(|(c1, c2)| {
            let a = measure::time(&plan, |n| timed(c1, n));
            let b = measure::time(&plan, |n| timed(c2, n));
            measure::unroll_difference(&a, &b) / CHAIN as f64
        })
        .unwrap_or(0.0)
    };
    let got = in_child(opts.cpu, opts.deadline, move || {
        // Warm-up, and the init call: the body once runs in both kernels
        // before anything is timed (AVX/SSE transition state).
        f1(1);
        f2(1);
        let before = ns_per_cycle();
        let a = measure::time(&plan, |n| timed(f1, n));
        let b = measure::time(&plan, |n| timed(f2, n));
        let after = ns_per_cycle();
        let mut out = timing_values(&a);
        out.extend(timing_values(&b));
        out.extend([before, after]);
        out
    })
    .map_err(RunError::Child)?;
    if got.len() != 10 {
        return Err(RunError::Child(ChildError::Garbage(format!(
            "{} values, expected 10",
            got.len()
        ))));
    }
    let (before, after) = (got[8], got[9]);
    let (once_t, twice_t) = (timing_from(&got[0..4]), timing_from(&got[4..8]));
    let (ghz, drift) = match opts.clock {
        Clock::Fixed(g) => (g, 0.0),
        Clock::Auto => {
            if !(before > 0.0 && after > 0.0) {
                return Err(RunError::Child(ChildError::Garbage(format!(
                    "clock calibration gave {before} and {after} ns per cycle"
                ))));
            }
            let ns = (before + after) / 2.0;
            (1.0 / ns, (before - after).abs() / ns)
        }
    };
    let ns = measure::unroll_difference(&once_t, &twice_t);
    Ok(Cost {
        ns,
        cycles: measure::cycles(ns, ghz),
        ghz,
        clock_drift: drift,
        once: once_t,
        twice: twice_t,
    })
}

fn timing_values(t: &Timing) -> Vec<f64> {
    vec![
        t.ns_per_iter,
        t.iterations as f64,
        t.spread,
        if t.noisy { 1.0 } else { 0.0 },
    ]
}

fn timing_from(v: &[f64]) -> Timing {
    Timing {
        ns_per_iter: v[0],
        iterations: v[1] as u64,
        spread: v[2],
        noisy: v[3] != 0.0,
    }
}
