//! A TP or LAT report (`report_<MODE>_<time>.txt`) read back for the
//! page: its sections (`-----FORM-----` and the lines under it), so that a
//! form's detail shows what the run said of it, and the database it wrote
//! (its `Command:` line's `-o`), so that each report goes with its
//! database.

use crate::error::Error;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One report, as the page keeps it.
#[derive(Clone, Debug)]
pub struct Report {
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
}

impl Report {
    /// Reads `path`: an error naming it for a file that is missing or is
    /// no winic report.
    pub fn read(path: &Path) -> Result<Report, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::BadInput(format!("report {}: {e}", path.display())))?;
        Report::parse(path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<Report, Error> {
        let header = |key: &str| {
            text.lines()
                .take_while(|l| !l.starts_with("-----"))
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
        };
        let (Some(command), Some(mode)) = (header("Command:"), header("Mode:")) else {
            return Err(Error::BadInput(format!(
                "{} is no winic report: a TP or LAT report (report_TP_<time>.txt) begins with \
                 `Command:` and `Mode:` lines",
                path.display()
            )));
        };
        let mut sections: HashMap<String, Vec<String>> = HashMap::new();
        let mut current: Option<&mut Vec<String>> = None;
        for line in text.lines() {
            if let Some(name) = line
                .strip_prefix("-----")
                .and_then(|l| l.strip_suffix("-----"))
            {
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
        Ok(Report {
            path: path.to_path_buf(),
            mode: mode.to_string(),
            output: output_of(command),
            sections,
        })
    }
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
        let r = Report::parse(Path::new("r.txt"), TP).unwrap();
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
    fn a_file_that_is_no_report_is_named() {
        let e = Report::parse(Path::new("db.yaml"), "- llvmName: ADD64rr\n").unwrap_err();
        assert!(e.to_string().contains("db.yaml is no winic report"), "{e}");
    }
}
