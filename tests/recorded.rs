//! Recorded runs of real cores, analysed on whatever machine runs the
//! tests: `tests/fixtures/raw/<core>/` holds the raw files of a TP, a LAT
//! and a `ports` run of one fixed selection (`scripts/record-fixture.sh`,
//! gzip'd), `expected.txt`, one line per form of the database `winic
//! analyse` draws from the first two, and `expected-ports.txt`, what the
//! replay of the third prints (the experiments, the fit, the classes,
//! the held-back mixes). A rule change (the floor, helpers, the clock, the
//! equations, the `latency` rule) shows here as changed lines on every
//! recorded core, not only on the session's; when the change is meant,
//! `WINIC_BLESS=1 cargo test --test recorded` writes the new lines (and
//! the diff goes into the commit for review).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::published::{
    enough, latency_tally, memory_disagreements, table, tables, throughput_tally, LatencyRow,
    MemoryRow, Row,
};

/// What a failing comparison with `expected*.txt` says.
const BLESS_HINT: &str =
    "lines differ from what the recorded runs gave before (WINIC_BLESS=1 when meant)";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raw")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("winic-recorded-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Unpacks `core`'s `NAME.raw.gz` into `dir`; the path.
fn unpack(core: &Path, name: &str, dir: &Path) -> PathBuf {
    let gz = core.join(format!("{name}.raw.gz"));
    let out = Command::new("gzip").arg("-dc").arg(&gz).output().unwrap();
    assert!(out.status.success(), "{}", gz.display());
    let raw = dir.join(format!("{name}.raw"));
    std::fs::write(&raw, out.stdout).unwrap();
    raw
}

/// What the replay of `core`'s `ports` run prints, line by line.
fn ports_text(id: &str, core: &Path, dir: &Path) -> Vec<String> {
    // Into the core's TP database, as a run writes it: the memory mixes
    // fit each memory form to its throughput there, as the export does.
    analysed(id, core, dir);
    let raw = unpack(core, "ports", dir);
    let out = common::winic_command(&["analyse", raw.to_str().unwrap(), "-o", "db.yaml"])
        .current_dir(dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{id} ports: {err}");
    let text = String::from_utf8_lossy(&out.stdout);
    let missing = unrecorded_outside_held_back(&text);
    if !missing.is_empty() && !outdated(id, core, "ports", &missing.join("; ")) {
        panic!(
            "{id} ports: the rules ask for kernels the run did not measure:\n{}",
            missing.join("\n")
        );
    }
    text.lines().map(String::from).collect()
}

/// The lines of a `ports` replay that name a kernel the recording lacks,
/// except the held-back mixes'. Those are drawn from the fit's mapping,
/// so a rule that moves any measured value (a tie between two class
/// representatives is enough) draws other mixes than the recorded run
/// did; on a core that can be recorded again the next recording has them
/// (`scripts/record-fixture.sh`), on one that cannot, the replay shows
/// them unmeasured and `expected-ports.txt` says so.
fn unrecorded_outside_held_back(text: &str) -> Vec<String> {
    let mut held_back = false;
    let mut missing = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') {
            held_back = line.starts_with("held-back mixes");
        }
        if !held_back && line.contains("not in the raw file") {
            missing.push(line.to_string());
        }
    }
    missing
}

/// The lines of `got` against those `path` holds: each gone or new one,
/// named by `id`. With `bless`, `got` is written to `path` instead.
fn compare(id: &str, path: &Path, got: &[String], bless: bool) -> Vec<String> {
    if bless {
        std::fs::write(path, got.join("\n") + "\n").unwrap();
        return Vec::new();
    }
    let want: Vec<String> = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (WINIC_BLESS=1 writes it)", path.display()))
        .lines()
        .map(String::from)
        .collect();
    let name = path.file_name().unwrap().to_string_lossy();
    let gone = want.iter().filter(|l| !got.contains(l));
    let new = got.iter().filter(|l| !want.contains(l));
    gone.map(|l| format!("{id} {name}: - {l}"))
        .chain(new.map(|l| format!("{id} {name}: + {l}")))
        .collect()
}

/// One line per entry of the database `db` of core `id`: the form, its
/// throughputs, its `latency` and every sub-latency's bounds. Each value
/// must be physically possible: none beyond 10 instructions a cycle (no
/// core issues more), none below 0.1 cycles or above a million; only a
/// range's lower end may be 0 (no chain bounds it from below), the
/// latency of a register move (`mov`, which a renamer can eliminate:
/// `mov r64, r64` on Zen 5), and a store's `latency` (0 by the `latency`
/// rule: all its sub-latencies go into memory).
fn digest(id: &str, db: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(db).unwrap();
    let entries: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut lines = Vec::new();
    for e in entries.as_sequence().unwrap() {
        let name = e["llvmName"].as_str().unwrap();
        let is_move = e["name"].as_str().is_some_and(|m| m == "mov");
        let memory: Vec<String> = e["operands"]
            .as_sequence()
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, o)| o["class"].as_str() == Some("memory"))
            .map(|(i, _)| i.to_string())
            .collect();
        let key = |v: &serde_yaml::Value| match v.as_str() {
            Some(s) => s.to_string(),
            None => v.as_u64().map_or("?".into(), |k| k.to_string()),
        };
        let subs = e["operandLatencies"]
            .as_sequence()
            .cloned()
            .unwrap_or_default();
        // A store's `latency` is 0: every sub-latency it has goes into memory.
        let is_store = subs.iter().any(|l| l["latencyMax"].as_f64().is_some())
            && subs
                .iter()
                .filter(|l| l["latencyMax"].as_f64().is_some())
                .all(|l| {
                    memory.contains(&key(&l["targetOperand"]))
                        && !memory.contains(&key(&l["sourceOperand"]))
                });
        let value = |v: &serde_yaml::Value, may_be_0: bool| match v.as_f64() {
            Some(x) => {
                assert!(
                    (0.1..=1e6).contains(&x) || (may_be_0 && x == 0.0),
                    "{id}: {name}: {x} is no possible value"
                );
                format!("{x}")
            }
            None => "-".into(),
        };
        let num = |v: &serde_yaml::Value| value(v, false);
        let mut line = format!(
            "{name} tp {} [{}, {}] lat {}",
            num(&e["throughput"]),
            num(&e["throughputMin"]),
            num(&e["throughputMax"]),
            value(&e["latency"], is_move || is_store)
        );
        for l in &subs {
            line.push_str(&format!(
                " {}>{} [{}, {}]",
                key(&l["sourceOperand"]),
                key(&l["targetOperand"]),
                value(
                    &l["latencyMin"],
                    is_move || l["latencyMax"].as_f64() > l["latencyMin"].as_f64()
                ),
                value(&l["latencyMax"], is_move)
            ));
        }
        lines.push(line);
    }
    lines
}

/// Every recorded core's TP and LAT runs, analysed: the database is the
/// one `expected.txt` describes, its values are physically possible, and
/// no kernel the rules ask for is missing from the records.
#[test]
fn recorded_runs_of_every_core_give_the_expected_databases() {
    each_core(BLESS_HINT, &|id, core, dir, bless| {
        let got = digest(id, &analysed(id, core, dir));
        compare(id, &core.join("expected.txt"), &got, bless)
    });
}

/// The core of `tests/fixtures/reference-*.yaml` whose published values a
/// recorded run is held to, by the run's id in docs/machines.md, and
/// whether its latencies too: `xeon-a7` is taken for Golden Cove by its
/// features, and its throughputs agree with Golden Cove's, its latencies
/// do not (`vmulpd` 3 cycles where Golden Cove takes 4), as in
/// tests/reference.rs. `zen5` has no published table here.
const PUBLISHED: [(&str, &str, bool); 4] = [
    ("zen3", "zen3", true),
    ("zen4", "zen4", true),
    ("xeon-cf", "golden_cove", true),
    ("xeon-a7", "golden_cove", false),
];

/// Every recorded core with a published table, analysed, agrees with it
/// as tests/reference.rs wants of a run on that core: throughputs within
/// 10% and latencies exact and equal for at least 90% of the rows, and
/// every memory row. Here on any machine, so that a rule change is held
/// to the published values of every recorded core, not only the
/// session's; the recording measured every form of the tables
/// (`scripts/record-fixture.sh`).
#[test]
fn recorded_runs_agree_with_the_published_tables_of_their_core() {
    if common::emulated() {
        // The database is the one `expected.txt` describes on every arch
        // (the test above), so the verdict is the host's.
        return common::skip(
            "the analysis is checked against expected.txt under the emulator; the host compares it with the published values",
        );
    }
    each_core("published values disagree", &|id, core, dir, _| {
        let Some(&(_, published, latencies)) = PUBLISHED.iter().find(|p| p.0 == id) else {
            common::skip(format!("{id}: no published table for this core"));
            return Vec::new();
        };
        let db = winic::db::Database::load(analysed(id, core, dir)).unwrap();
        let throughput = |n: &str| db.get(n).and_then(|e| e.throughput);
        let rows: Vec<Row> = table("reference-throughput.yaml", published);
        enough(
            id,
            "throughputs within 10%",
            &throughput_tally(&rows, throughput),
        );
        if latencies {
            let rows: Vec<LatencyRow> = table("reference-latency.yaml", published);
            enough(id, "latencies exact and equal", &latency_tally(&rows, &db));
        }
        let memory = tables::<MemoryRow>("reference-memory.yaml").remove(published);
        memory.map_or_else(Vec::new, |rows| {
            // An outdated recording lacks the forms whose kernels changed
            // since (`outdated`, said when it was analysed): their rows wait
            // for the next recording.
            let stale = outdated_because(core).is_some();
            let rows: Vec<MemoryRow> = rows
                .into_iter()
                .filter(|r| latencies || r.latency.is_none())
                .filter(|r| !stale || db.get(&r.llvm_name).is_some())
                .collect();
            memory_disagreements(&rows, throughput, &db)
                .into_iter()
                .map(|w| format!("{id} memory: {w}"))
                .collect()
        })
    });
}

/// `core`'s TP and LAT runs analysed into one database in `dir`; its path.
/// No kernel the rules ask for may be missing from the records.
fn analysed(id: &str, core: &Path, dir: &Path) -> PathBuf {
    for mode in ["TP", "LAT"] {
        let raw = unpack(core, mode, dir);
        let out = common::winic_command(&[
            "analyse",
            raw.to_str().unwrap(),
            "-o",
            "db.yaml",
            "--noReport",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
        let summary = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{id} {mode}: {err}");
        let unrecorded = summary.lines().find(|l| l.contains("not in the raw file"));
        if unrecorded.is_some_and(|l| !outdated(id, core, mode, l.trim())) {
            panic!("{id} {mode}: the rules ask for kernels the run did not measure:\n{summary}");
        }
    }
    dir.join("db.yaml")
}

/// Whether `core`'s recording is older than a change of the kernels some
/// forms run (its `OUTDATED` file says which change), so that its replay
/// lacks those forms' kernels (`what`) until the core is recorded again
/// (`scripts/record-fixture.sh`); says so as a visible skip. A recording
/// of a core this machine is not cannot be made here: the replay then
/// checks the forms it has, and `expected*.txt` lists no line for the
/// others.
fn outdated(id: &str, core: &Path, mode: &str, what: &str) -> bool {
    let Some(why) = outdated_because(core) else {
        return false;
    };
    common::skip(format!(
        "{id} {mode}: {what} ({}; record it again on that core)",
        why.trim()
    ));
    true
}

/// The change `core`'s recording is older than, as its `OUTDATED` file
/// names it; `None` for a recording of the kernels winic builds now.
fn outdated_because(core: &Path) -> Option<String> {
    std::fs::read_to_string(core.join("OUTDATED")).ok()
}

/// Every recorded core's `ports` run, analysed: the experiments, the fit,
/// the classes and the held-back mixes `expected-ports.txt` holds.
#[test]
fn recorded_ports_runs_of_every_core_give_the_expected_fits() {
    if common::emulated() {
        // 141 s under qemu-aarch64 for 8 s on the host: the replay is the
        // port fit's arithmetic, the same on every arch.
        return common::skip(
            "the port fit's replay takes minutes under an emulator; it runs on the host",
        );
    }
    each_core(BLESS_HINT, &|id, core, dir, bless| {
        if !core.join("ports.raw.gz").exists() {
            return Vec::new();
        }
        let got = ports_text(id, core, dir);
        compare(id, &core.join("expected-ports.txt"), &got, bless)
    });
}

/// Runs `check(id, core, scratch, bless)` on every recorded core, which
/// gives the lines that are wrong; fails naming them, with `failing`
/// saying what they are.
fn each_core(failing: &str, check: &(dyn Fn(&str, &Path, &Path, bool) -> Vec<String> + Sync)) {
    let Ok(dirs) = std::fs::read_dir(fixtures()) else {
        panic!("{}: no recorded runs", fixtures().display());
    };
    let mut cores: Vec<PathBuf> = dirs.map(|d| d.unwrap().path()).collect();
    cores.sort();
    assert!(!cores.is_empty(), "no recorded core");
    if Command::new("gzip").arg("--version").output().is_err() {
        return common::skip("no gzip to unpack the recorded runs");
    }
    let bless = std::env::var_os("WINIC_BLESS").is_some();
    // The cores in parallel, one thread per core of this machine: under
    // qemu, where cargo runs one test binary at a time and this test
    // alone, the replays took 249 s one after the other (aarch64 on the
    // zen3 guest). Each thread carries the test's name, which skip lines
    // and scratch directories use.
    let test = std::thread::current().name().unwrap_or("test").to_string();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut changed: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(cores.len()))
            .map(|_| {
                std::thread::Builder::new()
                    .name(test.clone())
                    .spawn_scoped(s, || {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(core) = cores.get(i) else { break };
                            let id = core.file_name().unwrap().to_string_lossy().into_owned();
                            let dir = scratch(&format!("{id}-{test}"));
                            done.push((i, check(&id, core, &dir, bless)));
                            let _ = std::fs::remove_dir_all(&dir);
                        }
                        done
                    })
                    .unwrap()
            })
            .collect();
        // A panic in a worker (an assertion of `check`) fails the test with
        // the worker's message.
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    changed.sort_by_key(|(i, _)| *i);
    let changed: Vec<String> = changed.into_iter().flat_map(|(_, c)| c).collect();
    assert!(
        changed.is_empty(),
        "{} {failing}:\n{}",
        changed.len(),
        changed
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Only the held-back mixes of a replay may lack their kernels.
#[test]
fn only_held_back_mixes_may_be_unrecorded() {
    let text = "every form alone: 3 forms\n\
                held-back mixes of three forms, not used in the fit: 0 of 0\n  \
                A + B + C  1:1:1  -  not in the raw file: the recorded run did not measure this kernel pair\n\
                loads and stores: MOV64rm\n";
    assert!(unrecorded_outside_held_back(text).is_empty());
    let text = format!("{text}line splits:\n  MOV64rm  -  not in the raw file\n");
    assert_eq!(
        unrecorded_outside_held_back(&text),
        ["  MOV64rm  -  not in the raw file"]
    );
}
