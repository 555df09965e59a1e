//! Intel syntax as LLVM prints it (and as WINIC prints it), from the
//! record's `AsmString`, with a pseudo-prefix (`{vex}`, `{evex}`) where
//! llvm-mc could otherwise pick another encoding for the same text.

use super::mapping::{Plan, Tok};
use crate::arch::{EncodeError, Inst, OpValue};
use crate::isa::desc::OperandKind;
use crate::isa::Reg;
use std::fmt::Write;

/// The text of `inst`.
pub fn print(plan: &Plan, inst: &Inst) -> Result<String, EncodeError> {
    let mut s = String::with_capacity(48);
    s.push_str(plan.pseudo);
    s.push_str(&super::cond::mnemonic(plan, inst)?);
    for (n, op) in plan.operands.iter().enumerate() {
        s.push_str(if n == 0 { " " } else { ", " });
        for (k, t) in op.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            piece(&mut s, plan, inst, t)?;
        }
    }
    Ok(s)
}

fn piece(s: &mut String, plan: &Plan, inst: &Inst, t: &Tok) -> Result<(), EncodeError> {
    let value = |i: usize| {
        inst.ops
            .get(i)
            .copied()
            .ok_or_else(|| EncodeError::BadOperand(format!("missing operand {i}")))
    };
    match *t {
        Tok::Lit(l) => s.push_str(l),
        Tok::Zero => s.push_str("{z}"),
        Tok::Mask(i) => {
            s.push('{');
            reg_or_imm(s, value(i)?);
            s.push('}');
        }
        Tok::Mc(i) if plan.rc == Some(i) => {
            let OpValue::Imm(v) = value(i)? else {
                return Err(EncodeError::BadOperand(
                    "rounding mode is a register".into(),
                ));
            };
            let mode = ["rn", "rd", "ru", "rz"]
                .get(v as usize)
                .ok_or_else(|| EncodeError::BadOperand(format!("rounding mode {v}")))?;
            let _ = write!(s, "{{{mode}-sae}}");
        }
        Tok::Mc(i) => {
            let kind = inst.form.mc_operands().get(i).map(|m| m.ty.kind());
            match (kind, value(i)?) {
                (Some(OperandKind::Reg), v @ OpValue::Reg(_))
                | (Some(OperandKind::Imm), v @ OpValue::Imm(_)) => reg_or_imm(s, v),
                (Some(OperandKind::PcRel), OpValue::Imm(x)) => {
                    s.push_str(&super::cond::pc_relative(x))
                }
                (_, v) => return Err(EncodeError::BadOperand(format!("operand {i}: {v:?}"))),
            }
        }
    }
    Ok(())
}

fn reg_or_imm(s: &mut String, v: OpValue) {
    match v {
        OpValue::Reg(r) => s.push_str(&reg_name(r)),
        OpValue::Imm(x) => {
            let _ = write!(s, "{x}");
        }
    }
}

/// LLVM's Intel spelling of a register: `st(1)` for the x87 stack, the
/// first register of a mask pair, else the `AsmName`.
pub fn reg_name(r: Reg) -> String {
    let name = r.name();
    if let Some(n) = name.strip_prefix("ST") {
        return format!("st({n})");
    }
    if let Some((first, _)) = name.split_once('_') {
        return first.to_ascii_lowercase();
    }
    r.asm_name()
}
