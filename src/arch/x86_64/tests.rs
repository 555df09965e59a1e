use super::*;
use crate::arch::{reg_imm_only, KernelFrame};
use crate::isa::Isa;
use std::collections::BTreeMap;

fn isa() -> &'static Isa {
    Isa::get(Arch::X86_64)
}

/// Runs example/encode/print/check over every reg/imm form; returns
/// (ok, unchecked, mismatch, unsupported) with reasons, and writes the
/// rows to `WINIC_X86_DUMP` when set (for the llvm-mc cross-check).
fn sweep() -> (
    usize,
    BTreeMap<String, usize>,
    Vec<String>,
    BTreeMap<String, usize>,
) {
    let t = X86_64;
    let (mut ok, mut unchecked, mut mism, mut unsup) =
        (0, BTreeMap::new(), Vec::new(), BTreeMap::new());
    let mut dump = String::new();
    for form in isa()
        .real_instrs()
        .filter(reg_imm_only)
        .step_by(crate::test_stride())
    {
        let inst = match t.example(form) {
            Ok(i) => i,
            Err(e) => {
                if std::env::var("WINIC_X86_UNSUP").is_ok() {
                    eprintln!("UNSUP {} {e}", form.name());
                }
                *unsup.entry(e.to_string()).or_insert(0) += 1;
                continue;
            }
        };
        let bytes = t
            .encode(&inst)
            .unwrap_or_else(|e| panic!("{}: {e}", form.name()));
        let text = t
            .print(&inst)
            .unwrap_or_else(|e| panic!("{}: {e}", form.name()));
        dump.push_str(&format!(
            "{}\t{}\t{}\n",
            form.name(),
            text,
            checker_hex(&bytes)
        ));
        match t.check(&inst, &bytes, &text) {
            Check::Ok => ok += 1,
            Check::Unchecked(r) => *unchecked.entry(r).or_insert(0) += 1,
            Check::Mismatch(m) => mism.push(format!("{}: {m}", form.name())),
        }
    }
    if let Ok(path) = std::env::var("WINIC_X86_DUMP") {
        std::fs::write(path, dump).expect("dump");
    }
    (ok, unchecked, mism, unsup)
}

fn checker_hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An instance of record `name` with operands given by name (register
/// names as LLVM spells them, or numbers); tied operands follow.
fn inst(name: &str, vals: &[(&str, &str)]) -> Inst {
    let form = isa().instr(name).expect("record");
    let mc = form.mc_operands();
    let value = |v: &str| match v.parse::<i64>() {
        Ok(x) => OpValue::Imm(x),
        Err(_) => OpValue::Reg(isa().register(v).expect("register")),
    };
    let mut ops: Vec<Option<OpValue>> = mc
        .iter()
        .map(|m| {
            vals.iter()
                .find(|(n, _)| *n == m.name)
                .map(|(_, v)| value(v))
        })
        .collect();
    for i in 0..mc.len() {
        if ops[i].is_none() {
            let t = mc[i].operand.tied_to().expect("every untied operand given");
            let k = mc.iter().position(|o| o.operand.index() == t).expect("tie");
            ops[i] = ops[k];
        }
    }
    Inst {
        form,
        ops: ops.into_iter().map(|o| o.expect("value")).collect(),
    }
}

fn hex_of(i: &Inst) -> String {
    checker_hex(&X86_64.encode(i).expect("encodes"))
}

#[test]
fn evex_masked_form_matches_llvm_mc() {
    let i = inst(
        "VADDPSZrrk",
        &[
            ("dst", "ZMM1"),
            ("mask", "K1"),
            ("src1", "ZMM2"),
            ("src2", "ZMM3"),
        ],
    );
    assert_eq!(hex_of(&i), "62 f1 6c 49 58 cb");
    assert_eq!(
        X86_64.print(&i).unwrap(),
        "{evex} vaddps zmm1 {k1}, zmm2, zmm3"
    );
}

#[test]
fn evex_rounding_form_matches_llvm_mc() {
    let i = inst(
        "VADDPSZrrb",
        &[
            ("dst", "ZMM1"),
            ("src1", "ZMM2"),
            ("src2", "ZMM3"),
            ("rc", "1"),
        ],
    );
    assert_eq!(hex_of(&i), "62 f1 6c 38 58 cb");
    assert_eq!(
        X86_64.print(&i).unwrap(),
        "{evex} vaddps zmm1, zmm2, zmm3, {rd-sae}"
    );
}

#[test]
fn vex_form_matches_llvm_mc() {
    let i = inst(
        "VADDPSrr",
        &[("dst", "XMM1"), ("src1", "XMM2"), ("src2", "XMM3")],
    );
    assert_eq!(hex_of(&i), "c5 e8 58 cb");
    assert_eq!(X86_64.print(&i).unwrap(), "{vex} vaddps xmm1, xmm2, xmm3");
}

/// Far `call`/`jmp` through memory and the 16-bit `pushf`/`popf` print
/// as GNU as 2.40 and llvm-mc 19 both read them back into the same bytes
/// (LLVM's own text, `lcall [rcx]`, `pushf`, names other forms).
#[test]
fn far_transfers_and_16_bit_flags_print_what_assembles_back() {
    for (name, hex, text) in [
        ("FARCALL32m", "ff 19", "call fword ptr [rcx]"),
        ("FARCALL64m", "48 ff 19", "rex64 call fword ptr [rcx]"),
        ("FARCALL16m", "66 ff 19", "data16 call fword ptr [rcx]"),
        ("FARJMP32m", "ff 29", "jmp fword ptr [rcx]"),
        ("FARJMP64m", "48 ff 29", "rex64 jmp fword ptr [rcx]"),
        ("FARJMP16m", "66 ff 29", "data16 jmp fword ptr [rcx]"),
        ("PUSHF16", "66 9c", "pushfw"),
        ("POPF16", "66 9d", "popfw"),
    ] {
        let form = Isa::get(Arch::X86_64).instr(name).unwrap();
        let i = X86_64.example(form).unwrap();
        assert_eq!(hex_of(&i), hex, "{name}");
        assert_eq!(X86_64.print(&i).unwrap(), text, "{name}");
    }
}

#[test]
fn rex_w_form_matches_llvm_mc() {
    let i = inst("ADD64rr", &[("src1", "RCX"), ("src2", "RDX")]);
    assert_eq!(hex_of(&i), "48 01 d1");
    assert_eq!(X86_64.print(&i).unwrap(), "add rcx, rdx");
}

#[test]
fn immediate_forms_match_llvm_mc() {
    let i = inst("ADD64ri32", &[("src1", "RCX"), ("src2", "4660")]);
    assert_eq!(hex_of(&i), "48 81 c1 34 12 00 00");
    let i = inst("MOV64ri", &[("dst", "RCX"), ("src", "4660")]);
    assert_eq!(hex_of(&i), "48 b9 34 12 00 00 00 00 00 00");
    assert_eq!(X86_64.print(&i).unwrap(), "movabs rcx, 4660");
    let i = inst("SHL64ri", &[("src1", "R8"), ("src2", "3")]);
    assert_eq!(hex_of(&i), "49 c1 e0 03");
}

#[test]
fn wrong_byte_is_a_mismatch() {
    let i = X86_64.example(isa().instr("VADDPSZrr").unwrap()).unwrap();
    let mut b = X86_64.encode(&i).unwrap();
    let text = X86_64.print(&i).unwrap();
    assert_eq!(X86_64.check(&i, &b, &text), Check::Ok);
    let op = b.len() - 2;
    b[op] = 0x59; // vmulps
    assert!(matches!(X86_64.check(&i, &b, &text), Check::Mismatch(_)));
}

#[test]
fn iced_decodes_what_capstone_cannot() {
    let i = X86_64.example(isa().instr("VADDPHZrr").unwrap()).unwrap();
    let mut b = X86_64.encode(&i).unwrap();
    let text = X86_64.print(&i).unwrap();
    assert_eq!(X86_64.check(&i, &b, &text), Check::Ok);
    let last = b.len() - 1;
    b[last] ^= 0x01; // another source register
    assert!(matches!(X86_64.check(&i, &b, &text), Check::Mismatch(_)));
}

#[test]
fn out_of_range_immediates_are_refused() {
    let i = inst("ADD64ri8", &[("src1", "RCX"), ("src2", "300")]);
    assert!(matches!(X86_64.encode(&i), Err(EncodeError::BadOperand(_))));
    let i = inst(
        "VADDPSZrrb",
        &[
            ("dst", "ZMM1"),
            ("src1", "ZMM2"),
            ("src2", "ZMM3"),
            ("rc", "4"),
        ],
    );
    assert!(matches!(X86_64.encode(&i), Err(EncodeError::BadOperand(_))));
}

#[test]
fn reserved_registers_and_features() {
    for name in ["RSP", "ESP", "SP", "SPL", "RIP", "R15", "R15D", "R15B"] {
        assert!(
            X86_64.reserved(isa().register(name).unwrap()).is_some(),
            "{name}"
        );
    }
    assert!(X86_64.reserved(isa().register("RCX").unwrap()).is_none());
    assert_eq!(
        X86_64.register_feature(isa().register("R17D").unwrap()),
        Some("egpr")
    );
    assert_eq!(X86_64.register_feature(isa().register("R9").unwrap()), None);
}

#[test]
fn examples_never_use_reserved_registers_and_keep_registers_distinct() {
    for form in isa().real_instrs().filter(reg_imm_only) {
        let Ok(i) = X86_64.example(form) else {
            continue;
        };
        let mc = form.mc_operands();
        let mut seen: Vec<Reg> = Vec::new();
        for (m, v) in mc.iter().zip(&i.ops) {
            let OpValue::Reg(r) = *v else { continue };
            assert!(
                X86_64.reserved(r).is_none(),
                "{}: {}",
                form.name(),
                r.name()
            );
            assert!(
                X86_64.register_feature(r).is_none(),
                "{}: {}",
                form.name(),
                r.name()
            );
            if m.operand.tied_to().is_none() {
                let clash = seen.iter().any(|s| s.overlaps(r));
                assert!(!clash, "{}: {} twice", form.name(), r.name());
                seen.push(r);
            }
        }
    }
}

#[test]
fn every_reg_imm_form_encodes_prints_and_checks() {
    let (ok, unchecked, mism, unsup) = sweep();
    eprintln!("ok {ok}");
    eprintln!("unchecked {unchecked:#?}");
    let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
    for (k, v) in &unsup {
        let key: String = k.chars().take(60).collect();
        *grouped.entry(key).or_insert(0) += v;
    }
    eprintln!("unsupported {grouped:#?}");
    for m in mism.iter().take(400) {
        eprintln!("MISMATCH {m}");
    }
    eprintln!("mismatch {}", mism.len());
    assert!(mism.is_empty(), "{} mismatches", mism.len());
    let apx: usize = unsup
        .iter()
        .filter(|(k, _)| k.contains("APX"))
        .map(|(_, v)| v)
        .sum();
    let total = ok + unchecked.values().sum::<usize>() + unsup.values().sum::<usize>();
    let share = (ok + unchecked.values().sum::<usize>()) as f64 / (total - apx) as f64;
    assert!(share >= 0.97, "ok+unchecked {share:.4} of non-APX forms");
}

/// Each form of `cases` runs (`None`) or is refused with a reason that
/// contains the text given.
fn assert_reasons(cases: &[(&str, Option<&str>)]) {
    for &(name, want) in cases {
        let got = X86_64.cannot_run(isa().instr(name).unwrap());
        match (want, &got) {
            (None, None) => {}
            (Some(w), Some(g)) if g.contains(w) => {}
            _ => panic!("{name}: want {want:?}, got {got:?}"),
        }
    }
}

/// The faults iced does not describe are skipped with their reason, and
/// everyday forms are not (RDPKRUr died of SIGSEGV on a Zen 3 whose OS
/// enables protection keys: ECX must be 0).
#[test]
fn value_dependent_faults_are_skipped_with_their_reason() {
    let cases = [
        ("RDPKRUr", Some("unless ECX is 0")),
        ("WRPKRUr", Some("memory protection keys")),
        ("XGETBV", Some("ECX selects")),
        ("DIV64r", None),
        ("IDIV8r", None),
        ("DIV64m", Some("divides by the data area's word")),
        ("CPUID", None),
        ("RDTSC", None),
        ("ADD64rr", None),
        ("RDRAND64r", None),
    ];
    assert_reasons(&cases);
}

/// The branches on rcx a kernel never takes run to the next instruction;
/// `loop` and `loopne`, taken every time, say why they do not.
#[test]
fn branches_on_rcx_run_when_never_taken() {
    assert_reasons(&[
        ("JRCXZ", None),
        ("JECXZ", None),
        ("LOOPE", None),
        ("LOOP", Some("taken every time")),
        ("LOOPNE", Some("taken every time")),
    ]);
    for name in ["JRCXZ", "LOOPE"] {
        let form = isa().instr(name).unwrap();
        assert!(cond::runs_anyway(&form), "{name}");
        assert_eq!(
            hex_of(&X86_64.example(form).unwrap()).len(),
            "e3 00".len(),
            "{name}"
        );
    }
}

/// A register division runs with the divisor 1 and the high half 0, so
/// that its quotient is the low half again and a chain of divisions never
/// faults; an 8-bit one with `ax` 0x40 (`ah` 0: 64 fits a signed byte).
#[test]
fn divisions_run_by_one_with_the_high_half_zero() {
    let values = |name: &str| {
        let inst = X86_64.instance(isa().instr(name).unwrap(), &[]).unwrap();
        let divisor = match inst.ops[0] {
            OpValue::Reg(r) => r,
            _ => panic!("{name}: {:?}", inst.ops),
        };
        let got: Vec<(String, u64)> = X86_64
            .address_offsets(&inst)
            .into_iter()
            .map(|(r, v)| {
                (
                    if r == divisor {
                        "divisor".into()
                    } else {
                        r.name().to_string()
                    },
                    v,
                )
            })
            .collect();
        got
    };
    let v = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
        pairs.iter().map(|(r, x)| (r.to_string(), *x)).collect()
    };
    assert_eq!(values("DIV64r"), v(&[("divisor", 1), ("RDX", 0)]));
    assert_eq!(values("IDIV32r"), v(&[("divisor", 1), ("EDX", 0)]));
    assert_eq!(values("DIV16r"), v(&[("divisor", 1), ("DX", 0)]));
    assert_eq!(values("IDIV8r"), v(&[("divisor", 1), ("AX", 0x40)]));
    assert!(values("ADD64rr").is_empty());
    // The low half, the quotient of every division by 1, fits a signed
    // register of each width: `idiv` never faults either.
    let word = frame::UNCRITICAL as u64;
    for bits in [16u32, 32, 64] {
        let low = word & (u64::MAX >> (64 - bits));
        assert!(low < 1 << (bits - 1), "{bits}");
    }
}

/// A form that excludes APX's extended GPRs (`NoEGPR`: shlx, andn) never
/// gets one when the legacy registers run out, nor does a plain form
/// (add): the instance fails instead. R16-R31 iced cannot encode, so
/// such an instance failed later, in the kernel, after a mix of three
/// forms had used up the others.
#[test]
fn instances_take_extended_gprs_only_where_required() {
    let legacy: Vec<Reg> = isa()
        .class("GR64")
        .unwrap()
        .members()
        .filter(|r| X86_64.register_feature(*r).is_none())
        .collect();
    for name in ["SHLX64rr", "ANDN64rr", "ADD64rr"] {
        let form = isa().instr(name).unwrap();
        let got = X86_64.instance(form, &legacy);
        assert!(got.is_err(), "{name}: {got:?}");
        // With legacy registers free, they are taken.
        let some = X86_64.instance(form, &legacy[..4]).unwrap();
        for k in 0..some.ops.len() {
            for r in X86_64.operand_regs(&some, k) {
                assert_eq!(X86_64.register_feature(r), None, "{name}: {r:?}");
            }
        }
    }
}

#[test]
fn forms_between_register_files_are_told_apart() {
    let crosses = |n: &str| X86_64.crosses_register_files(isa().instr(n).unwrap());
    // General-purpose to vector and back, EFLAGS from vector registers,
    // MMX to SSE.
    for n in [
        "MOVPDI2DIrr",
        "PEXTRDrr",
        "CVTTSS2SI64rr_Int",
        "PTESTrr",
        "MMX_CVTPI2PSrr",
    ] {
        assert!(crosses(n), "{n}");
    }
    for n in [
        "ADD64rr",
        "BTC64ri8",
        "VPADDDYrr",
        "ADDSDrr",
        "MMX_PANDNrr",
        "VFMADD213PDr",
    ] {
        assert!(!crosses(n), "{n}");
    }
}

#[test]
fn legacy_sse_and_vex_forms_are_mix_groups_of_their_own() {
    let form = |n: &str| isa().instr(n).unwrap();
    let groups: Vec<u8> = ["VADDPDrr", "ADDPDrr", "ADD64rr", "VPADDDYrr"]
        .iter()
        .map(|n| X86_64.mix_group(form(n)))
        .collect();
    assert_eq!(groups, [1, 2, 0, 1]);
    assert!(X86_64
        .cannot_mix(form("VADDPDrr"), form("ADDPDrr"))
        .is_some());
    assert!(X86_64
        .cannot_mix(form("ADD64rr"), form("ADDPDrr"))
        .is_none());
    assert!(X86_64
        .cannot_mix(form("VADDPDrr"), form("VPADDDYrr"))
        .is_none());
}

/// Pushes and pops run; the flags, a segment register or a frame loaded
/// from the stack, and `enter`/`leave`, say why they do not.
#[test]
fn stack_forms_run_except_those_that_load_state_from_the_stack() {
    let cases = [
        ("PUSH64r", None),
        ("POP64r", None),
        ("PUSH16i8", None),
        ("POP64rmm", None),
        ("PUSHF64", None),
        ("PUSHFS64", None),
        ("POPF64", Some("loads RFLAGS from the stack")),
        ("POPF16", Some("loads RFLAGS from the stack")),
        ("POPFS64", Some("writes a segment register")),
        ("POPGS16", Some("writes a segment register")),
        (
            "LEAVE64",
            Some("Leave builds or tears down a frame through RBP"),
        ),
        ("ENTER", Some("Enter builds or tears down a frame")),
    ];
    assert_reasons(&cases);
}

/// The loop's walk keeps the stack pointer in place: pushes are moved
/// back after the body, pops first moved down by what they rise, a body
/// that returns to its start (or never moves it) walks nothing, and
/// 16-bit forms move it by 2.
#[test]
fn a_body_that_moves_the_stack_pointer_walks_it_back_once() {
    let t = &X86_64;
    let ex = |name: &str| t.example(isa().instr(name).unwrap()).unwrap();
    let text =
        |insts: &[Inst]| -> Vec<String> { insts.iter().map(|i| t.print(i).unwrap()).collect() };
    let (push, pop, push16) = (ex("PUSH64r"), ex("POP64r"), ex("PUSH16r"));
    let w = stack::walk(&[push.clone(), push.clone(), push16.clone()]).unwrap();
    assert!(w.top.is_empty(), "{:?}", text(&w.top));
    assert_eq!(text(&w.bottom), ["lea rsp, [rsp + 18]"]);
    let walked: Vec<&str> = t.walked(&push).iter().map(|r| r.name()).collect();
    assert_eq!(walked, ["RSP"]);
    let w = stack::walk(&[pop.clone(), pop.clone()]).unwrap();
    assert_eq!(text(&w.top), ["lea rsp, [rsp - 16]"]);
    assert!(w.bottom.is_empty(), "{:?}", text(&w.bottom));
    // Down 8, back, up 8, back: moved down 8 first, up 8 after.
    let w = stack::walk(&[push.clone(), pop.clone(), pop.clone(), push.clone()]).unwrap();
    assert_eq!(text(&w.top), ["lea rsp, [rsp - 8]"]);
    assert_eq!(text(&w.bottom), ["lea rsp, [rsp + 8]"]);
    let w = stack::walk(&[push, pop]).unwrap();
    assert!(w.top.is_empty() && w.bottom.is_empty());
    let w = stack::walk(&[ex("ADD64rr")]).unwrap();
    assert!(w.is_empty() && t.walked(&ex("ADD64rr")).is_empty());
}

/// String operations encode as the one-byte opcodes assemblers write
/// (checked against GNU as 2.40 and llvm-mc 19, 2026-11-30), print as
/// LLVM does (`es:` before the destination), pass capstone's check, move
/// `rsi`/`rdi`, which the walk sets at the loop's top (reads and writes
/// apart), and keep their displacement 0.
#[test]
fn string_operations_encode_print_and_walk_their_pointers() {
    let t = &X86_64;
    let starts = crate::arch::Starts {
        reads: 0x4000_2000,
        writes: 0x4000_4400,
    };
    let cases = [
        (
            "MOVSB",
            "a4",
            "movsb byte ptr es:[rdi], byte ptr [rsi]",
            &["RSI", "RDI"][..],
        ),
        (
            "MOVSL",
            "a5",
            "movsd dword ptr es:[rdi], dword ptr [rsi]",
            &["RSI", "RDI"],
        ),
        ("LODSQ", "48ad", "lodsq rax, qword ptr [rsi]", &["RSI"]),
        ("STOSW", "66ab", "stosw word ptr es:[rdi], ax", &["RDI"]),
        ("SCASB", "ae", "scasb al, byte ptr es:[rdi]", &["RDI"]),
        (
            "CMPSQ",
            "48a7",
            "cmpsq qword ptr [rsi], qword ptr es:[rdi]",
            &["RSI", "RDI"],
        ),
    ];
    for (name, hex, text, moved) in cases {
        let form = isa().instr(name).unwrap();
        assert_eq!(crate::kernel::shape::skip_reason(t, form), None, "{name}");
        let inst = t.example(form).unwrap();
        let bytes = t.encode(&inst).unwrap();
        let got: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, hex, "{name}");
        assert_eq!(t.print(&inst).unwrap(), text, "{name}");
        assert!(matches!(t.check(&inst, &bytes, text), Check::Ok), "{name}");
        let mut walked: Vec<&str> = t.walked(&inst).iter().map(|r| r.name()).collect();
        walked.sort_unstable();
        let mut want = moved.to_vec();
        want.sort_unstable();
        assert_eq!(walked, want, "{name}");
        assert!(t.at_offset(&inst, 64).is_none(), "{name}");
        let w = t.walk(&[inst.clone(), inst], starts).unwrap();
        let top: Vec<String> = w.top.iter().map(|i| t.print(i).unwrap()).collect();
        for r in moved {
            let line = match *r {
                "RSI" => "mov esi, 1073750016",
                _ => "mov edi, 1073759232",
            };
            assert!(top.iter().any(|l| l == line), "{name}: {top:?}");
        }
        assert_eq!(top.len(), moved.len(), "{name}: {top:?}");
        assert!(w.bottom.is_empty(), "{name}");
    }
    // Without operands, as gcc writes them; `movsd` with operands is SSE's.
    assert_eq!(
        string::bare("movsb", &[]).as_deref(),
        Some("movsb byte ptr es:[rdi], byte ptr [rsi]")
    );
    assert_eq!(
        string::bare("scasd", &[]).as_deref(),
        Some("scasd eax, dword ptr es:[rdi]")
    );
    assert_eq!(string::bare("movsd", &["xmm0", "xmm1"]), None);
    assert_eq!(string::bare("add", &[]), None);
}

/// `bt [m], r` and relatives run: their bit offset register is an
/// address offset set to 0, so each access stays in its block; the
/// immediate forms and other memory forms have none.
#[test]
fn a_bit_offset_register_is_set_to_zero() {
    let t = &X86_64;
    let ex = |name: &str| t.example(isa().instr(name).unwrap()).unwrap();
    for name in ["BT64mr", "BTS32mr", "BTC16mr", "BTR64mr"] {
        let inst = ex(name);
        assert_eq!(
            crate::kernel::shape::skip_reason(t, inst.form),
            None,
            "{name}"
        );
        let offsets = t.address_offsets(&inst);
        assert_eq!(offsets.len(), 1, "{name}");
        assert_eq!(offsets[0].1, 0, "{name}");
        let kernel = crate::kernel::build(t, &[inst], 4).unwrap().text();
        let (_, set) = t.init_address(offsets[0].0, 0).unwrap();
        let set = t.print(&set[0]).unwrap();
        assert!(kernel.contains(&set), "{name}: {set}: {kernel}");
    }
    for name in ["BT64mi8", "ADD64mr", "BT64rr"] {
        assert!(t.address_offsets(&ex(name)).is_empty(), "{name}");
    }
}

/// A mask register starts with every lane on and a vector register with
/// the data value: a form of up to eight lanes under the data value's mask
/// would have no lane at all (a masked load of none took an assist).
#[test]
fn masks_start_with_every_lane_on() {
    let set_by = |name: &str| {
        let OpValue::Reg(reg) = crate::arch::reg_of(Arch::X86_64, name).unwrap() else {
            unreachable!()
        };
        let (_, insts) = X86_64.init(reg).unwrap();
        insts
            .iter()
            .filter(|i| i.form.name() == "MOV64ri")
            .map(|i| match i.ops[1] {
                OpValue::Imm(v) => v,
                _ => unreachable!(),
            })
            .collect::<Vec<i64>>()
    };
    assert_eq!(set_by("K1"), [frame::ALL_LANES]);
    assert_eq!(frame::ALL_LANES, -1);
    assert_eq!(set_by("XMM1"), [frame::UNCRITICAL]);
}

/// LLVM's `MRMXm`/`MRMXr` forms (reg field ignored) encode with 0 there,
/// as llvm-mc does (`nop dword ptr [rcx]` is `0f 1f 01`); a form whose
/// opcode's every iced code needs a feature the host lacks names it
/// (`v4fmaddps`: AVX512_4FMAPS, Knights Mill only; LLVM 19 asks for
/// avx512f alone); a 16-bit address cannot be written in 64-bit mode.
#[test]
fn ignored_reg_fields_knights_mill_and_16_bit_addresses() {
    let hex = |name: &str| hex_of(&X86_64.example(isa().instr(name).unwrap()).unwrap());
    assert_eq!(hex("NOOPL"), "0f 1f 01");
    assert_eq!(hex("NOOPWr"), "66 0f 1f c1");
    assert_eq!(hex("EXTRQI"), "66 0f 78 c1 02 02");
    let v4 = isa().instr("V4FMADDPSrm").unwrap();
    let codes = mapping::candidate_codes(&v4);
    assert!(!codes.is_empty());
    assert!(codes.iter().all(|c| c
        .cpuid_features()
        .contains(&iced_x86::CpuidFeature::AVX512_4FMAPS)));
    if host::has(iced_x86::CpuidFeature::AVX512_4FMAPS) == Some(false) {
        let why = X86_64.source_lacks(v4).expect("lacks AVX512_4FMAPS");
        assert!(why.contains("AVX512_4FMAPS"), "{why}");
    }
    for name in ["MOV8ao16", "MOV32o16a"] {
        let err = mapping::plan(&isa().instr(name).unwrap()).err();
        assert!(
            err.is_some_and(|e| e.contains("Not64BitMode")),
            "{name}: {err:?}"
        );
    }
}

/// A flags chain needs a reader of a flag its writer modifies: `inc`
/// leaves the carry alone, which is all `rcl` reads; `cmovne` reads the
/// zero flag `inc` writes; `adcx` writes only the carry `rcr` reads;
/// `bsf` leaves the carry undefined, which the core writes all the same.
#[test]
fn flags_meet_where_the_reader_reads_a_flag_the_writer_modifies() {
    let t = crate::arch::target(Arch::X86_64);
    let ex = |name: &str| t.example(isa().instr(name).unwrap()).unwrap();
    for (writer, reader, meet) in [
        ("INC32r", "RCL32r1", false),
        ("INC32r", "CMOV32rr", true),
        ("ADOX64rr", "RCR64r1", false),
        ("ADCX64rr", "RCR64r1", true),
        ("BSF32rr", "RCL32r1", true),
        ("ADD64rr", "SBB8ri", true),
    ] {
        assert_eq!(
            t.flags_meet(&ex(writer), &ex(reader)),
            meet,
            "{writer} then {reader}"
        );
    }
}

/// A destination the form also reads counts (an FMA's accumulator, a
/// merge-masked form's kept lanes, `vpternlogd`'s first table), so does
/// an implicit xmm0; a mask register and a zero-masked destination do not.
#[test]
fn vector_sources_count_what_a_form_reads() {
    let sources = |n: &str| X86_64.vector_sources(isa().instr(n).unwrap());
    let counted: Vec<(&str, usize)> = [
        "VSUBPSZ256rr",
        "VSUBPSZ256rrk",
        "VSUBPSZ256rrkz",
        "VFMADD213PSYr",
        "VFMADD213PSZ128rkz",
        "VPTERNLOGDZ256rri",
        "PBLENDVBrr0",
        "VADDSDrr",
        "ADD64rr",
        "VBROADCASTSSZ256rr",
    ]
    .iter()
    .map(|&n| (n, sources(n)))
    .collect();
    assert_eq!(
        counted,
        [
            ("VSUBPSZ256rr", 2),
            ("VSUBPSZ256rrk", 3),
            ("VSUBPSZ256rrkz", 2),
            ("VFMADD213PSYr", 3),
            ("VFMADD213PSZ128rkz", 3),
            ("VPTERNLOGDZ256rri", 3),
            ("PBLENDVBrr0", 3),
            ("VADDSDrr", 2),
            ("ADD64rr", 0),
            ("VBROADCASTSSZ256rr", 1),
        ]
    );
}
