//! The per-arch parts of winic behind one trait, [`Target`]: encoding an
//! instruction form with concrete operands, printing it, and which registers
//! a kernel may use. Generic code asks the `Target` and never matches on an
//! arch. Only the implementations in this folder know an arch's details.

pub mod aarch64;
pub mod bits;
mod emit;
pub mod host;
pub mod riscv64;
pub mod template;
pub mod variant;
pub mod x86_64;

use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Instr, Reg};
use std::fmt;

pub use emit::{emit, KernelError, Line, LOOP_LABEL};

/// A concrete value for one machine operand (see [`Instr::mc_operands`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpValue {
    /// A register.
    Reg(Reg),
    /// An immediate, as the assembly text writes it (not yet encoded).
    Imm(i64),
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

/// Whether every machine operand of `form` is a register or an immediate:
/// the forms `winic selfcheck` proves (no memory, no PC-relative target).
pub fn reg_imm_only(form: &Instr) -> bool {
    form.mc_operands()
        .iter()
        .all(|m| matches!(m.ty.kind(), OperandKind::Reg | OperandKind::Imm))
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

/// The per-arch hooks.
pub trait Target: Sync {
    /// The arch.
    fn arch(&self) -> Arch;

    /// Encodes one instruction to its bytes (little-endian on all three).
    fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError>;

    /// Prints one instruction as assembly text in the syntax winic uses
    /// (Intel on x86).
    fn print(&self, inst: &Inst) -> Result<String, EncodeError>;

    /// Why a kernel must never use `reg` (stack pointer, zero register,
    /// platform register, loop counter …), or `None` when it may.
    fn reserved(&self, reg: Reg) -> Option<&'static str>;

    /// One valid instance of `form`: registers a kernel may use (distinct
    /// where the form allows, tied operands equal), immediates valid for
    /// their operand type and range. `Err` when the form cannot be encoded
    /// by this encoder, with the reason.
    fn example(&self, form: Instr) -> Result<Inst, EncodeError> {
        self.instance(form, &[])
    }

    /// Like [`Target::example`], but no register operand overlaps a
    /// register of `avoid` where the form leaves a choice (a class with
    /// one member, such as a fixed `XZR`, may still give one: callers
    /// that need distinct registers check with [`Target::aliases`]).
    fn instance(&self, form: Instr, avoid: &[Reg]) -> Result<Inst, EncodeError>;

    /// Whether writing `a` changes `b` or the other way round: the
    /// registers overlap (x86's xmm1, ymm1 and zmm1 are one register).
    fn aliases(&self, a: Reg, b: Reg) -> bool {
        a.overlaps(b)
    }

    /// The registers machine operand `k` of `inst` occupies: its register,
    /// or more where the form reads or writes a group from it (a RISC-V
    /// widening form's destination is a register pair at LMUL 1).
    fn operand_regs(&self, inst: &Inst, k: usize) -> Vec<Reg> {
        match inst.ops[k] {
            OpValue::Reg(r) => vec![r],
            OpValue::Imm(_) => Vec::new(),
        }
    }

    /// Whether output operand `k` (machine operand index) of `form` must
    /// differ from every input: LLVM's `@earlyclobber`, plus what a target
    /// knows beyond it.
    fn early_clobber(&self, form: Instr, k: usize) -> bool {
        form.mc_operands()[k].operand.early_clobber()
    }

    /// The features `form` needs that the CPU winic runs on lacks by its
    /// own feature source (CPUID; AArch64's HWCAPs, RISC-V's hwprobe or
    /// ISA string), as a reason ("needs AVX512_FP16, which this CPU lacks
    /// (CPUID)"), or `None` (also when winic does not run on this arch or
    /// the source cannot tell). Never probes: what the source cannot tell,
    /// `crate::probe::host_lacks` tries in a child.
    fn source_lacks(&self, form: Instr) -> Option<String> {
        self.host_features()?.lacks(form)
    }

    /// The features the host reports as bits or strings (AArch64's HWCAPs,
    /// RISC-V's hwprobe or ISA string), when winic runs on this arch and
    /// the arch decides forms that way (x86 asks CPUID per form instead).
    fn host_features(&self) -> Option<&'static host::HostFeatures> {
        None
    }

    /// The state `body` must run in, when it is not the default one
    /// (AArch64: SME forms in streaming mode with ZA on).
    fn mode_switch(&self, _body: &[Instr]) -> Option<ModeSwitch> {
        None
    }

    /// The vector state `form` is measured in, as the database and the
    /// report name it (`SVE, VL 256 bits`; `RVV e32 m1 ta ma, VLEN 128
    /// bits`), or `None` for a form without vector registers or on a host
    /// that is not this arch.
    fn vector_state(&self, _form: Instr) -> Option<String> {
        None
    }

    /// What this host's own sources report of it, as `(label, value)`
    /// lines for `winic host` and report headers (features and where they
    /// were read, vector lengths). Empty when winic does not run on this
    /// arch. The features only a probe decides are
    /// `crate::probe::host_report`'s.
    fn source_report(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Why a kernel must not run `form` even though it encodes (privileged,
    /// changes control flow or the stack, touches memory through register
    /// operands, needs state the kernel frame does not set up …), or
    /// `None`. Generic reasons from LLVM's flags are `crate::kernel::shape`'s.
    fn cannot_run(&self, _form: Instr) -> Option<String> {
        None
    }

    /// Decodes `bytes` (the encoding of `inst`, printed as `text`) with an
    /// independent decoder and compares it with what was intended.
    fn check(&self, inst: &Inst, bytes: &[u8], text: &str) -> Check;

    /// The CPU feature a register needs beyond its class (x86 R16-R31 need
    /// APX `egpr`), if any.
    fn register_feature(&self, _reg: Reg) -> Option<&'static str> {
        None
    }

    // The frame of a kernel function `extern "C" fn(iterations: u64)`,
    // assembled by `crate::kernel`: prologue, initialisation, loop
    // (body, count-down, branch back), epilogue.

    /// Saves the callee-saved registers among `touched` (and the loop
    /// counter, when the ABI says it must be preserved), then copies the
    /// iteration count from the first argument register into the loop
    /// counter.
    fn prologue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError>;

    /// Sets `reg` (or the widest register containing it that winic
    /// initialises as a whole) to an uncritical value: neither 0 nor 1, a
    /// normal number in every floating-point lane width. Returns the
    /// register initialised with the instructions, or `Err` for registers
    /// that are not data (flags, control and status registers).
    /// An initialisation of more than one instruction may use scratch
    /// general-purpose registers; one of a single instruction must not.
    /// `kernel` emits the longer ones first.
    fn init(&self, reg: Reg) -> Result<(Reg, Vec<Inst>), EncodeError>;

    /// Counts the loop counter down by one, setting what `branch_back`
    /// tests.
    fn count_down(&self) -> Result<Vec<Inst>, EncodeError>;

    /// A branch to `back` bytes before its own first byte, taken while the
    /// loop counter is not zero: its text and bytes.
    fn branch_back(&self, back: usize) -> Result<Line, EncodeError>;

    /// Restores what `prologue(touched)` saved and returns.
    fn epilogue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError>;

    /// A one-cycle integer add whose destination is also a source: repeated,
    /// a chain of dependent adds (the clock calibration of `-f auto`).
    fn chain_add(&self) -> Result<Inst, EncodeError>;

    // What winic's assembler (manual mode, `crate::asm`) needs beyond the
    // forms, which it parses through `print`.

    /// How this arch's assembly files are written.
    fn dialect(&self) -> Dialect;

    /// A no-operation (alignment padding).
    fn nop(&self) -> Result<Inst, EncodeError>;

    /// A branch to a label: `mnemonic` with its `operands` (as written;
    /// the label is the last) when it is a branch this target assembles,
    /// encoded `offset` bytes from its own first byte to the label (`long`:
    /// the longest encoding, for an assembler's relaxation). `None` when
    /// the mnemonic is no such branch.
    fn branch(
        &self,
        mnemonic: &str,
        operands: &[&str],
        offset: i64,
        long: bool,
    ) -> Option<Result<Vec<u8>, EncodeError>>;

    /// The start stub of a static Linux executable (`crate::elf`) around a
    /// kernel function: puts `iterations` into the first argument register,
    /// calls the kernel `call_to` bytes from the stub's first byte
    /// (negative: before the stub), then exits with status 0 through the
    /// `exit` system call. Entered as the ELF entry point, where the stack
    /// pointer is 16-byte aligned (each psABI), and kept so at the call.
    /// Every instruction but the call is emitted by [`emit`];
    /// the call (PC-relative, which the encoders leave out) is placed by
    /// LLVM's bit layout or iced and decoded again to prove its target.
    fn start(&self, iterations: u64, call_to: i64) -> Result<Vec<Line>, KernelError>;

    /// The configurations besides the default, of those `types` asks
    /// for, at which forms are measured again (RISC-V: vector types);
    /// none on arches without such state.
    fn variants(&self, _types: &variant::VectorTypes) -> Vec<Box<dyn variant::Variant>> {
        Vec::new()
    }
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
    /// (RISC-V `ret` is `jalr zero, 0(ra)`), given its mnemonic and
    /// operands; `None` for everything else.
    pub pseudo: fn(&str, &[&str]) -> Option<String>,
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
