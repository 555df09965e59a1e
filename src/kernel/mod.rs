//! Kernel functions `extern "C" fn(iterations: u64)`, emitted entirely by
//! winic's own encoders: the target's prologue, the initialisation of every
//! register the body touches, the loop (the body `unroll` times, the
//! count-down, the branch back) and the epilogue. Every instruction is
//! encoded, printed and decode-checked; a check that disagrees stops the
//! kernel from existing.

pub mod data;
pub mod shape;

use crate::arch::{EncodeError, Inst, Line, ModeSwitch, OpValue, Target};
use crate::isa::Reg;

pub use crate::arch::{emit, KernelError, LOOP_LABEL};

/// A kernel: its instructions in order (labels are lines without bytes).
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Every line, with its bytes.
    pub lines: Vec<Line>,
    /// Registers the body touches that no instruction initialises, with
    /// the target's reason (flags, control registers …).
    pub uninitialised: Vec<(Reg, String)>,
}

impl Kernel {
    /// The machine code of the whole function.
    pub fn bytes(&self) -> Vec<u8> {
        self.lines.iter().flat_map(|l| l.bytes.clone()).collect()
    }

    /// The kernel with no-ops before its loop, at least `bytes` of them:
    /// the same work with the loop `bytes` further into the code (TP's
    /// placements of forms that store, [`crate::mode::tp`]). The branch
    /// back is relative to the loop, so nothing else moves.
    pub fn with_loop_moved(mut self, t: &dyn Target, bytes: usize) -> Result<Kernel, KernelError> {
        let label = format!("{LOOP_LABEL}:");
        let Some(at) = self.lines.iter().position(|l| l.text == label) else {
            return Err(KernelError::Encode(crate::arch::EncodeError::Unsupported(
                "the kernel has no loop to move".into(),
            )));
        };
        let nop = emit(t, &t.nop()?)?;
        let step = nop.bytes.len().max(1);
        let pad = vec![nop; bytes.div_ceil(step)];
        self.lines.splice(at..at, pad);
        Ok(self)
    }

    /// The function as assembly text, one instruction per line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            if l.bytes.is_empty() {
                out.push_str(&l.text);
            } else {
                out.push_str("    ");
                out.push_str(&l.text);
            }
            out.push('\n');
        }
        out
    }
}

/// An assembly file with `functions` (name and kernel, in this order),
/// headed by `comment` lines, that winic's assembler (`winic MAN`) reads
/// back to the same bytes: each kernel as a global function whose loop
/// label is made unique (`.Lloop_tp`).
pub fn asm_file(t: &dyn Target, comment: &str, functions: &[(&str, &Kernel)]) -> String {
    let mut out = String::new();
    for l in comment.lines() {
        out.push_str(&format!("# {l}\n"));
    }
    if let Some(syntax) = t.dialect().syntax {
        out.push_str(syntax);
        out.push('\n');
    }
    out.push_str(".text\n");
    for (name, k) in functions {
        out.push_str(&format!(
            "\n.globl {name}\n.type {name}, @function\n{name}:\n"
        ));
        let label = format!("{LOOP_LABEL}_{name}");
        for l in &k.lines {
            let text = match l.text.strip_suffix(LOOP_LABEL) {
                Some(head) => format!("{head}{label}"),
                None if l.text == format!("{LOOP_LABEL}:") => format!("{label}:"),
                None => l.text.clone(),
            };
            if l.bytes.is_empty() {
                out.push_str(&text);
            } else {
                out.push_str("    ");
                out.push_str(&text);
            }
            out.push('\n');
        }
        out.push_str(&format!(".size {name}, .-{name}\n"));
    }
    out
}

/// Every register `body` names or uses implicitly, each once.
pub fn registers_of(body: &[Inst]) -> Vec<Reg> {
    let mut out: Vec<Reg> = Vec::new();
    for inst in body {
        let explicit = inst.ops.iter().flat_map(|v| match v {
            OpValue::Reg(r) => vec![*r],
            OpValue::Imm(_) => Vec::new(),
            OpValue::Mem(m) => m.regs().collect(),
        });
        let implicit = inst.form.implicit_uses().chain(inst.form.implicit_defs());
        for r in explicit.chain(implicit) {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    out
}

/// The kernel running `body` `unroll` times per iteration.
/// The widest register operand of `body`, in bits: a batch times bodies
/// of one width class together ([`crate::exec::run::batch_costs`]), since
/// Intel cores run 512-bit work at a lower clock (frequency licences).
pub fn widest_bits(body: &[Inst]) -> u32 {
    body.iter()
        .flat_map(|i| i.form.operands().filter_map(|o| o.ty().class()))
        .map(|c| c.bits())
        .max()
        .unwrap_or(0)
}

/// What the kernel runs right before each instruction of `body`
/// ([`crate::arch::Operands::resets`]), each told what the instruction
/// the loop runs before it writes ([`shape::written`]; the body's last
/// before its first; nothing in a body of one instruction, whose copies
/// run apart in the two kernels of an unroll difference alike).
pub fn resets(t: &dyn Target, body: &[Inst]) -> Result<Vec<Vec<Inst>>, EncodeError> {
    let n = body.len();
    body.iter()
        .enumerate()
        .map(|(k, i)| {
            let kept = if n > 1 {
                shape::written(&body[(k + n - 1) % n])
            } else {
                Vec::new()
            };
            t.resets(i, &kept)
        })
        .collect()
}

/// Builds the kernel of `body` repeated `unroll` times. A body that
/// accesses memory is emitted once per repetition, each access at its own
/// block of the data area ([`data::Slots`],
/// [`crate::arch::Operands::at_offset`]); the registers it addresses
/// memory through ([`crate::arch::Operands::address_bases`]) are set to
/// the area ([`data::VALUES`]).
pub fn build(t: &dyn Target, body: &[Inst], unroll: usize) -> Result<Kernel, KernelError> {
    build_placed(t, body, unroll, data::Placement::Aligned)
}

/// [`build`] with the body's accesses placed as `placement` says (across
/// cache lines, for the line-split experiment).
pub fn build_placed(
    t: &dyn Target,
    body: &[Inst],
    unroll: usize,
    placement: data::Placement,
) -> Result<Kernel, KernelError> {
    build_with(t, body, unroll, placement, false)
}

/// [`build_placed`] for a throughput: a body that reads and writes memory
/// (`add [m], imm`, `xadd [m], r`) walks its bases through
/// [`data::STREAM_WINDOW`] bytes, each iteration's accesses on the blocks
/// after the last's ([`stream`]), as a loop over an array does. At fixed
/// addresses each copy loads what it stored an iteration before, and
/// Zen 4 forwards some such pairs inside the core (Agner Fog's "mirroring
/// of memory operands") and not others: on the zen4 guest (2026-12-04)
/// 8 to 16 copies of `add qword [m], 2` at fixed addresses ran 0.50
/// cycles a copy, 24 ran 0.53-0.57 and 32 0.53-0.55 by run, so two full
/// TP runs put 40 such forms 0.50 in one and 0.55-0.56 in the other;
/// streamed, 24 and 32 copies ran 0.553-0.556 in every run, of any width.
/// Other bodies, and every body a chain times, keep their addresses.
pub fn build_streamed(
    t: &dyn Target,
    body: &[Inst],
    unroll: usize,
    placement: data::Placement,
) -> Result<Kernel, KernelError> {
    build_with(t, body, unroll, placement, true)
}

/// [`build_placed`], and [`build_streamed`] where `streamed`.
fn build_with(
    t: &dyn Target,
    body: &[Inst],
    unroll: usize,
    placement: data::Placement,
    streamed: bool,
) -> Result<Kernel, KernelError> {
    // A base the body also writes is a pointer chase (a latency chain
    // through a load's address): it starts in the chase part, and its
    // loads stay at offset 0, where each returns the address it read.
    // A base written back by its own access (AArch64 pre/post-index)
    // moves, it is no chase: such forms are placed at offset 0.
    let written: Vec<Reg> = body
        .iter()
        .flat_map(|i| {
            let back = shape::written_back(t, i);
            shape::written(i)
                .into_iter()
                .filter(move |w| !back.contains(w))
        })
        .collect();
    let chased = |r: Reg| written.iter().any(|w| t.aliases(*w, r));
    // An access a latency chain put at the linked block (a store and its
    // reload) stays there: the reload must read what the store wrote.
    let linked = |i: &Inst| {
        t.at_offset(i, data::LINKED)
            .is_some_and(|at| at.ops == i.ops)
    };
    let placeable = |i: &Inst| !linked(i) && !t.address_bases(i).into_iter().any(chased);
    let accesses = body
        .iter()
        .any(|i| placeable(i) && t.at_offset(i, 0).is_some());
    // A body that moves registers it does not name as values (`push`,
    // `pop`: the stack pointer; `movsb`: rsi and rdi) runs inside the
    // loop's walk ([`crate::arch::Operands::walk`]), computed over a
    // whole iteration: the body is then emitted once per repetition too.
    let iteration: Vec<Inst> = (0..unroll.max(1))
        .flat_map(|_| body.iter().cloned())
        .collect();
    let walk = t.walk(&iteration, data::STARTS)?;
    let repeated = accesses || !walk.is_empty();
    let reps = if repeated { unroll.max(1) } else { 1 };
    // A body that stores nothing and whose memory operands all read (no
    // `lea`, which reads none) reads its line-sized accesses from one
    // line; register forms beside its loads (a `ports` mix) change nothing.
    let accesses: Vec<Option<(bool, bool)>> =
        body.iter().map(|i| t.memory_access(i.form)).collect();
    let loads_only = accesses.contains(&Some((true, false)))
        && body.iter().zip(&accesses).all(|(i, access)| match access {
            Some(access) => *access == (true, false),
            None => !shape::stores(t, i.form),
        });
    let mut slots = if loads_only {
        data::Slots::loads_only(placement)
    } else {
        data::Slots::new(placement)
    };
    let mut lines = Vec::with_capacity(body.len() * reps + walk.top.len() + walk.bottom.len());
    for inst in &walk.top {
        lines.push(emit(t, inst)?);
    }
    // What runs before each instruction (a gather's mask and destination
    // reset) touches no memory: emitted once, repeated with the body.
    let resets = resets(t, body)?
        .iter()
        .map(|before| before.iter().map(|r| emit(t, r)).collect())
        .collect::<Result<Vec<Vec<Line>>, KernelError>>()?;
    for _ in 0..reps {
        for (inst, before) in body.iter().zip(&resets) {
            let placed = placeable(inst)
                .then(|| t.at_offset(inst, 0))
                .flatten()
                .and_then(|_| t.at_offset(inst, slots.next(t.access_bytes(inst))));
            lines.extend(before.iter().cloned());
            lines.push(emit(t, placed.as_ref().unwrap_or(inst))?);
        }
    }
    if streamed && walk.is_empty() {
        for inst in stream(t, body, &placeable, &slots)? {
            lines.push(emit(t, &inst)?);
        }
    }
    for inst in &walk.bottom {
        lines.push(emit(t, inst)?);
    }
    let regs = registers_of(body);
    let mut bases: Vec<(Reg, u64)> = regs
        .iter()
        .copied()
        .filter(|r| body.iter().any(|i| t.address_bases(i).contains(r)))
        .map(|r| (r, if chased(r) { data::CHASE } else { data::VALUES }))
        .collect();
    // Indexes, register offsets and strides: their small values.
    for (r, v) in body.iter().flat_map(|i| t.address_offsets(i)) {
        if !bases.iter().any(|(b, _)| *b == r) {
            bases.push((r, v));
        }
    }
    let lanes: Vec<(Reg, u32)> = body.iter().flat_map(|i| t.vector_indexes(i)).collect();
    let forms: Vec<crate::isa::Instr> = body.iter().map(|i| i.form).collect();
    assemble(
        t,
        &lines,
        &Regs {
            all: &regs,
            bases: &bases,
            lanes: &lanes,
        },
        if repeated { 1 } else { unroll },
        t.mode_switch(&forms).as_ref(),
    )
}

/// The instructions that walk the bases of `body`'s accesses past the
/// blocks one iteration used (`slots`, rounded up to a cache line) and
/// round [`data::STREAM_WINDOW`] ([`crate::arch::Operands::stream`]),
/// for a body with a read-modify-write whose every access is `placed`;
/// none for other bodies, for one whose blocks fill more than the window
/// or whose base is another access's index, or where the target has no
/// such walk.
fn stream(
    t: &dyn Target,
    body: &[Inst],
    placed: &dyn Fn(&Inst) -> bool,
    slots: &data::Slots,
) -> Result<Vec<Inst>, KernelError> {
    let accesses: Vec<&Inst> = body
        .iter()
        .filter(|i| t.memory_access(i.form).is_some() || t.at_offset(i, 0).is_some())
        .collect();
    let rmw = accesses
        .iter()
        .any(|i| t.memory_access(i.form) == Some((true, true)));
    if !rmw
        || !accesses
            .iter()
            .all(|i| placed(i) && t.at_offset(i, 0).is_some())
    {
        return Ok(Vec::new());
    }
    let Some(extent) = slots.extent() else {
        return Ok(Vec::new());
    };
    let step = (extent + data::LINE - 1) / data::LINE * data::LINE;
    if step <= 0 || step as u32 > data::STREAM_WINDOW {
        return Ok(Vec::new());
    }
    let mut bases: Vec<Reg> = Vec::new();
    for b in accesses.iter().flat_map(|i| t.address_bases(i)) {
        if !bases.contains(&b) {
            bases.push(b);
        }
    }
    let indexes: Vec<Reg> = body
        .iter()
        .flat_map(|i| t.address_offsets(i))
        .map(|(r, _)| r)
        .collect();
    if bases
        .iter()
        .any(|b| indexes.iter().any(|x| t.aliases(*x, *b)))
    {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for b in bases {
        match t.stream(b, step as u32, data::VALUES, data::STREAM_WINDOW) {
            Some(walk) => out.extend(walk?),
            None => return Ok(Vec::new()),
        }
    }
    Ok(out)
}

/// The registers a kernel's body touches, and of them those it reads as
/// the base of a memory operand.
#[derive(Clone, Copy, Debug)]
pub struct Regs<'a> {
    /// Every register, explicit and implicit.
    pub all: &'a [Reg],
    /// The bases of memory operands, each with the address of the data
    /// area it is set to, and the index, register-offset and stride
    /// registers of accesses with their small values
    /// ([`crate::arch::Operands::address_offsets`]).
    pub bases: &'a [(Reg, u64)],
    /// The vector indexes of gathers, each with the bytes of its lanes
    /// ([`crate::arch::Operands::vector_indexes`]).
    pub lanes: &'a [(Reg, u32)],
}

/// The kernel around already emitted body lines touching `regs`, in the
/// state `mode` enters (after the prologue, before the initialisations)
/// and leaves (before the epilogue).
pub fn assemble(
    t: &dyn Target,
    body: &[Line],
    regs: &Regs,
    unroll: usize,
    mode: Option<&ModeSwitch>,
) -> Result<Kernel, KernelError> {
    let emit_all = |insts: Vec<Inst>| -> Result<Vec<Line>, KernelError> {
        insts.iter().map(|i| emit(t, i)).collect()
    };
    // The prologue saves what the body and the mode switch change.
    let mut saved: Vec<Reg> = regs.all.to_vec();
    if let Some(m) = mode {
        saved.extend(m.clobbers.iter().filter(|c| !regs.all.contains(c)));
    }
    let mut lines = emit_all(t.prologue(&saved)?)?;
    if let Some(m) = mode {
        lines.extend(emit_all(m.enter.clone())?);
    }
    // One initialisation per whole register; multi-instruction ones (which
    // may use scratch registers) before single ones.
    let mut inits: Vec<(Reg, Vec<Inst>)> = Vec::new();
    let mut uninitialised = Vec::new();
    // Address bases first: a base holds its address even where a part of
    // it is also data (`mov cx, [rcx]` of a pointer chase).
    let ordered = regs
        .all
        .iter()
        .filter(|r| regs.bases.iter().any(|(b, _)| b == *r))
        .chain(
            regs.all
                .iter()
                .filter(|r| !regs.bases.iter().any(|(b, _)| b == *r)),
        );
    for &r in ordered {
        if let Some(why) = t.reserved(r) {
            // Never set: the stack pointer, the loop counter …
            uninitialised.push((r, format!("reserved: {why}")));
            continue;
        }
        let init = match (
            regs.bases.iter().find(|(b, _)| *b == r),
            regs.lanes.iter().find(|(v, _)| *v == r),
        ) {
            (Some(&(_, addr)), _) => t.init_address(r, addr),
            (None, Some(&(_, bytes))) => t.init_lanes(r, bytes),
            (None, None) => t.init(r),
        };
        match init {
            Ok((whole, insts)) => {
                if !inits.iter().any(|(w, _)| *w == whole) {
                    inits.push((whole, insts));
                }
            }
            Err(e) => uninitialised.push((r, e.to_string())),
        }
    }
    inits.sort_by_key(|(_, insts)| insts.len() == 1);
    for (_, insts) in inits {
        lines.extend(emit_all(insts)?);
    }
    if let Some(m) = mode {
        lines.extend(emit_all(m.ready.clone())?);
    }
    lines.push(Line {
        text: format!("{LOOP_LABEL}:"),
        bytes: Vec::new(),
    });
    let mut in_loop = 0;
    for _ in 0..unroll.max(1) {
        for l in body {
            in_loop += l.bytes.len();
            lines.push(l.clone());
        }
    }
    for l in emit_all(t.count_down()?)? {
        in_loop += l.bytes.len();
        lines.push(l);
    }
    lines.push(t.branch_back(in_loop)?);
    if let Some(m) = mode {
        lines.extend(emit_all(m.leave.clone())?);
    }
    lines.extend(emit_all(t.epilogue(&saved)?)?);
    Ok(Kernel {
        lines,
        uninitialised,
    })
}

/// A chain of `n` dependent one-cycle adds (the clock calibration).
pub fn add_chain(t: &dyn Target, n: usize, unroll: usize) -> Result<Kernel, KernelError> {
    let add = t.chain_add()?;
    build(t, &vec![add; n], unroll)
}

/// Adds of [`wide_add_chain`] per copy of the wide primer's form beside
/// them.
pub const WIDE_CHAIN_STRIDE: usize = 4;

/// The calibration chain of [`add_chain`] with an independent copy of the
/// target's wide primer ([`crate::arch::KernelFrame::wide_primer`]) after
/// every [`WIDE_CHAIN_STRIDE`] adds, `None` where it has none: the clock
/// beside a body wider than 128 bits, taken while the core stays in the
/// state that body and its primer left it in. The plain chain right after
/// such a body left that state while it ran: on xeon-cf its once and twice
/// kernels showed 3.5 to 4.0 GHz in the same round, and their difference
/// gave 3.6 to 4.8 GHz for a body that ran at one clock throughout.
/// The copies take other ports than the chain (two vector ports beside
/// four integer ones), one a quarter of the cycles, so the chain still
/// runs at one add a cycle.
pub fn wide_add_chain(
    t: &dyn Target,
    n: usize,
    unroll: usize,
) -> Result<Option<Kernel>, KernelError> {
    let Some(form) = t.wide_primer() else {
        return Ok(None);
    };
    let add = t.chain_add()?;
    let avoid = t.inst_regs(&add);
    let copies = shape::throughput_avoiding(t, form, shape::COPIES, &avoid)?;
    let mut body = Vec::with_capacity(n + n / WIDE_CHAIN_STRIDE);
    for k in 0..n {
        body.push(add.clone());
        if (k + 1) % WIDE_CHAIN_STRIDE == 0 {
            body.push(copies[(k / WIDE_CHAIN_STRIDE) % copies.len()].clone());
        }
    }
    Ok(Some(build(t, &body, unroll)?))
}

/// [`shape::COPIES`] independent one-cycle adds (copies of
/// [`crate::arch::KernelFrame::chain_add`]'s form), `unroll` times: as fast
/// as the core issues integer work, so it slows down as soon as the other
/// hardware thread of the core runs anything at all (on the Zen 4 guest,
/// 1.6 times slower beside a loop of `pause`). Batches time it between
/// bodies to tell which of their samples were taken alone on the core.
pub fn add_block(t: &dyn Target, unroll: usize) -> Result<Kernel, KernelError> {
    let add = t.chain_add()?;
    build(t, &shape::throughput(t, add.form, shape::COPIES)?, unroll)
}

/// The target's wide primer ([`crate::arch::KernelFrame::wide_primer`]) as
/// a kernel of independent copies, `None` where it has none.
pub fn wide_primer(t: &dyn Target) -> Result<Option<Kernel>, KernelError> {
    let Some(form) = t.wide_primer() else {
        return Ok(None);
    };
    Ok(Some(build(
        t,
        &shape::throughput(t, form, shape::COPIES)?,
        1,
    )?))
}

#[cfg(test)]
mod tests;
