//! `winic runcheck`: for every register/immediate form of the host's arch,
//! build its throughput kernel (independent copies) and its latency kernel
//! (a chain) and run both a few times in a forked child. Nothing is timed:
//! it proves that the kernels winic measures run, under qemu-user as on
//! hardware, and lists every form that faults, with the signal.

use crate::arch::Target;
use crate::isa::Instr;
use crate::kernel::{shape, Kernel};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub use crate::exec::once::{kernels, run_kernel, ITERATIONS};

/// What happened to one form.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Both kernels ran (the latency one when the form has a chain).
    Ran {
        /// Copies in the throughput kernel.
        copies: usize,
        /// Whether a latency kernel exists and ran.
        chain: bool,
    },
    /// A kernel was killed or failed.
    Fault {
        /// `throughput` or `latency`.
        kernel: &'static str,
        /// The child's fate (`killed by SIGILL` …).
        reason: String,
    },
    /// No kernel could be built (encoder, decode check).
    BuildError {
        /// Why.
        reason: String,
    },
    /// The form must not run in a kernel.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// One form's result.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The LLVM record name.
    #[serde(rename = "llvmName")]
    pub name: &'static str,
    /// The outcome.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Counts of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// The arch.
    pub arch: String,
    /// Forms considered.
    pub forms: usize,
    /// Both kernels ran.
    pub ran: usize,
    /// Of those, with a latency chain.
    pub with_chain: usize,
    /// Faults per reason (`killed by SIGILL` …).
    pub faults: BTreeMap<String, usize>,
    /// Build errors.
    pub build_errors: usize,
    /// Skipped forms per reason.
    pub skipped: BTreeMap<String, usize>,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl Summary {
    /// The summary as text, one count per line.
    pub fn render(&self) -> String {
        let mut s = format!(
            "runcheck {}: {} forms in {:.1} s\n  ran:          {} ({} with a latency chain)\n",
            self.arch, self.forms, self.seconds, self.ran, self.with_chain
        );
        let faults: usize = self.faults.values().sum();
        s.push_str(&format!("  faulted:      {faults}\n"));
        for (why, n) in &self.faults {
            s.push_str(&format!("    {n:6}  {why}\n"));
        }
        s.push_str(&format!("  build errors: {}\n", self.build_errors));
        let skipped: usize = self.skipped.values().sum();
        s.push_str(&format!("  skipped:      {skipped}\n"));
        let mut by_count: Vec<(&String, &usize)> = self.skipped.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (why, n) in by_count {
            s.push_str(&format!("    {n:6}  {why}\n"));
        }
        s
    }
}

fn run_one(k: &Kernel, cpu: Option<usize>, deadline: Duration) -> Result<(), String> {
    run_kernel(k, cpu, deadline).map_err(|e| e.to_string())
}

/// Asserts (in tests on this arch's hardware or emulator) that `form`'s
/// kernels run, or, when the host lacks its features, that it is skipped
/// with exactly that reason.
#[cfg(test)]
pub(crate) fn assert_runs_or_is_skipped(t: &dyn Target, form: Instr) {
    let outcome = check(t, form, None, Duration::from_secs(60));
    match crate::probe::host_lacks(t, form) {
        None => assert!(
            matches!(outcome, Outcome::Ran { .. }),
            "{}: {outcome:?}",
            form.name()
        ),
        Some(why) => assert!(
            matches!(&outcome, Outcome::Skipped { reason } if *reason == why),
            "{}: {outcome:?}",
            form.name()
        ),
    }
}

/// Checks one form.
pub fn check(t: &dyn Target, form: Instr, cpu: Option<usize>, deadline: Duration) -> Outcome {
    if let Some(reason) = crate::probe::host_lacks(t, form)
        .or_else(|| shape::skip_reason(t, form).map(|u| u.to_string()))
    {
        return Outcome::Skipped { reason };
    }
    let (tp, lat, copies) = match kernels(t, form) {
        Ok(k) => k,
        Err(reason) => return Outcome::BuildError { reason },
    };
    if let Err(reason) = run_one(&tp, cpu, deadline) {
        return Outcome::Fault {
            kernel: "throughput",
            reason,
        };
    }
    if let Some(lat) = &lat {
        if let Err(reason) = run_one(lat, cpu, deadline) {
            return Outcome::Fault {
                kernel: "latency",
                reason,
            };
        }
    }
    Outcome::Ran {
        copies,
        chain: lat.is_some(),
    }
}

/// Checks `forms` (of `t`'s arch), calling `progress(done, total, name)`
/// after each.
pub fn run(
    t: &dyn Target,
    forms: &[Instr],
    cpu: Option<usize>,
    deadline: Duration,
    mut progress: impl FnMut(usize, usize, &str),
) -> (Vec<Row>, Summary) {
    let start = Instant::now();
    let mut rows = Vec::with_capacity(forms.len());
    let mut sum = Summary {
        arch: t.arch().to_string(),
        forms: forms.len(),
        ..Summary::default()
    };
    for (k, form) in forms.iter().enumerate() {
        let outcome = check(t, *form, cpu, deadline);
        match &outcome {
            Outcome::Ran { chain, .. } => {
                sum.ran += 1;
                sum.with_chain += usize::from(*chain);
            }
            Outcome::Fault { reason, .. } => *sum.faults.entry(reason.clone()).or_default() += 1,
            Outcome::BuildError { .. } => sum.build_errors += 1,
            Outcome::Skipped { reason } => *sum.skipped.entry(reason.clone()).or_default() += 1,
        }
        rows.push(Row {
            name: form.name(),
            outcome,
        });
        progress(k + 1, forms.len(), form.name());
    }
    sum.seconds = start.elapsed().as_secs_f64();
    (rows, sum)
}

/// One tab-separated line per form: name, outcome, details.
pub fn row_line(r: &Row) -> String {
    match &r.outcome {
        Outcome::Ran { copies, chain } => format!(
            "{}\tran\t{copies} copies{}",
            r.name,
            if *chain { ", chain" } else { ", no chain" }
        ),
        Outcome::Fault { kernel, reason } => format!("{}\tfault\t{kernel}: {reason}", r.name),
        Outcome::BuildError { reason } => format!("{}\tbuild-error\t{reason}", r.name),
        Outcome::Skipped { reason } => format!("{}\tskipped\t{reason}", r.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::isa::{Arch, Isa};

    fn host() -> &'static dyn Target {
        target(Arch::host().expect("tests run on a host winic supports"))
    }

    #[test]
    fn plain_forms_run_and_illegal_ones_are_faults() {
        let t = host();
        let isa = Isa::get(t.arch());
        let plain = match t.arch() {
            Arch::X86_64 => "IMUL64rr",
            Arch::Aarch64 => "MADDXrrr",
            Arch::Riscv64 => "MUL",
        };
        let got = check(t, isa.instr(plain).unwrap(), None, Duration::from_secs(30));
        assert_eq!(
            got,
            Outcome::Ran {
                copies: shape::COPIES,
                chain: true
            }
        );
        let skipped = match t.arch() {
            Arch::X86_64 => "SYSCALL",
            Arch::Aarch64 => "SVC",
            Arch::Riscv64 => "ECALL",
        };
        let got = check(
            t,
            isa.instr(skipped).unwrap(),
            None,
            Duration::from_secs(30),
        );
        assert!(matches!(got, Outcome::Skipped { .. }), "{got:?}");
    }

    #[test]
    fn the_summary_counts_every_form() {
        let t = host();
        let forms: Vec<Instr> = Isa::get(t.arch())
            .real_instrs()
            .filter(|f| f.name().starts_with("ADD"))
            .collect();
        let (rows, sum) = run(t, &forms, None, Duration::from_secs(30), |_, _, _| {});
        let faults: usize = sum.faults.values().sum();
        let skipped: usize = sum.skipped.values().sum();
        assert_eq!(rows.len(), sum.forms);
        assert_eq!(sum.ran + faults + sum.build_errors + skipped, sum.forms);
        assert!(sum.ran > 0, "{}", sum.render());
        assert!(rows.iter().all(|r| !row_line(r).is_empty()));
    }
}
