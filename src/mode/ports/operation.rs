//! Whether a memory form does its register form's work: one mix of each
//! x86 load or store with its register form.
//!
//! The export composes a memory form from its access on winic's load or
//! store ports and its register form's micro-ops ([`super::memmix`]), or
//! the access alone where the register form is a copy or a blend the
//! memory form does not do (`crate::isa::Instr::does_operation_of`).
//! Names cannot say everything: LLVM's `znver4` gives `vbroadcastss ymm,
//! [m]` a vector micro-op beside the load and its `sapphirerapids` none.
//! So for every load into a register or store of one whose register form
//! the mapping places, this experiment runs the memory form beside
//! copies of its register form, in the ratio where the two compositions
//! differ most, and takes the one the measured cycles lie nearer to (by
//! ratio); where they differ by less than [`APART`] it decides nothing.
//! `winic ports -o` writes the outcome (`accessAlone`), and the export
//! and the memory mixes compose by it.

use super::memmix::{self, Accesses, Part};
use super::{measure_bodies, mix_result, queue_mix, Conflicts, Mapping};
use crate::arch::{Inst, Target};
use crate::exec::run::Options;
use crate::isa::{Arch, Instr};
use crate::mode::reason::Unmeasured;

/// The least ratio of the two compositions' predictions for a mix to
/// decide: the timing noise of a shared guest is 2-5%.
pub const APART: f64 = 1.25;

/// Most copies of either part per unit.
const MOST: usize = 4;

/// One memory form tested.
#[derive(Clone, Debug)]
pub struct Tested {
    /// The memory form and its register form (an index into the singles).
    pub form: Instr,
    register: usize,
    /// Copies of the memory form and of the register form per unit.
    pub ratio: (usize, usize),
    /// Cycles per unit predicted with the register form's micro-op
    /// (never below the slower part alone).
    pub with: f64,
    /// Cycles per unit predicted with the access alone.
    pub alone: f64,
    /// Cycles per unit measured, or why there are none.
    pub cycles: Result<f64, Unmeasured>,
    /// Cycles per unit of the slower part's copies alone, measured: a
    /// memory form slower alone than its composition (more micro-ops than
    /// its register form's) raises both predictions to it.
    pub floor: Result<f64, Unmeasured>,
    /// Whether a timing of the mix or its parts was noisy.
    pub noisy: bool,
}

impl Tested {
    /// `Some(true)` where the memory form is its access alone, `Some(false)`
    /// where it does the register form's work, `None` where the mix cannot
    /// tell (unmeasured, or the compositions too close).
    pub fn access_alone(&self) -> Option<bool> {
        let (c, floor) = (*self.cycles.as_ref().ok()?, *self.floor.as_ref().ok()?);
        decide(c, self.with.max(floor), self.alone.max(floor))
    }
}

/// The outcome of a mix measured at `cycles` per unit, predicted `with`
/// the register form's micro-op and `alone`: the nearer by ratio, where
/// the two are at least [`APART`] and the measurement within [`NEAR`] of
/// the nearer (a mix between the two is neither).
pub fn decide(cycles: f64, with: f64, alone: f64) -> Option<bool> {
    if with < alone * APART || cycles.is_nan() || cycles <= 0.0 {
        return None;
    }
    let (off_alone, off_with) = ((cycles / alone).ln().abs(), (cycles / with).ln().abs());
    (off_alone.min(off_with) <= NEAR.ln()).then_some(off_alone < off_with)
}

/// How far, as a ratio, a mix may lie from the composition it decides
/// for: the held-back mixes' 10%.
const NEAR: f64 = 1.10;

/// What the experiment found.
#[derive(Clone, Debug)]
pub struct Operations {
    /// Every memory form mixed with its register form.
    pub tested: Vec<Tested>,
}

/// The copies (memory form, register form) per unit, of at most [`MOST`]
/// each, where the composition with the register form's micro-op
/// predicts the most above the access alone; the fewest copies among
/// equals. `None` where no ratio separates them by [`APART`].
fn best_ratio(
    m: &Mapping,
    a: &Accesses,
    with: &Part,
    alone: &Part,
    register: &Part,
) -> Option<((usize, usize), f64, f64)> {
    let (access, operation) = (memmix::alone(m, a, alone)?, memmix::alone(m, a, register)?);
    let mut best: Option<((usize, usize), f64, f64)> = None;
    for n in 1..=MOST {
        for r in 1..=MOST {
            let p = |memory: &Part| {
                memmix::predict(&[(memory.clone(), n), (register.clone(), r)], m, a)
            };
            let (Some(w), Some(o)) = (p(with), p(alone)) else {
                return None;
            };
            // Never below the slower part alone, as the mixes' floor.
            let floor = (access * n as f64).max(operation * r as f64);
            let (w, o) = (w.max(floor), o.max(floor));
            if best.is_none_or(|b| w / o > b.1 / b.2 + 1e-9) {
                best = Some(((n, r), w, o));
            }
        }
    }
    best.filter(|b| b.1 >= b.2 * APART)
}

/// The memory forms of `forms` this experiment tests: x86 loads into a
/// register and stores of one ([`memmix::access`]) whose register form
/// ([`memmix::register_twin`]) the mapping places, whatever the rule
/// says of them; each with its parts.
fn candidates(
    t: &dyn Target,
    found: &Conflicts,
    forms: &[Instr],
) -> Vec<(Instr, usize, (u32, bool))> {
    if t.arch() != Arch::X86_64 {
        return Vec::new();
    }
    forms
        .iter()
        .filter(|f| crate::mode::common::early_skip(t, **f, false).is_none())
        .filter_map(|&f| {
            let access = memmix::access(t, f)?;
            let k = found.placed(memmix::register_twin(f)?)?;
            Some((f, k, access))
        })
        .collect()
}

/// Measures one mix of every candidate of `forms` with its register form
/// ([`candidates`], [`best_ratio`]) beside each part's copies alone.
/// `None` without a mapping, without candidates, on another arch than
/// x86, or in a replay of a run that did not measure them.
pub fn measure(
    t: &dyn Target,
    found: &Conflicts,
    accesses: &Accesses,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Option<Operations> {
    let m = found.mapping.as_ref()?;
    let mut bodies: Vec<(Vec<Inst>, usize)> = Vec::new();
    let mut tested = Vec::new();
    let mut plans = Vec::new();
    for (form, k, access) in candidates(t, found, forms) {
        let part = |register: Option<usize>| Part {
            form,
            register,
            access: Some(access),
        };
        let register = Part {
            form: found.singles[k].form,
            register: Some(k),
            access: None,
        };
        let Some(((n, r), with, alone)) =
            best_ratio(m, accesses, &part(Some(k)), &part(None), &register)
        else {
            continue;
        };
        let Some(plan) = queue_mix(t, &[(form, n), (register.form, r)], &mut bodies) else {
            continue;
        };
        plans.push(plan);
        tested.push(Tested {
            form,
            register: k,
            ratio: (n, r),
            with,
            alone,
            cycles: Err(Unmeasured::NotMeasured),
            floor: Err(Unmeasured::NotMeasured),
            noisy: false,
        });
    }
    if tested.is_empty() {
        return None;
    }
    let total = bodies.len();
    let got = measure_bodies(t, &bodies, opts, &mut |d| progress(d, total));
    // A raw file of a run without this experiment holds at most a few of
    // its kernels by chance (a load and its register form also mixed as a
    // pair): fewer than half recorded, it is left out, as it was. Else a
    // mix the run chose differently (an earlier winic's prediction) is
    // that form's "not in the raw file", not the experiment's end.
    let missing = got
        .iter()
        .filter(|g| g.0.as_ref().is_err_and(Unmeasured::not_recorded))
        .count();
    if missing * 2 > got.len() {
        return None;
    }
    for (x, plan) in tested.iter_mut().zip(&plans) {
        (x.cycles, x.floor, x.noisy) = mix_result(&got, plan);
    }
    Some(Operations { tested })
}

impl Operations {
    /// Each decided form and whether it is its access alone.
    pub fn values(&self) -> Vec<(Instr, bool)> {
        self.tested
            .iter()
            .filter_map(|x| Some((x.form, x.access_alone()?)))
            .collect()
    }

    /// Whether `form` was found its access alone (`None`: not tested or
    /// not decided).
    pub fn access_alone(&self, form: Instr) -> Option<bool> {
        self.tested
            .iter()
            .find(|x| x.form.opcode() == form.opcode())
            .and_then(Tested::access_alone)
    }

    /// The report's section: the counts, how often the rule by name
    /// agreed, then the forms the measurement and the rule disagree on.
    pub fn render(&self, found: &Conflicts) -> String {
        let decided: Vec<(&Tested, bool)> = self
            .tested
            .iter()
            .filter_map(|x| Some((x, x.access_alone()?)))
            .collect();
        let alone = decided.iter().filter(|d| d.1).count();
        let rule = |x: &Tested| !x.form.does_operation_of(found.singles[x.register].form);
        let against: Vec<&(&Tested, bool)> = decided.iter().filter(|d| rule(d.0) != d.1).collect();
        let mut text = format!(
            "memory forms beside their register form (does a load or store do its register \
             form's work?): {} tested, {} decided ({} the access alone, {} with the register \
             form's micro-op), {} too close to tell or unmeasured; the rule by name agrees on {} \
             of {}\n",
            self.tested.len(),
            decided.len(),
            alone,
            decided.len() - alone,
            self.tested.len() - decided.len(),
            decided.len() - against.len(),
            decided.len()
        );
        let undecided: Vec<String> = self
            .tested
            .iter()
            .filter(|x| x.access_alone().is_none())
            .map(|x| match (&x.cycles, &x.floor) {
                (Ok(c), Ok(f)) => format!(
                    "{} ({c:.2}: {:.2} / {:.2})",
                    x.form.name(),
                    x.with.max(*f),
                    x.alone.max(*f)
                ),
                (Err(w), _) | (_, Err(w)) => format!("{} ({w})", x.form.name()),
            })
            .collect();
        if !undecided.is_empty() {
            text.push_str(&format!(
                "  not decided (measured: with its micro-op / alone, both raised to the slower \
                 part alone){}: {}\n",
                if undecided.len() > 12 {
                    ", the first 12"
                } else {
                    ""
                },
                undecided[..undecided.len().min(12)].join(", ")
            ));
        }
        for (x, a) in against {
            let c = x.cycles.as_ref().map_or(f64::NAN, |c| *c);
            let floor = x.floor.as_ref().map_or(0.0, |f| *f);
            text.push_str(&format!(
                "  {:<26} beside {:<22} {}:{}  {:.3} measured, {:.3} with its micro-op, {:.3} \
                 alone: {}{}\n",
                x.form.name(),
                found.singles[x.register].form.name(),
                x.ratio.0,
                x.ratio.1,
                c,
                x.with.max(floor),
                x.alone.max(floor),
                if *a {
                    "the access alone"
                } else {
                    "does the work"
                },
                if x.noisy { " (noisy)" } else { "" }
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearer composition by ratio decides, where they are apart.
    #[test]
    fn the_nearer_composition_decides_where_they_are_apart() {
        // 16 `movsd xmm, [m]` and 32 `movsd xmm, xmm` a loop on zen4:
        // 12 cycles with the blend's micro-op, 8 without; 8.34 measured.
        assert_eq!(decide(8.34, 12.0, 8.0), Some(true));
        // `pmovzxbw`: 24 with, 16 without, 23.5 measured.
        assert_eq!(decide(23.5, 24.0, 16.0), Some(false));
        // Too close to tell: 1.2 apart.
        assert_eq!(decide(10.0, 12.0, 10.0), None);
        // Between the two, more than 10% from either: neither
        // (`unpckhpd xmm, [m]` beside `unpckhpd xmm, xmm` on zen4).
        assert_eq!(decide(1.43, 1.667, 1.293), None);
        assert_eq!(decide(1.40, 1.667, 1.293), Some(true));
        // No measurement.
        assert_eq!(decide(0.0, 12.0, 8.0), None);
        assert_eq!(decide(f64::NAN, 12.0, 8.0), None);
    }
}
