//! Measuring the forms again in other configurations (RVV vector types,
//! [`Variant`]): each result goes into its entry's `vectorConfigs` and is
//! journalled under `NAME@e8m2`.

use super::sink::Sink;
use super::{labelled, lat, tp, Mode, Progress};
use crate::arch::variant::Variant;
use crate::db::{Entry, VectorConfig};
use crate::exec::run::Options;
use crate::isa::Instr;
use std::collections::BTreeMap;

/// What every configuration of a sweep shares.
pub(super) struct Sweep<'a> {
    pub mode: Mode,
    pub opts: &'a Options,
    pub x87: bool,
    pub floor: Option<tp::Floor>,
    pub known: &'a dyn Fn(&str) -> Option<f64>,
    /// Journal keys done before (`--resume`).
    pub done: &'a [String],
}

impl Sweep<'_> {
    /// Measures `forms` in every configuration of `variants` they are
    /// defined in and can run in; every result goes to `sink`.
    pub(super) fn run(
        &self,
        variants: &[Box<dyn Variant>],
        forms: &[Instr],
        sink: &mut Sink,
        progress: Progress,
    ) -> Tally {
        let mut tally = Tally::default();
        for v in variants {
            let key = |f: &Instr| format!("{}@{}", f.name(), v.key());
            let t = v.target();
            let mut chosen = Vec::new();
            for f in forms.iter().filter(|f| v.varies(**f)) {
                if !v.defined(*f) {
                    tally.undefined += 1;
                } else if tp::early_skip(t, *f, self.x87).is_some() {
                    // Cannot run at all (memory, privileged, missing
                    // features): reported in the default configuration.
                    tally.skipped += 1;
                } else if !self.done.contains(&key(f)) {
                    chosen.push(*f);
                }
            }
            let (runnable, lack): (Vec<_>, Vec<_>) =
                chosen.into_iter().partition(|f| v.lacking(*f).is_none());
            tally.lacking += lack.len();
            if runnable.is_empty() || crate::interrupt::requested() {
                continue;
            }
            sink.put(
                &format!("@{}", v.key()),
                format!(
                    "=====RVV at {}, ta ma: {} forms=====\n\n",
                    v.label(),
                    runnable.len()
                ),
                None,
            );
            let (sew, lmul) = v.sew_lmul();
            let config = |e: Option<Entry>| {
                e.map(|mut e| {
                    e.vector_configs = vec![VectorConfig::from_entry(&e, sew, lmul)];
                    e
                })
            };
            let label = format!("{} riscv64 {}", self.mode.name(), v.label());
            match self.mode {
                Mode::Tp => {
                    let rows = tp::run(
                        t,
                        &runnable,
                        self.opts,
                        self.x87,
                        self.floor,
                        self.known,
                        &mut labelled(&mut *progress, label),
                        &mut |row| {
                            sink.put(
                                &key(&row.form),
                                super::blocks::tp_block(t, row),
                                config(tp::entry(row)),
                            )
                        },
                    );
                    for r in &rows {
                        tally.count(r.outcome.unmeasured_kind());
                        if r.outcome.is_sigill() {
                            tally.sigill(r.form, v.key());
                        }
                    }
                }
                Mode::Lat => {
                    lat::run(
                        t,
                        &runnable,
                        self.opts,
                        self.x87,
                        &mut labelled(&mut *progress, label),
                        &mut |row, measurements| {
                            let entry = lat::entry(row);
                            let measured = entry.as_ref().is_some_and(|e| {
                                e.operand_latencies.iter().any(|l| l.latency_max.is_some())
                            });
                            if row.is_sigill() {
                                tally.sigill(row.form, v.key());
                            }
                            tally.count(
                                (!measured).then(|| {
                                    "no sub-latency measured (see the report)".to_string()
                                }),
                            );
                            sink.put(
                                &key(&row.form),
                                super::blocks::lat_block(t, row, measurements),
                                config(entry),
                            )
                        },
                    );
                }
            }
        }
        tally
    }
}

/// The counts of a sweep.
#[derive(Default)]
pub(super) struct Tally {
    /// (form, configuration) pairs measured.
    measured: usize,
    /// Pairs not measured, by kind of reason.
    unmeasured: BTreeMap<String, usize>,
    /// Pairs at which a form is not defined (not tried).
    undefined: usize,
    /// Pairs that need a feature the host lacks in that configuration
    /// (Zvfh …).
    lacking: usize,
    /// Pairs of forms skipped in the default configuration (memory,
    /// missing features: V on a CPU without it), whose reason the summary
    /// gives above.
    skipped: usize,
    /// Forms that died of SIGILL in a configuration (LAT: in one of their
    /// chains), with the configurations: only the net caught them.
    sigill: BTreeMap<&'static str, Vec<String>>,
}

impl Tally {
    fn count(&mut self, unmeasured: Option<String>) {
        match unmeasured {
            None => self.measured += 1,
            Some(k) => *self.unmeasured.entry(k).or_default() += 1,
        }
    }

    fn sigill(&mut self, form: Instr, at: String) {
        self.sigill.entry(form.name()).or_default().push(at);
    }

    /// The summary's lines on the sweep over `types` configurations.
    pub(super) fn text(&self, types: usize) -> String {
        let tried: usize = self.measured + self.unmeasured.values().sum::<usize>();
        let mut s = format!(
            "RVV at {types} more vector types (vectorConfigs): {} (form, SEW, LMUL) measured of {tried} tried; \
             {} not defined there (LLVM's pseudos, V specification), {} need a feature the host lacks at that type, \
             {} belong to forms skipped at e32 m1 (reasons above)\n",
            self.measured, self.undefined, self.lacking, self.skipped
        );
        let mut kinds: Vec<(&String, &usize)> = self.unmeasured.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, n) in kinds {
            s.push_str(&format!("  {n:>6}  {k}\n"));
        }
        if !self.sigill.is_empty() {
            let pairs: usize = self.sigill.values().map(Vec::len).sum();
            s.push_str(&format!(
                "  SIGILL net at these types: {pairs} (form, type) pairs of {} forms died of SIGILL although the \
                 type is defined for them (an emulator gap or a wrong kernel):\n",
                self.sigill.len()
            ));
            for (form, types) in &self.sigill {
                s.push_str(&format!("    {form}  {}\n", types.join(" ")));
            }
        }
        s
    }
}
