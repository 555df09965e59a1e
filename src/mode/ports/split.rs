//! Accesses across cache lines: what the plain load and store of each
//! register kind cost when every access has bytes in two cache lines.
//!
//! Each access form runs alone, 8 copies a body, three times: with every
//! access in a block of its own size (as every other experiment places
//! them); with every access across a line boundary, half in each line,
//! no two in one line, never across a page ([`Placement::LineSplit`]:
//! what a split costs); and as a stream half an access off alignment
//! ([`Placement::Misaligned`]: what a loop over an array that starts off
//! a vector's alignment pays an access, where every `64 / size`-th access
//! splits). They are the database's `lineSplitThroughput` and
//! `misalignedThroughput` of the form. A fourth placement puts every
//! access at the start of a line of its own ([`Placement::OwnLine`],
//! `ownLineThroughput`): the aligned placement's narrow accesses share
//! lines, as one array's stream does, while a loop over several arrays
//! moves to another line at every access. On the Zen 4 guest
//! (2026-11-30, `winic MAN`) eight 64-bit stores took 0.50 cycles each
//! into one line and 1.00 into a line each: the core commits two stores
//! a cycle only into one line. On the zen5 guest (2026-11-29) a
//! 512-bit load takes 0.50 cycles aligned and 1.00 split or misaligned;
//! a 512-bit store 1.00 aligned, 2.00 split, but 1.00 misaligned: the
//! stream's two stores into each line cost one line's write. Whether an
//! access splits depends on its address, which no machine file names:
//! the figures tell a reader what a misaligned stream costs, beside the
//! aligned throughput a model takes.
//!
//! x86 only: there every displacement reaches every byte of the data
//! area. AArch64's and RISC-V's immediate offsets are scaled or short, so
//! a kernel's accesses there land on the area's aligned blocks
//! ([`crate::arch::slot_in_reach`]) and would measure no split.

use super::{measure_placed, mixed};
use crate::arch::Target;
use crate::exec::run::Options;
use crate::isa::{Arch, Instr, Isa};
use crate::kernel::data::Placement;
use crate::mode::reason::Unmeasured;

/// A register kind: its name as OSACA gives it, and the bytes its plain
/// access moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// `gpr`, `xmm`, `ymm`, `zmm`.
    pub name: &'static str,
    /// 8, 16, 32, 64.
    pub bytes: u32,
}

const fn kind(name: &'static str, bytes: u32) -> Kind {
    Kind { name, bytes }
}

/// Per register kind, the plain load and store that take any alignment
/// (`movups`, not `movaps`, which faults on a split address).
const ACCESSES: [(Arch, Kind, &str, &str); 4] = [
    (Arch::X86_64, kind("gpr", 8), "MOV64rm", "MOV64mr"),
    (Arch::X86_64, kind("xmm", 16), "MOVUPSrm", "MOVUPSmr"),
    (Arch::X86_64, kind("ymm", 32), "VMOVUPSYrm", "VMOVUPSYmr"),
    (Arch::X86_64, kind("zmm", 64), "VMOVUPSZrm", "VMOVUPSZmr"),
];

/// Copies of the access a body holds.
const COPIES: usize = 8;

/// One access form, placed three ways.
#[derive(Clone, Debug)]
pub struct Split {
    /// The form (a plain load or store).
    pub form: Instr,
    /// Its register kind (`zmm`, 64 bytes).
    pub kind: Kind,
    /// Whether it is the kind's store.
    pub store: bool,
    /// Cycles an access with every access aligned.
    pub aligned: f64,
    /// Cycles an access with every access across two lines.
    pub split: f64,
    /// Cycles an access of a stream half an access off alignment.
    pub misaligned: f64,
    /// Cycles an access, each in a line of its own; `None` in a replay of
    /// a raw file that has no such timings (an earlier winic's).
    pub own_line: Option<f64>,
    /// Whether any timing was noisy.
    pub noisy: bool,
}

/// What the experiment found: the forms measured, and those that gave no
/// value with why.
#[derive(Clone, Debug, Default)]
pub struct LineSplits {
    /// The forms that gave both timings.
    pub measured: Vec<Split>,
    /// The forms that did not, each with why.
    pub failed: Vec<(Instr, Unmeasured)>,
}

/// The access forms of `arch` the experiment measures among `forms`,
/// each with its kind and whether it is the store.
fn accesses(arch: Arch, forms: &[Instr]) -> Vec<(Instr, Kind, bool)> {
    let isa = Isa::get(arch);
    ACCESSES
        .iter()
        .filter(|a| a.0 == arch)
        .flat_map(|&(_, kind, load, store)| [(load, kind, false), (store, kind, true)])
        .filter_map(|(name, kind, store)| Some((isa.instr(name)?, kind, store)))
        .filter(|(f, _, _)| forms.iter().any(|x| x.opcode() == f.opcode()))
        .collect()
}

/// Measures the access forms among `forms` that this host runs, placed
/// the four ways; `None` when there are none, or in a replay of a run
/// that measured none of them (a raw file of an earlier winic; one
/// without the own-line placement alone gives the other three).
/// `progress(done, total)` after each kernel, over the four placements.
pub fn measure(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Option<LineSplits> {
    let runnable: Vec<_> = accesses(t.arch(), forms)
        .into_iter()
        .filter(|(f, _, _)| crate::mode::common::early_skip(t, *f, false).is_none())
        .collect();
    if runnable.is_empty() {
        return None;
    }
    let mut out = LineSplits::default();
    let mut bodies = Vec::new();
    let mut built = Vec::new();
    for &(form, kind, store) in &runnable {
        match mixed(t, &[(form, COPIES)]) {
            Some((body, _)) => {
                bodies.push((body, COPIES));
                built.push((form, kind, store));
            }
            None => out.failed.push((form, Unmeasured::NoRegisters)),
        }
    }
    let n = bodies.len();
    let mut step = 0;
    let [aligned, split, misaligned, own_line] = [
        Placement::Aligned,
        Placement::LineSplit,
        Placement::Misaligned,
        Placement::OwnLine,
    ]
    .map(|p| {
        let before = step * n;
        step += 1;
        measure_placed(t, &bodies, p, opts, &mut |d| progress(before + d, 4 * n))
    });
    // A raw file of a run without this experiment: left out, as it was;
    // one of a run before the own-line placement: without it.
    let missing =
        |g: &(Result<f64, Unmeasured>, bool)| g.0.as_ref().is_err_and(Unmeasured::not_recorded);
    if split.iter().chain(&misaligned).any(missing) {
        return None;
    }
    let own_line_recorded = !own_line.iter().any(missing);
    for (k, (form, kind, store)) in built.into_iter().enumerate() {
        let got = [&aligned[k], &split[k], &misaligned[k]];
        let own = own_line_recorded.then_some(&own_line[k]);
        let values = (got.map(|g| g.0.clone()), own.map(|g| g.0.clone()));
        if let ([Ok(a), Ok(s), Ok(m)], own) = &values {
            let own = own.as_ref().and_then(|o| o.as_ref().ok()).copied();
            if let Some(fast) = faster_than_aligned(*a, *s, *m, own) {
                out.failed.push((form, fast));
                continue;
            }
        }
        match values {
            ([Ok(a), Ok(s), Ok(m)], None | Some(Ok(_))) => out.measured.push(Split {
                form,
                kind,
                store,
                aligned: a,
                split: s,
                misaligned: m,
                own_line: own.and_then(|g| g.0.clone().ok()),
                noisy: got.iter().chain(own.as_ref()).any(|g| g.1),
            }),
            ([Err(e), ..] | [_, Err(e), _] | [.., Err(e)], _) | (_, Some(Err(e))) => {
                out.failed.push((form, e))
            }
        }
    }
    Some(out)
}

/// How much faster than the aligned access a placed one may come out
/// before it is held back ([`Unmeasured::FasterThanAligned`]): the
/// tolerance TP gives its floor. On the zen3 guest beside another tenant
/// (2026-12-01) `mov r64, [m]` ran 0.33 aligned, 0.23 as a misaligned
/// stream and 0.24 a line each: over three loads a cycle, which the core
/// cannot do.
pub const FASTER_THAN_ALIGNED: f64 = 0.9;

/// The first placed time (`split`, `misaligned`, `own_line`) more than
/// [`FASTER_THAN_ALIGNED`] below `aligned`, as the reason it is held back.
fn faster_than_aligned(
    aligned: f64,
    split: f64,
    misaligned: f64,
    own_line: Option<f64>,
) -> Option<Unmeasured> {
    [
        ("split", Some(split)),
        ("misaligned stream", Some(misaligned)),
        ("a line each", own_line),
    ]
    .into_iter()
    .find_map(|(placement, cycles)| {
        let cycles = cycles?;
        (cycles < FASTER_THAN_ALIGNED * aligned).then_some(Unmeasured::FasterThanAligned {
            placement,
            cycles,
            aligned,
        })
    })
}

impl LineSplits {
    /// The report's lines.
    pub fn render(&self) -> String {
        let mut text = String::from(
            "line splits (cycles an access: aligned; every access across two cache lines, no \
             two in a line; a stream half an access off alignment; each access in a line of \
             its own):\n",
        );
        for s in &self.measured {
            let own = s.own_line.map_or(String::new(), |o| {
                format!(", a line each {o:.2} ({:.1}x)", o / s.aligned)
            });
            text.push_str(&format!(
                "  {} ({} {}): aligned {:.2}, split {:.2} ({:.1}x), misaligned stream {:.2} \
                 ({:.1}x){own}{}\n",
                s.form.name(),
                s.kind.name,
                if s.store { "store" } else { "load" },
                s.aligned,
                s.split,
                s.split / s.aligned,
                s.misaligned,
                s.misaligned / s.aligned,
                if s.noisy { "; noisy" } else { "" }
            ));
        }
        for (f, why) in &self.failed {
            text.push_str(&format!("  {}: not measured: {why}\n", f.name()));
        }
        text
    }

    /// Each measured form with its split and misaligned cycles an access,
    /// for the database (rounded as the inferred ports are).
    pub fn values(&self) -> Vec<(Instr, crate::db::AccessCosts)> {
        let round = |x: f64| (x * 100.0).round() / 100.0;
        self.measured
            .iter()
            .map(|s| {
                let costs = crate::db::AccessCosts {
                    line_split: round(s.split),
                    misaligned: round(s.misaligned),
                    own_line: s.own_line.map(round),
                };
                (s.form, costs)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_x86_access_form_exists_and_is_a_plain_access_of_its_kind() {
        let isa = Isa::get(Arch::X86_64);
        let all: Vec<Instr> = isa.real_instrs().collect();
        let got = accesses(Arch::X86_64, &all);
        assert_eq!(got.len(), 8, "{got:?}");
        for (f, _, store) in &got {
            assert_eq!(*store, f.name().ends_with("mr"), "{}", f.name());
            let ops: Vec<_> = f.operands().collect();
            assert_eq!(ops.len(), 2, "{}: a register and an address", f.name());
        }
        // Only the selected forms, and none on the other arches.
        assert_eq!(accesses(Arch::X86_64, &all[..1]).len(), 0);
        let a64: Vec<Instr> = Isa::get(Arch::Aarch64).real_instrs().collect();
        assert!(accesses(Arch::Aarch64, &a64).is_empty());
    }

    /// A placed access faster than the aligned one by more than 10% is
    /// held back, naming the placement; one within it is kept.
    #[test]
    fn a_placed_access_faster_than_aligned_is_held_back() {
        // zen3 beside another tenant: over three loads a cycle.
        let got = faster_than_aligned(0.33, 0.44, 0.23, Some(0.24)).unwrap();
        assert_eq!(
            got,
            Unmeasured::FasterThanAligned {
                placement: "misaligned stream",
                cycles: 0.23,
                aligned: 0.33
            }
        );
        assert!(
            got.to_string().starts_with(
                "held back: misaligned stream 0.23 cycles an access, faster than aligned (0.33)"
            ),
            "{got}"
        );
        assert!(matches!(
            faster_than_aligned(1.0, 2.0, 1.0, Some(0.85)),
            Some(Unmeasured::FasterThanAligned {
                placement: "a line each",
                ..
            })
        ));
        assert_eq!(faster_than_aligned(0.33, 0.44, 0.31, Some(0.34)), None);
        assert_eq!(faster_than_aligned(1.0, 2.0, 1.0, None), None);
    }

    #[test]
    fn render_names_each_form_its_ratios_and_what_failed() {
        let isa = Isa::get(Arch::X86_64);
        let f = |n: &str| isa.instr(n).unwrap();
        let found = LineSplits {
            measured: vec![Split {
                form: f("VMOVUPSZmr"),
                kind: kind("zmm", 64),
                store: true,
                aligned: 0.998,
                split: 2.004,
                misaligned: 1.0,
                own_line: Some(1.002),
                noisy: false,
            }],
            failed: vec![(f("VMOVUPSZrm"), Unmeasured::NoRegisters)],
        };
        let text = found.render();
        assert!(
            text.contains(
                "VMOVUPSZmr (zmm store): aligned 1.00, split 2.00 (2.0x), misaligned stream \
                 1.00 (1.0x), a line each 1.00 (1.0x)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("VMOVUPSZrm: not measured: no registers left to mix them"),
            "{text}"
        );
        let v = found.values();
        assert_eq!(v.len(), 1);
        assert_eq!(
            (
                v[0].0.name(),
                v[0].1.line_split,
                v[0].1.misaligned,
                v[0].1.own_line
            ),
            ("VMOVUPSZmr", 2.0, 1.0, Some(1.0))
        );
    }
}
