//! The cost of a kernel body: the kernels with the body once and twice,
//! timed in one forked, pinned child by [`measure::time`], the unroll
//! difference taken, and converted to cycles with a fixed clock (`-f GHz`)
//! or one calibrated in the same child (`-f auto`): a chain of dependent
//! one-cycle adds timed before and after the measurement.

use super::{in_child, ChildError, Code};
use crate::arch::Target;
use crate::kernel::{add_chain, Kernel, KernelError};
use crate::measure::{self, Plan, Timing};
use crate::raw::{self, Episode, FunctionSample, Got, Raw, Sample};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
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
#[derive(Clone, Debug)]
pub struct Options {
    /// The CPU the child is pinned to.
    pub cpu: Option<usize>,
    /// The child is killed when it has not answered by then.
    pub deadline: Duration,
    /// Timing of each kernel.
    pub plan: Plan,
    /// Cycles from a fixed or a calibrated clock.
    pub clock: Clock,
    /// Timing of the bodies of a batch ([`batch_costs`]).
    pub sampling: measure::Sampling,
    /// With [`Clock::Auto`]: the frequency (GHz) [`check_clock`] found at
    /// the start of the run, used for a body whose own calibration gave
    /// no positive difference (then its cost is flagged noisy).
    pub fallback_ghz: Option<f64>,
    /// The run's raw file ([`crate::raw`]): what batches measure is
    /// appended to it, and what it holds already is not measured again.
    pub raw: Option<Arc<Raw>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cpu: default_cpu(),
            deadline: Duration::from_secs(10),
            plan: Plan::default(),
            clock: Clock::Auto,
            sampling: measure::Sampling::default(),
            fallback_ghz: None,
            raw: None,
        }
    }
}

/// The first CPU this process may run on (children are pinned there).
pub fn default_cpu() -> Option<usize> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok()?;
    (0..nix::sched::CpuSet::count()).find(|&c| set.is_set(c).unwrap_or(false))
}

/// What one body costs per copy.
#[derive(Clone, Copy, Debug, Default)]
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
    /// Rounds of a batch ([`batch_costs`]): taken, and taken while the
    /// core was ours alone (the timings come from those when there were
    /// enough); 0 and 0 outside batches.
    pub rounds: (usize, usize),
    /// The frequency (GHz) the calibration beside the body showed, when
    /// it gave one: with `-f GHz` it tells whether the body ran at the
    /// given clock (a frequency licence lowers it anyway); `None` when
    /// the calibration gave no positive difference.
    pub seen_ghz: Option<f64>,
    /// `-f auto` but the body's own calibration gave nothing: `ghz` is
    /// the run's ([`Options::fallback_ghz`]).
    pub clock_fallback: bool,
}

impl Cost {
    /// Whether the repetitions disagreed beyond the plan's spread in every
    /// attempt, or the clock moved by more than 5% during the measurement.
    pub fn noisy(&self) -> bool {
        self.once.noisy || self.twice.noisy || self.clock_drift > 0.05 || self.clock_fallback
    }

    /// How far the clock the calibration beside the body showed is from
    /// the one its cycles were converted with, relative, when it is more
    /// than 5%: with `-f GHz`, the kernel ran at another clock (a frequency
    /// licence lowers it whatever was fixed), and its cycles are misstated
    /// by as much.
    pub fn clock_mismatch(&self) -> Option<f64> {
        let off = (self.seen_ghz? - self.ghz) / self.ghz;
        (off.abs() > 0.05).then_some(off)
    }

    /// Whether the unroll difference is a value at all: one that is not
    /// positive is noise (an emulator, where a cheap body's nanoseconds
    /// drown in the timer's, or a neighbour during the once-kernel).
    pub fn positive(&self) -> bool {
        self.cycles > 0.0
    }

    /// This measurement and `new`, a second one of the same body, as one:
    /// each kernel's fastest time (in cycles, each at its own look's
    /// clock), since noise only ever adds time to a timing. A single
    /// look's unroll difference comes out short when only its once-kernel
    /// was slowed: `vgatherdps ymm` (EVEX) on Zen 4 gave 7.0 cycles from a
    /// look whose once-kernel ran 12% slow in all its rounds, where its
    /// second look, uops.info and the other runs give 9.0; the second
    /// look, noisy, did not replace the first, and its faster once-kernel
    /// was lost. When the merged difference is not a value, the one of
    /// the two that is (the first when both are, or neither).
    pub fn merged_with(&self, new: &Cost) -> Cost {
        let base = if self.clock_fallback && !new.clock_fallback {
            new
        } else {
            self
        };
        // Each timing of `c` in nanoseconds at the base's clock: the
        // same cycles.
        let at_base = |c: &Cost, t: Timing| Timing {
            ns_per_iter: t.ns_per_iter * c.ghz / base.ghz,
            ..t
        };
        // A timing with the clock drift of its look.
        let faster = |a: (Timing, f64), b: (Timing, f64)| {
            if a.0.ns_per_iter.is_nan() || b.0.ns_per_iter < a.0.ns_per_iter {
                b
            } else {
                a
            }
        };
        let once = faster(
            (at_base(self, self.once), self.clock_drift),
            (at_base(new, new.once), new.clock_drift),
        );
        let twice = faster(
            (at_base(self, self.twice), self.clock_drift),
            (at_base(new, new.twice), new.clock_drift),
        );
        let ns = measure::unroll_difference(&once.0, &twice.0);
        let merged = Cost {
            ns,
            cycles: measure::cycles(ns, base.ghz),
            once: once.0,
            twice: twice.0,
            // The clock of the looks whose timings are kept.
            clock_drift: once.1.max(twice.1),
            rounds: (self.rounds.0 + new.rounds.0, self.rounds.1 + new.rounds.1),
            ..*base
        };
        match (merged.positive(), self.positive(), new.positive()) {
            (true, _, _) => merged,
            (false, false, true) => *new,
            _ => *self,
        }
    }

    /// Whether `other` says something else than this cost: a value more
    /// than 1% away, or another verdict on noise or on being a value. A
    /// second look that only moves the value within 1% counts as no
    /// change, so that a chunk of second looks on a core whose other
    /// thread stays busy still ends early ([`look_again`]).
    fn differs_from(&self, other: &Cost) -> bool {
        (self.cycles - other.cycles).abs() > 0.01 * self.cycles.abs()
            || self.noisy() != other.noisy()
            || self.positive() != other.positive()
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
    /// A replay ([`crate::raw`]) of a run that did not measure this
    /// kernel pair.
    NotRecorded,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Kernel(e) => write!(f, "kernel: {e}"),
            RunError::Map(e) => write!(f, "mapping the code: {e}"),
            RunError::Child(e) => write!(f, "{e}"),
            RunError::NotRecorded => write!(
                f,
                "not in the raw file: the recorded run did not measure this kernel pair"
            ),
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

/// Nanoseconds per iteration of `f(n)`.
fn per_iteration(f: extern "C" fn(u64), n: u64) -> f64 {
    timed(f, n).as_nanos() as f64 / n as f64
}

/// The calibration kernels (a chain of dependent adds, once and twice),
/// mapped. With `-f auto` they give the clock; with `-f GHz` they still
/// run, to tell when a kernel ran at another clock than the given one,
/// and to judge the probe in cycles.
fn calibration(t: &dyn Target) -> Result<(Code, Code), RunError> {
    Ok((
        map(&add_chain(t, CHAIN, 1)?)?,
        map(&add_chain(t, CHAIN, 2)?)?,
    ))
}

/// [`calibration`] beside bodies wider than 128 bits ([`primed`])
/// ([`crate::kernel::wide_add_chain`]), `None` where the target has no
/// wide primer.
fn wide_calibration(t: &dyn Target) -> Result<Option<(Code, Code)>, RunError> {
    let (Some(once), Some(twice)) = (
        crate::kernel::wide_add_chain(t, CHAIN, 1)?,
        crate::kernel::wide_add_chain(t, CHAIN, 2)?,
    ) else {
        return Ok(None);
    };
    Ok(Some((map(&once)?, map(&twice)?)))
}

/// Whether the clock can be measured here, once for a run: the
/// calibration chain timed [`START_CALIBRATIONS`] times in a child; its
/// frequency in GHz (their median), or what it gave. Under an emulator
/// (qemu-user) the chain's two kernels take the same time and the
/// difference is 0 or negative: every body would fail for that one
/// reason.
pub fn check_clock(t: &dyn Target, opts: &Options) -> Result<f64, String> {
    let cal = calibration(t).map_err(|e| e.to_string())?;
    // SAFETY: built by `kernel`; they run only in the child.
    let calf = unsafe { (cal.0.entry(), cal.1.entry()) };
    let plan = opts.plan;
    let got = in_child(opts.cpu, opts.deadline, move || {
        (0..START_CALIBRATIONS)
            .map(|_| ns_per_cycle(&plan, calf))
            .collect()
    })
    .map_err(|e| e.to_string())?;
    let ghz: Vec<f64> = got
        .iter()
        .filter(|&&ns| ns > 0.0)
        .map(|ns| 1.0 / ns)
        .collect();
    match (measure::median(&ghz), got.first()) {
        (Some(g), _) => Ok(g),
        (None, Some(ns)) => Err(format!(
            "a chain of {CHAIN} dependent adds took {ns} ns per add more than none at all"
        )),
        (None, None) => Err("the calibration child sent nothing".into()),
    }
}

/// Calibrations a run's start clock is the median of. The start clock is
/// what every body's own calibration is held to ([`CLOCK_CEILING`]), so a
/// single slow calibration spoiled a whole run: on the zen3 guest
/// (2026-12-01, a quarter of its time stolen by other tenants) one gave
/// 2.91 GHz where the kernels all showed 3.15-3.25, and every body was
/// converted at 2.91, `add r64, r64` 0.22 cycles. Seven calibrations in a
/// row there scattered by 3% both ways (3.11-3.35 GHz around 3.22): the
/// unroll difference of two noisy kernels comes out long or short, so
/// neither the fastest nor the slowest is the clock.
const START_CALIBRATIONS: usize = 7;

/// Nanoseconds per cycle from the calibration kernels; runs in the child.
fn ns_per_cycle(plan: &Plan, (c1, c2): (extern "C" fn(u64), extern "C" fn(u64))) -> f64 {
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
}

/// The frequency (GHz) and clock drift from the calibrations before and
/// after a measurement, or the fixed clock; with `-f auto` and no positive
/// calibration, the run's fallback (`true` as the third value), else an
/// error.
fn frequency(opts: &Options, before: f64, after: f64) -> Result<(f64, f64, bool), RunError> {
    match opts.clock {
        Clock::Fixed(g) => Ok((g, 0.0, false)),
        Clock::Auto => {
            if !(before > 0.0 && after > 0.0) {
                if let Some(g) = opts.fallback_ghz {
                    return Ok((g, 0.0, true));
                }
                return Err(RunError::Child(ChildError::Garbage(format!(
                    "clock calibration gave {before} and {after} ns per cycle"
                ))));
            }
            let ns = (before + after) / 2.0;
            // A clock well above the one the run started at is none the
            // body ran at: the calibration's two kernels took their
            // fastest times from different rounds.
            if let Some(g) = opts
                .fallback_ghz
                .filter(|g| 1.0 / ns > g * (1.0 + CLOCK_CEILING))
            {
                return Ok((g, 0.0, true));
            }
            Ok((1.0 / ns, (before - after).abs() / ns, false))
        }
    }
}

/// How far (relative) a body's calibrated clock may exceed the clock the
/// run started at ([`Options::fallback_ghz`], measured with the core idle)
/// before the body is converted at that clock instead and flagged noisy:
/// on xeon-cf (4.0 GHz, 3.9 under 512-bit work) a group of 256-bit
/// converts once showed "4.51 GHz", which made 1.00 cycles 1.16. Clocks
/// beside bodies stayed within 3.85-4.06 GHz in four full runs otherwise.
pub(crate) const CLOCK_CEILING: f64 = 0.10;

/// The clock a calibration showed, when it gave one.
fn seen(before: f64, after: f64) -> Option<f64> {
    (before > 0.0 && after > 0.0).then(|| 2.0 / (before + after))
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
    let cal = calibration(t)?;
    let plan = opts.plan;
    // SAFETY: kernels are complete functions `extern "C" fn(u64)` built by
    // `kernel`; they run only in the child.
    let (f1, f2) = unsafe { (k1.entry(), k2.entry()) };
    let calf = unsafe { (cal.0.entry(), cal.1.entry()) };
    let got = in_child(opts.cpu, opts.deadline, move || {
        // Warm-up, and the init call: the body once runs in both kernels
        // before anything is timed (AVX/SSE transition state).
        f1(1);
        f2(1);
        let before = ns_per_cycle(&plan, calf);
        let a = measure::time(&plan, |n| {
            super::data::restore();
            timed(f1, n)
        });
        let b = measure::time(&plan, |n| {
            super::data::restore();
            timed(f2, n)
        });
        let after = ns_per_cycle(&plan, calf);
        let mut out = timing_values(&a);
        out.extend(timing_values(&b));
        out.extend([before, after]);
        out
    })
    .map_err(RunError::Child)?;
    expect_len(&got, 2 * TIMING_LEN + 2)?;
    cost_of(
        opts,
        timing_from(&got[..TIMING_LEN]),
        timing_from(&got[TIMING_LEN..2 * TIMING_LEN]),
        got[2 * TIMING_LEN],
        got[2 * TIMING_LEN + 1],
    )
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
    /// The time of a run of four times the timing's iterations over a
    /// run of them, each the fastest of three taken in turn: about 4 for
    /// a function that loops as told, about 1 for one that does not
    /// (whose scaling a slow run on a busy machine can stop early).
    pub growth: f64,
}

impl FnCost {
    /// The cost of what a child measured of a function (`sample`), its
    /// time converted to cycles by `opts`' clock: the analysis of MAN's
    /// raw record, the same in the run and in a replay.
    pub fn of(sample: &FunctionSample, opts: &Options) -> Result<FnCost, RunError> {
        let timing = sample.timing;
        let (ghz, clock_drift, _) = frequency(opts, sample.clock.0, sample.clock.1)?;
        Ok(FnCost {
            ns: timing.ns_per_iter,
            cycles: measure::cycles(timing.ns_per_iter, ghz),
            ghz,
            clock_drift,
            timing,
            growth: sample.growth,
        })
    }
}

/// Times the function at offset `entry` of `code` (it takes the iteration
/// count in the first argument register), after the function at `init`,
/// if any, has run once (with 1 as its argument) and a warm-up call:
/// what the child measured, as MAN's raw file records it ([`FnCost::of`]
/// makes it a cost).
pub fn function_sample(
    t: &dyn Target,
    code: &[u8],
    entry: usize,
    init: Option<usize>,
    opts: &Options,
) -> Result<FunctionSample, RunError> {
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
    let cal = calibration(t)?;
    let calf = unsafe { (cal.0.entry(), cal.1.entry()) };
    let plan = opts.plan;
    // The user's functions run through the guard: one that breaks the
    // calling convention cannot break the child's own code.
    let guarded = |f: extern "C" fn(u64), n: u64| {
        let t = Instant::now();
        super::guard::call(f, n);
        t.elapsed()
    };
    let got = in_child(opts.cpu, opts.deadline, move || {
        if let Some(i) = init {
            super::guard::call(i, 1);
        }
        super::guard::call(f, 1);
        let before = ns_per_cycle(&plan, calf);
        let steady = measure::steady_iterations(&plan, |n| guarded(f, n));
        let a = measure::time(
            &Plan {
                first_iterations: steady,
                ..plan
            },
            |n| guarded(f, n),
        );
        let after = ns_per_cycle(&plan, calf);
        // Four times the count over the count, each the fastest of three
        // runs taken in turn, so that a host growing busier (other tests
        // on its two cores, an emulator) slows both alike: measured after
        // the timing alone, the ratio of a function that ignores its count
        // reached 2 under qemu-riscv64 on a busy CI host.
        // A ratio between 1.5 and 3 says neither (a function that runs
        // its count gives 4, one that ignores it 1): up to 12 rounds then,
        // until it does. Under qemu-aarch64 with a build beside it, a
        // function that runs its count once gave 1.97 after three.
        let (mut one, mut four) = (f64::INFINITY, f64::INFINITY);
        let mut growth = 0.0;
        for round in 0..12 {
            one = one.min(guarded(f, a.iterations).as_nanos() as f64);
            four = four.min(guarded(f, 4 * a.iterations).as_nanos() as f64);
            growth = four / one.max(1e-3);
            if round >= 2 && !(1.5..3.0).contains(&growth) {
                break;
            }
        }
        let mut out = timing_values(&a);
        out.extend([before, after, growth]);
        out
    })
    .map_err(RunError::Child)?;
    expect_len(&got, TIMING_LEN + 3)?;
    Ok(FunctionSample {
        timing: timing_from(&got[..TIMING_LEN]),
        clock: (got[TIMING_LEN], got[TIMING_LEN + 1]),
        growth: got[TIMING_LEN + 2],
    })
}

/// A sample counts as taken alone on the core when the probes around it
/// ([`crate::kernel::add_block`]) were at most this much slower than the
/// fastest probe: beside a busy sibling thread they are 50-70% slower,
/// and the clock moves by 3-4%.
const PROBE_SLACK: f64 = 0.06;

/// How far (relative) the clocks a round's two calibration kernels show
/// each on its own (adds per nanosecond) may differ ([`Member::kept`]):
/// 2%, what a loop of two instructions the chain did not hide would make
/// of them (1.6%), well below what the core stopping in one of them made
/// (4-13% on xeon-cf, where they agreed within 0.2% otherwise).
const CHAIN_AGREEMENT: f64 = 0.02;

/// The rounds of `rounds` that `keep`, when there are at least
/// [`MIN_CLEAN`] of them; else all of `rounds`.
fn at_least_min_clean(rounds: &[usize], keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let kept: Vec<usize> = rounds.iter().copied().filter(|&r| keep(r)).collect();
    if kept.len() >= MIN_CLEAN {
        kept
    } else {
        rounds.to_vec()
    }
}

/// How long a group's bodies run, untimed, before its first round: an
/// Intel core runs wide work slowly until it has lowered its clock for it
/// (a frequency licence), and a change of licence should happen off the
/// clock. On xeon-cf a group's first round still ran at another clock
/// than the rest now and then ([`Member::kept`] leaves such rounds out),
/// and this alone did not give 256-bit forms that load one value
/// ([`primed`] did); it costs about a second of a full TP run.
const GROUP_WARM: Duration = Duration::from_millis(1);

/// Fewer clean rounds than this, and a body's timings come from all its
/// rounds; fewer than [`measure::Sampling::clean`], and they are flagged
/// noisy.
const MIN_CLEAN: usize = 4;

/// How far (relative) a round's own clock may be from the median of a
/// body's rounds and still count ([`Member::kept`]): 1%, well inside the
/// 2.5% between two clocks a Xeon core steps between (3.9 and 4.0 GHz on
/// xeon-cf), well outside the 0.2% a calibration varies by at one clock.
const STEADY_CLOCK: f64 = 0.01;

/// A probe run lasts about this long.
const PROBE_SAMPLE: Duration = Duration::from_micros(10);

/// A batch's first child runs the probe this long before it measures, so
/// that its first group is judged by a probe that had a chance to run
/// alone on the core.
const PROBE_WARMUP: Duration = Duration::from_millis(50);

/// Measures the bodies `0..n` (`make(i)`: the kernels with the body once
/// and twice) in as few forked children as possible, by
/// [`measure::Sampling`]: bodies go in groups, every kernel of a group and
/// the clock's calibration kernels (beside each kernel) are timed once per
/// round, many short rounds, and each kernel's minimum is kept. A probe
/// ([`crate::kernel::add_block`]) runs before and after each body's pair
/// of samples: only pairs with both probes within [`PROBE_SLACK`] of the
/// fastest probe count, the others were taken while the core's other
/// hardware thread was busy. `done(i, cost)` is called once per body, in
/// order; then once more for each body measured a second time at the end
/// (it lacked clean rounds, or was judged by a probe that later proved
/// slow) whose second cost is the better one.
///
/// When a kernel kills its child while it first runs, that body gets the
/// fault and a new child goes on; when a child dies during the rounds, the
/// group is measured again one body at a time, so a fault costs only the
/// body that caused it.
///
/// With a raw file ([`Options::raw`]) every result a child sends is
/// appended to it as it arrives, and a kernel pair the file already holds
/// (a replay, a resumed run) is not measured: its recorded looks are
/// handed out as if they had just been measured. A replay measures
/// nothing; a pair it lacks is [`RunError::NotRecorded`].
pub fn batch_costs(
    t: &dyn Target,
    n: usize,
    make: &dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
    width: &dyn Fn(usize) -> u32,
    opts: &Options,
    done: &mut dyn FnMut(usize, Result<Cost, RunError>),
) {
    let raw = opts.raw.as_deref();
    let replay_only = raw.is_some_and(|r| r.replay_only());
    let batch_no = raw.map_or(0, |r| r.begin_batch());
    let recorded: Vec<Option<Episode>> = match raw.filter(|r| r.has_recorded()) {
        Some(r) => (0..n)
            .map(|i| key_of(make, i).and_then(|k| r.take(k)))
            .collect(),
        None => vec![None; n],
    };
    // Each result as the raw file gets it, then as the analysis sees it.
    let settle = |i: usize, key: Option<u64>, look: u8, got: Got| {
        if let Some(raw) = raw {
            if let Some(k) = key.or_else(|| key_of(make, i)) {
                if let Err(e) = raw.put((batch_no, i as u32), k, look, &got) {
                    crate::interrupt::abort(format!("a result could not be written: {e}"));
                }
            }
        }
        cost_from(opts, &got, i, make)
    };
    let mut order = InOrder::new(n);
    let mut first: Vec<Option<Cost>> = vec![None; n];
    let mut live = Vec::new();
    for (i, episode) in recorded.iter().enumerate() {
        let r = match episode {
            Some(e) => cost_from(opts, &e.looks[0], i, make),
            None if replay_only => {
                Err(make(i).map_or_else(RunError::Kernel, |_| RunError::NotRecorded))
            }
            None => {
                live.push(i);
                continue;
            }
        };
        first[i] = r.as_ref().ok().copied();
        order.put(i, r, done);
    }
    let mut batch = None;
    let mut judged_by = vec![f64::INFINITY; n];
    if !live.is_empty() {
        let b = match Batch::new(t, make, width, opts) {
            Ok(b) => batch.insert(b),
            Err(why) => return crate::interrupt::abort(why),
        };
        // First pass, reported in order.
        b.run(&live, &mut |i, key, got, probe| {
            let r = settle(i, key, 1, got);
            first[i] = r.as_ref().ok().copied();
            judged_by[i] = probe;
            order.put(i, r, done);
        });
    }
    if crate::interrupt::requested() {
        return;
    }
    for (i, episode) in recorded.iter().enumerate() {
        for got in episode.iter().flat_map(|e| &e.looks[1..]) {
            if let Some(c) = merge(&mut first[i], &cost_from(opts, got, i, make)) {
                done(i, Ok(c));
            }
        }
    }
    if let Some(b) = &mut batch {
        let wanted = wanted_again(b, &live, &first, &judged_by);
        look_again(b, &wanted, &mut |i, key, got| {
            let c = merge(&mut first[i], &settle(i, key, 2, got));
            if let Some(c) = c {
                done(i, Ok(c));
            }
            c.is_some()
        });
    }
}

/// The key ([`raw::key`]) of body `i`'s kernel pair, when it builds.
fn key_of(make: &dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>, i: usize) -> Option<u64> {
    let (a, b) = make(i).ok()?;
    Some(raw::key(&a.text(), &b.text()))
}

/// A second look `new` merged into the body's `current` cost
/// ([`Cost::merged_with`]): the merged cost when it says something else.
fn merge(current: &mut Option<Cost>, new: &Result<Cost, RunError>) -> Option<Cost> {
    let (Some(old), Ok(new)) = (*current, new) else {
        return None;
    };
    let merged = old.merged_with(new);
    merged.differs_from(&old).then(|| {
        *current = Some(merged);
        merged
    })
}

/// The first pass's results, handed on in body order as they complete.
struct InOrder {
    results: Vec<Option<Result<Cost, RunError>>>,
    emitted: usize,
}

impl InOrder {
    fn new(n: usize) -> InOrder {
        InOrder {
            results: vec![None; n],
            emitted: 0,
        }
    }

    /// Body `i`'s result; every result now complete from the front goes
    /// to `done`.
    fn put(
        &mut self,
        i: usize,
        r: Result<Cost, RunError>,
        done: &mut dyn FnMut(usize, Result<Cost, RunError>),
    ) {
        self.results[i] = Some(r);
        while let Some(r) = self.results.get_mut(self.emitted).and_then(Option::take) {
            done(self.emitted, r);
            self.emitted += 1;
        }
    }
}

/// The bodies of `live` that get a second chance at the end of
/// [`batch_costs`]: those that did not get their clean rounds or no
/// positive difference, and those judged by a probe that later proved
/// slow (the sibling thread was busy from the start of the batch).
fn wanted_again(
    batch: &Batch,
    live: &[usize],
    first: &[Option<Cost>],
    judged_by: &[f64],
) -> Vec<usize> {
    let width = batch.width;
    let fastest = batch.fastest_probe;
    let stale = |i: usize| fastest[width_class(width(i))] * (1.0 + PROBE_SLACK);
    let wanted: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| {
            first[i].is_some_and(|c| c.noisy() || !c.positive() || judged_by[i] > stale(i))
        })
        .collect();
    most_slowed_first(&wanted, live, first, &|i| width_class(width(i)))
}

/// `wanted` in the order a second look should take them: the bodies
/// whose clock (the dependent adds timed right after their kernels) ran
/// furthest below the batch's median clock for their width class first,
/// those without a clock of their own before all. A busy sibling thread
/// slows the adds too: in two full TP runs on `zen5` (2026-12-02), the
/// 616 forms more than 5% apart had a median clock of 3.72 GHz in the
/// slower run, the others 3.93, and 44% of the bodies more than 7% below
/// the median moved, against 5% overall. Taken in body order, the
/// chunks of second looks ended early ([`look_again`]) with 5,739 of
/// 8,279 such bodies never looked at again. The width class keeps a
/// frequency licence (Intel's 512-bit clock is 7% lower) from counting
/// as a slowed clock.
fn most_slowed_first(
    wanted: &[usize],
    live: &[usize],
    first: &[Option<Cost>],
    class: &dyn Fn(usize) -> usize,
) -> Vec<usize> {
    let own_clock = |i: usize| {
        first[i]
            .filter(|c| !c.clock_fallback && c.ghz > 0.0)
            .map(|c| c.ghz)
    };
    let mut median = [None; CLASSES];
    for (k, m) in median.iter_mut().enumerate() {
        let mut clocks: Vec<f64> = live
            .iter()
            .filter(|&&i| class(i) == k)
            .filter_map(|&i| own_clock(i))
            .collect();
        clocks.sort_by(f64::total_cmp);
        *m = clocks.get(clocks.len() / 2).copied();
    }
    let ratio = |i: usize| match (own_clock(i), median[class(i)]) {
        (Some(g), Some(m)) => g / m,
        _ => 0.0,
    };
    let mut out = wanted.to_vec();
    out.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
    out
}

/// The second chance of [`batch_costs`]: the bodies `wanted` measured
/// again. `again(i, key, got)` takes each result and says whether it
/// changed the body's cost.
fn look_again(
    batch: &mut Batch,
    wanted: &[usize],
    again: &mut dyn FnMut(usize, Option<u64>, Got) -> bool,
) {
    SECOND_LOOK
        .wanted
        .fetch_add(wanted.len(), Ordering::Relaxed);
    // In chunks: when the core's other thread stays busy, a second look
    // rarely gives a better value (on the Xeon guest 221 of 9904 noisy
    // bodies, for 40% of the run's time), so a chunk that improves fewer
    // than one body in SECOND_YIELD ends it.
    for chunk in wanted.chunks(SECOND_CHUNK) {
        if crate::interrupt::requested() {
            return;
        }
        let mut improved = 0;
        batch.run(chunk, &mut |i, key, got, _| {
            improved += usize::from(again(i, key, got));
        });
        SECOND_LOOK
            .retried
            .fetch_add(chunk.len(), Ordering::Relaxed);
        SECOND_LOOK.improved.fetch_add(improved, Ordering::Relaxed);
        if improved * SECOND_YIELD < chunk.len() {
            break;
        }
    }
}

/// Bodies of a second look ([`batch_costs`]) come in chunks of this many.
const SECOND_CHUNK: usize = 256;

/// A chunk of a second look that improves fewer than one body in this
/// many ends it: the core's other thread is still busy.
const SECOND_YIELD: usize = 16;

/// What the second looks of a run's batches did ([`batch_costs`]):
/// bodies that wanted one, that got one, and whose cost it changed.
struct SecondLook {
    wanted: AtomicUsize,
    retried: AtomicUsize,
    improved: AtomicUsize,
}

static SECOND_LOOK: SecondLook = SecondLook {
    wanted: AtomicUsize::new(0),
    retried: AtomicUsize::new(0),
    improved: AtomicUsize::new(0),
};

/// The second looks of this process's batches so far: bodies that wanted
/// one (noisy, no positive difference, or judged by a slow probe), that
/// got one, and whose cost it changed.
pub fn second_looks() -> (usize, usize, usize) {
    let l = &SECOND_LOOK;
    (
        l.wanted.load(Ordering::Relaxed),
        l.retried.load(Ordering::Relaxed),
        l.improved.load(Ordering::Relaxed),
    )
}

/// The cost of body `i` from what its child gave (or the raw file
/// recorded): the analysis of a result, the same in a run and a replay.
fn cost_from(
    opts: &Options,
    got: &Got,
    i: usize,
    make: &dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
) -> Result<Cost, RunError> {
    match got {
        Got::Sample(s) => cost_of(opts, s.once, s.twice, s.clock.0, s.clock.1).map(|c| Cost {
            rounds: (s.rounds as usize, s.clean as usize),
            ..c
        }),
        Got::NotBuilt => Err(match make(i) {
            Err(e) => RunError::Kernel(e),
            Ok(_) => RunError::Map("the child could not map the kernels".into()),
        }),
        Got::Fault(f) => Err(RunError::Child(ChildError::from(f))),
    }
}

/// What the children of one [`batch_costs`] share.
struct Batch<'a> {
    make: &'a dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
    width: &'a dyn Fn(usize) -> u32,
    opts: &'a Options,
    cal: (extern "C" fn(u64), extern "C" fn(u64)),
    /// The calibration beside bodies wider than 128 bits
    /// ([`crate::kernel::wide_add_chain`]), where the target has a primer.
    wide_cal: Option<(extern "C" fn(u64), extern "C" fn(u64))>,
    probe: extern "C" fn(u64),
    /// The target's wide primer, run before each sample of a body wider
    /// than 128 bits ([`primed`], [`PRIMER_ITERATIONS`]).
    primer: Option<extern "C" fn(u64)>,
    /// The mapped calibration, probe and primer kernels the entries point
    /// into.
    _code: Vec<Code>,
    /// The fastest probe any child saw, per width class: the next child
    /// starts from it.
    fastest_probe: [f64; CLASSES],
}

impl<'a> Batch<'a> {
    /// The calibration and probe kernels mapped; without them no body can
    /// be measured: winic's failure, not the forms', so the run stops
    /// with the reason.
    fn new(
        t: &dyn Target,
        make: &'a dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
        width: &'a dyn Fn(usize) -> u32,
        opts: &'a Options,
    ) -> Result<Batch<'a>, String> {
        let cal = calibration(t).map_err(|e| format!("the clock's calibration kernels: {e}"))?;
        let probe = crate::kernel::add_block(t, 4)
            .map_err(RunError::from)
            .and_then(|k| map(&k))
            .map_err(|e| format!("the probe kernel: {e}"))?;
        let primer = crate::kernel::wide_primer(t)
            .map_err(RunError::from)
            .and_then(|k| k.map(|k| map(&k)).transpose())
            .map_err(|e| format!("the wide primer kernel: {e}"))?;
        let wide_cal = wide_calibration(t)
            .map_err(|e| format!("the clock's calibration kernels beside wide bodies: {e}"))?;
        // SAFETY: built by `kernel`; they run only in the children, and
        // the mapped code lives as long as the batch.
        let (calf, probef) = unsafe { ((cal.0.entry(), cal.1.entry()), probe.entry()) };
        let primerf = primer.as_ref().map(|p| unsafe { p.entry() });
        let wide_calf = wide_cal
            .as_ref()
            .map(|c| unsafe { (c.0.entry(), c.1.entry()) });
        Ok(Batch {
            make,
            width,
            opts,
            cal: calf,
            wide_cal: wide_calf,
            probe: probef,
            primer: primerf,
            _code: [cal.0, cal.1, probe]
                .into_iter()
                .chain(primer)
                .chain(wide_cal.into_iter().flat_map(|(a, b)| [a, b]))
                .collect(),
            fastest_probe: [f64::INFINITY; CLASSES],
        })
    }

    /// Measures the bodies `todo` in as many children as it takes;
    /// `got(i, key, result, probe)` is called once per body as its result
    /// arrives, with its kernel pair's key when the child sent one, and
    /// the probe time its clean rounds were judged by.
    fn run(&mut self, todo: &[usize], got: &mut dyn FnMut(usize, Option<u64>, Got, f64)) {
        let (make, opts, sampling, width) = (self.make, self.opts, self.opts.sampling, self.width);
        let (calf, probef, primer) = (self.cal, self.probe, self.primer);
        let wide_calf = self.wide_cal;
        let mut finished: std::collections::HashSet<usize> = Default::default();
        // Bodies measured alone, after a child died in the rounds of their
        // group.
        let mut alone: std::collections::HashSet<usize> = Default::default();
        loop {
            let open: Vec<usize> = todo
                .iter()
                .copied()
                .filter(|i| !finished.contains(i))
                .collect();
            let open = by_class(&open, sampling.group * WINDOW_GROUPS, width);
            let Some(&first) = open.first() else { return };
            if crate::interrupt::requested() {
                return;
            }
            let fastest = self.fastest_probe;
            let mut group: Vec<usize> = Vec::new();
            let mut warmed: Vec<usize> = Vec::new();
            let fastest_probe = &mut self.fastest_probe;
            let fate = super::in_child_stream(
                opts.cpu,
                opts.deadline,
                |out| {
                    // Half a sample: it runs beside every body in every round.
                    let with_iterations = |c: (extern "C" fn(u64), extern "C" fn(u64))| {
                        (
                            c,
                            measure::iterations_for(sampling.sample / 2, |k| timed(c.1, k)),
                        )
                    };
                    let (_, cal_iterations) = with_iterations(calf);
                    let wide_cal = wide_calf.map(with_iterations);
                    let mut bench = Kernels {
                        members: Vec::new(),
                        cal: calf,
                        probe: probef,
                        primer: None,
                    };
                    let mut probe = Probe::new(&mut bench, fastest, &sampling);
                    let mut rest = &open[..];
                    while !rest.is_empty() {
                        let len = group_len(rest, &alone, sampling.group, width);
                        let (group, more) = rest.split_at(len);
                        rest = more;
                        probe.class = width_class(width(group[0]));
                        let wide = primed(probe.class);
                        let primer = primer.filter(|_| wide);
                        let cal = wide_cal.filter(|_| wide).unwrap_or((calf, cal_iterations));
                        let kernels = (probef, primer);
                        if !measure_group(group, make, &sampling, cal, &mut probe, kernels, out) {
                            return;
                        }
                    }
                },
                // Each result goes on as it arrives, so that the caller
                // can save it while the child measures the rest.
                &mut |r| match Message::decode(&r) {
                    Some(Message::Group(ids)) => {
                        group = ids;
                        warmed.clear();
                    }
                    Some(Message::Warm(i)) => warmed.push(i),
                    Some(Message::Probe { class, ns }) => {
                        let c = class.min(CLASSES - 1);
                        fastest_probe[c] = fastest_probe[c].min(ns);
                    }
                    Some(Message::NotBuilt(i)) if group.contains(&i) => {
                        finished.insert(i);
                        got(i, None, Got::NotBuilt, fastest_probe[width_class(width(i))]);
                    }
                    Some(Message::Body { i, key, sample }) if group.contains(&i) => {
                        finished.insert(i);
                        let probe = fastest_probe[width_class(width(i))];
                        got(i, Some(key), Got::Sample(sample), probe);
                    }
                    _ => {}
                },
            );
            let Some(e) = fate else { continue };
            if e == ChildError::Interrupted || crate::interrupt::requested() {
                // The user stopped the run: no body is to blame, and none
                // is measured further.
                return;
            }
            let Some(fault) = e.fault() else {
                // winic could not fork, poll or reap: no body is to blame,
                // and none could be measured.
                crate::interrupt::abort(format!("running a measuring child: {e}"));
                return;
            };
            let unfinished: Vec<usize> = group
                .iter()
                .copied()
                .filter(|i| !finished.contains(i))
                .collect();
            let mut blame = |i: usize, finished: &mut std::collections::HashSet<usize>| {
                finished.insert(i);
                got(i, None, Got::Fault(fault.clone()), f64::INFINITY);
            };
            match unfinished.iter().find(|i| !warmed.contains(i)) {
                // Died while a body first ran: that body's fault.
                Some(&i) => blame(i, &mut finished),
                // Died in the rounds: measure the group again body by body.
                None if unfinished.len() > 1 => alone.extend(unfinished),
                // Died before any group, or in a lone body's rounds: the
                // first open body takes the blame, so this ends.
                None => blame(unfinished.first().copied().unwrap_or(first), &mut finished),
            }
        }
    }
}

/// What a batch child sends, one message at a time, as the numbers
/// [`super::Records::send`] carries: a tag, then the message's values.
#[derive(Clone, Debug, PartialEq)]
enum Message {
    /// A group of bodies begins.
    Group(Vec<usize>),
    /// Body `i` ran once and its iteration count is set: a fault from
    /// here on happened in its group's rounds.
    Warm(usize),
    /// Body `i`'s kernels could not be built or mapped.
    NotBuilt(usize),
    /// The fastest probe so far in width class `class`, ns per iteration.
    Probe { class: usize, ns: f64 },
    /// Body `i` measured: its kernel pair's key ([`raw::key`]) and sample.
    Body { i: usize, key: u64, sample: Sample },
}

impl Message {
    const GROUP: f64 = 1.0;
    const WARM: f64 = 2.0;
    const NOT_BUILT: f64 = 3.0;
    const PROBE: f64 = 4.0;
    const BODY: f64 = 5.0;
    /// Values of a [`Message::Body`]: tag, index, key (two halves), two
    /// timings, rounds, clean rounds, two clocks.
    const BODY_LEN: usize = 4 + 2 * TIMING_LEN + 4;

    fn encode(&self) -> Vec<f64> {
        match self {
            Message::Group(ids) => std::iter::once(Self::GROUP)
                .chain(ids.iter().map(|&i| i as f64))
                .collect(),
            Message::Warm(i) => vec![Self::WARM, *i as f64],
            Message::NotBuilt(i) => vec![Self::NOT_BUILT, *i as f64],
            Message::Probe { class, ns } => vec![Self::PROBE, *class as f64, *ns],
            Message::Body { i, key, sample } => {
                let mut v = vec![
                    Self::BODY,
                    *i as f64,
                    (key >> 32) as f64,
                    (key & 0xffff_ffff) as f64,
                ];
                v.extend(timing_values(&sample.once));
                v.extend(timing_values(&sample.twice));
                v.extend([
                    f64::from(sample.rounds),
                    f64::from(sample.clean),
                    sample.clock.0,
                    sample.clock.1,
                ]);
                debug_assert_eq!(v.len(), Self::BODY_LEN);
                v
            }
        }
    }

    /// The message `v` encodes, `None` for anything else.
    fn decode(v: &[f64]) -> Option<Message> {
        let index = |x: f64| (x >= 0.0 && x.fract() == 0.0 && x < 1e15).then_some(x as usize);
        let (&tag, rest) = v.split_first()?;
        Some(match (tag, rest) {
            (Self::GROUP, ids) => {
                Message::Group(ids.iter().map(|&x| index(x)).collect::<Option<_>>()?)
            }
            (Self::WARM, &[i]) => Message::Warm(index(i)?),
            (Self::NOT_BUILT, &[i]) => Message::NotBuilt(index(i)?),
            (Self::PROBE, &[class, ns]) => Message::Probe {
                class: index(class)?,
                ns,
            },
            (Self::BODY, _) if v.len() == Self::BODY_LEN => {
                let half = |x: f64| index(x).filter(|&h| h <= u32::MAX as usize);
                let t = &rest[3..];
                Message::Body {
                    i: index(rest[0])?,
                    key: ((half(rest[1])? as u64) << 32) | half(rest[2])? as u64,
                    sample: Sample {
                        once: timing_from(&t[..TIMING_LEN]),
                        twice: timing_from(&t[TIMING_LEN..2 * TIMING_LEN]),
                        rounds: index(t[2 * TIMING_LEN])? as u32,
                        clean: index(t[2 * TIMING_LEN + 1])? as u32,
                        clock: (t[2 * TIMING_LEN + 2], t[2 * TIMING_LEN + 3]),
                    },
                }
            }
            _ => return None,
        })
    }
}

/// What the rounds of a group run: the kernels of its members, the
/// clock's calibration chain (64 and 128 dependent adds) and the probe.
/// In a batch child, the mapped kernels ([`Kernels`]); in tests, a
/// simulated core whose clock follows what ran.
trait Bench {
    /// Nanoseconds per iteration of member `k`'s kernel with the body
    /// once (`twice` false) or twice, run for `n` iterations.
    fn member(&mut self, k: usize, twice: bool, n: u64) -> f64;
    /// The same for the calibration chain.
    fn calibration(&mut self, twice: bool, n: u64) -> f64;
    /// The same for the probe.
    fn probe(&mut self, n: u64) -> f64;
}

/// The kernels of a group in a batch child.
struct Kernels {
    members: Vec<(extern "C" fn(u64), extern "C" fn(u64))>,
    cal: (extern "C" fn(u64), extern "C" fn(u64)),
    probe: extern "C" fn(u64),
    /// Run before each member's sample, when the group's bodies are
    /// [`primed`] and the target has one.
    primer: Option<extern "C" fn(u64)>,
}

/// Iterations of the wide primer before a sample: 32 times its copies,
/// about 100 ns on xeon-cf, after which 512-bit logic forms that load ran
/// at 0.50 cycles through samples of tens of microseconds.
const PRIMER_ITERATIONS: u64 = 32;

impl Bench for Kernels {
    fn member(&mut self, k: usize, twice: bool, n: u64) -> f64 {
        let (a, b) = self.members[k];
        super::data::restore();
        if let Some(p) = self.primer {
            p(PRIMER_ITERATIONS);
        }
        per_iteration(if twice { b } else { a }, n)
    }

    fn calibration(&mut self, twice: bool, n: u64) -> f64 {
        let (a, b) = self.cal;
        per_iteration(if twice { b } else { a }, n)
    }

    fn probe(&mut self, n: u64) -> f64 {
        per_iteration(self.probe, n)
    }
}

/// Whether the bodies of width class `class` are timed after the wide
/// primer and beside the wide chain: those of registers wider than 128
/// bits. On xeon-cf 256-bit forms that load ran at two speeds, each at
/// its own clock (0.41 cycles at 3.9 GHz and 0.52-0.53 at 4.0 for `vpor
/// ymm, ymm, [m]`, whichever the body before had left), and 4 full runs
/// in 100-102 differing forms were mostly those; primed as the 512-bit
/// ones, they took 0.35-0.37 at 3.9 GHz in four runs of four, and three
/// full runs differed in 9-14 forms. Register forms keep their cycles:
/// `vpxord ymm` 0.333 either way.
fn primed(class: usize) -> bool {
    class >= 1
}

/// Width classes ([`width_class`]).
const CLASSES: usize = 3;

/// The width class of a body of registers up to `bits` wide: up to 128,
/// 256, or more (Intel's frequency licences follow the vector width).
fn width_class(bits: u32) -> usize {
    match bits {
        0..=128 => 0,
        129..=256 => 1,
        _ => 2,
    }
}

/// Groups' worth of bodies [`by_class`] reorders at a time.
const WINDOW_GROUPS: usize = 16;

/// `open` in the order its groups are measured: window by window of
/// `window` bodies, each window's bodies by width class (the order kept
/// within a class). A group holds one class ([`group_len`]), and bodies
/// in the order they were asked for alternate classes (`VADDPDZ128rr`,
/// `VADDPDZ256rr`, `VADDPDZrr`; a form's mixes with a scalar and a
/// 512-bit probe): on the Xeon guest, with the core's other thread busy,
/// groups of the `ports` run's mixes held 2.4 bodies on average, each
/// group waited out its patience for clean rounds, and 71,000 mixes took
/// 32 minutes. Results are handed on in body order, so a window delays
/// the progress display by at most its length.
fn by_class(open: &[usize], window: usize, width: &dyn Fn(usize) -> u32) -> Vec<usize> {
    open.chunks(window.max(1))
        .flat_map(|w| {
            let mut w = w.to_vec();
            w.sort_by_key(|&i| width_class(width(i)));
            w
        })
        .collect()
}

/// How many of the bodies `rest` (in order) the next group takes: up to
/// `size`, all of one width class (a 512-bit body lowers the clock of
/// the core for 0.7 ms on Intel server cores, and a scalar body timed in
/// its wake would straddle the change back), none measured `alone` (after
/// its group's child died in the rounds), or that one body alone.
fn group_len(
    rest: &[usize],
    alone: &std::collections::HashSet<usize>,
    size: usize,
    width: &dyn Fn(usize) -> u32,
) -> usize {
    let Some(&first) = rest.first() else { return 0 };
    if alone.contains(&first) {
        return 1;
    }
    let class = width_class(width(first));
    rest.iter()
        .take(size.max(1))
        .take_while(|&&i| !alone.contains(&i) && width_class(width(i)) == class)
        .count()
}

/// The probe of a batch child ([`crate::kernel::add_block`]): its
/// iteration count, the fastest it ran so far in each width class, the
/// class of the group being measured, and how long the next group waits
/// for clean rounds. A probe is compared with the fastest of its group's
/// class: beside 512-bit work an Intel core runs at a lower clock
/// (frequency licences), so the probe runs slower there without the
/// other hardware thread being busy; groups hold one class.
struct Probe {
    iterations: u64,
    fastest: [f64; CLASSES],
    class: usize,
    patience: Duration,
}

impl Probe {
    /// The probe with its iteration count set; with no fastest run known
    /// yet, it runs for [`PROBE_WARMUP`] first.
    fn new(bench: &mut dyn Bench, fastest: [f64; CLASSES], sampling: &measure::Sampling) -> Probe {
        bench.probe(1);
        let mut p = Probe {
            iterations: measure::iterations_for(PROBE_SAMPLE, |k| {
                Duration::from_secs_f64(bench.probe(k) * k as f64 * 1e-9)
            }),
            fastest,
            class: 0,
            patience: sampling.budget,
        };
        if fastest[0].is_infinite() {
            let start = Instant::now();
            while start.elapsed() < PROBE_WARMUP {
                p.run(bench);
            }
        }
        p
    }

    /// Times the probe once (ns per iteration); remembers the fastest of
    /// the current class.
    fn run(&mut self, bench: &mut dyn Bench) -> f64 {
        let ns = bench.probe(self.iterations);
        self.fastest[self.class] = self.fastest[self.class].min(ns);
        ns
    }

    /// Whether a pair of samples between probes of `before` and `after`
    /// ns was taken alone on the core.
    fn alone(&self, (before, after): (f64, f64)) -> bool {
        let limit = self.fastest[self.class] * (1.0 + PROBE_SLACK);
        before <= limit && after <= limit
    }
}

/// One body of a group in a batch child: its samples.
struct Member {
    i: usize,
    iterations: u64,
    once: Vec<f64>,
    twice: Vec<f64>,
    /// The calibration chain (once, twice) timed right after each pair of
    /// samples, in whatever clock the body left the core in.
    cal: (Vec<f64>, Vec<f64>),
    /// The probes before and after each pair of samples.
    probes: Vec<(f64, f64)>,
}

impl Member {
    fn new(i: usize, iterations: u64) -> Member {
        Member {
            i,
            iterations,
            once: Vec::new(),
            twice: Vec::new(),
            cal: (Vec::new(), Vec::new()),
            probes: Vec::new(),
        }
    }

    /// The rounds taken alone on the core, by `probe`'s fastest run.
    fn clean(&self, probe: &Probe) -> Vec<usize> {
        (0..self.probes.len())
            .filter(|&r| probe.alone(self.probes[r]))
            .collect()
    }

    /// The rounds this body's timings and clock come from: its clean
    /// rounds; of them those whose calibration's two kernels show one
    /// clock (within [`CHAIN_AGREEMENT`]); of them those whose clock is the
    /// one most of them show (within [`STEADY_CLOCK`] of their median).
    /// Each step keeps what it had when fewer than [`MIN_CLEAN`] rounds
    /// would remain. Each kernel's fastest round and the clock's are
    /// then taken at one clock: on xeon-cf a group of 512-bit bodies ran
    /// its first round at 4.0 GHz and the rest at 3.9, and the body's
    /// fastest times (of the first round) converted at the clock of the
    /// rest made `vsubpd zmm` 0.49 where it is 0.50. A round whose
    /// calibration a neighbour slowed leaves too, rather than lend its
    /// clock to the others.
    fn kept(&self, probe: &Probe) -> Vec<usize> {
        let clean = self.clean(probe);
        let rounds: Vec<usize> = if clean.len() >= MIN_CLEAN {
            clean
        } else {
            (0..self.probes.len()).collect()
        };
        let (once, twice) = &self.cal;
        if once.len() < self.probes.len() {
            return rounds;
        }
        // A chain runs one add a cycle in both its kernels, so a round
        // whose two kernels show clocks further apart than
        // CHAIN_AGREEMENT had the core stop or change its clock during one
        // of them
        // (on xeon-cf for about a microsecond, some 10 us after a body
        // of 256 or 512 bits, in every round of a group: their difference
        // read 4.05-4.52 GHz on a core that never exceeds 4.0).
        let rounds = at_least_min_clean(&rounds, |r| {
            let (a, b) = (once[r] / CHAIN as f64, twice[r] / (2 * CHAIN) as f64);
            (a - b).abs() <= CHAIN_AGREEMENT * b
        });
        let clock = |r: usize| (twice[r] - once[r]) / CHAIN as f64;
        let clocks: Vec<f64> = rounds.iter().map(|&r| clock(r)).collect();
        match measure::median(&clocks) {
            // Not an emulator's (no clock to agree on there).
            Some(median) if median > 0.0 => at_least_min_clean(&rounds, |r| {
                (clock(r) - median).abs() <= STEADY_CLOCK * median
            }),
            _ => rounds,
        }
    }

    /// Nanoseconds per cycle from the calibrations taken beside this
    /// body's `rounds` (its [`Member::kept`] ones), in the first and the
    /// second half of them; (0, 0) without calibrations. An emulator's
    /// difference that is not positive stays so: the parent says what
    /// that means.
    fn clock(&self, rounds: &[usize], cal_iterations: u64, max_spread: f64) -> (f64, f64) {
        let (once, twice) = &self.cal;
        if once.is_empty() || rounds.is_empty() {
            return (0.0, 0.0);
        }
        let ns = |rs: &[usize]| {
            let pick = |v: &[f64]| rs.iter().map(|&r| v[r]).collect::<Vec<f64>>();
            let a = measure::estimate(&pick(once), cal_iterations, max_spread);
            let b = measure::estimate(&pick(twice), cal_iterations, max_spread);
            measure::unroll_difference(&a, &b) / CHAIN as f64
        };
        let half = rounds.len().div_ceil(2);
        let rest = half.min(rounds.len() - 1);
        let (first, second) = (ns(&rounds[..half]), ns(&rounds[rest..]));
        if first > 0.0 && second > 0.0 {
            (first, second)
        } else {
            let all = ns(rounds);
            (all, all)
        }
    }
}

/// The rounds of a group: in each, every member still wanting samples
/// runs untimed for a moment (a change of frequency licence happens off
/// the clock), is timed once and twice, then the calibration chain right
/// after it (so the clock is the one the body left the core in: an
/// Intel core keeps a lowered clock for about 0.7 ms after 512-bit work,
/// and a scalar add chain ran 7.9% slower then), then the probe. Rounds
/// go on until every member has its clean rounds (and, while they spread,
/// more), or the probe's patience runs out. `true` when every member got
/// what it wanted.
fn sample_rounds(
    members: &mut [Member],
    bench: &mut dyn Bench,
    sampling: &measure::Sampling,
    probe: &mut Probe,
    cal_iterations: u64,
) -> bool {
    let start = Instant::now();
    // Into the group's clock before the first probe: a probe judged
    // against the fastest of its class must not run in another licence,
    // and a body must not be timed while the core waits for one (below).
    let warm = Instant::now();
    loop {
        for (k, m) in members.iter().enumerate() {
            bench.member(k, false, (m.iterations / 2).max(1));
        }
        if warm.elapsed() >= GROUP_WARM {
            break;
        }
    }
    for round in 0..sampling.max_rounds.max(1) {
        // A body wants more rounds until it has enough clean ones, and,
        // up to four times as many, while its clean samples spread (the
        // sibling thread was busy unnoticed, or the form runs at two speeds).
        let wanting: Vec<usize> = (0..members.len())
            .filter(|&k| {
                let m = &members[k];
                let clean = m.clean(probe);
                let spread = |samples: &[f64]| {
                    let kept: Vec<f64> = clean.iter().map(|&r| samples[r]).collect();
                    measure::estimate(&kept, m.iterations, sampling.max_spread).noisy
                };
                clean.len() < sampling.clean
                    || (clean.len() < 4 * sampling.clean && (spread(&m.once) || spread(&m.twice)))
            })
            .collect();
        if wanting.is_empty() {
            return true;
        }
        if round >= sampling.clean && start.elapsed() >= probe.patience {
            return false;
        }
        let mut before = probe.run(bench);
        for k in wanting {
            let m = &mut members[k];
            bench.member(k, false, (m.iterations / 2).max(1));
            m.once.push(bench.member(k, false, m.iterations));
            m.twice.push(bench.member(k, true, m.iterations));
            // Untimed first: the core may stop for a moment when the body
            // ends (a change of frequency licence; 0.4-1.3 us on xeon-cf,
            // 4-13% of the chain's once-kernel, which ran first and came
            // out that much slower in whole series of rounds).
            bench.calibration(false, (cal_iterations / 2).max(1));
            m.cal.0.push(bench.calibration(false, cal_iterations));
            m.cal.1.push(bench.calibration(true, cal_iterations));
            let after = probe.run(bench);
            m.probes.push((before, after));
            before = after;
        }
    }
    false
}

/// Runs in a batch child: builds, maps and warms the kernels of the bodies
/// `group`, sets each one's iteration count, times them round after round
/// ([`sample_rounds`]), and sends the records. `false` when the parent is
/// gone.
fn measure_group(
    group: &[usize],
    make: &dyn Fn(usize) -> Result<(Kernel, Kernel), KernelError>,
    sampling: &measure::Sampling,
    cal: ((extern "C" fn(u64), extern "C" fn(u64)), u64),
    probe: &mut Probe,
    (probe_f, primer): (extern "C" fn(u64), Option<extern "C" fn(u64)>),
    out: &mut super::Records,
) -> bool {
    if !out.send(&Message::Group(group.to_vec()).encode()) {
        return false;
    }
    let mut members = Vec::new();
    let mut bench = Kernels {
        members: Vec::new(),
        cal: cal.0,
        probe: probe_f,
        primer,
    };
    let mut codes = Vec::new();
    let mut keys = Vec::new();
    for &i in group {
        let mapped = make(i).ok().and_then(|(a, b)| {
            let key = raw::key(&a.text(), &b.text());
            Some((map(&a).ok()?, map(&b).ok()?, key))
        });
        let Some((once, twice, key)) = mapped else {
            if !out.send(&Message::NotBuilt(i).encode()) {
                return false;
            }
            continue;
        };
        let code = (once, twice);
        // SAFETY: kernels built by `kernel`, running in the child.
        let f = unsafe { (code.0.entry(), code.1.entry()) };
        codes.push(code);
        // The first runs: page faults, caches, the AVX state; a fault here
        // is this body's.
        f.0(1);
        f.1(1);
        let iterations = measure::iterations_for(sampling.sample, |k| timed(f.1, k));
        if !out.send(&Message::Warm(i).encode()) {
            return false;
        }
        bench.members.push(f);
        members.push(Member::new(i, iterations));
        keys.push(key);
    }
    if members.is_empty() {
        return true;
    }
    let satisfied = sample_rounds(&mut members, &mut bench, sampling, probe, cal.1);
    // A satisfied group doubles the patience, not restores it: under a
    // tenant that comes and goes, a full budget after every clean group
    // was spent waiting at the next busy one.
    probe.patience = if satisfied {
        (probe.patience * 2).min(sampling.budget)
    } else {
        (probe.patience / 2).max(sampling.budget / 32)
    };
    let class = probe.class;
    let best = Message::Probe {
        class,
        ns: probe.fastest[class],
    };
    if !out.send(&best.encode()) {
        return false;
    }
    for (m, &key) in members.iter().zip(&keys) {
        let sample = member_sample(m, probe, cal.1, sampling);
        if !out.send(
            &Message::Body {
                i: m.i,
                key,
                sample,
            }
            .encode(),
        ) {
            return false;
        }
    }
    true
}

/// What a batch child sends of a member: its timings and its clock
/// ([`Member::clock`]), both from its [`Member::kept`] rounds, and its
/// rounds and clean rounds.
fn member_sample(
    m: &Member,
    probe: &Probe,
    cal_iterations: u64,
    sampling: &measure::Sampling,
) -> Sample {
    let clean = m.clean(probe);
    let rounds = m.kept(probe);
    let timing = |samples: &[f64]| {
        let kept: Vec<f64> = rounds.iter().map(|&r| samples[r]).collect();
        let t = measure::estimate(&kept, m.iterations, sampling.max_spread);
        Timing {
            noisy: t.noisy || clean.len() < sampling.clean,
            ..t
        }
    };
    Sample {
        once: timing(&m.once),
        twice: timing(&m.twice),
        rounds: m.probes.len() as u32,
        clean: clean.len() as u32,
        clock: m.clock(&rounds, cal_iterations, sampling.max_spread),
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
    let (ghz, drift, clock_fallback) = frequency(opts, before, after)?;
    let ns = measure::unroll_difference(&once, &twice);
    Ok(Cost {
        ns,
        cycles: measure::cycles(ns, ghz),
        ghz,
        clock_drift: drift,
        once,
        twice,
        rounds: (0, 0),
        seen_ghz: seen(before, after),
        clock_fallback,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second look takes first the bodies whose clock ran furthest
    /// below their width class's median, those without a clock of their
    /// own before all; a 512-bit body at a licence's lower clock is
    /// judged against the other 512-bit bodies, not the narrow ones.
    #[test]
    fn a_second_look_takes_the_most_slowed_bodies_first() {
        let cost = |ghz: f64, fallback: bool| {
            Some(Cost {
                ghz,
                clock_fallback: fallback,
                ..Cost::default()
            })
        };
        // Bodies 0-4 of 128 bits at about 3.9 GHz, 5-7 of 512 bits at
        // about 3.6 (a licence).
        let first = vec![
            cost(3.92, false),
            cost(3.60, false), // slowed 8%
            cost(3.90, false),
            cost(3.75, false), // slowed 4%
            cost(3.91, true),  // no clock of its own
            cost(3.61, false),
            cost(3.60, false),
            cost(3.45, false), // slowed 4% below the 512-bit ones
        ];
        let class = |i: usize| usize::from(i >= 5) * 2;
        let live: Vec<usize> = (0..8).collect();
        let wanted = [0, 1, 2, 3, 4, 5, 7];
        let order = most_slowed_first(&wanted, &live, &first, &class);
        assert_eq!(order, vec![4, 1, 7, 3, 2, 5, 0]);
    }

    /// A core with Intel's frequency licences, simulated: 4.09 GHz, and
    /// 3.79 GHz from the moment 512-bit ("heavy") work runs until 0.7 ms
    /// after the last of it; a heavy kernel that starts at the high clock
    /// first stalls for 15 µs (the licence change). Times advance a
    /// simulated clock; nothing runs.
    struct LicensedCore {
        now: f64,
        last_heavy: f64,
        /// Per member: cycles per iteration once and twice, and whether it
        /// is heavy.
        members: Vec<(f64, f64, bool)>,
    }

    impl LicensedCore {
        const HIGH: f64 = 4.09;
        const LOW: f64 = 3.79;

        fn ghz(&self) -> f64 {
            if self.now - self.last_heavy < 700_000.0 {
                Self::LOW
            } else {
                Self::HIGH
            }
        }

        /// Runs `cycles` per iteration for `n` iterations: ns per iteration.
        fn run(&mut self, cycles: f64, n: u64, heavy: bool) -> f64 {
            // A kernel counts its iterations down to 0: given 0, it would
            // run 2^64 of them (until the watchdog kills it).
            assert!(n >= 1, "a kernel was called with 0 iterations");
            let mut ns = 0.0;
            if heavy && self.ghz() == Self::HIGH {
                ns += 15_000.0;
                self.last_heavy = self.now;
            }
            ns += cycles * n as f64 / self.ghz();
            self.now += ns;
            if heavy {
                self.last_heavy = self.now;
            }
            ns / n as f64
        }
    }

    impl Bench for LicensedCore {
        fn member(&mut self, k: usize, twice: bool, n: u64) -> f64 {
            let (once, two, heavy) = self.members[k];
            // The loop's own two instructions.
            self.run(if twice { two } else { once } + 2.0, n, heavy)
        }

        fn calibration(&mut self, twice: bool, n: u64) -> f64 {
            let adds = if twice { 2 * CHAIN } else { CHAIN } as f64;
            self.run(adds + 2.0, n, false)
        }

        fn probe(&mut self, n: u64) -> f64 {
            self.run(4.0 * 12.0 / 4.0 + 2.0, n, false)
        }
    }

    /// Groups never mix width classes, keep their size, and a body
    /// measured alone is a group of its own.
    #[test]
    fn groups_hold_bodies_of_one_width() {
        let widths = [64, 64, 512, 512, 512, 128, 256, 64];
        let width = |i: usize| widths[i];
        let all: Vec<usize> = (0..widths.len()).collect();
        let none = std::collections::HashSet::new();
        let mut lens = Vec::new();
        let mut rest = &all[..];
        while !rest.is_empty() {
            let n = group_len(rest, &none, 16, &width);
            lens.push(n);
            rest = &rest[n..];
        }
        assert_eq!(lens, [2, 3, 1, 1, 1]);
        assert_eq!(group_len(&all[..2], &none, 1, &width), 1);
        let alone: std::collections::HashSet<usize> = [1].into();
        assert_eq!(group_len(&all[1..], &alone, 16, &width), 1);
        assert_eq!(group_len(&all, &alone, 16, &width), 1);
    }

    /// A window's bodies go by width class, each class in the order
    /// asked for, windows in order: groups then fill up.
    #[test]
    fn bodies_are_measured_by_class_window_by_window() {
        let widths = [64, 256, 512, 64, 256, 512, 128, 64];
        let width = |i: usize| widths[i];
        let all: Vec<usize> = (0..widths.len()).collect();
        assert_eq!(by_class(&all, 6, &width), [0, 3, 1, 4, 2, 5, 6, 7]);
        assert_eq!(by_class(&all, 100, &width), [0, 3, 6, 7, 1, 4, 2, 5]);
        assert_eq!(by_class(&all, 1, &width), all);
        let none = std::collections::HashSet::new();
        let ordered = by_class(&all, 100, &width);
        assert_eq!(group_len(&ordered, &none, 16, &width), 4);
    }

    /// Scalar and 512-bit bodies, each class in its group as batches
    /// form them, measured one group after the other on a core whose
    /// clock follows its frequency licence: each body's cycles come out
    /// as simulated, within 0.5%, and the licence makes no round look as
    /// if the other hardware thread were busy.
    #[test]
    fn each_body_is_converted_at_the_clock_it_ran_at() {
        // add (12 copies, 3 cycles), mul (12), then zmm fma chain (48),
        // zmm add (24), then scalar again.
        let bodies = [
            (3.0, false),
            (12.0, false),
            (48.0, true),
            (24.0, true),
            (3.0, false),
            (12.0, false),
        ];
        let mut core = LicensedCore {
            now: 0.0,
            last_heavy: -1e12,
            members: Vec::new(),
        };
        let sampling = measure::Sampling {
            max_rounds: 200,
            ..measure::Sampling::default()
        };
        let mut probe = Probe::new(&mut core, [f64::INFINITY; CLASSES], &sampling);
        let cal_iterations = 300;
        let opts = Options::default();
        for group in bodies.chunks(2) {
            probe.class = width_class(if group[0].1 { 512 } else { 64 });
            core.members = group.iter().map(|&(c, h)| (c, 2.0 * c, h)).collect();
            let mut members: Vec<Member> = group
                .iter()
                .enumerate()
                // Samples of 0.4 ms: a round outlasts the licence's 0.7
                // ms, so the clock changes within groups too.
                .map(|(k, &(c, _))| Member::new(k, (400_000.0 / (2.0 * c + 2.0) * 4.0) as u64))
                .collect();
            let ok = sample_rounds(
                &mut members,
                &mut core,
                &sampling,
                &mut probe,
                cal_iterations,
            );
            assert!(
                ok,
                "group {group:?}: clean rounds {:?} of {:?}, fastest probes {:?}",
                members
                    .iter()
                    .map(|m| m.clean(&probe).len())
                    .collect::<Vec<_>>(),
                members.iter().map(|m| m.probes.len()).collect::<Vec<_>>(),
                probe.fastest
            );
            for (m, &(cycles, heavy)) in members.iter().zip(group) {
                assert!(
                    m.clean(&probe).len() >= sampling.clean,
                    "{cycles} (heavy {heavy}): {} of {} rounds clean",
                    m.clean(&probe).len(),
                    m.probes.len()
                );
                let v = member_sample(m, &probe, cal_iterations, &sampling);
                let cost = cost_of(&opts, v.once, v.twice, v.clock.0, v.clock.1).unwrap();
                assert!(
                    (cost.cycles - cycles).abs() / cycles < 0.005,
                    "{cycles} (heavy {heavy}): {:.3} cycles (at {:.3} GHz)",
                    cost.cycles,
                    cost.ghz
                );
                let want = if heavy {
                    LicensedCore::LOW
                } else {
                    LicensedCore::HIGH
                };
                assert!(
                    (cost.ghz - want).abs() < 0.01,
                    "{cycles} (heavy {heavy}): converted at {:.3} GHz",
                    cost.ghz
                );
            }
        }
    }

    /// A member of ten clean rounds of a body of 24 cycles (a loop of 2
    /// more), each round at `ghz[r]`, its calibration's once-kernel
    /// slowed by `stall[r]` ns per iteration (the core stopped during
    /// it); the cycles its sample converts to.
    fn cycles_of_rounds(ghz: &[f64], stall: &[f64]) -> f64 {
        let probe = Probe {
            iterations: 1,
            fastest: [1.0; CLASSES],
            class: 0,
            patience: Duration::from_secs(1),
        };
        let mut m = Member::new(0, 1000);
        for (&g, &st) in ghz.iter().zip(stall) {
            m.once.push(26.0 / g);
            m.twice.push(50.0 / g);
            m.cal.0.push((CHAIN as f64 + 2.0) / g + st);
            m.cal.1.push((2.0 * CHAIN as f64 + 2.0) / g);
            m.probes.push((1.0, 1.0));
        }
        let sampling = measure::Sampling::default();
        let v = member_sample(&m, &probe, 300, &sampling);
        cost_of(&Options::default(), v.once, v.twice, v.clock.0, v.clock.1)
            .unwrap()
            .cycles
    }

    /// A group's first round at 4.0 GHz and the rest at 3.9 (a Xeon's
    /// licence arriving): the body's fastest times are the first
    /// round's, and converted at the clock of the rest they gave 23.7
    /// cycles for 24. Rounds whose calibration's two kernels disagree
    /// (the core stopped in one; here in six of ten rounds, as it did
    /// in every round of some groups) lend no clock either. Both come
    /// out within 0.5%.
    #[test]
    fn a_body_and_its_clock_come_from_rounds_at_one_clock() {
        let mut ghz = [3.9; 10];
        ghz[0] = 4.0;
        let c = cycles_of_rounds(&ghz, &[0.0; 10]);
        assert!((c - 24.0).abs() < 0.12, "{c}");
        let mut stall = [0.0; 10];
        stall[..6].fill(0.6);
        let c = cycles_of_rounds(&[3.9; 10], &stall);
        assert!((c - 24.0).abs() < 0.12, "{c}");
        // Too few rounds agree on anything: all of them count.
        stall[..8].fill(0.6);
        let c = cycles_of_rounds(&[3.9; 10], &stall);
        assert!(c > 24.12, "{c}");
    }

    /// Bodies of 256 and 512 bits are primed, those of 128 and less not.
    #[test]
    fn bodies_wider_than_128_bits_are_primed() {
        let primed_at = |bits| primed(width_class(bits));
        assert!(!primed_at(64));
        assert!(!primed_at(128));
        assert!(primed_at(256));
        assert!(primed_at(512));
    }

    /// A body so slow that one iteration fills a sample (`cpuid`, 12
    /// copies of 13,000 cycles) is still never run with 0 iterations:
    /// its untimed run before the timing once was, and hung for 10 s.
    #[test]
    fn a_one_iteration_body_is_never_run_with_none() {
        let mut core = LicensedCore {
            now: 0.0,
            last_heavy: -1e12,
            members: vec![(160_000.0, 320_000.0, false)],
        };
        let sampling = measure::Sampling {
            max_rounds: 20,
            ..measure::Sampling::default()
        };
        let mut probe = Probe::new(&mut core, [f64::INFINITY; CLASSES], &sampling);
        let mut members = vec![Member::new(0, 1)];
        sample_rounds(&mut members, &mut core, &sampling, &mut probe, 300);
        assert!(members[0].once.len() >= 10);
    }

    /// Every message a batch child sends comes back as sent (a key's
    /// high bits, an infinite spread, a negative clock); anything else is
    /// no message.
    #[test]
    fn child_messages_come_back_as_sent() {
        let t = Timing {
            ns_per_iter: 1.0 / 3.0,
            iterations: (1 << 40) + 1,
            spread: f64::INFINITY,
            noisy: true,
        };
        let sample = Sample {
            once: t,
            twice: Timing { noisy: false, ..t },
            rounds: 40,
            clean: 7,
            clock: (0.2331, -0.015625),
        };
        for m in [
            Message::Group(vec![0, 3, 1 << 30]),
            Message::Group(Vec::new()),
            Message::Warm(5),
            Message::NotBuilt(0),
            Message::Probe { class: 2, ns: 3.25 },
            Message::Body {
                i: 17,
                key: u64::MAX - 5,
                sample,
            },
        ] {
            assert_eq!(Message::decode(&m.encode()), Some(m.clone()), "{m:?}");
        }
        for bad in [
            &[][..],
            &[9.0, 1.0],
            &[2.0],
            &[2.0, -1.0],
            &[3.0, 0.5],
            &[5.0, 1.0, 2.0],
            &[1.0, f64::NAN],
        ] {
            assert_eq!(Message::decode(bad), None, "{bad:?}");
        }
    }

    /// The start clock is the median calibration: a slow one (noise) and
    /// a fast one (an unroll difference come out short) do not set it.
    #[test]
    fn the_start_clock_is_the_median_calibration() {
        let start_clock = measure::median;
        // The zen3 guest's slow start: one calibration at 2.91.
        let g = start_clock(&[2.91, 3.24, 3.23, 3.24, 3.10, 3.24, 3.22]);
        assert_eq!(g, Some(3.23));
        // A lone 4.51 on a 4.0 GHz core is no clock.
        assert_eq!(start_clock(&[4.51, 3.99, 4.0]), Some(4.0));
        assert_eq!(start_clock(&[3.3]), Some(3.3));
        assert_eq!(start_clock(&[]), None);
    }

    /// With `-f GHz`, a body whose calibration shows another clock says so.
    #[test]
    fn a_fixed_clock_that_the_kernel_did_not_run_at_is_flagged() {
        let t = Timing {
            ns_per_iter: 10.0,
            iterations: 100,
            spread: 0.0,
            noisy: false,
        };
        let opts = Options {
            clock: Clock::Fixed(4.09),
            ..Options::default()
        };
        let low = 1.0 / 3.79;
        let c = cost_of(&opts, t, t, low, low).unwrap();
        let off = c.clock_mismatch().expect("3.79 is 7% off 4.09");
        assert!((off + 0.073).abs() < 0.002, "{off}");
        let c = cost_of(&opts, t, t, 1.0 / 4.0, 1.0 / 4.0).unwrap();
        assert_eq!(c.clock_mismatch(), None);
        // -f auto without a calibration of its own: the run's clock.
        let opts = Options {
            clock: Clock::Auto,
            fallback_ghz: Some(3.0),
            ..Options::default()
        };
        let c = cost_of(&opts, t, t, -0.015625, -0.015625).unwrap();
        assert!(c.clock_fallback && c.noisy() && c.ghz == 3.0);
        // A calibration far above the run's clock is none the body ran
        // at (xeon-cf once showed 4.51 GHz on a 4.0 GHz core): the run's
        // clock, flagged; up to 10% above stands.
        let c = cost_of(&opts, t, t, 1.0 / 3.5, 1.0 / 3.5).unwrap();
        assert!(c.clock_fallback && c.noisy() && c.ghz == 3.0, "{c:?}");
        let c = cost_of(&opts, t, t, 1.0 / 3.2, 1.0 / 3.2).unwrap();
        assert!(!c.clock_fallback && (c.ghz - 3.2).abs() < 1e-9, "{c:?}");
        let opts = Options {
            fallback_ghz: None,
            ..opts
        };
        assert!(cost_of(&opts, t, t, 0.0, 0.0).is_err());
    }

    /// A cost of these two timings (nanoseconds an iteration) at `ghz`.
    fn timed(once: f64, twice: f64, ghz: f64, noisy: bool) -> Cost {
        let t = |ns| Timing {
            ns_per_iter: ns,
            iterations: 100,
            spread: 0.0,
            noisy,
        };
        let opts = Options {
            clock: Clock::Fixed(ghz),
            ..Options::default()
        };
        let c = cost_of(&opts, t(once), t(twice), 1.0 / ghz, 1.0 / ghz).unwrap();
        Cost {
            rounds: (10, 10),
            ..c
        }
    }

    /// Two looks merge into each kernel's fastest time. The case seen:
    /// `VGATHERDPSZ256rm` on the Zen 4 guest (raw file of a TP run), its
    /// first look's once-kernel 12% slow in all its rounds (7.05 cycles
    /// written, where uops.info has 9.0), its second look noisy in both
    /// kernels.
    #[test]
    fn second_look_merges_each_kernels_fastest_time() {
        let ghz = 3.6944835687147384;
        let first = timed(119.45508982035928, 212.95209580838323, ghz, false);
        let second = timed(106.31891891891892, 219.40540540540542, ghz, true);
        assert!((first.cycles - 345.4).abs() < 0.1, "{}", first.cycles);
        let m = first.merged_with(&second);
        assert_eq!(m.once.ns_per_iter, second.once.ns_per_iter);
        assert_eq!(m.twice.ns_per_iter, first.twice.ns_per_iter);
        assert!((m.cycles - 393.95).abs() < 0.01, "{}", m.cycles);
        assert_eq!(m.rounds, (20, 20));
        // Either order gives the same.
        assert_eq!(
            second.merged_with(&first).cycles.to_bits(),
            m.cycles.to_bits()
        );
        // Times compare in cycles, each at its own look's clock: the same
        // nanoseconds at half the clock are half the cycles, and win.
        let half = timed(106.3, 219.4, ghz / 2.0, true);
        let m = first.merged_with(&half);
        assert!(
            (m.cycles - half.cycles).abs() < 1e-9,
            "{} {}",
            m.cycles,
            half.cycles
        );
        assert_eq!(m.ghz, first.ghz);
        assert!(m.differs_from(&first) && !half.merged_with(&first).differs_from(&half));
    }

    /// When the merged difference is not a value, the look that is one
    /// stands (the first when both are, or neither): under qemu a cheap
    /// form's difference may come out negative.
    #[test]
    fn a_merge_that_is_no_value_keeps_the_look_that_is() {
        let good = timed(10.0, 10.5, 1.0, false);
        let negative = timed(10.8, 9.9, 1.0, true);
        // Merged: 10.0 and 9.9, no value.
        assert_eq!(good.merged_with(&negative).cycles, 0.5);
        assert_eq!(negative.merged_with(&good).cycles, 0.5);
        let worse = timed(11.0, 10.0, 1.0, true);
        assert_eq!(
            negative.merged_with(&worse).cycles.to_bits(),
            negative.cycles.to_bits()
        );
        // A look without timings (NaN) takes the other's.
        let none = timed(f64::NAN, f64::NAN, 1.0, true);
        assert_eq!(none.merged_with(&good).cycles, 0.5);
        assert_eq!(good.merged_with(&none).cycles, 0.5);
        assert!(merge(&mut Some(good), &Ok(good)).is_none());
        let mut current = Some(negative);
        assert_eq!(merge(&mut current, &Ok(good)).map(|c| c.cycles), Some(0.5));
        assert_eq!(current.map(|c| c.cycles), Some(0.5));
        assert!(merge(&mut current, &Err(RunError::NotRecorded)).is_none());
    }
}
