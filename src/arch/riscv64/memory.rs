//! How a RISC-V form addresses memory, read from its record: the base is
//! the register operand LLVM types as an address (`GPRMem`, `GPRCMem`,
//! `SPMem`, `GPRMemZeroOffset`, printed `(a0)`), or the one the template
//! writes in parentheses (`prefetch.r ${imm12}(${rs1})`); the offset is
//! the immediate written right before it (`${imm12}(`). Vector forms read
//! a further general-purpose register as their stride (`vlse32.v vd,
//! (rs1), rs2`).
//!
//! Kernels point the base at the data area and give every access its own
//! 64-byte slot within the offset's reach (`simm12`: 32 slots; the
//! compressed forms' few), strides 8 bytes. Not run, with the reason:
//! indexed (a vector of offsets) and segment forms, and bases written back
//! (vendor post-increment forms).

use super::operands::ImmKind;
use crate::arch::{Inst, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::{Flag, Instr, McOperand, Reg};

/// The stride registers' value: 8 bytes keeps every element aligned up
/// to 64-bit elements; a strided access then spans at most VLEN × 8 bytes
/// (e8, m8), 32 KiB at a VLEN of 4096 bits, inside the area's values.
pub const STRIDE: u64 = 8;

/// The parts of a form's address, as machine-operand indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Address {
    /// The base register.
    pub base: usize,
    /// The immediate offset.
    pub offset: Option<usize>,
    /// Strides.
    pub stride: Vec<usize>,
}

fn class_name(m: &McOperand) -> &'static str {
    m.ty.class().map_or("", |c| c.name())
}

/// Whether `name` appears in `t` as `(${name})` or `($name)`.
fn in_parens(t: &str, name: &str) -> bool {
    t.contains(&format!("(${{{name}}})")) || t.contains(&format!("(${name})"))
}

/// Whether immediate `name` is written right before a `(`.
fn before_parens(t: &str, name: &str) -> bool {
    t.contains(&format!("${{{name}}}(")) || t.contains(&format!("${name}("))
}

/// The address of `form`: `Ok(None)` when it has no address operand,
/// `Err` with the reason when winic does not point it at the data area.
pub fn address(form: &Instr) -> Result<Option<Address>, String> {
    let t = form.asm_template();
    let mc = form.mc_operands();
    let base = mc.iter().position(|m| {
        m.ty.kind() == OperandKind::Reg
            && (class_name(m).starts_with("GPR") || class_name(m) == "SP")
            && !m.operand.is_def()
            && (m.ty.name().contains("Mem") || in_parens(&t, m.name))
    });
    // JALR writes its target as `imm(rs1)` too: only loads and stores.
    let (Some(base), true) = (base, form.has(Flag::MayLoad) || form.has(Flag::MayStore)) else {
        return Ok(None);
    };
    let bi = mc[base].operand.index();
    if mc[base].operand.tied_to().is_some() || mc.iter().any(|m| m.operand.tied_to() == Some(bi)) {
        return Err("writes its base back (post-increment)".into());
    }
    if form.name().contains("SEG") {
        return Err(
            "segment load or store: fields in register groups winic does not lay out".into(),
        );
    }
    let vector = mc
        .iter()
        .any(|m| class_name(m).starts_with("VR") || class_name(m) == "VMV0");
    let mut a = Address {
        base,
        ..Address::default()
    };
    for (k, m) in mc.iter().enumerate() {
        if k == base || m.operand.is_def() {
            continue;
        }
        match m.ty.kind() {
            OperandKind::Imm if a.offset.is_none() && before_parens(&t, m.name) => {
                a.offset = Some(k)
            }
            OperandKind::Reg if vector && m.name == "vs2" => {
                return Err(
                    "indexed load or store: a vector of offsets (not set to stay in the data area)"
                        .into(),
                )
            }
            OperandKind::Reg if vector && class_name(m).starts_with("GPR") => a.stride.push(k),
            _ => {}
        }
    }
    Ok(Some(a))
}

/// Registers the data operand (`vd`, `vs3`) of a vector load or store
/// takes at vector type `v`: its EMUL = EEW / SEW × LMUL for the
/// unit-stride and strided forms (EEW from the mnemonic, `vle64.v`), `nf`
/// for the whole-register forms (`vl2re32.v`, `vs4r.v`), 1 for the mask
/// forms. `None` for other forms; `Err` when the EMUL is outside 1/8..8
/// (the encoding is reserved there: V specification, 7.3).
pub fn data_registers(form: &Instr, v: super::vtype::VType) -> Option<Result<usize, String>> {
    let m = form.mnemonic();
    let body = m.strip_suffix(".v")?;
    if body == "vlm" || body == "vsm" {
        return Some(Ok(1));
    }
    let num = |s: &str| -> Option<u32> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    // vl<nf>re<eew>, vs<nf>r: whole registers.
    let whole = body
        .strip_prefix("vl")
        .filter(|r| r.contains("re"))
        .or_else(|| body.strip_prefix("vs").filter(|r| r.ends_with('r')));
    if let Some(nf) = whole.and_then(num) {
        return Some(Ok(nf as usize));
    }
    let eew = ["vle", "vlse", "vse", "vsse"]
        .iter()
        .filter_map(|p| body.strip_prefix(p))
        .find_map(|r| {
            let e = num(r)?;
            let tail = &r[e.to_string().len()..];
            (tail.is_empty() || tail == "ff").then_some(e)
        })?;
    let emul8 = eew * v.lmul.eighths() / v.sew;
    if !(1..=64).contains(&emul8) || !(eew * v.lmul.eighths()).is_multiple_of(v.sew) {
        return Some(Err(format!(
            "{eew}-bit elements at {v} need an EMUL outside 1/8..8 (reserved)"
        )));
    }
    Some(Ok((emul8 as usize / 8).max(1)))
}

/// `inst` with its access at `offset`'s slot, within the offset field's
/// reach ([`crate::arch::slot_in_reach`]), or `None` when its form
/// addresses no memory winic runs.
pub fn at_offset(inst: &Inst, offset: i32) -> Option<Inst> {
    let a = address(&inst.form).ok()??;
    let mut out = inst.clone();
    if let Some(k) = a.offset {
        let m = inst.form.mc_operands()[k];
        if let ImmKind::Plain {
            min,
            max,
            align,
            nonzero: false,
            ..
        } = ImmKind::of(&m)
        {
            if let Some(v) = crate::arch::slot_in_reach(offset, min, max, align) {
                out.ops[k] = OpValue::Imm(v);
            }
        }
    }
    Some(out)
}

/// The base register of `inst`'s address.
pub fn bases(inst: &Inst) -> Vec<Reg> {
    match address(&inst.form) {
        Ok(Some(a)) => match inst.ops.get(a.base) {
            Some(OpValue::Reg(r)) => vec![*r],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The stride registers of `inst`, each set to [`STRIDE`].
pub fn offsets(inst: &Inst) -> Vec<(Reg, u64)> {
    match address(&inst.form) {
        Ok(Some(a)) => a
            .stride
            .iter()
            .filter_map(|&k| match inst.ops.get(k) {
                Some(OpValue::Reg(r)) => Some((*r, STRIDE)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::riscv64::Riscv64;
    use crate::arch::{emit, KernelFrame, Operands};
    use crate::isa::{Arch, Isa};

    fn form(name: &str) -> Instr {
        Isa::get(Arch::Riscv64)
            .instr(name)
            .unwrap_or_else(|| panic!("no {name}"))
    }

    fn placed(name: &str, offset: i32) -> String {
        let inst = Riscv64.example(form(name)).unwrap();
        let out = Riscv64.at_offset(&inst, offset).unwrap();
        emit(&Riscv64, &out).unwrap().text
    }

    #[test]
    fn bases_offsets_and_strides_come_from_the_operands() {
        for (name, offset, strides) in [
            ("LD", true, 0),
            ("SB", true, 0),
            ("FLD", true, 0),
            ("C_LD", true, 0),
            ("PREFETCH_R", true, 0),
            ("AMOADD_D", false, 0),
            ("LR_D", false, 0),
            ("SC_D", false, 0),
            ("VLE32_V", false, 0),
            ("VSE32_V", false, 0),
            ("VLSE32_V", false, 1),
            ("VL1RE32_V", false, 0),
        ] {
            let inst = Riscv64.example(form(name)).unwrap();
            let a = address(&inst.form).unwrap().unwrap();
            assert_eq!(Riscv64.address_bases(&inst).len(), 1, "{name}");
            assert_eq!(a.offset.is_some(), offset, "{name}");
            let s = Riscv64.address_offsets(&inst);
            assert_eq!(s.len(), strides, "{name}");
            assert!(s.iter().all(|(_, v)| *v == STRIDE));
        }
        assert_eq!(address(&form("ADD")).unwrap(), None);
        assert!(address(&form("VLUXEI32_V"))
            .unwrap_err()
            .contains("indexed"));
        assert!(address(&form("VLSEG2E32_V"))
            .unwrap_err()
            .contains("segment"));
        let sp = Riscv64.example(form("C_LDSP")).unwrap();
        assert_eq!(Riscv64.address_bases(&sp)[0].name(), "X2");
    }

    #[test]
    fn accesses_move_to_slots_within_the_fields_reach() {
        // simm12 reaches 32 slots from the base, c.ld's uimm8 4.
        assert_eq!(placed("LD", 8192), "ld a0, 0(a1)");
        assert_eq!(placed("LD", 8192 + 64), "ld a0, 64(a1)");
        assert_eq!(placed("LD", 8192 + 31 * 64), "ld a0, 1984(a1)");
        assert_eq!(placed("LD", 8192 + 32 * 64), "ld a0, 0(a1)");
        assert_eq!(placed("C_LD", 8192 + 3 * 64), "c.ld a0, 192(a1)");
        assert_eq!(placed("C_LD", 8192 + 4 * 64), "c.ld a0, 0(a1)");
        assert_eq!(placed("PREFETCH_R", 8192 + 64), "prefetch.r 64(a0)");
        assert_eq!(placed("AMOADD_D", 8256), "amoadd.d a0, a2, (a1)");
    }

    #[test]
    fn vector_data_groups_follow_the_element_width() {
        use crate::arch::riscv64::vtype::{Lmul, VType};
        let at = |name: &str, sew: u32, lmul: Lmul| {
            data_registers(&form(name), VType { sew, lmul }).unwrap()
        };
        assert_eq!(at("VLE64_V", 32, Lmul::M1), Ok(2));
        assert_eq!(at("VSE64_V", 32, Lmul::M1), Ok(2));
        assert_eq!(at("VLSE64_V", 32, Lmul::M1), Ok(2));
        assert_eq!(at("VLE64FF_V", 32, Lmul::M1), Ok(2));
        assert_eq!(at("VLE8_V", 32, Lmul::M1), Ok(1));
        assert_eq!(at("VLE64_V", 8, Lmul::M1), Ok(8));
        assert!(at("VLE64_V", 8, Lmul::M2).is_err());
        assert!(at("VLE8_V", 64, Lmul::Mf2).is_err());
        assert_eq!(at("VL2RE32_V", 64, Lmul::M8), Ok(2));
        assert_eq!(at("VS4R_V", 8, Lmul::Mf8), Ok(4));
        assert_eq!(at("VLM_V", 8, Lmul::M8), Ok(1));
        assert!(data_registers(&form("VADD_VV"), VType::DEFAULT).is_none());
        // At e32 m1 a 64-bit load writes an aligned pair.
        let body = crate::kernel::shape::throughput(&Riscv64, form("VLE64_V"), 12).unwrap();
        for i in &body {
            let OpValue::Reg(vd) = i.ops[0] else { panic!() };
            assert_eq!(vd.encoding() % 2, 0, "{body:?}");
        }
    }

    #[test]
    fn the_frame_sets_an_address_and_a_stride_in_one_instruction() {
        let isa = Isa::get(Arch::Riscv64);
        let a1 = isa.register("X11").unwrap();
        let text = |v: u64| -> Vec<String> {
            let (whole, insts) = Riscv64.init_address(a1, v).unwrap();
            assert_eq!(whole, a1);
            insts
                .iter()
                .map(|i| emit(&Riscv64, i).unwrap().text)
                .collect()
        };
        assert_eq!(text(0x4000_0000), ["lui a1, 262144"]);
        assert_eq!(text(STRIDE), ["addi a1, zero, 8"]);
    }
}
