use super::*;
use crate::arch::{reg_imm_only, target};
use crate::isa::{Arch, Isa};
use crate::kernel::{asm_file, build};

fn asm(arch: Arch, text: &str) -> Result<Program, AsmError> {
    assemble(target(arch), "k.s", text)
}

/// Every `step`-th register/immediate form of `arch` that has an example.
fn sample(arch: Arch, step: usize) -> Vec<crate::arch::Inst> {
    let t = target(arch);
    Isa::get(arch)
        .real_instrs()
        .filter(reg_imm_only)
        .step_by(step * crate::test_stride())
        .filter_map(|f| t.example(f).ok())
        .filter(|i| build(t, std::slice::from_ref(i), 1).is_ok())
        .collect()
}

#[test]
fn dumped_kernels_assemble_to_the_same_bytes() {
    for (arch, step) in [
        (Arch::X86_64, 400),
        (Arch::Aarch64, 400),
        (Arch::Riscv64, 150),
    ] {
        let t = target(arch);
        let mut n = 0;
        for inst in sample(arch, step) {
            let once = build(t, std::slice::from_ref(&inst), 1).unwrap();
            let twice = build(t, &[inst.clone(), inst.clone()], 2).unwrap();
            let file = asm_file(
                t,
                &format!("{}\nbody once and twice", inst.form.name()),
                &[("tp", &once), ("tp2", &twice)],
            );
            let p = assemble(t, "dump.s", &file).unwrap_or_else(|e| panic!("{e}\n{file}"));
            let want: Vec<u8> = once.bytes().into_iter().chain(twice.bytes()).collect();
            assert_eq!(p.code, want, "{arch} {}:\n{file}", inst.form.name());
            assert_eq!(p.label("tp"), Some(0));
            assert_eq!(p.label("tp2"), Some(once.bytes().len()));
            n += 1;
        }
        assert!(n >= 2, "{arch}: only {n} forms sampled");
    }
}

#[test]
fn a_winic_style_x86_file_assembles() {
    // The frame WINIC's own dumped x86 files use (Templates.cpp), with a
    // `.rept` body and every kind of comment.
    let src = "#define N edi
#define i r8d
/* WINIC
   template */
.intel_syntax noprefix
.text
.globl tp
.type tp, @function
.align 32
tp:
        push      rbp      # frame
        mov       rbp, rsp // also a comment
        xor       i, i
        test      N, N
        jle       done_tp
loop_tp:
        inc       i
.rept 3
        add rax, rbx
.endr
        cmp       i, N
        jl        loop_tp
done_tp:
        mov  rsp, rbp
        pop rbp
        ret
.size tp, .-tp
.section .note.GNU-stack,\"\",@progbits
";
    let p = asm(Arch::X86_64, src).unwrap_or_else(|e| panic!("{e}"));
    let texts: Vec<&str> = p.listing.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts.iter().filter(|t| **t == "add rax, rbx").count(), 3);
    assert!(texts.contains(&"xor       r8d, r8d"), "{texts:?}");
    let hex = |l: &Placed| {
        l.bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let by_text = |t: &str| p.listing.iter().find(|l| l.text.starts_with(t)).unwrap();
    // Intel SDM encodings: push rbp = 55, inc r8d = 41 ff c0, ret = c3;
    // jle forward over 4+9+3+3 bytes (rel8), jl back to loop_tp (rel8).
    assert_eq!(hex(by_text("push")), "55");
    assert_eq!(hex(by_text("inc")), "41ffc0");
    assert_eq!(hex(by_text("ret")), "c3");
    let jle = by_text("jle");
    let done = p.label("done_tp").unwrap();
    assert_eq!(jle.bytes[0], 0x7e);
    assert_eq!(jle.offset + 2 + jle.bytes[1] as usize, done);
    let jl = by_text("jl ");
    assert_eq!(jl.bytes[0], 0x7c);
    assert_eq!(
        (jl.offset + 2) as i64 + (jl.bytes[1] as i8) as i64,
        p.label("loop_tp").unwrap() as i64
    );
    assert_eq!(p.label("tp"), Some(0));
}

#[test]
fn branches_relax_to_rel32_when_rel8_does_not_reach() {
    let body = "add rax, rbx\n".repeat(50); // 150 bytes
    let src = format!(".intel_syntax noprefix\nf:\n{body}jne f\njmp g\n{body}g:\nret\n");
    let p = asm(Arch::X86_64, &src).unwrap();
    let jne = p
        .listing
        .iter()
        .find(|l| l.text.starts_with("jne"))
        .unwrap();
    assert_eq!(&jne.bytes[..2], &[0x0f, 0x85], "jne rel32");
    let jmp = p
        .listing
        .iter()
        .find(|l| l.text.starts_with("jmp"))
        .unwrap();
    assert_eq!(jmp.bytes[0], 0xe9, "jmp rel32");
    let rel = i32::from_le_bytes(jne.bytes[2..6].try_into().unwrap()) as i64;
    assert_eq!(jne.offset as i64 + 6 + rel, 0);
}

#[test]
fn aarch64_and_riscv_branches_and_pseudo_branches() {
    // b.ne and its `bne` spelling, cbnz; llvm-mc-19 encodings.
    let p = asm(
        Arch::Aarch64,
        "l:\n  subs x28, x28, #1\n  b.ne l\n  bne l\n  cbnz x1, l\n  b l\n",
    )
    .unwrap();
    let words: Vec<u32> = p
        .listing
        .iter()
        .map(|l| u32::from_le_bytes(l.bytes[..4].try_into().unwrap()))
        .collect();
    // b.ne -4: 0x54ffffe1; bne -8: 0x54ffffc1; cbnz x1, -12: 0xb5ffffa1; b -16: 0x17fffffc
    assert_eq!(
        &words[1..],
        &[0x54ffffe1, 0x54ffffc1, 0xb5ffffa1, 0x17fffffc]
    );
    let p = asm(
        Arch::Riscv64,
        "l: addi t6, t6, -1\n bnez t6, l\n blez a5, l\n j l\n",
    )
    .unwrap();
    let words: Vec<u32> = p
        .listing
        .iter()
        .map(|l| u32::from_le_bytes(l.bytes[..4].try_into().unwrap()))
        .collect();
    // bnez t6, -4 = bne t6, zero: 0xfe0f9ee3; blez a5, -8 = bge zero, a5: 0xfef05ce3; j -12: 0xff5ff06f
    assert_eq!(&words[1..], &[0xfe0f9ee3, 0xfef05ce3, 0xff5ff06f]);
}

#[test]
fn errors_point_at_the_offending_text() {
    let e = asm(Arch::X86_64, ".intel_syntax noprefix\n  addq rax, rbx\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 3));
    assert!(e.message.contains("unknown mnemonic `addq`"), "{e}");
    assert!(e.nearest.iter().any(|n| n == "add"), "{:?}", e.nearest);
    let e = asm(Arch::X86_64, ".intel_syntax noprefix\nadd rax, xmm1\n").unwrap_err();
    assert!(
        e.message.contains("no form of `add` takes these operands"),
        "{e}"
    );
    assert!(
        e.nearest.iter().any(|n| n.contains("(ADD64rr)")),
        "{:?}",
        e.nearest
    );
    let shown = e.to_string();
    assert!(
        shown.starts_with("k.s:2:1: cannot assemble `add rax, xmm1`"),
        "{shown}"
    );
    assert!(shown.contains("nearest valid forms"), "{shown}");
    let e = asm(Arch::X86_64, "add rax, rbx\n").unwrap_err();
    assert!(e.message.contains(".intel_syntax noprefix"), "{e}");
    let e = asm(Arch::Aarch64, "  b.ne nowhere\n").unwrap_err();
    assert_eq!(e.message, "undefined label `nowhere`");
    assert_eq!(e.col, 8);
    let e = asm(Arch::Riscv64, ".equ n, 4\n").unwrap_err();
    assert!(
        e.message
            .contains("unknown or malformed directive `.equ n, 4`"),
        "{e}"
    );
    assert!(e.message.contains(".option, .attribute"), "{e}");
    // An ISA directive is one arch's: x86 names none.
    let e = asm(Arch::X86_64, ".intel_syntax noprefix\n.arch armv8-a\n").unwrap_err();
    assert!(
        e.message
            .contains("unknown or malformed directive `.arch armv8-a`"),
        "{e}"
    );
    let e = asm(Arch::Riscv64, "/* open\nadd a0, a1, a2\n").unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (1, "`/*` comment is never closed")
    );
    let e = asm(Arch::Riscv64, ".rept 2\nadd a0, a1, a2\n").unwrap_err();
    assert_eq!((e.line, e.message.as_str()), (1, "`.rept` without `.endr`"));
    let e = asm(Arch::Riscv64, "#include \"x.h\"\n").unwrap_err();
    assert!(e.message.contains("`#include` is not supported"), "{e}");
    let e = asm(Arch::Riscv64, "a:\na:\n").unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (2, "label `a` is defined twice")
    );
    let e = asm(Arch::Riscv64, "1:\n j 1b\n").unwrap_err();
    assert!(e.message.contains("numeric local labels"), "{e}");
    let e = asm(Arch::X86_64, ".att_syntax\n").unwrap_err();
    assert!(e.message.contains("Intel syntax"), "{e}");
}

#[test]
fn defines_rept_alignment_and_comments() {
    let src = "#define ACC x5 // the accumulator
# a comment line
.text
.p2align 4
f: .rept 2
  .rept 2
    add ACC, ACC, x6 # comment
  .endr
.endr
.balign 8
g: ret
";
    let p = asm(Arch::Riscv64, src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.listing
            .iter()
            .filter(|l| l.text == "add x5, x5, x6")
            .count(),
        4
    );
    assert_eq!(p.label("f"), Some(0));
    // 4 adds = 16 bytes, already 8-aligned.
    assert_eq!(p.label("g"), Some(16));
    // `.align 3` on AArch64 is 8 bytes, padded with nops (d503201f).
    let p = asm(
        Arch::Aarch64,
        "add x1, x1, x2\n.align 3\nh: add x1, x1, x2\n",
    )
    .unwrap();
    assert_eq!(p.label("h"), Some(8));
    assert_eq!(&p.code[4..8], &0xd503201fu32.to_le_bytes());
}

#[test]
fn rept_expansion_is_bounded_before_it_is_allocated() {
    // Three levels of 100000 once asked for 4 GB and aborted winic.
    let src = "f:\n.rept 100000\n  .rept 100000\n    .rept 100000\n      add a0, a0, a1\n    .endr\n  .endr\n.endr\nret\n";
    let e = asm(Arch::Riscv64, src).unwrap_err();
    // The middle block is the first to pass the limit.
    assert_eq!((e.line, e.col), (3, 3), "{e}");
    assert_eq!(
        e.message,
        "`.rept 100000` (to the `.endr` of line 7) repeats 100000 statements (nested blocks \
         expanded): 100000 × 100000 = 10000000000 statements, more than the 1000000 winic \
         assembles after expansion"
    );
    // Blocks one after the other count together.
    let src = "add a0, a0, a1\n.rept 1000000\nadd a0, a0, a1\n.endr\n";
    let e = asm(Arch::Riscv64, src).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(
        e.message
            .contains("1000000 × 1 + 1 before it = 1000001 statements"),
        "{e}"
    );
    // Up to the limit is fine, nested or not (expanded only: assembling
    // a million lines takes a minute in a debug build).
    let expand = |text: &str| {
        let src = Src {
            file: "k.s",
            lines: text.lines().collect(),
        };
        preprocess(target(Arch::Riscv64).dialect(), &src, text)
    };
    let full = ".rept 1000\n.rept 1000\nnop\n.endr\n.endr\n";
    assert_eq!(expand(full).unwrap().len(), MAX_STATEMENTS);
    let e = expand(&format!("nop\n{full}")).unwrap_err();
    assert!(
        e.message.contains("1000 × 1000 + 1 before it = 1000001"),
        "{e}"
    );
    assert_eq!(MAX_STATEMENTS, 1_000_000);
    let src = ".rept 100\n.rept 10\nadd a0, a0, a1\n.endr\n.endr\n";
    assert_eq!(asm(Arch::Riscv64, src).unwrap().listing.len(), 1000);
}

#[test]
fn the_cli_test_files_assemble_on_every_arch() {
    for (arch, text) in [
        (Arch::Aarch64, ".text\n.globl tp\ntp:\nloop:\n.rept 12\n  add x1, x1, x2\n.endr\n  subs x0, x0, #1\n  b.ne loop\n  ret\n"),
        (Arch::Riscv64, ".text\n.globl tp\ntp:\nloop:\n.rept 12\n  add t0, t0, t1\n.endr\n  addi a0, a0, -1\n  bnez a0, loop\n  ret\n"),
    ] {
        let p = asm(arch, text).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(p.listing.len(), 15, "{arch}");
    }
}

/// Condition forms are codegen-only in LLVM, reached through one alias
/// per condition: every condition of `setcc` and `cmovcc` assembles, with
/// or without a memory operand, to the bytes GNU as gives (Intel SDM
/// Vol. 2: `0F 90+cc`, `0F 40+cc`).
#[test]
fn every_condition_of_setcc_and_cmovcc_assembles() {
    let t = target(Arch::X86_64);
    let cases: [(&str, &[u8]); 6] = [
        ("setl al", &[0x0f, 0x9c, 0xc0]),
        ("setne al", &[0x0f, 0x95, 0xc0]),
        ("setge byte ptr [rsi]", &[0x0f, 0x9d, 0x06]),
        ("cmovl rax, rbx", &[0x48, 0x0f, 0x4c, 0xc3]),
        ("cmovb r8w, r9w", &[0x66, 0x45, 0x0f, 0x42, 0xc1]),
        ("cmovg eax, dword ptr [rsi+8]", &[0x0f, 0x4f, 0x46, 0x08]),
    ];
    for (line, want) in cases {
        let p = assemble(t, "k.s", &format!(".intel_syntax noprefix\nf:\n{line}\n"))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(p.code, want, "{line}");
    }
    // Every spelling of every condition: LLVM's and its synonyms (`setz`,
    // `cmovnb`), as compilers write them.
    let spellings = crate::arch::x86_64::cond::SPELLINGS;
    for (k, c) in spellings
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.iter().map(move |c| (k, c)))
    {
        for (line, opcode) in [
            (format!("set{c} cl"), 0x90),
            (format!("cmov{c} ecx, edx"), 0x40),
        ] {
            let p = assemble(t, "k.s", &format!(".intel_syntax noprefix\nf:\n{line}\n"))
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(p.code[1], opcode + k as u8, "{line}: {:02x?}", p.code);
        }
    }
}

/// String operations as gcc writes them (no operands) and as LLVM and
/// objdump print them (`es:` before the destination), to the bytes GNU
/// as 2.40 makes of them; `push`/`pop` and `movsd`'s SSE meaning stay.
#[test]
fn string_operations_are_read_with_and_without_operands() {
    let t = crate::arch::target(Arch::X86_64);
    let cases: &[(&str, &[u8])] = &[
        ("movsb", &[0xa4]),
        ("movsq", &[0x48, 0xa5]),
        ("movsd", &[0xa5]),
        ("lodsb", &[0xac]),
        ("stosw", &[0x66, 0xab]),
        ("scasd", &[0xaf]),
        ("cmpsq", &[0x48, 0xa7]),
        ("movsb byte ptr es:[rdi], byte ptr [rsi]", &[0xa4]),
        ("stosq qword ptr es:[rdi], rax", &[0x48, 0xab]),
        ("movsd xmm0, xmm1", &[0xf2, 0x0f, 0x10, 0xc1]),
        ("push rbx", &[0x53]),
        ("pop r12", &[0x41, 0x5c]),
    ];
    for (line, want) in cases {
        let p = assemble(t, "k.s", &format!(".intel_syntax noprefix\nf:\n{line}\n"))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(p.code, *want, "{line}");
    }
}

/// `.p2align` with a fill and with the most bytes to skip, as GNU as
/// reads them (bytes from `as --64` 2.40): gcc writes `.p2align 4,,10`
/// before its loops, and winic padded to 16 anyway, so the loop of
/// `lfk10_differences.avx2` started 8 bytes later than in gcc's binary.
#[test]
fn alignment_skips_no_more_than_asked_and_fills_as_asked() {
    let p = asm(
        Arch::X86_64,
        ".intel_syntax noprefix\nf:\nadd rax, rbx\n.p2align 4,,2\nadd rax, rbx\n\
         .p2align 3,0xcc\nret\n",
    )
    .unwrap();
    let want = [0x48, 0x01, 0xd8, 0x48, 0x01, 0xd8, 0xcc, 0xcc, 0xc3];
    assert_eq!(p.code, want);
    for bad in [".p2align 4,,10,3", ".p2align 4,256", ".balign 16,,x"] {
        let e = asm(
            Arch::X86_64,
            &format!(".intel_syntax noprefix\nf:\n{bad}\nret\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(bad), "{bad}: {e}");
    }
}

/// VEX wherever VEX can say the line, as GNU as and llvm-mc write it
/// (bytes from `llvm-mc-19 -show-encoding`), though EVEX's compressed
/// displacement is shorter: gcc's `vsubsd xmm8, xmm7, [rax-192]` (in
/// `lfk10_differences.avx2`) was EVEX before, 7 bytes, and an AVX2-only
/// core (the zen3 guest) stopped on it with SIGILL. EVEX where only it
/// can: zmm, xmm16-31.
#[test]
fn vex_is_chosen_where_vex_can_say_the_line() {
    let t = crate::arch::target(Arch::X86_64);
    let cases: &[(&str, &[u8])] = &[
        (
            "vsubsd xmm8, xmm7, qword ptr [rax-192]",
            &[0xc5, 0x43, 0x5c, 0x80, 0x40, 0xff, 0xff, 0xff],
        ),
        (
            "vaddpd zmm1, zmm2, zmmword ptr [rax+128]",
            &[0x62, 0xf1, 0xed, 0x48, 0x58, 0x48, 0x02],
        ),
        (
            "vaddpd ymm17, ymm2, ymmword ptr [rax+64]",
            &[0x62, 0xe1, 0xed, 0x28, 0x58, 0x48, 0x02],
        ),
    ];
    for (line, want) in cases {
        let p = assemble(t, "k.s", &format!(".intel_syntax noprefix\nf:\n{line}\n"))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(p.code, *want, "{line}");
    }
}

#[test]
fn the_directives_gcc_writes_at_the_top_are_read() {
    // Heads of `aarch64-linux-gnu-gcc -S` and `riscv64-linux-gnu-gcc -S`
    // output (Debian's gcc 12), then one instruction.
    let heads = [
        (
            Arch::Aarch64,
            "\t.arch armv8.2-a+crc\n\t.file\t\"add.c\"\n\t.text\n\t.align\t2\n\
             f:\n\tadd x0, x0, #16\n\t.ident\t\"GCC: (Debian 12.2.0-14) 12.2.0\"\n",
        ),
        (
            Arch::Riscv64,
            "\t.file\t\"add.c\"\n\t.option nopic\n\t.attribute arch, \"rv64i2p1_m2p0_a2p1_f2p2_d2p2\"\n\
             \t.attribute unaligned_access, 0\n\t.attribute stack_align, 16\n\t.text\n\
             f:\n\taddi a0, a0, 16\n",
        ),
    ];
    for (arch, text) in heads {
        let p = asm(arch, text).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(p.code.len(), 4, "{arch:?}: one 4-byte instruction");
    }
}

#[test]
fn gccs_riscv_lines_assemble_to_gnu_as_bytes() {
    // Lines of riscv64-linux-gnu-gcc 12 -O3 -march=rv64gc output, and the
    // bytes riscv64-linux-gnu-as 2.40 makes of them (-mno-relax, no RVC:
    // objdump -d -M no-aliases of `.option norvc` code).
    let lines = [
        ("li\ta7,1073844224", "b7 98 01 40"),
        // GNU as starts with `addiw t3, zero, 1`; LLVM and winic with
        // `addi`, the same value.
        (
            "li\tt3,0x100000001b3",
            "13 0e 10 00 13 1e 8e 02 13 0e 3e 1b",
        ),
        ("fadd.d\tfa5,fa5,fa4", "d3 f7 e7 02"),
        ("fmadd.d\tfa5,fa3,fa4,fa5", "c3 f7 e6 7a"),
        ("sext.w\ta1,a1", "9b 85 05 00"),
        ("neg\ta6,t4", "33 08 d0 41"),
        ("jr\tra", "67 80 00 00"),
        ("sgt\ta4,a4,a1", "33 a7 e5 00"),
        ("fmv.d\tfa4,fa2", "53 07 c6 22"),
    ];
    for (line, want) in lines {
        let p = asm(Arch::Riscv64, &format!("f:\n\t{line}\n")).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<String> = p.code.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got.join(" "), want, "{line}");
    }
}

/// gcc's AArch64 output, as `scripts/validate.py` gives it to winic
/// (without OSACA's markers and `.file`/`.ident`): LLVM's aliases (`cmp x0,
/// 0`, `mov x2, 8320`, `lsl`, `tst`, `cinc`, `sxtl`) and immediates without
/// `#` assemble, each to an instruction capstone decodes back.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "arch-independent, and minutes under qemu: the x86-64 run covers it"
)]
fn gcc_aarch64_kernels_assemble() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("validation/asm");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".neon.s"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "{} AArch64 kernels in {dir:?}",
        files.len()
    );
    let mut failed = Vec::new();
    for path in &files {
        let text: String = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.contains("OSACA START MARKER") && !l.contains("OSACA END MARKER"))
            .filter(|l| {
                !l.trim_start().starts_with(".file") && !l.trim_start().starts_with(".ident")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        if let Err(e) = asm(Arch::Aarch64, &text) {
            failed.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// AArch64 aliases as gcc writes them assemble to llvm-mc 19's bytes
/// (`llvm-mc -triple=aarch64 -mattr=+neon -show-encoding`).
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "arch-independent, and slow under qemu: the x86-64 run covers it"
)]
fn aarch64_aliases_assemble_to_llvm_mc_bytes() {
    let cases: [(&str, [u8; 4]); 16] = [
        ("cmp x0, 0", [0x1f, 0x00, 0x00, 0xf1]),
        ("mov x19, 4598175219545276416", [0x13, 0xfa, 0xe7, 0xd2]),
        ("cinc x0, x1, lt", [0x20, 0xa4, 0x81, 0x9a]),
        ("cmp x0, #-5", [0x1f, 0x14, 0x00, 0xb1]),
        ("lsl x1, x2, 3", [0x41, 0xf0, 0x7d, 0xd3]),
        // Shifted registers of every type, as gcc writes them (no `#`):
        // llvm-mc 19's encodings.
        ("add x4, x3, x3, lsr 63", [0x64, 0xfc, 0x43, 0x8b]),
        ("eor x1, x2, x3, ror #5", [0x41, 0x14, 0xc3, 0xca]),
        ("sub w1, w2, w3, asr #7", [0x41, 0x1c, 0x83, 0x4b]),
        ("mov w20, 1048576000", [0x14, 0xd0, 0xa7, 0x52]),
        ("mov x0, -2", [0x20, 0x00, 0x80, 0x92]),
        ("and x1, x6, -4", [0xc1, 0xf4, 0x7e, 0x92]),
        ("tst x3, 1", [0x7f, 0x00, 0x40, 0xf2]),
        ("mvn x17, x14", [0xf1, 0x03, 0x2e, 0xaa]),
        ("ldr d2, [x3, -8]", [0x62, 0x80, 0x5f, 0xfc]),
        ("sxtl v0.4s, v1.4h", [0x20, 0xa4, 0x10, 0x0f]),
        ("mov x4, x9", [0xe4, 0x03, 0x09, 0xaa]),
    ];
    for (line, want) in cases {
        let p = asm(Arch::Aarch64, &format!("f:\n\t{line}\n"))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(p.code, want, "{line}");
    }
}

/// A memory operand without its size word takes the size its register
/// gives, to the bytes GNU as 2.40 and llvm-mc 19 give (`vmovupd ymm0,
/// [rcx+rax]`: `c5 fd 10 04 01`); where no operand gives one (`add
/// [rax], 1`, `movzx eax, [rsi]`) the line is refused with the sizes to
/// choose from, as both refuse it ("ambiguous operand size"), not
/// assembled as the shortest.
#[test]
fn a_memory_operand_without_its_size_takes_the_registers() {
    let t = target(Arch::X86_64);
    let code = |line: &str| {
        assemble(t, "k.s", &format!(".intel_syntax noprefix\nf:\n{line}\n")).map(|p| p.code)
    };
    let cases: [(&str, &[u8]); 4] = [
        ("vmovupd ymm0, [rcx+rax]", &[0xc5, 0xfd, 0x10, 0x04, 0x01]),
        ("vmovupd [rdx+32], ymm1", &[0xc5, 0xfd, 0x11, 0x4a, 0x20]),
        ("add rax, [rsi+8]", &[0x48, 0x03, 0x46, 0x08]),
        ("lea rax, [rcx+8]", &[0x48, 0x8d, 0x41, 0x08]),
    ];
    for (line, want) in cases {
        assert_eq!(
            code(line).unwrap_or_else(|e| panic!("{line}: {e}")),
            want,
            "{line}"
        );
    }
    for (line, sizes) in [
        (
            "add [rax], 1",
            &["`byte ptr`", "`word ptr`", "`dword ptr`", "`qword ptr`"][..],
        ),
        ("movzx eax, [rsi]", &["`byte ptr`", "`word ptr`"][..]),
    ] {
        let e = code(line).expect_err(line).to_string();
        assert!(e.contains("size is not given"), "{line}: {e}");
        for s in sizes {
            assert!(e.contains(s), "{line}: {s} missing in {e}");
        }
    }
}
