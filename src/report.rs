//! Report files as WINIC writes them (`report_TP_<timestamp>.txt`): a
//! header (timestamp, command, frequency, arch, mode), then one block per
//! form with its value or the reason it has none, the kernel body, the raw
//! timings and any warning. Written line by line and flushed per form, so
//! a run killed at any moment keeps every finished block.

use crate::arch::Target;
use crate::error::Error;
use crate::mode::tp::{Outcome, Row};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An open report.
pub struct Report {
    path: PathBuf,
    out: BufWriter<File>,
}

/// `YYYY-MM-DD_HH-MM-SS` (UTC) of the current time, as in WINIC's report
/// names.
pub fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}_{:02}-{:02}-{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The CPU's model name from `/proc/cpuinfo`, read with the keys of
/// `arch`'s kernel (x86 `model name`; AArch64 `CPU implementer` and `CPU
/// part`; RISC-V `uarch`, else `mvendorid`/`marchid`), or why there is
/// none: under qemu-user the file is the host's, of another arch.
pub fn cpu_name(arch: crate::isa::Arch) -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpu_name_in(arch, &info)
}

/// [`cpu_name`] of the `/proc/cpuinfo` text `info`.
pub fn cpu_name_in(arch: crate::isa::Arch, info: &str) -> String {
    use crate::arch::host::cpuinfo_value as value;
    use crate::isa::Arch;
    let name = match arch {
        Arch::X86_64 => value(info, "model name").map(str::to_string),
        Arch::Aarch64 => value(info, "CPU part").map(|part| {
            format!(
                "CPU implementer {} part {part} (MIDR)",
                value(info, "CPU implementer").unwrap_or("?")
            )
        }),
        Arch::Riscv64 => value(info, "uarch").map(str::to_string).or_else(|| {
            let id = |k| value(info, k).filter(|v| !v.is_empty());
            Some(format!(
                "mvendorid {} marchid {}",
                id("mvendorid")?,
                id("marchid")?
            ))
        }),
    };
    name.filter(|n| !n.is_empty()).unwrap_or_else(|| {
        format!("unknown: /proc/cpuinfo names no {arch} CPU (under an emulator it is the host's)")
    })
}

impl Report {
    /// Creates `dir/report_<mode>_<timestamp>.txt` with the header lines.
    pub fn create(dir: &Path, mode: &str, header: &[(&str, String)]) -> Result<Report, Error> {
        // Two runs within one second must not share a report.
        let stamp = timestamp();
        let mut k = 1;
        let (path, file) = loop {
            let name = match k {
                1 => format!("report_{mode}_{stamp}.txt"),
                _ => format!("report_{mode}_{stamp}_{k}.txt"),
            };
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(f) => break (path, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && k < 1000 => k += 1,
                Err(e) => {
                    return Err(Error::Io(
                        format!("creating the report {}", path.display()),
                        e,
                    ))
                }
            }
        };
        let mut r = Report {
            path,
            out: BufWriter::new(file),
        };
        let mut text = String::new();
        for (k, v) in header {
            text.push_str(&format!("{k}: {v}\n"));
        }
        r.write(&text)?;
        Ok(r)
    }

    /// Where the report is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, text: &str) -> Result<(), Error> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::Io(format!("writing the report {}", self.path.display()), e))
    }

    /// Appends one form's block ([`tp_block`], [`lat_block`]).
    pub fn append(&mut self, block: &str) -> Result<(), Error> {
        self.write(block)
    }
}

/// `\tvector state: …` for a form measured in a vector state
/// ([`crate::arch::Target::vector_state`]), else nothing.
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
                        s.push_str(&format!(", {} interleaved to break a dependency", b.name()));
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
                }
            }
            if !left_out.is_empty() {
                let regs: Vec<String> = left_out.iter().map(|r| r.name().to_string()).collect();
                s.push_str(&format!(
                    "\tnot measured: sub-latencies through {} (control or status registers, no chain runs through them)\n",
                    regs.join(", ")
                ));
            }
            if let Some(l) = crate::mode::lat::entry(row).and_then(|e| e.latency) {
                let exact = subs
                    .iter()
                    .any(|x| matches!(x.value, Ok((lo, hi)) if lo == hi));
                s.push_str(&format!(
                    "\tlatency: {l} ({})\n",
                    if exact {
                        "the largest exact sub-latency"
                    } else {
                        "no exact sub-latency: the largest upper bound"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_winic_s() {
        let t = timestamp();
        assert_eq!(t.len(), 19, "{t}");
        assert_eq!(&t[4..5], "-");
        assert_eq!(&t[10..11], "_");
        let year: i32 = t[..4].parse().unwrap();
        assert!((2024..2200).contains(&year), "{t}");
    }

    #[test]
    fn skipped_rows_name_their_reason() {
        let form = crate::isa::Isa::get(crate::isa::Arch::X86_64)
            .instr("SYSCALL")
            .unwrap();
        let row = Row {
            form,
            outcome: Outcome::Skipped("changes control flow".into()),
        };
        assert_eq!(
            tp_block(crate::arch::target(row.form.isa().arch()), &row),
            "-----SYSCALL-----\n\tSYSCALL [SKIPPED: changes control flow]\n\n"
        );
    }
}
