//! The clock of a run, through the real binary: the summary gives the
//! floor and the clocks seen beside the kernels; with `-f GHz` far from
//! the real clock every kernel is flagged; where the clock cannot be
//! measured (an emulator), winic says so once and names `-f`.

mod common;

fn winic(args: &[&str]) -> std::process::Output {
    common::winic_command(args).output().unwrap()
}

fn form() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "ADD64rr"
    } else if cfg!(target_arch = "aarch64") {
        "ADDXrs"
    } else {
        "ADD"
    }
}

#[test]
fn a_run_names_its_floor_and_clock_or_says_the_clock_cannot_be_measured() {
    let dir = common::Scratch::new("clock");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let o = winic(&["TP", "-i", form(), "-o", db_arg, "--noReport"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0) => {
            assert!(out.contains("  clock:  "), "{out}");
            assert!(out.contains("  floor:  "), "{out}");
        }
        // Under an emulator: once, with what to do.
        Some(3) if common::emulated() => {
            assert!(err.contains("clock cannot be measured"), "{err}");
            assert!(err.contains("-f GHz"), "{err}");
        }
        c => panic!("exit {c:?}\n{out}\n{err}"),
    }
}

#[test]
fn a_fixed_clock_far_from_the_real_one_is_flagged() {
    if common::emulated() {
        common::skip("under an emulator no clock is real");
        return;
    }
    let dir = common::Scratch::new("clock-f");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    // No core of these machines runs at 19 GHz.
    let o = winic(&["-f", "19", "TP", "-i", form(), "-o", db_arg, "--noReport"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains("1 kernels ran more than 5% off the clock used"),
        "{out}"
    );
}
