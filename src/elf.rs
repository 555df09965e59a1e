//! Kernels as static ELF executables (`winic emit --elf`): the kernel
//! function, then the target's start stub that calls it `iterations` times
//! and exits with status 0, in a minimal ELF64 little-endian executable
//! that Linux (and qemu-user, for another arch) runs as it is: no
//! interpreter, no libc, no relocations.
//!
//! Field names and values follow the System V gABI ("ELF-64 Object File
//! Format", chapters "ELF Header", "Program Header", "Sections"); the
//! machine numbers and RISC-V flags come from each arch's psABI.
//!
//! File layout:
//!
//! | file offset | what |
//! |---|---|
//! | 0 | ELF header (64 bytes) |
//! | 64 | program headers: `PT_LOAD` (R+X), `PT_GNU_STACK` (RW) |
//! | 0x100 ([`CODE_OFFSET`]) | code: the kernel (`kernel`), then the stub (`_start`, the entry) |
//! | after the code | `.symtab`, `.strtab`, `.shstrtab`, the section headers |
//!
//! The one `PT_LOAD` segment maps the file from offset 0 (headers and code)
//! at [`BASE`]: an offset of 0 is page-aligned for every page size (4, 16
//! or 64 KiB on AArch64), so the same file loads everywhere. The section
//! headers are not needed to run; they let `objdump -d` and `readelf -s`
//! show the code with its two symbols.

use crate::arch::{reg_imm_only, EncodeError, Inst, Line, Target};
use crate::error::Error;
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Flag, Instr, Isa};
use crate::kernel::{Kernel, KernelError};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Virtual address of the file's first byte (the traditional base of
/// static executables, above `vm.mmap_min_addr`).
pub const BASE: u64 = 0x40_0000;

/// File offset (and offset from [`BASE`]) of the code: after the headers,
/// 256-byte aligned so the kernel's loop starts cache-line aligned.
pub const CODE_OFFSET: u64 = 0x100;

/// `p_align` of the load segment: 64 KiB, the largest Linux page size.
const SEGMENT_ALIGN: u64 = 0x1_0000;

// e_ident (gABI "ELF Identification").
const ELFMAG: [u8; 4] = [0x7f, b'E', b'L', b'F'];
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
const EV_CURRENT: u8 = 1;
const ELFOSABI_SYSV: u8 = 0;
// e_type, e_machine.
const ET_EXEC: u16 = 2;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;
const EM_RISCV: u16 = 243;
/// RISC-V psABI: `EF_RISCV_RVC` (0x1, compressed instructions may occur)
/// | `EF_RISCV_FLOAT_ABI_DOUBLE` (0x4, LP64D: the frame saves fs0-fs11 as
/// doubles), what `riscv64-linux-gnu-gcc` gives RV64GC.
const EF_RISCV: u32 = 0x1 | 0x4;
// Program headers (gABI "Program Header"; PT_GNU_STACK from the LSB).
const PT_LOAD: u32 = 1;
const PT_GNU_STACK: u32 = 0x6474_e551;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
// Sections (gABI "Sections", "Symbol Table").
const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const STB_GLOBAL: u8 = 1;
const STT_FUNC: u8 = 2;

const EHDR_SIZE: u16 = 64;
const PHDR_SIZE: u16 = 56;
const SHDR_SIZE: u16 = 64;
const SYM_SIZE: u64 = 24;

/// The ELF `e_machine` of `arch`.
pub fn machine(arch: Arch) -> u16 {
    match arch {
        Arch::X86_64 => EM_X86_64,
        Arch::Aarch64 => EM_AARCH64,
        Arch::Riscv64 => EM_RISCV,
    }
}

/// The ELF `e_flags` of `arch`.
pub fn flags(arch: Arch) -> u32 {
    match arch {
        Arch::Riscv64 => EF_RISCV,
        Arch::X86_64 | Arch::Aarch64 => 0,
    }
}

/// A function symbol: name, offset in the code, size in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name (`kernel`, `_start`).
    pub name: String,
    /// Offset from the code's first byte.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn u64le(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn pad_to(out: &mut Vec<u8>, align: usize) {
    while !out.len().is_multiple_of(align) {
        out.push(0);
    }
}

/// One section header (gABI `Elf64_Shdr`).
struct Shdr {
    name: u32,
    ty: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// A string table: NUL first, then each name NUL-terminated.
fn strtab<'a>(names: impl IntoIterator<Item = &'a str>) -> (Vec<u8>, Vec<u32>) {
    let mut tab = vec![0u8];
    let mut at = Vec::new();
    for n in names {
        at.push(tab.len() as u32);
        tab.extend_from_slice(n.as_bytes());
        tab.push(0);
    }
    (tab, at)
}

/// The executable for `arch`: `code` loaded at `BASE + CODE_OFFSET`, entry
/// point `entry` bytes into it, `symbols` in `.symtab`.
pub fn write(arch: Arch, code: &[u8], entry: u64, symbols: &[Symbol]) -> Vec<u8> {
    write_with_data(arch, code, entry, symbols, None)
}

/// [`write`], and where `data` is given, its bytes loaded read-write
/// (never executable) at its address, a multiple of [`SEGMENT_ALIGN`]: a
/// third `PT_LOAD` segment, its bytes at the end of the file at an offset
/// of that alignment too (as the gABI asks of `p_offset` and `p_vaddr`).
pub fn write_with_data(
    arch: Arch,
    code: &[u8],
    entry: u64,
    symbols: &[Symbol],
    data: Option<(u64, &[u8])>,
) -> Vec<u8> {
    let code_end = CODE_OFFSET + code.len() as u64;
    let mut out = Vec::with_capacity(code_end as usize + 512);

    // Sections after the code (not loaded).
    let mut rest = Vec::new();
    let symtab_off = code_end.next_multiple_of(8);
    let (sym_names, sym_at) = strtab(symbols.iter().map(|s| s.name.as_str()));
    // Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size;
    // entry 0 is the undefined symbol.
    rest.extend_from_slice(&[0u8; SYM_SIZE as usize]);
    for (s, name) in symbols.iter().zip(&sym_at) {
        u32le(&mut rest, *name);
        rest.push((STB_GLOBAL << 4) | STT_FUNC);
        rest.push(0); // STV_DEFAULT
        u16le(&mut rest, 1); // .text
        u64le(&mut rest, BASE + CODE_OFFSET + s.offset);
        u64le(&mut rest, s.size);
    }
    let symtab_size = rest.len() as u64;
    let strtab_off = symtab_off + symtab_size;
    rest.extend_from_slice(&sym_names);
    let (sh_names, sh_at) = strtab([".text", ".symtab", ".strtab", ".shstrtab"]);
    let shstrtab_off = strtab_off + sym_names.len() as u64;
    rest.extend_from_slice(&sh_names);
    pad_to(&mut rest, 8);
    let shoff = symtab_off + rest.len() as u64;
    let sections = [
        Shdr {
            name: 0,
            ty: 0,
            flags: 0,
            addr: 0,
            offset: 0,
            size: 0,
            link: 0,
            info: 0,
            align: 0,
            entsize: 0,
        },
        Shdr {
            name: sh_at[0],
            ty: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            addr: BASE + CODE_OFFSET,
            offset: CODE_OFFSET,
            size: code.len() as u64,
            link: 0,
            info: 0,
            align: 16,
            entsize: 0,
        },
        Shdr {
            name: sh_at[1],
            ty: SHT_SYMTAB,
            flags: 0,
            addr: 0,
            offset: symtab_off,
            size: symtab_size,
            link: 3, // .strtab holds the names
            info: 1, // index of the first non-local symbol
            align: 8,
            entsize: SYM_SIZE,
        },
        Shdr {
            name: sh_at[2],
            ty: SHT_STRTAB,
            flags: 0,
            addr: 0,
            offset: strtab_off,
            size: sym_names.len() as u64,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
        Shdr {
            name: sh_at[3],
            ty: SHT_STRTAB,
            flags: 0,
            addr: 0,
            offset: shstrtab_off,
            size: sh_names.len() as u64,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
    ];

    // ELF header (Elf64_Ehdr).
    out.extend_from_slice(&ELFMAG);
    out.extend_from_slice(&[ELFCLASS64, ELFDATA2LSB, EV_CURRENT, ELFOSABI_SYSV, 0]);
    out.resize(16, 0); // EI_PAD
    u16le(&mut out, ET_EXEC); // e_type
    u16le(&mut out, machine(arch)); // e_machine
    u32le(&mut out, EV_CURRENT as u32); // e_version
    u64le(&mut out, BASE + CODE_OFFSET + entry); // e_entry
    u64le(&mut out, EHDR_SIZE as u64); // e_phoff: right after the header
    u64le(&mut out, shoff); // e_shoff
    u32le(&mut out, flags(arch)); // e_flags
    u16le(&mut out, EHDR_SIZE); // e_ehsize
    u16le(&mut out, PHDR_SIZE); // e_phentsize
    u16le(&mut out, if data.is_some() { 3 } else { 2 }); // e_phnum
    u16le(&mut out, SHDR_SIZE); // e_shentsize
    u16le(&mut out, sections.len() as u16); // e_shnum
    u16le(&mut out, 4); // e_shstrndx: .shstrtab
    debug_assert_eq!(out.len(), EHDR_SIZE as usize);

    // Program headers (Elf64_Phdr): p_type, p_flags, p_offset, p_vaddr,
    // p_paddr, p_filesz, p_memsz, p_align.
    let phdr = |out: &mut Vec<u8>, ty, fl, off, addr, size, align| {
        u32le(out, ty);
        u32le(out, fl);
        u64le(out, off);
        u64le(out, addr);
        u64le(out, addr);
        u64le(out, size);
        u64le(out, size);
        u64le(out, align);
    };
    phdr(
        &mut out,
        PT_LOAD,
        PF_R | PF_X,
        0,
        BASE,
        code_end,
        SEGMENT_ALIGN,
    );
    // No executable stack (the kernel would otherwise make it RWX).
    phdr(&mut out, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 16);
    let end = shoff + sections.len() as u64 * u64::from(SHDR_SIZE);
    let data_off = end.next_multiple_of(SEGMENT_ALIGN);
    if let Some((addr, bytes)) = data {
        debug_assert_eq!(addr % SEGMENT_ALIGN, 0);
        phdr(
            &mut out,
            PT_LOAD,
            PF_R | PF_W,
            data_off,
            addr,
            bytes.len() as u64,
            SEGMENT_ALIGN,
        );
    }
    debug_assert!(out.len() as u64 <= CODE_OFFSET);

    out.resize(CODE_OFFSET as usize, 0);
    out.extend_from_slice(code);
    out.resize(symtab_off as usize, 0);
    out.extend_from_slice(&rest);
    for s in &sections {
        u32le(&mut out, s.name);
        u32le(&mut out, s.ty);
        u64le(&mut out, s.flags);
        u64le(&mut out, s.addr);
        u64le(&mut out, s.offset);
        u64le(&mut out, s.size);
        u32le(&mut out, s.link);
        u32le(&mut out, s.info);
        u64le(&mut out, s.align);
        u64le(&mut out, s.entsize);
    }
    if let Some((_, bytes)) = data {
        out.resize(data_off as usize, 0);
        out.extend_from_slice(bytes);
    }
    out
}

/// What [`read`] finds in an ELF header and its program headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `EI_CLASS` (2: 64-bit).
    pub class: u8,
    /// `EI_DATA` (1: little-endian).
    pub data: u8,
    /// `e_type` (2: executable).
    pub ty: u16,
    /// `e_machine`.
    pub machine: u16,
    /// `e_flags`.
    pub flags: u32,
    /// `e_entry`.
    pub entry: u64,
    /// `e_shnum`.
    pub sections: u16,
    /// Program headers.
    pub segments: Vec<Segment>,
}

/// One program header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// `p_type`.
    pub ty: u32,
    /// `p_flags` (`PF_R` 4, `PF_W` 2, `PF_X` 1).
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

impl Header {
    /// The `PT_LOAD` segment holding virtual address `addr`.
    pub fn load_segment_of(&self, addr: u64) -> Option<&Segment> {
        self.segments
            .iter()
            .find(|s| s.ty == PT_LOAD && (s.vaddr..s.vaddr + s.memsz).contains(&addr))
    }
}

/// Reads back the ELF64 little-endian header and program headers of
/// `bytes` (what this module writes; enough to test it and the CLI).
pub fn read(bytes: &[u8]) -> Result<Header, String> {
    let u16_at = |o: usize| -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            bytes.get(o..o + 2).ok_or("truncated")?.try_into().unwrap(),
        ))
    };
    let u32_at = |o: usize| -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            bytes.get(o..o + 4).ok_or("truncated")?.try_into().unwrap(),
        ))
    };
    let u64_at = |o: usize| -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            bytes.get(o..o + 8).ok_or("truncated")?.try_into().unwrap(),
        ))
    };
    if bytes.get(..4) != Some(&ELFMAG[..]) {
        return Err("no ELF magic (7f 45 4c 46)".into());
    }
    if bytes[4] != ELFCLASS64 || bytes[5] != ELFDATA2LSB {
        return Err(format!(
            "not ELF64 little-endian (class {}, data {})",
            bytes[4], bytes[5]
        ));
    }
    let phoff = u64_at(32)? as usize;
    let phentsize = u16_at(54)? as usize;
    let phnum = u16_at(56)? as usize;
    let mut segments = Vec::new();
    for k in 0..phnum {
        let p = phoff + k * phentsize;
        segments.push(Segment {
            ty: u32_at(p)?,
            flags: u32_at(p + 4)?,
            offset: u64_at(p + 8)?,
            vaddr: u64_at(p + 16)?,
            filesz: u64_at(p + 32)?,
            memsz: u64_at(p + 40)?,
            align: u64_at(p + 48)?,
        });
    }
    Ok(Header {
        class: bytes[4],
        data: bytes[5],
        ty: u16_at(16)?,
        machine: u16_at(18)?,
        flags: u32_at(48)?,
        entry: u64_at(24)?,
        sections: u16_at(60)?,
        segments,
    })
}

/// The body `winic emit` wraps: one instance of `form`, as
/// [`crate::arch::Operands::example`] chooses its operands. (Throughput
/// and latency bodies will replace this.)
pub fn body_of(t: &dyn Target, form: Instr) -> Result<Vec<Inst>, EncodeError> {
    Ok(vec![t.example(form)?])
}

/// A kernel with its start stub: the code of an executable.
#[derive(Clone, Debug)]
pub struct Program {
    /// The arch.
    pub arch: Arch,
    /// The kernel's lines, then the stub's (labels are lines without bytes).
    pub lines: Vec<Line>,
    /// Size of the kernel function in bytes; the stub (the entry point)
    /// starts there.
    pub kernel_size: usize,
    /// Whether the kernel accesses winic's data area
    /// ([`crate::kernel::data`]): the executable then maps it, with its
    /// contents, where every kernel finds it.
    pub data: bool,
}

impl Program {
    /// The machine code: kernel, then stub.
    pub fn code(&self) -> Vec<u8> {
        self.lines.iter().flat_map(|l| l.bytes.clone()).collect()
    }

    /// The kernel function alone (the lines before the stub).
    pub fn kernel(&self) -> crate::kernel::Kernel {
        // The kernel's lines, without the `kernel:` symbol line before
        // them (the assembly file names the function itself).
        let mut size = 0;
        let lines = self
            .lines
            .iter()
            .skip_while(|l| l.bytes.is_empty() && !l.text.starts_with(crate::kernel::LOOP_LABEL))
            .take_while(|l| {
                let inside = size < self.kernel_size;
                size += l.bytes.len();
                inside
            })
            .cloned()
            .collect();
        crate::kernel::Kernel {
            lines,
            uninitialised: Vec::new(),
        }
    }

    /// The ELF executable.
    pub fn elf(&self) -> Vec<u8> {
        let code = self.code();
        let stub = (code.len() - self.kernel_size) as u64;
        let symbols = [
            Symbol {
                name: "kernel".into(),
                offset: 0,
                size: self.kernel_size as u64,
            },
            Symbol {
                name: "_start".into(),
                offset: self.kernel_size as u64,
                size: stub,
            },
        ];
        let area = self.data.then(crate::kernel::data::contents);
        write_with_data(
            self.arch,
            &code,
            self.kernel_size as u64,
            &symbols,
            area.as_deref().map(|b| (crate::kernel::data::BASE, b)),
        )
    }

    /// A listing: virtual address, bytes and text of every instruction.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        let mut addr = BASE + CODE_OFFSET;
        for l in &self.lines {
            if l.bytes.is_empty() {
                out.push_str(&format!("{:>10}  {}\n", "", l.text));
                continue;
            }
            let hex: Vec<String> = l.bytes.iter().map(|b| format!("{b:02x}")).collect();
            out.push_str(&format!(
                "{addr:#010x}  {:<30}  {}\n",
                hex.join(" "),
                l.text
            ));
            addr += l.bytes.len() as u64;
        }
        out
    }
}

/// `kernel` followed by `t`'s start stub, which calls it with
/// `iterations` (at least 1: the loop counts down after the body, so 0
/// would mean 2^64).
pub fn program(t: &dyn Target, kernel: &Kernel, iterations: u64) -> Result<Program, KernelError> {
    if iterations == 0 {
        return Err(EncodeError::BadOperand(
            "iterations 0: the loop counts down after running the body, give 1 or more".into(),
        )
        .into());
    }
    let kernel_size = kernel.bytes().len();
    let mut lines = vec![Line {
        text: "kernel:".into(),
        bytes: Vec::new(),
    }];
    lines.extend(kernel.lines.iter().cloned());
    lines.push(Line {
        text: "_start:".into(),
        bytes: Vec::new(),
    });
    lines.extend(t.start(iterations, -(kernel_size as i64))?);
    Ok(Program {
        arch: t.arch(),
        lines,
        kernel_size,
        data: false,
    })
}

/// What `winic emit` writes: the kernel of `name` on `arch` (body from
/// [`body_of`], `unroll` copies) with its start stub. Errors name the bad
/// value and what would be valid.
pub fn emit_form(arch: Arch, name: &str, unroll: usize, iterations: u64) -> Result<Program, Error> {
    let isa = Isa::get(arch);
    let form = crate::inspect::find(arch, name)?;
    if !form.is_real() {
        let close: Vec<&str> = isa
            .closest_instr_names(name, 50)
            .into_iter()
            .filter(|n| isa.instr(n).is_some_and(|i| i.is_real()))
            .take(5)
            .collect();
        return Err(Error::BadInput(format!(
            "{name} is a pseudo or codegen-only record of {arch}, not a machine instruction; closest real forms: {} (see `winic list --arch {arch}`)",
            close.join(", ")
        )));
    }
    // Registers, immediates and memory operands the kernel points at its
    // data area (`[base + disp]`, a gather's, a string operation's
    // `[rsi]`, an absolute `moffs`); not RIP-relative ones.
    let other: Vec<String> = form
        .mc_operands()
        .iter()
        .filter(|m| {
            !matches!(m.ty.kind(), OperandKind::Reg | OperandKind::Imm)
                && !m.ty.is_addressable_memory()
        })
        .map(|m| format!("{} ({:?})", m.name, m.ty.kind()))
        .collect();
    if !reg_imm_only(&form) && !other.is_empty() {
        return Err(Error::BadInput(format!(
            "{name} has operands that are neither registers, immediates nor plain memory references: {}; they cannot be emitted (see `winic show {name} --arch {arch}`)",
            other.join(", ")
        )));
    }
    let t = crate::arch::target(arch);
    // A form that reaches memory runs when its address is an operand the
    // kernel points at the data area (a base register, an absolute
    // address it sets), or the stack
    // pointer the loop's walk keeps in place (`push`, `pop`), and it
    // touches no other register the kernel reserves.
    let example = t.example(form).ok();
    let placed = example
        .as_ref()
        .is_some_and(|i| !t.address_bases(i).is_empty() || t.at_offset(i, 0).is_some());
    let kept = crate::kernel::shape::Walked::of_example(t, example.as_ref());
    let mut reserved: Vec<&str> = form
        .implicit_uses()
        .chain(form.implicit_defs())
        .filter(|r| t.reserved(*r).is_some() && !kept.holds(t, *r))
        .map(|r| r.name())
        .collect();
    reserved.sort_unstable();
    reserved.dedup();
    let reached = placed || !kept.is_empty();
    if let Some(why) = memory_access(&form).filter(|_| !reached || !reserved.is_empty()) {
        let because = if reserved.is_empty() {
            "not through an address operand the kernel points at its data area".to_string()
        } else {
            format!("through {}, which the kernel reserves", reserved.join(", "))
        };
        return Err(Error::BadInput(format!(
            "{name} accesses memory ({why}) {because}: only forms that address memory through a base register (or leave it alone) can be emitted (see `winic show {name} --arch {arch}`)"
        )));
    }
    let failed = |what: &str, e: KernelError| match e {
        KernelError::Encode(e) => {
            Error::Unsupported(format!("cannot encode {what} of {name} on {arch}: {e}"))
        }
        KernelError::Check(m) => Error::Failed(format!(
            "{what} of {name} on {arch}: decode check failed: {m}"
        )),
    };
    let body = body_of(t, form).map_err(|e| failed("the body", e.into()))?;
    // The throughput's kernel, as TP builds it (a read-modify-write's
    // base streams).
    let kernel =
        crate::kernel::build_streamed(t, &body, unroll, crate::kernel::data::Placement::Aligned)
            .map_err(|e| failed("the kernel", e))?;
    let mut p = program(t, &kernel, iterations).map_err(|e| failed("the start stub", e))?;
    p.data = placed;
    Ok(p)
}

/// Why `form`, though its operands are registers and immediates, reaches
/// memory through them (RISC-V and AArch64 loads take a base register;
/// x86 `push` and string forms address memory implicitly), or `None`.
/// Traps are let through: x86 `ud2` is marked `mayLoad` but faults before
/// any access, which is what emitting it is for.
fn memory_access(form: &Instr) -> Option<String> {
    if form.has(Flag::IsTrap) {
        return None;
    }
    let tmpl = form.asm_template();
    // `[$Rn, $offset]` (AArch64), `${imm12}(${rs1})` (RISC-V), but not
    // an SME tile slice such as `$ZAda[$Rv, $imm3]`.
    let address = tmpl
        .match_indices("[$")
        .any(|(at, _)| at == 0 || matches!(tmpl.as_bytes()[at - 1], b' ' | b',' | b'{' | b'\t'))
        || tmpl.contains("($")
        || tmpl.contains("(${")
        || form
            .mc_operands()
            .iter()
            .any(|m| m.ty.print_method() == "printZeroOffsetMemOp");
    let mut why: Vec<&str> = Vec::new();
    if form.has(Flag::MayLoad) {
        why.push("mayLoad");
    }
    if form.has(Flag::MayStore) {
        why.push("mayStore");
    }
    if address {
        why.push("an address operand");
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// Writes `bytes` to `path` and makes it executable (mode 0755).
pub fn write_executable(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let io = |e| Error::Io(format!("writing {}", path.display()), e);
    std::fs::write(path, bytes).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::kernel::build;

    fn program_of(arch: Arch, form: &str, iterations: u64) -> Program {
        let t = target(arch);
        let form = Isa::get(arch).instr(form).unwrap();
        let kernel = build(t, &body_of(t, form).unwrap(), 2).unwrap();
        program(t, &kernel, iterations).unwrap()
    }

    #[test]
    fn headers_read_back_for_every_arch() {
        for (arch, form, machine, flags) in [
            (Arch::X86_64, "ADD64rr", 62, 0),
            (Arch::Aarch64, "ADDXrs", 183, 0),
            (Arch::Riscv64, "ADD", 243, 5),
        ] {
            let p = program_of(arch, form, 1000);
            let elf = p.elf();
            assert_eq!(&elf[..4], b"\x7fELF");
            let h = read(&elf).unwrap();
            assert_eq!((h.class, h.data, h.ty), (2, 1, 2), "{arch}");
            assert_eq!((h.machine, h.flags), (machine, flags), "{arch}");
            assert_eq!(h.entry, BASE + CODE_OFFSET + p.kernel_size as u64);
            assert_eq!(h.sections, 5);
            let load = h.load_segment_of(h.entry).expect("entry in a segment");
            assert_eq!(load.flags, PF_R | PF_X, "{arch}: R+X, not writable");
            assert_eq!((load.offset, load.vaddr), (0, BASE));
            assert_eq!(load.offset % load.align, load.vaddr % load.align);
            assert_eq!(load.filesz, CODE_OFFSET + p.code().len() as u64);
            assert!(load.filesz <= elf.len() as u64);
            // The code is in the file where the segment maps it.
            let code = p.code();
            let at = (h.entry - load.vaddr + load.offset) as usize;
            assert_eq!(&elf[at..at + 4], &code[p.kernel_size..p.kernel_size + 4]);
            let stack = h.segments.iter().find(|s| s.ty == PT_GNU_STACK).unwrap();
            assert_eq!(stack.flags, PF_R | PF_W, "{arch}: stack not executable");
        }
    }

    #[test]
    fn the_stub_calls_the_kernel_and_labels_both() {
        let p = program_of(Arch::Aarch64, "ADDXrs", 7);
        let text = p.listing();
        assert!(text.contains("kernel:\n"), "{text}");
        let start = text.find("_start:").unwrap();
        assert!(text[start..].contains("bl kernel"), "{text}");
        assert!(text[start..].contains("svc #0x0"), "{text}");
        // x86 kernels are not a multiple of 4 long: the stub follows anyway.
        let p = program_of(Arch::X86_64, "ADD64rr", 7);
        assert!(p.listing().contains("call kernel"));
    }

    #[test]
    fn zero_iterations_are_refused() {
        let t = target(Arch::X86_64);
        let form = Isa::get(Arch::X86_64).instr("ADD64rr").unwrap();
        let kernel = build(t, &body_of(t, form).unwrap(), 1).unwrap();
        let e = program(t, &kernel, 0).unwrap_err().to_string();
        assert!(e.contains("iterations 0"), "{e}");
    }

    #[test]
    fn forms_that_cannot_be_emitted_say_why() {
        let e = |arch, name| emit_form(arch, name, 1, 10).unwrap_err().to_string();
        let m = e(Arch::X86_64, "LOOP");
        assert!(
            m.contains("neither registers, immediates nor plain memory"),
            "{m}"
        );
        // An absolute address is put in the data area, as `[base]` is.
        assert!(emit_form(Arch::X86_64, "MOV64o64a", 1, 10).is_ok());
        let m = e(Arch::Aarch64, "ADDXrr");
        assert!(m.contains("pseudo") && m.contains("ADDXrs"), "{m}");
        let m = e(Arch::Riscv64, "NO_SUCH");
        assert!(m.contains("no instruction form 'NO_SUCH'"), "{m}");
        // Through the stack pointer, which the loop's walk keeps in place.
        for name in ["PUSH64r", "POP64r", "PUSH16i8", "MOVSB"] {
            let p = emit_form(Arch::X86_64, name, 1, 10).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.data, name == "MOVSB", "{name}: the data area");
        }
        // Through a base register: emitted, with the data area mapped.
        for (arch, name) in [
            (Arch::Riscv64, "LD"),
            (Arch::Riscv64, "LR_D"),
            (Arch::Aarch64, "LDRXui"),
            (Arch::Aarch64, "PRFMui"),
            (Arch::X86_64, "MOV64rm"),
            (Arch::X86_64, "ADD64mi32"),
        ] {
            let p = emit_form(arch, name, 2, 10).unwrap_or_else(|m| panic!("{name}: {m}"));
            assert!(p.data, "{name}");
        }
        assert!(!emit_form(Arch::X86_64, "ADD64rr", 1, 10).unwrap().data);
        for (arch, name) in [
            (Arch::Riscv64, "ADD"),
            (Arch::X86_64, "TRAP"),
            (Arch::Riscv64, "FENCE"),
            (Arch::Aarch64, "DMB"),
            (Arch::Aarch64, "EXTRACT_ZPMXI_H_S"),
        ] {
            if let Err(m) = emit_form(arch, name, 3, 10) {
                assert!(!m.to_string().contains("memory"), "{name}: {m}");
            }
        }
    }

    /// A memory form's executable loads the data area read-write, not
    /// executable, at its address, with its contents, at an offset the
    /// segment's alignment divides.
    #[test]
    fn a_memory_forms_executable_maps_the_data_area() {
        use crate::kernel::data;
        let bytes = emit_form(Arch::X86_64, "MOV64rm", 1, 10).unwrap().elf();
        let h = read(&bytes).unwrap();
        let seg = h.load_segment_of(data::BASE).expect("a data segment");
        assert_eq!(
            (seg.vaddr, seg.filesz, seg.memsz),
            (data::BASE, data::SIZE, data::SIZE)
        );
        assert_eq!(seg.flags, PF_R | PF_W);
        assert_eq!(seg.offset % SEGMENT_ALIGN, 0);
        let at = |addr: u64| {
            let o = (seg.offset + addr - data::BASE) as usize;
            u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap())
        };
        assert_eq!(at(data::VALUES), data::WORD);
        assert_eq!(at(data::CHASE + 64), data::CHASE + 64);
        let plain = emit_form(Arch::X86_64, "ADD64rr", 1, 10).unwrap().elf();
        assert!(read(&plain).unwrap().load_segment_of(data::BASE).is_none());
    }

    #[test]
    fn symbols_and_sections_are_well_formed() {
        let elf = write(
            Arch::X86_64,
            &[0x90; 10],
            4,
            &[Symbol {
                name: "f".into(),
                offset: 0,
                size: 4,
            }],
        );
        let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
        let shoff = u64_at(40) as usize;
        assert_eq!(shoff % 8, 0);
        assert_eq!(elf.len(), shoff + 5 * 64);
        // .shstrtab (index 4) names .text (index 1).
        let sh = |k: usize, field: usize| u64_at(shoff + k * 64 + field);
        let names = &elf[sh(4, 24) as usize..][..sh(4, 32) as usize];
        let name_of_text = u32::from_le_bytes(elf[shoff + 64..shoff + 68].try_into().unwrap());
        assert!(names[name_of_text as usize..].starts_with(b".text\0"));
        assert_eq!(sh(1, 16), BASE + CODE_OFFSET); // sh_addr of .text
    }
}
