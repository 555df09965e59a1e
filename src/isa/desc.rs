//! The record types of the generated tables. They are plain data: ids are
//! indices into the arch's arrays, lists are `(start, len)` ranges into its
//! `POOL` (ids) or `STRS` (strings). `src/isa/mod.rs` wraps them in a typed
//! view; nothing outside `isa` should need these.

/// A `(start, len)` range into a pool.
pub type Range = (u32, u32);

/// A string of the arch's `BLOB`: `(offset, len)`. Offsets instead of
/// `&'static str` keep the tables free of pointers, which would each cost a
/// dynamic relocation in a static-pie binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Str(pub u32, pub u32);

/// `InstrDesc::enc` of a record without encoding (pseudos).
pub const NO_ENCODING: u32 = u32::MAX;

/// Whether an operand is written (LLVM's `outs`) or read (`ins`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    /// An output operand (def).
    Out,
    /// An input operand (use).
    In,
}

/// What an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A register of a register class.
    Reg,
    /// An immediate.
    Imm,
    /// A memory reference (x86 addressing-mode operand).
    Mem,
    /// A PC-relative target (branches).
    PcRel,
    /// Several MC operands under one assembly operand (AArch64 shifted register ...).
    Complex,
    /// A pointer-like register class chosen by the code generator.
    Ptr,
    /// Anything else (`unknown`, `variable_ops`).
    Other,
}

/// Width, signedness and range of an immediate, where LLVM states them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImmInfo {
    /// Encoded width in bits (0 if unknown).
    pub bits: u32,
    /// Signedness, if known.
    pub signed: Option<bool>,
    /// Smallest valid value, if known.
    pub min: Option<i64>,
    /// Largest valid value, if known.
    pub max: Option<i64>,
    /// Required alignment of the value (RISC-V `_LSB00`: 4).
    pub align: u32,
}

/// Instruction flags as a bitset; bit i is `FLAG_NAMES[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(pub u32);

/// x86 single-bit encoding fields; bit i is `X86_BIT_NAMES[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct X86Bits(pub u32);

/// A subtarget feature.
#[derive(Debug)]
pub struct FeatureDesc {
    /// LLVM feature name (`avx512f`, `sve2`, `zbb`).
    pub name: Str,
    /// The TableGen record (`FeatureAVX512`).
    pub record: Str,
    /// LLVM's description.
    pub desc: Str,
    /// Features it implies (feature ids).
    pub implies: Range,
}

/// A predicate an instruction requires.
#[derive(Debug)]
pub struct PredicateDesc {
    /// Record name (`HasAVX512`).
    pub name: Str,
    /// Boolean expression over feature names (`avx512f && avx512vl`);
    /// `?call()` marks a C++ condition no feature maps to.
    pub cond: Str,
    /// LLVM's C++ `CondString`.
    pub raw: Str,
}

/// A register.
#[derive(Debug)]
pub struct RegDesc {
    /// Record name (`RAX`, `Q0_Q1`, `V8M2`).
    pub name: Str,
    /// Assembly name (`rax`; empty for some tuples).
    pub asm: Str,
    /// Alternative assembly names (`ra` for RISC-V `X1`), into `STRS`.
    pub alt: Range,
    /// Hardware encoding (`HWEncoding`).
    pub enc: u16,
    /// Direct sub-registers (register ids).
    pub sub: Range,
    /// All sub-registers, transitively (register ids).
    pub all_sub: Range,
    /// Synthesized by a `RegisterTuples`.
    pub tuple: bool,
}

/// A register class.
#[derive(Debug)]
pub struct RegClassDesc {
    /// Record name (`GR64`).
    pub name: Str,
    /// Register size in bits.
    pub bits: u32,
    /// Members (register ids) in allocation order.
    pub members: Range,
}

/// An operand type: register class, `RegisterOperand` or `Operand` record.
#[derive(Debug)]
pub struct OperandTypeDesc {
    /// Record name (`GR64`, `i64i32imm`, `simm12`).
    pub name: Str,
    /// Kind.
    pub kind: OperandKind,
    /// Register class id, for register operands.
    pub class: Option<u16>,
    /// LLVM `OperandType` (`OPERAND_IMMEDIATE`, `OPERAND_SIMM12` ...).
    pub optype: Str,
    /// Value type (`i64`).
    pub vt: Str,
    /// `PrintMethod`.
    pub print: Str,
    /// `EncoderMethod`.
    pub encode: Str,
    /// `DecoderMethod`.
    pub decode: Str,
    /// Name of its `ParserMatchClass`.
    pub parser: Str,
    /// Immediate width and range, for immediates.
    pub imm: Option<ImmInfo>,
    /// Sub-operands (`MIOperandInfo`), into `SUB_OPERANDS`.
    pub sub: Range,
}

/// One operand of an instruction.
#[derive(Debug)]
pub struct OperandDesc {
    /// Name in the instruction (`dst`, `src1`, `Rd`).
    pub name: Str,
    /// Written or read.
    pub io: Io,
    /// Operand type id.
    pub ty: u16,
    /// Index of the operand this one is tied to (`$src1 = $dst`).
    pub tied_to: Option<u8>,
    /// Names of the sub-operands given in the instruction, into `STRS`.
    pub sub_names: Range,
    /// `@earlyclobber`.
    pub early_clobber: bool,
}

/// x86 encoding fields of an instruction record.
#[derive(Debug)]
pub struct X86EncodingDesc {
    /// `Form` (`MRMSrcReg`, `MRM2r` ...).
    pub form: Str,
    /// Numeric value of the form.
    pub form_value: u8,
    /// `OpMap` (`OB`, `TB`, `T8`, `TA`, `T_MAP5` ...).
    pub map: Str,
    /// `OpPrefix` (`NoPrfx`, `PD`, `XS`, `XD`, `PS`).
    pub prefix: Str,
    /// `OpEnc` (`EncNormal`, `EncVEX`, `EncEVEX`, `EncXOP`).
    pub openc: Str,
    /// Opcode byte.
    pub opcode: u8,
    /// `OpSize` (`OpSizeFixed`, `OpSize16`, `OpSize32`).
    pub opsize: Str,
    /// `AdSize`.
    pub adsize: Str,
    /// `ImmT` (`NoImm`, `Imm8`, `Imm32S` ...).
    pub immt: Str,
    /// `explicitOpPrefix`.
    pub explicit_prefix: Str,
    /// `FPForm` (x87).
    pub fpform: Str,
    /// REX.W, VEX.vvvv, VEX.L, EVEX.K/Z/L'/B/RC, prefixes ...
    pub bits: X86Bits,
    /// EVEX compressed displacement scale.
    pub cd8_scale: u8,
    /// EVEX compressed displacement form.
    pub cd8_form: u8,
    /// EVEX element size.
    pub cd8_elt_size: u8,
    /// Vector size in bytes.
    pub vect_size: u8,
}

/// A run of operand bits in a fixed-width encoding:
/// `Inst[inst_lo +: width] = var[var_lo +: width]`.
#[derive(Debug)]
pub struct BitFieldDesc {
    /// The operand (or sub-operand) field name in LLVM's `Inst`.
    pub var: Str,
    /// First bit taken from the operand value.
    pub var_lo: u8,
    /// First instruction bit written.
    pub inst_lo: u8,
    /// Number of bits.
    pub width: u8,
}

/// LLVM's `Inst` bit layout (AArch64, RISC-V).
#[derive(Debug)]
pub struct BitLayoutDesc {
    /// Instruction width in bits (16 or 32).
    pub width: u8,
    /// Constant bits.
    pub fixed: u64,
    /// Which bits are constant.
    pub known: u64,
    /// Operand fields, into `FIELDS`.
    pub fields: Range,
    /// `PostEncoderMethod`, if any.
    pub post_encoder: Str,
}

/// An instruction form (one LLVM instruction record).
#[derive(Debug)]
pub struct InstrDesc {
    /// LLVM record name (`ADD64rr`).
    pub name: Str,
    /// `AsmString` template.
    pub asm: Str,
    /// Size in bytes where LLVM states it (AArch64/RISC-V).
    pub size: u8,
    /// Operands, into `OPERANDS`.
    pub operands: Range,
    /// Implicit defs (register ids).
    pub defs: Range,
    /// Implicit uses (register ids).
    pub uses: Range,
    /// Predicates (predicate ids).
    pub predicates: Range,
    /// Flags set to true.
    pub flags: Flags,
    /// Tri-state flags LLVM left unset (`?`) and infers from patterns.
    pub unknown: Flags,
    /// Index into `ENCODINGS`, or `NO_ENCODING`.
    pub enc: u32,
    /// RISC-V `RVVConstraint`: which sources the vector result must not
    /// overlap (bit 0 vs2, bit 1 vs1, bit 2 the mask v0); 0 elsewhere.
    pub rvv_constraint: u8,
}

/// An `InstAlias`: another spelling of one instruction form (AArch64
/// `cmp x0, #0` for `subs xzr, x0, #0`).
#[derive(Debug)]
pub struct AliasDesc {
    /// Its `AsmString`, whose `$name`s are the alias's operands.
    pub asm: Str,
    /// The instruction id it stands for.
    pub form: u32,
    /// Per machine operand of the form, into `ALIAS_ARGS`.
    pub args: Range,
    /// Predicates (predicate ids).
    pub predicates: Range,
    /// `EmitPriority`: printers use aliases of priority > 0 (0: parse only).
    pub priority: i32,
}

/// What an alias puts into one machine operand of its form.
#[derive(Debug)]
pub enum AliasArgDesc {
    /// Sub-operand `sub` of the alias operand `$name`, of operand type `ty`.
    Named {
        /// The alias operand's name.
        name: Str,
        /// Its operand type id.
        ty: u16,
        /// Which of its machine operands.
        sub: u8,
    },
    /// A fixed register (id).
    Reg(u16),
    /// A fixed immediate.
    Imm(i64),
    /// Left out: tied to an earlier operand of the same type.
    Tied,
}
