//! The per-arch hooks, one small trait per concern; a [`Target`] is all of
//! them. Each arch implements each trait in the file of its concern
//! (`frame.rs` the [`KernelFrame`], `branch.rs` the [`AsmDialect`],
//! `start.rs` the [`StartStub`]), so nothing forwards from one file to
//! another. None of them runs code or forks: what must be tried on the
//! host is `crate::probe`'s.

use super::host::HostFeatures;
use super::variant::{Variant, VectorTypes};
use super::{
    emit, Check, Dialect, EncodeError, Inst, KernelError, Line, ModeSwitch, OpValue, Starts, Walk,
};
use crate::isa::{Arch, InstAlias, Instr, Reg};

/// One instruction's bytes and text, and the independent decoder's word on
/// them: what every other hook builds on.
pub trait Encode {
    /// The arch.
    fn arch(&self) -> Arch;

    /// Encodes one instruction to its bytes (little-endian on all three).
    fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError>;

    /// Prints one instruction as assembly text in the syntax winic uses
    /// (Intel on x86).
    fn print(&self, inst: &Inst) -> Result<String, EncodeError>;

    /// Decodes `bytes` (the encoding of `inst`, printed as `text`) with an
    /// independent decoder and compares it with what was intended.
    fn check(&self, inst: &Inst, bytes: &[u8], text: &str) -> Check;
}

/// [`Operands::neutral_back`]: two forms that lead from any
/// general-purpose result back to an address base without changing it.
/// In the chain, the clearing form's immediates are set to 0 and its
/// other register sources to `zero`; the adding form's other source is
/// its own destination (`add base, base, r` on AArch64 and RISC-V, where
/// x86's `add base, r` ties them).
#[derive(Clone, Copy, Debug)]
pub struct NeutralBack {
    /// Clears a register and depends on it: its first register source
    /// leads to its result.
    pub clear: Instr,
    /// Adds a register into the base.
    pub add: Instr,
    /// The zero register the clearing form's other register sources read
    /// (AArch64 `and x1, x1, xzr`), where it has any.
    pub zero: Option<Reg>,
}

/// Which registers and immediates a kernel may give a form, and which
/// registers are really one.
pub trait Operands {
    /// Why a kernel must never use `reg` (stack pointer, zero register,
    /// platform register, loop counter …), or `None` when it may.
    fn reserved(&self, reg: Reg) -> Option<&'static str>;

    /// The CPU feature a register needs beyond its class (x86 R16-R31 need
    /// APX `egpr`), if any.
    fn register_feature(&self, _reg: Reg) -> Option<&'static str> {
        None
    }

    /// One valid instance of `form`: registers a kernel may use (distinct
    /// where the form allows, tied operands equal), immediates valid for
    /// their operand type and range. `Err` when the form cannot be encoded
    /// by this encoder, with the reason.
    fn example(&self, form: Instr) -> Result<Inst, EncodeError> {
        self.instance(form, &[])
    }

    /// Like [`Operands::example`], but no register operand overlaps a
    /// register of `avoid` where the form leaves a choice (a class with
    /// one member, such as a fixed `XZR`, may still give one: callers
    /// that need distinct registers check with [`Operands::aliases`]).
    fn instance(&self, form: Instr, avoid: &[Reg]) -> Result<Inst, EncodeError>;

    /// Whether writing `a` changes `b` or the other way round: the
    /// registers overlap (x86's xmm1, ymm1 and zmm1 are one register).
    fn aliases(&self, a: Reg, b: Reg) -> bool {
        a.overlaps(b)
    }

    /// Whether `reader` reads a flag `writer` writes, where both reach the
    /// flags register as a whole (LLVM's `EFLAGS`, `NZCV`): a chain from
    /// `writer`'s flags through `reader` depends on `writer` only then
    /// (x86 `inc` leaves the carry alone, and `rcl` reads only the
    /// carry). `true` where the target does not know which flags a form
    /// touches.
    fn flags_meet(&self, _writer: &Inst, _reader: &Inst) -> bool {
        true
    }

    /// The registers machine operand `k` of `inst` occupies: its register,
    /// or more where the form reads or writes a group from it (a RISC-V
    /// widening form's destination is a register pair at LMUL 1).
    fn operand_regs(&self, inst: &Inst, k: usize) -> Vec<Reg> {
        match inst.ops[k] {
            OpValue::Reg(r) => vec![r],
            OpValue::Imm(_) => Vec::new(),
            OpValue::Mem(m) => m.regs().collect(),
        }
    }

    /// The registers every machine operand of `inst` occupies
    /// ([`Operands::operand_regs`] of each, in operand order).
    fn inst_regs(&self, inst: &Inst) -> Vec<Reg> {
        (0..inst.ops.len())
            .flat_map(|k| self.operand_regs(inst, k))
            .collect()
    }

    /// The outcomes of `inst` (an instance of a form that
    /// [`KernelFrame::runs_anyway`]) that TP measures and reports
    /// separately, each with a label naming it, the default first: x86
    /// `jcc` to the next instruction taken (`jne`) and not taken (`je`).
    /// Empty for every other form.
    fn outcomes(&self, _inst: &Inst) -> Vec<(String, Inst)> {
        Vec::new()
    }

    /// The registers `inst` reads as the base of a memory access: a
    /// kernel sets them to its data area (`crate::kernel::data`). None on
    /// arches whose memory forms winic does not run.
    fn address_bases(&self, _inst: &Inst) -> Vec<Reg> {
        Vec::new()
    }

    /// Whether a latency chain may run through the address of memory
    /// operand `k` of `form` into its results: the address is what the
    /// form computes (`lea`), or the form's result is the bytes it loaded
    /// (`mov`, unmasked vector loads), so that a load from the data area's
    /// chase part returns the address it read from (a pointer chase).
    fn address_source(&self, _form: Instr, _k: usize) -> bool {
        false
    }

    /// The bytes `inst` accesses in memory (its widest access), where
    /// known; 64 (a cache line) where not.
    fn access_bytes(&self, _inst: &Inst) -> u32 {
        64
    }

    /// Whether `form` copies the low bits of a register of one file into
    /// a general-purpose register unchanged (x86 `movq rax, xmm1`): the
    /// way back to a base from a vector load's result in a pointer chase.
    fn copies_bits(&self, _form: Instr) -> bool {
        false
    }

    /// The machine operand of the memory `form` writes, when a latency
    /// chain can run through it: from a register the form stores into
    /// that memory and back through a reload ([`Operands::reload`]: the
    /// store-to-load forwarding path), and, where the form also reads it
    /// (`add [m], r`), from that memory to itself. `None` by default.
    fn written_memory(&self, _form: Instr) -> Option<usize> {
        None
    }

    /// Whether what `form` writes at [`Operands::written_memory`] is
    /// computed from what it reads there (`add [m], r`, `xadd`; not
    /// `xchg [m], r`, which writes the register): a chain runs from that
    /// memory to itself. `false` by default.
    fn rewrites_memory(&self, _form: Instr) -> bool {
        false
    }

    /// Whether `form` reads and whether it writes memory through its
    /// memory operands, over all it uses (`movsq` both), where the target
    /// knows (x86: iced's instruction info; `lea` neither).
    fn memory_access(&self, _form: Instr) -> Option<(bool, bool)> {
        None
    }

    /// The way back to an address base that leaves the base as it was:
    /// a form that clears a general-purpose register yet depends on it
    /// (x86 `and r64, imm8`, its immediate set to 0) and one that adds a
    /// register into another (`add r64, r64`). A latency chain through
    /// the address of a load whose result is not the address it read
    /// (`add rax, [m]`, `movzx`, `vaddpd zmm, zmm, [m]`) comes back through
    /// them: the result, cleared, is added to the base. `None` where LAT
    /// chains no such load.
    fn neutral_back(&self) -> Option<NeutralBack> {
        None
    }

    /// The register operand (machine operand index) that holds the base
    /// of `form`'s address, where the address is made of register and
    /// immediate operands (AArch64 `ldr x0, [x1, #8]`, RISC-V `ld a0,
    /// 8(a1)`) and the base is not written back; `None` where the address
    /// is one memory operand (x86) or there is none.
    fn base_operand(&self, _form: Instr) -> Option<usize> {
        None
    }

    /// A load reading back what `form` stores from its data operand `k`
    /// into a register of `k`'s class (or of a class its registers hold:
    /// `vextracti128 [m], ymm` reads back into an xmm): `(load, its
    /// memory operand, its result operand)`, or `None`. Only loads `runs`
    /// accepts (those the host runs: `vmovw`, the one 2-byte load into an
    /// xmm, needs AVX512-FP16).
    fn reload(
        &self,
        _form: Instr,
        _k: usize,
        _runs: &dyn Fn(Instr) -> bool,
    ) -> Option<(Instr, usize, usize)> {
        None
    }

    /// The registers `inst` reads as an index, a register offset or a
    /// stride of a memory access (never its base), each with the value a
    /// kernel sets it to, small enough that every access stays inside the
    /// data area (AArch64 `[x1, x2, lsl #3]` and post-index `x2`: 0;
    /// RISC-V strides). Nothing chains through an explicit one. Also the
    /// registers whose value decides whether `inst` runs at all, with the
    /// value it runs with: x86 `div`'s divisor 1 and high half 0, which a
    /// chain of divisions keeps (a chain may run through such an implicit
    /// register; a move breaking one writes its value,
    /// `crate::mode::common::write_needed_value`).
    fn address_offsets(&self, _inst: &Inst) -> Vec<(Reg, u64)> {
        Vec::new()
    }

    /// The vector index registers of `inst`'s gathers (x86 VSIB), each
    /// with the bytes of its lanes (4 or 8): a kernel sets them with
    /// [`KernelFrame::init_lanes`], never as data.
    fn vector_indexes(&self, _inst: &Inst) -> Vec<(Reg, u32)> {
        Vec::new()
    }

    /// What must run right before each `inst` of a kernel, on `inst`'s own
    /// registers: a gather's mask set to all ones again (the gather clears
    /// it as it completes, and the next would load nothing) and its
    /// destination zeroed by an idiom (else each gather would wait for
    /// the one before, whose result it merges into), as clang emits
    /// before every gather. A destination among `kept`, the registers the
    /// instruction the kernel runs right before `inst` wrote, stays: a
    /// chain through the merged destination (LAT's tied source -> result,
    /// as gcc's loops run a gather into last iteration's register), which
    /// the zeroing would cut. Nothing for other forms.
    fn resets(&self, _inst: &Inst, _kept: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        Ok(Vec::new())
    }

    /// The registers a body of `inst` moves without naming them as its
    /// operands' values, which the loop's walk ([`Operands::walk`]) keeps
    /// in place: x86 `push`/`pop`'s stack pointer, a string operation's
    /// `rsi`/`rdi`. A body may write them and reach memory through them.
    /// None by default.
    fn walked(&self, _inst: &Inst) -> Vec<Reg> {
        Vec::new()
    }

    /// What a kernel's loop runs at its top and at its bottom so that a
    /// body which moves the registers of [`Operands::walked`] starts
    /// every iteration where the first did: `body` is one iteration's
    /// instructions, in order; the pointers it reads through start at
    /// `starts.reads`, those it writes through at `starts.writes`. Both
    /// kernels of an unroll difference run the same walk once per
    /// iteration, so its cost cancels. Nothing for other bodies.
    fn walk(&self, _body: &[Inst], _starts: Starts) -> Result<Walk, EncodeError> {
        Ok(Walk::default())
    }

    /// What a kernel's loop runs after its body so that `base`, which
    /// holds `from` at the loop's start (a multiple of `window`, a power
    /// of two), points `step` bytes further every iteration, back to
    /// `from` plus the rest once it reaches `from + window` (x86: `add
    /// base, step` and `and base, from | (window - 1)`): a body that reads
    /// and writes memory streams through it
    /// ([`crate::kernel::build_streamed`]). `None` where the target has
    /// no such walk; its kernels keep their addresses.
    fn stream(
        &self,
        _base: Reg,
        _step: u32,
        _from: u64,
        _window: u32,
    ) -> Option<Result<Vec<Inst>, EncodeError>> {
        None
    }

    /// The lines that run string form `inst` `count` times as one
    /// instruction, its pointers set to `starts` and its count register
    /// first (x86: `mov esi, …; mov edi, …; mov ecx, 64; rep movsb`: what
    /// `memcpy` runs), or `None` where the form repeats no such way.
    fn repeated(
        &self,
        _inst: &Inst,
        _count: u32,
        _starts: Starts,
    ) -> Option<Result<Vec<Line>, KernelError>> {
        None
    }

    /// `inst` with its memory access moved `offset` bytes from its base
    /// (each access of a kernel gets its own slot of the data area), or
    /// `None` when `inst` accesses no memory through an operand. A target
    /// whose offset field cannot reach `offset` places the access at
    /// another slot within the field's reach (its offset from the base a
    /// multiple of 64 bytes, distinct for consecutive slots where the
    /// field allows), and a writeback form at offset 0, so that its base
    /// never moves.
    fn at_offset(&self, _inst: &Inst, _offset: i32) -> Option<Inst> {
        None
    }

    /// Whether output operand `k` (machine operand index) of `form` must
    /// differ from every input: LLVM's `@earlyclobber`, plus what a target
    /// knows beyond it.
    fn early_clobber(&self, form: Instr, k: usize) -> bool {
        form.mc_operands()[k].operand.early_clobber()
    }
}

/// What the machine winic runs on reports of itself through its own
/// sources (CPUID; AArch64's HWCAPs; RISC-V's hwprobe and ISA string),
/// when it is this arch. Read, never tried: a feature no source reports is
/// decided by `crate::probe`, which asks these first.
pub trait HostPolicy {
    /// The features the host reports as bits or strings (AArch64's HWCAPs,
    /// RISC-V's hwprobe or ISA string), when winic runs on this arch and
    /// the arch decides forms that way (x86 asks CPUID per form instead).
    fn host_features(&self) -> Option<&'static HostFeatures> {
        None
    }

    /// The features `form` needs that the CPU winic runs on lacks by its
    /// own feature source, as a reason ("needs AVX512_FP16, which this CPU
    /// lacks (CPUID)"), or `None` (also when winic does not run on this
    /// arch or the source cannot tell). Never probes: what the source
    /// cannot tell, `crate::probe::host_lacks` tries in a child.
    fn source_lacks(&self, form: Instr) -> Option<String> {
        self.host_features()?.lacks(form)
    }

    /// The features this host lacks by its own source, by the source's
    /// names, when they are all a replay needs to decide every form as
    /// this host did ([`HostPolicy::assume_lacking`]); `None` where the
    /// arch cannot record its host so (AArch64 and RISC-V: feature sets,
    /// probes and vector lengths), or winic does not run on it.
    fn lacking_features(&self) -> Option<Vec<String>> {
        None
    }

    /// From now on, answers as a host that lacks exactly `names` (what
    /// [`HostPolicy::lacking_features`] gave where a raw file was
    /// measured), whatever machine winic runs on: a replay skips what the
    /// measuring machine skipped. Once per process; an error names a
    /// feature this winic does not know, or a second, different host.
    fn assume_lacking(&self, _names: &[String]) -> Result<(), String> {
        Err("this arch cannot assume a recorded host".into())
    }

    /// The CPU's identity as its own registers give it (x86: CPUID's
    /// vendor, family, model and stepping), when winic runs on this arch
    /// and the arch has one.
    fn cpu_identity(&self) -> Option<String> {
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

    /// The vector state `form` is measured in, as the database and the
    /// report name it (`SVE, VL 256 bits`; `RVV e32 m1 ta ma, VLEN 128
    /// bits`), or `None` for a form without vector registers or on a host
    /// that is not this arch.
    fn vector_state(&self, _form: Instr) -> Option<String> {
        None
    }

    /// The CPU's model as this arch's Linux kernel writes it into the
    /// `/proc/cpuinfo` text `cpuinfo` (x86 `model name`; AArch64 `CPU
    /// implementer` and `CPU part`; RISC-V `uarch`, else `mvendorid` and
    /// `marchid`), or `None` when the text names none (under qemu-user it
    /// is the host's, of another arch).
    fn cpu_model(&self, _cpuinfo: &str) -> Option<String> {
        None
    }
}

/// The kernel function `extern "C" fn(iterations: u64)` around a body,
/// assembled by `crate::kernel`: prologue, initialisation, loop (body,
/// count-down, branch back), epilogue; and what may run inside it.
pub trait KernelFrame {
    /// Why a kernel must not run `form` even though it encodes (privileged,
    /// changes control flow or the stack, touches memory through register
    /// operands, needs state the kernel frame does not set up …), or
    /// `None`. Generic reasons from LLVM's flags are `crate::kernel::shape`'s.
    fn cannot_run(&self, _form: Instr) -> Option<String> {
        None
    }

    /// Why `a` and `b` must not share a kernel body although each runs
    /// alone (a cost of their mix that is no execution port's: x86 legacy
    /// SSE beside VEX or EVEX forms), or `None`.
    fn cannot_mix(&self, _a: Instr, _b: Instr) -> Option<&'static str> {
        None
    }

    /// Which forms may share a kernel body, as [`Target::cannot_mix`]
    /// says: forms of two different groups other than 0 may not; group 0
    /// mixes with every form (x86: 1 for VEX and EVEX vector forms, 2
    /// for legacy SSE, 0 for the rest).
    fn mix_group(&self, _form: Instr) -> u8 {
        0
    }

    /// The width in bits of the vector registers `form` computes on, or
    /// `None` for a form without (or on an arch whose port inference
    /// does not look at widths). Port inference asks it because wide
    /// vector work can take a port from narrower vector work: on Intel's
    /// server cores a 512-bit form in flight turns off port 1's vector
    /// units, so a 256-bit form that has ports 0, 1 and 5 alone has 0 and
    /// 5 beside it.
    fn vector_bits(&self, _form: Instr) -> Option<u32> {
        None
    }

    /// How many vector registers `form` reads: its vector register
    /// operands that are inputs (a destination it also reads is one, as
    /// an FMA's accumulator or a merge-masked form's kept lanes) and the
    /// vector registers it reads implicitly (x86 `pblendvb`'s xmm0). Port
    /// inference asks it because reading a third source can cost more
    /// than a port (Zen 4: an FMA beside a merge-masked add); 0 on an
    /// arch whose port inference does not count sources.
    fn vector_sources(&self, _form: Instr) -> usize {
        0
    }

    /// Whether `form` moves data between the general-purpose and the
    /// vector register files (x86 `movd`, `pextrd`, `cvtss2si`): such
    /// forms often take a micro-op on each side, so port inference does
    /// not let them fix the ports (`false` on an arch whose port
    /// inference does not look at register files).
    fn crosses_register_files(&self, _form: Instr) -> bool {
        false
    }

    /// Whether `form` runs in a kernel although LLVM's flags alone would
    /// keep it out (`isCodeGenOnly`, a branch, a PC-relative target): x86
    /// condition forms (`cmov${cond}`, reached by the assembler through one
    /// alias per condition) and direct short branches, which
    /// [`Operands::instance`] gives a condition and the next instruction
    /// as target.
    fn runs_anyway(&self, _form: Instr) -> bool {
        false
    }

    /// The state `body` must run in, when it is not the default one
    /// (AArch64: SME forms in streaming mode with ZA on).
    fn mode_switch(&self, _body: &[Instr]) -> Option<ModeSwitch> {
        None
    }

    /// The configurations besides the default, of those `types` asks
    /// for, at which forms are measured again (RISC-V: vector types, each
    /// with its own target whose [`KernelFrame::mode_switch`] sets it);
    /// none on arches without such state.
    fn variants(&self, _types: &VectorTypes) -> Vec<Box<dyn Variant>> {
        Vec::new()
    }

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

    /// Sets vector register `reg` (or the whole register holding it) to
    /// lanes of `lane_bytes` bytes, lane i holding i × [`super::LANE_STEP`]: a
    /// gather's index, each element read from a cache line of its own
    /// inside the data area.
    fn init_lanes(&self, reg: Reg, _lane_bytes: u32) -> Result<(Reg, Vec<Inst>), EncodeError> {
        Err(EncodeError::Unsupported(format!(
            "{}: this target sets no vector index",
            reg.name()
        )))
    }

    /// Sets general-purpose register `reg` to the address `addr` (the
    /// base of a memory operand, `crate::kernel::data`) or to the small
    /// value of an index or stride ([`Operands::address_offsets`]): the
    /// register set and the instructions, as [`KernelFrame::init`] gives
    /// them. `Err` on arches whose memory forms winic does not run yet.
    fn init_address(&self, reg: Reg, _addr: u64) -> Result<(Reg, Vec<Inst>), EncodeError> {
        Err(EncodeError::Unsupported(format!(
            "{}: memory operands are not run on this arch",
            reg.name()
        )))
    }

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

    /// A form whose independent copies, run for a moment before each
    /// sample of a body wider than 128 bits, leave the core's wide units in
    /// the state floating-point code keeps them in; `None` where winic
    /// knows no such state (the default). On an Intel core with AVX-512,
    /// 512-bit logic and integer forms that load ran at 0.50 cycles after
    /// 512-bit FP adds and 0.61-0.65 otherwise, 256-bit ones at 0.36 and
    /// 0.41-0.53, so a body's value depended on the body measured before
    /// it (xeon-cf, docs/measurements.md).
    fn wide_primer(&self) -> Option<Instr> {
        None
    }
}

/// What winic's assembler (manual mode, `crate::asm`) needs beyond the
/// forms, which it parses through [`Encode::print`].
pub trait AsmDialect {
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

    /// Where `form` stands among the forms that print as one line, before
    /// their lengths: lower first. An assembler takes the shortest
    /// encoding of a line, but not every encoding of it: x86's GNU as and
    /// llvm-mc write VEX wherever VEX can say the line, and EVEX (which
    /// AVX2-only cores cannot run, and whose compressed displacement can
    /// be shorter) only for what VEX cannot. 0 for every form by default.
    fn encoding_rank(&self, _form: Instr) -> u8 {
        0
    }

    /// Instances of a form that is not real (LLVM's `isCodeGenOnly`)
    /// which the assembler reads all the same, each printing its own
    /// mnemonic: x86's `cmov${cond}` and `set${cond}` once per condition
    /// (`cmovl`, `setge`), which an assembler reaches through aliases.
    /// None by default.
    fn spellings(&self, _form: Instr) -> Vec<Inst> {
        Vec::new()
    }

    /// `inst` spelled as `alias`, one of its form's `InstAlias` records
    /// (AArch64 `cmp x0, #0` for `subs xzr, x0, #0`); `Err` where the
    /// alias fixes an operand to another value, or the arch reads no
    /// aliases (the default).
    fn print_alias(&self, inst: &Inst, _alias: &InstAlias) -> Result<String, EncodeError> {
        Err(EncodeError::Unsupported(format!(
            "{}: this arch's assembler reads no InstAlias records",
            inst.form.name()
        )))
    }
}

/// The start stub of a static Linux executable (`crate::elf`) around a
/// kernel function. The sequence is [`StartStub::start`]'s, once for all
/// arches; an arch gives its three pieces.
pub trait StartStub: Encode {
    /// Puts `iterations` into the first argument register.
    fn start_count(&self, iterations: u64) -> Result<Vec<Inst>, EncodeError>;

    /// The call at byte `at` of the stub to byte `to` (both from the stub's
    /// first byte), which the encoders leave out (it is PC-relative):
    /// placed by LLVM's bit layout or iced, and decoded again to prove its
    /// target.
    fn start_call(&self, at: i64, to: i64) -> Result<Line, KernelError>;

    /// Exits with status 0 through the `exit` system call.
    fn start_exit(&self) -> Result<Vec<Inst>, EncodeError>;

    /// The stub: [`StartStub::start_count`] of `iterations`, the call of
    /// the kernel `call_to` bytes from the stub's first byte (negative:
    /// before the stub), [`StartStub::start_exit`]. Entered as the ELF
    /// entry point, where the stack pointer is 16-byte aligned (each
    /// psABI), and kept so at the call: no piece touches the stack. Every
    /// instruction but the call is emitted by [`emit`].
    fn start(&self, iterations: u64, call_to: i64) -> Result<Vec<Line>, KernelError> {
        let mut out = Vec::new();
        for i in &self.start_count(iterations)? {
            out.push(emit(self, i)?);
        }
        let at: usize = out.iter().map(|l| l.bytes.len()).sum();
        out.push(self.start_call(at as i64, call_to)?);
        for i in &self.start_exit()? {
            out.push(emit(self, i)?);
        }
        Ok(out)
    }
}

/// The per-arch hooks, all of them: what generic code holds
/// (`&dyn Target`) and asks, never matching on an arch.
pub trait Target:
    Encode + Operands + HostPolicy + KernelFrame + AsmDialect + StartStub + Sync
{
}

impl<T> Target for T where
    T: Encode + Operands + HostPolicy + KernelFrame + AsmDialect + StartStub + Sync
{
}
