//! Store-to-load chains on the arches whose address is a base register and
//! an offset (AArch64 `str x0, [x1, #8]`, RISC-V `sd a0, 8(a1)`): which
//! stores a latency chain can follow through memory, and the load that
//! reads their bytes back.
//!
//! The load is the store's LLVM record with its name's store turned into
//! a load (`STRXui` → `LDRXui`, `STURQi` → `LDURQi`, `SD` → `LD`, `FSW` →
//! `FLW`, `VSE64_V` → `VLE64_V`), and it must have the store's operands:
//! the same types in the same places, each register the load writes read
//! by the store, the address's base and register offsets read by both. So the
//! pair accesses the same bytes (the same size, the same offset kind: a
//! chain puts both at the linked block, every base at the data area) and
//! the load puts them back into the register file they came from. No list
//! of pairs: a store without such a twin (`stlr`, `stxr`, which returns a
//! status) has no chain through memory.

use super::Target;
use crate::isa::{Flag, Instr, Isa};

/// The load twin of store `form` (the name `load_name` gives, with the
/// store's operands as the module comment says) and the base operand both
/// share; `None` otherwise.
fn twin(
    t: &dyn Target,
    form: Instr,
    load_name: fn(&str) -> Option<String>,
) -> Option<(Instr, usize)> {
    // LLVM leaves `mayStore` and `mayLoad` off some records (`stur`,
    // `ldur`): the operands decide, not the flags.
    if form.has(Flag::MayLoad) || form.has(Flag::HasSideEffects) {
        return None;
    }
    let base = t.base_operand(form)?;
    let load = Isa::get(form.isa().arch()).instr(&load_name(form.name())?)?;
    if load.has(Flag::MayStore) || t.base_operand(load) != Some(base) {
        return None;
    }
    let (s, l) = (form.mc_operands(), load.mc_operands());
    // Register offsets are read by both, like the base.
    let alike = s.len() == l.len()
        && s.iter().zip(&l).enumerate().all(|(k, (a, b))| {
            let stored = k != base && a.ty.class().is_some();
            same_type(a.ty, b.ty)
                && !a.operand.is_def()
                && (!b.operand.is_def() || stored)
                && a.operand.tied_to().is_none()
                && b.operand.tied_to().is_none()
        });
    (alike && l.iter().any(|b| b.operand.is_def())).then_some((load, base))
}

/// Whether two operand types are one: the same name, or register classes
/// of one width that share a register (AArch64's `GPR32z`, which holds
/// the zero register, and `GPR32`, which holds the stack pointer).
fn same_type(a: crate::isa::OperandType, b: crate::isa::OperandType) -> bool {
    match (a.class(), b.class()) {
        (Some(x), Some(y)) => x.bits() == y.bits() && x.members().any(|r| y.contains(r)),
        _ => a.name() == b.name(),
    }
}

/// The base operand of a store a chain can follow through memory: one
/// with a load twin ([`reload`]).
pub fn written_memory(
    t: &dyn Target,
    form: Instr,
    load_name: fn(&str) -> Option<String>,
) -> Option<usize> {
    twin(t, form, load_name).map(|(_, base)| base)
}

/// The load that reads back what store `form` writes from its data
/// operand `k`: `(load, its base operand, its result operand k)`, when
/// `runs` accepts the load (the host runs it).
pub fn reload(
    t: &dyn Target,
    form: Instr,
    k: usize,
    load_name: fn(&str) -> Option<String>,
    runs: &dyn Fn(Instr) -> bool,
) -> Option<(Instr, usize, usize)> {
    let (load, base) = twin(t, form, load_name)?;
    let mc = load.mc_operands();
    mc.get(k)
        .filter(|m| m.operand.is_def() && runs(load))
        .map(|_| (load, base, k))
}

#[cfg(test)]
mod tests {
    use crate::isa::{Arch, Isa};

    fn reload_of(arch: Arch, store: &str, k: usize) -> Option<String> {
        let t = crate::arch::target(arch);
        let form = Isa::get(arch).instr(store).unwrap();
        t.written_memory(form)?;
        t.reload(form, k, &|_| true)
            .map(|(l, _, r)| format!("{} {r}", l.name()))
    }

    #[test]
    fn a_store_is_read_back_by_its_load_twin() {
        let a = Arch::Aarch64;
        assert_eq!(reload_of(a, "STRXui", 0).as_deref(), Some("LDRXui 0"));
        // Without mayStore in the records; with the zero register.
        assert_eq!(reload_of(a, "STURXi", 0).as_deref(), Some("LDURXi 0"));
        assert_eq!(reload_of(a, "STRBBui", 0).as_deref(), Some("LDRBBui 0"));
        assert_eq!(reload_of(a, "STRDroX", 0).as_deref(), Some("LDRDroX 0"));
        assert_eq!(reload_of(a, "STPXi", 1).as_deref(), Some("LDPXi 1"));
        // The address is no stored value; a release store and an
        // exclusive one (a status result) have no twin, a writeback
        // store no fixed base.
        assert_eq!(reload_of(a, "STRXui", 1), None);
        assert_eq!(reload_of(a, "STLRX", 0), None);
        assert_eq!(reload_of(a, "STXRX", 1), None);
        assert_eq!(reload_of(a, "STRXpost", 1), None);
        let r = Arch::Riscv64;
        assert_eq!(reload_of(r, "SD", 0).as_deref(), Some("LD 0"));
        assert_eq!(reload_of(r, "SB", 0).as_deref(), Some("LB 0"));
        assert_eq!(reload_of(r, "FSD", 0).as_deref(), Some("FLD 0"));
        // A load names no load twin.
        assert_eq!(reload_of(r, "LD", 0), None);
        assert_eq!(reload_of(a, "LDRXui", 0), None);
    }
}
