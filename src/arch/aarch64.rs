//! AArch64: table-driven encoder over LLVM's `Inst` bit layouts, printer
//! from `AsmString`, example operands, and the Capstone check.
//!
//! A machine operand's field value is its register's `HWEncoding` or its
//! immediate's encoding, converted by the operand type's `EncoderMethod`
//! where LLVM names one (implemented here by name); complex operands whose
//! type has an `EncoderMethod` (`getAddSubImmOpValue`, `getImm8OptLsl`,
//! `getMemExtendOpValue`) fill the field named after the whole operand.
//! That is why fields are placed here rather than by
//! [`bits::encode_fields`](super::bits::encode_fields), which finds fields
//! by machine-operand name only (the sub-operands of those types have no
//! names); the placement and the refusal of values wider than their
//! fields are the same.

mod branch;
mod check;
mod frame;
pub mod host;
pub mod imm_codec;
pub mod memory;
pub mod operands;
mod printer;
mod runnable;
mod start;
#[cfg(test)]
mod tests;

use super::host::cpuinfo_value;
use super::{
    reg_imm_only, reserved_table, Check, Encode, EncodeError, HostPolicy, Inst, OpValue, Operands,
};
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, BitEnc, Encoding, Instr, McOperand, Operand, Reg};
use operands::{imm_kind, ImmKind};
use std::sync::OnceLock;

/// The AArch64 target.
pub struct AArch64;

/// The register the kernel generator counts loop iterations in. X28 is
/// callee-saved, so no instruction uses it implicitly, and it is not the
/// platform register (X18), the frame pointer (X29) or the link register
/// (X30).
pub const LOOP_COUNTER: &str = "X28";

/// Registers a kernel never uses, by LLVM record name, with the reason.
const RESERVED: &[(&str, &str)] = &[
    ("SP", "stack pointer"),
    ("WSP", "stack pointer"),
    ("XZR", "zero register"),
    ("WZR", "zero register"),
    ("X18", "platform register"),
    ("W18", "platform register"),
    (LOOP_COUNTER, "loop counter"),
    ("W28", "loop counter"),
    ("FP", "frame pointer"),
    ("W29", "frame pointer"),
    ("LR", "link register"),
    ("W30", "link register"),
];

impl AArch64 {
    fn layout(form: &Instr) -> Result<BitEnc, EncodeError> {
        match form.encoding() {
            Encoding::Bits(b) => Ok(b),
            _ => Err(EncodeError::Unsupported(format!(
                "{}: no bit layout",
                form.name()
            ))),
        }
    }

    /// The 32-bit instruction word of `inst`.
    pub fn encode_word(&self, inst: &Inst) -> Result<u32, EncodeError> {
        let form = &inst.form;
        let layout = Self::layout(form)?;
        let mc = form.mc_operands();
        if inst.ops.len() != mc.len() {
            return Err(bad(
                form,
                format!(
                    "{} operand values for {} operands",
                    inst.ops.len(),
                    mc.len()
                ),
            ));
        }
        check_tied(form, &mc, &inst.ops)?;
        let vars = field_values(form, &mc, &inst.ops)?;
        let mut word = layout.fixed();
        let mut top: Vec<(&str, u32)> = Vec::new();
        for f in layout.fields() {
            let v = vars
                .iter()
                .find(|(n, _)| *n == f.var)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    EncodeError::Unsupported(format!(
                        "{}: field {} names no operand",
                        form.name(),
                        f.var
                    ))
                })?;
            word |= ((v >> f.var_lo) & ((1u64 << f.width) - 1)) << f.inst_lo;
            let hi = u32::from(f.var_lo) + u32::from(f.width);
            match top.iter_mut().find(|(n, _)| *n == f.var) {
                Some(t) => t.1 = t.1.max(hi),
                None => top.push((f.var, hi)),
            }
        }
        // A value with bits above every field that takes from it would be
        // silently truncated: refuse it (as `bits::encode_fields` does).
        for (name, hi) in top {
            let v = vars.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
            if hi < 64 && v >> hi != 0 {
                return Err(bad(
                    form,
                    format!("value {v:#x} of {name} does not fit in {hi} bits"),
                ));
            }
        }
        let word = post_encode(form, layout.post_encoder(), word)?;
        u32::try_from(word).map_err(|_| bad(form, "encoding wider than 32 bits".into()))
    }
}

fn bad(form: &Instr, msg: String) -> EncodeError {
    EncodeError::BadOperand(format!("{}: {msg}", form.name()))
}

/// Refuses tied operands (`$Zdn = $_Zdn`) with different values.
fn check_tied(form: &Instr, mc: &[McOperand], ops: &[OpValue]) -> Result<(), EncodeError> {
    for (k, m) in mc.iter().enumerate() {
        let Some(t) = m.operand.tied_to() else {
            continue;
        };
        let Some(j) = mc.iter().position(|o| o.operand.index() == t) else {
            continue;
        };
        let sub = k - mc
            .iter()
            .position(|o| o.operand.index() == m.operand.index())
            .unwrap_or(k);
        if ops.get(j + sub) != ops.get(k) {
            return Err(bad(
                form,
                format!("{} must equal the operand it is tied to", m.name),
            ));
        }
    }
    Ok(())
}

/// Complex operand types whose `EncoderMethod` encodes all sub-operands
/// into the field named after the operand.
fn complex_encoder(op: &Operand) -> Option<&'static str> {
    let ty = op.ty();
    (ty.kind() == OperandKind::Complex && !ty.encoder_method().is_empty())
        .then(|| ty.encoder_method())
}

/// The value of every field variable: machine operands by name, complex
/// operands with an operand-level encoder by the operand's name.
fn field_values(
    form: &Instr,
    mc: &[McOperand],
    ops: &[OpValue],
) -> Result<Vec<(&'static str, u64)>, EncodeError> {
    let mut out = Vec::with_capacity(mc.len());
    let mut k = 0;
    while k < mc.len() {
        let op = mc[k].operand;
        let n = mc[k..]
            .iter()
            .take_while(|m| m.operand.index() == op.index())
            .count();
        if let Some(method) = complex_encoder(&op) {
            let imms: Vec<i64> = ops[k..k + n]
                .iter()
                .map(|v| match v {
                    OpValue::Imm(i) => Ok(*i),
                    OpValue::Reg(_) | OpValue::Mem(_) => {
                        Err(bad(form, format!("{} takes immediates", op.name())))
                    }
                })
                .collect::<Result<_, _>>()?;
            out.push((op.name(), complex_value(form, method, &imms)?));
        } else {
            for j in k..k + n {
                out.push((mc[j].name, mc_value(form, &mc[j], ops[j])?));
            }
        }
        k += n;
    }
    Ok(out)
}

/// LLVM's operand-level encoders of complex immediates.
fn complex_value(form: &Instr, method: &str, v: &[i64]) -> Result<u64, EncodeError> {
    let [a, b] = v else {
        return Err(bad(form, format!("{method} expects two sub-operands")));
    };
    let (a, b) = (*a, *b);
    let lsl = |s: i64, ok: &[i64]| -> Result<i64, EncodeError> {
        if s >> 6 == 0 && ok.contains(&(s & 0x3f)) {
            Ok(s & 0x3f)
        } else {
            Err(bad(form, format!("shift {s:#x} must be lsl #{ok:?}")))
        }
    };
    match method {
        "getAddSubImmOpValue" => {
            let sh = lsl(b, &[0, 12])?;
            if !(0..4096).contains(&a) {
                return Err(bad(form, format!("{a} is outside 0..=4095")));
            }
            Ok(a as u64 | if sh == 12 { 1 << 12 } else { 0 })
        }
        "getImm8OptLsl" => {
            let sh = lsl(b, &[0, 8])?;
            if !(-128..256).contains(&a) {
                return Err(bad(form, format!("{a} is outside -128..=255")));
            }
            Ok((a as u64 & 0xff) | if sh == 8 { 1 << 8 } else { 0 })
        }
        "getMemExtendOpValue" => {
            if !(0..2).contains(&a) || !(0..2).contains(&b) {
                return Err(bad(form, format!("extend ({a}, {b}) must be two flags")));
            }
            Ok(((a << 1) | b) as u64)
        }
        _ => Err(EncodeError::Unsupported(format!("encoder method {method}"))),
    }
}

/// The field value of one machine operand.
fn mc_value(form: &Instr, m: &McOperand, v: OpValue) -> Result<u64, EncodeError> {
    match (m.ty.kind(), v) {
        (OperandKind::Reg, OpValue::Reg(r)) => reg_value(form, m, r),
        (OperandKind::Imm, OpValue::Imm(i)) => imm_kind_of(form, m)?
            .field(i)
            .map_err(|e| bad(form, format!("{}: {e}", m.name))),
        _ => Err(bad(form, format!("{}: wrong kind of value {v:?}", m.name))),
    }
}

/// The meaning of an immediate machine operand, with the few types whose
/// range depends on the form.
fn imm_kind_of(form: &Instr, m: &McOperand) -> Result<ImmKind, EncodeError> {
    if form.name() == "TSB" {
        // `tsb csync`, the only option, has no field.
        return Ok(ImmKind::Enum { example: 2, max: 2 });
    }
    if m.ty.name() == "i32imm" && form.name().starts_with("EXTv") {
        let max = if form.name() == "EXTv8i8" { 7 } else { 15 };
        return Ok(ImmKind::Num {
            min: 0,
            max,
            scale: 1,
            signed_bits: 0,
        });
    }
    imm_kind(m.ty)
}

fn reg_value(form: &Instr, m: &McOperand, r: Reg) -> Result<u64, EncodeError> {
    let class = m.ty.class();
    if let Some(c) = class {
        if !c.contains(r) {
            return Err(bad(form, format!("{} is not in {}", r.name(), c.name())));
        }
    }
    if m.ty.parser_class() == "SyspXzrPair" && r.name() != "XZR" {
        return Err(bad(form, format!("{} must be xzr", m.name)));
    }
    let enc = u64::from(r.encoding());
    let method = m.ty.encoder_method();
    let above = |base: u64| {
        enc.checked_sub(base).ok_or_else(|| {
            bad(
                form,
                format!("{} is below register {base} of {}", r.name(), m.name),
            )
        })
    };
    Ok(match method {
        "" => enc,
        "EncodeRegAsMultipleOf<2>" => enc / 2,
        "EncodeRegAsMultipleOf<4>" => enc / 4,
        "EncodePNR_p8to15" => above(8)?,
        "encodeMatrixIndexGPR32<AArch64::W8>" => above(8)?,
        "encodeMatrixIndexGPR32<AArch64::W12>" => above(12)?,
        // Z0_Z8 … Z7_Z15, Z16_Z24 … Z23_Z31: bit 4 of the first register
        // becomes bit 3, its low 3 bits stay.
        "EncodeZPR2StridedRegisterClass" => ((enc & 0x10) >> 1) | (enc & 7),
        // Z0_Z4_Z8_Z12 …: bit 4 becomes bit 2, the low 2 bits stay.
        "EncodeZPR4StridedRegisterClass" => ((enc & 0x10) >> 2) | (enc & 3),
        _ => return Err(EncodeError::Unsupported(format!("encoder method {method}"))),
    })
}

/// LLVM's `PostEncoderMethod`s: bits the table leaves unset.
fn post_encode(form: &Instr, method: &str, word: u64) -> Result<u64, EncodeError> {
    Ok(match method {
        "" | "fixMOVZ" | "fixOneOperandFPComparison" => word,
        "fixMulHigh" => word | (0x1f << 10),
        "fixLoadStoreExclusive<0,0>" => word | 0x001f_0000 | 0x7c00,
        "fixLoadStoreExclusive<0,1>" => word | 0x001f_0000,
        "fixLoadStoreExclusive<1,0>" => word | 0x7c00,
        "fixLoadStoreExclusive<1,1>" => word,
        _ => {
            return Err(EncodeError::Unsupported(format!(
                "{}: post-encoder {method}",
                form.name()
            )))
        }
    })
}

/// Why a register must never be chosen: itself or a register it contains
/// is reserved.
fn reserved_reason(reg: Reg) -> Option<&'static str> {
    static TABLE: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| reserved_table(Arch::Aarch64, RESERVED))[reg.id() as usize]
}

impl Encode for AArch64 {
    fn arch(&self) -> Arch {
        Arch::Aarch64
    }

    fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
        Ok(self.encode_word(inst)?.to_le_bytes().to_vec())
    }

    fn print(&self, inst: &Inst) -> Result<String, EncodeError> {
        printer::print(inst)
    }

    fn check(&self, inst: &Inst, bytes: &[u8], text: &str) -> Check {
        super::emit::remembered(inst, bytes, text, || check::check(inst, bytes, text))
    }
}

impl Operands for AArch64 {
    fn reserved(&self, reg: Reg) -> Option<&'static str> {
        reserved_reason(reg)
    }

    /// The base of the address in brackets ([`memory::address`]).
    fn address_bases(&self, inst: &Inst) -> Vec<Reg> {
        memory::bases(inst)
    }

    /// Register offsets and post-index registers: 0.
    fn address_offsets(&self, inst: &Inst) -> Vec<(Reg, u64)> {
        memory::offsets(inst)
    }

    fn at_offset(&self, inst: &Inst, offset: i32) -> Option<Inst> {
        memory::at_offset(inst, offset)
    }

    /// `and x, x, xzr` and `add x, x, x` (shifted-register forms, shift
    /// 0): one cycle each on every AArch64 core.
    fn neutral_back(&self) -> Option<crate::arch::NeutralBack> {
        let isa = crate::isa::Isa::get(Arch::Aarch64);
        Some(crate::arch::NeutralBack {
            clear: isa.instr("ANDXrs")?,
            add: isa.instr("ADDXrs")?,
            zero: isa.register("XZR"),
        })
    }

    fn base_operand(&self, form: Instr) -> Option<usize> {
        memory::address(&form)
            .ok()
            .flatten()
            .filter(|a| !a.writeback)
            .map(|a| a.base)
    }

    /// A store with a load twin (`STRXui` and `LDRXui`,
    /// [`crate::arch::reload`]).
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
        if !form.is_real() || !reg_imm_only(&form) {
            return Err(EncodeError::Unsupported(
                "not a real register/immediate form".into(),
            ));
        }
        Self::layout(&form)?;
        let mc = form.mc_operands();
        let mut ops: Vec<OpValue> = Vec::with_capacity(mc.len());
        let mut used: Vec<Reg> = avoid.to_vec();
        let mut k = 0;
        while k < mc.len() {
            let op = mc[k].operand;
            let n = mc[k..]
                .iter()
                .take_while(|m| m.operand.index() == op.index())
                .count();
            if let Some(start) = op
                .tied_to()
                .filter(|&t| t < op.index())
                .and_then(|t| mc.iter().position(|m| m.operand.index() == t))
            {
                for j in 0..n {
                    ops.push(ops[start + j]);
                }
            } else if let Some(method) = complex_encoder(&op) {
                ops.extend(complex_example(method)?.iter().map(|&v| OpValue::Imm(v)));
            } else {
                for m in &mc[k..k + n] {
                    ops.push(match m.ty.kind() {
                        OperandKind::Reg => OpValue::Reg(choose_reg(&form, m, &mut used)?),
                        _ => OpValue::Imm(imm_kind_of(&form, m)?.example()),
                    });
                }
            }
            k += n;
        }
        Ok(Inst { form, ops })
    }
}

impl HostPolicy for AArch64 {
    fn host_features(&self) -> Option<&'static crate::arch::host::HostFeatures> {
        host::detected().map(|(h, _)| h)
    }

    fn source_report(&self) -> Vec<(&'static str, String)> {
        let Some((f, vl)) = host::detected() else {
            return Vec::new();
        };
        let bits = |v: Option<u32>| v.map_or("none".to_string(), |b| format!("{b} bits"));
        vec![
            ("Features", f.names().join(" ")),
            ("Feature source", f.raw.clone()),
            ("SVE vector length", bits(vl.sve)),
            ("SME streaming vector length", bits(vl.sme)),
        ]
    }

    fn vector_state(&self, form: Instr) -> Option<String> {
        let (_, vl) = host::detected()?;
        let cond = form.required_features()?;
        let bits = |v: Option<u32>| v.map_or("?".to_string(), |b| b.to_string());
        if host::needs_streaming(form) {
            Some(format!("streaming SVE with ZA, SVL {} bits", bits(vl.sme)))
        } else if cond.contains("sve") {
            Some(format!("SVE, VL {} bits", bits(vl.sve)))
        } else {
            None
        }
    }

    fn cpu_model(&self, cpuinfo: &str) -> Option<String> {
        let part = cpuinfo_value(cpuinfo, "CPU part")?;
        let implementer = cpuinfo_value(cpuinfo, "CPU implementer").unwrap_or("?");
        Some(format!("CPU implementer {implementer} part {part} (MIDR)"))
    }
}

fn complex_example(method: &str) -> Result<[i64; 2], EncodeError> {
    Ok(match method {
        "getAddSubImmOpValue" | "getImm8OptLsl" => [1, operands::shifter(0, 0)],
        "getMemExtendOpValue" => [0, 1],
        _ => return Err(EncodeError::Unsupported(format!("encoder method {method}"))),
    })
}

/// A register of the operand's class a kernel may use, not overlapping any
/// register chosen before (if the class allows).
fn choose_reg(form: &Instr, m: &McOperand, used: &mut Vec<Reg>) -> Result<Reg, EncodeError> {
    let class = m.ty.class().ok_or_else(|| {
        EncodeError::Unsupported(format!("{}: register operand without class", m.ty.name()))
    })?;
    // `sysp` with the XZR pair: the only member the form accepts.
    if m.ty.parser_class() == "SyspXzrPair" {
        return form
            .isa()
            .register("XZR")
            .ok_or_else(|| EncodeError::Unsupported("no XZR".into()));
    }
    let free: Vec<Reg> = class
        .members()
        .filter(|r| reserved_reason(*r).is_none())
        .collect();
    let pick = free
        .iter()
        .find(|r| !used.iter().any(|u| u.overlaps(**r)))
        .or_else(|| free.first())
        .copied()
        .ok_or_else(|| {
            EncodeError::Unsupported(format!(
                "class {} has only reserved registers",
                class.name()
            ))
        })?;
    used.push(pick);
    Ok(pick)
}

/// The load of store record `name`: `ST…` as `LD…` (`STRXui` → `LDRXui`,
/// `STPQi` → `LDPQi`, `ST1Onev16b` → `LD1Onev16b`).
fn load_name(name: &str) -> Option<String> {
    name.strip_prefix("ST").map(|rest| format!("LD{rest}"))
}
