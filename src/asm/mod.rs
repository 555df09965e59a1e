//! winic's own assembler, for manual mode (`winic MAN`) and for reading
//! back the kernels `--dump-asm` writes: assembly files in the syntax winic
//! prints (Intel with `.intel_syntax noprefix` on x86), turned into machine
//! code by the tables and the encoders — no external assembler.
//!
//! Accepted: instructions of every register/immediate form ([`matcher`]);
//! labels, and branches to them ([`crate::arch::AsmDialect::branch`]:
//! x86 `jmp`/`jcc`, AArch64 `b`, `b.cond`, `cbz`/`cbnz`, RISC-V B-type,
//! their pseudo-instructions and `j`/`jal`), relaxed to the shortest encoding
//! that reaches; the directives `.text`, `.section`, `.globl`/`.global`,
//! `.type`, `.size`, `.align`/`.p2align`/`.balign`, `.rept N`/`.endr`,
//! `.intel_syntax noprefix`; comments `/* */`, `//` and `#` (on AArch64 only
//! at the start of a line, where `#` does not mark an immediate); and
//! `#define NAME text`. Anything else is an error at file:line:column with
//! the offending text and, for an instruction, the nearest valid forms.

pub mod matcher;
pub mod tokens;

use crate::arch::{Dialect, Target};
use std::fmt;

/// An assembled file.
#[derive(Clone, Debug)]
pub struct Program {
    /// The machine code, from offset 0 (the file's first instruction).
    pub code: Vec<u8>,
    /// Every label with its offset in `code`.
    pub labels: Vec<(String, usize)>,
    /// Every instruction: source line, offset, text as written, bytes.
    pub listing: Vec<Placed>,
}

impl Program {
    /// The offset of label `name`.
    pub fn label(&self, name: &str) -> Option<usize> {
        self.labels.iter().find(|(l, _)| l == name).map(|(_, o)| *o)
    }
}

/// One assembled instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Line in the source file (1-based).
    pub line: usize,
    /// Offset in the code.
    pub offset: usize,
    /// The statement as written (after `#define` substitution).
    pub text: String,
    /// Its encoding.
    pub bytes: Vec<u8>,
}

/// An error in an assembly file, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The file's name as given.
    pub file: String,
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based) of the offending text.
    pub col: usize,
    /// The source line.
    pub source: String,
    /// What is wrong.
    pub message: String,
    /// The nearest valid instructions, for an instruction winic cannot
    /// read.
    pub nearest: Vec<String>,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )?;
        writeln!(f, "    {}", self.source.trim_end())?;
        write!(f, "    {}^", " ".repeat(self.col.saturating_sub(1)))?;
        if !self.nearest.is_empty() {
            write!(f, "\n  nearest valid forms:")?;
            for n in &self.nearest {
                write!(f, "\n    {n}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for AsmError {}

/// A statement after comments, `#define`s and `.rept` are resolved.
#[derive(Clone, Debug)]
struct Stmt {
    line: usize,
    col: usize,
    text: String,
}

/// Where an error is: built by the passes, finished by `at`.
struct Src<'a> {
    file: &'a str,
    lines: Vec<&'a str>,
}

impl Src<'_> {
    fn err(&self, line: usize, col: usize, message: impl Into<String>) -> AsmError {
        AsmError {
            file: self.file.to_string(),
            line,
            col: col.max(1),
            source: self.lines.get(line - 1).copied().unwrap_or("").to_string(),
            message: message.into(),
            nearest: Vec::new(),
        }
    }

    /// The column of `text` in line `line` (1 if not found).
    fn col_of(&self, line: usize, text: &str) -> usize {
        let src = self.lines.get(line - 1).copied().unwrap_or("");
        let needle = text.trim();
        if needle.is_empty() {
            return 1;
        }
        src.find(needle).map_or(1, |c| c + 1)
    }
}

/// Assembles `source` (named `file` in errors) for target `t`.
pub fn assemble(t: &dyn Target, file: &str, source: &str) -> Result<Program, AsmError> {
    let src = Src {
        file,
        lines: source.lines().collect(),
    };
    let stmts = preprocess(t.dialect(), &src, source)?;
    let items = parse(t, &src, &stmts)?;
    layout(t, &src, items)
}

/// The most statements a file may have once its `.rept` blocks are
/// expanded: more kernel than any measurement needs, and a bound on the
/// memory (`.rept 100000` nested three deep would ask for gigabytes).
pub const MAX_STATEMENTS: usize = 1_000_000;

/// Comments removed, `#define`s substituted, `.rept` blocks expanded:
/// one statement per non-empty line.
fn preprocess(d: Dialect, src: &Src, source: &str) -> Result<Vec<Stmt>, AsmError> {
    let text = strip_block_comments(src, source)?;
    let mut defines: Vec<(String, String)> = Vec::new();
    let mut out: Vec<Stmt> = Vec::new();
    // Open `.rept` blocks: (count, line of the `.rept`, statements).
    let mut repts: Vec<(usize, usize, Vec<Stmt>)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            match word.as_str() {
                "define" => {
                    let body = strip_line_comment(d, &rest[6..], true);
                    let body = body.trim();
                    let name: String = body
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                        return Err(src.err(
                            line,
                            src.col_of(line, "#define"),
                            "#define needs a name: `#define NAME text`",
                        ));
                    }
                    let value = apply_defines(&defines, body[name.len()..].trim());
                    defines.retain(|(n, _)| *n != name);
                    defines.push((name, value));
                    continue;
                }
                "include" | "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" | "undef"
                | "pragma" | "error" => {
                    return Err(src.err(
                        line,
                        src.col_of(line, "#"),
                        format!("preprocessor directive `#{word}` is not supported (winic accepts `#define NAME text`)"),
                    ));
                }
                // `#` at the start of a line is a comment on every arch.
                _ => continue,
            }
        }
        let code = strip_line_comment(d, raw, false);
        if code.trim().is_empty() {
            continue;
        }
        let text = apply_defines(&defines, code.trim());
        let col = raw.len() - raw.trim_start().len() + 1;
        // Labels before a `.rept`/`.endr` are statements of their own.
        let (labels, rest) = split_labels(&text);
        let mut stmt = Stmt {
            line,
            col,
            text: text.clone(),
        };
        if !labels.is_empty() && rest.starts_with('.') {
            let label = Stmt {
                line,
                col,
                text: labels.iter().map(|l| format!("{l}:")).collect::<String>(),
            };
            match repts.last_mut() {
                Some((_, _, b)) => b.push(label),
                None => out.push(label),
            }
            stmt = Stmt {
                line,
                col: src.col_of(line, rest),
                text: rest.to_string(),
            };
        }
        let lower = stmt.text.to_ascii_lowercase();
        let word = lower.split_whitespace().next().unwrap_or("");
        if word == ".rept" {
            let arg = stmt.text[5..].trim();
            let n = constant(arg)
                .filter(|n| (0..=1_000_000).contains(n))
                .ok_or_else(|| {
                    src.err(
                        line,
                        src.col_of(line, arg),
                        format!("`.rept {arg}`: give a count from 0 to 1000000"),
                    )
                })?;
            repts.push((n as usize, line, Vec::new()));
            continue;
        }
        if word == ".endr" {
            let (n, rept_line, body) = repts
                .pop()
                .ok_or_else(|| src.err(line, col, "`.endr` without `.rept`"))?;
            let target = match repts.last_mut() {
                Some((_, _, b)) => b,
                None => &mut out,
            };
            // Checked before anything is allocated: nested blocks multiply
            // (the inner block's expansion is this block's body).
            let (b, before) = (body.len(), target.len());
            let total = n as u128 * b as u128 + before as u128;
            if total > MAX_STATEMENTS as u128 {
                let before = match before {
                    0 => String::new(),
                    k => format!(" + {k} before it"),
                };
                return Err(src.err(
                    rept_line,
                    src.col_of(rept_line, ".rept"),
                    format!(
                        "`.rept {n}` (to the `.endr` of line {line}) repeats {b} statements (nested \
                         blocks expanded): {n} × {b}{before} = {total} statements, more than the \
                         {MAX_STATEMENTS} winic assembles after expansion"
                    ),
                ));
            }
            target.reserve(n * body.len());
            for _ in 0..n {
                target.extend(body.iter().cloned());
            }
            continue;
        }
        match repts.last_mut() {
            Some((_, _, b)) => b.push(stmt),
            None => out.push(stmt),
        }
    }
    if let Some((_, line, _)) = repts.last() {
        return Err(src.err(*line, src.col_of(*line, ".rept"), "`.rept` without `.endr`"));
    }
    Ok(out)
}

/// `source` with every `/* … */` replaced by spaces (line breaks kept, so
/// lines and columns stay).
fn strip_block_comments(src: &Src, source: &str) -> Result<String, AsmError> {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start + 2..].find("*/") else {
            let line = source[..source.len() - rest.len() + start]
                .matches('\n')
                .count()
                + 1;
            return Err(src.err(line, src.col_of(line, "/*"), "`/*` comment is never closed"));
        };
        let comment = &rest[start..start + 2 + len + 2];
        out.extend(comment.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `line` without a trailing `//` comment, or `#` comment where the
/// dialect has them (never inside a string).
fn strip_line_comment(d: Dialect, line: &str, in_define: bool) -> String {
    let mut in_str = false;
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return line[..i].to_string(),
            b'#' if !in_str && (d.hash_comment_anywhere && !in_define) => {
                return line[..i].to_string()
            }
            _ => {}
        }
    }
    line.to_string()
}

/// `text` with every whole-word `#define` name replaced by its text.
fn apply_defines(defines: &[(String, String)], text: &str) -> String {
    if defines.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match defines.iter().rev().find(|(n, _)| n == word) {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// An integer constant expression (`4`, `0x10`, `12*8`).
fn constant(text: &str) -> Option<i128> {
    match tokens::tokens(text).as_slice() {
        [tokens::Tok::Num(n)] => Some(*n),
        _ => None,
    }
}

/// What a statement becomes before layout.
#[derive(Clone, Debug)]
enum Item {
    Label(String),
    Code {
        stmt: Stmt,
        bytes: Vec<u8>,
    },
    Branch {
        stmt: Stmt,
        mnemonic: String,
        operands: Vec<String>,
        label: String,
    },
    /// Padding to a multiple of `bytes`: no-ops, or `fill` where the
    /// directive gives a value, and none at all where more than `max`
    /// bytes would be needed (GNU as's third operand: gcc's `.p2align
    /// 4,,10` before a loop).
    Align {
        bytes: usize,
        fill: Option<u8>,
        max: Option<usize>,
    },
}

fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '$'))
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
}

/// Leading `label:`s of a statement, and the rest.
fn split_labels(text: &str) -> (Vec<String>, &str) {
    let mut labels = Vec::new();
    let mut rest = text.trim();
    while let Some(p) = rest.find(':') {
        let name = rest[..p].trim();
        if !is_ident(name) {
            break;
        }
        labels.push(name.to_string());
        rest = rest[p + 1..].trim();
    }
    (labels, rest)
}

/// Operands split at top-level commas.
fn split_operands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in text.chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

const DIRECTIVES: &str = ".text, .section, .globl, .global, .type, .size, .align, .p2align, \
                          .balign, .rept, .endr, .file, .ident, .intel_syntax noprefix";

fn parse(t: &dyn Target, src: &Src, stmts: &[Stmt]) -> Result<Vec<Item>, AsmError> {
    let d = t.dialect();
    // Labels first: a branch may jump forward.
    let mut labels: Vec<String> = Vec::new();
    for s in stmts {
        for l in split_labels(&s.text).0 {
            if labels.contains(&l) {
                return Err(src.err(
                    s.line,
                    src.col_of(s.line, &l),
                    format!("label `{l}` is defined twice"),
                ));
            }
            labels.push(l);
        }
    }
    let mut items = Vec::new();
    let mut in_text = true;
    let mut syntax_seen = d.syntax.is_none();
    // Instructions already assembled (`.rept` bodies repeat them).
    let mut seen: Vec<(String, Vec<u8>)> = Vec::new();
    for s in stmts {
        let (ls, rest) = split_labels(&s.text);
        items.extend(ls.into_iter().map(Item::Label));
        if rest.is_empty() {
            continue;
        }
        let col = src.col_of(s.line, rest);
        if let Some(name) = rest.strip_suffix(':') {
            return Err(src.err(s.line, col, format!("`{name}` is no label winic accepts: a label is a name of letters, digits, `_`, `.` and `$`, not starting with a digit (numeric local labels such as `1:` are not supported)")));
        }
        let stmt = Stmt {
            line: s.line,
            col,
            text: rest.to_string(),
        };
        let (word, args) = match rest.find(char::is_whitespace) {
            Some(p) => (&rest[..p], rest[p..].trim()),
            None => (rest, ""),
        };
        let lower = word.to_ascii_lowercase();
        if lower.starts_with('.') {
            match lower.as_str() {
                ".text" => in_text = true,
                ".section" => {
                    let name = split_operands(args).into_iter().next().unwrap_or_default();
                    in_text = name.starts_with(".text");
                }
                ".globl" | ".global" if is_ident(args) => {}
                // What gcc writes about the source and itself.
                ".file" | ".ident" => {}
                w if d.isa_directives.contains(&w) => {}
                ".type" | ".size" if split_operands(args).len() == 2 => {}
                ".intel_syntax" => match (d.syntax, args) {
                    (Some(_), "noprefix") => syntax_seen = true,
                    (Some(_), _) => {
                        return Err(src.err(s.line, col, format!("`.intel_syntax {args}`: winic reads `.intel_syntax noprefix` (registers without %)")))
                    }
                    (None, _) => {
                        return Err(src.err(s.line, col, "`.intel_syntax` is an x86 directive"))
                    }
                },
                ".att_syntax" => {
                    return Err(src.err(s.line, col, "winic reads Intel syntax: `.intel_syntax noprefix`, not AT&T"))
                }
                ".align" | ".p2align" | ".balign" => {
                    // `.p2align 4,,10`: the alignment, the fill (empty:
                    // no-ops) and the most bytes to skip.
                    let ops = split_operands(args);
                    let n = ops
                        .first()
                        .and_then(|a| constant(a))
                        .filter(|n| (0..=4096).contains(n))
                        .ok_or_else(|| src.err(s.line, col, format!("`{word} {args}`: give an alignment")))?;
                    let power = lower == ".p2align" || (lower == ".align" && d.align_is_power);
                    let bytes = if power {
                        if n > 12 {
                            return Err(src.err(s.line, col, format!("`{word} {n}`: at most 12 (4096 bytes)")));
                        }
                        1usize << n
                    } else {
                        n as usize
                    };
                    if bytes == 0 || !bytes.is_power_of_two() {
                        return Err(src.err(s.line, col, format!("`{word} {n}`: the alignment must be a power of two")));
                    }
                    let optional = |k: usize, what: &str, most: i128| -> Result<Option<i128>, AsmError> {
                        match ops.get(k).map(|a| a.trim()).filter(|a| !a.is_empty()) {
                            None => Ok(None),
                            Some(a) => constant(a).filter(|v| (0..=most).contains(v)).map(Some).ok_or_else(|| {
                                src.err(s.line, col, format!("`{word} {args}`: the {what} `{a}` is no number from 0 to {most}"))
                            }),
                        }
                    };
                    if ops.len() > 3 {
                        return Err(src.err(s.line, col, format!("`{word} {args}`: at most three operands (alignment, fill, most bytes to skip)")));
                    }
                    let fill = optional(1, "fill", 255)?.map(|v| v as u8);
                    let max = optional(2, "most bytes to skip", 4096)?.map(|v| v as usize);
                    items.push(Item::Align { bytes, fill, max });
                }
                _ => {
                    return Err(src.err(
                        s.line,
                        col,
                        format!(
                            "unknown or malformed directive `{rest}` (winic accepts {DIRECTIVES}{}{})",
                            if d.isa_directives.is_empty() { "" } else { ", " },
                            d.isa_directives.join(", ")
                        ),
                    ))
                }
            }
            continue;
        }
        if !in_text {
            return Err(src.err(
                s.line,
                col,
                "instructions outside .text: winic assembles code sections only",
            ));
        }
        if !syntax_seen {
            return Err(src.err(
                s.line,
                col,
                format!(
                    "`{}` must come before the first instruction (winic reads Intel syntax)",
                    d.syntax.unwrap_or_default()
                ),
            ));
        }
        let operands = split_operands(args);
        if let Some(last) = operands.last() {
            if is_ident(last) && crate::arch::reg_named(t.arch(), last).is_none() {
                if let Some(check) = t.branch(&lower, &refs(&operands), 0, false) {
                    if !labels.contains(last) {
                        return Err(src.err(
                            s.line,
                            src.col_of(s.line, last),
                            format!("undefined label `{last}`"),
                        ));
                    }
                    check.map_err(|e| src.err(s.line, col, format!("{e}")))?;
                    items.push(Item::Branch {
                        stmt,
                        mnemonic: lower,
                        label: last.clone(),
                        operands,
                    });
                    continue;
                }
            }
        }
        // A pseudo-instruction of the ISA manual is read as what it
        // stands for.
        let expanded = (d.pseudo)(&lower, &refs(&operands));
        // It may stand for several (RISC-V `li` of a wide value): one
        // instruction a line, their bytes one item.
        let mut bytes = Vec::new();
        for rest in expanded.as_deref().unwrap_or(rest).lines() {
            if let Some((_, b)) = seen.iter().find(|(text, _)| text == rest) {
                bytes.extend_from_slice(b);
                continue;
            }
            let inst = matcher::parse(t, rest).map_err(|e| AsmError {
                nearest: e.nearest,
                ..src.err(
                    s.line,
                    col,
                    format!("cannot assemble `{rest}`: {}", e.reason),
                )
            })?;
            let line = crate::kernel::emit(t, &inst)
                .map_err(|e| src.err(s.line, col, format!("`{rest}`: {e}")))?;
            seen.push((rest.to_string(), line.bytes.clone()));
            bytes.extend(line.bytes);
        }
        items.push(Item::Code { stmt, bytes });
    }
    Ok(items)
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Places the items, relaxing branches: every branch starts in its
/// shortest encoding and grows when its label is out of reach, until
/// nothing changes.
fn layout(t: &dyn Target, src: &Src, items: Vec<Item>) -> Result<Program, AsmError> {
    let nop = t
        .nop()
        .and_then(|n| t.encode(&n))
        .map_err(|e| src.err(1, 1, format!("no nop for alignment: {e}")))?;
    let n = items.len();
    let mut long = vec![false; n];
    let mut size: Vec<usize> = vec![0; n];
    for (i, it) in items.iter().enumerate() {
        if let Item::Code { bytes, .. } = it {
            size[i] = bytes.len();
        }
    }
    loop {
        // Offsets with the current sizes (alignment padding depends on
        // where an item lands).
        let mut offsets = vec![0usize; n];
        let mut labels: Vec<(String, usize)> = Vec::new();
        let mut at = 0usize;
        for (i, it) in items.iter().enumerate() {
            offsets[i] = at;
            match it {
                Item::Label(l) => labels.push((l.clone(), at)),
                Item::Align { bytes, max, .. } => {
                    let pad = (bytes - at % bytes) % bytes;
                    size[i] = if max.is_some_and(|m| pad > m) { 0 } else { pad };
                }
                _ => {}
            }
            at += size[i];
        }
        let mut changed = false;
        let mut encoded: Vec<Vec<u8>> = vec![Vec::new(); n];
        for (i, it) in items.iter().enumerate() {
            let Item::Branch {
                stmt,
                mnemonic,
                operands,
                label,
            } = it
            else {
                continue;
            };
            let target = labels
                .iter()
                .find(|(l, _)| l == label)
                .map_or(0, |(_, o)| *o);
            let offset = target as i64 - offsets[i] as i64;
            let enc = |long: bool| {
                t.branch(mnemonic, &refs(operands), offset, long)
                    .unwrap_or_else(|| Err(crate::arch::EncodeError::Unsupported(mnemonic.clone())))
                    .map_err(|e| src.err(stmt.line, stmt.col, format!("`{}`: {e}", stmt.text)))
            };
            let mut bytes = enc(long[i])?;
            // Sizes only grow, so the relaxation ends: a branch that would
            // shrink back stays in its long encoding.
            if bytes.len() < size[i] {
                long[i] = true;
                bytes = enc(true)?;
            }
            if bytes.len() > size[i] {
                size[i] = bytes.len();
                changed = true;
            }
            encoded[i] = bytes;
        }
        if changed {
            continue;
        }
        let mut code = Vec::with_capacity(at);
        let mut listing = Vec::new();
        for (i, it) in items.iter().enumerate() {
            let (stmt, bytes) = match it {
                Item::Code { stmt, bytes } => (stmt, bytes.clone()),
                Item::Branch { stmt, .. } => (stmt, encoded[i].clone()),
                Item::Align { fill, .. } => {
                    for k in 0..size[i] {
                        code.push(fill.unwrap_or(nop[k % nop.len()]));
                    }
                    continue;
                }
                Item::Label(_) => continue,
            };
            listing.push(Placed {
                line: stmt.line,
                offset: code.len(),
                text: stmt.text.clone(),
                bytes: bytes.clone(),
            });
            code.extend(bytes);
        }
        return Ok(Program {
            code,
            labels,
            listing,
        });
    }
}

#[cfg(test)]
mod tests;
