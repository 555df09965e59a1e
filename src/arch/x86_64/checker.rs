//! Decoding what was emitted and comparing it with what was intended:
//! capstone (Intel syntax, 64-bit) against the printed text; for the
//! extensions Capstone 5.0.6 cannot decode, iced-x86's decoder against the
//! intended iced instruction.

use super::mapping::Plan;
use crate::arch::{Check, Inst};
use capstone::arch::x86::{ArchMode, ArchSyntax};
use capstone::prelude::*;
use iced_x86::{Decoder, DecoderOptions, Instruction, OpKind};

thread_local! {
    static CS: Option<Capstone> = Capstone::new()
        .x86()
        .mode(ArchMode::Mode64)
        .syntax(ArchSyntax::Intel)
        .build()
        .ok();
}

/// Features (LLVM names, as in the form's predicates) whose instructions
/// Capstone 5.0.6 cannot decode.
const CAPSTONE_LACKS: [&str; 19] = [
    "avx512fp16",
    "avx512bf16",
    "avx512vp2intersect",
    "kl",
    "widekl",
    "uintr",
    "avxvnni",
    "amx",
    "avxifma",
    "avxneconvert",
    "sha512",
    "sm3",
    "sm4",
    "usermsr",
    "raoint",
    "cmpccxadd",
    "egpr",
    "ndd",
    "avx10",
];

/// Checks `bytes` (and `text`) against `inst`.
pub fn check(plan: &Plan, inst: &Inst, bytes: &[u8], text: &str) -> Check {
    if let Some((_, why)) = CAPSTONE_BUGS
        .iter()
        .find(|(name, _)| *name == inst.form.name())
    {
        return Check::Unchecked(format!("capstone 5.0.6 bug: {why}"));
    }
    if CAPSTONE_UNKNOWN.contains(&inst.form.name()) {
        return iced_check(plan, inst, bytes, "newer than capstone 5.0.6's tables");
    }
    if super::printer::is_respelled(plan, inst.form) {
        return iced_check(
            plan,
            inst,
            bytes,
            "capstone prints LLVM's text, which names another form",
        );
    }
    match capstone_text(bytes) {
        // Capstone 5.0.6 names other sizes than LLVM for some memory
        // operands (`comisd` reads a qword, capstone says xmmword; a
        // `vgf2p8affineqb` broadcast element is a qword, capstone says
        // byte): iced's decoder then decides, by code and operands.
        Ok(Some(decoded)) => match compare_text(text, &decoded) {
            Check::Mismatch(_) if same_but_sizes(text, &decoded) => iced_check(
                plan,
                inst,
                bytes,
                "capstone names another memory operand size",
            ),
            c => c,
        },
        Ok(None) => match lacking_feature(inst) {
            Some(f) => iced_check(plan, inst, bytes, f),
            None => Check::Mismatch(format!(
                "capstone cannot decode {} for `{text}`",
                hex(bytes)
            )),
        },
        Err(e) => Check::Unchecked(format!("capstone unavailable: {e}")),
    }
}

/// Forms Capstone 5.0.6 decodes wrongly or not at all although it knows
/// their extension.
const CAPSTONE_BUGS: [(&str, &str); 8] = [
    ("UD1Wr", "0F B9 /r (ud1 r16, r/m16) is not decoded"),
    ("UD1Lr", "0F B9 /r (ud1 r32, r/m32) is not decoded"),
    ("UD1Qr", "REX.W 0F B9 /r (ud1 r64, r/m64) is not decoded"),
    ("UD1Wm", "0F B9 /r (ud1 r16, r/m16) is not decoded"),
    ("UD1Lm", "0F B9 /r (ud1 r32, r/m32) is not decoded"),
    ("UD1Qm", "REX.W 0F B9 /r (ud1 r64, r/m64) is not decoded"),
    (
        "PREFETCHIT0",
        "0F 18 /7 is prefetchit0 with a RIP-relative address only, otherwise a nop, as capstone decodes it",
    ),
    (
        "PREFETCHIT1",
        "0F 18 /6 is prefetchit1 with a RIP-relative address only, otherwise a nop, as capstone decodes it",
    ),
];

/// Forms whose features say nothing capstone lacks, but which Capstone
/// 5.0.6 does not know (SNP, TDX, FRED, MSRLIST, UINTR without its feature
/// bit, ...): it fails, or decodes the bytes without their mandatory
/// prefix as an older instruction (`clui` as `rdpkru`). iced decodes them.
const CAPSTONE_UNKNOWN: [&str; 27] = [
    "CLUI",
    "STUI",
    "ERETS",
    "ERETU",
    "SEAMCALL",
    "SEAMOPS",
    "SEAMRET",
    "TDCALL",
    "HRESET",
    "INVLPGB64",
    "PBNDKB",
    "PSMASH",
    "PVALIDATE64",
    "RDMSRLIST",
    "WRMSRLIST",
    "WRMSRNS",
    "RDPRU",
    "RMPADJUST",
    "RMPQUERY",
    "RMPUPDATE",
    "SERIALIZE",
    "TLBSYNC",
    "XRESLDTRK",
    "XSUSLDTRK",
    "LKGS16r",
    "LKGS16m",
    "TESTUI",
];

/// The extension of `inst` that capstone lacks, if any.
fn lacking_feature(inst: &Inst) -> Option<&'static str> {
    let req = inst.form.required_features()?;
    CAPSTONE_LACKS.iter().copied().find(|f| req.contains(f))
}

/// Capstone's `mnemonic operands`, `None` when it does not decode all of
/// `bytes` as one instruction.
fn capstone_text(bytes: &[u8]) -> Result<Option<String>, String> {
    CS.with(|cs| {
        let cs = cs.as_ref().ok_or("capstone x86 engine did not build")?;
        let insns = match cs.disasm_count(bytes, 0, 1) {
            Ok(i) => i,
            Err(_) => return Ok(None),
        };
        let Some(i) = insns.iter().next() else {
            return Ok(None);
        };
        if i.bytes().len() != bytes.len() {
            return Ok(None);
        }
        let m = i.mnemonic().unwrap_or("");
        let o = i.op_str().unwrap_or("");
        Ok(Some(format!("{m} {o}")))
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares two Intel texts as instructions: pseudo-prefixes dropped,
/// spacing and number bases normalised, aliases equal.
pub fn compare_text(ours: &str, decoded: &str) -> Check {
    let a = normalize(ours);
    let b = normalize(decoded);
    if equivalent(&a, &b) {
        Check::Ok
    } else {
        Check::Mismatch(format!("intended `{ours}`, capstone decodes `{decoded}`"))
    }
}

/// Mnemonic and operands, normalised.
#[derive(Debug, PartialEq, Eq)]
struct Norm {
    mnemonic: String,
    ops: Vec<String>,
}

fn normalize(text: &str) -> Norm {
    let mut t = text.trim().to_ascii_lowercase();
    for p in ["{vex}", "{evex}", "{vex3}", "data16"] {
        if let Some(r) = t.strip_prefix(p) {
            t = r.trim_start().to_string();
        }
    }
    let (m, rest) = t.split_once(char::is_whitespace).unwrap_or((&t, ""));
    let ops = rest
        .split(',')
        .map(|o| o.split_whitespace().collect::<String>())
        .filter(|o| !o.is_empty())
        .map(|o| number(&o).map_or(o, |v| v.to_string()))
        .map(|o| address(&o).unwrap_or(o))
        .map(|o| if o == "st" { "st(0)".to_string() } else { o })
        // A string operation's destination is always ES-based: LLVM
        // writes `es:[rdi]`, capstone 5.0.6 `[rdi]`.
        .map(|o| o.replace("es:[rdi]", "[rdi]"))
        .collect();
    Norm {
        mnemonic: m.to_string(),
        ops,
    }
}

fn number(s: &str) -> Option<i64> {
    // A branch target `.+2` (from the instruction's first byte): capstone
    // decodes at address 0 and prints the target's address, `0x2`.
    if let Some(off) = s.strip_prefix('.') {
        return number(off.strip_prefix('+').unwrap_or(off));
    }
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        s.parse::<i64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// An operand with a memory reference, its brackets' terms in one order
/// and numbers in decimal (LLVM writes `[rbx + 4*rcx + 64]`, capstone
/// `[rbx + rcx*4 + 0x40]`); `None` for other operands.
fn address(op: &str) -> Option<String> {
    let open = op.find('[')?;
    let close = open + op[open..].find(']')?;
    let (head, inner, tail) = (&op[..open], &op[open + 1..close], &op[close + 1..]);
    // Capstone writes a bare `ptr` where no size is named (`xsave ptr
    // [rcx]`); LLVM writes nothing.
    let head = if head == "ptr" { "" } else { head };
    let mut base = None;
    let mut index = None;
    let mut disp: i64 = 0;
    let mut sign = 1;
    let mut term = String::new();
    let mut flush = |term: &mut String, sign: i64| -> Option<()> {
        if term.is_empty() {
            return Some(());
        }
        if let Some(v) = number(term) {
            disp = disp.wrapping_add(sign * v);
        } else if let Some((a, b)) = term.split_once('*') {
            let (scale, reg) = if number(a).is_some() { (a, b) } else { (b, a) };
            index = Some(format!("{reg}*{}", number(scale)?));
        } else if base.is_none() {
            base = Some(term.clone());
        } else {
            index = Some(format!("{term}*1"));
        }
        term.clear();
        Some(())
    };
    for c in inner.chars() {
        match c {
            '+' | '-' => {
                flush(&mut term, sign)?;
                sign = if c == '-' { -1 } else { 1 };
            }
            c => term.push(c),
        }
    }
    flush(&mut term, sign)?;
    let parts: Vec<String> = base
        .into_iter()
        .chain(index)
        .chain((disp != 0).then(|| disp.to_string()))
        .collect();
    Some(format!("{head}[{}]{tail}", parts.join("+")))
}

/// Whether two texts are the same instruction but for the size words of
/// their memory operands.
fn same_but_sizes(ours: &str, decoded: &str) -> bool {
    let strip = |t: &str| {
        let mut n = normalize(t);
        for o in &mut n.ops {
            if let Some(at) = o.find("ptr[") {
                *o = o[at + 3..].to_string();
            }
        }
        n
    };
    equivalent(&strip(ours), &strip(decoded))
}

/// Mnemonics capstone spells differently from LLVM for the same encoding.
const MNEMONIC_ALIASES: [(&str, &str); 2] = [("movabs", "mov"), ("sal", "shl")];

fn same_mnemonic(a: &str, b: &str) -> bool {
    a == b
        || MNEMONIC_ALIASES
            .iter()
            .any(|&(x, y)| (a == x && b == y) || (a == y && b == x))
}

/// Comparison predicates capstone folds into the mnemonic
/// (`cmpleps x, y` for `cmpps x, y, 2`): (prefix, predicate names by
/// immediate value).
const PREDICATE_ALIASES: [(&str, &[&str]); 4] = [
    ("cmp", &SSE_PREDICATES),
    ("vcmp", &SSE_PREDICATES),
    (
        "vpcmp",
        &["eq", "lt", "le", "false", "neq", "nlt", "nle", "true"],
    ),
    (
        "vpcom",
        &["lt", "le", "gt", "ge", "eq", "neq", "false", "true"],
    ),
];

const SSE_PREDICATES: [&str; 32] = [
    "eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord", "eq_uq", "nge", "ngt", "false",
    "neq_oq", "ge", "gt", "true", "eq_os", "lt_oq", "le_oq", "unord_s", "neq_us", "nlt_uq",
    "nle_uq", "ord_s", "eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq", "gt_oq",
    "true_us",
];

/// `cmpleps` against `cmpps`: the immediate the predicate stands for.
fn predicate_value(ours: &str, theirs: &str) -> Option<i64> {
    PREDICATE_ALIASES.iter().find_map(|(prefix, preds)| {
        let suffix = ours.strip_prefix(prefix)?;
        let middle = theirs.strip_prefix(prefix)?.strip_suffix(suffix)?;
        preds.iter().position(|p| *p == middle).map(|i| i as i64)
    })
}

fn equivalent(a: &Norm, b: &Norm) -> bool {
    if !same_mnemonic(&a.mnemonic, &b.mnemonic) {
        let Some(v) = predicate_value(&a.mnemonic, &b.mnemonic) else {
            return false;
        };
        let mut bo = b.ops.clone();
        bo.push(v.to_string());
        return a.ops == bo;
    }
    if a.ops == b.ops {
        return true;
    }
    // Capstone spells out implicit operands (`vmrun rax`, `skinit eax`)
    // that LLVM's Intel text leaves out, and drops the `st` of `fcomi st,
    // st(1)` and of `faddp st(1), st`.
    let st0 = |o: Option<&String>| o.is_some_and(|o| o == "st(0)");
    if a.ops.is_empty()
        || (st0(a.ops.first()) && a.ops[1..] == b.ops[..])
        || (st0(a.ops.last()) && a.ops[..a.ops.len() - 1] == b.ops[..])
    {
        return true;
    }
    // xchg is symmetric; capstone puts the accumulator last.
    if a.mnemonic == "xchg" && a.ops.len() == 2 && a.ops.iter().rev().eq(b.ops.iter()) {
        return true;
    }
    // Capstone spells out the implicit `1` of the shift-by-one forms.
    let mut bo = b.ops.clone();
    if bo.len() == a.ops.len() + 1 && bo.last().is_some_and(|o| o == "1") {
        bo.pop();
    }
    a.ops == bo
}

/// The second check: iced's decoder must give back the intended code and
/// operands.
fn iced_check(plan: &Plan, inst: &Inst, bytes: &[u8], feature: &str) -> Check {
    let Ok(want) = super::build(plan, inst) else {
        return Check::Mismatch("cannot rebuild the intended instruction".into());
    };
    let mut dec = Decoder::with_ip(64, bytes, 0, DecoderOptions::NONE);
    let got = dec.decode();
    if got.is_invalid() || got.len() != bytes.len() {
        return Check::Unchecked(format!(
            "{feature}: capstone 5.0.6 lacks it and iced-x86 does not decode {}",
            hex(bytes)
        ));
    }
    match differs(&want, &got) {
        None => Check::Ok,
        Some(d) => Check::Mismatch(format!("iced-x86 decodes {:?}: {d}", got.code())),
    }
}

fn differs(want: &Instruction, got: &Instruction) -> Option<String> {
    if want.code() != got.code() {
        return Some(format!("code, intended {:?}", want.code()));
    }
    for n in 0..want.op_count() {
        let same = match want.op_kind(n) {
            OpKind::Register => want.op_register(n) == got.op_register(n),
            OpKind::Memory => {
                let mem = |i: &Instruction| {
                    (
                        i.memory_base(),
                        i.memory_index(),
                        i.memory_index_scale(),
                        i.memory_displacement64(),
                        i.is_broadcast(),
                    )
                };
                got.op_kind(n) == OpKind::Memory && mem(want) == mem(got)
            }
            _ => want.immediate(n) == got.immediate(n),
        };
        if !same {
            return Some(format!("operand {n}"));
        }
    }
    let decorations = |i: &Instruction| {
        (
            i.op_mask(),
            i.zeroing_masking(),
            i.suppress_all_exceptions(),
            i.rounding_control(),
        )
    };
    (decorations(want) != decorations(got)).then(|| "mask, {z}, {sae} or rounding".into())
}
