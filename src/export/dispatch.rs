//! The core's dispatch slots as a port of the no-base export.
//!
//! OSACA predicts a loop's throughput from port pressure alone, so a loop
//! of cheap instructions spread over many ports is predicted faster than
//! the core can bring them in: seven instructions on Zen 3's ten ports at
//! 1.00 cycle where the front end and rename take six a cycle (1.17), and
//! the loop ran 1.20. No throughput of one form shows that bound; the
//! fastest form does: a form that writes a register, timed alone, runs at
//! most as many a cycle as the core renames (an eliminated `mov` or a
//! zero idiom still takes its slot), so its count a cycle is the width.
//! No-ops are left out: they write nothing, and Zen 3 ran 6.7 `nop` a
//! cycle where nothing that writes a register ran more than 6.
//!
//! Every exported form then takes 1/width of a cycle on [`PORT`], as
//! OSACA reads a port: a loop of n forms cannot be predicted below
//! n/width, and a form alone stays at its throughput (no form is faster
//! than the width). A form of several micro-ops takes one slot here, and
//! a branch none (winic exports no branch: a compare and branch fuse into
//! one slot on the cores measured), so the bound stays a lower bound.

use super::memory::{pair, round4};
use crate::db::Entry;
use crate::isa::Isa;
use serde_yaml::{Mapping, Value};

/// The port's name in the machine file's `ports` and in every form.
pub const PORT: &str = "D";

/// The instructions a cycle the core dispatches, as the fastest measured
/// form that writes a register shows it: `round(1/t)` of its reciprocal
/// throughput `t`, and the form (`MOV64rr`) with `t`. `None` without
/// such a form.
pub fn width<'a>(isa: &'static Isa, entries: impl Iterator<Item = &'a Entry>) -> Option<Width> {
    let fastest = entries
        .filter_map(|e| Some((e, e.throughput.filter(|t| *t > 0.0 && t.is_finite())?)))
        .filter(|(e, _)| {
            isa.instr(&e.llvm_name)
                .is_some_and(|f| f.operands().any(|o| o.is_def()))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.llvm_name.cmp(&b.0.llvm_name)))?;
    Some(Width {
        slots: ((1.0 / fastest.1).round() as usize).max(1),
        form: fastest.0.llvm_name.clone(),
        throughput: fastest.1,
    })
}

/// The core's dispatch width and the form it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Width {
    /// Instructions a cycle.
    pub slots: usize,
    /// The fastest form that writes a register.
    pub form: String,
    /// Its reciprocal throughput.
    pub throughput: f64,
}

impl Width {
    /// Adds the form's slot to its `port_pressure`.
    pub fn take_slot(&self, form: &mut Mapping) {
        let item = pair(round4(1.0 / self.slots as f64), &[PORT.to_string()]);
        let key = Value::from("port_pressure");
        match form.get_mut(&key) {
            Some(Value::Sequence(items)) => items.push(item),
            _ => {
                form.insert(key, Value::Sequence(vec![item]));
            }
        }
    }

    /// What the file's header says of it.
    pub fn note(&self) -> String {
        format!(
            "# {PORT}: the core's dispatch slots, {} instructions a cycle ({} ran {:.2} cycles an\n\
             #   instruction, the fastest form that writes a register); every form takes\n\
             #   1/{} cycle of it, so no loop is predicted faster than its instructions over\n\
             #   {} (branches are not exported: a compare and branch count once).\n",
            self.slots, self.form, self.throughput, self.slots, self.slots
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Arch;

    fn entry(name: &str, tp: f64) -> Entry {
        let mut e: Entry = serde_yaml::from_str(&format!("llvmName: {name}\nname: x\n")).unwrap();
        e.throughput = Some(tp);
        e
    }

    /// The width is the fastest form that writes a register; a faster
    /// no-op (it writes nothing) does not set it.
    #[test]
    fn the_width_is_the_fastest_form_that_writes_a_register() {
        let isa = Isa::get(Arch::X86_64);
        let entries = [
            entry("NOOP", 0.15),
            entry("MOV64rr", 0.17),
            entry("ADD64rr", 0.25),
        ];
        let w = width(isa, entries.iter()).unwrap();
        assert_eq!((w.slots, w.form.as_str()), (6, "MOV64rr"));
        assert_eq!(width(isa, entries[..1].iter()), None);
        let mut form = Mapping::new();
        form.insert(
            Value::from("port_pressure"),
            serde_yaml::from_str("[[0.25, ['0', '1', '2', '3']]]").unwrap(),
        );
        w.take_slot(&mut form);
        let pp: Vec<(f64, Vec<String>)> =
            serde_yaml::from_value(form[&Value::from("port_pressure")].clone()).unwrap();
        assert_eq!(pp.len(), 2);
        assert_eq!(pp[1], (0.1667, vec![PORT.to_string()]));
        let mut bare = Mapping::new();
        w.take_slot(&mut bare);
        assert_eq!(
            serde_yaml::to_string(&bare).unwrap().trim(),
            "port_pressure:\n- - 0.1667\n  - - D"
        );
    }
}
