//! RISC-V (RV64): table-driven encoding from LLVM's `Inst` bit layouts,
//! printing from `AsmString` with `RISCVInstPrinter`'s print methods, and
//! a capstone check for the extensions Capstone 5.0.6 knows.

mod branch;
mod check;
mod frame;
pub mod host;
pub mod memory;
mod operands;
mod runnable;
mod start;
#[cfg(test)]
mod tests;
pub mod vtype;

use super::host::cpuinfo_value;
use super::{
    bits, reserved_table, template, Check, Encode, EncodeError, HostPolicy, Inst, OpValue,
    Operands, Target,
};
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Encoding, Instr, Isa, McOperand, Reg};
use operands::{imm_choice, imm_field, print_imm, ImmKind};
use std::sync::OnceLock;
use vtype::VType;

/// The RISC-V target, with the vector type its vector forms run at.
pub struct Riscv64 {
    vtype: VType,
}

/// The RISC-V target at WINIC's vector type, `e32, m1`
/// ([`VType::DEFAULT`]): the one `crate::arch::target` gives.
#[allow(non_upper_case_globals)]
pub const Riscv64: Riscv64 = Riscv64 {
    vtype: VType::DEFAULT,
};

/// The RISC-V target whose vector forms run at `v`: kernels set it after
/// the initialisations, and vector operands take the register groups
/// LLVM's pseudos give them there ([`vtype::groups`]). A `Target`, as
/// [`crate::arch::target`] gives the others: its callers ask it as one.
pub fn at(v: VType) -> &'static dyn Target {
    static ALL: OnceLock<Vec<Riscv64>> = OnceLock::new();
    let all = ALL.get_or_init(|| VType::all().map(|vtype| Riscv64 { vtype }).collect());
    all.iter()
        .find(|t| t.vtype == v)
        .expect("VType::all lists every vector type")
}

/// The widest vector element of this host (ELEN): 64 with Zve64x (and V),
/// 32 with only Zve32x; 64 where winic cannot tell (not a RISC-V host).
pub fn elen() -> u32 {
    match host::detected() {
        Some((f, _)) if f.lookup("zve32x") == Some(true) && f.lookup("zve64x") != Some(true) => 32,
        _ => 64,
    }
}

impl Riscv64 {
    /// The vector type the target's vector forms run at.
    pub fn vtype(&self) -> VType {
        self.vtype
    }

    /// Registers operand `k` of `form` takes: the data group of a vector
    /// load or store ([`memory::data_registers`]), else its group at this
    /// target's vector type (LLVM's pseudos), else a pair for a wide
    /// operand at e32 m1, else one.
    fn group(&self, form: &Instr, k: usize) -> usize {
        // LLVM's load and store pseudos are named by EMUL, not LMUL: the
        // data group of a vector load or store is computed first.
        let m = form.mc_operands()[k];
        if let Some(g) = memory::data_registers(form, self.vtype) {
            return match (m.name, g) {
                ("vd" | "vs3", Ok(n)) => n,
                _ => 1,
            };
        }
        if let Ok(g) = vtype::groups(*form, self.vtype, 64) {
            if g[k] > 0 {
                return g[k];
            }
        }
        if wide(form, m.name) {
            2
        } else {
            1
        }
    }
}

/// The register that counts a kernel's loop iterations: `x31` (`t6`), a
/// caller-saved temporary no calling-convention role depends on.
pub const LOOP_COUNTER: &str = "X31";

/// Extensions that exist only on RV32: their forms cannot run on RV64.
const RV32_ONLY_EXTENSIONS: &[&str] = &["xwchc"];

/// Registers a kernel never touches, with the reason.
const RESERVED: &[(&str, &str)] = &[
    ("X0", "zero register"),
    ("X1", "return address (ra)"),
    ("X2", "stack pointer (sp)"),
    ("X3", "global pointer (gp)"),
    ("X4", "thread pointer (tp)"),
    ("X8", "frame pointer (s0)"),
    (LOOP_COUNTER, "loop counter"),
];

fn reserved_reason(reg: Reg) -> Option<&'static str> {
    static TABLE: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| reserved_table(Arch::Riscv64, RESERVED))[reg.id() as usize]
}

impl Encode for Riscv64 {
    fn arch(&self) -> Arch {
        Arch::Riscv64
    }

    fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
        let form = &inst.form;
        let Encoding::Bits(layout) = form.encoding() else {
            return Err(EncodeError::Unsupported(format!(
                "{}: no encoding",
                form.name()
            )));
        };
        let mc = form.mc_operands();
        if inst.ops.len() != mc.len() {
            return Err(EncodeError::BadOperand(format!(
                "{}: {} operand values for {} operands",
                form.name(),
                inst.ops.len(),
                mc.len()
            )));
        }
        let width = |m: &McOperand| {
            layout
                .fields()
                .filter(|f| f.var == m.name)
                .map(|f| f.var_lo as u32 + f.width as u32)
                .max()
                .unwrap_or(0)
        };
        let word = bits::encode_fields(form, &layout, |k, m| {
            field_value(form, m, inst.ops[k], width(m))
        })?;
        let bytes = word.to_le_bytes();
        Ok(bytes[..layout.width() as usize / 8].to_vec())
    }

    fn print(&self, inst: &Inst) -> Result<String, EncodeError> {
        let mc = inst.form.mc_operands();
        template::expand(&inst.form, |op| {
            let k = mc
                .iter()
                .position(|m| m.operand.index() == op.index())
                .ok_or_else(|| EncodeError::Unsupported(format!("${} has no value", op.name())))?;
            print_operand(&inst.form, &mc[k], inst.ops[k])
        })
    }

    fn check(&self, inst: &Inst, bytes: &[u8], text: &str) -> Check {
        super::emit::remembered(inst, bytes, text, || check::check(inst, bytes, text))
    }
}

impl Operands for Riscv64 {
    fn reserved(&self, reg: Reg) -> Option<&'static str> {
        reserved_reason(reg)
    }

    /// The address operand ([`memory::address`]).
    fn address_bases(&self, inst: &Inst) -> Vec<Reg> {
        memory::bases(inst)
    }

    /// Strides of vector forms: [`memory::STRIDE`].
    fn address_offsets(&self, inst: &Inst) -> Vec<(Reg, u64)> {
        memory::offsets(inst)
    }

    fn at_offset(&self, inst: &Inst, offset: i32) -> Option<Inst> {
        memory::at_offset(inst, offset)
    }

    /// `andi x, x, 0` and `add x, x, x`: one cycle each.
    fn neutral_back(&self) -> Option<crate::arch::NeutralBack> {
        let isa = crate::isa::Isa::get(Arch::Riscv64);
        Some(crate::arch::NeutralBack {
            clear: isa.instr("ANDI")?,
            add: isa.instr("ADD")?,
            zero: None,
        })
    }

    fn base_operand(&self, form: Instr) -> Option<usize> {
        memory::address(&form).ok().flatten().map(|a| a.base)
    }

    /// A store with a load twin (`SD` and `LD`, [`crate::arch::reload`]).
    fn written_memory(&self, form: Instr) -> Option<usize> {
        crate::arch::reload::written_memory(self, form, load_name)
    }

    fn reload(
        &self,
        form: Instr,
        k: usize,
        runs: &dyn Fn(Instr) -> bool,
    ) -> Option<(Instr, usize, usize)> {
        crate::arch::reload::reload(self, form, k, load_name, runs)
    }

    fn instance(&self, form: Instr, avoid: &[Reg]) -> Result<Inst, EncodeError> {
        if let Some(cond) = form.required_features() {
            if let Some(ext) = RV32_ONLY_EXTENSIONS.iter().find(|e| cond.contains(*e)) {
                return Err(EncodeError::Unsupported(format!(
                    "RV32-only extension {ext}"
                )));
            }
            if cond.contains("!64bit") {
                return Err(EncodeError::Unsupported("RV32-only form (!64bit)".into()));
            }
        }
        let mc = form.mc_operands();
        let mut used: Vec<Reg> = avoid.to_vec();
        // v0 is the mask register: vector data operands never take it.
        let isa = form.isa();
        if let Some(v0) = isa.register("V0") {
            used.push(v0);
        }
        // Untied operands first, then each tied one copies its partner
        // (LLVM ties either way: `rd_wb` to a later `rd`, or an input to an
        // earlier output).
        // The records mark a tie on one or both ends; the output copies.
        let partner = |m: &McOperand| {
            let j = m
                .operand
                .tied_to()
                .and_then(|t| mc.iter().position(|n| n.operand.index() == t))?;
            (m.operand.is_def() || mc[j].operand.tied_to().is_none()).then_some(j)
        };
        // A vector result of one register starts where a group of the
        // form's widest operand, or of the vector type, may start: a chain
        // feeds it to such a group (vnsrl's result to its own wide source,
        // a compare's mask to a helper at LMUL 4), and a group must be
        // aligned (V specification, 3.4.2).
        let widest = (0..mc.len())
            .map(|k| self.group(&form, k))
            .max()
            .unwrap_or(1)
            .max(self.vtype.lmul.registers());
        let mut ops: Vec<Option<OpValue>> = vec![None; mc.len()];
        for (k, m) in mc.iter().enumerate() {
            if partner(m).is_none() {
                let group = self.group(&form, k);
                let vector_result =
                    m.operand.is_def() && m.ty.class().is_some_and(|c| c.name().starts_with("VR"));
                ops[k] = Some(match m.ty.kind() {
                    OperandKind::Reg if vector_result && group < widest => {
                        let before = used.len();
                        let r = choose_reg(&form, m, widest, &mut used)?;
                        // Only `group` registers are written; the rest of
                        // the slot stays free for operands read.
                        used.truncate(before + group);
                        OpValue::Reg(r)
                    }
                    OperandKind::Reg => {
                        OpValue::Reg(choose_reg(&form, m, self.group(&form, k), &mut used)?)
                    }
                    _ => OpValue::Imm(imm_choice(&form, m)?),
                });
            }
        }
        let ops = mc
            .iter()
            .enumerate()
            .map(|(k, m)| {
                ops[k]
                    .or_else(|| partner(m).and_then(|j| ops[j]))
                    .ok_or_else(|| bad(&form, format!("{} is tied to a tied operand", m.name)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Inst { form, ops })
    }

    fn operand_regs(&self, inst: &Inst, k: usize) -> Vec<Reg> {
        let OpValue::Reg(r) = inst.ops[k] else {
            return Vec::new();
        };
        let mut out = vec![r];
        if is_vector(r) {
            for _ in 1..self.group(&inst.form, k) {
                out.extend(out.last().and_then(|l| next_vector(*l)));
            }
        }
        out
    }

    fn early_clobber(&self, form: Instr, k: usize) -> bool {
        let m = form.mc_operands()[k];
        // vsext/vzext read a narrower source group that must not overlap
        // the destination (V specification, 5.2); LLVM states it outside
        // the MC records (RVVConstraint = Vext), and on the pseudos of the
        // vector type: widening results, masks over groups.
        m.operand.early_clobber()
            || (m.name == "vd"
                && ["VSEXT_", "VZEXT_"]
                    .iter()
                    .any(|p| form.name().starts_with(p)))
            || (m.operand.is_def() && vtype::early_clobber_at(form, self.vtype))
    }
}

impl HostPolicy for Riscv64 {
    fn host_features(&self) -> Option<&'static crate::arch::host::HostFeatures> {
        host::detected().map(|(h, _)| h)
    }

    fn source_report(&self) -> Vec<(&'static str, String)> {
        let Some((f, vlen)) = host::detected() else {
            return Vec::new();
        };
        vec![
            ("Features", f.names().join(" ")),
            ("Feature source", f.raw.clone()),
            (
                "Vector length (VLEN)",
                vlen.map_or("none".to_string(), |b| format!("{b} bits")),
            ),
        ]
    }

    fn vector_state(&self, form: Instr) -> Option<String> {
        let (_, vlen) = host::detected()?;
        vector_form(form).then(|| {
            format!(
                "RVV {} ta ma, VLEN {} bits",
                self.vtype,
                vlen.map_or("?".to_string(), |b| b.to_string())
            )
        })
    }

    fn cpu_model(&self, cpuinfo: &str) -> Option<String> {
        let value = |k| cpuinfo_value(cpuinfo, k).filter(|v| !v.is_empty());
        cpuinfo_value(cpuinfo, "uarch")
            .map(str::to_string)
            .or_else(|| {
                Some(format!(
                    "mvendorid {} marchid {}",
                    value("mvendorid")?,
                    value("marchid")?
                ))
            })
    }
}

fn bad(form: &Instr, msg: String) -> EncodeError {
    EncodeError::BadOperand(format!("{}: {msg}", form.name()))
}

/// A register of `m`'s class: the mask operand takes `v0`; otherwise the
/// first member that is not reserved and overlaps nothing chosen before.
/// Classes of reserved registers only (`SP`, `GPRX0`, `GPRX1`) take their
/// first member: the form itself fixes it.
/// Whether operand `name` of `form` is a double-width vector operand: at
/// LMUL 1 (winic's kernels run at e32, m1) a register pair that must start
/// at an even register (V specification, 5.2). Widening forms (`vw…`,
/// `vfw…`, not the reductions, whose result is one element) have a wide
/// `vd`; forms whose last name part starts with W (`VWADD_WV`,
/// `VNSRL_WI`, `VFNCVT_F_F_W`) a wide `vs2`.
fn wide(form: &Instr, name: &str) -> bool {
    let record = form.name();
    let base = record.split('_').next().unwrap_or("");
    let last = record.rsplit('_').next().unwrap_or("");
    match name {
        "vd" => (base.starts_with("VW") || base.starts_with("VFW")) && !base.contains("RED"),
        "vs2" => base.starts_with('V') && last.starts_with('W') && record.contains('_'),
        _ => false,
    }
}

/// Whether `r` is a single vector register (class VR).
fn is_vector(r: Reg) -> bool {
    Isa::get(Arch::Riscv64)
        .class("VR")
        .is_some_and(|c| c.contains(r))
}

/// Whether `form` has a vector register operand (its kernels need a
/// vector type).
fn vector_form(form: Instr) -> bool {
    form.operands().any(|o| {
        o.ty()
            .class()
            .is_some_and(|c| c.name().starts_with("VR") || c.name() == "VMV0")
    })
}

/// The vector register after `r` (v9 after v8).
fn next_vector(r: Reg) -> Option<Reg> {
    let vr = Isa::get(Arch::Riscv64).class("VR")?;
    vr.members().find(|n| n.encoding() == r.encoding() + 1)
}

fn choose_reg(
    form: &Instr,
    m: &McOperand,
    group: usize,
    used: &mut Vec<Reg>,
) -> Result<Reg, EncodeError> {
    if group > 1 {
        // A register numbered a multiple of the group size whose whole
        // group is free (V specification, 3.4.2); all of it becomes used.
        let class =
            m.ty.class()
                .ok_or_else(|| bad(form, format!("{} has no register class", m.name)))?;
        let free = |r: &Reg| !used.iter().any(|u| u.overlaps(*r));
        let members_of = |first: Reg| {
            let mut g = vec![first];
            while g.len() < group {
                match g.last().and_then(|l| next_vector(*l)) {
                    Some(n) => g.push(n),
                    None => break,
                }
            }
            g
        };
        let pick = class
            .members()
            .filter(|r| {
                (r.encoding() as usize).is_multiple_of(group)
                    && reserved_reason(*r).is_none()
                    && free(r)
            })
            .map(members_of)
            .find(|g| g.len() == group && g.iter().all(free))
            .ok_or_else(|| {
                bad(
                    form,
                    format!("no free group of {group} registers in {}", class.name()),
                )
            })?;
        used.extend(&pick);
        return Ok(pick[0]);
    }
    let class =
        m.ty.class()
            .ok_or_else(|| bad(form, format!("{} has no register class", m.name)))?;
    let members: Vec<Reg> = class.members().collect();
    if class.name() == "VMV0" {
        return members
            .first()
            .copied()
            .ok_or_else(|| bad(form, "empty class VMV0".into()));
    }
    let free = |r: &&Reg| !used.iter().any(|u| u.overlaps(**r));
    let pick = members
        .iter()
        .filter(|r| reserved_reason(**r).is_none())
        .find(free)
        .or_else(|| {
            members
                .iter()
                .all(|r| reserved_reason(*r).is_some())
                .then(|| members.first())
                .flatten()
        })
        .copied()
        .ok_or_else(|| bad(form, format!("no free register in {}", class.name())))?;
    used.push(pick);
    Ok(pick)
}

/// The value of `m`'s field: a register's hardware encoding (the mask
/// operand: 0 for `v0.t`, LLVM's `getVMaskReg`), or an immediate's encoded
/// bits.
///
/// A register field narrower than the encodings (`rd'` of compressed
/// forms: x8-x15 in 3 bits; Zcmp's s0-s7) takes the low bits, as LLVM's
/// generated emitter does, when that keeps the class's members apart.
fn field_value(form: &Instr, m: &McOperand, v: OpValue, width: u32) -> Result<u64, EncodeError> {
    match v {
        OpValue::Reg(r) => {
            if m.ty.encoder_method() == "getVMaskReg" {
                return match r.name() {
                    "V0" => Ok(0),
                    other => Err(bad(form, format!("mask register {other}, only v0 masks"))),
                };
            }
            if let Some(class) = m.ty.class() {
                if !class.contains(r) {
                    return Err(bad(
                        form,
                        format!("{} is not in {}", r.name(), class.name()),
                    ));
                }
            }
            let e = r.encoding() as u64;
            if width < 16 && e >> width != 0 {
                if let Some(class) = m.ty.class() {
                    let mask = (1u64 << width) - 1;
                    let mut low: Vec<u64> = class
                        .members()
                        .map(|r| r.encoding() as u64 & mask)
                        .collect();
                    let n = low.len();
                    low.sort_unstable();
                    low.dedup();
                    if low.len() == n {
                        return Ok(e & mask);
                    }
                }
            }
            Ok(e)
        }
        OpValue::Imm(v) => imm_field(form, m, v),
        OpValue::Mem(_) => Err(bad(
            form,
            "no RISC-V operand is an x86 memory reference".into(),
        )),
    }
}

fn print_operand(form: &Instr, m: &McOperand, v: OpValue) -> Result<String, EncodeError> {
    match v {
        OpValue::Reg(r) => Ok(match m.ty.print_method() {
            "printVMaskReg" => format!(", {}.t", r.asm_name()),
            "printZeroOffsetMemOp" => format!("({})", abi_name(r)),
            _ => abi_name(r),
        }),
        OpValue::Imm(v) => print_imm(form, ImmKind::of(m), v),
        OpValue::Mem(_) => Err(bad(
            form,
            "no RISC-V operand is an x86 memory reference".into(),
        )),
    }
}

/// The ABI name LLVM prints (`a0`, `fa0`); vector registers by number.
pub fn abi_name(r: Reg) -> String {
    r.alt_names()
        .first()
        .map(|s| s.to_string())
        .unwrap_or_else(|| r.asm_name())
}

/// The load of store record `name`: its first `S` as `L` (`SD` → `LD`,
/// `FSW` → `FLW`, `C_SD` → `C_LD`, `VSE64_V` → `VLE64_V`, the strided
/// `VSSE64_V` → `VLSE64_V`).
fn load_name(name: &str) -> Option<String> {
    let at = name.find('S')?;
    Some(format!("{}L{}", &name[..at], &name[at + 1..]))
}
