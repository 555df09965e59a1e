//! Ports for a form the base does not name exactly, so that the export
//! writes no form without port pressure (OSACA counts such a form as
//! costing nothing: one `vmaskmovps` store measured at 12 cycles made a
//! loop predicted at 1.0 run at 12.8).
//!
//! In order: a base form OSACA itself would match (its operands written
//! with wildcards: `name: '*'`, as `zen4.yml` writes `cmp`); the base
//! form of the same name whose operands are nearest; the ports the
//! base's forms of the same register kind use most. Each is fitted to
//! winic's throughput with the form's own loads and stores
//! ([`super::memory::fit`]).

use super::{form_operands, operand_key, Candidate};
use serde_yaml::{Mapping, Value};
use std::collections::HashMap;

/// Where an added form's ports came from, for the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A base form whose wildcard operands match it.
    Wildcard,
    /// The base form of the same name with the nearest operands.
    SameName,
    /// The ports the base's forms of its register kind use most.
    Kind,
}

/// The indices of `names` (the base's forms, the exported candidates) by
/// lower-case name, in order.
pub(super) fn by_name<'n>(names: impl Iterator<Item = &'n str>) -> HashMap<String, Vec<usize>> {
    let mut by: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, n) in names.enumerate() {
        by.entry(n.to_lowercase()).or_default().push(i);
    }
    by
}

/// One operand's fields as `key=value` pairs ([`operand_key`]).
fn fields(op: &Value) -> Vec<(String, String)> {
    operand_key(op)
        .split(';')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Whether base operand `base` matches `ours` as OSACA matches: every
/// field the base names is ours too, or `*`.
fn matches(base: &Value, ours: &Value) -> bool {
    let ours = fields(ours);
    fields(base)
        .iter()
        .all(|(k, v)| v == "*" || ours.iter().any(|(ok, ov)| ok == k && ov == v))
}

/// Whether base form `f` gives ports.
fn has_ports(f: &Mapping) -> bool {
    f.get("port_pressure")
        .and_then(Value::as_sequence)
        .is_some_and(|p| !p.is_empty())
}

/// The base form with `c`'s name, with ports, whose operands match `c`'s
/// with wildcards, if any.
pub(super) fn wildcard<'b>(
    forms: &'b [Mapping],
    by_name: &HashMap<String, Vec<usize>>,
    c: &Candidate,
) -> Option<&'b Mapping> {
    by_name.get(&c.name.to_lowercase())?.iter().find_map(|&i| {
        let ops = form_operands(&forms[i]);
        let alike = ops.len() == c.operands.len()
            && ops.iter().zip(&c.operands).all(|(b, o)| matches(b, o));
        (alike && has_ports(&forms[i])).then_some(&forms[i])
    })
}

/// The base form with `c`'s name and the most operands of `c`'s classes
/// in place (the same count first), if the base has the name.
pub(super) fn same_name<'b>(
    forms: &'b [Mapping],
    by_name: &HashMap<String, Vec<usize>>,
    c: &Candidate,
) -> Option<&'b Mapping> {
    let class = |o: &Value| o.get("class").and_then(Value::as_str).map(str::to_string);
    by_name
        .get(&c.name.to_lowercase())?
        .iter()
        .map(|&i| &forms[i])
        .filter(|f| has_ports(f))
        .max_by_key(|f| {
            let ops = form_operands(f);
            let alike = ops
                .iter()
                .zip(&c.operands)
                .filter(|(a, b)| class(a) == class(b))
                .count();
            (ops.len() == c.operands.len(), alike)
        })
}

/// The register kind of an operand list: its first register's `name`
/// (`gpr`, `xmm`, …) or `prefix` (AArch64's `x`, `v`, …).
pub(super) fn kind(operands: &[Value]) -> Option<String> {
    super::memory::register_names(operands)
        .next()
        .map(str::to_lowercase)
}

/// Per register kind, the port set of the base's one-item pressures that
/// most of its forms of that kind use, as `[[1, ports]]`; under the kind
/// `""`, the set most forms of any kind use (for a form with no register
/// operand: `cwd`, `lahf`, a fence).
pub(super) fn kind_ports(forms: &[Mapping], memory: &[Value]) -> HashMap<String, Value> {
    let mut counts: HashMap<String, HashMap<String, (usize, Value)>> = HashMap::new();
    for f in forms {
        let Some(k) = kind(&form_operands(f)) else {
            continue;
        };
        let Some(pp) = f.get("port_pressure") else {
            continue;
        };
        let (op, _) = super::memory::split(pp, memory);
        let [item] = op.as_slice() else {
            continue;
        };
        let Some(ports) = item.as_sequence().and_then(|p| p.get(1)) else {
            continue;
        };
        for k in [k, String::new()] {
            let slot = counts
                .entry(k)
                .or_default()
                .entry(super::yaml::flow(ports))
                .or_insert((0, ports.clone()));
            slot.0 += 1;
        }
    }
    counts
        .into_iter()
        .filter_map(|(k, sets)| {
            let (_, ports) = sets
                .into_iter()
                .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(&a.0)))?
                .1;
            Some((
                k,
                Value::Sequence(vec![Value::Sequence(vec![super::num(1.0), ports])]),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Value {
        serde_yaml::from_str(s).unwrap()
    }

    #[test]
    fn a_wildcard_register_matches_any_register() {
        assert!(matches(
            &v("{class: register, name: '*'}"),
            &v("{class: register, name: gpr}")
        ));
        assert!(!matches(
            &v("{class: register, name: xmm}"),
            &v("{class: register, name: gpr}")
        ));
        assert!(!matches(
            &v("{class: register, name: '*'}"),
            &v("{class: immediate, imd: int}")
        ));
        assert!(matches(
            &v("{class: memory, base: '*', offset: '*', index: '*', scale: '*'}"),
            &v("{class: memory, base: gpr, offset: imd, index: ~, scale: 1}")
        ));
    }

    #[test]
    fn the_usual_ports_of_a_kind_are_those_most_forms_of_it_use() {
        let forms: Vec<Mapping> = serde_yaml::from_str(
            "[{name: a, operands: [{class: register, name: gpr}], port_pressure: [[1, '0123']]},
              {name: b, operands: [{class: register, name: gpr}], port_pressure: [[1, '0123']]},
              {name: c, operands: [{class: register, name: gpr}], port_pressure: [[1, '1']]},
              {name: d, operands: [{class: register, name: zmm}], port_pressure: [[2, ['9', '11']]]}]",
        )
        .unwrap();
        let k = kind_ports(&forms, &[]);
        assert_eq!(k["gpr"], v("[[1.0, '0123']]"));
        assert_eq!(k["zmm"], v("[[1.0, ['9', '11']]]"));
        assert_eq!(k[""], v("[[1.0, '0123']]"));
    }
}
