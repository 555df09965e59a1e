//! LAT mode: every sub-latency of every form, in cycles.
//!
//! Three steps (WINIC thesis §3.3, and beyond it):
//!
//! 1. **Symmetric** sub-latencies, whose two ends can sit on one register:
//!    a chain of copies of the form ([`chain::chain`] with one step), with
//!    a helper that breaks an implicit dependency off the chain (adc's
//!    flags) interleaved.
//! 2. **Asymmetric** ones (r64 → flags, xmm → r64): grouped by the types
//!    of their ends (register file and width, or the flags). For each
//!    pair of opposite types, up to [`CANDIDATES`] forms of each
//!    direction are chained with each other, and the pair with the
//!    smallest sum becomes the helper of its direction; every other
//!    sub-latency of a type a → b is chained with the helper b → a, or,
//!    when no form goes from b straight back to a, with two helpers
//!    b → c → a. Ends of one type that cannot share a register (fixed
//!    implicit registers, early-clobber outputs) take the fastest exact
//!    symmetric sub-latency of that type as helper.
//! 3. **Equations**: every chain is an equation over the sub-latencies on
//!    it; [`solve::solve`] narrows all of them at once. A helper pair
//!    summing to 2 makes both 1 and everything measured with them exact,
//!    as in the thesis; chains through three types pin more.

pub mod chain;
pub mod solve;

use super::common as tp;
use super::reason::{ChainGap, Failure, Skip};
use crate::arch::Target;
use crate::exec::run::{batch_costs, Cost, Options};
use crate::isa::{Instr, Reg};
use crate::kernel;
use chain::{Breaker, Chain, Edge, End};
use solve::{Bounds, Equation};
use std::collections::BTreeMap;
use std::fmt;

/// Forms of each direction tried against each other when the helpers of a
/// pair of types are chosen.
pub const CANDIDATES: usize = 4;

/// One measured chain.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// The sub-latencies on the cycle, in body order (the first is the one
    /// measured, the others its helpers).
    pub steps: Vec<Edge>,
    /// The form interleaved to break an implicit dependency, if any.
    pub breaker: Option<Breaker>,
    /// Laps of the cycle in the body.
    pub laps: usize,
    /// Cycles of one lap: the sum of the sub-latencies on the cycle.
    pub cycles: f64,
    /// Why `cycles` is only an upper bound of that sum.
    pub bound: Option<String>,
    /// The body, one instruction per line.
    pub body: Vec<String>,
    /// The raw timing.
    pub cost: Cost,
}

/// What LAT found for one sub-latency.
#[derive(Clone, Debug)]
pub struct SubLatency {
    /// The sub-latency.
    pub edge: Edge,
    /// Its bounds in cycles (whole cycles, or to 0.01 where a chain
    /// through it alone measured a fraction: see [`solve::read_alone`]),
    /// or why it has none.
    pub value: Result<(f64, f64), Failure>,
    /// Without a value: one lap of the chain that ran and failed (a
    /// SIGILL, noise), else empty.
    pub died: Vec<String>,
    /// The measurements whose chains run through it (indices into
    /// [`Run::measurements`]).
    pub chains: Vec<usize>,
    /// For a range between two register files (see [`between_files`])
    /// that no exact value between them anchors: the two files. Its
    /// split is not observable; only its sums around cycles are.
    pub unobservable: Option<(&'static str, &'static str)>,
}

/// What LAT found for one form.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Its sub-latencies (some may have failed, each with its reason), and
    /// implicit registers left out (control and status registers).
    Measured(Vec<SubLatency>, Vec<Reg>),
    /// Not measured, on purpose, with the reason.
    Skipped(Skip),
    /// No instruction of the form could be encoded or decode-checked,
    /// with the reason.
    NoKernel(String),
}

/// One form's result.
#[derive(Clone, Debug)]
pub struct Row {
    /// The form.
    pub form: Instr,
    /// The outcome.
    pub outcome: Outcome,
    /// Forms to give `winic LAT -i` to measure its values again.
    pub reproduce: Vec<Instr>,
}

impl Row {
    /// Whether a chain of one of its sub-latencies died of SIGILL.
    pub fn is_sigill(&self) -> bool {
        match &self.outcome {
            Outcome::Measured(subs, _) => subs
                .iter()
                .any(|s| matches!(&s.value, Err(why) if why.is_sigill())),
            _ => false,
        }
    }
}

/// Whether every measured sub-latency of `subs` runs from a register into
/// memory (a store): its `latency` is 0 ([`crate::db::latency_of`]).
pub fn only_into_memory(subs: &[SubLatency]) -> bool {
    let measured: Vec<&SubLatency> = subs.iter().filter(|x| x.value.is_ok()).collect();
    !measured.is_empty() && measured.iter().all(|x| into_memory(&x.edge))
}

/// A whole run: rows in the order of the forms, and every chain measured.
pub struct Run {
    /// One row per form.
    pub rows: Vec<Row>,
    /// Every chain measured.
    pub measurements: Vec<Measurement>,
    /// Equations dropped as contradicting the others (their measurements).
    pub contradictions: Vec<usize>,
}

/// Whether `e` runs from the address of a memory access (a pointer chase).
pub fn through_address(t: &dyn Target, e: &Edge) -> bool {
    match e.source {
        End::Op(k) => {
            t.address_source(e.form, k) && crate::mode::common::accesses_memory(t, e.form)
        }
        End::Implicit(_) | End::Memory(_) => false,
    }
}

/// The type of one end of a sub-latency: what a helper must read or
/// write to join it in a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegType {
    /// A register operand of a file (named by its first register: `ZMM0`
    /// for every xmm, ymm and zmm) at a width in bits.
    File {
        /// The outermost register of the file ([`file_name`]).
        file: &'static str,
        /// The operand's width.
        bits: u32,
    },
    /// A register by name alone: the flags, an implicit register of no
    /// class, a class without members.
    Named(&'static str),
    /// The memory a store writes.
    Memory,
    /// An operand of no register class.
    Unknown,
}

impl RegType {
    /// The register file: `ZMM0` of `ZMM0:128`; a named register's name;
    /// `memory` and `?` for the others.
    pub fn file(self) -> &'static str {
        match self {
            RegType::File { file, .. } => file,
            RegType::Named(name) => name,
            RegType::Memory => "memory",
            RegType::Unknown => "?",
        }
    }
}

impl fmt::Display for RegType {
    /// As the report names it: `ZMM0:128`, `EFLAGS`, `memory`, `?`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegType::File { file, bits } => write!(f, "{file}:{bits}"),
            RegType::Named(name) => f.write_str(name),
            RegType::Memory => f.write_str("memory"),
            RegType::Unknown => f.write_str("?"),
        }
    }
}

impl Ord for RegType {
    /// By name as displayed (`RAX:64` before `RAX:8`), the order LAT has
    /// always planned its helpers in: a run plans as the recorded runs
    /// did, so they replay.
    fn cmp(&self, other: &RegType) -> std::cmp::Ordering {
        if self == other {
            return std::cmp::Ordering::Equal;
        }
        self.to_string().cmp(&other.to_string())
    }
}

impl PartialOrd for RegType {
    fn partial_cmp(&self, other: &RegType) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The type of one end of a sub-latency: the flags by name; a register
/// operand by register file (the outermost register containing its
/// class's first member) and width, `ZMM0:128` for an xmm operand; an
/// implicit data register as the largest class holding it (`CL` as
/// `RAX:8`, so that helpers with an 8-bit register operand fit it).
pub fn type_of(form: Instr, end: End) -> RegType {
    let class = match end {
        End::Memory(_) => return RegType::Memory,
        End::Implicit(r) if chain::is_flags(r) => return RegType::Named(r.name()),
        End::Implicit(r) => form
            .isa()
            .classes()
            .filter(|c| c.contains(r))
            .max_by_key(|c| c.members().count()),
        End::Op(k) => {
            let ty = form.mc_operands()[k].ty;
            ty.class().or_else(|| ty.address_class())
        }
    };
    let Some(class) = class else {
        return match end {
            End::Implicit(r) => RegType::Named(r.name()),
            End::Op(_) | End::Memory(_) => RegType::Unknown,
        };
    };
    let Some(first) = class.members().next() else {
        return RegType::Named(class.name());
    };
    // A tuple of registers a form writes (AVX-512's mask pair `k0:k1`,
    // AArch64's `{v0, v1}`) as its first part, which the next step reads
    // ([`chain::partner`]). A tuple read stays a type of its own: no
    // helper writes all of it.
    // Asked of every edge, often: the operand list only for a tuple.
    let written = || matches!(end, End::Op(k) if form.mc_operands()[k].operand.is_def());
    let (first, bits) = match first.sub_regs().next() {
        Some(part) if first.is_tuple() && written() => {
            (part, class.bits() / first.sub_regs().count() as u32)
        }
        _ => (first, class.bits()),
    };
    RegType::File {
        file: file_name(form.isa(), first),
        bits,
    }
}

/// The register file holding `r`, named by its first register: the
/// outermost non-tuple register containing the first member of the
/// largest class holding `r`. Mask operands (`VK2WM`, k1–k7) and plain
/// k operands (`VK16`, k0–k7) are both `K0`; `GR32_NOAX` is `RAX`.
fn file_name(isa: &'static crate::isa::Isa, r: Reg) -> &'static str {
    let first = isa
        .classes()
        .filter(|c| c.contains(r))
        .max_by_key(|c| (c.members().count(), std::cmp::Reverse(c.name())))
        .and_then(|c| c.members().next())
        .unwrap_or(r);
    isa.registers()
        .filter(|x| !x.is_tuple() && (x.contains(first) || *x == first))
        .max_by_key(|x| x.all_sub_regs().count())
        .unwrap_or(first)
        .name()
}

/// The two register files (`K0`, `ZMM0`; the flags count as one) of a
/// sub-latency whose ends lie in different files, else `None`.
///
/// Such a value can only be bounded, not always pinned: every timing loop
/// measures sums around cycles, and a cycle crosses from file a to file b
/// as often as back, so adding c to every a -> b sub-latency and taking c
/// from every b -> a one changes no measurement. Only the floor of 1
/// cycle per sub-latency fixes the split, when some cycle through both
/// files takes 1 cycle per step (the thesis' pair summing to 2).
pub fn between_files(e: &Edge) -> Option<Files> {
    crossing(type_of(e.form, e.source), type_of(e.form, e.target))
}

/// Two register files, by the names [`RegType::file`] gives.
type Files = (&'static str, &'static str);

/// The files of types `a` and `b` when they differ. Memory is no file: a
/// chain into it comes back through a load, and the report says why its
/// value is a range (see [`through_memory_bound`]).
fn crossing(a: RegType, b: RegType) -> Option<Files> {
    if a == RegType::Memory || b == RegType::Memory {
        return None;
    }
    let (fa, fb) = (a.file(), b.file());
    (fa != fb).then_some((fa, fb))
}

/// A job: the steps of a chain and its body.
struct Job {
    steps: Vec<Edge>,
    breaker: Option<Breaker>,
    chain: Chain,
}

/// Why a chain has no measurement, with one lap of its body when it ran
/// and failed (a SIGILL, noise), for the report: no command rebuilds a
/// LAT chain, and a user reporting a fault needs what ran.
#[derive(Clone, Debug)]
struct Failed {
    why: Failure,
    lap: Vec<String>,
}

impl From<Failure> for Failed {
    fn from(why: Failure) -> Failed {
        Failed {
            why,
            lap: Vec::new(),
        }
    }
}

/// Measures `jobs`, calling `progress` after each; returns a measurement
/// or the reason per job.
fn measure(
    t: &dyn Target,
    jobs: &[Job],
    opts: &Options,
    label: &str,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Vec<Result<Measurement, Failed>> {
    let mut out: Vec<Result<Measurement, Failed>> =
        vec![Err(Failure::Unbounded.into()); jobs.len()];
    let make = |i: usize| tp::chain_pair(t, &jobs[i].chain.body);
    // A body may be reported twice (a second chance after a failed or
    // noisy first measurement): progress counts it once.
    let mut reported = vec![false; jobs.len()];
    let mut done = 0;
    let width = |i: usize| kernel::widest_bits(&jobs[i].chain.body);
    batch_costs(t, jobs.len(), &make, &width, opts, &mut |i, got| {
        let j = &jobs[i];
        let body: Vec<String> = j
            .chain
            .body
            .iter()
            .filter_map(|i| t.print(i).ok())
            .collect();
        let failed = |why: Failure| Failed {
            why,
            lap: body[..body.len() / j.chain.laps.max(1)].to_vec(),
        };
        out[i] = match got {
            Ok(cost) if !cost.positive() => Err(failed(Failure::NotPositive {
                cycles: cost.cycles,
                cost: Box::new(cost),
            })),
            Ok(cost) => Ok(Measurement {
                steps: j.steps.clone(),
                breaker: j.breaker,
                laps: j.chain.laps,
                cycles: cost.cycles
                    / (tp::unroll_for_len(j.chain.body.len()) * j.chain.laps) as f64,
                bound: j.chain.bound.clone(),
                body: body.clone(),
                cost,
            }),
            Err(e) => Err(failed(Failure::of_run(e))),
        };
        if !std::mem::replace(&mut reported[i], true) {
            done += 1;
            progress(done, jobs.len(), &format!("{label} {}", j.steps[0].label()));
        }
    });
    out
}

/// The job measuring `steps` (with `breaker`), or why there is none.
fn job(t: &dyn Target, steps: Vec<Edge>, breaker: Option<Breaker>) -> Result<Job, Failure> {
    let chain = chain::chain(t, &steps, breaker).map_err(|why| Failure::NoChain {
        gap: ChainGap::Unbuildable,
        detail: Some(why),
    })?;
    kernel::build(t, &chain.body, 1).map_err(|e| Failure::NoKernel(e.to_string()))?;
    Ok(Job {
        steps,
        breaker,
        chain,
    })
}

/// A chain to measure: a sub-latency's index (whose failure it is), its
/// steps, its breaker.
type Plan = (usize, Vec<Edge>, Option<Breaker>);

/// Builds the chain of each plan (a sub-latency's index, the steps, the
/// breaker) and measures those that build: for each index its measurement
/// or why it has none, in the order of `plans`.
fn measure_each(
    t: &dyn Target,
    plans: Vec<Plan>,
    opts: &Options,
    label: &str,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Vec<(usize, Result<Measurement, Failed>)> {
    let mut jobs = Vec::new();
    let mut out: Vec<(usize, Option<Result<Measurement, Failed>>)> = Vec::new();
    for (u, steps, breaker) in plans {
        match job(t, steps, breaker) {
            Ok(j) => {
                jobs.push(j);
                out.push((u, None));
            }
            Err(why) => out.push((u, Some(Err(why.into())))),
        }
    }
    let mut measured = measure(t, &jobs, opts, label, progress).into_iter();
    out.into_iter()
        .map(|(u, r)| {
            (
                u,
                r.unwrap_or_else(|| measured.next().expect("one per job")),
            )
        })
        .collect()
}

/// The breaker of a self chain through `e`: a form writing, without
/// reading, an implicit register the form reads and writes but the chain
/// does not run through. A cheap one, as its cost is in every lap: a
/// compare (the flags) or a move of an immediate put on the register
/// (`mov rax, imm32` for adc's AX), before other implicit writers
/// (`rdtsc`, whose 36 cycles on Zen 3 made adc's flags -> flags 36).
fn breaker_for(t: &dyn Target, e: &Edge) -> Option<Breaker> {
    let on_chain = |r: Reg| {
        [e.source, e.target]
            .iter()
            .any(|end| matches!(end, End::Implicit(x) if t.aliases(*x, r)))
    };
    let reg = tp::implicit_dependency(t, e.form)
        .into_iter()
        .find(|r| !on_chain(*r))?;
    let mut c: Vec<Breaker> = tp::helper_candidates(t, reg)
        .into_iter()
        .map(|form| Breaker { form, onto: None })
        .collect();
    c.extend(
        tp::immediate_writers(t, reg)
            .into_iter()
            .map(|(form, k, r)| Breaker {
                form,
                onto: Some((k, r)),
            }),
    );
    // Cheap first, then those reading no implicit register (`cmp ax,
    // imm16` reads AX) and with the widest registers (no partial-register
    // merge).
    c.sort_by_key(|b| {
        (
            !(b.form.has(crate::isa::Flag::IsCompare) || b.onto.is_some()),
            b.form.implicit_uses().count(),
            std::cmp::Reverse(tp::widest_operand(b.form)),
            b.form.name(),
        )
    });
    c.into_iter()
        .find(|h| chain::chain(t, &[*e], Some(*h)).is_ok_and(|c| c.bound.is_none()))
}

/// Measures every sub-latency of `forms`. `progress(done, total, what)`
/// is called as chains finish (per phase); `row` with each form's result
/// as soon as it is final (forms with only symmetric sub-latencies after
/// the first phase, the others at the end).
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    x87: bool,
    progress: &mut dyn FnMut(usize, usize, &str),
    row: &mut dyn FnMut(&Row, &[Measurement]),
) -> Run {
    let mut lat = Lat::plan(t, forms, opts, x87, row);
    // 1. Symmetric.
    let symmetric = lat.symmetric(progress);
    if crate::interrupt::requested() {
        return lat.stopped();
    }
    // Forms whose sub-latencies are all symmetric are final now.
    let (bounds, _) = solve::solve(lat.all.len(), &lat.equations);
    let is_symmetric = lat.is_symmetric.clone();
    lat.report(
        &bounds,
        None,
        &[],
        &|ids| ids.iter().all(|&u| is_symmetric[u]),
        row,
    );
    // 2. Asymmetric: helpers per pair of types, then every other
    // sub-latency with the helpers back.
    let helpers = lat.helpers(&symmetric, &bounds, progress);
    lat.asymmetric(&helpers, &symmetric, &bounds, progress);
    if crate::interrupt::requested() {
        return lat.stopped();
    }
    lat.neutral_chases(&helpers, &symmetric, &bounds, progress);
    if crate::interrupt::requested() {
        return lat.stopped();
    }
    let through_memory = lat.through_memory(progress);
    if crate::interrupt::requested() {
        return lat.stopped();
    }
    lat.fastest_pairs(&helpers, progress);
    if crate::interrupt::requested() {
        return lat.stopped();
    }
    // 3. All equations at once.
    lat.solve_all(&through_memory, &helpers.types, row)
}

/// A LAT run as it goes: every sub-latency of its forms, the chains
/// measured and their equations, and the rows reported.
struct Lat<'a> {
    t: &'a dyn Target,
    forms: &'a [Instr],
    opts: &'a Options,
    rows: Vec<Option<Row>>,
    /// Every sub-latency of the run: (form index, edge).
    all: Vec<(usize, Edge)>,
    /// Per form, the registers left out of its sub-latencies.
    left_out: Vec<Vec<Reg>>,
    index: std::collections::HashMap<(u32, End, End), usize>,
    /// Per form, its sub-latencies (indices into `all`).
    by_form: Vec<Vec<usize>>,
    why_not: Vec<Option<Failed>>,
    measurements: Vec<Measurement>,
    equations: Vec<Equation>,
    /// Per sub-latency, the measurements on whose chains it lies.
    on: Vec<Vec<usize>>,
    /// Per sub-latency, whether a chain of copies of its form times it.
    is_symmetric: Vec<bool>,
}

/// The helpers of the asymmetric step: the types of every sub-latency,
/// the asymmetric ones grouped by their pair of types, the helper back
/// for each pair, the fastest pair measured per pair of types.
struct Helpers {
    types: Vec<(RegType, RegType)>,
    groups: BTreeMap<(RegType, RegType), Vec<usize>>,
    helper: BTreeMap<(RegType, RegType), usize>,
    best: BTreeMap<(RegType, RegType), (f64, usize, usize)>,
}

impl<'a> Lat<'a> {
    /// Every form's sub-latencies; forms skipped or without a kernel get
    /// their rows at once.
    fn plan(
        t: &'a dyn Target,
        forms: &'a [Instr],
        opts: &'a Options,
        x87: bool,
        row: &mut dyn FnMut(&Row, &[Measurement]),
    ) -> Lat<'a> {
        let mut rows: Vec<Option<Row>> = vec![None; forms.len()];
        let mut all: Vec<(usize, Edge)> = Vec::new();
        let mut left_out: Vec<Vec<Reg>> = vec![Vec::new(); forms.len()];
        for (k, &form) in forms.iter().enumerate() {
            let (edges, left) = chain::edges(t, form);
            match unmeasured(t, form, x87, edges.is_empty()) {
                Some(outcome) => {
                    let r = Row {
                        form,
                        outcome,
                        reproduce: vec![form],
                    };
                    row(&r, &[]);
                    rows[k] = Some(r);
                }
                None => {
                    left_out[k] = left;
                    all.extend(edges.into_iter().map(|e| (k, e)));
                }
            }
        }
        let index = all
            .iter()
            .enumerate()
            .map(|(u, (_, e))| (edge_key(e), u))
            .collect();
        let mut by_form: Vec<Vec<usize>> = vec![Vec::new(); forms.len()];
        for (u, (k, _)) in all.iter().enumerate() {
            by_form[*k].push(u);
        }
        let is_symmetric = all
            .iter()
            .map(|(_, e)| chain::self_chain_possible(t, e))
            .collect();
        Lat {
            t,
            forms,
            opts,
            rows,
            why_not: vec![None; all.len()],
            on: vec![Vec::new(); all.len()],
            all,
            left_out,
            index,
            by_form,
            measurements: Vec::new(),
            equations: Vec::new(),
            is_symmetric,
        }
    }

    /// Keeps a measured chain: its equation over the sub-latencies on it.
    fn record(&mut self, m: Measurement) {
        let ids: Vec<usize> = m
            .steps
            .iter()
            .filter_map(|e| self.index.get(&edge_key(e)).copied())
            .collect();
        for &u in &ids {
            self.on[u].push(self.measurements.len());
        }
        // How the lap reads (whole cycles, a fraction, an upper bound)
        // is solve.rs's: it has the other chains.
        // A chain of a register copy alone under one cycle is its
        // elimination at rename (latency 0, see [`solve::read_alone`]).
        let eliminable = ids.len() == 1 && m.steps[0].form.is_register_copy();
        self.equations.push(Equation {
            unknowns: ids,
            cycles: m.cycles,
            exact: m.bound.is_none(),
            eliminable,
        });
        self.measurements.push(m);
    }

    /// Step 1: every symmetric sub-latency, as a chain of copies of its
    /// form; the symmetric ones.
    fn symmetric(&mut self, progress: &mut dyn FnMut(usize, usize, &str)) -> Vec<usize> {
        let t = self.t;
        let symmetric: Vec<usize> = (0..self.all.len())
            .filter(|&u| self.is_symmetric[u])
            .collect();
        let plans = symmetric
            .iter()
            .map(|&u| (u, vec![self.all[u].1], breaker_for(t, &self.all[u].1)))
            .collect();
        self.measure_and_record(plans, "symmetric", progress);
        symmetric
    }

    /// Measures `plans` and records each measurement, or why a
    /// sub-latency has none. A lap that reads as no whole number
    /// ([`solve::second_look`]) is timed once more and both are recorded:
    /// a fraction stands only when both agree, a whole reading pins what
    /// the other only bounds (solve.rs), so a lap that a loaded host made
    /// 2.77 instead of 3 is not written as 2.77.
    fn measure_and_record(
        &mut self,
        plans: Vec<Plan>,
        label: &str,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) {
        let mut again = Vec::new();
        for (u, got) in measure_each(self.t, plans, self.opts, label, progress) {
            match got {
                Ok(m) => self.record_marking(m, &mut again),
                Err(f) => self.why_not[u] = Some(f),
            }
        }
        self.look_again(again, progress);
    }

    /// [`Lat::record`], and the chain added to `again` when its lap reads
    /// as no whole number ([`solve::second_look`], judged on the equation
    /// `record` made of it, as the solver reads it).
    fn record_marking(&mut self, m: Measurement, again: &mut Vec<Plan>) {
        self.record(m);
        if self.equations.last().is_some_and(solve::second_look) {
            let m = self.measurements.last().expect("recorded");
            again.push((0, m.steps.clone(), m.breaker));
        }
    }

    /// Times the chains of `again` once more ([`Lat::record_marking`])
    /// and records each second timing beside the first. A second timing
    /// that fails leaves the first alone.
    fn look_again(&mut self, again: Vec<Plan>, progress: &mut dyn FnMut(usize, usize, &str)) {
        for (_, got) in measure_each(self.t, again, self.opts, "fractions again", progress) {
            if let Ok(m) = got {
                self.record(m);
            }
        }
    }

    /// Stopped by the user: chains not measured are no results; what is
    /// final (the skipped forms) was reported.
    fn stopped(self) -> Run {
        Run {
            rows: self.rows.into_iter().flatten().collect(),
            measurements: self.measurements,
            contradictions: Vec::new(),
        }
    }

    /// Reports the row of every form not reported yet whose
    /// sub-latencies `now` takes, by `bounds`.
    fn report(
        &mut self,
        bounds: &[Bounds],
        crossings: Option<&[Option<Files>]>,
        contradicted: &[usize],
        now: &dyn Fn(&[usize]) -> bool,
        row: &mut dyn FnMut(&Row, &[Measurement]),
    ) {
        for k in 0..self.forms.len() {
            if self.rows[k].is_some() || !now(&self.by_form[k]) {
                continue;
            }
            let r = form_row(
                self.forms[k],
                &self.by_form[k],
                &self.all,
                bounds,
                &self.why_not,
                &self.on,
                &self.measurements,
                &self.left_out[k],
                crossings,
                contradicted,
            );
            row(&r, &self.measurements);
            self.rows[k] = Some(r);
        }
    }

    /// Whether sub-latency `e` can serve as a helper: a form with no
    /// implicit data register (`add ax, imm16` writes AX besides its
    /// operand: chained with a form reading AX it adds a second path;
    /// flags and control registers such as FPCR are fine), with no
    /// implicit dependency off their chain (adc's flags -> register is a
    /// helper, its register -> register is not).
    fn simple(&self, e: &Edge) -> bool {
        let t = self.t;
        let on_chain = |r: Reg| {
            [e.source, e.target]
                .iter()
                .any(|x| matches!(x, End::Implicit(i) if t.aliases(*i, r)))
        };
        let f = e.form;
        // A pointer chase is no helper: it needs its own way back.
        !through_address(t, e)
            && !chain::neutral_chase(t, e)
            && tp::implicit_dependency(t, f).into_iter().all(on_chain)
            && f.implicit_uses()
                .chain(f.implicit_defs())
                .all(|r| chain::is_flags(r) || !chain::chainable(t, r))
    }

    /// Step 2a: the helpers back for every pair of types of the
    /// asymmetric sub-latencies: within one register file the fastest
    /// exact symmetric sub-latency of that file; across files, the
    /// candidates of both directions measured against each other.
    fn helpers(
        &mut self,
        symmetric: &[usize],
        bounds: &[Bounds],
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Helpers {
        let t = self.t;
        let all = &self.all;
        let types: Vec<(RegType, RegType)> = all
            .iter()
            .map(|(_, e)| (type_of(e.form, e.source), type_of(e.form, e.target)))
            .collect();
        let mut groups: BTreeMap<(RegType, RegType), Vec<usize>> = BTreeMap::new();
        for u in (0..all.len()).filter(|&u| {
            !self.is_symmetric[u] && !into_memory(&all[u].1) && !chain::neutral_chase(t, &all[u].1)
        }) {
            groups.entry(types[u]).or_default().push(u);
        }
        // How fast a form is where it is known: its slowest exact symmetric
        // sub-latency (adc's 1 before rcr's).
        let speed: Vec<i64> = self
            .by_form
            .iter()
            .map(|ids| {
                ids.iter()
                    .filter(|&&u| self.is_symmetric[u] && bounds[u].exact())
                    .map(|&u| bounds[u].lo)
                    .max()
                    .unwrap_or(i64::MAX)
            })
            .collect();
        let candidates = |u: &[usize]| -> Vec<usize> {
            let mut c: Vec<usize> = u
                .iter()
                .copied()
                .filter(|&u| self.simple(&all[u].1))
                .collect();
            // Among equally fast forms, those reading no operand they write
            // (`cmp cl, dl`, `vaddpd`) first: a two-address helper (`add cl,
            // dl`) may give the chain a second path through its destination.
            c.sort_by_key(|&u| {
                let f = all[u].1.form;
                (
                    speed[all[u].0],
                    f.operands().any(|o| o.tied_to().is_some()),
                    f.mc_operands().len(),
                    f.name(),
                )
            });
            // Different mnemonics first: they differ more than widths of one.
            let mut out: Vec<usize> = Vec::new();
            for &u in &c {
                let m = all[u].1.form.mnemonic();
                if !out.iter().any(|&o| all[o].1.form.mnemonic() == m) && out.len() < CANDIDATES {
                    out.push(u);
                }
            }
            out
        };
        let mut helper: BTreeMap<(RegType, RegType), usize> = BTreeMap::new();
        for (a, b) in groups.keys().filter(|(a, b)| a.file() == b.file()) {
            if let Some(u) = self.within_file(&types, symmetric, bounds, *b, *a) {
                helper.insert((*b, *a), u);
            }
        }
        // Opposite types: candidates against each other.
        let mut pair_jobs = Vec::new();
        let mut pair_of: Vec<(usize, usize)> = Vec::new();
        for ((a, b), ab) in &groups {
            if a >= b {
                continue;
            }
            let Some(ba) = groups.get(&(*b, *a)) else {
                continue;
            };
            for &x in &candidates(ab) {
                for &y in &candidates(ba) {
                    if let Ok(j) = job(t, vec![all[x].1, all[y].1], None) {
                        pair_jobs.push(j);
                        pair_of.push((x, y));
                    }
                }
            }
        }
        let mut best: BTreeMap<(RegType, RegType), (f64, usize, usize)> = BTreeMap::new();
        let mut again = Vec::new();
        for (&(x, y), got) in pair_of
            .iter()
            .zip(measure(t, &pair_jobs, self.opts, "helpers", progress))
        {
            let Ok(m) = got else { continue };
            let key = types[x];
            if m.bound.is_none() && best.get(&key).is_none_or(|b| m.cycles < b.0) {
                best.insert(key, (m.cycles, x, y));
            }
            self.record_marking(m, &mut again);
        }
        // The helpers stay chosen by their first laps; the solver gets
        // both.
        self.look_again(again, progress);
        for (key, (_, x, y)) in &best {
            // An exact helper within one register file stays.
            helper.entry(*key).or_insert(*x);
            helper.entry((key.1, key.0)).or_insert(*y);
        }
        Helpers {
            types,
            groups,
            helper,
            best,
        }
    }

    /// Back within one register file (two fixed registers, or two widths:
    /// ymm -> xmm): the fastest exact symmetric sub-latency of that file,
    /// its own width first, linked through the overlapping registers.
    fn within_file(
        &self,
        types: &[(RegType, RegType)],
        symmetric: &[usize],
        bounds: &[Bounds],
        from: RegType,
        to: RegType,
    ) -> Option<usize> {
        let all = &self.all;
        symmetric
            .iter()
            .filter(|&&u| types[u].0.file() == to.file() && types[u].0 == types[u].1)
            .filter(|&&u| self.simple(&all[u].1) && bounds[u].exact() && bounds[u].lo >= 1)
            .min_by_key(|&&u| (bounds[u].lo, types[u].0 != from, all[u].1.form.name()))
            .copied()
    }

    /// Step 2b: every asymmetric sub-latency not measured as a candidate,
    /// with the helpers back (one, two, one and a step within the file,
    /// or two and a step within it), or why no chain leads back.
    fn asymmetric(
        &mut self,
        h: &Helpers,
        symmetric: &[usize],
        bounds: &[Bounds],
        progress: &mut dyn FnMut(usize, usize, &str),
    ) {
        let mut plans = Vec::new();
        for (key, ids) in &h.groups {
            for &u in ids {
                if !self.on[u].is_empty() {
                    continue; // measured as a candidate
                }
                if let Some(held) = self.held_value(u) {
                    self.why_not[u] = Some(
                        Failure::NoChain {
                            gap: ChainGap::HeldValue,
                            detail: Some(held),
                        }
                        .into(),
                    );
                    continue;
                }
                match self.way_back(h, symmetric, bounds, key, u) {
                    Ok(path) => {
                        let mut steps = vec![self.all[u].1];
                        steps.extend(path.iter().map(|&p| self.all[p].1));
                        plans.push((u, steps, None));
                    }
                    Err(why) => self.why_not[u] = Some(why.into()),
                }
            }
        }
        self.measure_and_record(plans, "asymmetric", progress);
    }

    /// The helpers that lead from the end of sub-latency `u` (of the
    /// pair of types `key`) back to its start.
    fn way_back(
        &self,
        h: &Helpers,
        symmetric: &[usize],
        bounds: &[Bounds],
        key: &(RegType, RegType),
        u: usize,
    ) -> Result<Vec<usize>, Failure> {
        let (t, all, types, helper) = (self.t, &self.all, &h.types, &h.helper);
        let back = (key.1, key.0);
        // Through a load's address (a pointer chase) from a vector
        // result: back to the base only by a form that copies bits
        // (`movq rax, xmm`), from any width of the result's file; the
        // fastest helper of the pair need not copy (`vptestnmb` to a
        // mask, and the next address would be anything).
        // A neutral chase clears what comes back, so any helper path
        // serves it; a copy of bits is taken first all the same (the
        // same way back as the vector loads' chases).
        let chased = through_address(t, &all[u].1);
        if (chased || chain::neutral_chase(t, &all[u].1)) && key.1.file() != key.0.file() {
            let copy = (0..all.len()).find(|&c| {
                let (a, b) = &types[c];
                t.copies_bits(all[c].1.form) && a.file() == key.1.file() && *b == key.0
            });
            match copy {
                Some(c) => return Ok(vec![c]),
                None if chased => {
                    return Err(Failure::NoChain {
                        gap: ChainGap::NoBitCopy { from: key.1.file() },
                        detail: Some(format!("from {} to {}", key.1, key.0)),
                    })
                }
                None => {}
            }
        }
        let path: Option<Vec<usize>> = helper.get(&back).map(|&h| vec![h]).or_else(|| {
            // Two helpers: b -> c -> a.
            helper.iter().find_map(|((from, c), &h1)| {
                if *from != key.1 || *c == key.0 {
                    return None;
                }
                helper.get(&(*c, key.0)).map(|&h2| vec![h1, h2])
            })
        });
        // Or back to another width of a's file, then within it (flags
        // -> r32 by `rcr`, then r32 -> r8 by `add r8`: no form writes
        // an r8 from the flags alone, as setcc is codegen-only in LLVM).
        let path = path.or_else(|| {
            helper.iter().find_map(|((from, c), &h1)| {
                if *from != key.1 || *c == key.0 || c.file() != key.0.file() {
                    return None;
                }
                self.within_file(types, symmetric, bounds, *c, key.0)
                    .map(|h2| vec![h1, h2])
            })
        });
        // Or two helpers to another width of a's file, then within it
        // (comisd's xmm -> flags: flags -> r64 by `adc`, r64 -> xmm by
        // `movq`, then to the FR64 it reads; no form writes an xmm from
        // the flags, nor an FR64 from a r64 but `cvtsi2sd`, which
        // converts).
        let path = path.or_else(|| {
            helper.iter().find_map(|((from, c), &h1)| {
                if *from != key.1 || *c == key.0 || c.file() == key.0.file() {
                    return None;
                }
                helper.iter().find_map(|((c2, d), &h2)| {
                    if c2 != c || *d == key.0 || d.file() != key.0.file() {
                        return None;
                    }
                    self.within_file(types, symmetric, bounds, *d, key.0)
                        .map(|h3| vec![h1, h2, h3])
                })
            })
        });
        // From the flags, the first step back must read a flag the form
        // writes (`rcl` reads only the carry, which `inc` leaves alone):
        // else another measured helper of the same types that does. With
        // none, the chain's build says why.
        let path = path.map(|mut p| {
            if !self.flags_meet(u, p[0]) {
                let other = h
                    .groups
                    .get(&types[p[0]])
                    .into_iter()
                    .flatten()
                    .find(|&&c| {
                        !self.on[c].is_empty() && self.simple(&all[c].1) && self.flags_meet(u, c)
                    });
                if let Some(&c) = other {
                    p[0] = c;
                }
            }
            p
        });
        path.ok_or_else(|| Failure::NoChain {
            gap: ChainGap::NoHelperPath {
                from: key.1.file(),
                to: key.0.file(),
            },
            detail: Some(format!("from {} to {}", key.1, key.0)),
        })
    }

    /// The register and value, as text, where sub-latency `u` starts
    /// from a register whose value decides whether its form runs
    /// ([`Target::address_offsets`]: x86 `div`'s high half 0, its `ax`
    /// 0x40): a step back would write another value there (`add edx,
    /// 4660` before `div ecx` is #DE, SIGFPE). `None` otherwise.
    fn held_value(&self, u: usize) -> Option<String> {
        let (t, e) = (self.t, &self.all[u].1);
        let example = t.example(e.form).ok()?;
        let sources: Vec<Reg> = match e.source {
            End::Implicit(r) => vec![r],
            End::Op(k) => t.operand_regs(&example, k),
            End::Memory(_) => return None,
        };
        t.address_offsets(&example)
            .into_iter()
            .find(|(r, _)| sources.iter().any(|s| t.aliases(*s, *r)))
            .map(|(r, v)| format!("{} = {v:#x}", r.asm_name()))
    }

    /// Whether sub-latency `c` can follow `u` through the flags: `true`
    /// unless `u` ends in the flags, `c` starts there, and `c`'s form
    /// reads none of the flags `u`'s writes ([`Target::flags_meet`], on
    /// the forms' examples, whose condition codes the chains keep).
    fn flags_meet(&self, u: usize, c: usize) -> bool {
        let (e, next) = (&self.all[u].1, &self.all[c].1);
        let flags = |end: End| matches!(end, End::Implicit(r) if chain::is_flags(r));
        if !flags(e.target) || !flags(next.source) {
            return true;
        }
        match (self.t.example(e.form), self.t.example(next.form)) {
            (Ok(w), Ok(r)) => self.t.flags_meet(&w, &r),
            _ => true,
        }
    }

    /// Step 2c: every neutral chase ([`chain::neutral_source`]: from the
    /// address of a load whose result is not that address): the form,
    /// the helpers from its result to a general-purpose register where it
    /// ends in another file, then the target's way back, which clears the
    /// register and adds it to the base (`and r, 0; add base, r`: 1 cycle
    /// each, measured in the run), so the base keeps its address.
    fn neutral_chases(
        &mut self,
        h: &Helpers,
        symmetric: &[usize],
        bounds: &[Bounds],
        progress: &mut dyn FnMut(usize, usize, &str),
    ) {
        let t = self.t;
        let Some(back) = t.neutral_back() else {
            return;
        };
        // The clearing form from its first register source, the adding
        // form from its last one not tied to its result (the other is
        // the base: x86's tied `add base, r`, `add base, base, r`), each
        // to its register result.
        let step = |form: Instr, last: bool| {
            let found = (0..self.all.len()).filter(|&u| {
                let e = &self.all[u].1;
                e.form.opcode() == form.opcode()
                    && match (e.source, e.target) {
                        (End::Op(s), End::Op(d)) => {
                            !chain::tied_group(&e.form.mc_operands(), d).contains(&s) || !last
                        }
                        _ => false,
                    }
            });
            let source = |u: &usize| match self.all[*u].1.source {
                End::Op(s) => s,
                End::Implicit(_) | End::Memory(_) => 0,
            };
            if last {
                found.max_by_key(source)
            } else {
                found.min_by_key(source)
            }
        };
        let way = step(back.clear, false).zip(step(back.add, true));
        let mut plans = Vec::new();
        for u in (0..self.all.len()).filter(|&u| chain::neutral_chase(t, &self.all[u].1)) {
            let Some((clear, add)) = way else {
                self.why_not[u] = Some(
                    Failure::NoChain {
                        gap: ChainGap::NoNeutralBack {
                            clear: back.clear.name(),
                            add: back.add.name(),
                        },
                        detail: None,
                    }
                    .into(),
                );
                continue;
            };
            let (base, result) = h.types[u];
            let to_base = if result.file() == base.file() {
                Ok(Vec::new())
            } else {
                self.way_back(h, symmetric, bounds, &(base, result), u)
            };
            match to_base {
                Ok(path) => {
                    let mut steps = vec![self.all[u].1];
                    steps.extend(path.iter().map(|&p| self.all[p].1));
                    steps.extend([self.all[clear].1, self.all[add].1]);
                    plans.push((u, steps, None));
                }
                Err(why) => self.why_not[u] = Some(why.into()),
            }
        }
        self.measure_and_record(plans, "through addresses", progress);
    }

    /// Into memory: a store and the load that reads its bytes back. The
    /// lap bounds the store's share from above, and nothing from below:
    /// a core that renames memory (the reload takes the stored register)
    /// runs the pair at the stores' rate. So no equation: [0; lap]. Per
    /// sub-latency, its lap where it has one.
    fn through_memory(&mut self, progress: &mut dyn FnMut(usize, usize, &str)) -> Vec<Option<f64>> {
        let mut laps: Vec<Option<f64>> = vec![None; self.all.len()];
        let mut plans = Vec::new();
        for u in
            (0..self.all.len()).filter(|&u| !self.is_symmetric[u] && into_memory(&self.all[u].1))
        {
            match reload_step(self.t, &self.all[u].1) {
                Ok(back) => plans.push((u, vec![self.all[u].1, back], None)),
                Err(why) => self.why_not[u] = Some(why.into()),
            }
        }
        for (u, got) in measure_each(self.t, plans, self.opts, "through memory", progress) {
            match got {
                Ok(mut m) => {
                    let bound = through_memory_bound(&m);
                    m.bound = Some(match m.bound.take() {
                        Some(also) => format!("{bound}; {also}"),
                        None => bound,
                    });
                    laps[u] = Some(m.cycles);
                    self.on[u].push(self.measurements.len());
                    self.measurements.push(m);
                }
                Err(f) => self.why_not[u] = Some(f),
            }
        }
        laps
    }

    /// The fastest of each direction, as measured against the same helper
    /// back, chained with each other: when they take 2 cycles together,
    /// both are 1 and every chain through a helper of the pair is exact.
    fn fastest_pairs(&mut self, h: &Helpers, progress: &mut dyn FnMut(usize, usize, &str)) {
        let all = &self.all;
        let fastest = |a: RegType, b: RegType| -> Option<usize> {
            let back = *h.helper.get(&(b, a))?;
            self.measurements
                .iter()
                .filter(|m| m.bound.is_none() && m.steps.len() == 2)
                .filter(|m| m.steps[1] == all[back].1)
                .filter_map(|m| Some((self.index.get(&edge_key(&m.steps[0])).copied()?, m.cycles)))
                .filter(|(u, _)| {
                    h.types[*u].0 == a && h.types[*u].1 == b && self.simple(&all[*u].1)
                })
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(u, _)| u)
        };
        let mut jobs = Vec::new();
        for (a, b) in h.best.keys() {
            let (Some(x), Some(y)) = (fastest(*a, *b), fastest(*b, *a)) else {
                continue;
            };
            let done = self
                .measurements
                .iter()
                .any(|m| m.steps.len() == 2 && m.steps[0] == all[x].1 && m.steps[1] == all[y].1);
            if !done {
                if let Ok(j) = job(self.t, vec![all[x].1, all[y].1], None) {
                    jobs.push(j);
                }
            }
        }
        let mut again = Vec::new();
        for m in measure(self.t, &jobs, self.opts, "fastest pairs", progress)
            .into_iter()
            .flatten()
        {
            self.record_marking(m, &mut again);
        }
        self.look_again(again, progress);
    }

    /// Step 3: all equations at once, the laps through memory as ranges
    /// [0; lap], and every form not reported yet reported.
    fn solve_all(
        mut self,
        through_memory: &[Option<f64>],
        types: &[(RegType, RegType)],
        row: &mut dyn FnMut(&Row, &[Measurement]),
    ) -> Run {
        let (mut bounds, contradictions) = solve::solve(self.all.len(), &self.equations);
        for (u, lap) in through_memory.iter().enumerate() {
            if let Some(lap) = lap {
                let lap = (lap * 100.0).round() / 100.0;
                bounds[u] = solve::Bounds {
                    lo: 0,
                    hi: Some(lap.ceil() as i64),
                    fraction: Some((0.0, lap)),
                };
            }
        }
        // The files each sub-latency crosses between, kept where no exact
        // value crosses between the same two files (which fixes their split).
        let mut crossings: Vec<Option<Files>> =
            types.iter().map(|&(a, b)| crossing(a, b)).collect();
        let anchored: std::collections::HashSet<Files> = (0..self.all.len())
            .filter(|&u| bounds[u].exact())
            .filter_map(|u| crossings[u])
            .flat_map(|(a, b)| [(a, b), (b, a)])
            .collect();
        for c in &mut crossings {
            if c.as_ref().is_some_and(|files| anchored.contains(files)) {
                *c = None;
            }
        }
        self.report(&bounds, Some(&crossings), &contradictions, &|_| true, row);
        Run {
            rows: self.rows.into_iter().flatten().collect(),
            measurements: self.measurements,
            contradictions,
        }
    }
}

/// Whether sub-latency `e` ends in memory (a store's data).
fn into_memory(e: &Edge) -> bool {
    matches!(e.target, End::Memory(_))
}

/// Why `form` gets no sub-latency measured, as its outcome: skipped
/// (with `edgeless`: it has none a chain can run through), or no kernel.
fn unmeasured(t: &dyn Target, form: Instr, x87: bool, edgeless: bool) -> Option<Outcome> {
    let skip = tp::early_skip(t, form, x87).or_else(|| {
        // A branch to the next instruction writes nothing a chain
        // could follow: its cost is TP's (taken and not taken).
        let branch = form.has(crate::isa::Flag::IsBranch);
        // A gather keeps its path from the base ([`chain::edges`]); a
        // scatter, a store, has none a chain can run through.
        if form.has_vector_index() && edgeless {
            return Some(Skip::VectorIndexed);
        }
        let walked = !kernel::shape::Walked::of(t, form).is_empty();
        edgeless.then_some(if branch {
            Skip::Branch
        } else if walked {
            Skip::Walked
        } else {
            Skip::NoSubLatency
        })
    });
    if let Some(why) = skip {
        return Some(Outcome::Skipped(why));
    }
    let inst = match t.example(form) {
        Ok(i) => i,
        Err(e) => return Some(Outcome::NoKernel(e.to_string())),
    };
    kernel::emit(t, &inst)
        .err()
        .map(|e| Outcome::NoKernel(e.to_string()))
}

/// The step after a store `e` (a register into memory): the load that
/// reads its bytes back into a register of the stored one's class
/// ([`crate::arch::Operands::reload`]), or why there is none.
fn reload_step(t: &dyn Target, e: &Edge) -> Result<Edge, Failure> {
    let End::Op(k) = e.source else {
        return Err(Failure::NoChain {
            gap: ChainGap::NoStoredRegister,
            detail: None,
        });
    };
    let runs = |f: Instr| tp::early_skip(t, f, true).is_none();
    let (form, memory, result) = t.reload(e.form, k, &runs).ok_or_else(|| Failure::NoChain {
        gap: ChainGap::NoReload,
        detail: Some(type_of(e.form, e.source).to_string()),
    })?;
    Ok(Edge {
        form,
        source: End::Memory(memory),
        target: End::Op(result),
    })
}

/// Why a chain through a store and its reload gives a range: the lap is
/// the store's data -> memory and the reload's memory -> result, and no
/// timing splits it.
fn through_memory_bound(m: &Measurement) -> String {
    let reload = m.steps.get(1).map_or("?", |e| e.form.name());
    format!(
        "through memory: the lap is the store and a reload ({reload}) of its bytes; \
         no timing splits it, and a core that renames memory runs the pair at the \
         stores' rate, so the store's share is written as [0; lap]"
    )
}

/// A key of an edge: its form's opcode and its two ends.
fn edge_key(e: &Edge) -> (u32, End, End) {
    (e.form.opcode(), e.source, e.target)
}

#[allow(clippy::too_many_arguments)]
fn form_row(
    form: Instr,
    ids: &[usize],
    all: &[(usize, Edge)],
    bounds: &[Bounds],
    why_not: &[Option<Failed>],
    on: &[Vec<usize>],
    measurements: &[Measurement],
    left_out: &[Reg],
    unanchored: Option<&[Option<Files>]>,
    contradicted: &[usize],
) -> Row {
    let mut reproduce = vec![form];
    let subs = ids
        .iter()
        .map(|&u| {
            let value = match (bounds[u].cycles(), &why_not[u]) {
                (Some(b), _) => Ok(b),
                (None, Some(f)) => Err(f.why.clone()),
                // Every chain through it left out as contradicting the
                // others (equations and measurements share indices): its
                // laps were too short for the steps beside it.
                (None, None) => match outran(&on[u], contradicted, &|m| measurements[m].cycles) {
                    Some(lap) => Err(Failure::Outran { lap }),
                    None => Err(Failure::Unbounded),
                },
            };
            for &m in &on[u] {
                for s in &measurements[m].steps {
                    if !reproduce.iter().any(|f| f.opcode() == s.form.opcode()) {
                        reproduce.push(s.form);
                    }
                }
            }
            let range = matches!(value, Ok((lo, hi)) if lo < hi);
            let unobservable = unanchored.filter(|_| range).and_then(|c| c[u]);
            SubLatency {
                edge: all[u].1,
                died: match (&value, &why_not[u]) {
                    (Err(_), Some(f)) => f.lap.clone(),
                    _ => Vec::new(),
                },
                value,
                chains: on[u].clone(),
                unobservable,
            }
        })
        .collect();
    Row {
        form,
        outcome: Outcome::Measured(subs, left_out.to_vec()),
        reproduce,
    }
}

/// The fastest lap of the chains `on` a sub-latency when all of them
/// were left out of the equations as contradicting the others, else
/// `None`.
fn outran(on: &[usize], contradicted: &[usize], lap: &dyn Fn(usize) -> f64) -> Option<f64> {
    if on.is_empty() || !on.iter().all(|m| contradicted.contains(m)) {
        return None;
    }
    on.iter().map(|&m| lap(m)).min_by(f64::total_cmp)
}

/// The database entry of a measured row (`None` for a skipped one): every
/// sub-latency with its bounds, `null` for those that failed.
pub fn entry(row: &Row) -> Option<crate::db::Entry> {
    let Outcome::Measured(subs, _) = &row.outcome else {
        return None;
    };
    let mut e = crate::db::Entry::for_form(row.form);
    for s in subs {
        let (src, dst) = s.edge.keys();
        e.set_operand_latency(&src, &dst, s.value.as_ref().ok().copied());
    }
    e.settle_latency();
    Some(e)
}

/// The counts of a run: forms measured and skipped per reason;
/// sub-latencies exact, ranges and failed per reason; wall time.
pub fn summary(run: &Run, wall: std::time::Duration) -> String {
    let (mut measured, mut exact, mut ranges, mut failed, mut no_kernel) = (0, 0, 0, 0, 0);
    let mut skipped: BTreeMap<&Skip, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut cross = 0;
    let mut cross_files: BTreeMap<Files, usize> = BTreeMap::new();
    // Values not in whole cycles, and the first of them.
    let (mut fractions, mut fraction_example) = (0, None);
    // Forms whose `latency` is an exact sub-latency, and the others with
    // one (ranges only).
    let (mut latency_exact, mut latency_bound, mut latency_store) = (0, 0, 0);
    for r in &run.rows {
        match &r.outcome {
            Outcome::Measured(subs, _) => {
                measured += 1;
                if only_into_memory(subs) {
                    latency_store += 1;
                } else if subs
                    .iter()
                    .any(|x| matches!(x.value, Ok((lo, hi)) if lo == hi))
                {
                    latency_exact += 1;
                } else if subs.iter().any(|x| x.value.is_ok()) {
                    latency_bound += 1;
                }
                for s in subs {
                    if let Ok((lo, hi)) = &s.value {
                        if lo.fract() != 0.0 || hi.fract() != 0.0 {
                            fractions += 1;
                            fraction_example.get_or_insert_with(|| {
                                let (a, b) = s.edge.keys();
                                let v = if lo == hi {
                                    format!("{lo}")
                                } else {
                                    format!("[{lo};{hi}]")
                                };
                                format!("{} {a} -> {b} {v}", r.form.name())
                            });
                        }
                    }
                    match &s.value {
                        Ok((lo, hi)) if lo == hi => exact += 1,
                        Ok(_) => {
                            ranges += 1;
                            if let Some((a, b)) = s.unobservable {
                                // Both directions of a pair together.
                                let pair = if a < b { (a, b) } else { (b, a) };
                                cross += 1;
                                *cross_files.entry(pair).or_default() += 1;
                            }
                        }
                        Err(why) => {
                            failed += 1;
                            // By the reason's kind, not its registers or
                            // figures.
                            *reasons.entry(why.kind()).or_default() += 1;
                        }
                    }
                }
            }
            Outcome::Skipped(why) => *skipped.entry(why).or_default() += 1,
            Outcome::NoKernel(_) => no_kernel += 1,
        }
    }
    let secs = wall.as_secs_f64();
    let values = (exact + ranges).max(1) as f64;
    let mut s = format!(
        "LAT: {} forms in {secs:.1} s, {} chains measured\n  measured:   {measured} forms\n  sub-latencies: {} with a value: {exact} exact ({:.1}%), {ranges} ranges ({:.1}%); {failed} without\n",
        run.rows.len(),
        run.measurements.len(),
        exact + ranges,
        100.0 * exact as f64 / values,
        100.0 * ranges as f64 / values,
    );
    let mut by_count: Vec<(String, usize)> = reasons.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (why, n) in by_count.iter().take(12) {
        s.push_str(&format!("    {n:6}  {why}\n"));
    }
    if cross == 0 && ranges > 0 {
        s.push_str(&format!(
            "  ranges: {ranges}, none between two register files that no exact value anchors\n"
        ));
    } else if ranges > 0 {
        let mut pairs: Vec<_> = cross_files.into_iter().collect();
        pairs.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let top: Vec<String> = pairs
            .iter()
            .take(4)
            .map(|((a, b), n)| format!("{a}<->{b} {n}"))
            .collect();
        s.push_str(&format!(
            "  ranges: {cross} between two register files that no exact value anchors ({}{}): their split no timing can observe (docs/method.md, LAT mode); {} others\n",
            top.join(", "),
            if pairs.len() > 4 { ", …" } else { "" },
            ranges - cross
        ));
    }
    if latency_exact + latency_bound + latency_store > 0 {
        s.push_str(&format!(
            "  latency: {latency_exact} forms take their largest exact sub-latency, {latency_bound} with ranges only their largest upper bound{} (docs/method.md, LAT mode)\n",
            if latency_store > 0 {
                format!(", {latency_store} stores 0 (their round trip stays a range)")
            } else {
                String::new()
            }
        ));
    }
    if let Some(example) = fraction_example {
        s.push_str(&format!(
            "  fractions: {fractions} values to 0.01 cycles, not whole (a chain through the sub-latency alone ran more than 0.1 cycle off a whole number; e.g. {example})\n"
        ));
    }
    if !run.contradictions.is_empty() {
        s.push_str(&format!(
            "  {} chains contradicted the others and were left out of the equations (see the report)\n",
            run.contradictions.len()
        ));
    }
    s.push_str(&format!("  no kernel:  {no_kernel} forms\n"));
    s.push_str(&tp::skipped_lines(skipped.iter().map(|(k, n)| (k, *n))));
    let sigill: Vec<Instr> = run
        .rows
        .iter()
        .filter(|r| r.is_sigill())
        .map(|r| r.form)
        .collect();
    s.push_str(&tp::sigill_net(&sigill));
    s
}

#[cfg(test)]
mod tests;
