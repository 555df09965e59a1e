//! Why a measurement gave no value, as data: summaries count failures by
//! [`Failure::kind`] (computed from the variant, never parsed from text),
//! and the text with its figures is rendered only at the edge (report,
//! summary).

use crate::exec::run::{Cost, RunError};
use crate::exec::ChildError;
use nix::sys::signal::Signal;
use std::fmt;

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
        /// Twice's time over once's.
        ratio: f64,
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
    /// LAT: no chain through it could be planned or built; `kind` says
    /// which step failed (without figures, for counting), `detail` the
    /// rest.
    NoChain {
        /// The kind, e.g. "no helper chain leads back from RAX to ZMM0".
        kind: String,
        /// Registers, forms and figures.
        detail: Option<String>,
    },
    /// LAT: no measured chain bounds it.
    Unbounded,
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
            Failure::NotLinear { ratio, .. } if *ratio < 2.0 => {
                "held back: the time does not grow with the body (bound beyond the core)".into()
            }
            Failure::NotLinear { .. } => {
                "held back: the time grows faster than the body (drifting values)".into()
            }
            Failure::BelowFloor { .. } => {
                "held back: below the fastest rate this core sustains: a wrong clock or noise"
                    .into()
            }
            Failure::NoKernel(_) => "no kernel".into(),
            Failure::NoChain { kind, .. } => kind.clone(),
            Failure::Unbounded => "no chain bounds it".into(),
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
            Failure::NotLinear { ratio, .. } if *ratio < 2.0 => write!(
                f,
                "held back: the body twice took only {ratio:.2} times as long as once, so the \
                 time does not grow with the work (bound beyond the core: memory, a \
                 write-combining buffer) and the difference is no cost of the form"
            ),
            Failure::NotLinear { ratio, .. } => write!(
                f,
                "held back: the body twice took {ratio:.2} times as long as once, so the time \
                 grows faster than the work (values that drift with the iterations: a \
                 dividend divided again and again) and the difference is no cost of the form"
            ),
            Failure::BelowFloor {
                cycles,
                floor,
                probe,
                ..
            } => write!(
                f,
                "held back: below the fastest rate this core sustains ({cycles:.3} cycles per \
                 instruction, floor {floor:.3} from a block of {probe}): a wrong clock or noise"
            ),
            Failure::NoKernel(why) => write!(f, "no kernel: {why}"),
            Failure::NoChain { kind, detail } => match detail {
                Some(d) => write!(f, "{kind}: {d}"),
                None => f.write_str(kind),
            },
            Failure::Unbounded => f.write_str("no chain bounds it"),
            Failure::NotRecorded => f.write_str(&self.kind()),
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
            cost: Box::default(),
        };
        assert!(f.kind().starts_with("held back"), "{}", f.kind());
        assert!(f.to_string().contains("1.02 times"), "{f}");
        assert!(f.cost().is_some());
        let f = Failure::NotLinear {
            ratio: 4.16,
            cost: Box::default(),
        };
        assert!(f.kind().contains("faster than the body"), "{}", f.kind());
        assert!(f.to_string().contains("4.16 times"), "{f}");
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
            kind: "no helper chain leads back from RAX to ZMM0".into(),
            detail: Some("RAX is overwritten".into()),
        };
        assert_eq!(chain.kind(), "no helper chain leads back from RAX to ZMM0");
        assert!(chain.to_string().ends_with("RAX is overwritten"));
    }
}
