//! How far a port set's micro-ops go to one of its ports. The bound the
//! fit predicts with ([`super::bottleneck`]) lets every micro-op go to
//! whichever of its ports the mix needs; a core's scheduler need not. On
//! Zen 4 (`winic MAN`, 2026-12-04) two FMAs (pipes 0 and 1) and a
//! `vpacksswb ymm` (1 and 2) take 1.19-1.21 cycles where the pipes allow
//! 1.00 with the shuffle all on pipe 2, and a shuffle beside two adds (2
//! and 3) 1.05-1.14 for 1.00; yet an FMA beside two shuffles runs 1.00
//! with the FMA all on pipe 0, and an add beside two shuffles 1.00 with
//! the add all on pipe 3. The shuffles keep some of their micro-ops on
//! each pipe, whatever the mix; the FMAs and the adds do not. No pair the
//! fit measures shows it: it mixes as many copies as ports (two FMAs and
//! two shuffles run at the pipes' 1.33).
//!
//! After the fit, winic mixes one form of each set of two ports with one
//! of each such set that shares one of its ports, with the copies that
//! leave the second no room but its own port (two of `{0,1}` beside one
//! of `{1,2}`), and with one copy of the first more (three beside one),
//! both ways; and fits each port of those sets a share of a
//! copy it takes at least (0 to half, in sixteenths), the
//! values that predict those mixes best: a mix that leaves a set only
//! one of its ports tells what the other keeps. On Zen 4 the shuffles
//! kept more on the FMAs' pipe (two FMAs and a shuffle 1.20-1.25) than
//! on the adds' (two adds and a shuffle 1.11). It is kept when it
//! predicts them [`TRIAL_GAIN`] better than the ports alone; the held-back
//! mixes test it on forms it was not fitted to. The database writes a
//! form of such a set as OSACA's port pressure can say it: its share on
//! each port alone, the rest on the set.

use super::sources::{first_mixable, ranked, SOURCES};
use super::{gcd, plain as plain_set, port_numbers, Conflicts, Mapping, Shares, GAIN, TRIAL_GAIN};
use crate::arch::Target;
use crate::db::PortUse;
use crate::exec::run::Options;
use std::collections::BTreeMap;

/// The steps of a share, from none to half a copy.
const STEPS: usize = 8;

/// The most mixes tried: a bound (the two-port sets sharing a port gave
/// 24 mixes a full run on Zen 4, four for each two sets both ways).
const MOST_MIXES: usize = 48;

/// The spreads fitted ([`self`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// Each port set fitted (marked as [`Mapping::marked_set_of`] marks
    /// it) and the share of a copy each of its ports takes at least.
    pub sets: Vec<(u32, Shares)>,
}

impl Spread {
    /// The shares of a copy the ports of `set` (marked) take at least;
    /// none for a set without them.
    pub fn shares(&self, set: u32) -> Shares {
        self.sets
            .iter()
            .find(|s| s.0 == set)
            .map_or(Shares::default(), |s| s.1)
    }
}

/// Whether a set (marked) may take shares: two ports, not held. On Zen
/// 4 forms on four pipes went wholly where a mix needed them (two FMAs, a
/// shuffle and a `vpaddd` at the shuffle's 1.19-1.20, no more), and
/// shares fitted to every set, from mixes of every set beside every set
/// sharing ports, put even splits on four-port sets that the held-back
/// mixes refuted (10 more of 97 missed).
fn spreads(set: u32) -> bool {
    set.count_ones() == 2 && set == plain_set(set)
}

/// A share at `step` of [`STEPS`].
fn share_at(step: usize) -> f64 {
    step as f64 / (2 * STEPS) as f64
}

/// The ports of `set`, lowest first.
fn ports_of(set: u32) -> Vec<usize> {
    (0..32).filter(|p| set & (1 << p) != 0).collect()
}

/// The mixes a spread is fitted to: for each port set that may take
/// shares ([`spreads`]) among the single-micro-op forms `m` places (the
/// sets with the most forms first), and each other such set that shares
/// one of its ports, a form of each ([`ranked`]: the first two that may
/// mix), the first's copies beside the second's that fill only the
/// second's own port, then with one copy of the first more, both ways;
/// at most [`MOST_MIXES`].
fn plan(t: &dyn Target, found: &Conflicts, m: &Mapping) -> Vec<Vec<(usize, usize)>> {
    let mut by_set: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &(k, _) in &m.sets {
        let (s, set) = (&found.singles[k], m.marked_set_of(k).unwrap_or(0));
        if spreads(set) && s.cycles.is_ok() && !s.noisy {
            by_set.entry(set).or_default().push(k);
        }
    }
    let mut sets: Vec<(u32, Vec<usize>)> = by_set.into_iter().collect();
    sets.sort_by_key(|(_, forms)| std::cmp::Reverse(forms.len()));
    // A form that reads its destination (an FMA's accumulator) may run
    // at its own chain's pace in a mix of few copies, which tests no
    // port: another of its set represents it where there is one.
    let reps: Vec<(u32, Vec<usize>)> = sets
        .into_iter()
        .map(|(set, forms)| {
            let (two, more): (Vec<usize>, Vec<usize>) = forms
                .into_iter()
                .partition(|&k| t.vector_sources(found.singles[k].form) < SOURCES);
            let forms = if two.is_empty() { more } else { two };
            (set, ranked(found, m, forms))
        })
        .collect();
    let mut planned = Vec::new();
    for (i, (x, xs)) in reps.iter().enumerate() {
        for (y, ys) in &reps[i + 1..] {
            if x & y == 0 || x == y {
                continue;
            }
            let Some((a, b)) = first_mixable(t, found, xs, ys) else {
                continue;
            };
            let (x, y) = (*x, *y);
            // `a`'s copies fill its ports as `b`'s fill its own, then
            // one copy more: a share `b` keeps beside `a` exactly filling
            // its ports it need not keep where they are overfilled (on
            // Zen 4 two FMAs and a shuffle 1.20 cycles, the pipes' 1.00;
            // three FMAs and a shuffle 1.50-1.54, the pipes' 1.50).
            for ((a, pa), (b, pb)) in [((a, x), (b, y)), ((b, y), (a, x))] {
                let (fill, rb) = (pa.count_ones() as usize, (pb & !pa).count_ones() as usize);
                for ra in [fill, fill + 1] {
                    let g = gcd(ra, rb).max(1);
                    planned.push(vec![(a, ra / g), (b, rb / g)]);
                }
            }
        }
    }
    planned.truncate(MOST_MIXES);
    planned
}

/// A mix as [`fit`] sees it: its parts (each form and its copies), its
/// floor and its measured time (cycles per unit).
type SpreadMix = (Vec<(usize, usize)>, f64, f64);

/// The shares of each of `sets` at the steps `v` (two a set, by its
/// ports lowest first).
fn shares_of(sets: &[u32], v: &[usize]) -> Vec<Shares> {
    sets.iter()
        .enumerate()
        .map(|(i, &set)| {
            let mut shares = Shares::default();
            for (n, p) in ports_of(set).into_iter().enumerate() {
                shares[p] = share_at(v[2 * i + n]);
            }
            shares
        })
        .collect()
}

/// The root mean square relative error of `mixes` under `m` with the
/// sets `sets` at the steps `v` ([`shares_of`]).
fn rms(m: &Mapping, mixes: &[SpreadMix], sets: &[u32], v: &[usize]) -> f64 {
    let table = shares_of(sets, v);
    let shares = |k: usize| {
        m.marked_set_of(k)
            .and_then(|set| sets.iter().position(|&s| s == set))
            .map_or(Shares::default(), |i| table[i])
    };
    let sum: f64 = mixes
        .iter()
        .map(|(parts, floor, measured)| {
            let predicted = m
                .predict_spread(parts, *floor, &shares)
                .unwrap_or(*measured)
                .max(m.reads_bound(parts));
            ((predicted - measured) / measured).powi(2)
        })
        .sum();
    (sum / mixes.len().max(1) as f64).sqrt()
}

/// The steps of each port of `sets` that predict `mixes` best ([`rms`]):
/// from none, one port at a time, each to the step that lowers the error
/// most, until none changes; the steps and the error.
fn fit(m: &Mapping, mixes: &[SpreadMix], sets: &[u32]) -> (Vec<usize>, f64) {
    let mut v = vec![0; 2 * sets.len()];
    let mut best = rms(m, mixes, sets, &v);
    for _ in 0..20 {
        let mut changed = false;
        for i in 0..v.len() {
            for step in 0..=STEPS {
                let mut tried = v.clone();
                tried[i] = step;
                let e = rms(m, mixes, sets, &tried);
                if e < best - 1e-9 {
                    (v, best, changed) = (tried, e, true);
                }
            }
        }
        if !changed {
            break;
        }
    }
    (v, best)
}

impl Conflicts {
    /// Measures the mixes of [`plan`] (each beside its parts' copies
    /// alone), then fits the spreads ([`Conflicts::fit_spread`]). Nothing
    /// without a mapping or without two sets that share ports.
    pub fn try_spread(
        &mut self,
        t: &dyn Target,
        opts: &Options,
        progress: &mut dyn FnMut(usize, usize),
    ) {
        let Some(m) = &self.mapping else { return };
        let planned = plan(t, self, m);
        self.spreads = self.measure_mixes(t, planned, opts, progress);
        self.fit_spread();
    }

    /// Fits the spreads to the measured [`Conflicts::spreads`] mixes
    /// ([`fit`]), kept in the mapping when they predict them [`TRIAL_GAIN`]
    /// better than the ports alone.
    pub fn fit_spread(&mut self) {
        let Some(m) = &self.mapping else { return };
        let mixes: Vec<SpreadMix> = self
            .spreads
            .iter()
            .filter_map(|h| {
                let (Ok(c), Ok(floor)) = (&h.cycles, &h.floor) else {
                    return None;
                };
                m.predict(&h.parts, *floor)?;
                Some((h.parts.clone(), *floor, *c))
            })
            .collect();
        let mut sets: Vec<u32> = mixes
            .iter()
            .flat_map(|(parts, ..)| parts.iter().filter_map(|p| m.marked_set_of(p.0)))
            .filter(|&set| spreads(set))
            .collect();
        sets.sort_unstable();
        sets.dedup();
        if mixes.is_empty() {
            return;
        }
        let plain = rms(m, &mixes, &sets, &vec![0; 2 * sets.len()]);
        let (mut steps, _) = fit(m, &mixes, &sets);
        self.refuted(m, &sets, &mut steps);
        let with = rms(m, &mixes, &sets, &steps);
        if with < plain - TRIAL_GAIN {
            let kept: Vec<(u32, Shares)> = sets
                .iter()
                .copied()
                .zip(shares_of(&sets, &steps))
                .filter(|(_, shares)| shares.iter().any(|&x| x > 0.0))
                .collect();
            if let Some(m) = self.mapping.as_mut() {
                m.spread = Some((Spread { sets: kept }, plain, with));
            }
        }
    }

    /// Lowers the step (of [`fit`]) of each port of each of `sets` while
    /// it makes the measured pairs that could refute it worse ([`rms`]) by
    /// more than [`GAIN`] than no share on that port would: the pairs of a
    /// form of that set beside a form of another set that needs the port.
    /// The trial mixes hold one form of each set beside a few others, the
    /// pairs every placed form beside every probe. On the Zen 4 guest the
    /// trial fitted the shuffles 44% of a copy on the FMAs' pipe (two FMAs
    /// and a shuffle: 1.20 cycles), but one shuffle beside one FMA ran at
    /// the pipes' 0.64-0.66, which allows a third at most (0.72 with 44%):
    /// the pairs lower it to the most they allow. A share the pairs cannot
    /// see (it weighs only where a mix fills the other ports) stays.
    fn refuted(&self, m: &Mapping, sets: &[u32], steps: &mut [usize]) {
        let pairs: Vec<SpreadMix> = self
            .pairs
            .iter()
            .filter_map(|p| {
                let (floor, cycles) = p.timed()?;
                let parts = vec![(p.a, p.ratio.0), (p.b, p.ratio.1)];
                m.predict(&parts, floor)?;
                Some((parts, floor, cycles))
            })
            .collect();
        let needs = |k: usize, port: usize| {
            m.uops_of(k)
                .is_some_and(|u| u.iter().any(|&s| plain_set(s) & (1 << port) != 0))
        };
        for (i, &set) in sets.iter().enumerate() {
            let of_set = |k: usize| m.marked_set_of(k) == Some(set);
            for (n, port) in ports_of(set).into_iter().enumerate() {
                let against: Vec<SpreadMix> = pairs
                    .iter()
                    .filter(|x| {
                        let [a, b] = [x.0[0].0, x.0[1].0];
                        (of_set(a) && !of_set(b) && needs(b, port))
                            || (of_set(b) && !of_set(a) && needs(a, port))
                    })
                    .cloned()
                    .collect();
                let at = 2 * i + n;
                let mut none = steps.to_vec();
                none[at] = 0;
                let allowed = rms(m, &against, sets, &none) + GAIN;
                while steps[at] > 0 && rms(m, &against, sets, steps) > allowed {
                    steps[at] -= 1;
                }
            }
        }
    }

    /// The report's section on the spreads: what each set keeps on each
    /// port (or why none is kept), then each mix, measured and predicted.
    /// Empty when no mix was planned.
    pub(super) fn render_spread(&self, m: &Mapping) -> String {
        let kept = m.spread.as_ref().map(|(spread, plain, with)| {
            let sets: Vec<String> = spread
                .sets
                .iter()
                .map(|&(set, shares)| {
                    let ports = port_numbers(set, m.ports);
                    let kept: Vec<String> = ports_of(set)
                        .into_iter()
                        .zip(&ports)
                        .map(|(p, name)| format!("{:.0}% on {name}", 100.0 * shares[p]))
                        .collect();
                    format!("{{{}}} {}", ports.join(","), kept.join(", "))
                })
                .collect();
            format!(
                "port sets whose micro-ops keep a share on each of their ports, whatever the \
                 mix (the share of a copy on a port at least: {}): over the mixes below, each \
                 set's form beside one of a set sharing some of its ports with the copies that \
                 leave it only its own, the root mean square error is {:.1}% with them, {:.1}% \
                 without\n",
                sets.join("; "),
                100.0 * with,
                100.0 * plain
            )
        });
        self.render_trial(
            &self.spreads,
            m,
            kept,
            "port sets beside sets sharing some of their ports: no mix measured (no spread \
             kept)\n",
            "port sets beside sets sharing some of their ports, with the copies that leave one \
             only its own: the ports alone predict them as well as a spread would (none kept)\n",
        )
    }
}

/// A form's ports as the database writes them: `cycles` of work on
/// `set` (of `ports` numbered ports), and where its set keeps shares on
/// its ports ([`Mapping::spread`]) each share of it on its port alone,
/// the rest on the set (OSACA balances only that part).
pub(super) fn pressure(cycles: f64, set: u32, ports: u32, shares: &Shares) -> Vec<PortUse> {
    let round = |c: f64| (c * 100.0).round() / 100.0;
    let mut uses: Vec<PortUse> = ports_of(set)
        .into_iter()
        .filter(|&p| shares[p] > 0.0)
        .map(|p| PortUse {
            cycles: round(cycles * shares[p]),
            ports: port_numbers(1 << p, ports),
        })
        .collect();
    let rest = cycles * (1.0 - ports_of(set).iter().map(|&p| shares[p]).sum::<f64>());
    if rest > 1e-9 {
        uses.push(PortUse {
            cycles: round(rest),
            ports: port_numbers(set, ports),
        });
    }
    uses
}

#[cfg(test)]
mod tests {
    use super::super::tests::{made_up, mapped};
    use super::super::{bottleneck, spread_bottleneck, HeldBack};
    use super::*;

    /// Zen 4's FMA pipes, a shuffle sharing one of them and one of the
    /// add pipes, and the adds, with each trial mix timed by `time`.
    fn zen4_like(time: impl Fn(&[(usize, usize)]) -> f64) -> Conflicts {
        let forms: [(&str, u32, Option<u32>); 3] = [
            ("VMULPDYrr", 0b0011, Some(256)),
            ("VPACKSSWBYrr", 0b0110, Some(256)),
            ("VADDPDYrr", 0b1100, Some(256)),
        ];
        let mut found = mapped(&forms);
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let planned = plan(t, &found, found.mapping.as_ref().unwrap());
        found.spreads = planned
            .into_iter()
            .map(|parts| HeldBack {
                cycles: Ok(time(&parts)),
                parts,
                floor: Ok(0.5),
                noisy: false,
            })
            .collect();
        found
    }

    /// The pipes' bound of a trial mix of [`zen4_like`]'s forms.
    fn pipes(parts: &[(usize, usize)]) -> f64 {
        let sets = [0b0011, 0b0110, 0b1100];
        let uops: Vec<(u32, f64)> = parts.iter().map(|&(k, r)| (sets[k], r as f64)).collect();
        bottleneck(&uops)
    }

    /// [`zen4_like`] timed as `winic MAN` timed Zen 4: the shuffle pushed
    /// onto one pipe runs slower than the pipes allow where the other
    /// set exactly fills its pipes (two FMAs and a shuffle 1.20, two adds
    /// and a shuffle 1.11), not where they are overfilled (three FMAs
    /// and a shuffle 1.52, three adds and a shuffle 1.50); the others at
    /// the pipes' bound.
    fn timed_as_zen4() -> Conflicts {
        zen4_like(|parts| match parts {
            [(0, 2), (1, 1)] => 1.2,
            [(2, 2), (1, 1)] => 1.11,
            [(0, 3), (1, 1)] => 1.52,
            _ => pipes(parts),
        })
    }

    /// The shares of two ports, each (port, share); none on the others.
    fn on(shares: [(usize, f64); 2]) -> Shares {
        let mut s = Shares::default();
        for (p, x) in shares {
            s[p] = x;
        }
        s
    }

    /// With no share the bound is the plain one; a share keeps that part
    /// of a copy on its port, so two FMAs beside a shuffle that keeps 30%
    /// on the FMAs' pipe take 1.15 cycles, not 1.
    #[test]
    fn a_share_on_a_port_raises_the_busiest_set() {
        let plain = [(0b011, 2.0), (0b110, 1.0)];
        let none: Vec<(u32, f64, Shares)> = plain
            .iter()
            .map(|&(s, c)| (s, c, Shares::default()))
            .collect();
        assert_eq!(spread_bottleneck(&none), bottleneck(&plain));
        assert_eq!(spread_bottleneck(&none), 1.0);
        let kept = [
            (0b011, 2.0, Shares::default()),
            (0b110, 1.0, on([(1, 0.3), (2, 0.0)])),
        ];
        assert!((spread_bottleneck(&kept) - 1.15).abs() < 1e-12);
        // A share on the other pipe costs nothing here.
        let other = [
            (0b011, 2.0, Shares::default()),
            (0b110, 1.0, on([(1, 0.0), (2, 0.4)])),
        ];
        assert_eq!(spread_bottleneck(&other), 1.0);
        // Where the shuffle has room, its share costs nothing.
        let room = [
            (0b011, 3.0, Shares::default()),
            (0b110, 1.0, on([(1, 0.3), (2, 0.3)])),
        ];
        assert!((spread_bottleneck(&room) - 1.65).abs() < 1e-12);
        // Half on each pipe is OSACA's default pressure.
        let even = [
            (0b011, 2.0, Shares::default()),
            (0b110, 1.0, on([(1, 0.5), (2, 0.5)])),
        ];
        assert_eq!(spread_bottleneck(&even), 1.25);
    }

    /// The trial mixes: each set beside each set sharing one of its
    /// ports, the first's copies filling its ports (then one more), the
    /// second's only its own port, both ways; the FMAs and the adds share
    /// none.
    #[test]
    fn the_mixes_leave_one_set_only_its_own_ports() {
        let found = zen4_like(pipes);
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let mut planned = plan(t, &found, found.mapping.as_ref().unwrap());
        planned.sort();
        assert_eq!(
            planned,
            [
                vec![(0, 2), (1, 1)],
                vec![(0, 3), (1, 1)],
                vec![(1, 2), (0, 1)],
                vec![(1, 2), (2, 1)],
                vec![(1, 3), (0, 1)],
                vec![(1, 3), (2, 1)],
                vec![(2, 2), (1, 1)],
                vec![(2, 3), (1, 1)],
            ]
        );
    }

    /// A set's first form may be one no form of the other set may run
    /// beside (legacy SSE `packsswb` beside VEX `vmulpd`): the trial
    /// takes the next of its forms that may.
    #[test]
    fn the_mixes_take_forms_that_may_mix() {
        let forms: [(&str, u32, Option<u32>); 3] = [
            ("VMULPDYrr", 0b0011, Some(256)),
            ("PACKSSWBrr", 0b0110, Some(128)),
            ("VPACKSSWBYrr", 0b0110, Some(256)),
        ];
        let found = mapped(&forms);
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let m = found.mapping.as_ref().unwrap();
        assert!(t
            .cannot_mix(found.singles[0].form, found.singles[1].form)
            .is_some());
        let shuffles = ranked(&found, m, vec![1, 2]);
        assert_eq!(shuffles[0], 1, "the legacy form ranks first");
        let planned = plan(t, &found, m);
        assert_eq!(planned.len(), 4, "{planned:?}");
        for parts in planned {
            let forms: Vec<usize> = parts.iter().map(|p| p.0).collect();
            assert!(forms.contains(&0) && forms.contains(&2), "{parts:?}");
        }
    }

    /// Timed as on Zen 4 ([`timed_as_zen4`]), the fit keeps shares
    /// for the shuffle alone, more on the FMAs' pipe than on the adds',
    /// which then predict those mixes; the database writes each on its
    /// pipe alone beside the rest.
    #[test]
    fn a_spread_is_fitted_where_a_set_does_not_go_to_one_port() {
        let mut found = timed_as_zen4();
        found.fit_spread();
        let m = found.mapping.as_ref().unwrap();
        let (spread, plain, with) = m.spread.as_ref().expect("a spread is kept");
        assert_eq!(spread.sets.len(), 1, "{spread:?}");
        assert_eq!(spread.sets[0].0, 0b0110);
        assert!(
            *with < 0.05 && *plain > *with + TRIAL_GAIN,
            "{plain} {with}"
        );
        let shares = m.shares(1);
        assert!(shares[1] > shares[2] && shares[2] > 0.0, "{shares:?}");
        assert_eq!(
            (m.shares(0), m.shares(2)),
            (Shares::default(), Shares::default())
        );
        // Two FMAs and a shuffle, and three, both within 10%: the share
        // is the one that predicts both best.
        let two_fmas = m.predict(&[(0, 2), (1, 1)], 0.0).unwrap();
        assert!((two_fmas / 1.2 - 1.0).abs() < 0.1, "{two_fmas}");
        let three_fmas = m.predict(&[(0, 3), (1, 1)], 0.0).unwrap();
        assert!((three_fmas / 1.52 - 1.0).abs() < 0.1, "{three_fmas}");
        assert!(
            two_fmas > 1.05 && three_fmas > 1.55,
            "{two_fmas} {three_fmas}"
        );
        assert_eq!(m.predict(&[(0, 1), (1, 2)], 0.0), Some(1.0));
        // The report names the set and its shares, then each mix.
        let text = found.render_spread(m);
        assert!(text.contains("{1,2} "), "{text}");
        assert_eq!(
            text.lines().filter(|l| l.contains(" + ")).count(),
            8,
            "{text}"
        );
        // Into the database: each share on its pipe, the rest on both.
        let written = found.inferred_ports();
        let shuffle = &written
            .iter()
            .find(|w| w.0.name() == "VPACKSSWBYrr")
            .unwrap()
            .1;
        let names: Vec<Vec<String>> = shuffle.iter().map(|u| u.ports.clone()).collect();
        assert_eq!(names, [vec!["1"], vec!["2"], vec!["1", "2"]]);
        let total: f64 = shuffle.iter().map(|u| u.cycles).sum();
        assert!((total - 1.0).abs() < 0.02, "{shuffle:?}");
        assert!((shuffle[0].cycles - shares[1]).abs() < 0.01, "{shuffle:?}");
        let fma = &written
            .iter()
            .find(|w| w.0.name() == "VMULPDYrr")
            .unwrap()
            .1;
        assert_eq!(fma.len(), 1);
    }

    /// The trial mixes ask for half of a shuffle on the FMAs' pipe (two
    /// FMAs and a shuffle 1.25, three 1.75), but the measured pairs of a
    /// shuffle beside an FMA run at the pipes' bound, which a share of
    /// more than a third would exceed: the pairs lower it to what they
    /// allow, and the pair is then predicted at its bound.
    #[test]
    fn pairs_the_ports_predict_lower_a_spread() {
        let mut found = zen4_like(|parts| match parts {
            [(0, 2), (1, 1)] => 1.25,
            [(0, 3), (1, 1)] => 1.75,
            _ => pipes(parts),
        });
        let sets = [0b0011, 0b0110, 0b1100];
        let forms: Vec<(&str, u32, Option<u32>)> = found
            .singles
            .iter()
            .zip(sets)
            .map(|(s, set)| (s.form.name(), set, s.vector))
            .collect();
        let made = made_up(&forms, |a, ra, b, rb| {
            bottleneck(&[(sets[a], ra as f64), (sets[b], rb as f64)]).max(0.5)
        });
        let mut alone = found.clone();
        alone.pairs.clear();
        alone.fit_spread();
        found.pairs = made.pairs;
        found.fit_spread();
        let fitted = alone.mapping.as_ref().unwrap().shares(1)[1];
        assert!(fitted > 0.45, "the trial alone fits half: {fitted}");
        let m = found.mapping.as_ref().unwrap();
        let lowered = m.shares(1)[1];
        assert!(lowered > 0.0 && lowered <= 1.0 / 3.0, "{lowered}");
        // The pair of a shuffle and an FMA is predicted at its bound.
        let pair = found.pairs.iter().find(|p| (p.a, p.b) == (0, 1)).unwrap();
        let (floor, cycles) = pair.timed().unwrap();
        let parts = [(0, pair.ratio.0), (1, pair.ratio.1)];
        let predicted = m.predict(&parts, floor).unwrap();
        assert!(
            (predicted / cycles - 1.0).abs() < 0.01,
            "{predicted} {cycles}"
        );
    }

    /// Mixes the ports predict keep no spread: it must earn its place.
    #[test]
    fn no_spread_where_the_ports_predict_the_mixes() {
        let mut found = zen4_like(pipes);
        found.fit_spread();
        let m = found.mapping.as_ref().unwrap();
        assert!(m.spread.is_none());
        assert!(found.render_spread(m).contains("none kept"));
        assert_eq!(pressure(1.0, 0b110, 4, &Shares::default()).len(), 1);
    }
}
