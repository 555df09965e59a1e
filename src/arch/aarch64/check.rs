//! The Capstone check of AArch64 encodings.
//!
//! Capstone 5.0.6 decodes the bytes; its text and ours are brought to a
//! canonical form ([`Canon`]: numbers in decimal, register lists
//! expanded, `pnN` as `pN`, operands Capstone omits at their default
//! dropped) and compared operand by operand. Where Capstone prints LLVM's
//! preferred alias instead of the real instruction, the alias is accepted
//! only if it denotes the same operands: aliases that keep the operands
//! (`cpy` → `mov`, `not` → `mvn` …) compare them as they are; `movz`/`movn`
//! compare the moved value; `ubfm`/`sbfm`/`bfm` translate Capstone's
//! `lsl`/`ubfx`/`sxtw` … back to `immr`/`imms`; `hint #n` compares with
//! the named hint; SYS aliases Capstone does not know compare the generic
//! `sys` fields with the form's constant bits and register.
//!
//! A form is `Unchecked` when its required features need an extension
//! Capstone 5.0.6 cannot decode (decided from the feature expression, not
//! from a failed decode), or when it is in a short table of documented
//! Capstone bugs.

use crate::arch::{Check, Inst};
use crate::isa::Encoding;
use capstone::arch::arm64::ArchMode;
use capstone::arch::BuildsCapstone;
use capstone::Capstone;

thread_local! {
    /// Capstone is not `Sync`: one decoder per thread.
    static CS: Option<Capstone> = Capstone::new().arm64().mode(ArchMode::Arm).build().ok();
}

/// Capstone's text of `bytes`: mnemonic and operands, or `None` when it
/// cannot decode them.
pub fn decode(bytes: &[u8]) -> Option<(String, String)> {
    CS.with(|cs| {
        let cs = cs.as_ref()?;
        let insns = cs.disasm_count(bytes, 0, 1).ok()?;
        let i = insns.iter().next()?;
        Some((
            i.mnemonic()?.to_string(),
            i.op_str().unwrap_or("").to_string(),
        ))
    })
}

/// An instruction text in a canonical form: lower case, operands split at
/// top-level commas, register lists expanded (`{ z0.h - z3.h }` →
/// `{z0.h,z1.h,z2.h,z3.h}`), numbers in decimal without `#`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canon {
    /// The mnemonic.
    pub mnemonic: String,
    /// The operands.
    pub ops: Vec<String>,
}

/// Canonicalises `text` (see [`Canon`]).
pub fn canon(text: &str) -> Canon {
    let text = text.trim().to_ascii_lowercase();
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
    let mut ops = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in rest.chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            ops.push(canon_operand(&cur));
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        ops.push(canon_operand(&cur));
    }
    // Operands equal to their default, which Capstone omits: a trailing
    // `mul #1`, the option of `isb sy`, `clrex #15`, `dcps1 #0`.
    if ops.last().is_some_and(|o| o == "mul1") {
        ops.pop();
    }
    let default = match mnemonic {
        "isb" => "sy",
        "clrex" => "15",
        "dcps1" | "dcps2" | "dcps3" => "0",
        _ => "",
    };
    if ops.len() == 1 && ops[0] == default {
        ops.clear();
    }
    Canon {
        mnemonic: mnemonic.to_string(),
        ops,
    }
}

/// SVE bitwise immediates (`and z0.d, z0.d, #0x5555555555555555`, which
/// Capstone prints as `and z0.b, z0.b, #0x55555555`): all `.d` with the
/// element value replicated to 64 bits.
fn sve_logical_imm(c: &mut Canon) {
    let size = c
        .ops
        .first()
        .and_then(|o| o.strip_prefix('z'))
        .and_then(|o| o.split_once('.'));
    let bits = match size.map(|(_, t)| t) {
        Some("b") => 8,
        Some("h") => 16,
        Some("s") => 32,
        Some("d") => 64,
        _ => return,
    };
    let Some(v) = c.ops.last().and_then(|o| o.parse::<i64>().ok()) else {
        return;
    };
    let elem = if bits == 64 {
        v as u64
    } else {
        v as u64 & ((1u64 << bits) - 1)
    };
    let mut out = 0u64;
    let mut at = 0;
    while at < 64 {
        out |= elem << at;
        at += bits;
    }
    let n = c.ops.len();
    for o in &mut c.ops[..n - 1] {
        if let Some((r, _)) = o.split_once('.') {
            *o = format!("{r}.d");
        }
    }
    c.ops[n - 1] = (out as i64).to_string();
}

fn canon_operand(op: &str) -> String {
    let op = expand_ranges(op.trim());
    let mut out = String::new();
    for tok in split_keep(&op) {
        out.push_str(&canon_token(tok));
    }
    // A zero offset, which Capstone omits: `[x0, #0]`, `[x0, #0, mul vl]`.
    let out = out.replace(",0,mulvl]", "]").replace(",0]", "]");
    // Element 0 of a Z register as its scalar view: `z1.b[0]` is `b1`.
    if let Some((reg, kind)) = out
        .strip_prefix('z')
        .and_then(|r| r.strip_suffix("[0]"))
        .and_then(|r| r.split_once('.'))
    {
        if reg.parse::<u8>().is_ok() && matches!(kind, "b" | "h" | "s" | "d" | "q") {
            return format!("{kind}{reg}");
        }
    }
    out
}

/// Splits at separators, keeping them as tokens.
fn split_keep(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if matches!(c, ',' | '{' | '}' | '[' | ']' | ' ' | '!') {
            if start < i {
                out.push(&s[start..i]);
            }
            if c != ' ' {
                out.push(&s[i..i + 1]);
            }
            start = i + 1;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// A number in decimal (integers) or shortest float form; a predicate as
/// counter `pnN` as `pN` (the same register); other tokens unchanged.
fn canon_token(tok: &str) -> String {
    if let Some(rest) = tok
        .strip_prefix("pn")
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    {
        return format!("p{rest}");
    }
    let t = tok.strip_prefix('#').unwrap_or(tok);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    let int = match digits.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => digits.parse::<u64>().ok(),
    };
    if let Some(v) = int {
        // Capstone prints negative immediates as 64-bit hex.
        return if neg {
            format!("-{v}")
        } else {
            (v as i64).to_string()
        };
    }
    if digits.contains('.') || digits.contains('e') {
        if let Ok(f) = t.parse::<f64>() {
            return format!("{f:?}");
        }
    }
    tok.to_string()
}

/// `z0.h - z3.h` → `z0.h, z1.h, z2.h, z3.h` (register ranges in lists).
fn expand_ranges(op: &str) -> String {
    let Some((a, b)) = op.split_once(" - ") else {
        return op.to_string();
    };
    let first = a.rsplit(['{', ' ']).next().unwrap_or(a);
    let last = b.split(['}', ' ']).next().unwrap_or(b);
    let parse = |r: &str| -> Option<(char, u32, String)> {
        let kind = r.chars().next()?;
        let (num, suffix) = r[1..]
            .split_once('.')
            .map_or((&r[1..], String::new()), |(n, s)| (n, format!(".{s}")));
        Some((kind, num.parse().ok()?, suffix))
    };
    let (Some((k, lo, s)), Some((_, hi, _))) = (parse(first), parse(last)) else {
        return op.to_string();
    };
    let n = (hi + 32 - lo) % 32 + 1;
    let regs: Vec<String> = (0..n).map(|i| format!("{k}{}{s}", (lo + i) % 32)).collect();
    format!(
        "{}{}{}",
        &a[..a.len() - first.len()],
        regs.join(", "),
        &b[last.len()..]
    )
}

/// Features Capstone 5.0.6 (LLVM 14 era tables) cannot decode: it fails
/// on them instead of decoding wrongly. A form is unchecked when its
/// required-feature expression is false with these features off.
const UNSUPPORTED_FEATURES: &[&str] = &[
    "sme2",
    "sme2p1",
    "sve2p1",
    "b16b16",
    "sme-f16f16",
    "sme-f8f16",
    "sme-f8f32",
    "sme-lutv2",
    "fp8",
    "fp8fma",
    "fp8dot2",
    "fp8dot4",
    "ssve-fp8fma",
    "ssve-fp8dot2",
    "ssve-fp8dot4",
    "lut",
    "faminmax",
    "cssc",
    "the",
    "d128",
    "lse128",
    "rcpc3",
    "pauth-lr",
    "cpa",
    "gcs",
];

/// Forms of supported extensions that Capstone 5.0.6 gets wrong, checked
/// against llvm-mc instead.
const CAPSTONE_BUGS: &[(&str, &str)] = &[
    (
        "STGPi",
        "capstone 5.0.6 bug: DecodePairLdStInstruction lacks STGP",
    ),
    (
        "STGPpost",
        "capstone 5.0.6 bug: DecodePairLdStInstruction lacks STGP",
    ),
    (
        "STGPpre",
        "capstone 5.0.6 bug: DecodePairLdStInstruction lacks STGP",
    ),
    (
        "ADDSPL_XXI",
        "capstone 5.0.6 bug: no decoder entry for SME addspl",
    ),
    (
        "ADDSVL_XXI",
        "capstone 5.0.6 bug: no decoder entry for SME addsvl",
    ),
    (
        "RDSVLI_XI",
        "capstone 5.0.6 bug: no decoder entry for SME rdsvl",
    ),
    (
        "RPRFM",
        "capstone 5.0.6 bug: decodes rprfm as prfm with an unnamed operation",
    ),
];

/// Why Capstone cannot check `form`, if it cannot.
pub fn unchecked_reason(form: &crate::isa::Instr) -> Option<String> {
    if let Some((_, why)) = CAPSTONE_BUGS.iter().find(|(n, _)| *n == form.name()) {
        return Some(why.to_string());
    }
    let cond = form.required_features()?;
    if eval(&cond) {
        return None;
    }
    let missing: Vec<&str> = UNSUPPORTED_FEATURES
        .iter()
        .copied()
        .filter(|f| mentions(&cond, f))
        .collect();
    Some(format!(
        "capstone 5.0.6 cannot decode {}",
        missing.join("/")
    ))
}

fn mentions(cond: &str, feature: &str) -> bool {
    cond.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'))
        .any(|w| w == feature)
}

/// Evaluates a feature expression (`(sve2 || sme2) && b16b16`) with the
/// features Capstone lacks false and every other one true.
fn eval(cond: &str) -> bool {
    let toks: Vec<&str> = tokens(cond);
    let mut pos = 0;
    or_expr(&toks, &mut pos)
}

fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' => i += 1,
            b'(' | b')' | b'!' => {
                out.push(&s[i..i + 1]);
                i += 1;
            }
            b'&' | b'|' => {
                out.push(&s[i..i + 2]);
                i += 2;
            }
            _ => {
                let len = s[i..]
                    .find([' ', '(', ')', '&', '|'])
                    .unwrap_or(s.len() - i);
                out.push(&s[i..i + len]);
                i += len;
            }
        }
    }
    out
}

fn or_expr(t: &[&str], pos: &mut usize) -> bool {
    let mut v = and_expr(t, pos);
    while t.get(*pos) == Some(&"||") {
        *pos += 1;
        v |= and_expr(t, pos);
    }
    v
}

fn and_expr(t: &[&str], pos: &mut usize) -> bool {
    let mut v = atom(t, pos);
    while t.get(*pos) == Some(&"&&") {
        *pos += 1;
        v &= atom(t, pos);
    }
    v
}

fn atom(t: &[&str], pos: &mut usize) -> bool {
    let Some(tok) = t.get(*pos) else { return true };
    *pos += 1;
    match *tok {
        "(" => {
            let v = or_expr(t, pos);
            if t.get(*pos) == Some(&")") {
                *pos += 1;
            }
            v
        }
        "!" => !atom(t, pos),
        f => !UNSUPPORTED_FEATURES.contains(&f),
    }
}

/// Aliases that keep the operands: (printed mnemonic, Capstone's).
const SAME_OPERAND_ALIASES: &[(&str, &str)] = &[
    ("cpy", "mov"),
    ("dup", "mov"),
    ("ins", "mov"),
    ("umov", "mov"),
    ("fcpy", "fmov"),
    ("fdup", "fmov"),
    ("mova", "mov"),
    ("dupm", "mov"),
    ("not", "mvn"),
];

/// `hint #n` aliases (Arm ARM, HINT): index n.
const HINTS: &[(i64, &str)] = &[
    (0, "nop"),
    (1, "yield"),
    (2, "wfe"),
    (3, "wfi"),
    (4, "sev"),
    (5, "sevl"),
    (6, "dgh"),
    (7, "xpaclri"),
    (8, "pacia1716"),
    (10, "pacib1716"),
    (12, "autia1716"),
    (14, "autib1716"),
    (16, "esb"),
    (17, "psb csync"),
    (18, "tsb csync"),
    (20, "csdb"),
    (24, "paciaz"),
    (25, "paciasp"),
    (26, "pacibz"),
    (27, "pacibsp"),
    (28, "autiaz"),
    (29, "autiasp"),
    (30, "autibz"),
    (31, "autibsp"),
    (32, "bti"),
    (34, "bti c"),
    (36, "bti j"),
    (38, "bti jc"),
];

/// Decodes `bytes` with Capstone and compares with `inst` printed as `text`.
pub fn check(inst: &Inst, bytes: &[u8], text: &str) -> Check {
    if let Some(why) = unchecked_reason(&inst.form) {
        return Check::Unchecked(why);
    }
    let Some((m, o)) = decode(bytes) else {
        return Check::Mismatch(format!("capstone cannot decode {}", hex(bytes)));
    };
    let got = format!("{m} {o}");
    let fixed = match inst.form.encoding() {
        Encoding::Bits(b) => b.fixed() as u32,
        _ => 0,
    };
    // Capstone prints LLVM's preferred alias (`cmp x0, #0` for `subs xzr,
    // x0, #0`): the form's InstAlias records spell `inst` that way too.
    let spelled_so = || {
        inst.form
            .aliases()
            .any(|a| super::printer::print_alias(inst, &a).is_ok_and(|t| canon(&t) == canon(&got)))
    };
    if same(&canon(text), &canon(&got), fixed) || spelled_so() {
        Check::Ok
    } else {
        Check::Mismatch(format!(
            "intended `{text}`, capstone decodes {} as `{}`",
            hex(bytes),
            got.trim()
        ))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether Capstone's text `cs` means the instruction `ours`, aliases
/// included; `fixed` is the form's constant bits (for the generic `sys`
/// form Capstone prints for SYS aliases it does not know).
fn same(ours: &Canon, cs: &Canon, fixed: u32) -> bool {
    if ours == cs {
        return true;
    }
    let (a, b) = (ours.mnemonic.as_str(), cs.mnemonic.as_str());
    if SAME_OPERAND_ALIASES.contains(&(a, b)) {
        return ours.ops == cs.ops;
    }
    match (a, b) {
        ("and" | "orr" | "eor" | "dupm", _) if a == b || (a, b) == ("dupm", "mov") => {
            let (mut x, mut y) = (ours.clone(), cs.clone());
            sve_logical_imm(&mut x);
            sve_logical_imm(&mut y);
            x.ops == y.ops && x.ops.first().is_some_and(|o| o.starts_with('z'))
        }
        ("hint", _) => {
            let n = ours.ops.first().and_then(|v| v.parse::<i64>().ok());
            let name = format!("{b} {}", cs.ops.join(", "));
            HINTS
                .iter()
                .any(|(k, h)| Some(*k) == n && *h == name.trim())
        }
        ("movz" | "movn", "mov") => move_wide(ours, a == "movn") == cs.ops,
        // `ret x30` is `ret`; `orr xd, xzr, xm|#imm` is `mov`; `ptrue p.b,
        // all` is `ptrue p.b` (kernel frames use these).
        ("ret", "ret") => ours.ops == ["x30"] && cs.ops.is_empty(),
        ("orr", "mov") => {
            ours.ops.len() == 3
                && matches!(ours.ops[1].as_str(), "xzr" | "wzr")
                && cs.ops == [ours.ops[0].clone(), ours.ops[2].clone()]
        }
        ("ptrue", "ptrue") => ours.ops.split_last() == Some((&"all".to_string(), &cs.ops[..])),
        ("ubfm" | "sbfm" | "bfm", _) => bitfield(cs).is_some_and(|ops| ops == ours.ops),
        ("msr", "smstart" | "smstop") => svcr(ours, cs),
        (_, "sys" | "sysl") => {
            let mut want = sys_word_fields(fixed);
            want[4] = ours
                .ops
                .iter()
                .rev()
                .find_map(|r| reg_number(r))
                .unwrap_or(31);
            sys_fields(cs) == Some(want)
        }
        _ => false,
    }
}

/// `movz x0, #1, lsl #16` as `mov`'s operands: `[x0, 65536]`.
fn move_wide(ours: &Canon, inverted: bool) -> Vec<String> {
    let imm: u64 = ours.ops.get(1).and_then(|v| v.parse().ok()).unwrap_or(0);
    let shift: u64 = ours
        .ops
        .get(2)
        .and_then(|v| v.strip_prefix("lsl"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let rd = ours.ops.first().cloned().unwrap_or_default();
    let mut v = imm << shift;
    if inverted {
        v = !v;
        if rd.starts_with('w') {
            v &= 0xffff_ffff;
        }
    }
    let text = if rd.starts_with('w') {
        (v as u32 as i32).to_string()
    } else {
        (v as i64).to_string()
    };
    vec![rd, text]
}

/// The `[rd, rn, immr, imms]` operands of the `ubfm`/`sbfm`/`bfm` that
/// Capstone's alias (`lsl`, `ubfx`, `bfxil`, `sxtw` …) stands for.
fn bitfield(cs: &Canon) -> Option<Vec<String>> {
    let rd = cs.ops.first()?.clone();
    let w: i64 = if rd.starts_with('w') { 32 } else { 64 };
    let rn = cs.ops.get(1)?.clone();
    let n = |k: usize| cs.ops.get(k).and_then(|v| v.parse::<i64>().ok());
    let (immr, imms) = match cs.mnemonic.as_str() {
        "lsl" => ((w - n(2)?) % w, w - 1 - n(2)?),
        "lsr" | "asr" => (n(2)?, w - 1),
        "ubfx" | "sbfx" | "bfxil" => (n(2)?, n(2)? + n(3)? - 1),
        "ubfiz" | "sbfiz" | "bfi" => ((w - n(2)?) % w, n(3)? - 1),
        "uxtb" | "sxtb" => (0, 7),
        "uxth" | "sxth" => (0, 15),
        "sxtw" => (0, 31),
        _ => return None,
    };
    // Extends name the source by its W register.
    let rn = if w == 64 && rn.starts_with('w') {
        format!("x{}", &rn[1..])
    } else {
        rn
    };
    Some(vec![rd, rn, immr.to_string(), imms.to_string()])
}

/// `msr svcrsm, #1` is `smstart sm`.
fn svcr(ours: &Canon, cs: &Canon) -> bool {
    let on = ours.ops.get(1).map(String::as_str) == Some("1");
    let field = match ours.ops.first().map(String::as_str) {
        Some("svcrsm") => "sm",
        Some("svcrza") => "za",
        Some("svcrsmza") => "",
        _ => return false,
    };
    let want = if on { "smstart" } else { "smstop" };
    cs.mnemonic == want && cs.ops.join(",") == field
}

/// (op1, CRn, CRm, op2, Rt) of Capstone's generic `sys`/`sysl` text.
fn sys_fields(cs: &Canon) -> Option<[u32; 5]> {
    let mut ops: Vec<&str> = cs.ops.iter().map(String::as_str).collect();
    let rt = if cs.mnemonic == "sysl" {
        let r = ops.remove(0);
        reg_number(r)?
    } else if ops.len() == 5 {
        reg_number(ops.pop()?)?
    } else {
        31
    };
    let num = |s: &str| s.trim_start_matches('c').parse::<u32>().ok();
    Some([
        num(ops.first()?)?,
        num(ops.get(1)?)?,
        num(ops.get(2)?)?,
        num(ops.get(3)?)?,
        rt,
    ])
}

fn reg_number(r: &str) -> Option<u32> {
    if r == "xzr" {
        return Some(31);
    }
    r.strip_prefix('x')?.parse().ok()
}

/// (op1, CRn, CRm, op2, Rt) of a SYS/SYSL instruction word (the form's
/// constant bits: Rt is an operand).
fn sys_word_fields(w: u32) -> [u32; 5] {
    [
        (w >> 16) & 7,
        (w >> 12) & 15,
        (w >> 8) & 15,
        (w >> 5) & 7,
        w & 31,
    ]
}
