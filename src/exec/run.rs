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

/// The calibration kernels of `-f auto` (a chain of dependent adds, once
/// and twice), mapped; `None` with a fixed clock.
fn calibration(t: &dyn Target, opts: &Options) -> Result<Option<(Code, Code)>, RunError> {
    Ok(match opts.clock {
        Clock::Auto => Some((
            map(&add_chain(t, CHAIN, 1)?)?,
            map(&add_chain(t, CHAIN, 2)?)?,
        )),
        Clock::Fixed(_) => None,
    })
}

/// Nanoseconds per cycle from the calibration kernels (0 without them);
/// runs in the child.
fn ns_per_cycle(plan: &Plan, cal: Option<(extern "C" fn(u64), extern "C" fn(u64))>) -> f64 {
    cal.map(|(c1, c2)| {
        // A difference that is not positive is noise (an emulator, a
        // neighbour): measured again, up to three times.
        let mut ns = 0.0;
        for _ in 0..3 {
            let a = measure::time(plan, |n| timed(c1, n));
            let b = measure::time(plan, |n| timed(c2, n));
            ns = measure::unroll_difference(&a, &b) / CHAIN as f64;
            if ns > 0.0 {
                break;
            }
        }
        ns
    })
    .unwrap_or(0.0)
}

/// The frequency (GHz) and clock drift from the calibrations before and
/// after a measurement, or the fixed clock.
fn frequency(opts: &Options, before: f64, after: f64) -> Result<(f64, f64), RunError> {
    match opts.clock {
        Clock::Fixed(g) => Ok((g, 0.0)),
        Clock::Auto => {
            if !(before > 0.0 && after > 0.0) {
                return Err(RunError::Child(ChildError::Garbage(format!(
                    "clock calibration gave {before} and {after} ns per cycle"
                ))));
            }
            let ns = (before + after) / 2.0;
            Ok((1.0 / ns, (before - after).abs() / ns))
        }
    }
}

// What a measuring child sends back, as `in_child`'s list of numbers: the
// timings of the kernels ([`TIMING_LEN`] values each, see
// [`timing_values`]), then the calibrations before and after.

/// Values per [`Timing`].
const TIMING_LEN: usize = 4;

/// Checks the length of a child's answer.
fn expect_len(got: &[f64], n: usize) -> Result<(), RunError> {
    if got.len() == n {
        return Ok(());
    }
    Err(RunError::Child(ChildError::Garbage(format!(
        "{} values, expected {n}",
        got.len()
    ))))
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
    let cal = calibration(t, opts)?;
    let plan = opts.plan;
    // SAFETY: kernels are complete functions `extern "C" fn(u64)` built by
    // `kernel`; they run only in the child.
    let (f1, f2) = unsafe { (k1.entry(), k2.entry()) };
    let calf = cal.as_ref().map(|(a, b)| unsafe { (a.entry(), b.entry()) });
    let got = in_child(opts.cpu, opts.deadline, move || {
        // Warm-up, and the init call: the body once runs in both kernels
        // before anything is timed (AVX/SSE transition state).
        f1(1);
        f2(1);
        let before = ns_per_cycle(&plan, calf);
        let a = measure::time(&plan, |n| timed(f1, n));
        let b = measure::time(&plan, |n| timed(f2, n));
        let after = ns_per_cycle(&plan, calf);
        let mut out = timing_values(&a);
        out.extend(timing_values(&b));
        out.extend([before, after]);
        out
    })
    .map_err(RunError::Child)?;
    expect_len(&got, 2 * TIMING_LEN + 2)?;
    let once_t = timing_from(&got[..TIMING_LEN]);
    let twice_t = timing_from(&got[TIMING_LEN..2 * TIMING_LEN]);
    let (ghz, drift) = frequency(opts, got[2 * TIMING_LEN], got[2 * TIMING_LEN + 1])?;
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
    let v = vec![
        t.ns_per_iter,
        t.iterations as f64,
        t.spread,
        if t.noisy { 1.0 } else { 0.0 },
    ];
    debug_assert_eq!(v.len(), TIMING_LEN);
    v
}

fn timing_from(v: &[f64]) -> Timing {
    Timing {
        ns_per_iter: v[0],
        iterations: v[1] as u64,
        spread: v[2],
        noisy: v[3] != 0.0,
    }
}

/// What one iteration of a function of an assembled file costs (manual
/// mode). Unlike [`Cost`], the loop's own instructions are included, as in
/// WINIC's manual mode: the file decides what an iteration is.
#[derive(Clone, Copy, Debug)]
pub struct FnCost {
    /// Nanoseconds per iteration.
    pub ns: f64,
    /// The same in cycles.
    pub cycles: f64,
    /// The frequency used, GHz.
    pub ghz: f64,
    /// As [`Cost::clock_drift`].
    pub clock_drift: f64,
    /// The timing.
    pub timing: Timing,
}

/// Times the function at offset `entry` of `code` (it takes the iteration
/// count in the first argument register), after the function at `init`,
/// if any, has run once (with 1 as its argument) and a warm-up call.
pub fn function_cost(
    t: &dyn Target,
    code: &[u8],
    entry: usize,
    init: Option<usize>,
    opts: &Options,
) -> Result<FnCost, RunError> {
    let mapped = Code::new(code).map_err(|e| RunError::Map(e.to_string()))?;
    let outside = |o: usize| {
        RunError::Map(format!(
            "offset {o} is outside the {} bytes of code",
            code.len()
        ))
    };
    // SAFETY: the caller names offsets of functions `extern "C" fn(u64)`;
    // they run only in the child.
    let f = unsafe { mapped.entry_at(entry) }.ok_or_else(|| outside(entry))?;
    let init = match init {
        Some(o) => Some(unsafe { mapped.entry_at(o) }.ok_or_else(|| outside(o))?),
        None => None,
    };
    let cal = calibration(t, opts)?;
    let calf = cal.as_ref().map(|(a, b)| unsafe { (a.entry(), b.entry()) });
    let plan = opts.plan;
    let got = in_child(opts.cpu, opts.deadline, move || {
        if let Some(i) = init {
            i(1);
        }
        f(1);
        let before = ns_per_cycle(&plan, calf);
        let a = measure::time(&plan, |n| timed(f, n));
        let after = ns_per_cycle(&plan, calf);
        let mut out = timing_values(&a);
        out.extend([before, after]);
        out
    })
    .map_err(RunError::Child)?;
    expect_len(&got, TIMING_LEN + 2)?;
    let timing = timing_from(&got[..TIMING_LEN]);
    let (ghz, clock_drift) = frequency(opts, got[TIMING_LEN], got[TIMING_LEN + 1])?;
    Ok(FnCost {
        ns: timing.ns_per_iter,
        cycles: measure::cycles(timing.ns_per_iter, ghz),
        ghz,
        clock_drift,
        timing,
    })
}

/// Forms measured between two calibrations of the clock in a batch.
const CALIBRATE_EVERY: usize = 16;

/// Marks a calibration record in a batch child's stream.
const CALIBRATION: f64 = -1.0;

/// Measures the bodies `0..n` one after the other in as few children as
/// possible: each child calibrates the clock (with `-f auto`) once per
/// [`CALIBRATE_EVERY`] bodies instead of once per body, builds each pair of
/// kernels (`make(i)`: the body once and twice) itself, and streams every
/// result. When a kernel kills its child, that body gets the fault and a
/// new child goes on with the next one. `done(i, cost)` is called once
/// per body, in order.
pub fn batch_costs(
    t: &dyn Target,
    n: usize,
    make: &dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
    opts: &Options,
    done: &mut dyn FnMut(usize, Result<Cost, RunError>),
) {
    let cal = match calibration(t, opts) {
        Ok(c) => c,
        Err(e) => {
            for i in 0..n {
                done(i, Err(e.clone()));
            }
            return;
        }
    };
    let calf = cal.as_ref().map(|(a, b)| unsafe { (a.entry(), b.entry()) });
    let plan = opts.plan;
    let mut next = 0;
    while next < n {
        let start = next;
        let (records, fate) = super::in_child_stream(opts.cpu, opts.deadline, |out| {
            let calibrate =
                |out: &mut super::Records| out.send(&[CALIBRATION, ns_per_cycle(&plan, calf)]);
            for i in start..n {
                if (i - start) % CALIBRATE_EVERY == 0 && !calibrate(out) {
                    return;
                }
                let mapped = make(i)
                    .ok()
                    .and_then(|(a, b)| Some((map(&a).ok()?, map(&b).ok()?)));
                let Some((k1, k2)) = mapped else {
                    out.send(&[i as f64, 0.0]);
                    continue;
                };
                // SAFETY: kernels built by `kernel`, running in the child.
                let (f1, f2) = unsafe { (k1.entry(), k2.entry()) };
                f1(1);
                f2(1);
                let a = measure::time(&plan, |n| timed(f1, n));
                let b = measure::time(&plan, |n| timed(f2, n));
                let mut rec = vec![i as f64, 1.0];
                rec.extend(timing_values(&a));
                rec.extend(timing_values(&b));
                if !out.send(&rec) {
                    return;
                }
            }
            calibrate(out);
        });
        // Bodies wait for the calibration after them (the clock of a body
        // is the mean of the calibrations around it).
        let mut before: Option<f64> = None;
        let mut waiting: Waiting = Vec::new();
        let mut last = None;
        type Waiting = Vec<(usize, Timing, Timing)>;
        let finish = |waiting: &mut Waiting,
                      b: Option<f64>,
                      a: Option<f64>,
                      done: &mut dyn FnMut(usize, Result<Cost, RunError>)| {
            for (i, once, twice) in waiting.drain(..) {
                let (b, a) = (b.or(a).unwrap_or(0.0), a.or(b).unwrap_or(0.0));
                done(i, cost_of(opts, once, twice, b, a));
            }
        };
        for r in &records {
            match r.as_slice() {
                [tag, ns] if *tag == CALIBRATION => {
                    finish(&mut waiting, before, Some(*ns), done);
                    before = Some(*ns);
                }
                [i, ok, rest @ ..] => {
                    let i = *i as usize;
                    last = Some(i);
                    if *ok == 0.0 || rest.len() != 2 * TIMING_LEN {
                        let why = match make(i) {
                            Err(e) => RunError::Kernel(e),
                            Ok(_) => RunError::Map("the child could not map the kernels".into()),
                        };
                        finish(&mut waiting, before, None, done);
                        done(i, Err(why));
                        continue;
                    }
                    waiting.push((
                        i,
                        timing_from(&rest[..TIMING_LEN]),
                        timing_from(&rest[TIMING_LEN..]),
                    ));
                }
                _ => {}
            }
        }
        finish(&mut waiting, before, None, done);
        let after_last = last.map_or(start, |l| l + 1);
        match fate {
            None => next = n.max(after_last),
            Some(e) => {
                if after_last < n {
                    done(after_last, Err(RunError::Child(e)));
                }
                next = after_last + 1;
            }
        }
    }
}

/// The cost of a body from its timings and the calibrations around it.
fn cost_of(
    opts: &Options,
    once: Timing,
    twice: Timing,
    before: f64,
    after: f64,
) -> Result<Cost, RunError> {
    let (ghz, drift) = frequency(opts, before, after)?;
    let ns = measure::unroll_difference(&once, &twice);
    Ok(Cost {
        ns,
        cycles: measure::cycles(ns, ghz),
        ghz,
        clock_drift: drift,
        once,
        twice,
    })
}
