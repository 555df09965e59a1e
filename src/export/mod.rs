//! `winic export --osaca`: a winic database as an OSACA machine file.
//!
//! Each measured form becomes an OSACA instruction form ([`form`]: name
//! and operands from LLVM's assembly string and operand types) with
//! winic's `throughput`, its `latency` (the form's largest exact
//! sub-latency, [`crate::db::form_latency`]: what a dependency through its
//! result costs) and its `llvm_name`.
//!
//! With a base (one of OSACA's shipped files for the same core), the
//! base's top-level fields and port model are kept as written; a base
//! form with the same name and operands takes winic's values, and its
//! port pressure is scaled so that the form alone is bound at winic's
//! throughput (OSACA predicts throughput from port pressure, not from the
//! `throughput` field). Forms the base lacks are added with the port
//! pressure of the same LLVM form under its other name where the base has
//! that (`add` for `addq`), else none. winic's forms come first, so OSACA
//! (which takes the first form that matches) prefers them to a base form
//! with wildcards. Without a base the file is complete but its ports are
//! abstract ([`derived_ports`]).
//!
//! Several LLVM forms can be one OSACA form (OSACA's `gpr` has no width,
//! a mask or broadcast is matched as the plain operand, `_REV` encodings
//! print alike): the OSACA form takes the values of the general one (no
//! fixed register, no mask or broadcast), of the slowest of those, and
//! names the others in a comment.

mod dispatch;
mod fallback;
pub mod form;
pub mod isa;
pub(crate) mod memory;
mod yaml;

use crate::db::{Database, Entry};
use crate::error::Error;
use crate::isa::{Arch, Isa};
use form::{osaca_form, Obstacle, OsacaForm};
use memory::MemoryPorts;
use serde_yaml::{Mapping, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What to export.
pub struct OsacaRequest {
    /// The arch the databases were measured on.
    pub arch: Arch,
    /// winic databases (TP and LAT, or one with both), merged in order.
    pub databases: Vec<PathBuf>,
    /// An OSACA machine file of the same core whose port model is kept.
    pub base: Option<PathBuf>,
    /// The machine file to write.
    pub output: PathBuf,
}

/// The counts of an export.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Counts {
    /// Database entries with a throughput or a latency.
    pub measured: usize,
    /// Of those, forms OSACA cannot spell, by reason (with an example).
    pub not_exportable: BTreeMap<Obstacle, (usize, String)>,
    /// OSACA forms of the base that took winic's values.
    pub updated: usize,
    /// Of those, forms whose port pressure was scaled to winic's
    /// throughput.
    pub rescaled: usize,
    /// OSACA forms the base lacked (all of them without a base).
    pub added: usize,
    /// Of the added, forms with the base's port pressure of the same LLVM
    /// form under its other name.
    pub added_with_ports: usize,
    /// Of the added, memory forms with ports composed as OSACA composes
    /// them ([`memory_variant_ports`]).
    pub added_composed: usize,
    /// Of the added, forms whose ports came from a base form that does not
    /// name them exactly ([`fallback`]): one whose wildcard operands match
    /// them, the nearest of the same name, the usual ports of their
    /// register kind.
    pub added_fallback: [usize; 3],
    /// Updated forms the base names without ports, given them as an
    /// added form would be ([`fallback`]).
    pub filled: usize,
    /// Added forms left without ports (no register operand, no memory,
    /// no form of their name in the base).
    pub portless: usize,
    /// Base forms left as the base had them.
    pub kept: usize,
    /// Of those, forms the base gives no ports (its branches: winic did
    /// not measure them, and changes nothing it did not measure).
    pub kept_portless: usize,
    /// Without a base: added forms with the ports `winic ports` inferred
    /// (the others are spread over the first ports by their throughput).
    pub inferred: usize,
    /// Of those, forms whose inferred ports are the nearest set, no set
    /// fitting their mixes within 10% (`inferredPortsMisfit`).
    pub inferred_misfit: usize,
    /// Without a base: memory forms whose pressure is their loads and
    /// stores on winic's load and store ports, plus their register form's
    /// ports ([`memory`]).
    pub memory_composed: usize,
    /// Of those, memory forms without a register form: loads and stores
    /// alone.
    pub memory_alone: usize,
    /// Of those, memory forms whose register form's ports `winic ports`
    /// inferred (the others' register part is spread by its throughput).
    pub memory_on_inferred: usize,
    /// LLVM forms whose OSACA form took another LLVM form's values.
    pub folded: usize,
    /// Forms also written under the name OSACA's Intel parser gives them
    /// ([`form::intel_sized_name`]: `mov QWORD PTR [m], r` as `movq`).
    pub sized: usize,
    /// The base's top-level fields written as one pair where OSACA reads
    /// a list of pairs, and written as that list.
    pub repaired: Vec<&'static str>,
    /// Without a base: the core's dispatch width, a port every form
    /// takes a slot of ([`dispatch`]); `None` with a base, or without a
    /// form that writes a register.
    pub dispatch: Option<dispatch::Width>,
    /// Without a base: forms that take cycles of the read port
    /// ([`crate::db::READ_PORT`]) beside their ports.
    pub read_port: usize,
}

/// The result: the counts and the summary printed.
pub struct Exported {
    /// The counts.
    pub counts: Counts,
    /// The summary for standard output.
    pub summary: String,
}

/// One OSACA form winic measured: its name and operands, and the
/// database entries (LLVM forms) spelled so, the representative first.
struct Candidate<'a> {
    name: String,
    operands: Vec<Value>,
    entries: Vec<(&'a Entry, (bool, bool))>,
}

/// Reads the databases, writes the OSACA machine file.
pub fn osaca(req: &OsacaRequest) -> Result<Exported, Error> {
    if req.arch == Arch::Riscv64 {
        return Err(Error::Unsupported(
            "--arch riscv64: OSACA (0.7.1 and its current sources) has no RISC-V parser or \
             ISA model, so no machine file of it could be loaded; export x86_64 or aarch64"
                .into(),
        ));
    }
    let db = load_databases(&req.databases)?;
    let base = req.base.as_deref().map(Base::load).transpose()?;
    if let Some(b) = &base {
        b.check_isa(req.arch)?;
    }
    let mut counts = Counts {
        repaired: base
            .as_ref()
            .map(|b| b.repaired.clone())
            .unwrap_or_default(),
        ..Counts::default()
    };
    let isa = Isa::get(req.arch);
    // Every OSACA key (name, operands) winic measured, in first-seen order.
    let mut keys: Vec<Candidate> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut forms: HashMap<&str, OsacaForm> = HashMap::new();
    let mut sized: Vec<(&Entry, OsacaForm)> = Vec::new();
    for entry in &db.entries {
        if entry.throughput.is_none() && entry.latency.is_none() {
            continue;
        }
        counts.measured += 1;
        let form = isa.instr(&entry.llvm_name).ok_or_else(|| {
            Error::BadInput(format!(
                "{} is no {} form: the database is of another arch (give --arch) or of \
                 another LLVM version",
                entry.llvm_name, req.arch
            ))
        })?;
        let osaca = match osaca_form(form) {
            Ok(f) => f,
            Err(why) => {
                let slot = counts
                    .not_exportable
                    .entry(why.kind)
                    .or_insert((0, format!("{}: {why}", entry.llvm_name)));
                slot.0 += 1;
                continue;
            }
        };
        for name in &osaca.names {
            spell(&mut keys, &mut by_key, name, &osaca, entry);
        }
        if !osaca.sized_names.is_empty() {
            sized.push((entry, osaca.clone()));
        }
        forms.insert(entry.llvm_name.as_str(), osaca);
    }
    counts.sized = add_sized_names(&mut keys, &mut by_key, &sized, base.as_ref());
    for c in &mut keys {
        c.entries.sort_by(|a, b| representative_order(isa, a, b));
    }
    let representatives: std::collections::HashSet<&str> = keys
        .iter()
        .map(|c| c.entries[0].0.llvm_name.as_str())
        .collect();
    counts.folded = forms
        .keys()
        .filter(|n| !representatives.contains(*n))
        .count();

    let mut out = String::new();
    let mut winic_forms = String::new();
    let mut kept_forms = String::new();
    match &base {
        Some(base) => {
            let base_keys: HashMap<String, usize> = base
                .forms
                .iter()
                .enumerate()
                .rev()
                .map(|(i, f)| (key_of(&form_name(f), &form_operands(f)), i))
                .collect();
            // The base form each LLVM form matched under any of its names:
            // the ports an added name of it borrows.
            let mut ports_of: HashMap<&str, &Mapping> = HashMap::new();
            for c in &keys {
                if let Some(&i) = base_keys.get(&key_of(&c.name, &c.operands)) {
                    for (e, _) in &c.entries {
                        ports_of
                            .entry(e.llvm_name.as_str())
                            .or_insert(&base.forms[i]);
                    }
                }
            }
            let names: Vec<String> = base.forms.iter().map(form_name).collect();
            let base_names = fallback::by_name(names.iter().map(String::as_str));
            let kinds = fallback::kind_ports(&base.forms, &base.memory);
            let mut used = vec![false; base.forms.len()];
            for c in &keys {
                let entry = c.entries[0].0;
                let k = key_of(&c.name, &c.operands);
                let mapping = match base_keys.get(&k) {
                    Some(&i) => {
                        used[i] = true;
                        counts.updated += 1;
                        let (mut m, scaled) = updated_form(&base.forms[i], entry, &base.memory);
                        counts.rescaled += scaled as usize;
                        // A form the base names without ports: the ports
                        // it would get were it not named.
                        if !has_ports(&m) {
                            if let Some((_, pp)) =
                                base_fallback(isa, base, &base_names, &kinds, c, entry)
                            {
                                counts.filled += 1;
                                m.insert(Value::from("port_pressure"), pp);
                            }
                        }
                        m
                    }
                    None => {
                        counts.added += 1;
                        let borrowed = ports_of.get(entry.llvm_name.as_str()).copied();
                        let combined = borrowed
                            .is_none()
                            .then(|| memory_variant_ports(isa, base, &base_names, c, entry))
                            .flatten();
                        counts.added_with_ports += borrowed.is_some() as usize;
                        counts.added_composed += combined.is_some() as usize;
                        let nearest = (borrowed.is_none() && combined.is_none())
                            .then(|| base_fallback(isa, base, &base_names, &kinds, c, entry))
                            .flatten();
                        if let Some((source, _)) = &nearest {
                            counts.added_fallback[*source as usize] += 1;
                        }
                        let ports = borrowed
                            .map(|b| Ports::Borrowed(b, &base.memory))
                            .or(combined.map(Ports::Fitted))
                            .or(nearest.map(|(_, pp)| Ports::Fitted(pp)));
                        counts.portless += ports.is_none() as usize;
                        new_form(c, entry, ports, None)
                    }
                };
                comment_folded(&mut winic_forms, c);
                yaml::form_entry(&mut winic_forms, &mapping);
            }
            for (f, used) in base.forms.iter().zip(&used) {
                if !used {
                    counts.kept += 1;
                    counts.kept_portless += !has_ports(f) as usize;
                    yaml::form_entry(&mut kept_forms, f);
                }
            }
            header(&mut out, req, &counts, Some(base));
            out.push_str(&memory::access_costs_note(&db));
            out.push_str(&base.top);
        }
        None => {
            let ports = derived_ports(&keys);
            let memory = MemoryPorts::measured(&db, req.arch);
            let by_name = fallback::by_name(keys.iter().map(|c| c.name.as_str()));
            counts.dispatch = dispatch::width(isa, db.entries.iter());
            for c in &keys {
                counts.added += 1;
                let entry = c.entries[0].0;
                let inferred = inferred_pressure(entry);
                counts.inferred += inferred.is_some() as usize;
                counts.inferred_misfit +=
                    (inferred.is_some() && entry.inferred_ports_misfit.is_some()) as usize;
                let composed = match (&memory, memory_access(isa, entry), &inferred) {
                    (Some(m), Some((read, write)), None) => {
                        // A load into a register, or a store of one, that
                        // does not do its register form's operation is the
                        // access alone: that micro-op is no part of it. As
                        // `winic ports` measured it (`accessAlone`), else by
                        // the rule (a plain copy, `movupd xmm, m128` of
                        // `movupd xmm, xmm`, or SSE `movsd xmm, m64` of the
                        // blend `movsd xmm, xmm`).
                        let form = isa.instr(&entry.llvm_name);
                        let register = register_variant(&keys, &by_name, c).filter(|r| {
                            match (
                                entry.access_alone,
                                form,
                                isa.instr(&r.entries[0].0.llvm_name),
                            ) {
                                (Some(alone), _, _) => !alone,
                                (None, Some(f), Some(t)) => f.does_operation_of(t),
                                _ => true,
                            }
                        });
                        let placed =
                            register.is_some_and(|r| inferred_pressure(r.entries[0].0).is_some());
                        let op: Vec<Value> = register
                            .and_then(|r| pressure_without_base(r, &ports))
                            .and_then(|pp| pp.as_sequence().cloned())
                            .unwrap_or_default();
                        let size = isa.instr(&entry.llvm_name).and_then(|f| f.memory_size());
                        let kind = memory::access_kind(&c.operands, &m.load, size);
                        let mem = m.items(kind, read, write);
                        if mem.is_empty() && op.is_empty() {
                            None // `lea`, `prefetch`: no access, no register form
                        } else {
                            counts.memory_composed += 1;
                            counts.memory_alone += op.is_empty() as usize;
                            counts.memory_on_inferred += placed as usize;
                            Some(memory::fit(op, mem, entry.throughput))
                        }
                    }
                    _ => None,
                };
                let mut mapping = new_form(
                    c,
                    entry,
                    composed
                        .map(Ports::Fitted)
                        .or(inferred.map(Ports::Inferred)),
                    Some(&ports),
                );
                if let Some(w) = &counts.dispatch {
                    w.take_slot(&mut mapping);
                }
                counts.read_port += takes_port(&mapping, crate::db::READ_PORT) as usize;
                comment_folded(&mut winic_forms, c);
                yaml::form_entry(&mut winic_forms, &mapping);
            }
            header(&mut out, req, &counts, None);
            out.push_str(&memory::access_costs_note(&db));
            top_level_without_base(
                &mut out,
                req,
                &ports,
                &memory_latencies(&db, req.arch),
                memory.as_ref(),
                counts.dispatch.as_ref(),
            );
        }
    }
    out.push_str("instruction_forms:\n");
    if !winic_forms.is_empty() {
        out.push_str("# measured by winic\n");
        out.push_str(&winic_forms);
    }
    if !kept_forms.is_empty() {
        out.push_str("# as the base had them\n");
        out.push_str(&kept_forms);
    }
    write_file(&req.output, &out)?;
    let summary = summary(req, &counts);
    Ok(Exported { counts, summary })
}

/// The databases merged: a later file's throughputs and latencies are
/// taken into the entries of the same forms (a TP file and a LAT file
/// make one with both).
fn load_databases(paths: &[PathBuf]) -> Result<Database, Error> {
    if paths.is_empty() {
        return Err(Error::BadInput(
            "no database given: name winic's YAML file(s)".into(),
        ));
    }
    let mut db = Database::default();
    for p in paths {
        if !p.exists() {
            return Err(Error::BadInput(format!(
                "{}: no such database (give the file `winic TP -o FILE` or `winic LAT -o FILE` wrote)",
                p.display()
            )));
        }
        let entries = Database::load(p)?.entries;
        if entries.is_empty() {
            return Err(Error::BadInput(format!(
                "{}: the database has no entries, so there is nothing to export; measure into \
                 it first (`winic TP -o {0}`, `winic LAT -o {0}`)",
                p.display()
            )));
        }
        for entry in entries {
            if entry.throughput.is_some() {
                db.merge_throughput(entry.clone());
            }
            if entry.latency.is_some() || !entry.operand_latencies.is_empty() {
                db.merge_latency(entry.clone());
            }
            if db.get(&entry.llvm_name).is_none() {
                db.merge(entry);
            }
        }
    }
    Ok(db)
}

/// The identity OSACA gives a form: its name (case-insensitive) and its
/// operands' types, without what it does not match on (source,
/// destination, mask, zeroing, width).
fn key_of(name: &str, operands: &[Value]) -> String {
    let ops: Vec<String> = operands.iter().map(operand_key).collect();
    format!("{}({})", name.to_lowercase(), ops.join(","))
}

fn operand_key(op: &Value) -> String {
    let Value::Mapping(m) = op else {
        return yaml::flow(op).to_lowercase();
    };
    const KEYS: [&str; 12] = [
        "class",
        "name",
        "prefix",
        "shape",
        "lanes",
        "imd",
        "base",
        "offset",
        "index",
        "scale",
        "pre_indexed",
        "post_indexed",
    ];
    let mut parts = Vec::new();
    for k in KEYS {
        if let Some(v) = m.get(k) {
            let v = match v {
                Value::Mapping(inner) => inner
                    .get("name")
                    .or_else(|| inner.get("prefix"))
                    .map(yaml::flow)
                    .unwrap_or_else(|| yaml::flow(v)),
                Value::Number(n) => n.as_f64().map(|f| f.to_string()).unwrap_or_default(),
                _ => yaml::flow(v),
            };
            parts.push(format!("{k}={}", v.trim_matches('"').to_lowercase()));
        }
    }
    parts.join(";")
}

/// The representative of LLVM forms spelled alike comes first: a general
/// one before one with a fixed register (`add $imm, %rax`, whose
/// throughput is its chain through rax), a plain one before a masked or
/// broadcast one, the widest registers before narrower ones (OSACA's
/// `gpr` is every width: `add r64, imm` is what loops run, while `add
/// r16, imm16` stalls the decoder on its length-changing prefix, 3.17
/// cycles on the Xeon guest, and as the representative made every loop
/// counter 3.8 cycles), a form without the 16-bit operand-size prefix
/// before one with it where no register tells them apart (`push imm32`
/// before `push imm16`, `push [m64]` before `push [m16]`: 0.50 and 0.71
/// against 1.00 and 2.00 cycles on the Zen 4 guest), then the slowest
/// (largest throughput, then latency), then by name.
fn representative_order(
    isa: &'static Isa,
    a: &(&Entry, (bool, bool)),
    b: &(&Entry, (bool, bool)),
) -> std::cmp::Ordering {
    let num = |v: Option<f64>| v.unwrap_or(f64::NEG_INFINITY);
    let widest = |e: &Entry| {
        e.operands
            .iter()
            .filter(|o| o.class == "register")
            .filter_map(|o| isa.class(o.name.as_deref()?))
            .map(|c| c.bits())
            .max()
            .unwrap_or(0)
    };
    let op16 = |e: &Entry| {
        isa.instr(&e.llvm_name).is_some_and(
            |f| matches!(f.encoding(), crate::isa::Encoding::X86(x) if x.opsize() == "OpSize16"),
        )
    };
    a.1.cmp(&b.1)
        .then(widest(b.0).cmp(&widest(a.0)))
        .then(op16(a.0).cmp(&op16(b.0)))
        .then(num(b.0.throughput).total_cmp(&num(a.0.throughput)))
        .then(num(b.0.latency).total_cmp(&num(a.0.latency)))
        .then(a.0.llvm_name.cmp(&b.0.llvm_name))
}

/// Adds `entry`, spelled `osaca`, to the candidate of `name` and its
/// operands (a new one when none has them yet).
fn spell<'a>(
    keys: &mut Vec<Candidate<'a>>,
    by_key: &mut HashMap<String, usize>,
    name: &str,
    osaca: &OsacaForm,
    entry: &'a Entry,
) {
    let i = *by_key
        .entry(key_of(name, &osaca.operands))
        .or_insert_with(|| {
            keys.push(Candidate {
                name: name.to_string(),
                operands: osaca.operands.clone(),
                entries: Vec::new(),
            });
            keys.len() - 1
        });
    keys[i]
        .entries
        .push((entry, (osaca.fixed, osaca.decorated)));
}

/// Adds the forms of `sized` under their [`OsacaForm::sized_names`]
/// where OSACA's Intel parser would look them up so: a name some form of
/// the file (or of the base) has with as many operands, under which no
/// form is spelled with these operands already. Returns how many forms
/// took such a name.
fn add_sized_names<'a>(
    keys: &mut Vec<Candidate<'a>>,
    by_key: &mut HashMap<String, usize>,
    sized: &[(&'a Entry, OsacaForm)],
    base: Option<&Base>,
) -> usize {
    let named: std::collections::HashSet<(String, usize)> = keys
        .iter()
        .map(|c| (c.name.clone(), c.operands.len()))
        .chain(
            base.into_iter()
                .flat_map(|b| b.forms.iter())
                .map(|f| (form_name(f), form_operands(f).len())),
        )
        .collect();
    let spelled: std::collections::HashSet<String> = by_key.keys().cloned().collect();
    let mut added = 0;
    for (entry, osaca) in sized {
        let mut took = false;
        for name in &osaca.sized_names {
            if !named.contains(&(name.clone(), osaca.operands.len()))
                || spelled.contains(&key_of(name, &osaca.operands))
            {
                continue;
            }
            spell(keys, by_key, name, osaca, entry);
            took = true;
        }
        added += usize::from(took);
    }
    added
}

fn comment_folded(out: &mut String, c: &Candidate) {
    if c.entries.len() > 1 {
        let others: Vec<&str> = c.entries[1..]
            .iter()
            .map(|(e, _)| e.llvm_name.as_str())
            .collect();
        out.push_str(&format!(
            "# {}: {} spelled alike in OSACA: {}\n",
            c.entries[0].0.llvm_name,
            c.name,
            others.join(", ")
        ));
    }
}

fn num(v: f64) -> Value {
    Value::Number(serde_yaml::Number::from(v))
}

/// A form's latency as OSACA reads it: winic's `latency` (its largest
/// exact sub-latency from a register, [`crate::db::latency_of`]), but not
/// from a register into memory. OSACA gives a store latency 0 and, on a
/// dependency through memory, adds the load's (its shipped `spr.yml`:
/// `vmovupd [m], xmm` 0); winic's data -> memory is the whole
/// store-and-reload round trip as a bound (`[0; 5.17]`), and as a store's
/// latency made OSACA count the round trip twice (the transposed
/// matrix-vector loop predicted at 14-16 cycles, measured 0.7-1.6). A
/// store with only such sub-latencies gets OSACA's 0; memory -> memory of
/// a read-modify-write stays (its own round trip). A load-op form keeps
/// its register path, as `latency` does: OSACA puts one latency on every
/// result of a form it finds, and its register dependences (a
/// reduction's) wait for that path, not for the load.
///
/// Nor into the flags, where a path into a register is measured: OSACA
/// follows no flag (its `flag_dependencies` is off by default, and the
/// export writes no flag operand), so the latency it puts on a form is
/// the one its register results carry. On Golden Cove class cores
/// `add r64, imm8` is folded at rename, `0 -> 0` 0.17 cycles, while its
/// `0 -> EFLAGS` takes 1 (xeon-cf): a loop counter's chain is the former.
fn osaca_latency(entry: &Entry) -> Option<f64> {
    let memory = entry.memory_keys();
    let into_flags = |l: &crate::db::OperandLatency| crate::db::is_flags_key(&l.target_operand);
    let into_memory = |l: &crate::db::OperandLatency| {
        memory.contains(&l.target_operand) && !memory.contains(&l.source_operand)
    };
    // A path into a register: not into the flags, nor into memory (a
    // store's data -> memory, a read-modify-write's memory -> memory).
    let into_registers = entry
        .operand_latencies
        .iter()
        .any(|l| !into_flags(l) && !memory.contains(&l.target_operand) && l.latency_max.is_some());
    let kept: Vec<crate::db::OperandLatency> = entry
        .operand_latencies
        .iter()
        .filter(|l| !(into_memory(l) || into_registers && into_flags(l)))
        .cloned()
        .collect();
    if memory.is_empty() && kept.len() == entry.operand_latencies.len() {
        return entry.latency;
    }
    // A file's `latency` where it has no pairs (WINIC's files may not).
    let otherwise = if kept.len() == entry.operand_latencies.len() {
        entry.latency
    } else {
        Some(0.0)
    };
    crate::db::latency_of(&kept, &memory).or(otherwise)
}

/// The port pressure's bound: the largest load it puts on one port once
/// each item's cycles are spread over its ports as evenly as the items
/// allow, as OSACA balances a loop's pressure (its optimal port
/// assignment; `[[c, ports]]` alone puts c / len(ports) on each). With
/// items on overlapping ports that is the largest, over every union `U`
/// of their port sets, of the cycles of the items within `U` over its
/// size: `[[6, ['9', '11']], [3, ['10', '11', '12']]]` is bound at 3
/// (ports 9 and 11 share the 6), not at the 4 an even spread of each
/// item puts on port 11. Past 16 distinct port sets (never in OSACA's
/// files), each item's even spread.
fn port_bound(pp: &Value) -> Option<f64> {
    let mut sets: Vec<(Vec<String>, f64)> = Vec::new();
    for item in pp.as_sequence()? {
        let pair = item.as_sequence()?;
        let cycles = pair.first()?.as_f64()?;
        let mut ports = port_names(pair.get(1)?)?;
        if ports.is_empty() {
            return None;
        }
        ports.sort();
        ports.dedup();
        match sets.iter_mut().find(|(p, _)| *p == ports) {
            Some(s) => s.1 += cycles,
            None => sets.push((ports, cycles)),
        }
    }
    let mut names: Vec<&String> = sets.iter().flat_map(|(p, _)| p).collect();
    names.sort();
    names.dedup();
    if sets.len() > 16 || names.len() > 64 {
        let mut load: HashMap<&String, f64> = HashMap::new();
        for (ports, cycles) in &sets {
            for p in ports {
                *load.entry(p).or_default() += cycles / ports.len() as f64;
            }
        }
        return load.values().copied().reduce(f64::max);
    }
    let masks: Vec<(u64, f64)> = sets
        .iter()
        .map(|(ports, cycles)| {
            let m = ports
                .iter()
                .map(|p| 1u64 << names.binary_search(&p).unwrap_or(0))
                .fold(0, |a, b| a | b);
            (m, *cycles)
        })
        .collect();
    (1u32..1 << masks.len())
        .map(|chosen| {
            let union = (0..masks.len())
                .filter(|k| chosen >> k & 1 == 1)
                .fold(0u64, |u, k| u | masks[k].0);
            let within: f64 = masks
                .iter()
                .filter(|(m, _)| m & !union == 0)
                .map(|(_, c)| c)
                .sum();
            within / f64::from(union.count_ones())
        })
        .reduce(f64::max)
}

/// Whether form `f` has cycles on `port` alone in its `port_pressure`.
fn takes_port(f: &Mapping, port: &str) -> bool {
    let Some(Value::Sequence(items)) = f.get("port_pressure") else {
        return false;
    };
    items.iter().any(|item| {
        item.get(1)
            .and_then(Value::as_sequence)
            .is_some_and(|ports| ports.len() == 1 && ports[0].as_str() == Some(port))
    })
}

/// The ports of one `port_pressure` item: `'015'` is ports 0, 1 and 5
/// (OSACA reads a string a character a port), `['0', '10']` ports 0 and
/// 10.
fn port_names(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(s.chars().map(|c| c.to_string()).collect()),
        Value::Sequence(l) => Some(
            l.iter()
                .map(|p| yaml::flow(p).trim_matches('"').to_string())
                .collect(),
        ),
        _ => None,
    }
}

/// An OSACA machine file read for the ports it gives forms: the
/// reference `winic ports --compare` checks its fitted ports against.
pub struct PortReference {
    base: Base,
}

impl PortReference {
    /// Reads `path`, which must be a machine file of `arch`'s ISA;
    /// `option` names it in errors.
    pub fn load(path: &Path, arch: Arch, option: &str) -> Result<PortReference, Error> {
        let base = Base::load_as(
            path,
            option,
            "give one of OSACA's machine files (e.g. spr.yml from OSACA's data directory)",
        )?;
        base.check_isa_as(arch, option, "give a machine file of this core")?;
        Ok(PortReference { base })
    }

    /// The ports the file issues each of `forms` to, where it has the
    /// form as one micro-op (`port_pressure: [[1, ports]]`), else `None`.
    pub fn single_uop_ports(&self, forms: &[crate::isa::Instr]) -> Vec<Option<Vec<String>>> {
        let by_key: HashMap<String, &Mapping> = self
            .base
            .forms
            .iter()
            .rev()
            .map(|f| (key_of(&form_name(f), &form_operands(f)), f))
            .collect();
        let one_uop = |pp: &Value| -> Option<Vec<String>> {
            let [item] = pp.as_sequence()?.as_slice() else {
                return None;
            };
            let pair = item.as_sequence()?;
            ((pair.first()?.as_f64()? - 1.0).abs() < 1e-9).then_some(())?;
            port_names(pair.get(1)?).filter(|p| !p.is_empty())
        };
        forms
            .iter()
            .map(|&form| {
                let osaca = osaca_form(form).ok()?;
                let f = osaca
                    .names
                    .iter()
                    .find_map(|n| by_key.get(&key_of(n, &osaca.operands)))?;
                one_uop(f.get("port_pressure")?)
            })
            .collect()
    }
}

/// A base form with winic's values: latency and throughput where winic
/// has them, the port pressure fitted to the throughput (the base's loads
/// and stores, `memory`, kept: [`memory::fit`]), `llvm_name` added; its
/// other fields stay. Also whether the ports changed.
fn updated_form(base: &Mapping, entry: &Entry, memory: &[Value]) -> (Mapping, bool) {
    let mut m = base.clone();
    let mut scaled = false;
    m.insert(
        Value::from("llvm_name"),
        Value::from(entry.llvm_name.as_str()),
    );
    if let Some(lat) = osaca_latency(entry) {
        m.insert(Value::from("latency"), num(lat));
    }
    if let Some(tp) = entry.throughput {
        m.insert(Value::from("throughput"), num(tp));
        if let Some(pp) = base
            .get("port_pressure")
            .and_then(|pp| fitted_ports(pp, memory, tp))
        {
            m.insert(Value::from("port_pressure"), pp);
            scaled = true;
        }
    }
    (m, scaled)
}

/// `pp` fitted to `tp` with its loads and stores (the items on the ports
/// of `memory`) kept ([`memory::fit`]); `None` when its bound is already
/// within 1% of `tp` (or it has none).
fn fitted_ports(pp: &Value, memory: &[Value], tp: f64) -> Option<Value> {
    let bound = port_bound(pp).filter(|b| *b > 0.0)?;
    if ((bound - tp) / bound).abs() < 0.01 {
        return None;
    }
    let (op, mem) = memory::split(pp, memory);
    Some(memory::fit(op, mem, Some(tp)))
}

/// The ports of a form the base does not name exactly ([`fallback`]),
/// fitted to its throughput with its loads and stores, and where they
/// came from; `None` when the base has nothing near it.
fn base_fallback(
    isa: &'static Isa,
    base: &Base,
    names: &HashMap<String, Vec<usize>>,
    kinds: &HashMap<String, Value>,
    c: &Candidate,
    entry: &Entry,
) -> Option<(fallback::Source, Value)> {
    let tp = entry.throughput;
    if let Some(b) = fallback::wildcard(&base.forms, names, c) {
        let pp = b.get("port_pressure")?.clone();
        let fitted = tp.and_then(|t| fitted_ports(&pp, &base.memory, t));
        return Some((fallback::Source::Wildcard, fitted.unwrap_or(pp)));
    }
    let mem = base.accesses(memory_access(isa, entry).unwrap_or((false, false)));
    let (source, op) = match fallback::same_name(&base.forms, names, c) {
        Some(b) => (
            fallback::Source::SameName,
            memory::split(b.get("port_pressure")?, &base.memory).0,
        ),
        None => {
            // A vector kind the base has no form of takes the next
            // narrower one's (the same units), before the usual ports of
            // all (its integer units).
            let kind = fallback::kind(&c.operands).unwrap_or_default();
            let narrower: &[&str] = match kind.as_str() {
                "zmm" => &["ymm", "xmm"],
                "ymm" => &["xmm"],
                _ => &[],
            };
            let usual = std::iter::once(kind.as_str())
                .chain(narrower.iter().copied())
                .chain([""])
                .find_map(|k| kinds.get(k));
            match usual {
                Some(pp) => (fallback::Source::Kind, pp.as_sequence()?.clone()),
                None if !mem.is_empty() => (fallback::Source::Kind, Vec::new()),
                None => return None,
            }
        }
    };
    Some((source, memory::fit(op, mem, tp)))
}

/// Whether form `m` has a port pressure of at least one item.
fn has_ports(m: &Mapping) -> bool {
    m.get("port_pressure")
        .and_then(Value::as_sequence)
        .is_some_and(|p| !p.is_empty())
}

/// Whether `entry` reads and whether it writes memory through an
/// operand; `None` when it has no memory operand. The target's word on
/// the LLVM form where it has one (a database written before it read
/// every memory a form uses says `movsq` neither reads nor writes), else
/// the database's.
fn memory_access(isa: &'static Isa, entry: &Entry) -> Option<(bool, bool)> {
    let recorded = entry
        .operands
        .iter()
        .find(|o| o.class == "memory")
        .map(|m| (m.read, m.write))?;
    Some(
        isa.instr(&entry.llvm_name)
            .and_then(|f| crate::arch::target(isa.arch()).memory_access(f))
            .unwrap_or(recorded),
    )
}

/// The register form of memory form `c` among `keys`: the same name and
/// operands with a register (no mask) where `c` has its memory operand.
fn register_variant<'k, 'a>(
    keys: &'k [Candidate<'a>],
    by_name: &HashMap<String, Vec<usize>>,
    c: &Candidate,
) -> Option<&'k Candidate<'a>> {
    let at = memory_position(&c.operands)?;
    by_name
        .get(&c.name.to_lowercase())?
        .iter()
        .map(|&i| &keys[i])
        .find(|r| register_in_place(&r.operands, &c.operands, at))
}

/// Where the first memory operand of `operands` is.
fn memory_position(operands: &[Value]) -> Option<usize> {
    operands
        .iter()
        .position(|o| o.get("class").and_then(Value::as_str) == Some("memory"))
}

/// Whether `reg`'s operands are `mem`'s with a register (no mask) at `at`.
fn register_in_place(reg: &[Value], mem: &[Value], at: usize) -> bool {
    reg.len() == mem.len()
        && reg.iter().zip(mem).enumerate().all(|(i, (a, b))| {
            if i == at {
                a.get("class").and_then(Value::as_str) == Some("register")
                    && a.get("mask").is_none()
            } else {
                operand_key(a) == operand_key(b)
            }
        })
}

/// A candidate's port pressure without a base: the ports `winic ports`
/// inferred, else its throughput spread over the first ports.
fn pressure_without_base(c: &Candidate, ports: &DerivedPorts) -> Option<Value> {
    let entry = c.entries[0].0;
    inferred_pressure(entry).or_else(|| entry.throughput.map(|tp| ports.pressure(tp)))
}

/// Where an added form's port pressure comes from: with a base, the
/// base; without, `winic ports`.
enum Ports<'a> {
    /// The base form of the same LLVM form under another name, and the
    /// base's load and store items (kept when it is fitted).
    Borrowed(&'a Mapping, &'a [Value]),
    /// The ports `winic ports` inferred for it ([`inferred_pressure`]).
    Inferred(Value),
    /// Already fitted to its throughput ([`memory::fit`]).
    Fitted(Value),
}

/// The `port_pressure` of the ports `winic ports` inferred for `entry`
/// (its `inferredPorts`), or `None` without them.
fn inferred_pressure(entry: &Entry) -> Option<Value> {
    if entry.inferred_ports.is_empty() {
        return None;
    }
    let items = entry
        .inferred_ports
        .iter()
        .map(|u| {
            let ports = u.ports.iter().map(|p| Value::from(p.as_str())).collect();
            Value::Sequence(vec![num(u.cycles), Value::Sequence(ports)])
        })
        .collect();
    Some(Value::Sequence(items))
}

/// The port pressure OSACA itself gives a memory form its file lacks:
/// that of the form with a register in place of the memory operand, plus
/// the file's default load ports where the form reads the memory and its
/// default store ports where it writes it (`ArchSemantics.assign_tp_lt`
/// in OSACA 0.7.1). Without it, an added `vaddsd xmm, xmm, [m]` had no
/// ports, OSACA counted it as costing nothing, and the AVX2 sum loop was
/// predicted at 0.20 cycles where its loads alone take 2.
fn memory_variant_ports(
    isa: &'static Isa,
    base: &Base,
    names: &HashMap<String, Vec<usize>>,
    c: &Candidate,
    entry: &Entry,
) -> Option<Value> {
    let at = memory_position(&c.operands)?;
    let reg = names
        .get(&c.name.to_lowercase())?
        .iter()
        .map(|&i| &base.forms[i])
        .find(|f| register_in_place(&form_operands(f), &c.operands, at))?;
    let op = reg.get("port_pressure")?.as_sequence()?.clone();
    let mem = base.accesses(memory_access(isa, entry).unwrap_or((true, false)));
    Some(memory::fit(op, mem, entry.throughput))
}

/// A form the base lacks: winic's values; the port pressure of `ports`
/// (borrowed or combined) scaled to the throughput, or of the `derived`
/// ports without a base, else none.
fn new_form(
    c: &Candidate,
    entry: &Entry,
    ports: Option<Ports>,
    derived: Option<&DerivedPorts>,
) -> Mapping {
    let mut m = Mapping::new();
    m.insert(Value::from("name"), Value::from(c.name.as_str()));
    m.insert(
        Value::from("llvm_name"),
        Value::from(entry.llvm_name.as_str()),
    );
    m.insert(Value::from("operands"), Value::Sequence(c.operands.clone()));
    m.insert(
        Value::from("latency"),
        osaca_latency(entry).map_or(Value::Null, num),
    );
    m.insert(
        Value::from("throughput"),
        entry.throughput.map_or(Value::Null, num),
    );
    let borrowed = match &ports {
        Some(Ports::Borrowed(b, _)) => Some(*b),
        _ => None,
    };
    // Given ports are fitted to the throughput (a borrowed form's loads
    // and stores kept); without them, the derived ports spread it.
    let fit = |pp: Value, memory: &[Value]| match entry.throughput {
        Some(tp) => fitted_ports(&pp, memory, tp).unwrap_or(pp),
        None => pp,
    };
    let pp = match (ports, derived, entry.throughput) {
        (Some(Ports::Borrowed(b, memory)), _, _) => b
            .get("port_pressure")
            .cloned()
            .map_or(Value::Sequence(vec![]), |pp| fit(pp, memory)),
        (Some(Ports::Inferred(pp)), _, _) => fit(pp, &[]),
        (Some(Ports::Fitted(pp)), _, _) => pp,
        (None, Some(p), Some(tp)) => p.pressure(tp),
        // Only an upper bound (its copies chained through implicit
        // registers no helper broke: `div r64`'s rax and rdx, 17 cycles on
        // zen3): that bound on the first port, not one cycle, which made a
        // loop with a division seem 15 times faster. Measured for its
        // latency only: a cycle on the first port, so that OSACA does not
        // count it as free.
        (None, Some(p), None) => p.pressure(entry.throughput_max.unwrap_or(1.0)),
        (None, None, _) => Value::Sequence(vec![]),
    };
    m.insert(Value::from("port_pressure"), pp);
    if let Some(uops) = borrowed.and_then(|b| b.get("uops")) {
        m.insert(Value::from("uops"), uops.clone());
    }
    m
}

/// Without a base, the ports are abstract: as many as the fastest
/// measured form issues per cycle, and a form of reciprocal
/// throughput `t` spread evenly over the first `round(1/t)` of them (one
/// port for `t >= 1`), so that each form alone is bound at its measured
/// throughput. Which unit a form really uses, and so which forms compete,
/// no throughput or latency tells.
pub struct DerivedPorts {
    names: Vec<String>,
    /// Some forms have ports `winic ports` inferred.
    inferred: bool,
}

impl DerivedPorts {
    fn pressure(&self, tp: f64) -> Value {
        if tp <= 0.0 {
            return Value::Sequence(vec![]);
        }
        let k = ((1.0 / tp).round() as usize).clamp(1, self.names.len());
        let ports = self.names[..k]
            .iter()
            .map(|p| Value::from(p.as_str()))
            .collect();
        let cycles = (tp * k as f64 * 10_000.0).round() / 10_000.0;
        Value::Sequence(vec![Value::Sequence(vec![
            num(cycles),
            Value::Sequence(ports),
        ])])
    }
}

fn derived_ports(keys: &[Candidate]) -> DerivedPorts {
    let fastest = keys
        .iter()
        .flat_map(|c| c.entries.iter().filter_map(|(e, _)| e.throughput))
        .filter(|t| *t > 0.0)
        .reduce(f64::min);
    let n = fastest.map_or(1, |t| ((1.0 / t).round() as usize).clamp(1, 16));
    // The ports `winic ports` named (it numbers them), which the
    // exported forms use.
    let named: std::collections::BTreeSet<&str> = keys
        .iter()
        .flat_map(|c| &c.entries[0].0.inferred_ports)
        .flat_map(|u| &u.ports)
        .map(String::as_str)
        .collect();
    let numbered = named
        .iter()
        .filter_map(|p| p.parse::<usize>().ok().map(|p| p + 1))
        .max()
        .unwrap_or(0);
    let mut names: Vec<String> = (0..n.max(numbered)).map(|i| i.to_string()).collect();
    names.extend(
        named
            .iter()
            .filter(|p| p.parse::<usize>().is_err())
            .map(|p| p.to_string()),
    );
    DerivedPorts {
        names,
        inferred: !named.is_empty(),
    }
}

/// A base machine file: its top-level text up to `instruction_forms:`,
/// kept as written, and its forms, one per name (`name: [jo, jno]` is
/// two, as OSACA reads it).
struct Base {
    path: PathBuf,
    top: String,
    isa: String,
    forms: Vec<Mapping>,
    /// `load_throughput_default` and `store_throughput_default`: the
    /// ports of a load and of a store.
    load_ports: Vec<Value>,
    store_ports: Vec<Value>,
    /// Every item of its load and store throughputs, defaults and per
    /// register kind: what a form's loads and stores look like in it.
    memory: Vec<Value>,
    /// Top-level fields written as one pair where OSACA reads a list of
    /// pairs, written as that list ([`one_pair`]).
    repaired: Vec<&'static str>,
}

/// A port pressure written as one `[cycles, ports]` pair instead of a list
/// of them, as a list of that pair: OSACA 0.7.1's `zen3.yml` has
/// `store_throughput_default: [1 ,['13']]`, and OSACA, which unpacks each
/// element as a pair, stops on the first store it has no entry for
/// ("cannot unpack non-iterable int object": `prefix_sum` on Zen 3).
/// `None` for anything else.
fn one_pair(pp: &[Value]) -> Option<Value> {
    match pp {
        [cycles, ports] if cycles.is_number() && ports.is_sequence() => {
            Some(Value::Sequence(vec![Value::Sequence(pp.to_vec())]))
        }
        _ => None,
    }
}

/// `top` with the line `key: …` written as `key: fixed` and a comment
/// naming the value it had; `None` when the field is not on one line.
fn replace_flow_line(top: &str, key: &str, fixed: &Value, old: &Value) -> Option<String> {
    let prefix = format!("{key}:");
    let line = top.lines().find(|l| l.starts_with(&prefix))?;
    let value = line[prefix.len()..].split('#').next().unwrap_or("").trim();
    if !(value.starts_with('[') && value.ends_with(']')) {
        return None;
    }
    let new = format!(
        "{key}: {}  # winic: a list of the one pair the base wrote ({})",
        yaml::flow(fixed),
        yaml::flow(old)
    );
    Some(top.replacen(line, &new, 1))
}

impl Base {
    /// The base's default load where a form reads memory (`.0`) and its
    /// default store where it writes it (`.1`).
    fn accesses(&self, (read, write): (bool, bool)) -> Vec<Value> {
        let mut mem = Vec::new();
        if read {
            mem.extend(self.load_ports.iter().cloned());
        }
        if write {
            mem.extend(self.store_ports.iter().cloned());
        }
        mem
    }

    fn load(path: &Path) -> Result<Base, Error> {
        Base::load_as(
            path,
            "--base",
            "give one of OSACA's machine files (e.g. zen4.yml from OSACA's data directory)",
        )
    }

    /// `path`, given as `option`; a bad file's error ends in `hint`.
    fn load_as(path: &Path, option: &str, hint: &str) -> Result<Base, Error> {
        let text = crate::input::read_at_most(path, crate::db::bounds::MAX_BYTES)
            .map_err(|e| Error::Io(format!("reading {option} {}", path.display()), e))?
            .ok_or_else(|| {
                Error::BadInput(format!(
                    "{option} {}: larger than the {} winic reads; {hint}",
                    path.display(),
                    crate::input::size(crate::db::bounds::MAX_BYTES)
                ))
            })?;
        let bad =
            |what: String| Error::BadInput(format!("{option} {}: {what}; {hint}", path.display()));
        // A file from elsewhere: bounded as a database is, before parsing.
        if let Some((line, col, token)) = crate::db::bounds::anchor_or_alias(&text) {
            return Err(bad(format!(
                "line {line}, column {col}: the YAML anchor or alias `{token}` is refused \
                 (OSACA's files have none, and an alias is expanded each time it is used)"
            )));
        }
        if let Some(why) = crate::db::bounds::too_many_nodes(&text) {
            return Err(bad(why));
        }
        let doc: Value = serde_yaml::from_str(&text).map_err(|e| bad(format!("not YAML: {e}")))?;
        let top_map = doc
            .as_mapping()
            .ok_or_else(|| bad("not a mapping of OSACA's fields".into()))?;
        let forms = top_map
            .get("instruction_forms")
            .and_then(Value::as_sequence)
            .ok_or_else(|| bad("no `instruction_forms` list".into()))?;
        let isa = top_map
            .get("isa")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("no `isa` field".into()))?
            .to_string();
        let cut = text
            .lines()
            .scan(0usize, |pos, l| {
                let at = *pos;
                *pos += l.len() + 1;
                Some((at, l))
            })
            .find(|(_, l)| l.starts_with("instruction_forms:"))
            .map(|(at, _)| at)
            .ok_or_else(|| bad("no `instruction_forms:` line at the start of a line".into()))?;
        let mut top = text[..cut].to_string();
        let mut repaired = Vec::new();
        for key in ["load_throughput_default", "store_throughput_default"] {
            let Some(old) = top_map.get(key) else {
                continue;
            };
            if let Some(fixed) = old.as_sequence().and_then(|s| one_pair(s)) {
                if let Some(t) = replace_flow_line(&top, key, &fixed, old) {
                    top = t;
                    repaired.push(key);
                }
            }
        }
        let mut expanded = Vec::new();
        for (i, f) in forms.iter().enumerate() {
            let m = f
                .as_mapping()
                .ok_or_else(|| bad(format!("instruction form {} is no mapping", i + 1)))?;
            match m.get("name") {
                Some(Value::Sequence(names)) => {
                    for n in names {
                        let mut one = m.clone();
                        one.insert(Value::from("name"), n.clone());
                        expanded.push(one);
                    }
                }
                Some(Value::String(_)) => expanded.push(m.clone()),
                _ => return Err(bad(format!("instruction form {} has no name", i + 1))),
            }
        }
        let ports = |key: &str| {
            let pp = top_map
                .get(key)
                .and_then(Value::as_sequence)
                .cloned()
                .unwrap_or_default();
            match one_pair(&pp) {
                Some(Value::Sequence(fixed)) => fixed,
                _ => pp,
            }
        };
        let (load_ports, store_ports) = (
            ports("load_throughput_default"),
            ports("store_throughput_default"),
        );
        let mut memory: Vec<Value> = [load_ports.clone(), store_ports.clone()].concat();
        for key in ["load_throughput", "store_throughput"] {
            let by_kind = top_map.get(key).and_then(Value::as_sequence);
            for pp in by_kind
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("port_pressure"))
            {
                memory.extend(pp.as_sequence().into_iter().flatten().cloned());
            }
        }
        Ok(Base {
            path: path.to_path_buf(),
            top,
            isa,
            forms: expanded,
            load_ports,
            store_ports,
            memory,
            repaired,
        })
    }

    fn check_isa(&self, arch: Arch) -> Result<(), Error> {
        self.check_isa_as(arch, "--base", "give a base of the same core")
    }

    fn check_isa_as(&self, arch: Arch, option: &str, hint: &str) -> Result<(), Error> {
        let want = osaca_isa(arch);
        if !self.isa.eq_ignore_ascii_case(want) {
            return Err(Error::BadInput(format!(
                "{option} {}: its isa is `{}`, the database's is {arch} (`{want}` in OSACA): \
                 {hint}",
                self.path.display(),
                self.isa
            )));
        }
        Ok(())
    }
}

fn form_name(f: &Mapping) -> String {
    f.get("name")
        .map(|n| yaml::flow(n).trim_matches('"').to_string())
        .unwrap_or_default()
}

fn form_operands(f: &Mapping) -> Vec<Value> {
    f.get("operands")
        .and_then(Value::as_sequence)
        .cloned()
        .unwrap_or_default()
}

fn osaca_isa(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "x86",
        Arch::Aarch64 => "AArch64",
        Arch::Riscv64 => "riscv",
    }
}

/// What a file without a base says of loads and stores.
const MEMORY_NOTE: &str =
    "# load_latency: the address -> result latency winic measured of each kind's plain\n\
     #   load (mov r64, [m]; movaps xmm, [m]; ldr x, [m] …; where it is a range, its upper\n\
     #   bound; ~ where not measured); store_to_load_forward_latency: a general-purpose\n\
     #   store and its reload's round trip less that load latency (0 where not measured).\n\
     #   The reorder buffer and the scheduler are unknown (~).\n";

fn header(out: &mut String, req: &OsacaRequest, c: &Counts, base: Option<&Base>) {
    let dbs: Vec<String> = req
        .databases
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    out.push_str(&format!(
        "# OSACA machine file written by winic {} (`winic export --osaca`)\n\
         # from the winic database(s) {} ({})\n",
        env!("CARGO_PKG_VERSION"),
        dbs.join(", "),
        req.arch
    ));
    if !c.repaired.is_empty() {
        out.push_str(&format!(
            "# base: {} written as one [cycles, ports] pair, which OSACA cannot read: here as a\n\
             #   list of that pair\n",
            c.repaired.join(" and ")
        ));
    }
    match base {
        Some(b) => out.push_str(&format!(
            "# base: {} (its top-level fields and port model are kept as written)\n\
             # forms: {} updated with winic's values ({} with the port pressure fitted to\n\
             #   winic's throughput, the base's loads and stores kept: the operation takes\n\
             #   the rest; {} the base named without ports, given them as below), {} added\n\
             #   ({} with the base's ports of the same LLVM form under its other name, {}\n\
             #   memory forms with their register form's ports and a load's or a store's,\n\
             #   as OSACA composes them; {} of a base form whose wildcard operands match\n\
             #   them, {} of the base form of the same name with the nearest operands, {}\n\
             #   the ports the base's forms of their register kind use most, each with\n\
             #   its loads and stores, fitted to winic's throughput; {} with none), {} left\n\
             #   as the base had them ({} of them without ports, as there)\n",
            b.path.display(),
            c.updated,
            c.rescaled,
            c.filled,
            c.added,
            c.added_with_ports,
            c.added_composed,
            c.added_fallback[0],
            c.added_fallback[1],
            c.added_fallback[2],
            c.portless,
            c.kept,
            c.kept_portless
        )),
        None if c.inferred > 0 || c.memory_composed > 0 => out.push_str(&format!(
            "# no base: {} forms, all measured by winic.\n\
             # The port model is inferred by `winic ports` from timing alone (no performance\n\
             #   counter): {} forms have the ports it fitted to mixes of forms, numbered\n\
             #   by that run, not the vendor's names, each one fit among others. {} memory\n\
             #   forms are their register form's ports ({} without one) plus their loads\n\
             #   and stores on the load ports L* and store ports S* (as many as the fastest\n\
             #   measured load and store issue per cycle; a store also takes an L* slot\n\
             #   where `winic ports` found it sharing the loads' address units), fitted to\n\
             #   the form's throughput. The other {} (more than one micro-op, forms it did\n\
             #   not place) are spread over the first round(1/t) ports by their reciprocal\n\
             #   throughput t, so each alone is bound at t, but whom they compete with is\n\
             #   unknown; one measured for its latency only takes a cycle on the first.\n\
             {MEMORY_NOTE}",
            c.added,
            c.inferred,
            c.memory_composed,
            c.memory_alone,
            c.added - c.inferred - c.memory_composed
        )),
        None => out.push_str(&format!(
            "# no base: {} forms, all measured by winic.\n\
             # What this file cannot know: the port model. winic measures throughput and\n\
             #   latency with timers, not performance counters, so which execution unit a\n\
             #   form uses, and which forms compete for one, is unknown (`winic ports -o`\n\
             #   infers it into the database). The ports below are abstract: as many as the\n\
             #   fastest form issues per cycle; a form of reciprocal throughput t is spread\n\
             #   over the first round(1/t) of them, so it alone is bound at t, and forms of\n\
             #   different units are modelled as sharing.\n\
             {MEMORY_NOTE}",
            c.added
        )),
    }
    if let Some(w) = &c.dispatch {
        out.push_str(&w.note());
    }
    if c.read_port > 0 {
        out.push_str(&format!(
            "# {}: a read port beside the ports, taken by {} forms that read three vector\n\
             #   registers, where `winic ports` found pairs of them slower than their ports\n\
             #   say (Zen 4: an FMA beside a merge-masked form); at most a form's\n\
             #   throughput, so each alone is bound as before.\n",
            crate::db::READ_PORT,
            c.read_port
        ));
    }
    out.push_str(&format!(
        "# latency: the form's largest exact sub-latency (winic's `latency`); throughput:\n\
         #   reciprocal, cycles per instruction; llvm_name: the LLVM record measured.\n\
         # {} LLVM forms share their OSACA form with another whose values it has\n\
         #   (OSACA's gpr has no width; masks and broadcasts match the plain operand):\n\
         #   the general form is taken (no fixed register, mask or broadcast), the\n\
         #   slowest of those; comments name the others.\n",
        c.folded
    ));
    let skipped: usize = c.not_exportable.values().map(|v| v.0).sum();
    if skipped > 0 {
        out.push_str(&format!(
            "# {skipped} measured forms are not here: OSACA cannot spell an operand of them\n"
        ));
    }
}

/// What the database says of loads and stores, in OSACA's terms.
#[derive(Debug, PartialEq)]
struct MemoryLatencies {
    /// Per register kind, the load's memory -> register latency: exact,
    /// else the upper bound of its range (as [`form_latency`] reads a
    /// form); `None` where the load was not measured.
    load: Vec<(&'static str, Option<f64>)>,
    /// The general-purpose store and reload's round trip less the load's
    /// latency, which OSACA adds itself.
    forward: Option<f64>,
}

/// The load latencies and the forwarding latency of `db` ([`memory::LOADS`]).
fn memory_latencies(db: &Database, arch: Arch) -> MemoryLatencies {
    // A sub-latency from the memory operand: the round trip of a store
    // (data -> memory, up to the reload), the address of a load.
    let from_memory = |name: &str, into_memory: bool| {
        let e = db.get(name)?;
        let memory = e.memory_keys();
        let pairs: Vec<crate::db::OperandLatency> = e
            .operand_latencies
            .iter()
            .filter(|l| memory.contains(&l.target_operand) == into_memory)
            .filter(|l| memory.contains(&l.source_operand) != into_memory)
            .cloned()
            .collect();
        crate::db::form_latency(&pairs)
    };
    let load: Vec<(&'static str, Option<f64>)> = memory::LOADS
        .iter()
        .filter(|(a, _, _)| *a == arch)
        .map(|(_, kind, form)| (*kind, from_memory(form, false)))
        .collect();
    let gpr_load = load.first().and_then(|(_, l)| *l);
    // The general-purpose store, whose round trip with that load gives
    // the store-to-load forwarding latency.
    let (_, store) = memory::general_load_and_store(arch);
    let forward = from_memory(store, true)
        .zip(gpr_load)
        .map(|(round_trip, load)| (round_trip - load).max(0.0));
    MemoryLatencies { load, forward }
}

fn top_level_without_base(
    out: &mut String,
    req: &OsacaRequest,
    ports: &DerivedPorts,
    memory: &MemoryLatencies,
    units: Option<&MemoryPorts>,
    dispatch: Option<&dispatch::Width>,
) {
    let null = Value::Null;
    let mut lat = Mapping::new();
    for (k, l) in &memory.load {
        lat.insert(Value::from(*k), l.map_or(Value::Null, num));
    }
    // The memory pools' ports, unless the inferred ones name them already
    // (`winic ports -o` writes L* and S* into the database): a port named
    // twice is two columns in OSACA's table.
    let memory_ports: Vec<String> = units
        .map(|u| {
            let wide = u.load.uses_wide().then(|| memory::WIDE_DATA.to_string());
            [u.load.ports.clone(), u.store.ports.clone()]
                .concat()
                .into_iter()
                .chain(wide)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|p| !ports.names.contains(p))
        .collect();
    let port_list = Value::Sequence(
        ports
            .names
            .iter()
            .chain(&memory_ports)
            .map(|p| Value::from(p.as_str()))
            .chain(dispatch.map(|_| Value::from(dispatch::PORT)))
            .collect(),
    );
    let none = || Value::Sequence(vec![]);
    let (load_tp, load_default, store_tp, store_default) = match units {
        Some(u) => (
            u.load.by_kind("dst"),
            Value::Sequence(u.load.items(None)),
            u.store.by_kind("src"),
            Value::Sequence(u.store.items(None)),
        ),
        None => (none(), none(), none(), none()),
    };
    let fields: Vec<(&str, Value)> = vec![
        ("osaca_version", Value::from("0.7.1")),
        (
            "micro_architecture",
            Value::from(format!("measured by winic ({})", req.arch)),
        ),
        ("arch_code", Value::from("winic")),
        ("isa", Value::from(osaca_isa(req.arch))),
        ("ROB_size", null.clone()),
        ("retired_uOps_per_cycle", null.clone()),
        ("scheduler_size", null.clone()),
        ("hidden_loads", Value::Bool(false)),
        ("load_latency", Value::Mapping(lat)),
        ("load_throughput", load_tp),
        ("load_throughput_default", load_default),
        ("store_throughput", store_tp),
        ("store_throughput_default", store_default),
        // OSACA adds it to a latency when it finds a store and a load of
        // the same address: `~` there is a crash, not an unknown.
        (
            "store_to_load_forward_latency",
            num(memory.forward.unwrap_or(0.0)),
        ),
        ("ports", port_list),
        (
            "port_model_scheme",
            Value::from(format!(
                "{}{}{}",
                match ports.inferred {
                    true => format!(
                        "{} ports inferred by winic ports from timing alone (numbered, not the \
                         vendor's names)\n",
                        ports.names.len()
                    ),
                    false => format!(
                        "{} abstract ports derived from winic's throughputs (no unit is known)\n",
                        ports.names.len()
                    ),
                },
                match units {
                    Some(u) => format!(
                        "{} load ports (L*) and {} store ports (S*): as many as the fastest \
                         measured load and store issue per cycle\n{}",
                        u.load.ports.len(),
                        u.store.ports.len(),
                        if u.load.uses_wide() {
                            format!(
                                "{}: the wide loads' data path; a load slower than the \
                                 general-purpose one (but faster than a cycle of every load \
                                 port) takes a slot of L* and its cycles there\n",
                                memory::WIDE_DATA
                            )
                        } else {
                            String::new()
                        }
                    ),
                    None => String::new(),
                },
                dispatch.map_or(String::new(), |w| format!(
                    "{}: dispatch, {} instructions a cycle; every form takes 1/{} cycle of it\n",
                    dispatch::PORT,
                    w.slots,
                    w.slots
                )),
            )),
        ),
    ];
    for (k, v) in &fields {
        yaml::top_level(out, k, v);
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "osaca.yml".into());
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::Io(format!("writing {}", path.display()), e)
        })
}

fn summary(req: &OsacaRequest, c: &Counts) -> String {
    let mut s = format!(
        "OSACA machine file {} ({}): {} measured forms in the database(s)\n",
        req.output.display(),
        req.arch,
        c.measured
    );
    match &req.base {
        Some(b) => s.push_str(&format!(
            "  base {}: {} forms updated ({} port pressures fitted to winic's throughput, {} \
             given ports the base named them without), \
             {} added ({} with the base's ports under another name of the form, {} memory \
             forms with ports composed from their register form's, {} with the ports of a \
             base form whose wildcard operands match them, {} of the base form of the same \
             name with the nearest operands, {} the usual ports of their register kind, {} \
             without ports), {} left as the base had them ({} of them without ports, as \
             there)\n",
            b.display(),
            c.updated,
            c.rescaled,
            c.filled,
            c.added,
            c.added_with_ports,
            c.added_composed,
            c.added_fallback[0],
            c.added_fallback[1],
            c.added_fallback[2],
            c.portless,
            c.kept,
            c.kept_portless
        )),
        None if c.inferred > 0 || c.memory_composed > 0 => s.push_str(&format!(
            "  no base: {} forms added, {} with the ports winic ports inferred ({} of them the \
             nearest set, no set fitting their mixes within 10%), {}{} spread over the first \
             ports by their throughput (the file's header says what it cannot know)\n",
            c.added,
            c.inferred,
            c.inferred_misfit,
            match c.memory_composed {
                0 => String::new(),
                n => format!(
                    "{n} memory forms as their loads and stores on winic's load and store ports \
                     plus their register form's ports ({} without a register form: loads and \
                     stores alone; {} with the register form's inferred ports; {} with its ports \
                     spread), ",
                    c.memory_alone,
                    c.memory_on_inferred,
                    n - c.memory_alone - c.memory_on_inferred
                ),
            },
            c.added - c.inferred - c.memory_composed
        )),
        None => s.push_str(&format!(
            "  no base: {} forms added; the ports are abstract (derived from the \
             throughputs: the file's header says what it cannot know; winic ports -o \
             infers them)\n",
            c.added
        )),
    }
    if let Some(w) = &c.dispatch {
        s.push_str(&format!(
            "  dispatch: {} instructions a cycle ({} at {:.2} cycles, the fastest form that \
             writes a register): every form takes 1/{} cycle of port {}\n",
            w.slots,
            w.form,
            w.throughput,
            w.slots,
            dispatch::PORT
        ));
    }
    if !c.repaired.is_empty() {
        s.push_str(&format!(
            "  base's {}: one [cycles, ports] pair, which OSACA cannot read, written as a list of it\n",
            c.repaired.join(" and ")
        ));
    }
    s.push_str(&format!(
        "  {} LLVM forms share their OSACA form with another (named in comments)\n",
        c.folded
    ));
    if c.sized > 0 {
        s.push_str(&format!(
            "  {} forms also under the name OSACA's Intel parser gives them for a DWORD or QWORD \
             operand, where the file has that name (`mov QWORD PTR [m], r` is looked up as `movq`)\n",
            c.sized
        ));
    }
    for (reason, (n, example)) in &c.not_exportable {
        s.push_str(&format!(
            "  not exported: {n} ({}; e.g. {example})\n",
            reason.label()
        ));
    }
    s
}

#[cfg(test)]
mod tests;
