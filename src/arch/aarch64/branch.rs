//! The branches winic's assembler (manual mode) knows on AArch64, to a
//! label: `b`, `b.cond` (and the `bcond` spelling), `cbz`, `cbnz`; encoded
//! from LLVM's bit layouts of B, Bcc, CBZ*/CBNZ*.

use super::AArch64;
use crate::arch::bits::encode_fields;
use crate::arch::{inst_of, AsmDialect, Dialect, EncodeError, Inst, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Encoding, InstAlias, Isa};

const A: Arch = Arch::Aarch64;

/// Condition codes in encoding order (Arm ARM C1.2.4), with synonyms.
const CONDS: [&[&str]; 16] = [
    &["eq"],
    &["ne"],
    &["cs", "hs"],
    &["cc", "lo"],
    &["mi"],
    &["pl"],
    &["vs"],
    &["vc"],
    &["hi"],
    &["ls"],
    &["ge"],
    &["lt"],
    &["gt"],
    &["le"],
    &["al"],
    &["nv"],
];

fn cond(name: &str) -> Option<u64> {
    CONDS
        .iter()
        .position(|c| c.contains(&name))
        .map(|p| p as u64)
}

impl AsmDialect for AArch64 {
    fn print_alias(&self, inst: &Inst, alias: &InstAlias) -> Result<String, EncodeError> {
        super::printer::print_alias(inst, alias)
    }

    fn dialect(&self) -> Dialect {
        Dialect {
            syntax: None,
            align_is_power: true,
            hash_comment_anywhere: false,
            pseudo,
            memory: None,
            isa_directives: &[".arch", ".arch_extension", ".cpu"],
        }
    }

    fn branch(
        &self,
        mnemonic: &str,
        operands: &[&str],
        offset: i64,
        _long: bool,
    ) -> Option<Result<Vec<u8>, EncodeError>> {
        let cc = mnemonic
            .strip_prefix("b.")
            .or_else(|| mnemonic.strip_prefix('b').filter(|c| c.len() == 2))
            .and_then(cond);
        let mut bit = None;
        let (form, cc, reg) = match (mnemonic, cc, operands) {
            ("b", _, [_]) => ("B", None, None),
            (_, Some(c), [_]) => ("Bcc", Some(c), None),
            // Bits 0-31 of an X register are the W form's (LLVM's alias
            // `tbz $Rt, $imm, $target` for TBZW of an X register).
            ("tbz" | "tbnz", _, [r, b, _]) => {
                let reg = crate::arch::reg_named(A, r)?;
                let b = crate::arch::int_literal(b.trim().trim_start_matches('#'))?;
                let wide = reg.name().starts_with('X');
                let form = match (mnemonic, b) {
                    (_, 0..=31) if mnemonic == "tbz" => "TBZW",
                    (_, 0..=31) => "TBNZW",
                    ("tbz", 32..=63) if wide => "TBZX",
                    (_, 32..=63) if wide => "TBNZX",
                    _ => return None,
                };
                bit = Some(b as u64);
                (form, None, Some(reg))
            }
            ("cbz" | "cbnz", _, [r, _]) => {
                let reg = crate::arch::reg_named(A, r)?;
                let wide = reg.name().starts_with('X');
                let form = match (mnemonic, wide) {
                    ("cbz", true) => "CBZX",
                    ("cbz", false) => "CBZW",
                    (_, true) => "CBNZX",
                    (_, false) => "CBNZW",
                };
                (form, None, Some(reg))
            }
            _ => return None,
        };
        Some(encode_test(form, cc, reg, bit, offset))
    }

    fn nop(&self) -> Result<Inst, EncodeError> {
        inst_of(A, "HINT", &[OpValue::Imm(0)])
    }
}

pub fn encode(
    name: &str,
    cc: Option<u64>,
    reg: Option<crate::isa::Reg>,
    offset: i64,
) -> Result<Vec<u8>, EncodeError> {
    encode_test(name, cc, reg, None, offset)
}

/// [`encode`], with the bit a `tbz`/`tbnz` tests.
fn encode_test(
    name: &str,
    cc: Option<u64>,
    reg: Option<crate::isa::Reg>,
    bit: Option<u64>,
    offset: i64,
) -> Result<Vec<u8>, EncodeError> {
    let form = Isa::get(A)
        .instr(name)
        .ok_or_else(|| EncodeError::Unsupported(format!("no form {name}")))?;
    let Encoding::Bits(layout) = form.encoding() else {
        return Err(EncodeError::Unsupported(format!(
            "{name} has no bit layout"
        )));
    };
    if offset % 4 != 0 {
        return Err(EncodeError::BadOperand(format!(
            "branch offset {offset} is not a multiple of 4"
        )));
    }
    let word = encode_fields(&form, &layout, |_, m| {
        if m.ty.kind() == OperandKind::Reg {
            return reg
                .map(|r| u64::from(r.encoding()))
                .ok_or_else(|| EncodeError::BadOperand("missing register".into()));
        }
        if m.name == "cond" {
            return cc.ok_or_else(|| EncodeError::BadOperand("missing condition".into()));
        }
        if m.name == "bit_off" {
            return bit.ok_or_else(|| EncodeError::BadOperand("missing bit".into()));
        }
        // The offset field: words, two's complement in the field's width
        // (19 bits for b.cond/cbz, 14 for tbz, 26 for b); a value that
        // does not fit is refused by the range check below.
        let bits = match name {
            "B" => 26,
            _ if name.starts_with("TB") => 14,
            _ => 19,
        };
        let words = offset / 4;
        let half = 1i64 << (bits - 1);
        if !(-half..half).contains(&words) {
            return Err(EncodeError::BadOperand(format!(
                "{name}: {offset} bytes is out of reach (±{} bytes)",
                half * 4
            )));
        }
        Ok(words as u64 & ((1u64 << bits) - 1))
    })?;
    Ok((word as u32).to_le_bytes().to_vec())
}

/// The spellings LLVM reads by C++ rather than from an `InstAlias` record
/// (the records give `ret`, `mov` and the rest: `crate::asm`): `nop`
/// (LLVM's `NOP` is a `hint` it prints so) and `lsl`.
fn pseudo(mnemonic: &str, ops: &[&str]) -> Option<String> {
    Some(match (mnemonic, ops) {
        ("nop", []) => "hint #0".into(),
        // `lsl` is C++ in LLVM's parser and printer, not an InstAlias: a
        // `ubfm` with immr = -shift mod width and imms = width - 1 - shift.
        ("lsl", [d, s, sh]) if is_gpr(d) && is_gpr(s) => {
            let width = if d.trim().starts_with(['w', 'W']) {
                32
            } else {
                64
            };
            let sh = sh.trim().trim_start_matches('#');
            let sh = crate::arch::int_literal(sh).filter(|v| (0..width).contains(v))?;
            format!(
                "ubfm {d}, {s}, #{}, #{}",
                (width - sh) % width,
                width - 1 - sh
            )
        }
        _ => return None,
    })
}

fn is_gpr(s: &str) -> bool {
    let s = s.trim().to_ascii_lowercase();
    s.strip_prefix(['x', 'w'])
        .is_some_and(|n| n.parse::<u8>().is_ok_and(|n| n < 31))
}
