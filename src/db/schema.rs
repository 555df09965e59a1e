//! The serialized types of the database: what one entry of WINIC's file
//! holds (its field names and order are WINIC's), and the rules by which
//! a measurement becomes a value in it (rounding, the form's `latency`).

use serde::{Deserialize, Serialize};
use std::ops::{Deref, DerefMut};

/// One instruction form's results (WINIC's `IOInstruction`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The LLVM record name (`ADD64rr`), the key of the database.
    pub llvm_name: String,
    /// The mnemonic as WINIC's instruction printer gives it (`add`,
    /// `zip2.8b`).
    pub name: String,
    /// The explicit operands WINIC describes (registers and immediates).
    #[serde(default)]
    pub operands: Vec<OperandEntry>,
    /// The values measured (at WINIC's `e32, m1` for RVV forms).
    #[serde(flatten)]
    pub measured: Measured,
    /// winic's addition: the vector state the values were measured in
    /// (`SVE, VL 256 bits`; `streaming SVE with ZA, SVL 512 bits`; `RVV
    /// e32 m1 ta ma, VLEN 128 bits`), for forms with scalable vectors;
    /// written only when known, so WINIC's readers see their format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_state: Option<String>,
    /// winic's addition, RISC-V only: the form's values at every other
    /// vector type it is defined at (SEW 8–64, LMUL mf8–m8), the way
    /// LLVM's scheduling models are written; [`Entry::measured`] holds
    /// WINIC's `e32, m1`. Written only when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vector_configs: Vec<VectorConfig>,
    /// winic's addition: the execution ports `winic ports` inferred for
    /// the form from timing alone (no performance counter), each use with
    /// the cycles it takes on them, as OSACA's `port_pressure` gives them.
    /// The ports are numbered by the run (`0` to `P-1`, not the vendor's
    /// names) and only forms of the same run may be compared, so a run
    /// replaces every form's. Written only when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inferred_ports: Vec<PortUse>,
    /// winic's addition, beside [`Entry::inferred_ports`]: where no port
    /// set predicted the form's mixes within 10%, the ports are the
    /// nearest set's, and this is the root mean square relative error of
    /// its mixes with them (0.139: 13.9%). Like the ports, a run replaces
    /// every form's. Written only for such forms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_ports_misfit: Option<f64>,
    /// winic's addition, for the plain load and store of each register
    /// kind: cycles an access when every access has bytes in two cache
    /// lines (`winic ports`' line-split experiment); `throughput` is the
    /// aligned access's. Like the inferred ports, a run replaces every
    /// form's. Written only when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_split_throughput: Option<f64>,
    /// winic's addition, beside [`Entry::line_split_throughput`]: cycles
    /// an access of a stream half an access off its alignment (every
    /// `64 / bytes`-th access splits a line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misaligned_throughput: Option<f64>,
    /// winic's addition, beside [`Entry::line_split_throughput`]: cycles
    /// an access when each has a cache line of its own, no two in one
    /// line (`throughput`'s accesses take consecutive blocks, so narrow
    /// ones share lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_line_throughput: Option<f64>,
    /// winic's addition, for x86 `movs` and `stos`: the cycles of the
    /// form with a `rep` prefix over a number of bytes (`winic ports`'
    /// repeated-string experiment: `rep movsb` as `memcpy` runs it),
    /// smallest first. Like the inferred ports, a run replaces every
    /// form's. Written only when measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<Repeated>,
    /// winic's addition, for x86 loads into a register and stores of one:
    /// whether the form is its access alone (`true`) or also does its
    /// register form's work (`false`), as `winic ports` found it by
    /// running it beside copies of that register form; the export
    /// composes the form by it. Like the inferred ports, a run replaces
    /// every form's. Written only when measured and decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_alone: Option<bool>,
}

/// One size of [`Entry::repeated`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repeated {
    /// Bytes the repeated operation moves.
    pub bytes: u32,
    /// Cycles it takes.
    pub cycles: f64,
}

/// The line-split, misaligned-stream and own-line cycles of one access
/// form ([`Entry::line_split_throughput`], [`Entry::misaligned_throughput`],
/// [`Entry::own_line_throughput`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccessCosts {
    /// Cycles an access, every access across two lines.
    pub line_split: f64,
    /// Cycles an access of a stream half an access off alignment.
    pub misaligned: f64,
    /// Cycles an access, each in a line of its own; `None` in a replay of
    /// a run that did not measure it (an earlier winic's raw file).
    pub own_line: Option<f64>,
}

/// More cycles than any form takes: a value above is no measurement
/// ([`Measured::drop_impossible`]). The slowest forms winic measures take
/// a few thousand (a non-temporal 512-bit store's round trip, 932).
pub const MAX_CYCLES: f64 = 1e6;

impl Entry {
    /// The keys of the memory operands, as the sub-latencies name them
    /// (`1` of `add rax, [m]`).
    pub fn memory_keys(&self) -> Vec<String> {
        self.operands
            .iter()
            .enumerate()
            .filter(|(_, o)| o.class == "memory")
            .map(|(i, _)| i.to_string())
            .collect()
    }

    /// Sets `latency` by [`latency_of`], which knows the memory operands:
    /// a load-op form's register path, not its address -> result.
    pub fn settle_latency(&mut self) {
        let memory = self.memory_keys();
        if let Some(l) = latency_of(&self.measured.operand_latencies, &memory) {
            self.measured.latency = Some(l);
        }
    }

    /// [`Measured::drop_impossible`] on the entry, each vector type and
    /// the inferred ports (a port use of no positive, finite cycles is
    /// removed).
    pub fn drop_impossible(&mut self) -> Vec<String> {
        let mut dropped = self.measured.drop_impossible();
        for c in &mut self.vector_configs {
            let at = format!("at e{}{}: ", c.sew, c.lmul);
            dropped.extend(
                c.measured
                    .drop_impossible()
                    .into_iter()
                    .map(|d| at.clone() + &d),
            );
        }
        for (what, value) in [
            ("line-split", &mut self.line_split_throughput),
            ("misaligned", &mut self.misaligned_throughput),
            ("own-line", &mut self.own_line_throughput),
        ] {
            if let Some(c) = *value {
                if !(c.is_finite() && c > 0.0 && c <= MAX_CYCLES) {
                    dropped.push(format!("{what} throughput of {c} cycles"));
                    *value = None;
                }
            }
        }
        self.inferred_ports.retain(|u| {
            let ok = u.cycles.is_finite() && u.cycles > 0.0 && u.cycles <= MAX_CYCLES;
            if !ok {
                dropped.push(format!("inferred port use of {} cycles", u.cycles));
            }
            ok
        });
        self.repeated.retain(|r| {
            let ok = r.cycles.is_finite() && r.cycles > 0.0 && r.cycles <= MAX_CYCLES;
            if !ok {
                dropped.push(format!(
                    "repeated over {} bytes in {} cycles",
                    r.bytes, r.cycles
                ));
            }
            ok
        });
        dropped
    }
}

/// Cycles on a set of ports ([`Entry::inferred_ports`]): `cycles` of work
/// any of `ports` can do (OSACA's `[[1, ['0', '1', '5']]]` is one cycle
/// on one of ports 0, 1 and 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PortUse {
    /// Cycles of work (1 for one micro-op that takes one cycle).
    pub cycles: f64,
    /// The ports, as the run named them.
    pub ports: Vec<String>,
}

/// The port `winic ports` fits beside the ports for forms that read three
/// vector registers, where pairs of them run slower than their ports say
/// (`mode::ports::sources`): its name in [`PortUse::ports`].
pub const READ_PORT: &str = "R";

/// A form's values at one RVV vector type ([`Entry::vector_configs`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorConfig {
    /// Element width in bits (8, 16, 32, 64).
    pub sew: u32,
    /// Register grouping: `mf8`, `mf4`, `mf2`, `m1`, `m2`, `m4`, `m8`.
    pub lmul: String,
    /// The values measured at this type.
    #[serde(flatten)]
    pub measured: Measured,
}

/// What was measured of a form: the values an [`Entry`] holds for WINIC's
/// `e32, m1` and a [`VectorConfig`] for another RVV type, defined once so
/// that both are merged by the same code. Flattened into both: the file
/// has the fields directly in the entry and in each config, as WINIC
/// (which has no configs) writes them in an entry. The writer, not the
/// order here, decides the order in the file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Measured {
    /// The instruction's latency in cycles, from
    /// [`Measured::operand_latencies`] by [`form_latency`]: the largest exact
    /// one, else the largest `latencyMax`.
    #[serde(default)]
    pub latency: Option<f64>,
    /// Latency from one operand (or implicit register) to another.
    #[serde(default)]
    pub operand_latencies: Vec<OperandLatency>,
    /// Reciprocal throughput in cycles per instruction (the lower bound).
    #[serde(default)]
    pub throughput: Option<f64>,
    /// Lower bound of the reciprocal throughput.
    #[serde(default)]
    pub throughput_min: Option<f64>,
    /// Upper bound of the reciprocal throughput.
    #[serde(default)]
    pub throughput_max: Option<f64>,
}

impl VectorConfig {
    /// The values of `entry` (a TP or LAT result of one form) as measured
    /// at `sew`, `lmul`.
    pub fn from_entry(entry: &Entry, sew: u32, lmul: &str) -> VectorConfig {
        VectorConfig {
            sew,
            lmul: lmul.to_string(),
            measured: entry.measured.clone(),
        }
    }

    pub(super) fn same_type(&self, other: &VectorConfig) -> bool {
        self.sew == other.sew && self.lmul == other.lmul
    }
}

/// One operand (WINIC's `IOOperand`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperandEntry {
    /// `register`, `immediate`, or `memory` (an x86 memory operand, which
    /// WINIC's files never hold).
    pub class: String,
    /// The register class name (`GR64`, `FPR128`), a memory operand's
    /// LLVM type (`i64mem`); absent for immediates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The immediate's type, `int`; absent for registers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imd: Option<String>,
    /// A memory operand's parts, as OSACA's machine files spell them: the
    /// base's register kind (`gpr`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The offset's kind (`imd`: winic's kernels address with a 32-bit
    /// displacement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<String>,
    /// The index's register kind: `gpr` where the measurement used one
    /// (`lea`'s `[base + index]`), a vector kind for gathers; absent
    /// without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// The index's scale (1 with an index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<u8>,
    /// The instruction reads the operand.
    pub read: bool,
    /// The instruction writes the operand.
    pub write: bool,
}

/// A latency from one operand to another (WINIC's `IOLatency`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperandLatency {
    /// The operand read: its number (see
    /// [`operand_key`](super::operand_key)) or an implicit register's name
    /// (`EFLAGS`, `FPCR`).
    pub source_operand: String,
    /// The operand written, in the same notation.
    pub target_operand: String,
    /// Lower bound in cycles; `None` when the measurement failed.
    #[serde(default)]
    pub latency_min: Option<f64>,
    /// Upper bound in cycles; `None` when the measurement failed.
    #[serde(default)]
    pub latency_max: Option<f64>,
}

impl Measured {
    /// Records a throughput measurement as WINIC's `updateDatabaseEntryTP`
    /// does: both bounds rounded to 0.01 cycles, `throughput` is the lower
    /// bound.
    pub fn set_throughput(&mut self, lower: f64, upper: f64) {
        let (lower, upper) = (round_to(lower, 100.0), round_to(upper, 100.0));
        self.throughput = Some(lower);
        self.throughput_min = Some(lower);
        self.throughput_max = Some(upper);
    }

    /// Records the latency from `source` to `target` as WINIC's
    /// `updateDatabaseEntryLAT` does: bounds rounded (`None` for a failed
    /// measurement), the pair updated in place or appended. WINIC rounds
    /// to whole cycles in its first version and to 0.1 in its current one;
    /// winic to 0.01, as throughputs: LAT gives whole cycles except where
    /// a chain through the sub-latency alone measured a fraction (0.19,
    /// 4.43), which whole cycles would misstate (docs/method.md, LAT mode).
    /// `latency` becomes [`form_latency`] of all pairs (WINIC's is the
    /// largest `latencyMax` it ever saw, even after a pair is measured
    /// again lower; winic recomputes it).
    pub fn set_operand_latency(&mut self, source: &str, target: &str, bounds: Option<(f64, f64)>) {
        let (min, max) = match bounds {
            Some((min, max)) => (Some(round_to(min, 100.0)), Some(round_to(max, 100.0))),
            None => (None, None),
        };
        self.put_operand_latency(OperandLatency {
            source_operand: source.to_string(),
            target_operand: target.to_string(),
            latency_min: min,
            latency_max: max,
        });
        self.latency = form_latency(&self.operand_latencies).or(self.latency);
    }

    /// Takes what a TP run (`latencies` false) or a LAT run measured of
    /// the same form (or vector type) from `new` and keeps the rest, as
    /// WINIC's modes do: TP sets the three throughput fields; LAT replaces
    /// each operand pair with the same source and target or appends it,
    /// keeps the pairs `new` lacks, and sets `latency` to [`form_latency`]
    /// of them all, else to `new`'s own `latency`, else keeps the old one
    /// (a file of WINIC's may have a `latency` and no pairs).
    pub fn merge(&mut self, new: Measured, latencies: bool) {
        if latencies {
            for lat in new.operand_latencies {
                self.put_operand_latency(lat);
            }
            self.latency = form_latency(&self.operand_latencies)
                .or(new.latency)
                .or(self.latency);
        } else {
            self.throughput = new.throughput;
            self.throughput_min = new.throughput_min;
            self.throughput_max = new.throughput_max;
        }
    }

    /// Sets every value no measurement can give to `None` and says which
    /// (`throughput -5`): one that is not finite, negative or above
    /// [`MAX_CYCLES`], a throughput of 0 (nothing issues infinitely
    /// fast; a latency of 0 is an eliminated move), or a pair whose lower
    /// bound exceeds its upper. Files from elsewhere hold such values
    /// (WINIC's published Grace Hopper file has throughputs of 0 and -0
    /// and latencies of -2), and a journal can be edited.
    pub fn drop_impossible(&mut self) -> Vec<String> {
        fn check(dropped: &mut Vec<String>, what: &str, v: &mut Option<f64>, zero: bool) {
            if let Some(x) = *v {
                let ok = x.is_finite() && x <= MAX_CYCLES && (x > 0.0 || (zero && x == 0.0));
                if !ok {
                    // 1e308 as such, not as 309 digits.
                    let shown = if x.is_finite() && x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
                        format!("{x:e}")
                    } else {
                        format!("{x}")
                    };
                    dropped.push(format!("{what} {shown}"));
                    *v = None;
                }
            }
        }
        let mut dropped = Vec::new();
        let d = &mut dropped;
        check(d, "throughput", &mut self.throughput, false);
        check(d, "throughputMin", &mut self.throughput_min, false);
        check(d, "throughputMax", &mut self.throughput_max, false);
        check(d, "latency", &mut self.latency, true);
        for l in &mut self.operand_latencies {
            let pair = format!("{} -> {}", l.source_operand, l.target_operand);
            check(
                d,
                &format!("latencyMin of {pair}"),
                &mut l.latency_min,
                true,
            );
            check(
                d,
                &format!("latencyMax of {pair}"),
                &mut l.latency_max,
                true,
            );
            if let (Some(min), Some(max)) = (l.latency_min, l.latency_max) {
                if min > max {
                    d.push(format!("{pair} from {min} to {max}"));
                    (l.latency_min, l.latency_max) = (None, None);
                }
            }
        }
        if let (Some(min), Some(max)) = (self.throughput_min, self.throughput_max) {
            if min > max {
                d.push(format!("throughput from {min} to {max}"));
                (self.throughput_min, self.throughput_max) = (None, None);
            }
        }
        dropped
    }

    /// Whether anything was measured: a throughput, a latency or one
    /// bound of an operand pair. An entry without is not written for a
    /// form the database lacks (a failed form gets no entry).
    pub fn has_value(&self) -> bool {
        self.throughput.is_some()
            || self.throughput_min.is_some()
            || self.throughput_max.is_some()
            || self.latency.is_some()
            || self
                .operand_latencies
                .iter()
                .any(|l| l.latency_min.is_some() || l.latency_max.is_some())
    }

    fn put_operand_latency(&mut self, lat: OperandLatency) {
        let slot = self.operand_latencies.iter_mut().find(|l| {
            l.source_operand == lat.source_operand && l.target_operand == lat.target_operand
        });
        match slot {
            Some(slot) => *slot = lat,
            None => self.operand_latencies.push(lat),
        }
    }
}

/// An entry reads as its values (`entry.throughput`), as it did when they
/// were its own fields.
impl Deref for Entry {
    type Target = Measured;

    fn deref(&self) -> &Measured {
        &self.measured
    }
}

impl DerefMut for Entry {
    fn deref_mut(&mut self) -> &mut Measured {
        &mut self.measured
    }
}

/// A config reads as its values (`config.latency`), as an entry does.
impl Deref for VectorConfig {
    type Target = Measured;

    fn deref(&self) -> &Measured {
        &self.measured
    }
}

impl DerefMut for VectorConfig {
    fn deref_mut(&mut self) -> &mut Measured {
        &mut self.measured
    }
}

/// The `latency` of a form with the sub-latencies `pairs`: the largest
/// exact one (`latencyMin == latencyMax`, a fraction such as 0.19
/// included); a form with none takes the largest `latencyMax` of its
/// ranges; `None` when no pair has a value.
///
/// Why not simply the largest `latencyMax`, as WINIC writes it: a range
/// between two register files that no exact value anchors (k -> zmm of a
/// masked form, `[1;8]` on Zen 4) has a split no timing can observe (docs/method.md,
/// LAT mode), so its upper bound is no measured latency; taking it made
/// `vaddpd zmm {k}` 8 cycles where its zmm -> zmm is exactly 4. Whatever
/// is exact is what a model should see. A form with only ranges (`vpcmpd
/// k, zmm, zmm`, `movq r64, xmm`, `cvttsd2si`: almost all of them such
/// splits) has no measured value at all; it keeps the upper bound, the
/// whole cycle less one cycle for the way back, which is what a chain
/// timing tool such as OSACA's ibench writes for it. The rule needs
/// nothing but the pairs, so a merge into any file (WINIC's too) applies
/// it the same way, and the file keeps WINIC's fields.
pub fn form_latency(pairs: &[OperandLatency]) -> Option<f64> {
    let largest = |exact: bool| {
        pairs
            .iter()
            .filter(|l| !exact || l.latency_min == l.latency_max)
            .filter_map(|l| l.latency_max)
            .reduce(f64::max)
    };
    largest(true).or_else(|| largest(false))
}

/// [`form_latency`] of the sub-latencies not from an address (from a
/// register, or a read-modify-write's memory -> memory) when a form has
/// one with a value, else of all: `add rax, [m]` keeps its rax -> rax (1
/// cycle), what a chain through its register waits for, and its address
/// -> result (5 on `zen5`: the load and the add) stays in
/// `operandLatencies`; a load with no register path (`movzx eax, byte
/// [m]`) takes its address -> result. So `latency` means the same for
/// general-purpose and vector load-op forms (a vector one's address path
/// is a range, which [`form_latency`] would pass over anyway), and the
/// same as before winic measured address paths. `memory`: the keys of
/// the memory operands ([`Entry::memory_keys`]).
///
/// A store, whose every measured sub-latency runs from a register into
/// memory, has no result a register dependence waits for: its `latency`
/// is 0, as OSACA's files write a store's, and its data -> memory stays
/// in `operandLatencies` as the range `[0; round trip]` (the store and
/// the reload of its bytes, which no timing splits). Before, the round
/// trip's upper bound was the store's `latency` (`vmovupd [m], zmm`
/// 11.01 on `zen5`, `vmovntpd [m], zmm` 931.55 on Zen 4), which a model
/// takes for the cost of a result. A read-modify-write keeps its memory
/// -> memory, the time the next one at that address waits.
pub fn latency_of(pairs: &[OperandLatency], memory: &[String]) -> Option<f64> {
    let into_memory = |l: &OperandLatency| {
        memory.contains(&l.target_operand) && !memory.contains(&l.source_operand)
    };
    let measured: Vec<&OperandLatency> = pairs.iter().filter(|l| l.latency_max.is_some()).collect();
    if !measured.is_empty() && measured.iter().all(|l| into_memory(l)) {
        return Some(0.0);
    }
    // Memory -> memory (a read-modify-write's own round trip) stays.
    let from_address = |l: &OperandLatency| {
        memory.contains(&l.source_operand) && !memory.contains(&l.target_operand)
    };
    let from_registers: Vec<OperandLatency> =
        pairs.iter().filter(|l| !from_address(l)).cloned().collect();
    form_latency(&from_registers).or_else(|| form_latency(pairs))
}

fn round_to(v: f64, scale: f64) -> f64 {
    (v * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::fixtures::{entry, pair, V2};
    use crate::db::Database;

    #[test]
    fn serde_serialization_parses_back_equal() {
        let db = Database::parse(V2).unwrap();
        let text = serde_yaml::to_string(&db.entries).unwrap();
        assert_eq!(Database::parse(&text).unwrap(), db);
    }

    /// A load-op form's `latency` is its register path; a plain load's
    /// its address -> result; a read-modify-write keeps memory -> memory.
    #[test]
    fn latency_leaves_an_address_path_to_forms_without_another() {
        let memory = ["1".to_string()];
        let add = [
            pair_of("0", "0", 1.0, 1.0),
            pair_of("1", "0", 5.0, 5.0),
            pair_of("0", "EFLAGS", 1.0, 1.0),
        ];
        assert_eq!(form_latency(&add), Some(5.0));
        assert_eq!(latency_of(&add, &memory), Some(1.0));
        assert_eq!(
            latency_of(&[pair_of("1", "0", 4.0, 4.0)], &memory),
            Some(4.0)
        );
        let rmw = [
            pair_of("1", "1", 7.0, 7.0),
            pair_of("0", "EFLAGS", 1.0, 1.0),
        ];
        assert_eq!(latency_of(&rmw, &memory), Some(7.0));
        // A register path that failed leaves the address path.
        let failed = [
            OperandLatency {
                source_operand: "0".into(),
                target_operand: "0".into(),
                latency_min: None,
                latency_max: None,
            },
            pair_of("1", "0", 5.0, 5.0),
        ];
        assert_eq!(latency_of(&failed, &memory), Some(5.0));
        // A store: 0, its round trip a range in the pairs; with a register
        // result too (`add [m], r`'s flags), that result's latency.
        let store = [pair_of("1", "0", 0.0, 11.01)];
        let memory0 = ["0".to_string()];
        assert_eq!(latency_of(&store, &memory0), Some(0.0));
        let flags = [
            pair_of("1", "0", 0.0, 9.0),
            pair_of("1", "EFLAGS", 1.0, 1.0),
        ];
        assert_eq!(latency_of(&flags, &memory0), Some(1.0));
        assert_eq!(latency_of(&[], &memory0), None);
    }

    fn pair_of(s: &str, d: &str, min: f64, max: f64) -> OperandLatency {
        OperandLatency {
            source_operand: s.into(),
            target_operand: d.into(),
            latency_min: Some(min),
            latency_max: Some(max),
        }
    }

    #[test]
    fn latency_is_the_largest_exact_value_and_a_range_only_without_one() {
        // vaddpd zmm {k} on Zen 4: zmm -> zmm exactly 3 (Golden Cove 4),
        // k -> zmm [1;8], a split between two files no timing observes.
        let masked = [
            pair("0", Some((3.0, 3.0))),
            pair("1", Some((1.0, 8.0))),
            pair("2", Some((3.0, 3.0))),
            pair("3", None),
        ];
        assert_eq!(form_latency(&masked), Some(3.0));
        // A fraction is exact; an eliminated move's 0 is a value.
        assert_eq!(
            form_latency(&[pair("0", Some((0.19, 0.19))), pair("1", None)]),
            Some(0.19)
        );
        assert_eq!(form_latency(&[pair("1", Some((0.0, 0.0)))]), Some(0.0));
        // Only ranges (vpcmpd k, zmm, zmm): the largest upper bound.
        assert_eq!(
            form_latency(&[pair("1", Some((1.0, 5.0))), pair("2", Some((1.0, 4.0)))]),
            Some(5.0)
        );
        assert_eq!(form_latency(&[pair("1", None)]), None);
        assert_eq!(form_latency(&[]), None);
    }

    #[test]
    fn latencies_keep_two_decimals_and_whole_cycles_stay_whole() {
        // A folded `add rax, 1` (0.19 a lap) is 0.19, not 0; haddpd's
        // 4.434 is 4.43; a whole value is written whole.
        let mut e = entry("ADD64ri8");
        e.set_operand_latency("0", "0", Some((0.1949, 0.1949)));
        e.set_operand_latency("1", "0", Some((4.434, 4.434)));
        e.set_operand_latency("2", "0", Some((1.0, 3.0)));
        let bounds: Vec<_> = e
            .operand_latencies
            .iter()
            .map(|l| (l.latency_min, l.latency_max))
            .collect();
        assert_eq!(
            bounds,
            [
                (Some(0.19), Some(0.19)),
                (Some(4.43), Some(4.43)),
                (Some(1.0), Some(3.0))
            ]
        );
        let db = Database { entries: vec![e] };
        let text = db.to_yaml();
        assert!(
            text.contains("      latencyMin:      0.19\n      latencyMax:      0.19\n"),
            "{text}"
        );
        assert!(text.contains("      latencyMin:      4.43\n"), "{text}");
        assert!(
            text.contains("      latencyMin:      1\n      latencyMax:      3\n"),
            "{text}"
        );
        assert_eq!(Database::parse(&text).unwrap(), db);
    }
}
