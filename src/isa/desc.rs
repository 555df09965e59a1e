//! The record types of the generated tables. They are plain data: ids are
//! indices into the arch's arrays, lists are `(start, len)` ranges into its
//! `POOL` (ids) or `STRS` (strings). `src/isa/mod.rs` wraps them in a typed
//! view; nothing outside `isa` should need these. The three large tables
//! of each arch (`INSTRS`, `OPERANDS`, `ENCODINGS`) come as words that
//! build.rs wrote ([`table`]); the others as Rust statics.

/// The first word of a binary table (build.rs's `TABLE_MAGIC`).
const TABLE_MAGIC: u32 = 0x5457_4e43;

/// The records of a table build.rs wrote as little-endian `u32` words (a
/// header: magic, record count, words per record; then the records),
/// read once and kept for the process: each arch's `Isa`, built on first
/// use, reads its three. As Rust literals these tables cost rustc 40-72 s
/// in every build of the crate; reading them costs milliseconds once per
/// process and arch. Panics when the file is not what this build's
/// `Record::read` expects (a build.rs out of step with this file).
pub fn table<T: Record>(bytes: &'static [u8]) -> &'static [T] {
    Box::leak(read_table(bytes))
}

/// The records of a binary table's bytes.
fn read_table<T: Record>(bytes: &[u8]) -> Box<[T]> {
    let name = std::any::type_name::<T>();
    let word = |i: usize| bytes.get(4 * i..4 * i + 4).map(le_word);
    let header = (word(0), word(1), word(2));
    let (Some(TABLE_MAGIC), Some(count), Some(per)) = header else {
        panic!("the generated table of {name} has no header: build.rs and src/isa/desc.rs are out of step")
    };
    let (count, per, body) = (count as usize, per as usize, &bytes[12..]);
    assert!(
        (per == T::WORDS || count == 0) && body.len() == 4 * count * per,
        "the generated table of {name} has {per} words a record and {} bytes for {count} records; \
         this build reads {} words a record: build.rs and src/isa/desc.rs are out of step",
        body.len(),
        T::WORDS
    );
    body.chunks_exact(4 * per)
        .map(|r| {
            let mut w = Words(r);
            let record = T::read(&mut w);
            debug_assert!(w.0.is_empty(), "{name}: words left over");
            record
        })
        .collect()
}

/// A little-endian word of 4 bytes.
fn le_word(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The words of one record (its little-endian bytes), read front to back.
pub struct Words<'a>(&'a [u8]);

impl Words<'_> {
    fn u32(&mut self) -> u32 {
        let (first, rest) = self.0.split_at(4);
        self.0 = rest;
        le_word(first)
    }

    /// A field build.rs checked to fit (`u8`, `u16`).
    fn small<N: TryFrom<u32>>(&mut self) -> N {
        let v = self.u32();
        N::try_from(v).unwrap_or_else(|_| {
            panic!("table value {v} does not fit its field: build.rs is out of step")
        })
    }

    fn u64(&mut self) -> u64 {
        let lo = self.u32() as u64;
        lo | (self.u32() as u64) << 32
    }

    fn str(&mut self) -> Str {
        Str(self.u32(), self.u32())
    }

    fn range(&mut self) -> Range {
        (self.u32(), self.u32())
    }

    fn bool(&mut self) -> bool {
        self.u32() != 0
    }
}

/// A record of a binary table: how many words it takes and how to read
/// them, in the order build.rs writes them (its struct's field order).
pub trait Record: Sized {
    /// Words a record.
    const WORDS: usize;
    /// Reads one record.
    fn read(w: &mut Words) -> Self;
}

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

impl Record for InstrDesc {
    const WORDS: usize = 17;
    fn read(w: &mut Words) -> Self {
        InstrDesc {
            name: w.str(),
            asm: w.str(),
            size: w.small(),
            operands: w.range(),
            defs: w.range(),
            uses: w.range(),
            predicates: w.range(),
            flags: Flags(w.u32()),
            unknown: Flags(w.u32()),
            enc: w.u32(),
            rvv_constraint: w.small(),
        }
    }
}

impl Record for OperandDesc {
    const WORDS: usize = 8;
    fn read(w: &mut Words) -> Self {
        OperandDesc {
            name: w.str(),
            io: if w.u32() == 0 { Io::Out } else { Io::In },
            ty: w.small(),
            tied_to: match w.u32() {
                u32::MAX => None,
                j => Some(u8::try_from(j).expect("a tied operand's index")),
            },
            sub_names: w.range(),
            early_clobber: w.bool(),
        }
    }
}

impl Record for X86EncodingDesc {
    const WORDS: usize = 25;
    fn read(w: &mut Words) -> Self {
        X86EncodingDesc {
            form: w.str(),
            form_value: w.small(),
            map: w.str(),
            prefix: w.str(),
            openc: w.str(),
            opcode: w.small(),
            opsize: w.str(),
            adsize: w.str(),
            immt: w.str(),
            explicit_prefix: w.str(),
            fpform: w.str(),
            bits: X86Bits(w.u32()),
            cd8_scale: w.small(),
            cd8_form: w.small(),
            cd8_elt_size: w.small(),
            vect_size: w.small(),
        }
    }
}

impl Record for BitLayoutDesc {
    const WORDS: usize = 9;
    fn read(w: &mut Words) -> Self {
        BitLayoutDesc {
            width: w.small(),
            fixed: w.u64(),
            known: w.u64(),
            fields: w.range(),
            post_encoder: w.str(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table's words as build.rs writes them: the header, then records.
    fn file(records: &[&[u32]], per: u32) -> Vec<u8> {
        [TABLE_MAGIC, records.len() as u32, per]
            .into_iter()
            .chain(records.iter().flat_map(|r| r.iter().copied()))
            .flat_map(u32::to_le_bytes)
            .collect()
    }

    /// Every field comes back from its words, `u64`s low word first, an
    /// `Option` of `u32::MAX` as `None`.
    #[test]
    fn records_read_back_their_fields() {
        let bits = file(
            &[&[32, 0xdead_beef, 0x1, 0xffff_ffff, 0x2, 7, 3, 100, 5]],
            9,
        );
        let [b] = &*read_table::<BitLayoutDesc>(&bits) else {
            panic!("one record")
        };
        assert_eq!(
            (b.width, b.fixed, b.known),
            (32, 0x1_dead_beef, 0x2_ffff_ffff)
        );
        assert_eq!((b.fields, b.post_encoder), ((7, 3), Str(100, 5)));
        let ops = file(
            &[
                &[1, 2, 0, 131, u32::MAX, 0, 0, 1],
                &[3, 4, 1, 7, 0, 5, 2, 0],
            ],
            8,
        );
        let ops = read_table::<OperandDesc>(&ops);
        assert_eq!(
            (ops[0].io, ops[0].ty, ops[0].tied_to, ops[0].early_clobber),
            (Io::Out, 131, None, true)
        );
        assert_eq!(
            (ops[1].io, ops[1].tied_to, ops[1].sub_names),
            (Io::In, Some(0), (5, 2))
        );
    }

    /// A file written for another record layout is refused, naming why.
    #[test]
    #[should_panic(expected = "out of step")]
    fn a_table_of_another_layout_is_refused() {
        read_table::<BitLayoutDesc>(&file(&[&[0; 8]], 8));
    }

    /// A value too wide for its field is refused, not truncated.
    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_value_too_wide_for_its_field_is_refused() {
        read_table::<BitLayoutDesc>(&file(&[&[256, 0, 0, 0, 0, 0, 0, 0, 0]], 9));
    }
}
