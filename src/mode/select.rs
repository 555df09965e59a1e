//! Which forms a run measures: all real forms of the arch, or those named,
//! narrowed by a regular expression and an opcode range.

use crate::error::Error;
use crate::inspect::{self, ListQuery};
use crate::isa::Arch;

/// The real forms of `arch` a mode runs on: all, or those named with `-i`
/// (each must exist), narrowed by `--filter` and the opcode range.
pub fn select_forms(
    arch: Arch,
    names: &[String],
    filter: Option<&str>,
    min_opcode: Option<u32>,
    max_opcode: Option<u32>,
) -> Result<Vec<crate::isa::Instr>, Error> {
    // Real forms, and the records the target runs although LLVM marks
    // them codegen-only (x86 `cmov${cond}`, reached through aliases).
    let t = crate::arch::target(arch);
    let mut forms = inspect::select(&ListQuery {
        arch,
        filter,
        all: true,
    })?;
    forms.retain(|f| f.is_real() || t.runs_anyway(*f));
    if !names.is_empty() {
        let mut named = Vec::new();
        for n in names {
            let f = inspect::find(arch, n)?;
            if !f.is_real() && !t.runs_anyway(f) {
                // VMULSDrr is codegen-only; its twin VMULSDrr_Int is real.
                let twins: Vec<&str> = f
                    .isa()
                    .real_instrs()
                    .filter(|r| r.asm_template() == f.asm_template())
                    .map(|r| r.name())
                    .collect();
                return Err(Error::BadInput(format!(
                    "{n} is a {} LLVM record, not a form an assembler accepts; {}",
                    if f.has(crate::isa::Flag::IsPseudo) {
                        "pseudo"
                    } else {
                        "codegen-only"
                    },
                    if twins.is_empty() {
                        "no real form has its assembly".to_string()
                    } else {
                        format!("real forms with its assembly: {}", twins.join(", "))
                    }
                )));
            }
            named.push(f);
        }
        forms.retain(|f| named.iter().any(|n| n.opcode() == f.opcode()));
        if forms.is_empty() {
            return Err(Error::BadInput(format!(
                "none of {} is a real {arch} form that --filter accepts",
                names.join(", ")
            )));
        }
    }
    forms.retain(|f| {
        min_opcode.is_none_or(|m| f.opcode() >= m) && max_opcode.is_none_or(|m| f.opcode() <= m)
    });
    if forms.is_empty() {
        return Err(Error::BadInput(format!(
            "no real {arch} form is selected (check --filter, --minOpcode and --maxOpcode; `winic list` shows the forms)"
        )));
    }
    Ok(forms)
}
