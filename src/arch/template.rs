//! Expanding an `AsmString` template (`add $Rd, $Rn, ${imm:shift}`) into
//! text, with each operand printed by the arch's print methods.

use super::EncodeError;
use crate::isa::{Instr, Operand};

/// `form`'s assembly template with every `$name` / `${name:modifier}`
/// replaced by `print(operand)`, and tabs turned into spaces.
pub fn expand(
    form: &Instr,
    mut print: impl FnMut(Operand) -> Result<String, EncodeError>,
) -> Result<String, EncodeError> {
    expand_names(form, &form.asm_template(), |name| {
        let op = form.operand(name).ok_or_else(|| {
            EncodeError::Unsupported(format!(
                "{}: printer: ${name} names no operand",
                form.name()
            ))
        })?;
        print(op)
    })
}

/// `tpl` (a template of `form`'s or of one of its aliases) with every
/// `$name` / `${name:modifier}` replaced by `print(name)`, and tabs turned
/// into spaces.
pub fn expand_names(
    form: &Instr,
    tpl: &str,
    mut print: impl FnMut(&str) -> Result<String, EncodeError>,
) -> Result<String, EncodeError> {
    let unsupported =
        |msg: &str| EncodeError::Unsupported(format!("{}: printer: {msg}", form.name()));
    let mut out = String::with_capacity(tpl.len() + 16);
    let b = tpl.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            let next = tpl[i..].find('$').map_or(b.len(), |p| i + p);
            out.push_str(&tpl[i..next]);
            i = next;
            continue;
        }
        let (name, end) = if b.get(i + 1) == Some(&b'{') {
            let close = tpl[i..]
                .find('}')
                .map(|p| i + p)
                .ok_or_else(|| unsupported("unclosed ${"))?;
            let inner = &tpl[i + 2..close];
            (inner.split(':').next().unwrap_or(inner), close + 1)
        } else {
            let len = tpl[i + 1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(b.len() - i - 1);
            (&tpl[i + 1..i + 1 + len], i + 1 + len)
        };
        out.push_str(&print(name)?);
        i = end;
    }
    Ok(out.replace('\t', " "))
}
