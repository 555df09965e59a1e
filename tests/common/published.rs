//! The published tables of `tests/fixtures/reference-*.yaml` and the rules
//! a measured database is held to against them: shared by the reference
//! tests, which measure the host, and the recorded runs' tests, which
//! analyse a run recorded on a known core (`tests/fixtures/raw/`).
#![allow(dead_code)] // each test file uses a part

use std::collections::BTreeMap;
use winic::db::{Database, Entry};

/// A published throughput of one form.
#[derive(serde::Deserialize)]
pub struct Row {
    #[serde(rename = "llvmName")]
    pub llvm_name: String,
    pub throughput: f64,
    pub source: String,
}

/// A published latency: of the sub-latency `from` -> `to` (WINIC's
/// operand keys) of one form.
#[derive(serde::Deserialize)]
pub struct LatencyRow {
    #[serde(rename = "llvmName")]
    pub llvm_name: String,
    pub from: String,
    pub to: String,
    pub latency: f64,
    pub source: String,
    /// Must be exact and equal wherever measured (not 90% of the table):
    /// Golden Cove's 512-bit FMA and multiply forms.
    #[serde(default)]
    pub required: bool,
}

/// A published value of a form with a memory operand: a throughput, or
/// the sub-latency `from` -> `to`.
#[derive(serde::Deserialize)]
pub struct MemoryRow {
    #[serde(rename = "llvmName")]
    pub llvm_name: String,
    pub throughput: Option<f64>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub latency: Option<f64>,
    pub source: String,
}

/// Every table of the fixture `file`, by core.
pub fn tables<T: serde::de::DeserializeOwned>(file: &str) -> BTreeMap<String, Vec<T>> {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The table of `core` in the fixture `file` (at least 30 rows).
pub fn table<T: serde::de::DeserializeOwned>(file: &str, core: &str) -> Vec<T> {
    let table = tables(file).remove(core).unwrap_or_default();
    assert!(
        table.len() >= 30,
        "{file}, {core}: only {} rows",
        table.len()
    );
    table
}

/// Whether a throughput is within 10% of the published `want`.
pub fn agrees(v: Option<f64>, want: f64) -> bool {
    v.is_some_and(|v| (v / want - 1.0).abs() <= 0.10)
}

/// How many rows of a table were compared and agreed, and a line per row.
#[derive(Default)]
pub struct Tally {
    pub compared: usize,
    pub agreeing: usize,
    pub lines: Vec<String>,
}

/// `table`'s throughputs against `got` (a form's throughput, `None` where
/// it was not measured: rows the host cannot run do not count).
pub fn throughput_tally(table: &[Row], got: impl Fn(&str) -> Option<f64>) -> Tally {
    let mut t = Tally::default();
    for r in table {
        let verdict = match got(&r.llvm_name) {
            None => "not measured here".to_string(),
            Some(v) => {
                t.compared += 1;
                let off = v / r.throughput - 1.0;
                if off.abs() <= 0.10 {
                    t.agreeing += 1;
                    format!("{v:.2}")
                } else {
                    format!("{v:.2}  OFF by {:+.0}%", 100.0 * off)
                }
            }
        };
        t.lines.push(format!(
            "  {:<20} published {:>5.2}  winic {verdict}   ({})",
            r.llvm_name, r.throughput, r.source
        ));
    }
    t
}

/// `table`'s latencies against the database `got`: exact and equal.
/// Forms without sub-latencies there do not count; a sub-latency the form
/// does not have is an error in the table.
pub fn latency_tally(table: &[LatencyRow], got: &Database) -> Tally {
    let mut t = Tally::default();
    for r in table {
        let Some(entry) = got
            .get(&r.llvm_name)
            .filter(|e| !e.operand_latencies.is_empty())
        else {
            t.lines
                .push(format!("  {:<16} not measured here", r.llvm_name));
            continue;
        };
        t.compared += 1;
        let verdict = match latency_verdict(entry, r) {
            Ok(v) => {
                t.agreeing += 1;
                v
            }
            Err(v) => v,
        };
        t.lines.push(format!(
            "  {:<16} {:>2} -> {:<6} published {:>2}  winic {verdict}   ({})",
            r.llvm_name, r.from, r.to, r.latency, r.source
        ));
    }
    t
}

/// At least 30 rows compared, and at least 27 and 90% of them agree.
pub fn enough(core: &str, what: &str, t: &Tally) {
    let report = t.lines.join("\n");
    let (agreeing, compared) = (t.agreeing, t.compared);
    eprintln!("{core}: {agreeing} of {compared} {what}\n{report}");
    assert!(
        compared >= 30,
        "{core}: only {compared} forms measured\n{report}"
    );
    assert!(
        agreeing >= 27 && agreeing * 10 >= compared * 9,
        "{core}: {agreeing} of {compared} {what} (at least 90% and 27 wanted)\n{report}"
    );
}

/// The verdict on one published latency: `Ok` with winic's value when it
/// is exact and equal, else `Err` saying what winic has.
pub fn latency_verdict(entry: &Entry, r: &LatencyRow) -> Result<String, String> {
    let sub = entry
        .operand_latencies
        .iter()
        .find(|l| l.source_operand == r.from && l.target_operand == r.to)
        .unwrap_or_else(|| {
            panic!(
                "{}: no sub-latency {} -> {} (winic has {:?})",
                r.llvm_name,
                r.from,
                r.to,
                entry
                    .operand_latencies
                    .iter()
                    .map(|l| format!("{} -> {}", l.source_operand, l.target_operand))
                    .collect::<Vec<_>>()
            )
        });
    match (sub.latency_min, sub.latency_max) {
        (Some(lo), Some(hi)) if lo == hi && lo == r.latency => Ok(format!("{lo}")),
        (Some(lo), Some(hi)) if lo == hi => Err(format!("{lo}  OFF")),
        (Some(lo), Some(hi)) => Err(format!("[{lo};{hi}]  a range, not exact")),
        _ => Err("no value".to_string()),
    }
}

/// The rows of a memory `table` that disagree, each naming what winic
/// has: a throughput (from `tp`) within 10%, a latency (from the LAT
/// database `lat`) exact and equal. Every row must agree.
pub fn memory_disagreements(
    table: &[MemoryRow],
    tp: impl Fn(&str) -> Option<f64>,
    lat: &Database,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for r in table {
        let verdict = match (r.throughput, &r.from, &r.to, r.latency) {
            (Some(want), ..) => match tp(&r.llvm_name) {
                Some(v) if agrees(Some(v), want) => Ok(format!("{v:.3}")),
                v => Err(format!("throughput {v:?}, published {want}")),
            },
            (None, Some(from), Some(to), Some(want)) => {
                let lr = LatencyRow {
                    llvm_name: r.llvm_name.clone(),
                    from: from.clone(),
                    to: to.clone(),
                    latency: want,
                    source: r.source.clone(),
                    required: true,
                };
                match lat.get(&r.llvm_name) {
                    Some(e) => latency_verdict(e, &lr),
                    None => Err("no latency measured".into()),
                }
            }
            _ => panic!(
                "{}: a row needs a throughput or from/to/latency",
                r.llvm_name
            ),
        };
        eprintln!("  {:<12} {verdict:?}   ({})", r.llvm_name, r.source);
        if let Err(v) = verdict {
            wrong.push(format!("{}: {v} ({})", r.llvm_name, r.source));
        }
    }
    wrong
}
