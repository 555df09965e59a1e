//! Why a measurement gave no value, as data: summaries count failures by
//! [`Failure::kind`] (computed from the variant, never parsed from text),
//! and the text with its figures is rendered only at the edge (report,
//! summary).

use crate::exec::run::{Cost, RunError};
use crate::exec::ChildError;
use crate::kernel::shape::Unrunnable;
use nix::sys::signal::Signal;
use std::fmt;

/// Why a form is not measured at all, on purpose (TP's and LAT's
/// `Skipped`): the summaries count the variant, the report renders it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// An x87 form, and the run was not given `--x87FP`.
    X87,
    /// The host lacks features it needs (what [`crate::probe::host_lacks`]
    /// says: the features, named).
    HostLacks(String),
    /// No kernel may run it.
    Unrunnable(Unrunnable),
    /// LAT: a branch writes no register a chain could follow.
    Branch,
    /// LAT: it reads or writes no register a chain can run through.
    NoSubLatency,
    /// LAT: it reaches memory through pointers it moves, which the loop
    /// sets again every iteration ([`crate::arch::Operands::walked`]:
    /// `push`, `pop`, string operations), and no other path is left.
    Walked,
    /// LAT: a scatter, whose kernels reset its mask before each
    /// ([`crate::arch::Operands::resets`]) and which writes no register:
    /// no path a chain can run through (a gather keeps its path from the
    /// base, `crate::mode::lat::chain::edges`).
    VectorIndexed,
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::X87 => f.write_str("x87 form (give --x87FP to measure it)"),
            Skip::HostLacks(why) => f.write_str(why),
            Skip::Unrunnable(u) => write!(f, "{u}"),
            Skip::Branch => f.write_str(
                "a branch: latency is not meaningful (it writes no register; TP measures its \
                 throughput, taken and not taken)",
            ),
            Skip::NoSubLatency => {
                f.write_str("no sub-latency: reads or writes no register a chain can run through")
            }
            Skip::Walked => f.write_str(
                "no sub-latency: its paths run through memory at the pointers it moves \
                 (rsp, rsi, rdi), which the loop sets again every iteration; the round trip \
                 through memory (push then pop) is not measured yet (TP measures its throughput)",
            ),
            Skip::VectorIndexed => f.write_str(
                "a scatter: its kernels set the mask before each (it clears it), and it \
                 writes no register, so no chain runs through it; the round trip through \
                 memory is not measured (TP measures its throughput)",
            ),
        }
    }
}

/// Why TP writes only the upper end of a form's range (the form reads
/// and writes a register implicitly, and the helper that breaks that
/// dependency leaves no trustworthy lower end).
#[derive(Clone, Debug, PartialEq)]
pub enum HoldBack {
    /// The fastest helper costs more than the form: subtracting it would
    /// leave noise (`rdtsc` at 29 cycles to break `and al, 2`).
    HelperDearer {
        /// The helper's name.
        helper: &'static str,
        /// The helper's cycles.
        helper_cycles: f64,
        /// The form's cycles without a helper.
        form_cycles: f64,
    },
    /// The lower end, combined − helper, is below the fastest rate the
    /// core sustains.
    BelowFloor {
        /// The combined cycles of a form and a helper.
        combined: f64,
        /// The helper's cycles.
        helper_cycles: f64,
        /// The floor.
        floor: f64,
        /// The block that set it.
        probe: &'static str,
    },
    /// The difference of the two kernels is below a floor a form's
    /// accesses cannot undercut (a block of loads'): each kernel ran in
    /// a state of its own (`vpcmpeqd k, ymm, [m]` runs 0.50 or 0.59 a
    /// copy on zen5), and the faster kernel alone is the upper bound.
    KernelsApart {
        /// The kernels' difference, cycles per copy.
        difference: f64,
        /// The floor.
        floor: f64,
        /// The block that set it.
        probe: &'static str,
    },
    /// The two kernels disagree on what a copy costs: the shorter one's
    /// time less its copies at the difference's rate leaves its loop more
    /// cycles an iteration (or fewer than none) than a loop takes. On
    /// zen5 the 48 copies of `vcmppd k, xmm, [m]{1to2}` ran 0.59 cycles
    /// each in every run, the 96 at 0.59 or 0.50 by run, and their
    /// difference said 0.41 (8 cycles of loop) or 0.59: each kernel
    /// alone, its loop included, is the upper bound.
    KernelsDisagree {
        /// The kernels' difference, cycles per copy.
        difference: f64,
        /// Each kernel alone, cycles per copy, its loop included.
        alone: (f64, f64),
        /// The loop's cycles an iteration the pair implies.
        implied_loop: f64,
    },
    /// A memory form may wait on a load or store port the helper does not
    /// use: combined − helper is no lower bound.
    SharesMemoryPort {
        /// The combined cycles of a form and a helper.
        combined: f64,
        /// The helper's cycles.
        helper_cycles: f64,
    },
}

impl fmt::Display for HoldBack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HoldBack::HelperDearer {
                helper,
                helper_cycles: v,
                form_cycles,
            } => write!(
                f,
                "no helper is cheaper than the form: the fastest, {helper} at {v:.3} cycles, \
                 costs more than its {form_cycles:.3}, and subtracting it would leave noise"
            ),
            HoldBack::BelowFloor {
                combined,
                helper_cycles,
                floor,
                probe,
            } => write!(
                f,
                "the lower end, {combined:.3} − {helper_cycles:.3} = {:.3} cycles, is below the \
                 fastest rate this core sustains ({floor:.3}, a block of {probe}): the helper's \
                 cost dwarfs the form's",
                combined - helper_cycles
            ),
            HoldBack::KernelsApart {
                difference,
                floor,
                probe,
            } => write!(
                f,
                "the kernels' difference, {difference:.3} cycles, is below what a block of \
                 {probe} takes ({floor:.3}): the two kernels ran in different states, and \
                 the faster of them alone, its loop included, is the upper bound"
            ),
            HoldBack::KernelsDisagree {
                difference,
                alone: (shorter, longer),
                implied_loop,
            } => write!(
                f,
                "the two kernels disagree on a copy: {shorter:.3} cycles in the shorter, \
                 {longer:.3} in the longer, their loops included; their difference, \
                 {difference:.3}, would leave the loop {implied_loop:.1} cycles an iteration, \
                 which no loop takes: each kernel ran in a state of its own, and the faster \
                 alone is the upper bound"
            ),
            HoldBack::SharesMemoryPort {
                combined,
                helper_cycles,
            } => write!(
                f,
                "the lower end, {combined:.3} − {helper_cycles:.3} = {:.3} cycles, assumes the \
                 form and the helper share nothing, which a memory access (its load or store \
                 port) need not",
                combined - helper_cycles
            ),
        }
    }
}

/// Which step of planning a LAT chain failed: what the summaries count.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChainGap {
    /// The chain's body could not be built from its steps.
    Unbuildable,
    /// An address comes from another register file, and no form copying
    /// bits leads back from that file (named).
    NoBitCopy {
        /// The file the chain would have to leave.
        from: &'static str,
    },
    /// No helper (or pair of helpers) leads back from one register file to
    /// another.
    NoHelperPath {
        /// The file the edge ends in.
        from: &'static str,
        /// The file it starts from.
        to: &'static str,
    },
    /// A store edge whose source is no stored register.
    NoStoredRegister,
    /// No load reads the stored bytes back into a register of their class.
    NoReload,
    /// The source holds a value the form needs to run at all (x86
    /// `div`'s high half 0: any other makes the quotient too wide, #DE),
    /// which a step back into it would overwrite; only a chain of copies,
    /// whose division leaves the value as it found it, keeps it.
    HeldValue,
    /// A neutral chase (through a load's address, its result not the
    /// address) needs the target's way back in the run: the forms named.
    NoNeutralBack {
        /// The form that clears the result.
        clear: &'static str,
        /// The form that adds it to the base.
        add: &'static str,
    },
}

impl fmt::Display for ChainGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainGap::Unbuildable => f.write_str("the chain cannot be built"),
            ChainGap::NoBitCopy { from } => {
                write!(
                    f,
                    "no form copying bits leads back from {from} to the address"
                )
            }
            ChainGap::NoHelperPath { from, to } => {
                write!(f, "no helper chain leads back from {from} to {to}")
            }
            ChainGap::NoStoredRegister => f.write_str("no register is stored"),
            ChainGap::HeldValue => f.write_str(
                "its source must hold the value the form runs with, which a step back would \
                 overwrite (a division's high half: the quotient would overflow, #DE)",
            ),
            ChainGap::NoReload => {
                f.write_str("no load reads the stored bytes back into a register of their class")
            }
            ChainGap::NoNeutralBack { clear, add } => write!(
                f,
                "the way back to the address clears the result with {clear} and adds it \
                 with {add}: measure them in the same run (winic LAT -i ... {clear} {add})"
            ),
        }
    }
}

/// Why a kernel (TP's body, LAT's chain) gave no value.
#[derive(Clone, Debug)]
pub enum Failure {
    /// The child running it died of a signal, exited, hung or sent
    /// garbage.
    Child(ChildError),
    /// The unroll difference, T(body×2) − T(body×1), was not positive:
    /// noise.
    NotPositive {
        /// The difference in cycles for the body.
        cycles: f64,
        /// The measurement, for its clock.
        cost: Box<Cost>,
    },
    /// The body twice took hardly longer than the body once: the time
    /// does not grow with the work (non-temporal stores drain to memory at
    /// their own pace), so the difference is no cost of the form.
    NotLinear {
        /// The longer kernel's time over the shorter's.
        ratio: f64,
        /// The longer kernel's work over the shorter's: 2, or 32 / 24 for
        /// read-modify-writes ([`crate::mode::common::unrolls_for`]).
        expected: f64,
        /// The measurement.
        cost: Box<Cost>,
    },
    /// Faster than the fastest rate this core sustains (TP's floor): a
    /// wrong clock or noise.
    BelowFloor {
        /// Cycles per instruction measured.
        cycles: f64,
        /// The floor.
        floor: f64,
        /// The block that set the floor ("no-ops", "adds").
        probe: &'static str,
        /// The measurement, for its clock.
        cost: Box<Cost>,
    },
    /// No kernel could be built or mapped for it.
    NoKernel(String),
    /// LAT: no chain through it could be planned or built; `gap` says
    /// which step failed (counted by it), `detail` the registers, forms
    /// and figures.
    NoChain {
        /// The step that failed.
        gap: ChainGap,
        /// Registers, forms and figures.
        detail: Option<String>,
    },
    /// LAT: no measured chain bounds it.
    Unbounded,
    /// LAT: every chain through it ran a lap shorter than the other
    /// sub-latencies on it allow (each at least a cycle), and was left
    /// out of the equations: the next step did not wait for this result
    /// (`vpconflictd zmm, [m]{1to16}` on zen5 ran its address chase at
    /// 1.00 cycle a lap, under its three one-cycle steps back: a conflict
    /// of sixteen equal lanes has a fixed result; `inc`'s flags chained
    /// back through `rcl`, which reads the carry `inc` leaves alone), or
    /// the chain was disturbed. `lap`: the fastest of those laps.
    Outran {
        /// Cycles of the fastest lap.
        lap: f64,
    },
    /// A replay's raw file holds no result of its kernels.
    NotRecorded,
}

impl Failure {
    /// From a measurement's error.
    pub fn of_run(e: RunError) -> Failure {
        match e {
            RunError::Child(c) => Failure::Child(c),
            RunError::Kernel(k) => Failure::NoKernel(k.to_string()),
            RunError::Map(m) => Failure::NoKernel(format!("mapping the code: {m}")),
            RunError::NotRecorded => Failure::NotRecorded,
        }
    }

    /// What to count it under: the reason without its figures.
    pub fn kind(&self) -> String {
        match self {
            Failure::Child(ChildError::Signal(s)) => format!("killed by {}", s.as_str()),
            Failure::Child(ChildError::Exit(_)) => "exited with a non-zero status".into(),
            Failure::Child(ChildError::Timeout(_)) => {
                "no result within the deadline (killed)".into()
            }
            Failure::Child(ChildError::Garbage(_)) => "sent no valid result".into(),
            Failure::Child(ChildError::System(_)) => "winic could not run the child".into(),
            Failure::Child(ChildError::Interrupted) => "stopped by SIGINT or SIGTERM".into(),
            Failure::NotPositive { .. } => "the unroll difference was not positive: noise".into(),
            Failure::NotLinear {
                ratio, expected, ..
            } if ratio < expected => {
                "held back: the time does not grow with the body (bound beyond the core)".into()
            }
            Failure::NotLinear { .. } => {
                "held back: the time grows faster than the body (drifting values)".into()
            }
            Failure::BelowFloor { .. } => {
                "held back: below the fastest rate this core sustains (or stores): a wrong clock, \
                 noise or the loop's place"
                    .into()
            }
            Failure::NoKernel(_) => "no kernel".into(),
            Failure::NoChain { gap, .. } => gap.to_string(),
            Failure::Unbounded => "no chain bounds it".into(),
            Failure::Outran { .. } => {
                "its chains ran faster than the steps on them add up to: the next step did \
                 not wait for this result"
                    .into()
            }
            Failure::NotRecorded => {
                "not in the raw file (the recorded run did not measure it)".into()
            }
        }
    }

    /// Whether it died of SIGILL (the net for features no check caught).
    pub fn is_sigill(&self) -> bool {
        matches!(self, Failure::Child(ChildError::Signal(Signal::SIGILL)))
    }

    /// The measurement behind it, when there was one.
    pub fn cost(&self) -> Option<&Cost> {
        match self {
            Failure::BelowFloor { cost, .. }
            | Failure::NotPositive { cost, .. }
            | Failure::NotLinear { cost, .. } => Some(cost),
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Child(e) => write!(f, "{e}"),
            Failure::NotPositive { cycles, .. } => write!(
                f,
                "the unroll difference was not positive ({cycles:.3} cycles for the body): noise"
            ),
            Failure::NotLinear {
                ratio, expected, ..
            } if ratio < expected => write!(
                f,
                "held back: the longer kernel ({expected:.2} times the shorter's work) took \
                 only {ratio:.2} times as long, so the time does not grow with the work (bound \
                 beyond the core: memory, a write-combining buffer) and the difference is no \
                 cost of the form"
            ),
            Failure::NotLinear {
                ratio, expected, ..
            } => write!(
                f,
                "held back: the longer kernel ({expected:.2} times the shorter's work) took \
                 {ratio:.2} times as long, so the time grows faster than the work (values that \
                 drift with the iterations: a dividend divided again and again) and the \
                 difference is no cost of the form"
            ),
            Failure::BelowFloor {
                cycles,
                floor,
                probe,
                ..
            } => write!(
                f,
                "held back: below the fastest rate this core sustains ({cycles:.3} cycles per \
                 instruction, floor {floor:.3} from a block of {probe}): a wrong clock, noise, or \
                 for a form that stores, where its loop sits (docs/method.md, the floor)"
            ),
            Failure::NoKernel(why) => write!(f, "no kernel: {why}"),
            Failure::NoChain { gap, detail } => match detail {
                Some(d) => write!(f, "{gap}: {d}"),
                None => write!(f, "{gap}"),
            },
            Failure::Unbounded => f.write_str("no chain bounds it"),
            Failure::Outran { lap } => write!(
                f,
                "its chains ran {lap:.2} cycles a lap, less than the steps on them add up to (a \
                 cycle or more each), and were left out of the equations: the next step did not \
                 wait for this result (a fixed result, as a conflict of a broadcast's equal \
                 lanes; or a step back that reads none of what the form writes, as `rcl` reads \
                 the carry `inc` leaves alone), or the chains were disturbed"
            ),
            Failure::NotRecorded => f.write_str(&self.kind()),
        }
    }
}

/// Why `winic ports` has no time for a form alone, a pair, a mix or a
/// part of one: the report renders it, a full run's summary counts the
/// variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Unmeasured {
    /// Its body was not measured.
    NotMeasured,
    /// Skipped before anything was built (x87, features, unrunnable).
    Skip(Skip),
    /// It reads and writes a register implicitly: its copies depend on
    /// each other.
    ImplicitDependency,
    /// A full run does not time a form that loads or stores.
    Memory,
    /// No body of its copies could be built.
    NoBody(crate::arch::EncodeError),
    /// No registers were left to put its forms in one body.
    NoRegisters,
    /// Its two forms may not share a body (why, as the arch says).
    Apart(&'static str),
    /// The unroll difference was not positive.
    Noise,
    /// A pair's form: no body of its copies alone was timed.
    NotAlone,
    /// A form of a mix has no place in the fitted mapping.
    NotMapped,
    /// The kernels gave no time.
    Run(RunError),
    /// A placed access (across two lines, off its alignment, in a line of
    /// its own) ran faster than the same access aligned, by more than
    /// noise allows: it does at least the aligned access's work, so the
    /// time is noise, not the access's.
    FasterThanAligned {
        /// Which placement.
        placement: &'static str,
        /// Its cycles an access.
        cycles: f64,
        /// The aligned access's.
        aligned: f64,
    },
}

impl Unmeasured {
    /// Whether this is a replay's missing record: the recorded run did
    /// not measure this body (an experiment it did not have).
    pub fn not_recorded(&self) -> bool {
        matches!(self, Unmeasured::Run(RunError::NotRecorded))
    }
}

impl fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unmeasured::NotMeasured => f.write_str("not measured"),
            Unmeasured::Skip(s) => write!(f, "{s}"),
            Unmeasured::ImplicitDependency => f.write_str(
                "reads and writes a register implicitly (EFLAGS of adc): its copies depend on \
                 each other",
            ),
            Unmeasured::Memory => f.write_str(
                "loads or stores: a micro-op of its own beside the operation, not placed",
            ),
            Unmeasured::NoBody(e) => write!(f, "{e}"),
            Unmeasured::NoRegisters => f.write_str("no registers left to mix them"),
            Unmeasured::Apart(why) => f.write_str(why),
            Unmeasured::Noise => f.write_str("the unroll difference was not positive: noise"),
            Unmeasured::NotAlone => f.write_str("its copies of the mix do not run alone"),
            Unmeasured::NotMapped => f.write_str("a form is not mapped"),
            Unmeasured::Run(e) => write!(f, "{e}"),
            Unmeasured::FasterThanAligned {
                placement,
                cycles,
                aligned,
            } => write!(
                f,
                "held back: {placement} {cycles:.2} cycles an access, faster than aligned \
                 ({aligned:.2}), which does less work: noise (another tenant on the core)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_that_does_not_grow_with_the_body_is_held_back_with_its_ratio() {
        let f = Failure::NotLinear {
            ratio: 1.016,
            expected: 2.0,
            cost: Box::default(),
        };
        assert!(f.kind().starts_with("held back"), "{}", f.kind());
        assert!(
            f.to_string()
                .contains("(2.00 times the shorter's work) took only 1.02 times"),
            "{f}"
        );
        assert!(f.cost().is_some());
        let f = Failure::NotLinear {
            ratio: 4.16,
            expected: 2.0,
            cost: Box::default(),
        };
        assert!(f.kind().contains("faster than the body"), "{}", f.kind());
        assert!(f.to_string().contains("4.16 times"), "{f}");
        // Read-modify-write kernels of 24 and 32 copies: 1.20 is short.
        let f = Failure::NotLinear {
            ratio: 1.2,
            expected: 32.0 / 24.0,
            cost: Box::default(),
        };
        assert!(
            f.to_string()
                .contains("(1.33 times the shorter's work) took only 1.20"),
            "{f}"
        );
    }

    #[test]
    fn failures_count_by_kind_and_print_their_figures() {
        let noise = Failure::NotPositive {
            cycles: -0.395,
            cost: Box::default(),
        };
        assert_eq!(
            noise.kind(),
            "the unroll difference was not positive: noise"
        );
        assert!(noise.to_string().contains("-0.395"), "{noise}");
        let ill = Failure::Child(ChildError::Signal(Signal::SIGILL));
        assert!(ill.is_sigill());
        assert_eq!(ill.kind(), "killed by SIGILL");
        assert!(!Failure::Child(ChildError::Signal(Signal::SIGSEGV)).is_sigill());
        let chain = Failure::NoChain {
            gap: ChainGap::NoHelperPath {
                from: "RAX",
                to: "ZMM0",
            },
            detail: Some("RAX is overwritten".into()),
        };
        assert_eq!(chain.kind(), "no helper chain leads back from RAX to ZMM0");
        assert!(chain.to_string().ends_with("RAX is overwritten"));
    }

    #[test]
    fn skips_and_chain_gaps_render_the_texts_reports_have_always_had() {
        let reserved = Skip::Unrunnable(Unrunnable::WritesReserved {
            reg: "rsp".into(),
            why: "stack pointer",
        });
        assert_eq!(reserved.to_string(), "writes rsp (stack pointer)");
        assert_eq!(
            Skip::X87.to_string(),
            "x87 form (give --x87FP to measure it)"
        );
        assert!(Skip::Branch
            .to_string()
            .starts_with("a branch: latency is not meaningful"));
        // Counted by variant: two forms lacking the same feature are one
        // line, another feature another.
        let lacks = |f: &str| Skip::HostLacks(format!("needs {f} (this host lacks it)"));
        let mut count = std::collections::BTreeMap::new();
        for s in [
            lacks("AMX-TILE"),
            lacks("AMX-TILE"),
            lacks("AVX512FP16"),
            Skip::X87,
        ] {
            *count.entry(s).or_insert(0) += 1;
        }
        assert_eq!(count.len(), 3);
        assert_eq!(count[&lacks("AMX-TILE")], 2);
        let gap = ChainGap::NoBitCopy { from: "K0" };
        assert_eq!(
            gap.to_string(),
            "no form copying bits leads back from K0 to the address"
        );
        let f = Failure::NoChain {
            gap,
            detail: Some("from K0:64 to GR64".into()),
        };
        assert_eq!(
            f.kind(),
            "no form copying bits leads back from K0 to the address"
        );
    }

    /// `winic ports`' reasons keep the texts its reports always had (the
    /// recorded runs replay to the same text), and a replay's missing
    /// record is told by its variant, not its text.
    #[test]
    fn ports_reasons_render_their_texts_and_name_a_missing_record() {
        let texts = [
            (Unmeasured::NotMeasured, "not measured"),
            (Unmeasured::NoRegisters, "no registers left to mix them"),
            (
                Unmeasured::Noise,
                "the unroll difference was not positive: noise",
            ),
            (
                Unmeasured::NotAlone,
                "its copies of the mix do not run alone",
            ),
            (Unmeasured::NotMapped, "a form is not mapped"),
            (
                Unmeasured::Memory,
                "loads or stores: a micro-op of its own beside the operation, not placed",
            ),
        ];
        for (u, text) in texts {
            assert_eq!(u.to_string(), text);
            assert!(!u.not_recorded());
        }
        assert!(Unmeasured::Run(RunError::NotRecorded).not_recorded());
        assert!(!Unmeasured::Run(RunError::Map("x".into())).not_recorded());
    }
}
