//! x86-64: encoding through iced-x86, with each LLVM record mapped to an
//! iced [`Code`](iced_x86::Code) computed from its encoding fields
//! ([`mapping`]); printing in LLVM's Intel syntax from the record's
//! `AsmString` ([`printer`]); checking with capstone and, for extensions
//! capstone 5.0.6 lacks, iced's own decoder ([`checker`]).

mod branch;
pub mod checker;
pub mod cond;
mod forward;
mod frame;
mod gather;
pub mod host;
pub mod mapping;
pub mod printer;
mod runnable;
mod stack;
mod start;
mod string;
#[cfg(test)]
mod tests;

use super::host::cpuinfo_value;
use super::{
    container_in, inst_of, reserved_table, Check, Encode, EncodeError, HostPolicy, Inst, Mem,
    OpValue, Operands,
};
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Instr, Reg};
use iced_x86::{Encoder, Instruction, OpCodeOperandKind, OpKind, Register, RoundingControl};
use mapping::{class_cat, Cat, Plan, Slot};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The loop-counter register of winic's kernels (LLVM name). R15: a
/// callee-saved register no x86 instruction uses implicitly, so no form
/// under test ever reads or writes it behind the kernel's back.
pub const LOOP_COUNTER: &str = "R15";

/// The x86-64 target.
pub struct X86_64;

impl Encode for X86_64 {
    fn arch(&self) -> Arch {
        Arch::X86_64
    }

    fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
        let plan = plan_of(&inst.form)?;
        validate(inst)?;
        let instr = build(plan, inst)?;
        let mut enc = Encoder::new(64);
        enc.encode(&instr, 0)
            .map_err(|e| EncodeError::BadOperand(format!("iced-x86: {e}")))?;
        Ok(enc.take_buffer())
    }

    fn print(&self, inst: &Inst) -> Result<String, EncodeError> {
        let plan = plan_of(&inst.form)?;
        printer::print(plan, inst)
    }

    fn check(&self, inst: &Inst, bytes: &[u8], text: &str) -> Check {
        super::emit::remembered(inst, bytes, text, || match plan_of(&inst.form) {
            Ok(plan) => checker::check(plan, inst, bytes, text),
            Err(e) => Check::Mismatch(format!("no plan: {e}")),
        })
    }
}

impl Operands for X86_64 {
    fn reserved(&self, reg: Reg) -> Option<&'static str> {
        reserved_reason(reg)
    }

    fn register_feature(&self, reg: Reg) -> Option<&'static str> {
        egpr_number(reg.name()).map(|_| "egpr")
    }

    fn instance(&self, form: Instr, avoid: &[Reg]) -> Result<Inst, EncodeError> {
        plan_of(&form)?;
        example_of(form, avoid)
    }

    fn aliases(&self, a: Reg, b: Reg) -> bool {
        a.overlaps(b) || same_vector(a, b)
    }

    /// The base of each memory operand, `lea`'s included.
    fn address_bases(&self, inst: &Inst) -> Vec<Reg> {
        inst.ops
            .iter()
            .filter_map(|v| match v {
                OpValue::Mem(m) => Some(m.base),
                _ => None,
            })
            .collect()
    }

    /// The bit offset register of `bt [m], r` and relatives: 0
    /// ([`runnable::bit_offsets`]); a division's divisor and dividend
    /// ([`runnable::divide_values`]).
    fn address_offsets(&self, inst: &Inst) -> Vec<(Reg, u64)> {
        let mut out = runnable::bit_offsets(inst);
        out.extend(runnable::divide_values(inst));
        out
    }

    /// `lea`, and the loads whose result is the bytes they read: moves
    /// (full width or merging into the low bits, so a chase cell's address
    /// comes back whole in the 64-bit register or the low lane), without
    /// a write mask (a masked-off lane would keep another value).
    fn address_source(&self, form: Instr, k: usize) -> bool {
        let mc = form.mc_operands();
        if !mc.get(k).is_some_and(|m| m.ty.is_plain_memory()) {
            return false;
        }
        if form.operands().any(|o| o.ty().name().starts_with("lea")) {
            return true;
        }
        // The chain comes back to the base from a general-purpose result
        // of 16 bits or more (an 8-bit one may be a high byte: AH, the
        // loaded byte in bits 8-15 of the address), or from a vector one
        // through a form that copies its low bits (`copies_bits`; LAT
        // chains such results back through that helper only).
        let gpr_result = form.operands().any(|o| {
            o.is_def()
                && o.ty().class().is_some_and(|c| {
                    matches!(
                        class_cat(c.name()),
                        Some(Cat::R16 | Cat::R32 | Cat::R64 | Cat::Xmm | Cat::Ymm | Cat::Zmm)
                    )
                })
        });
        let Ok(plan) = plan_of(&form) else {
            return false;
        };
        use iced_x86::Mnemonic as M;
        // Plain moves of 4 bytes or more (a 2-byte `vmovw` would return a
        // part of the address), the merging low moves, and the loads below.
        let m = plan.code.mnemonic();
        gpr_result
            && plan.mask.is_none()
            && !plan.broadcast
            && ((forward::is_plain_move(m) && !matches!(m, M::Vmovsh | M::Vmovw))
                || matches!(
                    m,
                    M::Movlps
                    | M::Movlpd
                    | M::Lddqu
                    | M::Movntdqa
                    | M::Vmovlps
                    | M::Vmovlpd
                    | M::Vlddqu
                    | M::Vmovntdqa
                    | M::Vpbroadcastq
                    | M::Vbroadcastsd
                    // Whole 128- or 256-bit broadcasts, a duplicated low
                    // qword, 32-bit lanes widened (the address is below
                    // 2^31), absolute values of 32- and 64-bit lanes (of a
                    // positive address and of 0): the low qword is still
                    // the address.
                    | M::Vbroadcastf128
                    | M::Vbroadcasti128
                    | M::Vbroadcastf32x4
                    | M::Vbroadcastf64x2
                    | M::Vbroadcasti32x4
                    | M::Vbroadcasti64x2
                    | M::Vbroadcastf32x8
                    | M::Vbroadcastf64x4
                    | M::Vbroadcasti32x8
                    | M::Vbroadcasti64x4
                    | M::Movddup
                    | M::Vmovddup
                    | M::Pmovzxdq
                    | M::Vpmovzxdq
                    | M::Pmovsxdq
                    | M::Vpmovsxdq
                    | M::Pabsd
                    | M::Vpabsd
                    | M::Vpabsq
                ))
    }

    /// By LLVM's printer of the memory operand (`qword` 8, `zmmword` 64;
    /// a broadcast reads one element; a string operation's element); 64 where it names no size
    /// (`prefetch`, `fxsave`: at least a line); a gather's or scatter's
    /// the span of its lanes ([`gather::footprint`]).
    fn access_bytes(&self, inst: &Inst) -> u32 {
        if let Some(bytes) = gather::footprint(inst) {
            return bytes;
        }
        inst.form
            .mc_operands()
            .iter()
            .filter(|m| m.ty.kind() == OperandKind::Mem)
            .map(|m| match (m.ty.string_pointer(), m.ty.memory_size()) {
                (Some((_, bytes)), _) => bytes,
                (_, Some("byte")) => 1,
                (_, Some("word")) => 2,
                (_, Some("dword")) => 4,
                (_, Some("qword")) => 8,
                (_, Some("tbyte")) => 10,
                (_, Some("xmmword")) => 16,
                (_, Some("ymmword")) => 32,
                _ => 64,
            })
            .max()
            .unwrap_or(64)
    }

    fn written_memory(&self, form: Instr) -> Option<usize> {
        forward::written_memory(form)
    }

    fn memory_access(&self, form: Instr) -> Option<(bool, bool)> {
        forward::memory_access(form)
    }

    fn rewrites_memory(&self, form: Instr) -> bool {
        forward::rewrites_memory(form)
    }

    /// By iced's instruction info: `reader`'s read flags against every
    /// flag `writer` modifies (written, set, cleared, or left undefined,
    /// which the core writes all the same).
    fn flags_meet(&self, writer: &Inst, reader: &Inst) -> bool {
        let iced = |i: &Inst| build(plan_of(&i.form).ok()?, i).ok();
        match (iced(writer), iced(reader)) {
            (Some(w), Some(r)) => w.rflags_modified() & r.rflags_read() != 0,
            _ => true,
        }
    }

    fn reload(
        &self,
        form: Instr,
        k: usize,
        runs: &dyn Fn(Instr) -> bool,
    ) -> Option<(Instr, usize, usize)> {
        forward::reload(form, k, runs)
    }

    /// `and r64, 0` and `add r64, r64`: one cycle each on every x86
    /// core, and LAT measures both exactly (chains of copies).
    fn neutral_back(&self) -> Option<super::NeutralBack> {
        let isa = crate::isa::Isa::get(Arch::X86_64);
        Some(super::NeutralBack {
            clear: isa.instr("AND64ri8")?,
            add: isa.instr("ADD64rr")?,
            zero: None,
        })
    }

    /// `movq r64, xmm` and `movd r32, xmm` (legacy, VEX, EVEX): the low
    /// 64 or 32 bits, unchanged (a data-area address is below 2^32).
    fn copies_bits(&self, form: Instr) -> bool {
        let Ok(plan) = plan_of(&form) else {
            return false;
        };
        use iced_x86::Mnemonic as M;
        let ops: Vec<_> = form.operands().collect();
        let cat = |o: &crate::isa::Operand| o.ty().class().and_then(|c| class_cat(c.name()));
        matches!(
            plan.code.mnemonic(),
            M::Movq | M::Vmovq | M::Movd | M::Vmovd
        ) && ops.len() == 2
            && ops[0].is_def()
            && matches!(cat(&ops[0]), Some(Cat::R32 | Cat::R64))
            && matches!(cat(&ops[1]), Some(Cat::Xmm))
    }

    /// Each memory operand's displacement; `lea` (`lea64mem`: address
    /// arithmetic, no access) has none to move, nor has a string
    /// operation (its pointers start where the loop's walk sets them).
    fn at_offset(&self, inst: &Inst, offset: i32) -> Option<Inst> {
        if inst
            .form
            .operands()
            .any(|o| o.ty().name().starts_with("lea") || o.ty().string_pointer().is_some())
        {
            return None;
        }
        let mut out = inst.clone();
        let mut any = false;
        let mc = inst.form.mc_operands();
        for (v, m) in out.ops.iter_mut().zip(&mc) {
            match v {
                OpValue::Mem(a) => a.disp = offset,
                // `moffs`: the address itself, from the data area's start.
                OpValue::Imm(x) if m.ty.is_absolute_address() => {
                    *x = (super::DATA_AREA as i64) + i64::from(offset)
                }
                _ => continue,
            }
            any = true;
        }
        any.then_some(out)
    }

    fn outcomes(&self, inst: &Inst) -> Vec<(String, Inst)> {
        cond::outcomes(inst)
    }

    fn vector_indexes(&self, inst: &Inst) -> Vec<(Reg, u32)> {
        gather::vector_indexes(inst)
    }

    fn resets(&self, inst: &Inst, kept: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        gather::resets(inst, kept)
    }

    fn repeated(
        &self,
        inst: &Inst,
        count: u32,
        starts: super::Starts,
    ) -> Option<Result<Vec<super::Line>, super::KernelError>> {
        string::repeated(self, inst, count, starts)
    }

    fn walked(&self, inst: &Inst) -> Vec<Reg> {
        let mut out = string::pointers(inst);
        out.extend(stack::walked(inst));
        out
    }

    /// The stack pointer's walk ([`stack::walk`]) after the string
    /// pointers set again ([`string::walk`]).
    fn walk(&self, body: &[Inst], starts: super::Starts) -> Result<super::Walk, EncodeError> {
        let mut out = string::walk(body, starts)?;
        let stack = stack::walk(body)?;
        out.top.extend(stack.top);
        out.bottom.extend(stack.bottom);
        Ok(out)
    }

    /// `add base, step` and `and base, from | (window - 1)`: both
    /// immediates fit a sign-extended 32 bits, the data area lying below
    /// 2^31.
    fn stream(
        &self,
        base: Reg,
        step: u32,
        from: u64,
        window: u32,
    ) -> Option<Result<Vec<Inst>, EncodeError>> {
        let r = OpValue::Reg(container_in(Arch::X86_64, "GR64", base)?);
        let low = u64::from(window.checked_sub(1)?);
        let mask = from | low;
        (window.is_power_of_two() && from & low == 0 && mask < 1 << 31).then(|| {
            Ok(vec![
                inst_of(
                    Arch::X86_64,
                    "ADD64ri32",
                    &[r, r, OpValue::Imm(i64::from(step))],
                )?,
                inst_of(
                    Arch::X86_64,
                    "AND64ri32",
                    &[r, r, OpValue::Imm(mask as i64)],
                )?,
            ])
        })
    }
}

impl HostPolicy for X86_64 {
    fn lacking_features(&self) -> Option<Vec<String>> {
        cfg!(target_arch = "x86_64").then(host::lacking)
    }

    fn assume_lacking(&self, names: &[String]) -> Result<(), String> {
        host::assume_lacking(names)
    }

    fn cpu_identity(&self) -> Option<String> {
        host::identity()
    }

    fn source_lacks(&self, form: Instr) -> Option<String> {
        let Ok(plan) = plan_of(&form) else {
            return lacks_for_every_candidate(&form);
        };
        let missing = host::missing(plan.code);
        (!missing.is_empty())
            .then(|| format!("needs {}, which this CPU lacks (CPUID)", missing.join(", ")))
    }

    fn source_report(&self) -> Vec<(&'static str, String)> {
        if cfg!(not(target_arch = "x86_64")) {
            return Vec::new();
        }
        let has: Vec<String> = iced_x86::CpuidFeature::values()
            .filter(|f| host::has(*f) == Some(true) && host::bit_known(*f))
            .map(|f| format!("{f:?}").to_ascii_lowercase())
            .collect();
        let widest = if has.iter().any(|f| f == "avx512f") {
            "512 bits (AVX-512)"
        } else if has.iter().any(|f| f == "avx") {
            "256 bits (AVX)"
        } else {
            "128 bits (SSE)"
        };
        vec![
            ("Features", has.join(" ")),
            ("Feature source", "CPUID and XCR0".into()),
            ("Widest vector", widest.into()),
        ]
    }

    fn cpu_model(&self, cpuinfo: &str) -> Option<String> {
        cpuinfo_value(cpuinfo, "model name").map(str::to_string)
    }
}

/// A form without an iced code of its operands (`v4fmaddps`, whose
/// register group LLVM 19 records as one register and requires only
/// `avx512f` of) lacks what every code sharing its opcode needs: named
/// when the host lacks a feature of each, so that such a form is skipped
/// for the feature, as a form with a code is, rather than as unencodable.
fn lacks_for_every_candidate(form: &Instr) -> Option<String> {
    let each: Vec<Vec<String>> = mapping::candidate_codes(form)
        .into_iter()
        .map(host::missing)
        .collect();
    if each.is_empty() || each.iter().any(Vec::is_empty) {
        return None;
    }
    let mut names: Vec<String> = each.concat();
    names.sort();
    names.dedup();
    Some(format!(
        "needs {}, which this CPU lacks (CPUID; what every iced-x86 code of its opcode needs)",
        names.join(" or ")
    ))
}

fn plan_of(form: &Instr) -> Result<&'static Plan, EncodeError> {
    mapping::plan(form).map_err(|e| EncodeError::Unsupported(e.to_string()))
}

/// `R16`, `R17D`, `R31B` → the number when it is an APX register (16-31).
fn egpr_number(name: &str) -> Option<u32> {
    let digits: String = name
        .strip_prefix('R')?
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let n: u32 = digits.parse().ok()?;
    (16..32).contains(&n).then_some(n)
}

fn reserved_reason(reg: Reg) -> Option<&'static str> {
    static TABLE: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        reserved_table(
            Arch::X86_64,
            &[
                ("RSP", "stack pointer"),
                ("RIP", "instruction pointer"),
                (LOOP_COUNTER, "loop counter"),
            ],
        )
    })[reg.id() as usize]
}

/// The iced register of an LLVM register, by name (`R8B` is iced's `R8L`,
/// `K2_K3` the pair's first register).
pub fn iced_reg(reg: Reg) -> Option<Register> {
    static MAP: OnceLock<HashMap<String, Register>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        Register::values()
            .map(|r| (format!("{r:?}").to_ascii_uppercase(), r))
            .collect()
    });
    let name = reg.name();
    let key = if let Some((first, _)) = name.split_once('_') {
        first.to_string()
    } else if name.starts_with('R') && name.ends_with('B') && name.len() <= 4 {
        format!("{}L", &name[..name.len() - 1])
    } else {
        name.to_string()
    };
    map.get(&key).copied()
}

/// Checks every value against its operand: register class, immediate
/// range, ties.
fn validate(inst: &Inst) -> Result<(), EncodeError> {
    let mc = inst.form.mc_operands();
    if mc.len() != inst.ops.len() {
        return Err(EncodeError::BadOperand(format!(
            "{} takes {} operands, got {}",
            inst.form.name(),
            mc.len(),
            inst.ops.len()
        )));
    }
    for (i, (m, v)) in mc.iter().zip(&inst.ops).enumerate() {
        match (m.ty.kind(), v) {
            (OperandKind::Reg, OpValue::Reg(r)) => {
                if !m.ty.class().is_some_and(|c| c.contains(*r)) {
                    return Err(bad(m.name, format!("{} is not in its class", r.name())));
                }
            }
            (OperandKind::Imm, OpValue::Imm(x)) => check_imm(m, *x)?,
            (OperandKind::Mem, OpValue::Mem(a)) => check_mem(m, a)?,
            (OperandKind::Mem, OpValue::Imm(x)) if m.ty.is_absolute_address() => {
                if absolute_bytes(m.ty) == 4 && u32::try_from(*x).is_err() {
                    return Err(bad(m.name, format!("{x:#x} is no 32-bit address")));
                }
            }
            (OperandKind::PcRel, OpValue::Imm(_)) => {}
            // `ret`'s `variable_ops` stands for nothing the text or the
            // encoding holds.
            _ if m.ty.name() == "variable_ops" => {}
            _ => return Err(bad(m.name, format!("wrong kind of value {v:?}"))),
        }
        if let Some(t) = m.operand.tied_to() {
            let tied = mc.iter().position(|o| o.operand.index() == t);
            if tied.is_some_and(|k| inst.ops[k] != inst.ops[i]) {
                return Err(bad(m.name, "differs from the operand it is tied to".into()));
            }
        }
    }
    Ok(())
}

fn bad(name: &str, what: String) -> EncodeError {
    EncodeError::BadOperand(format!("${name}: {what}"))
}

/// A memory reference of 64-bit general-purpose registers, the index not
/// `rsp`, the scale 1, 2, 4 or 8.
fn check_mem(m: &crate::isa::McOperand, a: &Mem) -> Result<(), EncodeError> {
    let gr64 = |r: Reg| container_in(Arch::X86_64, "GR64", r) == Some(r);
    if !gr64(a.base) {
        return Err(bad(
            m.name,
            format!("base {} is no 64-bit register", a.base.name()),
        ));
    }
    if let Some((i, s)) = a.index {
        let fits = match m.ty.vector_index_class() {
            Some(class) => class.contains(i),
            None => gr64(i) && i.name() != "RSP",
        };
        if !fits {
            return Err(bad(m.name, format!("index {} cannot index", i.name())));
        }
        if !matches!(s, 1 | 2 | 4 | 8) {
            return Err(bad(m.name, format!("scale {s}: 1, 2, 4 or 8")));
        }
    }
    Ok(())
}

fn check_imm(m: &crate::isa::McOperand, x: i64) -> Result<(), EncodeError> {
    let (lo, hi) = imm_range(m);
    if x < lo || x > hi {
        return Err(bad(m.name, format!("{x} outside {lo}..={hi}")));
    }
    Ok(())
}

/// The accepted range of an immediate operand.
fn imm_range(m: &crate::isa::McOperand) -> (i64, i64) {
    if m.ty.name() == "AVX512RC" {
        return (0, 3);
    }
    let Some(info) = m.ty.imm() else {
        return (i64::MIN, i64::MAX);
    };
    let bits = info.bits.clamp(1, 64);
    let (dlo, dhi) = match (bits, info.signed) {
        (64, _) => (i64::MIN, i64::MAX),
        // The assembler takes both signed and unsigned spellings.
        (b, _) => (-(1i64 << (b - 1)), (1i64 << b) - 1),
    };
    (info.min.unwrap_or(dlo), info.max.unwrap_or(dhi))
}

/// Builds the iced instruction of `inst` under `plan`.
fn build(plan: &Plan, inst: &Inst) -> Result<Instruction, EncodeError> {
    let mut ins = Instruction::default();
    let code = plan.code_of(inst).map_err(EncodeError::BadOperand)?;
    ins.set_code(code);
    let kinds = code.op_code().op_kinds();
    for (n, (slot, kind)) in plan.slots.iter().zip(kinds).enumerate() {
        let n = n as u32;
        match *slot {
            Slot::Fixed(r) => set_reg(&mut ins, n, r),
            Slot::One => set_imm(&mut ins, n, *kind, 1)?,
            Slot::Mc(i) => match inst.ops[i] {
                OpValue::Reg(r) => set_reg(&mut ins, n, to_iced(r)?),
                // A branch target, bytes from the instruction's first byte
                // (encoded at address 0).
                OpValue::Imm(x)
                    if matches!(kind, OpCodeOperandKind::br64_1 | OpCodeOperandKind::br64_4) =>
                {
                    ins.set_op_kind(n, OpKind::NearBranch64);
                    ins.set_near_branch64(x as u64);
                }
                OpValue::Imm(x) if *kind == OpCodeOperandKind::mem_offs => {
                    let bytes = absolute_bytes(inst.form.mc_operands()[i].ty);
                    ins.set_op_kind(n, OpKind::Memory);
                    ins.set_memory_index_scale(1);
                    ins.set_memory_displacement64(x as u64);
                    ins.set_memory_displ_size(bytes);
                }
                OpValue::Imm(x) => set_imm(&mut ins, n, *kind, x)?,
                // A string operation's pointer: the register is the code's.
                OpValue::Mem(_) if *kind == OpCodeOperandKind::seg_rSI => {
                    ins.set_op_kind(n, OpKind::MemorySegRSI)
                }
                OpValue::Mem(_) if *kind == OpCodeOperandKind::es_rDI => {
                    ins.set_op_kind(n, OpKind::MemoryESRDI)
                }
                OpValue::Mem(m) => set_mem(&mut ins, n, m)?,
            },
        }
    }
    if let Some(OpValue::Reg(k)) = plan.mask.map(|i| inst.ops[i]) {
        ins.set_op_mask(to_iced(k)?);
    }
    ins.set_zeroing_masking(plan.zeroing);
    ins.set_suppress_all_exceptions(plan.sae);
    ins.set_is_broadcast(plan.broadcast);
    if let Some(OpValue::Imm(rc)) = plan.rc.map(|i| inst.ops[i]) {
        ins.set_rounding_control(rounding(rc)?);
    }
    Ok(ins)
}

fn to_iced(r: Reg) -> Result<Register, EncodeError> {
    iced_reg(r).ok_or_else(|| EncodeError::BadOperand(format!("{}: no iced register", r.name())))
}

/// The bytes of an absolute address (`offset32_8`: 4, with the
/// address-size prefix; `offset64_8`: 8).
fn absolute_bytes(ty: crate::isa::OperandType) -> u32 {
    if ty.name().starts_with("offset32") {
        4
    } else {
        8
    }
}

/// A memory operand `[base + scale*index + disp]`, with the shortest
/// displacement that holds `disp` (as llvm-mc chooses).
fn set_mem(ins: &mut Instruction, n: u32, m: Mem) -> Result<(), EncodeError> {
    ins.set_op_kind(n, OpKind::Memory);
    ins.set_memory_base(to_iced(m.base)?);
    if let Some((index, scale)) = m.index {
        ins.set_memory_index(to_iced(index)?);
        ins.set_memory_index_scale(u32::from(scale));
    } else {
        ins.set_memory_index_scale(1);
    }
    ins.set_memory_displacement64(i64::from(m.disp) as u64);
    ins.set_memory_displ_size(if m.disp == 0 { 0 } else { 1 });
    Ok(())
}

fn set_reg(ins: &mut Instruction, n: u32, r: Register) {
    ins.set_op_kind(n, OpKind::Register);
    ins.set_op_register(n, r);
}

/// LLVM's static rounding mode (0 rn … 3 rz) as iced's.
fn rounding(v: i64) -> Result<RoundingControl, EncodeError> {
    Ok(match v {
        0 => RoundingControl::RoundToNearest,
        1 => RoundingControl::RoundDown,
        2 => RoundingControl::RoundUp,
        3 => RoundingControl::RoundTowardZero,
        _ => return Err(EncodeError::BadOperand(format!("rounding mode {v}"))),
    })
}

fn set_imm(
    ins: &mut Instruction,
    n: u32,
    kind: OpCodeOperandKind,
    x: i64,
) -> Result<(), EncodeError> {
    use OpCodeOperandKind as K;
    let first_imm = !(0..n).any(|k| {
        matches!(
            ins.op_kind(k),
            OpKind::Immediate8 | OpKind::Immediate16 | OpKind::Immediate32
        )
    });
    let op_kind = match kind {
        K::imm8 | K::imm8_const_1 | K::imm4_m2z if first_imm => OpKind::Immediate8,
        K::imm8 => OpKind::Immediate8_2nd,
        K::imm8sex16 => OpKind::Immediate8to16,
        K::imm8sex32 => OpKind::Immediate8to32,
        K::imm8sex64 => OpKind::Immediate8to64,
        K::imm16 => OpKind::Immediate16,
        K::imm32 => OpKind::Immediate32,
        K::imm32sex64 => OpKind::Immediate32to64,
        K::imm64 => OpKind::Immediate64,
        k => return Err(EncodeError::BadOperand(format!("immediate for {k:?}"))),
    };
    ins.set_op_kind(n, op_kind);
    let v = match op_kind {
        OpKind::Immediate8 | OpKind::Immediate8_2nd => x as u8 as u64,
        OpKind::Immediate16 => x as u16 as u64,
        OpKind::Immediate32 => x as u32 as u64,
        _ => x as u64,
    };
    ins.try_set_immediate_u64(n, v)
        .map_err(|e| EncodeError::BadOperand(format!("immediate {x}: {e}")))
}

/// Registers in the order `example` tries them: low encodings first (short
/// encodings, no VEX3→VEX2 operand swap by llvm-mc), 0 and the
/// REX-extended ones after.
const ENCODING_ORDER: [u16; 32] = [
    1, 2, 3, 6, 7, 4, 5, 0, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30, 31,
];

/// One valid instance of `form`.
fn example_of(form: Instr, avoid: &[Reg]) -> Result<Inst, EncodeError> {
    let mc = form.mc_operands();
    let mut ops: Vec<Option<OpValue>> = vec![None; mc.len()];
    let mut used: Vec<Reg> = avoid.to_vec();
    // APX's extended GPRs (R16-R31) only where the form requires them:
    // `NoEGPR` (`!egpr`, shlx's) excludes them, and iced cannot encode them.
    let apx = form.predicates().any(|p| p.cond() == "egpr");
    for (i, m) in mc.iter().enumerate() {
        if m.operand.tied_to().is_some_and(|t| t < m.operand.index()) {
            continue;
        }
        ops[i] = Some(match m.ty.kind() {
            OperandKind::Reg => OpValue::Reg(pick_reg(m, &used, apx)?),
            OperandKind::Imm => OpValue::Imm(pick_imm(&form, m)),
            // An absolute address: the data area's first word, until the
            // kernel places the access (`at_offset`).
            OperandKind::Mem if m.ty.is_absolute_address() => OpValue::Imm(super::DATA_AREA as i64),
            OperandKind::Mem if m.ty.is_addressable_memory() => pick_mem(m, &used, apx)?,
            OperandKind::PcRel if cond::runs_anyway(&form) => OpValue::Imm(0),
            _ => {
                return Err(EncodeError::Unsupported(
                    "memory or PC-relative operand".into(),
                ))
            }
        });
        match ops[i] {
            Some(OpValue::Reg(r)) => used.push(r),
            Some(OpValue::Mem(a)) => used.extend(a.regs()),
            _ => {}
        }
    }
    // Tied operands take the value of what they are tied to.
    for i in 0..mc.len() {
        if ops[i].is_none() {
            let t = mc[i].operand.tied_to().unwrap_or(usize::MAX);
            ops[i] = mc
                .iter()
                .position(|o| o.operand.index() == t)
                .and_then(|k| ops[k]);
        }
    }
    let ops = ops
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| EncodeError::Unsupported("unresolved tied operand".into()))?;
    let mut inst = Inst { form, ops };
    // A branch goes to the next instruction.
    if let Some(k) = mc.iter().position(|m| m.ty.kind() == OperandKind::PcRel) {
        inst.ops[k] = OpValue::Imm(cond::next_instruction(&inst)?);
    }
    Ok(inst)
}

/// A memory operand's address registers, chosen like register operands'.
/// `lea` (`lea64mem`: it only computes the address) gets the two-part
/// shape compilers emit for address arithmetic, `[base + index]`; an
/// access gets `[base]`, whose displacement the kernel sets per slot of
/// its data area (`crate::kernel::data`); a gather `[base + zmm]`, its
/// vector index a register of its own (the kernel sets its lanes,
/// [`crate::arch::Operands::vector_indexes`]).
fn pick_mem(m: &crate::isa::McOperand, used: &[Reg], apx: bool) -> Result<OpValue, EncodeError> {
    // A string operation's pointer is the register its code names.
    if let Some((reg, _)) = m.ty.string_pointer() {
        let OpValue::Reg(base) = super::reg_of(Arch::X86_64, reg)? else {
            unreachable!("reg_of gives registers")
        };
        return Ok(OpValue::Mem(Mem {
            base,
            index: None,
            disp: 0,
        }));
    }
    let gr64 = |avoid: &[Reg]| {
        let class = crate::isa::Isa::get(Arch::X86_64)
            .class("GR64_NOSP")
            .ok_or_else(|| EncodeError::Unsupported("no class GR64_NOSP".into()))?;
        pick_in(class, avoid, apx)
    };
    let base = gr64(used)?;
    let mut avoid = used.to_vec();
    avoid.push(base);
    let index = if let Some(class) = m.ty.vector_index_class() {
        Some((pick_in(class, &avoid, apx)?, 1))
    } else if m.ty.name().starts_with("lea") {
        Some((gr64(&avoid)?, 1))
    } else {
        None
    };
    Ok(OpValue::Mem(Mem {
        base,
        index,
        disp: 0,
    }))
}

fn pick_reg(m: &crate::isa::McOperand, used: &[Reg], apx: bool) -> Result<Reg, EncodeError> {
    let class =
        m.ty.class()
            .ok_or_else(|| EncodeError::Unsupported(format!("${} has no class", m.name)))?;
    pick_in(class, used, apx)
}

fn pick_in(class: crate::isa::RegClass, used: &[Reg], apx: bool) -> Result<Reg, EncodeError> {
    let cat = class_cat(class.name());
    let usable = |r: &Reg| {
        reserved_reason(*r).is_none()
            && (apx || egpr_number(r.name()).is_none())
            && !is_high_byte(*r)
            && !used
                .iter()
                .any(|u| u.overlaps(*r) || same_slot(cat, *u, *r))
    };
    let members: Vec<Reg> = class.members().filter(usable).collect();
    ENCODING_ORDER
        .iter()
        .find_map(|&e| members.iter().find(|r| r.encoding() == e).copied())
        .or_else(|| members.first().copied())
        .ok_or_else(|| {
            EncodeError::Unsupported(format!("no free register in class {}", class.name()))
        })
}

/// AH, BH, CH, DH: not encodable with a REX prefix; never chosen.
fn is_high_byte(r: Reg) -> bool {
    matches!(r.name(), "AH" | "BH" | "CH" | "DH")
}

/// Whether `a` and `b` are the same vector register at different widths
/// (`xmm3`, `ymm3`, `zmm3`).
fn same_vector(a: Reg, b: Reg) -> bool {
    let vector = |r: Reg| {
        ["XMM", "YMM", "ZMM"]
            .iter()
            .any(|p| r.name().starts_with(p))
    };
    vector(a) && vector(b) && a.encoding() == b.encoding()
}

/// Whether two registers of the same file share a number (`xmm1` and
/// `zmm1` do not overlap in LLVM's tables for every class pair).
fn same_slot(cat: Option<Cat>, a: Reg, b: Reg) -> bool {
    matches!(cat, Some(Cat::Xmm | Cat::Ymm | Cat::Zmm)) && same_vector(a, b)
}

/// A legal immediate that also pins llvm-mc to this form: 8-bit fields get
/// 2 (1 would turn `shl r, 1` into the `D1` form), wider fields 0x1234 (a
/// value that fits in 8 bits would let llvm-mc pick the `imm8` form).
fn pick_imm(form: &Instr, m: &crate::isa::McOperand) -> i64 {
    if m.ty.name() == "AVX512RC" {
        return 1;
    }
    if cond::is_cond(m) {
        return cond::DEFAULT;
    }
    let immt = match form.encoding() {
        crate::isa::Encoding::X86(e) => e.immt(),
        _ => "",
    };
    let bits = m.ty.imm().map(|i| i.bits).unwrap_or(8);
    let want = if bits > 8 && !immt.starts_with("Imm8") {
        0x1234
    } else {
        2
    };
    let (lo, hi) = imm_range(m);
    want.clamp(lo, hi)
}
