//! One line of assembly text → an instruction form with operand values,
//! driven by the tables and the target's own printer, never by a
//! hand-written grammar: the candidates are the forms whose printed
//! mnemonic is the line's; for each, winic prints its example instance,
//! finds which tokens each operand prints to (by changing that operand
//! alone), chooses the register or immediate that prints as the line does
//! there, and accepts the instance only when the whole line prints back
//! equal (numbers by value, case and spacing ignored).

use super::tokens::{same, same_tok, tokens, Tok};
use crate::arch::{Inst, Mem, OpValue, Target};
use crate::isa::desc::OperandKind;
use crate::isa::{AliasArg, Arch, Encoding, InstAlias, Instr, Isa, McOperand};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// Forms by printed mnemonic, each with its example instance and the
/// alias it is spelled by there (`None`: the form's own `AsmString`).
struct Index {
    by_mnemonic: HashMap<String, Vec<Cand>>,
}

struct Cand {
    form: Instr,
    example: Inst,
    alias: Option<InstAlias>,
}

/// `inst` as text, spelled by `alias` or by its own template.
fn print_as(t: &dyn Target, inst: &Inst, alias: Option<&InstAlias>) -> Option<String> {
    match alias {
        Some(a) => t.print_alias(inst, a).ok(),
        None => t.print(inst).ok(),
    }
}

fn index(t: &dyn Target) -> &'static Index {
    static INDEX: [OnceLock<Index>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    INDEX[slot(t.arch())].get_or_init(|| build_index(t))
}

/// The position of `arch` in per-arch tables (`Arch::ALL` order).
fn slot(arch: Arch) -> usize {
    Arch::ALL.iter().position(|a| *a == arch).unwrap_or(0)
}

fn build_index(t: &dyn Target) -> Index {
    let mut by_mnemonic: HashMap<String, Vec<Cand>> = HashMap::new();
    for form in Isa::get(t.arch()).instrs() {
        // A real form by its example; a codegen-only one by the spellings
        // the target reads it by (`cmovl`, `setge`), if any.
        let examples = if form.is_real() {
            t.example(form)
                .ok()
                .or_else(|| filled(t, form))
                .into_iter()
                .collect()
        } else {
            t.spellings(form)
        };
        for example in examples {
            // Its own spelling, then those of its InstAlias records, each
            // from the example with the operands the alias fixes set so.
            let spellings = std::iter::once(Some((example.clone(), None))).chain(
                form.aliases()
                    .map(|a| with_fixed(&example, &a).map(|e| (e, Some(a)))),
            );
            for (example, alias) in spellings.flatten() {
                let Some(text) = print_as(t, &example, alias.as_ref()) else {
                    continue;
                };
                if t.encode(&example).is_err() {
                    continue;
                }
                if let Some(m) = mnemonic(&canonical(t, &text)) {
                    by_mnemonic.entry(m).or_default().push(Cand {
                        form,
                        example,
                        alias,
                    });
                }
            }
        }
    }
    Index { by_mnemonic }
}

/// `example` with the registers and immediates `alias` fixes (`xzr` of
/// `cmp`), and the operands it names twice equal (`cinc`'s `$src`).
fn with_fixed(example: &Inst, alias: &InstAlias) -> Option<Inst> {
    let args = alias.args();
    if args.len() != example.ops.len() {
        return None;
    }
    let mut inst = example.clone();
    for (k, a) in args.iter().enumerate() {
        match a {
            AliasArg::Reg(r) => inst.ops[k] = OpValue::Reg(*r),
            AliasArg::Imm(v) => inst.ops[k] = OpValue::Imm(*v),
            AliasArg::Named { ty, .. } => {
                if let Some(j) = AliasArg::twin(&args, k) {
                    inst.ops[k] = inst.ops[j];
                } else if let (Some(c), OpValue::Reg(r)) = (ty.class(), inst.ops[k]) {
                    // A narrower class than the form's (`mov x29, sp`'s
                    // GPR64sponly): its first member.
                    if !c.contains(r) {
                        inst.ops[k] = OpValue::Reg(c.members().next()?);
                    }
                }
            }
            AliasArg::Tied => {}
        }
    }
    // Tied operands follow what they are tied to.
    let mc = example.form.mc_operands();
    for k in 0..mc.len() {
        if let Some(j) = tied_source(&mc, k) {
            inst.ops[k] = inst.ops[j];
        }
    }
    Some(inst)
}

/// An instance of a form `example` refuses (x86 `ret`, whose
/// `variable_ops` stands for nothing in the text): registers the kernel
/// may use, immediates 0. `None` for forms with memory or PC-relative
/// operands.
fn filled(t: &dyn Target, form: Instr) -> Option<Inst> {
    let ops = form
        .mc_operands()
        .iter()
        .map(|m| match m.ty.kind() {
            OperandKind::Reg => {
                m.ty.class()?
                    .members()
                    .find(|r| t.reserved(*r).is_none())
                    .map(OpValue::Reg)
            }
            OperandKind::Imm => Some(OpValue::Imm(0)),
            _ if m.ty.name() == "variable_ops" => Some(OpValue::Imm(0)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Inst { form, ops })
}

/// Register names of `arch` (assembly and alternative names, lowercase)
/// → one spelling per register, so that `x5` and `t0` compare equal.
fn register_names(arch: Arch) -> &'static HashMap<String, String> {
    static NAMES: [OnceLock<HashMap<String, String>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    NAMES[slot(arch)].get_or_init(|| {
        let mut m = HashMap::new();
        for r in Isa::get(arch).registers() {
            let canon = r.asm_name().to_ascii_lowercase();
            for alt in r.alt_names() {
                m.entry(alt.to_ascii_lowercase())
                    .or_insert_with(|| canon.clone());
            }
        }
        m
    })
}

/// Whether `tok` is one of `t`'s register names (as [`canonical`] leaves
/// them).
fn is_register(t: &dyn Target, tok: &Tok) -> bool {
    static NAMES: [OnceLock<HashSet<String>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let names = NAMES[slot(t.arch())].get_or_init(|| {
        Isa::get(t.arch())
            .registers()
            .map(|r| r.asm_name().to_ascii_lowercase())
            .filter(|n| !n.is_empty())
            .collect()
    });
    matches!(tok, Tok::Word(w) if names.contains(w.as_str()))
}

/// `text` as tokens, register names in one spelling, and (where the
/// dialect's brackets are a memory operand) each memory reference one
/// token, `[base+index*scale+disp]`, in one order and base.
fn canonical(t: &dyn Target, text: &str) -> Vec<Tok> {
    let names = register_names(t.arch());
    let mut toks = match t.dialect().memory {
        Some(parse) => tokens(&memory_as_one(text, parse)),
        None => tokens(text),
    };
    for t in &mut toks {
        if let Tok::Word(w) = t {
            if let Some(c) = names.get(w.as_str()) {
                *w = c.clone();
            }
        }
    }
    // AArch64's `#` before an immediate is optional (gcc leaves it out).
    if t.arch() == Arch::Aarch64 {
        toks.retain(|t| *t != Tok::Punct('#'));
    }
    // A gather's size word is the element's for gcc (`qword ptr
    // [rdx+xmm0*8]`), the vector's for LLVM, or none (AVX-512): the
    // registers say which form it is, the size word is dropped.
    let vsib = |t: &Tok| {
        matches!(t, Tok::Word(w) if w.starts_with("mem@")
            && ["@xmm", "@ymm", "@zmm"].iter().any(|v| w.contains(v)))
    };
    let mut k = 2;
    while k < toks.len() {
        if vsib(&toks[k]) && toks[k - 1] == Tok::Word("ptr".into()) {
            toks.drain(k - 2..k);
            k -= 2;
        }
        k += 1;
    }
    toks
}

/// `text` with each bracketed memory reference `parse` takes replaced by
/// one word (before tokenising, which would fold `rax*8+0x100` into a
/// number).
fn memory_as_one(text: &str, parse: fn(&str) -> Option<Mem>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        match parse(&rest[open + 1..close]) {
            Some(m) => {
                out.push(' ');
                out.push_str(&memory_word(&m));
                out.push(' ');
            }
            None => out.push_str(&rest[open..=close]),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The one word of a memory reference: `mem@rbx@rcx@4@64` (`@n8` for a
/// displacement of -8), read back by [`memory_of_word`].
fn memory_word(m: &Mem) -> String {
    let name = |r: crate::isa::Reg| r.asm_name().to_ascii_lowercase();
    let (index, scale) = m.index.map_or((String::new(), 0), |(r, s)| (name(r), s));
    let disp = if m.disp < 0 {
        format!("n{}", -i64::from(m.disp))
    } else {
        m.disp.to_string()
    };
    format!("mem@{}@{index}@{scale}@{disp}", name(m.base))
}

/// The memory reference of a [`memory_word`], through the dialect's
/// parser.
fn memory_of_word(w: &str, parse: fn(&str) -> Option<Mem>) -> Option<Mem> {
    let parts: Vec<&str> = w.strip_prefix("mem@")?.split('@').collect();
    let [base, index, scale, disp] = parts[..] else {
        return None;
    };
    let disp = match disp.strip_prefix('n') {
        Some(d) => format!("-{d}"),
        None => format!("+{disp}"),
    };
    let index = if index.is_empty() {
        String::new()
    } else {
        format!("+{scale}*{index}")
    };
    parse(&format!("{base}{index}{disp}"))
}

/// Length of a leading pseudo-prefix such as `{vex}` (3 tokens), or 0.
fn prefix_len(toks: &[Tok]) -> usize {
    match toks {
        [Tok::Punct('{'), Tok::Word(_), Tok::Punct('}'), ..] => 3,
        _ => 0,
    }
}

/// The mnemonic of a tokenised line (after any pseudo-prefix).
fn mnemonic(toks: &[Tok]) -> Option<String> {
    match toks.get(prefix_len(toks)) {
        Some(Tok::Word(w)) => Some(w.clone()),
        _ => None,
    }
}

/// Why a line is no instruction winic knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoMatch {
    /// What is wrong.
    pub reason: String,
    /// The nearest valid instructions (printed examples with their LLVM
    /// names), to show the user.
    pub nearest: Vec<String>,
}

/// The instruction `text` says: of the forms whose instance prints back
/// as `text`, the one with the shortest encoding among those the arch's
/// assemblers prefer ([`crate::arch::AsmDialect::encoding_rank`]: x86's
/// VEX before EVEX), the first in opcode order among equals.
pub fn parse(t: &dyn Target, text: &str) -> Result<Inst, NoMatch> {
    let line = canonical(t, text);
    let Some(m) = mnemonic(&line) else {
        return Err(NoMatch {
            reason: "no mnemonic".into(),
            nearest: Vec::new(),
        });
    };
    let idx = index(t);
    let Some(cands) = idx.by_mnemonic.get(&m) else {
        return Err(NoMatch {
            reason: format!("unknown mnemonic `{m}` for {}", t.arch()),
            nearest: nearest_mnemonics(idx, &m),
        });
    };
    // Of the forms that print as the line, the shortest encoding, as an
    // assembler picks it (`xor ecx, 2` is XOR32ri8, not XOR32ri), of the
    // kind it prefers (`vsubsd xmm8, xmm7, [rax-192]` is VEX, 8 bytes,
    // though EVEX's compressed displacement takes 7).
    let fits: Vec<(&Cand, Inst)> = cands
        .iter()
        .filter_map(|c| Some((c, fit(t, c, &line)?)))
        .collect();
    // A memory operand without its size word (`vmovupd ymm0, [rcx]`)
    // takes the size the other operands give; where they give none
    // (`add [rax], 1`), the line is refused, as GNU as refuses it.
    if !sized(&line) {
        let mut sizes: Vec<String> = fits
            .iter()
            .filter_map(|(c, inst)| print_as(t, inst, c.alias.as_ref()))
            .flat_map(|p| size_words(&canonical(t, &p)))
            .collect();
        sizes.sort();
        sizes.dedup();
        if sizes.len() > 1 {
            return Err(NoMatch {
                reason: format!(
                    "the memory operand's size is not given and the other operands do not \
                     tell it: write one of {} before it",
                    sizes
                        .iter()
                        .map(|w| format!("`{w} ptr`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                nearest: Vec::new(),
            });
        }
    }
    let best = fits
        .into_iter()
        .filter_map(|(_, inst)| {
            let len = t.encode(&inst).ok()?.len();
            Some(((t.encoding_rank(inst.form), len), inst))
        })
        .min_by_key(|(rank, _)| *rank);
    if let Some((_, inst)) = best {
        return Ok(inst);
    }
    // The forms whose text is nearest in length first (`add rax, xmm1`
    // shows `add rax, rbx` before `add qword ptr [rcx], 2`).
    let mut shown: Vec<(usize, String)> = cands
        .iter()
        .filter_map(|c| {
            let p = print_as(t, &c.example, c.alias.as_ref())?;
            let d = canonical(t, &p).len().abs_diff(line.len());
            Some((d, format!("{p}   ({})", c.form.name())))
        })
        .collect();
    shown.sort_by_key(|(d, _)| *d);
    let nearest = shown.into_iter().take(12).map(|(_, s)| s).collect();
    Err(NoMatch {
        reason: format!("no form of `{m}` takes these operands"),
        nearest,
    })
}

/// Up to 8 known mnemonics closest to `m` (by edit distance).
fn nearest_mnemonics(idx: &Index, m: &str) -> Vec<String> {
    let mut all: Vec<(usize, &String)> = idx
        .by_mnemonic
        .keys()
        .map(|k| (edit_distance(k, m), k))
        .collect();
    all.sort();
    all.into_iter().take(8).map(|(_, k)| k.clone()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The machine operand `k` is tied to (an earlier one it must equal).
fn tied_source(mc: &[McOperand], k: usize) -> Option<usize> {
    let t = mc[k].operand.tied_to()?;
    let first_of_tied = mc.iter().position(|o| o.operand.index() == t)?;
    let first_of_own = mc
        .iter()
        .position(|o| o.operand.index() == mc[k].operand.index())?;
    // Some tables record the tie both ways; the earlier operand leads.
    Some(first_of_tied + (k - first_of_own)).filter(|&j| j < k)
}

/// Sets machine operand `k` and the operands tied to it.
fn set(ops: &mut [OpValue], ties: &[Option<usize>], k: usize, v: OpValue) {
    ops[k] = v;
    for (j, s) in ties.iter().enumerate() {
        if *s == Some(k) {
            ops[j] = v;
        }
    }
}

/// The tokens `inst` prints to (spelled by `alias`), aligned with
/// `line`: a pseudo-prefix the line leaves out is dropped.
fn printed(
    t: &dyn Target,
    inst: &Inst,
    alias: Option<&InstAlias>,
    line: &[Tok],
) -> Option<Vec<Tok>> {
    let mut p = canonical(t, &print_as(t, inst, alias)?);
    let (pp, lp) = (prefix_len(&p), prefix_len(line));
    if pp == 3 && lp == 0 {
        p.drain(..3);
    }
    // A line that gives no memory size is compared without the form's.
    if !sized(line) {
        let mut k = 1;
        while k < p.len() {
            if p[k] == Tok::Word("ptr".into()) {
                p.drain(k - 1..=k);
            } else {
                k += 1;
            }
        }
    }
    Some(p)
}

/// Whether a tokenised line names its memory operands' size (x86's
/// `qword ptr`), or has none to name.
fn sized(line: &[Tok]) -> bool {
    let memory = line
        .iter()
        .any(|t| matches!(t, Tok::Word(w) if w.starts_with("mem@")));
    !memory || line.contains(&Tok::Word("ptr".into()))
}

/// The size words (`byte`, `xmmword` ...) a printed line puts before
/// `ptr`.
fn size_words(toks: &[Tok]) -> Vec<String> {
    toks.windows(2)
        .filter_map(|w| match w {
            [Tok::Word(size), Tok::Word(ptr)] if ptr == "ptr" => Some(size.clone()),
            _ => None,
        })
        .collect()
}

/// `c`'s form with operands that print as `line`, starting from its
/// example.
fn fit(t: &dyn Target, c: &Cand, line: &[Tok]) -> Option<Inst> {
    let example = &c.example;
    let mc = c.form.mc_operands();
    let args = c.alias.as_ref().map(InstAlias::args);
    // Tied operands, and those an alias names twice, follow the first.
    let ties: Vec<Option<usize>> = (0..mc.len())
        .map(|k| tied_source(&mc, k).or_else(|| args.as_deref().and_then(|a| AliasArg::twin(a, k))))
        .collect();
    let spelled = Spelled {
        t,
        alias: c.alias.as_ref(),
    };
    // The example, or — when an operand's value changes the length of the
    // text (`lsl #0` is not printed) — the example with that operand
    // changed, as the starting point: only starts of the line's length
    // (others fail at once), and an alternative only where it changes
    // the length (otherwise it starts where the example does).
    let len = |s: &Inst| spelled.printed(s, line).map(|p| p.len());
    let example_len = len(example);
    let mut starts = Vec::new();
    if example_len == Some(line.len()) {
        starts.push(example.clone());
    }
    for k in 0..mc.len() {
        if ties[k].is_none() {
            for alt in alternatives(example, k) {
                let mut s = example.clone();
                set(&mut s.ops, &ties, k, alt);
                let l = len(&s);
                if l != example_len && l == Some(line.len()) {
                    starts.push(s);
                }
            }
        }
    }
    starts
        .iter()
        .find_map(|s| fit_from(&spelled, &mc, &ties, s, line))
}

/// A target and the spelling the candidate is printed in.
struct Spelled<'a> {
    t: &'a dyn Target,
    alias: Option<&'a InstAlias>,
}

impl Spelled<'_> {
    fn printed(&self, inst: &Inst, line: &[Tok]) -> Option<Vec<Tok>> {
        printed(self.t, inst, self.alias, line)
    }
}

fn fit_from(
    t: &Spelled,
    mc: &[McOperand],
    ties: &[Option<usize>],
    example: &Inst,
    line: &[Tok],
) -> Option<Inst> {
    let base = t.printed(example, line)?;
    if base.len() != line.len() || prefix_len(&base) != prefix_len(line) {
        return None;
    }
    let mut inst = example.clone();
    for k in 0..mc.len() {
        if ties[k].is_some() {
            continue;
        }
        let at = positions(t, example, ties, k, &base, line)?;
        if at.is_empty() || at.iter().all(|&i| same_tok(&base[i], &line[i])) {
            continue;
        }
        // Printed together with an operand chosen before (an alias's
        // negated `#-5` is the value and its shift): done if that made it.
        if inst.ops != example.ops
            && t.printed(&inst, line).is_some_and(|p| {
                p.len() == line.len() && at.iter().all(|&i| same_tok(&p[i], &line[i]))
            })
        {
            continue;
        }
        let v = choose(t, example, ties, k, &mc[k], &at, line)?;
        set(&mut inst.ops, ties, k, v);
    }
    let got = t.printed(&inst, line)?;
    (same(&got, line) && t.t.encode(&inst).is_ok()).then_some(inst)
}

/// The token positions machine operand `k` prints to: those that change
/// when it alone changes, over all the values it is probed with (an
/// AArch64 shifter prints its type and its amount: `lsl #3`, `lsr #3`).
/// `None` when changing it changes the length of the text (such operands
/// cannot be aligned this way).
fn positions(
    t: &Spelled,
    example: &Inst,
    ties: &[Option<usize>],
    k: usize,
    base: &[Tok],
    line: &[Tok],
) -> Option<Vec<usize>> {
    let mut at: Vec<usize> = Vec::new();
    for alt in alternatives(example, k) {
        let mut probe = example.clone();
        set(&mut probe.ops, ties, k, alt);
        let Some(p) = t.printed(&probe, line) else {
            continue;
        };
        if p.len() != base.len() {
            continue;
        }
        at.extend((0..p.len()).filter(|&i| !same_tok(&p[i], &base[i])));
    }
    at.sort_unstable();
    at.dedup();
    Some(at)
}

/// Other values to probe operand `k` with.
fn alternatives(example: &Inst, k: usize) -> Vec<OpValue> {
    let mc = example.form.mc_operands();
    match example.ops[k] {
        OpValue::Reg(r) => mc[k]
            .ty
            .class()
            .map(|c| {
                c.members()
                    .filter(|m| *m != r)
                    .take(3)
                    .map(OpValue::Reg)
                    .collect()
            })
            .unwrap_or_default(),
        // A field of at most 3 bits, every value: one may print nothing
        // (RISC-V's dynamic rounding mode, 7, in `fadd.d fa5, fa5, fa4`).
        OpValue::Imm(v) => match imm_bits(example.form, &mc[k]) {
            bits @ 1..=3 => (0..1i64 << bits)
                .filter(|&a| a != v)
                .map(OpValue::Imm)
                .collect(),
            // v ^ 64: a shifter's type (its bits 6 and up).
            _ => [v + 1, v - 1, v ^ 4, v ^ 64, 0]
                .into_iter()
                .filter(|&a| a != v)
                .map(OpValue::Imm)
                .collect(),
        },
        // Another displacement prints another memory token.
        OpValue::Mem(m) => vec![OpValue::Mem(Mem {
            disp: m.disp.wrapping_add(8),
            ..m
        })],
    }
}

/// The width of immediate operand `m` of `form`: the tables' width, else
/// the bits its name has in the encoding (RISC-V's rounding mode, whose
/// operand type gives none: 3), else 0.
fn imm_bits(form: Instr, m: &McOperand) -> u32 {
    match (m.ty.imm().map_or(0, |i| i.bits), form.encoding()) {
        (0, Encoding::Bits(e)) => e
            .fields()
            .filter(|f| f.var == m.name)
            .map(|f| u32::from(f.width))
            .sum(),
        (bits, _) => bits,
    }
}

/// The value of machine operand `k` that prints as `line` does at `at`.
fn choose(
    t: &Spelled,
    example: &Inst,
    ties: &[Option<usize>],
    k: usize,
    m: &McOperand,
    at: &[usize],
    line: &[Tok],
) -> Option<OpValue> {
    let fits = |v: OpValue| {
        let mut probe = example.clone();
        set(&mut probe.ops, ties, k, v);
        t.printed(&probe, line)
            .is_some_and(|p| p.len() == line.len() && at.iter().all(|&i| same_tok(&p[i], &line[i])))
    };
    match m.ty.kind() {
        OperandKind::Reg => m.ty.class()?.members().map(OpValue::Reg).find(|&v| fits(v)),
        // An immediate never prints as a register name (`mov x6, x12`
        // is no `mov z6.d, #imm`): no search of its values then.
        OperandKind::Imm if at.iter().any(|&i| is_register(t.t, &line[i])) => None,
        OperandKind::Imm => imm_candidates(m, at, line).into_iter().find(|&v| fits(v)),
        OperandKind::Mem => {
            let parse = t.t.dialect().memory?;
            let Tok::Word(w) = &line[*at.first()?] else {
                return None;
            };
            memory_of_word(w, parse)
                .map(OpValue::Mem)
                .filter(|&v| fits(v))
        }
        _ => None,
    }
}

/// Immediates worth trying: the numbers the line has where the operand
/// prints (as written, and wrapped to the operand's width), then — for
/// operands of at most 13 bits, whose printed form may be a decoding
/// (`asr #3`, logical immediates) — every value of the field.
fn imm_candidates(m: &McOperand, at: &[usize], line: &[Tok]) -> Vec<OpValue> {
    let info = m.ty.imm();
    let bits = info.map_or(0, |i| i.bits);
    let mut out: Vec<i64> = Vec::new();
    for &i in at {
        if let Tok::Num(n) = line[i] {
            let n = n as i64;
            // As written, and negated (`cmp x0, #-5` is `cmn x0, #5`).
            out.extend([n, n.wrapping_neg()]);
            for w in [8u32, 16, 32] {
                let span = 1i64 << w;
                if n >= span / 2 && n < span {
                    out.push(n - span);
                }
                if n < 0 && n >= -span / 2 {
                    out.push(n + span);
                }
            }
        }
    }
    // A 16-bit field may be a wide move's (`mov x0, #0x30000` is `movz x0,
    // #3, lsl #16`; MOVN's inverted): the line's number's 16-bit pieces.
    if bits == 16 || info.and_then(|i| i.max) == Some(0xffff) {
        for &i in at {
            if let Tok::Num(n) = line[i] {
                let n = n as i64;
                for s in [0, 16, 32, 48] {
                    out.extend([(n >> s) & 0xffff, (!n >> s) & 0xffff]);
                }
            }
        }
    }
    // Width unknown to the tables: the small fields such operands have
    // (SVE patterns, prefetch kinds …) and AArch64's shifters, `(type << 6)
    // | amount` up to MSL's 4: 9 bits, so that `lsr #63` (127) and `ror
    // #5` (197) are found, not only the `lsl`s below 64.
    // A range the tables state gives the width (`movz`'s 0..=65535: 16).
    let bits = match (bits, info.and_then(|i| i.min), info.and_then(|i| i.max)) {
        (0, Some(lo), Some(hi)) if hi > lo => 64 - ((hi - lo) as u64).leading_zeros(),
        (0, _, _) => 9,
        (b, _, _) => b,
    };
    if (1..=13).contains(&bits) {
        let (lo, hi) = match info {
            Some(i) if i.min.is_some() && i.max.is_some() => {
                (i.min.unwrap_or(0), i.max.unwrap_or(0))
            }
            _ if info.and_then(|i| i.signed) == Some(true) => {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            }
            _ => (0, (1i64 << bits) - 1),
        };
        out.extend(lo..=hi.min(lo + (1 << 13)));
    }
    out.into_iter().map(OpValue::Imm).collect()
}

#[cfg(test)]
mod tests;
