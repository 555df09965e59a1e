//! Values from chain equations.
//!
//! Every measured chain says: the sub-latencies on its cycle add up to the
//! time of one lap (an [`Equation`]), or at most to it when a second path
//! through the body may have set the pace.
//!
//! **Whole cycles or the lap itself.** A chain through one sub-latency
//! alone (a chain of copies of the form) measures that sub-latency by
//! itself, and [`read_alone`] reads its lap: within [`WHOLE`] (0.1 cycle)
//! of a whole number it is that number (3.98 is 4, 1.02 is 1); at most
//! [`NOTHING`] (0.05) it is 0, and so is a lap under one cycle of a
//! register copy ([`crate::isa::Instr::is_register_copy`]: the renamer eliminated it, and the
//! lap is the rename width, not a latency); any other lap is kept to 0.01
//! cycles (`haddpd`'s 4.43, the 0.19 of a dependent `add rax, 1` on a core
//! that folds immediates at rename). LAT times such a chain twice, and
//! the fraction stands only when both laps agree on it (`agreed`); laps
//! that disagree (2.77 and 3.00 on a loaded host) are noise and read as
//! whole-cycle sums. A chain through several sub-latencies
//! cannot say which of them carries a fraction, so these are solved in
//! whole cycles as in the WINIC thesis: the lap within [`WHOLE_SUM`] (a
//! quarter cycle) of a whole number is that sum, farther it is an upper
//! bound of it only. A sub-latency known as a fraction enters them as a
//! known value: its lap is taken from the chain's before the rest is
//! rounded. Every unknown is at least one cycle (the thesis: every
//! instruction takes a cycle), except one whose chain alone ran faster.
//!
//! [`solve`] narrows the interval of every sub-latency by bounds
//! propagation over all equations until nothing changes: in an equation
//! `x1 + … + xn = C`, each `xi` lies in `[C − Σ others' upper bounds,
//! C − Σ others' lower bounds]`. This is what the thesis does for a pair
//! of chains (a 2-cycle pair of helpers summing to 2 makes both 1, and
//! every chain through one of them exact), generalised to any number of
//! chains of any length, so that a third chain through another register
//! file can pin what two could only bound. An equation that contradicts
//! the others (noise, or a latency below one cycle) is reported and its
//! unknowns fall back to their plain bounds.

/// Cycles within which the lap of a chain through one sub-latency alone
/// reads as a whole number. On the Zen 4 guest, 8856 of the 9588 laps of
/// a run over 3086 forms lay within 0.01 of a whole number (the clock is
/// timed beside every kernel), so a lap 0.1 or more off is the core's, not
/// noise; and 0.1 is the resolution WINIC itself writes latencies in, so a
/// lap WINIC would write as a whole number is one here too.
pub const WHOLE: f64 = 0.1;

/// Cycles within which the lap of a chain through several sub-latencies
/// reads as their whole sum; farther, it bounds the sum from above only
/// (rcr's 2.5 is no sum of whole cycles).
pub const WHOLE_SUM: f64 = 0.25;

/// A lap of at most this many cycles (20 per cycle, more than any core
/// renames) is no work at all: latency 0.
pub const NOTHING: f64 = 0.05;

/// One measured chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Equation {
    /// The unknowns on the cycle (indices), each once.
    pub unknowns: Vec<usize>,
    /// Cycles of one lap.
    pub cycles: f64,
    /// The lap is the cycle's sum; otherwise an upper bound of it.
    pub exact: bool,
    /// The chain runs through a register copy alone ([`crate::isa::Instr::is_register_copy`]):
    /// a lap under one cycle is its elimination (see [`read_alone`]).
    pub eliminable: bool,
}

/// Bounds of one unknown in whole cycles, and its value in cycles when a
/// chain through it alone measured a fraction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lower bound, whole cycles.
    pub lo: i64,
    /// Upper bound, whole cycles; `None` when no equation bounds it from
    /// above (not measured).
    pub hi: Option<i64>,
    /// The value, to 0.01 cycles, where it is no whole number: `(lap,
    /// lap)` from a chain through it alone, or `(lo, lap)` when that
    /// chain's lap only bounds it (a second path). `lo` and `hi` then
    /// bracket it in whole cycles.
    pub fraction: Option<(f64, f64)>,
}

impl Bounds {
    /// Whether the value is known to a whole number of cycles.
    pub fn exact(&self) -> bool {
        self.fraction.is_none() && self.hi == Some(self.lo)
    }

    /// The value's bounds in cycles (equal when it is known), or `None`
    /// when nothing bounds it from above.
    pub fn cycles(&self) -> Option<(f64, f64)> {
        self.fraction
            .or_else(|| self.hi.map(|hi| (self.lo as f64, hi as f64)))
    }
}

/// What the lap of a chain through one sub-latency alone says of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    /// A whole number of cycles.
    Whole(i64),
    /// The lap itself, to 0.01 cycles.
    Fraction(f64),
}

/// Reads the lap of a chain through one sub-latency alone (`eliminable`:
/// of a register move): 0 when at most [`NOTHING`], or under one cycle
/// (less [`WHOLE`]) for a move; a whole number when within [`WHOLE`] of
/// one; else the lap to 0.01 cycles. A lap under one cycle that is not a
/// move's stays what it is (0.19), never 0: something on the chain took
/// time, and the floor of one cycle per instruction does not hold there.
pub fn read_alone(lap: f64, eliminable: bool) -> Reading {
    let lap = (lap * 100.0).round() / 100.0;
    let n = lap.round();
    // Compared in hundredths: 4.1 is 0.1 off 4, not 0.0999….
    let off = ((lap - n).abs() * 100.0).round();
    if lap <= NOTHING || (eliminable && lap < 1.0 - WHOLE) {
        Reading::Whole(0)
    } else if n >= 1.0 && off <= (WHOLE * 100.0).round() {
        Reading::Whole(n as i64)
    } else {
        Reading::Fraction(lap)
    }
}

/// Whether the lap of equation `e` deserves a second timing: through one
/// sub-latency alone when it reads as a fraction ([`read_alone`], as
/// [`solve`] reads it), through several when it was timed as their sum
/// (`exact`) and lies more than [`WHOLE_SUM`] off a whole number. A
/// loaded host makes such laps (a chase of 7 cycles read 6.5 beside the
/// other tests on CI); the solver then has both readings, and a whole
/// one pins what the other bounds.
pub fn second_look(e: &Equation) -> bool {
    if e.unknowns.len() == 1 {
        matches!(
            read_alone(e.cycles, e.eliminable && e.exact),
            Reading::Fraction(_)
        )
    } else {
        e.exact && (e.cycles - e.cycles.round()).abs() > WHOLE_SUM
    }
}

/// The bounds of `n` unknowns under `equations`, and the indices of the
/// equations that contradicted the others.
pub fn solve(n: usize, equations: &[Equation]) -> (Vec<Bounds>, Vec<usize>) {
    let mut dropped: Vec<usize> = Vec::new();
    loop {
        match propagate(n, equations, &dropped) {
            Ok(b) => return (b, dropped),
            Err(bad) => {
                // Drop the contradicting equation and start again.
                dropped.push(bad);
            }
        }
    }
}

const INF: i64 = i64::MAX / 4;

/// A chain through one sub-latency alone: the equation's index, its lap
/// and how that reads.
type Lone = (usize, f64, Reading);

/// A lap read as a sum of whole cycles: `(lo, hi)` of the sum, `lo` `None`
/// when the lap only bounds it (an upper bound, or a lap more than
/// [`WHOLE_SUM`] off a whole number).
fn whole_sum(lap: f64, exact: bool) -> (Option<i64>, i64) {
    let whole = lap.round();
    if exact && (lap - whole).abs() <= WHOLE_SUM {
        (Some(whole as i64), whole as i64)
    } else {
        // An upper bound is rounded up unless it is close to whole.
        (None, (lap - WHOLE_SUM).ceil() as i64)
    }
}

/// What the chains through one sub-latency alone agree on: one whole
/// number, or fractions within one whole cycle (4.30 and 4.43, not 2.9
/// and 3.1) and within [`WHOLE_SUM`] of each other, as their mean. `None`
/// when they disagree: a whole lap beside a fraction (2.77 then 3.00 on
/// a loaded host) is noise, not a fraction.
fn agreed(readings: &[Lone]) -> Option<Reading> {
    let first = readings.first()?.2;
    match first {
        Reading::Whole(_) => readings.iter().all(|r| r.2 == first).then_some(first),
        Reading::Fraction(f) => {
            let fs: Vec<f64> = readings
                .iter()
                .map(|r| match r.2 {
                    Reading::Fraction(x) if x.floor() == f.floor() => Some(x),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            let (min, max) = fs
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            let mean = fs.iter().sum::<f64>() / fs.len() as f64;
            (max - min <= WHOLE_SUM + 1e-9)
                .then(|| Reading::Fraction((mean * 100.0).round() / 100.0))
        }
    }
}

/// A constraint in whole cycles: the unknowns add up to at least `lo`
/// (`None`: no lower bound) and at most `hi`.
struct Sum {
    equation: usize,
    unknowns: Vec<usize>,
    lo: Option<i64>,
    hi: i64,
}

fn propagate(n: usize, equations: &[Equation], dropped: &[usize]) -> Result<Vec<Bounds>, usize> {
    let live: Vec<(usize, &Equation)> = equations
        .iter()
        .enumerate()
        .filter(|(k, _)| !dropped.contains(k))
        .collect();
    // Chains through one sub-latency alone first: they read as whole
    // cycles or as a fraction, and may go below the floor of one cycle.
    // A fraction stands when every such chain of the unknown (LAT times
    // a fractional lap twice) agrees on it; readings that disagree are
    // noise, and each is read as a whole-cycle sum.
    let mut floor = vec![1i64; n];
    let mut known: Vec<Option<f64>> = vec![None; n];
    let mut at_most: Vec<Option<f64>> = vec![None; n];
    let mut sums: Vec<Sum> = Vec::new();
    let mut alone: std::collections::BTreeMap<(usize, bool), Vec<Lone>> =
        std::collections::BTreeMap::new();
    for &(k, e) in live.iter().filter(|(_, e)| e.unknowns.len() == 1) {
        let reading = read_alone(e.cycles, e.eliminable && e.exact);
        alone
            .entry((e.unknowns[0], e.exact))
            .or_default()
            .push((k, e.cycles, reading));
    }
    for ((u, exact), readings) in alone {
        match agreed(&readings) {
            Some(reading) => {
                let (lo, hi) = match reading {
                    Reading::Whole(w) => (w, w),
                    Reading::Fraction(f) => {
                        if exact {
                            known[u] = Some(f);
                        } else {
                            at_most[u] = Some(f);
                        }
                        (f.floor() as i64, f.ceil() as i64)
                    }
                };
                floor[u] = floor[u].min(lo);
                sums.push(Sum {
                    equation: readings[0].0,
                    unknowns: vec![u],
                    lo: exact.then_some(lo),
                    hi,
                });
            }
            None => {
                for &(k, lap, _) in &readings {
                    let (lo, hi) = whole_sum(lap, exact);
                    floor[u] = floor[u].min(lo.unwrap_or(hi));
                    sums.push(Sum {
                        equation: k,
                        unknowns: vec![u],
                        lo,
                        hi,
                    });
                }
            }
        }
    }
    // Chains through several: in whole cycles, less what is known as a
    // fraction.
    for &(k, e) in live.iter().filter(|(_, e)| e.unknowns.len() > 1) {
        let unknowns: Vec<usize> = e
            .unknowns
            .iter()
            .copied()
            .filter(|&u| known[u].is_none())
            .collect();
        if unknowns.is_empty() {
            continue;
        }
        let lap = e.cycles - e.unknowns.iter().filter_map(|&u| known[u]).sum::<f64>();
        let (lo, hi) = whole_sum(lap, e.exact);
        sums.push(Sum {
            equation: k,
            unknowns,
            lo,
            hi,
        });
    }
    let mut lo = floor;
    let mut hi = vec![INF; n];
    let total = |v: &[i64], us: &[usize]| {
        us.iter()
            .fold(0i64, |s, &u| s.saturating_add(v[u]).min(INF))
    };
    for _round in 0..1000 {
        let mut changed = false;
        for s in &sums {
            let sum_lo = total(&lo, &s.unknowns);
            let sum_hi = total(&hi, &s.unknowns);
            for &u in &s.unknowns {
                let up = s.hi - (sum_lo - lo[u]);
                if up < hi[u] {
                    hi[u] = up;
                    changed = true;
                }
                if let Some(c) = s.lo.filter(|_| sum_hi < INF) {
                    let down = c - (sum_hi - hi[u]);
                    if down > lo[u] {
                        lo[u] = down;
                        changed = true;
                    }
                }
                if lo[u] > hi[u] {
                    return Err(s.equation);
                }
            }
        }
        if !changed {
            break;
        }
    }
    Ok((0..n)
        .map(|u| {
            let hi = (hi[u] < INF).then_some(hi[u]);
            let fraction = match (known[u], at_most[u], hi) {
                (Some(f), _, _) => Some((f, f)),
                // Below the whole upper bound, and not below the lower.
                (None, Some(f), Some(h)) if f < h as f64 && f >= lo[u] as f64 => {
                    Some((lo[u] as f64, f))
                }
                _ => None,
            };
            Bounds {
                lo: lo[u],
                hi,
                fraction,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eq(unknowns: &[usize], cycles: f64) -> Equation {
        Equation {
            unknowns: unknowns.to_vec(),
            cycles,
            exact: true,
            eliminable: false,
        }
    }

    fn whole(lo: i64, hi: i64) -> Bounds {
        Bounds {
            lo,
            hi: Some(hi),
            fraction: None,
        }
    }

    #[test]
    fn a_pair_summing_to_two_is_one_and_one_and_pins_the_rest() {
        // 0: bts r->flags, 1: adc flags->r (helpers), 2: bt r->flags.
        let (b, bad) = solve(3, &[eq(&[0, 1], 2.02), eq(&[2, 1], 3.97)]);
        assert!(bad.is_empty());
        assert_eq!(b[0], whole(1, 1));
        assert_eq!(b[1], whole(1, 1));
        assert_eq!(b[2], whole(3, 3));
    }

    #[test]
    fn a_pair_summing_to_more_leaves_ranges() {
        // movq r64->xmm and xmm->r64 take 5 together: each in [1, 4].
        let (b, _) = solve(3, &[eq(&[0, 1], 5.0), eq(&[2, 1], 6.0)]);
        assert_eq!(b[0], whole(1, 4));
        assert_eq!(b[2], whole(2, 5));
    }

    #[test]
    fn a_longer_chain_makes_ranges_exact() {
        // 0: xmm->r, 1: r->xmm, a pair of 5: each in [1, 4] alone.
        // 2: r->flags, 3: flags->r, a pair of 2: both 1.
        // 4: xmm->flags in the chain xmm->flags->r->xmm (4, 3, 1) = 7,
        // and a fourth equation (1, 3) = 3 pin all five.
        let eqs = [
            eq(&[0, 1], 5.0),
            eq(&[2, 3], 2.0),
            eq(&[4, 3, 1], 7.0),
            eq(&[1, 3], 3.0),
        ];
        let (b, bad) = solve(5, &eqs);
        assert!(bad.is_empty());
        assert_eq!(b[1], whole(2, 2));
        assert_eq!(b[0], whole(3, 3));
        assert_eq!(b[4], whole(4, 4));
    }

    #[test]
    fn a_chase_read_low_once_is_pinned_by_its_second_look() {
        // CI's ADD64rm address -> result: the chase (load-op, `and r, 0`,
        // `add base, r`; the last two 1 each) read 6.5 beside the other
        // tests, [1;5] alone. It asks for a second look, and the second
        // reading of 7 makes it 5.
        let eqs = [eq(&[1], 1.0), eq(&[2], 1.0), eq(&[0, 1, 2], 6.5)];
        assert!(second_look(&eqs[2]));
        assert_eq!(solve(3, &eqs).0[0], whole(1, 5));
        let again = [&eqs[..], &[eq(&[0, 1, 2], 7.0)]].concat();
        let (b, bad) = solve(3, &again);
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(b[0], whole(5, 5));
        // Laps that read whole, or only bound, want none; a fraction
        // alone does, bound or not, and an eliminated move does not.
        let look = |unknowns: &[usize], cycles: f64, exact: bool, eliminable: bool| {
            second_look(&Equation {
                unknowns: unknowns.to_vec(),
                cycles,
                exact,
                eliminable,
            })
        };
        assert!(!look(&[0, 1, 2], 7.2, true, false));
        assert!(!look(&[0, 1, 2], 6.5, false, false));
        assert!(look(&[0], 2.77, true, false));
        assert!(look(&[0], 4.37, false, false));
        assert!(!look(&[0], 3.05, true, false));
        assert!(!look(&[0], 0.17, true, true));
    }

    #[test]
    fn upper_bounds_only_cap() {
        let (b, _) = solve(
            1,
            &[Equation {
                unknowns: vec![0],
                cycles: 3.1,
                exact: false,
                eliminable: false,
            }],
        );
        assert_eq!(b[0], whole(1, 3));
    }

    #[test]
    fn unmeasured_unknowns_have_no_upper_bound_and_zero_is_allowed_alone() {
        let (b, _) = solve(2, &[eq(&[1], 0.02)]);
        assert_eq!(b[0].hi, None);
        assert_eq!(b[0].cycles(), None);
        assert_eq!(b[1], whole(0, 0));
    }

    #[test]
    fn a_lap_alone_is_whole_within_a_tenth_else_kept_to_a_hundredth() {
        use Reading::{Fraction, Whole};
        // The examples of issue 24: a folded `add rax, 1` on Golden Cove,
        // haddpd on Zen 4, noise around whole cycles, nothing at all.
        assert_eq!(read_alone(0.19, false), Fraction(0.19));
        assert_eq!(read_alone(4.37, false), Fraction(4.37));
        assert_eq!(read_alone(3.98, false), Whole(4));
        assert_eq!(read_alone(1.02, false), Whole(1));
        assert_eq!(read_alone(0.02, false), Whole(0));
        // The edges: 0.1 off is whole, 0.11 is not; 0.05 is nothing, 0.06
        // is something; 0.89 under one cycle stays, 0.93 is one cycle.
        assert_eq!(read_alone(4.1, false), Whole(4));
        assert_eq!(read_alone(3.9, false), Whole(4));
        assert_eq!(read_alone(4.11, false), Fraction(4.11));
        assert_eq!(read_alone(4.434, false), Fraction(4.43));
        assert_eq!(read_alone(0.05, false), Whole(0));
        assert_eq!(read_alone(0.06, false), Fraction(0.06));
        assert_eq!(read_alone(0.89, false), Fraction(0.89));
        assert_eq!(read_alone(0.93, false), Whole(1));
        // An eliminated move runs at the rename width (0.17 on Zen 4):
        // latency 0; a move that takes a cycle is 1.
        assert_eq!(read_alone(0.17, true), Whole(0));
        assert_eq!(read_alone(0.95, true), Whole(1));
        assert_eq!(read_alone(2.5, true), Fraction(2.5));
    }

    #[test]
    fn a_fraction_alone_is_the_value_bracketed_in_whole_cycles() {
        let (b, bad) = solve(
            4,
            &[
                eq(&[0], 4.37),
                eq(&[1], 0.19),
                eq(&[2], 3.98),
                eq(&[3], 0.02),
            ],
        );
        assert!(bad.is_empty());
        assert_eq!(
            b[0],
            Bounds {
                lo: 4,
                hi: Some(5),
                fraction: Some((4.37, 4.37))
            }
        );
        assert_eq!(b[0].cycles(), Some((4.37, 4.37)));
        // Below one cycle: never 0, and below the floor of one cycle.
        assert_eq!(b[1].cycles(), Some((0.19, 0.19)));
        assert_eq!((b[1].lo, b[1].hi), (0, Some(1)));
        assert_eq!(b[2], whole(4, 4));
        assert_eq!(b[3], whole(0, 0));
        // A fraction is no helper's exact value.
        assert!(!b[0].exact() && !b[1].exact() && b[2].exact());
    }

    #[test]
    fn a_fraction_stands_only_when_its_second_timing_agrees() {
        // Noise on a loaded host: 2.77, then 3.00: imul's 3, not 2.77.
        let (b, bad) = solve(1, &[eq(&[0], 2.77), eq(&[0], 3.0)]);
        assert!(bad.is_empty());
        assert_eq!(b[0], whole(3, 3));
        // Noise on either side of 3: 2.85 and 3.2 are no fraction either.
        let (b, _) = solve(1, &[eq(&[0], 2.85), eq(&[0], 3.2)]);
        assert_eq!(b[0], whole(3, 3));
        // haddpd twice, 4.31 and 4.43: their mean; a masked merge's 1.87
        // twice: 1.87; 0.19 twice stays under one cycle.
        let (b, bad) = solve(
            3,
            &[
                eq(&[0], 4.31),
                eq(&[0], 4.43),
                eq(&[1], 1.87),
                eq(&[1], 1.87),
                eq(&[2], 0.19),
                eq(&[2], 0.2),
            ],
        );
        assert!(bad.is_empty());
        assert_eq!(b[0].cycles(), Some((4.37, 4.37)));
        assert_eq!(b[1].cycles(), Some((1.87, 1.87)));
        assert_eq!(b[2].cycles(), Some((0.2, 0.2)));
        // Far apart within one cycle (4.2 and 4.7): noise, read as whole
        // sums: 4.2 is 4, 4.7 at most 5.
        let (b, _) = solve(1, &[eq(&[0], 4.2), eq(&[0], 4.7)]);
        assert_eq!(b[0], whole(4, 4));
    }

    #[test]
    fn an_eliminated_move_is_zero_and_adds_nothing_to_its_chains() {
        let mov = Equation {
            unknowns: vec![0],
            cycles: 0.17,
            exact: true,
            eliminable: true,
        };
        let (b, bad) = solve(2, &[mov, eq(&[0, 1], 3.0)]);
        assert!(bad.is_empty());
        assert_eq!(b[0], whole(0, 0));
        assert_eq!(b[1], whole(3, 3));
    }

    #[test]
    fn a_known_fraction_is_taken_from_the_chains_through_it() {
        // 0: haddpd alone 4.43; 1: a helper, 0 and 1 together 5.43: 1.
        // 2: a form under one cycle (0.19), with 3 together 1.19: 3 is 1.
        let eqs = [
            eq(&[0], 4.43),
            eq(&[0, 1], 5.43),
            eq(&[2], 0.19),
            eq(&[2, 3], 1.19),
        ];
        let (b, bad) = solve(4, &eqs);
        assert!(bad.is_empty());
        assert_eq!(b[1], whole(1, 1));
        assert_eq!(b[3], whole(1, 1));
        assert_eq!(b[0].cycles(), Some((4.43, 4.43)));
        assert_eq!(b[2].cycles(), Some((0.19, 0.19)));
        // What is left of a chain far from whole cycles only bounds the
        // rest: 6 - 4.43 = 1.57, so 1 lies in [1, 2], and the fraction
        // stays what its own chain measured.
        let (b, bad) = solve(2, &[eq(&[0], 4.43), eq(&[0, 1], 6.0)]);
        assert!(bad.is_empty());
        assert_eq!(b[1], whole(1, 2));
        assert_eq!(b[0].cycles(), Some((4.43, 4.43)));
    }

    #[test]
    fn a_fraction_that_only_bounds_is_an_upper_bound_to_a_hundredth() {
        // xchg's chain has a second path and runs at 0.33: at most 0.33,
        // at least 0 (not the floor of one cycle, which it undercuts).
        let xchg = Equation {
            unknowns: vec![0],
            cycles: 0.33,
            exact: false,
            eliminable: false,
        };
        let rcr = Equation {
            unknowns: vec![1],
            cycles: 2.5,
            exact: false,
            eliminable: false,
        };
        let (b, bad) = solve(2, &[xchg, rcr]);
        assert!(bad.is_empty());
        assert_eq!(b[0].cycles(), Some((0.0, 0.33)));
        assert_eq!(b[1].cycles(), Some((1.0, 2.5)));
        assert!(!b[0].exact() && !b[1].exact());
    }

    #[test]
    fn a_contradiction_is_dropped_and_named() {
        // 0 + 1 = 2 pins both to 1; 0 alone = 3 contradicts.
        let (b, bad) = solve(2, &[eq(&[0, 1], 2.0), eq(&[0], 3.0)]);
        assert_eq!(bad.len(), 1);
        assert!(b[0].hi.is_some() && b[1].hi.is_some());
    }
}
