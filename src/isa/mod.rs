//! Typed view over the generated ISA tables: instruction forms, operands,
//! register classes, registers, aliasing, predicates and features.
//!
//! Every binary carries all three ISAs; [`Isa::get`] picks one. The view
//! knows nothing about benchmarking or encoders: it only answers what LLVM's
//! records say.

pub mod desc;
pub mod predicate;
mod tables;

use desc::*;
use std::fmt;
use std::sync::LazyLock;

/// The instruction set architectures winic knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// x86-64.
    X86_64,
    /// AArch64 (ARMv8/v9, 64-bit).
    Aarch64,
    /// RISC-V, 64-bit.
    Riscv64,
}

// The matches on `Arch` below are its definition (its names, which one
// this binary runs on, how users spell it), as `Isa::get` is the registry
// of the tables; what an arch does is its `crate::arch::Target`'s.
impl Arch {
    /// All arches, in a fixed order.
    pub const ALL: [Arch; 3] = [Arch::X86_64, Arch::Aarch64, Arch::Riscv64];

    /// Rust's `target_arch` name, used in file names and output.
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Riscv64 => "riscv64",
        }
    }

    /// The arch this binary runs on, if winic knows it.
    pub fn host() -> Option<Arch> {
        if cfg!(target_arch = "x86_64") {
            Some(Arch::X86_64)
        } else if cfg!(target_arch = "aarch64") {
            Some(Arch::Aarch64)
        } else if cfg!(target_arch = "riscv64") {
            Some(Arch::Riscv64)
        } else {
            None
        }
    }

    /// Parses an arch name; accepts the common spellings.
    pub fn parse(s: &str) -> Result<Arch, String> {
        match s.to_ascii_lowercase().as_str() {
            "x86_64" | "x86-64" | "x86" | "amd64" | "x64" => Ok(Arch::X86_64),
            "aarch64" | "arm64" | "armv8" => Ok(Arch::Aarch64),
            "riscv64" | "riscv" | "rv64" | "riscv64gc" => Ok(Arch::Riscv64),
            _ => Err(format!(
                "unknown arch '{s}'; valid: x86_64 (x86), aarch64 (arm64), riscv64 (riscv)"
            )),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Instruction flags (LLVM `Instruction` bits). The order is build.rs's
/// `FLAGS`; `FLAG_NAMES` spells it and a test checks the two agree.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    IsPseudo,
    IsCodeGenOnly,
    IsAsmParserOnly,
    IsBranch,
    IsIndirectBranch,
    IsCall,
    IsReturn,
    IsTerminator,
    IsBarrier,
    IsTrap,
    MayLoad,
    MayStore,
    HasSideEffects,
    IsMoveReg,
    IsMoveImm,
    IsCompare,
    IsCommutable,
    IsNotDuplicable,
    MayRaiseFpException,
    IsPreIselOpcode,
    IsMeta,
}

/// LLVM's names of the flags, in bit order.
pub const FLAG_NAMES: [&str; 21] = [
    "isPseudo",
    "isCodeGenOnly",
    "isAsmParserOnly",
    "isBranch",
    "isIndirectBranch",
    "isCall",
    "isReturn",
    "isTerminator",
    "isBarrier",
    "isTrap",
    "mayLoad",
    "mayStore",
    "hasSideEffects",
    "isMoveReg",
    "isMoveImm",
    "isCompare",
    "isCommutable",
    "isNotDuplicable",
    "mayRaiseFPException",
    "isPreISelOpcode",
    "isMeta",
];

/// Names of the x86 single-bit encoding fields, in bit order (build.rs `X86_BITS`).
pub const X86_BIT_NAMES: [&str; 15] = [
    "rex_w",
    "vex_4v",
    "vex_l",
    "ignores_vex_l",
    "ignores_w",
    "evex_k",
    "evex_z",
    "evex_l2",
    "evex_b",
    "evex_rc",
    "evex_nf",
    "lock",
    "rep",
    "notrack",
    "two_cond_ops",
];

impl Flags {
    /// Whether `flag` is set.
    pub fn has(self, flag: Flag) -> bool {
        self.0 & (1 << flag as u32) != 0
    }

    /// LLVM names of the set flags.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        FLAG_NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, n)| *n)
    }
}

impl X86Bits {
    /// Whether the field named `name` (see [`X86_BIT_NAMES`]) is set.
    pub fn has(self, name: &str) -> bool {
        X86_BIT_NAMES
            .iter()
            .position(|n| *n == name)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// Names of the set fields.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        X86_BIT_NAMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, n)| *n)
    }
}

/// One arch's tables.
pub struct Isa {
    arch: Arch,
    instrs: &'static [InstrDesc],
    operands: &'static [OperandDesc],
    operand_types: &'static [OperandTypeDesc],
    sub_operands: &'static [(u16, Str)],
    registers: &'static [RegDesc],
    classes: &'static [RegClassDesc],
    features: &'static [FeatureDesc],
    predicates: &'static [PredicateDesc],
    by_name: &'static [u32],
    pool: &'static [u16],
    strs: &'static [Str],
    encodings: EncodingTables,
    fields: &'static [BitFieldDesc],
    blob: &'static str,
    asm_variant: usize,
    aliases: &'static [AliasDesc],
    alias_args: &'static [AliasArgDesc],
}

/// How an arch's records describe their encodings (what build.rs writes
/// from them): x86 records carry the fields of an opcode map (`OpMap`,
/// `OpPrefix`, `Opcode`, `Form` …), the others the bit layout of their
/// `Inst` field.
enum EncodingTables {
    X86(&'static [X86EncodingDesc]),
    Bits(&'static [BitLayoutDesc]),
}

macro_rules! isa_of {
    ($arch:expr, $m:ident, $encodings:expr, $asm_variant:expr) => {
        Isa {
            arch: $arch,
            instrs: table(tables::$m::INSTRS),
            operands: table(tables::$m::OPERANDS),
            operand_types: &tables::$m::OPERAND_TYPES,
            sub_operands: &tables::$m::SUB_OPERANDS,
            registers: &tables::$m::REGISTERS,
            classes: &tables::$m::CLASSES,
            features: &tables::$m::FEATURES,
            predicates: &tables::$m::PREDICATES,
            by_name: &tables::$m::BY_NAME,
            pool: &tables::$m::POOL,
            strs: &tables::$m::STRS,
            encodings: $encodings,
            fields: &tables::$m::FIELDS,
            blob: tables::$m::BLOB,
            asm_variant: $asm_variant,
            aliases: &tables::$m::ALIASES,
            alias_args: &tables::$m::ALIAS_ARGS,
        }
    };
}

// The last argument is the variant of `{att|intel}` groups in `AsmString`s
// that winic prints: Intel (1) on x86; AArch64 and RISC-V have one syntax.
// Built on first use: the large tables are read from build.rs's words then.
static X86_64: LazyLock<Isa> = LazyLock::new(|| {
    isa_of!(
        Arch::X86_64,
        x86_64,
        EncodingTables::X86(table(tables::x86_64::ENCODINGS)),
        1
    )
});
static AARCH64: LazyLock<Isa> = LazyLock::new(|| {
    isa_of!(
        Arch::Aarch64,
        aarch64,
        EncodingTables::Bits(table(tables::aarch64::ENCODINGS)),
        0
    )
});
static RISCV64: LazyLock<Isa> = LazyLock::new(|| {
    isa_of!(
        Arch::Riscv64,
        riscv64,
        EncodingTables::Bits(table(tables::riscv64::ENCODINGS)),
        0
    )
});

fn slice<T>(all: &'static [T], r: Range) -> &'static [T] {
    &all[r.0 as usize..(r.0 + r.1) as usize]
}

impl Isa {
    /// The text of a table string.
    fn s(&self, s: Str) -> &'static str {
        // The blob is 'static; the borrow of self is not needed beyond it.
        let blob: &'static str = self.blob;
        &blob[s.0 as usize..(s.0 + s.1) as usize]
    }

    /// The tables of `arch` (the registry: the one place that names the
    /// tables of every arch).
    pub fn get(arch: Arch) -> &'static Isa {
        match arch {
            Arch::X86_64 => &X86_64,
            Arch::Aarch64 => &AARCH64,
            Arch::Riscv64 => &RISCV64,
        }
    }

    /// The arch whose tables know most of the LLVM names `names`, or
    /// `None` when no arch knows any: what a database or a report holds.
    pub fn arch_knowing<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Option<Arch> {
        [Arch::X86_64, Arch::Aarch64, Arch::Riscv64]
            .into_iter()
            .map(|a| {
                let isa = Isa::get(a);
                (names.clone().filter(|n| isa.instr(n).is_some()).count(), a)
            })
            .filter(|(known, _)| *known > 0)
            .max_by_key(|(known, _)| *known)
            .map(|(_, a)| a)
    }

    /// Which arch these tables describe.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// All instruction records (pseudos included), in LLVM opcode order.
    pub fn instrs(&'static self) -> impl Iterator<Item = Instr> + 'static {
        (0..self.instrs.len()).map(move |i| Instr {
            isa: self,
            opcode: i as u32,
        })
    }

    /// Real instruction forms: neither pseudo nor codegen-only.
    pub fn real_instrs(&'static self) -> impl Iterator<Item = Instr> + 'static {
        self.instrs().filter(|i| i.is_real())
    }

    /// The instruction with LLVM opcode number `opcode`.
    pub fn instr_by_opcode(&'static self, opcode: u32) -> Option<Instr> {
        ((opcode as usize) < self.instrs.len()).then_some(Instr { isa: self, opcode })
    }

    /// The instruction record named `name` (exact, case-sensitive).
    pub fn instr(&'static self, name: &str) -> Option<Instr> {
        self.by_name
            .binary_search_by(|&i| self.s(self.instrs[i as usize].name).cmp(name))
            .ok()
            .map(|k| Instr {
                isa: self,
                opcode: self.by_name[k],
            })
    }

    /// Up to `n` record names closest to `name`: case-insensitive equal, then
    /// prefix matches, then by edit distance.
    pub fn closest_instr_names(&'static self, name: &str, n: usize) -> Vec<&'static str> {
        let lower = name.to_ascii_lowercase();
        let mut scored: Vec<(usize, &'static str)> = self
            .instrs
            .iter()
            .map(|d| {
                let cand = self.s(d.name).to_ascii_lowercase();
                let score = if cand == lower {
                    0
                } else if cand.starts_with(&lower) {
                    1 + cand.len() - lower.len()
                } else {
                    100 + edit_distance(&lower, &cand)
                };
                (score, self.s(d.name))
            })
            .collect();
        scored.sort();
        scored.into_iter().take(n).map(|(_, s)| s).collect()
    }

    /// All registers, by name.
    pub fn registers(&'static self) -> impl Iterator<Item = Reg> + 'static {
        (0..self.registers.len()).map(move |i| Reg {
            isa: self,
            id: i as u16,
        })
    }

    /// The register named `name` (record name, e.g. `RAX`, `Q0_Q1`).
    pub fn register(&'static self, name: &str) -> Option<Reg> {
        self.registers
            .binary_search_by(|r| self.s(r.name).cmp(name))
            .ok()
            .map(|i| Reg {
                isa: self,
                id: i as u16,
            })
    }

    /// All register classes, by name.
    pub fn classes(&'static self) -> impl Iterator<Item = RegClass> + 'static {
        (0..self.classes.len()).map(move |i| RegClass {
            isa: self,
            id: i as u16,
        })
    }

    /// The register class named `name`.
    pub fn class(&'static self, name: &str) -> Option<RegClass> {
        self.classes
            .binary_search_by(|c| self.s(c.name).cmp(name))
            .ok()
            .map(|i| RegClass {
                isa: self,
                id: i as u16,
            })
    }

    /// The subtarget feature named `name` (LLVM's name, `avx512f`).
    pub fn feature(&'static self, name: &str) -> Option<Feature> {
        self.features
            .binary_search_by(|f| self.s(f.name).cmp(name))
            .ok()
            .map(|i| Feature {
                isa: self,
                d: &self.features[i],
            })
    }

    /// All subtarget features, by name.
    pub fn features(&'static self) -> impl Iterator<Item = Feature> + 'static {
        self.features.iter().map(move |d| Feature { isa: self, d })
    }

    /// Names of the features `name` implies, transitively (not itself).
    pub fn implied_features(&'static self, name: &str) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let mut todo = vec![name.to_string()];
        while let Some(f) = todo.pop() {
            let Some(feature) = self.feature(&f) else {
                continue;
            };
            for &id in slice(self.pool, feature.d.implies) {
                let n = self.s(self.features[id as usize].name);
                if !out.contains(&n) {
                    out.push(n);
                    todo.push(n.to_string());
                }
            }
        }
        out.sort();
        out
    }

    fn reg_list(&'static self, r: Range) -> impl Iterator<Item = Reg> + 'static {
        slice(self.pool, r)
            .iter()
            .map(move |&id| Reg { isa: self, id })
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// An instruction form.
#[derive(Clone, Copy)]
pub struct Instr {
    isa: &'static Isa,
    opcode: u32,
}

impl Instr {
    fn d(&self) -> &'static InstrDesc {
        &self.isa.instrs[self.opcode as usize]
    }

    /// Whether the form copies one register to another and does nothing
    /// else: LLVM's `isMoveReg`, or, where LLVM leaves that flag off a
    /// plain copy (`movdqa`, `vmovdqu ymm`, AArch64 `fmov d, d`), a move
    /// by name ([`Instr::names_a_move`]) with one register read and one
    /// written of the same class, neither tied, with no immediate and no
    /// implicit register. `inc`, `not` (tied) and `add r, imm` (an
    /// immediate) are no copies, nor are `pmovzxbw xmm, xmm`, `pabsd`,
    /// `vpbroadcastd xmm, xmm`, AArch64 `abs` or RISC-V `clz`, which have
    /// a copy's shape and compute.
    pub fn is_register_copy(self) -> bool {
        if self.has(Flag::IsMoveReg) {
            return true;
        }
        if !self.names_a_move() {
            return false;
        }
        let ops: Vec<Operand> = self.operands().collect();
        let [a, b] = ops[..] else {
            return false;
        };
        let (Some(ca), Some(cb)) = (a.ty().class(), b.ty().class()) else {
            return false;
        };
        a.is_def() != b.is_def()
            && ca.name() == cb.name()
            && a.tied_to().is_none()
            && b.tied_to().is_none()
            && self.implicit_uses().next().is_none()
            && self.implicit_defs().next().is_none()
    }

    /// Whether the mnemonic names a move: `mov…` (x86 also with a `v` or
    /// `k` in front, AArch64 `fmov`, SVE `movprfx`) or RISC-V `mv`, but
    /// not the element duplications `movddup`, `movshdup`, `movsldup`
    /// (shuffles) nor `movbe` (a byte swap).
    fn names_a_move(self) -> bool {
        let m = self.mnemonic().to_ascii_lowercase();
        let m = m.split('{').next().unwrap_or_default();
        let stem = m.strip_prefix("c.").unwrap_or(m);
        let stem = stem.strip_prefix(['v', 'k', 'f']).unwrap_or(stem);
        let shuffles = ["movddup", "movshdup", "movsldup", "movbe"];
        stem == "mv" || stem.starts_with("mov") && !shuffles.iter().any(|s| stem.starts_with(s))
    }

    /// Whether the form copies one register into part of another whose
    /// rest it keeps, and does nothing else: its destination tied to a
    /// source, one more source, all three of one class, no immediate and
    /// no implicit register (SSE `movsd xmm, xmm`, `movss`). A two-source
    /// operation has the same shape (`addps xmm, xmm`): only
    /// [`Instr::does_operation_of`] tells them apart, by the memory form.
    fn is_merging_copy(self) -> bool {
        let ops: Vec<Operand> = self.operands().collect();
        let [d, s1, s2] = ops[..] else {
            return false;
        };
        let same_class = [d, s1, s2]
            .iter()
            .map(|o| o.ty().class().map(|c| c.name()))
            .collect::<Option<Vec<_>>>()
            .is_some_and(|c| c[1..].iter().all(|n| *n == c[0]));
        d.is_def()
            && !s1.is_def()
            && !s2.is_def()
            && d.tied_to()
                .is_some_and(|t| t == s1.index() || t == s2.index())
            && same_class
            && self.implicit_uses().next().is_none()
            && self.implicit_defs().next().is_none()
    }

    /// Whether this memory form does the operation of `twin`, its register
    /// form, beside its access, or is the access alone: not where `twin`
    /// is a copy (`movupd xmm, m128` of `movupd xmm, xmm`), nor where
    /// `twin` merges a copy into its destination ([`Instr::is_merging_copy`])
    /// and this form keeps no destination's rest, no operand tied: SSE
    /// `movsd xmm, m64` zeroes the upper half and `movsd m64, xmm` writes
    /// its 8 bytes, where `movsd xmm, xmm` blends (on Zen 4 on the four
    /// vector pipes; the load on the load ports only). `addps xmm, m128`
    /// keeps its destination tied: the operation of `addps xmm, xmm`.
    pub fn does_operation_of(self, twin: Instr) -> bool {
        let keeps_destination = self.operands().any(|o| o.tied_to().is_some());
        !(twin.is_register_copy() || twin.is_merging_copy() && !keeps_destination)
    }

    /// The tables this form belongs to.
    pub fn isa(&self) -> &'static Isa {
        self.isa
    }

    /// LLVM record name (`ADD64rr`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d().name)
    }

    /// LLVM opcode number (as in `llvm-mc -show-inst`).
    pub fn opcode(&self) -> u32 {
        self.opcode
    }

    /// The raw `AsmString` template.
    pub fn asm_string(&self) -> &'static str {
        self.isa.s(self.d().asm)
    }

    /// The other spellings LLVM's assembler reads this form by (its
    /// `InstAlias` records; AArch64 only), in record order.
    pub fn aliases(&self) -> impl Iterator<Item = InstAlias> + 'static {
        let (isa, opcode) = (self.isa, self.opcode);
        isa.aliases
            .iter()
            .filter(move |a| a.form == opcode)
            .map(move |d| InstAlias { isa, d })
    }

    /// The assembly template in the syntax winic prints: Intel on x86
    /// (variant 1 of `{att|intel}`), the only variant elsewhere.
    pub fn asm_template(&self) -> String {
        select_asm_variant(self.asm_string(), self.isa.asm_variant)
    }

    /// The mnemonic of [`Instr::asm_template`] (empty for pseudos).
    pub fn mnemonic(&self) -> String {
        let t = self.asm_template();
        t.split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_string()
    }

    /// Size in bytes where LLVM states it (0 on x86).
    pub fn size(&self) -> u8 {
        self.d().size
    }

    /// Operands in order: outputs, then inputs (LLVM's MC order).
    pub fn operands(&self) -> impl Iterator<Item = Operand> + 'static {
        let isa = self.isa;
        slice(isa.operands, self.d().operands)
            .iter()
            .enumerate()
            .map(move |(i, d)| Operand {
                isa,
                d,
                index: i as u8,
            })
    }

    /// The flattened machine operands (LLVM's `MCOperand` list): each
    /// operand, or for a complex operand each of its sub-operands, named by
    /// the instruction (`(arith_shifted_reg64 $Rm, $shift)`) or else by the
    /// operand type's `MIOperandInfo`. Encoders place values by these names.
    pub fn mc_operands(&self) -> Vec<McOperand> {
        let mut out = Vec::new();
        for op in self.operands() {
            let ty = op.ty();
            let subs: Vec<(OperandType, &'static str)> = ty.sub_operands().collect();
            if subs.is_empty() || ty.kind() == OperandKind::Mem {
                out.push(McOperand {
                    operand: op,
                    ty,
                    name: op.name(),
                });
                continue;
            }
            let given = op.sub_names();
            for (k, (sty, sname)) in subs.into_iter().enumerate() {
                let name = given
                    .get(k)
                    .copied()
                    .filter(|n| !n.is_empty())
                    .unwrap_or(sname);
                out.push(McOperand {
                    operand: op,
                    ty: sty,
                    name,
                });
            }
        }
        out
    }

    /// The operand named `name`.
    pub fn operand(&self, name: &str) -> Option<Operand> {
        self.operands().find(|o| o.name() == name)
    }

    /// The size LLVM's printer names for the form's memory operand
    /// ([`OperandType::memory_size`], x86), `None` without one.
    pub fn memory_size(&self) -> Option<&'static str> {
        self.operands().find_map(|o| o.ty().memory_size())
    }

    /// Registers written implicitly (`Defs`).
    pub fn implicit_defs(&self) -> impl Iterator<Item = Reg> + 'static {
        self.isa.reg_list(self.d().defs)
    }

    /// Registers read implicitly (`Uses`).
    pub fn implicit_uses(&self) -> impl Iterator<Item = Reg> + 'static {
        self.isa.reg_list(self.d().uses)
    }

    /// Flags set to true.
    pub fn flags(&self) -> Flags {
        self.d().flags
    }

    /// Tri-state flags LLVM left unset and infers from patterns.
    pub fn unknown_flags(&self) -> Flags {
        self.d().unknown
    }

    /// RISC-V vector forms: the sources LLVM's `RVVConstraint` keeps the
    /// result off (widening, vrgather, vcompress, vsext/vzext, vsha2c*,
    /// vsm3me …): vs2, vs1, the mask v0. Empty elsewhere.
    pub fn result_must_not_overlap(&self) -> Vec<&'static str> {
        let c = self.d().rvv_constraint;
        [(1, "vs2"), (2, "vs1"), (4, "vm")]
            .into_iter()
            .filter(|(bit, _)| c & bit != 0)
            .map(|(_, name)| name)
            .collect()
    }

    /// Whether a memory operand of the form has a vector index (an x86
    /// gather or scatter, VSIB).
    pub fn has_vector_index(&self) -> bool {
        self.operands().any(|o| o.ty().is_vector_indexed())
    }

    /// Whether `flag` is set.
    pub fn has(&self, flag: Flag) -> bool {
        self.d().flags.has(flag)
    }

    /// Neither pseudo nor codegen-only: a form an assembler accepts.
    pub fn is_real(&self) -> bool {
        !self.has(Flag::IsPseudo) && !self.has(Flag::IsCodeGenOnly)
    }

    /// The predicates this form requires.
    pub fn predicates(&self) -> impl Iterator<Item = Predicate> + 'static {
        let isa = self.isa;
        slice(isa.pool, self.d().predicates)
            .iter()
            .map(move |&id| Predicate {
                isa,
                d: &isa.predicates[id as usize],
            })
    }

    /// The required features as one expression (`avx512f && avx512vl`), or
    /// `None` when no predicate restricts the form.
    pub fn required_features(&self) -> Option<String> {
        let conds: Vec<&str> = self
            .predicates()
            .map(|p| p.cond())
            .filter(|c| *c != "true")
            .collect();
        (!conds.is_empty()).then(|| conds.join(" && "))
    }

    /// The encoding description.
    pub fn encoding(&self) -> Encoding {
        let (isa, enc) = (self.isa, self.d().enc);
        if enc == NO_ENCODING {
            return Encoding::None;
        }
        match isa.encodings {
            EncodingTables::X86(all) => Encoding::X86(X86Enc {
                isa,
                d: &all[enc as usize],
            }),
            EncodingTables::Bits(all) => Encoding::Bits(BitEnc {
                isa,
                d: &all[enc as usize],
            }),
        }
    }
}

impl fmt::Debug for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.isa.arch, self.name())
    }
}

/// Chooses variant `variant` of every `{a|b|…}` group of an `AsmString`
/// as LLVM's `FlattenAsmStringVariants` does (x86: AT&T is 0, Intel 1; a
/// group without that alternative contributes nothing; `${op}` and `\{` are
/// not groups; braces nested in a group are literal), then resolves `\x`
/// escapes. Strings of single-variant targets pass through unchanged.
pub fn select_asm_variant(asm: &str, variant: usize) -> String {
    let b = asm.as_bytes();
    let mut flat = String::new();
    let mut i = 0;
    while i < b.len() {
        let is_group = b[i] == b'{' && (i == 0 || (b[i - 1] != b'$' && b[i - 1] != b'\\'));
        if !is_group {
            let next = (i + 1..b.len())
                .find(|&j| b[j] == b'{' && b[j - 1] != b'$' && b[j - 1] != b'\\')
                .unwrap_or(b.len());
            flat.push_str(&asm[i..next]);
            i = next;
            continue;
        }
        let mut end = i + 1;
        let mut depth = 1;
        while end < b.len() {
            if b[end] == b'}' && b[end - 1] != b'\\' {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else if b[end] == b'{' {
                depth += 1;
            }
            end += 1;
        }
        if let Some(alt) = asm[i + 1..end].split('|').nth(variant) {
            flat.push_str(alt);
        }
        i = end + 1;
    }
    let mut out = String::with_capacity(flat.len());
    let mut chars = flat.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
}

/// One operand of an instruction form.
#[derive(Clone, Copy)]
pub struct Operand {
    isa: &'static Isa,
    d: &'static OperandDesc,
    index: u8,
}

impl Operand {
    /// Position in the instruction's operand list.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Name (`dst`, `src1`, `Rd`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d.name)
    }

    /// Written (`outs`) or read (`ins`).
    pub fn io(&self) -> Io {
        self.d.io
    }

    /// Whether the instruction writes this operand.
    pub fn is_def(&self) -> bool {
        self.d.io == Io::Out
    }

    /// The operand type.
    pub fn ty(&self) -> OperandType {
        OperandType {
            isa: self.isa,
            d: &self.isa.operand_types[self.d.ty as usize],
        }
    }

    /// Index of the operand this one is tied to (`$src1 = $dst`).
    pub fn tied_to(&self) -> Option<usize> {
        self.d.tied_to.map(usize::from)
    }

    /// `@earlyclobber`.
    pub fn early_clobber(&self) -> bool {
        self.d.early_clobber
    }

    /// The sub-operand names the instruction gives a complex operand
    /// (`(arith_shifted_reg64 $Rm, $shift)`); empty otherwise.
    pub fn sub_names(&self) -> Vec<&'static str> {
        slice(self.isa.strs, self.d.sub_names)
            .iter()
            .map(|&s| self.isa.s(s))
            .collect()
    }
}

/// An `InstAlias` record: another spelling of one instruction form
/// (AArch64 `cmp $src, $imm` for `subs xzr, $src, $imm`).
#[derive(Clone, Copy)]
pub struct InstAlias {
    isa: &'static Isa,
    d: &'static AliasDesc,
}

/// What an alias puts into one machine operand of its form.
#[derive(Clone, Copy)]
pub enum AliasArg {
    /// Machine operand `sub` of the alias operand `$name`, whose type
    /// (`ty`) may print otherwise than the form's own (`inv_ccode`).
    Named {
        /// The name in the alias's `AsmString`.
        name: &'static str,
        /// The alias operand's type.
        ty: OperandType,
        /// Which of its machine operands.
        sub: usize,
    },
    /// A fixed register (`xzr` of `cmp`).
    Reg(Reg),
    /// A fixed immediate (`lsr`'s 63).
    Imm(i64),
    /// Left out of the alias: tied to an earlier operand.
    Tied,
}

impl AliasArg {
    /// The earlier machine operand of `args` that is bound to the same
    /// alias operand as machine operand `k` (`cinc`'s `$src`, CSINC's
    /// Rn and Rm), if any.
    pub fn twin(args: &[AliasArg], k: usize) -> Option<usize> {
        let AliasArg::Named { name, sub, .. } = args[k] else {
            return None;
        };
        args[..k].iter().position(
            |a| matches!(a, AliasArg::Named { name: n, sub: s, .. } if *n == name && *s == sub),
        )
    }
}

impl InstAlias {
    /// The form it stands for.
    pub fn form(&self) -> Instr {
        Instr {
            isa: self.isa,
            opcode: self.d.form,
        }
    }

    /// Its assembly template (`cmp\t$src, $imm`).
    pub fn asm_template(&self) -> String {
        select_asm_variant(self.isa.s(self.d.asm), self.isa.asm_variant)
    }

    /// Its mnemonic.
    pub fn mnemonic(&self) -> String {
        let t = self.asm_template();
        t.split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
    }

    /// Per machine operand of [`InstAlias::form`] (as
    /// [`Instr::mc_operands`]), what the alias puts there.
    pub fn args(&self) -> Vec<AliasArg> {
        let isa = self.isa;
        slice(isa.alias_args, self.d.args)
            .iter()
            .map(|a| match *a {
                AliasArgDesc::Named { name, ty, sub } => AliasArg::Named {
                    name: isa.s(name),
                    ty: OperandType {
                        isa,
                        d: &isa.operand_types[ty as usize],
                    },
                    sub: usize::from(sub),
                },
                AliasArgDesc::Reg(r) => AliasArg::Reg(Reg { isa, id: r }),
                AliasArgDesc::Imm(v) => AliasArg::Imm(v),
                AliasArgDesc::Tied => AliasArg::Tied,
            })
            .collect()
    }
}

impl fmt::Debug for InstAlias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} as {:?}", self.form(), self.asm_template())
    }
}

/// One machine operand: an operand, or one sub-operand of a complex one.
#[derive(Clone, Copy)]
pub struct McOperand {
    /// The instruction operand it belongs to.
    pub operand: Operand,
    /// Its own type (the sub-operand's type for complex operands).
    pub ty: OperandType,
    /// Its name, as the encoding's fields use it.
    pub name: &'static str,
}

/// An operand type: register class, register operand, immediate, memory …
#[derive(Clone, Copy)]
pub struct OperandType {
    isa: &'static Isa,
    d: &'static OperandTypeDesc,
}

impl OperandType {
    /// Record name.
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d.name)
    }

    /// LLVM `OperandType` (`OPERAND_IMMEDIATE`, `OPERAND_SIMM12` …).
    pub fn operand_type(&self) -> &'static str {
        self.isa.s(self.d.optype)
    }

    /// Value type (`i64`).
    pub fn value_type(&self) -> &'static str {
        self.isa.s(self.d.vt)
    }

    /// `PrintMethod` (empty when none).
    pub fn print_method(&self) -> &'static str {
        self.isa.s(self.d.print)
    }

    /// `EncoderMethod` (empty when none).
    pub fn encoder_method(&self) -> &'static str {
        self.isa.s(self.d.encode)
    }

    /// `DecoderMethod` (empty when none).
    pub fn decoder_method(&self) -> &'static str {
        self.isa.s(self.d.decode)
    }

    /// Name of the `ParserMatchClass` (empty when none).
    pub fn parser_class(&self) -> &'static str {
        self.isa.s(self.d.parser)
    }

    /// Kind. x86's `lea` operands (`lea64mem`) are complex operands of a
    /// memory reference's five parts in LLVM, parsed as one memory
    /// reference (`Mem`): one address, as every x86 memory operand.
    pub fn kind(&self) -> OperandKind {
        if self.d.kind == OperandKind::Complex && self.parser_class() == "Mem" {
            return OperandKind::Mem;
        }
        self.d.kind
    }

    /// Whether this is a plain x86 memory reference `[base + scale*index
    /// + disp]` with a general-purpose index (not a gather's vector index,
    /// a string operation's implicit `rsi`/`rdi`, or an absolute `moffs`).
    pub fn is_plain_memory(&self) -> bool {
        self.kind() == OperandKind::Mem && self.unplain_memory().is_none()
    }

    /// Whether this is an x86 memory reference with a vector index (VSIB:
    /// `[base + scale*ymm + disp]`, the operand of gathers and scatters).
    pub fn is_vector_indexed(&self) -> bool {
        self.vector_index_class().is_some()
    }

    /// The register class of a VSIB memory operand's vector index
    /// (`VR256X` of `vy256xmem`), `None` for every other operand.
    pub fn vector_index_class(&self) -> Option<RegClass> {
        if self.kind() != OperandKind::Mem {
            return None;
        }
        let (index, _) = self.sub_operands().nth(2)?;
        index.class().filter(|c| c.name().starts_with("VR"))
    }

    /// A memory reference kernels can address: plain, with a vector
    /// index (gathers, scatters), or a string operation's pointer.
    pub fn is_addressable_memory(&self) -> bool {
        self.is_plain_memory()
            || self.is_vector_indexed()
            || self.string_pointer().is_some()
            || self.is_absolute_address()
    }

    /// Whether this is an x86 absolute address (`moffs`: `mov al,
    /// [moffs64]`, LLVM's `offset64_8`), which a kernel sets to a place in
    /// its data area.
    pub fn is_absolute_address(&self) -> bool {
        self.kind() == OperandKind::Mem && self.name().starts_with("offset")
    }

    /// For an x86 string operation's memory operand, the register it
    /// addresses through and moves, and the bytes it accesses:
    /// `srcidx8` (`byte ptr [rsi]`) is `("RSI", 1)`, `dstidx64` (`qword
    /// ptr es:[rdi]`) `("RDI", 8)`. `None` for every other operand.
    pub fn string_pointer(&self) -> Option<(&'static str, u32)> {
        if self.kind() != OperandKind::Mem {
            return None;
        }
        let name = self.name();
        let (reg, bits) = match name.strip_prefix("srcidx") {
            Some(bits) => ("RSI", bits),
            None => ("RDI", name.strip_prefix("dstidx")?),
        };
        let bytes = match bits {
            "8" => 1,
            "16" => 2,
            "32" => 4,
            "64" => 8,
            _ => return None,
        };
        Some((reg, bytes))
    }

    /// For a memory operand that is not a plain `[base + scale*index +
    /// disp]`, what it is instead (a skip reason); `None` for a plain one
    /// and for operands that are no memory.
    pub fn unplain_memory(&self) -> Option<&'static str> {
        if self.kind() != OperandKind::Mem {
            return None;
        }
        let subs: Vec<&str> = self.sub_operands().map(|(t, _)| t.name()).collect();
        match subs.get(2) {
            _ if subs.len() == 5 && matches!(subs[2], "ptr_rc_nosp" | "GR64_NOSP") => None,
            Some(s) if s.starts_with("VR") => Some("gather or scatter (vector index operand)"),
            _ if self.name().starts_with("offset") => Some("absolute address operand (moffs)"),
            _ if self.name().contains("idx") => Some("string operation (rsi/rdi operand)"),
            _ => Some("memory operand of another shape"),
        }
    }

    /// The register class of a memory operand's base: its first
    /// sub-operand's class, or for LLVM's pointer class `ptr_rc` (a
    /// register class chosen per subtarget) x86-64's `GR64`.
    pub fn address_class(&self) -> Option<RegClass> {
        if self.kind() != OperandKind::Mem {
            return None;
        }
        let (base, _) = self.sub_operands().next()?;
        base.class().or_else(|| {
            (base.name() == "ptr_rc")
                .then(|| self.isa.class("GR64"))
                .flatten()
        })
    }

    /// The bytes an x86 memory operand accesses as LLVM's printer names
    /// them (`qword` of `printqwordmem`), or `None` (`lea`, `prefetch`:
    /// `printMemReference` names no size).
    pub fn memory_size(&self) -> Option<&'static str> {
        // `printMemOffs8` … `printMemOffs64`: an absolute address's size.
        if let Some(bits) = self.print_method().strip_prefix("printMemOffs") {
            return match bits {
                "8" => Some("byte"),
                "16" => Some("word"),
                "32" => Some("dword"),
                "64" => Some("qword"),
                _ => None,
            };
        }
        self.print_method()
            .strip_prefix("print")?
            .strip_suffix("mem")
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase()))
    }

    /// The register class of a register operand.
    pub fn class(&self) -> Option<RegClass> {
        self.d.class.map(|id| RegClass { isa: self.isa, id })
    }

    /// Immediate width and range, where LLVM states them.
    pub fn imm(&self) -> Option<ImmInfo> {
        self.d.imm
    }

    /// Sub-operands (`MIOperandInfo`): (type, name).
    pub fn sub_operands(&self) -> impl Iterator<Item = (OperandType, &'static str)> + 'static {
        let isa = self.isa;
        slice(isa.sub_operands, self.d.sub)
            .iter()
            .map(move |&(id, n)| {
                (
                    OperandType {
                        isa,
                        d: &isa.operand_types[id as usize],
                    },
                    isa.s(n),
                )
            })
    }
}

/// A register.
#[derive(Clone, Copy)]
pub struct Reg {
    isa: &'static Isa,
    id: u16,
}

impl Reg {
    fn d(&self) -> &'static RegDesc {
        &self.isa.registers[self.id as usize]
    }

    /// Index in the arch's register table.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// Record name (`RAX`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d().name)
    }

    /// Assembly name (`rax`); the record name lower-cased when LLVM gives none.
    pub fn asm_name(&self) -> String {
        match self.isa.s(self.d().asm) {
            "" => self.name().to_ascii_lowercase(),
            asm => asm.to_string(),
        }
    }

    /// Alternative assembly names (`ra` for RISC-V `X1`).
    pub fn alt_names(&self) -> Vec<&'static str> {
        slice(self.isa.strs, self.d().alt)
            .iter()
            .map(|&s| self.isa.s(s))
            .collect()
    }

    /// Hardware encoding.
    pub fn encoding(&self) -> u16 {
        self.d().enc
    }

    /// Direct sub-registers.
    pub fn sub_regs(&self) -> impl Iterator<Item = Reg> + 'static {
        self.isa.reg_list(self.d().sub)
    }

    /// All sub-registers, transitively.
    pub fn all_sub_regs(&self) -> impl Iterator<Item = Reg> + 'static {
        self.isa.reg_list(self.d().all_sub)
    }

    /// Whether `self` contains `other` (`RAX` contains `EAX`, `AX`, `AL`).
    pub fn contains(&self, other: Reg) -> bool {
        self.all_sub_regs().any(|r| r == other)
    }

    /// Whether writing one of the two can change the other: same register,
    /// one contains the other, or they share a sub-register (tuples).
    pub fn overlaps(&self, other: Reg) -> bool {
        if *self == other || self.contains(other) || other.contains(*self) {
            return true;
        }
        // Sub-register lists are short: compare them pairwise rather than
        // allocate (register choice calls this for every candidate).
        self.all_sub_regs()
            .any(|a| other.all_sub_regs().any(|b| a == b))
    }

    /// Synthesized from a `RegisterTuples`.
    pub fn is_tuple(&self) -> bool {
        self.d().tuple
    }
}

impl PartialEq for Reg {
    fn eq(&self, other: &Reg) -> bool {
        self.id == other.id && std::ptr::eq(self.isa, other.isa)
    }
}

impl Eq for Reg {}

impl std::hash::Hash for Reg {
    /// By its index (two arches' registers of one index are rare in one
    /// map, and unequal all the same).
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.id.hash(h);
    }
}

impl fmt::Debug for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A register class.
#[derive(Clone, Copy)]
pub struct RegClass {
    isa: &'static Isa,
    id: u16,
}

impl RegClass {
    fn d(&self) -> &'static RegClassDesc {
        &self.isa.classes[self.id as usize]
    }

    /// Record name (`GR64`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d().name)
    }

    /// Register size in bits.
    pub fn bits(&self) -> u32 {
        self.d().bits
    }

    /// Members in allocation order.
    pub fn members(&self) -> impl Iterator<Item = Reg> + 'static {
        self.isa.reg_list(self.d().members)
    }

    /// Whether `reg` is a member.
    pub fn contains(&self, reg: Reg) -> bool {
        self.members().any(|r| r == reg)
    }
}

impl fmt::Debug for RegClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A subtarget feature.
#[derive(Clone, Copy)]
pub struct Feature {
    isa: &'static Isa,
    d: &'static FeatureDesc,
}

impl Feature {
    /// LLVM feature name (`avx512f`, `sve2`, `zbb`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d.name)
    }

    /// The TableGen record (`FeatureAVX512`).
    pub fn record(&self) -> &'static str {
        self.isa.s(self.d.record)
    }

    /// LLVM's description.
    pub fn description(&self) -> &'static str {
        self.isa.s(self.d.desc)
    }
}

/// A predicate an instruction form requires.
#[derive(Clone, Copy)]
pub struct Predicate {
    isa: &'static Isa,
    d: &'static PredicateDesc,
}

impl Predicate {
    /// Record name (`HasAVX512`).
    pub fn name(&self) -> &'static str {
        self.isa.s(self.d.name)
    }

    /// Boolean expression over feature names (`avx512f && avx512vl`);
    /// `?call()` marks a C++ condition no feature maps to.
    pub fn cond(&self) -> &'static str {
        self.isa.s(self.d.cond)
    }

    /// LLVM's C++ `CondString`.
    pub fn raw(&self) -> &'static str {
        self.isa.s(self.d.raw)
    }
}

/// How an instruction form is encoded.
#[derive(Clone, Copy)]
pub enum Encoding {
    /// x86 encoding fields.
    X86(X86Enc),
    /// A fixed-width bit layout (AArch64, RISC-V).
    Bits(BitEnc),
    /// No encoding (pseudo).
    None,
}

/// The x86 encoding fields of an instruction record.
#[derive(Clone, Copy)]
pub struct X86Enc {
    isa: &'static Isa,
    d: &'static X86EncodingDesc,
}

impl X86Enc {
    /// `Form` (`MRMSrcReg`, `MRM2r` …).
    pub fn form(&self) -> &'static str {
        self.isa.s(self.d.form)
    }
    /// Numeric value of the form.
    pub fn form_value(&self) -> u8 {
        self.d.form_value
    }
    /// `OpMap` (`OB`, `TB`, `T8`, `TA`, `T_MAP5` …).
    pub fn map(&self) -> &'static str {
        self.isa.s(self.d.map)
    }
    /// `OpPrefix` (`NoPrfx`, `PD`, `XS`, `XD`, `PS`).
    pub fn prefix(&self) -> &'static str {
        self.isa.s(self.d.prefix)
    }
    /// `OpEnc` (`EncNormal`, `EncVEX`, `EncEVEX`, `EncXOP`).
    pub fn openc(&self) -> &'static str {
        self.isa.s(self.d.openc)
    }
    /// Opcode byte.
    pub fn opcode(&self) -> u8 {
        self.d.opcode
    }
    /// `OpSize` (`OpSizeFixed`, `OpSize16`, `OpSize32`).
    pub fn opsize(&self) -> &'static str {
        self.isa.s(self.d.opsize)
    }
    /// `AdSize`.
    pub fn adsize(&self) -> &'static str {
        self.isa.s(self.d.adsize)
    }
    /// `ImmT` (`NoImm`, `Imm8`, `Imm32S` …).
    pub fn immt(&self) -> &'static str {
        self.isa.s(self.d.immt)
    }
    /// `explicitOpPrefix`.
    pub fn explicit_prefix(&self) -> &'static str {
        self.isa.s(self.d.explicit_prefix)
    }
    /// `FPForm` (x87).
    pub fn fpform(&self) -> &'static str {
        self.isa.s(self.d.fpform)
    }
    /// REX.W, VEX.vvvv, VEX.L, EVEX.K/Z/L'/B/RC, prefixes …
    pub fn bits(&self) -> X86Bits {
        self.d.bits
    }
    /// EVEX compressed displacement: (scale, form, element size).
    pub fn cd8(&self) -> (u8, u8, u8) {
        (self.d.cd8_scale, self.d.cd8_form, self.d.cd8_elt_size)
    }
    /// Vector size in bytes.
    pub fn vect_size(&self) -> u8 {
        self.d.vect_size
    }
}

/// A run of operand bits in a fixed-width encoding:
/// `Inst[inst_lo +: width] = var[var_lo +: width]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    /// The operand (or sub-operand) field name in LLVM's `Inst`.
    pub var: &'static str,
    /// First bit taken from the operand value.
    pub var_lo: u8,
    /// First instruction bit written.
    pub inst_lo: u8,
    /// Number of bits.
    pub width: u8,
}

/// LLVM's `Inst` bit layout of an instruction record.
#[derive(Clone, Copy)]
pub struct BitEnc {
    isa: &'static Isa,
    d: &'static BitLayoutDesc,
}

impl BitEnc {
    /// Instruction width in bits (16 or 32).
    pub fn width(&self) -> u8 {
        self.d.width
    }
    /// Constant bits.
    pub fn fixed(&self) -> u64 {
        self.d.fixed
    }
    /// Which bits are constant.
    pub fn known(&self) -> u64 {
        self.d.known
    }
    /// Operand fields.
    pub fn fields(&self) -> impl Iterator<Item = BitField> + 'static {
        let isa = self.isa;
        slice(isa.fields, self.d.fields)
            .iter()
            .map(move |f| BitField {
                var: isa.s(f.var),
                var_lo: f.var_lo,
                inst_lo: f.inst_lo,
                width: f.width,
            })
    }
    /// `PostEncoderMethod` (empty when none).
    pub fn post_encoder(&self) -> &'static str {
        self.isa.s(self.d.post_encoder)
    }
}

#[cfg(test)]
mod tests;
