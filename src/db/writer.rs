//! The YAML writer: the database laid out as LLVM's `yaml::Output` lays
//! out WINIC's files (keys padded to column 17, numbers as C's `%g`,
//! strings quoted as LLVM's `needsQuotes` decides), so that a file WINIC
//! wrote comes back byte for byte.

use super::{Database, Measured};
use std::io::{self, Write};

impl Database {
    /// Writes the database as WINIC (LLVM's `yaml::Output`) writes it.
    pub fn write_yaml(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "---")?;
        if self.entries.is_empty() {
            writeln!(out, "[]")?;
        }
        for e in &self.entries {
            field(out, "- ", "llvmName", &quote(&e.llvm_name))?;
            field(out, "  ", "name", &quote(&e.name))?;
            if e.operands.is_empty() {
                field(out, "  ", "operands", "[]")?;
            } else {
                writeln!(out, "  operands:")?;
            }
            for o in &e.operands {
                field(out, "    - ", "class", &quote(&o.class))?;
                if let Some(name) = &o.name {
                    field(out, "      ", "name", &quote(name))?;
                }
                if let Some(imd) = &o.imd {
                    field(out, "      ", "imd", &quote(imd))?;
                }
                for (key, part) in [
                    ("base", &o.base),
                    ("offset", &o.offset),
                    ("index", &o.index),
                ] {
                    if let Some(part) = part {
                        field(out, "      ", key, &quote(part))?;
                    }
                }
                if let Some(scale) = o.scale {
                    field(out, "      ", "scale", &scale.to_string())?;
                }
                field(out, "      ", "read", &o.read.to_string())?;
                field(out, "      ", "write", &o.write.to_string())?;
            }
            // WINIC's order: latencies first.
            write_latencies(out, "  ", &e.measured)?;
            write_throughputs(out, "  ", &e.measured)?;
            if let Some(v) = &e.vector_state {
                field(out, "  ", "vectorState", &quote(v))?;
            }
            if !e.vector_configs.is_empty() {
                writeln!(out, "  vectorConfigs:")?;
            }
            for c in &e.vector_configs {
                field(out, "    - ", "sew", &c.sew.to_string())?;
                field(out, "      ", "lmul", &quote(&c.lmul))?;
                // winic's addition: throughputs first, as it always wrote them.
                write_throughputs(out, "      ", &c.measured)?;
                write_latencies(out, "      ", &c.measured)?;
            }
            if !e.inferred_ports.is_empty() {
                writeln!(out, "  inferredPorts:")?;
            }
            for u in &e.inferred_ports {
                let ports: Vec<String> = u.ports.iter().map(|p| quote(p)).collect();
                field(out, "    - ", "cycles", &format_g(u.cycles))?;
                field(out, "      ", "ports", &format!("[ {} ]", ports.join(", ")))?;
            }
            if let Some(misfit) = e.inferred_ports_misfit {
                field(out, "  ", "inferredPortsMisfit", &format_g(misfit))?;
            }
            for (key, value) in [
                ("lineSplitThroughput", e.line_split_throughput),
                ("misalignedThroughput", e.misaligned_throughput),
                ("ownLineThroughput", e.own_line_throughput),
            ] {
                if let Some(v) = value {
                    field(out, "  ", key, &format_g(v))?;
                }
            }
            if !e.repeated.is_empty() {
                writeln!(out, "  repeated:")?;
            }
            for r in &e.repeated {
                field(out, "    - ", "bytes", &r.bytes.to_string())?;
                field(out, "      ", "cycles", &format_g(r.cycles))?;
            }
            if let Some(alone) = e.access_alone {
                field(out, "  ", "accessAlone", &alone.to_string())?;
            }
        }
        writeln!(out, "...")
    }

    /// The database as WINIC-format YAML text.
    pub fn to_yaml(&self) -> String {
        let mut out = Vec::new();
        self.write_yaml(&mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("the writer emits UTF-8 only")
    }
}

/// One `key: value` line: the key padded with blanks to column 17 after
/// `lead`, or followed by one blank if longer (LLVM's `Output::paddedKey`).
fn field(out: &mut impl Write, lead: &str, key: &str, value: &str) -> io::Result<()> {
    let pad = 16usize.saturating_sub(key.len()).max(1);
    writeln!(out, "{lead}{key}:{:pad$}{value}", "")
}

/// `throughput`, `throughputMin` and `throughputMax` at `indent` (an
/// entry's, or a vector config's).
fn write_throughputs(out: &mut impl Write, indent: &str, m: &Measured) -> io::Result<()> {
    field(out, indent, "throughput", &number(m.throughput))?;
    field(out, indent, "throughputMin", &number(m.throughput_min))?;
    field(out, indent, "throughputMax", &number(m.throughput_max))
}

/// `latency` and `operandLatencies` at `indent` (an entry's, or a vector
/// config's).
fn write_latencies(out: &mut impl Write, indent: &str, m: &Measured) -> io::Result<()> {
    field(out, indent, "latency", &number(m.latency))?;
    let list = &m.operand_latencies;
    if list.is_empty() {
        return field(out, indent, "operandLatencies", "[]");
    }
    writeln!(out, "{indent}operandLatencies:")?;
    let (first, rest) = (format!("{indent}  - "), format!("{indent}    "));
    for l in list {
        field(out, &first, "sourceOperand", &quote(&l.source_operand))?;
        field(out, &rest, "targetOperand", &quote(&l.target_operand))?;
        field(out, &rest, "latencyMin", &number(l.latency_min))?;
        field(out, &rest, "latencyMax", &number(l.latency_max))?;
    }
    Ok(())
}

/// An optional number as WINIC writes it: `null`, or C's `%g`.
fn number(v: Option<f64>) -> String {
    match v {
        None => "null".into(),
        Some(v) => format_g(v),
    }
}

/// C's `printf("%g", v)`: six significant digits, trailing zeros removed,
/// exponent form below 1e-4 and from 1e6 on. NaN and infinities, which
/// `%g` would print as `nan`/`inf` (not YAML numbers), are `.nan`/`.inf`.
fn format_g(v: f64) -> String {
    if v.is_nan() {
        return ".nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    fn strip(s: &str) -> &str {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            s
        }
    }
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp) as usize;
        strip(&format!("{v:.decimals$}")).to_string()
    }
}

/// A string scalar quoted as LLVM's `needsQuotes` decides: plain when
/// safe, single quotes when it could be read as another type or holds an
/// indicator, double quotes for control characters and non-ASCII.
fn quote(s: &str) -> String {
    match quoting(s) {
        Quoting::None => s.to_string(),
        Quoting::Single => format!("'{}'", s.replace('\'', "''")),
        Quoting::Double => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x20 || c == '\u{7f}' => {
                        out.push_str(&format!("\\x{:02X}", c as u32))
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Quoting {
    None,
    Single,
    Double,
}

fn quoting(s: &str) -> Quoting {
    let Some(first) = s.bytes().next() else {
        return Quoting::Single;
    };
    let mut q = Quoting::None;
    let last = s.as_bytes()[s.len() - 1];
    let is_null = matches!(s, "null" | "Null" | "NULL" | "~");
    let is_bool = matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE");
    if first.is_ascii_whitespace() || last.is_ascii_whitespace() || is_null || is_bool {
        q = Quoting::Single;
    }
    if is_numeric(s) || br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&first) {
        q = Quoting::Single;
    }
    for c in s.bytes() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => {}
            b'_' | b'-' | b'^' | b'.' | b',' | b' ' => {}
            // LLVM writes a tab in a plain scalar raw (WINIC's `adc<TAB>ax,`),
            // which PyYAML refuses to read; quoted, every reader takes it.
            b'\t' => q = Quoting::Single,
            b'\n' | b'\r' | 0x7f => return Quoting::Double,
            c if c <= 0x1f || c & 0x80 != 0 => return Quoting::Double,
            _ => q = Quoting::Single,
        }
    }
    q
}

/// LLVM's `yaml::isNumeric`: YAML 1.2 integers, floats, `.inf`, `.nan`,
/// `0x`/`0o` literals.
fn is_numeric(s: &str) -> bool {
    fn skip_digits(t: &str) -> &str {
        t.trim_start_matches(|c: char| c.is_ascii_digit())
    }
    if s.is_empty() || s == "+" || s == "-" {
        return false;
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(tail, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(oct) = s.strip_prefix("0o") {
        return !oct.is_empty() && oct.bytes().all(|c| (b'0'..=b'7').contains(&c));
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return !hex.is_empty() && hex.bytes().all(|c| c.is_ascii_hexdigit());
    }
    if tail.starts_with('.') && tail.as_bytes().get(1).is_none_or(|c| !c.is_ascii_digit()) {
        return false;
    }
    if tail.starts_with(['e', 'E']) {
        return false;
    }
    let mut t = skip_digits(tail);
    if let Some(frac) = t.strip_prefix('.') {
        t = skip_digits(frac);
    }
    if t.is_empty() {
        return true;
    }
    let Some(exp) = t.strip_prefix(['e', 'E']) else {
        return false;
    };
    let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    !exp.is_empty() && skip_digits(exp).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::fixtures::{V2, X60};

    #[test]
    fn winic_files_parse_and_are_written_back_byte_for_byte() {
        for text in [X60, V2] {
            let db = Database::parse(text).unwrap();
            assert_eq!(db.to_yaml(), text);
            assert_eq!(Database::parse(&db.to_yaml()).unwrap(), db);
        }
        let x60 = Database::parse(X60).unwrap();
        let first = &x60.entries[0];
        assert_eq!(first.llvm_name, "ZEXT_H_RV64");
        assert_eq!(first.latency, Some(1.0));
        assert_eq!(first.throughput_max, Some(0.5));
        assert_eq!(first.operand_latencies[0].source_operand, "1");
        let v2 = Database::parse(V2).unwrap();
        let zip = v2.get("ZIP2v8i8").unwrap();
        assert_eq!(zip.operand_latencies[0].latency_min, None);
        assert_eq!(zip.operand_latencies[1].latency_max, Some(2.0));
        let fmla = v2.get("FMLAv4f32").unwrap();
        assert_eq!(
            fmla.operand_latencies.last().unwrap().source_operand,
            "FPCR"
        );
        assert_eq!(v2.get("PACM").unwrap().name, "hint\t#39");
        assert_eq!(v2.get("PACM").unwrap().latency, None);
    }

    #[test]
    fn empty_database_is_written_as_winic_writes_it() {
        let db = Database::default();
        assert_eq!(db.to_yaml(), "---\n[]\n...\n");
        assert_eq!(Database::parse(&db.to_yaml()).unwrap(), db);
        assert_eq!(Database::parse("").unwrap(), db);
    }

    #[test]
    fn numbers_print_like_printf_g() {
        let cases = [
            (1.0, "1"),
            (0.5, "0.5"),
            (0.33, "0.33"),
            (100.0, "100"),
            (1.0 / 3.0, "0.333333"),
            (123456.7, "123457"),
            (999999.5, "1e+06"),
            (1e6, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (2.5e-5, "2.5e-05"),
            (-2.0, "-2"),
            (0.0, "0"),
        ];
        for (v, s) in cases {
            assert_eq!(format_g(v), s, "{v}");
            assert_eq!(
                serde_yaml::from_str::<f64>(s).unwrap(),
                s.parse::<f64>().unwrap()
            );
        }
        assert_eq!(number(None), "null");
    }

    #[test]
    fn strings_are_quoted_like_llvm() {
        let cases = [
            ("GPR", "GPR"),
            ("zip2.8b", "zip2.8b"),
            ("1", "'1'"),
            ("0.5", "'0.5'"),
            ("1e5", "'1e5'"),
            ("true", "'true'"),
            ("null", "'null'"),
            ("", "''"),
            ("hint\t#39", "'hint\t#39'"),
            ("it's", "'it''s'"),
            ("-x", "'-x'"),
            ("a\nb", "\"a\\nb\""),
            ("rep movsb", "rep movsb"),
            ("adc\tax,", "'adc\tax,'"),
        ];
        for (s, q) in cases {
            assert_eq!(quote(s), q, "{s:?}");
            assert_eq!(serde_yaml::from_str::<String>(q).unwrap(), s, "{q}");
        }
    }
}
