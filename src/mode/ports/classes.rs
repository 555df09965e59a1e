//! A full run of port inference: more forms than their pairs can be
//! timed for (thousands of forms are millions of pairs). Every form runs
//! alone; a seed of single-micro-op forms, spread over port counts and
//! register widths, runs in every pair and fixes a port mapping
//! ([`Conflicts::fit`]); one form of each port set the seed found becomes
//! a probe (and, where the fit found a [`super::WideMode`], some of the
//! widest forms, [`wide_probes`]); every other single-micro-op form runs
//! in a balanced mix with each probe, and takes the set of its port count
//! (marked where it takes another port beside wide work) that predicts those
//! mixes best, the probes' sets held, or none when no set predicts them
//! ([`withhold_misfits`]). Forms with the same set are a
//! class: they behave alike against every probe. Thousands of forms cost
//! a few mixes each, not one per other form.

use super::{
    balance, bottleneck, candidate_sets, every_pair, mark_cost, measure_pairs, measure_singles,
    plain, port_numbers, port_sets, rms, single_uop_ports, time, Conflicts, Mapping, Mix, Single,
    MAX_PORTS,
};
use crate::arch::Target;
use crate::exec::run::Options;
use crate::isa::{Flag, Instr};
use crate::mode::common::{accesses_memory, skipped_lines, widest_operand};
use crate::mode::reason::Unmeasured;
use std::collections::BTreeMap;

/// Seed forms by default: their pairs (780 for 40) take seconds.
pub const SEED: usize = 40;

/// What a full run fixed before it placed the other forms.
#[derive(Clone, Debug)]
pub struct Seed {
    /// The seed forms (indices into the singles), measured in every pair.
    pub forms: Vec<usize>,
    /// The pairs among them: the first this many of the run's pairs.
    pub pairs: usize,
    /// The probes (indices into the singles): one seed form of each port
    /// set the seed's fit found.
    pub probes: Vec<usize>,
    /// Each placed form (index into the singles): how many port sets of
    /// its count fit its mixes with the probes as well as the one it got
    /// (1: the probes tell it apart).
    pub alike: Vec<(usize, usize)>,
    /// How many forms ran as one micro-op on N ports, neither loading
    /// nor storing: the forms placed, the seed's among them.
    pub candidates: usize,
    /// Seed forms the fit left out ([`without_misfits`]), each with the
    /// root mean square error of its mixes when it was: placed against
    /// the probes like the forms outside the seed.
    pub left_out: Vec<(usize, f64)>,
    /// Forms whose mixes with the probes no set of their port count
    /// predicts ([`withhold_misfits`]): each with the set that came
    /// nearest and the root mean square error of its mixes with it. The
    /// mapping does not hold them; the database gets the nearest set,
    /// marked ([`Conflicts::nearest_ports`]).
    pub withheld: Vec<(usize, u32, f64)>,
    /// Forms placed as two micro-ops ([`place_uops`]; their sets are the
    /// mapping's [`Mapping::multi`]): each with the root mean square error
    /// of its mixes and how many pairs of sets fit them as well.
    pub multi: Vec<(usize, f64, usize)>,
    /// The median placed form's error (root mean square of its mixes
    /// with the probes, its best set of one micro-op).
    pub typical: f64,
}

/// How much worse than the median seed form's mixes a seed form's must
/// fit for [`without_misfits`] to leave it out (and a placed form's than
/// the median placed form's for [`withhold_misfits`]).
const MISFIT: f64 = 1.5;

/// A seed or placed form whose mixes fit within this (root mean square,
/// relative) stays, however well the others fit: the held-back mixes
/// count 10% as predicted.
const FITS: f64 = 0.10;

/// `mapping` fitted again without the seed forms it fits worst, one at
/// a time while the worst form's mixes have [`MISFIT`] times the median
/// form's error and more than [`FITS`], up to `most` forms; the mapping
/// and the forms left out with their errors. A seed form timed at 1/N
/// cycles need not be one micro-op on N ports: on the Zen 3 guest
/// `sha256rnds2`, `xadd` and `btc` ran at one a cycle or faster and took
/// more than a port each in every mix; with 8 such forms left out of a
/// seed of 40 its error fell from 13% to about 4%, and the fit found the
/// issue width and eight ports, four integer and four vector.
///
/// The seed's widest vector forms are spared while the mapping has no
/// [`WideMode`]: without one their mixes with narrower vector forms
/// misfit, and once they are gone no mix can show it. On the Sapphire
/// Rapids guest the three 512-bit forms of a seed of 40 were left out one
/// by one (12-16% each, after four non-vector forms), and the mapping
/// lost the wide mode the same forms fit with `-i` (9.7% against 10.6%).
/// Only where sparing them ends in no wide mode all the same are they
/// left out like the others.
fn without_misfits(
    found: &Conflicts,
    mapping: Mapping,
    most: usize,
) -> (Mapping, Vec<(usize, f64)>) {
    let spared = leave_out_misfits(found, mapping.clone(), most, true);
    if spared.0.wide.is_some() {
        return spared;
    }
    leave_out_misfits(found, mapping, most, false)
}

/// [`without_misfits`], the widest vector forms spared while the mapping
/// has no wide mode where `spare_wide`.
fn leave_out_misfits(
    found: &Conflicts,
    mut mapping: Mapping,
    most: usize,
    spare_wide: bool,
) -> (Mapping, Vec<(usize, f64)>) {
    let bits = |k: usize| mapping.bits(k);
    let widest = mapping.sets.iter().filter_map(|s| bits(s.0)).max();
    let narrower = mapping
        .sets
        .iter()
        .any(|s| bits(s.0).is_some_and(|b| Some(b) < widest));
    let wide: Vec<usize> = match (spare_wide && narrower, widest) {
        (true, Some(w)) => mapping
            .sets
            .iter()
            .map(|s| s.0)
            .filter(|&k| bits(k) == Some(w))
            .collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<(usize, f64)> = Vec::new();
    while out.len() < most {
        let mut errors: Vec<(f64, usize)> = mapping
            .sets
            .iter()
            .map(|&(k, _)| (mapping.error_of(k, &found.pairs), k))
            .collect();
        errors.sort_by(|x, y| y.0.total_cmp(&x.0));
        let Some(median) = errors.get(errors.len() / 2).map(|e| e.0) else {
            break;
        };
        let Some(&worst) = errors.iter().find(|e| !wide.contains(&e.1)) else {
            break;
        };
        if worst.0 <= (MISFIT * median).max(FITS) {
            break;
        }
        out.push((worst.1, worst.0));
        let left: Vec<usize> = out.iter().map(|o| o.0).collect();
        match found.fit_leaving_out(&left) {
            Some(m) => mapping = m,
            None => {
                out.pop();
                break;
            }
        }
    }
    (mapping, out)
}

/// A misfit form placed as two micro-ops ([`place_uops`]) keeps them
/// where its mixes fit within 1.5 times ([`MISFIT`]) the median placed
/// form's error and within this, and no more than [`ALIKE`] pairs of sets
/// fit as well: with a second set free among some 20 a fit is easy, so
/// it must be tight and must be told apart. On the Zen 3 guest MMX shifts
/// fitted two sets at 7-10% (LLVM's znver3 has them as one micro-op, and
/// held-back mixes with them missed by 15-35%), and in one run legacy SSE
/// shuffles fitted 5 pairs alike at 4.6% beside a single vector probe;
/// `pextrd`, `movmskps`, `tzcnt`, `blsi` and `bts` fitted one or two pairs
/// at 0.1-5%.
const TWO_UOPS: f64 = 0.05;

/// The most pairs of sets that may fit a two-micro-op form as well as its
/// own ([`TWO_UOPS`]): two, as `{a}+{a,b}` and `{b}+{a,b}` often do.
const ALIKE: usize = 2;

/// The bar [`keeps_two`] never sets below, whatever the median placed
/// form's error: the noise of a mix on a shared core. With probes for
/// each kind of form ([`probes_of`]) and the wide mode's own ports for
/// each form, the median on the Xeon guest fell to 0.2%, the bar with it
/// to 0.3%, and `cvtdq2pd` (SSE), two micro-ops, became a form no set
/// fits.
const TWO_UOPS_FLOOR: f64 = 0.02;

/// Whether a form whose two micro-ops fit its mixes to `error`, `ties`
/// pairs of sets as well, keeps them, the median placed form's error
/// being `typical` ([`TWO_UOPS`], [`TWO_UOPS_FLOOR`]).
fn keeps_two(error: f64, ties: usize, typical: f64) -> bool {
    error <= (MISFIT * typical).clamp(TWO_UOPS_FLOOR, TWO_UOPS) && ties <= ALIKE
}

/// The single-micro-op forms of `singles` (measured at 1/N cycles, N up
/// to [`MAX_PORTS`]; forms that load or store are not measured).
fn single_uop_forms(singles: &[Single]) -> Vec<(usize, u32)> {
    singles
        .iter()
        .enumerate()
        .filter_map(|(k, s)| Some((k, single_uop_ports(*s.cycles.as_ref().ok()?)?)))
        .filter(|f| f.1 <= MAX_PORTS)
        .collect()
}

/// `size` seed forms of `forms` (index and port count): the forms grouped
/// by port count, widest register and the forms they may share a body
/// with ([`Target::mix_group`]: a probe of one group cannot tell apart
/// the sets of another's forms), every group one form at least (the
/// largest groups first when there are more groups than `size`), the rest
/// shared in proportion to the groups' sizes, each group's forms taken
/// evenly spaced in name order, a mnemonic once where there are others.
pub fn choose_seed(
    t: &dyn Target,
    singles: &[Single],
    forms: &[(usize, u32)],
    size: usize,
) -> Vec<usize> {
    let mut groups: BTreeMap<(u32, u32, u8), Vec<usize>> = BTreeMap::new();
    for &(k, ports) in forms {
        let form = singles[k].form;
        let key = (ports, widest_operand(form), t.mix_group(form));
        groups.entry(key).or_default().push(k);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    for g in &mut groups {
        g.sort_by_key(|&k| singles[k].form.name());
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    groups.truncate(size);
    let total: usize = groups.iter().map(Vec::len).sum();
    let spare = size.saturating_sub(groups.len());
    let mut takes: Vec<usize> = groups
        .iter()
        .map(|g| (1 + spare * g.len() / total.max(1)).min(g.len()))
        .collect();
    // The seats rounding left: one each to the largest groups with forms
    // left.
    let mut left = size.saturating_sub(takes.iter().sum());
    for (g, take) in groups.iter().zip(&mut takes) {
        if left > 0 && *take < g.len() {
            *take += 1;
            left -= 1;
        }
    }
    // Each group's forms evenly spaced, of mnemonics no group has given
    // the seed yet where there are enough: `vaddpd` on xmm and ymm, or
    // `addq` with an immediate and a register, teach the seed what one of
    // them does. x86's AT&T mnemonics keep the operand size (`addl`,
    // `addq`); counting `add` once whatever its width, two Zen 3 full runs
    // agreed with OSACA's and LLVM's models on 72% and 61-68% of the
    // forms, three this way on 73-83% and 68-75%: no difference the runs
    // tell apart, and this is the rule the figures in docs/ were made with.
    let mut seed = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for (g, &take) in groups.iter().zip(&takes) {
        // The first form of each mnemonic not taken yet, and the rest.
        let (mut fresh, mut again) = (Vec::new(), Vec::new());
        for &k in g {
            let op = singles[k].form.mnemonic();
            if taken.contains(&op) {
                again.push(k);
            } else {
                taken.push(op);
                fresh.push(k);
            }
        }
        let mut picked = spaced(&fresh, take);
        picked.extend(spaced(&again, take - picked.len()));
        seed.extend(picked);
    }
    seed.sort_unstable();
    seed
}

/// `take` of `forms` evenly spaced (all of them when there are fewer).
fn spaced(forms: &[usize], take: usize) -> Vec<usize> {
    let take = take.min(forms.len());
    (0..take).map(|i| forms[i * forms.len() / take]).collect()
}

/// Runs a full inference on `forms`: each alone, a seed of `seed_size`
/// in every pair and its fit, then every other single-micro-op form
/// against the probes; `progress(done, total)` after each kernel (the
/// total grows as each stage knows its kernels).
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    seed_size: usize,
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Conflicts {
    // A load or a store is a micro-op of its own: such forms are not
    // measured.
    let (memory, timed): (Vec<Instr>, Vec<Instr>) = forms
        .iter()
        .partition(|&&f| f.has(Flag::MayLoad) || f.has(Flag::MayStore) || accesses_memory(t, f));
    let n = timed.len();
    let (mut singles, alone) = measure_singles(t, &timed, opts, &mut |d| progress(d, n));
    singles.extend(memory.into_iter().map(|form| Single {
        form,
        cycles: Err(Unmeasured::Memory),
        noisy: false,
        vector: t.vector_bits(form),
    }));
    let candidates = single_uop_forms(&singles);
    // The seed fixes the ports, and a register move or a form without a
    // register operand (a no-op, a fence) may never reach one: eliminated
    // at rename. On the Zen 3 guest `mov r64, r64` ran at 6 a cycle and
    // `nop` at 6.7, over four integer ALUs; in the seed they took 6 and 7
    // of its 7 ports. A form between register files (`movd`, `pextrd`,
    // `cvttss2si`, `ptest`) often takes a micro-op on each side at one a
    // cycle: the three worst-fitted forms of a Zen 3 seed. They are all
    // placed against the probes like the rest.
    let seedable: Vec<(usize, u32)> = candidates
        .iter()
        .copied()
        .filter(|&(k, _)| {
            let form = singles[k].form;
            !form.has(Flag::IsMoveReg)
                && widest_operand(form) > 0
                && !t.crosses_register_files(form)
        })
        .collect();
    let seed = choose_seed(t, &singles, &seedable, seed_size);
    let (mut found, kernels) = every_pair(t, singles, &seed, opts, &mut |d, total| {
        progress(alone + d, alone + total)
    });
    let done = alone + kernels;
    found.classes = Some(Seed {
        forms: seed,
        pairs: found.pairs.len(),
        probes: Vec::new(),
        alike: Vec::new(),
        candidates: candidates.len(),
        left_out: Vec::new(),
        withheld: Vec::new(),
        multi: Vec::new(),
        typical: 0.0,
    });
    let Some(mapping) = found.mapping.take() else {
        return found;
    };
    let (mut mapping, left_out) = without_misfits(&found, mapping, seed_size / 3);
    let placed: Vec<(usize, u32)> = candidates
        .iter()
        .filter(|c| !mapping.sets.iter().any(|s| s.0 == c.0))
        .copied()
        .collect();
    // Probes for each group of forms that can share a body with the same
    // seed probes (x86: legacy SSE forms not with VEX ones), the fewest
    // that tell that group's sets apart.
    let mut every = probes_of(t, &mapping, &found);
    let wide = wide_probes(&mapping, &found);
    every.extend(wide.iter().copied());
    let form = |k: usize| found.singles[k].form;
    let mixes_with = |k: usize| -> Vec<usize> {
        every
            .iter()
            .copied()
            .filter(|&p| t.cannot_mix(form(p), form(k)).is_none())
            .collect()
    };
    let mut groups: BTreeMap<Vec<usize>, Vec<(usize, u32)>> = BTreeMap::new();
    for &c in &placed {
        groups.entry(mixes_with(c.0)).or_default().push(c);
    }
    let mut probes: Vec<usize> = groups
        .iter()
        .flat_map(|(usable, forms)| telling(usable, &found, &mapping, forms))
        .collect();
    probes.extend(wide);
    probes.sort_unstable();
    probes.dedup();
    // Each placed form with each probe it can share a body with.
    let mut wanted: Vec<(usize, usize)> = Vec::new();
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    let first = found.pairs.len();
    for &(k, _) in &placed {
        let start = first + wanted.len();
        wanted.extend(
            mixes_with(k)
                .into_iter()
                .filter(|p| probes.contains(p))
                .map(|p| (p, k)),
        );
        ranges.push(start..first + wanted.len());
    }
    let (more, _) = measure_pairs(t, &found.singles, &wanted, opts, &mut |d, total| {
        progress(done + d, done + total)
    });
    found.pairs.extend(more);
    let placings = placings(&found, &mapping, &placed, ranges);
    let (kept, misfits, typical) = withhold_misfits(placings);
    let mut alike = Vec::new();
    for p in kept {
        mapping.add(p.form, p.set);
        alike.push((p.form, p.ties));
        mapping.residuals.extend(p.residuals);
    }
    let (multi, withheld) = as_two_uops(&found, &mut mapping, misfits, typical);
    found.mapping = Some(mapping);
    if let Some(seed) = &mut found.classes {
        seed.probes = probes;
        seed.alike = alike;
        seed.left_out = left_out;
        seed.withheld = withheld;
        seed.multi = multi;
        seed.typical = typical;
    }
    found
}

/// Each of the `placed` forms (with its port count) against the probes,
/// its mixes at `ranges` of the pairs: its best set, its ties and its
/// mixes as that set predicts them; forms no set places are left out.
fn placings(
    found: &Conflicts,
    mapping: &Mapping,
    placed: &[(usize, u32)],
    ranges: Vec<std::ops::Range<usize>>,
) -> Vec<Placing> {
    let seed_sets: Vec<u32> = mapping.sets.iter().map(|s| s.1).collect();
    let mut placings: Vec<Placing> = Vec::new();
    for (&(k, ports), mine) in placed.iter().zip(ranges) {
        let mine: Vec<(usize, u32, Mix)> = mine
            .filter_map(|p| {
                let probe = mapping.marked_set_of(found.pairs[p].a)?;
                Some((p, probe, probe_mix(found, mapping, p)?))
            })
            .collect();
        let hold = mapping.may_hold(k);
        let Some((set, ties)) = place(&mine, (ports, hold), mapping.ports, &seed_sets) else {
            continue;
        };
        let residuals: Vec<(usize, f64, f64)> = mine
            .iter()
            .map(|(p, probe, m)| (*p, m.cycles, m.predicted(&[*probe, set])))
            .collect();
        placings.push(Placing {
            form: k,
            set,
            ties,
            residuals,
            mixes: mine,
        });
    }
    placings
}

/// The `misfits` as two micro-ops, each on a set some form of `mapping`
/// has ([`TWO_UOPS`]), where that fits within [`keeps_two`] of `typical`;
/// the others withheld. Those kept two go into `mapping.multi`. Returns
/// (form, error, ties) of the two-micro-op forms and (form, nearest set,
/// error) of the withheld.
#[allow(clippy::type_complexity)]
fn as_two_uops(
    found: &Conflicts,
    mapping: &mut Mapping,
    misfits: Vec<Placing>,
    typical: f64,
) -> (Vec<(usize, f64, usize)>, Vec<(usize, u32, f64)>) {
    let mut known: Vec<u32> = mapping.sets.iter().map(|s| s.1).collect();
    known.sort_unstable();
    known.dedup();
    let (mut multi, mut withheld) = (Vec::new(), Vec::new());
    for p in misfits {
        let alone = time(&found.singles[p.form]);
        match place_uops(&p.mixes, alone, &known, mapping.issue_width()) {
            Some((uops, e, ties)) if keeps_two(e, ties, typical) => {
                mapping.multi.push((p.form, uops));
                multi.push((p.form, e, ties));
            }
            _ => withheld.push((p.form, plain(p.set), rms(&p.residuals))),
        }
    }
    (multi, withheld)
}

/// A form placed against the probes: its best set ([`place`]), how many
/// sets fit as well, its mixes (index into the pairs, cycles measured
/// and predicted with that set), and its mixes as the fit sees them
/// (each with the probe's set).
struct Placing {
    form: usize,
    set: u32,
    ties: usize,
    residuals: Vec<(usize, f64, f64)>,
    mixes: Vec<(usize, u32, Mix)>,
}

/// The placings whose mixes the best set predicts within [`FITS`] or
/// [`MISFIT`] times the median placing's error (root mean square of its
/// mixes), the larger; the others; and that median. One
/// micro-op on N ports does not describe the others (on the Zen 3 guest
/// `shl r16, cl`, `pinsrq` and `movq2dq` ran at 1/N cycles alone and
/// fitted no set within 37%): a wrong set in the database misleads a
/// model more than none.
fn withhold_misfits(placings: Vec<Placing>) -> (Vec<Placing>, Vec<Placing>, f64) {
    let mut errors: Vec<f64> = placings.iter().map(|p| rms(&p.residuals)).collect();
    errors.sort_by(f64::total_cmp);
    let median = errors.get(errors.len() / 2).copied().unwrap_or(0.0);
    let bar = (MISFIT * median).max(FITS);
    let (kept, misfits) = placings.into_iter().partition(|p| rms(&p.residuals) <= bar);
    (kept, misfits, median)
}

/// A form of two micro-ops that predicts a form's `mixes` with the probes
/// best ([`Mix::predicted_uops`]): a micro-op on each of two of `known`
/// (port sets, one set twice allowed), among the pairs whose bottleneck
/// alone, at the core's `issue` width, is within 10% of its time alone
/// (`alone`, cycles per instruction); the two sets, the root mean square
/// error of the mixes, and how many pairs predict them as well. `None`
/// without a mix or a pair. On the Zen 3 guest `pextrd` ran at one a
/// cycle and took a port from an integer probe and one from a vector
/// probe: a micro-op on each side.
pub fn place_uops(
    mixes: &[(usize, u32, Mix)],
    alone: f64,
    known: &[u32],
    issue: f64,
) -> Option<(Vec<u32>, f64, usize)> {
    if mixes.is_empty() {
        return None;
    }
    let error = |uops: &[u32]| -> f64 {
        mixes
            .iter()
            .map(|(_, probe, m)| {
                ((m.predicted_uops(&[*probe], uops) - m.cycles) / m.cycles).powi(2)
            })
            .sum()
    };
    let mut scored: Vec<([u32; 2], f64)> = Vec::new();
    for (i, &a) in known.iter().enumerate() {
        for &b in &known[i..] {
            let bound = bottleneck(&[(a, 1.0), (b, 1.0)]).max(2.0 / issue);
            if (bound - alone).abs() <= 0.1 * alone {
                scored.push(([a, b], error(&[a, b])));
            }
        }
    }
    let best = *scored.iter().min_by(|x, y| x.1.total_cmp(&y.1))?;
    let ties = scored.iter().filter(|x| x.1 <= best.1 + 1e-12).count();
    Some((best.0.to_vec(), (best.1 / mixes.len() as f64).sqrt(), ties))
}

/// Pair `p` of `found` (a probe, then the form placed) as the fit sees
/// it: the probe's copies as form 0, the other's as form 1, each losing
/// the ports `mapping`'s wide mode takes beside the other; `None` without
/// a time.
fn probe_mix(found: &Conflicts, mapping: &Mapping, p: usize) -> Option<Mix> {
    let x = &found.pairs[p];
    let (floor, cycles) = x.timed()?;
    (cycles > 0.0).then_some(Mix {
        a: (0, x.ratio.0),
        b: (1, x.ratio.1),
        floor,
        cycles,
        lost: (mapping.lost(x.a, [x.b]), mapping.lost(x.b, [x.a])),
        issue: mapping.issue_width(),
    })
}

/// The set of `width` out of `ports` ports that predicts `mixes` (each
/// with the probe's set, [`probe_mix`]) best, and how many sets predict
/// them as well (1: the probes tell the form's set apart); of sets that
/// predict them as well, the first of `known` (the seed's sets) where
/// there is one: a core has few distinct port sets, and a form the
/// probes cannot place is more likely on a set other forms use than on a
/// new one (on the Zen 3 guest 80 of one class's 81 forms, FMAs, `aesenc`
/// and `pmulhw`, fitted other two-pipe sets as well, and taking the first
/// put them on a set no seed form had: 66 FMAs disagreed with OSACA).
/// `None` without a mix or with more ports than the mapping has.
pub fn place(
    mixes: &[(usize, u32, Mix)],
    (width, may_hold): (u32, bool),
    ports: u32,
    known: &[u32],
) -> Option<(u32, usize)> {
    if mixes.is_empty() {
        return None;
    }
    let error = |set: u32| -> f64 {
        mixes
            .iter()
            .map(|(_, probe, m)| ((m.predicted(&[*probe, set]) - m.cycles) / m.cycles).powi(2))
            .sum()
    };
    let lost = mixes.iter().map(|m| (m.2.lost.1, m.2.lost.0));
    // A held set must gain what it must in the fit ([`super::HOLDING`]).
    let scored: Vec<(u32, f64)> = candidate_sets(width, ports, may_hold, lost)
        .into_iter()
        .map(|s| (s, error(s) + mark_cost(s)))
        .collect();
    let best = scored.iter().min_by(|x, y| x.1.total_cmp(&y.1))?;
    let tied: Vec<u32> = scored
        .iter()
        .filter(|x| x.1 <= best.1 + 1e-12)
        .map(|x| x.0)
        .collect();
    let set = tied
        .iter()
        .find(|s| known.contains(s))
        .map_or(best.0, |&s| s);
    // A set and the same set marked count once.
    let mut distinct: Vec<u32> = tied.iter().map(|&s| plain(s)).collect();
    distinct.dedup();
    distinct.sort_unstable();
    distinct.dedup();
    Some((set, distinct.len()))
}

/// The fewest of `probes` that tell apart every pair of port sets all of
/// them tell apart, for forms of the port counts `candidates` have: a
/// probe tells two sets apart when its balanced mix with a form on one
/// takes another time ([`Mix::predicted`]) than with a form on the other.
/// Chosen greedily, the probe that tells most sets apart first; in the
/// order of `probes`.
fn telling(
    probes: &[usize],
    found: &Conflicts,
    mapping: &Mapping,
    candidates: &[(usize, u32)],
) -> Vec<usize> {
    let mut widths: Vec<u32> = candidates.iter().map(|c| c.1).collect();
    widths.sort_unstable();
    widths.dedup();
    let sets: Vec<(u32, u32)> = widths
        .iter()
        .flat_map(|&w| port_sets(w, mapping.ports).into_iter().map(move |s| (w, s)))
        .collect();
    // Each probe's time with a form on each set, in millicycles.
    let times = |p: usize| -> Vec<i64> {
        let probe = mapping.marked_set_of(p).unwrap_or(0);
        let tp = time(&found.singles[p]);
        sets.iter()
            .map(|&(w, set)| {
                let ratio = balance(tp, 1.0 / f64::from(w));
                let mix = Mix {
                    a: (0, ratio.0),
                    b: (1, ratio.1),
                    floor: 0.0,
                    cycles: 1.0,
                    lost: (0, 0),
                    issue: mapping.issue_width(),
                };
                (1000.0 * mix.predicted(&[probe, set])).round() as i64
            })
            .collect()
    };
    let table: Vec<Vec<i64>> = probes.iter().map(|&p| times(p)).collect();
    // Sets told apart by `chosen`: the distinct (width, times) rows.
    let classes = |chosen: &[usize]| {
        let mut rows: Vec<(u32, Vec<i64>)> = (0..sets.len())
            .map(|i| (sets[i].0, chosen.iter().map(|&c| table[c][i]).collect()))
            .collect();
        rows.sort();
        rows.dedup();
        rows.len()
    };
    let all: Vec<usize> = (0..probes.len()).collect();
    let goal = classes(&all);
    let mut chosen: Vec<usize> = Vec::new();
    while classes(&chosen) < goal {
        let next = all
            .iter()
            .filter(|c| !chosen.contains(c))
            .max_by_key(|&&c| {
                let mut with = chosen.clone();
                with.push(c);
                (classes(&with), std::cmp::Reverse(c))
            });
        match next {
            Some(&c) => chosen.push(c),
            None => break,
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|c| probes[c]).collect()
}

/// With a wide mode ([`WideMode`]), probes of the mode's width beside
/// which a placed narrower form shows whether it loses a port and which
/// it takes instead: of each set the seed's forms of that width have, the
/// form whose mixes the fit predicts best; the [`WIDE_PROBES`] sets of
/// the fewest ports. Without them no mix of a placed form tests the mode:
/// on the Sapphire Rapids guest no 512-bit form was among the probes
/// (each port set's best-predicted form was a narrower one), and no
/// placed form took another port. A probe on two ports tells too little:
/// beside 512-bit work on ports 0 and 5, a 256-bit FMA that loses port 1
/// runs as fast on port 0 alone as on 0 and 5; beside one on port 0
/// only, 1.5 cycles for two against 3.0.
fn wide_probes(mapping: &Mapping, found: &Conflicts) -> Vec<usize> {
    let Some((w, ..)) = mapping.wide else {
        return Vec::new();
    };
    let wide = |k: usize| mapping.bits(k).is_some_and(|b| b >= w.bits);
    let mut best: Vec<(u32, (f64, usize))> = ranked_by_set(mapping, found, wide)
        .into_iter()
        .map(|(set, forms)| (set, forms[0]))
        .collect();
    best.sort_by(|x, y| {
        x.0.count_ones()
            .cmp(&y.0.count_ones())
            .then(x.1 .0.total_cmp(&y.1 .0))
    });
    best.into_iter()
        .take(WIDE_PROBES)
        .map(|(_, (_, k))| k)
        .collect()
}

/// How many probes of the wide mode's width ([`wide_probes`]).
const WIDE_PROBES: usize = 2;

/// The probes of a seed's `mapping`: for each port set it holds, the form
/// whose mixes it predicts best ([`Mapping::error_of`]), and the best of
/// those that cannot share a body with it where there is one
/// ([`Target::cannot_mix`]: x86's legacy SSE and VEX forms), in the order
/// of the sets. With one form a set, a set's probe could serve only one
/// kind: on the Xeon guest `{0,1}` was probed by a VEX `vpmulhrsw`, and
/// the SSE forms, which have only the probes they can mix with, were
/// placed without a vector probe (`cvtdq2pd` on one port, not its two
/// micro-ops).
fn probes_of(t: &dyn Target, mapping: &Mapping, found: &Conflicts) -> Vec<usize> {
    let form = |k: usize| found.singles[k].form;
    let mut probes = Vec::new();
    for forms in ranked_by_set(mapping, found, |_| true).into_values() {
        let best = forms[0].1;
        probes.push(best);
        if let Some(&(_, other)) = forms
            .iter()
            .find(|f| t.cannot_mix(form(best), form(f.1)).is_some())
        {
            probes.push(other);
        }
    }
    probes
}

/// The forms `mapping` placed that `keep` accepts, by their set, each
/// set's with the error of their mixes ([`Mapping::error_of`]), best
/// first (ties in the mapping's order).
fn ranked_by_set(
    mapping: &Mapping,
    found: &Conflicts,
    keep: impl Fn(usize) -> bool,
) -> BTreeMap<u32, Vec<(f64, usize)>> {
    let mut by_set: BTreeMap<u32, Vec<(f64, usize)>> = BTreeMap::new();
    for &(k, set) in mapping.sets.iter().filter(|s| keep(s.0)) {
        by_set
            .entry(set)
            .or_default()
            .push((mapping.error_of(k, &found.pairs), k));
    }
    for forms in by_set.values_mut() {
        forms.sort_by(|x, y| x.0.total_cmp(&y.0));
    }
    by_set
}

/// Port sets as the report writes them: `{0,1,5}`.
fn set_name(set: u32, ports: u32) -> String {
    format!("{{{}}}", port_numbers(set, ports).join(","))
}

/// `names` in lines of at most 100 characters, each indented by 6.
fn wrapped(names: &[&str]) -> String {
    let mut s = String::new();
    let mut line = String::new();
    for n in names {
        if !line.is_empty() && line.len() + n.len() > 100 {
            s.push_str(&format!("      {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(n);
    }
    if !line.is_empty() {
        s.push_str(&format!("      {line}\n"));
    }
    s
}

impl Conflicts {
    /// A full run's report: the forms alone, the seed and its fit, the
    /// probes, then each class (port set) with the mixes that decided it
    /// and its forms, and the forms the probes predict worst.
    pub(super) fn render_classes(&self, seed: &Seed, m: Option<&Mapping>) -> String {
        let single = seed.candidates;
        let measured = self.singles.iter().filter(|s| s.cycles.is_ok()).count();
        // Counted by reason, rendered at the edge.
        let mut skipped: Vec<(&Unmeasured, usize)> = Vec::new();
        for x in &self.singles {
            if let Err(w) = &x.cycles {
                match skipped.iter_mut().find(|(r, _)| *r == w) {
                    Some((_, n)) => *n += 1,
                    None => skipped.push((w, 1)),
                }
            }
        }
        let name = |k: usize| self.singles[k].form.name();
        let marked = |k: usize| match m {
            Some(m) => self.marked(m, k),
            None => name(k).to_string(),
        };
        let mut s = format!(
            "every form alone: {} forms, {measured} measured, {single} of them as one \
             micro-op on N ports (1/N cycles, N up to {MAX_PORTS}, no load or store)\n",
            self.singles.len()
        );
        if !skipped.is_empty() {
            s.push_str(&skipped_lines(skipped));
        }
        // A replay's pair mixes the recording lacks: their forms are fitted
        // and placed on the rest, so without this line nothing would say so.
        let unrecorded = self
            .pairs
            .iter()
            .filter(|p| matches!(&p.cycles, Err(w) if w.not_recorded()))
            .count();
        if unrecorded > 0 {
            s.push_str(&format!(
                "mixes of two forms not in the raw file: {unrecorded} (the recorded run did not \
                 measure them; their forms are fitted and placed on the others)\n"
            ));
        }
        let Some(m) = m else {
            s.push_str(&format!(
                "a seed of {} of them, in every pair ({} mixes), fitted no port mapping (fewer \
                 than two of its forms run as one micro-op, or no mix was measured): nothing \
                 placed\n",
                seed.forms.len(),
                seed.pairs
            ));
            return s;
        };
        let in_seed = |p: &&(usize, f64, f64)| p.0 < seed.pairs;
        s.push_str(&format!(
            "a seed of {} of them (by port count and register width), in every pair: {} mixes, \
             {} ports (numbered 0-{}, not the vendor's names), root mean square error {:.1}%\n",
            seed.forms.len(),
            seed.pairs,
            m.ports,
            m.ports - 1,
            100.0 * rms(m.residuals.iter().filter(in_seed))
        ));
        if !seed.left_out.is_empty() {
            let out: Vec<String> = seed
                .left_out
                .iter()
                .map(|&(k, e)| format!("{} {:.1}%", name(k), 100.0 * e))
                .collect();
            s.push_str(&format!(
                "left out of the fit, one at a time while a form's mixes fitted {MISFIT} times \
                 worse than the median seed form's and worse than {:.0}% (root mean square \
                 error of its mixes then; placed against the probes like the forms outside the \
                 seed):\n{}",
                100.0 * FITS,
                wrapped(&out.iter().map(String::as_str).collect::<Vec<_>>())
            ));
        }
        let fitted: Vec<String> = seed
            .forms
            .iter()
            .filter(|k| !seed.left_out.iter().any(|o| o.0 == **k))
            .filter_map(|&k| Some(format!("{} {}", marked(k), set_name(m.set_of(k)?, m.ports))))
            .collect();
        s.push_str(&format!(
            "the seed's forms and the sets its fit gave them:\n{}",
            wrapped(&fitted.iter().map(String::as_str).collect::<Vec<_>>())
        ));
        s.push_str(&m.issue_line());
        s.push_str(&m.wide_line());
        s.push_str(&m.held_line());
        s.push_str("probes (seed forms, one of each port set it found, as few as tell apart every set all of them tell apart):\n");
        for &p in &seed.probes {
            let set = m.set_of(p).unwrap_or(0);
            s.push_str(&format!("  {:24}  {}\n", name(p), set_name(set, m.ports)));
        }
        let ambiguous = seed.alike.iter().filter(|a| a.1 > 1).count();
        s.push_str(&format!(
            "{} more forms placed against the probes: {} mixes, root mean square error {:.1}%; \
             {ambiguous} of them fit another set of their port count as well (the probes do \
             not tell those sets apart)\n",
            seed.alike.len(),
            m.residuals.len() - m.residuals.iter().filter(in_seed).count(),
            100.0 * rms(m.residuals.iter().filter(|p| p.0 >= seed.pairs))
        ));
        let mixes = self.mixes_with_probes(seed, m);
        s.push_str(&self.render_class_list(seed, m, &mixes));
        s.push_str(&self.render_misfits(seed, m, &mixes));
        s
    }

    /// Each placed form's mixes with the probes (pair, cycles per unit
    /// measured and predicted), by form.
    fn mixes_with_probes(
        &self,
        seed: &Seed,
        m: &Mapping,
    ) -> BTreeMap<usize, Vec<(usize, f64, f64)>> {
        let mut mixes: BTreeMap<usize, Vec<(usize, f64, f64)>> = BTreeMap::new();
        for r in m.residuals.iter().filter(|p| p.0 >= seed.pairs) {
            mixes.entry(self.pairs[r.0].b).or_default().push(*r);
        }
        mixes
    }

    /// Form `k`'s name, with `*` and the ports when it takes others for
    /// the one it loses beside wide work ([`Mapping::moves`]) and `(x2)`
    /// when it holds its port two cycles ([`Mapping::held`]).
    fn marked(&self, m: &Mapping, k: usize) -> String {
        let name = self.singles[k].form.name();
        let moves = match m.gained_by(k) {
            Some(gained) => format!("*{}", port_numbers(gained, m.ports).join(",")),
            None => String::new(),
        };
        let held = if m.held.contains(&k) { "(x2)" } else { "" };
        format!("{name}{moves}{held}")
    }

    /// The classes: each port set with the mixes that decided it and its
    /// forms.
    fn render_class_list(
        &self,
        seed: &Seed,
        m: &Mapping,
        mixes: &BTreeMap<usize, Vec<(usize, f64, f64)>>,
    ) -> String {
        let mut s = String::new();
        let name = |k: usize| self.singles[k].form.name();
        let marked = |k: usize| self.marked(m, k);
        let error = |k: usize| mixes.get(&k).map_or(0.0, rms);
        let mut classes: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        for &(k, set) in &m.sets {
            classes.entry((set.count_ones(), set)).or_default().push(k);
        }
        s.push_str(&format!(
            "classes: {} port sets; each with the mixes that decided it (its best-predicted \
             form against each probe: copies, cycles per unit measured and predicted) and its \
             forms\n",
            classes.len()
        ));
        for ((_, set), mut forms) in classes {
            forms.sort_by_key(|&k| name(k));
            let alike = |k: usize| seed.alike.iter().find(|a| a.0 == k).map_or(1, |a| a.1);
            let unsure = forms.iter().filter(|&&k| alike(k) > 1).count();
            let seeds = forms.iter().filter(|k| seed.forms.contains(k)).count();
            s.push_str(&format!(
                "  {}  {} forms ({seeds} of the seed{})\n",
                set_name(set, m.ports),
                forms.len(),
                if unsure > 0 {
                    format!(", {unsure} that fit another set as well")
                } else {
                    String::new()
                }
            ));
            let best = forms
                .iter()
                .filter(|k| mixes.contains_key(k))
                .min_by(|&&x, &&y| error(x).total_cmp(&error(y)));
            match best {
                Some(&k) => {
                    for (p, measured, predicted) in &mixes[&k] {
                        let pair = &self.pairs[*p];
                        s.push_str(&format!(
                            "    {} {} + {} {}  {measured:.3}  {predicted:.3}\n",
                            pair.ratio.0,
                            name(pair.a),
                            pair.ratio.1,
                            name(pair.b)
                        ));
                    }
                }
                None => s.push_str("    decided by the seed's pairs\n"),
            }
            let names: Vec<String> = forms.iter().map(|&k| marked(k)).collect();
            s.push_str(&wrapped(
                &names.iter().map(String::as_str).collect::<Vec<_>>(),
            ));
        }
        s
    }

    /// The forms placed as two micro-ops, those no set fits, and the
    /// placed forms the probes predict worst.
    fn render_misfits(
        &self,
        seed: &Seed,
        m: &Mapping,
        mixes: &BTreeMap<usize, Vec<(usize, f64, f64)>>,
    ) -> String {
        let mut s = String::new();
        let name = |k: usize| self.singles[k].form.name();
        let error = |k: usize| mixes.get(&k).map_or(0.0, rms);
        if !seed.multi.is_empty() {
            let mut two = seed.multi.clone();
            two.sort_by(|x, y| y.1.total_cmp(&x.1));
            let two: Vec<String> = two
                .iter()
                .map(|&(k, e, ties)| {
                    let sets: Vec<String> = m
                        .uops_of(k)
                        .unwrap_or_default()
                        .iter()
                        .map(|&set| set_name(set, m.ports))
                        .collect();
                    let alike = if ties > 1 {
                        format!(" ({ties} alike)")
                    } else {
                        String::new()
                    };
                    format!("{} {} {:.1}%{alike}", name(k), sets.join("+"), 100.0 * e)
                })
                .collect();
            s.push_str(&format!(
                "{} forms as two micro-ops: no set of their port count predicts their mixes \
                 with the probes within {:.0}%, a micro-op on each of two sets of the classes \
                 above does within {MISFIT} times the median placed form's error ({:.1}%) and \
                 {:.0}%, \
                 {ALIKE} pairs of sets at most fitting as well (alone as fast as measured, within \
                 10%; the sets, the root mean square error of their mixes, and how many pairs \
                 fit them as well):\n{}",
                two.len(),
                100.0 * FITS,
                100.0 * seed.typical,
                100.0 * TWO_UOPS,
                wrapped(&two.iter().map(String::as_str).collect::<Vec<_>>())
            ));
        }
        if !seed.withheld.is_empty() {
            let mut out = seed.withheld.clone();
            out.sort_by(|x, y| y.2.total_cmp(&x.2));
            let out: Vec<String> = out
                .iter()
                .map(|&(k, set, e)| {
                    format!("{} {} {:.1}%", name(k), set_name(set, m.ports), 100.0 * e)
                })
                .collect();
            s.push_str(&format!(
                "{} forms no set fits: no set of their port count predicts their mixes with \
                 the probes within {:.0}% or {MISFIT} times the median placed form's error ({:.1}%), \
                 nor do two micro-ops within {MISFIT} times that median and {:.0}%, told apart \
                 (the set nearest and the root mean square error of their mixes with it; with -o \
                 the nearest set is written as their ports, marked inferredPortsMisfit):\n{}",
                out.len(),
                100.0 * FITS,
                100.0 * seed.typical,
                100.0 * TWO_UOPS,
                wrapped(&out.iter().map(String::as_str).collect::<Vec<_>>())
            ));
        }
        let mut worst: Vec<(usize, f64)> = mixes.keys().map(|&k| (k, error(k))).collect();
        worst.sort_by(|x, y| y.1.total_cmp(&x.1));
        worst.truncate(10);
        s.push_str(
            "the placed forms the probes predict worst (root mean square error of their mixes):\n",
        );
        for (k, e) in worst {
            let set = m.set_of(k).unwrap_or(0);
            s.push_str(&format!(
                "  {:24}  {}  {:.1}%\n",
                name(k),
                set_name(set, m.ports),
                100.0 * e
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        bottleneck,
        tests::{made_up, WIDE_CORE},
        without, WideMode,
    };
    use super::*;
    use crate::arch::x86_64::X86_64;
    use crate::isa::{Arch, Isa};

    /// A form at `alone` cycles in a balanced mix with a probe on each of
    /// `probes`, each mix timed as `time` says (given the mix and the
    /// probe's set), as [`place`] takes them.
    fn probe_mixes(
        probes: &[u32],
        alone: f64,
        time: impl Fn(&Mix, u32) -> f64,
    ) -> Vec<(usize, u32, Mix)> {
        probes
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let ratio = balance(1.0 / f64::from(p.count_ones()), alone);
                let mut mix = Mix {
                    a: (0, ratio.0),
                    b: (1, ratio.1),
                    floor: 0.0,
                    cycles: 1.0,
                    lost: (0, 0),
                    issue: f64::INFINITY,
                };
                mix.cycles = time(&mix, p);
                (k, p, mix)
            })
            .collect()
    }

    /// A form placed against probes of known sets gets its own set back
    /// when the mixes are the model's times, for every set of 1 to 3 of
    /// 5 ports; probes that cannot tell two sets apart leave a tie.
    #[test]
    fn placing_recovers_the_set_the_mixes_were_made_from() {
        let probes: [u32; 5] = [0b00001, 0b00010, 0b00111, 0b01010, 0b11111];
        let mixes_of = |truth: u32, probes: &[u32]| {
            let alone = 1.0 / f64::from(truth.count_ones());
            probe_mixes(probes, alone, |m, p| m.predicted(&[p, truth]))
        };
        for truth in 1u32..32 {
            let w = truth.count_ones();
            if w > 3 {
                continue;
            }
            let (set, ties) = place(&mixes_of(truth, &probes), (w, false), 5, &[]).unwrap();
            assert_eq!((set, ties), (truth, 1), "{truth:05b}");
        }
        // Probes on ports 0 and 1 only cannot tell port 3 from port 4.
        let (set, ties) = place(&mixes_of(0b01000, &probes[..2]), (1, false), 5, &[]).unwrap();
        assert_eq!((set, ties), (0b00100, 3), "ports 2, 3 and 4 look alike");
        // Of those, a set the seed has.
        let (set, _) = place(
            &mixes_of(0b01000, &probes[..2]),
            (1, false),
            5,
            &[0b11, 0b10000],
        )
        .unwrap();
        assert_eq!(set, 0b10000);
        // No mix, or a form wider than the mapping: not placed.
        assert!(place(&[], (1, false), 5, &[]).is_none());
        assert!(place(&mixes_of(0b1, &probes), (6, false), 5, &[]).is_none());
    }

    /// The seed takes one form of every group (port count, widest
    /// register) and the rest in proportion to the groups' sizes, spread
    /// over each group in name order.
    /// The x86 forms `names`, each alone at `cycles`, scalar.
    fn singles_of(names: &[&str], cycles: f64) -> Vec<Single> {
        let isa = Isa::get(Arch::X86_64);
        names
            .iter()
            .map(|n| Single {
                form: isa.instr(n).unwrap(),
                cycles: Ok(cycles),
                noisy: false,
                vector: None,
            })
            .collect()
    }

    #[test]
    fn the_seed_covers_every_group_in_proportion() {
        let names = [
            "ADD64rr",
            "SUB64rr",
            "AND64rr",
            "OR64rr",
            "XOR64rr",
            "CMP64rr",
            "IMUL64rr",
            "VADDPDYrr",
            "VMULPDYrr",
            "VADDPDZrr",
        ];
        let singles = singles_of(&names, 1.0);
        // Six scalar forms on 5 ports, one on 1; two ymm forms on 2, one
        // zmm on 2: four groups.
        let forms: Vec<(usize, u32)> = [5, 5, 5, 5, 5, 5, 1, 2, 2, 2]
            .iter()
            .enumerate()
            .map(|(k, &w)| (k, w))
            .collect();
        let seed = choose_seed(&X86_64, &singles, &forms, 6);
        let picked: Vec<&str> = seed.iter().map(|&k| names[k]).collect();
        // One of each group; of the two spare seats the scalar group (6
        // of 10 forms) gets one in proportion, and the seat rounding left
        // goes to the largest group with forms left: the scalar one again.
        assert_eq!(picked.len(), 6, "{picked:?}");
        for must in ["IMUL64rr", "VADDPDZrr"] {
            assert!(picked.contains(&must), "{picked:?}");
        }
        let scalar = picked
            .iter()
            .filter(|n| !n.starts_with('V') && **n != "IMUL64rr")
            .count();
        assert_eq!(scalar, 3, "{picked:?}");
        // Fewer slots than groups: the largest groups.
        let seed = choose_seed(&X86_64, &singles, &forms, 2);
        assert_eq!(seed.len(), 2);
        assert!(seed.iter().all(|&k| forms[k].1 != 1), "{seed:?}");
    }

    #[test]
    fn the_seed_takes_each_operation_once_where_it_can() {
        // `add` in three forms and three other operations, one group: a
        // seed of 4 takes `add` once.
        let names = [
            "ADD64ri32",
            "ADD64ri8",
            "ADD64rr",
            "AND64rr",
            "SUB64rr",
            "XOR64rr",
        ];
        let singles = singles_of(&names, 0.25);
        let forms: Vec<(usize, u32)> = (0..names.len()).map(|k| (k, 4)).collect();
        let picked: Vec<&str> = choose_seed(&X86_64, &singles, &forms, 4)
            .iter()
            .map(|&k| names[k])
            .collect();
        let adds = picked.iter().filter(|n| n.starts_with("ADD")).count();
        assert_eq!(adds, 1, "{picked:?}");
        for must in ["AND64rr", "SUB64rr", "XOR64rr"] {
            assert!(picked.contains(&must), "{picked:?}");
        }
        // With more seats than operations, `add` comes again.
        assert_eq!(choose_seed(&X86_64, &singles, &forms, 6).len(), 6);
    }

    #[test]
    fn a_form_no_port_set_explains_is_left_out_of_the_fit() {
        // A made-up core with four ALU ports: `add` on all, `imul` on one,
        // shifts on two; `btc` runs at one a cycle alone but is three
        // micro-ops, on the imul port and on two others, in every mix.
        let forms: [(&str, u32, Option<u32>); 7] = [
            ("ADD64rr", 0b1111, None),
            ("SUB64rr", 0b1111, None),
            ("IMUL64rr", 0b0010, None),
            ("IMUL32rr", 0b0010, None),
            ("SHL64ri", 0b1001, None),
            ("SHR64ri", 0b1001, None),
            ("BTC64ri8", 0b0100, None),
        ];
        let uops = |k: usize, n: usize| -> Vec<(u32, f64)> {
            match k {
                6 => vec![(0b0010, n as f64), (0b1100, 2.0 * n as f64)],
                _ => vec![(forms[k].1, n as f64)],
            }
        };
        let found = made_up(&forms, |a, ra, b, rb| {
            let mut all = uops(a, ra);
            all.extend(uops(b, rb));
            bottleneck(&all)
        });
        let m = found.fit().unwrap();
        let (m, out) = without_misfits(&found, m, 2);
        let names: Vec<&str> = out.iter().map(|o| found.singles[o.0].form.name()).collect();
        assert_eq!(names, ["BTC64ri8"], "{m:?}");
        assert!(out[0].1 > FITS, "{out:?}");
        assert!(m.rms() < 1e-9, "{m:?}");
        assert!(m.set_of(6).is_none(), "{m:?}");
        // The report lists the seed's forms with their sets, those left
        // out not among them.
        let seed = Seed {
            forms: (0..forms.len()).collect(),
            pairs: found.pairs.len(),
            probes: Vec::new(),
            alike: Vec::new(),
            candidates: forms.len(),
            left_out: out.clone(),
            withheld: Vec::new(),
            multi: Vec::new(),
            typical: 0.0,
        };
        let report = found.render_classes(&seed, Some(&m));
        let listed = report
            .split("the seed's forms and the sets its fit gave them:\n")
            .nth(1)
            .and_then(|r| r.lines().next())
            .unwrap_or_default();
        let imul = set_name(m.set_of(2).unwrap(), m.ports);
        assert!(listed.contains(&format!("IMUL64rr {imul}")), "{report}");
        assert!(listed.contains("ADD64rr {0,1,2,3}"), "{report}");
        assert!(!listed.contains("BTC64ri8"), "{report}");
        assert!(!report.contains("not in the raw file"), "{report}");
        // A replay lacking a mix says so, once, with the count.
        let mut replayed = found.clone();
        replayed.pairs[0].cycles = Err(Unmeasured::Run(crate::exec::run::RunError::NotRecorded));
        let report = replayed.render_classes(&seed, Some(&m));
        assert!(
            report.contains("\nmixes of two forms not in the raw file: 1 ("),
            "{report}"
        );
        // A fit that explains every form leaves none out.
        let (_, none) = without_misfits(&found, m, 2);
        assert!(none.is_empty(), "{none:?}");
    }

    /// The seed's 512-bit forms fit worse than the others even with the
    /// wide mode (here each of their mixes 15% slower than the mode
    /// predicts), yet without them no mix shows the mode: the misfit loop
    /// spares them and keeps the mode, where leaving them out loses it.
    #[test]
    fn the_seeds_widest_forms_are_spared_for_the_wide_mode() {
        let forms = WIDE_CORE;
        let truth = WideMode {
            port: 1,
            bits: 512,
            moves: false,
        };
        let found = made_up(&forms, |a, ra, b, rb| {
            let lost = |x: usize, y: usize| truth.lost(forms[x].2, [forms[y].2]);
            let t = bottleneck(&[
                (without(forms[a].1, lost(a, b)), ra as f64),
                (without(forms[b].1, lost(b, a)), rb as f64),
            ]);
            if forms[a].2 == Some(512) || forms[b].2 == Some(512) {
                1.15 * t
            } else {
                t
            }
        });
        let m = found.fit().unwrap();
        assert!(m.wide.is_some(), "{m:?}");
        let (kept, out) = without_misfits(&found, m.clone(), 3);
        assert!(kept.wide.is_some(), "{out:?} {kept:?}");
        assert!(out.iter().all(|o| o.0 < 4 || o.0 > 5), "{out:?}");
        // One of them is the probe that tests placed forms for the mode.
        let probes = wide_probes(&kept, &found);
        assert!(
            !probes.is_empty() && probes.iter().all(|p| matches!(p, 4 | 5)),
            "{probes:?}"
        );
        // Not spared, both are left out and the mode goes with them.
        let (lost, out) = leave_out_misfits(&found, m, 3, false);
        let out: Vec<usize> = out.iter().map(|o| o.0).collect();
        assert!(out.contains(&4) && out.contains(&5), "{out:?}");
        assert!(lost.wide.is_none(), "{lost:?}");
    }

    /// Placed forms whose mixes their best set predicts within 10% keep
    /// it; one whose mixes are 30% off gets none, and the bar rises with
    /// the median form's error where every form fits loosely.
    #[test]
    fn a_placed_form_no_set_explains_gets_no_ports() {
        let placing = |form: usize, off: f64| Placing {
            form,
            set: 0b11,
            ties: 1,
            residuals: vec![(form, 1.0, 1.0 + off), (form, 2.0, 2.0 * (1.0 - off))],
            mixes: Vec::new(),
        };
        let (kept, misfits, median) =
            withhold_misfits(vec![placing(0, 0.01), placing(1, 0.3), placing(2, 0.09)]);
        let kept: Vec<usize> = kept.iter().map(|p| p.form).collect();
        assert_eq!(kept, [0, 2]);
        let misfits: Vec<usize> = misfits.iter().map(|p| p.form).collect();
        assert_eq!(misfits, [1]);
        assert!((median - 0.09).abs() < 1e-9, "{median}");
        // Every form 20% off, one 25%: within 1.5 times the median.
        let (kept, misfits, _) =
            withhold_misfits(vec![placing(0, 0.2), placing(1, 0.25), placing(2, 0.2)]);
        assert_eq!((kept.len(), misfits.len()), (3, 0));
    }

    /// A form of two micro-ops, one on an integer port and one on a vector
    /// port, at one a cycle: against probes on each side, the two sets
    /// come back; a form alone at another time cannot be them.
    #[test]
    fn placing_two_uops_recovers_both_sets() {
        // Four ports: 0 and 1 integer, 2 and 3 vector.
        let known: [u32; 5] = [0b0001, 0b0011, 0b0100, 0b1100, 0b1111];
        let truth = [0b0001u32, 0b0100];
        let mixes = probe_mixes(&known, 1.0, |m, p| m.predicted_uops(&[p], &truth));
        let (uops, error, ties) = place_uops(&mixes, 1.0, &known, f64::INFINITY).unwrap();
        assert_eq!((uops, ties), (truth.to_vec(), 1));
        assert!(error < 1e-9, "{error}");
        // Alone at 1/4 cycles no two of these sets are the form: the
        // bottleneck of two micro-ops on 4 ports is 1/2.
        assert!(place_uops(&mixes, 0.25, &known, f64::INFINITY).is_none());
        // At an issue width of 1, two micro-ops take 2 cycles alone.
        assert!(place_uops(&mixes, 1.0, &known, 1.0).is_none());
        assert!(place_uops(&[], 1.0, &known, f64::INFINITY).is_none());
    }

    /// Two micro-ops are kept where they fit as tightly as the median
    /// placed form, within 5%, and no more than two pairs fit as well.
    #[test]
    fn two_uops_must_fit_tightly_and_be_told_apart() {
        assert!(keeps_two(0.04, 1, 0.04));
        assert!(keeps_two(0.045, 2, 0.04));
        assert!(!keeps_two(0.07, 1, 0.04), "above 1.5 times the median");
        assert!(!keeps_two(0.07, 1, 0.06), "above 5%");
        assert!(!keeps_two(0.01, 5, 0.04), "five pairs alike");
        // A tight median does not tighten the bar below the noise floor.
        assert!(keeps_two(0.015, 1, 0.002));
        assert!(!keeps_two(0.025, 1, 0.002), "above the floor");
    }

    /// Probes that tell no set apart beyond what the others do are
    /// dropped: for forms on one of 4 ports, probes on ports 0, 1 and 2
    /// tell every port apart; one on ports 0 and 1 adds nothing.
    #[test]
    fn probes_are_the_fewest_that_tell_the_sets_apart() {
        let isa = Isa::get(Arch::X86_64);
        let names = ["VPERMDZrr", "SHL64ri", "IMUL64rr", "VPADDDZrr", "ADD64rr"];
        let sets: [u32; 5] = [0b0001, 0b0010, 0b0100, 0b0011, 0b1111];
        let singles: Vec<Single> = names
            .iter()
            .zip(sets)
            .map(|(n, set)| Single {
                form: isa.instr(n).unwrap(),
                cycles: Ok(1.0 / f64::from(set.count_ones())),
                noisy: false,
                vector: None,
            })
            .collect();
        let found = Conflicts {
            singles,
            pairs: Vec::new(),
            mapping: None,
            held_back: Vec::new(),
            reads: Vec::new(),
            spreads: Vec::new(),
            classes: None,
        };
        let mapping = Mapping {
            ports: 4,
            sets: sets.iter().copied().enumerate().collect(),
            residuals: Vec::new(),
            wide: None,
            issue: None,
            vector: Vec::new(),
            multi: Vec::new(),
            reads: None,
            spread: None,
            moves: Vec::new(),
            held: Vec::new(),
        };
        let one_port = [(4usize, 1u32)];
        assert_eq!(
            telling(&[0, 1, 2, 3], &found, &mapping, &one_port),
            [0, 1, 2]
        );
        // Forms on two of 4 ports: the probes on ports 0, 1 and 2 tell
        // each set by which of those ports it holds; no fewer do.
        let two_ports = [(4usize, 2u32)];
        let chosen = telling(&[0, 1, 2, 3, 4], &found, &mapping, &two_ports);
        assert_eq!(chosen.len(), 3, "{chosen:?}");
        // A probe on every port tells nothing apart.
        assert!(telling(&[4], &found, &mapping, &one_port).is_empty());
    }
}
