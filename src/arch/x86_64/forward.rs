//! Latency through memory on x86-64: which forms write memory a chain can
//! follow (stores and read-modify-write forms with one plain memory
//! operand), and the load that reads a store's bytes back into a register
//! of its data operand's class (store-to-load forwarding).
//!
//! Both are chosen from LLVM's records and iced's tables, not listed: a
//! form writes memory when iced's instruction info says its one memory
//! operand (plain, of a known size) is written (LLVM leaves `mayStore`
//! unset on most x86 records, inferring it from patterns); a reload is a
//! plain move
//! (`mov`, `movups`, `vmovdqu64`, `kmovq` …) with two operands, the
//! register written and the memory read, of the same encoding (legacy,
//! VEX or EVEX) as the store, so that no SSE/AVX transition enters the
//! chain.

use super::{build, example_of, plan_of, OperandKind};
use crate::isa::{Flag, Instr};
use iced_x86::{InstructionInfoFactory, Mnemonic as M, OpAccess};

/// How `form`'s example accesses memory, by iced's instruction info: the
/// access of each memory it uses (a string operation's `[rsi]` and
/// `es:[rdi]`, a push's stack beside its operand), or `None`.
fn accesses(form: Instr) -> Option<Vec<OpAccess>> {
    let plan = plan_of(&form).ok()?;
    let inst = example_of(form, &[]).ok()?;
    let instruction = build(plan, &inst).ok()?;
    let mut factory = InstructionInfoFactory::new();
    let info = factory.info(&instruction);
    Some(info.used_memory().iter().map(|u| u.access()).collect())
}

/// The access of `form`'s one memory, or `None`.
fn access(form: Instr) -> Option<OpAccess> {
    match accesses(form)?[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// Whether `form` reads and whether it writes the memory its memory
/// operands name (see [`crate::arch::Operands::memory_access`]), over
/// all it uses: `movsq` reads `[rsi]` and writes `es:[rdi]`, `push [m]`
/// reads `[m]` and writes the stack; `lea`'s is neither.
pub fn memory_access(form: Instr) -> Option<(bool, bool)> {
    let mc = form.mc_operands();
    if !mc.iter().any(|m| m.ty.kind() == OperandKind::Mem) {
        return None;
    }
    let each = |a: &OpAccess| match a {
        OpAccess::Read | OpAccess::CondRead => (true, false),
        OpAccess::Write | OpAccess::CondWrite => (false, true),
        OpAccess::ReadWrite | OpAccess::ReadCondWrite => (true, true),
        _ => (false, false),
    };
    let all = accesses(form).unwrap_or_default();
    Some(
        all.iter()
            .map(each)
            .fold((false, false), |(r, w), (a, b)| (r || a, w || b)),
    )
}

/// The machine operand of the memory `form` writes (see the module
/// comment), or `None`.
pub fn written_memory(form: Instr) -> Option<usize> {
    if form.has(Flag::IsBranch) || form.has(Flag::IsCall) {
        return None;
    }
    // Pushes and pops write the stack, not (only) the memory they name.
    let stack = |r: crate::isa::Reg| r.name().ends_with("SP");
    if form.implicit_uses().chain(form.implicit_defs()).any(stack) {
        return None;
    }
    let mc = form.mc_operands();
    let memory: Vec<usize> = (0..mc.len())
        .filter(|&k| mc[k].ty.kind() == OperandKind::Mem)
        .collect();
    let [k] = memory[..] else {
        return None;
    };
    let ty = mc[k].ty;
    let sized = matches!(
        ty.memory_size(),
        Some("byte" | "word" | "dword" | "qword" | "xmmword" | "ymmword" | "zmmword")
    );
    let written = matches!(access(form), Some(OpAccess::Write | OpAccess::ReadWrite));
    (written && ty.is_plain_memory() && sized && plan_of(&form).is_ok_and(|p| p.mask.is_none()))
        .then_some(k)
}

/// Whether the memory `form` writes is computed from what it reads there
/// (see [`crate::arch::Operands::rewrites_memory`]).
pub fn rewrites_memory(form: Instr) -> bool {
    written_memory(form).is_some()
        && access(form) == Some(OpAccess::ReadWrite)
        && plan_of(&form).is_ok_and(|p| p.code.mnemonic() != M::Xchg)
}

/// Whether iced's `m` is a plain move: what it writes is the bytes it
/// reads, whole (no merge into a wider register's other bits through a
/// second source, no conversion, no broadcast).
pub fn is_plain_move(m: M) -> bool {
    matches!(
        m,
        M::Mov
            | M::Movq
            | M::Movd
            | M::Movaps
            | M::Movapd
            | M::Movups
            | M::Movupd
            | M::Movdqa
            | M::Movdqu
            | M::Movsd
            | M::Movss
            | M::Vmovaps
            | M::Vmovapd
            | M::Vmovups
            | M::Vmovupd
            | M::Vmovdqa
            | M::Vmovdqu
            | M::Vmovdqa32
            | M::Vmovdqa64
            | M::Vmovdqu8
            | M::Vmovdqu16
            | M::Vmovdqu32
            | M::Vmovdqu64
            | M::Vmovq
            | M::Vmovd
            | M::Vmovsd
            | M::Vmovss
            | M::Vmovsh
            | M::Vmovw
            | M::Kmovb
            | M::Kmovw
            | M::Kmovd
            | M::Kmovq
    )
}

/// Whether two register classes hold the same registers: LLVM's scalar
/// `FR64` (`movsd [m], xmm`'s data) and `VR128` (`movsd xmm, [m]`'s
/// result) are both XMM0-XMM15.
fn same_registers(a: crate::isa::RegClass, b: crate::isa::RegClass) -> bool {
    a.name() == b.name() || a.members().eq(b.members())
}

/// Whether each register of `inner` is part of one of `outer`'s: `VR128X`
/// (xmm0-xmm31) in `VR512` (zmm0-zmm31). A load into the part writes the
/// register a store of `outer` reads next (VEX and EVEX clear the rest;
/// a legacy load merges into it, which keeps the dependency too).
fn within(inner: crate::isa::RegClass, outer: crate::isa::RegClass) -> bool {
    inner
        .members()
        .all(|r| outer.members().any(|o| o.contains(r)))
}

/// The load that reads back what `form` writes from its data operand `k`
/// into a register of `k`'s class, or of a class whose registers are
/// parts of them where the store writes fewer bytes than the register
/// holds (`vextracti128 [m], ymm` and `vpmovdb [m], zmm` back into an
/// xmm): `(reload, its memory operand, its result operand)`. Of the loads
/// `runs` accepts (the host runs them), a reload into the same class
/// first, then one whose mnemonic matches the store's (`vmovapd` after
/// `vmovapd`), else the first plain move in LLVM's order. `None` when no
/// load reads those bytes back into that class (`pextrb [m], xmm`: one
/// byte into an xmm register is a merge).
pub fn reload(
    form: Instr,
    k: usize,
    runs: &dyn Fn(Instr) -> bool,
) -> Option<(Instr, usize, usize)> {
    let mc = form.mc_operands();
    let class = mc.get(k)?.ty.class()?;
    let size = mc[written_memory(form)?].ty.memory_size()?;
    let store = plan_of(&form).ok()?;
    // The rank of a fitting load, lowest best.
    let mut best: Option<((bool, bool), Instr, usize, usize)> = None;
    for f in form.isa().real_instrs() {
        if f.has(Flag::HasSideEffects)
            || f.implicit_uses().next().is_some()
            || f.implicit_defs().next().is_some()
        {
            continue;
        }
        // The memory operand and the result.
        let fm = f.mc_operands();
        if fm.len() != 2 {
            continue;
        }
        let Some(r) = (0..fm.len()).find(|&j| fm[j].operand.is_def()) else {
            continue;
        };
        let Some(m) = (0..fm.len()).find(|&j| fm[j].ty.kind() == OperandKind::Mem) else {
            continue;
        };
        let Some(result) = fm[r].ty.class() else {
            continue;
        };
        let same = same_registers(result, class);
        let fits = (same || within(result, class))
            && fm[m].ty.is_plain_memory()
            && fm[m].ty.memory_size() == Some(size);
        let Ok(plan) = plan_of(&f) else {
            continue;
        };
        if !fits
            || access(f) != Some(OpAccess::Read)
            || plan.mask.is_some()
            || plan.broadcast
            || !is_plain_move(plan.code.mnemonic())
            || plan.code.encoding() != store.code.encoding()
            || !runs(f)
        {
            continue;
        }
        let rank = (!same, plan.code.mnemonic() != store.code.mnemonic());
        if best.as_ref().is_none_or(|(o, ..)| rank < *o) {
            best = Some((rank, f, m, r));
        }
    }
    best.map(|(_, f, m, r)| (f, m, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Arch, Isa};

    fn form(name: &str) -> Instr {
        Isa::get(Arch::X86_64).instr(name).unwrap()
    }

    #[test]
    fn stores_and_read_modify_writes_write_memory() {
        assert_eq!(written_memory(form("MOV64mr")), Some(0));
        assert_eq!(written_memory(form("ADD64mr")), Some(0));
        assert_eq!(written_memory(form("VMOVUPDZmr")), Some(0));
        // A load, a masked store and a scatter do not.
        assert_eq!(written_memory(form("MOV64rm")), None);
        assert_eq!(written_memory(form("VMOVUPDZmrk")), None);
        assert_eq!(written_memory(form("VPSCATTERDDZmr")), None);
        // Over every memory a form uses: a string operation's two, a
        // push's operand and the stack.
        assert_eq!(memory_access(form("MOVSQ")), Some((true, true)));
        assert_eq!(memory_access(form("LODSB")), Some((true, false)));
        assert_eq!(memory_access(form("STOSB")), Some((false, true)));
        assert_eq!(memory_access(form("CMPSB")), Some((true, false)));
        assert_eq!(memory_access(form("PUSH64rmm")), Some((true, true)));
        assert_eq!(memory_access(form("LEA64r")), Some((false, false)));
        assert_eq!(written_memory(form("MOVSQ")), None);
        assert!(rewrites_memory(form("ADD64mr")));
        assert!(!rewrites_memory(form("MOV64mr")));
        assert!(!rewrites_memory(form("XCHG64rm")));
    }

    #[test]
    fn a_reload_reads_the_stored_bytes_into_the_data_class() {
        let name =
            |store: &str, k: usize| reload(form(store), k, &|_| true).map(|(f, ..)| f.name());
        assert_eq!(name("MOV64mr", 1), Some("MOV64rm"));
        assert_eq!(name("MOV32mr", 1), Some("MOV32rm"));
        assert_eq!(name("VMOVAPDZmr", 1), Some("VMOVAPDZrm"));
        assert_eq!(name("VMOVUPSYmr", 1), Some("VMOVUPSYrm"));
        // Legacy SSE stays legacy.
        let sse = name("MOVUPDmr", 1).unwrap();
        assert!(sse.starts_with("MOV") && !sse.starts_with("V"), "{sse}");
        // One byte into an xmm register is no plain move.
        assert_eq!(name("PEXTRBmr", 1), None);
        // A scalar's class (FR64) holds the registers of the load's
        // (VR128).
        assert_eq!(name("MOVSDmr", 1), Some("MOVSDrm"));
        assert_eq!(name("VMOVSSmr", 1), Some("VMOVSSrm"));
        // Fewer bytes than the register holds: back into its xmm part,
        // by a load of the store's encoding.
        let part = name("VEXTRACTI128mr", 1).unwrap();
        assert!(part.starts_with("VMOV") && !part.contains('Z'), "{part}");
        let evex = name("VPMOVDBZmr", 1).unwrap();
        assert!(
            evex.starts_with("VMOV") && evex.ends_with("Z128rm"),
            "{evex}"
        );
        assert!(name("VEXTRACTF64x4Zmr", 1).is_some_and(|n| n.ends_with("Z256rm")));
        // Two bytes into an xmm: only AVX512-FP16's `vmovsh` and `vmovw`,
        // and only where the host runs them.
        let fp16 = |f: Instr| f.required_features().is_some_and(|c| c.contains("fp16"));
        assert!(reload(form("VPEXTRWZmr"), 1, &|_| true).is_some_and(|(f, ..)| fp16(f)));
        assert!(reload(form("VPEXTRWZmr"), 1, &|f| !fp16(f)).is_none());
    }
}
