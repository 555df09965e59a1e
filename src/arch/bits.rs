//! The table-driven encoder of fixed-width instructions (AArch64, RISC-V):
//! the constant bits of LLVM's `Inst` plus each operand's value placed into
//! its fields. Converting an operand to its field value (register encoding,
//! or an `EncoderMethod` such as `getImmOpValueAsr1`) is the arch's job,
//! passed in as `value_of`.

use super::EncodeError;
use crate::isa::{BitEnc, Instr, McOperand};

/// Encodes `form` with the field value of each machine operand given by
/// `value_of(mc_operand_index, mc_operand)`. Fails if a field names no
/// machine operand, or if a value has bits its field cannot hold.
pub fn encode_fields(
    form: &Instr,
    layout: &BitEnc,
    mut value_of: impl FnMut(usize, &McOperand) -> Result<u64, EncodeError>,
) -> Result<u64, EncodeError> {
    let mc = form.mc_operands();
    let mut word = layout.fixed();
    let mut values: Vec<Option<u64>> = vec![None; mc.len()];
    for f in layout.fields() {
        let k = mc.iter().position(|m| m.name == f.var).ok_or_else(|| {
            EncodeError::Unsupported(format!("{}: field {} names no operand", form.name(), f.var))
        })?;
        let v = match values[k] {
            Some(v) => v,
            None => {
                let v = value_of(k, &mc[k])?;
                values[k] = Some(v);
                v
            }
        };
        let mask = (1u64 << f.width) - 1;
        word |= ((v >> f.var_lo) & mask) << f.inst_lo;
    }
    // A value with bits above every field that takes from it would be
    // silently truncated: refuse it instead.
    for (k, v) in values.iter().enumerate() {
        let Some(v) = *v else { continue };
        let top = layout
            .fields()
            .filter(|f| f.var == mc[k].name)
            .map(|f| f.var_lo as u32 + f.width as u32)
            .max()
            .unwrap_or(0);
        if top < 64 && v >> top != 0 {
            return Err(EncodeError::BadOperand(format!(
                "{}: value {v:#x} of {} does not fit in {top} bits",
                form.name(),
                mc[k].name
            )));
        }
    }
    Ok(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Arch, Encoding, Isa};

    fn layout(i: &Instr) -> BitEnc {
        match i.encoding() {
            Encoding::Bits(b) => b,
            _ => panic!("{} has no bit layout", i.name()),
        }
    }

    #[test]
    fn riscv_add_places_register_numbers() {
        // add x5, x6, x7 = 0x007302b3 (RISC-V ISA manual, R-type).
        let add = Isa::get(Arch::Riscv64).instr("ADD").unwrap();
        let regs = [5u64, 6, 7];
        let word = encode_fields(&add, &layout(&add), |k, _| Ok(regs[k])).unwrap();
        assert_eq!(word, 0x0073_02b3);
    }

    #[test]
    fn aarch64_shifted_register_splits_the_shift_operand() {
        // add x0, x1, x2, lsl #3 = 0x8b020c20 (llvm-mc); the shift operand
        // is (type << 6) | amount across two fields.
        let add = Isa::get(Arch::Aarch64).instr("ADDXrs").unwrap();
        let vals = [0u64, 1, 2, 3];
        let word = encode_fields(&add, &layout(&add), |k, _| Ok(vals[k])).unwrap();
        assert_eq!(word, 0x8b02_0c20);
    }

    #[test]
    fn values_too_wide_for_their_fields_are_refused() {
        let add = Isa::get(Arch::Riscv64).instr("ADD").unwrap();
        let err =
            encode_fields(&add, &layout(&add), |k, _| Ok(if k == 0 { 32 } else { 1 })).unwrap_err();
        assert!(matches!(err, EncodeError::BadOperand(_)), "{err}");
    }
}
