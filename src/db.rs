//! The result database, in the YAML format of WINIC (RRZE-HPC/WINIC,
//! `include/IOSystem.h`), so that files written by either tool can be read,
//! extended and compared by the other.
//!
//! A database is a list of [`Entry`]s, one per instruction form, keyed by
//! the LLVM record name. WINIC's field names, field order and conventions
//! are kept exactly:
//!
//! * every field is always written; a value that was not measured is
//!   `null` (WINIC maps them with `mapRequired`, so its loader rejects a
//!   file that leaves one out). winic reads files that omit them too;
//! * numbers are printed as C's `%g` (LLVM's `ScalarTraits<double>`):
//!   `1`, `0.5`, `0.33`;
//! * operands are the explicit register and immediate operands in LLVM's
//!   operand order, tied duplicates removed (see [`Entry::for_form`]);
//!   implicit registers never appear among the operands, only by name in
//!   `operandLatencies` (`FPCR`, `NZCV`, `VL`);
//! * [`Database::write_yaml`] lays the file out as LLVM's `yaml::Output`
//!   does (keys padded to column 17, nested lists indented by four,
//!   `---` … `...`), so a file WINIC wrote comes back byte for byte.
//!
//! Saving is atomic: a temporary file next to the target, fsynced, then
//! renamed over it.

use crate::error::Error;
use crate::isa::desc::OperandKind;
use crate::isa::{select_asm_variant, Arch, Instr, Operand};
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
    /// The instruction's latency in cycles, from
    /// [`Entry::operand_latencies`] by [`form_latency`]: the largest exact
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
    /// winic's addition: the vector state the values were measured in
    /// (`SVE, VL 256 bits`; `streaming SVE with ZA, SVL 512 bits`; `RVV
    /// e32 m1 ta ma, VLEN 128 bits`), for forms with scalable vectors;
    /// written only when known, so WINIC's readers see their format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_state: Option<String>,
    /// winic's addition, RISC-V only: the form's values at every other
    /// vector type it is defined at (SEW 8–64, LMUL mf8–m8), the way
    /// LLVM's scheduling models are written; the fields above hold WINIC's
    /// `e32, m1`. Written only when there are any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vector_configs: Vec<VectorConfig>,
}

/// A form's values at one RVV vector type ([`Entry::vector_configs`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorConfig {
    /// Element width in bits (8, 16, 32, 64).
    pub sew: u32,
    /// Register grouping: `mf8`, `mf4`, `mf2`, `m1`, `m2`, `m4`, `m8`.
    pub lmul: String,
    /// As [`Entry::throughput`].
    #[serde(default)]
    pub throughput: Option<f64>,
    /// As [`Entry::throughput_min`].
    #[serde(default)]
    pub throughput_min: Option<f64>,
    /// As [`Entry::throughput_max`].
    #[serde(default)]
    pub throughput_max: Option<f64>,
    /// As [`Entry::latency`].
    #[serde(default)]
    pub latency: Option<f64>,
    /// As [`Entry::operand_latencies`].
    #[serde(default)]
    pub operand_latencies: Vec<OperandLatency>,
}

impl VectorConfig {
    /// The values of `entry` (a TP or LAT result of one form) as measured
    /// at `sew`, `lmul`.
    pub fn from_entry(entry: &Entry, sew: u32, lmul: &str) -> VectorConfig {
        VectorConfig {
            sew,
            lmul: lmul.to_string(),
            throughput: entry.throughput,
            throughput_min: entry.throughput_min,
            throughput_max: entry.throughput_max,
            latency: entry.latency,
            operand_latencies: entry.operand_latencies.clone(),
        }
    }

    fn same_type(&self, other: &VectorConfig) -> bool {
        self.sew == other.sew && self.lmul == other.lmul
    }
}

/// One operand (WINIC's `IOOperand`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperandEntry {
    /// `register` or `immediate`.
    pub class: String,
    /// The register class name (`GR64`, `FPR128`); absent for immediates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The immediate's type, `int`; absent for registers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imd: Option<String>,
    /// The instruction reads the operand.
    pub read: bool,
    /// The instruction writes the operand.
    pub write: bool,
}

/// A latency from one operand to another (WINIC's `IOLatency`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperandLatency {
    /// The operand read: its number (see [`operand_key`]) or an implicit
    /// register's name (`EFLAGS`, `FPCR`).
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

impl Entry {
    /// A new entry for `form` with nothing measured, described as WINIC's
    /// `createOpInstruction` (`src/IOSystem.cpp`) describes it:
    ///
    /// * `name` is the literal text of the assembly string before its
    ///   first operand, trailing blanks removed, in the syntax variant
    ///   WINIC's printer uses (`createMCInstPrinter(…, 1, …)`: Intel on
    ///   x86, the Apple syntax on AArch64, so `ZIP2v8i8` is `zip2.8b`);
    /// * the operands are LLVM's flattened machine operands in order, each
    ///   kept only if its operand's LLVM `OperandType` is
    ///   `OPERAND_REGISTER` (class `register`, `name` = register class) or
    ///   `OPERAND_IMMEDIATE` (class `immediate`, `imd: int`). Memory,
    ///   PC-relative and target-specific immediates (RISC-V `simm12`)
    ///   and every sub-operand of a complex operand (AArch64's shifted
    ///   `Rm` of `ADDXrs`, whose type is `OPERAND_UNKNOWN`) are left out;
    /// * of a tied pair (`$src1 = $dst`) only the earlier operand is kept,
    ///   marked read and written; defs are written, uses read;
    /// * implicit registers are not operands.
    pub fn for_form(form: Instr) -> Entry {
        Entry {
            llvm_name: form.name().to_string(),
            name: winic_mnemonic(form),
            operands: winic_operands(form),
            latency: None,
            operand_latencies: Vec::new(),
            throughput: None,
            throughput_min: None,
            throughput_max: None,
            vector_state: crate::arch::target(form.isa().arch()).vector_state(form),
            vector_configs: Vec::new(),
        }
    }

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
    /// 4.43), which whole cycles would misstate (README, LAT mode).
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

/// The `latency` of a form with the sub-latencies `pairs`: the largest
/// exact one (`latencyMin == latencyMax`, a fraction such as 0.19
/// included); a form with none takes the largest `latencyMax` of its
/// ranges; `None` when no pair has a value.
///
/// Why not simply the largest `latencyMax`, as WINIC writes it: a range
/// between two register files that no exact value anchors (k -> zmm of a
/// masked form, `[1;8]` on Zen 4) has a split no timing can observe (README,
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

/// The string WINIC writes in `sourceOperand`/`targetOperand` for machine
/// operand `mc_index` of `form` (`llvmOpNumToNormalOpNum`): the index,
/// less one for every use operand up to it that is tied to an earlier
/// operand. Operands WINIC leaves out of `operands` (memory, complex) are
/// still counted, so the number is not always a position in that list.
pub fn operand_key(form: Instr, mc_index: usize) -> String {
    let tied = form
        .mc_operands()
        .iter()
        .take(mc_index + 1)
        .filter(|mc| is_tied_duplicate(mc.operand))
        .count();
    (mc_index - tied).to_string()
}

/// The later operand of a tied pair: LLVM puts the `TIED_TO` constraint on
/// it, and WINIC drops it as a duplicate.
fn is_tied_duplicate(op: Operand) -> bool {
    op.tied_to().is_some_and(|t| t < op.index())
}

/// The syntax variant WINIC's `MCInstPrinter` prints (`LLVMEnvironment.cpp`
/// creates it with variant 1; RISC-V has only variant 0).
fn printer_variant(arch: Arch) -> usize {
    match arch {
        Arch::X86_64 | Arch::Aarch64 => 1,
        Arch::Riscv64 => 0,
    }
}

/// `MCInstPrinter::getMnemonic` as WINIC trims it: the literal text before
/// the first `$operand` (`$$` is a literal `$`), trailing blanks removed.
fn winic_mnemonic(form: Instr) -> String {
    let asm = select_asm_variant(form.asm_string(), printer_variant(form.isa().arch()));
    let mut out = String::new();
    let mut chars = asm.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' {
            if chars.peek() == Some(&'$') {
                chars.next();
            } else {
                break;
            }
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out
}

fn winic_operands(form: Instr) -> Vec<OperandEntry> {
    let ops: Vec<_> = form.operands().collect();
    let read_defs: Vec<usize> = ops
        .iter()
        .filter(|o| is_tied_duplicate(**o))
        .filter_map(|o| o.tied_to())
        .collect();
    let mut out = Vec::new();
    for mc in form.mc_operands() {
        let op = mc.operand;
        if is_tied_duplicate(op) {
            continue;
        }
        // LLVM gives every sub-operand its parent's OperandType; a plain
        // register class has no OperandType record and is a register.
        let parent = op.ty();
        let optype = match parent.operand_type() {
            "" if parent.kind() == OperandKind::Reg => "OPERAND_REGISTER",
            t => t,
        };
        let (write, read) = (op.is_def(), !op.is_def() || read_defs.contains(&op.index()));
        match optype {
            "OPERAND_REGISTER" => {
                let Some(class) = mc.ty.class() else { continue };
                out.push(OperandEntry {
                    class: "register".into(),
                    name: Some(class.name().to_string()),
                    imd: None,
                    read,
                    write,
                });
            }
            "OPERAND_IMMEDIATE" => out.push(OperandEntry {
                class: "immediate".into(),
                name: None,
                imd: Some("int".into()),
                read: true,
                write: false,
            }),
            _ => {}
        }
    }
    out
}

fn round_to(v: f64, scale: f64) -> f64 {
    (v * scale).round() / scale
}

/// A database: entries in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Database {
    /// The entries, in the order they were loaded or added.
    pub entries: Vec<Entry>,
}

impl Database {
    /// Reads the database at `path`. A missing file is an empty database
    /// (the first run of a measurement); an unreadable file is
    /// [`Error::Io`], and a malformed one [`Error::BadInput`] naming the
    /// file, line and column. So is a cut one: a file in the layout of
    /// LLVM's YAML writer (winic's, WINIC's) must end with the document
    /// end marker `...` it always writes last; a file of another writer
    /// (PyYAML writes no marker) without it must have every field WINIC
    /// requires in every entry, so that a cut inside an entry is seen.
    pub fn load(path: impl AsRef<Path>) -> Result<Database, Error> {
        let path = path.as_ref();
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Database::default()),
            Err(e) => {
                return Err(Error::Io(
                    format!("reading the database {}", path.display()),
                    e,
                ))
            }
        };
        // `was`: "was" for a file of LLVM's writer, "was probably" else.
        let cut = |what: String, was: &str| {
            let journals: Vec<String> = ["TP", "LAT"]
                .iter()
                .map(|m| Journal::path_of(path, m))
                .filter(|j| j.exists())
                .map(|j| j.display().to_string())
                .collect();
            let keep = match journals.len() {
                0 => String::new(),
                _ => format!(
                    "; {} keeps the measurements of an interrupted run (--resume merges them)",
                    journals.join(" and ")
                ),
            };
            Error::BadInput(format!(
                "{}: {what}: the file {was} cut, e.g. by a crash or a full disk during a copy, \
                 and entries may be lost; restore it from a copy, or move it away to start a new \
                 database{keep}",
                path.display()
            ))
        };
        let ended = has_end_marker(&text);
        if !ended && written_by_llvm_yaml(&text) {
            let what = "ends without the document end marker `...` that winic and WINIC write last";
            return Err(cut(what.into(), "was"));
        }
        if !ended {
            if let Some(missing) = first_missing_field(&text) {
                let what = format!(
                    "{missing}, and the file ends without the document end marker `...` \
                     (without it, every entry must have all of WINIC's fields)"
                );
                return Err(cut(what, "was probably"));
            }
        }
        Database::parse(&text).map_err(|e| {
            let at = e
                .location()
                .map(|l| format!(":{}:{}", l.line(), l.column()))
                .unwrap_or_default();
            Error::BadInput(format!(
                "{}{at}: not a WINIC database: {e}; fix the file or choose another output file",
                path.display()
            ))
        })
    }

    /// Parses a database from YAML text; a text without a document (empty,
    /// comments only) is an empty database.
    pub fn parse(text: &str) -> Result<Database, serde_yaml::Error> {
        let blank = text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
        if blank {
            return Ok(Database::default());
        }
        Ok(Database {
            entries: serde_yaml::from_str(text)?,
        })
    }

    /// The entry for the LLVM record `llvm_name` (the first, should a file
    /// hold several).
    pub fn get(&self, llvm_name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.llvm_name == llvm_name)
    }

    fn get_mut(&mut self, llvm_name: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.llvm_name == llvm_name)
    }

    /// Puts `entry` in place of the entry of the same form, or appends it.
    /// Everything of the old entry is replaced; to add one kind of result
    /// to an entry use [`Database::merge_throughput`] or
    /// [`Database::merge_latency`].
    pub fn merge(&mut self, entry: Entry) {
        match self.get_mut(&entry.llvm_name) {
            Some(old) => *old = entry,
            None => self.entries.push(entry),
        }
    }

    /// Takes the three throughput fields of `entry` into the entry of the
    /// same form and keeps everything else it has (name, operands and the
    /// latencies of an earlier latency run), as WINIC's TP mode does; a
    /// form not yet in the database is appended whole.
    pub fn merge_throughput(&mut self, entry: Entry) {
        match self.get_mut(&entry.llvm_name) {
            Some(old) => {
                old.throughput = entry.throughput;
                old.throughput_min = entry.throughput_min;
                old.throughput_max = entry.throughput_max;
                old.vector_state = entry.vector_state.or(old.vector_state.take());
            }
            None => self.entries.push(entry),
        }
    }

    /// Takes the values of `config` into the entry of form `name` (which
    /// `base` describes when the database has none yet): a TP result
    /// (`latencies` false) sets the three throughput fields of the vector
    /// type's config, a LAT result its latencies, pair by pair; the rest
    /// of the entry and its other configs stay.
    pub fn merge_vector_config(&mut self, base: Entry, config: VectorConfig, latencies: bool) {
        if self.get_mut(&base.llvm_name).is_none() {
            self.entries.push(base.clone());
        }
        let entry = self.get_mut(&base.llvm_name).expect("added above");
        let Some(old) = entry
            .vector_configs
            .iter_mut()
            .find(|c| c.same_type(&config))
        else {
            entry.vector_configs.push(config);
            return;
        };
        if latencies {
            for lat in config.operand_latencies {
                match old.operand_latencies.iter_mut().find(|l| {
                    l.source_operand == lat.source_operand && l.target_operand == lat.target_operand
                }) {
                    Some(l) => *l = lat,
                    None => old.operand_latencies.push(lat),
                }
            }
            old.latency = form_latency(&old.operand_latencies).or(config.latency);
        } else {
            old.throughput = config.throughput;
            old.throughput_min = config.throughput_min;
            old.throughput_max = config.throughput_max;
        }
    }

    /// Takes the latencies of `entry` into the entry of the same form:
    /// each operand pair replaces the pair with the same source and target
    /// or is appended, pairs `entry` lacks are kept, and `latency` becomes
    /// [`form_latency`] of them all (or `entry`'s own `latency` if no pair
    /// has a value). Name, operands and throughput are kept, as in WINIC's LAT
    /// mode. A form not yet in the database is appended whole.
    pub fn merge_latency(&mut self, entry: Entry) {
        match self.get_mut(&entry.llvm_name) {
            Some(old) => {
                for lat in entry.operand_latencies {
                    old.put_operand_latency(lat);
                }
                old.latency = form_latency(&old.operand_latencies)
                    .or(entry.latency)
                    .or(old.latency);
                old.vector_state = entry.vector_state.or(old.vector_state.take());
            }
            None => self.entries.push(entry),
        }
    }

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
                field(out, "      ", "read", &o.read.to_string())?;
                field(out, "      ", "write", &o.write.to_string())?;
            }
            field(out, "  ", "latency", &number(e.latency))?;
            write_latencies(out, "  ", &e.operand_latencies)?;
            field(out, "  ", "throughput", &number(e.throughput))?;
            field(out, "  ", "throughputMin", &number(e.throughput_min))?;
            field(out, "  ", "throughputMax", &number(e.throughput_max))?;
            if let Some(v) = &e.vector_state {
                field(out, "  ", "vectorState", &quote(v))?;
            }
            if !e.vector_configs.is_empty() {
                writeln!(out, "  vectorConfigs:")?;
            }
            for c in &e.vector_configs {
                field(out, "    - ", "sew", &c.sew.to_string())?;
                field(out, "      ", "lmul", &quote(&c.lmul))?;
                field(out, "      ", "throughput", &number(c.throughput))?;
                field(out, "      ", "throughputMin", &number(c.throughput_min))?;
                field(out, "      ", "throughputMax", &number(c.throughput_max))?;
                field(out, "      ", "latency", &number(c.latency))?;
                write_latencies(out, "      ", &c.operand_latencies)?;
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

    /// Writes the database to `path` atomically: to `<path>.tmp-<pid>` in
    /// the same directory, flushed and fsynced, then renamed over `path`
    /// (keeping the old file's permissions). A failure leaves the old file
    /// as it was and no temporary file behind.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let tmp = temp_path(path);
        let written = self.write_file(path, &tmp);
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map_err(|e| Error::Io(format!("writing the database {}", path.display()), e))?;
        // Make the rename itself durable; not every file system lets a
        // directory be fsynced, and the data is safe without it.
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn write_file(&self, path: &Path, tmp: &Path) -> io::Result<()> {
        let file = fs::File::create(tmp)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        let mut w = BufWriter::new(file);
        self.write_yaml(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(tmp, path)
    }
}

/// Whether the last line that is not blank is YAML's document end marker
/// `...`, which [`Database::write_yaml`] (and LLVM's `yaml::Output`, so
/// WINIC) writes last: a file that has it was not cut.
fn has_end_marker(text: &str) -> bool {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(str::trim_end)
        == Some("...")
}

/// Whether `text` looks written by LLVM's `yaml::Output` (winic's writer
/// or WINIC): it starts with `---` and pads keys to column 17
/// (`llvmName:` and eight blanks), or holds nothing after the `---`.
/// Such files always end with `...`.
fn written_by_llvm_yaml(text: &str) -> bool {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    if lines.next().map(str::trim_end) != Some("---") {
        return false;
    }
    match lines.next().map(str::trim_end) {
        // Cut right after the start (or the empty database, `[]`).
        None | Some("[]") => true,
        Some(_) => text
            .lines()
            .any(|l| l.trim_start().starts_with("- llvmName:        ")),
    }
}

/// The first field WINIC requires (`mapRequired`) that an entry of `text`
/// lacks, described ("entry 3 (ADD64rr) has no `throughputMax`"), or
/// `None` when every entry has all of them (or `text` is no YAML list,
/// which the parser then reports).
fn first_missing_field(text: &str) -> Option<String> {
    const ENTRY: [&str; 8] = [
        "llvmName",
        "name",
        "operands",
        "latency",
        "operandLatencies",
        "throughput",
        "throughputMin",
        "throughputMax",
    ];
    const OPERAND: [&str; 3] = ["class", "read", "write"];
    const LATENCY: [&str; 4] = ["sourceOperand", "targetOperand", "latencyMin", "latencyMax"];
    let value: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    let lacks = |v: &serde_yaml::Value, keys: &[&str]| -> Option<String> {
        let map = v.as_mapping()?;
        keys.iter()
            .find(|k| !map.contains_key(**k))
            .map(|k| k.to_string())
    };
    let list = |v: &serde_yaml::Value, key: &str| -> Vec<serde_yaml::Value> {
        v.get(key)
            .and_then(|l| l.as_sequence())
            .cloned()
            .unwrap_or_default()
    };
    for (k, e) in value.as_sequence()?.iter().enumerate() {
        let name = e
            .get("llvmName")
            .and_then(|n| n.as_str())
            .unwrap_or("without llvmName");
        let within = |key: &str, fields: &[&str]| {
            list(e, key)
                .iter()
                .enumerate()
                .find_map(|(i, v)| Some(format!("{key}[{i}].{}", lacks(v, fields)?)))
        };
        let what = lacks(e, &ENTRY)
            .or_else(|| within("operands", &OPERAND))
            .or_else(|| within("operandLatencies", &LATENCY));
        if let Some(field) = what {
            return Some(format!("entry {} ({name}) has no `{field}`", k + 1));
        }
    }
    None
}

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// One `key: value` line: the key padded with blanks to column 17 after
/// `lead`, or followed by one blank if longer (LLVM's `Output::paddedKey`).
fn field(out: &mut impl Write, lead: &str, key: &str, value: &str) -> io::Result<()> {
    let pad = 16usize.saturating_sub(key.len()).max(1);
    writeln!(out, "{lead}{key}:{:pad$}{value}", "")
}

/// `operandLatencies` at `indent` (an entry's, or a vector config's).
fn write_latencies(out: &mut impl Write, indent: &str, list: &[OperandLatency]) -> io::Result<()> {
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
    use crate::isa::Isa;

    /// The first entries of WINIC's SpaceMiT X60 database
    /// (`data/spacemit_x60/spacemit_x60.yaml`) and some of its Neoverse V2
    /// one (`data/neoverse-v2/gracehopper.yaml`), copied verbatim.
    const X60: &str = r#"---
- llvmName:        ZEXT_H_RV64
  name:            zext.h
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        XORI
  name:            xori
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        ADD
  name:            add
  operands:
    - class:           register
      name:            GPR
      read:            false
      write:           true
    - class:           register
      name:            GPR
      read:            true
      write:           false
    - class:           register
      name:            GPR
      read:            true
      write:           false
  latency:         1
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      1
      latencyMax:      1
  throughput:      0.5
  throughputMin:   0.5
  throughputMax:   0.5
- llvmName:        VADD_VV
  name:            vadd.vv
  operands:
    - class:           register
      name:            VR
      read:            false
      write:           true
    - class:           register
      name:            VR
      read:            true
      write:           false
    - class:           register
      name:            VR
      read:            true
      write:           false
    - class:           register
      name:            VMV0
      read:            true
      write:           false
  latency:         4
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '3'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   VTYPE
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   VL
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      2
  throughputMin:   2
  throughputMax:   2
...
"#;
    const V2: &str = r#"---
- llvmName:        ZIP2v8i8
  name:            zip2.8b
  operands:
    - class:           register
      name:            FPR64
      read:            false
      write:           true
    - class:           register
      name:            FPR64
      read:            true
      write:           false
    - class:           register
      name:            FPR64
      read:            true
      write:           false
  latency:         2
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
  throughput:      0.25
  throughputMin:   0.25
  throughputMax:   0.25
- llvmName:        ADDXrs
  name:            add
  operands:
    - class:           register
      name:            GPR64
      read:            false
      write:           true
    - class:           register
      name:            GPR64
      read:            true
      write:           false
  latency:         null
  operandLatencies:
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      null
  throughputMin:   null
  throughputMax:   null
- llvmName:        FMLAv4f32
  name:            fmla.4s
  operands:
    - class:           register
      name:            FPR128
      read:            true
      write:           true
    - class:           register
      name:            FPR128
      read:            true
      write:           false
    - class:           register
      name:            FPR128
      read:            true
      write:           false
  latency:         4
  operandLatencies:
    - sourceOperand:   '0'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
    - sourceOperand:   '1'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   '2'
      targetOperand:   '0'
      latencyMin:      4
      latencyMax:      4
    - sourceOperand:   FPCR
      targetOperand:   '0'
      latencyMin:      null
      latencyMax:      null
  throughput:      0.3
  throughputMin:   0.3
  throughputMax:   0.3
- llvmName:        UMIN_ZI_S
  name:            umin
  operands:
    - class:           register
      name:            ZPR
      read:            true
      write:           true
    - class:           immediate
      imd:             int
      read:            true
      write:           false
  latency:         2
  operandLatencies:
    - sourceOperand:   '0'
      targetOperand:   '0'
      latencyMin:      2
      latencyMax:      2
  throughput:      0.25
  throughputMin:   0.25
  throughputMax:   0.25
- llvmName:        PACM
  name:            'hint	#39'
  operands:        []
  latency:         null
  operandLatencies: []
  throughput:      0.1
  throughputMin:   0.1
  throughputMax:   0.1
...
"#;

    fn form(arch: Arch, name: &str) -> Instr {
        Isa::get(arch).instr(name).unwrap()
    }

    fn scratch_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("winic-db-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entry(name: &str) -> Entry {
        Entry {
            llvm_name: name.into(),
            name: name.to_lowercase(),
            operands: vec![],
            latency: None,
            operand_latencies: vec![],
            throughput: None,
            throughput_min: None,
            throughput_max: None,
            vector_state: None,
            vector_configs: vec![],
        }
    }

    #[test]
    fn vector_configs_merge_by_type_and_read_back() {
        let mut db = Database::default();
        let mut base = entry("VADD_VV");
        base.set_throughput(0.5, 0.5);
        db.merge(base.clone());
        let mut tp = entry("VADD_VV");
        tp.set_throughput(2.0, 2.0);
        db.merge_vector_config(base.clone(), VectorConfig::from_entry(&tp, 8, "m4"), false);
        let mut lat = entry("VADD_VV");
        lat.operand_latencies.push(OperandLatency {
            source_operand: "1".into(),
            target_operand: "0".into(),
            latency_min: Some(4.0),
            latency_max: Some(4.0),
        });
        db.merge_vector_config(base.clone(), VectorConfig::from_entry(&lat, 8, "m4"), true);
        db.merge_vector_config(base.clone(), VectorConfig::from_entry(&tp, 64, "m8"), false);
        let e = db.get("VADD_VV").unwrap();
        // WINIC's fields keep the e32 m1 values.
        assert_eq!(e.throughput, Some(0.5));
        assert_eq!(e.vector_configs.len(), 2);
        let c = &e.vector_configs[0];
        assert_eq!((c.sew, c.lmul.as_str()), (8, "m4"));
        assert_eq!((c.throughput, c.latency), (Some(2.0), Some(4.0)));
        let text = db.to_yaml();
        assert!(
            text.contains(
                "  vectorConfigs:\n    - sew:             8\n      lmul:            m4\n"
            ),
            "{text}"
        );
        assert!(text.contains("        - sourceOperand:   '1'\n"), "{text}");
        assert_eq!(Database::parse(&text).unwrap(), db);
    }

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
    fn serde_serialization_parses_back_equal() {
        let db = Database::parse(V2).unwrap();
        let text = serde_yaml::to_string(&db.entries).unwrap();
        assert_eq!(Database::parse(&text).unwrap(), db);
    }

    #[test]
    fn missing_fields_read_as_unmeasured() {
        let text = "- llvmName: ADD\n  name: add\n";
        let db = Database::parse(text).unwrap();
        assert_eq!(db.entries, vec![entry("ADD")]);
        // A file with the end marker may leave fields out (see
        // `a_cut_database_is_refused` for one without).
        let dir = scratch_dir("sparse");
        let path = dir.join("sparse.yaml");
        fs::write(&path, format!("---\n{text}...\n")).unwrap();
        assert_eq!(Database::load(&path).unwrap().entries, vec![entry("ADD")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Every way a file written by winic or WINIC can be cut at a line end
    /// (and a line cut in the middle) is refused by `load`, naming the
    /// file, what is wrong and what to do; a complete file loads.
    #[test]
    fn a_cut_database_is_refused() {
        let dir = scratch_dir("cut");
        let path = dir.join("db.yaml");
        let mut whole = Database::parse(X60).unwrap();
        whole.merge(entry("EXTRA"));
        whole.save(&path).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\n...\n"), "{text}");
        assert_eq!(Database::load(&path).unwrap(), whole);
        let mut cuts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        cuts.pop(); // the whole file
        cuts.extend([text.len() - 2, text.len() / 2 + 3]);
        for &at in &cuts {
            fs::write(&path, &text[..at]).unwrap();
            let err = Database::load(&path).unwrap_err();
            assert!(matches!(err, Error::BadInput(_)), "cut at {at}: {err:?}");
            let msg = err.to_string();
            assert!(msg.starts_with(&path.display().to_string()), "{msg}");
            assert!(
                msg.contains("ends without the document end marker `...`")
                    && msg.contains("the file was cut")
                    && msg.contains("restore it from a copy, or move it away"),
                "cut at {at}: {msg}"
            );
        }
        // A journal beside it is named: it keeps the run's measurements.
        fs::write(Journal::path_of(&path, "LAT"), "").unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("db.yaml.LAT.journal keeps the measurements"),
            "{msg}"
        );
        // Only the final line break missing: not cut.
        fs::write(&path, text.trim_end()).unwrap();
        assert_eq!(Database::load(&path).unwrap(), whole);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Files of other writers (PyYAML writes no `---` and no `...`, and
    /// one blank after a key) load when every entry is complete; one cut
    /// inside an entry is refused, naming the entry and the field.
    #[test]
    fn a_file_without_the_marker_loads_only_when_complete() {
        let dir = scratch_dir("pyyaml");
        let path = dir.join("py.yaml");
        let db = Database::parse(V2).unwrap();
        let text = serde_yaml::to_string(&db.entries).unwrap();
        assert!(!text.contains("..."), "{text}");
        fs::write(&path, &text).unwrap();
        assert_eq!(Database::load(&path).unwrap(), db);
        let cut = &text[..text.find("  throughputMin:").unwrap()];
        fs::write(&path, cut).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 1 (ZIP2v8i8) has no `throughputMin`, and the file ends without the document end marker `...`")
                && msg.contains("the file was probably cut"),
            "{msg}"
        );
        let second = text.match_indices("  throughput:").nth(1).unwrap().0;
        fs::write(&path, &text[..second]).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 2 (ADDXrs) has no `throughput`"),
            "{msg}"
        );
        let sparse = "- llvmName: ADD\n  name: add\n";
        fs::write(&path, sparse).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("entry 1 (ADD) has no `operands`"), "{msg}");
        let pair = "- llvmName: ADD\n  name: add\n  operands: []\n  latency: 1\n  \
                    operandLatencies:\n  - sourceOperand: '1'\n    latencyMin: 1\n    \
                    latencyMax: 1\n  throughput: 1\n  throughputMin: 1\n  throughputMax: 1\n";
        fs::write(&path, pair).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(
            msg.contains("entry 1 (ADD) has no `operandLatencies[0].targetOperand`")
                && msg.contains("was probably cut"),
            "{msg}"
        );
        // With the marker the parser decides (the pair needs both ends).
        fs::write(&path, format!("{pair}...\n")).unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("missing field `targetOperand`"), "{msg}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_database_is_written_as_winic_writes_it() {
        let db = Database::default();
        assert_eq!(db.to_yaml(), "---\n[]\n...\n");
        assert_eq!(Database::parse(&db.to_yaml()).unwrap(), db);
        assert_eq!(Database::parse("").unwrap(), db);
    }

    #[test]
    fn merge_replaces_in_place_and_appends() {
        let mut db = Database::parse(X60).unwrap();
        let n = db.entries.len();
        let mut xori = entry("XORI");
        xori.throughput = Some(1.0);
        db.merge(xori.clone());
        assert_eq!(db.entries.len(), n);
        assert_eq!(db.entries[1], xori);
        db.merge(entry("NEW"));
        assert_eq!(db.entries.len(), n + 1);
        assert_eq!(db.entries[n].llvm_name, "NEW");
    }

    #[test]
    fn throughput_merge_keeps_latency_fields() {
        let mut db = Database::parse(X60).unwrap();
        let before = db.get("ADD").unwrap().clone();
        let mut tp = Entry::for_form(form(Arch::Riscv64, "ADD"));
        tp.set_throughput(0.333, 0.3449);
        db.merge_throughput(tp);
        let after = db.get("ADD").unwrap();
        assert_eq!(after.throughput, Some(0.33));
        assert_eq!(after.throughput_min, Some(0.33));
        assert_eq!(after.throughput_max, Some(0.34));
        assert_eq!(after.latency, before.latency);
        assert_eq!(after.operand_latencies, before.operand_latencies);
        assert_eq!(
            db.entries.iter().position(|e| e.llvm_name == "ADD"),
            Some(2)
        );
    }

    #[test]
    fn latency_merge_keeps_throughput_and_other_pairs() {
        let mut db = Database::parse(X60).unwrap();
        let mut lat = entry("ADD");
        lat.set_operand_latency("2", "0", Some((2.0, 3.0)));
        lat.set_operand_latency("X5", "0", None);
        db.merge_latency(lat);
        let add = db.get("ADD").unwrap();
        assert_eq!(add.name, "add");
        assert_eq!(add.throughput, Some(0.5));
        let pairs: Vec<_> = add
            .operand_latencies
            .iter()
            .map(|l| (l.source_operand.as_str(), l.latency_max))
            .collect();
        assert_eq!(pairs, [("1", Some(1.0)), ("2", Some(3.0)), ("X5", None)]);
        // The range [2;3] does not set it: the kept pair 1 -> 0 is exact.
        assert_eq!(add.latency, Some(1.0));
        // A pair measured exact and higher raises it, and measured again
        // lower lowers it.
        for (v, want) in [(5.0, 5.0), (1.0, 1.0)] {
            let mut again = entry("ADD");
            again.set_operand_latency("2", "0", Some((v, v)));
            db.merge_latency(again);
            assert_eq!(db.get("ADD").unwrap().latency, Some(want));
        }
    }

    fn pair(source: &str, bounds: Option<(f64, f64)>) -> OperandLatency {
        OperandLatency {
            source_operand: source.into(),
            target_operand: "0".into(),
            latency_min: bounds.map(|b| b.0),
            latency_max: bounds.map(|b| b.1),
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

    /// The rule holds however the entry is built: pair by pair, merged
    /// into a database that has the form (from WINIC or an earlier run),
    /// and as an RVV vector type's values; and the file written reads back
    /// with the same `latency`.
    #[test]
    fn latency_survives_set_merge_and_a_round_trip() {
        let mut e = entry("VADDPDZrrk");
        e.set_operand_latency("1", "0", Some((1.0, 8.0)));
        assert_eq!(e.latency, Some(8.0));
        e.set_operand_latency("0", "0", Some((4.0, 4.0)));
        e.set_operand_latency("2", "0", Some((4.0, 4.0)));
        assert_eq!(e.latency, Some(4.0));
        // An old entry written by the largest-latencyMax rule.
        let mut old = entry("VADDPDZrrk");
        old.operand_latencies = vec![pair("1", Some((1.0, 8.0))), pair("3", Some((4.0, 4.0)))];
        old.latency = Some(8.0);
        old.throughput = Some(0.5);
        let mut db = Database { entries: vec![old] };
        db.merge_latency(e.clone());
        let got = db.get("VADDPDZrrk").unwrap();
        assert_eq!(got.latency, Some(4.0));
        assert_eq!(got.throughput, Some(0.5));
        let back = Database::parse(&db.to_yaml()).unwrap();
        assert_eq!(back.get("VADDPDZrrk").unwrap().latency, Some(4.0));
        assert!(db.to_yaml().contains("  latency:         4\n"));
        // RVV: a vector type's values merged pair by pair.
        let mut rv = Database::default();
        let base = entry("VADD_VV");
        let config = |pairs: Vec<OperandLatency>| VectorConfig {
            sew: 8,
            lmul: "m1".into(),
            throughput: None,
            throughput_min: None,
            throughput_max: None,
            latency: form_latency(&pairs),
            operand_latencies: pairs,
        };
        rv.merge_vector_config(
            base.clone(),
            config(vec![pair("1", Some((1.0, 6.0)))]),
            true,
        );
        rv.merge_vector_config(base, config(vec![pair("2", Some((2.0, 2.0)))]), true);
        assert_eq!(rv.entries[0].vector_configs[0].latency, Some(2.0));
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

    #[test]
    fn save_is_atomic_and_reloads_equal() {
        let dir = scratch_dir("save");
        let path = dir.join("x60.yaml");
        let db = Database::parse(X60).unwrap();
        db.save(&path).unwrap();
        let mut v2 = Database::parse(V2).unwrap();
        v2.merge(entry("EXTRA"));
        v2.save(&path).unwrap();
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["x60.yaml"]);
        assert_eq!(fs::read_to_string(&path).unwrap(), v2.to_yaml());
        assert_eq!(Database::load(&path).unwrap(), v2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_save_names_the_path_and_leaves_nothing() {
        let dir = scratch_dir("fail");
        let path = dir.join("no-such-dir").join("db.yaml");
        let err = Database::default().save(&path).unwrap_err();
        assert!(matches!(err, Error::Io(..)), "{err:?}");
        assert!(err.to_string().contains("no-such-dir/db.yaml"), "{err}");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_is_an_empty_database() {
        let dir = scratch_dir("missing");
        let db = Database::load(dir.join("none.yaml")).unwrap();
        assert!(db.entries.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_file_error_names_path_line_and_column() {
        let dir = scratch_dir("malformed");
        let path = dir.join("bad.yaml");
        fs::write(&path, "---\n- llvmName: ADD\n  name: add\n  read: [\n").unwrap();
        let err = Database::load(&path).unwrap_err();
        assert!(matches!(err, Error::BadInput(_)), "{err:?}");
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("{}:", path.display())), "{msg}");
        assert!(msg.contains(":4:") || msg.contains(":5:"), "{msg}");
        fs::write(&path, "- llvmName: ADD\n  operands: 3\n").unwrap();
        let msg = Database::load(&path).unwrap_err().to_string();
        assert!(msg.contains("bad.yaml:"), "{msg}");
        fs::remove_dir_all(&dir).unwrap();
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

    /// `for_form` describes the forms of both WINIC files exactly as WINIC
    /// did: same mnemonic, same operands.
    #[test]
    fn for_form_matches_winic_entries() {
        for (arch, text) in [(Arch::Riscv64, X60), (Arch::Aarch64, V2)] {
            for winic in Database::parse(text).unwrap().entries {
                let ours = Entry::for_form(form(arch, &winic.llvm_name));
                assert_eq!(ours.name, winic.name, "{}", winic.llvm_name);
                assert_eq!(ours.operands, winic.operands, "{}", winic.llvm_name);
                assert_eq!(ours.latency, None);
                assert_eq!(ours.throughput, None);
            }
        }
    }

    fn reg(class: &str, read: bool, write: bool) -> OperandEntry {
        OperandEntry {
            class: "register".into(),
            name: Some(class.into()),
            imd: None,
            read,
            write,
        }
    }

    fn imm() -> OperandEntry {
        OperandEntry {
            class: "immediate".into(),
            name: None,
            imd: Some("int".into()),
            read: true,
            write: false,
        }
    }

    #[test]
    fn x86_forms_use_intel_mnemonics_and_drop_tied_and_memory_operands() {
        let add = Entry::for_form(form(Arch::X86_64, "ADD64rr"));
        assert_eq!(add.llvm_name, "ADD64rr");
        assert_eq!(add.name, "add");
        assert_eq!(
            add.operands,
            [reg("GR64", true, true), reg("GR64", true, false)]
        );
        let addi = Entry::for_form(form(Arch::X86_64, "ADD64ri32"));
        assert_eq!(addi.operands, [reg("GR64", true, true), imm()]);
        let addm = Entry::for_form(form(Arch::X86_64, "ADD64rm"));
        assert_eq!(addm.operands, [reg("GR64", true, true)]);
        assert!(add.operand_latencies.is_empty());
    }

    #[test]
    fn aarch64_and_riscv_add_operands() {
        let add = Entry::for_form(form(Arch::Aarch64, "ADDXrs"));
        assert_eq!(add.name, "add");
        // The shifted Rm is a sub-operand of an OPERAND_UNKNOWN operand.
        assert_eq!(
            add.operands,
            [reg("GPR64", false, true), reg("GPR64", true, false)]
        );
        let add = Entry::for_form(form(Arch::Riscv64, "ADD"));
        assert_eq!(add.name, "add");
        let gpr = reg("GPR", true, false);
        assert_eq!(add.operands, [reg("GPR", false, true), gpr.clone(), gpr]);
    }

    #[test]
    fn operand_keys_skip_tied_duplicates() {
        let add = form(Arch::X86_64, "ADD64rr");
        let keys: Vec<_> = (0..3).map(|i| operand_key(add, i)).collect();
        assert_eq!(keys, ["0", "0", "1"]);
        let fmla = form(Arch::Aarch64, "FMLAv4f32");
        let keys: Vec<_> = (0..4).map(|i| operand_key(fmla, i)).collect();
        assert_eq!(keys, ["0", "0", "1", "2"]);
    }
}

/// The crash-safe record of a run in progress: `<database>.journal`, one
/// JSON line per finished form (its name and, when it was measured, its
/// entry), appended and flushed as each form finishes. A run killed at any
/// moment loses at most the form it was measuring; `--resume` reads the
/// journal back, and a run that ends merges it into the database and
/// removes it.
pub struct Journal {
    path: PathBuf,
    out: fs::File,
}

/// One journal line.
#[derive(Serialize, Deserialize)]
struct JournalLine {
    #[serde(rename = "llvmName")]
    llvm_name: String,
    entry: Option<Entry>,
}

impl Journal {
    /// The journal of a `mode` run (`TP`, `LAT`) into `database`:
    /// `FILE.TP.journal`, one per mode, so that an interrupted run of one
    /// mode never resumes as the other.
    pub fn path_of(database: &Path, mode: &str) -> PathBuf {
        let mut p = database.as_os_str().to_owned();
        p.push(format!(".{mode}.journal"));
        PathBuf::from(p)
    }

    /// Opens the journal of `database`: with `resume`, keeps what is there
    /// and returns the names of the forms it lists and their entries;
    /// without, refuses to overwrite an existing journal (a run was
    /// interrupted: resume it or delete the file).
    pub fn open(
        database: &Path,
        mode: &str,
        resume: bool,
    ) -> Result<(Journal, Vec<String>, Vec<Entry>), Error> {
        let path = Journal::path_of(database, mode);
        let (mut names, mut entries) = (Vec::new(), Vec::new());
        if path.exists() {
            if !resume {
                return Err(Error::BadInput(format!(
                    "{} exists: an earlier run into {} was interrupted; give --resume to continue it, or delete the journal to start over",
                    path.display(),
                    database.display()
                )));
            }
            let mut text = fs::read_to_string(&path)
                .map_err(|e| Error::Io(format!("reading {}", path.display()), e))?;
            if !text.is_empty() && !text.ends_with('\n') {
                // The line a crash cut: dropped from the file too, so the
                // next line starts clean.
                text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
                fs::write(&path, &text)
                    .map_err(|e| Error::Io(format!("repairing {}", path.display()), e))?;
            }
            for (k, line) in text.lines().enumerate() {
                // A line cut by a crash is the form in progress: ignored.
                let Ok(j) = serde_json::from_str::<JournalLine>(line) else {
                    if k + 1 == text.lines().count() {
                        continue;
                    }
                    return Err(Error::BadInput(format!(
                        "{}:{}: not a journal line; delete the journal to start over",
                        path.display(),
                        k + 1
                    )));
                };
                names.push(j.llvm_name);
                entries.extend(j.entry);
            }
        }
        let out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::Io(format!("opening {}", path.display()), e))?;
        Ok((Journal { path, out }, names, entries))
    }

    /// Appends one finished form.
    pub fn record(&mut self, llvm_name: &str, entry: Option<&Entry>) -> Result<(), Error> {
        let line = serde_json::to_string(&JournalLine {
            llvm_name: llvm_name.to_string(),
            entry: entry.cloned(),
        })
        .expect("entries are plain data");
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::Io(format!("writing {}", self.path.display()), e))
    }

    /// Removes the journal (after its entries are in the saved database).
    pub fn finish(self) -> Result<(), Error> {
        fs::remove_file(&self.path)
            .map_err(|e| Error::Io(format!("removing {}", self.path.display()), e))
    }
}

#[cfg(test)]
mod journal_tests {
    use super::*;

    #[test]
    fn a_journal_survives_an_interrupted_run_and_is_refused_without_resume() {
        let dir = std::env::temp_dir().join(format!("winic-journal-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let db = dir.join("db.yaml");
        let form = crate::isa::Isa::get(Arch::X86_64).instr("ADD64rr").unwrap();
        let mut e = Entry::for_form(form);
        e.set_throughput(0.25, 0.25);
        {
            let (mut j, names, _) = Journal::open(&db, "TP", false).unwrap();
            assert!(names.is_empty());
            j.record("ADD64rr", Some(&e)).unwrap();
            j.record("SYSCALL", None).unwrap();
        }
        // A cut last line (the crash) is ignored.
        let jp = Journal::path_of(&db, "TP");
        let mut f = fs::OpenOptions::new().append(true).open(&jp).unwrap();
        write!(f, "{{\"llvmName\":\"IMU").unwrap();
        drop(f);
        let err = Journal::open(&db, "TP", false).err().unwrap().to_string();
        assert!(err.contains("--resume"), "{err}");
        let (mut j, names, entries) = Journal::open(&db, "TP", true).unwrap();
        assert_eq!(names, ["ADD64rr", "SYSCALL"]);
        assert_eq!(entries, vec![e.clone()]);
        j.record("IMUL64rr", None).unwrap();
        drop(j);
        let (j, names, _) = Journal::open(&db, "TP", true).unwrap();
        assert_eq!(names, ["ADD64rr", "SYSCALL", "IMUL64rr"]);
        j.finish().unwrap();
        assert!(!jp.exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
