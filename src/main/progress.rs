//! Progress on standard error for long runs: rewritten in place on a
//! terminal, a line at every tenth otherwise.

use std::io::IsTerminal;
use winic::isa::Arch;

/// A progress line on standard error while `arch` is checked, when standard
/// error is a terminal.
pub fn progress(arch: Arch) -> impl FnMut(usize, usize) {
    let tty = std::io::stderr().is_terminal();
    move |done, total| {
        if tty {
            eprint!("\rselfcheck {arch}: {done}/{total} forms");
            if done == total {
                eprint!("\r\x1b[K");
            }
        }
    }
}

/// A progress display for long runs on standard error: on a terminal one
/// line rewritten in place (label, done/total, percent, elapsed, ETA, the
/// current form); otherwise a plain line at every tenth.
pub fn eta_progress() -> impl FnMut(&str, usize, usize, &str) {
    let tty = std::io::stderr().is_terminal();
    let mut start = std::time::Instant::now();
    let mut last_tenth = 0;
    let (mut last_done, mut last_total) = (0, 0);
    let mut last_label = String::new();
    move |label, done, total, name| {
        // LAT counts each step from 0 again, and a sweep goes on at the
        // next configuration: a new step restarts the clock of the ETA and
        // the tenths printed without a terminal.
        if total != last_total || done < last_done || label != last_label {
            last_label = label.to_string();
            if last_total != 0 {
                start = std::time::Instant::now();
            }
            last_tenth = 0;
        }
        (last_done, last_total) = (done, total);
        let secs = start.elapsed().as_secs_f64();
        let eta = secs / done.max(1) as f64 * total.saturating_sub(done) as f64;
        let clock = |s: f64| format!("{}:{:02}", s as u64 / 60, s as u64 % 60);
        let line = format!(
            "{label}: {done}/{total} ({:.0}%), {} elapsed, ETA {}",
            100.0 * done as f64 / total.max(1) as f64,
            clock(secs),
            clock(eta)
        );
        if tty {
            eprint!("\r\x1b[K{line}  {name}");
            if done == total {
                eprint!("\r\x1b[K");
            }
        } else if done * 10 / total.max(1) > last_tenth {
            last_tenth = done * 10 / total.max(1);
            eprintln!("{line}  {name}");
        }
    }
}
