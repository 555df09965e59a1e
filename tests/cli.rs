//! CLI tests: run the real `winic` binary (the one cargo built for the
//! target; under qemu-user, `WINIC_TEST_RUNNER` names the emulator to put in
//! front of it, e.g. "qemu-aarch64 -cpu max").

mod common;

use common::{emulated, host_arch, skip, winic_command};
use std::process::{Command, Output};

fn winic(args: &[&str]) -> Output {
    winic_command(args).output().expect("cannot run winic")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory of this test process under cargo's scratch space.
fn scratch(tag: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The text of the report a run wrote into `dir` (`mode`: "TP", "LAT").
fn report_in(dir: &std::path::Path, mode: &str) -> String {
    let report = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .find(|f| {
            f.file_name()
                .to_string_lossy()
                .starts_with(&format!("report_{mode}_"))
        })
        .expect("a report");
    std::fs::read_to_string(report.path()).unwrap()
}

#[test]
fn version_names_the_program() {
    let o = winic(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("winic "), "{}", stdout(&o));
}

#[test]
fn list_defaults_to_the_host_arch() {
    let o = winic(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let host = if cfg!(target_arch = "x86_64") {
        "ADD64rr"
    } else if cfg!(target_arch = "aarch64") {
        "ADDXrs"
    } else {
        "VADD_VV"
    };
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.split_whitespace().nth(1) == Some(host)),
        "{host} not listed"
    );
}

#[test]
fn list_counts_real_forms_per_arch() {
    for (arch, lo, hi) in [
        ("x86", 17_000, 18_500),
        ("aarch64", 6_500, 7_100),
        ("riscv", 1_800, 2_000),
    ] {
        let o = winic(&["list", "--arch", arch]);
        assert!(o.status.success(), "{}", stderr(&o));
        let n = stdout(&o).lines().count();
        assert!((lo..=hi).contains(&n), "{arch}: {n} forms");
        assert!(
            stderr(&o).contains(&format!("{n} forms listed")),
            "{}",
            stderr(&o)
        );
        let all = stdout(&winic(&["list", "--arch", arch, "--all"]))
            .lines()
            .count();
        assert!(all > n, "{arch}: --all lists pseudos too");
    }
}

#[test]
fn list_filter_selects_by_regex() {
    let o = winic(&["list", "--arch", "x86", "--filter", "^VFMADD231PDZ128r$"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("vfmadd231pd"), "{out}");
}

#[test]
fn bad_filter_and_bad_arch_are_clear_errors() {
    let o = winic(&["list", "--filter", "(unclosed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--filter '(unclosed' is not a valid regular expression"),
        "{}",
        stderr(&o)
    );
    let o = winic(&["list", "--arch", "mips"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("valid: x86_64"), "{}", stderr(&o));
}

#[test]
fn show_describes_a_form() {
    let o = winic(&["show", "FMADDDrrr", "--arch", "aarch64"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for want in [
        "FMADDDrrr (aarch64, opcode 2919)",
        "$Rd",
        "write FPR64",
        "implicit reads:  FPCR",
        "requires:",
        "Inst[4:0] = Rd[4:0]",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn show_unknown_name_suggests_the_closest() {
    let o = winic(&["show", "add64rr", "--arch", "x86_64"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no instruction form 'add64rr' on x86_64"),
        "{err}"
    );
    assert!(err.contains("ADD64rr"), "{err}");
}

/// A codegen-only record named with `-i` is refused, with its real twin
/// named where one has its assembly (it used to vanish from the run
/// without a word). x86 has such twins (VMULSDrr, VMULSDrr_Int); on
/// AArch64 the record is a pseudo.
#[test]
fn a_codegen_only_form_named_with_i_is_refused_with_its_real_twin() {
    use winic::isa::Flag;
    let arch = winic::isa::Arch::host().expect("tests run on a host winic supports");
    let isa = winic::isa::Isa::get(arch);
    let twin_of = |f: winic::isa::Instr| {
        isa.real_instrs()
            .find(|r| r.asm_template() == f.asm_template())
            .map(|r| r.name())
    };
    // Codegen-only records first (AArch64 has none that are not also
    // pseudos).
    let mut fakes: Vec<winic::isa::Instr> = isa.instrs().filter(|f| !f.is_real()).collect();
    fakes.sort_by_key(|f| f.has(Flag::IsPseudo));
    let fake = fakes
        .iter()
        .copied()
        .find(|f| twin_of(*f).is_some())
        .or(fakes.first().copied())
        .expect("a record that is not a real form");
    let kind = if fake.has(Flag::IsPseudo) {
        "pseudo"
    } else {
        "codegen-only"
    };
    for mode in ["TP", "LAT"] {
        let o = winic(&[
            mode,
            "-i",
            fake.name(),
            "--noReport",
            "-o",
            "/nonexistent/db.yaml",
        ]);
        assert_eq!(o.status.code(), Some(2), "{mode}: {}", stderr(&o));
        let err = stderr(&o);
        let want = match twin_of(fake) {
            Some(twin) => format!("real forms with its assembly: {twin}"),
            None => "no real form has its assembly".to_string(),
        };
        assert!(
            err.contains(&format!("{} is a {kind} LLVM record", fake.name()))
                && err.contains(&want),
            "{mode}: {err}"
        );
    }
}

#[test]
fn show_gives_an_example_instruction() {
    for (arch, name, text, bytes) in [
        ("x86_64", "ADD64rr", "add ", "48 01"),
        ("aarch64", "ADDXrs", "add x", ""),
        ("riscv64", "ADD", "add ", ""),
    ] {
        let o = winic(&["show", name, "--arch", arch]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let example = out.lines().find(|l| l.contains("example:")).unwrap_or("");
        assert!(example.contains(text), "{arch} {name}: {example:?}\n{out}");
        let line = out.lines().find(|l| l.contains("bytes:")).unwrap_or("");
        assert!(
            line.contains(bytes) && line.contains("decodes as intended"),
            "{line:?}"
        );
    }
    // A memory form's example addresses memory through a base register.
    let o = winic(&["show", "MOV64rm", "--arch", "x86"]);
    assert!(
        stdout(&o).contains("example:    mov rcx, qword ptr [rdx]"),
        "{}",
        stdout(&o)
    );
    // A gather's vector index is encoded (VSIB), and a string operation's
    // rsi/rdi (LLVM's text, `es:` before the destination), and an
    // absolute address (`moffs`) in the data area; a 32-bit one as GNU as
    // reads it back (LLVM's `mov al, byte ptr [...]` is the ModRM form).
    let o = winic(&["show", "VPGATHERDDZrm", "--arch", "x86"]);
    assert!(
        stdout(&o).contains("example:    {evex} vpgatherdd zmm1 {k1}, zmmword ptr [rcx + zmm2]"),
        "{}",
        stdout(&o)
    );
    let o = winic(&["show", "MOVSB", "--arch", "x86"]);
    for line in [
        "example:    movsb byte ptr es:[rdi], byte ptr [rsi]",
        "bytes:      a4  (decodes as intended)",
    ] {
        assert!(stdout(&o).contains(line), "{line}: {}", stdout(&o));
    }
    for (form, lines) in [
        (
            "MOV64o64a",
            [
                "example:    movabs qword ptr [1073741824], rax",
                "bytes:      48 a3 00 00 00 40 00 00 00 00  (decodes as intended)",
            ],
        ),
        (
            "MOV8ao32",
            [
                "example:    addr32 movabs al, byte ptr [1073741824]",
                "bytes:      67 a0 00 00 00 40  (decodes as intended)",
            ],
        ),
    ] {
        let o = winic(&["show", form, "--arch", "x86"]);
        for line in lines {
            assert!(stdout(&o).contains(line), "{form} {line}: {}", stdout(&o));
        }
    }
}

#[test]
fn selfcheck_rejects_an_unknown_arch() {
    let o = winic(&["selfcheck", "--arch", "mips"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mips"), "{}", stderr(&o));
}

/// One `--json` object: the counts and the unencodable forms by reason.
struct Counts {
    total: u64,
    ok: u64,
    unchecked: u64,
    mismatch: u64,
    unencodable_for: serde_json::Map<String, serde_json::Value>,
}

fn selfcheck_json(arch: &str) -> Counts {
    let o = winic(&["selfcheck", "--arch", arch, "--json"]);
    let out = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("{arch}: not one JSON object ({e}): {out}"));
    assert_eq!(v["arch"], arch);
    let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{arch}: no {k}"));
    assert!(v["failures"].is_array());
    Counts {
        total: n("total"),
        ok: n("ok"),
        unchecked: n("capstone_unsupported"),
        mismatch: n("mismatch"),
        unencodable_for: v["unencodable_reasons"]
            .as_object()
            .cloned()
            .unwrap_or_default(),
    }
}

/// Issue 3's targets: no mismatch; ≥97% of the non-APX x86 forms, ≥98% of
/// the AArch64 forms and of the RISC-V forms valid on RV64 are encoded and
/// pass the decode check (or capstone cannot decode their extension).
#[test]
fn selfcheck_meets_the_encoder_targets() {
    for (arch, min_share, excluded) in [
        ("x86_64", 0.97, "APX"),
        ("aarch64", 0.98, "-"),
        ("riscv64", 0.98, "RV32-only"),
    ] {
        let c = selfcheck_json(arch);
        assert_eq!(c.mismatch, 0, "{arch}: capstone mismatches");
        let left_out: u64 = c
            .unencodable_for
            .iter()
            .filter(|(why, _)| why.contains(excluded))
            .map(|(_, n)| n.as_u64().unwrap_or(0))
            .sum();
        let share = (c.ok + c.unchecked) as f64 / (c.total - left_out) as f64;
        assert!(
            share >= min_share,
            "{arch}: {:.2}% encoded and checked (ok {}, unchecked {}, of {} - {left_out} {excluded}), want {:.0}%",
            100.0 * share,
            c.ok,
            c.unchecked,
            c.total,
            100.0 * min_share
        );
    }
}

/// The cycles per instruction of MAN's result line (`tp: 0.993 cycles per
/// instruction (...)`).
fn cycles_per_instruction(out: &str) -> f64 {
    out.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no cycles per instruction in {out}"))
}

/// A file with a loop of 12 dependent adds for the host arch, in the
/// syntax winic prints, and its function name.
fn add_loop_file() -> (common::Scratch, std::path::PathBuf, &'static str) {
    let text = if cfg!(target_arch = "x86_64") {
        ".intel_syntax noprefix\n.text\n.globl tp\ntp:\nloop:\n.rept 12\n  add rax, rbx\n.endr\n  dec rdi\n  jne loop\n  ret\n"
    } else if cfg!(target_arch = "aarch64") {
        ".text\n.globl tp\ntp:\nloop:\n.rept 12\n  add x1, x1, x2\n.endr\n  subs x0, x0, #1\n  b.ne loop\n  ret\n"
    } else {
        ".text\n.globl tp\ntp:\nloop:\n.rept 12\n  add t0, t0, t1\n.endr\n  addi a0, a0, -1\n  bnez a0, loop\n  ret\n"
    };
    let dir = common::Scratch::new("cli");
    let path = dir.join("adds.s");
    std::fs::write(&path, text).unwrap();
    (dir, path, "tp")
}

#[test]
fn man_times_a_function_of_an_assembly_file() {
    let (_dir, path, func) = add_loop_file();
    let p = path.to_str().unwrap();
    let o = winic(&["MAN", "--path", p, "--funcName", func, "--nInst", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("-f not given"), "{}", stderr(&o));
    let out = stdout(&o);
    let cpi = cycles_per_instruction(&out);
    assert!(out.contains("cycles per instruction"), "{out}");
    assert!(cpi > 0.0, "{out}");
    let o = winic(&["-f", "2.5", "MAN", "-p", p, "--funcName", func, "-n", "12"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2.50 GHz (-f: given)"),
        "{}",
        stdout(&o)
    );
}

/// `winic MAN --raw FILE` keeps what it measured: `winic analyse FILE`
/// prints the same line, measuring nothing; a database or a comparison
/// asked of it is refused, as is a file without a measurement.
#[test]
fn man_keeps_a_raw_file_that_analyse_prints_again() {
    let (dir, path, func) = add_loop_file();
    let p = path.to_str().unwrap();
    let raw = dir.join("adds.raw");
    let r = raw.to_str().unwrap();
    let o = winic(&[
        "-f",
        "2.5",
        "MAN",
        "-p",
        p,
        "--funcName",
        func,
        "-n",
        "12",
        "--raw",
        r,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o);
    assert!(line.contains("cycles per instruction"), "{line}");
    // The source may be gone: the raw file holds what the analysis needs.
    std::fs::remove_file(&path).unwrap();
    let again = winic(&["analyse", r]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stdout(&again), line);
    let o = winic(&["analyse", r, "-o", "db.yaml"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no database: drop -o"),
        "{}",
        stderr(&o)
    );
    // Only the header: the measurement never came.
    let header = std::fs::read_to_string(&raw).unwrap();
    std::fs::write(&raw, header.lines().next().unwrap().to_string() + "\n").unwrap();
    let o = winic(&["analyse", r]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no measurement of its function"),
        "{}",
        stderr(&o)
    );
}

/// A function that overwrites the registers the calling convention says
/// a callee keeps (x86 `rbx`, `rbp`, `r12`-`r15` and the direction flag;
/// AArch64 `x19`-`x29`; RISC-V `s0`-`s11`) is timed like any other: winic
/// saves and restores them around the call. Before, the child went on
/// with the function's values in its own registers and hung until the
/// deadline, or printed `inf` cycles.
#[test]
fn man_times_a_function_that_breaks_the_calling_convention() {
    let (text, n) = if cfg!(target_arch = "x86_64") {
        (
            ".intel_syntax noprefix\ntp:\n  std\nloop:\n  mov rbx, rdi\n  mov rbp, rdi\n  mov r12, rdi\n  \
             mov r13, rdi\n  mov r14, rdi\n  mov r15, rdi\n  dec rdi\n  jne loop\n  ret\n"
                .to_string(),
            "8",
        )
    } else if cfg!(target_arch = "aarch64") {
        let movs: String = (19..=29).map(|r| format!("  mov x{r}, x0\n")).collect();
        (
            format!("tp:\nloop:\n{movs}  subs x0, x0, #1\n  b.ne loop\n  ret\n"),
            "13",
        )
    } else {
        let movs: String = (0..=11).map(|r| format!("  mv s{r}, a0\n")).collect();
        (
            format!("tp:\nloop:\n{movs}  addi a0, a0, -1\n  bnez a0, loop\n  ret\n"),
            "14",
        )
    };
    let dir = common::Scratch::new("cli-clobber");
    let path = dir.join("clobber.s");
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let o = winic(&["-f", "3", "MAN", "-p", p, "--funcName", "tp", "-n", n]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let cpi = cycles_per_instruction(&out);
    assert!(cpi.is_finite() && cpi > 0.0, "{out}");
    if !emulated() {
        // Register moves: a few per cycle, not dozens of cycles each.
        assert!(cpi < 5.0, "{out}");
    }
}

/// A function that ignores its iteration count takes no longer for more
/// iterations: 0 cycles per instruction is no cost a core can have, so
/// MAN refuses it and says what the function must do.
#[test]
fn man_refuses_a_function_that_does_not_loop() {
    // Two that ignore their count: one that returns at once (its scaling
    // runs to the cap), one that spins a fixed 19,922,944 times, so that
    // even the first run seems long enough (as one slow run on a busy
    // machine can: seen once in CI under qemu-riscv64, 2026-11-29) and
    // only four times the count taking as long gives it away.
    let (once, fixed) = if cfg!(target_arch = "x86_64") {
        (
            ".intel_syntax noprefix\ntp:\n  add rax, rbx\n  ret\n",
            ".intel_syntax noprefix\ntp:\n  mov rcx, 19922944\nspin:\n  dec rcx\n  jne spin\n  ret\n",
        )
    } else if cfg!(target_arch = "aarch64") {
        (
            "tp:\n  add x1, x1, x2\n  ret\n",
            "tp:\n  mov x9, 19922944\nspin:\n  subs x9, x9, #1\n  b.ne spin\n  ret\n",
        )
    } else {
        (
            "tp:\n  add t0, t0, t1\n  ret\n",
            "tp:\n  li t1, 19922944\nspin:\n  addi t1, t1, -1\n  bnez t1, spin\n  ret\n",
        )
    };
    let dir = common::Scratch::new("cli-noloop");
    for (name, text) in [("once.s", once), ("fixed.s", fixed)] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let o = winic(&[
            "-f",
            "3",
            "MAN",
            "-p",
            path.to_str().unwrap(),
            "--funcName",
            "tp",
            "-n",
            "1",
        ]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{name}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(
            stderr(&o).contains("must run its own loop"),
            "{name}: {}",
            stderr(&o)
        );
        assert!(stdout(&o).is_empty(), "{name}: {}", stdout(&o));
    }
}

#[test]
fn man_reports_bad_input_with_its_place() {
    let (_dir, path, func) = add_loop_file();
    let p = path.to_str().unwrap();
    let o = winic(&["MAN", "-p", p, "--funcName", "nope", "-n", "12"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no label `nope` (labels: tp, loop)"),
        "{}",
        stderr(&o)
    );
    let bad = path.with_file_name("bad.s");
    let head = if cfg!(target_arch = "x86_64") {
        ".intel_syntax noprefix"
    } else {
        "# a kernel"
    };
    std::fs::write(&bad, format!("{head}\ntp:\n  frobnicate x1\n  ret\n")).unwrap();
    let o = winic(&[
        "MAN",
        "-p",
        bad.to_str().unwrap(),
        "--funcName",
        func,
        "-n",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("bad.s:3:3: cannot assemble `frobnicate x1`: unknown mnemonic"),
        "{err}"
    );
    let o = winic(&["-f", "fast", "MAN", "-p", p, "--funcName", func, "-n", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`fast` is no frequency"),
        "{}",
        stderr(&o)
    );
}

/// A command that runs an executable for `arch`: the host's own (under
/// `WINIC_TEST_RUNNER` when the tests run emulated), else
/// `qemu-<arch> -cpu max` when it is on PATH; `Err` says why not.
fn runner_for(arch: &str) -> Result<Vec<String>, String> {
    if arch == host_arch() {
        let runner = std::env::var("WINIC_TEST_RUNNER").unwrap_or_default();
        return Ok(runner.split_whitespace().map(String::from).collect());
    }
    let qemu = format!("qemu-{arch}");
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(&qemu).is_file()))
        .unwrap_or(false);
    if found {
        Ok(vec![qemu, "-cpu".into(), "max".into()])
    } else {
        Err(format!("{qemu} is not on PATH"))
    }
}

/// `winic emit` of `form` into a fresh file; the file's path.
fn emit_elf(arch: &str, form: &str, extra: &[&str]) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("emit-{arch}-{form}-{}.elf", std::process::id()));
    let mut args = vec!["emit", "--arch", arch, "-i", form, "--elf"];
    let p = path.to_str().expect("a UTF-8 temporary path");
    args.push(p);
    args.extend_from_slice(extra);
    let o = winic(&args);
    assert!(o.status.success(), "winic {args:?}: {}", stderr(&o));
    assert!(stdout(&o).contains("_start:"), "{}", stdout(&o));
    path
}

/// Runs the ELF at `path` with `runner` in front (none: directly).
fn run_elf(runner: &[String], path: &std::path::Path) -> std::process::ExitStatus {
    let mut cmd = match runner.split_first() {
        Some((emu, args)) => {
            let mut c = Command::new(emu);
            c.args(args).arg(path);
            c
        }
        None => Command::new(path),
    };
    let status = cmd.status().expect("cannot start the emitted ELF");
    let _ = std::fs::remove_file(path);
    status
}

fn host_form(arch: &str) -> &'static str {
    match arch {
        "x86_64" => "ADD64rr",
        "aarch64" => "ADDXrs", // ADDXrr is a pseudo in LLVM 19
        _ => "ADD",
    }
}

#[test]
fn emitted_elf_of_the_host_arch_runs_and_exits_0() {
    use std::os::unix::fs::PermissionsExt;
    let arch = host_arch();
    let path = emit_elf(
        arch,
        host_form(arch),
        &["--unroll", "4", "--iterations", "100000"],
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755, "{mode:o}");
    let runner = runner_for(arch).unwrap();
    let status = run_elf(&runner, &path);
    assert_eq!(status.code(), Some(0), "{arch}: {status}");
}

#[test]
fn emitted_elfs_of_the_other_arches_run_under_qemu() {
    for arch in ["x86_64", "aarch64", "riscv64"] {
        if arch == host_arch() {
            continue;
        }
        let path = emit_elf(arch, host_form(arch), &["--iterations", "1000"]);
        match runner_for(arch) {
            Ok(runner) => {
                let status = run_elf(&runner, &path);
                assert_eq!(status.code(), Some(0), "{arch} under {runner:?}: {status}");
            }
            Err(why) => {
                let _ = std::fs::remove_file(&path);
                skip(format!("running the {arch} ELF: {why}"));
            }
        }
    }
}

/// A memory form's executable maps winic's data area, so its loads and
/// stores run: natively on the host's arch, under qemu on the others.
#[test]
fn emitted_memory_forms_run_against_the_data_area() {
    for (arch, forms) in [
        ("x86_64", ["MOV64rm", "ADD64mi32", "VMOVUPSmr"]),
        ("aarch64", ["LDRXui", "STRXui", "LDPXi"]),
        ("riscv64", ["LD", "SW", "FLD"]),
    ] {
        let runner = match runner_for(arch) {
            Ok(r) => r,
            Err(why) => {
                skip(format!("running {arch} memory forms: {why}"));
                continue;
            }
        };
        for form in forms {
            let path = emit_elf(arch, form, &["--unroll", "4", "--iterations", "1000"]);
            let status = run_elf(&runner, &path);
            assert_eq!(status.code(), Some(0), "{arch} {form}: {status}");
        }
    }
}

#[test]
fn an_emitted_kernel_that_faults_dies_with_sigill() {
    use std::os::unix::process::ExitStatusExt;
    // Register/immediate forms that raise SIGILL on purpose.
    for (arch, form) in [("x86_64", "TRAP"), ("aarch64", "UDF"), ("riscv64", "UNIMP")] {
        let runner = match runner_for(arch) {
            Ok(r) => r,
            Err(why) => {
                skip(format!("the {arch} {form} fault: {why}"));
                continue;
            }
        };
        let path = emit_elf(arch, form, &[]);
        let status = run_elf(&runner, &path);
        assert_eq!(status.signal(), Some(4), "{arch} {form}: {status}");
    }
}

#[test]
fn emit_errors_name_the_bad_value() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let out = format!("{dir}/never-written.elf");
    for (args, want) in [
        (vec!["-i", "ADD64rx"], "closest: ADD64r"),
        (
            vec!["-i", "LOOP"],
            "neither registers, immediates nor plain memory",
        ),
        (vec!["-i", "ADD64rr", "--iterations", "0"], "--iterations"),
    ] {
        let mut all = vec!["emit", "--arch", "x86_64", "--elf", &out];
        all.extend(args);
        let o = winic(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(want), "{all:?}: {}", stderr(&o));
    }
    assert!(!std::path::Path::new(&out).exists());
    let o = winic(&[
        "emit",
        "-i",
        "ADD",
        "--arch",
        "riscv64",
        "--elf",
        "/nonexistent-dir/k.elf",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent-dir/k.elf"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dumped_kernels_run_in_man_mode() {
    // A register form and a load-op form (its loads at winic's data
    // area, which MAN maps as a run does).
    let forms: &[&str] = match host_arch() {
        // And forms whose loop walks the pointers they move back: a
        // string operation (rsi, rdi) and a pop (the stack pointer); and
        // a read-modify-write, whose base streams through 8 KiB.
        "x86_64" => &["IMUL64rr", "ADD64rm", "MOVSQ", "POP64r", "ADD64mi8"],
        "aarch64" => &["MADDXrrr", "LDRXui"],
        _ => &["MUL", "LD"],
    };
    for form in forms {
        dumped_kernel_runs_in_man_mode(form);
    }
}

fn dumped_kernel_runs_in_man_mode(form: &str) {
    let scratch = common::Scratch::new(&format!("dump-{form}"));
    let dir = scratch.path();
    let d = dir.to_str().unwrap();
    let o = winic(&["emit", "-i", form, "--unroll", "4", "--dump-asm", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = dir.join(format!("{form}.s"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("kernel:") && text.contains(".Lloop_kernel"),
        "{text}"
    );
    // The kernel TP times: 4 copies of 8 bytes move the base a line
    // further every iteration, within 0x40000000 + 8 KiB.
    if form == "ADD64mi8" {
        assert!(
            text.contains(", 64\n") && text.contains(", 1073750015\n"),
            "{text}"
        );
    }
    let o = winic(&[
        "MAN",
        "-p",
        file.to_str().unwrap(),
        "--funcName",
        "kernel",
        "-n",
        "4",
    ]);
    assert!(o.status.success(), "{}\n{text}", stderr(&o));
    assert!(stdout(&o).starts_with("kernel: "), "{}", stdout(&o));
}

/// The pids of the live (not zombie) processes whose command line
/// contains `needle`.
fn live_processes_with(needle: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

/// MAN kernels that try to outlive winic (issue 46): a fork that spins, a
/// fork that leaves the process group with `setsid` (which escaped before:
/// `winic MAN ... | cat` hung until the spinner was killed by hand), and a
/// double fork. winic's output goes through pipes, as in `| cat`: it must
/// end, and nothing of the kernel may keep running. On Linux the measuring
/// child is killed at its first `fork` (seccomp; exec::jail).
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the kernels are x86-64 code (`mov eax, 57; syscall` is Linux fork there)"
)]
fn man_kernels_that_fork_leave_no_process_behind() {
    if winic::testing::emulated() {
        return winic::testing::skip(
            "qemu-user refuses seccomp filters (exec::child's unit tests check the fallback)",
        );
    }
    const SETSID: &str = "  test rax, rax\n  jnz spin\n  mov eax, 112\n  syscall\n";
    let kernels = [
        ("fork", String::new()),
        ("fork-setsid", SETSID.to_string()),
        (
            "double-fork",
            format!("{SETSID}  mov eax, 57\n  syscall\n  test rax, rax\n  jnz out\n"),
        ),
    ];
    let dir = std::env::temp_dir().join(format!("winic-forking-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, middle) in kernels {
        let path = dir.join(format!("{name}.s"));
        std::fs::write(
            &path,
            format!(
                ".intel_syntax noprefix\n.text\ntp:\n  mov eax, 57\n  syscall\n{middle}\
                 spin:\n  jmp spin\nout:\n  mov eax, 60\n  syscall\n  ret\n"
            ),
        )
        .unwrap();
        let p = path.to_str().unwrap();
        let mut run = winic_command(&["-f", "2.0", "MAN", "-p", p, "--funcName", "tp", "-n", "1"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Both pipes are read to their end, as `| cat` does: a process
        // that holds them keeps the readers waiting.
        let (done_tx, done) = std::sync::mpsc::channel();
        let mut out = run.stdout.take().unwrap();
        let mut err = run.stderr.take().unwrap();
        std::thread::spawn(move || {
            let (mut o, mut e) = (String::new(), String::new());
            let _ = std::io::Read::read_to_string(&mut out, &mut o);
            let _ = std::io::Read::read_to_string(&mut err, &mut e);
            let _ = done_tx.send(e);
        });
        let err = done.recv_timeout(std::time::Duration::from_secs(60));
        // The pipes close as winic exits: its status follows at once.
        let mut status = None;
        for _ in 0..100 {
            status = run.try_wait().unwrap();
            if status.is_some() || err.is_err() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if status.is_none() {
            let _ = run.kill();
        }
        let _ = run.wait();
        let left = live_processes_with(p);
        for pid in &left {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        let err = err.unwrap_or_else(|_| {
            panic!("{name}: winic's output pipes still open after 60 s (left: {left:?})")
        });
        assert!(
            left.is_empty(),
            "{name}: processes of the kernel still run: {left:?}"
        );
        assert_eq!(status.and_then(|s| s.code()), Some(1), "{name}: {err}");
        assert!(
            err.contains("killed by SIGSYS: it tried to create a process"),
            "{name}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// TP and LAT write no kernels: `--dump-asm` used to be accepted and
/// ignored there.
#[test]
fn dump_asm_is_refused_where_no_kernel_is_written() {
    for mode in ["TP", "LAT"] {
        let o = winic(&[mode, "-i", "NOTAFORM", "--dump-asm", "/tmp/winic-nodump"]);
        assert_eq!(o.status.code(), Some(2), "{mode}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("--dump-asm /tmp/winic-nodump") && e.contains("winic emit"),
            "{e}"
        );
    }
    assert!(!std::path::Path::new("/tmp/winic-nodump").exists());
}

#[test]
fn runcheck_runs_the_kernels_of_the_forms_it_is_given() {
    let arch = host_arch();
    let form = host_form(arch);
    let o = winic(&["runcheck", "--filter", &format!("^{form}$"), "--list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("{form}\tran\t12 copies"))),
        "{out}"
    );
    assert!(out.contains(&format!("runcheck {arch}: 1 forms")), "{out}");
    let o = winic(&["runcheck", "--filter", "^NO_SUCH_FORM$"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("matches no real"), "{}", stderr(&o));
    let o = winic(&["runcheck", "--filter", "(", "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a valid regular expression"));
}

#[test]
fn tp_measures_merges_and_resumes() {
    let arch = host_arch();
    let dir = scratch("tp");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let (first, second) = match arch {
        "x86_64" => ("ADD64rr", "IMUL64rr"),
        "aarch64" => ("ADDXrs", "MADDXrrr"),
        _ => ("ADD", "MUL"),
    };
    // Under qemu (WINIC_EMULATED) times mean nothing and a form may fail
    // as noise: the values are checked on hardware only.
    let emulated = emulated();
    let o = winic(&["-f", "2.0", "TP", "-i", first, "-o", db_arg, "--noReport"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("TP: 1 forms"), "{}", stdout(&o));
    if !emulated {
        assert!(stdout(&o).contains("measured:   1"), "{}", stdout(&o));
        let text = std::fs::read_to_string(&db).unwrap();
        assert!(
            text.contains(&format!("llvmName:        {first}")),
            "{text}"
        );
        assert!(text.contains("throughputMax:"), "{text}");
    }
    // A second form is merged in; the first stays.
    let o = winic(&["-f", "2.0", "TP", "-i", second, "-o", db_arg, "--noReport"]);
    assert!(o.status.success(), "{}", stderr(&o));
    if !emulated {
        let text = std::fs::read_to_string(&db).unwrap();
        assert!(text.contains(first) && text.contains(second), "{text}");
    }
    assert!(!dir.join("db.yaml.TP.journal").exists());
    // An interrupted run's journal: refused without --resume, skipped with.
    std::fs::write(
        dir.join("db.yaml.TP.journal"),
        format!("{{\"llvmName\":\"{first}\",\"entry\":null}}\n"),
    )
    .unwrap();
    let both = |extra: &[&str]| {
        let mut args = vec![
            "-f",
            "2.0",
            "TP",
            "-i",
            first,
            second,
            "-o",
            db_arg,
            "--noReport",
        ];
        args.extend_from_slice(extra);
        winic(&args)
    };
    let o = both(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    let o = both(&["--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("TP: 1 forms"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("1 of 2 forms were done before"),
        "{}",
        stderr(&o)
    );
    // An unknown form is a usage error.
    let o = winic(&["TP", "-i", "NO_SUCH_FORM", "-o", db_arg]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One run per database: a second TP or LAT run on the file of a running
/// one fails at once (a usage error) naming it, and the first one's file
/// comes out whole; the lock file goes with the run.
#[test]
fn a_second_run_on_a_database_in_use_fails_at_once() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let lock = dir.join("db.yaml.lock");
    let (form, filter) = match host_arch() {
        "x86_64" => ("ADD64rr", "^IMUL"),
        "aarch64" => ("ADDXrs", "^MADD"),
        _ => ("ADD", "^MUL"),
    };
    let in_use = |o: &std::process::Output, pid: u32, mode: &str| {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        let e = stderr(o);
        assert!(
            e.contains(&format!(
                "{db_arg} is in use: winic {mode} (PID {pid}, since "
            )) && e.contains("another database with -o"),
            "{e}"
        );
        assert!(!e.contains("interrupted"), "{e}");
    };
    // The lock held by this process, through the library.
    let held = winic::lock::RunLock::acquire(&db, "TP").unwrap();
    let o = winic(&["-f", "2.0", "LAT", "-i", form, "-o", db_arg, "--noReport"]);
    in_use(&o, std::process::id(), "TP");
    assert!(!db.exists() && !dir.join("db.yaml.LAT.journal").exists());
    drop(held);
    assert!(!lock.exists());
    // A real TP run, stopped while it holds the lock: a LAT run and a
    // second TP run (which used to call the first's journal that of an
    // interrupted run) are refused.
    let mut first = winic_command(&[
        "-f",
        "2.0",
        "TP",
        "--filter",
        filter,
        "-o",
        db_arg,
        "--noReport",
    ])
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let pid = first.id();
    let start = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(&lock).unwrap_or_default();
        if text.starts_with(&format!("pid {pid}\n")) {
            kill(Pid::from_raw(pid as i32), Signal::SIGSTOP).unwrap();
            break;
        }
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first run ended before its lock was seen"
        );
        assert!(start.elapsed().as_secs() < 60, "no lock file");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let lat = winic(&["-f", "2.0", "LAT", "-i", form, "-o", db_arg, "--noReport"]);
    let tp = winic(&["-f", "2.0", "TP", "-i", form, "-o", db_arg, "--noReport"]);
    kill(Pid::from_raw(pid as i32), Signal::SIGCONT).unwrap();
    let o = first.wait_with_output().unwrap();
    in_use(&lat, pid, "TP");
    in_use(&tp, pid, "TP");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("TP: "), "{}", stdout(&o));
    let saved = winic::db::Database::load(&db).unwrap();
    if !emulated() {
        assert!(!saved.entries.is_empty(), "{}", stdout(&o));
    }
    assert!(!lock.exists());
    assert!(!dir.join("db.yaml.TP.journal").exists());
    assert!(!dir.join("db.yaml.LAT.journal").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tp_refuses_a_cpu_it_may_not_use() {
    let o = winic(&["TP", "--core", "100000", "-i", "NOP", "--noReport"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--core 100000") && e.contains("allowed: "),
        "{e}"
    );
}

/// A negative number is a value, refused by the option's own check with
/// the valid range (clap used to call it an unexpected argument).
#[test]
fn negative_numbers_get_the_valid_range() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["TP", "--core", "-1", "-i", "NOP", "--noReport"],
            &[
                "'-1' for '--core <N>'",
                "`-1` is no CPU number",
                "this process may use: ",
            ],
        ),
        (
            &["-f", "-3", "TP", "-i", "NOP", "--noReport"],
            &[
                "`-3` is no frequency: give GHz between 0.05 and 20",
                "or auto",
            ],
        ),
        (
            &["LAT", "--minOpcode", "-3", "--noReport"],
            &[
                "--minOpcode",
                "`-3` is no whole number from 0 to 4294967295",
            ],
        ),
        (
            &["emit", "-i", "ADD64rr", "--arch", "x86", "--unroll", "-2"],
            &["--unroll", "`-2` is no whole number from 1 to 100000"],
        ),
        (
            &["MAN", "-p", "k.s", "--funcName", "f", "-n", "-12"],
            &["--nInst", "`-12` is no whole number of at least 1"],
        ),
        (
            &["runcheck", "--timeout", "-5"],
            &["--timeout", "`-5` is no whole number from 1 to 3600"],
        ),
    ];
    for (args, wants) in cases {
        let o = winic(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
        for want in *wants {
            assert!(e.contains(want), "{args:?}: no {want:?} in {e}");
        }
    }
}

#[test]
fn tp_refuses_a_vector_type_that_does_not_exist() {
    let o = winic(&["TP", "--vtypes", "e8m1,e12m1", "-i", "NOP", "--noReport"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("'e12m1'") && e.contains("SEW 8, 16, 32 or 64") && e.contains("or all, or none"),
        "{e}"
    );
}

/// On RISC-V, TP measures vector forms at the vector types --vtypes names
/// too, each where it is defined, into vectorConfigs; elsewhere the option
/// changes nothing.
#[test]
fn tp_measures_rvv_forms_at_other_vector_types() {
    let riscv = std::env::consts::ARCH == "riscv64";
    let dir = std::env::temp_dir().join(format!("winic-vtypes-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    let forms: &[&str] = match host_arch() {
        "riscv64" => &["VADD_VV", "VWADD_VV"],
        "aarch64" => &["ADDXrs"],
        _ => &["ADD64rr"],
    };
    let mut args = vec!["-f", "2.0", "TP", "--noReport", "--vtypes", "e8m8,e16m4"];
    args.extend(["-o", db.to_str().unwrap(), "-i"]);
    args.extend(forms);
    let o = winic(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    if !riscv {
        // Elsewhere the option changes nothing: that is all there is to
        // test here; the vector types themselves run under qemu-riscv64.
        assert!(!text.contains("vectorConfigs"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
        skip("the vector types are RISC-V's: here only that --vtypes changes nothing");
        return;
    }
    let summary = String::from_utf8_lossy(&o.stdout).to_string();
    // VADD_VV at both, VWADD_VV only at e16 m4 (no widening at LMUL 8).
    assert!(
        summary.contains("RVV at 2 more vector types (vectorConfigs): ")
            && summary.contains(" of 3 tried; 1 not defined there")
            && summary.contains(
                "0 need a feature the host lacks at that type, 0 belong to forms skipped at e32 m1"
            ),
        "{summary}"
    );
    // Under qemu (WINIC_EMULATED) a value may fail as noise.
    if !summary.contains(": 3 (form, SEW, LMUL) measured") {
        assert!(emulated(), "{summary}");
        std::fs::remove_dir_all(&dir).unwrap();
        skip("the values at each vector type: under qemu a form may time only noise");
        return;
    }
    let entry = |name: &str| {
        let at = text.find(&format!("llvmName:        {name}\n")).unwrap();
        let rest = &text[at..];
        rest[..rest[1..].find("- llvmName").map_or(rest.len(), |e| e + 1)].to_string()
    };
    let vadd = entry("VADD_VV");
    assert!(
        vadd.contains(
            "    - sew:             8\n      lmul:            m8\n      throughput:      "
        ),
        "{vadd}"
    );
    assert!(
        vadd.contains("    - sew:             16\n      lmul:            m4\n"),
        "{vadd}"
    );
    let vwadd = entry("VWADD_VV");
    assert!(!vwadd.contains("lmul:            m8"), "{vwadd}");
    assert!(vwadd.contains("lmul:            m4"), "{vwadd}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// LAT merges sub-latencies into the database TP writes, keeps the
/// throughputs there, writes a report naming every chain with the command
/// to reproduce it, and resumes like TP.
#[test]
fn lat_adds_sub_latencies_to_the_database_and_reports_chains() {
    let arch = std::env::consts::ARCH;
    let dir = std::env::temp_dir().join(format!("winic-lat-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let forms: &[&str] = match arch {
        "x86_64" => &["ADD64rr", "BT64rr", "ADC64rr"],
        "aarch64" => &["ADDXrs", "FMOVXDr", "FMOVDXr"],
        _ => &["ADD", "FMV_X_D", "FMV_D_X"],
    };
    let emulated = emulated();
    let o = winic(&[
        "-f",
        "2.0",
        "TP",
        "-i",
        forms[0],
        "-o",
        db_arg,
        "--noReport",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut args = vec!["-f", "2.0", "LAT", "-i"];
    args.extend_from_slice(forms);
    args.extend_from_slice(&["-o", db_arg]);
    let o = winic_command(&args).current_dir(&dir).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("LAT: 3 forms"), "{out}");
    assert!(out.contains("exact"), "{out}");
    let text = std::fs::read_to_string(&db).unwrap();
    assert!(text.contains("sourceOperand:"), "{text}");
    if !emulated {
        // TP's value of the first form is still there.
        let e = text
            .split("- llvmName:")
            .find(|b| b.contains(forms[0]))
            .unwrap();
        assert!(!e.contains("throughputMax:   null"), "{e}");
        assert!(!e.contains("latency:         null"), "{e}");
    }
    let r = report_in(&dir, "LAT");
    assert!(r.contains("Mode: Latency"), "{r}");
    assert!(r.contains("reproduce: winic LAT -i"), "{r}");
    // A helper chain needs its helper pair measured; under qemu a pair's
    // time may come out as noise (not positive), leaving no helper.
    if !emulated {
        assert!(r.contains("Dependencies: "), "{r}");
    }
    assert!(!dir.join("db.yaml.LAT.journal").exists());
    // A LAT journal is LAT's own: TP does not see it.
    std::fs::write(
        dir.join("db.yaml.LAT.journal"),
        format!("{{\"llvmName\":\"{}\",\"entry\":null}}\n", forms[0]),
    )
    .unwrap();
    let o = winic(&[
        "-f",
        "2.0",
        "TP",
        "-i",
        forms[0],
        "-o",
        db_arg,
        "--noReport",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut args = vec!["-f", "2.0", "LAT", "--noReport", "-o", db_arg, "-i"];
    args.extend_from_slice(forms);
    let o = winic(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    args.push("--resume");
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("LAT: 2 forms"), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn host_prints_the_arch_its_features_and_their_source() {
    let o = winic(&["host"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("Arch: {}\n", host_arch())),
        "{text}"
    );
    for label in ["CPU: ", "Features: ", "Feature source: ", "Frequency: "] {
        assert!(text.contains(label), "no {label}in:\n{text}");
    }
    // Every arch's base is among the features, in LLVM's names.
    let base = match host_arch() {
        "x86_64" => "sse2",
        "aarch64" => "fp-armv8",
        _ => "64bit",
    };
    let features = text.lines().find(|l| l.starts_with("Features: ")).unwrap();
    assert!(features.split_whitespace().any(|f| f == base), "{features}");
}

/// Features no HWCAP reports (TME, CPA, ITE on AArch64) are probed: every
/// form needing one is measured or skipped with the probe named, none left
/// to die of SIGILL. On another arch these are no forms of it.
#[test]
#[cfg_attr(
    not(target_arch = "aarch64"),
    ignore = "the probed features are AArch64's (no HWCAP bits)"
)]
fn features_the_kernel_cannot_report_are_probed_before_anything_runs() {
    let dir = std::env::temp_dir().join(format!("winic-probe-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("db.yaml");
    let forms = [
        "ADDPT_shift",
        "MADDPT",
        "ADD_ZZZ_CPA",
        "TCANCEL",
        "TTEST",
        "TRCIT",
    ];
    let mut args = vec![
        "-f",
        "2.0",
        "TP",
        "--noReport",
        "-o",
        db.to_str().unwrap(),
        "-i",
    ];
    args.extend(forms);
    let o = winic(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary = stdout(&o);
    assert!(!summary.contains("SIGILL net"), "{summary}");
    // Six forms, each measured, failed as noise (under qemu) or skipped;
    // a skip for a feature comes from a probe that names its form.
    for line in summary
        .lines()
        .filter(|l| l.contains("which this CPU lacks"))
    {
        assert!(
            line.contains("(probe: ")
                && line.contains(" died of SIGILL; AT_HWCAP/AT_HWCAP2 cannot report it)"),
            "{line}"
        );
    }
    assert!(summary.contains("TP: 6 forms"), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The value of `field` in the entry of `form` in a database text.
fn entry_value(text: &str, form: &str, field: &str) -> Option<f64> {
    let start = text.find(&format!("llvmName:        {form}\n"))?;
    let rest = &text[start..];
    let end = rest[1..].find("- llvmName:").map_or(rest.len(), |e| e + 1);
    rest[..end]
        .lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().parse().ok())
}

/// x86 condition forms and branches to the next instruction are measured:
/// values present and physically possible (at most two taken branches a
/// cycle, a cmov no faster than its chain allows), and LAT says why a
/// branch has no latency.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn x86_condition_forms_and_branches_are_measured() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let dir = scratch("cond");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let o = winic(&[
        "TP",
        "-i",
        "CMOV64rr",
        "SETCCr",
        "JCC_1",
        "JMP_1",
        "-o",
        db_arg,
        "--noReport",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    let v = |form: &str, field: &str| {
        entry_value(&text, form, field).unwrap_or_else(|| panic!("{form} {field}: {text}"))
    };
    // On Zen 3 the twice-unrolled body of 12 jcc to the next instruction
    // took 4-5 times the body once in some runs (its branches outgrow the
    // predictor), and on Zen 4 a jump's body twice once took no longer
    // than once while a build ran beside it, and on another Zen 4 the
    // twice-unrolled body ran each jump faster than the body once by more
    // than a loop can take (the two kernels disagree on a copy): TP holds
    // such a value back (the faster kernel alone at most its upper bound),
    // and the jump's database entry has no `throughput`.
    let held: Vec<&str> = ["JCC_1", "JMP_1"]
        .into_iter()
        .filter(|f| entry_value(&text, f, "throughput").is_none())
        .collect();
    // A value held back with an upper bound still counts as measured.
    let bare = held
        .iter()
        .filter(|f| entry_value(&text, f, "throughputMax").is_none())
        .count();
    assert!(
        stdout(&o).contains(&format!("measured:   {}", 4 - bare)),
        "{}",
        stdout(&o)
    );
    if !held.is_empty() {
        assert!(stdout(&o).contains("held back"), "{}", stdout(&o));
        eprintln!("{held:?} held back on this core (the time did not grow with the body)");
    }
    for form in ["CMOV64rr", "SETCCr"] {
        assert!(v(form, "throughput") >= 0.1, "{form}: {text}");
    }
    // Taken: at most two a cycle. JCC_1's range: not taken to taken.
    if !held.contains(&"JMP_1") {
        assert!(v("JMP_1", "throughput") >= 0.45, "{text}");
    }
    if !held.contains(&"JCC_1") {
        assert!(v("JCC_1", "throughputMax") >= 0.45, "{text}");
        assert!(
            v("JCC_1", "throughputMin") <= v("JCC_1", "throughputMax"),
            "{text}"
        );
    }
    let o = winic(&[
        "LAT",
        "-i",
        "CMOV64rr",
        "JCC_1",
        "ADD64rr",
        "-o",
        db_arg,
        "--noReport",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("a branch: latency is not meaningful"),
        "{}",
        stdout(&o)
    );
    let text = std::fs::read_to_string(&db).unwrap();
    let lat = entry_value(&text, "CMOV64rr", "latency").unwrap_or_else(|| panic!("{text}"));
    assert!(lat >= 1.0, "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The `[latencyMin; latencyMax]` of `form`'s sub-latency `from` -> `to`
/// in database text `text`.
fn sub_latency(text: &str, form: &str, from: &str, to: &str) -> (f64, f64) {
    let start = text
        .find(&format!("llvmName:        {form}\n"))
        .unwrap_or_else(|| panic!("{form}: {text}"));
    let rest = &text[start..];
    // Operand indexes are quoted ('1'), implicit registers not (RAX).
    let quoted = |end: &str| {
        if end.bytes().all(|b| b.is_ascii_digit()) {
            format!("'{end}'")
        } else {
            end.to_string()
        }
    };
    let at = rest
        .find(&format!(
            "sourceOperand:   {}\n      targetOperand:   {}\n",
            quoted(from),
            quoted(to)
        ))
        .unwrap_or_else(|| panic!("{form} {from} -> {to}: {rest}"));
    let field = |name: &str| -> f64 {
        rest[at..]
            .lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{name}:")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap()
    };
    (field("latencyMin"), field("latencyMax"))
}

/// On every arch a store's data reaches its reload through memory: LAT
/// chains the store with the load of its bytes (x86 `mov`, AArch64 the
/// `ldr` of a `str`, RISC-V the `ld` of an `sd`) at one address, and
/// writes the store's share as `[0; lap]`. Natively on the host, under
/// qemu in the cross tests (where the lap's value means nothing, but the
/// chain runs).
#[test]
fn a_store_reaches_its_reload_through_memory_on_every_arch() {
    let (store, reload, from, to) = match std::env::consts::ARCH {
        "x86_64" => ("MOV64mr", "MOV64rm", "1", "0"),
        "aarch64" => ("STRXui", "LDRXui", "0", "1"),
        _ => ("SD", "LD", "0", "1"),
    };
    let dir = scratch("store-reload");
    let db = dir.join("db.yaml");
    let o = winic_command(&["-f", "2.0", "LAT", "-i", store, "-o", db.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    let (lo, hi) = sub_latency(&text, store, from, to);
    assert!(lo == 0.0 && hi > 0.0, "{store} [{lo};{hi}]");
    let report = report_in(&dir, "LAT");
    assert!(report.contains(&format!("reload ({reload})")), "{report}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A store of fewer bytes than its register holds (`vextracti128 [m],
/// ymm, imm`: 16 of 32) is read back into the register's xmm part, which
/// the next store reads as part of its ymm. LAT used to find no reload
/// for it; and a reload the host cannot run (`vmovw`, AVX512-FP16, for
/// `vpextrw [m], xmm`) must not be chosen: it was a SIGILL.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "x86 stores of part of a vector register"
)]
fn a_partial_vector_store_reaches_its_reload_through_memory() {
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx2") {
        skip("vextracti128 needs AVX2, which this host lacks");
        return;
    }
    let dir = scratch("partial-store");
    let db = dir.join("db.yaml");
    let mut args = vec!["-f", "2.0", "LAT", "-o", db.to_str().unwrap(), "-i"];
    args.push("VEXTRACTI128mr");
    #[cfg(target_arch = "x86_64")]
    let fp16 = std::arch::is_x86_feature_detected!("avx512fp16");
    #[cfg(not(target_arch = "x86_64"))]
    let fp16 = false;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw") {
        args.push("VPEXTRWZmr");
    }
    let o = winic_command(&args).current_dir(&dir).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    let (lo, hi) = sub_latency(&text, "VEXTRACTI128mr", "1", "0");
    assert!(lo == 0.0 && hi > 0.0, "VEXTRACTI128mr [{lo};{hi}]");
    let report = report_in(&dir, "LAT");
    assert!(report.contains("reload (VMOV"), "{report}");
    assert!(!report.contains("SIGILL"), "{report}");
    if args.contains(&"VPEXTRWZmr") && !fp16 {
        assert!(
            report.contains("VPEXTRWZmr(1 -> 0) [FAILED: no load reads the stored bytes back"),
            "{report}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Integer divisions run (they were skipped for a divide error): by a
/// divisor of 1 with the high half 0, a chain of them keeps its values,
/// so neither TP's chain nor LAT's (whose breaker of rdx writes 0, not
/// its own immediate) faults. A division takes several cycles on every
/// core: the quotient's path is no faster than 3 cycles and no slower
/// than 100, and TP's value (an upper bound: rax and rdx chain every
/// division to the one before) is at least it.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn integer_divisions_run_and_take_several_cycles() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let dir = scratch("div");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    for mode in ["TP", "LAT"] {
        let o = winic(&[mode, "-o", db_arg, "--noReport", "-i", "DIV64r", "IDIV8r"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stdout(&o).contains("SIGFPE"), "{}", stdout(&o));
    }
    let text = std::fs::read_to_string(&db).unwrap();
    let (lo, hi) = sub_latency(&text, "DIV64r", "RAX", "RAX");
    assert!(
        lo == hi && (3.0..100.0).contains(&lo),
        "DIV64r rax -> rax [{lo};{hi}]"
    );
    let (lo, hi) = sub_latency(&text, "IDIV8r", "AX", "AL");
    assert!(
        lo == hi && (3.0..100.0).contains(&lo),
        "IDIV8r ax -> al [{lo};{hi}]"
    );
    let tp = entry_value(&text, "DIV64r", "throughputMax")
        .unwrap_or_else(|| panic!("DIV64r throughputMax: {text}"));
    assert!((3.0..100.0).contains(&tp), "DIV64r TP {tp}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Absolute addresses (`moffs`) run against the data area like `[base]`:
/// a load no faster than four a cycle, a store no faster than two, with
/// a 64-bit address and a 32-bit one (the address-size prefix). A load
/// whose kernels ran in different states (0.22 once in the zen5 guest's
/// debug CI, beside the other tests) is held to the general-purpose
/// loads' floor: then its upper bound, the faster kernel alone, counts.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn absolute_addresses_are_measured_in_the_data_area() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let dir = scratch("moffs");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let forms = ["MOV64ao64", "MOV32ao32", "MOV64o64a", "MOV32o32a"];
    let mut args = vec!["TP", "-o", db_arg, "--noReport", "-i"];
    args.extend(forms);
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    for (form, floor) in forms.iter().zip([0.24, 0.24, 0.45, 0.45]) {
        let tp = entry_value(&text, form, "throughput")
            .or_else(|| entry_value(&text, form, "throughputMax"))
            .unwrap_or_else(|| panic!("{form}: {}\n{text}", stdout(&o)));
        assert!((floor..20.0).contains(&tp), "{form} {tp}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Memory forms run against the data area and give values a core can
/// have: no core loads more than 4 or stores more than 2 per cycle, and
/// no load returns its data sooner than 3 cycles after its address.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn x86_memory_forms_are_measured_within_what_a_core_can_do() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let forms = [
        "MOV64rm", "MOV64mr", "ADD64rm", "ADD64mr", "LEA64r", "MOVUPSmr",
    ];
    // In its own directory, so that the report is this run's. A value
    // TP holds back under the core's floor is noise it caught (the other
    // CLI tests run beside this one: on the zen5 guest's CI two forms
    // were held back once, in none of 8 runs alone); such a run is taken
    // once more after a pause, and the second must measure all six.
    let attempt = |name: &str| {
        let dir = scratch(name);
        let db = dir.join("db.yaml");
        let o =
            winic_command(&[&["TP", "-o", db.to_str().unwrap(), "-i"][..], &forms[..]].concat())
                .current_dir(&dir)
                .output()
                .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        (dir, db, o)
    };
    let (mut dir, mut db, mut o) = attempt("mem");
    if stdout(&o).contains("held back: below the fastest rate") {
        eprintln!("held back under the floor, measured again:\n{}", stdout(&o));
        std::thread::sleep(std::time::Duration::from_secs(5));
        (dir, db, o) = attempt("mem-again");
    }
    let db_arg = db.to_str().unwrap();
    assert!(stdout(&o).contains("measured:   6"), "{}", stdout(&o));
    // The report says where the accesses go.
    let text = report_in(&dir, "TP");
    assert!(text.contains("memory: the bases hold 0x40000000"), "{text}");
    // Forms that write memory ran at four places of their loop, and the
    // run's floor names the stores' rate; loads ran at one place.
    // A form's last block: a pass that measured it again wrote another.
    let block = |form: &str| {
        let header = format!("-----{form}-----");
        let start = text
            .rfind(&header)
            .unwrap_or_else(|| panic!("{form}: {text}"));
        let rest = &text[start + header.len()..];
        rest[..rest.find("-----").unwrap_or(rest.len())].to_string()
    };
    let places = "places: each kernel's loop 0, 16, 32, 48 bytes further";
    for form in ["MOV64mr", "ADD64mr", "MOVUPSmr"] {
        assert!(block(form).contains(places), "{form}: {}", block(form));
    }
    for form in ["MOV64rm", "ADD64rm", "LEA64r"] {
        assert!(!block(form).contains("places:"), "{form}: {}", block(form));
    }
    assert!(
        text.contains("forms that store, more than 10% below"),
        "{text}"
    );
    let mut args = vec!["LAT", "-o", db_arg, "--noReport", "-i"];
    args.extend(forms);
    // The way back of the load-op forms' address chains, an extending
    // load, and a form that loads and stores one word and writes a
    // register (`xadd [m], r`).
    args.extend(["ADD64rr", "AND64ri8", "MOVZX32rm8", "XADD64rm"]);
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    let v = |form: &str, field: &str| {
        entry_value(&text, form, field).unwrap_or_else(|| panic!("{form} {field}: {text}"))
    };
    assert!(v("MOV64rm", "throughput") >= 0.24, "{text}");
    assert!(v("ADD64rm", "throughput") >= 0.24, "{text}");
    assert!(v("MOV64mr", "throughput") >= 0.45, "{text}");
    assert!(v("MOVUPSmr", "throughput") >= 0.45, "{text}");
    // A read-modify-write stores too: on the zen5 guest its first pair
    // (24 and 32 copies) came out 0.39, its second (32 and 40) 0.52.
    assert!(v("ADD64mr", "throughput") >= 0.45, "{text}");
    assert!(v("LEA64r", "throughput") >= 0.16, "{text}");
    // Load-to-use through the pointer chase, and lea's one cycle or more.
    assert!(v("MOV64rm", "latency") >= 3.0, "{text}");
    assert!(v("LEA64r", "latency") >= 1.0, "{text}");
    assert!(v("ADD64rm", "latency") >= 1.0, "{text}");
    // Through memory: a store's data -> memory is at most its lap with
    // the reload, [0; lap], and the lap is no faster than two stores a
    // cycle; add's memory -> memory is a store-to-load round trip.
    let sub = |form: &str, from: &str, to: &str| sub_latency(&text, form, from, to);
    let (lo, hi) = sub("MOV64mr", "1", "0");
    assert!(
        lo == 0.0 && (0.45..40.0).contains(&hi),
        "MOV64mr [{lo};{hi}]"
    );
    // Address -> result of a load-op form: the load and the add, so at
    // least the plain load's load-to-use and at most a trip to the L2;
    // exact (the way back is two one-cycle steps measured in the run).
    // `latency` stays the register path; an extending load, which has no
    // other, takes its address path.
    let (load, _) = sub("MOV64rm", "1", "0");
    let (lo, hi) = sub("ADD64rm", "1", "0");
    assert!(
        lo == hi && lo >= load && lo < 20.0,
        "ADD64rm address -> result [{lo};{hi}], load {load}"
    );
    assert_eq!(
        v("ADD64rm", "latency"),
        sub("ADD64rm", "0", "0").0,
        "{text}"
    );
    // `xadd`'s address -> result: its chase gives each lap a line of its
    // own, so its load waits on no store (on one address the lap was the
    // 8-cycle round trip; zen5: 5 where the plain load takes 4).
    let (lo, hi) = sub("XADD64rm", "1", "0");
    assert!(
        lo == hi && lo >= load && lo < 40.0,
        "XADD64rm address -> result [{lo};{hi}], load {load}"
    );
    // The same path built another way (tests/fixtures/chase-add.s: each
    // add returns the address it read, no way back): within a quarter
    // cycle of LAT's.
    let chase = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chase-add.s");
    // Other tenants and the tests beside this one upset single runs (CI
    // once saw 5.33 against 5, and once 2.525 then 5.216: a clock taken
    // in a slow moment halves the cycles): one of up to three runs within
    // a quarter cycle is the chase's time, and a chase that is really
    // another length fails all three.
    // LAT's side is one run too, as open to the same upsets (the zen5
    // guest's CI once had LAT 4 beside MAN 4.84-5.11, where LAT alone
    // gives 5 in five runs of five): on a miss, LAT runs the chain again.
    let mut lats = vec![sub("ADD64rm", "1", "0").0];
    let mut seen = Vec::new();
    let agree = |seen: &[f64], lats: &[f64]| {
        seen.iter()
            .any(|man| lats.iter().any(|lat| (man - lat).abs() <= 0.25))
    };
    for round in 0..3 {
        let o = winic(&["MAN", "-p", chase, "--funcName", "chase_add", "-n", "8"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let man: f64 = stdout(&o)
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{}", stdout(&o)));
        seen.push(man);
        if agree(&seen, &lats) {
            break;
        }
        if round > 0 {
            let forms = ["ADD64rm", "MOV64rm", "ADD64rr", "AND64ri8"];
            let text = lat_run(&format!("mem-lat-{round}"), &forms);
            lats.push(sub_latency(&text, "ADD64rm", "1", "0").0);
        }
    }
    assert!(agree(&seen, &lats), "MAN chase {seen:?}, LAT {lats:?}");
    let (lo, hi) = sub("MOVZX32rm8", "1", "0");
    assert!(
        lo == hi && (3.0..20.0).contains(&lo),
        "MOVZX32rm8 [{lo};{hi}]"
    );
    assert_eq!(v("MOVZX32rm8", "latency"), lo, "{text}");
    // Without the way back in the run, the summary says what to add.
    let o = winic(&["LAT", "-i", "ADD64rm", "--noReport", "-o", db_arg]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("measure them in the same run (winic LAT -i ... AND64ri8 ADD64rr)"),
        "{}",
        stdout(&o)
    );
    // Zen 3 renames some store-to-load pairs at one address, and its
    // chains of `add [m], r` ran at 4.5, 6 or 7.5 cycles from one run to
    // the next (the solver then gives a range): a value, at least an
    // add's cycle and within a round trip through the L1, not 7.
    let (lo, hi) = sub("ADD64mr", "0", "0");
    assert!(
        lo <= hi && (1.0..40.0).contains(&hi),
        "ADD64mr memory -> memory [{lo};{hi}]"
    );
    // The memory operand is in `operands`, with its parts.
    assert!(
        text.contains(
            "class:           memory\n      name:            i64mem\n      base:            gpr"
        ),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `winic ports`: each form alone and every pair in a balanced mix, with
/// the verdict; on hardware the mix takes at least about the slower
/// form's copies of it alone (no mix runs faster than its slowest part). Fewer than two forms,
/// or an unknown one, is refused with the reason.
#[test]
fn ports_measures_every_pair_against_each_form_alone() {
    let arch = host_arch();
    // Without -o the run's raw file goes to the working directory.
    let work = std::env::temp_dir().join(format!("winic-ports-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let winic = |args: &[&str]| winic_command(args).current_dir(&work).output().unwrap();
    let forms: [&str; 3] = match arch {
        "x86_64" => ["ADD64rr", "IMUL64rr", "SHL64ri"],
        "aarch64" => ["ADDXrs", "MADDXrrr", "LSLVXr"],
        _ => ["ADD", "MUL", "SLLI"],
    };
    let emulated = emulated();
    let mut args = vec!["-f", "2.0", "ports", "--held-back", "1", "-i"];
    args.extend(forms);
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("alone (cycles per instruction):"), "{out}");
    // Where the fit maps all three forms, the one mix of three it did not
    // see is measured and predicted. Under a fixed clock (-f 2.0) the times
    // are scaled and rarely 1/N, so on hardware it runs again on the
    // measured clock.
    let measured_clock = if emulated {
        out.clone()
    } else {
        let mut args = vec!["ports", "--held-back", "1", "-i"];
        args.extend(forms);
        let o = winic(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    if !measured_clock.contains("a port mapping of the 3 forms") {
        eprintln!("held-back mix not checked: the fit did not map all 3 forms:\n{measured_clock}");
    } else {
        let out = &measured_clock;
        let held = out
            .lines()
            .skip_while(|l| !l.starts_with("held-back mixes of three forms"))
            .take(2)
            .collect::<Vec<_>>();
        // The one mix is counted, or listed as bound by a part's chain.
        assert!(
            held.len() == 2
                && (held[0].contains(" of 1 predicted within 10%")
                    || held[0].contains("0 of 0 predicted within 10% (1 more bound")),
            "{out}"
        );
        assert_eq!(held[1].matches(" + ").count(), 2, "{out}");
    }
    let number = |s: &str| s.trim_end_matches('%').parse::<f64>().ok();
    let alone: Vec<f64> = forms
        .iter()
        .map(|f| {
            let line = out
                .lines()
                .find(|l| l.split_whitespace().next() == Some(f))
                .unwrap_or_else(|| panic!("{f} alone: {out}"));
            number(line.split_whitespace().nth(1).unwrap()).unwrap_or(f64::NAN)
        })
        .collect();
    for (x, a) in forms.iter().enumerate() {
        for (y, b) in forms.iter().enumerate().skip(x + 1) {
            // A form without a time alone (noise, under qemu beside other
            // tests) is paired with none: its line says why.
            if alone[x].is_nan() || alone[y].is_nan() {
                eprintln!("{a} + {b} not checked: a form has no time alone:\n{out}");
                continue;
            }
            // Forms are measured in LLVM's order, whatever the order given.
            let (pair, line) = [format!("{a} + {b}"), format!("{b} + {a}")]
                .into_iter()
                .find_map(|p| {
                    let l = out.lines().find(|l| l.trim_start().starts_with(&p))?;
                    Some((p, l))
                })
                .unwrap_or_else(|| panic!("{a} + {b}: {out}"));
            if emulated {
                continue;
            }
            // After the name: the mix, its cycles per unit, and the slower
            // form's copies of it alone.
            let fields: Vec<f64> = line[line.find(&pair).unwrap() + pair.len()..]
                .split_whitespace()
                .skip(1)
                .take(2)
                .map(|f| number(f).unwrap_or_else(|| panic!("{line}")))
                .collect();
            let (together, slower) = (fields[0], fields[1]);
            // The mix balances the two: each form's copies alone take
            // about as long.
            let mix = line[line.find(&pair).unwrap() + pair.len()..]
                .split_whitespace()
                .next()
                .and_then(|m| m.split_once(':'))
                .and_then(|(p, q)| Some((p.parse::<f64>().ok()?, q.parse::<f64>().ok()?)))
                .unwrap_or_else(|| panic!("{line}"));
            let (first, second) = if pair.starts_with(a) { (x, y) } else { (y, x) };
            let (ta, tb) = (mix.0 * alone[first], mix.1 * alone[second]);
            assert!(
                ta.max(tb) <= 1.5 * ta.min(tb),
                "{pair} mix unbalanced: {line}"
            );
            assert!(
                together >= 0.8 * slower,
                "{pair} together {together} below the slower alone {slower}: {out}"
            );
            assert!(
                ["independent", "partly shared", "the same resources"]
                    .iter()
                    .any(|v| line.contains(v)),
                "{line}"
            );
        }
    }
    let o = winic(&["-f", "2.0", "ports", "-i", forms[0]]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("at least 2 forms; 1 selected"),
        "{}",
        stderr(&o)
    );
    let o = winic(&["-f", "2.0", "ports", "-i", forms[0], "NO_SUCH_FORM"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("NO_SUCH_FORM"), "{}", stderr(&o));
    // A refused run leaves no raw file (the runs above left one).
    std::fs::remove_file(work.join("ports.raw")).unwrap();
    let o = winic(&["-f", "2.0", "ports", "-i", forms[0]]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        !work.join("ports.raw").exists(),
        "a refused run wrote ports.raw"
    );

    // --compare: how the fit agrees with an OSACA machine file of x86
    // (ADD64rr on 4 ports, IMUL64rr on 1); a missing file is refused,
    // and on another arch the file's ISA.
    let dir = std::env::temp_dir().join(format!("winic-ports-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("core.yml");
    std::fs::write(
        &model,
        "osaca_version: 0.7.1\nmicro_architecture: Test\narch_code: TEST\nisa: x86\n\
         ports: ['0', '1', '5', '6']\ninstruction_forms:\n\
         - name: add\n  operands:\n  - {class: register, name: gpr}\n  - {class: register, name: gpr}\n  \
         throughput: 0.25\n  latency: 1\n  port_pressure: [[1, '0156']]\n\
         - name: imul\n  operands:\n  - {class: register, name: gpr}\n  - {class: register, name: gpr}\n  \
         throughput: 1\n  latency: 3\n  port_pressure: [[1, '1']]\n",
    )
    .unwrap();
    // A second file (LLVM's model, say) is compared too.
    let second = dir.join("core-llvm.yml");
    std::fs::copy(&model, &second).unwrap();
    let (model_arg, second_arg) = (model.to_str().unwrap(), second.to_str().unwrap());
    let compare = |files: &[&str]| {
        let mut args = vec!["-f", "2.0", "ports", "-i", forms[0], forms[1]];
        for f in files {
            args.extend(["--compare", f]);
        }
        winic(&args)
    };
    let o = compare(&[model_arg, second_arg]);
    if arch == "x86_64" {
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        for file in [model_arg, second_arg] {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("against {file}")))
                .unwrap_or_else(|| panic!("no agreement with {file}: {out}"));
            // Both forms are compared where the fit maps both; the counts
            // are what the measurement gives, so only their shape is
            // checked.
            assert!(
                line.contains(" forms both describe as one micro-op") || line.contains("no form"),
                "{line}"
            );
        }
    } else {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("--compare"), "{}", stderr(&o));
    }
    let missing = dir.join("missing.yml");
    // A bad second file is refused too (elsewhere the first one's ISA
    // would be).
    let files = match arch {
        "x86_64" => vec![model_arg, missing.to_str().unwrap()],
        _ => vec![missing.to_str().unwrap()],
    };
    let o = compare(&files);
    assert!(!o.status.success(), "{}", stderr(&o));
    // Refused before anything is measured: no progress was shown.
    assert!(!stderr(&o).contains("ETA"), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.yml"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&work).ok();
}

/// `winic ports` with the plain loads and stores also times each aligned,
/// with every access across two cache lines, and as a stream half an
/// access off alignment, and writes the two costs into the database;
/// `winic analyse` of its raw file writes the same database. A split
/// access is never cheaper than an aligned one. x86 only: AArch64's and
/// RISC-V's immediate offsets cannot reach a split address.
#[test]
fn ports_times_loads_and_stores_across_cache_lines() {
    if host_arch() != "x86_64" {
        skip("the line-split experiment runs on x86 only");
        return;
    }
    let dir = common::Scratch::new("split");
    let forms = ["MOV64rm", "MOV64mr", "MOVUPSrm", "MOVUPSmr"];
    let mut args = vec!["-f", "2.0", "ports", "-o", "db.yaml", "-i"];
    args.extend(forms);
    let run = |args: &[&str]| {
        winic_command(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("line splits (cycles an access"), "{out}");
    let db = winic::db::Database::load(dir.join("db.yaml")).unwrap();
    let mut measured = 0;
    for name in forms {
        let e = db.get(name).unwrap_or_else(|| panic!("{name} not written"));
        // Beside another tenant a placement can come out faster than
        // aligned, which no access can be: held back, said, not written.
        let held = format!("{name}: not measured: held back: ");
        if let Some(l) = out.lines().find(|l| l.trim_start().starts_with(&held)) {
            assert!(l.contains("faster than aligned"), "{l}");
            assert!(e.line_split_throughput.is_none(), "{name}: {l}");
            continue;
        }
        measured += 1;
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} (")))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"));
        let split = e
            .line_split_throughput
            .unwrap_or_else(|| panic!("{name}: {line}"));
        let stream = e
            .misaligned_throughput
            .unwrap_or_else(|| panic!("{name}: {line}"));
        let aligned: f64 = line
            .split("aligned ")
            .nth(1)
            .and_then(|r| r.split(',').next()?.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(aligned > 0.0, "{line}");
        // Noise may make either a little faster; a split costs at least
        // the aligned access's work: more than 10% faster is held back
        // (0.88: both figures rounded to two decimals).
        assert!(
            split >= 0.88 * aligned && stream >= 0.88 * aligned,
            "{line}"
        );
        assert!(split < 1e3 && stream < 1e3, "{line}");
    }
    assert!(measured > 0, "every form held back: {out}");
    a_replay_writes_the_same_database(&dir);
}

/// `winic ports` runs each load and store whose register form it places
/// beside copies of that register form and writes whether the form is
/// its access alone (`accessAlone`); `winic analyse` of the raw file
/// writes the same database. `pmovzxbw xmm, [m]` and `vpabsd ymm, [m]`
/// do their register form's work on every x86 core (a shuffle or an ALU
/// micro-op beside the load), SSE `movsd xmm, [m]` does not (it clears
/// the upper half its register form blends into): wherever the mix
/// decides, it decides so. x86 only.
#[test]
fn ports_finds_whether_a_load_does_its_register_forms_work() {
    if host_arch() != "x86_64" {
        skip("the register forms of memory forms are named on x86 only");
        return;
    }
    let dir = common::Scratch::new("operation");
    // VEX forms only: legacy SSE beside VEX is not mixed.
    let forms = [
        "MOV64rm",
        "MOV64mr",
        "VMOVSDrr",
        "VMOVSDrm",
        "VPMOVZXBWYrr",
        "VPMOVZXBWYrm",
        "VADDPDYrr",
        "VPABSDYrr",
        "VPABSDYrm",
    ];
    let mut args = vec!["-f", "2.0", "ports", "-o", "db.yaml", "-i"];
    args.extend(forms);
    let o = winic_command(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let Some(line) = out
        .lines()
        .find(|l| l.starts_with("memory forms beside their register form"))
    else {
        // Without a fitted mapping nothing is placed: said, not tested.
        assert!(!out.contains("inferred ports of"), "{out}");
        skip("the fit placed no register form of these");
        return;
    };
    let db = winic::db::Database::load(dir.join("db.yaml")).unwrap();
    let alone = |name: &str| db.get(name).and_then(|e| e.access_alone);
    let decided: Vec<&str> = forms.into_iter().filter(|f| alone(f).is_some()).collect();
    // The database holds what the report counts.
    assert!(
        line.contains(&format!(" {} decided (", decided.len())),
        "{decided:?}: {line}"
    );
    for (name, expected) in [
        ("VPMOVZXBWYrm", false),
        ("VPABSDYrm", false),
        ("VMOVSDrm", true),
    ] {
        if let Some(a) = alone(name) {
            assert_eq!(a, expected, "{name}: {line}\n{out}");
        }
    }
    assert!(
        alone("VADDPDYrr").is_none() && alone("MOV64rm").is_none(),
        "{out}"
    );
    if decided.is_empty() {
        // The pairs' fit varies with the moment (a small selection, a
        // loaded host): said, not passed silently.
        skip(format!("no memory form decided this time: {line}"));
    }
    a_replay_writes_the_same_database(&dir);
}

/// `winic ports` with `movs` and `stos` forms also times each with a
/// `rep` prefix over 64 to 8,192 bytes (what `memcpy` and `memset` run),
/// prints a line per form and writes the cycles into the database, as
/// `winic analyse` of the raw file does again. More bytes never take
/// fewer cycles beyond noise, and no core moves more than 256 bytes a
/// cycle. x86 only.
#[test]
fn ports_times_repeated_string_operations_by_size() {
    if host_arch() != "x86_64" {
        skip("rep movsb and rep stosq are x86");
        return;
    }
    let dir = common::Scratch::new("repeat");
    let run = |args: &[&str]| {
        winic_command(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let o = run(&[
        "-f", "2.0", "ports", "-o", "db.yaml", "-i", "MOVSB", "STOSQ",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("repeated string operations (rep;"), "{out}");
    assert!(out.contains("the repeated (rep) costs of 2"), "{out}");
    let db = winic::db::Database::load(dir.join("db.yaml")).unwrap();
    for name in ["MOVSB", "STOSQ"] {
        assert!(out.contains(&format!("  rep {name}: ")), "{name}: {out}");
        let e = db.get(name).unwrap_or_else(|| panic!("{name} not written"));
        let sizes: Vec<u32> = e.repeated.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, [64, 256, 1024, 4096, 8192], "{name}");
        let (small, large) = (e.repeated[0].cycles, e.repeated[4].cycles);
        assert!(
            small >= 1.0 && large >= 8192.0 / 256.0,
            "{name}: {:?}",
            e.repeated
        );
        assert!(large > small, "{name}: {:?}", e.repeated);
    }
    a_replay_writes_the_same_database(&dir);
}

/// `winic compare A B`: the same database twice differs nowhere (exit
/// 0); a form moved beyond the threshold is listed and gives exit 1,
/// unless --allow lets it pass; a missing file, a database of another
/// arch and a bad threshold are refused by name (exit 2).
#[test]
fn compare_lists_forms_that_differ_and_fails_beyond_what_is_allowed() {
    let dir = common::Scratch::new("compare");
    let entry = |name: &str, tp: f64| {
        format!(
            "- llvmName: {name}\n  name: x\n  operands: []\n  latency: 1\n  \
             operandLatencies: []\n  throughput: {tp}\n  throughputMin: {tp}\n  \
             throughputMax: {tp}\n"
        )
    };
    let write = |file: &str, entries: &[String]| {
        let path = dir.join(file);
        std::fs::write(&path, format!("---\n{}...\n", entries.concat())).unwrap();
        path.display().to_string()
    };
    let a = write("a.yaml", &[entry("ADD64rr", 0.25), entry("IMUL64rr", 1.0)]);
    let b = write("b.yaml", &[entry("ADD64rr", 0.25), entry("IMUL64rr", 2.0)]);
    let rv = write("rv.yaml", &[entry("ADDW", 0.5)]);
    let o = winic(&["compare", &a, &a]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2 in both, 0 only in A, 0 only in B"),
        "{}",
        stdout(&o)
    );
    let o = winic(&["compare", &a, &b]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("IMUL64rr  throughput") && out.contains("+100.0%"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("1 forms differ by more than 10%"),
        "{}",
        stderr(&o)
    );
    assert!(winic(&["compare", &a, &b, "--allow", "1"]).status.success());
    assert!(winic(&["compare", &a, &b, "--threshold", "150"])
        .status
        .success());
    let missing = dir.join("none.yaml").display().to_string();
    let o = winic(&["compare", &a, &missing]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("none.yaml: no such database file"),
        "{}",
        stderr(&o)
    );
    let o = winic(&["compare", &a, &rv]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("holds x86_64 forms and"),
        "{}",
        stderr(&o)
    );
    let o = winic(&["compare", &a, &b, "--threshold", "-5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`-5` is no whole number"),
        "{}",
        stderr(&o)
    );
}

/// More than 64 forms make a full run: every form alone, a seed in every
/// pair, probes, and every other single-micro-op form placed in a class;
/// every placed form is listed in exactly one class. Under a fixed clock
/// (qemu) times are rarely 1/N and little may be placed: then the run
/// still ends with its summary. With -o, every placed form's ports go
/// into the database, whose other values stay, and an earlier run's ports
/// go. A seed below 3 is refused.
#[test]
fn ports_full_run_places_forms_in_classes() {
    let filter = match host_arch() {
        "x86_64" => "^(ADD|SUB|AND|OR|XOR)(8|16|32|64)r",
        "aarch64" => {
            "^(ADD|SUB|AND|ORR|EOR|BIC|ORN|EON|MADD|MSUB|CSEL|CSINC|CSNEG|CSINV|LSLV|LSRV|ASRV|\
             RORV|UBFM|SBFM|EXTR|CLZ|RBIT|REV|CCMP|CCMN|SDIV|UDIV)[WX]"
        }
        _ => "^(ADD|SUB|AND|OR|XOR|SLL|SRL|SRA|MUL|SLT|SH[123]ADD|C_|MIN|MAX|ROL|ROR|CLZ|CTZ|CPOP)",
    };
    // A database with a form outside the filter, measured, with ports of
    // an earlier run.
    let other = match host_arch() {
        "x86_64" => "IMUL64rr",
        "aarch64" => "FADDDrr",
        _ => "DIV",
    };
    let dir = std::env::temp_dir().join(format!("winic-ports-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db_path = dir.join("db.yaml");
    std::fs::write(
        &db_path,
        format!(
            "---\n- llvmName: {other}\n  name: x\n  operands: []\n  latency: 3\n  \
             operandLatencies: []\n  throughput: 1\n  throughputMin: 1\n  throughputMax: 1\n  \
             inferredPorts:\n    - cycles: 1\n      ports: [ '9' ]\n...\n"
        ),
    )
    .unwrap();
    let db_arg = db_path.display().to_string();
    let emulated = emulated();
    let mut args = vec!["ports", "--seed", "6", "--filter", filter, "-o", &db_arg];
    if emulated {
        args.splice(0..0, ["-f", "1"]);
    }
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let db = winic::db::Database::load(&db_path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let first = out.lines().next().unwrap_or_default();
    let forms: usize = first
        .strip_prefix("every form alone: ")
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(forms > 64, "{out}");
    if out.contains("fitted no port mapping") {
        assert!(out.contains("left as it was"), "{out}");
        assert_eq!(db.entries.len(), 1, "{db:?}");
        let why = format!(
            "the placement step: the seed fitted no port mapping (clock fixed or noisy): {}",
            out.lines().next().unwrap_or_default()
        );
        skip(why);
        return;
    }
    assert!(out.contains("\nprobes ("), "{out}");
    // Each class line `  {ports}  N forms (...)`, then its mixes, then
    // its forms, indented by 6; every form in one class only.
    let mut listed: Vec<&str> = Vec::new();
    let mut said = 0;
    let mut in_classes = false;
    let mut class = "";
    for line in out.lines() {
        if line.starts_with("classes: ") {
            in_classes = true;
        } else if in_classes && !line.starts_with("  ") {
            break;
        } else if in_classes && line.starts_with("  {") {
            let n = line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse::<usize>().ok());
            said += n.unwrap_or_else(|| panic!("{line}"));
            class = line.split_whitespace().next().unwrap();
        } else if in_classes && line.starts_with("      ") {
            // Each form of the class has the class's ports in the database.
            for form in line.split_whitespace() {
                let e = db
                    .get(form)
                    .unwrap_or_else(|| panic!("{form} not written: {out}"));
                let ports = e.inferred_ports.first().map(|u| u.ports.join(","));
                assert_eq!(
                    ports.map(|p| format!("{{{p}}}")).as_deref(),
                    Some(class),
                    "{form}"
                );
            }
            listed.extend(line.split_whitespace());
        }
    }
    let old = db.get(other).unwrap();
    assert_eq!(
        (old.throughput, old.latency),
        (Some(1.0), Some(3.0)),
        "{old:?}"
    );
    assert!(old.inferred_ports.is_empty(), "{old:?}");
    assert!(
        out.contains(&format!(
            "into {db_arg} (1 form lost the ports of an earlier run)"
        )),
        "{out}"
    );
    assert!(
        said > 0 && said == listed.len(),
        "{said} said, {}: {out}",
        listed.len()
    );
    let mut unique = listed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), listed.len(), "a form in two classes: {out}");
    // A seed too small to fit anything is refused, naming the range.
    let o = winic(&["ports", "--seed", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("3"), "{}", stderr(&o));
}

/// A file without end (`/dev/zero`: no size to check first) given where
/// winic reads someone else's file is refused once its bound is read,
/// naming the file and the bound, exit 2: a report, a database, a raw
/// file, an OSACA base file.
#[test]
fn an_endless_input_file_is_refused_at_its_bound() {
    let zero = "/dev/zero";
    if !std::path::Path::new(zero).exists() {
        return skip("no /dev/zero here");
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("endless-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("one.yaml");
    std::fs::write(
        &db,
        "---\n- llvmName: ADD64rr\n  name: add\n  operands: []\n  latency: 1\n  \
         operandLatencies: []\n  throughput: 0.25\n  throughputMin: 0.25\n  throughputMax: 0.25\n...\n",
    )
    .unwrap();
    let db = db.display().to_string();
    let page = dir.join("page").display().to_string();
    for (args, said) in [
        (
            vec!["html", &db, "--report", zero, "-o", &page],
            "report /dev/zero: more than the 128 MiB a report may have",
        ),
        (
            vec![
                "export",
                "--osaca",
                zero,
                "--arch",
                "x86_64",
                "-o",
                "/dev/null",
            ],
            "/dev/zero: more than the 64 MiB a database may have",
        ),
        (
            vec![
                "export",
                "--osaca",
                &db,
                "--arch",
                "x86_64",
                "--base",
                zero,
                "-o",
                "/dev/null",
            ],
            "--base /dev/zero: larger than the 64 MiB winic reads",
        ),
        (
            vec!["analyse", zero],
            "/dev/zero: more than the 512 MiB a raw file may have",
        ),
    ] {
        let t0 = std::time::Instant::now();
        let o = winic(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
        assert!(t0.elapsed().as_secs() < 30, "{args:?}: {:?}", t0.elapsed());
    }
}

/// A database from elsewhere cannot exhaust the machine: an alias bomb
/// (an anchored entry with 2,000 operands, then 20,000 aliases of it) is
/// refused by TP and by `export` at once, naming the file, line and
/// alias, exit 2; a database with two entries of one form is refused
/// naming it.
#[test]
fn a_hostile_database_is_refused_before_it_is_parsed() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hostile-db-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bomb = dir.join("b.yaml");
    let operand = "    - {class: register, name: GR64, read: true, write: true}\n";
    std::fs::write(
        &bomb,
        format!(
            "---\n- &e\n  llvmName: ZZ\n  name: zz\n  operands:\n{}  latency: null\n  \
             operandLatencies: []\n  throughput: 1.0\n  throughputMin: 1.0\n  \
             throughputMax: 1.0\n{}...\n",
            operand.repeat(2_000),
            "- *e\n".repeat(20_000)
        ),
    )
    .unwrap();
    let b = bomb.display().to_string();
    let form = match host_arch() {
        "x86_64" => "ADD64rr",
        "aarch64" => "ADDXrs",
        _ => "ADD",
    };
    for args in [
        vec!["-f", "3.5", "TP", "--noReport", "-i", form, "-o", &b],
        vec![
            "export",
            "--osaca",
            &b,
            "--arch",
            "x86_64",
            "-o",
            "/dev/null",
        ],
    ] {
        let t0 = std::time::Instant::now();
        let o = winic(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "{b}:2:3: the YAML anchor or alias `&e` is refused"
            )),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(t0.elapsed().as_secs() < 10, "{args:?}: {:?}", t0.elapsed());
    }
    let dup = dir.join("d.yaml");
    let e = |n: &str| {
        format!(
            "- llvmName:        {n}\n  name:            x\n  operands:        []\n  latency:         null\n  \
             operandLatencies: []\n  throughput:      1\n  throughputMin:   1\n  throughputMax:   1\n"
        )
    };
    std::fs::write(&dup, format!("---\n{}{}{}...\n", e("A"), e("B"), e("A"))).unwrap();
    let d = dup.display().to_string();
    let o = winic(&[
        "export",
        "--osaca",
        &d,
        "--arch",
        "x86_64",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 form has more than one entry: A (entries 1 and 3)"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `winic TP -o db.yaml -i FORMS` in a scratch directory named `name`:
/// the run's standard output, its report and the database's text (the
/// directory is removed). The run must succeed.
fn tp_run(name: &str, forms: &[&str]) -> (String, String, String) {
    let dir = scratch(name);
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    let o = winic_command(&[&["TP", "-o", db_arg, "-i"][..], forms].concat())
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let report = report_in(&dir, "TP");
    let text = std::fs::read_to_string(&db).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (stdout(&o), report, text)
}

/// LAT of `forms` (`--noReport`) into a database in a scratch directory
/// of its own; the database's text (the directory is removed).
fn lat_run(name: &str, forms: &[&str]) -> String {
    let dir = scratch(name);
    let db = dir.join("db.yaml");
    let o = winic(
        &[
            &["LAT", "-o", db.to_str().unwrap(), "--noReport", "-i"][..],
            forms,
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&db).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    text
}

/// Pushes and pops run, the loop moving the stack pointer back once per
/// iteration (the report says so), and the process survives them: a
/// push is a store, no faster than the two or three stores a cycle of
/// the cores winic targets nor slower than a microcoded form; a pop a
/// load, at most four a cycle. `popf` says why it does not run.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn x86_pushes_and_pops_are_measured_with_the_stack_walked_back() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let forms = ["PUSH64r", "POP64r", "PUSH64i8", "POP64rmm", "POPF64"];
    let (mut out, mut report, mut text) = tp_run("stack", &forms);
    // A value TP holds back is noise it caught (the CLI tests run beside
    // each other; on the zen4 guest's CI a pop drifted once): taken once
    // more after a pause, as the memory forms' test does.
    if out.contains("held back:") {
        eprintln!("a value held back, measured again:\n{out}");
        std::thread::sleep(std::time::Duration::from_secs(5));
        (out, report, text) = tp_run("stack-again", &forms);
    }
    assert!(out.contains("measured:   4 (0 upper bounds"), "{out}");
    assert!(out.contains("loads RFLAGS from the stack"), "{out}");
    for line in [
        "push rcx",
        "pop rcx",
        "walk: the copies move rsp; once per iteration the loop sets it back (for the body once: lea rsp, [rsp - 96])",
    ] {
        assert!(report.contains(line), "{line}: {report}");
    }
    for (form, fastest) in [
        ("PUSH64r", 1.0 / 3.0),
        ("PUSH64i8", 1.0 / 3.0),
        ("POP64r", 0.25),
    ] {
        let tp = entry_value(&text, form, "throughput").unwrap_or_else(|| panic!("{form}: {text}"));
        assert!(
            (fastest * 0.9..=8.0).contains(&tp),
            "{form}: {tp} cycles\n{text}"
        );
    }
}

/// String operations run, their pointers set again at the loop's top
/// (the report's kernel shows both `mov`s), each at least the one cycle
/// its copy's pointer update takes from the one before and no slower
/// than microcode should be; LAT says the pointers carry no chain.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn x86_string_operations_are_measured_with_their_pointers_set_again() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let forms = ["MOVSB", "LODSQ", "STOSL", "SCASW", "CMPSQ"];
    let (out, report, text) = tp_run("string", &forms);
    assert!(out.contains("measured:   5 (0 upper bounds"), "{out}");
    for line in [
        "movsb byte ptr es:[rdi], byte ptr [rsi]",
        "the copies move rdi, rsi; once per iteration the loop sets it back (for the body once: mov edi, 1073759232; mov esi, 1073750016)",
    ] {
        assert!(report.contains(line), "{line}: {report}");
    }
    for form in forms {
        let tp = entry_value(&text, form, "throughput").unwrap_or_else(|| panic!("{form}: {text}"));
        assert!((0.9..=64.0).contains(&tp), "{form}: {tp} cycles\n{text}");
    }
    let dir = scratch("string-lat");
    let o = winic_command(&["LAT", "-o", "db.yaml", "-i", "SCASW", "MOVSB"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let report = report_in(&dir, "LAT");
    assert!(
        report.contains("not measured: sub-latencies through EDI (the pointers the form moves"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A floating-point compare writes only the flags, and no form writes an
/// xmm register from them: LAT goes back in three steps, flags -> r64
/// (`adc`), r64 -> xmm (`movq`) and within the vector file to the scalar
/// register `comisd` reads (`por`). Before, `comisd`, `ucomisd` and
/// their VEX and EVEX forms (36 sub-latencies on zen4) had no latency.
/// Its value is a range: no exact value anchors the flags against the
/// vector file, as none anchors the general-purpose one.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn a_compare_into_the_flags_goes_back_to_its_vector_in_three_steps() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    let text = lat_run(
        "comisd",
        &[
            "COMISDrr",
            "ADC64ri32",
            "CMP64rr",
            "MOV64toPQIrr",
            "MOVPQIto64rr",
            "PORrr",
        ],
    );
    for from in ["0", "1"] {
        let (lo, hi) = sub_latency(&text, "COMISDrr", from, "EFLAGS");
        assert!(
            lo >= 1.0 && lo <= hi && hi < 20.0,
            "COMISDrr {from} -> EFLAGS [{lo};{hi}]\n{text}"
        );
    }
    let latency = entry_value(&text, "COMISDrr", "latency").unwrap_or_else(|| panic!("{text}"));
    assert!((1.0..20.0).contains(&latency), "{text}");
}

/// `vp2intersectd` writes a pair of mask registers (`k2:k3`, a register
/// tuple in LLVM's records); LAT reads its first part back (`kmovw`,
/// `vpmovm2d`), so the pair has a latency from each vector source and
/// from the address of its memory form, where before no helper read a
/// tuple. Zen 5 runs it; Intel's cores after Tiger Lake do not.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn vp2intersect_has_a_latency_into_its_mask_pair() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx512vp2intersect") {
        skip("vp2intersect: this host lacks AVX512_VP2INTERSECT");
        return;
    }
    let text = lat_run(
        "vp2intersect",
        &[
            "VP2INTERSECTDZrm",
            "VPMOVM2DZrr",
            "KMOVWrk",
            "KMOVWkr",
            "AND64ri8",
            "ADD64rr",
        ],
    );
    for from in ["1", "2"] {
        let (lo, hi) = sub_latency(&text, "VP2INTERSECTDZrm", from, "0");
        assert!(
            lo >= 1.0 && (4.0..64.0).contains(&hi),
            "VP2INTERSECTDZrm {from} -> 0 [{lo};{hi}]"
        );
    }
}

/// Gathers and scatters run: each element in a cache line of its own
/// (lanes i × 64), the mask set again (and a gather's destination zeroed)
/// before each, as the report's kernel shows. A gather of N elements is
/// no faster than N loads on the four load ports, a scatter no faster
/// than N stores on the two store ports, no core winic targets exceeds
/// either, and neither slower than a microcoded one should be; LAT says
/// why they have no latency.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "times x86 kernels: x86-64 hardware only"
)]
fn x86_gathers_and_scatters_are_measured_with_their_mask_reset() {
    if emulated() {
        skip("times x86 kernels: under an emulator times mean nothing");
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx2") {
        skip("no AVX2: this CPU has no gathers");
        return;
    }
    let dir = scratch("gather");
    let db = dir.join("db.yaml");
    let db_arg = db.to_str().unwrap();
    // 8 dword elements, 2 qword elements; 16 dword elements scattered.
    let forms = ["VPGATHERDDYrm", "VGATHERQPDrm", "VPSCATTERDDZmr"];
    #[cfg(target_arch = "x86_64")]
    let avx512 = std::arch::is_x86_feature_detected!("avx512f");
    #[cfg(not(target_arch = "x86_64"))]
    let avx512 = false;
    let o = winic_command(&[&["TP", "-o", db_arg, "-i"][..], &forms[..]].concat())
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    if avx512 {
        assert!(out.contains("measured:   3"), "{out}");
    } else {
        assert!(out.contains("measured:   2"), "{out}");
        assert!(out.contains("needs AVX512"), "{out}");
    }
    let text = report_in(&dir, "TP");
    let mut lines = vec![
        "vpcmpeqd ymm",
        "vpxor xmm",
        "vpgatherdd ymm",
        "gather: the vector index holds lanes i × 64 bytes",
    ];
    if avx512 {
        lines.extend([
            "kxnorw k",
            "vpscatterdd zmmword ptr",
            "scatter: the vector index holds lanes i × 64 bytes",
            "before each scatter its mask is set",
        ]);
    }
    for line in lines {
        assert!(text.contains(line), "{line}: {text}");
    }
    let text = std::fs::read_to_string(&db).unwrap();
    let v = |form: &str| {
        entry_value(&text, form, "throughput").unwrap_or_else(|| panic!("{form}: {text}"))
    };
    for (form, elements) in [("VPGATHERDDYrm", 8.0), ("VGATHERQPDrm", 2.0)] {
        let tp = v(form);
        assert!(
            (elements / 4.0..=64.0).contains(&tp),
            "{form}: {tp} cycles for {elements} elements\n{text}"
        );
    }
    if avx512 {
        let tp = v("VPSCATTERDDZmr");
        assert!(
            (8.0..=64.0).contains(&tp),
            "a 16-element scatter: {tp}\n{text}"
        );
    }
    // A gather's latency from its base, through the way back a load-op
    // form's takes: at least a load's, a lap's at most.
    let mut forms = vec!["VPGATHERDDYrm", "MOVPQIto64rr", "AND64ri8", "ADD64rr"];
    if avx512 {
        forms.push("VPSCATTERDDZmr");
    }
    let lat_db = dir.join("lat.yaml");
    let lat_arg = lat_db.to_str().unwrap();
    let mut args = vec!["LAT", "-o", lat_arg, "--noReport", "-i"];
    args.extend(&forms);
    let o = winic(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&lat_db).unwrap();
    let db = winic::db::Database::load(&lat_db).unwrap();
    let gather = db.get("VPGATHERDDYrm").expect("the gather's entry");
    let from_base = gather
        .operand_latencies
        .iter()
        .find(|l| l.source_operand == "2" && l.target_operand == "0")
        .unwrap_or_else(|| panic!("no address -> result: {text}"));
    let hi = from_base.latency_max.expect("an upper end");
    assert!((4.0..=64.0).contains(&hi), "{hi} cycles\n{text}");
    if avx512 {
        assert!(
            stdout(&o).contains("a scatter: its kernels set the mask"),
            "{}",
            stdout(&o)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `winic html` refuses bad input naming the file, exit 2, and writes a
/// page of a good database that says where it went.
#[test]
fn html_names_the_bad_file_and_writes_the_page() {
    let dir = scratch("html");
    let out = dir.join("page");
    let missing = dir.join("none.yaml");
    let o = winic(&[
        "html",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("none.yaml: no such database file"),
        "{}",
        stderr(&o)
    );
    let db = dir.join("db.yaml");
    std::fs::write(
        &db,
        "---\n- llvmName: ADD64rr\n  name: add\n  latency: 1\n  throughput: 0.25\n...\n",
    )
    .unwrap();
    let o = winic(&["html", db.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("(1 forms of x86_64, 1 databases: db.yaml;"),
        "{}",
        stdout(&o)
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("\"n\":\"ADD64rr\""), "{page}");
    // A TP report (WINIC's spelling) reads as the database of its run's
    // throughputs, beside a YAML one, its lines in its own detail.
    let report = dir.join("report_TP_2025-08-25_10-18-39.txt");
    std::fs::write(
        &report,
        "Using existing database: genoa.yaml\nTimestamp: 2025-08-25_10-18-39\n\
         Command: ./winic -f 1.5 TP -o genoa.yaml \nMode: Throughput\n\
         -----ADD64rr-----\n\tADD64rr [0.252;0.252]\n\n\
         -----ADD64rr_EVEX-----\n\tADD64rr_EVEX [ERROR_ILLEGAL_INSTRUCTION]\n\n",
    )
    .unwrap();
    let o = winic(&["compare", db.to_str().unwrap(), report.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("x86_64 forms: 1 in both")
            && stdout(&o).contains("throughput: 1 forms have it in both, 0 differ"),
        "{}",
        stdout(&o)
    );
    let o = winic(&[
        "html",
        db.to_str().unwrap(),
        report.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("\"ADD64rr [0.252;0.252]\""), "{page}");
    // A --report that is no report (the database itself) is named.
    let o = winic(&[
        "html",
        db.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--report",
        db.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("db.yaml is no winic report"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `winic analyse` of the ports run's raw file in `dir` writes the same
/// database as the run wrote (`db.yaml`).
fn a_replay_writes_the_same_database(dir: &common::Scratch) {
    let again = winic_command(&["analyse", "db.yaml.ports.raw", "-o", "again.yaml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        std::fs::read(dir.join("db.yaml")).unwrap(),
        std::fs::read(dir.join("again.yaml")).unwrap()
    );
}

/// The mixes a report's trial section lists below its line `head` and
/// the column header: each line, its copies, measured and predicted
/// cycles. Each mix must be two forms (`A + B`) with both times.
fn trial_mixes(out: &str, head: usize) -> Vec<(&str, &str, f64, f64)> {
    out.lines()
        .skip(head + 2)
        .take_while(|l| l.starts_with("  ") && l.contains(" + "))
        .map(|m| {
            let fields: Vec<&str> = m.split_whitespace().collect();
            assert_eq!(fields[1], "+", "{m}");
            let measured: f64 = fields[4].parse().unwrap_or_else(|_| panic!("{m}"));
            let predicted: f64 = fields[5].parse().unwrap_or_else(|_| panic!("{m}"));
            (m, fields[3], measured, predicted)
        })
        .collect()
}

/// `winic ports` mixes each two-port set's form beside one of a set
/// sharing one of its ports, two copies of one beside one of the other
/// and three beside one, both ways, and reports the shares it keeps or
/// why none: on Zen 4 the FMAs' pipes, a shuffle's and the adds' share
/// one pipe each.
#[test]
#[cfg_attr(not(target_arch = "x86_64"), ignore = "x86 vector forms")]
fn ports_tries_shares_for_two_port_sets_that_share_a_port() {
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx2") {
        skip("the vector forms need AVX2, which this host lacks");
        return;
    }
    let dir = scratch("ports-spread");
    let o = winic_command(&[
        "ports",
        "--held-back",
        "0",
        "-i",
        "VMULPDYrr",
        "VPACKSSWBYrr",
        "VPERMILPSYrr",
        "VADDPDYrr",
        "VPADDDYrr",
    ])
    .current_dir(&dir)
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let Some(head) = out.lines().position(|l| l.starts_with("port sets ")) else {
        // No two sets of two ports that share one: nothing to mix.
        skip(format!(
            "the fit found no two-port sets sharing a port:\n{out}"
        ));
        return;
    };
    let line = out.lines().nth(head).unwrap();
    assert!(
        line.contains("keep a share on each of their ports") || line.contains("(none kept)"),
        "{out}"
    );
    // Each pair of forms both ways, 2:1 and 3:1 copies: two copies on
    // two ports and one beside take at least a cycle, three at least 1.5.
    let mixes = trial_mixes(&out, head);
    assert!(mixes.len() >= 4 && mixes.len().is_multiple_of(4), "{out}");
    for copies in ["2:1", "3:1"] {
        let n = mixes.iter().filter(|m| m.1 == copies).count();
        assert_eq!(n, mixes.len() / 2, "{copies}:\n{out}");
    }
    for (m, copies, measured, predicted) in mixes {
        let least = if copies == "2:1" { 0.9 } else { 1.35 };
        assert!(measured > least && predicted > least, "{m}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `winic ports` mixes the forms that read three vector registers, one
/// of each port set, in pairs, and says whether a read port beside the
/// ports predicts those mixes better (kept, with what each set takes) or
/// not (none kept); each mix is listed measured and predicted.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "x86 forms that read three vector registers"
)]
fn ports_tries_a_read_port_for_three_source_forms() {
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx512f")
        || !std::arch::is_x86_feature_detected!("fma")
    {
        skip("merge-masked forms need AVX-512 and FMA, which this host lacks");
        return;
    }
    let dir = scratch("ports-reads");
    let o = winic_command(&[
        "ports",
        "--held-back",
        "0",
        "-i",
        "VFMADD213PSYr",
        "VSUBPSZ256rrk",
        "VSUBPSZ256rr",
        "VPTERNLOGDZ256rri",
        "VPADDDYrr",
        "VMULPSYrr",
    ])
    .current_dir(&dir)
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let Some(head) = out
        .lines()
        .position(|l| l.starts_with("forms that read three vector registers"))
    else {
        // One set of three-source forms: nothing to mix.
        skip(format!(
            "the fit put the three-source forms on one set:\n{out}"
        ));
        return;
    };
    let line = out.lines().nth(head).unwrap();
    assert!(
        line.contains("take a read port R beside their ports") || line.contains("(none kept)"),
        "{out}"
    );
    let mixes = trial_mixes(&out, head);
    assert!(!mixes.is_empty(), "{out}");
    for (m, _, measured, predicted) in mixes {
        assert!(measured > 0.1 && predicted > 0.1, "{m}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
