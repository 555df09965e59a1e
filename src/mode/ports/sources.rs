//! Third vector sources: a limit beside the ports. A form that reads
//! three vector registers (an FMA's accumulator, a merge-masked form's
//! kept lanes, `vpternlogd`'s first table) can cost more than a micro-op
//! on its port: on Zen 4 an FMA (ports 0 and 1) beside a merge-masked
//! `vsubps` (ports 2 and 3) runs 0.86-0.93 cycles a pair where each alone
//! runs 0.50 and their ports are apart, while the FMA beside the unmasked
//! or zero-masked `vsubps`, or a `vmulps` beside the masked one, runs
//! 0.50. No set of ports says so, and the probes every form is placed
//! against read two sources, so the fit never sees it.
//!
//! After the fit, winic mixes, in pairs, one form of each port set whose
//! forms read three vector registers
//! ([`crate::arch::KernelFrame::vector_sources`]), and fits a read port
//! `R` beside the ports: each such set takes some cycles of it a copy
//! (0 to 2 in eighths, never more than its form's time alone: two FMAs a
//! cycle run alone, so an FMA takes at most half a cycle of it), the
//! values that predict those mixes best. Not every three-source form
//! takes the same: on Zen 4 a `vpternlogd` (four pipes) costs an FMA
//! about as much as a masked `vsubps` (two pipes) does, yet beside the
//! masked `vsubps` it costs nothing: it goes to the pipes the `vsubps`
//! does not use. The port is kept when it predicts those mixes [`TRIAL_GAIN`]
//! better than the ports alone; the held-back mixes test it on forms it
//! was not fitted to, and the database writes it as port `R` of the
//! forms that take it, which OSACA balances as it balances any port.

use super::{balance, time, Conflicts, TRIAL_GAIN};
use super::{plain as plain_set, port_numbers, Mapping, HELD};
use crate::arch::Target;
use crate::exec::run::Options;
use std::collections::BTreeMap;

/// The vector registers a form reads to take the read port.
pub const SOURCES: usize = 3;

/// The steps of a set's cycles of the read port a copy: eighths.
const STEP: f64 = 0.125;

/// The most cycles of the read port a copy tried.
const MOST: f64 = 2.0;

/// The most port sets whose forms are mixed with each other: 12 sets are
/// 66 mixes.
const MOST_SETS: usize = 12;

/// The read port beside the ports ([`self`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Reads {
    /// Each port set fitted (marked as [`Mapping::marked_set_of`] marks
    /// it) and the cycles of the read port its forms take a copy.
    pub sets: Vec<(u32, f64)>,
    /// Each form that takes the read port (index into the singles) and
    /// its cycles a copy: its set's, at most its time alone.
    pub uses: Vec<(usize, f64)>,
}

impl Reads {
    /// The cycles of the read port form `k` takes a copy (0 for a form
    /// that takes none).
    pub fn use_of(&self, k: usize) -> f64 {
        self.uses.iter().find(|u| u.0 == k).map_or(0.0, |u| u.1)
    }

    /// The cycles per unit of a mix of `parts` (each form and its copies
    /// per unit) the read port allows at best.
    pub fn bound(&self, parts: &[(usize, usize)]) -> f64 {
        parts.iter().map(|&(k, r)| r as f64 * self.use_of(k)).sum()
    }

    /// Reads whose sets take `sets`' cycles: each form of `found` that
    /// reads [`SOURCES`] vector registers or more, with a time alone, in
    /// one of those sets under `m` (a form no set fits: in its nearest),
    /// takes its set's cycles, at most its time alone.
    fn of(t: &dyn Target, found: &Conflicts, m: &Mapping, sets: Vec<(u32, f64)>) -> Reads {
        let nearest = found
            .classes
            .iter()
            .flat_map(|c| c.withheld.iter().map(|&(k, set, _)| (k, set)));
        let placed = m
            .sets
            .iter()
            .map(|&(k, _)| (k, m.marked_set_of(k).unwrap_or(0)));
        let uses = placed
            .chain(nearest)
            .filter_map(|(k, set)| {
                let s = &found.singles[k];
                if s.cycles.is_err() || t.vector_sources(s.form) < SOURCES {
                    return None;
                }
                let cycles = sets.iter().find(|x| x.0 == set)?.1.min(time(s));
                (cycles > 0.0).then_some((k, cycles))
            })
            .collect();
        Reads { sets, uses }
    }
}

/// The forms of each port set (up to [`MOST_SETS`], the sets with the
/// most such forms first) among the single-micro-op forms `m` places that
/// read three vector registers, each set's [`ranked`].
fn representatives(t: &dyn Target, found: &Conflicts, m: &Mapping) -> Vec<Vec<usize>> {
    let mut by_set: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &(k, _) in &m.sets {
        let s = &found.singles[k];
        if s.cycles.is_ok() && !s.noisy && t.vector_sources(s.form) >= SOURCES {
            by_set
                .entry(m.marked_set_of(k).unwrap_or(0))
                .or_default()
                .push(k);
        }
    }
    let mut sets: Vec<Vec<usize>> = by_set.into_values().collect();
    sets.sort_by_key(|forms| std::cmp::Reverse(forms.len()));
    sets.into_iter()
        .take(MOST_SETS)
        .map(|forms| ranked(found, m, forms))
        .collect()
}

/// `forms` in the order a trial prefers them for their set: the one
/// whose time alone is nearest to its set's (a micro-op a cycle on each
/// port, held as it holds) first, then by name.
pub(super) fn ranked(found: &Conflicts, m: &Mapping, mut forms: Vec<usize>) -> Vec<usize> {
    let off = |k: usize| {
        let set = m.set_of(k).map_or(1, u32::count_ones);
        (time(&found.singles[k]) * f64::from(set) / m.hold(k) - 1.0).abs()
    };
    forms.sort_by(|&a, &b| {
        off(a).total_cmp(&off(b)).then(
            found.singles[a]
                .form
                .name()
                .cmp(found.singles[b].form.name()),
        )
    });
    forms
}

/// The forms of a set tried, best first ([`ranked`]), for one that may
/// mix with a form of another set.
const CANDIDATES: usize = 16;

/// Of two sets' [`ranked`] forms `xs` and `ys`, the first two (one of
/// each, in that order, among the first [`CANDIDATES`] of each) that may
/// run in one body: the first of one set may be a legacy SSE form, which
/// no VEX form of the other may run beside (on Zen 4 the shuffles'
/// `psraw` kept them out of every mix of the spread trial).
pub(super) fn first_mixable(
    t: &dyn Target,
    found: &Conflicts,
    xs: &[usize],
    ys: &[usize],
) -> Option<(usize, usize)> {
    xs.iter().take(CANDIDATES).find_map(|&a| {
        let b = ys.iter().take(CANDIDATES).find(|&&b| {
            t.cannot_mix(found.singles[a].form, found.singles[b].form)
                .is_none()
        })?;
        Some((a, *b))
    })
}

/// A mix as [`fit`] sees it: each part (an index into the sets, its
/// copies per unit and its time alone), the mix's time by the ports
/// alone, and its measured time (cycles per unit).
pub type ReadMix = (Vec<(usize, f64, f64)>, f64, f64);

/// The root mean square relative error of `mixes` when each set takes
/// `v[set]` cycles of the read port a copy (a part at most its time
/// alone).
fn rms(mixes: &[ReadMix], v: &[f64]) -> f64 {
    let sum: f64 = mixes
        .iter()
        .map(|(parts, ports, measured)| {
            let read: f64 = parts
                .iter()
                .map(|&(s, copies, alone)| copies * v[s].min(alone))
                .sum();
            ((ports.max(read) - measured) / measured).powi(2)
        })
        .sum();
    (sum / mixes.len().max(1) as f64).sqrt()
}

/// The cycles of the read port each of `sets` takes a copy that predict
/// `mixes` best ([`rms`]): from none and from the most (each form as much
/// as its time alone), the values of one set and then of two sets at a
/// time, 0 to [`MOST`] in [`STEP`]s, until none changes (a conflict needs
/// two sets to take the port, so from none one set alone moves nothing);
/// the better of the two, and its error.
pub fn fit(sets: usize, mixes: &[ReadMix]) -> (Vec<f64>, f64) {
    let steps = (MOST / STEP) as usize;
    let descend = |mut v: Vec<f64>| {
        let mut best = rms(mixes, &v);
        for _ in 0..20 {
            let mut changed = false;
            for a in 0..sets {
                for b in a..sets {
                    for (i, j) in (0..=steps).flat_map(|i| (0..=steps).map(move |j| (i, j))) {
                        if a == b && i != j {
                            continue;
                        }
                        let mut tried = v.clone();
                        tried[a] = i as f64 * STEP;
                        tried[b] = j as f64 * STEP;
                        let e = rms(mixes, &tried);
                        if e < best - 1e-9 {
                            (v, best, changed) = (tried, e, true);
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        (v, best)
    };
    let (low, high) = (descend(vec![0.0; sets]), descend(vec![MOST; sets]));
    if high.1 < low.1 {
        high
    } else {
        low
    }
}

impl Conflicts {
    /// Mixes, in pairs, the [`representatives`] of the port sets whose
    /// forms read three vector registers (of each two sets the
    /// [`first_mixable`] forms, each pair in a balanced mix,
    /// beside each part's copies alone), then fits the read port
    /// ([`Conflicts::fit_reads`]). Nothing without a mapping or with
    /// fewer than two such sets.
    pub fn try_reads(
        &mut self,
        t: &dyn Target,
        opts: &Options,
        progress: &mut dyn FnMut(usize, usize),
    ) {
        let Some(m) = &self.mapping else { return };
        let reps = representatives(t, self, m);
        let mut planned: Vec<Vec<(usize, usize)>> = Vec::new();
        for (i, xs) in reps.iter().enumerate() {
            for ys in &reps[i + 1..] {
                if let Some((a, b)) = first_mixable(t, self, xs, ys) {
                    let (ra, rb) = balance(time(&self.singles[a]), time(&self.singles[b]));
                    planned.push(vec![(a, ra), (b, rb)]);
                }
            }
        }
        let mixes = self.measure_mixes(t, planned, opts, progress);
        self.reads = mixes;
        self.fit_reads(t);
    }

    /// Fits the read port to the measured [`Conflicts::reads`] mixes
    /// ([`fit`], by each part's set), kept in the mapping when it predicts
    /// them [`TRIAL_GAIN`] better than the ports alone.
    pub fn fit_reads(&mut self, t: &dyn Target) {
        let Some(m) = &self.mapping else { return };
        let mut sets: Vec<u32> = Vec::new();
        let mut mixes: Vec<ReadMix> = Vec::new();
        for h in &self.reads {
            let (Ok(c), Ok(floor)) = (&h.cycles, &h.floor) else {
                continue;
            };
            let Some(ports) = m.predict_ports(&h.parts, *floor) else {
                continue;
            };
            let mut parts = Vec::new();
            for &(k, r) in &h.parts {
                let set = m.marked_set_of(k).unwrap_or(0);
                let s = sets.iter().position(|&x| x == set).unwrap_or_else(|| {
                    sets.push(set);
                    sets.len() - 1
                });
                parts.push((s, r as f64, time(&self.singles[k])));
            }
            mixes.push((parts, ports, *c));
        }
        if mixes.is_empty() {
            return;
        }
        let plain = rms(&mixes, &vec![0.0; sets.len()]);
        let (values, with) = fit(sets.len(), &mixes);
        if with < plain - TRIAL_GAIN {
            let reads = Reads::of(t, self, m, sets.into_iter().zip(values).collect());
            if let Some(m) = self.mapping.as_mut() {
                m.reads = Some((reads, plain, with));
            }
        }
    }

    /// The report's section on the read port: what each set takes (or why
    /// none is kept), then each mix, measured and predicted. Empty when no
    /// mix was planned.
    pub(super) fn render_reads(&self, m: &Mapping) -> String {
        let kept = m.reads.as_ref().map(|(r, plain, with)| {
            let sets: Vec<String> = r
                .sets
                .iter()
                .map(|&(set, v)| {
                    let held = if set & HELD != 0 { "(x2)" } else { "" };
                    let ports = port_numbers(plain_set(set), m.ports).join(",");
                    format!("{{{ports}}}{held} {v:.3}")
                })
                .collect();
            format!(
                "forms that read three vector registers take a read port {} beside their \
                 ports ({} forms; cycles of it a copy by port set, at most a form's time \
                 alone: {}): over the mixes below the root mean square error is {:.1}% with \
                 it, {:.1}% without\n",
                crate::db::READ_PORT,
                r.uses.len(),
                sets.join(", "),
                100.0 * with,
                100.0 * plain
            )
        });
        self.render_trial(
            &self.reads,
            m,
            kept,
            "forms that read three vector registers, one of each port set, in pairs: no mix \
             measured (no read port kept)\n",
            "forms that read three vector registers, one of each port set, in pairs: the ports \
             alone predict them as well as a read port beside them would (none kept)\n",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::mapped;
    use super::super::HeldBack;
    use super::*;

    /// An FMA (ports 0 and 1), a merge-masked subtract (2 and 3) and a
    /// `vpternlogd` (all four) as Zen 4 runs them: each alone as its
    /// ports say, every pair of them slower than the ports predict.
    fn zen4_like() -> Conflicts {
        let forms: [(&str, u32, Option<u32>); 4] = [
            ("VFMADD213PSYr", 0b0011, Some(256)),
            ("VSUBPSZ256rrk", 0b1100, Some(256)),
            ("VPTERNLOGDZ256rri", 0b1111, Some(256)),
            ("VSUBPSZ256rr", 0b1100, Some(256)),
        ];
        let mut found = mapped(&forms);
        // FMA + masked subtract 1.0 a pair (ports: 0.5); FMA + two
        // ternlogs 1.0 (0.75); masked subtract + two ternlogs 1.0 (0.75).
        found.reads = [
            ((0, 1), (1, 1), 1.0),
            ((0, 1), (2, 2), 1.0),
            ((1, 1), (2, 2), 1.0),
        ]
        .into_iter()
        .map(|(a, b, c)| HeldBack {
            parts: vec![a, b],
            cycles: Ok(c),
            floor: Ok(0.5),
            noisy: false,
        })
        .collect();
        found
    }

    /// Of a set whose first-ranked form is legacy SSE (`blendvps`, which
    /// reads xmm0 as its third source), the read-port trial mixes the
    /// next form that may run beside the other set's VEX form.
    #[test]
    fn the_read_trial_takes_forms_that_may_mix() {
        let forms: [(&str, u32, Option<u32>); 3] = [
            ("VFMADD213PSYr", 0b0011, Some(256)),
            ("BLENDVPSrr0", 0b0110, Some(128)),
            ("VBLENDVPSYrrr", 0b0110, Some(256)),
        ];
        let found = mapped(&forms);
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let m = found.mapping.as_ref().unwrap();
        let reps = representatives(t, &found, m);
        assert_eq!(
            reps,
            vec![vec![1, 2], vec![0]],
            "the legacy form ranks first"
        );
        assert!(t
            .cannot_mix(found.singles[0].form, found.singles[1].form)
            .is_some());
        assert_eq!(first_mixable(t, &found, &reps[0], &reps[1]), Some((2, 0)));
        assert_eq!(first_mixable(t, &found, &reps[0][..1], &reps[1]), None);
    }

    /// The fit finds what each set takes (an FMA and the masked
    /// subtract half a cycle, a ternlog a quarter), which predicts the
    /// mixes exactly; a form that reads two registers takes none, and the
    /// mixes then predict as measured.
    #[test]
    fn a_read_port_is_fitted_where_three_source_forms_collide() {
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let mut found = zen4_like();
        found.fit_reads(t);
        let m = found.mapping.as_ref().unwrap();
        let (reads, plain, with) = m.reads.as_ref().expect("a read port is kept");
        assert_eq!(reads.uses, [(0, 0.5), (1, 0.5), (2, 0.25)]);
        assert!(*with < 1e-9 && *plain > 0.2, "{plain} {with}");
        for h in &found.reads {
            assert_eq!(m.predict(&h.parts, 0.0), Some(1.0), "{:?}", h.parts);
        }
        // The plain subtract reads two registers: nothing beside its ports.
        assert_eq!(m.predict(&[(0, 1), (3, 1)], 0.0), Some(0.5));
        assert_eq!(reads.bound(&[(0, 2), (3, 5)]), 1.0);
        // The database writes the port beside the form's set.
        let written = found.inferred_ports();
        let fma = &written
            .iter()
            .find(|w| w.0.name() == "VFMADD213PSYr")
            .unwrap()
            .1;
        assert_eq!(fma.last().unwrap().ports, [crate::db::READ_PORT]);
        assert_eq!(fma.last().unwrap().cycles, 0.5);
        let plain_sub = &written
            .iter()
            .find(|w| w.0.name() == "VSUBPSZ256rr")
            .unwrap()
            .1;
        assert_eq!(plain_sub.len(), 1);
    }

    /// Mixes the ports predict leave no read port: it must earn its place.
    #[test]
    fn no_read_port_where_the_ports_predict_the_mixes() {
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let mut found = zen4_like();
        for (h, c) in found.reads.iter_mut().zip([0.5, 0.75, 0.75]) {
            h.cycles = Ok(c);
        }
        found.fit_reads(t);
        assert!(found.mapping.as_ref().unwrap().reads.is_none());
        assert!(found
            .render_reads(found.mapping.as_ref().unwrap())
            .contains("none kept"));
    }

    /// From none, one set alone moves nothing; the fit still finds two
    /// that collide (it also tries two sets at a time and from the most).
    #[test]
    fn the_fit_moves_two_sets_at_once() {
        let mixes: Vec<ReadMix> = vec![(vec![(0, 1.0, 0.5), (1, 1.0, 0.5)], 0.5, 0.875)];
        let (v, e) = fit(2, &mixes);
        assert!(e < 1e-9, "{v:?} {e}");
        assert!(
            (v[0].min(0.5) + v[1].min(0.5) - 0.875).abs() < 1e-9,
            "{v:?}"
        );
    }
}
