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
    (
        &["CBO_"],
        "cache-block operation on the address in rs1 (Linux enables few of them at user level)",
    ),
    (
        &["SSAMOSWAP"],
        "shadow-stack access (Zicfiss): needs a shadow-stack page the process does not have",
    ),
    (
        &["HLV", "HSV"],
        "hypervisor virtual-machine load or store: privileged",
    ),
    (&["UNIMP", "C_UNIMP"], "defined as an illegal instruction"),
];

/// The reason `form` must not run in a kernel, or `None`. Memory forms
/// run when [`super::memory::address`] finds their base: a kernel points
/// it at the data area.
pub fn cannot_run(form: &Instr) -> Option<String> {
    match super::memory::address(form) {
        Err(why) => return Some(format!("accesses memory: {why}")),
        Ok(None) if form.asm_template().contains('(') => {
            return Some("accesses memory (address as imm(rs1))".into())
        }
        _ => {}
    }
    by_prefix(form.name(), RULES)
}
