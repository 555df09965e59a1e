//! RISC-V immediates: their valid ranges (from LLVM's operand types, or
//! their names where the records state no range), a valid choice, their
//! field bits, and `RISCVInstPrinter`'s print methods.

use crate::arch::EncodeError;
use crate::isa::{Instr, McOperand};

/// How an immediate operand is printed and what it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmKind {
    /// A number in `[min, max]`, a multiple of `align`, maybe not zero.
    Plain {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Required alignment.
        align: i64,
        /// Zero is not allowed.
        nonzero: bool,
        /// Field width for two's complement masking (signed), else 0.
        signed_bits: u32,
    },
    /// Rounding mode with a dynamic default (`printFRMArg`).
    Frm,
    /// Rounding mode with `rne` as default (`printFRMArgLegacy`).
    FrmLegacy,
    /// Fence predecessor/successor set (`iorw`).
    Fence,
    /// A CSR number, printed by name where winic knows it.
    Csr,
    /// `vtype` of vsetvli/vsetivli (`e32, m1, ta, ma`).
    VType,
    /// Zcmp register list.
    Rlist,
    /// Zcmp stack adjustment, positive or negative.
    StackAdj(bool),
    /// Zfa `fli` constant index.
    FpImm,
}

/// The FLI constants of Zfa, by index, as LLVM prints them.
const FLI: [&str; 32] = [
    "-1.0",
    "min",
    "1.52587890625e-05",
    "3.0517578125e-05",
    "0.00390625",
    "0.0078125",
    "0.0625",
    "0.125",
    "0.25",
    "0.3125",
    "0.375",
    "0.4375",
    "0.5",
    "0.625",
    "0.75",
    "0.875",
    "1.0",
    "1.25",
    "1.5",
    "1.75",
    "2.0",
    "2.5",
    "3.0",
    "4.0",
    "8.0",
    "16.0",
    "128.0",
    "256.0",
    "32768.0",
    "65536.0",
    "inf",
    "nan",
];

/// Rounding-mode names by value (5 and 6 are reserved).
const FRM: [Option<&str>; 8] = [
    Some("rne"),
    Some("rtz"),
    Some("rdn"),
    Some("rup"),
    Some("rmm"),
    None,
    None,
    Some("dyn"),
];

impl ImmKind {
    /// The kind of immediate operand `m`.
    pub fn of(m: &McOperand) -> ImmKind {
        match m.ty.print_method() {
            "printFRMArg" => ImmKind::Frm,
            "printFRMArgLegacy" => ImmKind::FrmLegacy,
            "printFenceArg" => ImmKind::Fence,
            "printCSRSystemRegister" => ImmKind::Csr,
            "printVTypeI" => ImmKind::VType,
            "printRlist" => ImmKind::Rlist,
            "printStackAdj" => ImmKind::StackAdj(false),
            "printNegStackAdj" => ImmKind::StackAdj(true),
            "printFPImmOperand" => ImmKind::FpImm,
            _ => plain(m),
        }
    }
}

/// Range of a plain immediate: LLVM's stated range where there is one,
/// else what the type name (`simm10_lsb0000nonzero`, `uimm8ge32`) says.
fn plain(m: &McOperand) -> ImmKind {
    let name = m.ty.name();
    let nonzero = name.contains("nonzero");
    let align = name
        .split("_lsb")
        .nth(1)
        .map_or(1, |z| 1i64 << z.chars().take_while(|&c| c == '0').count());
    let k = |min: i64, max: i64, signed_bits: u32| ImmKind::Plain {
        min,
        max,
        align,
        nonzero,
        signed_bits,
    };
    if let Some(i) = m.ty.imm().filter(|i| i.min.is_some() && i.max.is_some()) {
        let signed = i.signed == Some(true);
        let (min, max) = (i.min.unwrap_or(0), i.max.unwrap_or(0));
        // c_lui_imm: LLVM states 0..=31, the field is 6 bits and zero is
        // reserved; 1 is valid in every reading.
        let min = if name == "c_lui_imm" { 1 } else { min };
        return k(min, max, if signed { i.bits } else { 0 });
    }
    match name {
        "immzero" => k(0, 0, 0),
        "rnum" => k(0, 10, 0),
        "byteselect" => k(0, 3, 0),
        "uimmlog2xlen" => k(0, 63, 0),
        "uimmlog2xlennonzero" => k(1, 63, 0),
        "uimm8ge32" => k(32, 255, 0),
        _ => {
            let (signed, rest) = match name.strip_prefix("simm") {
                Some(r) => (true, r),
                None => (false, name.strip_prefix("uimm").unwrap_or("")),
            };
            let bits: u32 = rest
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .unwrap_or(0);
            match (bits, signed) {
                (0, _) => k(0, 0, 0),
                (b, true) => k(-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1, b),
                (b, false) => k(0, (1i64 << b) - 1, 0),
            }
        }
    }
}

/// A scratch CSR that no instruction alias names specially (`fflags`
/// would turn `csrrw` into `fsflags`).
const MSCRATCH: i64 = 0x340;

/// A valid value for immediate operand `m`: a small positive legal one (or
/// zero where only zero is legal); rounding mode `rtz`, fence `rw`, CSR `mscratch`,
/// vtype `e32, m1, ta, ma` as WINIC uses, Zcmp `{ra}` with the base stack
/// adjustment, FLI `1.0`.
pub fn imm_choice(form: &Instr, m: &McOperand) -> Result<i64, EncodeError> {
    // XTHeadMemPair's last operand is the access size, which the assembler
    // checks: 4 for the doubleword pairs (th.ldd, th.sdd), else 3.
    if m.name == "const3or4" {
        return Ok(if form.name().ends_with("DD") { 4 } else { 3 });
    }
    Ok(match ImmKind::of(m) {
        // Legacy rounding operands (fcvt.d.s ...) predate a rounding field:
        // their default `rne` keeps the text decodable by older tools.
        ImmKind::Frm => 1,
        ImmKind::FrmLegacy => 0,
        ImmKind::Fence => 0b0011,
        ImmKind::Csr => MSCRATCH,
        ImmKind::VType => 0b1101_0000,
        ImmKind::Rlist => 4,
        ImmKind::StackAdj(_) => 0,
        ImmKind::FpImm => 16,
        // 2 rather than 1: `sltiu a0, a1, 1` is `seqz a0, a1` to a
        // disassembler.
        ImmKind::Plain {
            min, max, align, ..
        } => {
            let lowest_aligned = (min + align - 1).div_euclid(align) * align;
            let small = [2 * align, align, lowest_aligned.max(align)]
                .into_iter()
                .find(|v| (min..=max).contains(v));
            if let Some(v) = small {
                v
            } else if min == 0 && max == 0 {
                0
            } else {
                return Err(EncodeError::BadOperand(format!(
                    "{}: no positive value for {} in {min}..={max}",
                    form.name(),
                    m.name
                )));
            }
        }
    })
}

/// The field bits of immediate `v` of operand `m`, after checking that `v`
/// is valid for it.
pub fn imm_field(form: &Instr, m: &McOperand, v: i64) -> Result<u64, EncodeError> {
    let bad = |why: String| {
        Err(EncodeError::BadOperand(format!(
            "{}: {} = {v}: {why}",
            form.name(),
            m.name
        )))
    };
    match ImmKind::of(m) {
        ImmKind::Frm | ImmKind::FrmLegacy => match FRM.get(v as usize).copied().flatten() {
            Some(_) if v >= 0 => Ok(v as u64),
            _ => bad("not a rounding mode (0-4 or 7)".into()),
        },
        ImmKind::Fence if (0..16).contains(&v) => Ok(v as u64),
        ImmKind::Csr if (0..4096).contains(&v) => Ok(v as u64),
        ImmKind::VType if vtype(v).is_some() => Ok(v as u64),
        ImmKind::Rlist if v == 4 => Ok(4),
        ImmKind::Rlist => bad("winic encodes Zcmp register lists as {ra} (4) only".into()),
        ImmKind::StackAdj(_) if [0, 16, 32, 48].contains(&v) => Ok(v as u64),
        ImmKind::FpImm if (0..32).contains(&v) => Ok(v as u64),
        ImmKind::Plain {
            min,
            max,
            align,
            nonzero,
            signed_bits,
        } => {
            if !(min..=max).contains(&v) {
                return bad(format!("outside {min}..={max}"));
            }
            if v % align != 0 {
                return bad(format!("not a multiple of {align}"));
            }
            if nonzero && v == 0 {
                return bad("must not be zero".into());
            }
            Ok(match signed_bits {
                0 => v as u64,
                b => (v as u64) & ((1u64 << b) - 1),
            })
        }
        _ => bad("out of range".into()),
    }
}

/// The text of immediate `v` as `RISCVInstPrinter` prints it.
pub fn print_imm(form: &Instr, kind: ImmKind, v: i64) -> Result<String, EncodeError> {
    let bad = || EncodeError::BadOperand(format!("{}: cannot print {v} as {kind:?}", form.name()));
    Ok(match kind {
        ImmKind::Frm => match FRM.get(v as usize).copied().flatten().ok_or_else(bad)? {
            "dyn" => String::new(),
            name => format!(", {name}"),
        },
        ImmKind::FrmLegacy => match FRM.get(v as usize).copied().flatten().ok_or_else(bad)? {
            "rne" => String::new(),
            name => format!(", {name}"),
        },
        ImmKind::Fence => {
            let s: String = [(8, 'i'), (4, 'o'), (2, 'r'), (1, 'w')]
                .iter()
                .filter(|(bit, _)| v & bit != 0)
                .map(|(_, c)| *c)
                .collect();
            if s.is_empty() {
                "0".into()
            } else {
                s
            }
        }
        ImmKind::Csr => match v {
            MSCRATCH => "mscratch".into(),
            _ => v.to_string(),
        },
        ImmKind::VType => vtype(v).ok_or_else(bad)?,
        ImmKind::Rlist if v == 4 => "{ra}".into(),
        ImmKind::Rlist => return Err(bad()),
        // The base adjustment of `{ra}` on RV64 is 16 bytes.
        ImmKind::StackAdj(neg) => format!("{}{}", if neg { "-" } else { "" }, 16 + v),
        ImmKind::FpImm => FLI.get(v as usize).ok_or_else(bad)?.to_string(),
        ImmKind::Plain { .. } => v.to_string(),
    })
}

/// `e32, m1, ta, ma` from a vtype value.
fn vtype(v: i64) -> Option<String> {
    let sew = 8i64 << ((v >> 3) & 7);
    let lmul = ["m1", "m2", "m4", "m8", "", "mf8", "mf4", "mf2"][(v & 7) as usize];
    if lmul.is_empty() || sew > 64 || v >> 8 != 0 {
        return None;
    }
    let ta = if v & 0x40 != 0 { "ta" } else { "tu" };
    let ma = if v & 0x80 != 0 { "ma" } else { "mu" };
    Some(format!("e{sew}, {lmul}, {ta}, {ma}"))
}
