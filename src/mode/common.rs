//! What TP and LAT share: the unrolled pair of kernels whose difference is
//! the value, which forms run at all, implicit dependencies and the forms
//! that can break them (helpers), and the summary lines both print.

use crate::arch::{Inst, Target};
use crate::exec::run::Cost;
use crate::isa::{Instr, Reg};
use crate::kernel::{self, shape};
use crate::mode::reason::Skip;

/// Instructions the shorter of the two kernels of a measurement has per
/// loop iteration at least: the body is unrolled to reach it, so the
/// unroll difference is the time of this many instructions, not of a
/// 12-copy body alone (whose nanosecond drowned in the noise of the two
/// timings: two full runs agreed within 5% for 59% of the forms).
pub const MIN_INSTRUCTIONS: usize = 48;

/// Read-modify-write instructions (each reads and writes memory) the
/// shorter kernel of a throughput pair holds at least, and the longer at
/// most. Their kernels now stream ([`kernel::build_streamed`]): no copy
/// loads what one stored an iteration before, and 24 and 32 copies ran
/// 0.553-0.558 cycles each in every run on zen4 (2026-12-04). Chosen
/// while the addresses were the same every iteration, when each copy
/// loaded what the same copy stored one iteration before, which bounded a
/// kernel from both sides on the zen3 guest (2026-12-01,
/// docs/measurements.md):
/// - too few copies, and an iteration waits for that round trip through
///   memory rather than for the stores: with 16 and 32 copies
///   (`winic TP`), `add byte [m], imm8` came out 0.46 cycles, below the
///   two stores a cycle any read-modify-write needs; with 20 and 32,
///   some form at 0.46 in 3 of 9 runs; with 24 and 32, in none of 8;
/// - too many, and the time per copy steps up, at fewer copies in some
///   runs than in others (the core's other hardware thread, another
///   tenant's, is the guess): 20 to 48 copies of `add byte [m], 2` ran
///   0.52-0.58 cycles each by hand, 56 to 128 ran 0.65-0.75; pairs of 24
///   and 48 copies of `add qword [m], imm32` gave 0.50 or 0.61 from one
///   run to the next (the 48-copy kernel at 0.50 or 0.556 a copy for a
///   whole run, the 24-copy one at 0.50), of 20 and 40 the same; of 16
///   and 32, 0.50 in every run.
pub const READ_MODIFY_WRITES: (usize, usize) = (24, 32);

/// The read-modify-writes of TP's second pair for a form whose first
/// ([`READ_MODIFY_WRITES`]) came out below the stores' floor: the shorter
/// kernel then still waited on the round trip through memory. On the
/// zen5 guest (2026-12-02, docs/measurements.md) a chain of `add qword
/// [m], r` on one address runs at 1.0 cycle a copy (the core forwards a
/// store to its load without the round trip), but 24 copies on 24
/// addresses take 13.9 cycles an iteration where 32 take 16.5 and 48
/// take 24.0: 24 and 32 gave 0.39 cycles a copy in every run, under two
/// stores a cycle; 32 and 40, and 48 and 64, 0.50.
pub const MORE_READ_MODIFY_WRITES: (usize, usize) = (32, 40);

/// Copies of a read-modify-write form in its throughput body (and pairs
/// of it and its helper): few, so that whole bodies fill the kernels to
/// the [`READ_MODIFY_WRITES`] bounds (4 copies: 6 and 8 bodies).
pub const READ_MODIFY_WRITE_COPIES: usize = 4;

/// Whether `form` reads and writes memory (`add [m], imm`): TP's
/// kernels of it hold [`READ_MODIFY_WRITES`].
pub fn is_read_modify_write(t: &dyn Target, form: Instr) -> bool {
    t.memory_access(form) == Some((true, true))
}

/// Copies of `form` in its throughput body: [`shape::COPIES`], or
/// [`READ_MODIFY_WRITE_COPIES`] for a form that reads and writes memory.
pub fn body_copies(t: &dyn Target, form: Instr) -> usize {
    if is_read_modify_write(t, form) {
        READ_MODIFY_WRITE_COPIES
    } else {
        shape::COPIES
    }
}

/// How often a chain's or a body's instructions are unrolled in the
/// shorter kernel by their number alone: to [`MIN_INSTRUCTIONS`].
pub fn unroll_for_len(len: usize) -> usize {
    MIN_INSTRUCTIONS.div_ceil(len.max(1))
}

/// How often a throughput body is unrolled in the shorter and the longer
/// kernel of its pair: [`unroll_for_len`] and twice that, or, for a body
/// with read-modify-write instructions, as often as keeps both kernels
/// within [`READ_MODIFY_WRITES`] (the longer at least one body more).
pub fn unrolls_for(t: &dyn Target, body: &[crate::arch::Inst]) -> (usize, usize) {
    unrolls_of(body.len(), read_modify_writes(t, body))
}

/// [`unrolls_for`] a body of `len` instructions, `rmw` of them
/// read-modify-writes.
pub fn unrolls_of(len: usize, rmw: usize) -> (usize, usize) {
    unrolls_within(len, rmw, READ_MODIFY_WRITES)
}

/// [`unrolls_of`] with the read-modify-writes a kernel holds between
/// `least` and `most` ([`READ_MODIFY_WRITES`] or
/// [`MORE_READ_MODIFY_WRITES`]).
pub fn unrolls_within(len: usize, rmw: usize, (least, most): (usize, usize)) -> (usize, usize) {
    match rmw {
        0 => {
            let u = unroll_for_len(len);
            (u, 2 * u)
        }
        rmw => {
            let shorter = least.div_ceil(rmw);
            (shorter, (most / rmw).max(shorter + 1))
        }
    }
}

/// The instructions of `body` that read and write memory.
pub(crate) fn read_modify_writes(t: &dyn Target, body: &[crate::arch::Inst]) -> usize {
    body.iter()
        .filter(|i| is_read_modify_write(t, i.form))
        .count()
}

/// Cycles per copy from the cost of a pair of kernels ([`pair_of_kernels`])
/// of `body` holding `copies` copies: the unroll difference stands for
/// as many bodies as the longer kernel has more ([`unrolls_for`]).
pub(crate) fn per_copy(
    t: &dyn Target,
    cost: &Cost,
    body: &[crate::arch::Inst],
    copies: usize,
) -> f64 {
    per_copy_of(cost, unrolls_for(t, body), copies)
}

/// [`per_copy`] of a pair unrolled `shorter` and `longer` times.
pub(crate) fn per_copy_of(cost: &Cost, (shorter, longer): (usize, usize), copies: usize) -> f64 {
    cost.cycles / (copies * (longer - shorter)) as f64
}

/// The kernels with `body` unrolled as [`unrolls_for`] says: their
/// difference is the body as many times as the longer has more.
pub(crate) fn pair_of_kernels(
    t: &dyn Target,
    body: &[crate::arch::Inst],
) -> Result<(kernel::Kernel, kernel::Kernel), kernel::KernelError> {
    placed_pair(t, body, kernel::data::Placement::Aligned)
}

/// [`pair_of_kernels`] with the accesses placed as `placement` says.
pub(crate) fn placed_pair(
    t: &dyn Target,
    body: &[crate::arch::Inst],
    placement: kernel::data::Placement,
) -> Result<(kernel::Kernel, kernel::Kernel), kernel::KernelError> {
    unrolled_pair(t, body, unrolls_for(t, body), placement)
}

/// The kernels of a latency chain: unrolled by [`unroll_for_len`] alone,
/// since a chain's copies wait for each other whatever lies between a
/// store and its load.
pub(crate) fn chain_pair(
    t: &dyn Target,
    body: &[crate::arch::Inst],
) -> Result<(kernel::Kernel, kernel::Kernel), kernel::KernelError> {
    let u = unroll_for_len(body.len());
    Ok((kernel::build(t, body, u)?, kernel::build(t, body, 2 * u)?))
}

/// `body` unrolled `shorter` and `longer` times, a throughput's kernels
/// ([`kernel::build_streamed`]).
fn unrolled_pair(
    t: &dyn Target,
    body: &[crate::arch::Inst],
    (shorter, longer): (usize, usize),
    placement: kernel::data::Placement,
) -> Result<(kernel::Kernel, kernel::Kernel), kernel::KernelError> {
    Ok((
        kernel::build_streamed(t, body, shorter, placement)?,
        kernel::build_streamed(t, body, longer, placement)?,
    ))
}

/// `body` unrolled `unrolls` times ([`unrolls_for`] for
/// [`pair_of_kernels`]), both loops moved `bytes` further into the code
/// ([`kernel::Kernel::with_loop_moved`]); 0 leaves them in place.
pub(crate) fn moved_pair(
    t: &dyn Target,
    body: &[crate::arch::Inst],
    unrolls: (usize, usize),
    bytes: usize,
) -> Result<(kernel::Kernel, kernel::Kernel), kernel::KernelError> {
    let (once, twice) = unrolled_pair(t, body, unrolls, kernel::data::Placement::Aligned)?;
    if bytes == 0 {
        return Ok((once, twice));
    }
    Ok((
        once.with_loop_moved(t, bytes)?,
        twice.with_loop_moved(t, bytes)?,
    ))
}

/// Whether `form` uses the x87 register stack (measured only with
/// `--x87FP`, as in WINIC).
pub fn is_x87(form: Instr) -> bool {
    // Only x86 has x87 (AArch64's FPCR and FPSR also start with "FP").
    if form.isa().arch() != crate::isa::Arch::X86_64 {
        return false;
    }
    let x87_reg = |r: Reg| {
        let n = r.name();
        n.starts_with("FP") || n.starts_with("ST")
    };
    form.implicit_uses()
        .chain(form.implicit_defs())
        .any(x87_reg)
        || form.operands().any(|o| {
            o.ty()
                .class()
                .is_some_and(|c| c.name() == "RST" || c.name().starts_with("RFP"))
        })
}

/// Registers `form` reads and writes implicitly.
pub fn implicit_dependency(t: &dyn Target, form: Instr) -> Vec<Reg> {
    let uses: Vec<Reg> = form.implicit_uses().collect();
    // The stack pointer of `push` and `pop`, which the loop's walk keeps
    // in place: x86 cores update it in the front end (the stack engine),
    // and a run of pushes depends on it as every real one does. No
    // helper could break that chain, nor should.
    let kept = shape::Walked::of(t, form);
    let mut out: Vec<Reg> = Vec::new();
    for d in form.implicit_defs() {
        if kept.holds(t, d) {
            continue;
        }
        if uses.iter().any(|u| t.aliases(*u, d)) && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// Why `form` is not measured at all (TP and LAT alike): an x87 form
/// without `x87`, a form no kernel may run ([`shape::skip_reason`]), or
/// one needing features the host lacks.
pub fn early_skip(t: &dyn Target, form: Instr, x87: bool) -> Option<Skip> {
    if !x87 && is_x87(form) {
        return Some(Skip::X87);
    }
    // Lacking features first: on a CPU without SVE or SME every such form
    // says so, whatever else keeps it from running.
    crate::probe::host_lacks(t, form)
        .map(Skip::HostLacks)
        .or_else(|| shape::skip_reason(t, form).map(Skip::Unrunnable))
}

/// Forms of `t`'s arch that can serve as helpers for `reg`: they run,
/// write `reg` implicitly and read it neither implicitly nor through an
/// implicit dependency of their own. Compares first (LLVM `isCompare`:
/// they set the flags as a whole; `inc` leaves CF alone although LLVM says
/// it defines EFLAGS), then in table order.
pub(crate) fn helper_candidates(t: &dyn Target, reg: Reg) -> Vec<Instr> {
    let mut out: Vec<Instr> = crate::isa::Isa::get(t.arch())
        .real_instrs()
        .filter(|f| f.implicit_defs().any(|d| t.aliases(d, reg)))
        .filter(|f| !f.implicit_uses().any(|u| t.aliases(u, reg)))
        .filter(|f| implicit_dependency(t, *f).is_empty() && !is_x87(*f))
        .filter(|f| early_skip(t, *f, true).is_none())
        .collect();
    out.sort_by_key(|f| !f.has(crate::isa::Flag::IsCompare));
    out
}

/// Forms that write all of `reg` through their one explicit destination
/// and read no register: moves of an immediate (LLVM `isMoveImm`), that
/// run and touch no implicit register (`mov rax, imm32` leaves the flags
/// alone). Each with that operand and the register of its class holding
/// `reg` whole. Only those that write the widest such register: `RAX`
/// for `AX` or `AL`, as a 16- or 8-bit write merges into the rest of the
/// register and keeps the dependency (a 32-bit one would not, but no
/// rule per arch is needed when a 64-bit move exists). A move costs a
/// fraction of a cycle where an implicit writer can cost dozens (`rdtsc`
/// writes EAX: 36 cycles on Zen 3).
pub(crate) fn immediate_writers(t: &dyn Target, reg: Reg) -> Vec<(Instr, usize, Reg)> {
    use crate::isa::desc::OperandKind;
    let all: Vec<(Instr, usize, Reg)> = crate::isa::Isa::get(t.arch())
        .real_instrs()
        .filter(|f| f.has(crate::isa::Flag::IsMoveImm))
        .filter(|f| f.implicit_uses().next().is_none() && f.implicit_defs().next().is_none())
        .filter(|f| early_skip(t, *f, true).is_none())
        .filter_map(|f| {
            let mc = f.mc_operands();
            let defs: Vec<usize> = (0..mc.len()).filter(|&k| mc[k].operand.is_def()).collect();
            let [k] = defs[..] else { return None };
            let reads_only_immediates = mc
                .iter()
                .all(|m| m.operand.is_def() || m.ty.kind() == OperandKind::Imm);
            if !reads_only_immediates || mc[k].operand.tied_to().is_some() {
                return None;
            }
            let r = mc[k]
                .ty
                .class()?
                .members()
                .find(|x| (*x == reg || x.contains(reg)) && t.reserved(*x).is_none())?;
            Some((f, k, r))
        })
        .collect();
    all.iter()
        .filter(|(_, _, r)| !all.iter().any(|(_, _, o)| o != r && o.contains(*r)))
        .copied()
        .collect()
}

/// A move of an immediate put onto `reg` to break a dependency of `form`
/// writes the value `form` needs in `reg`
/// ([`crate::arch::Operands::address_offsets`]): a division's high half
/// 0, where the move's own immediate (0x1234) would make the next
/// division's quotient too wide (#DE). Nothing changes when `form` needs
/// no value there.
pub(crate) fn write_needed_value(t: &dyn Target, form: &Inst, helper: &mut Inst, reg: Reg) {
    let Some((_, v)) = t
        .address_offsets(form)
        .into_iter()
        .find(|(r, _)| t.aliases(*r, reg))
    else {
        return;
    };
    for op in &mut helper.ops {
        if let crate::arch::OpValue::Imm(x) = op {
            *x = v as i64;
        }
    }
}

/// The summary's line on the clock the calibrations beside the kernels
/// showed (lowest, median, highest: a core with frequency licences shows
/// two clocks), and how many kernels ran more than 5% off the clock their
/// cycles were converted with (`-f GHz`), or had none of their own.
pub(crate) fn clock_line<'a>(costs: impl Iterator<Item = &'a Cost>) -> String {
    let costs: Vec<&Cost> = costs.collect();
    if costs.is_empty() {
        return "  clock:      no kernel ran to the end, so none showed a clock\n".into();
    }
    let mut seen: Vec<f64> = costs.iter().filter_map(|c| c.seen_ghz).collect();
    seen.sort_by(f64::total_cmp);
    let mut s = match seen.len() {
        0 => "  clock:      no calibration beside a kernel gave a clock (an emulator?)".to_string(),
        n => format!(
            "  clock:      {:.2} to {:.2} GHz beside the kernels (median {:.2})",
            seen[0],
            seen[n - 1],
            seen[n / 2]
        ),
    };
    let off = costs
        .iter()
        .filter(|c| c.clock_mismatch().is_some())
        .count();
    if off > 0 {
        s.push_str(&format!(
            "; {off} kernels ran more than 5% off the clock used (-f GHz: see the report's warnings)"
        ));
    }
    let fallback: Vec<&&Cost> = costs.iter().filter(|c| c.clock_fallback).collect();
    if !fallback.is_empty() {
        s.push_str(&format!(
            "; {} converted with the run's clock, their own calibration gave none or one more than 10% above it",
            fallback.len()
        ));
    }
    // Most bodies above the run's clock: the clock, not they, was wrong.
    let ceiling = 1.0 + crate::exec::run::CLOCK_CEILING;
    let above: Vec<f64> = fallback
        .iter()
        .filter_map(|c| c.seen_ghz.filter(|g| *g > c.ghz * ceiling))
        .collect();
    if let Some(seen) = crate::measure::median(&above).filter(|_| above.len() * 2 > costs.len()) {
        let start = fallback[0].ghz;
        s.push_str(&format!(
            "\n  WARNING:    most kernels ran faster than the run's start clock ({start:.2} GHz) allows: \
             it was measured in a slow moment, and their values are too low by about {:.0}%: \
             measure them again",
            100.0 * (1.0 - start / seen)
        ));
    }
    s.push('\n');
    s
}

/// The lines of a summary that name every form caught only by the SIGILL
/// net (TP's and LAT's): no feature check stopped it, and it died of
/// SIGILL. Each with the features the host's source cannot report, when
/// those decided; otherwise the host claimed its features, and the SIGILL
/// says the claim or winic's kernel is wrong. Empty when there is none.
pub(crate) fn sigill_net(forms: &[Instr]) -> String {
    if forms.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "  SIGILL net: {} forms died of SIGILL although no feature check stopped them:\n",
        forms.len()
    );
    for f in forms {
        let why = match crate::probe::host_cannot_tell(crate::arch::target(f.isa().arch()), *f) {
            Some(u) => format!("needs {u}, which this host's feature source cannot report"),
            None => "the host has every feature LLVM's predicates name: a feature they do not \
                     name, an emulator gap, or a wrong kernel"
                .into(),
        };
        s.push_str(&format!("    {}  ({why})\n", f.name()));
    }
    s
}

/// The `skipped:` lines of a summary (TP's and LAT's): the total, then
/// each reason with its count, most frequent first.
pub(crate) fn skipped_lines<K: std::fmt::Display>(
    skipped: impl IntoIterator<Item = (K, usize)>,
) -> String {
    let mut by_count: Vec<(String, usize)> = skipped
        .into_iter()
        .map(|(why, n)| (why.to_string(), n))
        .collect();
    let mut s = format!(
        "  skipped:    {}\n",
        by_count.iter().map(|(_, n)| n).sum::<usize>()
    );
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (why, n) in by_count {
        s.push_str(&format!("    {n:6}  {why}\n"));
    }
    s
}

/// The widest register class among `form`'s operands, in bits (0 when it
/// has none): helpers are ranked by it, narrow first.
pub(crate) fn widest_operand(form: Instr) -> u32 {
    form.operands()
        .filter_map(|o| o.ty().class())
        .map(|c| c.bits())
        .max()
        .unwrap_or(0)
}

/// Whether `form` reads or writes memory through an operand (its
/// example has an access the target can place).
pub fn accesses_memory(t: &dyn Target, form: crate::isa::Instr) -> bool {
    t.example(form)
        .ok()
        .is_some_and(|i| t.at_offset(&i, 0).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read-modify-write form's body has 4 copies, unrolled so that
    /// its kernels hold 24 and 32 of them ([`READ_MODIFY_WRITES`]), also
    /// with a helper between the copies; plain stores, loads and register
    /// forms keep 12 copies in 48 and 96 instructions.
    #[test]
    fn read_modify_write_kernels_hold_24_and_32_of_them() {
        let t = crate::arch::target(crate::isa::Arch::X86_64);
        let isa = crate::isa::Isa::get(crate::isa::Arch::X86_64);
        let form = |name: &str| isa.instr(name).unwrap();
        let body =
            |name: &str| shape::throughput(t, form(name), body_copies(t, form(name))).unwrap();
        // (form, copies in its body, instructions in the two kernels,
        // read-modify-writes in them)
        for (name, copies, instructions, rmws) in [
            ("ADD8mi", 4, (24, 32), (24, 32)),
            ("ADD64mr", 4, (24, 32), (24, 32)),
            ("SHL16m1", 4, (24, 32), (24, 32)),
            ("MOV32mi", 12, (48, 96), (0, 0)),
            ("MOV64rm", 12, (48, 96), (0, 0)),
            ("ADD64rr", 12, (48, 96), (0, 0)),
        ] {
            let b = body(name);
            assert_eq!(b.len(), copies, "{name}");
            let (shorter, longer) = unrolls_for(t, &b);
            let rmw = read_modify_writes(t, &b);
            assert_eq!(
                (
                    (shorter * b.len(), longer * b.len()),
                    (shorter * rmw, longer * rmw)
                ),
                (instructions, rmws),
                "{name}"
            );
            // The difference stands for the instructions the longer
            // kernel has more.
            let cost = Cost {
                cycles: 12.0,
                ..Cost::default()
            };
            let more = instructions.1 - instructions.0;
            assert_eq!(per_copy(t, &cost, &b, b.len()), 12.0 / more as f64);
        }
        // A form and its helper in turn: 24 and 32 of the form.
        let mut mixed = body("ADD8mi");
        mixed.truncate(1);
        mixed.push(body("ADD64rr")[0].clone());
        assert_eq!(unrolls_for(t, &mixed), (24, 32));
        // Bodies of other sizes stay within the bounds, the longer kernel
        // at least one body more.
        for rmw in 1..=16 {
            let b = vec![body("ADD64mr")[0].clone(); rmw];
            let (shorter, longer) = unrolls_for(t, &b);
            assert!(shorter * rmw >= READ_MODIFY_WRITES.0, "{rmw}");
            assert!(longer > shorter, "{rmw}");
            assert!(
                longer * rmw <= READ_MODIFY_WRITES.1 || longer == shorter + 1,
                "{rmw}"
            );
        }
        // Latency chains keep the plain rule.
        assert_eq!(unroll_for_len(1), 48);
        // The second pair, for a form the first left below the floor: 32
        // and 40 of it, 8 more in the longer kernel; the difference then
        // stands for those 8.
        let b = body("ADD64mr");
        let more = unrolls_within(b.len(), 4, MORE_READ_MODIFY_WRITES);
        assert_eq!((more.0 * 4, more.1 * 4), (32, 40));
        let cost = Cost {
            cycles: 4.0,
            ..Cost::default()
        };
        assert_eq!(per_copy_of(&cost, more, b.len()), 0.5);
        assert_eq!(
            unrolls_within(b.len(), 0, MORE_READ_MODIFY_WRITES),
            (12, 24)
        );
    }

    /// The clock line says when most bodies ran above the run's start
    /// clock: the start clock was wrong (the zen3 guest's 2.91 GHz start
    /// where its kernels showed 3.24), not they; a few such bodies (a
    /// calibration come out short) are only counted.
    #[test]
    fn a_start_clock_below_most_kernels_is_a_warning() {
        let cost = |seen: f64, fallback: bool| Cost {
            ghz: if fallback { 2.91 } else { seen },
            seen_ghz: Some(seen),
            clock_fallback: fallback,
            ..Cost::default()
        };
        let slow_start = [cost(3.24, true), cost(3.25, true), cost(3.24, false)];
        let line = clock_line(slow_start.iter());
        assert!(line.contains("2 converted with the run's clock"), "{line}");
        assert!(line.contains("WARNING"), "{line}");
        assert!(line.contains("too low by about 10%"), "{line}");
        let one_short = [cost(3.24, true), cost(3.24, false), cost(3.24, false)];
        let line = clock_line(one_short.iter());
        assert!(
            line.contains("1 converted") && !line.contains("WARNING"),
            "{line}"
        );
    }
}
