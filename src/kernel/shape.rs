//! The two shapes of a benchmark body: a throughput body of independent
//! copies of one form (every written register fresh, read-only registers
//! shared, no register twice in one instruction, nothing aliasing a
//! register written elsewhere), and a latency body, a chain in which every
//! copy reads the register the copy before it wrote. And which forms may
//! run in a kernel at all.

use crate::arch::{reg_imm_only, EncodeError, Inst, OpValue, Target};
use crate::isa::desc::OperandKind;
use crate::isa::{Flag, Instr, McOperand, Reg};

/// Copies of the form in a throughput body when registers allow (WINIC's
/// choice: enough independent work to fill every port of current cores).
pub const COPIES: usize = 12;

/// Whether `form` writes memory (the stores' floor, and where a
/// kernel's accesses go): what the target knows of its memory operands
/// (x86: iced's access, so that `prefetchw`, which LLVM marks
/// `mayStore`, is no store), else LLVM's `mayStore`.
pub fn stores(t: &dyn Target, form: Instr) -> bool {
    t.memory_access(form)
        .map_or(form.has(Flag::MayStore), |(_, write)| write)
}

/// Why a form must not run in a kernel, as data: the summaries count
/// the variant, and the text is rendered only at the edge (the same text
/// winic has always written, so reports and databases do not change).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unrunnable {
    /// LLVM `isPseudo`.
    Pseudo,
    /// LLVM `isCodeGenOnly`.
    CodeGenOnly,
    /// A PC-relative operand.
    PcRelative,
    /// A memory operand that is no plain `[base + scale*index + disp]`
    /// (what it is instead).
    Memory(&'static str),
    /// An operand that is no register, immediate or memory reference.
    OddOperand,
    /// The target's own rule ([`crate::arch::KernelFrame::cannot_run`]).
    Target(String),
    /// Changes control flow (the LLVM flag that says so).
    ControlFlow(&'static str),
    /// Accesses memory through operands winic does not point at its data
    /// area.
    MemoryOutOfReach,
    /// Addresses memory through a register winic keeps for itself.
    ReservedBase {
        /// The register, as assembly spells it.
        reg: String,
        /// What winic keeps it for.
        why: &'static str,
    },
    /// Writes a register winic keeps for itself.
    WritesReserved {
        /// The register, as assembly spells it.
        reg: String,
        /// What winic keeps it for.
        why: &'static str,
    },
}

impl std::fmt::Display for Unrunnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unrunnable::Pseudo => f.write_str("pseudo instruction (LLVM isPseudo)"),
            Unrunnable::CodeGenOnly => f.write_str("code-generation only (LLVM isCodeGenOnly)"),
            Unrunnable::PcRelative => f.write_str("PC-relative operand"),
            Unrunnable::Memory(what) => f.write_str(what),
            Unrunnable::OddOperand => {
                f.write_str("operand that is no register, immediate or memory reference")
            }
            Unrunnable::Target(why) => f.write_str(why),
            Unrunnable::ControlFlow(flag) => write!(f, "changes control flow (LLVM {flag})"),
            Unrunnable::MemoryOutOfReach => f.write_str(
                "accesses memory through operands winic does not point at its data area \
                 (LLVM mayLoad/mayStore)",
            ),
            Unrunnable::ReservedBase { reg, why } => {
                write!(f, "addresses memory through {reg} ({why})")
            }
            Unrunnable::WritesReserved { reg, why } => write!(f, "writes {reg} ({why})"),
        }
    }
}

/// Why `form` must not run in a kernel, or `None`: LLVM's flags first,
/// then the target's own rules ([`crate::arch::KernelFrame::cannot_run`]).
pub fn skip_reason(t: &dyn Target, form: Instr) -> Option<Unrunnable> {
    if form.has(Flag::IsPseudo) {
        return Some(Unrunnable::Pseudo);
    }
    // Condition forms and branches to the next instruction the target
    // runs although LLVM's flags say otherwise.
    let anyway = t.runs_anyway(form);
    if form.has(Flag::IsCodeGenOnly) && !anyway {
        return Some(Unrunnable::CodeGenOnly);
    }
    let mc = form.mc_operands();
    if mc.iter().any(|m| m.ty.kind() == OperandKind::PcRel) && !anyway {
        // The target's reason where it has one (`loop`: taken every time;
        // `call`: changes control flow).
        return Some(
            t.cannot_run(form)
                .map_or(Unrunnable::PcRelative, Unrunnable::Target),
        );
    }
    // Gathers and scatters run (x86 VSIB: the kernel sets the vector
    // index to lanes inside the data area and resets the mask before
    // each), string operations (the loop's walk sets their pointers) and
    // x86 absolute addresses (the kernel puts them in its data area).
    if let Some(why) = mc
        .iter()
        .filter(|m| !m.ty.is_addressable_memory())
        .find_map(|m| m.ty.unplain_memory())
    {
        return Some(Unrunnable::Memory(why));
    }
    let memory = mc.iter().any(|m| m.ty.kind() == OperandKind::Mem);
    if !memory && !reg_imm_only(&form) && !anyway {
        return Some(Unrunnable::OddOperand);
    }
    let control = [
        (Flag::IsBranch, "isBranch"),
        (Flag::IsIndirectBranch, "isIndirectBranch"),
        (Flag::IsCall, "isCall"),
        (Flag::IsReturn, "isReturn"),
        (Flag::IsTerminator, "isTerminator"),
        (Flag::IsBarrier, "isBarrier"),
        (Flag::IsTrap, "isTrap"),
    ];
    if let Some(why) = t.cannot_run(form) {
        return Some(Unrunnable::Target(why));
    }
    if let Some((_, name)) = control
        .iter()
        .find(|(f, _)| form.has(*f))
        .filter(|_| !anyway)
    {
        return Some(Unrunnable::ControlFlow(name));
    }
    let inst = t.example(form).ok();
    // Memory reached through register operands (AArch64, RISC-V): the
    // target names the bases a kernel points at its data area.
    let bases = inst
        .as_ref()
        .map(|i| t.address_bases(i))
        .unwrap_or_default();
    // The registers the loop's walk keeps in place (x86 `push` and `pop`:
    // the stack pointer), through which the form reaches memory.
    let kept = Walked::of_example(t, inst.as_ref());
    if !memory
        && (form.has(Flag::MayLoad) || form.has(Flag::MayStore))
        && bases.is_empty()
        && kept.is_empty()
    {
        return Some(Unrunnable::MemoryOutOfReach);
    }
    if let Some(why) = bases.iter().find_map(|r| {
        t.reserved(*r).map(|why| Unrunnable::ReservedBase {
            reg: r.asm_name(),
            why,
        })
    }) {
        return Some(why);
    }
    let inst = inst?;
    written(&inst)
        .into_iter()
        .filter(|r| !kept.holds(t, *r))
        .find_map(|r| {
            t.reserved(r).map(|why| Unrunnable::WritesReserved {
                reg: r.asm_name(),
                why,
            })
        })
}

/// Whether machine operand `m` is written: an output, or an input tied to
/// one (two-address forms).
fn is_written(mc: &[McOperand], m: &McOperand) -> bool {
    m.operand.is_def()
        || m.operand.tied_to().is_some_and(|t| {
            mc.iter()
                .any(|o| o.operand.index() == t && o.operand.is_def())
        })
}

/// The registers the loop's walk keeps in place for a form
/// ([`crate::arch::Operands::walked`]: x86 `push`'s stack pointer, a
/// string operation's `rsi` and `rdi`): no value, no chain, no reserved
/// register the form may not touch.
#[derive(Clone, Debug, Default)]
pub struct Walked(Vec<Reg>);

impl Walked {
    /// Those of `form`'s example (none without one).
    pub fn of(t: &dyn Target, form: Instr) -> Walked {
        Walked::of_example(t, t.example(form).ok().as_ref())
    }

    /// Those of `example`, where there is one.
    pub fn of_example(t: &dyn Target, example: Option<&Inst>) -> Walked {
        Walked(example.map(|i| t.walked(i)).unwrap_or_default())
    }

    /// Whether the walk keeps `r` (or a register it overlaps).
    pub fn holds(&self, t: &dyn Target, r: Reg) -> bool {
        self.0.iter().any(|k| t.aliases(*k, r))
    }

    /// Whether the walk keeps none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The bases `inst` writes back: an output tied to an operand it
/// addresses memory through (AArch64 `ldr x1, [x0, #8]!`).
pub fn written_back(t: &dyn Target, inst: &Inst) -> Vec<Reg> {
    let bases = t.address_bases(inst);
    let mc = inst.form.mc_operands();
    mc.iter()
        .zip(&inst.ops)
        .filter_map(|(m, v)| match v {
            OpValue::Reg(r)
                if m.operand.is_def() && m.operand.tied_to().is_some() && bases.contains(r) =>
            {
                Some(*r)
            }
            _ => None,
        })
        .collect()
}

/// Registers `inst` writes, explicit and implicit.
pub fn written(inst: &Inst) -> Vec<Reg> {
    let mc = inst.form.mc_operands();
    let explicit = mc.iter().zip(&inst.ops).filter_map(|(m, v)| match v {
        OpValue::Reg(r) if is_written(&mc, m) => Some(*r),
        _ => None,
    });
    explicit.chain(inst.form.implicit_defs()).collect()
}

/// Registers `inst` names explicitly.
#[cfg(test)]
fn named(inst: &Inst) -> impl Iterator<Item = Reg> + '_ {
    inst.ops.iter().filter_map(|v| match v {
        OpValue::Reg(r) => Some(*r),
        OpValue::Imm(_) | OpValue::Mem(_) => None,
    })
}

fn implicit(form: Instr) -> Vec<Reg> {
    form.implicit_uses().chain(form.implicit_defs()).collect()
}

/// Up to `copies` independent instances of `form`: the first as
/// [`crate::arch::Operands::instance`] gives it away from the implicit
/// registers, each further one with fresh registers for everything it
/// writes and the first one's registers for everything it only reads. Stops
/// early when the registers run out: fewer copies, never a dependency.
pub fn throughput(t: &dyn Target, form: Instr, copies: usize) -> Result<Vec<Inst>, EncodeError> {
    throughput_avoiding(t, form, copies, &[])
}

/// [`throughput`] with no register operand on `avoid` (the registers of
/// another body the copies are interleaved with).
pub fn throughput_avoiding(
    t: &dyn Target,
    form: Instr,
    copies: usize,
    avoid: &[Reg],
) -> Result<Vec<Inst>, EncodeError> {
    let mut taken: Vec<Reg> = implicit(form);
    taken.extend_from_slice(avoid);
    let first = t.instance(form, &taken)?;
    if t.inst_regs(&first)
        .into_iter()
        .any(|r| avoid.iter().any(|a| t.aliases(r, *a)))
    {
        return Err(EncodeError::Unsupported(format!(
            "{}: no registers left beside the other body",
            form.name()
        )));
    }
    let mc = form.mc_operands();
    taken.extend(t.inst_regs(&first));
    let mut body = vec![first.clone()];
    // A form that writes no register operand (`cmp r32, imm`): every copy
    // is the first, nothing to keep apart.
    if !mc
        .iter()
        .any(|m| is_written(&mc, m) && m.ty.class().is_some())
    {
        body.resize(copies.max(1), first);
        return Ok(body);
    }
    while body.len() < copies {
        let Ok(mut next) = t.instance(form, &taken) else {
            break;
        };
        for (k, m) in mc.iter().enumerate() {
            if !is_written(&mc, m) && matches!(next.ops[k], OpValue::Reg(_) | OpValue::Mem(_)) {
                next.ops[k] = first.ops[k];
            }
        }
        let fresh: Vec<Reg> = (0..mc.len())
            .filter(|&k| is_written(&mc, &mc[k]))
            .flat_map(|k| t.operand_regs(&next, k))
            .collect();
        if fresh
            .iter()
            .any(|r| taken.iter().any(|u| t.aliases(*r, *u)))
        {
            break;
        }
        taken.extend(fresh);
        body.push(next);
    }
    Ok(body)
}

/// `copies` instances of `form` in which each reads what the one before
/// wrote: a written register operand and a read one on the same register
/// (a tied pair already is), never an `@earlyclobber` output (which must
/// differ from every input). `Err` when the form has no such pair.
pub fn latency(t: &dyn Target, form: Instr, copies: usize) -> Result<Vec<Inst>, EncodeError> {
    let mut inst = t.instance(form, &implicit(form))?;
    let mc = form.mc_operands();
    let tied = mc
        .iter()
        .any(|m| !m.operand.is_def() && is_written(&mc, m) && m.ty.class().is_some());
    if !tied {
        let reg = |k: usize| match inst.ops[k] {
            OpValue::Reg(r) => Some(r),
            OpValue::Imm(_) | OpValue::Mem(_) => None,
        };
        let outputs =
            (0..mc.len()).filter(|&k| mc[k].operand.is_def() && !t.early_clobber(form, k));
        // Never an address register: a loaded value as the next base or
        // index would send the next access anywhere.
        let address: Vec<Reg> = t
            .address_bases(&inst)
            .into_iter()
            .chain(t.address_offsets(&inst).into_iter().map(|(r, _)| r))
            .collect();
        let inputs = || {
            (0..mc.len()).filter(|&k| {
                !is_written(&mc, &mc[k])
                    && !t
                        .operand_regs(&inst, k)
                        .iter()
                        .any(|r| address.iter().any(|a| t.aliases(*r, *a)))
            })
        };
        // The input takes the output's register, or the register of its
        // class that overlaps it (AL for EAX); never the other way round,
        // which could move an output onto a fixed input (RISC-V's v0 mask).
        let pair = outputs
            .flat_map(|d| inputs().map(move |s| (d, s)))
            .find_map(|(d, s)| {
                let rd = reg(d)?;
                reg(s)?;
                // Same width only (a RISC-V wide pair is no chain partner
                // of a single register).
                if t.operand_regs(&inst, d).len() != t.operand_regs(&inst, s).len() {
                    return None;
                }
                let cs = mc[s].ty.class()?;
                let r = cs.members().find(|r| *r == rd).or_else(|| {
                    cs.members()
                        .find(|r| t.aliases(*r, rd) && t.reserved(*r).is_none())
                })?;
                Some((s, OpValue::Reg(r)))
            });
        let (k, v) = pair.ok_or_else(|| {
            EncodeError::Unsupported(
                "no written register operand can also be read (no explicit chain)".into(),
            )
        })?;
        inst.ops[k] = v;
    }
    Ok(vec![inst; copies.max(1)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::isa::{Arch, Isa};

    fn form(arch: Arch, name: &str) -> Instr {
        Isa::get(arch).instr(name).unwrap()
    }

    /// Every copy writes registers no other copy touches, and reads only
    /// registers no copy writes.
    fn independent(t: &dyn Target, body: &[Inst]) {
        let writes: Vec<Vec<Reg>> = body.iter().map(written).collect();
        for (i, inst) in body.iter().enumerate() {
            // Each operand once (a tied input repeats its output).
            let names: Vec<Reg> = inst
                .form
                .mc_operands()
                .iter()
                .zip(&inst.ops)
                .filter(|(m, _)| m.operand.is_def() || m.operand.tied_to().is_none())
                .filter_map(|(_, v)| match v {
                    OpValue::Reg(r) => Some(*r),
                    OpValue::Imm(_) | OpValue::Mem(_) => None,
                })
                .collect();
            for (a, ra) in names.iter().enumerate() {
                for rb in &names[a + 1..] {
                    assert!(!t.aliases(*ra, *rb), "{ra:?} twice in copy {i}: {inst:?}");
                }
            }
            for (j, other) in body.iter().enumerate().filter(|(j, _)| *j != i) {
                for w in writes[i]
                    .iter()
                    .filter(|w| !inst.form.implicit_defs().any(|d| d == **w))
                {
                    assert!(
                        !named(other).any(|r| t.aliases(r, *w)),
                        "copy {j} touches {w:?}, written by copy {i}: {body:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn throughput_bodies_are_independent_copies() {
        for (arch, name) in [
            (Arch::X86_64, "ADD64rr"),
            (Arch::X86_64, "VFMADD231PDZr"),
            (Arch::X86_64, "VPADDDYrr"),
            (Arch::X86_64, "IMUL64rri32"),
            (Arch::Aarch64, "ADDXrs"),
            (Arch::Aarch64, "FMLA_ZPmZZ_D"),
            (Arch::Riscv64, "ADD"),
            (Arch::Riscv64, "VADD_VV"),
        ] {
            let t = target(arch);
            let body = throughput(t, form(arch, name), COPIES).unwrap();
            assert_eq!(body.len(), COPIES, "{name}: registers for all copies");
            independent(t, &body);
            // Read-only operands are shared: the second source of every
            // copy of ADD64rr is one register.
            if name == "ADD64rr" {
                assert!(body.iter().all(|i| i.ops[2] == body[0].ops[2]));
            }
        }
    }

    #[test]
    fn throughput_bodies_shrink_when_registers_run_out() {
        // 32 AVX-512 registers, 3 written per copy of nothing … the
        // two-address SSE form writes one of 16 registers and reads one.
        let t = target(Arch::X86_64);
        let body = throughput(t, form(Arch::X86_64, "ADDPDrr"), 40).unwrap();
        assert!(body.len() < 40 && body.len() >= 12, "{}", body.len());
        independent(t, &body);
    }

    #[test]
    fn riscv_wide_operands_are_even_pairs_that_overlap_nothing() {
        let t = target(Arch::Riscv64);
        for (name, wide) in [("VWADD_VV", 0), ("VNSRL_WV", 1), ("VFWCVT_F_F_V", 0)] {
            let f = form(Arch::Riscv64, name);
            let body = throughput(t, f, COPIES).unwrap();
            assert!(body.len() >= 8, "{name}: {} copies", body.len());
            let mut seen: Vec<Reg> = Vec::new();
            for inst in &body {
                let OpValue::Reg(r) = inst.ops[wide] else {
                    panic!("{name}: operand {wide} is no register")
                };
                assert_eq!(r.encoding() % 2, 0, "{name}: odd wide operand {r:?}");
                assert_eq!(t.operand_regs(inst, wide).len(), 2);
                // Written registers never overlap another copy's or a
                // shared read operand's registers.
                for k in 0..inst.ops.len() {
                    if !inst.form.mc_operands()[k].operand.is_def() {
                        for r in t.operand_regs(inst, k) {
                            if !seen.contains(&r) {
                                seen.push(r);
                            }
                        }
                    }
                }
                for k in
                    (0..inst.ops.len()).filter(|&k| inst.form.mc_operands()[k].operand.is_def())
                {
                    for r in t.operand_regs(inst, k) {
                        assert!(!seen.contains(&r), "{name}: {r:?} written twice: {body:?}");
                        seen.push(r);
                    }
                }
            }
        }
        // vsext's destination must not overlap its source: no chain.
        assert!(latency(t, form(Arch::Riscv64, "VSEXT_VF2"), 4).is_err());
        // vid.v reads only the mask: no chain through v0.
        assert!(latency(t, form(Arch::Riscv64, "VID_V"), 4).is_err());
    }

    #[test]
    fn latency_bodies_chain_through_one_register() {
        for (arch, name) in [
            (Arch::X86_64, "ADD64rr"),
            (Arch::X86_64, "VADDPDYrr"),
            (Arch::X86_64, "IMUL64rri32"),
            (Arch::Aarch64, "MADDXrrr"),
            (Arch::Riscv64, "MUL"),
        ] {
            let t = target(arch);
            let body = latency(t, form(arch, name), 4).unwrap();
            let w = written(&body[0]);
            assert!(
                named(&body[1])
                    .zip(body[1].form.mc_operands())
                    .any(|(r, m)| !m.operand.is_def() && w.contains(&r)),
                "{name}: the second copy reads nothing the first wrote: {body:?}"
            );
        }
    }

    #[test]
    fn forms_that_must_not_run_say_why() {
        let cases = [
            (Arch::X86_64, "SYSCALL", "control flow"),
            (Arch::X86_64, "PUSH64r", ""),
            (Arch::X86_64, "MOVSB", ""),
            (Arch::X86_64, "POPF64", "RFLAGS from the stack"),
            (Arch::X86_64, "MOV64o64a", ""),
            (Arch::X86_64, "DIV64r", ""),
            (Arch::X86_64, "DIV64m", "divides"),
            (Arch::X86_64, "HLT", "privileged"),
            (Arch::X86_64, "CPUID", ""),
            (Arch::Aarch64, "SVC", "exception"),
            (Arch::Aarch64, "LDRXui", ""),
            (Arch::Aarch64, "GLD1D_IMM", "gather"),
            (Arch::Aarch64, "CPYFP", "memory copy"),
            (Arch::Aarch64, "AUTIA", "authenticates"),
            (Arch::Aarch64, "ADDXrs", ""),
            (Arch::Riscv64, "LD", ""),
            (Arch::Riscv64, "AMOADD_D", ""),
            (Arch::Riscv64, "C_LDSP", "through x2 (stack pointer"),
            (Arch::Riscv64, "VLUXEI32_V", "indexed"),
            (Arch::Riscv64, "CM_PUSH", "memory"),
            (Arch::Riscv64, "ECALL", "trap"),
            (Arch::Riscv64, "C_ADDI16SP", "stack pointer"),
            (Arch::Riscv64, "VADD_VV", ""),
        ];
        for (arch, name, want) in cases {
            let got = skip_reason(target(arch), form(arch, name)).map(|u| u.to_string());
            match (want, &got) {
                ("", None) => {}
                ("", Some(why)) => panic!("{name} is skipped: {why}"),
                (w, Some(why)) => assert!(why.contains(w), "{name}: {why}"),
                (w, None) => panic!("{name} runs, expected a reason with `{w}`"),
            }
        }
    }
}
