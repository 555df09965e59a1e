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
            "SVC", "HVC", "SMC", "BRK$", "HLT", "DCPS", "UDF", "ERET", "DRPS",
        ],
        "generates or returns from an exception",
    ),
    (
        &["MSR", "MRS", "MRRS", "SYS", "BRB_"],
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

/// Memory forms that must not run although their address is understood.
const MEMORY_RULES: &PrefixRules = &[
    (
        &["LDRAA", "LDRAB"],
        "authenticates its base, a pointer the kernel never signed: a failed check faults \
         (FEAT_FPAC) or corrupts the address",
    ),
    (
        &["LD64B", "ST64B"],
        "single-copy atomic 64-byte access: needs device memory, faults on the data area",
    ),
    (
        &["LDGM", "STGM", "STZGM"],
        "bulk allocation-tag access: undefined at EL0",
    ),
];

/// The reason `form` must not run in a kernel, or `None`. Memory forms
/// run when [`super::memory::address`] understands their address: a
/// kernel points the base at the data area.
pub fn cannot_run(form: &Instr) -> Option<String> {
    if form.required_features().is_some_and(|c| {
        c.split(|ch: char| !ch.is_ascii_alphanumeric())
            .any(|f| f == "mops")
    }) {
        return Some(
            "memory copy or set (FEAT_MOPS): sizes and addresses in registers it updates".into(),
        );
    }
    match super::memory::address(form) {
        Err(why) => return Some(format!("accesses memory: {why}")),
        Ok(Some(_)) => {
            if let Some(why) = by_prefix(form.name(), MEMORY_RULES) {
                return Some(why);
            }
        }
        Ok(None) => {}
    }
    by_prefix(form.name(), RULES)
}

/// Whether an assembly template has an address: a `[` that starts an
/// operand (`ldr $Rt, [$Rn]`), not one that indexes the operand before it
/// (SME's ZA slices `$ZAd[$Rv, $imm3, vgx2]`, `$Pm.$Ty[$Rv, $imm]`). SVE's
/// `adr $Zd, [$Zn, $Zm]` writes the addresses it computes and accesses
/// nothing (LLVM leaves its mayLoad/mayStore unset, as for real loads).
pub(super) fn addresses_memory(template: &str) -> bool {
    if template.split_whitespace().next() == Some("adr") {
        return false;
    }
    let t = template.as_bytes();
    (1..t.len()).any(|k| t[k] == b'[' && matches!(t[k - 1], b' ' | b'\t' | b','))
}

#[cfg(test)]
mod tests {
    use super::addresses_memory;

    #[test]
    fn brackets_of_addresses_and_of_za_slices_are_told_apart() {
        assert!(addresses_memory("ldr\t$Rt, [$Rn, $offset]"));
        assert!(addresses_memory(
            "ld1w\t{$ZAt[$Rv, $imm]}, $Pg/z, [$Rn, $Rm, lsl #2]"
        ));
        assert!(!addresses_memory("add\t$ZAd[$Rv, $imm3, vgx2], $Zn, $Zm"));
        assert!(!addresses_memory("psel\t$Pd, $Pn, $Pm.$Ty[$Rv, $imm]"));
        assert!(!addresses_memory("add\t$Rd, $Rn, $Rm"));
        assert!(!addresses_memory("adr\t$Zd, [$Zn, $Zm]"));
        assert!(addresses_memory("prfb\t$prfop, $Pg, [$Zn, $imm5]"));
        assert!(addresses_memory("ld1d\t$Zt, $Pg/z, [$Zn, $imm5]"));
    }

    /// The exception-generating forms, by exact name where a prefix would
    /// catch others: SVE's BRKA/BRKB/BRKN/BRKP* (predicate breaks) run;
    /// WINIC measures them on Neoverse V2.
    #[test]
    fn breakpoint_is_skipped_and_predicate_breaks_are_not() {
        use crate::isa::{Arch, Isa};
        let f = |n: &str| super::cannot_run(&Isa::get(Arch::Aarch64).instr(n).unwrap());
        assert!(f("BRK").unwrap().contains("exception"));
        assert!(f("SVC").unwrap().contains("exception"));
        assert!(f("DCPS1").unwrap().contains("exception"));
        for n in [
            "BRKA_PPzP",
            "BRKB_PPmP",
            "BRKN_PPzP",
            "BRKPA_PPzPP",
            "BRKAS_PPzP",
        ] {
            assert_eq!(f(n), None, "{n}");
        }
        assert_eq!(f("ADR_LSL_ZZZ_D_2"), None);
    }
}
