//! Exact values from chain equations.
//!
//! Every measured chain says: the sub-latencies on its cycle add up to the
//! time of one lap (an [`Equation`]), or at most to it when a second path
//! through the body may have set the pace. Times are rounded to whole
//! cycles (latencies are whole cycles; a lap more than a quarter cycle off
//! a whole number is reported by the caller). Every unknown is at least
//! one cycle (as in the WINIC thesis: every instruction takes a cycle),
//! except a sub-latency measured alone, which may be 0 (an eliminated
//! move).
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

/// One measured chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Equation {
    /// The unknowns on the cycle (indices), each once.
    pub unknowns: Vec<usize>,
    /// Cycles of one lap.
    pub cycles: f64,
    /// The lap is the cycle's sum; otherwise an upper bound of it.
    pub exact: bool,
}

/// Bounds of one unknown, whole cycles; `hi` is `None` when no equation
/// bounds it from above (not measured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Lower bound.
    pub lo: i64,
    /// Upper bound.
    pub hi: Option<i64>,
}

impl Bounds {
    /// Whether the value is known exactly.
    pub fn exact(&self) -> bool {
        self.hi == Some(self.lo)
    }
}

/// The bounds of `n` unknowns under `equations`, and the indices of the
/// equations that contradicted the others.
pub fn solve(n: usize, equations: &[Equation]) -> (Vec<Bounds>, Vec<usize>) {
    let mut floor = vec![1i64; n];
    // A sub-latency measured alone may be 0 cycles.
    for e in equations {
        if e.unknowns.len() == 1 && e.exact && e.cycles.round() < 1.0 {
            floor[e.unknowns[0]] = 0;
        }
    }
    let mut dropped: Vec<usize> = Vec::new();
    loop {
        match propagate(n, equations, &floor, &dropped) {
            Ok(b) => return (b, dropped),
            Err(bad) => {
                // Drop the contradicting equation and start again.
                dropped.push(bad);
            }
        }
    }
}

const INF: i64 = i64::MAX / 4;

fn propagate(
    n: usize,
    equations: &[Equation],
    floor: &[i64],
    dropped: &[usize],
) -> Result<Vec<Bounds>, usize> {
    let mut lo = floor.to_vec();
    let mut hi = vec![INF; n];
    let live: Vec<(usize, &Equation)> = equations
        .iter()
        .enumerate()
        .filter(|(k, _)| !dropped.contains(k))
        .collect();
    for _round in 0..1000 {
        let mut changed = false;
        for &(k, e) in &live {
            // An upper bound is rounded up unless it is close to whole.
            let c = if e.exact {
                e.cycles.round()
            } else {
                (e.cycles - 0.25).ceil()
            } as i64;
            let sum_lo: i64 = e.unknowns.iter().map(|&u| lo[u]).sum();
            let sum_hi: i64 = e.unknowns.iter().map(|&u| hi[u]).sum::<i64>().min(INF);
            for &u in &e.unknowns {
                let up = c - (sum_lo - lo[u]);
                if up < hi[u] {
                    hi[u] = up;
                    changed = true;
                }
                if e.exact && sum_hi < INF {
                    let down = c - (sum_hi - hi[u]);
                    if down > lo[u] {
                        lo[u] = down;
                        changed = true;
                    }
                }
                if lo[u] > hi[u] {
                    return Err(k);
                }
            }
        }
        if !changed {
            break;
        }
    }
    Ok((0..n)
        .map(|u| Bounds {
            lo: lo[u],
            hi: (hi[u] < INF).then_some(hi[u]),
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
        }
    }

    #[test]
    fn a_pair_summing_to_two_is_one_and_one_and_pins_the_rest() {
        // 0: bts r->flags, 1: adc flags->r (helpers), 2: bt r->flags.
        let (b, bad) = solve(3, &[eq(&[0, 1], 2.02), eq(&[2, 1], 3.97)]);
        assert!(bad.is_empty());
        assert_eq!(b[0], Bounds { lo: 1, hi: Some(1) });
        assert_eq!(b[1], Bounds { lo: 1, hi: Some(1) });
        assert_eq!(b[2], Bounds { lo: 3, hi: Some(3) });
    }

    #[test]
    fn a_pair_summing_to_more_leaves_ranges() {
        // movq r64->xmm and xmm->r64 take 5 together: each in [1, 4].
        let (b, _) = solve(3, &[eq(&[0, 1], 5.0), eq(&[2, 1], 6.0)]);
        assert_eq!(b[0], Bounds { lo: 1, hi: Some(4) });
        assert_eq!(b[2], Bounds { lo: 2, hi: Some(5) });
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
        assert_eq!(b[1], Bounds { lo: 2, hi: Some(2) });
        assert_eq!(b[0], Bounds { lo: 3, hi: Some(3) });
        assert_eq!(b[4], Bounds { lo: 4, hi: Some(4) });
    }

    #[test]
    fn upper_bounds_only_cap() {
        let (b, _) = solve(
            1,
            &[Equation {
                unknowns: vec![0],
                cycles: 3.1,
                exact: false,
            }],
        );
        assert_eq!(b[0], Bounds { lo: 1, hi: Some(3) });
    }

    #[test]
    fn unmeasured_unknowns_have_no_upper_bound_and_zero_is_allowed_alone() {
        let (b, _) = solve(2, &[eq(&[1], 0.1)]);
        assert_eq!(b[0].hi, None);
        assert_eq!(b[1], Bounds { lo: 0, hi: Some(0) });
    }

    #[test]
    fn a_contradiction_is_dropped_and_named() {
        // 0 + 1 = 2 pins both to 1; 0 alone = 3 contradicts.
        let (b, bad) = solve(2, &[eq(&[0, 1], 2.0), eq(&[0], 3.0)]);
        assert_eq!(bad.len(), 1);
        assert!(b[0].hi.is_some() && b[1].hi.is_some());
    }
}
