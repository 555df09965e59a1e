//! Turning wall-clock runs of a kernel into a cost per iteration on a noisy
//! machine: scale the iteration count until one run is long enough to be
//! precise, repeat, keep the minimum, re-measure while the repetitions
//! disagree, and remove the loop overhead by the unroll difference
//! T(body×2) − T(body×1).

use std::time::Duration;

/// How to time one kernel.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// A timed run must last at least this long (timer resolution and
    /// call overhead become negligible).
    pub min_run: Duration,
    /// Repetitions per attempt; the minimum is kept.
    pub reps: usize,
    /// Largest accepted spread of the best half of the repetitions,
    /// relative to the minimum (0.02 = 2%).
    pub max_spread: f64,
    /// Attempts before accepting a spread above `max_spread`.
    pub attempts: usize,
    /// First iteration count tried.
    pub first_iterations: u64,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            min_run: Duration::from_millis(2),
            reps: 7,
            max_spread: 0.02,
            attempts: 4,
            first_iterations: 256,
        }
    }
}

impl Plan {
    /// The plan of a full TP or LAT run, thousands of forms: runs of
    /// 0.5 ms (1.5 million cycles at 3 GHz: the timer's 20-odd ns are
    /// noise of 0.005%), the minimum of 5, one more attempt when the best
    /// half spreads by more than 3%. About 10 ms per form instead of the
    /// 40-120 ms of the default plan.
    pub fn fast() -> Plan {
        Plan {
            min_run: Duration::from_micros(500),
            reps: 5,
            max_spread: 0.03,
            attempts: 2,
            first_iterations: 256,
        }
    }
}

/// How a batch of bodies is timed ([`crate::exec::run::batch_costs`]):
/// many short timed calls ("samples") instead of a few long ones, the
/// kernels of a group of bodies taking turns round after round, and only
/// the samples taken while the core was ours alone kept, until each body
/// has enough of them.
///
/// Why: the other hardware thread of the core. Whatever runs there, even a
/// loop of `pause`, halves the issue rate of a thread (a block of
/// independent adds ran 1.6 times slower on the Zen 4 guest), and on a
/// shared VM it is busy for stretches of milliseconds to seconds, more
/// than half of the time. Timings taken across such stretches agreed
/// within 5% between two full runs for only 65% of the forms.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    /// A timed call of the longer kernel lasts about this long.
    pub sample: Duration,
    /// Clean rounds (both probes around the pair of samples fast) each
    /// body needs; it takes no further rounds once it has them.
    pub clean: usize,
    /// Rounds of a group at most.
    pub max_rounds: usize,
    /// Bodies per group.
    pub group: usize,
    /// A group stops waiting for clean rounds after this long (but not
    /// before [`Sampling::clean`] rounds); after a group that ran out of
    /// it, the next one waits half as long (down to a 32nd: a core that is
    /// never ours alone must not stall the run; with an eighth, a full TP
    /// run on the Xeon guest took 839 s while another tenant kept its
    /// core busy, 6464 forms noisy), after one that did not, twice as
    /// long, up to this.
    pub budget: Duration,
    /// Largest accepted spread (the lower quartile of the samples relative
    /// to their minimum) before a timing is flagged noisy.
    pub max_spread: f64,
}

impl Default for Sampling {
    fn default() -> Sampling {
        Sampling {
            sample: Duration::from_micros(40),
            clean: 10,
            max_rounds: 2000,
            group: 16,
            budget: Duration::from_secs(2),
            max_spread: 0.03,
        }
    }
}

/// Runs of each iteration count [`iterations_for`] takes the fastest of.
const SCALING_RUNS: usize = 3;

/// The most iterations a timed run is given: a kernel whose time does
/// not grow with its iteration count reaches it.
pub const MAX_ITERATIONS: u64 = 1 << 40;

/// The iteration count for which `run(n)` lasts about `sample`: grows
/// from 1 until a run lasts a quarter of it, then scales. Each count's
/// time is the fastest of [`SCALING_RUNS`] runs: one run the host
/// interrupted looks long enough at once. On the zen5 guest (2026-12-02)
/// batch children whose first calibration run was so interrupted kept
/// one iteration of the 64-add chain for their whole life; the chain's
/// difference then read in whole steps of the timer (30 ns / 64 =
/// 0.469 ns a cycle, "2.13 GHz") in 175 second looks of a full TP run,
/// and their kernels converted at that clock came out 40% short.
pub fn iterations_for(sample: Duration, mut run: impl FnMut(u64) -> Duration) -> u64 {
    let cap = MAX_ITERATIONS;
    let mut fastest = |n: u64| {
        (0..SCALING_RUNS)
            .map(|_| run(n))
            .min()
            .expect("SCALING_RUNS > 0")
    };
    let mut n = 1u64;
    loop {
        let t = fastest(n);
        if t * 4 >= sample || n >= cap {
            // A time that long is the work's when twice the count takes
            // about twice as long; else the host held every run up
            // (three in a row at the child's start, now and then beside
            // a busy tenant), and the count grows on.
            let grows = n >= cap || fastest(2 * n) * 2 >= t * 3;
            if grows {
                let scale = sample.as_secs_f64() / t.as_secs_f64().max(1e-9);
                return ((n as f64 * scale).round() as u64).clamp(1, cap);
            }
        }
        n = n.saturating_mul(8).min(cap);
    }
}

/// The timing of a kernel from its samples (nanoseconds per iteration,
/// `iterations` per timed call): the minimum, since noise only ever adds
/// time, with the lower quartile's distance from it as the spread.
pub fn estimate(samples: &[f64], iterations: u64, max_spread: f64) -> Timing {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return Timing {
            ns_per_iter: f64::NAN,
            iterations,
            spread: f64::INFINITY,
            noisy: true,
        };
    }
    v.sort_by(f64::total_cmp);
    let min = v[0];
    let quartile = v[(v.len() - 1) / 4];
    let spread = (quartile - min) / min.max(f64::MIN_POSITIVE);
    Timing {
        ns_per_iter: min,
        iterations,
        spread,
        noisy: spread > max_spread,
    }
}

/// The time of one iteration, as measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timing {
    /// Nanoseconds per iteration: the minimum over the repetitions.
    #[serde(with = "finite_or_text")]
    pub ns_per_iter: f64,
    /// Iterations per timed run.
    pub iterations: u64,
    /// Spread of the best half of the repetitions relative to the minimum.
    #[serde(with = "finite_or_text")]
    pub spread: f64,
    /// Whether the spread stayed above `Plan::max_spread` in every attempt.
    pub noisy: bool,
}

/// Times `run(iterations)` (which returns the wall time of running the
/// kernel `iterations` times) by `plan`.
pub fn time(plan: &Plan, mut run: impl FnMut(u64) -> Duration) -> Timing {
    let iterations = scale(plan, &mut run);
    let mut best: Option<Timing> = None;
    for _ in 0..plan.attempts.max(1) {
        let mut ns: Vec<f64> = (0..plan.reps.max(1))
            .map(|_| run(iterations).as_nanos() as f64 / iterations as f64)
            .collect();
        ns.sort_by(f64::total_cmp);
        let half = ns[(ns.len() - 1) / 2];
        let t = Timing {
            ns_per_iter: ns[0],
            iterations,
            spread: (half - ns[0]) / ns[0].max(f64::MIN_POSITIVE),
            noisy: false,
        };
        // Keep the lowest minimum seen: noise only ever adds time.
        best = Some(match best {
            Some(b) if b.ns_per_iter <= t.ns_per_iter => Timing {
                spread: b.spread.min(t.spread),
                ..b
            },
            _ => t,
        });
        if t.spread <= plan.max_spread {
            return best.expect("set above");
        }
    }
    let b = best.expect("at least one attempt");
    Timing {
        noisy: b.spread > plan.max_spread,
        ..b
    }
}

/// The iteration count from which [`time`] should start scaling a kernel
/// whose every call may carry a fixed cost (a function called through a
/// guard, under an emulator): grows from `plan.first_iterations` until
/// the fastest of three runs lasts `plan.min_run`, so that one slow run
/// (a busy host) does not end the scaling. Under qemu-aarch64 on a busy
/// CI host one such run left a function timed at 256 iterations of 1 µs
/// each call, the guard's system calls and all, and its time did not
/// seem to grow with the count.
pub fn steady_iterations(plan: &Plan, mut run: impl FnMut(u64) -> Duration) -> u64 {
    grow_until(plan, 3, &mut run)
}

/// Doubles the iteration count from `plan.first_iterations` until a run
/// lasts `plan.min_run` (then one more step to be safe from a fast first
/// run), capped so a slow kernel does not run for ever.
fn scale(plan: &Plan, run: &mut impl FnMut(u64) -> Duration) -> u64 {
    grow_until(plan, 1, run)
}

/// The iteration count, grown from `plan.first_iterations`, at which the
/// fastest of `runs` runs lasts `plan.min_run`; capped at
/// [`MAX_ITERATIONS`].
fn grow_until(plan: &Plan, runs: usize, run: &mut impl FnMut(u64) -> Duration) -> u64 {
    let mut n = plan.first_iterations.max(1);
    let cap = MAX_ITERATIONS;
    while n < cap {
        let t = (0..runs.max(1))
            .map(|_| run(n))
            .min()
            .expect("one run at least");
        if t >= plan.min_run {
            break;
        }
        // Jump close to the goal when the run is far too short.
        let factor = if t.is_zero() {
            16.0
        } else {
            (plan.min_run.as_secs_f64() / t.as_secs_f64()).clamp(2.0, 16.0)
        };
        n = ((n as f64) * factor).ceil() as u64;
    }
    n.min(cap)
}

/// The cost of one copy of the body from the per-iteration times of a loop
/// with the body once and with it twice: the loop overhead (counter, branch)
/// cancels.
pub fn unroll_difference(once: &Timing, twice: &Timing) -> f64 {
    twice.ns_per_iter - once.ns_per_iter
}

/// The median of `values` (the upper one of an even count), `None` for
/// none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied()
}

/// Cycles from nanoseconds at `ghz`.
pub fn cycles(ns: f64, ghz: f64) -> f64 {
    ns * ghz
}

/// A measured `f64` in JSON, to the last bit: a number when it is finite
/// (serde_json writes the shortest text that reads back to the same
/// bits), else the text `inf`, `-inf` or `nan`, which JSON numbers cannot
/// hold (a spread over a minimum of 0 is infinite).
pub mod finite_or_text {
    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Value {
        Number(f64),
        Text(String),
    }

    /// Writes `v`.
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            v if v.is_finite() => s.serialize_f64(v),
            v if v.is_nan() => s.serialize_str("nan"),
            v if v > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }

    /// Reads what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Value::deserialize(d)? {
            Value::Number(v) => Ok(v),
            Value::Text(t) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                _ => Err(serde::de::Error::custom(format!(
                    "{t:?}: a number, inf, -inf or nan"
                ))),
            },
        }
    }

    /// The same for an `Option<f64>` (`null`: none).
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        #[derive(serde::Serialize, Deserialize)]
        struct Wrap(#[serde(with = "super")] f64);

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            serde::Serialize::serialize(&v.map(Wrap), s)
        }

        /// Reads what [`serialize`] wrote.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            Ok(Option::<Wrap>::deserialize(d)?.map(|w| w.0))
        }
    }

    /// The same for a pair.
    pub mod pair {
        use serde::{Deserialize, Deserializer, Serializer};

        #[derive(serde::Serialize, Deserialize)]
        struct Wrap(#[serde(with = "super")] f64);

        /// Writes `v`.
        pub fn serialize<S: Serializer>(v: &(f64, f64), s: S) -> Result<S::Ok, S::Error> {
            serde::Serialize::serialize(&(Wrap(v.0), Wrap(v.1)), s)
        }

        /// Reads what [`serialize`] wrote.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<(f64, f64), D::Error> {
            let (a, b) = <(Wrap, Wrap)>::deserialize(d)?;
            Ok((a.0, b.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel of `ns` per iteration plus `fixed` per call, with the noise
    /// of `noise` (a function of the call number) added.
    fn kernel(
        ns: f64,
        fixed: f64,
        mut noise: impl FnMut(usize) -> f64,
    ) -> impl FnMut(u64) -> Duration {
        let mut calls = 0;
        move |n| {
            calls += 1;
            Duration::from_nanos((ns * n as f64 + fixed + noise(calls)) as u64)
        }
    }

    #[test]
    fn a_quiet_kernel_is_timed_exactly() {
        let t = time(&Plan::default(), kernel(0.5, 0.0, |_| 0.0));
        assert!((t.ns_per_iter - 0.5).abs() < 1e-3, "{t:?}");
        assert!(t.iterations as f64 * 0.5 >= 2e6, "{t:?}");
        assert!(!t.noisy && t.spread == 0.0, "{t:?}");
    }

    #[test]
    fn the_minimum_ignores_spikes() {
        // Every third run is slowed down by a neighbour.
        let t = time(
            &Plan::default(),
            kernel(2.0, 0.0, |c| if c % 3 == 0 { 5e6 } else { 0.0 }),
        );
        assert!((t.ns_per_iter - 2.0).abs() < 1e-3, "{t:?}");
    }

    #[test]
    fn persistent_noise_is_flagged() {
        // Two runs in three are 10% slower, whatever the attempt.
        let t = time(
            &Plan::default(),
            kernel(1.0, 0.0, |c| if c % 3 != 0 { 2e5 } else { 0.0 }),
        );
        assert!(t.noisy, "{t:?}");
        assert!((t.ns_per_iter - 1.0).abs() < 0.01, "{t:?}");
    }

    #[test]
    fn the_unroll_difference_removes_the_loop_overhead() {
        // Body 3 ns; loop overhead 1 ns per iteration; call overhead 500 ns.
        let once = time(&Plan::default(), kernel(3.0 + 1.0, 500.0, |_| 0.0));
        let twice = time(&Plan::default(), kernel(6.0 + 1.0, 500.0, |_| 0.0));
        let body = unroll_difference(&once, &twice);
        assert!((body - 3.0).abs() < 0.01, "{body}");
        assert!((cycles(body, 3.0) - 9.0).abs() < 0.05);
    }

    #[test]
    fn samples_give_their_minimum_and_spread() {
        // Five clean samples and three slowed down by a neighbour.
        let s = [2.0, 2.01, 5.0, 2.0, 4.0, 2.02, 2.0, 6.0];
        let t = estimate(&s, 100, 0.03);
        assert_eq!(t.ns_per_iter, 2.0);
        assert!(t.spread < 0.01 && !t.noisy, "{t:?}");
        // Mostly slowed down: the lower quartile is far above the minimum.
        let t = estimate(&[2.0, 3.0, 3.1, 3.2, 3.0, 3.3, 3.1, 3.0], 100, 0.03);
        assert!(t.noisy && t.spread > 0.4, "{t:?}");
        assert!(estimate(&[], 1, 0.03).noisy);
    }

    #[test]
    fn the_iteration_count_makes_a_sample_of_the_wanted_length() {
        // 3 ns per iteration and 200 ns per call.
        let run = |n: u64| Duration::from_nanos(200 + 3 * n);
        let n = iterations_for(Duration::from_micros(40), run);
        let got = run(n).as_secs_f64() * 1e6;
        assert!((35.0..45.0).contains(&got), "{n} iterations, {got} µs");
        // One iteration already longer than a sample: one iteration.
        assert_eq!(
            iterations_for(Duration::from_micros(40), Duration::from_millis),
            1
        );
        // The first run, or the first three, interrupted by the host for
        // 30 µs: not taken for a sample's length.
        for held_up in [1, 3] {
            let mut calls = 0;
            let n = iterations_for(Duration::from_micros(40), |n| {
                calls += 1;
                run(n) + Duration::from_micros(if calls <= held_up { 30 } else { 0 })
            });
            let got = run(n).as_secs_f64() * 1e6;
            assert!((35.0..45.0).contains(&got), "{n} iterations, {got} µs");
        }
    }

    #[test]
    fn one_slow_run_does_not_end_the_scaling() {
        // 4 ns an iteration and 1 µs a call; the first run at the first
        // count is slowed to 3 ms by a busy host.
        let plan = Plan::default();
        let run = || kernel(4.0, 1000.0, |c| if c == 1 { 3e6 } else { 0.0 });
        let fooled = time(&plan, run());
        assert_eq!(fooled.iterations, plan.first_iterations, "{fooled:?}");
        let n = steady_iterations(&plan, run());
        assert!(n as f64 * 4.0 + 1000.0 >= 2e6, "{n}");
        assert!(n as f64 * 4.0 < 2e6 * 16.0, "{n}");
        let t = time(
            &Plan {
                first_iterations: n,
                ..plan
            },
            run(),
        );
        assert!((t.ns_per_iter - 4.0).abs() < 0.01, "{t:?}");
        // A function that ignores its count reaches the cap.
        let flat = steady_iterations(&plan, |_| Duration::from_micros(1));
        assert_eq!(flat, MAX_ITERATIONS);
    }

    #[test]
    fn a_slow_kernel_is_not_scaled_up() {
        let mut calls = Vec::new();
        let plan = Plan::default();
        time(&plan, |n| {
            calls.push(n);
            Duration::from_millis(5) * n as u32
        });
        assert!(
            calls.iter().all(|&n| n == plan.first_iterations),
            "{calls:?}"
        );
    }
}
