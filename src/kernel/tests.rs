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
    let c = chain_cycles(form, 8);
    assert!(c.is_finite(), "{c}");
}

/// The two timing tests the issue asks for, on x86 hardware only (under
/// qemu-user the other arches' timings mean nothing). Generous bounds:
/// this machine is shared and its clock moves.
#[cfg(target_arch = "x86_64")]
#[test]
fn add_chain_is_one_cycle_and_imul_chain_three() {
    let add = (0..3)
        .map(|_| chain_cycles("ADD64rr", 16))
        .fold(f64::MAX, f64::min);
    eprintln!("add chain: {add:.3} cycles per add");
    assert!((0.8..1.25).contains(&add), "add: {add:.3} cycles");
    let imul = (0..3)
        .map(|_| chain_cycles("IMUL64rr", 16))
        .fold(f64::MAX, f64::min);
    eprintln!("imul chain: {imul:.3} cycles per imul");
    assert!((2.6..3.5).contains(&imul), "imul: {imul:.3} cycles");
}

/// Raw bodies that fault, per host arch (ISA manuals): (what, bytes,
/// registers to initialise, expected outcome).
fn faulting_bodies() -> Vec<(&'static str, Vec<u8>, Vec<&'static str>, ChildError)> {
    let sig = |s: &str| ChildError::Signal(s.into());
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
        let once = assemble(t, std::slice::from_ref(&line), &regs, 1).unwrap();
        let twice = assemble(t, &[line], &regs, 2).unwrap();
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
