//! The Capstone check of RISC-V encodings. Capstone 5.0.6 knows RV64GC
//! (I, M, A, F, D, C, Zicsr, Zifencei) and nothing newer: forms that need
//! any other extension are "unchecked by capstone", decided from the
//! form's required features, so an encoder bug in RV64GC is a mismatch.

use crate::arch::{Check, Inst};
use capstone::arch::riscv::{ArchExtraMode, ArchMode};
use capstone::arch::{BuildsCapstone, BuildsCapstoneExtraMode};
use capstone::Capstone;

thread_local! {
    /// Capstone is not `Sync`: one decoder per thread.
    static CS: Option<Capstone> = Capstone::new()
        .riscv()
        .mode(ArchMode::RiscV64)
        .extra_mode([ArchExtraMode::RiscVC].into_iter())
        .build()
        .ok();
}

/// The features Capstone 5.0.6 decodes (names as in LLVM's predicates).
const KNOWN: &[&str] = &[
    "64bit", "i", "m", "zmmul", "a", "f", "d", "c", "zca", "zcd", "zicsr", "zifencei",
];

/// Forms Capstone 5.0.6 does not decode although their extension is
/// otherwise known, with the reason.
const GAPS: &[(&str, &str)] = &[("DRET", "capstone 5.0.6 has no dret (debug mode, Sdext)")];

/// Capstone's text of `bytes`, or `None` when it cannot decode them all.
fn decode(bytes: &[u8]) -> Option<(String, String)> {
    CS.with(|cs| {
        let cs = cs.as_ref()?;
        let insns = cs.disasm_count(bytes, 0, 1).ok()?;
        let i = insns.iter().next()?;
        (i.bytes().len() == bytes.len()).then(|| {
            (
                i.mnemonic().unwrap_or("").to_string(),
                i.op_str().unwrap_or("").to_string(),
            )
        })
    })
}

/// The extensions of `inst`'s form that Capstone 5.0.6 does not know.
fn unknown_extensions(inst: &Inst) -> Vec<String> {
    let cond = inst.form.required_features().unwrap_or_default();
    // Words of `(c || zca) && !no-rvc-hints`; a negated feature is one
    // the form must not have, not one it needs.
    let mut out: Vec<String> = cond
        .split(|c: char| !(c.is_ascii_alphanumeric() || "_.-!".contains(c)))
        .filter(|w| !w.is_empty() && !w.starts_with('!') && !KNOWN.contains(w))
        .map(str::to_string)
        .collect();
    out.dedup();
    out
}

/// Decodes `bytes` and compares with `text`.
pub fn check(inst: &Inst, bytes: &[u8], text: &str) -> Check {
    let unknown = unknown_extensions(inst);
    let decoded = decode(bytes);
    let agree = decoded
        .as_ref()
        .is_some_and(|(m, o)| canon(&format!("{m} {o}")) == canon(text));
    // Capstone prints `jalr zero, 0(ra)` as `ret`, `addi rd, rs, 0` as
    // `mv rd, rs` (kernel frames), and the other pseudo-instructions gcc
    // writes as themselves (`sext.w`, `not`, `neg`, `jr`, `fmv.d` ...).
    let alias = || {
        let Some((m, o)) = decoded.as_ref() else {
            return false;
        };
        let (ours, theirs) = (canon(text), canon(&format!("{m} {o}")));
        // Ours is theirs with a third operand `last` (`addi rd, rs, 0`).
        let drops =
            |last: &str| ours.1.get(2).is_some_and(|i| i == last) && ours.1[..2] == theirs.1[..];
        match (ours.0.as_str(), theirs.0.as_str()) {
            ("jalr", "ret") => ours.1 == ["x0", "x1", "0"] && theirs.1.is_empty(),
            ("addi", "mv") | ("addiw", "sext.w") => drops("0"),
            ("xori", "not") => drops("-1"),
            ("jalr", "jr") => {
                ours.1.len() == 3
                    && ours.1[0] == "x0"
                    && ours.1[2] == "0"
                    && theirs.1 == ours.1[1..2]
            }
            ("fsgnj.s", "fmv.s")
            | ("fsgnj.d", "fmv.d")
            | ("fsgnjn.s", "fneg.s")
            | ("fsgnjn.d", "fneg.d")
            | ("fsgnjx.s", "fabs.s")
            | ("fsgnjx.d", "fabs.d") => {
                ours.1.len() == 3 && ours.1[1] == ours.1[2] && theirs.1 == ours.1[..2]
            }
            ("sub", "neg") => {
                ours.1.len() == 3
                    && theirs.1.len() == 2
                    && ours.1[1] == "x0"
                    && [&ours.1[0], &ours.1[2]] == [&theirs.1[0], &theirs.1[1]]
            }
            _ => false,
        }
    };
    if agree || alias() {
        return Check::Ok;
    }
    if let Some((_, why)) = GAPS.iter().find(|(n, _)| *n == inst.form.name()) {
        return Check::Unchecked(why.to_string());
    }
    // LLVM names the RVC hint encodings (rd = x0, shift 0 ...) `*_HINT`;
    // Capstone 5.0.6 rejects them or decodes them as the plain form.
    if inst.form.name().ends_with("_HINT") {
        return Check::Unchecked("capstone 5.0.6 decodes no RVC hints".into());
    }
    if !unknown.is_empty() {
        return Check::Unchecked(format!("capstone 5.0.6 has no {}", unknown.join("/")));
    }
    match decoded {
        None => Check::Mismatch(format!("capstone cannot decode {text:?}")),
        Some((m, o)) => Check::Mismatch(format!("capstone decodes '{m} {o}'")),
    }
}

/// Canonical text: mnemonic without the `c.` of compressed forms, and
/// operands with registers as numbers (`a0` → `x10`, `fa0` → `f10`) and
/// immediates in decimal.
pub fn canon(text: &str) -> (String, Vec<String>) {
    let text = text.trim().to_ascii_lowercase();
    let (m, rest) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
    let m = m.strip_prefix("c.").unwrap_or(m).to_string();
    // `1(a1)` and `a1, 1` (capstone's jalr) both become `x11, 1`.
    let mut ops: Vec<String> = Vec::new();
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.strip_suffix(')').and_then(|p| p.split_once('(')) {
            Some((offset, base)) => {
                ops.push(operand(base.trim()));
                if !offset.trim().is_empty() {
                    ops.push(operand(offset.trim()));
                }
            }
            None => ops.push(operand(part)),
        }
    }
    // The hint `c.addi zero, 0` is `c.nop` to capstone, and `addi zero,
    // zero, 0` is `nop`.
    if m == "addi" && (ops == ["x0", "0"] || ops == ["x0", "x0", "0"]) {
        return ("nop".into(), Vec::new());
    }
    (m, ops)
}

fn operand(t: &str) -> String {
    if let Some(n) = gpr(t) {
        return format!("x{n}");
    }
    if let Some(n) = t.strip_prefix('f').and_then(fpr) {
        return format!("f{n}");
    }
    match crate::arch::int_literal(t) {
        Some(v) => v.to_string(),
        None => t.to_string(),
    }
}

/// The number of an integer register name (`x7`, `t2`, `s0`, `fp`, `a5`).
fn gpr(t: &str) -> Option<u32> {
    const ABI: [&str; 32] = [
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
        "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
        "t5", "t6",
    ];
    if t == "fp" {
        return Some(8);
    }
    if let Some(n) = t.strip_prefix('x').and_then(|n| n.parse::<u32>().ok()) {
        return (n < 32).then_some(n);
    }
    ABI.iter().position(|&a| a == t).map(|n| n as u32)
}

/// The number of a floating-point register name without its `f`
/// (`a0` of `fa0`, `t3` of `ft3`, `10` of `f10`).
fn fpr(r: &str) -> Option<u32> {
    if let Ok(n) = r.parse::<u32>() {
        return (n < 32).then_some(n);
    }
    let (class, n) = r.split_at(1);
    let n: u32 = n.parse().ok()?;
    match class {
        "t" if n < 8 => Some(n),
        "t" if (8..12).contains(&n) => Some(n + 20),
        "s" if n < 2 => Some(n + 8),
        "s" if (2..12).contains(&n) => Some(n + 16),
        "a" if n < 8 => Some(n + 10),
        _ => None,
    }
}
