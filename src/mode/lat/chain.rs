//! Sub-latencies of a form and the chains that measure them.
//!
//! A sub-latency is an [`Edge`]: from a register the form reads (an
//! explicit operand or an implicit register) to one it writes. A chain is
//! a cycle of edges, `steps`, laid out `laps` times in one body: each step
//! reads, on its edge's source, the register the step before it wrote on
//! its edge's target, and the last step feeds the first step of the next
//! lap. Everything else gets registers of its own, fresh in every lap, so
//! the time of one lap is the sum of the cycle's sub-latencies.
//!
//! [`chain`] builds the body and checks it: every intended link really
//! is one (nothing in between overwrites the register), and every other
//! read either has no writer in the body, reads a register only the same
//! step of another lap writes (two laps or more away: a dependency as
//! long as the whole body, which a cycle of one lap outruns), or reads
//! from an instruction that depends on nothing. Anything else is a second
//! path through the body: then the measured time is only an upper bound
//! of the cycle, and [`Chain::bound`] says why.

use crate::arch::{Inst, OpValue, Target};
use crate::isa::{Instr, RegClass};
use crate::isa::{McOperand, Reg};

/// Where a sub-latency starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Machine operand `k` (see [`Instr::mc_operands`]).
    Op(usize),
    /// An implicit register.
    Implicit(Reg),
    /// The memory that memory operand `k` (a machine operand index)
    /// addresses: what a store writes and the load after it reads
    /// ([`crate::arch::Operands::written_memory`]).
    Memory(usize),
}

/// One sub-latency of a form: from `source` (read) to `target` (written).
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// The form.
    pub form: Instr,
    /// What it reads.
    pub source: End,
    /// What it writes.
    pub target: End,
}

impl PartialEq for Edge {
    fn eq(&self, o: &Edge) -> bool {
        self.form.opcode() == o.form.opcode() && self.source == o.source && self.target == o.target
    }
}

impl Edge {
    /// WINIC's names of the two ends: an operand's number
    /// ([`crate::db::operand_key`]) or an implicit register's LLVM name.
    pub fn keys(&self) -> (String, String) {
        let key = |e: End| match e {
            End::Op(k) | End::Memory(k) => crate::db::operand_key(self.form, k),
            End::Implicit(r) => r.name().to_string(),
        };
        (key(self.source), key(self.target))
    }

    /// As the report writes it: `ADD64rr(1 -> 0)`.
    pub fn label(&self) -> String {
        let (s, d) = self.keys();
        format!("{}({s} -> {d})", self.form.name())
    }
}

/// Whether `reg` is a flags register: written and read as a whole by
/// compares and conditional forms, never initialised.
pub fn is_flags(reg: Reg) -> bool {
    crate::db::is_flags_key(reg.name())
}

/// Whether implicit register `reg` can carry a chain: the flags, or a data
/// register the kernel frame initialises (x86's RAX of `mul`). Control and
/// status registers (MXCSR, FPCR, VL …) cannot.
pub fn chainable(t: &dyn Target, reg: Reg) -> bool {
    is_flags(reg) || (t.reserved(reg).is_none() && t.init(reg).is_ok())
}

/// The class of operand `k`'s register: its class, or a memory operand's
/// base class (a chain through an address puts the register on the base).
fn class_of(form: Instr, k: usize) -> Option<RegClass> {
    let ty = form.mc_operands().get(k)?.ty;
    ty.class().or_else(|| ty.address_class())
}

/// Machine operands that name the same register as `k` (tied to it, or it
/// to them), `k` included. Only register machine operands: the
/// sub-operands of a complex operand share its index (AArch64's shifted
/// `Rm` and its shift amount).
pub fn tied_group(mc: &[McOperand], k: usize) -> Vec<usize> {
    let idx = mc[k].operand.index();
    let root = mc[k].operand.tied_to().unwrap_or(idx);
    (0..mc.len())
        .filter(|&j| {
            let o = mc[j].operand;
            j == k
                || (mc[j].ty.class().is_some() && (o.index() == root || o.tied_to() == Some(root)))
        })
        .collect()
}

/// The sub-latencies of `form`, and the implicit registers left out
/// because they cannot carry a chain.
pub fn edges(t: &dyn Target, form: Instr) -> (Vec<Edge>, Vec<Reg>) {
    let mc = form.mc_operands();
    let mut left_out = Vec::new();
    // The pointers the loop's walk sets again every iteration (a string
    // operation's `rsi`, `push`'s stack pointer) carry no chain either.
    let walked = crate::kernel::shape::Walked::of(t, form);
    let mut keep = |r: Reg| {
        let ok = chainable(t, r) && !walked.holds(t, r);
        if !ok && !left_out.contains(&r) {
            left_out.push(r);
        }
        ok
    };
    // A register a form addresses memory through carries no chain: a
    // result written into it would send the next access anywhere (and a
    // writeback result, its base again, is no chain's end either).
    let example = t.example(form).ok();
    let address = |k: usize| {
        example.as_ref().is_some_and(|i| {
            let offsets = t.address_offsets(i);
            t.operand_regs(i, k)
                .iter()
                .any(|r| t.address_bases(i).contains(r) || offsets.iter().any(|(o, _)| o == r))
        })
    };
    let mut sources: Vec<End> = (0..mc.len())
        .filter(|&k| {
            !mc[k].operand.is_def()
                && ((mc[k].ty.class().is_some() && !address(k))
                    || t.address_source(form, k)
                    || neutral_source(t, form, k))
        })
        .map(End::Op)
        .collect();
    sources.extend(form.implicit_uses().filter(|r| keep(*r)).map(End::Implicit));
    let mut targets: Vec<End> = (0..mc.len())
        .filter(|&k| mc[k].operand.is_def() && mc[k].ty.class().is_some() && !address(k))
        .map(End::Op)
        .collect();
    targets.extend(form.implicit_defs().filter(|r| keep(*r)).map(End::Implicit));
    // Through the memory the form writes: from each register it stores
    // (not its address), and from that memory itself where it reads it
    // too (a read-modify-write).
    if let Some(m) = t.written_memory(form) {
        if t.rewrites_memory(form) {
            sources.push(End::Memory(m));
        }
        targets.push(End::Memory(m));
    }
    // A gather's kernels set its mask and zero its destination before
    // each ([`crate::arch::Operands::resets`]), which breaks every path
    // but two: the neutral chase from its base into the gathered vector
    // (not into the mask it clears), and the merge, the destination's
    // old value into the new (a chain of copies, which keeps the
    // destination it runs through: gcc's loops gather into last
    // iteration's register).
    let gather = form.has_vector_index();
    let mut out = Vec::new();
    for &target in &targets {
        for &source in &sources {
            // Memory is reached from memory and from stored registers
            // only, and leads only to itself.
            let stored = matches!(source, End::Op(k) if mc[k].ty.class().is_some());
            match (source, target) {
                (End::Memory(_), End::Memory(_)) => {}
                (End::Memory(_), _) => continue,
                (_, End::Memory(_)) if !stored => continue,
                _ => {}
            }
            let e = Edge {
                form,
                source,
                target,
            };
            if gather && !(merged(&e) || neutral_chase(t, &e) && !into_gathers_mask(&e)) {
                continue;
            }
            // A tied input and an earlier source with the same key (never
            // in LLVM's records, but cheap to rule out).
            if !out.iter().any(|o: &Edge| o.keys() == e.keys()) {
                out.push(e);
            }
        }
    }
    (out, left_out)
}

/// Whether memory operand `k` of `form` starts a neutral chase: a chain
/// from the address of a load whose result is not the address it read
/// (`add rax, [m]`, `movzx eax, byte [m]`, `vaddpd zmm, zmm, [m]`). Its
/// result comes back to the base through the target's
/// [`crate::arch::Operands::neutral_back`], cleared and added, so the
/// base keeps its address whatever was loaded. Forms that read their
/// memory and do not write it; and, where the target knows what a form
/// does to memory ([`Target::memory_access`]: x86), forms that read and
/// write it and also write a register (`xadd`, `xchg`): their store is a
/// second path through memory, which [`neutralise`] moves out of the way
/// by giving each lap a line of its own ([`crate::kernel::data::REWRITE_CHASE`]).
pub fn neutral_source(t: &dyn Target, form: Instr, k: usize) -> bool {
    let address = || {
        form.mc_operands().get(k).is_some_and(|m| {
            !m.operand.is_def()
                && (m.ty.is_plain_memory()
                    || m.ty.is_vector_indexed()
                    || t.base_operand(form) == Some(k))
        })
    };
    // What the form does to memory: the target's word where it knows
    // (iced on x86: LLVM leaves mayStore off `mov [m], r64`), else LLVM's.
    let loads_only = || {
        t.memory_access(form).unwrap_or((
            form.has(crate::isa::Flag::MayLoad),
            form.has(crate::isa::Flag::MayStore),
        )) == (true, false)
    };
    // Cheapest first: this is asked of every edge, several times.
    address()
        && t.neutral_back().is_some()
        && !t.address_source(form, k)
        && (loads_only() || rewrites_into_register(t, form))
}

/// Whether `form` reads and writes its memory, as the target knows it,
/// and writes a register operand too (x86 `xadd [m], r`, `xchg [m], r`):
/// a neutral chase through it needs a line a lap ([`neutralise`]).
pub fn rewrites_into_register(t: &dyn Target, form: Instr) -> bool {
    t.memory_access(form) == Some((true, true))
        && form
            .mc_operands()
            .iter()
            .any(|m| m.operand.is_def() && m.ty.class().is_some())
}

/// Whether `e` ends in the mask a gather writes back (LLVM's `mask_wb`:
/// the gather clears it as it completes).
fn into_gathers_mask(e: &Edge) -> bool {
    matches!(e.target, End::Op(d) if e.form.mc_operands().get(d).is_some_and(|m| m.name == "mask_wb"))
}

/// Whether `e` runs from a tied input into the register it is tied to
/// (a gather's old destination into the new, the lanes it merges).
fn merged(e: &Edge) -> bool {
    let (End::Op(s), End::Op(d)) = (e.source, e.target) else {
        return false;
    };
    let mc = e.form.mc_operands();
    s != d && tied_group(&mc, s).contains(&d) && mc[d].name != "mask_wb"
}

/// Whether `e` runs from the address of a load through a neutral chase
/// ([`neutral_source`]).
pub fn neutral_chase(t: &dyn Target, e: &Edge) -> bool {
    matches!(e.source, End::Op(k) if neutral_source(t, e.form, k))
}

/// The register both ends of `e` can be put on, so that copies of the form
/// alone make a chain: `None` when there is none (different register
/// files or widths, different fixed registers, or an `@earlyclobber`
/// target that must differ from every input). Never for a neutral chase:
/// a result written into the base would send the next access anywhere.
pub fn self_chain_possible(t: &dyn Target, e: &Edge) -> bool {
    if neutral_chase(t, e) {
        return false;
    }
    match (e.source, e.target) {
        (End::Op(s), End::Op(d)) => {
            // A tied input is its target's register whatever the target's
            // constraints (a gather's `@earlyclobber` destination merges
            // into itself).
            let mc = e.form.mc_operands();
            if tied_group(&mc, s).contains(&d) {
                return true;
            }
            if t.early_clobber(e.form, d) {
                return false;
            }
            let (Some(cs), Some(cd)) = (class_of(e.form, s), class_of(e.form, d)) else {
                return false;
            };
            cd.members()
                .filter(|r| t.reserved(*r).is_none())
                .any(|r| partner(t, cs, r).is_some())
        }
        (End::Op(s), End::Implicit(r)) => {
            class_of(e.form, s).is_some_and(|c| partner(t, c, r).is_some())
        }
        (End::Implicit(r), End::Op(d)) => {
            !t.early_clobber(e.form, d)
                && class_of(e.form, d).is_some_and(|c| partner(t, c, r).is_some())
        }
        (End::Implicit(a), End::Implicit(b)) => t.aliases(a, b),
        (End::Memory(a), End::Memory(b)) => a == b,
        // Into memory from a register: back only through a reload.
        (_, End::Memory(_)) | (End::Memory(_), _) => false,
    }
}

/// The register of `class` a chain puts where `r` was written or is read:
/// `r` itself, or a single register of the class overlapping it (`xmm1`
/// for `ymm1`, `cl` for `ecx`: the value flows through the shared bits;
/// a write of part of a register merges into the rest, which is also on
/// the chain). A tuple `r` (`vp2intersectd`'s `k2:k3`) through its first
/// part (`k2`), as [`super::type_of`] types it. `None` when there is
/// none.
pub fn partner(t: &dyn Target, class: RegClass, r: Reg) -> Option<Reg> {
    if class.contains(r) {
        return Some(r);
    }
    let r = if r.is_tuple() {
        r.sub_regs().next()?
    } else {
        r
    };
    if class.contains(r) {
        return Some(r);
    }
    class.members().find(|x| {
        !x.is_tuple()
            && t.reserved(*x).is_none()
            && (x.contains(r) || r.contains(*x))
            && t.aliases(*x, r)
    })
}

/// What breaks a dependency a self chain would otherwise run through
/// besides its own (adc's accumulator, while its flags are measured): a
/// form interleaved after each copy that writes the register without
/// reading it, implicitly (`rdtsc` writes EAX) or through its explicit
/// destination put on it (`mov rax, imm32`).
#[derive(Clone, Copy, Debug)]
pub struct Breaker {
    /// The form interleaved.
    pub form: Instr,
    /// For an explicit writer: its destination operand and the register.
    pub onto: Option<(usize, Reg)>,
}

impl Breaker {
    /// How the report names it: `RDTSC`, `MOV64ri32 onto rax`.
    pub fn label(&self) -> String {
        match self.onto {
            Some((_, r)) => format!(
                "{} onto {}",
                self.form.name(),
                r.asm_name().to_ascii_lowercase()
            ),
            None => self.form.name().to_string(),
        }
    }
}

/// A chain body, ready to be built into kernels.
#[derive(Clone, Debug)]
pub struct Chain {
    /// The instructions: `laps` times the steps (each followed by the
    /// breaker, when there is one).
    pub body: Vec<Inst>,
    /// Laps in the body.
    pub laps: usize,
    /// Why the time of a lap is only an upper bound of the cycle's sum,
    /// or `None` when it is the sum.
    pub bound: Option<String>,
}

/// The registers machine operand `k` of `inst` occupies.
fn op_regs(t: &dyn Target, inst: &Inst, k: usize) -> Vec<Reg> {
    match inst.ops.get(k) {
        Some(OpValue::Reg(_) | OpValue::Mem(_)) => t.operand_regs(inst, k),
        _ => Vec::new(),
    }
}

/// What `inst` reads: (register, the end it reads it through).
fn reads(t: &dyn Target, inst: &Inst) -> Vec<(Reg, End)> {
    let mc = inst.form.mc_operands();
    let mut out: Vec<(Reg, End)> = (0..mc.len())
        .filter(|&k| !mc[k].operand.is_def())
        .flat_map(|k| {
            op_regs(t, inst, k)
                .into_iter()
                .map(move |r| (r, End::Op(k)))
        })
        .collect();
    out.extend(inst.form.implicit_uses().map(|r| (r, End::Implicit(r))));
    out
}

/// What `inst` writes.
fn writes(t: &dyn Target, inst: &Inst) -> Vec<Reg> {
    let mc = inst.form.mc_operands();
    let mut out: Vec<Reg> = (0..mc.len())
        .filter(|&k| mc[k].operand.is_def())
        .flat_map(|k| op_regs(t, inst, k))
        .collect();
    out.extend(inst.form.implicit_defs());
    out
}

/// Puts operand `ks` of `inst` on `r` or its [`partner`]; the register it
/// reads.
fn read_on(t: &dyn Target, inst: &mut Inst, ks: usize, r: Reg) -> Result<Reg, String> {
    let Some(x) = class_of(inst.form, ks).and_then(|c| partner(t, c, r)) else {
        return Err(format!(
            "{} cannot read {} on its operand {ks}",
            inst.form.name(),
            r.asm_name()
        ));
    };
    set_reg(inst, ks, x);
    Ok(x)
}

fn set_reg(inst: &mut Inst, k: usize, r: Reg) {
    if let OpValue::Mem(m) = &mut inst.ops[k] {
        m.base = r;
        return;
    }
    let mc = inst.form.mc_operands();
    for j in tied_group(&mc, k) {
        inst.ops[j] = OpValue::Reg(r);
    }
}

/// The chain of `steps` (each step's target feeds the next step's source,
/// the last feeds the first), as many laps as registers allow (up to 4),
/// with `breaker` after every instance of the first step when given (it
/// writes an implicit register the first step reads and writes, which
/// would otherwise make a second chain). `Err` with the reason when no
/// body links as intended.
pub fn chain(t: &dyn Target, steps: &[Edge], breaker: Option<Breaker>) -> Result<Chain, String> {
    let mut last = String::from("no steps");
    for laps in [4, 2, 1] {
        // Every register of every instance kept apart first; then, where
        // registers run out (widening forms at LMUL 4 and 8), the ones a
        // link replaces freed. Freeing them always changed which registers
        // the other instances got: under qemu at e8 m1, vnsrl.wv, vnclip.wv,
        // vwadd.wv and vrgatherei16.vv chains died of SIGILL (9 pairs; 0
        // with this order, as before the registers were freed).
        for reserve_relinked in [true, false] {
            match chain_with(t, steps, breaker, laps, reserve_relinked) {
                Ok(c) => return Ok(c),
                Err(e) => last = e,
            }
        }
    }
    Err(last)
}

fn chain_with(
    t: &dyn Target,
    steps: &[Edge],
    breaker: Option<Breaker>,
    laps: usize,
    reserve_relinked: bool,
) -> Result<Chain, String> {
    let forms = steps.iter().map(|e| e.form).chain(breaker.map(|b| b.form));
    let mut used: Vec<Reg> = forms
        .flat_map(|f| f.implicit_uses().chain(f.implicit_defs()))
        .collect();
    // Registers an edge puts on an implicit register are not fresh.
    let mut body: Vec<Inst> = Vec::new();
    // Position of lap i, step j in `body`.
    let mut at: Vec<Vec<usize>> = Vec::new();
    // `relinked`: the operands a link will put on its writer's register
    // (a step's source and what is tied to it): their fresh registers are
    // not kept from the other instances (widening forms at LMUL 4 needed
    // one lap's registers twice and got only one lap, where a result
    // overlaps its own source).
    let fresh = |form: Instr, relinked: &[usize], used: &mut Vec<Reg>| -> Result<Inst, String> {
        let inst = t.instance(form, used).map_err(|e| e.to_string())?;
        // A link through an address puts only the base on its writer's
        // register: the memory operand's index (a gather's vector of
        // offsets) stays the instance's own.
        let kept = |k: usize| -> Vec<Reg> {
            match (relinked.contains(&k), inst.ops[k]) {
                (false, _) => op_regs(t, &inst, k),
                (true, OpValue::Mem(m)) => m.index.map(|(r, _)| r).into_iter().collect(),
                (true, _) => Vec::new(),
            }
        };
        let regs: Vec<Reg> = (0..inst.ops.len()).flat_map(kept).collect();
        // A register the form fixes and only reads (RISC-V's mask `v0`)
        // is shared by every instance: the check of the body below finds
        // any writer of it.
        let mc = form.mc_operands();
        let fixed_read = |k: usize| {
            !mc[k].operand.is_def() && mc[k].ty.class().is_some_and(|c| c.members().count() == 1)
        };
        let own: Vec<Reg> = (0..inst.ops.len())
            .filter(|&k| !fixed_read(k))
            .flat_map(kept)
            .collect();
        if own.iter().any(|r| used.iter().any(|u| t.aliases(*r, *u))) {
            return Err(format!("{}: registers run out at {laps} laps", form.name()));
        }
        used.extend(regs);
        Ok(inst)
    };
    for _ in 0..laps {
        let mut row = Vec::new();
        for (j, e) in steps.iter().enumerate() {
            row.push(body.len());
            let relinked = match e.source {
                End::Op(ks) if !reserve_relinked => tied_group(&e.form.mc_operands(), ks),
                _ => Vec::new(),
            };
            body.push(fresh(e.form, &relinked, &mut used)?);
            if j == 0 {
                if let Some(b) = breaker {
                    let mut inst = fresh(b.form, &[], &mut used)?;
                    if let Some((k, r)) = b.onto {
                        set_reg(&mut inst, k, r);
                        let form = &body[body.len() - 1];
                        crate::mode::common::write_needed_value(t, form, &mut inst, r);
                    }
                    body.push(inst);
                }
            }
        }
        at.push(row);
    }
    // Links, in order: the step after (lap i, step j).
    let n = steps.len();
    let next = |i: usize, j: usize| {
        if j + 1 < n {
            (i, j + 1)
        } else {
            ((i + 1) % laps, 0)
        }
    };
    let mut links: Vec<(usize, usize, Reg)> = Vec::new();
    // Instructions linked through memory: each reads what the one before
    // it wrote, at one block of the data area.
    let mut through_memory: Vec<usize> = Vec::new();
    for i in 0..laps {
        for j in 0..n {
            let (ni, nj) = next(i, j);
            let (p, q) = (at[i][j], at[ni][nj]);
            let (from, to) = (steps[j], steps[nj]);
            let reg = match (from.target, to.source) {
                (End::Op(kd), End::Op(ks)) => {
                    let OpValue::Reg(r) = body[p].ops[kd] else {
                        return Err("target is no register".into());
                    };
                    let r = aligned_for(t, &mut body, p, kd, q, ks, r)?;
                    read_on(t, &mut body[q], ks, r)?
                }
                (End::Implicit(r), End::Op(ks)) => read_on(t, &mut body[q], ks, r)?,
                (End::Op(kd), End::Implicit(r)) => {
                    let Some(w) = class_of(from.form, kd).and_then(|c| partner(t, c, r)) else {
                        return Err(format!(
                            "{} cannot write {} on its operand {kd}",
                            from.form.name(),
                            r.asm_name()
                        ));
                    };
                    set_reg(&mut body[p], kd, w);
                    r
                }
                (End::Implicit(a), End::Implicit(b)) => {
                    if !t.aliases(a, b) {
                        return Err(format!("{} is not {}", a.asm_name(), b.asm_name()));
                    }
                    // The flags as a whole: the next step must read one
                    // the step before writes, else the chain is broken
                    // (`inc` then `rcl`, which reads only the carry).
                    if is_flags(a) && !t.flags_meet(&body[p], &body[q]) {
                        return Err(format!(
                            "{} reads none of the flags {} writes",
                            body[q].form.name(),
                            body[p].form.name()
                        ));
                    }
                    b
                }
                (End::Memory(kd), End::Memory(ks)) => {
                    let based = |i: usize, k: usize| t.base_operand(body[i].form) == Some(k);
                    match (body[p].ops[kd], body[q].ops[ks]) {
                        (OpValue::Mem(m), OpValue::Mem(_)) => body[q].ops[ks] = OpValue::Mem(m),
                        // Two base registers (AArch64, RISC-V): each points
                        // at the data area, and both offsets go to the
                        // linked block below.
                        (OpValue::Reg(_), OpValue::Reg(_)) if based(p, kd) && based(q, ks) => {}
                        _ => return Err("a link through memory needs two memory operands".into()),
                    }
                    through_memory.extend([p, q]);
                    continue;
                }
                (End::Memory(_), _) | (_, End::Memory(_)) => {
                    return Err("memory links only to memory".into());
                }
            };
            links.push((p, q, reg));
        }
    }
    if let Some(inst) = body.iter().find(|i| clobbers_own_source(t, i)) {
        return Err(format!(
            "{}'s result would overlap its own source (early-clobber) at {laps} laps",
            inst.form.name()
        ));
    }
    for &p in &through_memory {
        body[p] = t
            .at_offset(&body[p], crate::kernel::data::LINKED)
            .ok_or_else(|| format!("{} cannot address the linked block", body[p].form.name()))?;
    }
    let neutral: Vec<bool> = steps.iter().map(|e| neutral_chase(t, e)).collect();
    neutralise(t, steps, &neutral, &at, &mut body)?;
    let bound = check(
        t,
        &body,
        &links,
        laps,
        n + usize::from(breaker.is_some()),
        neutral.contains(&true),
    )?;
    // A gather needs its old destination only to keep the lanes its mask
    // leaves (none here), and its copies also wait for its load units: on
    // Zen 4 the lap through the merge equals the form's throughput
    // (`vgatherdpd ymm` 5.0 and 4.99 cycles), which says the merge takes
    // at most that, not that it takes it.
    let paced = steps.len() == 1 && steps[0].form.has_vector_index() && merged(&steps[0]);
    let bound = bound.or_else(|| {
        paced.then(|| {
            format!(
                "{}'s copies also wait for its loads: the lap bounds the merge from above",
                steps[0].form.name()
            )
        })
    });
    Ok(Chain { body, laps, bound })
}

/// In a chain with a neutral chase ([`neutral_source`]): the chased
/// load reads the value part beside the chase part
/// ([`crate::kernel::data::BESIDE_CHASE`]: normal numbers in every lane,
/// where the chase part's addresses are denormal doubles), and the
/// clearing step of the way back gets immediate 0. A chased form that
/// also writes its memory (`xadd`) reads and writes a line of its own in
/// each lap ([`crate::kernel::data::REWRITE_CHASE`]): at one address the
/// next lap's load would wait on this lap's store (8 cycles on zen5,
/// more than the chase's lap), whereas with two laps or more a line's
/// next load comes a whole body later. Other chains are left as they
/// are.
fn neutralise(
    t: &dyn Target,
    steps: &[Edge],
    neutral: &[bool],
    at: &[Vec<usize>],
    body: &mut [Inst],
) -> Result<(), String> {
    let Some(back) = t.neutral_back().filter(|_| neutral.contains(&true)) else {
        return Ok(());
    };
    for (lap, row) in at.iter().enumerate() {
        for ((e, &p), &chased) in steps.iter().zip(row).zip(neutral) {
            if chased {
                let offset = if rewrites_into_register(t, e.form) {
                    crate::kernel::data::rewrite_chase(lap, at.len()).ok_or_else(|| {
                        format!(
                            "{} writes the memory it reads: its chase needs a line a lap \
                                 and two laps or more, not {}",
                            e.form.name(),
                            at.len()
                        )
                    })?
                } else {
                    crate::kernel::data::BESIDE_CHASE
                };
                body[p] = t
                    .at_offset(&body[p], offset)
                    .ok_or_else(|| format!("{} cannot move its access", e.form.name()))?;
                continue;
            }
            let clear = e.form.opcode() == back.clear.opcode();
            if !clear && e.form.opcode() != back.add.opcode() {
                continue;
            }
            let (End::Op(from), End::Op(to)) = (e.source, e.target) else {
                continue;
            };
            let mc = e.form.mc_operands();
            let (on_chain, result_group) = (tied_group(&mc, from), tied_group(&mc, to));
            let OpValue::Reg(result) = body[p].ops[to] else {
                return Err(format!("{}: no register result", e.form.name()));
            };
            // The clearing step's other register sources read `zero`
            // (`and x, x, xzr`; x86 and RISC-V clear by an immediate and
            // have none); the adding step adds into its own destination
            // (`add base, base, r`). Shifts and immediates 0.
            let other = if clear { back.zero } else { Some(result) };
            for (j, m) in mc.iter().enumerate() {
                if let OpValue::Imm(i) = &mut body[p].ops[j] {
                    *i = 0;
                    continue;
                }
                let off_chain = !m.operand.is_def()
                    && m.ty.class().is_some()
                    && !on_chain.contains(&j)
                    && !result_group.contains(&j);
                if let Some(r) = other.filter(|_| off_chain) {
                    body[p].ops[j] = OpValue::Reg(r);
                }
            }
        }
    }
    Ok(())
}

/// Whether a result of `inst` overlaps a register `inst` reads that it
/// must not: any input, for a result that must differ from every input
/// ([`Target::early_clobber`]: RVV widening results, masks over groups);
/// the sources LLVM's `RVVConstraint` names (`vsm3me`'s vs2, `vsha2ch`'s
/// vs2 and vs1), for the others. Either is illegal (a SIGILL on RISC-V).
fn clobbers_own_source(t: &dyn Target, inst: &Inst) -> bool {
    let mc = inst.form.mc_operands();
    let read = reads(t, inst);
    let kept_off: Vec<usize> = inst
        .form
        .result_must_not_overlap()
        .iter()
        .filter_map(|n| mc.iter().position(|m| m.name == *n))
        .collect();
    (0..mc.len()).filter(|&k| mc[k].operand.is_def()).any(|k| {
        let every = t.early_clobber(inst.form, k);
        // An accumulator (`vwmacc`'s vd) is tied to the result: the
        // same group, read and written.
        let tied = tied_group(&mc, k);
        let off = |e: &End| match e {
            End::Op(j) => !tied.contains(j) && (every || kept_off.contains(j)),
            End::Implicit(_) | End::Memory(_) => every,
        };
        op_regs(t, inst, k)
            .iter()
            .any(|w| read.iter().any(|(r, e)| off(e) && t.aliases(*w, *r)))
    })
}

/// The register the writer `body[p]` puts its operand `kd` on so that
/// `body[q]` can read it through operand `ks`: `r`, unless `ks` reads a
/// group of n registers (RVV LMUL 2-8, a widening form's wide source) and
/// `r` is no multiple of n, or the group from `r` covers another source of
/// `body[q]` (the writer's group may be smaller: `vmv.v.v` at m2 feeding
/// `vwadd.wv`'s wide source, a group of 4): then the writer moves to the
/// first register that is, whose n registers nothing in the body uses. A
/// group must be aligned (V specification 3.4.2), and no register may give
/// sources of two element widths to one instruction (5.2); either is a
/// SIGILL.
fn aligned_for(
    t: &dyn Target,
    body: &mut [Inst],
    p: usize,
    kd: usize,
    q: usize,
    ks: usize,
    r: Reg,
) -> Result<Reg, String> {
    // A memory operand's registers (base and index) are no group.
    let n = match body[q].ops[ks] {
        OpValue::Mem(_) => 1,
        _ => op_regs(t, &body[q], ks).len(),
    };
    if n <= 1 {
        return Ok(r);
    }
    let mc = body[p].form.mc_operands();
    let class = class_of(body[p].form, kd);
    let tied = tied_group(&body[q].form.mc_operands(), ks);
    let other_sources: Vec<Reg> = reads(t, &body[q])
        .into_iter()
        .filter(|(_, e)| !matches!(e, End::Op(j) if tied.contains(j)))
        .map(|(x, _)| x)
        .collect();
    let first = r.encoding() as usize;
    let clear = class.is_some_and(|c| {
        c.members()
            .filter(|m| (first..first + n).contains(&(m.encoding() as usize)))
            .all(|m| !other_sources.iter().any(|o| t.aliases(*o, m)))
    });
    if first.is_multiple_of(n) && clear {
        return Ok(r);
    }
    let no = || {
        format!(
            "{} reads a group of {n} from {}, which cannot move to a free group",
            body[q].form.name(),
            body[p].form.name()
        )
    };
    if tied_group(&mc, kd).len() > 1 {
        return Err(no());
    }
    let Some(class) = class else {
        return Err(no());
    };
    let taken: Vec<Reg> = body
        .iter()
        .flat_map(|i| (0..i.ops.len()).flat_map(move |k| op_regs(t, i, k)))
        .collect();
    let members: Vec<Reg> = class.members().collect();
    let free = |x: &Reg| t.reserved(*x).is_none() && !taken.iter().any(|u| t.aliases(*u, *x));
    let slot = members.iter().find(|x| {
        let first = x.encoding() as usize;
        first.is_multiple_of(n)
            && (first..first + n).all(|e| {
                members
                    .iter()
                    .any(|m| m.encoding() as usize == e && free(m))
            })
    });
    let Some(&x) = slot else {
        return Err(no());
    };
    set_reg(&mut body[p], kd, x);
    Ok(x)
}

/// The instruction before `q` (cyclically, `q` itself a body earlier)
/// that last wrote a register overlapping `r`.
fn last_writer(t: &dyn Target, body: &[Inst], q: usize, r: Reg) -> Option<usize> {
    let len = body.len();
    (1..=len)
        .map(|back| (q + len - back) % len)
        .find(|&p| writes(t, &body[p]).iter().any(|w| t.aliases(*w, r)))
}

/// Checks the links and every other read of `body` (see the module
/// comment): `Err` when a link is broken, `Ok(Some(why))` when a second
/// path makes the time an upper bound.
fn check(
    t: &dyn Target,
    body: &[Inst],
    links: &[(usize, usize, Reg)],
    laps: usize,
    per_lap: usize,
    neutral: bool,
) -> Result<Option<String>, String> {
    for &(p, q, r) in links {
        if last_writer(t, body, q, r) != Some(p) {
            return Err(format!(
                "{} is overwritten between {} and {}",
                r.asm_name(),
                body[p].form.name(),
                body[q].form.name()
            ));
        }
    }
    let len = body.len();
    let free = |p: usize| {
        reads(t, &body[p])
            .iter()
            .all(|(r, _)| last_writer(t, body, p, *r).is_none())
    };
    for q in 0..len {
        let read = reads(t, &body[q]);
        let linked = |r: Reg| links.iter().any(|&(_, lq, lr)| lq == q && t.aliases(lr, r));
        // The operands a link reads through: the other registers of such
        // an operand's group (RVV LMUL 2-8, wide operands) carry the same
        // value when the link's writer wrote them.
        let link_ends: Vec<End> = read
            .iter()
            .filter(|(r, _)| linked(*r))
            .map(|(_, e)| *e)
            .collect();
        for (r, end) in read {
            if linked(r) {
                continue;
            }
            let Some(p) = last_writer(t, body, q, r) else {
                continue;
            };
            if link_ends.contains(&end) && links.iter().any(|&(lp, lq, _)| lq == q && lp == p) {
                continue;
            }
            let distance = (q + len - p) % len;
            let distance = if distance == 0 { len } else { distance };
            let same_step = distance % per_lap == 0;
            // In a neutral chase, another step of the chain two laps or
            // more back (`add rcx, [m]`'s tied rcx, cleared by the `and
            // rcx, 0` of its own lap one body earlier) closes a cycle of
            // the form's register path and that step over the whole
            // body, which a lap through the form's load outruns. Only
            // there: elsewhere such a read stays a second path (a rotate
            // by `cl`, whose flags depend on the count, ran 40 cycles a
            // lap on `zen5`).
            let on_chain = neutral && links.iter().any(|&(lp, _, _)| lp == p);
            let far = distance >= 2 * per_lap && laps >= 2;
            if (far && (same_step || on_chain)) || free(p) {
                continue;
            }
            return Ok(Some(format!(
                "{} also reads {} from {}",
                body[q].form.name(),
                r.asm_name(),
                body[p].form.name()
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::target;
    use crate::isa::{Arch, Isa};

    fn form(arch: Arch, name: &str) -> Instr {
        Isa::get(arch).instr(name).unwrap()
    }

    fn edge(arch: Arch, name: &str, s: &str, d: &str) -> Edge {
        let t = target(arch);
        edges(t, form(arch, name))
            .0
            .into_iter()
            .find(|e| e.keys() == (s.to_string(), d.to_string()))
            .unwrap_or_else(|| panic!("{name} has no edge {s} -> {d}"))
    }

    #[test]
    fn edges_are_winic_s_operand_pairs() {
        let t = target(Arch::X86_64);
        let keys = |n: &str| -> Vec<(String, String)> {
            edges(t, form(Arch::X86_64, n))
                .0
                .iter()
                .map(|e| e.keys())
                .collect()
        };
        let k = |s: &str, d: &str| (s.to_string(), d.to_string());
        assert_eq!(
            keys("BTS16rr"),
            [k("0", "0"), k("1", "0"), k("0", "EFLAGS"), k("1", "EFLAGS")]
        );
        // adc reads the flags too.
        assert!(keys("ADC64rr").contains(&k("EFLAGS", "EFLAGS")));
        assert!(keys("ADC64rr").contains(&k("EFLAGS", "0")));
        // MXCSR is a control register: left out, and said so.
        let (e, left) = edges(t, form(Arch::X86_64, "ADDPDrr"));
        assert_eq!(e.len(), 2);
        assert_eq!(left[0].name(), "MXCSR");
        // mul: RAX in, RAX and RDX out, through implicit registers.
        assert!(keys("MUL64r").contains(&k("RAX", "RDX")));
    }

    #[test]
    fn self_chains_need_one_register_for_both_ends() {
        let t = target(Arch::X86_64);
        assert!(self_chain_possible(
            t,
            &edge(Arch::X86_64, "ADD64rr", "1", "0")
        ));
        assert!(self_chain_possible(
            t,
            &edge(Arch::X86_64, "ADC64rr", "EFLAGS", "EFLAGS")
        ));
        assert!(!self_chain_possible(
            t,
            &edge(Arch::X86_64, "BTS16rr", "1", "EFLAGS")
        ));
        assert!(!self_chain_possible(
            t,
            &edge(Arch::X86_64, "MOVPQIto64rr", "1", "0")
        ));
        assert!(!self_chain_possible(
            t,
            &edge(Arch::X86_64, "MUL64r", "RAX", "RDX")
        ));
        let a = target(Arch::Aarch64);
        assert!(self_chain_possible(
            a,
            &edge(Arch::Aarch64, "FMLAv2f64", "1", "0")
        ));
        assert!(!self_chain_possible(
            a,
            &edge(Arch::Aarch64, "FMOVXDr", "1", "0")
        ));
    }

    #[test]
    fn a_two_address_source_rotates_the_destination() {
        // add r1, r2 from r2: copy i reads what copy i-1 wrote, and writes
        // a register of its own, so the tied read of r1 spans the body.
        let t = target(Arch::X86_64);
        let c = chain(t, &[edge(Arch::X86_64, "ADD64rr", "1", "0")], None).unwrap();
        assert_eq!(c.laps, 4);
        assert!(c.bound.is_none(), "{:?}", c.bound);
        let dst: Vec<OpValue> = c.body.iter().map(|i| i.ops[0]).collect();
        for i in 0..4 {
            assert_eq!(c.body[(i + 1) % 4].ops[2], dst[i]);
            assert_ne!(dst[i], dst[(i + 1) % 4]);
        }
        // From the tied source itself: one register throughout.
        let c = chain(t, &[edge(Arch::X86_64, "ADD64rr", "0", "0")], None).unwrap();
        assert!(c.body.iter().all(|i| i.ops[0] == c.body[0].ops[0]));
        assert!(c.bound.is_none());
    }

    /// `add rcx, [m]` from its address: no chain of copies (the result
    /// would become the next address), but a neutral chase back through
    /// `and r, 0` and `add base, r`, the load beside the chase part; its
    /// tied rcx, cleared a body earlier, is no second path. A load whose
    /// result is the address (`mov`) and a store are no neutral chase.
    #[test]
    fn a_load_op_form_chains_from_its_address_through_a_neutral_way_back() {
        let (arch, t) = (Arch::X86_64, target(Arch::X86_64));
        let e = edge(arch, "ADD64rm", "1", "0");
        assert!(neutral_chase(t, &e));
        assert!(!self_chain_possible(t, &e));
        for (name, s, d) in [("MOV64rm", "1", "0"), ("ADD64rr", "1", "0")] {
            assert!(!neutral_chase(t, &edge(arch, name, s, d)), "{name}");
        }
        assert!(!edges(t, form(arch, "ADD64mr"))
            .0
            .iter()
            .any(|e| neutral_chase(t, e)));
        let back = t.neutral_back().unwrap();
        let clear = edge(arch, back.clear.name(), "0", "0");
        let add = edge(arch, back.add.name(), "1", "0");
        let c = chain(t, &[e, clear, add], None).unwrap();
        assert!(c.bound.is_none(), "{:?}", c.bound);
        let text: Vec<String> = c.body.iter().map(|i| t.print(i).unwrap()).collect();
        let disp = crate::kernel::data::BESIDE_CHASE;
        assert!(text[0].ends_with(&format!(" - {}]", -disp)), "{text:?}");
        assert!(
            text[1].starts_with("and ") && text[1].ends_with(", 0"),
            "{text:?}"
        );
        // The sum goes to the next lap's base.
        let OpValue::Reg(base) = c.body[2].ops[0] else {
            panic!("{text:?}")
        };
        let OpValue::Mem(m) = c.body[3].ops[2] else {
            panic!("{text:?}")
        };
        assert_eq!(m.base, base, "{text:?}");
        // Other chains with the clearing form keep its immediate.
        let alone = chain(t, &[clear], None).unwrap();
        assert!(!t.print(&alone.body[0]).unwrap().ends_with(", 0"));
    }

    /// `xadd [m], rcx` from its address: a neutral chase too, though it
    /// stores where it loads; each lap reads and writes a line of its own
    /// (the next lap's load would otherwise wait on this lap's store: a
    /// lap of 8 cycles on zen5 where the chase runs 7). `xchg` likewise;
    /// `add [m], r`, which writes no register, has no such edge.
    #[test]
    fn a_form_that_rewrites_its_memory_chases_a_line_a_lap() {
        let (arch, t) = (Arch::X86_64, target(Arch::X86_64));
        for name in ["XADD64rm", "XCHG8rm"] {
            let e = edge(arch, name, "1", "0");
            assert!(neutral_chase(t, &e), "{name}");
            let back = t.neutral_back().unwrap();
            let clear = edge(arch, back.clear.name(), "0", "0");
            let add = edge(arch, back.add.name(), "1", "0");
            let c = chain(t, &[e, clear, add], None).unwrap();
            assert!(c.laps >= 2, "{name}: {} laps", c.laps);
            let text: Vec<String> = c.body.iter().map(|i| t.print(i).unwrap()).collect();
            for lap in 0..c.laps {
                let disp = crate::kernel::data::rewrite_chase(lap, c.laps).unwrap();
                let at = format!(" - {}]", -disp);
                assert!(text[3 * lap].contains(&at), "{name} lap {lap}: {text:?}");
            }
        }
        assert!(!edges(t, form(arch, "ADD64mr"))
            .0
            .iter()
            .any(|e| neutral_chase(t, e)));
        assert!(crate::kernel::data::rewrite_chase(0, 1).is_none());
    }

    /// On AArch64 and RISC-V the base is a register operand: `ldr x0,
    /// [x1]`'s `1 -> 0` comes back through `and x, x, xzr` (`andi x, x,
    /// 0`) and `add base, base, x`, which adds into the register the next
    /// lap's load reads as its base.
    #[test]
    fn a_load_chains_from_its_base_register_on_aarch64_and_risc_v() {
        for (arch, load, clear_text) in [
            (Arch::Aarch64, "LDRXui", ", xzr"),
            (Arch::Riscv64, "LD", ", 0"),
        ] {
            let t = target(arch);
            let e = edge(arch, load, "1", "0");
            assert!(neutral_chase(t, &e), "{load}");
            assert!(!self_chain_possible(t, &e), "{load}");
            // A store and a writeback load are none.
            let store = if arch == Arch::Aarch64 {
                "STRXui"
            } else {
                "SD"
            };
            assert!(!edges(t, form(arch, store))
                .0
                .iter()
                .any(|e| neutral_chase(t, e)));
            let back = t.neutral_back().unwrap();
            let clear = edge(arch, back.clear.name(), "1", "0");
            let add = edge(arch, back.add.name(), "2", "0");
            let c = chain(t, &[e, clear, add], None).unwrap();
            assert!(c.bound.is_none(), "{arch:?}: {:?}", c.bound);
            let text: Vec<String> = c.body.iter().map(|i| t.print(i).unwrap()).collect();
            assert!(text[1].ends_with(clear_text), "{text:?}");
            let reg = |i: &Inst, k: usize| match i.ops[k] {
                OpValue::Reg(r) => r,
                _ => panic!("{text:?}"),
            };
            // add base, base, x; the next lap loads through base.
            assert_eq!(reg(&c.body[2], 0), reg(&c.body[2], 1), "{text:?}");
            assert_eq!(
                t.address_bases(&c.body[3]),
                vec![reg(&c.body[2], 0)],
                "{text:?}"
            );
        }
        // A writeback load moves its base: no chain through it.
        let t = target(Arch::Aarch64);
        assert!(!edges(t, form(Arch::Aarch64, "LDRXpost"))
            .0
            .iter()
            .any(|e| neutral_chase(t, e)));
    }

    #[test]
    fn a_second_path_through_the_flags_is_an_upper_bound_unless_broken() {
        let t = target(Arch::X86_64);
        let e = edge(Arch::X86_64, "ADC64rr", "1", "0");
        let c = chain(t, &[e], None).unwrap();
        assert!(
            c.bound.as_deref().unwrap().contains("flags"),
            "{:?}",
            c.bound
        );
        let cmp = form(Arch::X86_64, "CMP64rr");
        let c = chain(
            t,
            &[e],
            Some(Breaker {
                form: cmp,
                onto: None,
            }),
        )
        .unwrap();
        assert!(c.bound.is_none(), "{:?}", c.bound);
        assert_eq!(c.body.len(), 2 * c.laps);
    }

    /// Masked RVV forms all read v0: every lap shares it (it was taken
    /// for a clash, and every chain of two masked forms failed with
    /// "registers run out"), and a widening result is early-clobber at
    /// every vector type, so it never chains into its own narrow source.
    #[test]
    fn rvv_chains_share_the_mask_and_keep_wide_results_apart() {
        use crate::arch::riscv64::vtype::{Lmul, VType};
        let a = Arch::Riscv64;
        let steps = [edge(a, "VWADD_VV", "1", "0"), edge(a, "VNSRL_WV", "1", "0")];
        for v in [
            VType::DEFAULT,
            VType {
                sew: 16,
                lmul: Lmul::M2,
            },
        ] {
            let t = crate::arch::riscv64::at(v);
            let c = chain(t, &steps, None).unwrap();
            // Before, not even one lap: both read v0.
            assert!(c.laps >= if v == VType::DEFAULT { 2 } else { 1 }, "{v}");
            assert!(c.bound.is_none(), "{v}: {:?}", c.bound);
            let e = edge(a, "VWADD_VV", "1", "0");
            assert!(!self_chain_possible(t, &e), "{v}");
        }
        // A helper's result feeding a wide source moves to an even
        // register (v17 and v31 made a SIGILL).
        let t = target(a);
        let steps = [edge(a, "VNSRL_WV", "1", "0"), edge(a, "VADD_VV", "1", "0")];
        let c = chain(t, &steps, None).unwrap();
        for lap in c.body.chunks(2) {
            let OpValue::Reg(wide) = lap[0].ops[1] else {
                panic!()
            };
            assert_eq!(wide.encoding() % 2, 0, "{:?}", c.body);
        }
        // Same-width forms still chain on themselves.
        let t = target(a);
        assert!(self_chain_possible(t, &edge(a, "VADD_VV", "1", "0")));
        assert_eq!(
            chain(t, &[edge(a, "VADD_VV", "1", "0")], None)
                .unwrap()
                .laps,
            4
        );
    }

    /// At LMUL 4 a widening result is a group of 8: a chain through a
    /// helper got one lap only, whose result then overlapped its own
    /// source (every widening form's LAT at LMUL 4 and 8 died of SIGILL
    /// under qemu). The registers a link replaces are no longer reserved,
    /// and a body where an early-clobber result meets its own source is
    /// refused, not run.
    #[test]
    fn widening_chains_at_lmul_4_keep_results_off_their_sources() {
        use crate::arch::riscv64::vtype::{Lmul, VType};
        let a = Arch::Riscv64;
        for (wide, helper) in [
            (edge(a, "VWADD_VV", "1", "0"), edge(a, "VFMV_S_F", "0", "0")),
            (
                edge(a, "VWMACC_VX", "2", "0"),
                edge(a, "VNSRL_WI", "1", "0"),
            ),
        ] {
            for v in [
                VType {
                    sew: 16,
                    lmul: Lmul::M4,
                },
                VType {
                    sew: 16,
                    lmul: Lmul::M2,
                },
            ] {
                let t = crate::arch::riscv64::at(v);
                let c = chain(t, &[wide, helper], None).unwrap();
                // With the helper's result on the wide result's first
                // register, two results of 8 and two sources of 4 fit.
                if helper.form.name() == "VFMV_S_F" {
                    assert!(c.laps >= 2, "{} at {v}: {} laps", wide.label(), c.laps);
                }
                for i in &c.body {
                    assert!(!clobbers_own_source(t, i), "{v}: {:?}", c.body);
                }
            }
        }
        // The safety net itself: vwadd.vv v8, v8, v12 at e16 m4.
        let t = crate::arch::riscv64::at(VType {
            sew: 16,
            lmul: Lmul::M4,
        });
        let f = form(a, "VWADD_VV");
        let mut i = t.instance(f, &[]).unwrap();
        let OpValue::Reg(d) = i.ops[0] else { panic!() };
        set_reg(&mut i, 1, d);
        assert!(clobbers_own_source(t, &i), "{i:?}");
    }

    #[test]
    fn asymmetric_chains_link_through_the_helper() {
        let t = target(Arch::X86_64);
        // bts's flags feed adc (reads CF), adc's register feeds bts.
        let steps = [
            edge(Arch::X86_64, "BTS64rr", "1", "EFLAGS"),
            edge(Arch::X86_64, "ADC64rr", "EFLAGS", "0"),
        ];
        let c = chain(t, &steps, None).unwrap();
        for lap in c.body.chunks(2) {
            assert_eq!(lap[0].form.name(), "BTS64rr");
        }
        // adc's register is bts's bit index in the next lap.
        for i in 0..c.laps {
            let adc = &c.body[2 * i + 1];
            let bts = &c.body[(2 * i + 2) % c.body.len()];
            assert_eq!(adc.ops[0], bts.ops[2]);
        }
        // xmm -> r64 -> xmm.
        let steps = [
            edge(Arch::X86_64, "MOVPQIto64rr", "1", "0"),
            edge(Arch::X86_64, "MOV64toPQIrr", "1", "0"),
        ];
        let c = chain(t, &steps, None).unwrap();
        assert!(c.bound.is_none(), "{:?}", c.bound);
        assert_eq!(c.laps, 4);
    }

    #[test]
    fn a_store_links_to_its_reload_through_one_block() {
        let t = target(Arch::X86_64);
        let k = |f: &str| -> Vec<(String, String)> {
            edges(t, form(Arch::X86_64, f))
                .0
                .iter()
                .map(|e| e.keys())
                .collect()
        };
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        // A store: its register into memory; nothing from the address.
        assert_eq!(k("MOV64mr"), [pair("1", "0")]);
        // A read-modify-write: also memory into itself; xchg writes the
        // register into memory, not the memory it read.
        assert!(k("ADD64mr").contains(&pair("0", "0")));
        assert!(k("ADD64mr").contains(&pair("1", "0")));
        assert!(!k("XCHG64rm").contains(&pair("1", "1")));
        let store = edges(t, form(Arch::X86_64, "MOV64mr")).0[0];
        assert!(!self_chain_possible(t, &store));
        let c = chain(t, &with_reload(t, store, 1), None).unwrap();
        let at = crate::kernel::data::LINKED;
        for lap in c.body.chunks(2) {
            let (OpValue::Mem(a), OpValue::Mem(b)) = (lap[0].ops[0], lap[1].ops[1]) else {
                panic!("no memory operands in {lap:?}");
            };
            // The reload reads the block the store wrote.
            assert_eq!((a, a.disp), (b, at));
        }
        // The reload's register is the next store's data.
        for i in 0..c.laps {
            assert_eq!(
                c.body[2 * i + 1].ops[0],
                c.body[(2 * i + 2) % c.body.len()].ops[1]
            );
        }
        // The kernel keeps the block: no access is placed elsewhere.
        let kernel = crate::kernel::build(t, &c.body, 4).unwrap();
        let text = kernel.text();
        assert_eq!(
            text.matches(&format!("+ {at}]")).count(),
            2 * c.laps * 4,
            "{text}"
        );
    }

    /// Store `store` of its data operand `k` and the load reading its
    /// bytes back.
    fn with_reload(t: &dyn Target, store: Edge, k: usize) -> [Edge; 2] {
        let (load, m, r) = t.reload(store.form, k, &|_| true).unwrap();
        [
            store,
            Edge {
                form: load,
                source: End::Memory(m),
                target: End::Op(r),
            },
        ]
    }

    /// AArch64 and RISC-V: a store's data runs to memory and back through
    /// its load twin; each base points at the data area and both accesses
    /// take the same offset, so the load reads what the store wrote.
    #[test]
    fn a_based_store_links_to_its_load_twin() {
        for (arch, name, mnemonics) in [
            (Arch::Aarch64, "STRXui", ["str x", "ldr x"]),
            (Arch::Riscv64, "SD", ["sd ", "ld "]),
        ] {
            let t = crate::arch::target(arch);
            let (e, _) = edges(t, form(arch, name));
            let store = *e
                .iter()
                .find(|e| matches!(e.target, End::Memory(_)))
                .unwrap_or_else(|| panic!("{name}: {e:?}"));
            let End::Op(k) = store.source else {
                panic!("{name}: {store:?}")
            };
            let steps = with_reload(t, store, k);
            let c = chain(t, &steps, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = crate::kernel::build(t, &c.body, 4).unwrap().text();
            // The body's accesses (not the prologue's, at the stack
            // pointer): one offset, the linked block's where the field
            // reaches it (AArch64), else one it reaches (RISC-V: 0).
            let offsets: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| mnemonics.iter().any(|m| l.starts_with(m)) && !l.contains("sp"))
                .filter_map(|l| l.rsplit(',').next())
                .map(|o| o.trim().split(['(', ']']).next().unwrap_or(""))
                .collect();
            assert_eq!(offsets.len(), 2 * c.laps * 4, "{name}: {text}");
            assert!(offsets.windows(2).all(|w| w[0] == w[1]), "{name}: {text}");
            if arch == Arch::Aarch64 {
                let at = format!("#{}", crate::kernel::data::LINKED);
                assert_eq!(offsets[0], at, "{text}");
            }
        }
    }

    /// A gather keeps one path, its base into the gathered vector (the
    /// kernels reset its mask and destination before each), as a
    /// neutral chase; a scatter keeps none. Each copy in the chain keeps
    /// a vector index of its own that nothing in the body writes: with
    /// the index freed as part of the linked address, the next copy's
    /// result landed on it and the chain read outside the data area
    /// (SIGSEGV on the zen5 guest, 2026-12-02).
    #[test]
    fn a_gather_chains_from_its_base_with_indexes_of_its_own() {
        let (arch, t) = (Arch::X86_64, target(Arch::X86_64));
        for name in ["VPGATHERDDYrm", "VGATHERDPDZrm", "VPGATHERQQZ128rm"] {
            let (es, _) = edges(t, form(arch, name));
            let keys: Vec<(String, String)> = es.iter().map(|e| e.keys()).collect();
            assert_eq!(
                keys,
                [("1".into(), "0".into()), ("2".into(), "0".into())],
                "{name}"
            );
            assert!(
                !neutral_chase(t, &es[0]) && merged(&es[0]),
                "{name}: {es:?}"
            );
            assert!(self_chain_possible(t, &es[0]), "{name}: {es:?}");
            assert!(neutral_chase(t, &es[1]), "{name}: {es:?}");
        }
        assert!(edges(t, form(arch, "VPSCATTERDDZmr")).0.is_empty());
        let back = t.neutral_back().unwrap();
        let steps = [
            edge(arch, "VPGATHERDDYrm", "2", "0"),
            edge(arch, "MOVPQIto64rr", "1", "0"),
            edge(arch, back.clear.name(), "0", "0"),
            edge(arch, back.add.name(), "1", "0"),
        ];
        let c = chain(t, &steps, None).unwrap();
        assert!(c.bound.is_none(), "{:?}", c.bound);
        let written: Vec<Reg> = c.body.iter().flat_map(|i| writes(t, i)).collect();
        let mut indexes = Vec::new();
        for i in c.body.iter().filter(|i| i.form.has_vector_index()) {
            let (index, _) = t.vector_indexes(i)[0];
            assert!(
                !written.iter().any(|w| t.aliases(*w, index)),
                "{} is written in the body",
                index.asm_name()
            );
            indexes.push(index);
        }
        assert_eq!(indexes.len(), c.laps, "{:?}", c.body);
        // Each gather's destination zeroed before it: the chase runs
        // through its base alone.
        let text = crate::kernel::build(t, &c.body, 1).unwrap().text();
        assert_eq!(text.matches("vpxor").count(), c.laps, "{text}");
    }

    /// The merge, a gather's old destination into the new, runs as a
    /// chain of copies that keeps the destination (its mask set again
    /// before each, nothing zeroed), and is an upper bound: the copies
    /// also wait for their loads (on Zen 4 the lap is the throughput).
    #[test]
    fn a_gathers_merge_chains_its_copies_through_the_destination() {
        let (arch, t) = (Arch::X86_64, target(Arch::X86_64));
        for (name, reset) in [("VPGATHERDDYrm", "vpcmpeqd"), ("VGATHERDPDZrm", "kxnorw")] {
            let c = chain(t, &[edge(arch, name, "1", "0")], None).unwrap();
            assert!(c.laps >= 2, "{name}: {:?}", c.body);
            let dst: Vec<&OpValue> = c.body.iter().map(|i| &i.ops[0]).collect();
            assert!(dst.windows(2).all(|w| w[0] == w[1]), "{name}: {dst:?}");
            let text = crate::kernel::build(t, &c.body, 1).unwrap().text();
            assert_eq!(text.matches(reset).count(), c.laps, "{name}: {text}");
            assert!(!text.contains("vpxor"), "{name}: {text}");
            let bound = c.bound.as_deref().unwrap_or_default();
            assert!(
                bound.contains("bounds the merge from above"),
                "{name}: {bound}"
            );
        }
        // Its throughput kernel zeroes every copy's destination as before.
        let form = form(arch, "VPGATHERDDYrm");
        let body = crate::kernel::shape::throughput(t, form, 3).unwrap();
        let text = crate::kernel::build(t, &body, 1).unwrap().text();
        assert_eq!(text.matches("vpxor").count(), body.len(), "{text}");
    }
}
