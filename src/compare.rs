//! `winic compare A B`: the forms two databases give different values,
//! for a person (the largest differences, a summary per extension) and
//! for a CI job (the count against what is allowed decides the exit
//! status): two runs of one machine, two machines, two winic versions.
//!
//! A form's value differs when both databases have it and it moved by
//! more than the threshold relative to A's value and by more than the
//! databases' rounding (0.01 cycles). Throughput and `latency` (the form's,
//! as WINIC's field holds it) are compared.

use crate::db::Database;
use crate::error::Error;
use crate::isa::{Arch, Isa};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// What is compared of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    /// `throughput` (cycles per instruction).
    Throughput,
    /// `latency` (the form's, in cycles).
    Latency,
}

impl Value {
    fn name(self) -> &'static str {
        match self {
            Value::Throughput => "throughput",
            Value::Latency => "latency",
        }
    }
}

/// One value of one form in both databases.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The LLVM name.
    pub form: String,
    /// The extension it needs (`AVX512`, `base` for none), from LLVM's
    /// first predicate.
    pub extension: String,
    /// Which value.
    pub value: Value,
    /// A's value.
    pub a: f64,
    /// B's value.
    pub b: f64,
}

impl Row {
    /// B's value relative to A's, less one (+0.25: 25% slower in B).
    pub fn change(&self) -> f64 {
        (self.b - self.a) / self.a
    }

    /// Whether B moved from A by more than `threshold` (relative) and
    /// more than the databases' rounding.
    pub fn differs(&self, threshold: f64) -> bool {
        let d = (self.b - self.a).abs();
        d > threshold * self.a.abs() && d > ROUNDING
    }
}

/// Differences at or below this many cycles are the databases' rounding
/// (two decimals).
const ROUNDING: f64 = 0.01 + 1e-9;

/// Two databases compared.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The arch the forms belong to.
    pub arch: Arch,
    /// Forms in A, in B, in both.
    pub counts: (usize, usize, usize),
    /// Every value both databases have, of every form in both.
    pub rows: Vec<Row>,
}

/// The arch whose forms `db`'s names are: the one that knows most of them.
pub fn arch_of(db: &Database) -> Option<Arch> {
    Isa::arch_knowing(db.entries.iter().map(|e| e.llvm_name.as_str()))
}

/// The extension of form `name` of `arch`: its first predicate without
/// LLVM's `Has` (`AVX512`), `base` when it needs none.
pub fn extension(arch: Arch, name: &str) -> String {
    Isa::get(arch)
        .instr(name)
        .and_then(|i| i.predicates().map(|p| p.name()).find(|n| *n != "true"))
        .map_or("base".into(), |n| {
            n.strip_prefix("Has").unwrap_or(n).to_string()
        })
}

/// The database file `path`, which must exist (a missing one is not an
/// empty database here, as it is for a run's output); a TP report stands
/// for its run's database ([`crate::report::read::Written::database`]).
pub fn load(path: &Path) -> Result<Database, Error> {
    if !path.is_file() {
        return Err(Error::BadInput(format!(
            "{}: no such database file",
            path.display()
        )));
    }
    // A TP report (winic's or WINIC's) stands for the database its run
    // wrote: its throughputs. Its header is in its first lines; only they
    // are read here (a database is read once, after its size is checked).
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(8192).read_to_end(&mut head);
    }
    if crate::report::read::is_report(&String::from_utf8_lossy(&head)) {
        return crate::report::read::Written::read(path)?.database();
    }
    Database::load(path)
}

/// The arch of `db`'s forms ([`arch_of`]), or an error naming its file
/// `path` and saying there is nothing `to` do (`"compare"`, `"show"`).
pub fn arch_named(db: &Database, path: &Path, to: &str) -> Result<Arch, Error> {
    arch_of(db).ok_or_else(|| {
        Error::BadInput(format!(
            "{}: no form of any arch winic knows ({} entries): nothing to {to}",
            path.display(),
            db.entries.len()
        ))
    })
}

/// Compares `a` and `b` (the files `pa` and `pb`, for errors): an error
/// naming the file when one has no form, or when they are of different
/// arches.
pub fn compare(a: &Database, pa: &Path, b: &Database, pb: &Path) -> Result<Comparison, Error> {
    let (xa, xb) = (arch_named(a, pa, "compare")?, arch_named(b, pb, "compare")?);
    if xa != xb {
        return Err(Error::BadInput(format!(
            "{} holds {xa} forms and {} {xb} forms: compare databases of one arch",
            pa.display(),
            pb.display()
        )));
    }
    let in_b: BTreeMap<&str, &crate::db::Entry> = b
        .entries
        .iter()
        .map(|e| (e.llvm_name.as_str(), e))
        .collect();
    let mut rows = Vec::new();
    let mut both = 0;
    for ea in &a.entries {
        let Some(eb) = in_b.get(ea.llvm_name.as_str()) else {
            continue;
        };
        both += 1;
        for (value, x, y) in [
            (Value::Throughput, ea.throughput, eb.throughput),
            (Value::Latency, ea.latency, eb.latency),
        ] {
            if let (Some(x), Some(y)) = (x, y) {
                if x > 0.0 && y.is_finite() {
                    rows.push(Row {
                        form: ea.llvm_name.clone(),
                        extension: extension(xa, &ea.llvm_name),
                        value,
                        a: x,
                        b: y,
                    });
                }
            }
        }
    }
    Ok(Comparison {
        arch: xa,
        counts: (a.entries.len(), b.entries.len(), both),
        rows,
    })
}

impl Comparison {
    /// The rows that differ beyond `threshold`, the largest change first.
    pub fn differing(&self, threshold: f64) -> Vec<&Row> {
        let mut d: Vec<&Row> = self.rows.iter().filter(|r| r.differs(threshold)).collect();
        d.sort_by(|x, y| {
            y.change()
                .abs()
                .partial_cmp(&x.change().abs())
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(x.form.cmp(&y.form))
        });
        d
    }

    /// Forms with a value that differs beyond `threshold`.
    pub fn forms_differing(&self, threshold: f64) -> usize {
        let mut forms: Vec<&str> = self
            .differing(threshold)
            .iter()
            .map(|r| r.form.as_str())
            .collect();
        forms.sort_unstable();
        forms.dedup();
        forms.len()
    }

    /// The report: counts, each value's differing share, the extensions
    /// with differing forms, then the `top` largest differences.
    pub fn render(&self, labels: (&str, &str), threshold: f64, top: usize) -> String {
        let (na, nb, both) = self.counts;
        let pct = 100.0 * threshold;
        let mut s = format!(
            "A: {} ({na} forms), B: {} ({nb} forms), {} forms: {both} in both, {} only in A, {} \
             only in B\n",
            labels.0,
            labels.1,
            self.arch,
            na - both,
            nb - both
        );
        let differing = self.differing(threshold);
        for value in [Value::Throughput, Value::Latency] {
            let compared = self.rows.iter().filter(|r| r.value == value).count();
            let moved: Vec<&&Row> = differing.iter().filter(|r| r.value == value).collect();
            let (slower, faster) = (
                moved.iter().filter(|r| r.change() > 0.0).count(),
                moved.iter().filter(|r| r.change() < 0.0).count(),
            );
            s.push_str(&format!(
                "{}: {compared} forms have it in both, {} differ by more than {pct:.0}% ({:.1}%; \
                 {slower} higher in B, {faster} lower)\n",
                value.name(),
                moved.len(),
                100.0 * moved.len() as f64 / compared.max(1) as f64
            ));
        }
        // Per extension: forms differing in either value, of the forms
        // compared.
        let mut by_ext: BTreeMap<&str, (BTreeSet<&str>, BTreeSet<&str>)> = BTreeMap::new();
        for r in &self.rows {
            let e = by_ext.entry(r.extension.as_str()).or_default();
            e.0.insert(r.form.as_str());
            if r.differs(threshold) {
                e.1.insert(r.form.as_str());
            }
        }
        let mut ext: Vec<(&str, usize, usize)> = by_ext
            .iter()
            .filter(|(_, (_, d))| !d.is_empty())
            .map(|(name, (n, d))| (*name, d.len(), n.len()))
            .collect();
        ext.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
        if !ext.is_empty() {
            let list: Vec<String> = ext.iter().map(|(e, d, n)| format!("{e} {d}/{n}")).collect();
            s.push_str(&format!(
                "by extension (forms differing / compared): {}\n",
                list.join(", ")
            ));
        }
        if !differing.is_empty() {
            s.push_str(&format!(
                "the largest differences ({} of {}; value: A -> B, change):\n",
                top.min(differing.len()),
                differing.len()
            ));
            let w = differing.iter().map(|r| r.form.len()).max().unwrap_or(0);
            for r in differing.iter().take(top) {
                s.push_str(&format!(
                    "  {:w$}  {:10}  {:>8.2} -> {:<8.2} {:>+7.1}%  ({})\n",
                    r.form,
                    r.value.name(),
                    r.a,
                    r.b,
                    100.0 * r.change(),
                    r.extension
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Entry;

    fn db_of(arch: Arch, values: &[(&str, Option<f64>, Option<f64>)]) -> Database {
        Database {
            entries: values
                .iter()
                .map(|&(n, tp, lat)| {
                    let mut e = Entry::for_form(Isa::get(arch).instr(n).unwrap());
                    e.throughput = tp;
                    e.latency = lat;
                    e
                })
                .collect(),
        }
    }

    fn db(values: &[(&str, Option<f64>, Option<f64>)]) -> Database {
        db_of(Arch::X86_64, values)
    }

    #[test]
    fn a_value_differs_beyond_the_threshold_and_the_rounding() {
        let a = db(&[
            ("ADD64rr", Some(0.25), Some(1.0)),
            ("IMUL64rr", Some(1.0), Some(3.0)),
            ("VADDPDZrr", Some(0.5), Some(2.0)),
            ("SHL64ri", Some(0.5), None),
        ]);
        let b = db(&[
            ("ADD64rr", Some(0.26), Some(1.0)),   // 4%: below 10%
            ("IMUL64rr", Some(1.0), Some(4.0)),   // latency +33%
            ("VADDPDZrr", Some(0.25), Some(2.0)), // throughput -50%
            ("DIV64r", Some(10.0), None),         // only in B
        ]);
        let (pa, pb) = (Path::new("a.yaml"), Path::new("b.yaml"));
        let c = compare(&a, pa, &b, pb).unwrap();
        assert_eq!(c.arch, Arch::X86_64);
        assert_eq!(c.counts, (4, 4, 3));
        let d = c.differing(0.10);
        let got: Vec<(&str, Value)> = d.iter().map(|r| (r.form.as_str(), r.value)).collect();
        assert_eq!(
            got,
            [
                ("VADDPDZrr", Value::Throughput),
                ("IMUL64rr", Value::Latency)
            ]
        );
        assert_eq!(c.forms_differing(0.10), 2);
        assert_eq!(c.forms_differing(0.60), 0);
        let text = c.render(("a.yaml", "b.yaml"), 0.10, 10);
        assert!(
            text.contains("3 in both, 1 only in A, 1 only in B"),
            "{text}"
        );
        assert!(
            text.contains("throughput: 3 forms have it in both, 1 differ"),
            "{text}"
        );
        assert!(text.contains("VADDPDZrr  throughput"), "{text}");
        assert!(text.contains("-50.0%  (AVX512)"), "{text}");
        // The same database: nothing differs.
        let same = compare(&a, pa, &a, pa).unwrap();
        assert!(same.differing(0.0).is_empty());
    }

    #[test]
    fn databases_of_two_arches_or_of_no_form_are_refused_by_name() {
        let x86 = db(&[("ADD64rr", Some(0.25), None)]);
        let rv = db_of(Arch::Riscv64, &[("ADDW", Some(0.5), None)]);
        let err = compare(&x86, Path::new("x.yaml"), &rv, Path::new("r.yaml")).unwrap_err();
        let m = err.to_string();
        assert!(
            m.contains("x.yaml holds x86_64 forms and r.yaml riscv64"),
            "{m}"
        );
        let empty = Database::default();
        let m = compare(&x86, Path::new("x.yaml"), &empty, Path::new("e.yaml"))
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("e.yaml: no form"), "{m}");
    }
}
