//! The per-arch parts of winic behind one trait, [`Target`], made of small
//! ones by concern: encoding an instruction form with concrete operands,
//! printing and checking it ([`Encode`]), which operands a kernel may use
//! ([`Operands`]), what the host reports of itself ([`HostPolicy`]), the
//! kernel function around a body ([`KernelFrame`]), the assembler's dialect
//! ([`AsmDialect`]) and the start stub of an executable ([`StartStub`]).
//! Generic code asks the `Target` and never matches on an arch. Only the
//! implementations in this folder know an arch's details. Nothing here runs
//! code: this is the layer below `kernel`, `exec` and `probe`.

pub mod aarch64;
pub mod bits;
mod emit;
pub mod host;
mod reload;
pub mod riscv64;
pub mod template;
mod traits;
pub mod variant;
pub mod x86_64;

use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Instr, Reg};
use std::fmt;

pub use emit::{emit, KernelError, Line, LOOP_LABEL};
pub use traits::{
    AsmDialect, Encode, HostPolicy, KernelFrame, NeutralBack, Operands, StartStub, Target,
};

/// A concrete value for one machine operand (see [`Instr::mc_operands`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpValue {
    /// A register.
    Reg(Reg),
    /// An immediate, as the assembly text writes it (not yet encoded).
    Imm(i64),
    /// A memory reference (x86's addressing-mode operand): where a kernel
    /// reads or writes, or what `lea` computes.
    Mem(Mem),
}

/// Where every kernel's data area starts (`crate::kernel::data` lays it
/// out): a fixed address, so that an access without a base register (x86
/// `moffs`) can name it ([`Operands::at_offset`] with an offset from it).
pub const DATA_AREA: u64 = 0x4000_0000;

/// Bytes between the elements a gather's kernel reads
/// ([`KernelFrame::init_lanes`]): a cache line each, as an indexed loop over
/// a large array touches them. 16 lanes reach 960 bytes past the access's
/// slot, inside the data area.
pub const LANE_STEP: u64 = 64;

/// What a kernel's loop runs around its body ([`Operands::walk`]): at
/// the top of every iteration, and at its bottom (before the count-down).
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Before the body.
    pub top: Vec<Inst>,
    /// After the body.
    pub bottom: Vec<Inst>,
}

/// Where the pointers a body moves start every iteration
/// ([`Operands::walk`]): addresses in the kernel's data area.
#[derive(Clone, Copy, Debug)]
pub struct Starts {
    /// Of the pointers the body reads through (x86 `rsi`).
    pub reads: u64,
    /// Of the pointers the body writes through (x86 `rdi`).
    pub writes: u64,
}

impl Walk {
    /// Whether the loop runs nothing around its body.
    pub fn is_empty(&self) -> bool {
        self.top.is_empty() && self.bottom.is_empty()
    }
}

/// A memory reference `[base + scale*index + disp]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    /// The base register.
    pub base: Reg,
    /// The index register and its scale (1, 2, 4 or 8), if any.
    pub index: Option<(Reg, u8)>,
    /// The displacement in bytes.
    pub disp: i32,
}

impl Mem {
    /// The registers the address is computed from.
    pub fn regs(&self) -> impl Iterator<Item = Reg> {
        std::iter::once(self.base).chain(self.index.map(|(r, _)| r))
    }
}

/// An instruction form with one value per machine operand.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The form.
    pub form: Instr,
    /// Values, in the order of `form.mc_operands()`.
    pub ops: Vec<OpValue>,
}

/// Why a form or an instruction cannot be encoded. A value, not a failure of
/// winic: it flows into reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The form is not supported by this encoder, with the reason
    /// (e.g. "no iced-x86 code: APX (EVEX map 4)").
    Unsupported(String),
    /// An operand value does not fit the form (wrong class, out of range).
    BadOperand(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Unsupported(m) => write!(f, "unsupported: {m}"),
            EncodeError::BadOperand(m) => write!(f, "bad operand: {m}"),
        }
    }
}

/// The outcome of decoding an emitted instruction and comparing it with
/// what was intended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The decoder agrees: same instruction (aliases count as equal), same
    /// operands.
    Ok,
    /// No decoder here can decode this extension (Capstone 5.0.6 lacks it),
    /// with the reason. Not a pass and not a failure.
    Unchecked(String),
    /// The decoder disagrees, or rejects bytes it should decode: what it
    /// saw against what was intended.
    Mismatch(String),
}

/// Whether every machine operand of `form` is a register or an immediate
/// (no memory, no PC-relative target).
pub fn reg_imm_only(form: &Instr) -> bool {
    form.mc_operands()
        .iter()
        .all(|m| matches!(m.ty.kind(), OperandKind::Reg | OperandKind::Imm))
}

/// Whether every machine operand of `form` is a register, an immediate or
/// a plain memory reference (x86 `[base + scale*index + disp]`, or a
/// gather's with a vector index): the forms `winic selfcheck` proves and
/// kernels may run.
pub fn encodable_operands(form: &Instr) -> bool {
    form.mc_operands().iter().all(|m| {
        matches!(m.ty.kind(), OperandKind::Reg | OperandKind::Imm) || m.ty.is_addressable_memory()
    })
}

/// For every register of `arch`, the reason of the first rule whose named
/// register it overlaps (`("RSP", "stack pointer")` reserves SP, ESP, SPL
/// …), or `None`. Computed once per arch by the caller (a `OnceLock`):
/// register choice asks it for every candidate.
pub fn reserved_table(arch: Arch, rules: &[(&str, &'static str)]) -> Vec<Option<&'static str>> {
    let isa = crate::isa::Isa::get(arch);
    let named: Vec<(Reg, &'static str)> = rules
        .iter()
        .filter_map(|(name, why)| isa.register(name).map(|r| (r, *why)))
        .collect();
    isa.registers()
        .map(|reg| {
            named
                .iter()
                .find(|(r, _)| r.overlaps(reg))
                .map(|(_, why)| *why)
        })
        .collect()
}

/// Rules that name forms by the prefixes of their LLVM record names, each
/// with the reason it gives (`cannot_run` of AArch64 and RISC-V). A
/// prefix ending in `$` names one record exactly (AArch64 `BRK$`: the
/// breakpoint, not SVE's `BRKA`, `BRKB`, `BRKN` …).
pub type PrefixRules = [(&'static [&'static str], &'static str)];

/// The offset an immediate field in `min..=max` (multiples of `scale`)
/// gives the access a kernel places at `offset` bytes from its base
/// (`crate::kernel::data`'s slot `offset / 64`): `offset` itself where the
/// field holds it, else a multiple of 64 bytes within the field's
/// non-negative reach, consecutive slots cycling over those (a RISC-V
/// `simm12` reaches 32 slots, AArch64's `simm9` 4), or 0 where no slot but
/// the first fits. `None` when the field cannot hold 0.
pub fn slot_in_reach(offset: i32, min: i64, max: i64, scale: i64) -> Option<i64> {
    if !(min..=max).contains(&0) || scale <= 0 {
        return None;
    }
    let offset = i64::from(offset);
    if (min..=max).contains(&offset) && offset % scale == 0 {
        return Some(offset);
    }
    if 64 % scale != 0 {
        return Some(0);
    }
    Some(64 * offset.div_euclid(64).rem_euclid(max / 64 + 1))
}

/// The reason of the first rule with a prefix of `name`, or `None`.
pub fn by_prefix(name: &str, rules: &PrefixRules) -> Option<String> {
    let matches = |p: &str| match p.strip_suffix('$') {
        Some(exact) => name == exact,
        None => name.starts_with(p),
    };
    rules
        .iter()
        .find(|(prefixes, _)| prefixes.iter().any(|p| matches(p)))
        .map(|(_, why)| (*why).to_string())
}

/// A state the core must be in for a kernel's body and is left before it
/// returns (AArch64 SME: streaming mode with ZA on; RISC-V: a vector
/// type other than e32 m1).
#[derive(Clone, Debug)]
pub struct ModeSwitch {
    /// Enters it, after the prologue and before the initialisations (which
    /// the switch may clobber).
    pub enter: Vec<Inst>,
    /// Completes it after the initialisations, right before the loop
    /// (RISC-V: the vector type the body runs at, which the vector
    /// initialisations, at e32 m1, would undo).
    pub ready: Vec<Inst>,
    /// Leaves it, before the epilogue.
    pub leave: Vec<Inst>,
    /// Registers the switch changes besides those of the body: the
    /// prologue saves them where the ABI says so.
    pub clobbers: Vec<Reg>,
}

/// How an arch's assembly files are written (GNU as conventions).
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    /// The directive that selects winic's syntax, written at the top of
    /// every file winic writes and required in files it reads
    /// (`.intel_syntax noprefix`), if any.
    pub syntax: Option<&'static str>,
    /// Whether `.align N` means 2^N bytes (AArch64, RISC-V) rather than N
    /// bytes (x86).
    pub align_is_power: bool,
    /// Whether `#` starts a comment anywhere in a line (x86, RISC-V), not
    /// only at its start (AArch64, where `#` marks immediates).
    pub hash_comment_anywhere: bool,
    /// The instruction a pseudo-instruction of the ISA manual stands for
    /// (RISC-V `ret` is `jalr zero, 0(ra)`), or the instructions, one a
    /// line (RISC-V `li` of a wide value), given its mnemonic and
    /// operands, or what a synonym stands for (x86 `setz cl` is `sete
    /// cl`); `None` for everything else.
    pub pseudo: fn(&str, &[&str]) -> Option<String>,
    /// The memory reference inside a bracketed operand (x86 Intel
    /// `rbx + 4*rcx + 64`, in any order and base), where a bracket is one
    /// memory operand; `None` where brackets group sub-operands (AArch64's
    /// `[x1, #8]`).
    pub memory: Option<fn(&str) -> Option<Mem>>,
    /// Directives that name the ISA a file is for (AArch64 `.arch`,
    /// RISC-V `.option`, `.attribute`), which gcc writes at the top of
    /// every file: read and ignored, because winic assembles for the core
    /// it runs on and runs every instruction there.
    pub isa_directives: &'static [&'static str],
}

/// No pseudo-instructions.
pub fn no_pseudo(_: &str, _: &[&str]) -> Option<String> {
    None
}

/// The register of `arch` that assembly text calls `name` (its assembly
/// name or an alternative one, `a0` for RISC-V X10), case-insensitively.
pub fn reg_named(arch: Arch, name: &str) -> Option<Reg> {
    let name = name.trim();
    crate::isa::Isa::get(arch).registers().find(|r| {
        r.asm_name().eq_ignore_ascii_case(name)
            || r.alt_names().iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// The form `name` of `arch` with the operand values `ops` (frames are
/// written in LLVM's own forms, so they go through the same encoder and
/// check as everything else).
pub fn inst_of(arch: Arch, name: &str, ops: &[OpValue]) -> Result<Inst, EncodeError> {
    let form = crate::isa::Isa::get(arch)
        .instr(name)
        .ok_or_else(|| EncodeError::Unsupported(format!("no form {name} in the {arch} tables")))?;
    Ok(Inst {
        form,
        ops: ops.to_vec(),
    })
}

/// The register `name` of `arch`, as an operand value.
pub fn reg_of(arch: Arch, name: &str) -> Result<OpValue, EncodeError> {
    crate::isa::Isa::get(arch)
        .register(name)
        .map(OpValue::Reg)
        .ok_or_else(|| EncodeError::Unsupported(format!("no register {name} in the {arch} tables")))
}

/// The first register of `class` (LLVM name) that is `reg` or contains it.
pub fn container_in(arch: Arch, class: &str, reg: Reg) -> Option<Reg> {
    let c = crate::isa::Isa::get(arch).class(class)?;
    c.members().find(|m| *m == reg || m.contains(reg))
}

/// The `Target` of `arch`.
pub fn target(arch: Arch) -> &'static dyn Target {
    match arch {
        Arch::X86_64 => &x86_64::X86_64,
        Arch::Aarch64 => &aarch64::AArch64,
        Arch::Riscv64 => &riscv64::Riscv64,
    }
}

/// An integer as AArch64 and RISC-V assembly and Capstone write it:
/// decimal or `0x` hexadecimal, maybe negative; a constant up to 2^64 - 1 wraps into 64
/// bits, as GNU as reads `li a0, 0xcbf29ce484222325`.
pub(crate) fn int_literal(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => t.parse::<u64>().ok()?,
    } as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}
