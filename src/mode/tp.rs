//! TP mode: the throughput of instruction forms, in cycles per instruction.
//! Each form's throughput body (up to 12 independent copies, 4 of a
//! read-modify-write form: [`shape::throughput`], [`body_copies`]) is
//! timed in two kernels, unrolled as [`unrolls_for`] says, in a batch
//! child ([`batch_costs`]); the unroll difference over the copies is the
//! value.

use crate::arch::Target;
use crate::exec::run::{batch_costs, Cost, Options, RunError};
use crate::isa::{Instr, Reg};
use crate::kernel::{self, shape};

use super::common::{
    body_copies, clock_line, helper_candidates, immediate_writers, implicit_dependency, moved_pair,
    pair_of_kernels, per_copy, per_copy_of, read_modify_writes, sigill_net, skipped_lines,
    unrolls_for, unrolls_within, MORE_READ_MODIFY_WRITES,
};
use super::reason::{Failure, HoldBack, Skip};
use std::collections::HashMap;

pub use super::common::early_skip;

/// A measured value this much below the [`Floor`] is held back: the
/// floor's own timing varies by a few percent between runs.
pub const FLOOR_SLACK: f64 = 0.1;

/// The fastest rate the core sustains, measured once per run: the cheaper
/// of a block of independent no-ops and a block of independent one-cycle
/// adds (the forms nothing issues faster), in cycles per instruction. No
/// throughput below it is a measurement: a helper subtracted from a pair
/// (`and al, 2` with `rdtsc`, 29 cycles from 29) leaves noise there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Floor {
    /// Cycles per instruction.
    pub cycles: f64,
    /// The block that ran that fast.
    pub probe: &'static str,
    /// Cycles per store of a block of the general-purpose store (x86 `mov
    /// [m], r64`), each copy at its own address: no form that writes
    /// memory stores faster than the core's store ports take the plainest
    /// store. On xeon-cf one full run in a few gave `not qword [m]` 0.22
    /// or `movhps [m], xmm` 0.43, where the plain store runs 0.50 (two a
    /// cycle). `None`: not measured (an emulator, a replay without it).
    pub stores: Option<f64>,
    /// Cycles per load of a block of the 16-byte vector load (x86 `movups
    /// xmm, [m]`): no form that reads 16 bytes or more loads faster. On
    /// the zen5 guest `vpcmpeqd k, ymm, [m]` came out 0.41-0.43 in some
    /// runs, under the two vector loads a cycle: by hand it runs 0.50 or
    /// 0.59 a copy (two states), and a pair of kernels each timed in the
    /// other state gave 0.42 (or 0.79). `None`: not measured, no such
    /// load (AArch64, RISC-V), or its block's timing was noisy (a busy
    /// sibling thread would raise the floor over forms that run at it).
    pub loads: Option<f64>,
    /// Cycles per load of a block of the general-purpose load (x86 `mov
    /// r64, [m]`, AArch64 `ldr x`, RISC-V `ld`): no form that reads
    /// memory loads faster. In the zen5 guest's debug CI `mov eax,
    /// [moffs32]` came out 0.22 once, under the four loads a cycle (0.25
    /// alone, nine runs in ten). `None` as for [`Floor::loads`].
    pub general_loads: Option<f64>,
}

/// The name of the store block in [`Floor::stores`]' messages.
pub const STORES_PROBE: &str = "general-purpose stores";

/// The name of the load block in [`Floor::loads`]' messages.
pub const LOADS_PROBE: &str = "16-byte vector loads";

/// The name of the load block in [`Floor::general_loads`]' messages.
pub const GENERAL_LOADS_PROBE: &str = "general-purpose loads";

/// Whether a floor's block is one of loads: a form under it is bounded by
/// its faster kernel alone ([`HoldBack::KernelsApart`]) rather than
/// failed.
pub fn is_loads_probe(probe: &str) -> bool {
    probe == LOADS_PROBE || probe == GENERAL_LOADS_PROBE
}

/// What a form does to memory, as the floors ask: whether it stores
/// ([`stores`]), whether it loads, and whether it loads 16 bytes or more
/// (a vector).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// It writes memory.
    pub stores: bool,
    /// It reads memory (what the target knows of its operands: `lea`,
    /// `nop [m]` and prefetches read none).
    pub loads: bool,
    /// It reads 16, 32 or 64 bytes of memory at once (`xmmword`,
    /// `ymmword`, `zmmword`; a broadcast of 8 bytes is no such load).
    pub wide_load: bool,
}

impl Access {
    /// What `form` does to memory.
    pub fn of(t: &dyn Target, form: Instr) -> Access {
        let reads = t.memory_access(form).is_some_and(|(read, _)| read);
        let wide = matches!(form.memory_size(), Some("xmmword" | "ymmword" | "zmmword"));
        Access {
            stores: shape::stores(t, form),
            loads: reads,
            wide_load: reads && wide,
        }
    }
}

impl Floor {
    /// Whether `cycles` per instruction is faster than the core can be.
    pub fn undercut_by(&self, cycles: f64) -> bool {
        cycles < self.cycles * (1.0 - FLOOR_SLACK)
    }

    /// The floor `cycles` of a form undercuts (its cycles and the block
    /// that set it): the core's, for a form that stores the stores', for
    /// one that loads 16 bytes or more the vector loads', for any other
    /// that loads the general-purpose loads' ([`Access`]). `None` when it
    /// undercuts none.
    pub fn undercut(&self, access: Access, cycles: f64) -> Option<(f64, &'static str)> {
        if self.undercut_by(cycles) {
            return Some((self.cycles, self.probe));
        }
        let below = |floor: f64| cycles < floor * (1.0 - FLOOR_SLACK);
        let stores = self.stores.filter(|f| access.stores && below(*f));
        let loads = self.loads.filter(|f| access.wide_load && below(*f));
        let general = self.general_loads.filter(|f| access.loads && below(*f));
        stores
            .map(|f| (f, STORES_PROBE))
            .or(loads.map(|f| (f, LOADS_PROBE)))
            .or(general.map(|f| (f, GENERAL_LOADS_PROBE)))
    }
}

/// Measures the [`Floor`] of this core; `None` where neither block gives
/// a positive difference (an emulator) or cannot be built.
pub fn floor(t: &dyn Target, opts: &Options) -> Option<Floor> {
    let nop = t.nop().ok().map(|n| vec![n; shape::COPIES]);
    let add = t
        .chain_add()
        .ok()
        .and_then(|a| shape::throughput(t, a.form, shape::COPIES).ok());
    let (general_load, store) = crate::export::memory::general_load_and_store(t.arch());
    let block = |name: &str| {
        crate::isa::Isa::get(t.arch())
            .instr(name)
            .and_then(|f| shape::throughput(t, f, shape::COPIES).ok())
    };
    let store = block(store);
    let general_load = block(general_load);
    let load = (t.arch() == crate::isa::Arch::X86_64)
        .then(|| block(WIDE_LOAD))
        .flatten();
    let probes: Vec<(&'static str, Vec<crate::arch::Inst>)> = [
        ("no-ops", nop),
        ("adds", add),
        (STORES_PROBE, store),
        (LOADS_PROBE, load),
        (GENERAL_LOADS_PROBE, general_load),
    ]
    .into_iter()
    .filter_map(|(name, body)| Some((name, body?)))
    .collect();
    let make = |i: usize| pair_of_kernels(t, &probes[i].1);
    let width = |i: usize| kernel::widest_bits(&probes[i].1);
    // Each block's cycles per instruction and whether its timing was
    // noisy (a second look replaces the first).
    let mut got: Vec<Option<(f64, bool)>> = vec![None; probes.len()];
    batch_costs(t, probes.len(), &make, &width, opts, &mut |i, cost| {
        let Ok(cost) = cost else { return };
        let len = probes[i].1.len();
        let cycles = per_copy(t, &cost, &probes[i].1, len);
        // Fifty instructions a cycle is no core's: an emulator's noise.
        if cost.positive() && cycles >= 0.02 {
            got[i] = Some((cycles, cost.once.noisy || cost.twice.noisy));
        }
    });
    let measured = |i: usize| Some((probes[i].0, got[i]?));
    let (cycles, probe) = (0..probes.len())
        .filter_map(measured)
        .filter(|(name, _)| *name != STORES_PROBE && !is_loads_probe(name))
        .map(|(name, (c, _))| (c, name))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    // An access block's floor; the loads' only from a clean timing (a
    // busy sibling thread slows them enough to round up to one fewer a
    // cycle, over forms that load as fast as they do).
    let access_floor = |block: &str, clean: bool| {
        (0..probes.len())
            .filter_map(measured)
            .find(|(name, (_, noisy))| *name == block && !(clean && *noisy))
            .map(|(_, (c, _))| whole_rate_floor(c))
    };
    let stores = access_floor(STORES_PROBE, false);
    let loads = access_floor(LOADS_PROBE, true);
    let general_loads = access_floor(GENERAL_LOADS_PROBE, true);
    Some(Floor {
        cycles,
        probe,
        stores,
        loads,
        general_loads,
    })
}

/// The load of [`Floor::loads`]' block.
const WIDE_LOAD: &str = "MOVUPSrm";

/// How far (bytes) the loop of a form that stores is moved for each of
/// its measurements ([`kernel::Kernel::with_loop_moved`]); each kernel's
/// fastest over them counts ([`fastest_placed`]). The front end of an
/// Intel core takes such loops at two speeds by where their instructions
/// fall in the code: on xeon-cf a loop of 48 `not qword [m]` (winic's
/// kernel) ran 0.51 cycles an instruction starting at 9 of 16 places
/// within 64 bytes and up to 0.96 at the others, a loop of 96 at 2 of
/// 16, so the difference of the two kernels, each wherever its loop
/// fell, swung between 0.22 and 1.00 from run to run (0.50: two stores a
/// cycle). Register forms keep one place: moving every kernel moved the
/// no-op floor (docs/measurements.md, twenty-fourth session).
pub const STORE_LOOP_MOVES: [usize; 4] = [0, 16, 32, 48];

/// The cost of a body measured at each of its loop's places (`looks`,
/// one per place), each kernel's fastest over the places
/// ([`Cost::merged_with`]: a slow front end only ever adds time); the
/// first failure when none gave a cost; `None` while a place has no
/// result yet.
fn fastest_placed(looks: &[Option<Result<Cost, RunError>>]) -> Option<Result<Cost, RunError>> {
    let looks: Vec<&Result<Cost, RunError>> =
        looks.iter().map(Option::as_ref).collect::<Option<_>>()?;
    let costs = looks.iter().filter_map(|l| l.as_ref().ok());
    match costs.copied().reduce(|a, b| a.merged_with(&b)) {
        Some(c) => Some(Ok(c)),
        None => looks.first().map(|l| (*l).clone()),
    }
}

/// The stores' (or loads') floor from the block's cycles per access: one
/// over the accesses a cycle, a whole number, counted up unless the block
/// ran within 5% of a whole number's rate (0.50 and 0.499 are two a
/// cycle, 0.45 three), so that a block a busy sibling thread slowed (up
/// to 1.6 times) lowers the floor rather than raising it over the forms
/// that store as fast as it does.
fn whole_rate_floor(cycles: f64) -> f64 {
    let per_cycle = (0.95 / cycles).ceil().max(1.0);
    1.0 / per_cycle
}

/// What TP found for one form.
// One per form, a few thousand a run: boxing the measured variant would
// save little memory and cost every match a dereference.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Measured.
    Measured(Measured),
    /// Not measured, on purpose, with the reason.
    Skipped(Skip),
    /// No kernel could be built (encoder or decode check), with the reason.
    BuildError(String),
    /// The kernel faulted, hung or the child failed, with the reason.
    Failed(Failure),
}

impl Outcome {
    /// `None` when measured, else the kind of reason, without figures
    /// (for counting).
    pub fn unmeasured_kind(&self) -> Option<String> {
        match self {
            Outcome::Measured(_) => None,
            Outcome::Skipped(w) => Some(format!("skipped: {w}")),
            Outcome::BuildError(_) => Some("no kernel".into()),
            Outcome::Failed(f) => Some(format!("failed: {}", f.kind())),
        }
    }

    /// Whether the form died of SIGILL.
    pub fn is_sigill(&self) -> bool {
        matches!(self, Outcome::Failed(f) if f.is_sigill())
    }
}

/// A measured throughput.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Cycles per instruction (the reciprocal throughput, as WINIC writes
    /// it).
    pub cycles: f64,
    /// Independent copies in the body.
    pub copies: usize,
    /// How often the body is unrolled in the shorter and the longer
    /// kernel ([`unrolls_for`], or [`MORE_READ_MODIFY_WRITES`]' pair).
    pub unrolls: (usize, usize),
    /// The raw measurement of the whole body.
    pub cost: Cost,
    /// Registers the form both reads and writes implicitly (EFLAGS of
    /// `adc`): its copies depend on each other through them, so the value
    /// is an upper bound until a helper breaks the dependency.
    pub implicit_dependency: Vec<Reg>,
    /// The body, as assembly text, one instruction per line.
    pub body: Vec<String>,
    /// The helper interleaved with the copies to break the implicit
    /// dependency, when one was found: then `cycles` is the combined cost
    /// of one copy and one helper, and the throughput lies in
    /// [`cycles` − helper, `cycles`].
    pub helper: Option<Helper>,
    /// Why the lower end of the range is not written (a helper dearer
    /// than the form, or a difference below the core's [`Floor`]): the
    /// value is an upper bound only.
    pub held_back: Option<HoldBack>,
    /// The outcomes measured apart ([`crate::arch::Operands::outcomes`]:
    /// a conditional branch taken and not taken), each with its label and
    /// cycles, the default (`cycles`) first; empty for other forms. Then
    /// the range is [fastest outcome, slowest outcome].
    pub outcomes: Vec<(String, f64)>,
}

/// A helper form: writes the register a measured form reads and writes
/// implicitly, without reading it.
#[derive(Clone, Debug)]
pub struct Helper {
    /// The helper form.
    pub form: Instr,
    /// Its own throughput, cycles per instruction.
    pub cycles: f64,
    /// The form's value without the helper (an upper bound too: when the
    /// helper slows the pair down, e.g. by partial-flag merges, it is the
    /// tighter one).
    pub without: f64,
}

impl Measured {
    /// The throughput range [lower, upper] in cycles per instruction:
    /// exact without an implicit dependency, [combined − helper, combined]
    /// with a helper, `None` as lower bound when no helper was found.
    pub fn range(&self) -> (Option<f64>, f64) {
        if !self.outcomes.is_empty() {
            let values = || self.outcomes.iter().map(|o| o.1);
            let low = values().fold(f64::INFINITY, f64::min);
            let high = values().fold(f64::NEG_INFINITY, f64::max);
            return (Some(low), high);
        }
        if self.held_back.is_some() {
            let high = self
                .helper
                .as_ref()
                .map_or(self.cycles, |h| self.cycles.min(h.without));
            return (None, high);
        }
        match (&self.helper, self.implicit_dependency.is_empty()) {
            (_, true) => (Some(self.cycles), self.cycles),
            (Some(h), false) => {
                let high = self.cycles.min(h.without);
                (Some((self.cycles - h.cycles).clamp(0.0, high)), high)
            }
            (None, false) => (None, self.cycles),
        }
    }
}

/// One form's result.
#[derive(Clone, Debug)]
pub struct Row {
    /// The form.
    pub form: Instr,
    /// The outcome.
    pub outcome: Outcome,
}

/// Measures `forms`, calling `progress(done, total, name)` after each and
/// `row(&Row)` with each result as soon as it exists (in the order of
/// `forms`); returns all rows. `x87` measures x87 forms too. A value
/// below `floor` ([`floor`], measured once per run) is held back, with
/// the reason.
#[allow(clippy::too_many_arguments)]
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    x87: bool,
    floor: Option<Floor>,
    known: &dyn Fn(&str) -> Option<f64>,
    progress: &mut dyn FnMut(usize, usize, &str),
    row: &mut dyn FnMut(&Row),
) -> Vec<Row> {
    let total = forms.len();
    let mut rows: Vec<Option<Row>> = vec![None; total];
    let mut bodies = Vec::new();
    for (k, &form) in forms.iter().enumerate() {
        let early = if let Some(why) = early_skip(t, form, x87) {
            Some(Outcome::Skipped(why))
        } else {
            match shape::throughput(t, form, body_copies(t, form))
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    kernel::build(t, &b, 1)
                        .map(|_| b)
                        .map_err(|e| e.to_string())
                }) {
                Ok(body) => {
                    bodies.push((k, body));
                    None
                }
                Err(why) => Some(Outcome::BuildError(why)),
            }
        };
        if let Some(outcome) = early {
            rows[k] = Some(Row { form, outcome });
        }
    }
    // Report what is known in order, then measure the rest in a batch.
    let mut emitted = 0;
    let mut flush = |rows: &[Option<Row>],
                     row: &mut dyn FnMut(&Row),
                     progress: &mut dyn FnMut(usize, usize, &str)| {
        while emitted < total {
            let Some(r) = &rows[emitted] else { break };
            row(r);
            emitted += 1;
            progress(emitted, total, r.form.name());
        }
    };
    flush(&rows, row, progress);
    // A form that stores runs at every [`STORE_LOOP_MOVES`], the rest once.
    let placed: Vec<Placed> = bodies
        .iter()
        .map(|(k, body)| Placed {
            body,
            unrolls: unrolls_for(t, body),
            moves: if shape::stores(t, forms[*k]) {
                &STORE_LOOP_MOVES
            } else {
                &[0]
            },
        })
        .collect();
    placed_costs(t, &placed, opts, &mut |b, got| {
        let (k, body) = &bodies[b];
        let form = forms[*k];
        // Reported already: this is a better second measurement.
        let again = rows[*k].is_some();
        let outcome = judge(t, form, body, got, placed[b].unrolls, floor);
        rows[*k] = Some(Row { form, outcome });
        if again {
            row(rows[*k].as_ref().expect("set above"));
        }
        flush(&rows, row, progress);
    });
    let mut rows: Vec<Row> = rows.into_iter().flatten().collect();
    if !crate::interrupt::requested() {
        with_another_look(t, &mut rows, opts, floor, row);
    }
    if !crate::interrupt::requested() {
        with_more_read_modify_writes(t, &mut rows, opts, floor, row);
    }
    if !crate::interrupt::requested() {
        with_helpers(t, &mut rows, opts, floor, known, row);
    }
    if !crate::interrupt::requested() {
        with_outcomes(t, &mut rows, opts, row);
    }
    rows
}

/// One body to time at each of its loop's places ([`placed_costs`]).
struct Placed<'a> {
    body: &'a [crate::arch::Inst],
    /// The shorter and the longer kernel's unroll.
    unrolls: (usize, usize),
    /// How far (bytes) its loop is moved for each measurement.
    moves: &'a [usize],
}

/// Times each of `bodies` at each of its loop's places in one batch
/// ([`batch_costs`]) and calls `done(b, cost)` with body `b`'s fastest
/// over them ([`fastest_placed`]) once all its places are in, and again
/// for each better second look.
fn placed_costs(
    t: &dyn Target,
    bodies: &[Placed],
    opts: &Options,
    done: &mut dyn FnMut(usize, Result<Cost, RunError>),
) {
    // Each body at each of its places: (body, bytes moved); body b's
    // runs are runs[first[b]..first[b + 1]].
    let runs: Vec<(usize, usize)> = bodies
        .iter()
        .enumerate()
        .flat_map(|(b, p)| p.moves.iter().map(move |&m| (b, m)))
        .collect();
    let mut first = vec![0; bodies.len() + 1];
    for (b, p) in bodies.iter().enumerate() {
        first[b + 1] = first[b] + p.moves.len();
    }
    let make = |i: usize| {
        let p = &bodies[runs[i].0];
        moved_pair(t, p.body, p.unrolls, runs[i].1)
    };
    let width = |i: usize| kernel::widest_bits(bodies[runs[i].0].body);
    let mut looks: Vec<Option<Result<Cost, RunError>>> = vec![None; runs.len()];
    batch_costs(t, runs.len(), &make, &width, opts, &mut |i, got| {
        let b = runs[i].0;
        looks[i] = Some(got);
        // None: another place of the loop still to come.
        if let Some(got) = fastest_placed(&looks[first[b]..first[b + 1]]) {
            done(b, got);
        }
    });
}

/// The outcome of `form`'s `body` from the cost of its pair of kernels,
/// unrolled `unrolls` times: no positive difference, a time that does not
/// grow with the work, a value below the `floor`, or a measurement.
fn judge(
    t: &dyn Target,
    form: Instr,
    body: &[crate::arch::Inst],
    got: Result<Cost, RunError>,
    unrolls: (usize, usize),
    floor: Option<Floor>,
) -> Outcome {
    // The longer kernel's work over the shorter's, and how much of
    // the work it adds its time grew by (1 for a time the work sets).
    let (shorter, longer) = unrolls;
    let expected = longer as f64 / shorter as f64;
    let grown =
        |cost: &Cost| (cost.twice.ns_per_iter / cost.once.ns_per_iter - 1.0) / (expected - 1.0);
    match got {
        Ok(cost) if !cost.positive() => Outcome::Failed(Failure::NotPositive {
            cycles: cost.cycles,
            cost: Box::new(cost),
        }),
        // The longer kernel holds `expected` times the shorter's work
        // (twice the body, or 32 read-modify-writes against 24) and
        // takes that much longer, but for the loop's own cycle or
        // two: grown by under a quarter of the work added (1.25 times
        // for a pair of once and twice), the work did not set the
        // time. Grown by over twice the work added (3 times), the
        // time grew faster than the work: the values drift with the
        // iterations (`divpd xmm1, xmm2` divides its own dividend
        // again and again: 68.7 ns once, 286 ns twice on the Xeon
        // guest, a "throughput" of 12.7 where `vdivpd xmm1, xmm2,
        // xmm3` runs at 4.0).
        // Only clean timings are evidence of a time that does not
        // grow: under qemu no round is clean, and a ratio of noisy
        // timings says little. A busy sibling thread slows a kernel
        // by 1.6 times at most, so 3 times is evidence even then.
        Ok(cost)
            if (!cost.once.noisy && !cost.twice.noisy && grown(&cost) < 0.25)
                || grown(&cost) > 2.0 =>
        {
            Outcome::Failed(Failure::NotLinear {
                ratio: cost.twice.ns_per_iter / cost.once.ns_per_iter,
                expected,
                cost: Box::new(cost),
            })
        }
        Ok(cost) => {
            let cycles = if read_modify_writes(t, body) > 0 {
                read_modify_writes_per_copy(&cost, unrolls, body.len())
            } else {
                per_copy_of(&cost, unrolls, body.len())
            };
            let measured = |cycles: f64, held_back: Option<HoldBack>, cost: Cost| Measured {
                cycles,
                copies: body.len(),
                unrolls,
                cost,
                implicit_dependency: implicit_dependency(t, form),
                body: body_text(t, body),
                helper: None,
                held_back,
                outcomes: Vec::new(),
            };
            let disagree = plain_loop(t, form, body)
                .then(|| kernels_disagree(&cost, unrolls, body.len(), cycles))
                .flatten();
            if let Some(why) = disagree {
                let bound = kernels_alone(&cost, unrolls, body.len());
                return Outcome::Measured(measured(bound, Some(why), cost));
            }
            match floor.and_then(|f| f.undercut(Access::of(t, form), cycles)) {
                // Under a loads' floor: each kernel alone bounds the form
                // from above (its loop only adds time).
                Some((floor, probe)) if is_loads_probe(probe) => {
                    let bound = kernels_alone(&cost, unrolls, body.len());
                    let why = HoldBack::KernelsApart {
                        difference: cycles,
                        floor,
                        probe,
                    };
                    Outcome::Measured(measured(bound, Some(why), cost))
                }
                Some((floor, probe)) => Outcome::Failed(Failure::BelowFloor {
                    cycles,
                    floor,
                    probe,
                    cost: Box::new(cost),
                }),
                None => Outcome::Measured(measured(cycles, None, cost)),
            }
        }
        Err(e) => Outcome::Failed(Failure::of_run(e)),
    }
}

/// The cycles a copy of a body with read-modify-writes takes: the
/// smallest of the kernels' difference and each kernel alone. Such a kernel is
/// bound by its stores (24 of them take 12 cycles on Zen 4), its counter
/// and branch hide beside them, and so each kernel alone measures a copy
/// as well as their difference does, without multiplying the longer
/// kernel's error by four (8 of its 32 copies are the difference): on
/// the zen4 guest the 24 copies of `add word [m], imm` ran 0.50 a copy in
/// every run, the 32 at 0.50 or 0.56 by run, and the difference said 0.50
/// or 0.72. The difference stays the value when it is the smallest (the
/// shorter kernel waited on the round trip through memory). Other
/// bodies keep the difference whatever it is ([`kernels_disagree`]).
fn read_modify_writes_per_copy(cost: &Cost, unrolls: (usize, usize), copies: usize) -> f64 {
    per_copy_of(cost, unrolls, copies).min(kernels_alone(cost, unrolls, copies))
}

/// The cycles a copy takes in the faster of the two kernels alone, its
/// loop included: an upper bound of the form's throughput wherever their
/// difference is no measurement.
fn kernels_alone(cost: &Cost, unrolls: (usize, usize), copies: usize) -> f64 {
    let (shorter, longer) = each_kernel_alone(cost, unrolls, copies);
    shorter.min(longer)
}

/// The cycles a copy takes in the shorter and in the longer kernel alone,
/// each loop included.
pub(super) fn each_kernel_alone(
    cost: &Cost,
    (shorter, longer): (usize, usize),
    copies: usize,
) -> (f64, f64) {
    let per_copy = |ns: f64, unroll: usize| ns * cost.ghz / (unroll * copies) as f64;
    (
        per_copy(cost.once.ns_per_iter, shorter),
        per_copy(cost.twice.ns_per_iter, longer),
    )
}

/// Cycles an iteration beyond which a kernel pair's implied loop
/// ([`kernels_disagree`]) is no loop's, whatever the body: a counter, a
/// branch and the moves a store's loop makes take one or two. Over the
/// 10,813 vector forms of a full TP run on zen5 (2026-12-02, the sibling
/// thread busy) 97% of the pairs implied one within a cycle of nothing.
/// Not 4: in four full TP runs on zen4 (2026-12-03/04), every pair of
/// kernels under 20 cycles that implied a loop of 3 to 4 cycles was a
/// tied shuffle (`punpckhqdq`, `unpcklps`, `vpermilps xmm {k}` …) whose 48
/// copies ran at 0.333 or 0.369 a copy (16.0 or 17.7 cycles) and 96 at
/// either too, by run: kernels in two states gave 0.30 or 0.40 with a
/// loop of 3.3 or -3.3, and 23 such forms more than 5% apart between
/// runs; held back, they are timed again and take each kernel's fastest.
pub const LOOP_CYCLES: f64 = 3.0;

/// The share of the shorter kernel's time beyond which a pair's implied
/// loop is no loop's, for long bodies whose timings vary by more than
/// [`LOOP_CYCLES`] between rounds (a 190-cycle `dpps` kernel).
pub const LOOP_SHARE: f64 = 0.15;

/// Whether the loop around `form`'s `body` is a counter and a branch
/// only, and the copies independent of each other: then the loop takes a
/// cycle or two an iteration ([`kernels_disagree`]). Not so for a body
/// that reads and writes memory (it is paired to keep a fixed wait of its
/// shorter kernel out: [`unrolls_within`]), one whose copies chain
/// through a register they read and write implicitly (`adox`'s overflow
/// flag, which the loop's counter sets again every iteration, so that
/// iterations overlap: 0.77 a copy in 48, 0.89 in 96 on zen5), nor one
/// whose loop sets back what the copies walk (`push`'s stack pointer, a
/// string operation's pointers) or whose copies write back their base.
fn plain_loop(t: &dyn Target, form: Instr, body: &[crate::arch::Inst]) -> bool {
    read_modify_writes(t, body) == 0
        && implicit_dependency(t, form).is_empty()
        && shape::Walked::of(t, form).is_empty()
        && body.iter().all(|i| shape::written_back(t, i).is_empty())
}

/// [`HoldBack::KernelsDisagree`] when the pair of kernels behind
/// `difference` (cycles a copy) disagree on what a copy costs: the shorter
/// kernel's time less its copies at the difference's rate is the loop's
/// own time an iteration, and one more than [`LOOP_CYCLES`] (and more than
/// [`LOOP_SHARE`] of the kernel), or less than none by as much, is no
/// loop's but two kernels each running in a state of its own: on zen5
/// the 96 copies of `vcmppd k, xmm, [m]{1to2}` ran at 0.50 or 0.59 a copy
/// by run, the 48 at 0.59 in every run, so the difference said 0.41 or
/// 0.59; beside a busy sibling thread `vcvtpd2ps ymm {k}, zmm` (0.80
/// alone, in every quiet run) gave 0.60 from kernels slowed apart.
fn kernels_disagree(
    cost: &Cost,
    unrolls: (usize, usize),
    copies: usize,
    difference: f64,
) -> Option<HoldBack> {
    let shorter_cycles = cost.once.ns_per_iter * cost.ghz;
    let implied_loop = shorter_cycles - difference * (unrolls.0 * copies) as f64;
    let limit = LOOP_CYCLES.max(LOOP_SHARE * shorter_cycles);
    (implied_loop.abs() > limit).then(|| HoldBack::KernelsDisagree {
        difference,
        alone: each_kernel_alone(cost, unrolls, copies),
        implied_loop,
    })
}

/// The second pass: a form whose kernels disagreed on a copy
/// ([`HoldBack::KernelsDisagree`]) is timed once more, at the same places,
/// and each kernel's fastest time over both measurements
/// ([`Cost::merged_with`]) is judged again: a busy sibling thread that
/// slowed one kernel and not the other (`vcvtpd2ps ymm {k}, zmm` 0.60
/// where it runs 0.80) seldom does so twice. What still disagrees keeps
/// its upper bound, reported again with the new figures.
fn with_another_look(
    t: &dyn Target,
    rows: &mut [Row],
    opts: &Options,
    floor: Option<Floor>,
    row: &mut dyn FnMut(&Row),
) {
    let again: Vec<Again> = rows
        .iter()
        .enumerate()
        .filter_map(|(k, r)| match &r.outcome {
            Outcome::Measured(m)
                if matches!(m.held_back, Some(HoldBack::KernelsDisagree { .. }))
                    && m.helper.is_none() =>
            {
                Some(Again {
                    row: k,
                    body: shape::throughput(t, r.form, body_copies(t, r.form)).ok()?,
                    unrolls: m.unrolls,
                    moves: if shape::stores(t, r.form) {
                        &STORE_LOOP_MOVES
                    } else {
                        &[0]
                    },
                    first: Some(m.cost),
                })
            }
            _ => None,
        })
        .collect();
    judge_again(t, rows, &again, opts, floor, row);
}

/// The third pass: a read-modify-write form whose first pair came out
/// below the stores' floor is measured again with kernels of
/// [`MORE_READ_MODIFY_WRITES`]: its shorter kernel waited on the round
/// trip through memory, which more copies outlast. The new outcome, a
/// measurement or still below the floor, replaces the old one and is
/// reported again.
fn with_more_read_modify_writes(
    t: &dyn Target,
    rows: &mut [Row],
    opts: &Options,
    floor: Option<Floor>,
    row: &mut dyn FnMut(&Row),
) {
    let again: Vec<Again> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.outcome, Outcome::Failed(Failure::BelowFloor { .. })))
        .filter_map(|(k, r)| {
            let body = shape::throughput(t, r.form, body_copies(t, r.form)).ok()?;
            let rmw = read_modify_writes(t, &body);
            (rmw > 0).then(|| Again {
                row: k,
                unrolls: unrolls_within(body.len(), rmw, MORE_READ_MODIFY_WRITES),
                body,
                moves: &STORE_LOOP_MOVES,
                first: None,
            })
        })
        .collect();
    judge_again(t, rows, &again, opts, floor, row);
}

/// A row a later pass of [`run`] measures again.
struct Again {
    /// The row.
    row: usize,
    /// Its body.
    body: Vec<crate::arch::Inst>,
    /// The unrolls of its pair of kernels.
    unrolls: (usize, usize),
    /// How far (bytes) its loop is moved for each measurement.
    moves: &'static [usize],
    /// The cost it had, merged with the new one ([`Cost::merged_with`]);
    /// `None`: the new one alone counts (other kernels).
    first: Option<Cost>,
}

/// Measures the rows of `again` ([`placed_costs`]) and judges each anew;
/// every new outcome replaces its row's and is reported again.
fn judge_again(
    t: &dyn Target,
    rows: &mut [Row],
    again: &[Again],
    opts: &Options,
    floor: Option<Floor>,
    row: &mut dyn FnMut(&Row),
) {
    if again.is_empty() {
        return;
    }
    let placed: Vec<Placed> = again
        .iter()
        .map(|a| Placed {
            body: &a.body,
            unrolls: a.unrolls,
            moves: a.moves,
        })
        .collect();
    let mut updates: Vec<(usize, Outcome)> = Vec::new();
    placed_costs(t, &placed, opts, &mut |b, got| {
        let a = &again[b];
        let got = match a.first {
            Some(first) => got.map(|c| first.merged_with(&c)),
            None => got,
        };
        let outcome = judge(t, rows[a.row].form, &a.body, got, a.unrolls, floor);
        updates.retain(|(u, _)| *u != a.row);
        updates.push((a.row, outcome));
    });
    for (k, outcome) in updates {
        rows[k].outcome = outcome;
        row(&rows[k]);
    }
}

/// The fifth pass: every measured form whose target names outcomes
/// ([`crate::arch::Operands::outcomes`]: `jcc` taken and not taken) is
/// measured again in each other outcome; the row, reported again, holds
/// every outcome's value and the range over them.
fn with_outcomes(t: &dyn Target, rows: &mut [Row], opts: &Options, row: &mut dyn FnMut(&Row)) {
    // (row, label, body) of every outcome but the default.
    let mut plans: Vec<(usize, String, Vec<crate::arch::Inst>)> = Vec::new();
    let mut labels: Vec<(usize, String)> = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        if !matches!(r.outcome, Outcome::Measured(_)) {
            continue;
        }
        let Ok(body) = shape::throughput(t, r.form, body_copies(t, r.form)) else {
            continue;
        };
        let per_copy: Vec<Vec<(String, crate::arch::Inst)>> =
            body.iter().map(|i| t.outcomes(i)).collect();
        let n = per_copy.first().map_or(0, Vec::len);
        if n < 2 || per_copy.iter().any(|o| o.len() != n) {
            continue;
        }
        labels.push((k, per_copy[0][0].0.clone()));
        for j in 1..n {
            let other = per_copy.iter().map(|o| o[j].1.clone()).collect();
            plans.push((k, per_copy[0][j].0.clone(), other));
        }
    }
    if plans.is_empty() {
        return;
    }
    let make = |i: usize| pair_of_kernels(t, &plans[i].2);
    let width = |i: usize| kernel::widest_bits(&plans[i].2);
    let mut got_values: Vec<(usize, String, f64)> = Vec::new();
    batch_costs(t, plans.len(), &make, &width, opts, &mut |i, got| {
        let (k, label, body) = &plans[i];
        if let Some(cost) = got.ok().filter(|c| c.positive()) {
            got_values.retain(|(u, l, _)| !(u == k && l == label));
            got_values.push((*k, label.clone(), per_copy(t, &cost, body, body.len())));
        }
    });
    for (k, default) in labels {
        let Outcome::Measured(m) = &mut rows[k].outcome else {
            continue;
        };
        let others: Vec<(String, f64)> = got_values
            .iter()
            .filter(|(u, _, _)| *u == k)
            .map(|(_, l, v)| (l.clone(), *v))
            .collect();
        if others.is_empty() {
            continue;
        }
        m.outcomes = std::iter::once((default, m.cycles)).chain(others).collect();
        row(&rows[k]);
    }
}

/// Bodies of `form` copies interleaved with `helper` copies on registers
/// of their own: as many pairs as registers allow (12, else fewer). With
/// `onto`, every helper's operand is put on that register (a move of an
/// immediate onto the register it breaks: [`immediate_writers`]).
pub(crate) fn interleaved(
    t: &dyn Target,
    form: Instr,
    helper: Instr,
    onto: Option<(usize, Reg)>,
) -> Option<Vec<crate::arch::Inst>> {
    // The most pairs: fewer copies of the form can leave registers for
    // more helpers (a read-modify-write form has a few in any case).
    let mut best: Option<Vec<crate::arch::Inst>> = None;
    let most = body_copies(t, form);
    for n in [shape::COPIES, 8, 6, 4, 2, 1]
        .into_iter()
        .filter(|&n| n <= most)
    {
        let Ok(body) = shape::throughput(t, form, n) else {
            continue;
        };
        let regs: Vec<Reg> = body.iter().flat_map(|i| t.inst_regs(i)).collect();
        let Ok(mut helpers) = shape::throughput_avoiding(t, helper, body.len(), &regs) else {
            continue;
        };
        if let Some((k, r)) = onto {
            for (h, f) in helpers.iter_mut().zip(&body) {
                h.ops[k] = crate::arch::OpValue::Reg(r);
                super::common::write_needed_value(t, f, h, r);
            }
        }
        let pairs = body.len().min(helpers.len());
        if best.as_ref().is_some_and(|b| b.len() >= 2 * pairs) {
            continue;
        }
        best = Some(
            body.into_iter()
                .zip(helpers)
                .take(pairs)
                .flat_map(|(a, b)| [a, b])
                .collect(),
        );
    }
    best
}

/// The fourth pass: every measured form with one implicit dependency is
/// measured again with the fastest helper interleaved, taken from this
/// run's results, from `known` (the database given with `-o`), or measured
/// now (up to six candidates). Each improved row is reported again
/// through `row` (the report gets a second block, the database the
/// range).
fn with_helpers(
    t: &dyn Target,
    rows: &mut [Row],
    opts: &Options,
    floor: Option<Floor>,
    known: &dyn Fn(&str) -> Option<f64>,
    row: &mut dyn FnMut(&Row),
) {
    let needy: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter_map(|(k, r)| match &r.outcome {
            Outcome::Measured(m) if m.implicit_dependency.len() == 1 => Some(k),
            _ => None,
        })
        .collect();
    if needy.is_empty() {
        return;
    }
    let mut pool: Vec<(Instr, f64)> = rows
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Measured(m) if m.implicit_dependency.is_empty() => Some((r.form, m.cycles)),
            _ => None,
        })
        .collect();
    let mut plans: Vec<(usize, Helper, Vec<crate::arch::Inst>)> = Vec::new();
    for k in needy {
        let Outcome::Measured(m) = &rows[k].outcome else {
            continue;
        };
        match choose_helper(t, rows[k].form, m, &mut pool, known, opts) {
            Ok(Some(plan)) => plans.push((k, plan.0, plan.1)),
            Ok(None) => {}
            Err(why) => {
                if let Outcome::Measured(m) = &mut rows[k].outcome {
                    m.held_back = Some(why);
                }
                row(&rows[k]);
            }
        }
    }
    let make = |i: usize| {
        let body = &plans[i].2;
        pair_of_kernels(t, body)
    };
    let mut updates: Vec<(usize, Measured)> = Vec::new();
    let width = |i: usize| kernel::widest_bits(&plans[i].2);
    batch_costs(t, plans.len(), &make, &width, opts, &mut |i, got| {
        let (k, helper, body) = &plans[i];
        let Ok(cost) = got else { return };
        if cost.cycles <= 0.0 {
            return; // noise: the value without the helper stays
        }
        let Outcome::Measured(old) = &rows[*k].outcome else {
            return;
        };
        let pairs = body.len() / 2;
        let cycles = per_copy(t, &cost, body, pairs);
        // The range's lower end, combined − helper, faster than the core
        // can be: the helper's cost dwarfed the form's.
        let low = cycles - helper.cycles;
        let held_back = floor
            .and_then(|f| f.undercut(Access::of(t, rows[*k].form), low))
            .map(|(floor, probe)| HoldBack::BelowFloor {
                combined: cycles,
                helper_cycles: helper.cycles,
                floor,
                probe,
            });
        // A form that accesses memory may wait on its load or store port,
        // which the helper does not use: the combined time minus the
        // helper's is then no lower bound (adc [m], r came out 0.25, under
        // Zen 4's 2 stores a cycle).
        let memory = crate::mode::common::accesses_memory(t, rows[*k].form);
        let held_back = held_back.or_else(|| {
            memory.then_some(HoldBack::SharesMemoryPort {
                combined: cycles,
                helper_cycles: helper.cycles,
            })
        });
        // A second, better measurement replaces the first.
        updates.retain(|(u, _)| u != k);
        updates.push((
            *k,
            Measured {
                cycles,
                copies: pairs,
                unrolls: unrolls_for(t, body),
                cost,
                implicit_dependency: old.implicit_dependency.clone(),
                body: body_text(t, body),
                helper: Some(helper.clone()),
                held_back,
                outcomes: Vec::new(),
            },
        ));
    });
    for (k, m) in updates {
        rows[k].outcome = Outcome::Measured(m);
        row(&rows[k]);
    }
}

/// The helper for `form`, measured as `m` with one implicit dependency:
/// the fastest compare, else the fastest other writer of the register,
/// from `pool` (this run's values, to which candidates measured now are
/// added), from `known` or measured now (up to six candidates); with the
/// body that interleaves it with the form. `Ok(None)`: none builds;
/// `Err`: the cheapest costs more than the form (its lower end would be
/// noise), the reason it is held back.
fn choose_helper(
    t: &dyn Target,
    form: Instr,
    m: &Measured,
    pool: &mut Vec<(Instr, f64)>,
    known: &dyn Fn(&str) -> Option<f64>,
    opts: &Options,
) -> Result<Option<(Helper, Vec<crate::arch::Inst>)>, HoldBack> {
    let reg = m.implicit_dependency[0];
    // Implicit writers, and moves of an immediate put on the register
    // (`mov rax, imm32` for `add al, imm8`, whose other candidates are
    // `rdtsc` and `lahf`, too slow to subtract).
    let writers = immediate_writers(t, reg);
    let onto: HashMap<u32, (usize, Reg)> = writers
        .iter()
        .map(|(f, k, r)| (f.opcode(), (*k, *r)))
        .collect();
    // Compares first, then the moves, then other implicit writers.
    let mut candidates: Vec<Instr> = writers.iter().map(|(f, _, _)| *f).collect();
    candidates.extend(helper_candidates(t, reg));
    candidates.sort_by_key(|f| !f.has(crate::isa::Flag::IsCompare));
    let mut usable: Vec<(Instr, f64)> = candidates
        .iter()
        .filter_map(|c| {
            pool.iter()
                .find(|(f, _)| f.opcode() == c.opcode())
                .map(|(_, v)| *v)
                .or_else(|| known(c.name()))
                .map(|v| (*c, v))
        })
        .collect();
    let compare = |f: &Instr| f.has(crate::isa::Flag::IsCompare);
    if !usable.iter().any(|(f, _)| compare(f)) {
        // No measured compare (`-i ADC64rr` alone, or a filtered run):
        // measure the first few candidates, compares first.
        let few: Vec<Instr> = candidates
            .into_iter()
            .filter(|c| !usable.iter().any(|(u, _)| u.opcode() == c.opcode()))
            .take(6)
            .collect();
        let measured = run_plain(t, &few, opts);
        pool.extend(measured.iter().copied());
        usable.extend(measured);
    }
    // The fastest compare, else the fastest of the others. Forms within
    // 5% of the fastest tie (noise decides below that); of them the one
    // least likely to add a dependency of its own: no implicit reads
    // (`cmp eax, imm32` reads EAX), the widest registers (8- and 16-bit
    // forms merge into the rest of theirs: `cmp r16, imm8` left adc at
    // 1.0), then by name, so every run picks the same.
    let widest = |f: &Instr| super::common::widest_operand(*f);
    let fastest = |v: Vec<(Instr, f64)>| {
        let best = v.iter().map(|x| x.1).min_by(f64::total_cmp)?;
        v.into_iter()
            .filter(|x| x.1 <= best * 1.05)
            .min_by_key(|(f, _)| {
                (
                    f.implicit_uses().count(),
                    std::cmp::Reverse(widest(f)),
                    f.name(),
                )
            })
    };
    let (compares, others): (Vec<_>, Vec<_>) = usable.into_iter().partition(|(f, _)| compare(f));
    let Some((h, v)) = fastest(compares).or_else(|| fastest(others)) else {
        return Ok(None);
    };
    // Within 5% counts as equal (noise decides below that, and the
    // choice must not flip between runs).
    if v > m.cycles * 1.05 {
        // `rdtsc` (29 cycles) to break `and al, 2` (1 cycle): the
        // difference of two 30-cycle timings is noise, not the form.
        return Err(HoldBack::HelperDearer {
            helper: h.name(),
            helper_cycles: v,
            form_cycles: m.cycles,
        });
    }
    Ok(
        interleaved(t, form, h, onto.get(&h.opcode()).copied()).map(|body| {
            (
                Helper {
                    form: h,
                    cycles: v,
                    without: m.cycles,
                },
                body,
            )
        }),
    )
}

/// The plain throughput of `forms` (no helpers, no rows reported): for
/// helpers that this run has not measured.
fn run_plain(t: &dyn Target, forms: &[Instr], opts: &Options) -> Vec<(Instr, f64)> {
    let bodies: Vec<(Instr, Vec<crate::arch::Inst>)> = forms
        .iter()
        .filter_map(|f| Some((*f, shape::throughput(t, *f, body_copies(t, *f)).ok()?)))
        .collect();
    let make = |i: usize| {
        let body = &bodies[i].1;
        pair_of_kernels(t, body)
    };
    let mut out: Vec<(Instr, f64)> = Vec::new();
    let width = |i: usize| kernel::widest_bits(&bodies[i].1);
    batch_costs(t, bodies.len(), &make, &width, opts, &mut |i, got| {
        if let Ok(c) = got {
            let len = bodies[i].1.len();
            // A second, better measurement replaces the first.
            out.retain(|(f, _)| f.opcode() != bodies[i].0.opcode());
            out.push((bodies[i].0, per_copy(t, &c, &bodies[i].1, len)));
        }
    });
    out
}

/// The database entry of a measured row, `None` for the others (a skip or
/// a failure never overwrites an earlier measurement). Throughput is the
/// measured value with `throughputMin` = `throughputMax` = it; with an
/// implicit dependency no helper breaks yet, it is an upper bound only:
/// `throughputMax`, with `throughput` and `throughputMin` empty (null).
pub fn entry(row: &Row) -> Option<crate::db::Entry> {
    let Outcome::Measured(m) = &row.outcome else {
        return None;
    };
    let mut e = crate::db::Entry::for_form(row.form);
    let (low, high) = m.range();
    e.set_throughput(low.unwrap_or(high), high);
    if low.is_none() {
        e.throughput = None;
        e.throughput_min = None;
    }
    Some(e)
}

/// The database entries of a run's rows, in the order they are reported:
/// [`entry`] of each, and for a failure reported after the same form's
/// measurement (a second look that held it back: the time does not grow
/// with the body) the entry that takes the first value back, all three
/// throughput fields empty, which merging writes over it (in the database
/// and, on `--resume`, from the journal). The first, noisy timing was no
/// evidence against the value, the second is: `movnti [m], r64` came out
/// at 0.146 cycles on Zen 3 from a noisy first look, faster than the
/// core's two stores a cycle, and stayed in the database.
#[derive(Default)]
pub struct Entries {
    wrote: std::collections::HashSet<&'static str>,
}

impl Entries {
    /// The entry to write for `row` (`None`: nothing to write).
    pub fn of(&mut self, row: &Row) -> Option<crate::db::Entry> {
        let name = row.form.name();
        match entry(row) {
            Some(e) => {
                self.wrote.insert(name);
                Some(e)
            }
            None if self.wrote.remove(name) => Some(crate::db::Entry::for_form(row.form)),
            None => None,
        }
    }
}

/// The counts of a run: measured (with an implicit dependency), skipped
/// per reason, no kernel, failed per reason; the wall time and forms per
/// second.
pub fn summary(rows: &[Row], wall: std::time::Duration) -> String {
    use std::collections::BTreeMap;
    let (mut measured, mut bounded, mut noisy) = (0, 0, 0);
    let (mut implicit, mut held, mut apart) = (0, 0, 0);
    let mut skipped: BTreeMap<&Skip, usize> = BTreeMap::new();
    let mut failed: BTreeMap<String, usize> = BTreeMap::new();
    let mut no_kernel = 0;
    for r in rows {
        match &r.outcome {
            Outcome::Measured(m) => {
                measured += 1;
                bounded += usize::from(m.range().0.is_none());
                implicit += usize::from(m.range().0.is_none() && m.held_back.is_none());
                held += usize::from(m.held_back.is_some());
                apart += usize::from(matches!(
                    m.held_back,
                    Some(HoldBack::KernelsDisagree { .. })
                ));
                noisy += usize::from(m.cost.noisy());
            }
            Outcome::Skipped(why) => *skipped.entry(why).or_default() += 1,
            Outcome::BuildError(_) => no_kernel += 1,
            // By kind: "the unroll difference was not positive (-0.4
            // cycles …): noise" once, not once per value.
            Outcome::Failed(f) => *failed.entry(f.kind()).or_default() += 1,
        }
    }
    let secs = wall.as_secs_f64();
    let mut s = format!(
        "TP: {} forms in {secs:.1} s ({:.1} forms/s)\n  measured:   {measured} ({bounded} upper bounds only: {implicit} through an implicit dependency, {held} held back ({apart} of them by two kernels that disagree on a copy; the report says why), {noisy} noisy)\n",
        rows.len(),
        rows.len() as f64 / secs.max(1e-9)
    );
    s.push_str(&format!(
        "  failed:     {}\n",
        failed.values().sum::<usize>()
    ));
    for (why, n) in &failed {
        s.push_str(&format!("    {n:6}  {why}\n"));
    }
    s.push_str(&format!("  no kernel:  {no_kernel}\n"));
    s.push_str(&skipped_lines(skipped.iter().map(|(k, n)| (k, *n))));
    // Every kernel that ran, held back ones too: a clock far off is
    // what holds values back.
    s.push_str(&clock_line(rows.iter().filter_map(|r| match &r.outcome {
        Outcome::Measured(m) => Some(&m.cost),
        Outcome::Failed(f) => f.cost(),
        _ => None,
    })));
    let sigill: Vec<Instr> = rows
        .iter()
        .filter(|r| r.outcome.is_sigill())
        .map(|r| r.form)
        .collect();
    s.push_str(&sigill_net(&sigill));
    s
}

/// A body as the report prints it: each instruction after what the kernel
/// runs right before it ([`crate::arch::Operands::resets`]: a gather's mask
/// set and destination zeroed).
fn body_text(t: &dyn Target, body: &[crate::arch::Inst]) -> Vec<String> {
    let resets = crate::kernel::resets(t, body).unwrap_or_default();
    body.iter()
        .enumerate()
        .flat_map(|(k, i)| {
            let before = resets.get(k).cloned().unwrap_or_default();
            before.into_iter().chain([i.clone()])
        })
        .filter_map(|i| t.print(&i).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::isa::{Arch, Isa};
    use crate::mode::common::is_x87;

    /// A timing of `cycles` per copy of `form`, as a pass measures it.
    fn measured(form: Instr, cycles: f64) -> Measured {
        let timing = crate::measure::Timing {
            ns_per_iter: 1.0,
            iterations: 1,
            spread: 0.0,
            noisy: false,
        };
        Measured {
            cycles,
            copies: 12,
            unrolls: (1, 2),
            cost: Cost {
                ns: 1.0,
                cycles,
                ghz: 1.0,
                clock_drift: 0.0,
                once: timing,
                twice: timing,
                rounds: (0, 0),
                seen_ghz: None,
                clock_fallback: false,
            },
            implicit_dependency: implicit_dependency(target(form.isa().arch()), form),
            body: Vec::new(),
            helper: None,
            held_back: None,
            outcomes: Vec::new(),
        }
    }

    /// A second look that holds a form back takes back the value its
    /// first look wrote, in the database and in the journal's replay; a
    /// failure of a form this run did not measure writes nothing (an
    /// earlier run's value stays).
    #[test]
    fn a_failed_second_look_takes_the_first_value_back() {
        let isa = Isa::get(Arch::X86_64);
        let movnti = isa.instr("MOVNTI_64mr").unwrap();
        let first = Row {
            form: movnti,
            outcome: Outcome::Measured(measured(movnti, 0.146)),
        };
        let second = Row {
            form: movnti,
            outcome: Outcome::Failed(Failure::NotLinear {
                ratio: 1.03,
                expected: 2.0,
                cost: Box::new(measured(movnti, 0.146).cost),
            }),
        };
        let mut entries = Entries::default();
        let mut db = crate::db::Database::default();
        db.merge_throughput(entries.of(&first).unwrap());
        assert_eq!(db.get("MOVNTI_64mr").unwrap().throughput, Some(0.15));
        let back = entries.of(&second).expect("the value is taken back");
        db.merge_throughput(back);
        let e = db.get("MOVNTI_64mr").unwrap();
        assert_eq!(
            (e.throughput, e.throughput_min, e.throughput_max),
            (None, None, None)
        );
        // Once taken back, another failure writes nothing; neither does a
        // failure of a form never measured in this run.
        assert!(entries.of(&second).is_none());
        let other = Row {
            form: isa.instr("MOVNTImr").unwrap(),
            outcome: second.outcome.clone(),
        };
        assert!(entries.of(&other).is_none());
    }

    /// The cost of a pair of clean kernels that ran `once` and `twice`
    /// ns an iteration at `ghz`.
    fn cost(once: f64, twice: f64, ghz: f64) -> Cost {
        let t = |ns: f64| crate::measure::Timing {
            ns_per_iter: ns,
            iterations: 100,
            spread: 0.0,
            noisy: false,
        };
        Cost {
            ns: twice - once,
            cycles: (twice - once) * ghz,
            ghz,
            clock_drift: 0.0,
            once: t(once),
            twice: t(twice),
            rounds: (10, 10),
            seen_ghz: Some(ghz),
            clock_fallback: false,
        }
    }

    /// Two kernels that each ran in a state of their own imply a loop no
    /// loop takes: the form keeps the faster kernel alone as its upper
    /// bound, and says why. A loop's cycle or two, or a long body's
    /// rounds varying by a few percent, do not count; nor does a body
    /// that reads and writes memory, whose shorter kernel may wait on
    /// the round trip every iteration.
    #[test]
    fn kernels_that_disagree_on_a_copy_keep_the_faster_alone() {
        let t = target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        let judged = |name: &str, c: Cost| {
            let form = isa.instr(name).unwrap();
            let body = shape::throughput(t, form, body_copies(t, form)).unwrap();
            let unrolls = unrolls_for(t, &body);
            (
                judge(t, form, &body, Ok(c), unrolls, None),
                body.len(),
                unrolls,
            )
        };
        // zen5's `vcmppd k, xmm, [m]{1to2}`: 8 copies, 48 and 96 a
        // kernel; 28.3 cycles (0.59 a copy) and 48.0 (0.50): their
        // difference, 0.41, leaves the loop 8.6 cycles.
        let (got, copies, unrolls) = judged("VCMPPDZ128rmbi", cost(28.3, 48.0, 1.0));
        assert_eq!((copies, unrolls), (8, (6, 12)));
        let Outcome::Measured(m) = got else {
            panic!("{got:?}")
        };
        assert!((m.cycles - 0.5).abs() < 1e-9, "{m:?}");
        assert_eq!(m.range(), (None, m.cycles));
        let Some(HoldBack::KernelsDisagree {
            difference,
            alone,
            implied_loop,
        }) = m.held_back.clone()
        else {
            panic!("{m:?}")
        };
        assert!((difference - 19.7 / 48.0).abs() < 1e-9);
        assert!((alone.0 - 28.3 / 48.0).abs() < 1e-9 && (alone.1 - 0.5).abs() < 1e-9);
        assert!((implied_loop - 8.6).abs() < 1e-9, "{implied_loop}");
        let why = m.held_back.unwrap().to_string();
        assert!(
            why.contains("0.590 cycles in the shorter, 0.500 in the longer"),
            "{why}"
        );
        assert!(why.contains("8.6 cycles an iteration"), "{why}");
        // The other way round (the longer kernel slower a copy): a
        // negative loop, the shorter kernel the bound.
        let Outcome::Measured(m) = judged("VCMPPDZ128rmbi", cost(24.0, 56.6, 1.0)).0 else {
            panic!()
        };
        assert!(
            matches!(m.held_back, Some(HoldBack::KernelsDisagree { implied_loop, .. })
            if (implied_loop + 8.6).abs() < 1e-9)
        );
        assert!((m.cycles - 0.5).abs() < 1e-9, "{m:?}");
        // A loop of 1.5 cycles, of 3.5 beside 24 (within 15% of the
        // kernel), or of -2.5: a measurement.
        for (once, twice) in [(25.5, 49.5), (27.5, 51.5), (21.5, 45.5)] {
            let Outcome::Measured(m) = judged("VCMPPDZ128rmbi", cost(once, twice, 1.0)).0 else {
                panic!()
            };
            assert_eq!(m.held_back, None, "{once} {twice}");
            assert!((m.cycles - 0.5).abs() < 1e-9);
        }
        // zen4's tied shuffles: 48 copies in 16.0 cycles (0.333 a copy),
        // 96 in 35.4 (0.369): 0.404 a copy and a loop of -3.4, held back.
        let Outcome::Measured(m) = judged("VCMPPDZ128rmbi", cost(16.0, 35.4, 1.0)).0 else {
            panic!()
        };
        assert!(
            matches!(m.held_back, Some(HoldBack::KernelsDisagree { implied_loop, .. })
            if (implied_loop + 3.4).abs() < 1e-9),
            "{m:?}"
        );
        // A 190-cycle body whose loop seems to take 20: within 15%.
        let Outcome::Measured(m) = judged("VDPPSYrri", cost(190.0, 360.0, 1.0)).0 else {
            panic!()
        };
        assert_eq!(m.held_back, None);
        // `add [m], r`: its shorter kernel waits on the round trip.
        let (got, _, unrolls) = judged("ADD64mr", cost(14.2, 17.3, 1.0));
        assert_ne!(unrolls.1, 2 * unrolls.0);
        assert!(
            matches!(got, Outcome::Measured(ref m) if m.held_back.is_none()),
            "{got:?}"
        );
        // `adox` chains its copies through the flag the loop's counter
        // sets again; pushes walk the stack the loop sets back.
        for (form, once, twice) in [("ADOX64rr", 37.0, 85.0), ("PUSH64r", 20.0, 48.0)] {
            let (got, copies, unrolls) = judged(form, cost(once, twice, 1.0));
            assert!(
                (once - (twice - once) / (unrolls.1 - unrolls.0) as f64 * unrolls.0 as f64).abs()
                    > 4.0,
                "{form}: {copies} copies"
            );
            assert!(
                matches!(got, Outcome::Measured(ref m) if m.held_back.is_none()),
                "{got:?}"
            );
        }
    }

    /// A body of read-modify-writes takes the smallest of its kernels'
    /// difference and each kernel alone: its loop hides beside the
    /// stores, and a longer kernel slowed by a state of its own no longer
    /// moves the value by four times its slowing. Other bodies keep the
    /// difference.
    #[test]
    fn read_modify_writes_take_the_smallest_of_the_difference_and_each_kernel() {
        let t = target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        let judged = |name: &str, once: f64, twice: f64| {
            let form = isa.instr(name).unwrap();
            let body = shape::throughput(t, form, body_copies(t, form)).unwrap();
            let unrolls = unrolls_for(t, &body);
            match judge(t, form, &body, Ok(cost(once, twice, 1.0)), unrolls, None) {
                Outcome::Measured(m) => (m.cycles, m.held_back, body.len() * unrolls.0),
                other => panic!("{other:?}"),
            }
        };
        // zen4's `add word [m], imm`: 24 copies in 12.0 cycles, 32 in
        // 12.0 + 4.0 or + 5.8 by run.
        for twice in [16.0, 17.8] {
            let (cycles, held_back, shorter) = judged("ADD16mi", 12.0, twice);
            assert_eq!(shorter, 24);
            assert!((cycles - 0.5).abs() < 1e-9, "{twice}: {cycles}");
            assert_eq!(held_back, None);
        }
        // The shorter kernel waited on the round trip: the difference.
        let (cycles, _, _) = judged("ADD64mr", 14.2, 17.3);
        assert!((cycles - 3.1 / 8.0).abs() < 1e-9, "{cycles}");
        // A plain body keeps a difference above each kernel alone that
        // implies a loop of -2 cycles, within a loop's reach.
        let (cycles, held_back, shorter) = judged("VCMPPDZ128rmbi", 24.0, 50.0);
        assert_eq!((shorter, held_back), (48, None));
        assert!((cycles - 26.0 / 48.0).abs() < 1e-9, "{cycles}");
    }

    /// A body measured at several places of its loop: each kernel's
    /// fastest over them, at one clock; nothing before every place has a
    /// result; the first failure when no place gave a cost.
    #[test]
    fn a_body_at_several_places_takes_each_kernels_fastest() {
        // xeon-cf's `not qword [m]`, 48 and 96 copies: once slow at one
        // place (the front end), twice at the other; 0.50 a copy.
        let a = cost(11.5, 12.0, 4.0); // 46 and 48 cycles: 0.04 a copy
        let b = cost(6.0, 23.5, 4.0); // 24 and 94 cycles: 1.46 a copy
        let got = fastest_placed(&[Some(Ok(a)), Some(Ok(b))])
            .unwrap()
            .unwrap();
        assert_eq!((got.once.ns_per_iter, got.twice.ns_per_iter), (6.0, 12.0));
        assert!((got.cycles / 48.0 - 0.5).abs() < 1e-9, "{got:?}");
        // Another clock at one place: compared in cycles.
        let c = cost(5.0, 20.0, 5.0); // 25 and 100 cycles
        let got = fastest_placed(&[Some(Ok(b)), Some(Ok(c))])
            .unwrap()
            .unwrap();
        assert!((got.cycles - (94.0 - 24.0)).abs() < 1e-9, "{got:?}");
        assert!(fastest_placed(&[Some(Ok(a)), None]).is_none());
        let failed = Err(RunError::NotRecorded);
        assert!(matches!(
            fastest_placed(&[Some(failed.clone()), Some(Ok(b))]),
            Some(Ok(c)) if c.cycles == b.cycles
        ));
        assert!(matches!(
            fastest_placed(&[Some(failed.clone()), Some(failed)]),
            Some(Err(RunError::NotRecorded))
        ));
    }

    #[test]
    fn the_stores_floor_is_a_whole_number_of_stores_a_cycle_counted_up() {
        assert_eq!(whole_rate_floor(0.5), 0.5);
        assert_eq!(whole_rate_floor(0.499), 0.5);
        assert_eq!(whole_rate_floor(0.52), 0.5);
        // A block slowed by a busy sibling (1.6 times) lowers nothing.
        assert_eq!(whole_rate_floor(0.8), 0.5);
        assert_eq!(whole_rate_floor(1.0), 1.0);
        assert_eq!(whole_rate_floor(1.6), 1.0);
        assert!((whole_rate_floor(0.45) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_value_below_the_floor_is_held_back_and_a_held_back_range_is_a_bound() {
        let f = Floor {
            cycles: 0.167,
            probe: "no-ops",
            stores: Some(0.5),
            loads: Some(0.5),
            general_loads: Some(0.25),
        };
        let (store, load, narrow) = (
            Access {
                stores: true,
                ..Access::default()
            },
            Access {
                loads: true,
                wide_load: true,
                ..Access::default()
            },
            Access {
                loads: true,
                ..Access::default()
            },
        );
        let neither = Access::default();
        assert!(f.undercut_by(0.01) && f.undercut_by(0.14));
        assert!(!f.undercut_by(0.16) && !f.undercut_by(0.25));
        let adc = Isa::get(Arch::X86_64).instr("ADC64rr").unwrap();
        // A form that stores is held to the stores' floor as well; one
        // that does not, to the core's only.
        assert_eq!(f.undercut(store, 0.22), Some((0.5, STORES_PROBE)));
        assert_eq!(f.undercut(store, 0.46), None);
        assert_eq!(f.undercut(store, 0.1), Some((0.167, "no-ops")));
        assert_eq!(f.undercut(neither, 0.22), None);
        // A form that loads a vector is held to the vector loads' floor:
        // `vpcmpeqd k, ymm, [m]` at 0.42 where two loads a cycle give 0.50.
        assert_eq!(f.undercut(load, 0.42), Some((0.5, LOADS_PROBE)));
        assert_eq!(f.undercut(load, 0.46), None);
        // Any other load is held to the general-purpose loads' floor:
        // `mov eax, [moffs32]` at 0.22 where four loads a cycle give 0.25.
        assert_eq!(f.undercut(narrow, 0.22), Some((0.25, GENERAL_LOADS_PROBE)));
        assert_eq!(f.undercut(narrow, 0.24), None);
        assert_eq!(f.undercut(load, 0.22), Some((0.5, LOADS_PROBE)));
        let unknown = Floor {
            stores: None,
            loads: None,
            general_loads: None,
            ..f
        };
        assert_eq!(unknown.undercut(store, 0.22), None);
        assert_eq!(unknown.undercut(load, 0.22), None);
        assert_eq!(unknown.undercut(narrow, 0.22), None);
        // Which forms store: what they write, not LLVM's `mayStore`
        // (`prefetchw` has it and only loads: 0.333 on xeon-cf).
        let t = target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        let form = |n: &str| isa.instr(n).unwrap();
        for (name, writes) in [
            ("NOT64m", true),
            ("MOVHPSmr", true),
            ("MOV64mr", true),
            ("PREFETCHW", false),
            ("MOV64rm", false),
            ("ADC64rr", false),
        ] {
            assert_eq!(shape::stores(t, form(name)), writes, "{name}");
        }
        // Which forms load a vector: 16 bytes or more read at once, not
        // a broadcast of 8, a store of 16 or a general-purpose load.
        for (name, wide) in [
            ("VPCMPEQDZ256rm", true),
            ("MOVUPSrm", true),
            ("VADDPDZrm", true),
            ("VADDPDZrmb", false),
            ("MOVUPSmr", false),
            ("MOV64rm", false),
            ("ADDPDrr", false),
        ] {
            assert_eq!(Access::of(t, form(name)).wide_load, wide, "{name}");
        }
        // Which forms load at all: `lea` and `nop [m]` compute an address
        // and read nothing, a store reads nothing.
        for (name, reads) in [
            ("MOV32ao32", true),
            ("MOVZX32rm8", true),
            ("ADD64mr", true),
            ("LEA64r", false),
            ("NOOPL", false),
            ("MOV64mr", false),
        ] {
            assert_eq!(Access::of(t, form(name)).loads, reads, "{name}");
        }
        let mut m = measured(adc, 29.0);
        m.helper = Some(Helper {
            form: adc,
            cycles: 28.99,
            without: 1.0,
        });
        assert_eq!(m.range().1, 1.0);
        assert!(m.range().0.is_some());
        m.held_back = Some(HoldBack::BelowFloor {
            combined: 1.0,
            helper_cycles: 0.9,
            floor: 0.25,
            probe: "no-ops",
        });
        assert_eq!(m.range(), (None, 1.0));
        let e = entry(&Row {
            form: adc,
            outcome: Outcome::Measured(m),
        })
        .unwrap();
        assert_eq!(
            (e.throughput, e.throughput_min, e.throughput_max),
            (None, None, Some(1.0))
        );
    }

    /// On the host: a floor above what a form measures holds it back (a
    /// failure naming the floor), and the real floor holds back nothing
    /// of the cheapest forms.
    #[test]
    fn the_floor_holds_back_what_undercuts_it() {
        let arch = Arch::host().expect("tests run on a host winic supports");
        if crate::testing::emulated() {
            // Under qemu differences are noise: the floor may be anything.
            crate::testing::skip("under an emulator the floor is noise");
            return;
        }
        let t = target(arch);
        let mut opts = Options::default();
        opts.plan.min_run = std::time::Duration::from_micros(500);
        let real = floor(t, &opts).expect("a floor on real hardware");
        assert!(
            real.cycles > 0.02 && real.cycles < 1.0,
            "{real:?}: no core issues faster than 50 per cycle or slower than 1"
        );
        // Every core stores at least once a cycle, none more than eight.
        let stores = real.stores.expect("a store floor on real hardware");
        assert!((0.125..=1.0).contains(&stores), "{real:?}");
        // Vector loads (where the block ran clean): one to four a cycle.
        if let Some(loads) = real.loads {
            assert!((0.25..=1.0).contains(&loads), "{real:?}");
        }
        // General-purpose loads (likewise): one to four a cycle, and no
        // fewer than the vector loads.
        if let Some(general) = real.general_loads {
            assert!((0.25..=1.0).contains(&general), "{real:?}");
            assert!(real.loads.is_none_or(|l| general <= l), "{real:?}");
        }
        let add = t.chain_add().unwrap().form;
        let high = Floor {
            cycles: 100.0,
            probe: "test",
            stores: None,
            loads: None,
            general_loads: None,
        };
        let rows = run(
            t,
            &[add],
            &opts,
            false,
            Some(high),
            &|_| None,
            &mut |_, _, _| {},
            &mut |_| {},
        );
        match &rows[0].outcome {
            Outcome::Failed(why) => assert!(
                matches!(why, Failure::BelowFloor { .. })
                    && why.to_string().starts_with("held back"),
                "{why}"
            ),
            o => panic!("{o:?}"),
        }
        let rows = run(
            t,
            &[add],
            &opts,
            false,
            Some(real),
            &|_| None,
            &mut |_, _, _| {},
            &mut |_| {},
        );
        assert!(
            matches!(rows[0].outcome, Outcome::Measured(_)),
            "{:?}",
            rows[0].outcome
        );
    }

    #[test]
    fn x87_and_implicit_dependencies_are_recognised() {
        let isa = Isa::get(Arch::X86_64);
        let t = target(Arch::X86_64);
        let f = |n: &str| isa.instr(n).unwrap();
        assert!(is_x87(f("ADD_FPrST0")));
        assert!(!is_x87(f("ADD64rr")));
        // AArch64 FP forms read FPCR: not x87.
        let a64 = Isa::get(Arch::Aarch64);
        assert!(!is_x87(a64.instr("FADDDrr").unwrap()));
        assert!(a64
            .instr("FADDDrr")
            .unwrap()
            .implicit_uses()
            .any(|r| r.name() == "FPCR"));
        assert!(implicit_dependency(t, f("ADD64rr")).is_empty());
        let adc: Vec<&str> = implicit_dependency(t, f("ADC64rr"))
            .iter()
            .map(|r| r.name())
            .collect();
        assert_eq!(adc, ["EFLAGS"]);
    }

    /// `add al, imm8` reads and writes AL, which no compare writes; its
    /// implicit writers (`rdtsc`, `lahf`) cost more than the form, so it
    /// was held back. A move of an immediate onto all of RAX (a byte move
    /// would merge) follows every copy instead.
    #[test]
    fn an_accumulator_is_broken_by_a_move_onto_the_whole_register() {
        let t = target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        let add = isa.instr("ADD8i8").unwrap();
        let dep = implicit_dependency(t, add);
        assert_eq!(dep.iter().map(|r| r.name()).collect::<Vec<_>>(), ["AL"]);
        let writers = immediate_writers(t, dep[0]);
        let (mov, k, r) = *writers
            .iter()
            .find(|(f, _, _)| f.name() == "MOV64ri32")
            .expect("mov r64, imm32 writes RAX whole");
        assert_eq!(r.name(), "RAX");
        assert!(
            writers.iter().all(|(_, _, r)| r.name() != "AL"),
            "a byte move merges into RAX: {writers:?}"
        );
        let body = interleaved(t, add, mov, Some((k, r))).unwrap();
        assert!(body.len() >= 8, "{} instructions", body.len());
        for pair in body.chunks(2) {
            assert_eq!(pair[0].form.name(), "ADD8i8");
            let text = t.print(&pair[1]).unwrap();
            assert!(text.starts_with("mov rax,"), "{text}");
        }
    }

    #[test]
    fn an_implicit_dependency_is_broken_by_a_compare() {
        let t = target(Arch::X86_64);
        let adc = Isa::get(Arch::X86_64).instr("ADC64rr").unwrap();
        let cmp = Isa::get(Arch::X86_64).instr("CMP64rr").unwrap();
        // The interleaved body: adc, helper, adc, helper … on registers of
        // their own.
        let body = interleaved(t, adc, cmp, None).unwrap();
        assert!(body.len() >= 8, "{} instructions", body.len());
        for pair in body.chunks(2) {
            assert_eq!(pair[0].form.name(), "ADC64rr");
            assert_eq!(pair[1].form.name(), "CMP64rr");
        }
        // A compare with an immediate reads one register: its copies all
        // read the same one, so every adc gets its helper.
        let cmp_imm = Isa::get(Arch::X86_64).instr("CMP32ri").unwrap();
        assert_eq!(
            interleaved(t, adc, cmp_imm, None).unwrap().len(),
            2 * shape::COPIES
        );
        let flags = implicit_dependency(t, adc)[0];
        let c = helper_candidates(t, flags);
        assert!(c[0].has(crate::isa::Flag::IsCompare), "{:?}", c[0]);
        assert!(!c.iter().any(|f| f.name() == "ADC64rr"));
        if Arch::host() != Some(Arch::X86_64) {
            crate::testing::skip("its timed part runs x86 kernels, on an x86-64 host only");
            return;
        }
        let mut opts = Options::default();
        opts.plan.min_run = std::time::Duration::from_micros(500);
        opts.plan.reps = 3;
        let mut seen = Vec::new();
        let rows = run(
            t,
            &[adc],
            &opts,
            false,
            None,
            &|_| None,
            &mut |_, _, _| {},
            &mut |r| seen.push(r.form.name()),
        );
        // Reported twice: the upper bound first, then with the helper (and
        // once more in between when a noisy first measurement was taken
        // again and changed).
        assert!((2..=3).contains(&seen.len()), "{seen:?}");
        assert!(seen.iter().all(|n| *n == "ADC64rr"), "{seen:?}");
        let Outcome::Measured(m) = &rows[0].outcome else {
            panic!("{:?}", rows[0].outcome)
        };
        let h = m.helper.as_ref().expect("a helper");
        assert!(h.form.has(crate::isa::Flag::IsCompare), "{:?}", h.form);
        let (low, high) = m.range();
        assert!(low.unwrap() <= high && high > 0.0, "{low:?} {high}");
        let e = entry(&rows[0]).unwrap();
        assert!(e.throughput_min.unwrap() <= e.throughput_max.unwrap());
    }

    #[test]
    fn every_form_gets_one_row_in_order() {
        let arch = Arch::host().expect("tests run on a host winic supports");
        let t = target(arch);
        let isa = Isa::get(arch);
        let names: &[&str] = match arch {
            Arch::X86_64 => &["ADD64rr", "SYSCALL", "IMUL64rr", "POPF64"],
            Arch::Aarch64 => &["ADDXrs", "SVC", "MADDXrrr", "CPYFP"],
            Arch::Riscv64 => &["ADD", "ECALL", "MUL", "C_LDSP"],
        };
        let forms: Vec<Instr> = names.iter().map(|n| isa.instr(n).unwrap()).collect();
        let mut opts = Options::default();
        opts.plan.min_run = std::time::Duration::from_micros(500);
        opts.plan.reps = 3;
        let mut order = Vec::new();
        let rows = run(
            t,
            &forms,
            &opts,
            false,
            None,
            &|_| None,
            &mut |_, _, _| {},
            &mut |r| order.push(r.form.name()),
        );
        // In order; then again for measured forms taken a second time
        // (noisy the first time: another process, or the sibling thread).
        assert_eq!(order[..names.len()], *names);
        assert!(
            order[names.len()..]
                .iter()
                .all(|n| *n == names[0] || *n == names[2]),
            "{order:?}"
        );
        assert_eq!(rows.len(), 4);
        // Under qemu (WINIC_EMULATED) times mean nothing: a difference
        // that is not positive, or a body twice that took hardly longer
        // than once, is then a failure with that reason.
        let emulated = crate::testing::emulated();
        for (r, measured) in rows.iter().zip([true, false, true, false]) {
            match (&r.outcome, measured) {
                (Outcome::Measured(m), true) => {
                    assert_eq!(m.copies, shape::COPIES);
                    assert!(m.cycles.is_finite() && m.cycles > 0.0, "{m:?}");
                    assert_eq!(m.body.len(), shape::COPIES);
                }
                (
                    Outcome::Failed(
                        Failure::NotPositive { .. }
                        | Failure::NotLinear { .. }
                        | Failure::Child(crate::exec::ChildError::Garbage(_)),
                    ),
                    true,
                ) if emulated => {}
                (Outcome::Skipped(_), false) => {}
                (o, _) => panic!("{}: {o:?}", r.form.name()),
            }
        }
    }
}
