//! The report blocks of the run modes' rows ([`tp_block`],
//! [`lat_block`]): a form's value or the reason it has none, the kernel
//! body, the raw timings and any warning, as `crate::report` writes them
//! into a report file. Here, beside the rows they format, so that the
//! report file (below the modes) never imports a mode.

use crate::arch::Target;
use crate::mode::tp::{Outcome, Row};

/// `\tvector state: …` for a form measured in a vector state
/// ([`crate::arch::HostPolicy::vector_state`]), else nothing.
fn vector_state_line(t: &dyn Target, form: crate::isa::Instr) -> String {
    t.vector_state(form)
        .map_or(String::new(), |v| format!("\tvector state: {v}\n"))
}

/// The report block of one TP row, measured on `t`.
pub fn tp_block(t: &dyn Target, row: &Row) -> String {
    let name = row.form.name();
    let mut s = format!("-----{name}-----\n");
    match &row.outcome {
        Outcome::Measured(m) => {
            s.push_str(&vector_state_line(t, row.form));
            let c = &m.cost;
            let (low, high) = m.range();
            let low = low.map_or("?".to_string(), |l| format!("{l:.3}"));
            if let Some(h) = &m.helper {
                s.push_str(&format!(
                    "\tHelper: {} [{:.3}] interleaved, breaking the dependency through {}\n\tCombined result: {:.3} (without the helper: {:.3})\n",
                    h.form.name(),
                    h.cycles,
                    m.implicit_dependency.iter().map(|r| r.asm_name()).collect::<Vec<_>>().join(", "),
                    m.cycles,
                    h.without
                ));
            }
            s.push_str(&format!("\t{name} [{low};{high:.3}]\n"));
            for (label, cycles) in &m.outcomes {
                s.push_str(&format!("\t\t{label}: {cycles:.3}\n"));
            }
            if !m.outcomes.is_empty() {
                s.push_str("\t(the range: the fastest outcome to the slowest; the kernel below is the first)\n");
            }
            s.push_str(&format!(
                "\tkernel: {} independent copies{}\n",
                m.copies,
                if m.helper.is_some() {
                    ", each followed by the helper"
                } else {
                    ""
                }
            ));
            for l in &m.body {
                s.push_str(&format!("\t\t{l}\n"));
            }
            if crate::mode::common::accesses_memory(t, row.form) {
                s.push_str(&format!(
                    "\tmemory: {}\n",
                    crate::kernel::data::slots_note()
                ));
            }
            if crate::kernel::shape::stores(t, row.form) {
                let moves = super::tp::STORE_LOOP_MOVES.map(|m| m.to_string());
                s.push_str(&format!(
                    "\tplaces: each kernel's loop {} bytes further into the code, each kernel's \
                     fastest (a front end takes such loops at two speeds by where they fall)\n",
                    moves.join(", ")
                ));
            }
            if crate::mode::common::is_read_modify_write(t, row.form) {
                let (shorter, longer) = m.unrolls;
                s.push_str(&format!(
                    "\tunroll: the body {shorter} and {longer} times ({} and {} read-modify-writes \
                     a loop, the difference {} bodies); after the body the base moves past the \
                     blocks the iteration used, round {} bytes, so no copy reloads what one \
                     stored an iteration before\n",
                    shorter * m.copies,
                    longer * m.copies,
                    longer - shorter,
                    crate::kernel::data::STREAM_WINDOW
                ));
                if m.helper.is_none() {
                    let (alone_shorter, alone_longer) =
                        super::tp::each_kernel_alone(c, m.unrolls, m.copies);
                    s.push_str(&format!(
                        "\ta copy: {:.3} cycles by the difference, {alone_shorter:.3} and \
                         {alone_longer:.3} in each kernel alone (the loop hides beside the \
                         stores): the smallest is the value\n",
                        super::common::per_copy_of(c, m.unrolls, m.copies),
                    ));
                }
            }
            if let Some(walk) = walk_note(t, row.form, m.copies) {
                s.push_str(&walk);
            }
            if row.form.has_vector_index() {
                let (what, reset) = if row.form.has(crate::isa::Flag::MayStore) {
                    ("scatter", "its mask is set")
                } else {
                    ("gather", "its mask is set and its destination zeroed")
                };
                s.push_str(&format!(
                    "\t{what}: the vector index holds lanes i × {} bytes (each element in a \
                     cache line of its own, each copy in lines of its own); before each {what} \
                     {reset} (the lines above), as compilers emit it\n",
                    crate::arch::LANE_STEP,
                ));
            }
            s.push_str(&format!(
                "\ttimings: body once {:.3} ns/iteration ({} iterations, spread {:.1}%), twice {:.3} ns/iteration ({} iterations, spread {:.1}%); difference {:.3} ns = {:.3} cycles at {:.3} GHz (clock drift {:.1}%)\n",
                c.once.ns_per_iter,
                c.once.iterations,
                100.0 * c.once.spread,
                c.twice.ns_per_iter,
                c.twice.iterations,
                100.0 * c.twice.spread,
                c.ns,
                c.cycles,
                c.ghz,
                100.0 * c.clock_drift
            ));
            if let Some(off) = c.clock_mismatch() {
                s.push_str(&format!(
                    "\twarning: the calibration beside the kernel showed {:.3} GHz, {:+.1}% from the {:.3} GHz used: the kernel ran at another clock (give -f auto to convert with its own)\n",
                    c.seen_ghz.unwrap_or(0.0),
                    100.0 * off,
                    c.ghz
                ));
            }
            if c.clock_fallback {
                s.push_str("\twarning: the calibration beside this kernel gave no clock; converted with the run's (measured at its start)\n");
            }
            if c.noisy() {
                s.push_str("\twarning: repetitions disagreed beyond the spread limit, or the clock moved by more than 5%\n");
            }
            if let Some(why) = &m.held_back {
                s.push_str(&format!("\twarning: upper bound only: {why}\n"));
            } else if !m.implicit_dependency.is_empty() && m.helper.is_none() {
                let regs: Vec<String> =
                    m.implicit_dependency.iter().map(|r| r.asm_name()).collect();
                s.push_str(&format!(
                    "\twarning: reads and writes {} implicitly, so its copies depend on each other: the value is an upper bound (no helper breaks the dependency yet)\n",
                    regs.join(", ")
                ));
            }
        }
        Outcome::Skipped(why) => s.push_str(&format!("\t{name} [SKIPPED: {why}]\n")),
        Outcome::BuildError(why) => s.push_str(&format!("\t{name} [NO KERNEL: {why}]\n")),
        Outcome::Failed(why) => s.push_str(&format!("\t{name} [FAILED: {why}]\n")),
    }
    s.push('\n');
    s
}

/// The report block of one LAT row: every sub-latency with its bounds,
/// the chains it was measured in (the helpers, the time of a lap, one lap
/// of the body), and the command that measures it again.
pub fn lat_block(
    t: &dyn Target,
    row: &crate::mode::lat::Row,
    measurements: &[crate::mode::lat::Measurement],
) -> String {
    use crate::mode::lat::Outcome;
    let name = row.form.name();
    let mut s = format!("-----{name}-----\n");
    match &row.outcome {
        Outcome::Skipped(why) => s.push_str(&format!("\t{name} [SKIPPED: {why}]\n")),
        Outcome::NoKernel(why) => s.push_str(&format!("\t{name} [NO KERNEL: {why}]\n")),
        Outcome::Measured(subs, left_out) => {
            for sub in subs {
                let value = match &sub.value {
                    Ok((lo, hi)) => match &sub.unobservable {
                        Some((a, b)) => format!(
                            "[{lo};{hi}] (from register file {a} to {b}, which no exact value anchors: only its sum with a way back is observable)"
                        ),
                        None => format!("[{lo};{hi}]"),
                    },
                    Err(why) => format!("[FAILED: {why}]"),
                };
                s.push_str(&format!("\t{} {value}\n", sub.edge.label()));
                if !sub.died.is_empty() {
                    s.push_str("\t\tthe chain that ran and failed, one lap:\n");
                    for l in &sub.died {
                        s.push_str(&format!("\t\t\t{l}\n"));
                    }
                }
                for &m in &sub.chains {
                    let m = &measurements[m];
                    let helpers: Vec<String> = m
                        .steps
                        .iter()
                        .filter(|e| **e != sub.edge)
                        .map(|e| e.label())
                        .collect();
                    if helpers.is_empty() {
                        s.push_str("\t\tchain of copies");
                    } else {
                        s.push_str(&format!("\t\tDependencies: {}", helpers.join(", ")));
                    }
                    if let Some(b) = m.breaker {
                        s.push_str(&format!(
                            ", {} interleaved to break a dependency",
                            b.label()
                        ));
                    }
                    s.push_str(&format!(
                        "\n\t\tCombined result: {:.2} cycles per lap ({} laps, {}/{} clean rounds){}\n",
                        m.cycles,
                        m.laps,
                        m.cost.rounds.1,
                        m.cost.rounds.0,
                        match &m.bound {
                            Some(why) => format!(", an upper bound only: {why}"),
                            None => String::new(),
                        }
                    ));
                    let lap = m.body.len() / m.laps.max(1);
                    for l in m.body.iter().take(lap) {
                        s.push_str(&format!("\t\t\t{l}\n"));
                    }
                    if crate::mode::lat::through_address(t, &sub.edge) {
                        s.push_str(&format!(
                            "\t\tmemory: {}\n",
                            crate::kernel::data::chase_note()
                        ));
                    } else if crate::mode::lat::chain::neutral_chase(t, &sub.edge) {
                        let note =
                            if crate::mode::lat::chain::rewrites_into_register(t, sub.edge.form) {
                                crate::kernel::data::rewrite_chase_note()
                            } else {
                                crate::kernel::data::beside_chase_note()
                            };
                        s.push_str(&format!("\t\tmemory: {note}\n"));
                    } else if matches!(sub.edge.target, crate::mode::lat::chain::End::Memory(_)) {
                        s.push_str(&format!(
                            "\t\tmemory: {}\n",
                            crate::kernel::data::linked_note()
                        ));
                    } else if crate::mode::common::accesses_memory(t, row.form) {
                        s.push_str(&format!(
                            "\t\tmemory: fixed; {}\n",
                            crate::kernel::data::slots_note()
                        ));
                    }
                }
            }
            let walked = crate::kernel::shape::Walked::of(t, row.form);
            let (moved, status): (Vec<&crate::isa::Reg>, Vec<&crate::isa::Reg>) =
                left_out.iter().partition(|r| walked.holds(t, **r));
            for (regs, why) in [
                (
                    status,
                    "control or status registers, no chain runs through them",
                ),
                (
                    moved,
                    "the pointers the form moves, which the loop sets again every iteration",
                ),
            ] {
                if !regs.is_empty() {
                    let regs: Vec<&str> = regs.iter().map(|r| r.name()).collect();
                    s.push_str(&format!(
                        "\tnot measured: sub-latencies through {} ({why})\n",
                        regs.join(", ")
                    ));
                }
            }
            if let Some(l) = crate::mode::lat::entry(row).and_then(|e| e.latency) {
                let exact = subs
                    .iter()
                    .any(|x| matches!(x.value, Ok((lo, hi)) if lo == hi));
                let address = subs.iter().any(|x| {
                    x.value.is_ok()
                        && (crate::mode::lat::chain::neutral_chase(t, &x.edge)
                            || crate::mode::lat::through_address(t, &x.edge))
                });
                let registers = subs.iter().any(|x| {
                    x.value.is_ok()
                        && !crate::mode::lat::chain::neutral_chase(t, &x.edge)
                        && !crate::mode::lat::through_address(t, &x.edge)
                });
                s.push_str(&format!(
                    "\tlatency: {l} ({}{})\n",
                    if crate::mode::lat::only_into_memory(subs) {
                        "a store: no register result waits for it; its round trip stays a range"
                    } else if exact {
                        "the largest exact sub-latency"
                    } else {
                        "no exact sub-latency: the largest upper bound"
                    },
                    if address && registers {
                        ", not from the address: that path stays a sub-latency"
                    } else {
                        ""
                    }
                ));
            }
            s.push_str(&vector_state_line(t, row.form));
            let forms: Vec<&str> = row.reproduce.iter().map(|f| f.name()).collect();
            s.push_str(&format!("\treproduce: winic LAT -i {}\n", forms.join(" ")));
        }
    }
    s.push('\n');
    s
}

/// The report's line for a form whose copies move registers the loop
/// sets back every iteration (x86 `push`: rsp; `movsb`: rsi, rdi), with
/// the instructions it runs for the body once; `None` for other forms.
fn walk_note(t: &dyn Target, form: crate::isa::Instr, copies: usize) -> Option<String> {
    let inst = t.example(form).ok()?;
    let moved = t.walked(&inst);
    if moved.is_empty() {
        return None;
    }
    let body = vec![inst; copies.max(1)];
    let walk = t.walk(&body, crate::kernel::data::STARTS).ok()?;
    let lines: Vec<String> = walk
        .top
        .iter()
        .chain(&walk.bottom)
        .filter_map(|i| t.print(i).ok())
        .collect();
    let regs: Vec<String> = moved.iter().map(|r| r.asm_name()).collect();
    Some(format!(
        "\twalk: the copies move {}; once per iteration the loop sets it back (for the body \
         once: {}), in both kernels of the difference, so it cancels\n",
        regs.join(", "),
        lines.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_rows_name_their_reason() {
        let form = crate::isa::Isa::get(crate::isa::Arch::X86_64)
            .instr("SYSCALL")
            .unwrap();
        let row = Row {
            form,
            outcome: Outcome::Skipped(crate::mode::reason::Skip::Unrunnable(
                crate::kernel::shape::Unrunnable::ControlFlow("isCall"),
            )),
        };
        assert_eq!(
            tp_block(crate::arch::target(row.form.isa().arch()), &row),
            "-----SYSCALL-----\n\tSYSCALL [SKIPPED: changes control flow (LLVM isCall)]\n\n"
        );
    }
}
