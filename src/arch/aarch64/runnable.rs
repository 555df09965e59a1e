//! Which encodable AArch64 forms a user-mode kernel must not run. LLVM
//! leaves `mayLoad`/`mayStore` unset on many AArch64 records (it infers
//! them from patterns), so memory forms are recognised by their address
//! syntax; system forms by their record names.

use crate::arch::{by_prefix, PrefixRules};
use crate::isa::Instr;

/// Record-name prefixes and why forms starting with them do not run.
const RULES: &PrefixRules = &[
    (
        &[
            "SVC", "HVC", "SMC", "BRK", "HLT", "DCPS", "UDF", "ERET", "DRPS",
        ],
        "generates or returns from an exception",
    ),
    (
        &["MSR", "MRS", "SYS", "BRB_"],
        "system register or system instruction: the operand selects it, most need EL1",
    ),
    (
        &["HINT"],
        "hint #imm: the immediate selects the instruction (NOP, YIELD, WFE, pointer \
         authentication …); the named forms are measured instead",
    ),
    (
        &["AUT"],
        "authenticates a pointer the kernel never signed: a failed check faults (FEAT_FPAC)",
    ),
    (&["WFE", "WFI"], "waits for an event or an interrupt"),
    (
        &["GCS"],
        "guarded control stack: needs a GCS the process does not have",
    ),
];

/// The reason `form` must not run in a kernel, or `None`.
pub fn cannot_run(form: &Instr) -> Option<String> {
    if form.asm_template().contains('[') {
        return Some("accesses memory (address in [ ])".into());
    }
    if let Some(why) = by_prefix(form.name(), RULES) {
        return Some(why);
    }
    let needs = form.required_features().unwrap_or_default();
    if needs.contains("sme") && !needs.contains("sve") {
        return Some(
            "SME: runs only in streaming mode or with ZA enabled (smstart), which the \
             kernel frame does not enter yet"
                .into(),
        );
    }
    None
}
