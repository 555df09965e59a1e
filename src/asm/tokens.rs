//! Assembly text as tokens, for comparing what winic prints with what a
//! user wrote: words lowercased, numbers by value in any base (`#0x10` is
//! `#16`), constant expressions folded (`-12*8` is `-96`), white space
//! ignored.

use std::fmt;

/// One token of an instruction's text.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name: mnemonic, register, label, modifier (`x0`, `v0.2d`, `lsl`),
    /// lowercased.
    Word(String),
    /// An integer, by value.
    Num(i128),
    /// A floating-point literal (`#1.5`), by value.
    Float(f64),
    /// Any other character (`,`, `[`, `#`, `{` …).
    Punct(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "{w}"),
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Float(x) => write!(f, "{x}"),
            Tok::Punct(c) => write!(f, "{c}"),
        }
    }
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '@')
}

/// The tokens of `s`, with constant expressions folded.
pub fn tokens(s: &str) -> Vec<Tok> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // A minus is a sign when a number follows and no operand precedes.
        let sign = c == '-'
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            && !matches!(
                out.last(),
                Some(Tok::Word(_) | Tok::Num(_) | Tok::Float(_) | Tok::Punct(')' | ']'))
            );
        if c.is_ascii_digit() || sign {
            let start = i;
            i += 1;
            while i < chars.len() && word_char(chars[i]) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out.push(number(&text).unwrap_or(Tok::Word(text.to_ascii_lowercase())));
        } else if word_char(c) {
            let start = i;
            while i < chars.len() && word_char(chars[i]) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out.push(Tok::Word(text.to_ascii_lowercase()));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
        fold(&mut out);
    }
    out
}

/// `42`, `-42`, `0x2a`, `0b101`, `1.5`, `-0.25`, `1e3` as a token.
fn number(text: &str) -> Option<Tok> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text),
    };
    let lower = digits.to_ascii_lowercase();
    let int = if let Some(h) = lower.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok()
    } else {
        lower.parse::<i128>().ok()
    };
    if let Some(v) = int {
        return Some(Tok::Num(if neg { -v } else { v }));
    }
    let f: f64 = text.parse().ok()?;
    Some(Tok::Float(f))
}

/// Folds a constant expression that just ended at the top of `out`:
/// `a * b`, `a / b`, `a + b`, `a - b`, `a << b`, `a >> b` (left to right,
/// `*` and `/` before `+` and `-` as far as a left-to-right fold of
/// simple expressions allows), and `( a )` when the parenthesis is not an
/// operand's (`st(0)`, `8(sp)` stay).
fn fold(out: &mut Vec<Tok>) {
    loop {
        let n = out.len();
        if n >= 3 {
            if let (Tok::Num(a), Tok::Punct(op), Tok::Num(b)) =
                (&out[n - 3], &out[n - 2], &out[n - 1])
            {
                let (a, b) = (*a, *b);
                // `+` and `-` wait when a `*` might follow? A left-to-right
                // fold is exact for the expressions seen in kernel files
                // (`-12*8`, `16+8`); mixed precedence needs parentheses.
                let v = match op {
                    '*' => a.checked_mul(b),
                    '/' if b != 0 => Some(a / b),
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    _ => None,
                };
                if let Some(v) = v {
                    out.truncate(n - 3);
                    out.push(Tok::Num(v));
                    continue;
                }
            }
        }
        if n >= 4 {
            if let (Tok::Num(a), Tok::Punct(p), Tok::Punct(q), Tok::Num(b)) =
                (&out[n - 4], &out[n - 3], &out[n - 2], &out[n - 1])
            {
                let (a, b) = (*a, *b);
                let v = match (p, q) {
                    ('<', '<') if (0..127).contains(&b) => a.checked_shl(b as u32),
                    ('>', '>') if (0..127).contains(&b) => Some(a >> b),
                    _ => None,
                };
                if let Some(v) = v {
                    out.truncate(n - 4);
                    out.push(Tok::Num(v));
                    continue;
                }
            }
        }
        if n >= 3 {
            if let (Tok::Punct('('), Tok::Num(v), Tok::Punct(')')) =
                (&out[n - 3], &out[n - 2], &out[n - 1])
            {
                let operand_paren = n >= 4 && matches!(out[n - 4], Tok::Word(_) | Tok::Num(_));
                if !operand_paren {
                    let v = *v;
                    out.truncate(n - 3);
                    out.push(Tok::Num(v));
                    continue;
                }
            }
        }
        return;
    }
}

/// Whether two token lists say the same.
pub fn same(a: &[Tok], b: &[Tok]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_tok(x, y))
}

/// Whether two tokens say the same (floats within printing precision).
pub fn same_tok(a: &Tok, b: &Tok) -> bool {
    match (a, b) {
        (Tok::Float(x), Tok::Float(y)) => (x - y).abs() <= 1e-9 * x.abs().max(1.0),
        (Tok::Float(x), Tok::Num(n)) | (Tok::Num(n), Tok::Float(x)) => *x == *n as f64,
        // One bit pattern, signed or not (`and x0, x1, -4` is printed
        // `#0xfffffffffffffffc`; a W register's `-4` `#0xfffffffc`).
        (Tok::Num(x), Tok::Num(y)) if (*x < 0) != (*y < 0) => {
            let (neg, pos) = if *x < 0 { (*x, *y) } else { (*y, *x) };
            (neg >= -(1 << 63) && pos == neg + (1 << 64))
                || (neg >= -(1 << 31) && pos == neg + (1 << 32))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Tok::*;

    fn w(s: &str) -> Tok {
        Word(s.into())
    }

    #[test]
    fn registers_numbers_and_punctuation() {
        assert_eq!(
            tokens("add x0, x1, #0x10"),
            [
                w("add"),
                w("x0"),
                Punct(','),
                w("x1"),
                Punct(','),
                Punct('#'),
                Num(16)
            ]
        );
        assert_eq!(
            tokens("VADDPD zmm1 {k1} {z}, zmm2"),
            [
                w("vaddpd"),
                w("zmm1"),
                Punct('{'),
                w("k1"),
                Punct('}'),
                Punct('{'),
                w("z"),
                Punct('}'),
                Punct(','),
                w("zmm2")
            ]
        );
        assert_eq!(tokens("fmov d0, #1.5")[4], Float(1.5));
        assert_eq!(tokens("mov v0.2d, v1.2d")[1], w("v0.2d"));
    }

    #[test]
    fn signs_and_expressions() {
        assert_eq!(tokens("addi sp, sp, -12*8")[5], Num(-96));
        assert_eq!(tokens("stp x19, x20, [sp, -96]!")[8], Num(-96));
        assert_eq!(tokens("mov x0, 16 + 8")[3], Num(24));
        assert_eq!(tokens("mov x0, 1 << 4")[3], Num(16));
        assert_eq!(tokens("li a0, (4*2)")[3], Num(8));
        // A range of registers and the operand parentheses stay.
        assert_eq!(tokens("{ z0.h - z3.h }").len(), 5);
        assert_eq!(
            tokens("fld st(1)"),
            [w("fld"), w("st"), Punct('('), Num(1), Punct(')')]
        );
        assert_eq!(
            tokens("sd s0, 8(sp)")[3..],
            [Num(8), Punct('('), w("sp"), Punct(')')]
        );
        assert_eq!(tokens("vaddpd zmm1, zmm2, zmm3 {rn-sae}").len(), 11);
    }

    #[test]
    fn comparison_by_value() {
        assert!(same(
            &tokens("and x0, x1, #0xff"),
            &tokens("AND  x0,x1,#255")
        ));
        assert!(same(
            &tokens("fmov d0, #1.00000000"),
            &tokens("fmov d0, #1.0")
        ));
        assert!(!same(&tokens("add x0, x1, x2"), &tokens("add x0, x2, x1")));
    }

    #[test]
    fn a_negative_number_equals_its_bit_pattern() {
        assert!(same_tok(&Num(-4), &Num(0xffff_ffff_ffff_fffc)));
        assert!(same_tok(&Num(-4), &Num(0xffff_fffc)));
        assert!(!same_tok(&Num(-4), &Num(0xfffc)));
        assert!(!same_tok(&Num(4), &Num(0xffff_fffc)));
    }
}
