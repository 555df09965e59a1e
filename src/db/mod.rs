//! The result database, in the YAML format of WINIC (RRZE-HPC/WINIC,
//! `include/IOSystem.h`), so that files written by either tool can be read,
//! extended and compared by the other.
//!
//! A database is a list of [`Entry`]s, one per instruction form, keyed by
//! the LLVM record name. WINIC's field names, field order and conventions
//! are kept exactly:
//!
//! * every field is always written; a value that was not measured is
//!   `null` (WINIC maps them with `mapRequired`, so its loader rejects a
//!   file that leaves one out). winic reads files that omit them too;
//! * numbers are printed as C's `%g` (LLVM's `ScalarTraits<double>`):
//!   `1`, `0.5`, `0.33`;
//! * operands are the explicit register and immediate operands in LLVM's
//!   operand order, tied duplicates removed (see [`Entry::for_form`]);
//!   implicit registers never appear among the operands, only by name in
//!   `operandLatencies` (`FPCR`, `NZCV`, `VL`);
//! * [`Database::write_yaml`] lays the file out as LLVM's `yaml::Output`
//!   does (keys padded to column 17, nested lists indented by four,
//!   `---` … `...`), so a file WINIC wrote comes back byte for byte.
//!
//! Saving is atomic: a temporary file next to the target, fsynced, then
//! renamed over it.
//!
//! The parts: [`Entry`] and the other serialized types with the rules by
//! which a measurement becomes a value (`schema.rs`); WINIC's naming of
//! forms and operands (`naming.rs`); reading a file and saving one
//! atomically (`file.rs`); the YAML writer (`writer.rs`); the journal of
//! a run in progress (`journal.rs`). Merging results into a database is
//! here.

pub mod bounds;
mod file;
mod journal;
mod naming;
mod schema;
mod writer;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;

use crate::isa::Instr;
pub use journal::{Journal, JournalRun, Resumed};
pub use naming::{is_flags_key, operand_key};
pub use schema::{
    form_latency, latency_of, AccessCosts, Entry, Measured, OperandEntry, OperandLatency, PortUse,
    Repeated, VectorConfig, MAX_CYCLES, READ_PORT,
};

/// A database: entries in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Database {
    /// The entries, in the order they were loaded or added.
    pub entries: Vec<Entry>,
}

impl Database {
    /// The entry for the LLVM record `llvm_name` (the first, should a file
    /// hold several).
    pub fn get(&self, llvm_name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.llvm_name == llvm_name)
    }

    fn get_mut(&mut self, llvm_name: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.llvm_name == llvm_name)
    }

    /// Puts `entry` in place of the entry of the same form, or appends it.
    /// Everything of the old entry is replaced; to add one kind of result
    /// to an entry use [`Database::merge_throughput`] or
    /// [`Database::merge_latency`].
    pub fn merge(&mut self, entry: Entry) {
        match self.get_mut(&entry.llvm_name) {
            Some(old) => *old = entry,
            None => self.entries.push(entry),
        }
    }

    /// Takes the three throughput fields of `entry` into the entry of the
    /// same form and keeps everything else it has (name, operands and the
    /// latencies of an earlier latency run), as WINIC's TP mode does; a
    /// form not yet in the database is appended whole.
    pub fn merge_throughput(&mut self, entry: Entry) {
        self.merge_measured(entry, false);
    }

    /// Takes the latencies of `entry` into the entry of the same form, as
    /// [`Measured::merge`] does: pair by pair, and `latency` becomes
    /// [`form_latency`] of them all. Name, operands and throughput are
    /// kept, as in WINIC's LAT mode. A form not yet in the database is
    /// appended whole.
    pub fn merge_latency(&mut self, entry: Entry) {
        self.merge_measured(entry, true);
    }

    /// Takes the values of `config` into the entry of form `name` (which
    /// `base` describes when the database has none yet): a TP result
    /// (`latencies` false) sets the three throughput fields of the vector
    /// type's config, a LAT result its latencies, pair by pair, as
    /// [`Measured::merge`] does for an entry; the rest of the entry and its
    /// other configs stay.
    pub fn merge_vector_config(&mut self, base: Entry, config: VectorConfig, latencies: bool) {
        if self.get_mut(&base.llvm_name).is_none() {
            if !config.measured.has_value() {
                return;
            }
            self.entries.push(base.clone());
        }
        let entry = self.get_mut(&base.llvm_name).expect("added above");
        match entry
            .vector_configs
            .iter_mut()
            .find(|c| c.same_type(&config))
        {
            Some(old) => old.measured.merge(config.measured, latencies),
            None => entry.vector_configs.push(config),
        }
    }

    /// Takes the ports of one `winic ports` run: each form of `inferred`
    /// gets its port uses (a form not yet in the database is added with
    /// nothing else measured), and every other form loses the ports it
    /// had, which an earlier run numbered its own way. Throughputs and
    /// latencies stay. Returns how many forms lost ports.
    pub fn replace_inferred_ports(&mut self, inferred: Vec<(Instr, Vec<PortUse>)>) -> usize {
        let had: Vec<bool> = self
            .entries
            .iter()
            .map(|e| !e.inferred_ports.is_empty())
            .collect();
        for e in &mut self.entries {
            e.inferred_ports.clear();
            e.inferred_ports_misfit = None;
        }
        for (form, uses) in inferred {
            if self.get_mut(form.name()).is_none() {
                self.entries.push(Entry::for_form(form));
            }
            self.get_mut(form.name())
                .expect("added above")
                .inferred_ports = uses;
        }
        had.iter()
            .zip(&self.entries)
            .filter(|(had, e)| **had && e.inferred_ports.is_empty())
            .count()
    }

    /// Marks the forms of `misfits` (each with the root mean square error
    /// of its mixes) as holding the nearest port set, which predicted
    /// them no better than that ([`Entry::inferred_ports_misfit`]); after
    /// [`Database::replace_inferred_ports`] gave them their ports.
    pub fn mark_inferred_misfits(&mut self, misfits: &[(Instr, f64)]) {
        for &(form, error) in misfits {
            if let Some(e) = self.get_mut(form.name()) {
                e.inferred_ports_misfit = Some((error * 1000.0).round() / 1000.0);
            }
        }
    }

    /// Sets each form's line-split and misaligned throughputs from
    /// `measured` (forms not yet in the database are added), after
    /// removing every form's: a `ports` run replaces an earlier one's, as
    /// its inferred ports do.
    pub fn replace_access_costs(&mut self, measured: &[(Instr, AccessCosts)]) {
        for e in &mut self.entries {
            e.line_split_throughput = None;
            e.misaligned_throughput = None;
            e.own_line_throughput = None;
        }
        for &(form, costs) in measured {
            if self.get_mut(form.name()).is_none() {
                self.entries.push(Entry::for_form(form));
            }
            let e = self.get_mut(form.name()).expect("added above");
            e.line_split_throughput = Some(costs.line_split);
            e.misaligned_throughput = Some(costs.misaligned);
            e.own_line_throughput = costs.own_line;
        }
    }

    /// Sets each form's [`Entry::access_alone`] from `measured` (forms not
    /// yet in the database are added), after removing every form's: a
    /// `ports` run replaces an earlier one's.
    pub fn replace_access_alone(&mut self, measured: &[(Instr, bool)]) {
        for e in &mut self.entries {
            e.access_alone = None;
        }
        for &(form, alone) in measured {
            if self.get_mut(form.name()).is_none() {
                self.entries.push(Entry::for_form(form));
            }
            self.get_mut(form.name()).expect("added above").access_alone = Some(alone);
        }
    }

    /// Sets each form's [`Entry::repeated`] from `measured` (forms not yet
    /// in the database are added), after removing every form's: a `ports`
    /// run replaces an earlier one's, as its inferred ports do. A cycle
    /// count that is no measurement (not positive, not finite, beyond
    /// [`MAX_CYCLES`]) is left out.
    pub fn replace_repeated(&mut self, measured: &[(Instr, Vec<(u32, f64)>)]) {
        for e in &mut self.entries {
            e.repeated.clear();
        }
        for (form, sizes) in measured {
            if self.get_mut(form.name()).is_none() {
                self.entries.push(Entry::for_form(*form));
            }
            let e = self.get_mut(form.name()).expect("added above");
            e.repeated = sizes
                .iter()
                .filter(|(_, c)| c.is_finite() && *c > 0.0 && *c <= MAX_CYCLES)
                .map(|&(bytes, cycles)| Repeated {
                    bytes,
                    cycles: (cycles * 100.0).round() / 100.0,
                })
                .collect();
        }
    }

    /// [`Database::merge_throughput`] (`latencies` false) or
    /// [`Database::merge_latency`]; a vector state `entry` names replaces
    /// the old one. A form not yet in the database is added only with a
    /// value ([`Measured::has_value`]): a form that failed gets no entry
    /// of nulls; one already there loses the values this run failed to
    /// measure again.
    fn merge_measured(&mut self, entry: Entry, latencies: bool) {
        match self.get_mut(&entry.llvm_name) {
            Some(old) => {
                old.measured.merge(entry.measured, latencies);
                if latencies {
                    old.settle_latency();
                }
                old.vector_state = entry.vector_state.or(old.vector_state.take());
            }
            None if !entry.measured.has_value() && entry.vector_configs.is_empty() => {}
            None => self.entries.push(entry),
        }
    }
}
