//! What each AArch64 immediate operand type means: the value an example
//! uses, how the assembly text writes it, and the field value LLVM's
//! `EncoderMethod` (or the plain operand) puts into the instruction.
//!
//! Convention for [`OpValue::Imm`](crate::arch::OpValue): numbers the text
//! writes as numbers hold that number (`#8` of a scaled offset is 8, a
//! logical immediate holds its bit mask, a right shift its amount);
//! enumerated operands (shifts, extends, condition codes, patterns,
//! prefetch operations, FP8 immediates, tile masks) hold LLVM's MC operand
//! value.

use super::imm_codec;
use crate::arch::EncodeError;
use crate::isa::OperandType;

/// The meaning of an immediate operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmKind {
    /// A number in `min..=max`, a multiple of `scale`; the field holds
    /// `value / scale` (two's complement in `signed_bits` bits when
    /// signed).
    Num {
        /// Smallest value (text).
        min: i64,
        /// Largest value (text).
        max: i64,
        /// The text value is the field value times this.
        scale: i64,
        /// Field width for signed values (0: unsigned).
        signed_bits: u32,
    },
    /// An implicit constant that is printed but not encoded.
    Fixed(i64),
    /// A logical immediate of a 32- or 64-bit register (bit mask).
    Logical(u32),
    /// A right shift `1..=n`, encoded as `n - value` (LLVM's
    /// `getVecShiftR<N>OpValue`, truncated by the field for narrowing
    /// shifts, where `n` is half the encoder's width).
    ShiftRight(i64),
    /// A left shift `0..n`, encoded as is.
    ShiftLeft(i64),
    /// Fixed-point fraction bits `1..=n`, encoded as `n - value`:
    /// `getFixedPointScaleOpValue` gives `64 - value`, of which the 32-bit
    /// forms' field keeps the low 5 bits (its top bit is constant).
    FixedPoint(i64),
    /// A vector immediate shift `lsl #0/8/16/24` (MSL: `msl #8/16`), MC
    /// value a shifter; LLVM's `getVecShifterOpValue` and
    /// `getMoveVecShifterOpValue` encode the amount / 8 (MSL: / 8 - 1).
    VecShifter {
        /// MSL (the "ones" shift) rather than LSL.
        msl: bool,
        /// Largest amount.
        max: i64,
    },
    /// SVE `mul #imm` of inc/dec, `1..=16`, encoded as `value - 1`.
    IncDec,
    /// A shift operand `(type << 6) | amount` (LLVM's shifter immediate):
    /// `kinds` is the set of allowed types (bit t for type t), amounts are
    /// multiples of `step` up to `max`.
    Shifter {
        /// Allowed shift types, bit 0 LSL … bit 4 MSL.
        kinds: u8,
        /// Largest amount.
        max: i64,
        /// Amounts are multiples of this.
        step: i64,
    },
    /// An arithmetic extend `(extend << 3) | amount`, amount `0..=4`:
    /// `kinds` is the set of allowed extends (bit e for UXTB 0 … SXTX 7).
    Extend {
        /// Allowed extends.
        kinds: u8,
    },
    /// An enumerated operand whose MC value is the field value; `example`
    /// is a legal choice and `max` the largest legal value.
    Enum {
        /// The value an example uses.
        example: i64,
        /// Largest field value.
        max: i64,
    },
}

/// How `ty` is to be chosen, printed and encoded.
pub fn imm_kind(ty: OperandType) -> Result<ImmKind, EncodeError> {
    let parser = ty.parser_class();
    let enc = ty.encoder_method();
    if ty.operand_type() == "OPERAND_IMPLICIT_IMM_0" {
        return Ok(ImmKind::Fixed(0));
    }
    if let Some(n) = enc
        .strip_prefix("getVecShiftR")
        .and_then(|s| s.strip_suffix("OpValue"))
    {
        // Narrowing shifts allow only half the encoder's width; the field
        // then holds max - value as well.
        let n: i64 = n.parse().map_err(|_| unsupported(ty))?;
        let max = ty.imm().and_then(|i| i.max).unwrap_or(n);
        return Ok(ImmKind::ShiftRight(max));
    }
    if let Some(n) = enc
        .strip_prefix("getVecShiftL")
        .and_then(|s| s.strip_suffix("OpValue"))
    {
        let n: i64 = n.parse().map_err(|_| unsupported(ty))?;
        return Ok(ImmKind::ShiftLeft(n));
    }
    if enc == "getFixedPointScaleOpValue" {
        let n = if ty.decoder_method().ends_with("32") {
            32
        } else {
            64
        };
        return Ok(ImmKind::FixedPoint(n));
    }
    if enc == "getVecShifterOpValue" {
        let max = if parser.contains("HalfWord") { 8 } else { 24 };
        return Ok(ImmKind::VecShifter { msl: false, max });
    }
    if enc == "getMoveVecShifterOpValue" {
        return Ok(ImmKind::VecShifter { msl: true, max: 16 });
    }
    if enc == "getSVEIncDecImm" {
        return Ok(ImmKind::IncDec);
    }
    if let Some(w) = parser.strip_prefix("LogicalImm") {
        return Ok(ImmKind::Logical(if w.starts_with("32") { 32 } else { 64 }));
    }
    if let Some(k) = enum_kind(parser) {
        return Ok(k);
    }
    num_kind(ty).ok_or_else(|| unsupported(ty))
}

impl ImmKind {
    /// A legal example value (text convention), small and non-zero where
    /// the range allows.
    pub fn example(self) -> i64 {
        match self {
            ImmKind::Num {
                min, max, scale, ..
            } => {
                let s = scale.abs();
                let v = if min <= s && s <= max { s } else { min };
                v.clamp(min, max)
            }
            ImmKind::Fixed(v) => v,
            ImmKind::Logical(_) => 0xff,
            ImmKind::ShiftRight(_) | ImmKind::FixedPoint(_) | ImmKind::IncDec => 2,
            ImmKind::ShiftLeft(_) => 2,
            ImmKind::VecShifter { msl, .. } => shifter(if msl { 4 } else { 0 }, 8),
            ImmKind::Enum { example, .. } => example,
            ImmKind::Shifter { step, max, .. } => {
                shifter(0, if step > 1 { step } else { 3.min(max) })
            }
            ImmKind::Extend { kinds } => {
                let kind = (0..8).find(|k| kinds >> k & 1 == 1).unwrap_or(0);
                arith_extend(kind, 2)
            }
        }
    }

    /// The field value of `v` (text convention), or why it is invalid.
    pub fn field(self, v: i64) -> Result<u64, String> {
        let out_of_range = |lo: i64, hi: i64| format!("{v} is outside {lo}..={hi}");
        match self {
            ImmKind::Num {
                min,
                max,
                scale,
                signed_bits,
            } => {
                if v < min || v > max {
                    return Err(out_of_range(min, max));
                }
                if v % scale != 0 {
                    return Err(format!("{v} is not a multiple of {scale}"));
                }
                let f = v / scale;
                Ok(if signed_bits > 0 {
                    (f as u64) & ((1u64 << signed_bits) - 1)
                } else {
                    f as u64
                })
            }
            ImmKind::Fixed(c) => {
                if v == c {
                    Ok(0)
                } else {
                    Err(format!("{v} must be {c}"))
                }
            }
            ImmKind::Logical(32) if !(0..1i64 << 32).contains(&v) => {
                Err(format!("{v:#x} has bits above 32"))
            }
            ImmKind::Logical(w) => imm_codec::encode_logical(v as u64, w)
                .ok_or_else(|| format!("{v:#x} is no {w}-bit logical immediate")),
            ImmKind::ShiftRight(n) | ImmKind::FixedPoint(n) => {
                if !(1..=n).contains(&v) {
                    return Err(out_of_range(1, n));
                }
                Ok((n - v) as u64)
            }
            ImmKind::ShiftLeft(n) => {
                if !(0..n).contains(&v) {
                    return Err(out_of_range(0, n - 1));
                }
                Ok(v as u64)
            }
            ImmKind::VecShifter { msl, max } => {
                let (kind, amount) = (v >> 6, v & 0x3f);
                let min = if msl { 8 } else { 0 };
                if kind != if msl { 4 } else { 0 }
                    || amount % 8 != 0
                    || amount < min
                    || amount > max
                {
                    return Err(format!(
                        "shifter {v:#x} must be {} #{min}..={max} in steps of 8",
                        if msl { "msl" } else { "lsl" }
                    ));
                }
                Ok(((amount - min) / 8) as u64)
            }
            ImmKind::IncDec => {
                if !(1..=16).contains(&v) {
                    return Err(out_of_range(1, 16));
                }
                Ok((v - 1) as u64)
            }
            ImmKind::Shifter { kinds, max, step } => {
                let (kind, amount) = (v >> 6, v & 0x3f);
                if !(0..5).contains(&kind)
                    || kinds >> kind & 1 == 0
                    || amount > max
                    || amount % step != 0
                {
                    return Err(format!("shift {v:#x} is not allowed here"));
                }
                Ok(v as u64)
            }
            ImmKind::Extend { kinds } => {
                let (kind, amount) = (v >> 3, v & 7);
                if !(0..8).contains(&kind) || kinds >> kind & 1 == 0 || amount > 4 {
                    return Err(format!("extend {v:#x} is not allowed here"));
                }
                Ok(v as u64)
            }
            ImmKind::Enum { max, .. } => {
                if !(0..=max).contains(&v) {
                    return Err(out_of_range(0, max));
                }
                Ok(v as u64)
            }
        }
    }
}

fn unsupported(ty: OperandType) -> EncodeError {
    EncodeError::Unsupported(format!(
        "immediate operand type {} ({})",
        ty.name(),
        ty.parser_class()
    ))
}

/// Shifter MC value: `(type << 6) | amount`, type LSL 0, LSR 1, ASR 2,
/// ROR 3, MSL 4 (LLVM's `AArch64_AM::getShifterImm`).
pub const fn shifter(kind: i64, amount: i64) -> i64 {
    (kind << 6) | amount
}

/// Arithmetic extend MC value: `(extend << 3) | amount`, extends UXTB 0 …
/// UXTX 3, SXTB 4 … SXTX 7 (`AArch64_AM::getArithExtendImm`).
pub const fn arith_extend(kind: i64, amount: i64) -> i64 {
    (kind << 3) | amount
}

const LSL: u8 = 1;
const LSR_ASR: u8 = 0b110;
const ROR: u8 = 0b1000;

fn enum_kind(parser: &str) -> Option<ImmKind> {
    let e = |example: i64, max: i64| Some(ImmKind::Enum { example, max });
    let sh = |kinds: u8, max: i64, step: i64| Some(ImmKind::Shifter { kinds, max, step });
    match parser {
        "ArithmeticShifter32" => return sh(LSL | LSR_ASR, 31, 1),
        "ArithmeticShifter64" => return sh(LSL | LSR_ASR, 63, 1),
        "LogicalShifter32" => return sh(LSL | LSR_ASR | ROR, 31, 1),
        "LogicalShifter64" => return sh(LSL | LSR_ASR | ROR, 63, 1),
        "MovImm32Shifter" => return sh(LSL, 16, 16),
        "MovImm64Shifter" => return sh(LSL, 48, 16),
        "LSLImm3Shift" => return sh(LSL, 7, 1),
        // Extends of a W register (UXTX/SXTX name an X register: the
        // `...rx64` forms); X-register forms take only UXTX (LSL) and SXTX.
        "Extend" => return Some(ImmKind::Extend { kinds: 0x77 }),
        "Extend64" => return Some(ImmKind::Extend { kinds: 0x77 }),
        "ExtendLSL64" => return Some(ImmKind::Extend { kinds: 0x88 }),
        "CondCode" => return e(1, 15),
        "SVEPattern" => return e(1, 31),
        "SVEVecLenSpecifier" => return e(0, 1),
        "SVEPrefetch" | "Prefetch" => return e(1, 31),
        "RangePrefetch" => return e(0, 63),
        "Barrier" => return e(0xf, 15),
        "BarriernXS" => return e(0x3, 15),
        "SysCR" => return e(1, 15),
        // nzcv (op0 3, op1 3, CRn 4, CRm 2, op2 0): readable and writable
        // at EL0 without side effects on the process (unlike tpidr_el0).
        "MRSSystemRegister" | "MSRSystemRegister" => return e(0xda10, 0xffff),
        // pan (op1 0, op2 4) and daifset (op1 3, op2 6).
        "SystemPStateFieldWithImm0_1" => return e(0x04, 0x3f),
        "SystemPStateFieldWithImm0_15" => return e(0x1e, 0x3f),
        "SVCR" => return e(1, 3),
        "FPImm" => return e(0x70, 0xff),
        "SIMDImmType10" => return e(0x01, 0xff),
        "ComplexRotationEven" => return e(1, 3),
        "ComplexRotationOdd" => return e(1, 1),
        "MatrixTileList" => return e(1, 0xff),
        _ => {}
    }
    if parser.starts_with("SVEExactFPImmOperand") {
        return e(1, 1);
    }
    None
}

/// Plain and scaled numbers, from the parser class name LLVM derives from
/// the range (`SImm9`, `UImm12Offset8`, `Imm1_16`, `UImm2s4Range`, …) or
/// from the stated range.
fn num_kind(ty: OperandType) -> Option<ImmKind> {
    let parser = ty.parser_class();
    let num = |min, max, scale, signed_bits| {
        Some(ImmKind::Num {
            min,
            max,
            scale,
            signed_bits,
        })
    };
    if let Some(rest) = parser.strip_prefix("SImm") {
        let (bits, scale) = split_scale(rest)?;
        let half = 1i64 << (bits - 1);
        return num(-half * scale, (half - 1) * scale, scale, bits);
    }
    if let Some(s) = parser.strip_prefix("UImm12Offset") {
        let scale: i64 = s.parse().ok()?;
        return num(0, 4095 * scale, scale, 0);
    }
    if let Some(rest) = parser
        .strip_prefix("UImm")
        .and_then(|r| r.strip_suffix("Range"))
    {
        // printImmRangeScale<Scale, Offset>: the field counts ranges.
        let (bits, scale) = split_scale(rest)?;
        return num(0, ((1i64 << bits) - 1) * scale, scale, 0);
    }
    if let Some(rest) = parser.strip_prefix("UImm") {
        let (bits, scale) = split_scale(rest)?;
        return num(0, ((1i64 << bits) - 1) * scale, scale, 0);
    }
    if let Some(rest) = parser
        .strip_prefix("Imm")
        .or_else(|| parser.strip_prefix("IndexRange"))
        .or_else(|| parser.strip_prefix("SVEIndexRange"))
    {
        let (lo, hi) = rest.split_once('_')?;
        return num(lo.parse().ok()?, hi.parse().ok()?, 1, 0);
    }
    let info = ty.imm()?;
    num(info.min?, info.max?, 1, 0)
}

/// `"9"` → (9, 1), `"4s16"` → (4, 16).
fn split_scale(s: &str) -> Option<(u32, i64)> {
    match s.split_once('s') {
        Some((b, sc)) => Some((b.parse().ok()?, sc.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}
