//! The database and journal loaders on generated hostile input (issue 46):
//! entries with values no measurement gives, YAML's special values, tags,
//! anchors and aliases, duplicates, deep nesting, long keys, and random
//! cuts, insertions and swaps of the text. Whatever the input, a loader
//! returns (no panic), stays small in memory, and either refuses the file
//! naming it or gives entries with only values a measurement can give,
//! every one it dropped named; no form has two entries.
//!
//! `WINIC_FUZZ_CASES` sets the number of cases per loader (default 10,000
//! each, 20,000 in all, about 10 s in a debug build);
//! `WINIC_FUZZ_SEED` the seed (default fixed, so a failure repeats: the
//! failing case's seed and text are printed). `scripts/bench-loaders.sh`
//! runs 100,000 of each and the loading benchmark.

use std::fmt::Write as _;
use std::path::PathBuf;
use winic::db::{bounds, Database, Entry, Journal, JournalRun};

/// xorshift64*: a small, fixed generator (no crate needed for this).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, of: &'a [T]) -> &'a T {
        &of[self.below(of.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Values for a numeric field: measured ones, impossible ones, and what
/// YAML or JSON make of odd spellings.
const YAML_VALUES: &[&str] = &[
    "1.0",
    "0.25",
    "4",
    "0.33",
    "931.55",
    "-5",
    "1e308",
    "1e400",
    "-1e400",
    ".nan",
    ".NaN",
    ".inf",
    "-.inf",
    "0",
    "-0",
    "0.0",
    "~",
    "null",
    "abc",
    "0x10",
    "0o17",
    "1_000",
    "'1.0'",
    "[1]",
    "{a: 1}",
    "!!binary aGVsbG8=",
    "!!float 3",
    "!!str 3",
    "2e6",
    "999999",
    "1e-320",
    "true",
    "",
];

const JSON_VALUES: &[&str] = &[
    "1.0", "0.25", "4", "-5", "1e308", "1e400", "0", "-0", "null", "\"1.0\"", "[1]", "{}", "true",
    "2e6", "999999.5", "1e-320", "NaN", "Infinity",
];

/// Numbers only, measured and impossible: most fields get one of these,
/// so that most files parse and their values are what is checked.
const YAML_NUMBERS: &[&str] = &[
    "1.0", "0.25", "4", "0.33", "931.55", "-5", "1e308", ".nan", ".inf", "-.inf", "0", "-0", "~",
    "2e6", "1e-320", "12",
];

const NAMES: &[&str] = &["ADD64rr", "IMUL64rr", "VADDPDZrr", "MOV64rm", "ADD", "X"];

/// Characters that mean something to YAML or JSON.
const SPECIAL: &[&str] = &[
    "&", "*", "!", "|", ">", "-", ":", "{", "}", "[", "]", ",", "#", "'", "\"", "%", "@", "`",
    "\t", "\n", "\n- ", "...\n", "---\n", "&a ", "*a", "<<: *a\n", "? ", "\u{0}", "\u{feff}", "é",
    "\\",
];

fn yaml_entry(r: &mut Rng, k: usize, out: &mut String) {
    let v = |r: &mut Rng| {
        if r.chance(97) {
            *r.pick(YAML_NUMBERS)
        } else {
            *r.pick(YAML_VALUES)
        }
    };
    let name = if r.chance(97) { "x" } else { v(r) };
    // A form named twice now and then (refused: one entry per form).
    let n = if r.chance(97) { k } else { 0 };
    let _ = write!(out, "- llvmName: {}{n}\n  name: {name}\n", r.pick(NAMES));
    if r.chance(60) {
        out.push_str("  operands:\n");
        for _ in 0..1 + r.below(3) {
            let _ = write!(
                out,
                "    - class: register\n      name: {}\n      read: {}\n      write: {}\n",
                if r.chance(98) { "GR64" } else { "1" },
                if r.chance(98) { "true" } else { "~" },
                r.pick(&["true", "false"])
            );
        }
    }
    for key in ["latency", "throughput", "throughputMin", "throughputMax"] {
        if r.chance(80) {
            let _ = writeln!(out, "  {key}: {}", v(r));
        }
    }
    if r.chance(50) {
        out.push_str("  operandLatencies:\n");
        for _ in 0..1 + r.below(3) {
            let _ = write!(
                out,
                "    - sourceOperand: '{}'\n      targetOperand: '{}'\n      latencyMin: {}\n      latencyMax: {}\n",
                r.below(3),
                r.below(3),
                v(r),
                v(r)
            );
        }
    }
    if r.chance(15) {
        let _ = write!(
            out,
            "  vectorConfigs:\n    - sew: {}\n      lmul: m1\n      throughput: {}\n      latency: {}\n",
            if r.chance(95) { "16" } else { "-1" },
            v(r),
            v(r)
        );
    }
    if r.chance(15) {
        let _ = write!(
            out,
            "  inferredPorts:\n    - cycles: {}\n      ports: ['0', '1']\n",
            r.pick(&["1", "0.5", "-1", "0", "1e308", ".nan", ".inf", "2"])
        );
    }
}

/// A mutation of `text`: a cut, an insertion of special characters, a
/// duplicated or swapped line, deep nesting, a long key, or nothing.
fn mutate(r: &mut Rng, text: &mut String) {
    let at = |r: &mut Rng, t: &str| {
        let mut i = r.below(t.len() + 1);
        while !t.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match r.below(8) {
        0 => {
            let i = at(r, text);
            text.truncate(i);
        }
        1 => {
            for _ in 0..1 + r.below(4) {
                let i = at(r, text);
                let s = *r.pick(SPECIAL);
                text.insert_str(i, s);
            }
        }
        2 => {
            let lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let k = r.below(lines.len());
                let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                l.insert(k, lines[k].to_string());
                *text = l.join("\n") + "\n";
            }
        }
        3 => {
            let mut l: Vec<String> = text.lines().map(String::from).collect();
            if l.len() > 1 {
                let (a, b) = (r.below(l.len()), r.below(l.len()));
                l.swap(a, b);
                *text = l.join("\n") + "\n";
            }
        }
        4 => {
            let depth = 1 + r.below(2000);
            let i = at(r, text);
            text.insert_str(i, &"[".repeat(depth));
        }
        5 => {
            let i = at(r, text);
            text.insert_str(i, &format!("\n  k{}: 1\n", "x".repeat(r.below(5_000))));
        }
        6 => {
            let (a, b) = (at(r, text), at(r, text));
            let (a, b) = (a.min(b), a.max(b));
            text.replace_range(a..b, "");
        }
        _ => {}
    }
}

fn database_text(r: &mut Rng) -> String {
    let mut t = String::from("---\n");
    for k in 0..r.below(12) + usize::from(r.chance(95)) {
        yaml_entry(r, k, &mut t);
    }
    if r.chance(80) {
        t.push_str("...\n");
    }
    if r.chance(50) {
        for _ in 0..1 + r.below(2) {
            mutate(r, &mut t);
        }
    }
    t
}

/// Numbers only, for most JSON fields (see [`YAML_NUMBERS`]).
const JSON_NUMBERS: &[&str] = &[
    "1.0", "0.25", "4", "-5", "1e308", "0", "-0", "null", "2e6", "1e-320", "12", "0.5",
];

fn json_entry(r: &mut Rng) -> String {
    let v = |r: &mut Rng| {
        if r.chance(97) {
            *r.pick(JSON_NUMBERS)
        } else {
            *r.pick(JSON_VALUES)
        }
    };
    let name = *r.pick(NAMES);
    let entry_name = if r.chance(90) { name } else { *r.pick(NAMES) };
    format!(
        "{{\"llvmName\":\"{name}\",\"entry\":{{\"llvmName\":\"{entry_name}\",\"name\":\"x\",\
         \"operands\":[],\"latency\":{},\"operandLatencies\":[{{\"sourceOperand\":\"1\",\
         \"targetOperand\":\"0\",\"latencyMin\":{},\"latencyMax\":{}}}],\"throughput\":{},\
         \"throughputMin\":{},\"throughputMax\":{}}}}}",
        v(r),
        v(r),
        v(r),
        v(r),
        v(r),
        v(r)
    )
}

fn the_run() -> JournalRun {
    JournalRun {
        mode: "TP".into(),
        arch: "x86_64".into(),
        global: vec!["-f".into(), "3.5".into()],
        args: vec!["--filter".into(), "^A".into()],
    }
}

fn journal_text(r: &mut Rng) -> String {
    let mut t = String::new();
    if r.chance(85) {
        let mut run = the_run();
        if r.chance(10) {
            run.args.clear();
        }
        t.push_str(&format!(
            "{{\"run\":{}}}\n",
            serde_json::to_string(&serde_json::json!({
                "mode": run.mode, "arch": run.arch, "global": run.global, "args": run.args
            }))
            .unwrap()
        ));
    }
    for _ in 0..r.below(10) {
        if r.chance(70) {
            t.push_str(&json_entry(r));
        } else {
            let _ = write!(t, "{{\"llvmName\":\"{}\",\"entry\":null}}", r.pick(NAMES));
        }
        t.push('\n');
    }
    if r.chance(30) {
        mutate(r, &mut t);
    }
    t
}

/// An entry that still holds a value no measurement gives, if any.
fn impossible(entries: &[Entry]) -> Option<String> {
    entries.iter().find_map(|e| {
        let dropped = e.clone().drop_impossible();
        (!dropped.is_empty()).then(|| format!("{}: {}", e.llvm_name, dropped.join(", ")))
    })
}

/// Peak resident memory of this process so far, in KiB (VmHWM).
fn peak_kib() -> u64 {
    rss_kib("VmHWM:")
}

fn cases() -> usize {
    std::env::var("WINIC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

fn seed() -> u64 {
    std::env::var("WINIC_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_0046)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("winic-loaders-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What a check makes of one case: loaded with so many values dropped
/// (`Some`), or refused (`None`); `Err` when a property does not hold.
type Check<'a> = &'a dyn Fn(&str) -> Result<Option<usize>, String>;

/// What became of the cases: loaded, loaded with values dropped, refused.
#[derive(Default, Debug)]
struct Tally {
    loaded: usize,
    dropped: usize,
    refused: usize,
    values_dropped: usize,
}

/// Runs `check` on `n` generated cases; a failure names the case's seed
/// and text. Prints the tally, the time and the peak memory growth.
fn fuzz(what: &str, n: usize, gen: fn(&mut Rng) -> String, check: Check) {
    let before = peak_kib();
    let start = std::time::Instant::now();
    let mut tally = Tally::default();
    let mut bytes = 0;
    for k in 0..n {
        let case_seed = seed() ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let text = gen(&mut Rng(case_seed));
        bytes += text.len();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&text)));
        match outcome {
            Ok(Ok(Some(dropped))) => {
                tally.loaded += 1;
                tally.values_dropped += dropped;
                tally.dropped += usize::from(dropped > 0);
            }
            Ok(Ok(None)) => tally.refused += 1,
            Ok(Err(why)) => panic!("{what}: case {k} (seed {case_seed}): {why}\n{text}"),
            Err(_) => panic!("{what}: case {k} (seed {case_seed}) panicked\n{text}"),
        }
    }
    let grew = peak_kib().saturating_sub(before);
    eprintln!(
        "\n{what}: {n} cases ({:.1} MB) in {:.2} s: {} loaded ({} with {} values dropped and \
         named), {} refused; peak memory grew {grew} KiB (to {} MiB)",
        bytes as f64 / 1e6,
        start.elapsed().as_secs_f64(),
        tally.loaded,
        tally.dropped,
        tally.values_dropped,
        tally.refused,
        peak_kib() / 1024
    );
    assert!(
        tally.loaded > n / 20 && tally.refused > n / 20,
        "{what}: {tally:?}: the generator is one-sided"
    );
    assert!(grew < 256 * 1024, "{what}: peak memory grew {grew} KiB");
}

/// A refusal, which must name the file it refused.
fn refused(msg: &str, file: &std::path::Path) -> Result<Option<usize>, String> {
    if msg.starts_with(&file.display().to_string()) {
        Ok(None)
    } else {
        Err(format!(
            "the refusal does not name {}: {msg}",
            file.display()
        ))
    }
}

#[test]
fn the_database_loader_survives_hostile_files() {
    let dir = scratch("db");
    let path = dir.join("db.yaml");
    let check = |text: &str| -> Result<Option<usize>, String> {
        std::fs::write(&path, text).unwrap();
        match Database::load_noting(&path) {
            Ok((db, dropped)) => {
                if let Some(bad) = impossible(&db.entries) {
                    return Err(format!("an impossible value was kept: {bad}"));
                }
                if !bounds::duplicates(&db.entries).is_empty() {
                    return Err("a form has two entries".into());
                }
                if db.entries.len() > text.len() / 10 + 1 {
                    return Err(format!(
                        "{} entries from {} bytes",
                        db.entries.len(),
                        text.len()
                    ));
                }
                Ok(Some(dropped.len()))
            }
            Err(e) => refused(&e.to_string(), &path),
        }
    };
    fuzz("database loader", cases(), database_text, &check);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_journal_reader_survives_hostile_journals() {
    let dir = scratch("journal");
    let db = dir.join("db.yaml");
    let journal = Journal::path_of(&db, "TP");
    let check = |text: &str| -> Result<Option<usize>, String> {
        std::fs::write(&journal, text).unwrap();
        match Journal::open(&db, &the_run(), true) {
            Ok((_, got)) => {
                if let Some(bad) = impossible(&got.entries) {
                    return Err(format!("an impossible value was kept: {bad}"));
                }
                if got
                    .entries
                    .iter()
                    .any(|e| !got.names.contains(&e.llvm_name))
                {
                    return Err("an entry of a form the journal does not list".into());
                }
                if got.names.len() > text.lines().count() {
                    return Err("more forms than lines".into());
                }
                let dropped = got
                    .notes
                    .iter()
                    .filter(|n| n.contains("measured again"))
                    .count();
                Ok(Some(dropped))
            }
            Err(e) => refused(&e.to_string(), &journal),
        }
    };
    fuzz("journal reader", cases(), journal_text, &check);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `work` in a forked child and returns its time in seconds and its
/// peak memory growth in MiB: a fresh process, so that memory freed by
/// an earlier load and kept by the allocator does not hide the peak.
fn measured(work: impl FnOnce()) -> (f64, f64) {
    let (rx, tx) = nix::unistd::pipe().unwrap();
    // SAFETY: the child runs `work`, writes to the pipe and `_exit`s.
    match unsafe { nix::unistd::fork() }.unwrap() {
        nix::unistd::ForkResult::Child => {
            let base = rss_kib("VmRSS:");
            let start = std::time::Instant::now();
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).is_err() {
                // SAFETY: as below; the parent reads nothing and fails.
                unsafe { nix::libc::_exit(1) }
            }
            let secs = start.elapsed().as_secs_f64();
            let grew = rss_kib("VmHWM:").saturating_sub(base) as f64 / 1024.0;
            let _ = nix::unistd::write(&tx, format!("{secs} {grew}").as_bytes());
            // SAFETY: ends the child without running the harness's code.
            unsafe { nix::libc::_exit(0) }
        }
        nix::unistd::ForkResult::Parent { child } => {
            drop(tx);
            let mut buf = [0u8; 64];
            let n = nix::unistd::read(&rx, &mut buf).unwrap();
            nix::sys::wait::waitpid(child, None).unwrap();
            assert!(n > 0, "the measured load failed in its child");
            let text = String::from_utf8_lossy(&buf[..n]).to_string();
            let mut v = text.split(' ').map(|x| x.parse::<f64>().unwrap());
            (v.next().unwrap(), v.next().unwrap())
        }
    }
}

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Prints a load's figures, whole and per 10,000 of its `n` entries.
fn report(what: &str, secs: f64, mib: f64, n: usize) {
    let per = 10_000.0 / n as f64;
    eprintln!(
        "\n{what} in {secs:.3} s, {mib:.1} MiB peak: {:.3} s and {:.1} MiB per 10,000",
        secs * per,
        mib * per
    );
}

/// Not a test: how long loading takes and how much memory it needs per
/// 10,000 entries (`scripts/bench-loaders.sh`, release build; the figures
/// go to docs/measurements.md). Each load runs in a forked child.
#[test]
#[ignore = "a benchmark that prints figures: scripts/bench-loaders.sh runs it"]
fn loading_speed_and_memory() {
    let dir = scratch("bench");
    let entry = |i: usize| {
        format!(
            "- llvmName:        F{i}\n  name:            f\n  operands:\n    - class:           register\n      name:            GR64\n      read:            true\n      write:           true\n  latency:         1\n  operandLatencies:\n    - sourceOperand:   '1'\n      targetOperand:   '0'\n      latencyMin:      1\n      latencyMax:      1\n  throughput:      0.25\n  throughputMin:   0.25\n  throughputMax:   0.25\n"
        )
    };
    for n in [10_000usize, 50_000] {
        let mut text = String::from("---\n");
        for i in 0..n {
            text.push_str(&entry(i));
        }
        text.push_str("...\n");
        let path = dir.join(format!("db-{n}.yaml"));
        std::fs::write(&path, &text).unwrap();
        let (secs, mib) = measured(|| {
            let db = Database::load(&path).unwrap();
            assert_eq!(db.entries.len(), n);
        });
        report(
            &format!("load: {n} entries ({:.1} MB)", text.len() as f64 / 1e6),
            secs,
            mib,
            n,
        );
        let journal_db = dir.join(format!("j-{n}.yaml"));
        let run = the_run();
        {
            let (mut j, _) = Journal::open(&journal_db, &run, false).unwrap();
            let mut e = Database::parse(&format!("---\n{}...\n", entry(0)))
                .unwrap()
                .entries
                .remove(0);
            for i in 0..n {
                e.llvm_name = format!("F{i}");
                j.record(&e.llvm_name, Some(&e)).unwrap();
            }
        }
        let (secs, mib) = measured(|| {
            let (_, got) = Journal::open(&journal_db, &run, true).unwrap();
            assert_eq!(got.entries.len(), n);
        });
        report(&format!("journal: {n} lines"), secs, mib, n);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
