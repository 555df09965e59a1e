//! Which encodable RISC-V forms a user-mode kernel must not run: memory
//! forms by their address syntax `imm(rs1)`, privileged and trapping ones
//! by their record names.

use crate::arch::{by_prefix, PrefixRules};
use crate::isa::Instr;

/// Record-name prefixes and why forms starting with them do not run.
const RULES: &PrefixRules = &[
    (
        &[
            "ECALL", "EBREAK", "C_EBREAK", "SRET", "MRET", "DRET", "MNRET",
        ],
        "traps or returns from a trap",
    ),
    (
        &["SFENCE", "HFENCE", "HINVAL", "SINVAL", "WFI"],
        "privileged (supervisor or hypervisor)",
    ),
    (&["WRS_"], "waits on a reservation set"),
    (
        &["CSRR"],
        "accesses a CSR chosen by an operand: most CSRs need a higher privilege level",
    ),
    (&["CBO_"], "cache-block operation on the address in rs1"),
    (&["UNIMP", "C_UNIMP"], "defined as an illegal instruction"),
];

/// The reason `form` must not run in a kernel, or `None`.
pub fn cannot_run(form: &Instr) -> Option<String> {
    if form.asm_template().contains('(') {
        return Some("accesses memory (address as imm(rs1))".into());
    }
    by_prefix(form.name(), RULES)
}
