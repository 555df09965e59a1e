//! Port conflicts (`winic ports`): the experiments port inference starts
//! from. Every pair of the given forms runs interleaved, one copy of each
//! on registers of their own, timed as TP times a body, beside each form
//! alone. Under the model port-mapping methods share (PMEvo, Palmed,
//! uops.info: a form is micro-ops, each issued to one port of its set,
//! each port taking one a cycle; [`bottleneck`]), a pair that takes longer
//! together than the slower form alone shares ports with it, and how much
//! longer says how many.

use super::common::{early_skip, implicit_dependency, per_copy, placed_pair};
use super::reason::Unmeasured;
use crate::arch::{Inst, Target};
use crate::error::Error;
use crate::exec::run::{batch_costs, Options};
use crate::isa::{Arch, Instr, Reg};
use crate::kernel::data::Placement;
use crate::kernel::{self, shape};
use std::collections::BTreeMap;

pub mod classes;
pub mod memmix;
pub mod memory;
pub mod operation;
pub mod repeat;
pub mod session;
pub mod sources;
pub mod split;
pub mod spread;

/// The most forms a run measures in every pair: their pairs grow as the
/// square (64 forms are 2016 pairs, a minute); more make a full run
/// ([`classes::run`]).
pub const MAX_FORMS: usize = 64;

/// The forms of `winic ports`: `names`, or those `filter` matches, or
/// every form of `arch` with neither; at least two.
pub fn forms(arch: Arch, names: &[String], filter: Option<&str>) -> Result<Vec<Instr>, Error> {
    let forms = super::select_forms(arch, names, filter, None, None)?;
    if forms.len() < 2 {
        return Err(Error::BadInput(format!(
            "winic ports needs at least 2 forms; {} selected (name them with -i, or widen \
             --filter)",
            forms.len()
        )));
    }
    Ok(forms)
}

/// `winic ports`: measures `forms` ([`forms`]) with `opts`: up to
/// [`MAX_FORMS`] in every pair ([`run`]), more in a full run
/// ([`classes::run`], a seed of `seed` forms in every pair and the others
/// against its probes); then, with `held_back` above 0, that many mixes
/// of three forms the fit did not see ([`Conflicts::hold_back`]).
pub fn measure(
    t: &dyn Target,
    opts: &Options,
    forms: &[Instr],
    seed: usize,
    held_back: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Conflicts {
    let mut found = if forms.len() <= MAX_FORMS {
        run(t, forms, opts, progress)
    } else {
        classes::run(t, forms, seed, opts, progress)
    };
    found.try_reads(t, opts, progress);
    found.try_spread(t, opts, progress);
    if held_back > 0 {
        found.hold_back(t, held_back, opts, progress);
    }
    found
}

/// Cycles per round of a multiset of micro-ops, each `(ports, count)`: a
/// bit mask of the ports it may issue to and how many of it a round has;
/// every port issues one micro-op a cycle. The busiest set of ports
/// decides: the most, over every set S, of the micro-ops that can only go
/// to S, divided by the ports in S (the max-flow bound uops.info and
/// PMEvo compute).
pub fn bottleneck(uops: &[(u32, f64)]) -> f64 {
    let all = uops.iter().fold(0u32, |m, u| m | u.0);
    busiest(all, |s| {
        uops.iter().filter(|u| u.0 & !s == 0).map(|u| u.1).sum()
    })
}

/// The most, over every non-empty set `s` of the ports of `all`, of
/// `load(s)` divided by the ports in `s`: the busiest set of ports.
fn busiest(all: u32, load: impl Fn(u32) -> f64) -> f64 {
    let mut most: f64 = 0.0;
    let mut s = all;
    while s != 0 {
        most = most.max(load(s) / f64::from(s.count_ones()));
        s = (s - 1) & all;
    }
    most
}

/// A share of a micro-op's copies kept on each port, by port number
/// ([`Mapping::spread`]).
pub type Shares = [f64; MAX_PORTS as usize];

/// [`bottleneck`] where each micro-op `(ports, count, shares)` keeps at
/// least `shares[p]` of its count on port `p` of its set: a set of ports
/// takes all of those that can only go to it and those shares of the
/// others on its ports (exact: the shares are fixed and the rest goes
/// where the busiest set allows).
pub fn spread_bottleneck(uops: &[(u32, f64, Shares)]) -> f64 {
    let all = uops.iter().fold(0u32, |m, u| m | u.0);
    busiest(all, |s| {
        uops.iter()
            .map(|u| match u.0 & !s {
                0 => u.1,
                _ => {
                    let on = |p: &usize| u.0 & s & (1 << p) != 0;
                    u.1 * (0..u.2.len()).filter(on).map(|p| u.2[p]).sum::<f64>()
                }
            })
            .sum()
    })
}

/// The [`bottleneck`] of `uops`, never below all of them issued at
/// `issue` micro-ops a cycle (`f64::INFINITY`: no such bound).
fn issued_bottleneck(uops: &[(u32, f64)], issue: f64) -> f64 {
    let issued = uops.iter().map(|u| u.1).sum::<f64>() / issue;
    bottleneck(uops).max(issued)
}

/// How much of the time two forms take in turn they take together, 0 to
/// 1: 0 when the pair runs as fast as the slower form alone (nothing
/// shared), 1 when it takes the sum of both (everything shared).
pub fn shared_share(a: f64, b: f64, together: f64) -> f64 {
    let (slower, serial) = (a.max(b), a + b);
    if serial <= slower {
        return 0.0;
    }
    ((together - slower) / (serial - slower)).clamp(0.0, 1.0)
}

/// The ports of one micro-op a cycle: `1 / cycles` when that is within 10%
/// of a whole number from 1 to 12, else `None` (the form is more than one
/// micro-op, or not pipelined).
fn single_uop_ports(cycles: f64) -> Option<u32> {
    let n = 1.0 / cycles;
    let whole = n.round();
    ((1.0..=12.0).contains(&whole) && (n - whole).abs() <= 0.1 * whole).then_some(whole as u32)
}

/// The ports two single-micro-op forms of `pa` and `pb` ports share, from
/// the time of their mix of `ra:rb` (cycles per unit) and the slower one's
/// copies alone (`alone`): together they issue `ra + rb` micro-ops on
/// `(ra + rb) / together` ports at most ([`bottleneck`]), so `pa + pb`
/// minus those; `None` when the mix ran as fast as either part alone
/// allows (then nothing is known of their union).
fn shared_ports(
    (pa, pb): (u32, u32),
    (ra, rb): (usize, usize),
    alone: f64,
    together: f64,
) -> Option<u32> {
    let floor = alone
        .max(ra as f64 / f64::from(pa))
        .max(rb as f64 / f64::from(pb));
    if together <= floor * 1.1 {
        return None;
    }
    let union = ((ra + rb) as f64 / together).round() as u32;
    Some((pa + pb).saturating_sub(union).min(pa.min(pb)))
}

/// One form alone.
#[derive(Clone, Debug)]
pub struct Single {
    /// The form.
    pub form: Instr,
    /// Cycles per instruction, or why there is none.
    pub cycles: Result<f64, Unmeasured>,
    /// Its timings were noisy.
    pub noisy: bool,
    /// The width of the vector registers it computes on
    /// ([`crate::arch::KernelFrame::vector_bits`]).
    pub vector: Option<u32>,
}

/// What `winic ports` found.
#[derive(Clone, Debug)]
pub struct Conflicts {
    /// Each form alone.
    pub singles: Vec<Single>,
    /// Each pair of measured forms.
    pub pairs: Vec<Pair>,
    /// The port mapping fitted to the pairs once they were measured.
    pub mapping: Option<Mapping>,
    /// Mixes of three forms the fit did not see ([`Conflicts::hold_back`]).
    pub held_back: Vec<HeldBack>,
    /// Pairs of forms that read three vector registers, measured after
    /// the fit ([`Conflicts::try_reads`]).
    pub reads: Vec<HeldBack>,
    /// Pairs of forms on sets that share some of their ports, measured
    /// after the fit ([`Conflicts::try_spread`]).
    pub spreads: Vec<HeldBack>,
    /// In a full run ([`classes::run`]): the seed fitted first and the
    /// probes every other form was mixed with.
    pub classes: Option<classes::Seed>,
}

/// A mix of three forms, measured to test the fitted mapping.
#[derive(Clone, Debug)]
pub struct HeldBack {
    /// Each form (index into the singles) and its copies per unit: as many
    /// as its ports, so that each part alone takes as long.
    pub parts: Vec<(usize, usize)>,
    /// Cycles per unit of the mix, or why there is none.
    pub cycles: Result<f64, Unmeasured>,
    /// Cycles per unit of the slowest part's copies alone: the floor.
    pub floor: Result<f64, Unmeasured>,
    /// Its timings were noisy.
    pub noisy: bool,
}

/// One pair of forms together.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The two forms (indices into the singles).
    pub a: usize,
    /// The second form.
    pub b: usize,
    /// The mix: copies of `a` and of `b` per unit ([`balance`]).
    pub ratio: (usize, usize),
    /// Units in the body (each form's copies are `ratio` times this).
    pub units: usize,
    /// Cycles per unit of the mix, or why there is none.
    pub cycles: Result<f64, Unmeasured>,
    /// Cycles per unit of each form's copies alone (without the other
    /// form's): the floor the mix cannot beat, chains included; from the
    /// form's fewest copies in any mix measured alone ([`measure_pairs`]).
    pub alone: (Result<f64, Unmeasured>, Result<f64, Unmeasured>),
    /// Its timings were noisy.
    pub noisy: bool,
}

impl Pair {
    /// The mix's floor (the slower part's copies alone) and its measured
    /// time, cycles per unit; `None` where either is missing.
    pub fn timed(&self) -> Option<(f64, f64)> {
        let (fa, fb) = (*self.alone.0.as_ref().ok()?, *self.alone.1.as_ref().ok()?);
        Some((fa.max(fb), *self.cycles.as_ref().ok()?))
    }
}

/// The mix of two forms whose times alone are `ta` and `tb` cycles per
/// instruction: copies of each per unit, at most 6, that take the most
/// nearly equal time alone (`ra * ta` against `rb * tb`), the fewest
/// copies among equals. In a balanced mix each form alone keeps its
/// ports busy for the same time, so any port they share shows as a
/// slower mix (one of each hides a single-port form's conflict with a
/// 5-port one: both run in 1 cycle either way).
pub fn balance(ta: f64, tb: f64) -> (usize, usize) {
    let mut best = ((1, 1), f64::INFINITY);
    for ra in 1..=6usize {
        for rb in 1..=6usize {
            let (x, y) = (ra as f64 * ta, rb as f64 * tb);
            let off = (x - y).abs() / x.max(y);
            if off < best.1 - 0.02 {
                best = ((ra, rb), off);
            }
        }
    }
    best.0
}

/// The most copies of one form a mix holds, as a body alone has.
const MOST_COPIES: usize = shape::COPIES;

/// The body of a mix of `parts` (each form and its copies per unit), each
/// on registers of its own, with as many units as registers allow (each
/// form at most [`MOST_COPIES`] copies): units of each part's copies in
/// turn, and the units. `None` when not even one unit fits.
fn mixed(t: &dyn Target, parts: &[(Instr, usize)]) -> Option<(Vec<Inst>, usize)> {
    let widest = parts.iter().map(|p| p.1).max()?.max(1);
    (1..=MOST_COPIES / widest).rev().find_map(|u| {
        let mut regs: Vec<Reg> = Vec::new();
        let mut copies: Vec<Vec<Inst>> = Vec::new();
        for &(form, per) in parts {
            let got = shape::throughput_avoiding(t, form, per * u, &regs)
                .ok()
                .filter(|g| g.len() == per * u)?;
            regs.extend(got.iter().flat_map(|i| t.inst_regs(i)));
            copies.push(got);
        }
        let body = (0..u)
            .flat_map(|k| {
                parts
                    .iter()
                    .zip(&copies)
                    .flat_map(move |(p, c)| c[k * p.1..(k + 1) * p.1].iter().cloned())
            })
            .collect();
        Some((body, u))
    })
}

/// Measures `bodies` (each with the number it is divided by: instructions
/// or units), giving each its cycles per that and whether it was noisy;
/// `progress(done)` after each kernel.
fn measure_bodies(
    t: &dyn Target,
    bodies: &[(Vec<Inst>, usize)],
    opts: &Options,
    progress: &mut dyn FnMut(usize),
) -> Vec<(Result<f64, Unmeasured>, bool)> {
    measure_placed(t, bodies, Placement::Aligned, opts, progress)
}

/// [`measure_bodies`] with the accesses placed as `placement` says.
fn measure_placed(
    t: &dyn Target,
    bodies: &[(Vec<Inst>, usize)],
    placement: Placement,
    opts: &Options,
    progress: &mut dyn FnMut(usize),
) -> Vec<(Result<f64, Unmeasured>, bool)> {
    let mut got: Vec<(Result<f64, Unmeasured>, bool)> =
        vec![(Err(Unmeasured::NotMeasured), false); bodies.len()];
    let make = |i: usize| placed_pair(t, &bodies[i].0, placement);
    let width = |i: usize| kernel::widest_bits(&bodies[i].0);
    let mut done = 0;
    batch_costs(t, bodies.len(), &make, &width, opts, &mut |i, c| {
        let (body, per) = &bodies[i];
        got[i] = match c {
            Ok(c) if c.positive() => (Ok(per_copy(t, &c, body, *per)), c.noisy()),
            Ok(_) => (Err(Unmeasured::Noise), true),
            Err(e) => (Err(Unmeasured::Run(e)), false),
        };
        // A body can report more than once (its rounds): never past the
        // total.
        done = (done + 1).min(bodies.len());
        progress(done);
    });
    got
}

/// Measures `forms` alone, then every pair of them in a balanced mix
/// ([`balance`]) beside each form's copies of that mix alone;
/// `progress(done, total)` after each kernel.
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Conflicts {
    let n = forms.len();
    let guess = n + 3 * n * n.saturating_sub(1) / 2;
    let (singles, runnable) = measure_singles(t, forms, opts, &mut |d| progress(d, guess));
    // Together: every pair of forms measured alone.
    let measured: Vec<usize> = (0..singles.len())
        .filter(|&k| singles[k].cycles.is_ok())
        .collect();
    every_pair(t, singles, &measured, opts, &mut |d, total| {
        progress(runnable + d, runnable + total)
    })
    .0
}

/// Measures every pair of `forms` (indices into `singles`) and fits a
/// mapping to them: what was found, and how many kernels it took;
/// `progress(done, total)` after each kernel.
pub(crate) fn every_pair(
    t: &dyn Target,
    singles: Vec<Single>,
    forms: &[usize],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> (Conflicts, usize) {
    let wanted: Vec<(usize, usize)> = forms
        .iter()
        .enumerate()
        .flat_map(|(x, &a)| forms[x + 1..].iter().map(move |&b| (a, b)))
        .collect();
    let (pairs, kernels) = measure_pairs(t, &singles, &wanted, opts, progress);
    let mut found = Conflicts {
        singles,
        pairs,
        mapping: None,
        held_back: Vec::new(),
        reads: Vec::new(),
        spreads: Vec::new(),
        classes: None,
    };
    found.mapping = found.fit();
    (found, kernels)
}

/// Measures each of `forms` alone, in the TP body (up to 12 independent
/// copies), leaving out with the reason those that cannot run or whose
/// copies depend on each other; the singles and how many were measured,
/// `progress(done)` after each kernel.
pub(crate) fn measure_singles(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize),
) -> (Vec<Single>, usize) {
    let mut singles: Vec<Single> = Vec::new();
    let mut bodies: Vec<(Vec<Inst>, usize)> = Vec::new();
    let mut body_of: Vec<Option<usize>> = Vec::new();
    for &form in forms {
        let why = early_skip(t, form, false)
            .map(Unmeasured::Skip)
            .or_else(|| {
                (!implicit_dependency(t, form).is_empty()).then_some(Unmeasured::ImplicitDependency)
            });
        let body = match why {
            Some(w) => Err(w),
            None => shape::throughput(t, form, shape::COPIES).map_err(Unmeasured::NoBody),
        };
        body_of.push(body.is_ok().then_some(bodies.len()));
        singles.push(Single {
            form,
            cycles: Err(match &body {
                Ok(_) => Unmeasured::NotMeasured,
                Err(w) => w.clone(),
            }),
            noisy: false,
            vector: t.vector_bits(form),
        });
        if let Ok(b) = body {
            let n = b.len();
            bodies.push((b, n));
        }
    }
    let got = measure_bodies(t, &bodies, opts, progress);
    for (s, at) in singles.iter_mut().zip(&body_of) {
        if let Some(k) = at {
            (s.cycles, s.noisy) = got[*k].clone();
        }
    }
    (singles, bodies.len())
}

/// Measures the `wanted` pairs of `singles` (indices; each measured
/// alone), each in a balanced mix ([`balance`]), and the floor of each
/// form's copies of a mix alone: the copies of a form take the larger of
/// their time at its rate alone and the time of their longest chain,
/// which does not grow with more copies, so one body per form, the
/// fewest copies any of its mixes holds, gives every floor. The pairs
/// and how many kernels they took; `progress(done, total)` after each
/// kernel.
pub(crate) fn measure_pairs(
    t: &dyn Target,
    singles: &[Single],
    wanted: &[(usize, usize)],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> (Vec<Pair>, usize) {
    let mut pairs: Vec<Pair> = Vec::new();
    let mut bodies: Vec<(Vec<Inst>, usize)> = Vec::new();
    // Each pair's mix, and the fewest copies of each form in a mix.
    let mut slots: Vec<Option<usize>> = Vec::new();
    let mut fewest: BTreeMap<usize, usize> = BTreeMap::new();
    for &(a, b) in wanted {
        let (ta, tb) = (time(&singles[a]), time(&singles[b]));
        let ratio = balance(ta, tb);
        let apart = t.cannot_mix(singles[a].form, singles[b].form);
        let mix = apart
            .is_none()
            .then(|| mixed(t, &[(singles[a].form, ratio.0), (singles[b].form, ratio.1)]))
            .flatten();
        let units = mix.as_ref().map_or(0, |m| m.1);
        let why = apart.map_or(Unmeasured::NoRegisters, Unmeasured::Apart);
        pairs.push(Pair {
            a,
            b,
            ratio,
            units,
            cycles: Err(if mix.is_some() {
                Unmeasured::NotMeasured
            } else {
                why.clone()
            }),
            alone: (Err(why.clone()), Err(why)),
            noisy: false,
        });
        let Some((body, units)) = mix else {
            slots.push(None);
            continue;
        };
        for (k, copies) in [(a, ratio.0 * units), (b, ratio.1 * units)] {
            let c = fewest.entry(k).or_insert(copies);
            *c = (*c).min(copies);
        }
        bodies.push((body, units));
        slots.push(Some(bodies.len() - 1));
    }
    let mut floor_at: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (&k, &copies) in &fewest {
        if let Some(body) = exactly(t, singles[k].form, copies) {
            bodies.push((body, 1));
            floor_at.insert(k, (bodies.len() - 1, copies));
        }
    }
    let total = bodies.len();
    let got = measure_bodies(t, &bodies, opts, &mut |d| progress(d, total));
    // Cycles of `copies` of form `k` alone, and whether noisy.
    let floor = |k: usize, copies: usize| match floor_at.get(&k) {
        Some(&(i, fewest)) if copies >= fewest => (
            got[i]
                .0
                .clone()
                .map(|c| c.max(copies as f64 * time(&singles[k]))),
            got[i].1,
        ),
        _ => (Err(Unmeasured::NotAlone), false),
    };
    for (p, slot) in pairs.iter_mut().zip(slots) {
        let Some(mix) = slot else { continue };
        let (fa, na) = floor(p.a, p.ratio.0 * p.units);
        let (fb, nb) = floor(p.b, p.ratio.1 * p.units);
        let units = p.units as f64;
        p.alone = (fa.map(|c| c / units), fb.map(|c| c / units));
        (p.cycles, p.noisy) = got[mix].clone();
        p.noisy |= na || nb;
    }
    (pairs, total)
}

/// The TP body of exactly `copies` independent copies of `form`, or
/// `None` when its registers give fewer.
fn exactly(t: &dyn Target, form: Instr, copies: usize) -> Option<Vec<Inst>> {
    shape::throughput(t, form, copies)
        .ok()
        .filter(|b| b.len() == copies)
}

impl Conflicts {
    /// The single of `form` (an index into the singles) where the fitted
    /// mapping places it; `None` without a mapping or where it does not.
    pub fn placed(&self, form: Instr) -> Option<usize> {
        let m = self.mapping.as_ref()?;
        let k = self
            .singles
            .iter()
            .position(|s| s.form.opcode() == form.opcode())?;
        m.uops_of(k).map(|_| k)
    }

    /// Measures `count` mixes of three forms the fitted mapping holds,
    /// chosen by a fixed pseudo-random sequence (the same forms give the
    /// same mixes), each form with as many copies as it has ports (N for
    /// a form of several micro-ops at 1/N cycles alone), beside
    /// each part's copies alone: mixes that test the mapping on what it
    /// was not fitted to. Nothing when fewer than three forms are mapped.
    pub fn hold_back(
        &mut self,
        t: &dyn Target,
        count: usize,
        opts: &Options,
        progress: &mut dyn FnMut(usize, usize),
    ) {
        let Some(m) = &self.mapping else { return };
        let mapped = m.forms();
        let n = mapped.len();
        if n < 3 {
            return;
        }
        let mut next = sequence(0x9E37_79B9_7F4A_7C15);
        let possible = n * (n - 1) * (n - 2) / 6;
        let mut chosen: Vec<[usize; 3]> = Vec::new();
        // Draws are bounded: triples that cannot mix may leave fewer than
        // asked.
        let mut draws = 0;
        while chosen.len() < count.min(possible) && draws < 100 * count + 1000 {
            draws += 1;
            let mut three = [next(n), next(n), next(n)];
            three.sort_unstable();
            let form = |i: usize| self.singles[mapped[three[i]]].form;
            let apart = [(0, 1), (0, 2), (1, 2)]
                .iter()
                .any(|&(x, y)| t.cannot_mix(form(x), form(y)).is_some());
            if three[0] != three[1] && three[1] != three[2] && !chosen.contains(&three) && !apart {
                chosen.push(three);
            }
        }
        let mut planned: Vec<Vec<(usize, usize)>> = Vec::new();
        for three in &chosen {
            // As many copies as ports: of one micro-op, its set's; of
            // more, the N of its 1/N cycles alone.
            let widths: Vec<usize> = three
                .iter()
                .map(|&i| match m.set_of(mapped[i]) {
                    Some(set) => set.count_ones() as usize,
                    None => single_uop_ports(time(&self.singles[mapped[i]])).unwrap_or(1) as usize,
                })
                .collect();
            let g = widths.iter().fold(0, |g, &w| gcd(g, w)).max(1);
            planned.push(
                three
                    .iter()
                    .zip(&widths)
                    .map(|(&i, &w)| (mapped[i], w / g))
                    .collect(),
            );
        }
        let measured = self.measure_mixes(t, planned, opts, progress);
        self.held_back.extend(measured);
    }

    /// The report section of a trial after the fit (the read port, the
    /// spreads): `kept`, the line on what the fit kept, or without it
    /// `unmeasured` where no mix of `mixes` was measured and `unneeded`
    /// where the ports alone did as well; then each mix, measured and
    /// predicted. Empty when no mix was planned.
    pub(super) fn render_trial(
        &self,
        mixes: &[HeldBack],
        m: &Mapping,
        kept: Option<String>,
        unmeasured: &str,
        unneeded: &str,
    ) -> String {
        if mixes.is_empty() {
            return String::new();
        }
        let mut s = match kept {
            Some(line) => line,
            None if mixes.iter().all(|h| h.cycles.is_err()) => unmeasured.to_string(),
            None => unneeded.to_string(),
        };
        s.push_str("  (cycles per unit: measured, predicted, error)\n");
        s.push_str(&self.mix_table(mixes, m).lines);
        s
    }

    /// Measures each mix of `planned` (its forms, indices into the
    /// singles, each with its copies per unit) beside each part's copies
    /// alone ([`queue_mix`]); a mix whose body cannot be built stays
    /// [`Unmeasured::NoRegisters`]. `progress(done, total)` after each
    /// kernel.
    fn measure_mixes(
        &self,
        t: &dyn Target,
        planned: Vec<Vec<(usize, usize)>>,
        opts: &Options,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Vec<HeldBack> {
        let mut bodies: Vec<(Vec<Inst>, usize)> = Vec::new();
        let plans: Vec<Option<(usize, Vec<usize>)>> = planned
            .iter()
            .map(|parts| {
                let forms: Vec<(Instr, usize)> = parts
                    .iter()
                    .map(|&(k, r)| (self.singles[k].form, r))
                    .collect();
                queue_mix(t, &forms, &mut bodies)
            })
            .collect();
        let total = bodies.len();
        let got = measure_bodies(t, &bodies, opts, &mut |d| progress(d, total));
        planned
            .into_iter()
            .zip(plans)
            .map(|(parts, plan)| {
                let (cycles, floor, noisy) = match plan {
                    Some(plan) => mix_result(&got, &plan),
                    None => (
                        Err(Unmeasured::NoRegisters),
                        Err(Unmeasured::NoRegisters),
                        false,
                    ),
                };
                HeldBack {
                    parts,
                    cycles,
                    floor,
                    noisy,
                }
            })
            .collect()
    }
}

/// A fixed pseudo-random sequence of indices, each below the bound it is
/// asked with, from `seed`: the same forms give the same mixes.
fn sequence(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |below: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % below as u64) as usize
    }
}

/// Queues on `bodies` a mix of `forms` (each with its copies per unit),
/// then each form's copies of it alone: the mix's index and the parts',
/// or `None` when a body cannot be built.
fn queue_mix(
    t: &dyn Target,
    forms: &[(Instr, usize)],
    bodies: &mut Vec<(Vec<Inst>, usize)>,
) -> Option<(usize, Vec<usize>)> {
    let (body, units) = mixed(t, forms)?;
    let alone: Option<Vec<usize>> = forms
        .iter()
        .map(|&(f, r)| {
            bodies.push((exactly(t, f, r * units)?, units));
            Some(bodies.len() - 1)
        })
        .collect();
    bodies.push((body, units));
    Some((bodies.len() - 1, alone?))
}

/// A mix [`queue_mix`] queued, measured (`got`): cycles per unit, those of
/// its slowest part alone, and whether any timing was noisy.
fn mix_result(
    got: &[(Result<f64, Unmeasured>, bool)],
    (mix, alone): &(usize, Vec<usize>),
) -> (Result<f64, Unmeasured>, Result<f64, Unmeasured>, bool) {
    let floor = alone
        .iter()
        .map(|&i| got[i].0.clone())
        .try_fold(0.0f64, |most, c| c.map(|c| most.max(c)));
    let noisy = got[*mix].1 || alone.iter().any(|&i| got[i].1);
    (got[*mix].0.clone(), floor, noisy)
}

/// One held-back mix as the report lists it: its forms, its ratio, and
/// measured and predicted cycles per unit with whether a part's own chain
/// (the floor) decided the prediction, or why there are none.
pub(super) struct HeldRow {
    pub name: String,
    pub ratio: String,
    pub value: Result<(f64, f64, bool), Unmeasured>,
    pub noisy: bool,
}

impl HeldRow {
    /// The row of a mix measured at `cycles` per unit, its slowest part
    /// alone at `floor`, and predicted by `model` (`None`: a form is not
    /// mapped): the prediction is never below the floor, and a floor more
    /// than 2% above the model's figure decided it.
    pub fn new(
        name: String,
        ratio: String,
        (cycles, floor): (&Result<f64, Unmeasured>, &Result<f64, Unmeasured>),
        model: impl FnOnce() -> Option<f64>,
        noisy: bool,
    ) -> HeldRow {
        let value = match (cycles, floor) {
            (Ok(c), Ok(floor)) => model()
                .map(|p| (*c, p.max(*floor), *floor > p * 1.02))
                .ok_or(Unmeasured::NotMapped),
            (Err(w), _) | (_, Err(w)) => Err(w.clone()),
        };
        HeldRow {
            name,
            ratio,
            value,
            noisy,
        }
    }
}

/// Mixes tested against a model, as the report lists them: the worst
/// first, with how many the model predicts within 10% of those it was
/// tested on (a mix bound by one part's copies alone, their own chain,
/// tests the floor, not the model: listed, not counted).
pub(super) struct MixTable {
    pub within: usize,
    pub counted: usize,
    /// Mixes bound by one part alone.
    pub chained: usize,
    /// A line per mix: forms, ratio, measured, predicted, error.
    pub lines: String,
}

impl MixTable {
    /// The table of `rows`; `chain` names a mix bound by one part alone.
    pub fn of(mut rows: Vec<HeldRow>, chain: &str) -> MixTable {
        let tested = |r: &HeldRow| r.value.as_ref().is_ok_and(|v| !v.2);
        let error = |r: &HeldRow| {
            r.value
                .as_ref()
                .map_or(f64::INFINITY, |(c, p, _)| ((p - c) / c).abs())
        };
        rows.sort_by(|x, y| {
            (tested(y), error(y))
                .partial_cmp(&(tested(x), error(x)))
                .unwrap()
        });
        let counted = rows.iter().filter(|r| tested(r)).count();
        let within = rows
            .iter()
            .filter(|r| tested(r) && error(r) <= 0.10)
            .count();
        let chained = rows
            .iter()
            .filter(|r| r.value.as_ref().is_ok_and(|v| v.2))
            .count();
        let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
        let mut lines = String::new();
        for r in rows {
            let line = match r.value {
                Ok((c, p, bound)) => format!(
                    "{c:>8.3}  {p:>8.3}  {:>+6.1}%{}{}",
                    100.0 * (p - c) / c,
                    if bound {
                        format!(" ({chain})")
                    } else {
                        String::new()
                    },
                    if r.noisy { " (noisy)" } else { "" }
                ),
                Err(w) => format!("-  {w}"),
            };
            lines.push_str(&format!("  {:w$}  {:>7}  {line}\n", r.name, r.ratio));
        }
        MixTable {
            within,
            counted,
            chained,
            lines,
        }
    }
}

/// The greatest common divisor.
fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Conflicts {
    /// The ports of every form the mapping places, for the database
    /// ([`crate::db::Database::replace_inferred_ports`]): its set, ports
    /// named by their numbers, with its time alone times the set's size as
    /// the cycles (one micro-op on N ports runs at 1/N cycles: 1 cycle of
    /// work), so that the form alone is bound at its measured throughput.
    /// A form of several micro-ops has a cycle on each micro-op's set
    /// (two on one set its micro-ops share). Empty without a mapping.
    pub fn inferred_ports(&self) -> Vec<(Instr, Vec<crate::db::PortUse>)> {
        let Some(m) = &self.mapping else {
            return Vec::new();
        };
        let names = |set: u32| port_numbers(set, m.ports);
        let single = m.sets.iter().map(|&(k, set)| (k, self.one_uop(k, set, m)));
        let multi = m.multi.iter().map(|(k, sets)| {
            let mut uses: Vec<crate::db::PortUse> = Vec::new();
            for &set in sets {
                let ports = names(set);
                match uses.iter_mut().find(|u| u.ports == ports) {
                    Some(u) => u.cycles += 1.0,
                    None => uses.push(crate::db::PortUse { cycles: 1.0, ports }),
                }
            }
            (*k, uses)
        });
        single
            .chain(multi)
            .map(|(k, uses)| (self.singles[k].form, self.with_reads(k, uses)))
            .collect()
    }

    /// `uses` of single `k` with its cycles of the read port where it
    /// takes some ([`Mapping::reads`]).
    fn with_reads(&self, k: usize, mut uses: Vec<crate::db::PortUse>) -> Vec<crate::db::PortUse> {
        if let Some((r, ..)) = self.mapping.as_ref().and_then(|m| m.reads.as_ref()) {
            let cycles = r.use_of(k);
            if cycles > 0.0 {
                uses.push(crate::db::PortUse {
                    cycles: (cycles * 100.0).round() / 100.0,
                    ports: vec![crate::db::READ_PORT.to_string()],
                });
            }
        }
        uses
    }

    /// The forms no set fits ([`classes::Seed::withheld`]) with the
    /// nearest set's ports, as [`Conflicts::inferred_ports`] writes a
    /// placed form's, each with the root mean square error of its mixes
    /// with that set: an export takes the nearest set rather than none.
    #[allow(clippy::type_complexity)]
    pub fn nearest_ports(&self) -> Vec<(Instr, Vec<crate::db::PortUse>, f64)> {
        let (Some(m), Some(seed)) = (&self.mapping, &self.classes) else {
            return Vec::new();
        };
        seed.withheld
            .iter()
            .map(|&(k, set, error)| {
                let uses = self.with_reads(k, self.one_uop(k, set, m));
                (self.singles[k].form, uses, error)
            })
            .collect()
    }

    /// Single `k` as one micro-op on `set` (numbered as `m` numbers its
    /// ports), as the database holds it: its time alone times the set's
    /// size as the cycles, so that alone it is bound at what was measured;
    /// where its set keeps a share on each port, that share on each port
    /// alone and the rest on the set ([`spread::pressure`]).
    fn one_uop(&self, k: usize, set: u32, m: &Mapping) -> Vec<crate::db::PortUse> {
        let cycles = time(&self.singles[k]) * f64::from(set.count_ones());
        spread::pressure(cycles, set, m.ports, &m.shares(k))
    }
}

/// A measured single's cycles per instruction (1 for one without, which
/// is never mixed).
fn time(s: &Single) -> f64 {
    *s.cycles.as_ref().unwrap_or(&1.0)
}

impl Conflicts {
    /// The table: each form alone, then each pair with its time together,
    /// the slower form's alone, both in turn, the shared share and, for
    /// single-micro-op forms, the shared ports; then the fitted mapping,
    /// and for each of `compare` (a label and each single's reference
    /// ports, as [`Mapping::agreement`] takes them) how it agrees.
    pub fn render(&self, compare: &[(&str, &[Option<Vec<String>>])]) -> String {
        let width = self
            .singles
            .iter()
            .map(|x| x.form.name().len())
            .max()
            .unwrap_or(0);
        let mut s = match &self.classes {
            Some(seed) => self.render_classes(seed, self.mapping.as_ref()),
            None => self.render_pairs(width),
        };
        if let Some(m) = &self.mapping {
            s.push_str(&self.render_reads(m));
            s.push_str(&self.render_spread(m));
            if !self.held_back.is_empty() {
                s.push_str(&self.render_held_back(m));
            }
        }
        for &(label, reference) in compare {
            match self.mapping.as_ref().and_then(|m| m.agreement(reference)) {
                Some(a) => s.push_str(&self.render_agreement(&a, label, width)),
                None => s.push_str(&format!(
                    "against {label}: no form both the fit and it place as one micro-op\n"
                )),
            }
        }
        s
    }

    /// Each form alone, each pair, and the mapping fitted to them.
    fn render_pairs(&self, width: usize) -> String {
        let mut s = String::from("alone (cycles per instruction):\n");
        for x in &self.singles {
            let v = match &x.cycles {
                Ok(c) => format!("{c:.3}{}", if x.noisy { " (noisy)" } else { "" }),
                Err(w) => format!("-  {w}"),
            };
            s.push_str(&format!("  {:width$}  {v}\n", x.form.name()));
        }
        s.push_str(
            "pairs in a balanced mix (`mix` a:b: a copies of the first per b of the second, \
             each alone as fast; cycles per unit of the mix; `alone`: the slower form's copies \
             of the mix alone; `shared`: how much of the time in turn they take together, 0% \
             nothing, 100% everything):\n",
        );
        let pw = 2 * width + 3;
        s.push_str(&format!(
            "  {:pw$}  {:>5}  {:>8}  {:>8}  {:>8}  {:>6}  verdict\n",
            "pair", "mix", "together", "alone", "in turn", "shared"
        ));
        for p in &self.pairs {
            let (a, b) = (&self.singles[p.a], &self.singles[p.b]);
            let name = format!("{} + {}", a.form.name(), b.form.name());
            let mix = format!("{}:{}", p.ratio.0, p.ratio.1);
            let line = match (&p.alone.0, &p.alone.1, &p.cycles) {
                (Ok(ta), Ok(tb), Ok(tp)) => {
                    let share = shared_share(*ta, *tb, *tp);
                    let verdict = if share < 0.15 {
                        "independent"
                    } else if share > 0.85 {
                        "the same resources"
                    } else {
                        "partly shared"
                    };
                    let single = |s: &Single| single_uop_ports(*s.cycles.as_ref().ok()?);
                    let ports = match (single(a), single(b)) {
                        (Some(pa), Some(pb)) => {
                            match shared_ports((pa, pb), p.ratio, ta.max(*tb), *tp) {
                                Some(k) => {
                                    format!(
                                        "; as single micro-ops on {pa} and {pb} ports: {k} shared"
                                    )
                                }
                                None => format!("; as single micro-ops on {pa} and {pb} ports"),
                            }
                        }
                        _ => String::new(),
                    };
                    let noisy = if a.noisy || b.noisy || p.noisy {
                        " (noisy)"
                    } else {
                        ""
                    };
                    format!(
                        "{tp:>8.3}  {:>8.3}  {:>8.3}  {:>5.0}%  {verdict}{ports}{noisy}",
                        ta.max(*tb),
                        ta + tb,
                        100.0 * share
                    )
                }
                (_, _, Err(w)) => format!("-  {w}"),
                (Err(w), _, _) | (_, Err(w), _) => format!("-  alone: {w}"),
            };
            s.push_str(&format!("  {name:pw$}  {mix:>5}  {line}\n"));
        }
        if let Some(m) = &self.mapping {
            s.push_str(&self.render_mapping(m, width));
        }
        s
    }

    /// The table of `mixes` (of the singles) as `m` predicts them.
    fn mix_table(&self, mixes: &[HeldBack], m: &Mapping) -> MixTable {
        let rows: Vec<HeldRow> = mixes
            .iter()
            .map(|h| {
                let names: Vec<&str> = h
                    .parts
                    .iter()
                    .map(|p| self.singles[p.0].form.name())
                    .collect();
                let ratio: Vec<String> = h.parts.iter().map(|p| p.1.to_string()).collect();
                HeldRow::new(
                    names.join(" + "),
                    ratio.join(":"),
                    (&h.cycles, &h.floor),
                    || m.predict(&h.parts, 0.0),
                    h.noisy,
                )
            })
            .collect();
        MixTable::of(rows, "a part's own chain")
    }

    /// The held-back mixes' section: how many the mapping predicts within
    /// 10%, then each, the worst first.
    fn render_held_back(&self, m: &Mapping) -> String {
        let table = self.mix_table(&self.held_back, m);
        let (within, counted, chained) = (table.within, table.counted, table.chained);
        format!(
            "held-back mixes of three forms, not used in the fit (each form with as many copies \
             as it has ports; cycles per unit: measured, predicted, error): {within} of \
             {counted} predicted within 10%{}\n{}",
            if chained > 0 {
                format!(
                    " ({chained} more bound by one part's own chain, which tests no port, not \
                     counted)"
                )
            } else {
                String::new()
            },
            table.lines
        )
    }

    /// The agreement's section: the count, the renaming, and each form
    /// compared, those that disagree first.
    fn render_agreement(&self, a: &Agreement, label: &str, width: usize) -> String {
        let (compared, agreeing) = a.counts();
        let renaming: Vec<String> = a
            .renaming
            .iter()
            .enumerate()
            .map(|(p, n)| format!("{p}->{}", n.as_deref().unwrap_or("none")))
            .collect();
        let mut s = format!(
            "against {label}: {agreeing} of {compared} forms both describe as one micro-op on the \
             same ports ({:.0}%), winic's ports renamed {}\n",
            100.0 * agreeing as f64 / compared as f64,
            renaming.join(" ")
        );
        let mut rows = a.rows.clone();
        rows.sort_by_key(|r| r.3);
        for (k, ours, theirs, same) in rows {
            s.push_str(&format!(
                "  {:width$}  winic {{{}}}  reference {{{}}}{}\n",
                self.singles[k].form.name(),
                ours.join(","),
                theirs.join(","),
                if same { "" } else { "  differs" }
            ));
        }
        s
    }

    /// The mapping's section: each form's ports, then every pair's
    /// measured and predicted time, the worst first.
    fn render_mapping(&self, m: &Mapping, width: usize) -> String {
        let mut s = format!(
            "a port mapping of the {} forms that run as one micro-op, fitted to their {} mixes \
             (ports numbered 0-{}, not the vendor's names): {} ports, root mean square error \
             {:.1}%. One mapping that fits, not the only one: a mix that runs as fast as its \
             parts alone does not tell whether they share a port\n",
            m.sets.len(),
            m.residuals.len(),
            m.ports - 1,
            m.ports,
            100.0 * m.rms()
        );
        s.push_str(&m.issue_line());
        s.push_str(&m.wide_line());
        for (k, mask) in &m.sets {
            let ports = port_numbers(*mask, m.ports);
            s.push_str(&format!(
                "  {:width$}  {{{}}}\n",
                self.singles[*k].form.name(),
                ports.join(",")
            ));
        }
        s.push_str("the mixes against it (cycles per unit: measured, predicted, error), the worst first:\n");
        let mut rows = m.residuals.clone();
        rows.sort_by(|x, y| {
            ((y.2 - y.1) / y.1)
                .abs()
                .total_cmp(&((x.2 - x.1) / x.1).abs())
        });
        let pw = 2 * width + 3;
        for (p, measured, predicted) in rows {
            let pair = &self.pairs[p];
            let name = format!(
                "{} + {}",
                self.singles[pair.a].form.name(),
                self.singles[pair.b].form.name()
            );
            s.push_str(&format!(
                "  {name:pw$}  {measured:>8.3}  {predicted:>8.3}  {:>+6.1}%\n",
                100.0 * (predicted - measured) / measured
            ));
        }
        s
    }
}

/// One measured mix of two forms, as the fit sees it: the forms
/// (indices into the forms fitted), their copies per unit, the floor (the
/// slower form's copies alone, cycles per unit) and the measured cycles
/// per unit.
#[derive(Clone, Copy, Debug)]
pub struct Mix {
    /// The first form and its copies per unit.
    pub a: (usize, usize),
    /// The second form and its copies per unit.
    pub b: (usize, usize),
    /// Cycles per unit neither form's copies beat alone.
    pub floor: f64,
    /// Cycles per unit measured.
    pub cycles: f64,
    /// The ports the first form's and the second's sets lose in this mix
    /// ([`WideMode`]).
    pub lost: (u32, u32),
    /// The micro-ops the whole core issues a cycle at most
    /// ([`Mapping::issue`]; `f64::INFINITY`: no such bound).
    pub issue: f64,
}

impl Mix {
    /// The cycles per unit the port sets `sets` predict: the [`bottleneck`]
    /// of `a.1` micro-ops on `sets[a.0]` and `b.1` on `sets[b.0]` (less
    /// the ports each loses in this mix; twice the port cycles for a set
    /// marked [`HELD`]) in closed form (each alone, or
    /// both on their ports together), never below the floor nor below
    /// all of them issued at the core's width.
    fn predicted(&self, sets: &[u32]) -> f64 {
        let (sa, sb) = (sets[self.a.0], sets[self.b.0]);
        let (a, b) = (without(sa, self.lost.0), without(sb, self.lost.1));
        let (na, nb) = (self.a.1 as f64, self.b.1 as f64);
        // Port cycles: a held micro-op takes its port twice as long.
        let (wa, wb) = (na * hold(sa), nb * hold(sb));
        let ports = |m: u32| f64::from(m.count_ones().max(1));
        (wa / ports(a))
            .max(wb / ports(b))
            .max((wa + wb) / ports(a | b))
            .max((na + nb) / self.issue)
            .max(self.floor)
    }
}

impl Mix {
    /// The lost-port masks of form `k` (an index into the forms fitted)
    /// and of its partner in this mix; 0s when it is not in it.
    fn lost_by(&self, k: usize) -> (u32, u32) {
        match k {
            _ if k == self.a.0 => self.lost,
            _ if k == self.b.0 => (self.lost.1, self.lost.0),
            _ => (0, 0),
        }
    }

    /// [`Mix::predicted`] for forms of several micro-ops: the first form's
    /// on the sets `a` (one micro-op on each per copy), the second's on
    /// `b`, through the general [`bottleneck`].
    pub fn predicted_uops(&self, a: &[u32], b: &[u32]) -> f64 {
        let uops: Vec<(u32, f64)> = a
            .iter()
            .map(|&s| (without(s, self.lost.0), self.a.1 as f64))
            .chain(
                b.iter()
                    .map(|&s| (without(s, self.lost.1), self.b.1 as f64)),
            )
            .collect();
        issued_bottleneck(&uops, self.issue).max(self.floor)
    }
}

/// The ports of `set` (out of `ports`), numbered as the fit numbers
/// them: `["0", "1", "5"]`.
fn port_numbers(set: u32, ports: u32) -> Vec<String> {
    (0..ports)
        .filter(|p| set & (1 << p) != 0)
        .map(|p| p.to_string())
        .collect()
}

/// The marks of the ports a set's form takes, beside wide vector work,
/// for the port it loses ([`WideMode`]): port p's mark is bit
/// [`GAIN_SHIFT`] + p. Only inside a fit and a placing, never in a
/// [`Mapping`]'s sets ([`Mapping::moves`]). Each form has its own: on the
/// Xeon guest (xeon-cf) beside a 512-bit `vprord` (port 0) two 256-bit
/// FMAs ran in 1.5 cycles (they take port 5's 512-bit FMA unit), two
/// 256-bit `vpminub` in 3.0 (they take none), while the 128- and 256-bit
/// floating-point adds take port 0; one gain port for every form that
/// moves left the FMAs on one port, and a third of the held-back mixes
/// that failed were an FMA beside 512-bit work predicted twice as slow.
const MOVES: u32 = 0xff << GAIN_SHIFT;

/// Where a set's [`MOVES`] marks begin: above the ports ([`MAX_PORTS`]).
const GAIN_SHIFT: u32 = 8;

/// The ports a set's [`MOVES`] marks name.
fn gained(set: u32) -> u32 {
    (set & MOVES) >> GAIN_SHIFT
}

/// The mark of a port set whose micro-op holds the port it issues to two
/// cycles: a 512-bit micro-op on Zen 4's 256-bit pipes. Alone such a form
/// runs at 2/N cycles on N ports, as one micro-op a cycle on N/2 ports
/// would; beside other work on those ports it takes twice their time. On
/// the Zen 4 guest a 512-bit `vaddpd` (1 cycle alone) fitted as one port
/// of its own, and the 128- and 256-bit adds (0.5 cycles), which share
/// its two pipes, then fitted no set (14.6%). Only inside a fit and a
/// placing, for the widest vector forms ([`candidate_sets`]); a
/// [`Mapping`] keeps the forms in [`Mapping::held`].
pub(crate) const HELD: u32 = 1 << 30;

/// The cycles a micro-op on `set` holds each port: 2 where it is marked
/// [`HELD`], else 1.
fn hold(set: u32) -> f64 {
    if set & HELD != 0 {
        2.0
    } else {
        1.0
    }
}

/// The ports of a set of a fit or a placing, without its marks.
pub(crate) fn plain(set: u32) -> u32 {
    set & !(MOVES | HELD)
}

/// Where a lost-port mask ([`WideMode::lost`]) says that the form may
/// take another port in its stead ([`WideMode::moves`]).
const GAINED: u32 = 16;

/// The ports a lost-port mask ([`WideMode::lost`]) takes away.
fn lost_ports(lost: u32) -> u32 {
    lost & ((1 << GAINED) - 1)
}

/// `set` without the ports `lost` (and, for a set marked [`MOVES`] that
/// loses one, with the ports it marks instead), unless that leaves none.
fn without(set: u32, lost: u32) -> u32 {
    let ports = plain(set);
    let gone = lost_ports(lost);
    let rest = match ports & !gone {
        r if gained(set) != 0 && ports & gone != 0 => r | gained(set),
        r => r,
    };
    match rest {
        0 => ports,
        rest => rest,
    }
}

/// Wide vector work taking a port from narrower vector work: on Intel's
/// server cores a 512-bit form in flight turns off port 1's vector units,
/// so beside it a 256-bit form on ports 0, 1 and 5 has only 0 and 5. Some
/// narrower forms take another port instead: on the Sapphire Rapids guest
/// two 256-bit `vpmulhrsw` (ports 0 and 1) beside a `vinsertf32x8` (port
/// 5) ran in 1.5 cycles, two `vpminub` in 2.0: a multiply also issues to
/// port 5's 512-bit FMA unit. The fit tries every port (and none), then
/// lets each narrower form take a port of its own in its stead (its set
/// marked [`MOVES`]), and keeps each only where it predicts the mixes
/// better by [`GAIN`] ([`Conflicts::fit`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideMode {
    /// The port narrower vector work loses.
    pub port: u32,
    /// Vector work from this width on is wide: the widest of the forms.
    pub bits: u32,
    /// Whether narrower forms may take another port instead of the lost
    /// one, each its own ([`MOVES`], [`Mapping::moves`]).
    pub moves: bool,
}

impl WideMode {
    /// The ports a form on vector registers of `mine` bits loses in a mix
    /// with forms of `others` ([`Single::vector`]).
    pub fn lost(&self, mine: Option<u32>, others: impl IntoIterator<Item = Option<u32>>) -> u32 {
        let narrow = mine.is_some_and(|b| b < self.bits);
        let wide = |b: Option<u32>| b.is_some_and(|b| b >= self.bits);
        if narrow && others.into_iter().any(wide) {
            (1 << self.port) | u32::from(self.moves) << GAINED
        } else {
            0
        }
    }
}

/// The sets a form of `width` out of `ports` ports may take, given the
/// lost-port masks ([`WideMode::lost`]) of its mixes, its own and its
/// partner's in each: [`port_sets`], without those holding a port a
/// partner loses beside it (wide work does not use the port it takes
/// from narrower work: Intel's 512-bit micro-ops run on ports 0 and 5),
/// then, where it may take another port in some mix, each marked
/// [`MOVES`] with each port it lacks (for a set that loses one). A form
/// that `may_hold` its ports two cycles also takes the sets of twice its
/// width marked [`HELD`].
fn candidate_sets(
    width: u32,
    ports: u32,
    may_hold: bool,
    lost: impl Iterator<Item = (u32, u32)>,
) -> Vec<u32> {
    let (mut gains, mut barred, mut losing) = (false, 0, 0);
    for (mine, partner) in lost {
        gains |= mine >> GAINED != 0;
        losing |= lost_ports(mine);
        if mine == 0 {
            barred |= lost_ports(partner);
        }
    }
    let unbarred = |width: u32| {
        let mut sets = port_sets(width, ports);
        if sets.iter().any(|s| s & barred == 0) {
            sets.retain(|s| s & barred == 0);
        }
        sets
    };
    let mut sets = unbarred(width);
    if may_hold && 2 * width <= ports {
        sets.extend(unbarred(2 * width).into_iter().map(|s| s | HELD));
    }
    // A set that loses a port may take any one port it lacks instead.
    let moved: Vec<u32> = match gains {
        true => sets
            .iter()
            .filter(|&&s| plain(s) & losing != 0)
            .flat_map(|&s| {
                (0..ports)
                    .filter(move |&g| (plain(s) | losing) & (1 << g) == 0)
                    .map(move |g| s | 1 << (GAIN_SHIFT + g))
            })
            .collect(),
        false => Vec::new(),
    };
    sets.into_iter().chain(moved).collect()
}

/// Masks of `width` ports out of `ports` (all of them, in increasing
/// order).
fn port_sets(width: u32, ports: u32) -> Vec<u32> {
    (0u32..(1 << ports))
        .filter(|m| m.count_ones() == width)
        .collect()
}

/// The squared relative error of the mixes `involving` (indices into
/// `mixes`) under `sets`.
fn pair_error(sets: &[u32], mixes: &[Mix], involving: &[usize]) -> f64 {
    involving
        .iter()
        .map(|&p| {
            let m = &mixes[p];
            let e = (m.predicted(sets) - m.cycles) / m.cycles;
            e * e
        })
        .sum()
}

/// What the fit adds to a form's squared error for each other form whose
/// set its own crosses (they share ports, and each has one the other
/// lacks): a tie-break, far below what one mix's noise weighs. Mixes do
/// not always tell sharing from an issue width: on the Zen 3 guest an
/// integer add and a vector add ran 6 a cycle together, which four
/// integer and four vector pipes at an issue width of 6 explain as well
/// as 6 pipes two of which both use. The cores we know nest their sets
/// or keep them apart (Intel's vector ports 0, 1 and 5 among its ALU
/// ports, AMD's integer and floating-point pipes), so the fit prefers
/// that.
const CROSSING: f64 = 1e-5;

/// [`CROSSING`] for each form whose set crosses form k's in `sets`.
fn crossings(k: usize, sets: &[u32]) -> f64 {
    let mine = plain(sets[k]);
    let crossed = sets
        .iter()
        .map(|&s| plain(s))
        .enumerate()
        .filter(|&(j, s)| j != k && s & mine != 0 && s & mine != s && s & mine != mine)
        .count();
    CROSSING * crossed as f64
}

/// What a form's set marked [`HELD`] must gain over the others in its
/// mixes' summed squared relative errors to be taken: one mix 10% off.
/// A held micro-op is the rarer kind, and alone it runs as one a cycle on
/// half the ports does; only mixes tell them apart, and noise in one
/// should not.
pub(crate) const HOLDING: f64 = 0.01;

/// What `set`'s marks cost a fit or a placing over the same set
/// unmarked: [`HOLDING`] where it is marked [`HELD`], and [`MOVING`]
/// where it is marked [`MOVES`].
pub(crate) fn mark_cost(set: u32) -> f64 {
    let held = if set & HELD != 0 { HOLDING } else { 0.0 };
    let moves = if set & MOVES != 0 { MOVING } else { 0.0 };
    held + moves
}

/// What a form's set marked [`MOVES`] must gain over the same set
/// unmarked in its mixes' summed squared relative errors: one mix 5%
/// off. The mixes that tell where an FMA goes beside 512-bit work are
/// 50-100% apart; noise in one should not move a form.
pub(crate) const MOVING: f64 = 0.0025;

/// How many starts [`fit_ports`] descends from, for each port. The
/// descent ends in a local best: on the Zen 4 guest, 40 seed forms on 8
/// ports fitted 6.1-6.2% root mean square from 8 starts and 5.5% from 16
/// or more (7 ports: 6.3-6.4%, and 6.2% from 16), so that the 7-port fit
/// looked as good and was kept in two of four full runs; from 12 starts
/// one run's leaving-out took another path. 32 starts for 8 ports cost
/// about a third more analysis time (50 s to 75 s for a replay).
const STARTS_PER_PORT: u32 = 4;

/// The port sets of single-micro-op forms that fit their pairs best:
/// form k issues to `widths[k].0` of `ports` ports, or holds twice as
/// many two cycles each ([`HELD`]) where `widths[k].1`; `pairs` are the mixes
/// measured ([`Mix`]). Coordinate descent (each form in turn takes the set
/// that fits its pairs best, [`crossings`] breaking ties, until none
/// moves) from [`STARTS_PER_PORT`] starts a port, each giving form k its
/// ports rotated by a different step; the best fit and its summed squared
/// relative error (without the tie-break). Ports are numbered, not named: any
/// renumbering fits as well. A form that gains a port in some mix where
/// it loses one ([`WideMode::moves`]) may also take each set marked
/// [`MOVES`].
pub fn fit_ports(widths: &[(u32, bool)], pairs: &[Mix], ports: u32) -> (Vec<u32>, f64) {
    let n = widths.len();
    let involving: Vec<Vec<usize>> = (0..n)
        .map(|k| {
            (0..pairs.len())
                .filter(|&p| pairs[p].a.0 == k || pairs[p].b.0 == k)
                .collect()
        })
        .collect();
    let candidates: Vec<Vec<u32>> = (0..n)
        .map(|k| {
            let lost = involving[k].iter().map(|&p| pairs[p].lost_by(k));
            candidate_sets(widths[k].0, ports, widths[k].1, lost)
        })
        .collect();
    let all: Vec<usize> = (0..pairs.len()).collect();
    let rotate = |mask: u32, by: u32| {
        let full = (1u32 << ports) - 1;
        ((mask << by) | (mask >> (ports - by))) & full
    };
    let mut best: (Vec<u32>, f64) = (Vec::new(), f64::INFINITY);
    // The first `ports` starts rotate form k by k times the start; the
    // rest by a fixed pseudo-random step each.
    let mut next = sequence(u64::from(ports));
    for start in 0..ports * STARTS_PER_PORT {
        let mut sets: Vec<u32> = (0..n)
            .map(|k| {
                let by = if start < ports {
                    (k as u32 * start) % ports
                } else {
                    next(ports as usize) as u32
                };
                rotate((1u32 << widths[k].0) - 1, by)
            })
            .zip(&candidates)
            .map(|(s, c)| if c.contains(&s) { s } else { c[0] })
            .collect();
        loop {
            let mut moved = false;
            for k in 0..n {
                let score = |sets: &[u32]| {
                    pair_error(sets, pairs, &involving[k]) + crossings(k, sets) + mark_cost(sets[k])
                };
                let mut here = (sets[k], score(&sets));
                for &c in &candidates[k] {
                    sets[k] = c;
                    let e = score(&sets);
                    if e < here.1 - 1e-12 {
                        here = (c, e);
                        moved = true;
                    }
                }
                sets[k] = here.0;
            }
            if !moved {
                break;
            }
        }
        let e = pair_error(&sets, pairs, &all);
        if e < best.1 {
            best = (sets, e);
        }
    }
    best
}

/// A port mapping fitted to the pairs of single-micro-op forms
/// ([`fit_ports`]).
#[derive(Clone, Debug)]
pub struct Mapping {
    /// Ports in the model.
    pub ports: u32,
    /// Each mapped form (index into the singles) and its port set.
    pub sets: Vec<(usize, u32)>,
    /// Each pair used (index into the pairs), measured and predicted
    /// cycles per unit of its mix.
    pub residuals: Vec<(usize, f64, f64)>,
    /// The port wide vector work takes from narrower, if the fit found
    /// one, and the root mean square error of the fitted pairs without it
    /// and with it.
    pub wide: Option<(WideMode, f64, f64)>,
    /// The most micro-ops the core issues a cycle, whatever their ports,
    /// if the fit found that bound (a mix of forms on disjoint ports that
    /// runs slower than either alone: Zen 3's four integer and four
    /// floating-point pipes are fed by a dispatch of six), and the root
    /// mean square error of the fitted pairs without it and with it.
    pub issue: Option<(u32, f64, f64)>,
    /// Each single's vector width ([`Single::vector`]), by its index.
    pub vector: Vec<Option<u32>>,
    /// The forms of one micro-op (indices into the singles) that take
    /// another port for the one they lose beside wide work
    /// ([`WideMode::moves`]), each with the ports it takes (a mask).
    pub moves: Vec<(usize, u32)>,
    /// The forms of one micro-op (indices into the singles) that hold the
    /// port they issue to two cycles ([`HELD`]).
    pub held: Vec<usize>,
    /// Forms of more than one micro-op, placed against the probes after
    /// the fit ([`classes::place_uops`]): each (index into the singles)
    /// with the set of each of its micro-ops.
    pub multi: Vec<(usize, Vec<u32>)>,
    /// The read port forms that read three vector registers take beside
    /// their ports, if the mixes of such forms found it ([`sources`]), and
    /// the root mean square error of those mixes without it and with it.
    pub reads: Option<(sources::Reads, f64, f64)>,
    /// The share of a copy each port of a set keeps whatever the mix,
    /// where the mixes of sets sharing ports found one ([`spread`]), and
    /// the root mean square error of those mixes without it and with it.
    pub spread: Option<(spread::Spread, f64, f64)>,
}

impl Mapping {
    /// The cycles per unit of a mix of `parts` (each form, an index into
    /// the singles, and its copies per unit) under this mapping: their
    /// [`bottleneck`], never below `floor` nor below what the read port
    /// allows ([`Mapping::reads`]); `None` when a form is not mapped.
    pub fn predict(&self, parts: &[(usize, usize)], floor: f64) -> Option<f64> {
        Some(
            self.predict_ports(parts, floor)?
                .max(self.reads_bound(parts)),
        )
    }

    /// The cycles per unit the read port allows a mix of `parts` (each
    /// form and its copies per unit) at best; 0 without it.
    pub fn reads_bound(&self, parts: &[(usize, usize)]) -> f64 {
        self.reads.as_ref().map_or(0.0, |(r, ..)| r.bound(parts))
    }

    /// [`Mapping::predict`] by the ports alone (each set keeping its
    /// share on each port, [`Mapping::spread`]).
    pub fn predict_ports(&self, parts: &[(usize, usize)], floor: f64) -> Option<f64> {
        self.predict_spread(parts, floor, &|k| self.shares(k))
    }

    /// [`Mapping::predict_ports`] with each form `k`'s micro-ops keeping
    /// `shares(k)` of a copy on the ports of its set.
    pub fn predict_spread(
        &self,
        parts: &[(usize, usize)],
        floor: f64,
        shares: &dyn Fn(usize) -> Shares,
    ) -> Option<f64> {
        let mut uops: Vec<(u32, f64, Shares)> = Vec::new();
        for &(k, r) in parts {
            let others = parts.iter().filter(|o| o.0 != k).map(|o| o.0);
            let lost = self.lost(k, others);
            for set in self.uops_of(k)?.into_iter().map(|s| s | self.mark(k)) {
                uops.push((without(set, lost), r as f64 * hold(set), shares(k)));
            }
        }
        let issued: f64 = parts
            .iter()
            .map(|&(k, r)| (r * self.uops_of(k).map_or(1, |u| u.len())) as f64)
            .sum();
        Some(
            spread_bottleneck(&uops)
                .max(issued / self.issue_width())
                .max(floor),
        )
    }

    /// The shares of a copy form `k` keeps on the ports of its set
    /// ([`Mapping::spread`]); none for a form of several micro-ops or a
    /// set without them.
    pub fn shares(&self, k: usize) -> Shares {
        match (&self.spread, self.marked_set_of(k)) {
            (Some((s, ..)), Some(set)) => s.shares(set),
            _ => Shares::default(),
        }
    }

    /// The micro-ops the core issues a cycle in this model
    /// ([`Mapping::issue`]), `f64::INFINITY` without that bound.
    pub fn issue_width(&self) -> f64 {
        width_of(self.issue)
    }

    /// The report's line on the issue width the fit found
    /// ([`Mapping::issue`]), empty without one.
    pub fn issue_line(&self) -> String {
        match self.issue {
            Some((w, plain, with)) => format!(
                "the core issues at most {w} of these micro-ops a cycle, whatever their ports: \
                 with that the fit's root mean square error is {:.1}%, without {:.1}%\n",
                100.0 * with,
                100.0 * plain
            ),
            None => String::new(),
        }
    }

    /// The report's line on the wide mode the fit found ([`WideMode`]),
    /// empty without one.
    pub fn wide_line(&self) -> String {
        match self.wide {
            Some((w, plain, with)) => format!(
                "beside {}-bit vector forms, narrower vector forms lose port {}{}: with that the \
                 fit's root mean square error is {:.1}%, without {:.1}%\n",
                w.bits,
                w.port,
                match self.moves.len() {
                    0 => String::new(),
                    n => format!(
                        ", and {n} of them take another port instead (marked *, then the port)"
                    ),
                },
                100.0 * with,
                100.0 * plain
            ),
            None => String::new(),
        }
    }

    /// The report's line on the forms that hold their port two cycles
    /// ([`Mapping::held`]), empty without any.
    pub fn held_line(&self) -> String {
        match self.held.len() {
            0 => String::new(),
            n => format!(
                "{n} forms (marked (x2)) hold the port each micro-op issues to two cycles: alone \
                 at 2/N cycles on N ports, beside other work on them twice its time (a vector \
                 unit narrower than the form, as 512-bit work on 256-bit pipes)\n"
            ),
        }
    }

    /// The ports single `k` loses in a mix with the singles `others`
    /// ([`WideMode`]); 0 without a wide mode.
    pub fn lost(&self, k: usize, others: impl IntoIterator<Item = usize>) -> u32 {
        match self.wide {
            Some((w, ..)) => w.lost(self.bits(k), others.into_iter().map(|o| self.bits(o))),
            None => 0,
        }
    }

    /// The vector width of single `k` ([`Single::vector`]).
    pub fn bits(&self, k: usize) -> Option<u32> {
        self.vector.get(k).copied().flatten()
    }

    /// The root mean square of the pairs' relative errors.
    pub fn rms(&self) -> f64 {
        rms(&self.residuals)
    }

    /// The root mean square of the relative errors of the mixes (`pairs`
    /// indexed by [`Mapping::residuals`]) form `k` is in.
    pub fn error_of(&self, k: usize, pairs: &[Pair]) -> f64 {
        rms(self
            .residuals
            .iter()
            .filter(|(p, _, _)| pairs[*p].a == k || pairs[*p].b == k))
    }

    /// The port set of form `k` (index into the singles), if mapped as
    /// one micro-op.
    pub fn set_of(&self, k: usize) -> Option<u32> {
        self.sets.iter().find(|s| s.0 == k).map(|s| s.1)
    }

    /// [`Mapping::set_of`], marked [`MOVES`] where the form moves and
    /// [`HELD`] where it holds its port, as a [`Mix`] predicts with it.
    pub fn marked_set_of(&self, k: usize) -> Option<u32> {
        Some(self.set_of(k)? | self.mark(k))
    }

    /// The marks of form `k`'s set: [`MOVES`] where it moves
    /// ([`Mapping::moves`]), [`HELD`] where it holds its port
    /// ([`Mapping::held`]).
    fn mark(&self, k: usize) -> u32 {
        let moves = self.gained_by(k).map_or(0, |g| g << GAIN_SHIFT);
        let held = if self.held.contains(&k) { HELD } else { 0 };
        moves | held
    }

    /// The cycles form `k`'s micro-ops hold each port they issue to.
    pub fn hold(&self, k: usize) -> f64 {
        hold(self.mark(k))
    }

    /// Whether form `k` may hold its port two cycles ([`HELD`]): a vector
    /// form at least as wide as the widest the fit mapped.
    pub fn may_hold(&self, k: usize) -> bool {
        let widest = self.sets.iter().filter_map(|s| self.bits(s.0)).max();
        widest.is_some_and(|w| self.bits(k).is_some_and(|b| b >= w))
    }

    /// The ports form `k` takes for the one it loses beside wide work (a
    /// mask), where it moves ([`Mapping::moves`]).
    pub fn gained_by(&self, k: usize) -> Option<u32> {
        self.moves.iter().find(|m| m.0 == k).map(|m| m.1)
    }

    /// Maps form `k` (index into the singles) as one micro-op on `set`, a
    /// set of a fit or a placing that may be marked [`MOVES`] and
    /// [`HELD`].
    pub fn add(&mut self, k: usize, set: u32) {
        self.sets.push((k, plain(set)));
        if set & MOVES != 0 {
            self.moves.push((k, gained(set)));
        }
        if set & HELD != 0 {
            self.held.push(k);
        }
    }

    /// The port set of each micro-op of form `k` (index into the
    /// singles), if mapped.
    pub fn uops_of(&self, k: usize) -> Option<Vec<u32>> {
        self.set_of(k)
            .map(|s| vec![s])
            .or_else(|| self.multi.iter().find(|m| m.0 == k).map(|m| m.1.clone()))
    }

    /// Every mapped form (index into the singles): those of one
    /// micro-op, then those of more.
    pub fn forms(&self) -> Vec<usize> {
        self.sets
            .iter()
            .map(|s| s.0)
            .chain(self.multi.iter().map(|m| m.0))
            .collect()
    }
}

/// The root mean square of the relative errors of `rows` (each a mix,
/// its measured and its predicted cycles); 0 without rows.
pub(crate) fn rms<'a>(rows: impl IntoIterator<Item = &'a (usize, f64, f64)>) -> f64 {
    let (sum, n) = rows.into_iter().fold((0.0, 0usize), |(s, n), (_, m, p)| {
        (s + ((p - m) / m).powi(2), n + 1)
    });
    (sum / n.max(1) as f64).sqrt()
}

/// How a fitted mapping agrees with a reference model's ports (OSACA's
/// machine file): a form agrees when the reference has it as one
/// micro-op on a set of ports and the fit's set, its ports renamed, is
/// that set. The renaming (each of winic's numbered ports to a distinct
/// reference port, or to none) is the one under which most forms agree.
#[derive(Clone, Debug)]
pub struct Agreement {
    /// Each compared form (index into the singles), its ports renamed,
    /// the reference's, and whether they are the same.
    pub rows: Vec<(usize, Vec<String>, Vec<String>, bool)>,
    /// The renaming: winic's port k is `renaming[k]` (`None`: no
    /// reference port).
    pub renaming: Vec<Option<String>>,
}

impl Agreement {
    /// Forms compared and forms that agree.
    pub fn counts(&self) -> (usize, usize) {
        (self.rows.len(), self.rows.iter().filter(|r| r.3).count())
    }
}

impl Mapping {
    /// The agreement with `reference`, each single's port names where the
    /// reference has it as one micro-op (indexed as the singles); `None`
    /// when no mapped form has one.
    pub fn agreement(&self, reference: &[Option<Vec<String>>]) -> Option<Agreement> {
        let compared: Vec<(usize, u32, Vec<String>)> = self
            .sets
            .iter()
            .filter_map(|&(k, mask)| {
                let mut names = reference.get(k)?.clone()?;
                names.sort_by(port_order);
                names.dedup();
                Some((k, mask, names))
            })
            .collect();
        if compared.is_empty() {
            return None;
        }
        let mut names: Vec<String> = compared.iter().flat_map(|c| c.2.clone()).collect();
        names.sort();
        names.dedup();
        // Each reference form as a mask over `names`.
        let want: Vec<u32> = compared
            .iter()
            .map(|c| {
                c.2.iter()
                    .map(|n| 1u32 << names.iter().position(|m| m == n).unwrap())
                    .fold(0, |m, b| m | b)
            })
            .collect();
        // For each of winic's ports, the reference names by how many
        // compared forms have both, the most first.
        let order: Vec<Vec<usize>> = (0..self.ports)
            .map(|p| {
                let both = |n: usize| {
                    compared
                        .iter()
                        .zip(&want)
                        .filter(|(c, w)| c.1 & (1 << p) != 0 && *w & (1 << n) != 0)
                        .count()
                };
                let mut v: Vec<usize> = (0..names.len()).collect();
                v.sort_by_key(|&n| std::cmp::Reverse(both(n)));
                v
            })
            .collect();
        let mut best: (usize, Vec<Option<usize>>) = (0, vec![None; self.ports as usize]);
        rename(&compared, &want, &order, &mut Vec::new(), &mut best);
        let renamed = |mask: u32| -> Vec<String> {
            let mut v: Vec<String> = (0..self.ports as usize)
                .filter(|p| mask & (1 << p) != 0)
                .map(|p| match best.1[p] {
                    Some(n) => names[n].clone(),
                    None => format!("?{p}"),
                })
                .collect();
            v.sort_by(port_order);
            v
        };
        let rows = compared
            .iter()
            .map(|(k, mask, reference)| {
                let ours = renamed(*mask);
                let same = ours == *reference;
                (*k, ours, reference.clone(), same)
            })
            .collect();
        let renaming = best.1.iter().map(|n| n.map(|n| names[n].clone())).collect();
        Some(Agreement { rows, renaming })
    }
}

/// Port names in OSACA's order: `5` before `10`.
fn port_order(a: &String, b: &String) -> std::cmp::Ordering {
    (a.len(), a).cmp(&(b.len(), b))
}

/// The renaming of winic's `ports` ports to distinct ones of `names`
/// reference ports (or none) under which most `compared` forms (their
/// winic mask, and `want`: their reference mask) agree: every renaming,
/// port by port, leaving a branch as soon as the forms it has decided
/// and those it has not could no longer beat the best; `now` is the
/// renaming so far, `best` the most agreeing and its renaming.
///
/// A form can still agree only while every port of it renamed so far is
/// renamed to one of its reference ports, and it has as many ports as
/// the reference gives it: the rest are out of the bound. Each port
/// tries first the names most forms on it have (`order`), so that a good
/// renaming is found early and bounds the rest: with LLVM's Zen 3 model
/// (about a dozen names over 954 forms) the search took minutes without
/// both.
fn rename(
    compared: &[(usize, u32, Vec<String>)],
    want: &[u32],
    order: &[Vec<usize>],
    now: &mut Vec<Option<usize>>,
    best: &mut (usize, Vec<Option<usize>>),
) {
    let decided = (1u32 << now.len()) - 1;
    let (mut agree, mut open) = (0, 0);
    for ((_, mask, _), want) in compared.iter().zip(want) {
        if mask.count_ones() != want.count_ones() {
            continue;
        }
        let possible = now
            .iter()
            .enumerate()
            .all(|(p, n)| mask & (1 << p) == 0 || n.is_some_and(|n| want & (1 << n) != 0));
        match (possible, mask & !decided != 0) {
            (false, _) => {}
            (true, true) => open += 1,
            // Every port renamed into the reference set, as many: equal.
            (true, false) => agree += 1,
        }
    }
    if agree + open <= best.0 {
        return;
    }
    if now.len() == order.len() {
        *best = (agree, now.clone());
        return;
    }
    for n in order[now.len()].iter().copied().map(Some).chain([None]) {
        if n.is_some() && now.contains(&n) {
            continue;
        }
        now.push(n);
        rename(compared, want, order, now, best);
        now.pop();
    }
}

/// The micro-ops a cycle of an issue width found by a fit
/// ([`Mapping::issue`]), `f64::INFINITY` without one.
fn width_of(issue: Option<(u32, f64, f64)>) -> f64 {
    issue.map_or(f64::INFINITY, |i| f64::from(i.0))
}

/// One fit of [`Conflicts::fit`] at one port count.
struct Fit {
    ports: u32,
    sets: Vec<u32>,
    /// Root mean square of the mixes' relative errors.
    rms: f64,
    /// [`Mapping::wide`].
    wide: Option<(WideMode, f64, f64)>,
    /// [`Mapping::issue`].
    issue: Option<(u32, f64, f64)>,
}

/// The mixes a port mapping is fitted to ([`Conflicts::fit_leaving_out`]),
/// each with the pair it was measured as.
struct FitMixes<'a> {
    conflicts: &'a Conflicts,
    pairs: Vec<(usize, Mix)>,
}

impl FitMixes<'_> {
    /// The mixes as a wide mode and an issue width see them: which ports
    /// each part loses, and the micro-ops a cycle.
    fn seen(&self, mode: Option<WideMode>, issue: f64) -> Vec<Mix> {
        let vector = |k: usize| self.conflicts.singles[k].vector;
        self.pairs
            .iter()
            .map(|(p, m)| {
                let (a, b) = (self.conflicts.pairs[*p].a, self.conflicts.pairs[*p].b);
                let lost = match mode {
                    Some(w) => (
                        w.lost(vector(a), [vector(b)]),
                        w.lost(vector(b), [vector(a)]),
                    ),
                    None => (0, 0),
                };
                Mix { lost, issue, ..*m }
            })
            .collect()
    }

    /// The root mean square relative error of a fit's summed squares.
    fn rms_of(&self, e: f64) -> f64 {
        (e / self.pairs.len() as f64).sqrt()
    }

    /// The sets on `p` ports that fit the mixes best (`widths`: each
    /// form's port count): without an issue width, and with the best
    /// width where that is at least [`GAIN`] better; then likewise a wide
    /// mode (vector work of `bits` and more) on top. Issue widths are
    /// tried from 2: the mixes decide, not the fastest one seen. On the
    /// Zen 3 guest most mixes of integer and vector forms issued 6
    /// micro-ops a cycle, a few 6.7 (as a block of no-ops does), and a
    /// width of 7 fits worse than 6. A full point missed the wide mode in
    /// the seed of a full x86 run on the Xeon guest: 11.4% to 10.8% over
    /// 716 mixes, few of them narrow vector work beside 512-bit work.
    fn fit(&self, widths: &[(u32, bool)], p: u32, bits: Option<u32>) -> Fit {
        let (sets, e) = fit_ports(widths, &self.seen(None, f64::INFINITY), p);
        let plain = self.rms_of(e);
        let issued = (2..p)
            .map(|w| {
                let (sets, e) = fit_ports(widths, &self.seen(None, f64::from(w)), p);
                (sets, self.rms_of(e), w)
            })
            .min_by(|x, y| x.1.total_cmp(&y.1));
        let (sets, rms, issue) = match issued {
            Some((sets, e, w)) if e < plain - GAIN => (sets, e, Some((w, plain, e))),
            _ => (sets, plain, None),
        };
        let mut fit = Fit {
            ports: p,
            sets,
            rms,
            wide: None,
            issue,
        };
        let issue = width_of(fit.issue);
        let wide_and_narrow = |w: WideMode| {
            self.seen(Some(w), f64::INFINITY)
                .iter()
                .any(|m| m.lost != (0, 0))
        };
        let moded = (0..p)
            .filter_map(|port| {
                Some(WideMode {
                    port,
                    bits: bits?,
                    moves: false,
                })
            })
            .filter(|&w| wide_and_narrow(w))
            .map(|w| {
                let (sets, e) = fit_ports(widths, &self.seen(Some(w), issue), p);
                (sets, self.rms_of(e), w)
            })
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((sets, e, w)) = moded.filter(|m| m.1 < fit.rms - GAIN) {
            fit.wide = Some((w, fit.rms, e));
            (fit.sets, fit.rms) = (sets, e);
            // Then narrower forms that take another port instead, each
            // its own.
            let w = WideMode { moves: true, ..w };
            let (sets, e) = fit_ports(widths, &self.seen(Some(w), issue), p);
            let e = self.rms_of(e);
            if e < fit.rms - GAIN {
                fit.wide = Some((w, fit.wide.map_or(e, |x| x.1), e));
                (fit.sets, fit.rms) = (sets, e);
            }
        }
        fit
    }
}

/// How much lower (root mean square, relative) a fit's error must be with
/// a [`WideMode`] or an issue width than without for it to be kept.
const GAIN: f64 = 0.005;

/// How much lower (root mean square, relative) the error of a trial's
/// mixes after the fit must be with what it fits (the read port, the
/// spreads) than without for it to be kept.
const TRIAL_GAIN: f64 = 0.02;

/// How much worse (relative to the best, [`Conflicts::fit`]) a fit with
/// fewer ports may be and still be the one kept. On the Zen 4 guest
/// (four integer and four vector pipes) 15 recorded full runs' seeds
/// fitted 8 ports 4.5-12.6% better than 7 after the leaving-out, 13 of
/// them by 9% or more; the one at 4.5%, a noisy run, took 7 at 5% and
/// put an integer ALU and a vector pipe on one port (agreement with
/// OSACA's `zen4.yml` 79%, against 88% with 8). Zen 3 fitted 8 ports
/// 25% better than 7; the Xeon recordings fit 6, 7 and 8 alike.
const NEAR: f64 = 0.03;

/// The most ports a mapping has: the subsets of 8 ports are few enough
/// to try for every form.
const MAX_PORTS: u32 = 8;

impl Conflicts {
    /// The port mapping of the single-micro-op forms (time alone 1/N
    /// cycles, [`single_uop_ports`]) with at least one measured pair
    /// among them: from as many ports as the widest form has up to
    /// [`MAX_PORTS`], the fewest whose error is within [`NEAR`] of the
    /// best. `None` with fewer than two such forms.
    fn fit(&self) -> Option<Mapping> {
        self.fit_leaving_out(&[])
    }

    /// [`Conflicts::fit`] without the forms `out` (indices into the
    /// singles) and their mixes.
    pub(crate) fn fit_leaving_out(&self, out: &[usize]) -> Option<Mapping> {
        let width = |k: usize| {
            if out.contains(&k) {
                return None;
            }
            single_uop_ports(*self.singles[k].cycles.as_ref().ok()?).filter(|&w| w <= MAX_PORTS)
        };
        // The measured mixes of two such forms, and the forms in them.
        let usable: Vec<(usize, &Pair)> = self
            .pairs
            .iter()
            .enumerate()
            .filter(|(_, x)| width(x.a).is_some() && width(x.b).is_some())
            .filter(|(_, x)| x.timed().is_some_and(|(_, c)| c > 0.0))
            .collect();
        let mut forms: Vec<(usize, u32)> = usable
            .iter()
            .flat_map(|(_, x)| [x.a, x.b])
            .filter_map(|k| Some((k, width(k)?)))
            .collect();
        forms.sort_unstable();
        forms.dedup();
        let at = |k: usize| forms.iter().position(|f| f.0 == k);
        let pairs: Vec<(usize, Mix)> = usable
            .iter()
            .filter_map(|&(p, x)| {
                let (floor, cycles) = x.timed()?;
                let mix = Mix {
                    a: (at(x.a)?, x.ratio.0),
                    b: (at(x.b)?, x.ratio.1),
                    floor,
                    cycles,
                    lost: (0, 0),
                    issue: f64::INFINITY,
                };
                Some((p, mix))
            })
            .collect();
        let widest = forms.iter().map(|f| f.1).max()?;
        if forms.len() < 2 || pairs.is_empty() {
            return None;
        }
        // A wide mode is tried where some mix has wide and narrower
        // vector work: the widest vector width of the forms is wide. Its
        // forms may hold their ports two cycles ([`HELD`]).
        let bits = forms.iter().filter_map(|f| self.singles[f.0].vector).max();
        let widths: Vec<(u32, bool)> = forms
            .iter()
            .map(|f| (f.1, bits.is_some() && self.singles[f.0].vector == bits))
            .collect();
        let mixes = FitMixes {
            conflicts: self,
            pairs,
        };
        let fits: Vec<Fit> = (widest..=MAX_PORTS)
            .map(|p| mixes.fit(&widths, p, bits))
            .collect();
        let best = fits.iter().map(|f| f.rms).fold(f64::INFINITY, f64::min);
        // Within 3% of the best error, not within a fixed point or two: on
        // the Zen 3 guest, 12 integer and vector forms fitted 7 ports at
        // 6.4% and 8 (Zen 3's four integer and four floating-point pipes)
        // at 4.5%, a full run's seed 7 at 5.9% and 8 at 5.0%.
        let fit = fits.into_iter().find(|f| f.rms <= best * (1.0 + NEAR))?;
        let issue = width_of(fit.issue);
        let residuals = mixes
            .pairs
            .iter()
            .zip(mixes.seen(fit.wide.map(|w| w.0), issue))
            .map(|((p, _), m)| (*p, m.cycles, m.predicted(&fit.sets)))
            .collect();
        let mut mapping = Mapping {
            ports: fit.ports,
            sets: Vec::new(),
            residuals,
            wide: fit.wide,
            issue: fit.issue,
            vector: self.singles.iter().map(|s| s.vector).collect(),
            multi: Vec::new(),
            reads: None,
            spread: None,
            moves: Vec::new(),
            held: Vec::new(),
        };
        for (f, set) in forms.iter().zip(fit.sets) {
            mapping.add(f.0, set);
        }
        Some(mapping)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::isa::Arch;

    /// The bottleneck of micro-ops on port sets: one port a cycle each,
    /// the busiest set deciding.
    #[test]
    fn bottleneck_is_the_busiest_set_of_ports() {
        // One micro-op on one port; on two ports; four on four.
        assert_eq!(bottleneck(&[(0b1, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b11, 1.0)]), 0.5);
        assert_eq!(bottleneck(&[(0b1111, 4.0)]), 1.0);
        // Two forms on the same two ports take the sum; on other ports
        // the slower's time.
        assert_eq!(bottleneck(&[(0b11, 1.0), (0b11, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b11, 1.0), (0b1100, 1.0)]), 0.5);
        // p0 only and p0/p1: the second moves to p1.
        assert_eq!(bottleneck(&[(0b01, 1.0), (0b11, 1.0)]), 1.0);
        assert_eq!(bottleneck(&[(0b01, 2.0), (0b11, 1.0)]), 2.0);
        // p0/p1 and p1/p2: three ports for two micro-ops.
        assert_eq!(bottleneck(&[(0b011, 1.0), (0b110, 1.0)]), 2.0 / 3.0);
        assert_eq!(bottleneck(&[]), 0.0);
    }

    /// The shared share: 0 at the slower form's time, 1 at the sum.
    #[test]
    fn shared_share_runs_from_the_slower_to_the_sum() {
        assert_eq!(shared_share(0.5, 0.5, 0.5), 0.0);
        assert_eq!(shared_share(0.5, 0.5, 1.0), 1.0);
        assert_eq!(shared_share(0.25, 1.0, 1.0), 0.0);
        assert!((shared_share(0.5, 0.5, 0.75) - 0.5).abs() < 1e-12);
        assert_eq!(shared_share(0.5, 0.5, 2.0), 1.0);
    }

    /// Single micro-op forms and the ports they share, as the bottleneck
    /// model gives the pair's time for every layout of up to 4 ports.
    #[test]
    fn shared_ports_invert_the_bottleneck() {
        for a in 1u32..16 {
            for b in 1u32..16 {
                let (pa, pb) = (a.count_ones(), b.count_ones());
                assert_eq!(single_uop_ports(1.0 / f64::from(pa)), Some(pa));
                let (ra, rb) = balance(1.0 / f64::from(pa), 1.0 / f64::from(pb));
                assert_eq!(ra * pb as usize, rb * pa as usize, "{pa}:{pb} balanced");
                let together = bottleneck(&[(a, ra as f64), (b, rb as f64)]);
                let alone = (ra as f64 / f64::from(pa)).max(rb as f64 / f64::from(pb));
                let shared = (a & b).count_ones();
                // A balanced mix shows every shared port.
                let got = shared_ports((pa, pb), (ra, rb), alone, together);
                assert_eq!(got.unwrap_or(0), shared, "{a:04b} {b:04b}: {together}");
                assert_eq!(got.is_some(), shared > 0, "{a:04b} {b:04b}: {together}");
            }
        }
        assert_eq!(single_uop_ports(0.7), None);
        assert_eq!(single_uop_ports(4.0), None);
        // A mix no faster than one form's copies alone (a chain) says
        // nothing.
        assert_eq!(shared_ports((2, 2), (1, 1), 1.0, 1.0), None);
    }

    /// Mixes take copies in the ratio of their times alone, at most 6 of
    /// one form, the fewest among equally balanced ones.
    #[test]
    fn balanced_mixes_take_equal_time_per_form() {
        assert_eq!(balance(0.2, 1.0), (5, 1));
        assert_eq!(balance(0.5, 0.2), (2, 5));
        assert_eq!(balance(1.0, 1.0), (1, 1));
        assert_eq!(balance(0.5, 0.5), (1, 1));
        assert_eq!(balance(1.0 / 3.0, 0.5), (3, 2));
        assert_eq!(balance(3.0, 1.0), (1, 3));
        assert_eq!(balance(40.0, 1.0), (1, 6));
    }

    /// The fit finds port sets that give every mix's time of a known
    /// layout (8 forms on 4 ports, from one port to all four), and the
    /// fewest ports that do: the measured times are the bottleneck's
    /// of that layout, so the best fit's error is 0.
    #[test]
    fn fitted_ports_reproduce_every_pair_of_a_known_layout() {
        let truth: [u32; 8] = [
            0b1111, 0b0010, 0b1001, 0b0101, 0b0100, 0b0011, 0b1000, 0b0110,
        ];
        let widths: Vec<u32> = truth.iter().map(|m| m.count_ones()).collect();
        let time = |k: usize| 1.0 / f64::from(widths[k]);
        let mut mixes = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let (ra, rb) = balance(time(a), time(b));
                mixes.push(Mix {
                    a: (a, ra),
                    b: (b, rb),
                    floor: (ra as f64 * time(a)).max(rb as f64 * time(b)),
                    cycles: bottleneck(&[(truth[a], ra as f64), (truth[b], rb as f64)]),
                    lost: (0, 0),
                    issue: f64::INFINITY,
                });
            }
        }
        let plain: Vec<(u32, bool)> = widths.iter().map(|&w| (w, false)).collect();
        let (sets, error) = fit_ports(&plain, &mixes, 4);
        assert!(error < 1e-12, "{sets:?}: {error}");
        for (k, set) in sets.iter().enumerate() {
            assert_eq!(set.count_ones(), widths[k]);
        }
        // The closed form is the bottleneck, floor aside.
        for a in 1u32..64 {
            for b in 1u32..64 {
                for (ra, rb) in [(1, 1), (5, 1), (2, 3)] {
                    let exact = bottleneck(&[(a, ra as f64), (b, rb as f64)]);
                    let mix = Mix {
                        a: (0, ra),
                        b: (1, rb),
                        floor: 0.0,
                        cycles: 1.0,
                        lost: (0, 0),
                        issue: f64::INFINITY,
                    };
                    let got = mix.predicted(&[a, b]);
                    assert!((got - exact).abs() < 1e-12, "{a:06b} {b:06b}");
                }
            }
        }
        // Three ports cannot hold a form of four.
        assert!(port_sets(4, 3).is_empty());
    }

    /// A made-up Zen 4: two 256-bit pipes for adds (0, 1), two for
    /// multiplies (2, 3), and 512-bit forms that hold one of a pair two
    /// cycles (alone 1 cycle, as one port would give). The fit finds the
    /// pairs and marks the 512-bit forms held, where one port each
    /// mispredicts their mixes with the narrower forms; without the
    /// choice it cannot fit them.
    #[test]
    fn the_fit_finds_wide_forms_that_hold_their_ports_two_cycles() {
        // (true set, held, may hold): a 512-bit add and multiply, their
        // 256-bit forms, and a scalar form on one add pipe.
        let truth: [(u32, bool, bool); 5] = [
            (0b0011, true, true),
            (0b1100, true, true),
            (0b0011, false, false),
            (0b1100, false, false),
            (0b0001, false, false),
        ];
        let weight = |k: usize| if truth[k].1 { 2.0 } else { 1.0 };
        let time = |k: usize| weight(k) / f64::from(truth[k].0.count_ones());
        let mut mixes = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let (ra, rb) = balance(time(a), time(b));
                let uops = [
                    (truth[a].0, ra as f64 * weight(a)),
                    (truth[b].0, rb as f64 * weight(b)),
                ];
                mixes.push(Mix {
                    a: (a, ra),
                    b: (b, rb),
                    floor: (ra as f64 * time(a)).max(rb as f64 * time(b)),
                    cycles: bottleneck(&uops),
                    lost: (0, 0),
                    issue: f64::INFINITY,
                });
            }
        }
        let width = |k: usize| single_uop_ports(time(k)).unwrap();
        let widths: Vec<(u32, bool)> = (0..truth.len()).map(|k| (width(k), truth[k].2)).collect();
        let (sets, error) = fit_ports(&widths, &mixes, 4);
        assert!(error < 1e-12, "{sets:?}: {error}");
        for (k, &set) in sets.iter().enumerate() {
            assert_eq!(set & HELD != 0, truth[k].1, "form {k}: {set:#x}");
            assert_eq!(plain(set).count_ones(), truth[k].0.count_ones(), "form {k}");
        }
        // The wide forms share their pairs with the narrow ones.
        assert_eq!(plain(sets[0]), sets[2]);
        assert_eq!(plain(sets[1]), sets[3]);
        // Without the choice no set fits them.
        let unheld: Vec<(u32, bool)> = widths.iter().map(|w| (w.0, false)).collect();
        let (_, error) = fit_ports(&unheld, &mixes, 4);
        assert!(error > 0.01, "{error}");
    }

    /// What `winic ports` finds on a made-up core: `forms` (LLVM name,
    /// port set, vector width) alone at 1/N cycles, and every pair in a
    /// balanced mix taking `cycles(a, ra, b, rb)` per unit.
    /// A made-up core with vector ports 0, 1 and 2 and a scalar-only
    /// port 3, and 256-bit and 512-bit forms on them (each form's name,
    /// ports and vector width).
    pub(super) const WIDE_CORE: [(&str, u32, Option<u32>); 8] = [
        ("VPADDDYrr", 0b0111, Some(256)),
        ("VPMULLDYrr", 0b0011, Some(256)),
        ("VPMINUBYrr", 0b0011, Some(256)),
        ("VPERMDYrr", 0b0100, Some(256)),
        ("VPADDDZrr", 0b0101, Some(512)),
        ("VPERMDZrr", 0b0100, Some(512)),
        ("ADD64rr", 0b1011, None),
        ("IMUL64rr", 0b0010, None),
    ];

    /// Beside wide work some narrow forms take another port for the one
    /// they lose (Sapphire Rapids: a 256-bit multiply on port 5's FMA
    /// unit), others do not: the fit finds that port and marks the forms
    /// that take it, and only those.
    #[test]
    fn the_fit_finds_the_narrow_forms_that_take_another_port() {
        // VPMULLDYrr moves.
        let forms = WIDE_CORE;
        let truth = WideMode {
            port: 1,
            bits: 512,
            moves: true,
        };
        let found = moved_core(&forms, truth, &[(1, 2)]);
        let m = found.fit().unwrap();
        assert!(m.rms() < 1e-9, "{m:?}");
        let (w, ..) = m.wide.unwrap();
        assert!(w.moves, "{m:?}");
        // Form 1 alone takes one port instead (ports are numbered by the
        // fit, not as the truth numbers them).
        let moved: Vec<(usize, u32)> = m.moves.iter().map(|x| (x.0, x.1.count_ones())).collect();
        assert_eq!(moved, [(1, 1)], "{m:?}");
        assert!(
            m.wide_line().contains("1 of them take another port"),
            "{}",
            m.wide_line()
        );
        // Two multiplies beside the 512-bit permute: 1.5 cycles, not 2.
        let got = m.predict(&[(1, 2), (5, 1)], 0.0).unwrap();
        assert!((got - 1.5).abs() < 1e-9, "{got}, {m:?}");
        let got = m.predict(&[(2, 2), (5, 1)], 0.0).unwrap();
        assert!((got - 2.0).abs() < 1e-9, "{got}, {m:?}");
    }

    /// Narrow forms that move take each its own port: on the Xeon guest
    /// 256-bit FMAs took port 5 beside 512-bit work, floating-point adds
    /// port 0. Here the multiply takes port 2, `vpminub` port 3; the fit
    /// finds both, each with one port, and not the same one.
    #[test]
    fn narrow_forms_that_move_take_each_its_own_port() {
        let forms = WIDE_CORE;
        let truth = WideMode {
            port: 1,
            bits: 512,
            moves: true,
        };
        let found = moved_core(&forms, truth, &[(1, 2), (2, 3)]);
        let m = found.fit().unwrap();
        assert!(m.rms() < 1e-9, "{m:?}");
        let mut moved = m.moves.clone();
        moved.sort_unstable();
        assert_eq!(moved.len(), 2, "{m:?}");
        assert_eq!((moved[0].0, moved[1].0), (1, 2), "{m:?}");
        assert!(moved.iter().all(|x| x.1.count_ones() == 1), "{m:?}");
        assert_ne!(moved[0].1, moved[1].1, "{m:?}");
        // Two of each beside the 512-bit permute: 1.5 and 1.0 cycles.
        let got = m.predict(&[(1, 2), (5, 1)], 0.0).unwrap();
        assert!((got - 1.5).abs() < 1e-9, "{got}, {m:?}");
        let got = m.predict(&[(2, 2), (5, 1)], 0.0).unwrap();
        assert!((got - 1.0).abs() < 1e-9, "{got}, {m:?}");
    }

    /// [`made_up`] with `truth`'s wide mode, each `(form, port)` of
    /// `moves` taking that port for the one it loses.
    fn moved_core(
        forms: &[(&str, u32, Option<u32>)],
        truth: WideMode,
        moves: &[(usize, u32)],
    ) -> Conflicts {
        let set = |k: usize| {
            let gain = moves.iter().find(|m| m.0 == k);
            forms[k].1 | gain.map_or(0, |m| 1 << (GAIN_SHIFT + m.1))
        };
        made_up(forms, |a, ra, b, rb| {
            bottleneck(&[
                (
                    without(set(a), truth.lost(forms[a].2, [forms[b].2])),
                    ra as f64,
                ),
                (
                    without(set(b), truth.lost(forms[b].2, [forms[a].2])),
                    rb as f64,
                ),
            ])
        })
    }

    /// [`made_up`] (each pair at 1 cycle) with `forms` mapped on 4 ports
    /// to their sets: a fitted core to try what follows the fit on.
    pub(super) fn mapped(forms: &[(&str, u32, Option<u32>)]) -> Conflicts {
        let mut found = made_up(forms, |_, _, _, _| 1.0);
        found.mapping = Some(Mapping {
            ports: 4,
            sets: forms.iter().enumerate().map(|(k, f)| (k, f.1)).collect(),
            residuals: Vec::new(),
            wide: None,
            issue: None,
            vector: forms.iter().map(|f| f.2).collect(),
            multi: Vec::new(),
            reads: None,
            spread: None,
            moves: Vec::new(),
            held: Vec::new(),
        });
        found
    }

    pub(super) fn made_up(
        forms: &[(&str, u32, Option<u32>)],
        cycles: impl Fn(usize, usize, usize, usize) -> f64,
    ) -> Conflicts {
        let isa = crate::isa::Isa::get(Arch::X86_64);
        let singles: Vec<Single> = forms
            .iter()
            .map(|&(n, set, vector)| Single {
                form: isa.instr(n).unwrap(),
                cycles: Ok(1.0 / f64::from(set.count_ones())),
                noisy: false,
                vector,
            })
            .collect();
        let mut pairs = Vec::new();
        for a in 0..forms.len() {
            for b in a + 1..forms.len() {
                let (ta, tb) = (time(&singles[a]), time(&singles[b]));
                let (ra, rb) = balance(ta, tb);
                let alone = |r: usize, t: f64| Ok(r as f64 * t);
                pairs.push(Pair {
                    a,
                    b,
                    ratio: (ra, rb),
                    units: 1,
                    cycles: Ok(cycles(a, ra, b, rb)),
                    alone: (alone(ra, ta), alone(rb, tb)),
                    noisy: false,
                });
            }
        }
        Conflicts {
            singles,
            pairs,
            mapping: None,
            held_back: Vec::new(),
            reads: Vec::new(),
            spreads: Vec::new(),
            classes: None,
        }
    }

    /// A mix's prediction for forms of several micro-ops is the general
    /// bottleneck: with one set each it is the closed form the fit uses,
    /// and a second micro-op on a shared port slows the mix.
    #[test]
    fn several_uops_predict_as_the_bottleneck() {
        let mix = Mix {
            a: (0, 2),
            b: (1, 1),
            floor: 0.3,
            cycles: 1.0,
            lost: (0, 0b100),
            issue: 4.0,
        };
        for a in 1u32..16 {
            for b in 1u32..16 {
                let (one, general) = (mix.predicted(&[a, b]), mix.predicted_uops(&[a], &[b]));
                assert!((one - general).abs() < 1e-12, "{a:04b} {b:04b}");
            }
        }
        // Two on port 0, one on port 0 and one on port 1: 3 on port 0.
        assert_eq!(mix.predicted_uops(&[0b01], &[0b01, 0b10]), 3.0);
        // The second form loses port 2 here: both its micro-ops on port 3.
        assert_eq!(mix.predicted_uops(&[0b11], &[0b1100, 0b1100]), 2.0);
        // Four micro-ops, on ports that take them in a cycle, at an issue
        // width of 2.
        let narrow = Mix {
            lost: (0, 0),
            issue: 2.0,
            ..mix
        };
        assert_eq!(narrow.predicted_uops(&[0b11], &[0b1100, 0b1100]), 2.0);
        assert_eq!(narrow.predicted_uops(&[0b11], &[0b1100]), 1.5);
    }

    /// A mapping with a form of two micro-ops predicts mixes with both,
    /// counts both against the issue width, draws held-back mixes from
    /// it, and writes a cycle on each set (two on one set they share).
    #[test]
    fn forms_of_two_uops_are_mapped_predicted_and_written() {
        let forms: [(&str, u32, Option<u32>); 3] = [
            ("ADD64rr", 0b0011, None),
            ("VPADDDYrr", 0b1100, None),
            ("PEXTRDrr", 0b0001, None),
        ];
        let mut found = made_up(&forms, |_, _, _, _| 1.0);
        found.mapping = Some(Mapping {
            ports: 4,
            sets: vec![(0, 0b0011), (1, 0b1100)],
            residuals: Vec::new(),
            wide: None,
            issue: Some((3, 0.0, 0.0)),
            vector: vec![None; 3],
            multi: vec![(2, vec![0b0001, 0b0100])],
            reads: None,
            spread: None,
            moves: Vec::new(),
            held: Vec::new(),
        });
        let m = found.mapping.as_ref().unwrap();
        assert_eq!(m.forms(), [0, 1, 2]);
        assert_eq!(m.uops_of(2), Some(vec![0b0001, 0b0100]));
        // Two adds and one pextrd: ports 0 and 1 take 3 micro-ops.
        assert_eq!(m.predict(&[(0, 2), (2, 1)], 0.0), Some(1.5));
        // One of each: 4 micro-ops at an issue width of 3.
        let four = m.predict(&[(0, 1), (1, 1), (2, 1)], 0.0).unwrap();
        assert!((four - 4.0 / 3.0).abs() < 1e-12, "{four}");
        let ports = found.inferred_ports();
        let pextrd = &ports.iter().find(|p| p.0.name() == "PEXTRDrr").unwrap().1;
        let uses: Vec<(f64, Vec<String>)> =
            pextrd.iter().map(|u| (u.cycles, u.ports.clone())).collect();
        assert_eq!(
            uses,
            [(1.0, vec!["0".to_string()]), (1.0, vec!["2".to_string()])]
        );
        found.mapping.as_mut().unwrap().multi[0].1 = vec![0b0100, 0b0100];
        let ports = found.inferred_ports();
        let pextrd = &ports.iter().find(|p| p.0.name() == "PEXTRDrr").unwrap().1;
        assert_eq!((pextrd.len(), pextrd[0].cycles), (1, 2.0));
    }

    /// Mixes made by a core whose 512-bit forms take port 1 from the
    /// narrower vector forms (Golden Cove's server parts): the fit finds
    /// that mode, which port, and every form's ports alone; without the
    /// effect in the mixes it finds none. Scalar forms keep their ports.
    #[test]
    fn the_fit_finds_the_port_wide_vector_work_takes() {
        // Ports 0, 1, 2 (vector) and 3 (scalar only).
        let forms: [(&str, u32, Option<u32>); 6] = [
            ("VPADDDYrr", 0b0111, Some(256)),
            ("VPMULLDYrr", 0b0011, Some(256)),
            ("VPERMDYrr", 0b0100, Some(256)),
            ("VPADDDZrr", 0b0101, Some(512)),
            ("ADD64rr", 0b1011, None),
            ("IMUL64rr", 0b0010, None),
        ];
        for effect in [true, false] {
            let truth = WideMode {
                port: 1,
                bits: 512,
                moves: false,
            };
            let lost = |x: usize, y: usize| match effect {
                true => truth.lost(forms[x].2, [forms[y].2]),
                false => 0,
            };
            let found = made_up(&forms, |a, ra, b, rb| {
                bottleneck(&[
                    (without(forms[a].1, lost(a, b)), ra as f64),
                    (without(forms[b].1, lost(b, a)), rb as f64),
                ])
            });
            let m = found.fit().unwrap();
            assert!(m.rms() < 1e-9, "effect {effect}: {m:?}");
            assert_eq!(m.ports, 4, "{m:?}");
            match (effect, m.wide) {
                (true, Some((w, plain, with))) => {
                    assert!(with < 1e-9 && plain > 0.01, "{m:?}");
                    assert_eq!(w.bits, 512);
                    // The lost port is the one IMUL64rr (port 1 alone) has.
                    assert_eq!(m.set_of(5), Some(1 << w.port), "{m:?}");
                    assert!(m.wide_line().contains("lose port"));
                }
                (false, None) => assert!(m.wide_line().is_empty()),
                _ => panic!("effect {effect}: {m:?}"),
            }
            // Each form's set alone is the truth's, ports renumbered.
            for (k, f) in forms.iter().enumerate() {
                assert_eq!(m.set_of(k).unwrap().count_ones(), f.1.count_ones());
            }
            // A held-back mix of three: two ymm adds beside a zmm one and
            // imul; with the mode the ymm adds have ports 0 and 2 only.
            let parts = [(0, 2), (3, 1), (5, 1)];
            let want = if effect { 1.5 } else { 4.0 / 3.0 };
            let got = m.predict(&parts, 0.0).unwrap();
            assert!((got - want).abs() < 1e-9, "effect {effect}: {got}, {m:?}");
        }
    }

    #[test]
    fn crossing_sets_are_counted_nested_and_apart_ones_not() {
        // {0,1} crosses {1,2}; it is inside {0,1,2,3}, apart from {3}.
        let sets = [0b0011, 0b0110, 0b1111, 0b1000];
        assert_eq!(crossings(0, &sets), CROSSING);
        assert_eq!(crossings(2, &sets), 0.0);
        assert_eq!(crossings(3, &sets), 0.0);
        assert_eq!(crossings(1, &sets), CROSSING);
    }

    /// Mixes made by a core of four integer and four floating-point ports
    /// that issues six micro-ops a cycle (Zen 3): an `add` beside a
    /// `vpaddd` shares no port, yet the pair issues 6 a cycle, not 8. The
    /// fit finds that width and keeps the two groups of ports apart; on
    /// mixes without the bound it finds none. Either way every form gets
    /// as many ports as the truth, and a mix of three is predicted.
    #[test]
    fn the_fit_finds_the_cores_issue_width() {
        let forms: [(&str, u32, Option<u32>); 7] = [
            ("ADD64rr", 0b0000_1111, None),
            ("IMUL64rr", 0b0000_0010, None),
            ("SHL64ri", 0b0000_1001, None),
            ("VPADDDYrr", 0b1111_0000, None),
            ("VADDPDYrr", 0b1100_0000, None),
            ("VMULPDYrr", 0b0011_0000, None),
            ("VPERMDYrr", 0b0010_0000, None),
        ];
        for issue in [6.0, f64::INFINITY] {
            let found = made_up(&forms, |a, ra, b, rb| {
                let ports = bottleneck(&[(forms[a].1, ra as f64), (forms[b].1, rb as f64)]);
                ports.max((ra + rb) as f64 / issue)
            });
            let m = found.fit().unwrap();
            assert!(m.rms() < 1e-9, "issue {issue}: {m:?}");
            match m.issue {
                Some((w, plain, with)) => {
                    assert_eq!(f64::from(w), issue, "{m:?}");
                    assert!(with < 1e-9 && plain > 0.01, "{m:?}");
                    assert_eq!(m.ports, 8, "{m:?}");
                    assert!(m.issue_line().contains("at most 6"));
                    // The integer and the vector forms share no port.
                    let int = (0..3).fold(0, |u, k| u | m.set_of(k).unwrap());
                    let fp = (3..7).fold(0, |u, k| u | m.set_of(k).unwrap());
                    assert_eq!(int & fp, 0, "{m:?}");
                }
                None => {
                    assert!(issue.is_infinite(), "{m:?}");
                    assert!(m.issue_line().is_empty());
                }
            }
            for (k, f) in forms.iter().enumerate() {
                assert_eq!(m.set_of(k).unwrap().count_ones(), f.1.count_ones());
            }
            // 4 adds, 4 vpaddds and an imul: 9 micro-ops, 1.5 cycles at 6
            // a cycle; on ports alone the adds and the imul take 1.25.
            let parts = [(0, 4), (3, 4), (1, 1)];
            let want = if issue.is_finite() { 1.5 } else { 1.25 };
            let got = m.predict(&parts, 0.0).unwrap();
            assert!((got - want).abs() < 1e-9, "issue {issue}: {got}, {m:?}");
        }
    }

    /// The agreement renames winic's numbered ports to the reference's
    /// names as best agrees: a fit that is the reference's layout
    /// renumbered agrees on every form, a form on other ports does not,
    /// and forms the reference lacks are not compared.
    #[test]
    fn agreement_renames_ports_as_best_agrees() {
        let names = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        // winic's ports 0-4 are the reference's 5, 0, 1, 10, 6.
        let m = Mapping {
            ports: 5,
            sets: vec![
                (0, 0b11111),
                (1, 0b00100),
                (2, 0b10010),
                (3, 0b00011),
                (4, 0b00001),
                (5, 0b01000),
            ],
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
        let reference = vec![
            names(&["0", "1", "5", "6", "10"]),
            names(&["1"]),
            names(&["6", "0"]),
            names(&["0", "5"]),
            names(&["1"]),
            None,
        ];
        let a = m.agreement(&reference).unwrap();
        assert_eq!(a.counts(), (5, 4), "{a:?}");
        let renaming: Vec<Option<&str>> = a.renaming.iter().map(|n| n.as_deref()).collect();
        assert_eq!(
            renaming,
            [Some("5"), Some("0"), Some("1"), Some("10"), Some("6")]
        );
        // The form on winic's port 0 (5) where the reference says 1.
        let differs: Vec<_> = a.rows.iter().filter(|r| !r.3).collect();
        assert_eq!(differs.len(), 1);
        assert_eq!(
            (differs[0].0, &differs[0].1[..]),
            (4, &["5".to_string()][..])
        );
        // Ports in OSACA's order: 5 before 10.
        assert_eq!(a.rows[0].1, ["0", "1", "5", "6", "10"]);
        assert!(m.agreement(&[None, None]).is_none());
    }
}
