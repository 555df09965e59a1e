//! The frame of a RISC-V kernel (LP64D ABI): s1-s11 (x9, x18-x27) and
//! fs0-fs11 are callee-saved and stored below sp when touched (s0 is the
//! frame pointer and never touched; the loop counter x31 is caller-saved);
//! the iteration count arrives in a0; `addi t6, t6, -1` / `bne t6, zero`
//! close the loop.

use super::vtype::{self, VType};
use super::{Riscv64, LOOP_COUNTER};
use crate::arch::variant::{AtVType, Variant, VectorTypes};
use crate::arch::{
    container_in, inst_of, reg_of, EncodeError, Inst, KernelFrame, Line, ModeSwitch, OpValue,
};
use crate::isa::{Arch, Instr, Isa, Reg};

const A: Arch = Arch::Riscv64;

const CALLEE_SAVED: [&str; 23] = [
    "X9", "X18", "X19", "X20", "X21", "X22", "X23", "X24", "X25", "X26", "X27", "F8_D", "F9_D",
    "F18_D", "F19_D", "F20_D", "F21_D", "F22_D", "F23_D", "F24_D", "F25_D", "F26_D", "F27_D",
];

/// Scratch registers for building FP values (initialised afterwards when
/// the body uses them).
const SCRATCH: [&str; 2] = ["X5", "X6"];

fn r(name: &str) -> Result<OpValue, EncodeError> {
    reg_of(A, name)
}

fn saved(touched: &[Reg]) -> Result<Vec<Reg>, EncodeError> {
    let isa = Isa::get(A);
    let mut out = Vec::new();
    for name in CALLEE_SAVED {
        let reg = isa
            .register(name)
            .ok_or_else(|| EncodeError::Unsupported(format!("no register {name}")))?;
        if touched.iter().any(|t| t.overlaps(reg)) {
            out.push(reg);
        }
    }
    Ok(out)
}

fn frame_size(n: usize) -> i64 {
    (n as i64 * 8 + 15) / 16 * 16
}

fn save_or_restore(touched: &[Reg], save: bool) -> Result<Vec<Inst>, EncodeError> {
    let mut out = Vec::new();
    for (k, reg) in saved(touched)?.iter().enumerate() {
        let is_f = container_in(A, "FPR64", *reg).is_some();
        let form = match (is_f, save) {
            (false, true) => "SD",
            (false, false) => "LD",
            (true, true) => "FSD",
            (true, false) => "FLD",
        };
        out.push(inst_of(
            A,
            form,
            &[OpValue::Reg(*reg), r("X2")?, OpValue::Imm(8 * k as i64)],
        )?);
    }
    Ok(out)
}

impl KernelFrame for Riscv64 {
    fn cannot_run(&self, form: Instr) -> Option<String> {
        if let Some(why) = super::runnable::cannot_run(&form) {
            return Some(why);
        }
        // A vector load or store: its EMUL at this vector type decides
        // (LLVM's pseudos of loads and stores are named by EMUL).
        if let Some(g) = super::memory::data_registers(&form, self.vtype) {
            return g
                .err()
                .map(|why| format!("{why} (the kernel runs at {})", self.vtype));
        }
        // At this target's vector type (the rules of vtype::groups: Zvbc
        // only at e64, BF16 only at e16, Zvk element groups …).
        if !vtype::has_variants(form) {
            return None;
        }
        vtype::groups(form, self.vtype, super::elen())
            .err()
            .map(|why| format!("{why} (the kernel runs at {})", self.vtype))
    }

    fn mode_switch(&self, body: &[Instr]) -> Option<ModeSwitch> {
        // The initialisations leave e32 m1; another vector type is set
        // after them, right before the loop.
        if self.vtype == VType::DEFAULT || !body.iter().any(|f| super::vector_form(*f)) {
            return None;
        }
        Some(ModeSwitch {
            enter: Vec::new(),
            ready: set_vtype(self.vtype).ok()?,
            leave: Vec::new(),
            clobbers: Vec::new(),
        })
    }

    fn variants(&self, types: &VectorTypes) -> Vec<Box<dyn Variant>> {
        let elen = super::elen();
        types
            .types()
            .iter()
            .map(|&v| Box::new(AtVType { v, elen }) as Box<dyn Variant>)
            .collect()
    }

    fn prologue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let n = frame_size(saved(touched)?.len());
        let sp = r("X2")?;
        let mut out = Vec::new();
        if n > 0 {
            out.push(inst_of(A, "ADDI", &[sp, sp, OpValue::Imm(-n)])?);
        }
        out.extend(save_or_restore(touched, true)?);
        out.push(inst_of(
            A,
            "ADDI",
            &[r(LOOP_COUNTER)?, r("X10")?, OpValue::Imm(0)],
        )?);
        Ok(out)
    }

    fn epilogue(&self, touched: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
        let n = frame_size(saved(touched)?.len());
        let sp = r("X2")?;
        let mut out = save_or_restore(touched, false)?;
        if n > 0 {
            out.push(inst_of(A, "ADDI", &[sp, sp, OpValue::Imm(n)])?);
        }
        out.push(inst_of(A, "JALR", &[r("X0")?, r("X1")?, OpValue::Imm(0)])?);
        Ok(out)
    }

    /// General-purpose registers get 0x40004000 (`lui`); FP registers 2.0 in
    /// the register's own width, NaN-boxed as the F, D and Zfh extensions
    /// require: half 0x4000, single 0x40004000, double 0x4000400040004000.
    fn init(&self, reg: Reg) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let lui = |rd: OpValue, hi: i64| inst_of(A, "LUI", &[rd, OpValue::Imm(hi)]);
        if let Some(x) = container_in(A, "GPR", reg) {
            return Ok((x, vec![lui(OpValue::Reg(x), 0x40004)?]));
        }
        let (t0, t1) = (r(SCRATCH[0])?, r(SCRATCH[1])?);
        let (whole, mut out, mv) =
            if let Some(d) = container_in(A, "FPR64", reg).filter(|d| *d == reg) {
                let build = vec![
                    lui(t0, 0x40004)?,
                    inst_of(A, "SLLI", &[t1, t0, OpValue::Imm(32)])?,
                    inst_of(A, "OR", &[t0, t0, t1])?,
                ];
                (d, build, "FMV_D_X")
            } else if let Some(s) = container_in(A, "FPR32", reg).filter(|s| *s == reg) {
                (s, vec![lui(t0, 0x40004)?], "FMV_W_X")
            } else if let Some(h) = container_in(A, "FPR16", reg).filter(|h| *h == reg) {
                (h, vec![lui(t0, 0x4)?], "FMV_H_X")
            } else if let Some(parts) = vector_parts(reg) {
                // The vector unit needs a configuration before any vector
                // instruction runs (vtype.vill is set at process start): each
                // vector initialisation sets e32, m1, tail and mask agnostic, and
                // the body runs in that state. Every register of a group
                // (LMUL 2, 4, 8) is set.
                let mut out = vec![
                    inst_of(
                        A,
                        "VSETVLI",
                        &[t0, r("X0")?, OpValue::Imm(VTYPE_E32_M1_TA_MA)],
                    )?,
                    lui(t1, 0x40004)?,
                ];
                for v in parts {
                    out.push(inst_of(A, "VMV_V_X", &[OpValue::Reg(v), t1])?);
                }
                return Ok((reg, out));
            } else {
                return Err(EncodeError::Unsupported(format!(
                    "{} is not a data register winic initialises (general-purpose or FP)",
                    reg.name()
                )));
            };
        out.push(inst_of(A, mv, &[OpValue::Reg(whole), t0])?);
        Ok((whole, out))
    }

    /// `lui` (the data area's address), `addi` (a stride), or LLVM's
    /// longer sequence for other values.
    fn init_address(&self, reg: Reg, addr: u64) -> Result<(Reg, Vec<Inst>), EncodeError> {
        let x = container_in(A, "GPR", reg).ok_or_else(|| {
            EncodeError::Unsupported(format!("{} cannot hold an address", reg.name()))
        })?;
        Ok((x, super::start::load(OpValue::Reg(x), addr as i64)?))
    }

    fn count_down(&self) -> Result<Vec<Inst>, EncodeError> {
        let c = r(LOOP_COUNTER)?;
        Ok(vec![inst_of(A, "ADDI", &[c, c, OpValue::Imm(-1)])?])
    }

    /// `bne t6, zero` back, by the assembler's branch encoder (LLVM's `BNE`
    /// layout).
    fn branch_back(&self, back: usize) -> Result<Line, EncodeError> {
        let reg = |name| {
            Isa::get(A)
                .register(name)
                .ok_or_else(|| EncodeError::Unsupported(format!("no register {name}")))
        };
        Ok(Line {
            text: format!("bne t6, zero, {}", crate::arch::LOOP_LABEL),
            bytes: super::branch::encode(
                "BNE",
                reg(LOOP_COUNTER)?,
                Some(reg("X0")?),
                -(back as i64),
            )?,
        })
    }

    fn chain_add(&self) -> Result<Inst, EncodeError> {
        inst_of(A, "ADD", &[r("X5")?, r("X5")?, r("X6")?])
    }
}

/// `vtypei` of `vsetvli …, e32, m1, ta, ma`: vlmul 0 (m1), vsew 2 (e32)
/// in bits 5:3, vta bit 6, vma bit 7 (RISC-V V specification, 3.4).
pub const VTYPE_E32_M1_TA_MA: i64 = 0b1101_0000;

/// `vsetvli zero, sp, <v>, ta, ma`: sets the vector type `v` with the
/// longest vector length (VLMAX) and no register written. The stack
/// pointer serves as the requested length: any value of at least twice
/// VLMAX gives VLMAX (V specification, 6.3), and a user stack lies far
/// above 2 × 65536, the largest VLMAX there is. (`vsetvli zero, zero`
/// keeps the old length and is reserved where VLMAX changes; a written
/// `rd` would need a register the body does not use.)
fn set_vtype(v: VType) -> Result<Vec<Inst>, EncodeError> {
    Ok(vec![inst_of(
        A,
        "VSETVLI",
        &[r("X0")?, r("X2")?, OpValue::Imm(v.vtypei())],
    )?])
}

/// The single vector registers (class VR) making up `reg` when it is a
/// vector register or a register group of LMUL 2, 4 or 8.
fn vector_parts(reg: Reg) -> Option<Vec<Reg>> {
    let isa = Isa::get(A);
    let vr = isa.class("VR")?;
    if vr.contains(reg) {
        return Some(vec![reg]);
    }
    ["VRM2", "VRM4", "VRM8"]
        .iter()
        .filter_map(|c| isa.class(c))
        .any(|c| c.contains(reg))
        .then(|| reg.all_sub_regs().filter(|s| vr.contains(*s)).collect())
}
