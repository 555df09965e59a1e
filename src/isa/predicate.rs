//! Evaluates the condition of an LLVM predicate (`(sve || sme) && i8mm`,
//! `zve64x && 64bit`, `!64bit`) against what a host reports, in three-valued
//! logic: a feature the host's source cannot report is neither present nor
//! absent, and a form needing it is left to the SIGILL net.

/// The outcome of a condition on one host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The host has what the condition asks.
    Has,
    /// The host lacks it: what is missing, as the condition writes it
    /// (`sve || sme`, `!64bit`), one entry per unmet conjunct.
    Lacks(Vec<String>),
    /// The answer depends on features the host's source cannot report
    /// (named).
    Unknown(Vec<String>),
}

/// What a host says of one feature: `Some(true)` has, `Some(false)` lacks,
/// `None` cannot tell.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<bool>;

/// Evaluates `cond` (the conditions of a form's predicates joined by `&&`,
/// as [`crate::isa::Instr::required_features`] gives them). A condition
/// winic cannot parse, or a C++ one (`?hasFusion()`), is `Unknown`.
pub fn eval(cond: &str, has: Lookup) -> Verdict {
    let tokens = tokens(cond);
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        has,
    };
    match p.or() {
        Some(v) if p.at == tokens.len() => v.verdict,
        _ => Verdict::Unknown(vec![cond.to_string()]),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

fn tokens(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {}
            '&' | '|' => {
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(if c == '&' { Token::And } else { Token::Or });
            }
            '!' => out.push(Token::Not),
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '?' => {
                // A C++ condition: `?hasConditionalMoveFusion()` up to its
                // closing parenthesis, kept whole as one unknown name.
                let mut name = String::from("?");
                for c in chars.by_ref() {
                    name.push(c);
                    if c == ')' {
                        break;
                    }
                }
                out.push(Token::Name(name));
            }
            c => {
                let mut name = String::from(c);
                while let Some(&c) = chars.peek() {
                    if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                        name.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Name(name));
            }
        }
    }
    out
}

/// A verdict with the text of the sub-expression it came from.
struct Value {
    verdict: Verdict,
    text: String,
}

struct Parser<'t, 'h> {
    tokens: &'t [Token],
    at: usize,
    has: Lookup<'h>,
}

impl Parser<'_, '_> {
    fn eat(&mut self, t: &Token) -> bool {
        let hit = self.tokens.get(self.at) == Some(t);
        self.at += usize::from(hit);
        hit
    }

    /// One operand by `next`, then more while `op` follows: the operands,
    /// and their texts joined by `sep`.
    fn list(
        &mut self,
        op: &Token,
        sep: &str,
        next: fn(&mut Self) -> Option<Value>,
    ) -> Option<(Vec<Value>, String)> {
        let mut terms = vec![next(self)?];
        while self.eat(op) {
            terms.push(next(self)?);
        }
        let text = terms
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(sep);
        Some((terms, text))
    }

    fn or(&mut self) -> Option<Value> {
        let (mut terms, text) = self.list(&Token::Or, " || ", Self::and)?;
        if terms.len() == 1 {
            return terms.pop();
        }
        let verdict = if terms.iter().any(|t| t.verdict == Verdict::Has) {
            Verdict::Has
        } else if terms
            .iter()
            .any(|t| matches!(t.verdict, Verdict::Unknown(_)))
        {
            Verdict::Unknown(unknowns(&terms))
        } else {
            Verdict::Lacks(vec![text.clone()])
        };
        Some(Value { verdict, text })
    }

    fn and(&mut self) -> Option<Value> {
        let (mut terms, text) = self.list(&Token::And, " && ", Self::not)?;
        if terms.len() == 1 {
            return terms.pop();
        }
        let lacking: Vec<String> = terms
            .iter()
            .filter_map(|t| match &t.verdict {
                Verdict::Lacks(m) => Some(m.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let verdict = if !lacking.is_empty() {
            Verdict::Lacks(lacking)
        } else if terms
            .iter()
            .any(|t| matches!(t.verdict, Verdict::Unknown(_)))
        {
            Verdict::Unknown(unknowns(&terms))
        } else {
            Verdict::Has
        };
        Some(Value { verdict, text })
    }

    fn not(&mut self) -> Option<Value> {
        if self.eat(&Token::Not) {
            let inner = self.not()?;
            let text = format!("!{}", inner.text);
            let verdict = match inner.verdict {
                Verdict::Has => Verdict::Lacks(vec![text.clone()]),
                Verdict::Lacks(_) => Verdict::Has,
                unknown => unknown,
            };
            return Some(Value { verdict, text });
        }
        if self.eat(&Token::Open) {
            let inner = self.or()?;
            if !self.eat(&Token::Close) {
                return None;
            }
            if !inner.text.contains(' ') {
                return Some(inner);
            }
            let text = format!("({})", inner.text);
            let verdict = match inner.verdict {
                Verdict::Lacks(m) if m == [inner.text.clone()] => {
                    Verdict::Lacks(vec![text.clone()])
                }
                v => v,
            };
            return Some(Value { verdict, text });
        }
        let Some(Token::Name(name)) = self.tokens.get(self.at) else {
            return None;
        };
        self.at += 1;
        let verdict = match (name.starts_with('?'), (self.has)(name)) {
            (false, Some(true)) => Verdict::Has,
            (false, Some(false)) => Verdict::Lacks(vec![name.clone()]),
            _ => Verdict::Unknown(vec![name.clone()]),
        };
        Some(Value {
            verdict,
            text: name.clone(),
        })
    }
}

fn unknowns(terms: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = terms
        .iter()
        .filter_map(|t| match &t.verdict {
            Verdict::Unknown(u) => Some(u.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(
        has: &'static [&'static str],
        unknown: &'static [&'static str],
    ) -> impl Fn(&str) -> Option<bool> {
        move |f| {
            if unknown.contains(&f) {
                None
            } else {
                Some(has.contains(&f))
            }
        }
    }

    #[test]
    fn conditions_evaluate_in_three_values_and_name_what_is_missing() {
        let n1 = host(&["neon", "fp-armv8", "lse", "64bit"], &["tme"]);
        let e = |c: &str| eval(c, &n1);
        assert_eq!(e("neon"), Verdict::Has);
        assert_eq!(
            e("(sve || sme)"),
            Verdict::Lacks(vec!["(sve || sme)".into()])
        );
        assert_eq!(
            e("(sve || sme) && i8mm && neon"),
            Verdict::Lacks(vec!["(sve || sme)".into(), "i8mm".into()])
        );
        assert_eq!(e("neon && tme"), Verdict::Unknown(vec!["tme".into()]));
        // A known absence decides an `&&` whatever the unknown part says.
        assert_eq!(e("tme && sve"), Verdict::Lacks(vec!["sve".into()]));
        // A known presence decides an `||`.
        assert_eq!(e("tme || neon"), Verdict::Has);
        assert_eq!(e("!64bit"), Verdict::Lacks(vec!["!64bit".into()]));
        assert_eq!(
            e("zdinx && !64bit"),
            Verdict::Lacks(vec!["zdinx".into(), "!64bit".into()])
        );
        assert_eq!(
            e("(c || zca) && !no-rvc-hints"),
            Verdict::Lacks(vec!["(c || zca)".into()])
        );
        assert_eq!(
            e("?hasConditionalMoveFusion()"),
            Verdict::Unknown(vec!["?hasConditionalMoveFusion()".into()])
        );
        // Not a condition: unknown, never a panic.
        assert!(matches!(e("(sve ||"), Verdict::Unknown(_)));
        assert!(matches!(e("sve sme"), Verdict::Unknown(_)));
    }
}
