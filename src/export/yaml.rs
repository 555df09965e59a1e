//! A small YAML writer for OSACA machine files: block style for the
//! file's lists of forms and operands, flow style inside (port pressure,
//! a gather's index), every string double-quoted (a JSON string is a YAML
//! one), so ports such as `'0246'` stay strings and nothing needs escaping
//! rules of its own.

use serde_yaml::Value;
use std::fmt::Write;

/// `v` in flow style on one line.
pub fn flow(v: &Value) -> String {
    match v {
        Value::Null => "~".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => serde_json::to_string(s).expect("a string serializes"),
        Value::Sequence(items) => {
            let inner: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Mapping(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), flow(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::Tagged(t) => flow(&t.value),
    }
}

/// A number as YAML reads it back: integers plain, floats in Rust's
/// shortest form that round-trips (`0.25`, `3`).
fn number(n: &serde_yaml::Number) -> String {
    if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
        if f.is_finite() {
            // `1.0`, not `1`: a float stays a float when read back.
            return if f.fract() == 0.0 && f.abs() < 1e15 {
                format!("{f:.1}")
            } else {
                format!("{f}")
            };
        }
        return "~".into();
    }
    n.to_string()
}

fn key(k: &Value) -> String {
    match k {
        Value::String(s)
            if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            s.clone()
        }
        other => flow(other),
    }
}

/// One entry of a list of mappings (`instruction_forms`) at column 0:
/// `- key: value` lines, a list of mappings under a key (`operands`) in
/// block style, everything deeper in flow style.
pub fn form_entry(out: &mut String, form: &serde_yaml::Mapping) {
    let mut first = true;
    for (k, v) in form {
        let lead = if first { "- " } else { "  " };
        first = false;
        match v {
            Value::Sequence(items)
                if !items.is_empty() && items.iter().all(|i| matches!(i, Value::Mapping(_))) =>
            {
                let _ = writeln!(out, "{lead}{}:", key(k));
                for item in items {
                    let Value::Mapping(m) = item else { continue };
                    let mut inner_first = true;
                    for (ik, iv) in m {
                        let l = if inner_first { "  - " } else { "    " };
                        inner_first = false;
                        let _ = writeln!(out, "{l}{}: {}", key(ik), flow(iv));
                    }
                    if m.is_empty() {
                        let _ = writeln!(out, "  - {{}}");
                    }
                }
            }
            _ => {
                let _ = writeln!(out, "{lead}{}: {}", key(k), flow(v));
            }
        }
    }
}

/// A top-level `key: value` line (flow style for lists and maps; a
/// multi-line string as a literal block).
pub fn top_level(out: &mut String, k: &str, v: &Value) {
    if let Value::String(s) = v {
        if s.contains('\n') {
            let _ = writeln!(out, "{k}: |");
            for line in s.lines() {
                let _ = writeln!(out, "  {line}");
            }
            return;
        }
    }
    let _ = writeln!(out, "{k}: {}", flow(v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms_parse_back_equal() {
        let text = r#"
- name: add
  operands:
  - class: register
    name: gpr
  - class: memory
    base: "*"
    offset: "*"
    index: {name: zmm}
    scale: "*"
  latency: 1
  throughput: 0.25
  port_pressure: [[1, '0246'], [0.5, ['1D', '3D']]]
  uops: ~
- name: jmp
  operands: []
  latency: 0.0
"#;
        let forms: Vec<Value> = serde_yaml::from_str(text).unwrap();
        let mut out = String::new();
        for f in &forms {
            form_entry(&mut out, f.as_mapping().unwrap());
        }
        let back: Vec<Value> = serde_yaml::from_str(&out).unwrap();
        assert_eq!(back, forms, "{out}");
        assert!(
            out.contains("port_pressure: [[1, \"0246\"], [0.5, [\"1D\", \"3D\"]]]"),
            "{out}"
        );
    }

    #[test]
    fn a_multi_line_string_is_a_literal_block() {
        let mut out = String::new();
        top_level(
            &mut out,
            "port_model_scheme",
            &Value::String("a\n  b\n".into()),
        );
        assert_eq!(out, "port_model_scheme: |\n  a\n    b\n");
        let v: serde_yaml::Mapping = serde_yaml::from_str(&out).unwrap();
        assert_eq!(v["port_model_scheme"], Value::String("a\n  b\n".into()));
    }
}
