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
    let raw = unpack(core, "ports", dir);
    let out = common::winic_command(&["analyse", raw.to_str().unwrap()])
        .current_dir(dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{id} ports: {err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("not in the raw file"),
        "{id} ports: the rules ask for kernels the run did not measure"
    );
    text.lines().map(String::from).collect()
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
/// range's lower end may be 0 (no chain bounds it from below), and the
/// latency of a register move (`mov`, which a renamer can eliminate:
/// `mov r64, r64` on Zen 5).
fn digest(id: &str, db: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(db).unwrap();
    let entries: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut lines = Vec::new();
    for e in entries.as_sequence().unwrap() {
        let name = e["llvmName"].as_str().unwrap();
        let is_move = e["name"].as_str().is_some_and(|m| m == "mov");
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
            value(&e["latency"], is_move)
        );
        for l in e["operandLatencies"].as_sequence().into_iter().flatten() {
            let end = |v: &serde_yaml::Value| match v.as_str() {
                Some(s) => s.to_string(),
                None => v.as_u64().map_or("?".into(), |k| k.to_string()),
            };
            line.push_str(&format!(
                " {}>{} [{}, {}]",
                end(&l["sourceOperand"]),
                end(&l["targetOperand"]),
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
    each_core(&|id, core, dir, bless| {
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
            assert!(
                !summary.contains("not in the raw file"),
                "{id} {mode}: the rules ask for kernels the run did not measure:\n{summary}"
            );
        }
        let got = digest(id, &dir.join("db.yaml"));
        compare(id, &core.join("expected.txt"), &got, bless)
    });
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
    each_core(&|id, core, dir, bless| {
        if !core.join("ports.raw.gz").exists() {
            return Vec::new();
        }
        let got = ports_text(id, core, dir);
        compare(id, &core.join("expected-ports.txt"), &got, bless)
    });
}

/// Runs `check(id, core, scratch, bless)` on every recorded core, which
/// gives the lines that differ from what was expected; fails naming them.
fn each_core(check: &dyn Fn(&str, &Path, &Path, bool) -> Vec<String>) {
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
    let mut changed = Vec::new();
    for core in &cores {
        let id = core.file_name().unwrap().to_string_lossy().into_owned();
        let thread = std::thread::current();
        let dir = scratch(&format!("{id}-{}", thread.name().unwrap_or("test")));
        changed.extend(check(&id, core, &dir, bless));
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        changed.is_empty(),
        "{} lines differ from what the recorded runs gave before (WINIC_BLESS=1 when meant):\n{}",
        changed.len(),
        changed
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
