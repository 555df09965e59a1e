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
    (
        &["VCLMUL"],
        "Zvbc is defined only at SEW 64; the kernel runs at e32, m1 (kernels per SEW and LMUL \
         are not built yet)",
    ),
    (
        &["VFWCVTBF16", "VFNCVTBF16", "VFWMACCBF16"],
        "BF16 conversions are defined only at SEW 16; the kernel runs at e32, m1 (kernels per \
         SEW and LMUL are not built yet)",
    ),
    (
        &["VSEXT_VF8", "VZEXT_VF8"],
        "reserved at the kernel's e32 (a 4-bit source); needs e64, a vector state the frame \
         does not set yet",
    ),
];

/// The reason `form` must not run in a kernel, or `None`.
pub fn cannot_run(form: &Instr) -> Option<String> {
    if form.asm_template().contains('(') {
        return Some("accesses memory (address as imm(rs1))".into());
    }
    by_prefix(form.name(), RULES).or_else(|| element_group_too_wide(form))
}

/// Zvksh (SM3) works on element groups of 256 bits: it needs VLEN × LMUL
/// ≥ 256, and the kernel runs at m1. Decided with this host's VLEN; on
/// another host the kernel is only written.
fn element_group_too_wide(form: &Instr) -> Option<String> {
    let vlen = super::host::detected()?.1?;
    (form.name().starts_with("VSM3") && vlen < 256).then(|| {
        format!(
            "Zvksh needs VLEN x LMUL >= 256 bits (element groups of 8 x 32 bits); the kernel \
             runs at m1 and VLEN is {vlen} bits here"
        )
    })
}
