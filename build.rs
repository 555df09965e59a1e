//! Build script: compiles `isa-data/<arch>.json` (committed, produced offline
//! by `scripts/dump-tablegen.sh`) into static Rust tables in `$OUT_DIR`.
//!
//! Inputs: `isa-data/{x86_64,aarch64,riscv64}.json`. Outputs:
//! `$OUT_DIR/tables_<arch>.rs`, each included once by `src/isa/tables.rs`,
//! and the three large tables of each arch (`INSTRS`, `OPERANDS`,
//! `ENCODINGS`) as `$OUT_DIR/<arch>.<TABLE>.bin`, which it includes as bytes.
//! Environment: `OUT_DIR`; `WINIC_VERBOSE=1` prints what was generated.
//!
//! The tables are flat arrays (instructions, operands, registers, classes,
//! features, predicates) plus pools of ids that the records index by
//! (start, len): a few large arrays of plain structs compile much faster than
//! thousands of small nested slices. The large ones are words, not Rust
//! literals: rustc took 40 s (rustup's, release) to 72 s (Debian's, for
//! AArch64) to type-check and lower the 44 MB of literals they were, in
//! every build of the crate; `src/isa/desc.rs` (`table`, `Record`) reads
//! them on first use. Nothing here calls llvm-tblgen, uses the
//! network or reads src/. Invalid data stops the build naming the record.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

const ARCHS: [&str; 3] = ["x86_64", "aarch64", "riscv64"];

/// Instruction flags, in bit order. `src/isa/mod.rs` declares `Flag` with the
/// same order; a unit test there checks both agree through `FLAG_NAMES`.
const FLAGS: [&str; 21] = [
    "isPseudo",
    "isCodeGenOnly",
    "isAsmParserOnly",
    "isBranch",
    "isIndirectBranch",
    "isCall",
    "isReturn",
    "isTerminator",
    "isBarrier",
    "isTrap",
    "mayLoad",
    "mayStore",
    "hasSideEffects",
    "isMoveReg",
    "isMoveImm",
    "isCompare",
    "isCommutable",
    "isNotDuplicable",
    "mayRaiseFPException",
    "isPreISelOpcode",
    "isMeta",
];

/// x86 single-bit encoding fields, in bit order (`X86Bit` in src/isa/mod.rs).
const X86_BITS: [&str; 15] = [
    "rex_w",
    "vex_4v",
    "vex_l",
    "ignores_vex_l",
    "ignores_w",
    "evex_k",
    "evex_z",
    "evex_l2",
    "evex_b",
    "evex_rc",
    "evex_nf",
    "lock",
    "rep",
    "notrack",
    "two_cond_ops",
];

type Result<T> = std::result::Result<T, String>;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WINIC_VERBOSE");
    let verbose = std::env::var_os("WINIC_VERBOSE").is_some();
    for arch in ARCHS {
        let input = manifest.join("isa-data").join(format!("{arch}.json"));
        println!("cargo:rerun-if-changed={}", input.display());
        let start = Instant::now();
        let output = out_dir.join(format!("tables_{arch}.rs"));
        if let Err(err) = generate(arch, &input, &output) {
            eprintln!("Error: {}: {err}", input.display());
            eprintln!(
                "(isa-data/ is produced by scripts/dump-tablegen.sh; do not edit it by hand)"
            );
            std::process::exit(1);
        }
        if verbose {
            println!(
                "cargo:warning=winic: {} -> {} in {:.2?}",
                input.display(),
                output.display(),
                start.elapsed()
            );
        }
    }
}

fn generate(arch: &str, input: &Path, output: &Path) -> Result<()> {
    let text = std::fs::read_to_string(input).map_err(|e| format!("cannot read: {e}"))?;
    let data: Value = serde_json::from_str(&text).map_err(|e| format!("invalid JSON: {e}"))?;
    if data["arch"] != arch {
        return Err(format!("says arch {}, expected {arch}", data["arch"]));
    }
    let hash = fnv1a(text.as_bytes());
    let mut g = Gen::new(arch, &data)?;
    let code = g.emit(input, hash)?;
    let dir = output.parent().unwrap();
    for (table, words) in &g.binary {
        let path = dir.join(format!("{arch}.{table}.bin"));
        let bytes: Vec<u8> = words.bytes().collect();
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    std::fs::write(output, code).map_err(|e| format!("cannot write {}: {e}", output.display()))
}

/// The magic first word of a binary table (`src/isa/desc.rs` checks it).
const TABLE_MAGIC: u32 = 0x5457_4e43;

/// A binary table being written: a header (`TABLE_MAGIC`, the record
/// count, the words per record), then every record's fields as
/// little-endian `u32` words in the order of its struct in
/// `src/isa/desc.rs` (`Record::read`): a `Str` or a range is two words, a
/// `u64` two (low first), an `Option` `u32::MAX` for `None`, an enum its
/// variant's index, a `bool` 0 or 1.
#[derive(Default)]
struct Words {
    words: Vec<u32>,
    per_record: u32,
    records: u32,
}

impl Words {
    /// Appends one record; the first sets the table's words per record,
    /// every later one must have as many.
    fn push(&mut self, record: &[u32]) {
        if self.records == 0 {
            self.per_record = record.len() as u32;
        }
        assert_eq!(record.len() as u32, self.per_record, "record length");
        self.words.extend_from_slice(record);
        self.records += 1;
    }

    fn len(&self) -> usize {
        self.records as usize
    }

    /// The file's bytes.
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        [TABLE_MAGIC, self.records, self.per_record]
            .into_iter()
            .chain(self.words.iter().copied())
            .flat_map(u32::to_le_bytes)
    }
}

/// The Rust declaration of binary table `table` of `arch`, read on first use.
fn binary_static(arch: &str, table: &str, ty: &str, doc: &str) -> String {
    format!(
        "/// {doc} (records of `{ty}`)\npub static {table}: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{arch}.{table}.bin\"));\n"
    )
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

fn obj<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| format!("{what} is not an object"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// A Rust string literal.
fn lit(text: &str) -> String {
    format!("{text:?}")
}

/// An ordered name -> index map over a JSON object's keys (sorted).
fn index_of(m: &Map<String, Value>) -> HashMap<String, usize> {
    m.keys().enumerate().map(|(i, k)| (k.clone(), i)).collect()
}

struct Gen<'a> {
    arch: &'a str,
    data: &'a Value,
    regs: HashMap<String, usize>,
    classes: HashMap<String, usize>,
    optypes: HashMap<String, usize>,
    preds: HashMap<String, usize>,
    features: HashMap<String, usize>,
    /// Pool of u16 ids (registers, predicates, features), deduplicated by content.
    pool: Vec<u16>,
    pool_index: HashMap<Vec<u16>, u32>,
    /// String refs (alt names, sub-operand names), referenced by range.
    strs: Vec<String>,
    /// All strings, concatenated; `Str(offset, len)` points into it. Offsets
    /// instead of `&str` keep the tables free of relocations: in a static-pie
    /// binary a `&str` costs 16 bytes plus a 24-byte dynamic relocation.
    blob: String,
    interned: HashMap<String, (u32, u32)>,
    /// Records of `ENCODINGS` (x86 fields or bit layouts), rows of `FIELDS`.
    encodings: Words,
    fields: Vec<String>,
    /// The binary tables to write beside the Rust file, by name.
    binary: Vec<(&'static str, Words)>,
}

impl<'a> Gen<'a> {
    fn new(arch: &'a str, data: &'a Value) -> Result<Self> {
        Ok(Gen {
            arch,
            data,
            regs: index_of(obj(&data["registers"], "registers")?),
            classes: index_of(obj(&data["register_classes"], "register_classes")?),
            optypes: index_of(obj(&data["operand_types"], "operand_types")?),
            preds: index_of(obj(&data["predicates"], "predicates")?),
            features: index_of(obj(&data["features"], "features")?),
            pool: Vec::new(),
            pool_index: HashMap::new(),
            strs: Vec::new(),
            blob: String::new(),
            interned: HashMap::new(),
            encodings: Words::default(),
            fields: Vec::new(),
            binary: Vec::new(),
        })
    }

    /// Interns a list of ids; returns `(start, len)` into `POOL`.
    fn ids(&mut self, ids: Vec<u16>) -> (u32, u32) {
        let len = ids.len() as u32;
        if ids.is_empty() {
            return (0, 0);
        }
        if let Some(&start) = self.pool_index.get(&ids) {
            return (start, len);
        }
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(&ids);
        self.pool_index.insert(ids, start);
        (start, len)
    }

    fn names(
        &mut self,
        what: &str,
        map: &HashMap<String, usize>,
        list: &Value,
    ) -> Result<(u32, u32)> {
        let mut ids = Vec::new();
        for v in list.as_array().map(|a| a.as_slice()).unwrap_or(&[]) {
            let name = s(v);
            let id = map
                .get(name)
                .ok_or_else(|| format!("unknown {what} {name:?}"))?;
            ids.push(*id as u16);
        }
        Ok(self.ids(ids))
    }

    /// Interns `text`; returns the Rust expression `Str(offset, len)`.
    fn st(&mut self, text: &str) -> String {
        let [o, l] = self.sw(text);
        format!("Str({o}, {l})")
    }

    /// Interns `text`; returns its `Str` as two words (offset, len).
    fn sw(&mut self, text: &str) -> [u32; 2] {
        let (o, l) = match self.interned.get(text) {
            Some(&ol) => ol,
            None => {
                let ol = (self.blob.len() as u32, text.len() as u32);
                self.blob.push_str(text);
                self.interned.insert(text.to_string(), ol);
                ol
            }
        };
        [o, l]
    }

    fn strings(&mut self, list: &Value) -> (u32, u32) {
        let items: Vec<String> = list
            .as_array()
            .map(|a| a.iter().map(|v| s(v).to_string()).collect())
            .unwrap_or_default();
        let start = self.strs.len() as u32;
        let len = items.len() as u32;
        self.strs.extend(items);
        (start, len)
    }

    fn emit(&mut self, input: &Path, hash: u64) -> Result<String> {
        for (what, n) in [
            ("registers", self.regs.len()),
            ("operand types", self.optypes.len()),
        ] {
            if n >= u16::MAX as usize {
                return Err(format!("too many {what} ({n}) for u16 ids"));
            }
        }
        let mut out = String::new();
        let name = input.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "// Generated by build.rs from isa-data/{name} (fnv1a {hash:016x}). Do not edit."
        )
        .unwrap();
        writeln!(
            out,
            "// The arch is {}; regenerate isa-data with scripts/dump-tablegen.sh.",
            self.arch
        )
        .unwrap();
        out += &self.emit_features()?;
        out += &self.emit_predicates()?;
        out += &self.emit_registers()?;
        out += &self.emit_classes()?;
        out += &self.emit_operand_types()?;
        out += &self.emit_instructions()?;
        out += &self.emit_aliases()?;
        writeln!(
            out,
            "/// Ids referenced by (start, len) from the tables above."
        )
        .unwrap();
        writeln!(
            out,
            "pub static POOL: [u16; {}] = {:?};",
            self.pool.len(),
            self.pool
        )
        .unwrap();
        let strs = std::mem::take(&mut self.strs);
        let refs: Vec<String> = strs.iter().map(|t| self.st(t)).collect();
        writeln!(
            out,
            "/// Strings referenced by (start, len): alternative names, sub-operand names."
        )
        .unwrap();
        writeln!(
            out,
            "pub static STRS: [Str; {}] = [{}];",
            refs.len(),
            refs.join(",")
        )
        .unwrap();
        let enc_ty = if self.arch == "x86_64" {
            "X86EncodingDesc"
        } else {
            "BitLayoutDesc"
        };
        out += &binary_static(
            self.arch,
            "ENCODINGS",
            enc_ty,
            &format!(
                "Encodings ({}), indexed by `InstrDesc::enc`.",
                self.encodings.len()
            ),
        );
        let encodings = std::mem::take(&mut self.encodings);
        self.binary.push(("ENCODINGS", encodings));
        writeln!(
            out,
            "/// Operand fields of the bit layouts, referenced by (start, len)."
        )
        .unwrap();
        writeln!(
            out,
            "pub static FIELDS: [BitFieldDesc; {}] = [{}];",
            self.fields.len(),
            self.fields.join(",")
        )
        .unwrap();
        writeln!(
            out,
            "/// Every string of these tables; `Str(offset, len)` points into it."
        )
        .unwrap();
        writeln!(out, "pub static BLOB: &str = {};", lit(&self.blob)).unwrap();
        Ok(out)
    }

    fn emit_features(&mut self) -> Result<String> {
        let m = obj(&self.data["features"], "features")?;
        let features = self.features.clone();
        let mut out = format!("/// Subtarget features (LLVM `SubtargetFeature`), by name.\npub static FEATURES: [FeatureDesc; {}] = [\n", m.len());
        for (name, f) in m {
            let (is, il) = self
                .names("feature", &features, &f["implies"])
                .map_err(|e| format!("feature {name}: {e}"))?;
            let (n, r, d) = (
                self.st(name),
                self.st(s(&f["record"])),
                self.st(s(&f["desc"])),
            );
            writeln!(
                out,
                "FeatureDesc {{ name: {n}, record: {r}, desc: {d}, implies: ({is}, {il}) }},"
            )
            .unwrap();
        }
        out += "];\n";
        Ok(out)
    }

    fn emit_predicates(&mut self) -> Result<String> {
        let m = obj(&self.data["predicates"], "predicates")?;
        let mut out = format!("/// Predicates (LLVM `Predicate`), by name; `cond` is over feature names.\npub static PREDICATES: [PredicateDesc; {}] = [\n", m.len());
        for (name, p) in m {
            let (n, c, r) = (self.st(name), self.st(s(&p["cond"])), self.st(s(&p["raw"])));
            writeln!(out, "PredicateDesc {{ name: {n}, cond: {c}, raw: {r} }},").unwrap();
        }
        out += "];\n";
        Ok(out)
    }

    fn emit_registers(&mut self) -> Result<String> {
        let m = obj(&self.data["registers"], "registers")?;
        let regs = self.regs.clone();
        let mut out = format!("/// Registers, sorted by name; ids index this array.\npub static REGISTERS: [RegDesc; {}] = [\n", m.len());
        for (name, r) in m {
            let err = |e: String| format!("register {name}: {e}");
            let enc = r["enc"].as_u64().ok_or_else(|| err("no enc".into()))?;
            let (ss, sl) = self.names("register", &regs, &r["sub"]).map_err(err)?;
            let all = if r.get("all_sub").is_some() {
                &r["all_sub"]
            } else {
                &r["sub"]
            };
            let (as_, al) = self.names("register", &regs, all).map_err(err)?;
            let (ts, tl) = self.strings(&r["alt"]);
            let (n, a) = (self.st(name), self.st(s(&r["asm"])));
            let tuple = r["tuple"].as_bool().unwrap_or(false);
            writeln!(out, "RegDesc {{ name: {n}, asm: {a}, alt: ({ts}, {tl}), enc: {enc}, sub: ({ss}, {sl}), all_sub: ({as_}, {al}), tuple: {tuple} }},").unwrap();
        }
        out += "];\n";
        Ok(out)
    }

    fn emit_classes(&mut self) -> Result<String> {
        let m = obj(&self.data["register_classes"], "register_classes")?;
        let regs = self.regs.clone();
        let mut out = format!("/// Register classes, sorted by name; members in LLVM's allocation order.\npub static CLASSES: [RegClassDesc; {}] = [\n", m.len());
        for (name, c) in m {
            let (ms, ml) = self
                .names("register", &regs, &c["members"])
                .map_err(|e| format!("class {name}: {e}"))?;
            let n = self.st(name);
            writeln!(
                out,
                "RegClassDesc {{ name: {n}, bits: {}, members: ({ms}, {ml}) }},",
                c["bits"].as_u64().unwrap_or(0)
            )
            .unwrap();
        }
        out += "];\n";
        Ok(out)
    }

    fn emit_operand_types(&mut self) -> Result<String> {
        let m = obj(&self.data["operand_types"], "operand_types")?;
        let mut out = format!("/// Operand types (register classes, RegisterOperands, Operands), sorted by name.\npub static OPERAND_TYPES: [OperandTypeDesc; {}] = [\n", m.len());
        let mut subs: Vec<String> = Vec::new();
        for (name, t) in m {
            let kind = match s(&t["kind"]) {
                "reg" => "Reg",
                "imm" => "Imm",
                "mem" => "Mem",
                "pcrel" => "PcRel",
                "complex" => "Complex",
                "ptr" => "Ptr",
                "other" => "Other",
                k => return Err(format!("operand type {name}: unknown kind {k:?}")),
            };
            let class = match t.get("class").and_then(|c| c.as_str()) {
                Some(c) => {
                    let id = self
                        .classes
                        .get(c)
                        .ok_or_else(|| format!("operand type {name}: unknown class {c}"))?;
                    format!("Some({id})")
                }
                None => "None".into(),
            };
            let imm = match t.get("imm") {
                Some(i) => format!(
                    "Some(ImmInfo {{ bits: {}, signed: {:?}, min: {:?}, max: {:?}, align: {} }})",
                    i["bits"].as_u64().or(i["vt_bits"].as_u64()).unwrap_or(0),
                    i["signed"].as_bool(),
                    i["min"].as_i64(),
                    i["max"].as_i64(),
                    i["align"].as_u64().unwrap_or(1)
                ),
                None => "None".into(),
            };
            let sub_start = subs.len();
            for st in t
                .get("sub")
                .and_then(|v| v.as_array())
                .map(|a| a.as_slice())
                .unwrap_or(&[])
            {
                let tname = s(&st[0]);
                let id = *self.optypes.get(tname).ok_or_else(|| {
                    format!("operand type {name}: unknown sub-operand type {tname}")
                })?;
                let sn = self.st(s(&st[1]));
                subs.push(format!("({id}, {sn})"));
            }
            let sub_len = subs.len() - sub_start;
            let [n, optype, vt, print, encode, decode, parser] = [
                name.as_str(),
                s(&t["optype"]),
                s(&t["vt"]),
                s(&t["print"]),
                s(&t["encode"]),
                s(&t["decode"]),
                s(&t["parser"]),
            ]
            .map(|x| self.st(x));
            writeln!(out, "OperandTypeDesc {{ name: {n}, kind: OperandKind::{kind}, class: {class}, optype: {optype}, vt: {vt}, print: {print}, encode: {encode}, decode: {decode}, parser: {parser}, imm: {imm}, sub: ({sub_start}, {sub_len}) }},").unwrap();
        }
        out += "];\n";
        writeln!(out, "/// Sub-operands of complex operand types: (type id, name).\npub static SUB_OPERANDS: [(u16, Str); {}] = [{}];", subs.len(), subs.join(",")).unwrap();
        Ok(out)
    }

    fn emit_instructions(&mut self) -> Result<String> {
        let list = self.data["instructions"]
            .as_array()
            .ok_or("instructions is not a list")?;
        let regs = self.regs.clone();
        let preds = self.preds.clone();
        let mut instrs = Words::default();
        let mut operands = Words::default();
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, ins) in list.iter().enumerate() {
            let name = s(&ins["name"]);
            let err = |e: String| format!("instruction {name}: {e}");
            if ins["opcode"].as_u64() != Some(i as u64) {
                return Err(err(format!("opcode {} at position {i}", ins["opcode"])));
            }
            if names.insert(name, i).is_some() {
                return Err(err("duplicate name".into()));
            }
            let ops = ins["ops"].as_array().ok_or_else(|| err("no ops".into()))?;
            if ops.len() > u8::MAX as usize {
                return Err(err(format!("{} operands", ops.len())));
            }
            let op_start = operands.len() as u32;
            let early: Vec<&str> = ins
                .get("earlyclobber")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().map(s).collect())
                .unwrap_or_default();
            for op in ops {
                let oname = s(&op["name"]);
                let ty = s(&op["type"]);
                let ty_id = *self
                    .optypes
                    .get(ty)
                    .ok_or_else(|| err(format!("operand {oname}: unknown type {ty}")))?;
                let tied = match op.get("tied").and_then(|t| t.as_str()) {
                    Some(t) => {
                        let j = ops
                            .iter()
                            .position(|o| s(&o["name"]) == t)
                            .ok_or_else(|| err(format!("operand {oname} tied to unknown {t}")))?;
                        j as u32
                    }
                    None => u32::MAX,
                };
                // `Io`: Out 0, In 1.
                let io = u32::from(s(&op["io"]) != "out");
                let (ss, sl) = self.strings(op.get("sub_names").unwrap_or(&Value::Null));
                let [on, ol] = self.sw(oname);
                let ec = u32::from(early.contains(&oname));
                operands.push(&[on, ol, io, ty_id as u32, tied, ss, sl, ec]);
            }
            let (ds, dl) = self.names("register", &regs, &ins["defs"]).map_err(err)?;
            let (us, ul) = self.names("register", &regs, &ins["uses"]).map_err(err)?;
            let (ps, pl) = self
                .names("predicate", &preds, &ins["preds"])
                .map_err(err)?;
            let flags = flag_bits(&FLAGS, &ins["flags"]).map_err(err)?;
            let unknown = flag_bits(&FLAGS, &ins["unknown"]).map_err(err)?;
            let enc = self.encoding(ins).map_err(err)?;
            let ([n, nl], [a, al]) = (self.sw(name), self.sw(s(&ins["asm"])));
            let size = ins["size"].as_u64().unwrap_or(0);
            if size > u8::MAX as u64 {
                return Err(err(format!("size {size} is not a byte")));
            }
            let rvv = ins["rvv_constraint"].as_u64().unwrap_or(0);
            if rvv > 7 {
                return Err(err(format!("rvv_constraint {rvv} is not 3 bits")));
            }
            instrs.push(&[
                n,
                nl,
                a,
                al,
                size as u32,
                op_start,
                ops.len() as u32,
                ds,
                dl,
                us,
                ul,
                ps,
                pl,
                flags,
                unknown,
                enc,
                rvv as u32,
            ]);
        }
        let mut out = binary_static(
            self.arch,
            "INSTRS",
            "InstrDesc",
            &format!(
                "Instruction forms ({}) in LLVM opcode order (index == opcode).",
                instrs.len()
            ),
        );
        out += &binary_static(
            self.arch,
            "OPERANDS",
            "OperandDesc",
            &format!(
                "Operands ({}) of all instructions, referenced by (start, len).",
                operands.len()
            ),
        );
        self.binary.push(("INSTRS", instrs));
        self.binary.push(("OPERANDS", operands));
        let ids: Vec<String> = names.values().map(|i| i.to_string()).collect();
        writeln!(out, "/// Instruction ids sorted by name, for binary search.\npub static BY_NAME: [u32; {}] = [{}];", ids.len(), ids.join(",")).unwrap();
        Ok(out)
    }

    /// `ALIASES` (InstAlias records: another spelling of one form) and
    /// `ALIAS_ARGS` (per machine operand of the form, what the alias puts
    /// there).
    fn emit_aliases(&mut self) -> Result<String> {
        let empty = Vec::new();
        let list = self.data["aliases"].as_array().unwrap_or(&empty);
        let instrs: HashMap<&str, usize> = self.data["instructions"]
            .as_array()
            .ok_or("instructions is not a list")?
            .iter()
            .enumerate()
            .map(|(i, v)| (s(&v["name"]), i))
            .collect();
        let preds = self.preds.clone();
        let regs = self.regs.clone();
        let mut rows = Vec::new();
        let mut args = Vec::new();
        for a in list {
            let asm = s(&a["asm"]);
            let err = |e: String| format!("alias {asm:?}: {e}");
            let form = *instrs
                .get(s(&a["inst"]))
                .ok_or_else(|| err(format!("unknown instruction {}", a["inst"])))?;
            let start = args.len();
            for op in a["ops"].as_array().ok_or_else(|| err("no ops".into()))? {
                let row = if let Some(n) = op.get("name") {
                    let ty = *self
                        .optypes
                        .get(s(&op["type"]))
                        .ok_or_else(|| err(format!("unknown type {}", op["type"])))?;
                    let sub = op["sub"].as_u64().unwrap_or(0);
                    format!(
                        "AliasArgDesc::Named {{ name: {}, ty: {ty}, sub: {sub} }}",
                        self.st(s(n))
                    )
                } else if let Some(r) = op.get("reg") {
                    let id = regs
                        .get(s(r))
                        .ok_or_else(|| err(format!("unknown register {r}")))?;
                    format!("AliasArgDesc::Reg({id})")
                } else if let Some(v) = op.get("imm").and_then(|v| v.as_i64()) {
                    format!("AliasArgDesc::Imm({v})")
                } else if op.get("tied").is_some() {
                    "AliasArgDesc::Tied".to_string()
                } else {
                    return Err(err(format!("bad operand {op}")));
                };
                args.push(row);
            }
            let (ps, pl) = self.names("predicate", &preds, &a["preds"]).map_err(err)?;
            let prio = a["priority"].as_i64().unwrap_or(0);
            rows.push(format!(
                "AliasDesc {{ asm: {}, form: {form}, args: ({start}, {}), predicates: ({ps}, {pl}), priority: {prio} }}",
                self.st(asm),
                args.len() - start
            ));
        }
        Ok(format!(
            "/// InstAlias records, in record order.\npub static ALIASES: [AliasDesc; {}] = [\n{}];\n/// Machine operands of the aliases' forms, referenced by (start, len).\npub static ALIAS_ARGS: [AliasArgDesc; {}] = [\n{}];\n",
            rows.len(),
            rows.join(",\n"),
            args.len(),
            args.join(",\n")
        ))
    }

    /// Adds the instruction's encoding to `ENCODINGS`; returns its index, or
    /// `NO_ENCODING`.
    fn encoding(&mut self, ins: &Value) -> Result<u32> {
        if let Some(x) = ins.get("x86") {
            let set: Vec<Value> = X86_BITS
                .iter()
                .filter(|b| x.get(**b).is_some())
                .map(|b| Value::from(*b))
                .collect();
            let bits = flag_bits(&X86_BITS, &Value::Array(set))?;
            let byte = |k: &str| match x[k].as_u64().unwrap_or(0) {
                v @ 0..=255 => Ok(v as u32),
                v => Err(format!("{k} {v} is not a byte")),
            };
            let [form, map, prefix, openc, opsize, adsize, immt, explicit_prefix, fpform] = [
                "form",
                "map",
                "prefix",
                "openc",
                "opsize",
                "adsize",
                "immt",
                "explicit_prefix",
                "fpform",
            ]
            .map(|k| self.sw(s(&x[k])));
            // The fields in `X86EncodingDesc`'s order.
            let mut record = Vec::with_capacity(25);
            record.extend(form);
            record.push(byte("form_value")?);
            record.extend(map);
            record.extend(prefix);
            record.extend(openc);
            record.push(byte("opcode")?);
            record.extend(opsize);
            record.extend(adsize);
            record.extend(immt);
            record.extend(explicit_prefix);
            record.extend(fpform);
            record.push(bits);
            for k in ["cd8_scale", "cd8_form", "cd8_elt_size", "vect_size"] {
                record.push(byte(k)?);
            }
            self.encodings.push(&record);
            return Ok(self.encodings.len() as u32 - 1);
        }
        let Some(pattern) = ins.get("inst").and_then(|p| p.as_str()) else {
            // `NO_ENCODING` in src/isa/desc.rs.
            return Ok(u32::MAX);
        };
        let width = pattern.len();
        if width > 64 || width == 0 {
            return Err(format!("Inst has {width} bits"));
        }
        let (mut fixed, mut known) = (0u64, 0u64);
        for (i, c) in pattern.chars().rev().enumerate() {
            match c {
                '1' => {
                    fixed |= 1 << i;
                    known |= 1 << i;
                }
                '0' => known |= 1 << i,
                'v' | '-' => {}
                _ => return Err(format!("bad Inst pattern char {c:?}")),
            }
        }
        let field_start = self.fields.len();
        let mut covered = 0u64;
        for f in ins["fields"]
            .as_array()
            .map(|a| a.as_slice())
            .unwrap_or(&[])
        {
            let (var, var_lo, lo, w) = (
                s(&f[0]),
                f[1].as_u64().unwrap_or(0),
                f[2].as_u64().unwrap_or(0),
                f[3].as_u64().unwrap_or(0),
            );
            if w == 0 || lo + w > width as u64 {
                return Err(format!(
                    "field {var} spans bits {lo}..{} of {width}",
                    lo + w
                ));
            }
            let m = ((1u64 << w) - 1) << lo;
            if covered & m != 0 || known & m != 0 {
                return Err(format!("field {var} overlaps other bits"));
            }
            covered |= m;
            let v = self.st(var);
            self.fields.push(format!(
                "BitFieldDesc {{ var: {v}, var_lo: {var_lo}, inst_lo: {lo}, width: {w} }}"
            ));
        }
        let [po, pl] = self.sw(s(&ins["post_encoder"]));
        // The fields in `BitLayoutDesc`'s order.
        self.encodings.push(&[
            width as u32,
            fixed as u32,
            (fixed >> 32) as u32,
            known as u32,
            (known >> 32) as u32,
            field_start as u32,
            (self.fields.len() - field_start) as u32,
            po,
            pl,
        ]);
        Ok(self.encodings.len() as u32 - 1)
    }
}

fn flag_bits(order: &[&str], list: &Value) -> Result<u32> {
    let mut bits = 0;
    for f in list.as_array().map(|a| a.as_slice()).unwrap_or(&[]) {
        let i = order
            .iter()
            .position(|n| *n == s(f))
            .ok_or_else(|| format!("unknown flag {f}"))?;
        bits |= 1 << i;
    }
    Ok(bits)
}
