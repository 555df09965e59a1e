//! Report files as WINIC writes them (`report_TP_<timestamp>.txt`): a
//! header (timestamp, command, frequency, arch, mode), then one block per
//! form with its value or the reason it has none, the kernel body, the raw
//! timings and any warning. Written line by line and flushed per form, so
//! a run killed at any moment keeps every finished block. The blocks are
//! the modes' (`crate::mode::blocks`); this is the file. [`read`] reads
//! one back: a form's lines for `winic html`, a TP report's throughputs as
//! a database.

pub mod read;

use crate::error::Error;
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
/// `arch`'s kernel ([`crate::arch::HostPolicy::cpu_model`]), or why there
/// is none: under qemu-user the file is the host's, of another arch.
pub fn cpu_name(arch: crate::isa::Arch) -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpu_name_in(arch, &info)
}

/// [`cpu_name`] of the `/proc/cpuinfo` text `info`.
pub fn cpu_name_in(arch: crate::isa::Arch, info: &str) -> String {
    crate::arch::target(arch)
        .cpu_model(info)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| {
            format!(
                "unknown: /proc/cpuinfo names no {arch} CPU (under an emulator it is the host's)"
            )
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

    /// Appends one form's block (`crate::mode::blocks`).
    pub fn append(&mut self, block: &str) -> Result<(), Error> {
        self.write(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_arch_reads_its_own_cpuinfo_keys() {
        use crate::isa::Arch;
        let x86 = "processor\t: 0\nmodel name\t: AMD EPYC 9R14\n";
        let arm = "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        let rv = "isa\t\t: rv64imafdc\nmvendorid\t: 0x5b7\nmarchid\t\t: 0x0\n";
        assert_eq!(cpu_name_in(Arch::X86_64, x86), "AMD EPYC 9R14");
        assert_eq!(
            cpu_name_in(Arch::Aarch64, arm),
            "CPU implementer 0x41 part 0xd0c (MIDR)"
        );
        assert_eq!(
            cpu_name_in(Arch::Riscv64, rv),
            "mvendorid 0x5b7 marchid 0x0"
        );
        let uarch = format!("{rv}uarch\t\t: sifive,u74-mc\n");
        assert_eq!(cpu_name_in(Arch::Riscv64, &uarch), "sifive,u74-mc");
        // Another arch's file names no CPU of this one.
        for (arch, text) in [
            (Arch::X86_64, arm),
            (Arch::Aarch64, rv),
            (Arch::Riscv64, x86),
        ] {
            assert!(cpu_name_in(arch, text).starts_with("unknown: "), "{arch}");
        }
    }

    #[test]
    fn timestamps_look_like_winic_s() {
        let t = timestamp();
        assert_eq!(t.len(), 19, "{t}");
        assert_eq!(&t[4..5], "-");
        assert_eq!(&t[10..11], "_");
        let year: i32 = t[..4].parse().unwrap();
        assert!((2024..2200).contains(&year), "{t}");
    }
}
