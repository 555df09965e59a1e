//! The memory micro-ops of an exported form: a load on the load ports, a
//! store on the store ports, beside the operation's own.
//!
//! Without a base, the ports are winic's: as many load ports as the
//! fastest measured load issues per cycle (`MOV64rm` at 0.25: four), as
//! many store ports as the fastest store (`MOV64mr` at 0.5: two), and per
//! register kind the cycles a load or store of that kind takes on them
//! (a 512-bit store at 1.0: two cycles of the two ports). With a base,
//! its load and store ports. Either way a memory form's pressure is its
//! operation's (the register form's ports) plus its loads and stores
//! ([`fit`]), fitted to the form's measured throughput part by part: the
//! share of the loads and stores stays, so a loop bound by loads stays
//! bound by them.

use super::{num, port_bound, port_names};
use crate::db::Database;
use crate::isa::Arch;
use serde_yaml::{Mapping, Value};

/// OSACA's register kinds and the plain load of each (address -> result
/// is the kind's load latency): x86's `gpr`, `mm`, `xmm`, `ymm`, `zmm`,
/// AArch64's `w` … `z` (OSACA's `load_latency` keys).
pub(super) const LOADS: [(Arch, &str, &str); 14] = [
    (Arch::X86_64, "gpr", "MOV64rm"),
    (Arch::X86_64, "mm", "MMX_MOVQ64rm"),
    (Arch::X86_64, "xmm", "MOVAPSrm"),
    (Arch::X86_64, "ymm", "VMOVAPSYrm"),
    (Arch::X86_64, "zmm", "VMOVAPSZrm"),
    (Arch::Aarch64, "w", "LDRWui"),
    (Arch::Aarch64, "x", "LDRXui"),
    (Arch::Aarch64, "b", "LDRBui"),
    (Arch::Aarch64, "h", "LDRHui"),
    (Arch::Aarch64, "s", "LDRSui"),
    (Arch::Aarch64, "d", "LDRDui"),
    (Arch::Aarch64, "q", "LDRQui"),
    (Arch::Aarch64, "v", "LDRQui"),
    (Arch::Aarch64, "z", "LDR_ZXI"),
];

/// The store of each register kind: its throughput gives the kind's
/// stores per cycle, as [`LOADS`]' give its loads per cycle.
const STORES: [(Arch, &str, &str); 12] = [
    (Arch::X86_64, "gpr", "MOV64mr"),
    (Arch::X86_64, "mm", "MMX_MOVQ64mr"),
    (Arch::X86_64, "xmm", "MOVAPSmr"),
    (Arch::X86_64, "ymm", "VMOVAPSYmr"),
    (Arch::X86_64, "zmm", "VMOVAPSZmr"),
    (Arch::Aarch64, "w", "STRWui"),
    (Arch::Aarch64, "x", "STRXui"),
    (Arch::Aarch64, "b", "STRBui"),
    (Arch::Aarch64, "h", "STRHui"),
    (Arch::Aarch64, "s", "STRSui"),
    (Arch::Aarch64, "d", "STRDui"),
    (Arch::Aarch64, "q", "STRQui"),
];

/// The general-purpose load and store of each arch: what `winic ports`
/// mixes to find whether stores take an address unit of the loads
/// ([`crate::mode::ports::memory`]).
pub(crate) fn general_load_and_store(arch: Arch) -> (&'static str, &'static str) {
    match arch {
        Arch::X86_64 => ("MOV64rm", "MOV64mr"),
        Arch::Aarch64 => ("LDRXui", "STRXui"),
        Arch::Riscv64 => ("LD", "SD"),
    }
}

/// What `db` says of accesses across cache lines (`winic ports`'
/// line-split experiment), as comment lines for the machine file: OSACA
/// has no address-dependent cost, so the file says it without using it.
/// Empty when the database has none.
pub(super) fn access_costs_note(db: &Database) -> String {
    let rows: Vec<String> = db
        .entries
        .iter()
        .filter_map(|e| {
            let (s, m) = (e.line_split_throughput?, e.misaligned_throughput?);
            let tp = e.throughput.map_or("~".into(), |t| format!("{t}"));
            let own = e.own_line_throughput.map_or("~".into(), |o| format!("{o}"));
            Some(format!("{} {tp} / {s} / {m} / {own}", e.llvm_name))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "# Not in this file, as OSACA has no address-dependent cost: what an access\n\
         #   across two cache lines costs (`winic ports`), cycles an access, aligned /\n\
         #   every access split / a stream half an access off alignment / each access\n\
         #   in a line of its own (as a loop over several arrays; ~ not measured):\n",
    );
    for chunk in rows.chunks(3) {
        text.push_str(&format!("#   {}\n", chunk.join("; ")));
    }
    text
}

/// One side (loads or stores) of winic's memory ports: the ports, and per
/// register kind the cycles one access of that kind puts on them.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Side {
    /// `L0`, `L1`, … or `S0`, `S1`, …
    pub ports: Vec<String>,
    /// Per register kind, in the order of the forms' table.
    pub cycles: Vec<(&'static str, f64)>,
    /// What every access also takes elsewhere: a store's address unit,
    /// where `winic ports` found the stores taking one of the loads'.
    pub also: Vec<Value>,
    /// The loads' side: a kind [`wide_data_path`] says takes one slot of
    /// the ports and its own cycles on [`WIDE_DATA`] (`winic ports`'
    /// memory mixes compose loads alike, `crate::mode::ports::memmix`).
    /// `false` on the stores' side.
    pub wide: bool,
}

/// The port of the wide loads' data path (see [`Side::wide`]).
pub(super) const WIDE_DATA: &str = "LD";

/// Whether a load taking `alone` alone, where the general-purpose load
/// takes `general` on `ports` load ports (both per access, or both in
/// cycles of the ports), takes one address slot and its own cycles on the
/// wide loads' data path: slower than the general-purpose load, but
/// faster than a cycle of every load port (Zen 4's 16- and 32-byte loads,
/// not its 64-byte one; method.md, "The wide loads' data path").
pub(crate) fn wide_data_path(alone: f64, general: f64, ports: f64) -> bool {
    alone > general * 1.1 && alone < general * ports * 0.9
}

/// Where a load goes: its own cycles on the load ports, the
/// general-purpose load's slot there and its own cycles on the wide loads'
/// data path, or its own cycles on both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoadPath {
    /// Its cycles on the load ports: every load where the loads have no
    /// wide data path, and the general-purpose ones.
    Ports,
    /// A slot of the load ports and its cycles on the data path
    /// ([`wide_data_path`]: Zen 4's 16- and 32-byte loads).
    Slot,
    /// A cycle of every load port and the data path as long: Zen 4's
    /// 64-byte load (1.06 alone) beside two 32-byte loads ran in 2.17
    /// cycles and beside four 16-byte ones in 3.19-3.23 (the data path's
    /// 1.06 and 0.50 each, 2.06 and 3.06), where all ports alone gave
    /// 1.72 and 2.39 (`winic ports --held-back`, 2026-11-30; method.md,
    /// "The wide loads' data path").
    Whole,
}

/// Where a load taking `alone` goes, where the general-purpose load takes
/// `general` on `ports` load ports (as [`wide_data_path`] reads them) and
/// `path` says whether the loads have a wide data path at all (a kind
/// takes it).
pub(crate) fn load_path(alone: f64, general: f64, ports: f64, path: bool) -> LoadPath {
    if !path {
        LoadPath::Ports
    } else if wide_data_path(alone, general, ports) {
        LoadPath::Slot
    } else if alone >= general * ports * 0.9 {
        LoadPath::Whole
    } else {
        LoadPath::Ports
    }
}

impl Side {
    /// The side of `forms` (kind, form) whose throughputs `db` holds; the
    /// ports are named `prefix0`, `prefix1`, …; `None` when no such form
    /// was measured.
    fn measured(db: &Database, forms: &[(&'static str, &str)], prefix: &str) -> Option<Side> {
        let tps: Vec<(&'static str, f64)> = forms
            .iter()
            .filter_map(|(kind, form)| {
                let tp = db.get(form)?.throughput?;
                (tp > 0.0).then_some((*kind, tp))
            })
            .collect();
        let fastest = tps.iter().map(|t| t.1).reduce(f64::min)?;
        let n = ((1.0 / fastest).round() as usize).clamp(1, 8);
        Some(Side {
            also: Vec::new(),
            wide: false,
            ports: (0..n).map(|i| format!("{prefix}{i}")).collect(),
            cycles: tps
                .iter()
                .map(|(kind, tp)| (*kind, round4(tp * n as f64)))
                .collect(),
        })
    }

    /// The pressure of one access of `kind` (the side's first kind when it
    /// has none of that kind: the general-purpose one).
    pub fn items(&self, kind: Option<&str>) -> Vec<Value> {
        let cycles = kind
            .and_then(|k| self.cycles.iter().find(|c| c.0 == k))
            .or(self.cycles.first())
            .map_or(1.0, |c| c.1);
        let n = self.ports.len() as f64;
        let general = self.cycles.first().map_or(cycles, |c| c.1);
        let on_path = || pair(round4(cycles / n), &[WIDE_DATA.to_string()]);
        let items = match load_path(cycles, general, n, self.uses_wide()) {
            LoadPath::Ports => vec![pair(cycles, &self.ports)],
            LoadPath::Slot => vec![pair(general, &self.ports), on_path()],
            LoadPath::Whole => vec![pair(cycles, &self.ports), on_path()],
        };
        [items, self.also.clone()].concat()
    }

    /// Whether some kind takes the wide loads' data path.
    pub fn uses_wide(&self) -> bool {
        let n = self.ports.len() as f64;
        let general = self.cycles.first().map_or(0.0, |c| c.1);
        self.wide && self.cycles.iter().any(|c| wide_data_path(c.1, general, n))
    }

    /// OSACA's `load_throughput` or `store_throughput` list: per kind,
    /// `{<key>: kind, base: "*", …, port_pressure: …}`.
    pub fn by_kind(&self, key: &str) -> Value {
        Value::Sequence(
            self.cycles
                .iter()
                .map(|(kind, _)| {
                    let mut m = Mapping::new();
                    m.insert(Value::from(key), Value::from(*kind));
                    for k in ["base", "index", "offset", "scale"] {
                        m.insert(Value::from(k), Value::from("*"));
                    }
                    m.insert(
                        Value::from("port_pressure"),
                        Value::Sequence(self.items(Some(kind))),
                    );
                    Value::Mapping(m)
                })
                .collect(),
        )
    }
}

/// winic's load and store ports, from the database alone.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MemoryPorts {
    /// The loads.
    pub load: Side,
    /// The stores.
    pub store: Side,
}

impl MemoryPorts {
    /// The load and store ports of `db`'s measured loads and stores of
    /// `arch`; `None` unless both were measured.
    pub fn measured(db: &Database, arch: Arch) -> Option<MemoryPorts> {
        let of = |table: &[(Arch, &'static str, &'static str)]| -> Vec<(&'static str, &str)> {
            table
                .iter()
                .filter(|(a, _, _)| *a == arch)
                .map(|(_, k, f)| (*k, *f))
                .collect()
        };
        let mut load = Side::measured(db, &of(&LOADS), "L")?;
        load.wide = true;
        let mut store = Side::measured(db, &of(&STORES), "S")?;
        // `winic ports` found the stores taking an address unit of the
        // loads: its inferred ports of the store name the load ports.
        let (_, general) = general_load_and_store(arch);
        if let Some(e) = db.get(general) {
            store.also = e
                .inferred_ports
                .iter()
                .filter(|u| !u.ports.is_empty() && u.ports.iter().all(|p| load.ports.contains(p)))
                .map(|u| pair(u.cycles, &u.ports))
                .collect();
        }
        Some(MemoryPorts { load, store })
    }

    /// The loads and stores of a form that reads (`read`) or writes
    /// (`write`) memory, with registers of `kind`.
    pub fn items(&self, kind: Option<&str>, read: bool, write: bool) -> Vec<Value> {
        let mut out = Vec::new();
        if read {
            out.extend(self.load.items(kind));
        }
        if write {
            out.extend(self.store.items(kind));
        }
        out
    }
}

/// The names of the register operands of an OSACA operand list: OSACA's
/// `name` on x86 (`gpr`, `xmm`, …), `prefix` on AArch64 (`x`, `v`, …).
pub(super) fn register_names(operands: &[Value]) -> impl Iterator<Item = &str> {
    operands
        .iter()
        .filter(|o| o.get("class").and_then(Value::as_str) == Some("register"))
        .filter_map(|o| o.get("name").or(o.get("prefix")).and_then(Value::as_str))
}

/// The register kind of a form's accesses: of its register operands
/// ([`register_names`]), the one whose access costs most on `side`;
/// `None` without a register operand. An x86 vector form whose access,
/// of LLVM's `size` (`xmmword` of `printxmmwordmem`), is narrower than
/// that register takes the kind of its access, a vector load below 16
/// bytes `xmm`'s (a vector access takes the data path as a 16-byte one
/// does). On the Zen 4 guest `vpmovsxwd zmm, [m256]` beside two
/// `vpshuflw ymm, [m]` ran in 1.58 cycles, and `vmulpd zmm, zmm,
/// [m64]{1to8}` beside two 32-byte loads in 1.50: the data path's 1.50
/// for 32- and 16-byte accesses, where 64-byte ones gave 2.06
/// (`winic ports --held-back`, 2026-11-30).
pub(super) fn access_kind(
    operands: &[Value],
    side: &Side,
    size: Option<&str>,
) -> Option<&'static str> {
    const VECTOR: [&str; 3] = ["xmm", "ymm", "zmm"];
    let names: Vec<&str> = register_names(operands).collect();
    let kind = side
        .cycles
        .iter()
        .filter(|(k, _)| names.iter().any(|n| n.eq_ignore_ascii_case(k)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| *k)?;
    let rank = |k: &str| VECTOR.iter().position(|v| *v == k);
    let of_size = match size {
        Some("zmmword") => "zmm",
        Some("ymmword") => "ymm",
        Some(_) => "xmm",
        None => return Some(kind),
    };
    let narrower = rank(kind).is_some_and(|r| rank(of_size) < Some(r));
    let known = side.cycles.iter().any(|c| c.0 == of_size);
    Some(if narrower && known { of_size } else { kind })
}

/// A form's pressure from its operation's items `op` and its loads' and
/// stores' `mem`, fitted to its measured throughput `tp` ([`fit_factors`]):
/// so the form alone is bound at `tp`, and the memory part keeps its
/// share of the load and store ports wherever the form allows it.
pub(super) fn fit(op: Vec<Value>, mem: Vec<Value>, tp: Option<f64>) -> Value {
    let Some(tp) = tp.filter(|t| *t > 0.0) else {
        return Value::Sequence([op, mem].concat());
    };
    let bound = |items: &[Value]| port_bound(&Value::Sequence(items.to_vec())).unwrap_or(0.0);
    let (f_op, f_mem) = fit_factors(
        (bound(&op), bound(&mem)),
        |f_op, f_mem| bound(&[scale(&op, f_op), scale(&mem, f_mem)].concat()),
        tp,
    );
    Value::Sequence([scale(&op, f_op), scale(&mem, f_mem)].concat())
}

/// The factors a memory form's operation part and memory part (each
/// alone bound at `op` and `mem` cycles; the two, scaled by a factor
/// each, bound at `whole(f_op, f_mem)`) are scaled by to fit its measured
/// throughput `tp`: a part whose bound alone is slower than `tp` is
/// scaled down to it (the form runs faster than that part says); if then
/// the whole is faster than `tp`, the operation is scaled up to it (or,
/// without one, the memory part): the form is slower than its parts, and
/// the extra time is the operation's (on the Zen 4 guest `pcmpeqd mm,
/// [m]` runs at 0.50 cycles, its register form at 0.25 and an 8-byte load
/// at 0.33). Where the two parts share ports (a base whose store and ALU
/// ports are one), the whole is finally scaled to `tp`. The export fits
/// each form so ([`fit`]); `winic ports` composes its memory mixes so.
pub(crate) fn fit_factors(
    (op, mem): (f64, f64),
    whole: impl Fn(f64, f64) -> f64,
    tp: f64,
) -> (f64, f64) {
    let down = |b: f64| if b > tp * 1.01 { tp / b } else { 1.0 };
    let (mut f_op, mut f_mem) = (down(op), down(mem));
    let w = whole(f_op, f_mem);
    if w > 0.0 && w < tp * 0.99 {
        if op > 0.0 {
            f_op = tp / op;
        } else if mem > 0.0 {
            f_mem = tp / mem;
        }
    }
    match whole(f_op, f_mem) {
        w if w > tp * 1.01 => (f_op * tp / w, f_mem * tp / w),
        _ => (f_op, f_mem),
    }
}

/// `pp`'s items split into the operation's and the loads' and stores':
/// an item is memory when its ports are those of an item of `memory`
/// (the base's load and store throughputs).
pub(super) fn split(pp: &Value, memory: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let ports_of = |item: &Value| -> Option<Vec<String>> {
        let mut p = port_names(item.as_sequence()?.get(1)?)?;
        p.sort();
        Some(p)
    };
    let memory: Vec<Vec<String>> = memory.iter().filter_map(ports_of).collect();
    pp.as_sequence()
        .map(|items| {
            items
                .iter()
                .cloned()
                .partition(|i| ports_of(i).is_some_and(|p| memory.contains(&p)))
        })
        .map(|(m, o): (Vec<Value>, Vec<Value>)| (o, m))
        .unwrap_or_default()
}

/// Every item's cycles times `factor` (as they are for 1).
fn scale(items: &[Value], factor: f64) -> Vec<Value> {
    if factor == 1.0 {
        return items.to_vec();
    }
    items
        .iter()
        .map(|item| match item.as_sequence() {
            Some(p) if p.len() == 2 => match p[0].as_f64() {
                Some(c) => Value::Sequence(vec![num(round4(c * factor)), p[1].clone()]),
                None => item.clone(),
            },
            _ => item.clone(),
        })
        .collect()
}

/// `[cycles, [ports]]`.
pub(super) fn pair(cycles: f64, ports: &[String]) -> Value {
    Value::Sequence(vec![
        num(cycles),
        Value::Sequence(ports.iter().map(|p| Value::from(p.as_str())).collect()),
    ])
}

/// `x` to four decimals, as the file writes cycles.
pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pp(text: &str) -> Vec<Value> {
        serde_yaml::from_str::<Vec<Value>>(text).unwrap()
    }

    fn side(ports: usize, prefix: &str, cycles: &[(&'static str, f64)]) -> Side {
        Side {
            ports: (0..ports).map(|i| format!("{prefix}{i}")).collect(),
            cycles: cycles.to_vec(),
            also: Vec::new(),
            wide: false,
        }
    }

    /// `zen4`'s loads (2026-11-29): three a cycle of 8 bytes, two of 16
    /// or 32, one of 64. A 16-byte load is a slot of the three and half a
    /// cycle of the wide data path; a 64-byte one a cycle of all three.
    #[test]
    fn a_wide_load_takes_a_slot_and_its_cycles_on_the_data_path() {
        let mut loads = side(3, "L", &[("gpr", 1.0), ("xmm", 1.5), ("zmm", 3.18)]);
        assert!(!loads.uses_wide());
        assert_eq!(loads.items(Some("xmm")), pp("[[1.5, ['L0', 'L1', 'L2']]]"));
        loads.wide = true;
        assert!(loads.uses_wide());
        assert_eq!(
            loads.items(Some("xmm")),
            pp("[[1.0, ['L0', 'L1', 'L2']], [0.5, ['LD']]]")
        );
        assert_eq!(loads.items(Some("gpr")), pp("[[1.0, ['L0', 'L1', 'L2']]]"));
        assert_eq!(
            loads.items(Some("zmm")),
            pp("[[3.18, ['L0', 'L1', 'L2']], [1.06, ['LD']]]")
        );
        // Two 16-byte loads and an 8-byte one: a cycle, as measured.
        let x = loads.items(Some("xmm"));
        let g = loads.items(Some("gpr"));
        let all: Vec<Value> = [x.clone(), x.clone(), g].concat();
        assert_eq!(port_bound(&Value::Sequence(all)), Some(1.0));
        // A 64-byte load and four 16-byte ones: the data path's 3.06
        // (3.19-3.23 measured), not the ports' 2.39.
        let z = loads.items(Some("zmm"));
        let all: Vec<Value> = [z, x.clone(), x.clone(), x.clone(), x].concat();
        let bound = port_bound(&Value::Sequence(all)).unwrap();
        assert!((bound - 3.06).abs() < 1e-9, "{bound}");
    }

    #[test]
    fn a_load_op_form_keeps_its_loads_share() {
        // A 512-bit load-op form measured at 1.08 (two loads a cycle of
        // 256 bits: the load alone takes 1.0) whose operation is 0.5.
        let op = pp("[[1, ['FP0', 'FP1']]]");
        let mem = pp("[[2, ['L0', 'L1']]]");
        let got = fit(op, mem, Some(1.08));
        // The operation takes the rest: bound 1.08 on its own ports, the
        // load's 1.0 kept.
        assert_eq!(port_bound(&got), Some(1.08));
        let items = got.as_sequence().unwrap();
        assert_eq!(items[1], pp("[[2, ['L0', 'L1']]]")[0]);
    }

    #[test]
    fn parts_slower_than_the_form_are_scaled_down() {
        let got = fit(pp("[[3, ['0']]]"), pp("[[2, ['L0', 'L1']]]"), Some(0.5));
        assert_eq!(
            got,
            Value::Sequence(pp("[[0.5, ['0']], [1.0, ['L0', 'L1']]]"))
        );
        // Without a throughput the parts stay as they are.
        let got = fit(pp("[[3, ['0']]]"), vec![], None);
        assert_eq!(got, Value::Sequence(pp("[[3, ['0']]]")));
    }

    #[test]
    fn parts_on_shared_ports_are_bound_at_the_throughput_together() {
        // Port 3 both an ALU and the store port (as in a small base).
        let got = fit(pp("[[1, '0123']]"), pp("[[1, '23'], [1, '3']]"), Some(1.0));
        let near = |got: &Value, want: f64| (port_bound(got).unwrap() - want).abs() < 1e-3;
        assert!(near(&got, 1.0), "{got:?}");
        let got = fit(pp("[[1, '0123']]"), pp("[[1, '3']]"), Some(4.0));
        assert!(near(&got, 4.0), "{got:?}");
    }

    #[test]
    fn a_slow_store_without_an_operation_takes_its_time_on_the_store_ports() {
        // `vmaskmovps [m], ymm` at 12 cycles, with no register form.
        let got = fit(vec![], pp("[[1, ['S0', 'S1']]]"), Some(12.0));
        assert_eq!(port_bound(&got), Some(12.0));
    }

    #[test]
    fn the_kind_of_an_access_is_its_costliest_register() {
        let loads = side(4, "L", &[("gpr", 1.0), ("xmm", 2.0), ("zmm", 2.0)]);
        let ops =
            pp("[{class: register, name: gpr}, {class: register, name: zmm}, {class: memory}]");
        assert_eq!(access_kind(&ops, &loads, None), Some("zmm"));
        assert_eq!(access_kind(&ops, &loads, Some("zmmword")), Some("zmm"));
        // An extending load of 32 bytes, a broadcast of 8: a narrower
        // kind's access.
        let ymm = side(
            4,
            "L",
            &[("gpr", 1.0), ("xmm", 2.0), ("ymm", 2.0), ("zmm", 4.0)],
        );
        assert_eq!(access_kind(&ops, &ymm, Some("ymmword")), Some("ymm"));
        assert_eq!(access_kind(&ops, &ymm, Some("qword")), Some("xmm"));
        // A general-purpose access stays one, whatever its size.
        let gpr = pp("[{class: register, name: gpr}, {class: memory}]");
        assert_eq!(access_kind(&gpr, &ymm, Some("byte")), Some("gpr"));
        assert_eq!(access_kind(&pp("[{class: memory}]"), &loads, None), None);
        assert_eq!(loads.items(None), pp("[[1.0, ['L0', 'L1', 'L2', 'L3']]]"));
        assert_eq!(
            loads.items(Some("zmm")),
            pp("[[2.0, ['L0', 'L1', 'L2', 'L3']]]")
        );
    }

    #[test]
    fn split_finds_the_bases_load_and_store_items() {
        let memory = pp("[[1, '135'], [1, ['1D', '3D']], [1, ['1', '3']], [1, ['13']]]");
        let (op, mem) = split(
            &Value::Sequence(pp("[[1, ['9', '11']], [2, '531'], [2, ['3D', '1D']]]")),
            &memory,
        );
        assert_eq!(op, pp("[[1, ['9', '11']]]"));
        assert_eq!(mem, pp("[[2, '531'], [2, ['3D', '1D']]]"));
    }
}
