//! A TP or LAT report (`report_<MODE>_<time>.txt`, winic's or WINIC's)
//! read back: its sections (`-----FORM-----` and the lines under it), so
//! that `winic html` shows in a form's detail what the run said of it; the
//! database it wrote (its `Command:` line's `-o`), so that each report goes
//! with its database; and a TP report's throughputs as a database, for a
//! run whose YAML file is not at hand (WINIC's published Zen 4 run).

use crate::db::{Database, Entry, Measured};
use crate::error::Error;
use crate::isa::Isa;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One report, read back.
#[derive(Clone, Debug)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// Its `Mode:` line (`Throughput`, `Latency`).
    pub mode: String,
    /// The file name of the database the run wrote (`-o`/`--output` of its
    /// `Command:` line, `winic.yaml` when it gave none).
    pub output: String,
    /// Each form's lines: the section's own lines, without the kernel's
    /// instructions (indented deeper) and the `timings:` lines (raw
    /// numbers, which the raw file keeps), in the report's order; a form
    /// with several sections (a helper's second try) has them all.
    pub sections: HashMap<String, Vec<String>>,
    /// The forms in the order of their first section.
    pub order: Vec<String>,
}

/// The value of a header line (`Mode: Throughput`) of a report's text,
/// before its first section.
fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .take_while(|l| !l.starts_with("-----"))
        .find_map(|l| l.strip_prefix(key))
        .map(str::trim)
}

/// The largest report winic reads: 128 MiB, five times a LAT report of
/// every x86 form (25 MB on a Zen 4 guest, 2026-11-29).
pub const MAX_BYTES: u64 = 128 << 20;

/// Whether `text` is a report (its `Command:` and `Mode:` header lines),
/// not a database.
pub fn is_report(text: &str) -> bool {
    header(text, "Command:").is_some() && header(text, "Mode:").is_some()
}

impl Written {
    /// Reads `path`: an error naming it for a file that is missing or is
    /// no winic report.
    pub fn read(path: &Path) -> Result<Written, Error> {
        let text = crate::input::read_at_most(path, MAX_BYTES)
            .map_err(|e| Error::BadInput(format!("report {}: {e}", path.display())))?
            .ok_or_else(|| {
                Error::BadInput(format!(
                    "report {}: more than the {} a report may have (winic's LAT report of \
                     every x86 form is about 25 MB)",
                    path.display(),
                    crate::input::size(MAX_BYTES)
                ))
            })?;
        Written::parse(path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<Written, Error> {
        let (Some(command), Some(mode)) = (header(text, "Command:"), header(text, "Mode:")) else {
            return Err(Error::BadInput(format!(
                "{} is no winic report: a TP or LAT report (report_TP_<time>.txt) begins with \
                 `Command:` and `Mode:` lines",
                path.display()
            )));
        };
        let mut sections: HashMap<String, Vec<String>> = HashMap::new();
        let mut order = Vec::new();
        let mut current: Option<&mut Vec<String>> = None;
        for line in text.lines() {
            if let Some(name) = line
                .strip_prefix("-----")
                .and_then(|l| l.strip_suffix("-----"))
            {
                if !sections.contains_key(name) {
                    order.push(name.to_string());
                }
                current = Some(sections.entry(name.to_string()).or_default());
                continue;
            }
            let Some(own) = line.strip_prefix('\t') else {
                continue;
            };
            if own.starts_with('\t') || own.starts_with("timings:") {
                continue;
            }
            if let Some(lines) = current.as_mut() {
                lines.push(own.to_string());
            }
        }
        Ok(Written {
            path: path.to_path_buf(),
            mode: mode.to_string(),
            output: output_of(command),
            sections,
            order,
        })
    }

    /// A TP report's throughputs as a database: each form's last result
    /// line (`ADD64rr [0.252;0.252]`, `ADC64rr [?;1.001]`: lower and upper
    /// bound; the throughput is the lower, as the run's database writes
    /// it), in the report's order, each entry named as a database names
    /// the form in LLVM's records of the arch that knows most of the
    /// report's names (a name they lack gives none). Lines without a value (`[NO
    /// KERNEL: …]`, `[SKIPPED: …]`, WINIC's `[ERROR_…]`) give no entry. A
    /// LAT report is refused: its operands are numbered as the run's
    /// database numbers them only in winic's, so its YAML is the database.
    pub fn database(&self) -> Result<Database, Error> {
        if self.mode != "Throughput" {
            return Err(Error::BadInput(format!(
                "{} is a report of mode {}: only a TP report reads as a database (its \
                 throughputs); give that run's YAML database, or give this report to `winic \
                 html --report`",
                self.path.display(),
                self.mode
            )));
        }
        let values: Vec<(&String, Option<f64>, f64)> = self
            .order
            .iter()
            .filter_map(|n| {
                let (min, max) = self.sections[n].iter().rev().find_map(|l| bounds(n, l))?;
                Some((n, min, max))
            })
            .collect();
        // No name any arch knows: no entry (the caller says so, naming
        // the file).
        let Some(arch) = Isa::arch_knowing(values.iter().map(|v| v.0.as_str())) else {
            return Ok(Database::default());
        };
        let isa = Isa::get(arch);
        // Each as the run's database names it (mnemonic, operands).
        let entries = values
            .into_iter()
            .filter_map(|(n, min, max)| {
                let mut e = Entry::for_form(isa.instr(n)?);
                e.measured = Measured {
                    throughput: min,
                    throughput_min: min,
                    throughput_max: Some(max),
                    ..Measured::default()
                };
                Some(e)
            })
            .collect();
        Ok(Database { entries })
    }
}

/// The bounds of a TP result line of form `name`: `name [min;max]`, min a
/// number or `?` (none), max a number.
fn bounds(name: &str, line: &str) -> Option<(Option<f64>, f64)> {
    let inner = line
        .strip_prefix(name)?
        .trim()
        .strip_prefix('[')?
        .strip_suffix(']')?;
    let (lo, hi) = inner.split_once(';')?;
    let hi: f64 = hi.trim().parse().ok().filter(|x: &f64| x.is_finite())?;
    let lo = match lo.trim() {
        "?" => None,
        x => Some(x.parse().ok().filter(|x: &f64| x.is_finite())?),
    };
    Some((lo, hi))
}

/// The file name of the database a command line wrote: the argument of
/// its last `-o`/`--output` (`--output=F` too), else `winic.yaml`, TP's
/// and LAT's default.
fn output_of(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut out = None;
    for (i, w) in words.iter().enumerate() {
        if let Some(f) = w.strip_prefix("--output=") {
            out = Some(f);
        } else if matches!(*w, "-o" | "--output") {
            out = words.get(i + 1).copied();
        }
    }
    let out = out.unwrap_or("winic.yaml");
    Path::new(out)
        .file_name()
        .map_or_else(|| out.to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TP: &str = "Timestamp: 2026-11-29_21-35-45\n\
        Command: /usr/bin/winic TP -o runs/new.yaml\n\
        Mode: Throughput\n\
        -----AAA-----\n\
        \tAAA [NO KERNEL: unsupported: Not64BitMode: invalid in 64-bit mode]\n\
        \n\
        -----ADC64rr-----\n\
        \tADC64rr [?;1.001]\n\
        \tkernel: 12 independent copies\n\
        \t\tadc rcx, rdx\n\
        \ttimings: body once 6.503 ns/iteration\n\
        \n\
        -----ADC64rr-----\n\
        \tHelper: CMP64ri32 [0.250] interleaved, breaking the dependency through flags\n\
        \tADC64rr [0.281;0.531]\n";

    #[test]
    fn a_report_keeps_each_forms_own_lines_and_names_its_database() {
        let r = Written::parse(Path::new("r.txt"), TP).unwrap();
        assert_eq!(r.mode, "Throughput");
        assert_eq!(r.output, "new.yaml");
        assert_eq!(
            r.sections["AAA"],
            ["AAA [NO KERNEL: unsupported: Not64BitMode: invalid in 64-bit mode]"]
        );
        // Both sections, without the kernel's instructions and timings.
        assert_eq!(
            r.sections["ADC64rr"],
            [
                "ADC64rr [?;1.001]",
                "kernel: 12 independent copies",
                "Helper: CMP64ri32 [0.250] interleaved, breaking the dependency through flags",
                "ADC64rr [0.281;0.531]"
            ]
        );
    }

    #[test]
    fn the_database_is_the_last_output_given_else_winics_default() {
        assert_eq!(output_of("winic TP"), "winic.yaml");
        assert_eq!(output_of("winic LAT --output=/a/b.yaml -i X"), "b.yaml");
        assert_eq!(
            output_of("winic analyse f.raw -o x.yaml --output y.yaml"),
            "y.yaml"
        );
    }

    #[test]
    fn a_tp_reports_last_value_of_each_form_is_its_throughput() {
        let r = Written::parse(Path::new("r.txt"), TP).unwrap();
        let db = r.database().unwrap();
        // AAA has no value; ADC64rr's helper line is its last.
        assert_eq!(db.entries.len(), 1);
        let e = &db.entries[0];
        assert_eq!((e.llvm_name.as_str(), e.name.as_str()), ("ADC64rr", "adc"));
        assert_eq!(e.measured.throughput, Some(0.281));
        assert_eq!(e.measured.throughput_max, Some(0.531));
        // An upper bound alone, and WINIC's spelling of a failure.
        assert_eq!(bounds("X", "X [?;1.001]"), Some((None, 1.001)));
        assert_eq!(bounds("X", "X [ERROR_ILLEGAL_INSTRUCTION]"), None);
        assert_eq!(bounds("X", "XY [1;1]"), None);
        let lat = TP.replace("Mode: Throughput", "Mode: Latency");
        let e = Written::parse(Path::new("l.txt"), &lat)
            .unwrap()
            .database()
            .unwrap_err();
        assert!(
            e.to_string().contains("l.txt is a report of mode Latency"),
            "{e}"
        );
        assert!(is_report(TP) && !is_report("- llvmName: ADD64rr\n"));
    }

    #[test]
    fn a_file_that_is_no_report_is_named() {
        let e = Written::parse(Path::new("db.yaml"), "- llvmName: ADD64rr\n").unwrap_err();
        assert!(e.to_string().contains("db.yaml is no winic report"), "{e}");
    }
}
