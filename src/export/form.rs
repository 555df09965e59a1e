//! One LLVM form as OSACA spells it: its mnemonic(s) and operands,
//! derived from the form's assembly string and operand types in
//! [`crate::isa`], never from hand-written lists.
//!
//! OSACA's machine files describe an instruction by its mnemonic and the
//! operands as its parser sees them in the *printed* instruction:
//!
//! * **x86**: AT&T order (sources first, destination last) — OSACA's Intel
//!   parser reverses operands to that order before it looks a form up.
//!   The operands are the printed ones in the order of LLVM's AT&T
//!   `AsmString` variant: a tied pair is printed (and so listed) once, a
//!   register the string names literally (`%cl` of `shl %cl, r64`, `%rax`
//!   of `add $imm, %rax`) is an operand, an implicit one it does not print
//!   (EFLAGS) is none. A register is `{class: register, name: N}` where
//!   `N` is `gpr` for every general-purpose width (OSACA's parser does not
//!   tell `%eax` from `%rax`) and otherwise the class's register names
//!   without their number (`xmm`, `ymm`, `zmm`, `k`, `mm`); an AVX-512
//!   write mask `{%k1}` is no operand but `mask: true` on the register it
//!   decorates. An immediate is `{class: immediate, imd: int}`. A memory
//!   operand (LLVM's `i64mem`, `f256mem`, `vx128mem` … whose sub-operands
//!   are base, scale, index, displacement, segment) may be addressed in
//!   any way, so base, offset, index and scale are OSACA's wildcard `*`;
//!   a gather's vector index is `index: {name: xmm|ymm|zmm}`.
//! * **AArch64**: the generic (not Apple) syntax: a register is
//!   `{class: register, prefix: P}` with `P` from the class's register
//!   names (`x`, `w`, `b` … `q`, `z`, `p`), a vector register written with
//!   an arrangement (`$Rd.4s`) is `prefix: v` (`z`/`p` for SVE) with
//!   `shape` (the element letter) and `lanes`; `#imm` is an immediate; a
//!   memory operand `[$Rn]`, `[$Rn, #$imm]` has base `x` and offset
//!   `imd` or none.
//!
//! A form whose printed operands OSACA cannot spell (a rounding-control
//! `{rn-sae}`, `{sae}`, an x86 string instruction's fixed `(%rdi)`, an
//! AArch64 register list or extended register) is not exported; the
//! reason says which part.
//!
//! The name of an x86 form is the one OSACA's own files use: the Intel
//! mnemonic where OSACA's AT&T parser reaches it by dropping a GAS size
//! suffix (`addq` → `add`; OSACA's ISA model, which says what an `add`
//! reads and writes, knows only that name, so an `addq` form would lose
//! the dependencies), else the AT&T mnemonic as GCC prints it (`movsbq`)
//! and the Intel one (`movsx`) as a second name.

use crate::arch::x86_64::cond::SPELLINGS;
use crate::isa::desc::OperandKind;
use crate::isa::{select_asm_variant, Arch, Instr, RegClass};
use serde_yaml::{Mapping, Value};

/// A form as OSACA describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct OsacaForm {
    /// The names OSACA may look the form up by, the most specific first
    /// (x86: AT&T `addq`, then Intel `add` where it differs).
    pub names: Vec<String>,
    /// The operands in OSACA's order and spelling.
    pub operands: Vec<Value>,
    /// The form has a write mask, zeroing or an embedded broadcast that
    /// OSACA's operands do not tell apart from the plain form (OSACA
    /// matches `{%k1}` and `{1to8}` as the plain operand).
    pub decorated: bool,
    /// An operand is a register the instruction fixes (`%rax` of `add
    /// $imm, %rax`, `%cl` of `shl %cl, r`): OSACA matches it as any
    /// register of its kind, but the form is not the general one.
    pub fixed: bool,
    /// The names OSACA's Intel parser may give the form instead
    /// ([`intel_sized_name`]): the Intel mnemonic with `d` or `q` for a
    /// `DWORD PTR` or `QWORD PTR` operand (`mov QWORD PTR [m], r` is
    /// looked up as `movq`). The export adds them where OSACA would
    /// rename.
    pub sized_names: Vec<String>,
}

/// The name OSACA 0.7.1's Intel parser looks `intel` up by when the
/// form's memory operand is `DWORD PTR` or `QWORD PTR` (`memory_size`
/// `dword`, `qword`): the mnemonic with `d` or `q`, which it takes
/// wherever its machine or ISA file has a form of that name with as many
/// operands (its `data_type_to_suffix`). Then `mov QWORD PTR [m], rdx`
/// is a `movq`, and a file with `movq` (the MMX and SSE moves) but no
/// `movq` of a general-purpose register gave gcc's every 64-bit store
/// the ports of `movq %mm, r64` and a vector store's.
pub fn intel_sized_name(intel: &str, memory_size: Option<&str>) -> Option<String> {
    let suffix = match memory_size? {
        "dword" => 'd',
        "qword" => 'q',
        _ => return None,
    };
    Some(format!("{intel}{suffix}"))
}

/// Why OSACA cannot describe a form: a kind, which the export counts,
/// and the text with the operand, which it prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unspellable {
    /// What kind of obstacle.
    pub kind: Obstacle,
    /// The obstacle with the form's own operand or mnemonic.
    pub text: String,
}

/// The kinds of [`Unspellable`], in the order the export lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Obstacle {
    /// A fixed memory operand (`%es:(%rdi)` of the string instructions).
    FixedMemory,
    /// A mnemonic with a placeholder or several words.
    Mnemonic,
    /// No assembly string, or an arch OSACA cannot parse.
    NoAssembly,
    /// An operand OSACA has no spelling for.
    Operand,
    /// An AArch64 register class whose registers have no OSACA prefix.
    NoPrefix,
    /// A rounding or exception control operand (`{rn-sae}`).
    Rounding,
    /// A jump (`JCC_1`, `JMP_1`): its kernel times it to the next
    /// instruction, which says nothing of the taken branch at a loop's end.
    Jump,
}

impl Obstacle {
    /// The kind as the export's summary names it.
    pub fn label(self) -> &'static str {
        match self {
            Obstacle::FixedMemory => "fixed memory operand (string instructions)",
            Obstacle::Mnemonic => "mnemonic is no plain word",
            Obstacle::NoAssembly => "no assembly string OSACA can parse",
            Obstacle::Operand => "operand OSACA cannot spell",
            Obstacle::NoPrefix => "register class without OSACA prefix",
            Obstacle::Rounding => "rounding or exception control operand",
            Obstacle::Jump => "jump (timed to the next instruction, not as a loop's taken branch)",
        }
    }
}

impl std::fmt::Display for Unspellable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The operand `$name` of `form`'s assembly string.
fn named_operand(form: Instr, name: &str) -> Result<crate::isa::Operand, Unspellable> {
    form.operand(name).ok_or_else(|| {
        unspellable(
            Obstacle::Operand,
            format!("the assembly string names `${name}`, which is no operand"),
        )
    })
}

/// An [`Unspellable`] of `kind`.
fn unspellable(kind: Obstacle, text: impl Into<String>) -> Unspellable {
    Unspellable {
        kind,
        text: text.into(),
    }
}

/// `form` as OSACA describes it on `arch`, or why OSACA cannot.
pub fn osaca_form(form: Instr) -> Result<OsacaForm, Unspellable> {
    match form.isa().arch() {
        Arch::Riscv64 => Err(unspellable(
            Obstacle::NoAssembly,
            "OSACA has no RISC-V parser",
        )),
        _ if form.has(crate::isa::Flag::IsBranch) => Err(unspellable(
            Obstacle::Jump,
            "a jump's kernel times it to the next instruction, not as a loop's taken branch",
        )),
        Arch::X86_64 => x86_form(form),
        Arch::Aarch64 => aarch64_form(form),
    }
}

fn map(pairs: &[(&str, Value)]) -> Value {
    let mut m = Mapping::new();
    for (k, v) in pairs {
        m.insert(Value::String((*k).to_string()), v.clone());
    }
    Value::Mapping(m)
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// The mnemonic and the operand texts of an assembly string already
/// reduced to one syntax variant: split at the first blank, then at the
/// commas outside braces, brackets and parentheses.
fn split_asm(asm: &str) -> (String, Vec<String>) {
    let asm = asm.trim();
    let (mnemonic, rest) = match asm.find(|c: char| c.is_whitespace()) {
        Some(i) => (&asm[..i], asm[i..].trim()),
        None => (asm, ""),
    };
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in rest.chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        parts.push(cur.trim().to_string());
    }
    (mnemonic.to_lowercase(), parts)
}

/// The operand name of a `$name`, `${name}` or `${name:modifier}`
/// reference at the start of `text`, and the rest of the text.
fn operand_ref(text: &str) -> Option<(&str, &str)> {
    let t = text.strip_prefix('$')?;
    if let Some(inner) = t.strip_prefix('{') {
        let end = inner.find('}')?;
        let name = inner[..end].split(':').next().unwrap_or("");
        return Some((name, &inner[end + 1..]));
    }
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    (end > 0).then(|| (&t[..end], &t[end..]))
}

// ---------------------------------------------------------------- x86

/// `form` as OSACA spells it; a condition form (`cmov${cond}`,
/// `set${cond}`) under every spelling of every condition (`cmove`,
/// `cmovz`, … `cmovnle`), all alike.
fn x86_form(form: Instr) -> Result<OsacaForm, Unspellable> {
    let mut spelled: Option<OsacaForm> = None;
    for (att, intel) in x86_spellings(form) {
        let f = x86_spelled(form, &att, &intel)?;
        match &mut spelled {
            Some(first) => {
                first.names.extend(f.names);
                first.sized_names.extend(f.sized_names);
            }
            None => spelled = Some(f),
        }
    }
    spelled.ok_or_else(|| unspellable(Obstacle::Mnemonic, "no condition"))
}

/// The AT&T and Intel assembly strings of `form`: once, or for a
/// condition form (`cmov${cond}`) once per spelling of every condition.
fn x86_spellings(form: Instr) -> Vec<(String, String)> {
    let att = select_asm_variant(form.asm_string(), 0);
    let intel = select_asm_variant(form.asm_string(), 1);
    if !att.contains("${cond}") {
        return vec![(att, intel)];
    }
    SPELLINGS
        .iter()
        .flat_map(|s| s.iter())
        .map(|c| {
            (
                att.replacen("${cond}", c, 1),
                intel.replacen("${cond}", c, 1),
            )
        })
        .collect()
}

/// `form` printed as `att` (and `intel`, for its second name).
fn x86_spelled(form: Instr, att: &str, intel: &str) -> Result<OsacaForm, Unspellable> {
    let (att_name, parts) = split_asm(att);
    let (intel_name, _) = split_asm(intel);
    if att_name.is_empty() {
        return Err(unspellable(Obstacle::NoAssembly, "no assembly string"));
    }
    if att_name.contains(['{', '$', ';']) {
        return Err(unspellable(
            Obstacle::Mnemonic,
            format!("mnemonic `{att_name}` is no plain word"),
        ));
    }
    // A string operation as compilers write it: `movsq`, `rep stosb`,
    // `lodsb`, without its implicit `(%rsi)`, `%es:(%rdi)` or `%al`,
    // which is how OSACA parses it.
    let string = form
        .mc_operands()
        .iter()
        .any(|m| m.ty.string_pointer().is_some());
    let parts = if string { Vec::new() } else { parts };
    let mut operands = Vec::new();
    let mut decorated = false;
    for part in &parts {
        let (op, deco) = x86_operand(form, part)?;
        decorated |= deco;
        operands.push(op);
    }
    let fixed = parts.iter().any(|p| p.starts_with('%'));
    let sized_names = if intel_name.is_empty() || intel_name.contains(['{', '$']) {
        Vec::new()
    } else {
        intel_sized_name(&intel_name, form.memory_size())
            .into_iter()
            .collect()
    };
    Ok(OsacaForm {
        names: x86_names(att_name, intel_name),
        operands,
        decorated,
        fixed,
        sized_names,
    })
}

/// The names of an x86 form: the Intel mnemonic where OSACA reaches it
/// from the AT&T one by dropping a GAS size suffix (`addq` → `add`),
/// as OSACA's files and its ISA model (which says which operands an
/// `add` reads and writes) name forms; else the AT&T mnemonic, which
/// OSACA's AT&T parser looks up as printed (`movsbq`), then the Intel one
/// (`movsx`) for Intel syntax.
fn x86_names(att: String, intel: String) -> Vec<String> {
    const GAS_SUFFIXES: &str = "bswlqt";
    let plain_intel = !intel.is_empty() && !intel.contains(['{', '$']);
    if !plain_intel || intel == att {
        return vec![att];
    }
    let dropped = att
        .strip_prefix(intel.as_str())
        .is_some_and(|rest| rest.len() == 1 && GAS_SUFFIXES.contains(rest));
    if dropped {
        vec![intel]
    } else {
        vec![att, intel]
    }
}

/// One printed AT&T operand: its OSACA spelling and whether it carried a
/// decoration OSACA does not match on (mask, zeroing, broadcast).
fn x86_operand(form: Instr, part: &str) -> Result<(Value, bool), Unspellable> {
    let no_spelling = || {
        unspellable(
            Obstacle::Operand,
            format!("operand `{part}` has no OSACA spelling"),
        )
    };
    // The operand itself: `$name`, `${name}`, `$$1`, `%reg`.
    let main_len = if part.starts_with("${") {
        part.find('}').map(|i| i + 1).ok_or_else(no_spelling)?
    } else if part.starts_with('$') || part.starts_with('%') {
        part.find(|c: char| c.is_whitespace() || c == '{')
            .unwrap_or(part.len())
    } else if part.starts_with('{') {
        return Err(unspellable(
            Obstacle::Rounding,
            format!("operand `{part}` (rounding or exception control) has no OSACA spelling"),
        ));
    } else {
        return Err(no_spelling());
    };
    let (main, mut rest) = part.split_at(main_len);
    // Its decorations: `{${mask}}`, `{z}`, `{1to8}`.
    let mut mask = false;
    let mut decorated = false;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let inner = rest.strip_prefix('{').ok_or_else(no_spelling)?;
        let end = if inner.starts_with("${") {
            inner.find("}}").map(|i| i + 1)
        } else {
            inner.find('}')
        }
        .ok_or_else(no_spelling)?;
        let deco = &inner[..end];
        rest = &inner[end + 1..];
        if deco.starts_with("${") || deco.starts_with("%k") {
            mask = true;
            decorated = true;
        } else if deco == "z" || deco.starts_with("1to") {
            decorated = true;
        } else {
            return Err(unspellable(
                Obstacle::Operand,
                format!("operand `{part}`: `{{{deco}}}` has no OSACA spelling"),
            ));
        }
    }
    let mut value = if let Some(reg) = main.strip_prefix('%') {
        x86_literal_register(reg)?
    } else if main.starts_with("$$") {
        map(&[("class", s("immediate")), ("imd", s("int"))])
    } else {
        match operand_ref(main) {
            Some((name, "")) => x86_named_operand(form, name)?,
            _ => return Err(no_spelling()),
        }
    };
    if mask {
        if let Value::Mapping(m) = &mut value {
            m.insert(s("mask"), Value::Bool(true));
        }
    }
    Ok((value, decorated))
}

fn x86_named_operand(form: Instr, name: &str) -> Result<Value, Unspellable> {
    let op = named_operand(form, name)?;
    let ty = op.ty();
    match ty.kind() {
        OperandKind::Reg => {
            let class = ty.class().ok_or_else(|| {
                unspellable(
                    Obstacle::Operand,
                    format!("register operand `${name}` has no class"),
                )
            })?;
            Ok(map(&[
                ("class", s("register")),
                ("name", s(&x86_class_name(class))),
            ]))
        }
        OperandKind::Imm if ty.name() != "AVX512RC" => {
            Ok(map(&[("class", s("immediate")), ("imd", s("int"))]))
        }
        OperandKind::Mem => Ok(x86_memory(ty)),
        OperandKind::PcRel => Ok(map(&[("class", s("identifier"))])),
        OperandKind::Imm => Err(unspellable(
            Obstacle::Rounding,
            format!(
            "operand `${name}` (AVX512RC: rounding control, `{{rn-sae}}`) has no OSACA spelling"
        ),
        )),
        _ => Err(unspellable(
            Obstacle::Operand,
            format!("operand `${name}` ({}) has no OSACA spelling", ty.name()),
        )),
    }
}

/// A memory operand: any addressing; a vector index (gathers, scatters)
/// named by its register kind.
fn x86_memory(ty: crate::isa::OperandType) -> Value {
    let vector_index = ty.sub_operands().find_map(|(sub, _)| {
        let class = sub.class()?;
        let kind = x86_class_name(class);
        matches!(kind.as_str(), "xmm" | "ymm" | "zmm").then_some(kind)
    });
    let index = match vector_index {
        Some(kind) => map(&[("name", s(&kind))]),
        None => s("*"),
    };
    map(&[
        ("class", s("memory")),
        ("base", s("*")),
        ("offset", s("*")),
        ("index", index),
        ("scale", s("*")),
    ])
}

/// OSACA's name of an x86 register kind, from a register's assembly name
/// (`xmm3` → `xmm`, `k1` → `k`, `st(1)` → `st`); every other register
/// (`rax`, `r8d`, `cl`, segment registers) is `gpr`, as OSACA's parser
/// classes it.
pub fn x86_register_kind(asm_name: &str) -> String {
    let lower = asm_name.to_lowercase();
    let stem = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == ')' || c == '(');
    match stem {
        "xmm" | "ymm" | "zmm" | "mm" | "k" | "st" | "tmm" | "bnd" | "cr" | "dr" => stem.into(),
        _ => "gpr".into(),
    }
}

/// The kind of the registers of `class` (all of one kind; a class mixing
/// kinds is named by its first register's).
fn x86_class_name(class: RegClass) -> String {
    class
        .members()
        .next()
        .map(|r| x86_register_kind(&r.asm_name()))
        .unwrap_or_else(|| "gpr".into())
}

fn x86_literal_register(reg: &str) -> Result<Value, Unspellable> {
    if reg.contains(':') || reg.contains('(') && !reg.starts_with("st") {
        return Err(unspellable(
            Obstacle::FixedMemory,
            format!("fixed memory operand `%{reg}` has no OSACA spelling"),
        ));
    }
    Ok(map(&[
        ("class", s("register")),
        ("name", s(&x86_register_kind(reg))),
    ]))
}

// ------------------------------------------------- operand access (ISA)

/// What an instruction does with one operand, as OSACA's ISA files say
/// it (`source`, `destination`): a register it reads and/or writes, a
/// memory operand it loads from (or only addresses, as `lea`) and/or
/// stores to, an immediate it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Read (a register's value, a memory operand's address and data).
    pub source: bool,
    /// Written.
    pub destination: bool,
}

/// `form` as OSACA's ISA file describes it: its spelling and, per
/// operand in OSACA's order, what the form does with it, from LLVM's
/// records: an `outs` register is written, an `ins` one read, a tied
/// pair (`$src1 = $dst`) both; a literal register (`%rax`, `%cl`) by the
/// form's implicit uses and defs; a memory operand by whether the form
/// loads and stores there ([`crate::arch::Operands::memory_access`]; read
/// when neither: `lea`, `prefetch` only address it).
/// A condition form (`cmov${cond}`, `set${cond}`) is one form per
/// spelling of a condition (`cmovo` … `cmovg`, `cmovz`, `cmovnb`), all
/// alike. x86 only: AArch64's
/// writeback addressing would need its own rules.
pub fn osaca_access(form: Instr) -> Result<Vec<(OsacaForm, Vec<Access>)>, Unspellable> {
    if form.isa().arch() != Arch::X86_64 {
        return Err(unspellable(
            Obstacle::NoAssembly,
            format!(
                "operand access is derived for x86 only, not {}",
                form.isa().arch()
            ),
        ));
    }
    x86_spellings(form)
        .iter()
        .map(|(att, intel)| {
            let spelled = x86_spelled(form, att, intel)?;
            let (_, parts) = split_asm(att);
            let access = parts
                .iter()
                .map(|p| x86_access(form, p))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((spelled, access))
        })
        .collect()
}

/// What `form` does with the printed AT&T operand `part`.
fn x86_access(form: Instr, part: &str) -> Result<Access, Unspellable> {
    let read = Access {
        source: true,
        destination: false,
    };
    if let Some(reg) = part.strip_prefix('%') {
        let reg = reg
            .split(|c: char| c.is_whitespace() || c == '{')
            .next()
            .unwrap_or(reg);
        let named = |r: crate::isa::Reg| r.asm_name().eq_ignore_ascii_case(reg);
        let access = Access {
            source: form.implicit_uses().any(named),
            destination: form.implicit_defs().any(named),
        };
        return if access.source || access.destination {
            Ok(access)
        } else {
            Err(unspellable(
                Obstacle::Operand,
                format!("`%{reg}` is neither an implicit use nor a def"),
            ))
        };
    }
    if part.starts_with("$$") {
        return Ok(read);
    }
    let name = operand_ref(part).map(|(name, _)| name).ok_or_else(|| {
        unspellable(
            Obstacle::Operand,
            format!("operand `{part}` names no operand"),
        )
    })?;
    let op = named_operand(form, name)?;
    match op.ty().kind() {
        OperandKind::Mem => {
            // LLVM leaves `mayStore` unset on most x86 records (inferred
            // from patterns); the target knows (iced's instruction info).
            let (load, store) = crate::arch::target(Arch::X86_64)
                .memory_access(form)
                .ok_or_else(|| {
                    unspellable(
                        Obstacle::Operand,
                        format!("how `{}` accesses its memory is not known", form.name()),
                    )
                })?;
            Ok(Access {
                source: load || !store,
                destination: store,
            })
        }
        OperandKind::Reg => {
            // The operand and the ones tied to it (`$src1 = $dst`): one
            // register, read if any of them is an `ins`, written if any
            // is an `outs`.
            let tied = form.operands().filter(|o| {
                o.index() == op.index()
                    || o.tied_to() == Some(op.index())
                    || op.tied_to() == Some(o.index())
            });
            let (mut source, mut destination) = (false, false);
            for o in tied {
                source |= !o.is_def();
                destination |= o.is_def();
            }
            Ok(Access {
                source,
                destination,
            })
        }
        _ => Ok(read),
    }
}

// ---------------------------------------------------------------- AArch64

fn aarch64_form(form: Instr) -> Result<OsacaForm, Unspellable> {
    let asm = select_asm_variant(form.asm_string(), 0);
    let (name, parts) = split_asm(&asm);
    if name.is_empty() {
        return Err(unspellable(Obstacle::NoAssembly, "no assembly string"));
    }
    if name.contains(['$', '{']) {
        return Err(unspellable(
            Obstacle::Mnemonic,
            format!("mnemonic `{name}` is no plain word"),
        ));
    }
    let mut operands = Vec::new();
    for part in &parts {
        operands.push(aarch64_operand(form, part)?);
    }
    Ok(OsacaForm {
        names: vec![name],
        operands,
        decorated: false,
        fixed: false,
        sized_names: Vec::new(),
    })
}

fn aarch64_operand(form: Instr, part: &str) -> Result<Value, Unspellable> {
    let part = part.trim();
    if let Some(inner) = part.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or_else(|| {
            unspellable(
                Obstacle::Operand,
                format!("operand `{part}` has no OSACA spelling"),
            )
        })?;
        let pieces: Vec<&str> = inner.split(',').map(str::trim).collect();
        let offset = match pieces.len() {
            1 => Value::Null,
            2 => {
                let p = pieces[1].trim_start_matches('#');
                let (n, rest) = operand_ref(p).ok_or_else(|| {
                    unspellable(
                        Obstacle::Operand,
                        format!("memory operand `{part}` has no OSACA spelling"),
                    )
                })?;
                let kind = form.operand(n).map(|o| o.ty().kind());
                if !rest.is_empty() || kind != Some(OperandKind::Imm) {
                    return Err(unspellable(
                        Obstacle::Operand,
                        format!("memory operand `{part}` has no OSACA spelling"),
                    ));
                }
                s("imd")
            }
            _ => {
                return Err(unspellable(
                    Obstacle::Operand,
                    format!("memory operand `{part}` has no OSACA spelling"),
                ))
            }
        };
        return Ok(map(&[
            ("class", s("memory")),
            ("base", s("x")),
            ("offset", offset),
            ("index", Value::Null),
            ("scale", Value::Number(1.into())),
            ("pre_indexed", Value::Bool(false)),
            ("post_indexed", Value::Bool(false)),
        ]));
    }
    let text = part.trim_start_matches('#');
    let (name, rest) = operand_ref(text).ok_or_else(|| {
        unspellable(
            Obstacle::Operand,
            format!("operand `{part}` has no OSACA spelling"),
        )
    })?;
    let op = named_operand(form, name)?;
    let ty = op.ty();
    match ty.kind() {
        OperandKind::Imm if rest.is_empty() => {
            Ok(map(&[("class", s("immediate")), ("imd", s("int"))]))
        }
        OperandKind::Reg => {
            let class = ty.class().ok_or_else(|| {
                unspellable(
                    Obstacle::Operand,
                    format!("register operand `${name}` has no class"),
                )
            })?;
            let prefix = aarch64_class_prefix(class).ok_or_else(|| {
                unspellable(
                    Obstacle::NoPrefix,
                    format!("register class {} has no OSACA prefix", class.name()),
                )
            })?;
            if rest.is_empty() {
                return Ok(map(&[("class", s("register")), ("prefix", s(&prefix))]));
            }
            // `.4s`, `.2d`, `.s` (SVE), `.b`: lanes and element shape.
            let arr = rest
                .strip_prefix('.')
                .filter(|a| a.chars().all(|c| c.is_ascii_alphanumeric()))
                .ok_or_else(|| {
                    unspellable(
                        Obstacle::Operand,
                        format!("operand `{part}` has no OSACA spelling"),
                    )
                })?;
            let lanes: String = arr.chars().take_while(|c| c.is_ascii_digit()).collect();
            let shape: String = arr.chars().skip_while(|c| c.is_ascii_digit()).collect();
            let prefix = if prefix == "z" || prefix == "p" {
                prefix
            } else {
                "v".to_string()
            };
            let mut pairs = vec![
                ("class", s("register")),
                ("prefix", s(&prefix)),
                ("shape", s(&shape)),
            ];
            if !lanes.is_empty() {
                pairs.push(("lanes", s(&lanes)));
            }
            Ok(map(&pairs))
        }
        _ => Err(unspellable(
            Obstacle::Operand,
            format!("operand `{part}` ({}) has no OSACA spelling", ty.name()),
        )),
    }
}

/// The letter OSACA's AArch64 parser gives the registers of `class`: the
/// first letter of its numbered registers (`x0`, `w0`, `q0`, `z0`, `p0`).
fn aarch64_class_prefix(class: RegClass) -> Option<String> {
    let name = class
        .members()
        .map(|r| r.asm_name().to_lowercase())
        .find(|n| n.ends_with(|c: char| c.is_ascii_digit()))?;
    let letter = name.chars().next()?;
    "xwbhsdqvzp".contains(letter).then(|| letter.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Isa;

    fn x86(name: &str) -> OsacaForm {
        let form = Isa::get(Arch::X86_64).instr(name).expect(name);
        osaca_form(form).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn spelled(f: &OsacaForm) -> String {
        f.operands
            .iter()
            .map(|v| serde_json::to_string(v).unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn x86_names_are_att_then_intel() {
        assert_eq!(x86("ADD64rr").names, ["add"]);
        assert_eq!(x86("CVTTSD2SI64rr").names, ["cvttsd2si"]);
        assert_eq!(x86("MOVSX64rr8").names, ["movsbq", "movsx"]);
        assert_eq!(x86("VADDPDYrr").names, ["vaddpd"]);
    }

    /// `cmov${cond}` and `set${cond}` are one form under every spelling
    /// of every condition, as compilers write them (`cmova`, `setl`,
    /// `cmovnb`); a jump is left out, saying why.
    #[test]
    fn a_condition_form_has_every_spelling_as_a_name() {
        let cmov = x86("CMOV64rr");
        assert_eq!(cmov.names.len(), 30, "{:?}", cmov.names);
        for n in [
            "cmova", "cmovnbe", "cmovb", "cmovc", "cmovnae", "cmovz", "cmovg",
        ] {
            assert!(cmov.names.iter().any(|m| m == n), "{n}: {:?}", cmov.names);
        }
        assert_eq!(spelled(&cmov), spelled(&x86("ADD64rr")));
        let set = x86("SETCCr");
        assert!(set.names.iter().any(|m| m == "setl"), "{:?}", set.names);
        assert!(set.names.iter().any(|m| m == "setnge"), "{:?}", set.names);
        for jump in ["JCC_1", "JMP_1", "JMP_4"] {
            let form = Isa::get(Arch::X86_64).instr(jump).unwrap();
            assert_eq!(osaca_form(form).unwrap_err().kind, Obstacle::Jump, "{jump}");
        }
    }

    #[test]
    fn x86_operands_are_in_att_order_with_osaca_register_kinds() {
        // add $imm, %rax: the literal register is an operand.
        assert_eq!(
            spelled(&x86("ADD64i32")),
            r#"{"class":"immediate","imd":"int"} {"class":"register","name":"gpr"}"#
        );
        // shl %cl, r64: the tied pair is one operand.
        assert_eq!(
            spelled(&x86("SHL64rCL")),
            r#"{"class":"register","name":"gpr"} {"class":"register","name":"gpr"}"#
        );
        let vpcmp = x86("VPCMPEQDZrr");
        assert_eq!(
            spelled(&vpcmp),
            r#"{"class":"register","name":"zmm"} {"class":"register","name":"zmm"} {"class":"register","name":"k"}"#
        );
        let masked = x86("VADDPDZrrk");
        assert!(masked.decorated);
        assert_eq!(
            spelled(&masked),
            r#"{"class":"register","name":"zmm"} {"class":"register","name":"zmm"} {"class":"register","name":"zmm","mask":true}"#
        );
        assert!(!x86("VADDPDZrr").decorated);
        assert_eq!(
            spelled(&x86("MMX_PADDDrr")),
            r#"{"class":"register","name":"mm"} {"class":"register","name":"mm"}"#
        );
    }

    #[test]
    fn x86_memory_operands_come_from_llvm_memory_types() {
        let wild = r#"{"class":"memory","base":"*","offset":"*","index":"*","scale":"*"}"#;
        let gpr = r#"{"class":"register","name":"gpr"}"#;
        assert_eq!(spelled(&x86("MOV64rm")), format!("{wild} {gpr}"));
        assert_eq!(spelled(&x86("MOV64mr")), format!("{gpr} {wild}"));
        let ymm = r#"{"class":"register","name":"ymm"}"#;
        assert_eq!(spelled(&x86("VADDPDYrm")), format!("{wild} {ymm} {ymm}"));
        let bcst = x86("VADDPDZrmbk");
        assert!(bcst.decorated);
        assert!(spelled(&bcst).starts_with(wild), "{}", spelled(&bcst));
        let gather = x86("VPGATHERDDZrm");
        assert_eq!(
            serde_json::to_string(&gather.operands[0]).unwrap(),
            r#"{"class":"memory","base":"*","offset":"*","index":{"name":"zmm"},"scale":"*"}"#
        );
    }

    #[test]
    fn x86_forms_osaca_cannot_spell_say_why() {
        let form = Isa::get(Arch::X86_64).instr("VADDPDZrrb").unwrap();
        let why = osaca_form(form).unwrap_err();
        assert_eq!(why.kind, Obstacle::Rounding, "{why}");
        assert!(why.text.contains("rounding"), "{why}");
        // One form of each kind the tables hold, on its arch.
        for (arch, name, kind, text) in [
            (Arch::Aarch64, "BCcc", Obstacle::Jump, "next instruction"),
            (
                Arch::X86_64,
                "REP_MOVSB_32",
                Obstacle::Mnemonic,
                "`rep;movsb`",
            ),
            (Arch::X86_64, "CALL16m", Obstacle::Operand, "`*$dst`"),
            (Arch::Aarch64, "ADDHA_MPPZ_D", Obstacle::NoPrefix, "MPR64"),
        ] {
            let why = osaca_form(Isa::get(arch).instr(name).unwrap()).unwrap_err();
            assert_eq!(why.kind, kind, "{name}: {why}");
            assert!(why.text.contains(text), "{name}: {why}");
        }
    }

    #[test]
    fn register_kinds_follow_osacas_parser() {
        for (reg, kind) in [
            ("rax", "gpr"),
            ("r8d", "gpr"),
            ("cl", "gpr"),
            ("xmm15", "xmm"),
            ("ymm0", "ymm"),
            ("zmm31", "zmm"),
            ("k1", "k"),
            ("mm3", "mm"),
            ("st(1)", "st"),
        ] {
            assert_eq!(x86_register_kind(reg), kind, "{reg}");
        }
    }

    #[test]
    fn aarch64_registers_have_prefix_and_shape() {
        let isa = Isa::get(Arch::Aarch64);
        let f = osaca_form(isa.instr("ADDv4i32").unwrap()).unwrap();
        assert_eq!(f.names, ["add"]);
        assert_eq!(
            serde_json::to_string(&f.operands[0]).unwrap(),
            r#"{"class":"register","prefix":"v","shape":"s","lanes":"4"}"#
        );
        let f = osaca_form(isa.instr("ADDXri").unwrap());
        // add x, x, #imm{, lsl #sh}: the shift is a complex operand.
        if let Ok(f) = f {
            assert_eq!(f.operands.len(), 3);
        }
        let f = osaca_form(isa.instr("FADDDrr").unwrap()).unwrap();
        assert_eq!(
            spelled(&f),
            r#"{"class":"register","prefix":"d"} {"class":"register","prefix":"d"} {"class":"register","prefix":"d"}"#
        );
        assert!(osaca_form(Isa::get(Arch::Riscv64).instr("ADD").unwrap()).is_err());
    }
}
