//! Mixes with memory forms: the memory model the export composes, tested
//! on what it was not built from.
//!
//! `winic export --osaca` without a base makes a memory form its register
//! form's ports plus its access on winic's load ports `L*` or store ports
//! `S*` (and, where stores share the loads' address units, a slot on
//! `L*`), each access taking the cycles the plain access of its width
//! takes ([`super::memory`], [`super::split`]). This experiment measures
//! mixes of three forms, at least one of them a load-op or a store of a
//! register form the fit placed, or a plain load or store, beside each
//! part's copies alone, and predicts them with that composition: the
//! register parts by the fitted mapping (its wide mode and issue width),
//! the accesses on the `L` and `S` ports. A mix bound by one part's own
//! copies alone tests no port and is listed, not counted, as with the
//! held-back mixes of register forms.

use super::memory::Units;
use super::operation::Operations;
use super::split::LineSplits;
use super::{measure_bodies, spread_bottleneck, Conflicts, HeldRow, Mapping, MixTable};
use crate::arch::{Inst, Target};
use crate::exec::run::Options;
use crate::isa::{Arch, Flag, Instr, Isa};
use crate::kernel::shape;
use crate::mode::reason::Unmeasured;

/// The first bit of the load ports in a port set: above the fitted ports
/// and the lost-port marks of the wide mode (below 16), below [`super::MOVES`].
const L_BIT: u32 = 16;

/// The first bit of the store ports.
const S_BIT: u32 = 24;

/// The bit of the wide loads' data path: below [`super::MOVES`].
const D_BIT: u32 = 30;

/// Most copies of one part per unit.
const MOST_RATIO: usize = 4;

/// The accesses of the model: ports and, per access width in bytes, the
/// cycles one access takes on its ports (one access a cycle on one of N
/// ports is N/N = 1: cycles times ports).
#[derive(Clone, Debug)]
pub struct Accesses {
    /// Load and store ports.
    pub ports: (u32, u32),
    /// Whether a store also takes a load port's slot (shared address units).
    pub shared: bool,
    /// Per width (bytes), load and store cycles an access alone.
    pub by_width: Vec<(u32, f64, f64)>,
}

impl Accesses {
    /// The model `units` (loads and stores together) and, where measured,
    /// the plain access of each width alone (`splits`' aligned times)
    /// give; `None` with more ports than the port sets have room for.
    pub fn of(units: &Units, splits: Option<&LineSplits>) -> Option<Accesses> {
        let (l, s) = (units.ports.0 as u32, units.ports.1 as u32);
        if l > S_BIT - L_BIT || s > D_BIT - S_BIT {
            return None;
        }
        // The general-purpose width from the loads-and-stores mix; the
        // wider ones where both their load and store were measured alone.
        let mut by_width = vec![(8, units.load.1, units.store.1)];
        let measured = splits.map_or(&[][..], |s| &s.measured[..]);
        for bytes in [16, 32, 64] {
            let alone = |store: bool| {
                measured
                    .iter()
                    .find(|m| m.kind.bytes == bytes && m.store == store)
                    .map(|m| m.aligned)
            };
            if let (Some(load), Some(store)) = (alone(false), alone(true)) {
                by_width.push((bytes, load, store));
            }
        }
        Some(Accesses {
            ports: (l, s),
            shared: units.shared().is_some(),
            by_width,
        })
    }

    /// The micro-ops of one access of `bytes` bytes (a store when
    /// `store`): cycles on the `L` or `S` set, and a slot on `L` for a
    /// store where the units are shared. The cost of the narrowest width
    /// not narrower than `bytes` (the widest known otherwise). A load
    /// slower alone than the general-purpose one, but faster than a cycle
    /// of every load port, takes the general one's slot on `L` (its
    /// address) and its own cycles on the wide loads' data path `D`, a
    /// resource of its own: on `zen4` two 16-byte loads run a cycle (0.50
    /// alone, against 0.33), and two 16-byte loads and a 16-byte store,
    /// or two of them and an 8-byte load, still run in 1.00 (`winic MAN`,
    /// 2026-11-29), where all on `L` would take 1.33. A load that takes
    /// as long as a cycle of every load port (`zen4`'s 64-byte one, 1.06)
    /// keeps them all: with one, two, three and six 8-byte loads it ran
    /// in 1.32, 1.69, 2.01 and 3.07 cycles, a third of a cycle each. It
    /// takes the data path as long too: beside two 32-byte loads it ran
    /// in 2.17, beside four 16-byte ones in 3.19-3.23 (the path's 2.06
    /// and 3.06; all ports alone 1.72 and 2.39).
    pub fn uops(&self, bytes: u32, store: bool) -> Vec<(u32, f64)> {
        let w = self
            .by_width
            .iter()
            .find(|w| w.0 >= bytes)
            .or(self.by_width.last())
            .expect("the general-purpose width is always known");
        let set = |first: u32, n: u32| ((1u32 << n) - 1) << first;
        let (l, s) = (set(L_BIT, self.ports.0), set(S_BIT, self.ports.1));
        if store {
            let mut out = vec![(s, w.2 * f64::from(self.ports.1))];
            if self.shared {
                out.push((l, 1.0));
            }
            out
        } else {
            use crate::export::memory::{load_path, wide_data_path, LoadPath};
            let (general, n) = (self.by_width[0].1, f64::from(self.ports.0));
            let path = self
                .by_width
                .iter()
                .any(|w| wide_data_path(w.1, general, n));
            match load_path(w.1, general, n, path) {
                LoadPath::Ports => vec![(l, w.1 * n)],
                LoadPath::Slot => vec![(l, general * n), (1 << D_BIT, w.1)],
                LoadPath::Whole => vec![(l, w.1 * n), (1 << D_BIT, w.1)],
            }
        }
    }
}

/// One form of a mix: its register form's micro-ops (a single the fit
/// placed; `None` for a plain load or store) and its access.
#[derive(Clone, Debug)]
pub(super) struct Part {
    pub form: Instr,
    /// The register form, an index into the singles.
    pub register: Option<usize>,
    /// The access: its bytes and whether it stores.
    pub access: Option<(u32, bool)>,
}

/// A mix measured: its parts with their copies per unit, and cycles per
/// unit of the mix and of its slowest part alone, or why there are none.
#[derive(Clone, Debug)]
pub struct MemoryMix {
    parts: Vec<(Part, usize)>,
    cycles: Result<f64, Unmeasured>,
    floor: Result<f64, Unmeasured>,
    noisy: bool,
}

/// What the experiment found.
#[derive(Clone, Debug)]
pub struct MemoryMixes {
    accesses: Accesses,
    mixes: Vec<MemoryMix>,
}

/// The register form of x86 memory form `form`: the same name with `rr`
/// for its `rm` or `mr`, or `ri` for its `mi` (`ADD64rm` → `ADD64rr`,
/// `VADDPDZrmk` → `VADDPDZrrk`), and the same mnemonic.
pub(super) fn register_twin(form: Instr) -> Option<Instr> {
    let isa = Isa::get(form.isa().arch());
    let name = form.name();
    [("rm", "rr"), ("mr", "rr"), ("mi", "ri")]
        .iter()
        .filter_map(|(m, r)| {
            let at = name.rfind(m)?;
            isa.instr(&format!("{}{r}{}", &name[..at], &name[at + 2..]))
        })
        .find(|t| t.mnemonic() == form.mnemonic())
}

/// The memory parts of `forms` this experiment can compose: loads (with
/// a register operand, reading memory) and stores (writing it, reading
/// none), not both, that do not do their register form's operation (the
/// access alone: as `operations` found it, else [`Instr::does_operation_of`])
/// or whose register form is a single of `found` the mapping places. x86
/// only, where the register form has a name; on the other arches the
/// general-purpose load and store of `units`.
fn memory_parts(
    t: &dyn Target,
    found: &Conflicts,
    units: &Units,
    operations: Option<&Operations>,
    forms: &[Instr],
) -> Vec<Part> {
    if found.mapping.is_none() {
        return Vec::new();
    }
    if t.arch() != Arch::X86_64 {
        return [(units.load.0, false), (units.store.0, true)]
            .into_iter()
            .filter_map(|(f, store)| {
                Some(Part {
                    form: f,
                    register: None,
                    access: Some((access_bytes(t, f)?, store)),
                })
            })
            .collect();
    }
    forms
        .iter()
        .filter(|f| crate::mode::common::early_skip(t, **f, false).is_none())
        .filter_map(|&f| {
            let access = access(t, f)?;
            let twin = register_twin(f)?;
            let alone = operations
                .and_then(|o| o.access_alone(f))
                .unwrap_or(!f.does_operation_of(twin));
            let register = if alone {
                None
            } else {
                Some(found.placed(twin)?)
            };
            Some(Part {
                form: f,
                register,
                access: Some(access),
            })
        })
        .collect()
}

/// The bytes of `form`'s access, from its example.
fn access_bytes(t: &dyn Target, form: Instr) -> Option<u32> {
    let inst: Inst = shape::throughput(t, form, 1).ok()?.into_iter().next()?;
    Some(t.access_bytes(&inst))
}

/// An x86 form's access as a memory mix composes it: a load (reads its
/// memory operand) or a store (writes it, reads none), as iced-x86 says
/// (LLVM's flags leave some off: `mov [m], r` has no mayStore in the
/// records), and the bytes whose access cost it takes: a vector form's
/// at least 16, as the export gives it the kind of its access
/// (`export::memory::access_kind`). On the Zen 4 guest three `vpmovsxbq
/// xmm, [m16]` and two `vminps xmm, [m]` beside a 512-bit multiply ran in
/// 2.50 cycles, two vector loads a cycle, where 2-byte loads on the
/// general-purpose loads' three ports gave 1.67; `vpmovsxwd zmm, [m256]`
/// takes a 32-byte load's cost, not a 64-byte one's. `None` for a form
/// that does both or neither.
pub(super) fn access(t: &dyn Target, form: Instr) -> Option<(u32, bool)> {
    let bytes = access_bytes(t, form)?;
    let bytes = match t.vector_bits(form) {
        Some(bits) if bits >= 128 => bytes.max(16),
        _ => bytes,
    };
    match t.memory_access(form)? {
        (true, false) => Some((bytes, false)),
        (false, true) => Some((bytes, true)),
        _ => None,
    }
}

/// The cycles per unit `parts` (each with its copies per unit) take under
/// `m` and `a`: the busiest set of ports over their micro-ops, never below
/// the register parts' micro-ops issued at the mapping's issue width (an
/// access beside a register part is not counted there: a load-op form
/// issues as one; an access alone issues as one: three `mov r64, [m]` and
/// six `mov r64, r64` on zen4 ran 1.50 cycles, nine at six a cycle), nor
/// below what the read port allows the register parts ([`Mapping::reads`]:
/// a load-op form takes its register form's share).
pub(super) fn predict(parts: &[(Part, usize)], m: &Mapping, a: &Accesses) -> Option<f64> {
    fitted(parts, &[], m, a)
}

/// [`predict`] with each memory part's operation and access fitted to
/// its measured throughput (`throughputs`, by part; none where missing)
/// as the export fits a form ([`crate::export::memory::fit_factors`]):
/// `pcmpeqd mm, [m]` at 0.50 cycles, where its register form's 0.25 and
/// an 8-byte load's 0.33 compose 0.33, takes twice its register form's
/// cycles.
pub(super) fn fitted(
    parts: &[(Part, usize)],
    throughputs: &[Option<f64>],
    m: &Mapping,
    a: &Accesses,
) -> Option<f64> {
    // The register parts, each with its copies per unit.
    let reads: Vec<(usize, usize)> = parts
        .iter()
        .filter_map(|(p, r)| Some((p.register?, *r)))
        .collect();
    let registers: Vec<usize> = reads.iter().map(|r| r.0).collect();
    let mut uops: Vec<(u32, f64, super::Shares)> = Vec::new();
    let mut issued = 0.0;
    for (i, (p, r)) in parts.iter().enumerate() {
        let r = *r as f64;
        // The part's operation beside `others`, and its access.
        let operation = |others: &[usize]| -> Option<Vec<(u32, f64, super::Shares)>> {
            let Some(k) = p.register else {
                return Some(Vec::new());
            };
            let lost = m.lost(k, others.iter().copied().filter(|&o| o != k));
            let sets = m.uops_of(k)?;
            Some(
                sets.into_iter()
                    .map(|set| {
                        (
                            super::without(set | m.mark(k), lost),
                            m.hold(k),
                            m.shares(k),
                        )
                    })
                    .collect(),
            )
        };
        let access: Vec<(u32, f64, super::Shares)> = p
            .access
            .map(|(bytes, store)| a.uops(bytes, store))
            .unwrap_or_default()
            .into_iter()
            .map(|(s, c)| (s, c, Default::default()))
            .collect();
        let (f_op, f_access) = match throughputs.get(i).copied().flatten() {
            Some(tp) if tp > 0.0 && p.access.is_some() => {
                let op = operation(&[])?;
                let scaled = |f: f64, uops: &[(u32, f64, super::Shares)]| {
                    uops.iter().map(|u| (u.0, u.1 * f, u.2)).collect::<Vec<_>>()
                };
                crate::export::memory::fit_factors(
                    (spread_bottleneck(&op), spread_bottleneck(&access)),
                    |f_op, f_access| {
                        spread_bottleneck(&[scaled(f_op, &op), scaled(f_access, &access)].concat())
                    },
                    tp,
                )
            }
            _ => (1.0, 1.0),
        };
        let op = operation(&registers)?;
        issued += r * op.len() as f64;
        uops.extend(op.into_iter().map(|(s, c, sh)| (s, c * r * f_op, sh)));
        uops.extend(
            access
                .into_iter()
                .map(|(s, c, sh)| (s, c * r * f_access, sh)),
        );
        if p.register.is_none() && p.access.is_some() {
            issued += r;
        }
    }
    Some(
        spread_bottleneck(&uops)
            .max(issued / m.issue_width())
            .max(m.reads_bound(&reads)),
    )
}

impl MemoryMix {
    fn name(&self) -> String {
        let names: Vec<&str> = self.parts.iter().map(|p| p.0.form.name()).collect();
        names.join(" + ")
    }
}

/// The cycles per copy `part` takes alone in the model.
pub(super) fn alone(m: &Mapping, a: &Accesses, part: &Part) -> Option<f64> {
    predict(&[(part.clone(), 1)], m, a)
}

/// Measures `count` mixes of three forms, the first a memory form of
/// `forms` ([`memory_parts`]), the others memory forms or register forms
/// the mapping places, drawn by a fixed pseudo-random sequence; each part
/// with copies in inverse proportion to its predicted time alone (at most
/// [`MOST_RATIO`] to one), beside each part's copies alone. `None` without
/// a mapping or memory forms, or in a replay of a run that measured none
/// of them.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    t: &dyn Target,
    found: &Conflicts,
    units: &Units,
    accesses: &Accesses,
    operations: Option<&Operations>,
    forms: &[Instr],
    count: usize,
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Option<MemoryMixes> {
    let m = found.mapping.as_ref()?;
    let memory = memory_parts(t, found, units, operations, forms);
    if memory.is_empty() || count == 0 {
        return None;
    }
    // Register forms the mapping places (a memory form the fit placed
    // whole is not one: its access is the model's to compose).
    let register: Vec<Part> = m
        .sets
        .iter()
        .filter(|&&(k, _)| {
            let f = found.singles[k].form;
            let touches = t.memory_access(f).is_some_and(|(r, w)| r || w);
            !touches && !f.has(Flag::MayLoad) && !f.has(Flag::MayStore)
        })
        .map(|&(k, _)| Part {
            form: found.singles[k].form,
            register: Some(k),
            access: None,
        })
        .collect();
    let n = memory.len();
    let pool: Vec<Part> = memory.into_iter().chain(register).collect();
    let mut next = super::sequence(0x2545_F491_4F6C_DD1D);
    let mut chosen: Vec<[usize; 3]> = Vec::new();
    let mut draws = 0;
    while chosen.len() < count && draws < 100 * count + 1000 {
        draws += 1;
        let mut three = [next(n), next(pool.len()), next(pool.len())];
        three[1..].sort_unstable();
        let distinct = three[0] != three[1] && three[0] != three[2] && three[1] != three[2];
        let apart = [(0, 1), (0, 2), (1, 2)].iter().any(|&(x, y)| {
            t.cannot_mix(pool[three[x]].form, pool[three[y]].form)
                .is_some()
        });
        if distinct && !apart && !chosen.contains(&three) {
            chosen.push(three);
        }
    }
    let mut bodies: Vec<(Vec<Inst>, usize)> = Vec::new();
    let mut plans: Vec<Option<(usize, Vec<usize>)>> = Vec::new();
    let mut mixes = Vec::new();
    for three in &chosen {
        let times: Vec<f64> = three
            .iter()
            .map(|&i| alone(m, accesses, &pool[i]).unwrap_or(1.0).max(1e-3))
            .collect();
        let slowest = times.iter().copied().fold(0.0, f64::max);
        let parts: Vec<(Part, usize)> = three
            .iter()
            .zip(&times)
            .map(|(&i, t)| {
                let r = ((slowest / t).round() as usize).clamp(1, MOST_RATIO);
                (pool[i].clone(), r)
            })
            .collect();
        let forms: Vec<(Instr, usize)> = parts.iter().map(|(p, r)| (p.form, *r)).collect();
        plans.push(super::queue_mix(t, &forms, &mut bodies));
        mixes.push(MemoryMix {
            parts,
            cycles: Err(Unmeasured::NoRegisters),
            floor: Err(Unmeasured::NoRegisters),
            noisy: false,
        });
    }
    let total = bodies.len();
    let got = measure_bodies(t, &bodies, opts, &mut |d| progress(d, total));
    // A raw file of a run without this experiment: left out, as it was.
    if got
        .iter()
        .any(|g| g.0.as_ref().is_err_and(Unmeasured::not_recorded))
    {
        return None;
    }
    for (mix, plan) in mixes.iter_mut().zip(plans) {
        if let Some(plan) = plan {
            (mix.cycles, mix.floor, mix.noisy) = super::mix_result(&got, &plan);
        }
    }
    Some(MemoryMixes {
        accesses: accesses.clone(),
        mixes,
    })
}

impl MemoryMixes {
    /// The report's section: the model, how many mixes it predicts within
    /// 10%, then each, the worst first. Each memory form is fitted to its
    /// `throughput` (the database's, which the export fits it to) where
    /// one is known.
    pub fn render(&self, found: &Conflicts, throughput: &dyn Fn(Instr) -> Option<f64>) -> String {
        let Some(m) = &found.mapping else {
            return String::new();
        };
        let a = &self.accesses;
        let widths: Vec<String> = a
            .by_width
            .iter()
            .map(|w| format!("{} bytes {:.2}/{:.2}", w.0, w.1, w.2))
            .collect();
        // Each memory form's throughput, where known.
        let (mut memory, mut known) = (Vec::new(), 0);
        let rows: Vec<HeldRow> = self
            .mixes
            .iter()
            .map(|x| {
                let ratio: Vec<String> = x.parts.iter().map(|p| p.1.to_string()).collect();
                let tps: Vec<Option<f64>> = x
                    .parts
                    .iter()
                    .map(|(p, _)| p.access.and(throughput(p.form)))
                    .collect();
                for (p, tp) in x.parts.iter().zip(&tps) {
                    if p.0.access.is_some() && !memory.contains(&p.0.form.opcode()) {
                        memory.push(p.0.form.opcode());
                        known += tp.is_some() as usize;
                    }
                }
                HeldRow::new(
                    x.name(),
                    ratio.join(":"),
                    (&x.cycles, &x.floor),
                    || fitted(&x.parts, &tps, m, a),
                    x.noisy,
                )
            })
            .collect();
        let table = MixTable::of(rows, "a part's own copies");
        let (within, counted, chained) = (table.within, table.counted, table.chained);
        format!(
            "mixes with memory forms, composed as the export composes them (the register form's \
             ports, then each access on {} load ports and {} store ports{}, the two fitted to \
             the form's throughput in the database: {known} of {} memory forms have one; cycles \
             an access alone, load/store: {}): {within} of {counted} predicted within 10%{}\n{}",
            a.ports.0,
            a.ports.1,
            if a.shared {
                ", a store also on a load port"
            } else {
                ""
            },
            memory.len(),
            widths.join(", "),
            if chained > 0 {
                format!(" ({chained} more bound by one part's own copies alone, not counted)")
            } else {
                String::new()
            },
            table.lines
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::bottleneck;
    use super::*;

    /// A vector form's load or store costs at least a 16-byte access,
    /// otherwise its own width; a read-modify-write form is neither.
    #[test]
    fn a_vector_access_costs_at_least_sixteen_bytes() {
        let t = crate::arch::target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        let of = |n: &str| access(t, isa.instr(n).unwrap());
        assert_eq!(of("MOV64rm"), Some((8, false)));
        assert_eq!(of("MOVSX64rm8"), Some((1, false)));
        assert_eq!(of("VPMOVSXBQZ128rm"), Some((16, false)));
        assert_eq!(of("VMAXSDZrm_Int"), Some((16, false)));
        assert_eq!(of("VPMOVZXBDZ256rm"), Some((16, false)));
        assert_eq!(of("VPMOVSXWDZrm"), Some((32, false)));
        assert_eq!(of("VMULPDZrmb"), Some((16, false)));
        assert_eq!(of("VMULPDZrm"), Some((64, false)));
        assert_eq!(of("VMOVUPSZmr"), Some((64, true)));
        assert_eq!(of("VPEXTRBZmr"), Some((16, true)));
        assert_eq!(of("ADD64mr"), None);
    }

    #[test]
    fn an_x86_memory_form_finds_its_register_form() {
        let isa = Isa::get(Arch::X86_64);
        let twin = |n: &str| register_twin(isa.instr(n).unwrap()).map(|t| t.name());
        assert_eq!(twin("ADD64rm"), Some("ADD64rr"));
        assert_eq!(twin("MOV64mr"), Some("MOV64rr"));
        assert_eq!(twin("VADDPDZrmk"), Some("VADDPDZrrk"));
        assert_eq!(twin("IMUL64rmi32"), Some("IMUL64rri32"));
        assert_eq!(twin("ADD64rr"), None);
    }

    /// zen5's loads and stores: 4 load ports, 2 store ports, shared
    /// address units; a general-purpose load is one slot of the four, a
    /// store one of the two store ports and one load slot.
    #[test]
    fn an_access_takes_its_width_s_cycles_on_its_ports() {
        let a = Accesses::of(
            &super::super::memory::tests::units(0.25, 0.5, (4, 2), 1.5),
            None,
        )
        .unwrap();
        assert!(a.shared);
        let l = 0b1111 << L_BIT;
        let s = 0b11 << S_BIT;
        assert_eq!(a.uops(8, false), vec![(l, 1.0)]);
        assert_eq!(a.uops(8, true), vec![(s, 1.0), (l, 1.0)]);
        // Only the general-purpose width known: a wider access costs as
        // much.
        assert_eq!(a.uops(64, false), vec![(l, 1.0)]);
        // 8 loads and 4 stores a unit: 12 slots on 4 load ports.
        let uops: Vec<(u32, f64)> = a
            .uops(8, false)
            .into_iter()
            .map(|(s, c)| (s, 8.0 * c))
            .chain(a.uops(8, true).into_iter().map(|(s, c)| (s, 4.0 * c)))
            .collect();
        assert_eq!(bottleneck(&uops), 3.0);
    }

    /// `pcmpeqd mm, [m]` as the Zen 4 guest ran it (0.50 cycles; its
    /// register form 0.25 on four pipes, an 8-byte load 0.33 on three
    /// ports): fitted to its throughput, alone and beside two copies of
    /// its register form it takes twice the register form's pipes, as the
    /// export writes it; without one, the composition as it is; a form
    /// faster than its composition is scaled down to its throughput.
    #[test]
    fn a_memory_form_is_fitted_to_its_throughput() {
        let found = super::super::tests::mapped(&[("MMX_PCMPEQDrr", 0b1111, Some(64))]);
        let m = found.mapping.as_ref().unwrap();
        let a = Accesses::of(
            &super::super::memory::tests::units(1.0 / 3.0, 0.5, (3, 2), 5.0 / 3.0),
            None,
        )
        .unwrap();
        let isa = Isa::get(Arch::X86_64);
        let memory = Part {
            form: isa.instr("MMX_PCMPEQDrm").unwrap(),
            register: Some(0),
            access: Some((8, false)),
        };
        let register = Part {
            form: isa.instr("MMX_PCMPEQDrr").unwrap(),
            register: Some(0),
            access: None,
        };
        let near = |x: Option<f64>, want: f64| {
            let x = x.unwrap();
            assert!((x - want).abs() < 1e-9, "{x} for {want}");
        };
        let alone = [(memory.clone(), 1)];
        near(predict(&alone, m, &a), 1.0 / 3.0);
        near(fitted(&alone, &[Some(0.5)], m, &a), 0.5);
        // Beside two of its register form: 3 pipe cycles unfitted (0.75
        // on four pipes), 4 fitted.
        let mix = [(memory.clone(), 1), (register, 2)];
        near(predict(&mix, m, &a), 0.75);
        near(fitted(&mix, &[Some(0.5), None], m, &a), 1.0);
        near(fitted(&mix, &[None, None], m, &a), 0.75);
        // Measured faster than its load alone: both parts scaled down.
        near(fitted(&alone, &[Some(0.2)], m, &a), 0.2);
    }

    /// zen4's loads (`winic MAN`, 2026-11-29): two 16-byte loads and an
    /// 8-byte one ran in 1.00 cycles, a 64-byte one and three 8-byte ones
    /// in 2.01.
    #[test]
    fn a_wide_load_takes_an_address_slot_and_the_data_path() {
        let mut a = Accesses::of(
            &super::super::memory::tests::units(1.0 / 3.0, 0.5, (3, 2), 5.0 / 3.0),
            None,
        )
        .unwrap();
        a.by_width.extend([(16, 0.5, 1.0), (64, 1.06, 2.0)]);
        let l = 0b111 << L_BIT;
        assert_eq!(a.uops(16, false), vec![(l, 1.0), (1 << D_BIT, 0.5)]);
        let times = |parts: &[(u32, f64)]| {
            let uops: Vec<(u32, f64)> = parts
                .iter()
                .flat_map(|&(bytes, r)| {
                    a.uops(bytes, false)
                        .into_iter()
                        .map(move |(s, c)| (s, c * r))
                })
                .collect();
            bottleneck(&uops)
        };
        assert!((times(&[(16, 2.0), (8, 1.0)]) - 1.0).abs() < 1e-9);
        assert!((times(&[(64, 1.0), (8, 3.0)]) - 2.06).abs() < 1e-9);
        assert_eq!(a.uops(64, false), vec![(l, 3.18), (1 << D_BIT, 1.06)]);
        assert!((times(&[(64, 1.0), (16, 4.0)]) - 3.06).abs() < 1e-9);
    }
}
