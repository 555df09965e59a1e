use super::*;
use crate::arch::{inst_of, reg_of, target};
use crate::exec::run::{body_cost, Clock, Options, RunError};
use crate::exec::ChildError;
use crate::isa::Arch;
use std::time::Duration;

const ARCHES: [Arch; 3] = [Arch::X86_64, Arch::Aarch64, Arch::Riscv64];

fn host() -> Arch {
    if cfg!(target_arch = "x86_64") {
        Arch::X86_64
    } else if cfg!(target_arch = "aarch64") {
        Arch::Aarch64
    } else {
        Arch::Riscv64
    }
}

#[test]
fn every_arch_builds_a_checked_add_chain_kernel() {
    for arch in ARCHES {
        let t = target(arch);
        for unroll in [1, 2] {
            let k = add_chain(t, 8, unroll).unwrap_or_else(|e| panic!("{arch}: {e}"));
            let text = k.text();
            assert!(text.contains(".Lloop:"), "{arch}\n{text}");
            // Prologue, 8 adds per copy, count-down and branch, epilogue.
            let add = emit(t, &t.chain_add().unwrap()).unwrap();
            let adds = k.lines.iter().filter(|l| **l == add).count();
            assert_eq!(adds, 8 * unroll, "{arch}\n{text}");
            // Only flags stay uninitialised (x86 `add` writes EFLAGS).
            assert!(
                k.uninitialised.iter().all(|(r, _)| r.name() == "EFLAGS"),
                "{arch}: {:?}",
                k.uninitialised
            );
        }
    }
}

/// A loop moved 16 bytes further (TP's places of forms that store) starts
/// 16 bytes later behind no-ops, with the same body and the same branch
/// back (relative to the loop). (Whether both run alike is timing, which
/// unit tests running side by side cannot judge: `winic TP -i NOT64m`
/// on a quiet core, docs/measurements.md.)
#[test]
fn a_moved_loop_starts_later_behind_no_ops() {
    let start = |k: &Kernel| {
        let at = k.lines.iter().position(|l| l.text == ".Lloop:").unwrap();
        let bytes: usize = k.lines[..at].iter().map(|l| l.bytes.len()).sum();
        (bytes, k.lines[at..].to_vec())
    };
    for arch in ARCHES {
        let t = target(arch);
        let k = add_chain(t, 40, 1).unwrap();
        let moved = k.clone().with_loop_moved(t, 16).unwrap();
        let ((a, loop_a), (b, loop_b)) = (start(&k), start(&moved));
        assert_eq!(b, a + 16, "{arch}\n{}", moved.text());
        assert_eq!(loop_a, loop_b, "{arch}");
        let nop = emit(t, &t.nop().unwrap()).unwrap();
        let added = moved.lines.len() - k.lines.len();
        assert_eq!(added, 16 / nop.bytes.len(), "{arch}");
        assert_eq!(
            moved.lines.iter().filter(|l| **l == nop).count(),
            added,
            "{arch}"
        );
    }
}

/// The branch back lands on the first body instruction: decode it with
/// the arch's rules from the bytes.
#[test]
fn branches_go_back_to_the_loop_start() {
    for arch in ARCHES {
        let t = target(arch);
        let k = add_chain(t, 40, 1).unwrap();
        let mut offset = 0;
        let mut start = None;
        let mut branch = None;
        for l in &k.lines {
            if l.text == ".Lloop:" {
                start = Some(offset);
            }
            if l.text.contains(".Lloop") && !l.bytes.is_empty() {
                branch = Some((offset, l.bytes.clone()));
            }
            offset += l.bytes.len();
        }
        let (at, bytes) = branch.unwrap();
        let start = start.unwrap() as i64;
        let target = match arch {
            Arch::X86_64 => {
                let mut d = iced_x86::Decoder::with_ip(64, &bytes, at as u64, 0);
                d.decode().near_branch_target() as i64
            }
            Arch::Aarch64 => {
                let w = u32::from_le_bytes(bytes[..4].try_into().unwrap());
                assert_eq!(w & 0xff00_001f, 0x5400_0001, "b.ne: {w:#x}");
                let imm19 = ((w >> 5) & 0x7ffff) as i64;
                at as i64 + ((imm19 << 45) >> 45) * 4
            }
            Arch::Riscv64 => {
                let w = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as i64;
                let imm = ((w >> 31) & 1) << 12
                    | ((w >> 7) & 1) << 11
                    | ((w >> 25) & 0x3f) << 5
                    | ((w >> 8) & 0xf) << 1;
                at as i64 + ((imm << 51) >> 51)
            }
        };
        assert_eq!(target, start, "{arch}: {}", k.text());
    }
}

#[test]
fn callee_saved_registers_are_saved_and_restored() {
    let t = target(Arch::X86_64);
    let r = |n| reg_of(Arch::X86_64, n).unwrap();
    let body = [inst_of(Arch::X86_64, "ADD64rr", &[r("RBX"), r("RBX"), r("R12")]).unwrap()];
    let text = build(t, &body, 1).unwrap().text();
    for want in [
        "push rbx", "push r12", "push r15", "pop r15", "pop r12", "pop rbx",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert!(!text.contains("push r13"), "{text}");
}

#[test]
fn flags_are_named_as_uninitialised() {
    let t = target(Arch::X86_64);
    let r = |n| reg_of(Arch::X86_64, n).unwrap();
    let body = [inst_of(Arch::X86_64, "ADC64rr", &[r("RCX"), r("RCX"), r("RDX")]).unwrap()];
    let k = build(t, &body, 1).unwrap();
    assert!(
        k.uninitialised.iter().any(|(r, _)| r.name() == "EFLAGS"),
        "{:?}",
        k.uninitialised
    );
}

fn quick() -> Options {
    let mut o = Options::default();
    o.plan.min_run = Duration::from_micros(500);
    o.plan.reps = 3;
    o.plan.attempts = 1;
    o.deadline = Duration::from_secs(60);
    o
}

/// The cost in cycles of one instruction of a chain of `n` copies of
/// `form rd, rd, rs` (dependent through rd).
fn chain_cycles(form: &str, n: usize) -> f64 {
    let arch = host();
    let t = target(arch);
    let (d, s) = match arch {
        Arch::X86_64 => ("RAX", "RBX"),
        Arch::Aarch64 => ("X1", "X2"),
        Arch::Riscv64 => ("X5", "X6"),
    };
    let (d, s) = (reg_of(arch, d).unwrap(), reg_of(arch, s).unwrap());
    let mut ops = vec![d, d, s];
    if arch == Arch::Aarch64 && form == "ADDXrs" {
        ops.push(crate::arch::OpValue::Imm(0));
    }
    let body = vec![inst_of(arch, form, &ops).unwrap(); n];
    let once = build(t, &body, 1).unwrap();
    let twice = build(t, &body, 2).unwrap();
    let cost = body_cost(t, &once, &twice, &quick()).unwrap();
    cost.cycles / n as f64
}

#[test]
fn kernels_run_on_the_host() {
    let form = match host() {
        Arch::X86_64 => "ADD64rr",
        Arch::Aarch64 => "ADDXrs",
        Arch::Riscv64 => "ADD",
    };
    // `chain_cycles` fails unless both kernels ran; natively a chain of
    // dependent one-cycle adds takes about a cycle per add (under qemu
    // times mean nothing).
    let c = chain_cycles(form, 8);
    if !crate::testing::emulated() {
        assert!((0.5..2.0).contains(&c), "{c} cycles per add");
    }
}

/// The two timing tests the issue asks for, on x86 hardware only (under
/// qemu-user the other arches' timings mean nothing). Generous bounds:
/// this machine is shared and its clock moves.
#[cfg(target_arch = "x86_64")]
#[test]
fn add_chain_is_one_cycle_and_imul_chain_three() {
    // The median of five: each value is a time over a calibrated clock,
    // and noise moves either one, so the minimum would be biased low (an
    // imul chain gave 2.6 once while another build loaded both cores).
    let median = |form: &str| {
        let mut v: Vec<f64> = (0..5).map(|_| chain_cycles(form, 16)).collect();
        v.sort_by(f64::total_cmp);
        v[2]
    };
    let add = median("ADD64rr");
    eprintln!("add chain: {add:.3} cycles per add");
    assert!((0.8..1.25).contains(&add), "add: {add:.3} cycles");
    let imul = median("IMUL64rr");
    eprintln!("imul chain: {imul:.3} cycles per imul");
    assert!((2.6..3.5).contains(&imul), "imul: {imul:.3} cycles");
}

/// Raw bodies that fault, per host arch (ISA manuals): (what, bytes,
/// registers to initialise, expected outcome).
fn faulting_bodies() -> Vec<(&'static str, Vec<u8>, Vec<&'static str>, ChildError)> {
    let sig = |s: &str| ChildError::Signal(s.parse().expect("a signal name"));
    match host() {
        Arch::X86_64 => vec![
            ("ud2", vec![0x0f, 0x0b], vec![], sig("SIGILL")),
            // mov rax, [rcx] with rcx = 0x4000400040004000 (non-canonical).
            (
                "load",
                vec![0x48, 0x8b, 0x01],
                vec!["RCX", "RAX"],
                sig("SIGSEGV"),
            ),
            // xor ecx, ecx; div rcx.
            (
                "div0",
                vec![0x31, 0xc9, 0x48, 0xf7, 0xf1],
                vec!["RAX", "RDX"],
                sig("SIGFPE"),
            ),
            // jmp . (never ends).
            (
                "hang",
                vec![0xeb, 0xfe],
                vec![],
                ChildError::Timeout(Duration::from_secs(1)),
            ),
        ],
        // AArch64 and RISC-V do not trap on integer division by zero.
        Arch::Aarch64 => vec![
            ("udf", vec![0, 0, 0, 0], vec![], sig("SIGILL")),
            // ldr x0, [x1] with x1 = 0x4000400040004000 (unmapped).
            (
                "load",
                0xf940_0020u32.to_le_bytes().to_vec(),
                vec!["X1", "X0"],
                sig("SIGSEGV"),
            ),
            (
                "hang",
                0x1400_0000u32.to_le_bytes().to_vec(),
                vec![],
                ChildError::Timeout(Duration::from_secs(1)),
            ),
        ],
        Arch::Riscv64 => vec![
            ("unimp", vec![0, 0, 0, 0], vec![], sig("SIGILL")),
            // ld a0, 0(zero).
            (
                "load",
                0x0000_3503u32.to_le_bytes().to_vec(),
                vec!["X10"],
                sig("SIGSEGV"),
            ),
            // j . (never ends).
            (
                "hang",
                0x0000_006fu32.to_le_bytes().to_vec(),
                vec![],
                ChildError::Timeout(Duration::from_secs(1)),
            ),
        ],
    }
}

#[test]
fn faults_and_hangs_are_reported_with_their_reason() {
    let arch = host();
    let t = target(arch);
    for (what, bytes, regs, want) in faulting_bodies() {
        let regs: Vec<Reg> = regs
            .iter()
            .map(|n| crate::isa::Isa::get(arch).register(n).unwrap())
            .collect();
        let line = Line {
            text: what.into(),
            bytes,
        };
        let once = assemble(t, std::slice::from_ref(&line), &regs_of(&regs), 1, None).unwrap();
        let twice = assemble(t, &[line], &regs_of(&regs), 2, None).unwrap();
        let mut o = quick();
        o.deadline = Duration::from_secs(1);
        o.clock = Clock::Fixed(3.0);
        let got = body_cost(t, &once, &twice, &o).map(|c| c.cycles);
        assert_eq!(got, Err(RunError::Child(want)), "{what}");
    }
}

/// Vector, FP, mask and predicate registers get initialised, and every
/// initialising instruction passes the decode check.
#[test]
fn data_registers_of_every_kind_are_initialised() {
    let cases: [(Arch, &[&str]); 3] = [
        (
            Arch::X86_64,
            &[
                "VADDPDZrr",
                "VADDPDYrr",
                "ADDPDrr",
                "KANDWrr",
                "MMX_PADDQrr",
                "IMUL64rr",
            ],
        ),
        (
            Arch::Aarch64,
            &["FADDDrr", "ADDv2i64", "ADD_ZZZ_D", "AND_PPzPP", "MADDXrrr"],
        ),
        (Arch::Riscv64, &["FADD_D", "FADD_S", "MUL"]),
    ];
    for (arch, forms) in cases {
        let t = target(arch);
        for name in forms {
            let form = crate::isa::Isa::get(arch).instr(name).unwrap();
            let ex = t.example(form).unwrap();
            let k =
                build(t, std::slice::from_ref(&ex), 2).unwrap_or_else(|e| panic!("{name}: {e}"));
            for r in registers_of(&[ex]) {
                let named = k.uninitialised.iter().any(|(u, _)| *u == r);
                assert!(
                    !named
                        || ["EFLAGS", "MXCSR", "FPCR", "FFLAGS", "FRM", "NZCV"].contains(&r.name()),
                    "{name}: {} left uninitialised: {:?}\n{}",
                    r.name(),
                    k.uninitialised,
                    k.text()
                );
            }
        }
    }
}

/// The figures of `scripts/bench-runtime.sh`: what one measurement costs
/// beyond the timing itself, and how well 20 kernels repeat over 5 runs.
/// Prints, asserts nothing (the machine is shared and noisy).
#[test]
#[ignore = "a benchmark that prints figures, not a check: `cargo test --release --lib -- --ignored --nocapture NAME`"]
fn runtime_figures() {
    use std::time::Instant;
    let t = target(host());
    let isa = crate::isa::Isa::get(host());
    // 20 register forms of the host, every one its own example body.
    let names: &[&str] = match host() {
        Arch::X86_64 => &[
            "ADD64rr",
            "IMUL64rr",
            "XOR32rr",
            "SHL64ri",
            "LEA64r",
            "POPCNT64rr",
            "ADC64rr",
            "MOV64rr",
            "BSWAP64r",
            "ANDN64rr",
            "PADDQrr",
            "MULPDrr",
            "VADDPDYrr",
            "VFMADD231PDYr",
            "VPERMPDYri",
            "VPMULLDYrr",
            "VDIVPDYrr",
            "VSQRTPDYr",
            "CRC32r64r64",
            "PSHUFBrr",
        ],
        Arch::Aarch64 => &[
            "ADDXrs",
            "MADDXrrr",
            "EORWrs",
            "UBFMXri",
            "CSELXr",
            "CLZXr",
            "ADCXr",
            "ORRXrs",
            "REVXr",
            "BICXrs",
            "ADDv2i64",
            "FMULv2f64",
            "FADDDrr",
            "FMADDDrrr",
            "TBLv16i8One",
            "MULv4i32",
            "FDIVDrr",
            "FSQRTDr",
            "CRC32CXrr",
            "EXTv16i8",
        ],
        Arch::Riscv64 => &[
            "ADD", "MUL", "XOR", "SLLI", "SLT", "SUB", "ADDW", "AND", "OR", "SRAI", "FADD_D",
            "FMUL_D", "FMADD_D", "FDIV_D", "FSQRT_D", "FSGNJ_D", "FMIN_D", "DIV", "REM", "MULH",
        ],
    };
    let opts = Options::default();
    let mut per_kernel: Vec<(String, Vec<f64>)> = Vec::new();
    let mut wall = Duration::ZERO;
    let mut measurements = 0;
    for name in names {
        let Some(form) = isa.instr(name) else {
            continue;
        };
        let Ok(inst) = t.example(form) else { continue };
        let (Ok(k1), Ok(k2)) = (
            build(t, std::slice::from_ref(&inst), 1),
            build(t, std::slice::from_ref(&inst), 2),
        ) else {
            continue;
        };
        let mut runs = Vec::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            if let Ok(c) = body_cost(t, &k1, &k2, &opts) {
                runs.push(c.cycles);
            }
            wall += t0.elapsed();
            measurements += 1;
        }
        per_kernel.push((name.to_string(), runs));
    }
    // Overhead parts, each averaged over 20 tries.
    let n = 20u32;
    let t0 = Instant::now();
    for _ in 0..n {
        let _ = crate::exec::in_child(opts.cpu, opts.deadline, || vec![1.0]);
    }
    let fork = t0.elapsed() / n;
    let add = t.chain_add().unwrap();
    let t0 = Instant::now();
    for _ in 0..n {
        let k = build(t, std::slice::from_ref(&add), 1).unwrap();
        let _ = crate::exec::Code::new(&k.bytes()).unwrap();
    }
    let build_map = t0.elapsed() / n;
    let fixed = Options {
        clock: Clock::Fixed(3.0),
        ..opts.clone()
    };
    let (k1, k2) = (
        build(t, std::slice::from_ref(&add), 1).unwrap(),
        build(t, &[add], 2).unwrap(),
    );
    let t0 = Instant::now();
    for _ in 0..n {
        let _ = body_cost(t, &k1, &k2, &fixed);
    }
    let without_cal = t0.elapsed() / n;
    let t0 = Instant::now();
    for _ in 0..n {
        let _ = body_cost(t, &k1, &k2, &opts);
    }
    let with_cal = t0.elapsed() / n;
    let per = wall / measurements.max(1) as u32;
    eprintln!(
        "measurement (2 kernels, -f auto), mean over {measurements}: {:.1} ms",
        per.as_secs_f64() * 1e3
    );
    eprintln!(
        "  fork + pipe + reap of a child: {:.2} ms ({:.1}%)",
        fork.as_secs_f64() * 1e3,
        100.0 * fork.as_secs_f64() / per.as_secs_f64()
    );
    eprintln!(
        "  build + check + map of a kernel: {:.2} ms ({:.1}% for two)",
        build_map.as_secs_f64() * 1e3,
        200.0 * build_map.as_secs_f64() / per.as_secs_f64()
    );
    let cal = with_cal.saturating_sub(without_cal);
    eprintln!("  clock calibration (-f auto): {:.1} ms ({:.1}%; add chain measured with -f 3: {:.1} ms, with auto {:.1} ms)", cal.as_secs_f64() * 1e3, 100.0 * cal.as_secs_f64() / with_cal.as_secs_f64(), without_cal.as_secs_f64() * 1e3, with_cal.as_secs_f64() * 1e3);
    let mut within = 0;
    let mut spreads = Vec::new();
    for (name, runs) in &per_kernel {
        let lo = runs.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = runs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let spread = if lo > 0.0 { (hi - lo) / lo } else { f64::NAN };
        if spread <= 0.05 {
            within += 1;
        }
        spreads.push(spread);
        let vals: Vec<String> = runs.iter().map(|c| format!("{c:.2}")).collect();
        eprintln!(
            "  {name:<16} {}  spread {:.1}%",
            vals.join(" "),
            100.0 * spread
        );
    }
    spreads.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    eprintln!(
        "repeatability: {within} of {} kernels within 5% over 5 runs; median spread {:.1}%, worst {:.1}%",
        per_kernel.len(),
        100.0 * spreads.get(spreads.len() / 2).copied().unwrap_or(f64::NAN),
        100.0 * spreads.last().copied().unwrap_or(f64::NAN)
    );
}

/// A batch keeps going past faults: each faulting body gets its reason,
/// the plain ones around them a cost, every body exactly once and in
/// order.
#[test]
fn a_batch_measures_past_faults() {
    let arch = host();
    let t = target(arch);
    let isa = crate::isa::Isa::get(arch);
    let chain = vec![t.chain_add().unwrap(); 4];
    let plain = build(t, &chain, 1).unwrap();
    let plain2 = build(t, &chain, 2).unwrap();
    let mut pairs: Vec<(Kernel, Kernel, Option<ChildError>)> =
        vec![(plain.clone(), plain2.clone(), None)];
    for (what, bytes, regs, want) in faulting_bodies() {
        let regs: Vec<Reg> = regs.iter().map(|n| isa.register(n).unwrap()).collect();
        let line = Line {
            text: what.into(),
            bytes,
        };
        let once = assemble(t, std::slice::from_ref(&line), &regs_of(&regs), 1, None).unwrap();
        let twice = assemble(t, &[line], &regs_of(&regs), 2, None).unwrap();
        pairs.push((once, twice, Some(want)));
        pairs.push((plain.clone(), plain2.clone(), None));
    }
    let mut o = quick();
    // The idle time after which a silent child counts as hung: longer
    // under an emulator, where a plain body takes a while too.
    let emulated = crate::testing::emulated();
    o.deadline = Duration::from_secs(if emulated { 20 } else { 1 });
    o.clock = Clock::Fixed(3.0);
    let make = |i: usize| Ok((pairs[i].0.clone(), pairs[i].1.clone()));
    let mut seen = Vec::new();
    crate::exec::run::batch_costs(t, pairs.len(), &make, &|_| 64, &o, &mut |i, got| {
        match (&pairs[i].2, got) {
            (None, Ok(c)) => assert!(c.cycles.is_finite(), "{i}: {c:?}"),
            (Some(ChildError::Timeout(_)), Err(RunError::Child(ChildError::Timeout(_)))) => {}
            (Some(want), Err(RunError::Child(e))) => assert_eq!(&e, want, "{i}"),
            (want, got) => panic!("{i}: expected {want:?}, got {got:?}"),
        }
        seen.push(i);
    });
    // In order, then again for bodies measured a second time.
    assert_eq!(seen[..pairs.len()], (0..pairs.len()).collect::<Vec<_>>());
    assert!(
        seen[pairs.len()..].iter().all(|&i| pairs[i].2.is_none()),
        "{seen:?}"
    );
}

/// `std` sets the direction flag; the kernel must clear it before it
/// returns (a batch child's next memcpy would run backwards).
#[test]
fn the_direction_flag_is_clear_after_a_kernel() {
    let t = target(Arch::X86_64);
    let std_ = t
        .example(crate::isa::Isa::get(Arch::X86_64).instr("STD").unwrap())
        .unwrap();
    let k = build(t, &[std_], 1).unwrap();
    let text = k.text();
    let cld = text.find("cld").expect("a cld");
    assert!(
        cld > text.find("std").unwrap() && cld < text.find("ret").unwrap(),
        "{text}"
    );
    if host() == Arch::X86_64 {
        let code = crate::exec::Code::new(&k.bytes()).unwrap();
        // SAFETY: a complete kernel; run in a child.
        let f = unsafe { code.entry() };
        let got = crate::exec::in_child(None, Duration::from_secs(20), move || {
            f(3);
            // A copy after the kernel must still copy forwards.
            let src: Vec<u8> = (0..=255).collect();
            let mut dst = vec![0u8; 256];
            dst.copy_from_slice(&src);
            vec![f64::from(u8::from(dst == src))]
        });
        assert_eq!(got, Ok(vec![1.0]));
    }
}

/// A legacy SSE body's XMM registers are set by SSE forms: a VEX or EVEX
/// broadcast leaves the upper halves dirty, and the SSE forms then merge
/// into them (addpd at half its throughput on Zen 4).
#[test]
fn legacy_sse_registers_are_set_without_dirtying_the_upper_halves() {
    let t = target(Arch::X86_64);
    let isa = crate::isa::Isa::get(Arch::X86_64);
    let body = shape::throughput(t, isa.instr("ADDPDrr").unwrap(), 4).unwrap();
    let text = build(t, &body, 1).unwrap().text();
    assert!(text.contains("punpcklqdq"), "{text}");
    assert!(
        !text.contains("vpbroadcast") && !text.contains("vmovq"),
        "{text}"
    );
    // A 256-bit body still gets its broadcast (where the host has AVX2:
    // the frame sets registers by what the host runs).
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        let body = shape::throughput(t, isa.instr("VADDPDYrr").unwrap(), 4).unwrap();
        let text = build(t, &body, 1).unwrap().text();
        assert!(text.contains("vpbroadcastq"), "{text}");
    }
}

/// Registers that are all data, none an address.
fn regs_of(all: &[Reg]) -> Regs<'_> {
    Regs {
        all,
        bases: &[],
        lanes: &[],
    }
}

/// AArch64 and RISC-V memory forms: the base is set to the data area,
/// register offsets and strides to their small values, and every copy of
/// a throughput body accesses its own slot; a latency chain never runs
/// through an address register.
#[test]
fn aarch64_and_riscv_memory_kernels_point_at_the_data_area() {
    for (arch, name, base_init, want) in [
        (
            Arch::Aarch64,
            "LDRXui",
            "movz x1, #16384, lsl #16",
            vec!["[x1, #8192]", "[x1, #8256]"],
        ),
        (
            Arch::Aarch64,
            "LDRXroX",
            "movz x2, #0",
            vec!["[x1, x2, lsl #3]"],
        ),
        (
            Arch::Aarch64,
            "STRXpre",
            "#16384, lsl #16",
            vec!["str x1, [x0, #0]!", "str x1, [x2, #0]!"],
        ),
        (
            Arch::Riscv64,
            "LD",
            "lui a1, 262144",
            vec!["0(a1)", "64(a1)", "128(a1)"],
        ),
        (
            Arch::Riscv64,
            "VLSE32_V",
            "addi a1, zero, 8",
            vec!["(a0), a1"],
        ),
    ] {
        let t = crate::arch::target(arch);
        let f = crate::isa::Isa::get(arch).instr(name).unwrap();
        assert_eq!(shape::skip_reason(t, f), None, "{name}");
        let body = shape::throughput(t, f, shape::COPIES).unwrap();
        let text = build(t, &body, 1).unwrap().text();
        assert!(text.contains(base_init), "{name}: {text}");
        for w in want {
            assert!(text.contains(w), "{name}: no {w} in {text}");
        }
        if let Ok(chain) = shape::latency(t, f, 4) {
            let bases: Vec<Reg> = chain.iter().flat_map(|i| t.address_bases(i)).collect();
            assert!(
                chain
                    .iter()
                    .all(|i| shape::written(i).iter().all(|w| !bases.contains(w)
                        || i.form
                            .mc_operands()
                            .iter()
                            .any(|m| m.operand.tied_to().is_some()))),
                "{name}: a chain through an address: {chain:?}"
            );
        }
    }
}

/// The placements reach the kernel: aligned accesses at their blocks,
/// split ones across a line boundary, a misaligned stream half an access
/// off (x86, where a displacement reaches any byte).
#[test]
fn placements_put_x86_accesses_where_they_say() {
    let t = target(Arch::X86_64);
    let f = crate::isa::Isa::get(Arch::X86_64)
        .instr("VMOVUPSZmr")
        .unwrap();
    let body = shape::throughput(t, f, 2).unwrap();
    for (placement, want) in [
        (data::Placement::Aligned, [8192, 8256]),
        (data::Placement::LineSplit, [8192 + 32, 8192 + 160]),
        (data::Placement::Misaligned, [8192 + 32, 8192 + 96]),
    ] {
        let text = build_placed(t, &body, 1, placement).unwrap().text();
        for d in want {
            assert!(
                text.contains(&format!("[rcx + {d}]")),
                "{placement:?}: no displacement {d} in {text}"
            );
        }
    }
}

/// A body that stores nothing reads every 64-byte access from one line;
/// its narrower loads, and the 64-byte accesses of a body that stores,
/// keep consecutive blocks ([`data::Slots::loads_only`]).
#[test]
fn line_sized_loads_share_one_line_unless_the_body_stores() {
    let t = target(Arch::X86_64);
    let isa = crate::isa::Isa::get(Arch::X86_64);
    // The displacements of the lines of `body`'s kernel that hold `of`.
    let displacements_in = |body: &[Inst], of: &str| -> Vec<String> {
        let text = build(t, body, 2).unwrap().text();
        text.lines()
            .filter(|l| l.contains(of))
            .filter_map(|l| l.split_once(" + ")?.1.split_once(']'))
            .map(|(d, _)| d.to_string())
            .collect()
    };
    let displacements = |name: &str| {
        let body = shape::throughput(t, isa.instr(name).unwrap(), 4).unwrap();
        displacements_in(&body, "")
    };
    let d = displacements("VPADDDZrm");
    assert_eq!(d.len(), 8, "{d:?}");
    assert!(d.iter().all(|x| x == "8192"), "512-bit loads: {d:?}");
    assert_eq!(displacements("VPADDDZ256rm")[..3], ["8192", "8224", "8256"]);
    assert_eq!(displacements("VMOVUPSZmr")[..3], ["8192", "8256", "8320"]);
    // A mix: register forms beside the load leave it on its line; a
    // store beside it, or a `lea`, puts every access in a block apart.
    let mix = |names: &[&str]| {
        let mut body: Vec<Inst> = Vec::new();
        for n in names {
            let regs: Vec<_> = body.iter().flat_map(|i| t.inst_regs(i)).collect();
            let f = isa.instr(n).unwrap();
            body.extend(shape::throughput_avoiding(t, f, 2, &regs).unwrap());
        }
        displacements_in(&body, "zmmword")
    };
    let with_adds = mix(&["VPADDDZrm", "ADD64rr"]);
    assert!(with_adds.len() >= 2, "{with_adds:?}");
    assert!(with_adds.iter().all(|x| x == "8192"), "{with_adds:?}");
    for other in ["VMOVUPSZmr", "LEA64r"] {
        let apart = mix(&["VPADDDZrm", other]);
        assert!(apart.len() >= 2, "{other}: {apart:?}");
        assert!(apart.windows(2).all(|w| w[0] != w[1]), "{other}: {apart:?}");
    }
}

/// A body of pushes runs inside the loop's walk: its copies emitted once
/// per repetition (the walk is over the whole iteration), then the stack
/// pointer moved back once before the count-down; the push is no
/// implicit dependency to break, and no skip.
#[test]
fn a_push_body_moves_the_stack_pointer_back_once_an_iteration() {
    let t = crate::arch::target(Arch::X86_64);
    let f = crate::isa::Isa::get(Arch::X86_64).instr("PUSH64r").unwrap();
    assert_eq!(shape::skip_reason(t, f), None);
    assert!(crate::mode::common::implicit_dependency(t, f).is_empty());
    let body = shape::throughput(t, f, shape::COPIES).unwrap();
    let text = build(t, &body, 2).unwrap().text();
    let in_loop: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with(LOOP_LABEL))
        .map(str::trim)
        .collect();
    let pushes = in_loop.iter().filter(|l| l.starts_with("push")).count();
    assert_eq!(pushes, 2 * body.len(), "{text}");
    let at = |s: &str| in_loop.iter().position(|l| *l == s);
    let walk = format!("lea rsp, [rsp + {}]", 2 * 8 * body.len());
    let (walk, dec) = (at(&walk), at("dec r15"));
    assert!(walk.is_some() && walk < dec, "{text}");
}

/// The wide primer: for x86 with AVX-512 (an x86 host that has it, or any
/// other host, which only writes x86 kernels), a checked kernel of
/// independent `vaddpd zmm`; no primer on the other arches, nor on an x86
/// host without AVX-512.
#[test]
fn the_wide_primer_is_512_bit_fp_adds_where_the_host_has_them() {
    for arch in ARCHES {
        let got = wide_primer(target(arch)).unwrap_or_else(|e| panic!("{arch}: {e}"));
        // Elsewhere x86 kernels are only written, for the widest host.
        #[cfg(target_arch = "x86_64")]
        let host_avx512 = std::arch::is_x86_feature_detected!("avx512f");
        #[cfg(not(target_arch = "x86_64"))]
        let host_avx512 = true;
        let avx512 = arch == Arch::X86_64 && host_avx512;
        let Some(k) = got else {
            assert!(!avx512, "{arch}: no primer on a host with AVX-512");
            continue;
        };
        assert!(avx512, "{arch}: a primer without AVX-512\n{}", k.text());
        let adds = k
            .lines
            .iter()
            .filter(|l| l.text.contains("vaddpd zmm"))
            .count();
        assert_eq!(adds, shape::COPIES, "{}", k.text());
    }
}

/// The calibration beside wide bodies is the add chain with a copy of the
/// primer's form after every [`WIDE_CHAIN_STRIDE`] adds, the copies of
/// other registers than the chain's; where there is no primer there is
/// no such chain.
#[test]
fn the_wide_chain_is_the_add_chain_beside_the_primers_form() {
    for arch in ARCHES {
        let t = target(arch);
        let primer = wide_primer(t).unwrap_or_else(|e| panic!("{arch}: {e}"));
        let got = wide_add_chain(t, 64, 2).unwrap_or_else(|e| panic!("{arch}: {e}"));
        let Some(k) = got else {
            assert!(primer.is_none(), "{arch}: a primer but no wide chain");
            continue;
        };
        assert!(primer.is_some(), "{arch}: a wide chain but no primer");
        let text = k.text();
        let adds = text.matches("add rax, rbx").count();
        let wide: Vec<&str> = text.lines().filter(|l| l.contains("vaddpd zmm")).collect();
        assert_eq!(adds, 128, "{text}");
        assert_eq!(wide.len(), 128 / WIDE_CHAIN_STRIDE, "{text}");
        assert!(
            wide.iter()
                .all(|l| !l.contains("rax") && !l.contains("rbx")),
            "{text}"
        );
        let plain = add_chain(t, 64, 2).unwrap().text();
        assert_eq!(plain.matches("add rax, rbx").count(), 128, "{plain}");
    }
}

/// A throughput body that reads and writes memory walks its base a line
/// past its blocks every iteration and back round [`data::STREAM_WINDOW`]
/// ([`build_streamed`]); a chain's kernel ([`build`]), a body that only
/// stores and one that only loads keep their addresses. On an x86 host
/// the streamed kernel runs through many windows without a fault.
#[test]
fn a_read_modify_write_streams_its_base_and_nothing_else_does() {
    let t = target(Arch::X86_64);
    let isa = crate::isa::Isa::get(Arch::X86_64);
    let body_of = |name: &str| shape::throughput(t, isa.instr(name).unwrap(), 4).unwrap();
    let aligned = data::Placement::Aligned;
    let rmw = body_of("ADD64mi8");
    let base = t.address_bases(&rmw[0])[0];
    let base = crate::arch::container_in(Arch::X86_64, "GR64", base)
        .unwrap()
        .name()
        .to_lowercase();
    // 4 copies of 8 bytes, 6 times: 192 bytes, 3 lines.
    let text = build_streamed(t, &rmw, 6, aligned).unwrap().text();
    let mask = data::VALUES | u64::from(data::STREAM_WINDOW - 1);
    let walk = [format!("add {base}, 192"), format!("and {base}, {mask}")];
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at: Vec<usize> = walk
        .iter()
        .map(|w| {
            lines
                .iter()
                .position(|l| l == w)
                .unwrap_or_else(|| panic!("no `{w}` in\n{text}"))
        })
        .collect();
    let last_rmw = lines
        .iter()
        .rposition(|l| l.contains("add qword ptr"))
        .unwrap();
    let count_down = lines.iter().position(|l| l.starts_with("dec ")).unwrap();
    assert!(
        last_rmw < at[0] && at[0] + 1 == at[1] && at[1] < count_down,
        "{text}"
    );
    // 5 copies of 8 bytes: 40 bytes, a line.
    let one = build_streamed(t, &body_of("ADD64mi8")[..1], 5, aligned)
        .unwrap()
        .text();
    assert!(one.contains(&format!("add {base}, 64\n")), "{one}");
    for (name, kernel) in [
        ("ADD64mi8 as a chain's", build(t, &rmw, 6).unwrap()),
        (
            "MOV64mr",
            build_streamed(t, &body_of("MOV64mr"), 6, aligned).unwrap(),
        ),
        (
            "ADD64rm",
            build_streamed(t, &body_of("ADD64rm"), 6, aligned).unwrap(),
        ),
    ] {
        let text = kernel.text();
        assert!(!text.contains("and r"), "{name} streams:\n{text}");
    }
    #[cfg(target_arch = "x86_64")]
    {
        let once = build_streamed(t, &rmw, 6, aligned).unwrap();
        let twice = build_streamed(t, &rmw, 12, aligned).unwrap();
        let cost = body_cost(t, &once, &twice, &quick()).unwrap();
        assert!(cost.cycles > 0.0, "{cost:?}");
    }
}
