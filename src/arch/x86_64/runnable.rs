//! Which encodable x86 forms a user-mode kernel must not run, from iced's
//! instruction information (privilege, flow control, stack use, CPUID
//! feature) and the few value-dependent faults iced does not describe.

use super::plan_of;
use crate::isa::desc::OperandKind;
use crate::isa::Instr;
use iced_x86::{CpuidFeature, FlowControl, Mnemonic};

/// The reason `form` must not run in a kernel, or `None`.
pub fn cannot_run(form: &Instr) -> Option<String> {
    let plan = plan_of(form).ok()?;
    let code = plan.code;
    let info = code.op_code();
    if info.must_be_cpl0() || code.is_privileged() {
        return Some("privileged (CPL 0 only)".into());
    }
    let mnemonic = code.mnemonic();
    if info.may_require_cpl0()
        && !matches!(
            mnemonic,
            Mnemonic::Rdtsc | Mnemonic::Rdtscp | Mnemonic::Cpuid
        )
    {
        return Some(format!(
            "{mnemonic:?} may need CPL 0 (faults in user mode unless the OS enables it)"
        ));
    }
    match code.flow_control() {
        FlowControl::Next => {}
        // To the next instruction (`super::cond`).
        FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch
            if super::cond::to_next_instruction(code) => {}
        FlowControl::XbeginXabortXend if mnemonic == Mnemonic::Xabort => {}
        FlowControl::ConditionalBranch if super::cond::always_taken(code) => {
            return Some(
                "taken every time in a kernel (rcx never reaches 0): a run of taken \
                 branches times the branch predictor's capacity, not the form"
                    .into(),
            )
        }
        other => return Some(format!("changes control flow ({other:?})")),
    }
    if code.is_stack_instruction() {
        if let Some(why) = super::stack::cannot_run(code) {
            return Some(why);
        }
    }
    if info.is_input_output() {
        return Some("port I/O".into());
    }
    let system = [
        (CpuidFeature::VMX, "VMX"),
        (CpuidFeature::SVM, "SVM"),
        (CpuidFeature::SMX, "SMX"),
        (CpuidFeature::SGX1, "SGX"),
        (CpuidFeature::TDX, "TDX"),
        (CpuidFeature::SEV_ES, "SEV"),
        (CpuidFeature::SEV_SNP, "SEV"),
        (CpuidFeature::SKINIT, "SKINIT"),
        (CpuidFeature::UINTR, "user interrupts"),
        (CpuidFeature::FRED, "FRED"),
        (CpuidFeature::LKGS, "LKGS"),
        (CpuidFeature::MSRLIST, "MSR lists"),
        (CpuidFeature::WRMSRNS, "MSR writes"),
    ];
    let features = code.cpuid_features();
    if let Some((_, what)) = system.iter().find(|(f, _)| features.contains(f)) {
        return Some(format!(
            "{what} instruction: needs an operating mode or state a user-mode kernel does not have"
        ));
    }
    if features.iter().any(|f| {
        matches!(
            f,
            CpuidFeature::AMX_TILE
                | CpuidFeature::AMX_INT8
                | CpuidFeature::AMX_BF16
                | CpuidFeature::AMX_FP16
                | CpuidFeature::AMX_COMPLEX
        )
    }) {
        return Some(
            "AMX: needs a tile configuration (ldtilecfg) and the OS's AMX permission, \
             which the kernel frame does not set up yet"
                .into(),
        );
    }
    let why = match mnemonic {
        // A register divisor is set to 1 ([`divide_values`]); a divisor in
        // memory is the data area's word, whose low byte is 0 and whose
        // wider parts are at most the high half of the dividend.
        Mnemonic::Div | Mnemonic::Idiv if divides_by_memory(form) => {
            "divides by the data area's word: its low byte is 0, and no dividend \
             stays in range over a chain of its divisions (#DE)"
        }
        Mnemonic::Wrfsbase | Mnemonic::Wrgsbase => {
            "changes the thread's FS/GS base (thread-local storage)"
        }
        Mnemonic::Wrpkru => "changes the memory protection keys",
        Mnemonic::Clzero => "clears the cache line at the address in RAX",
        Mnemonic::Monitorx | Mnemonic::Mwaitx => "monitors the address in RAX",
        Mnemonic::Xgetbv => "ECX selects the register: faults unless it holds a valid index",
        Mnemonic::Rdpkru => {
            "faults (#GP) unless ECX is 0, which the kernel's initial values are not"
        }
        Mnemonic::Xend => "faults outside a transaction",
        Mnemonic::Ldmxcsr | Mnemonic::Vldmxcsr => {
            "loads MXCSR from the data area, whose value sets reserved bits (#GP)"
        }
        Mnemonic::Movdir64b | Mnemonic::Enqcmd | Mnemonic::Enqcmds => {
            "stores to the address in a register operand, which the kernel sets to data, \
             not to its data area (SIGSEGV on the Xeon guest)"
        }
        Mnemonic::Lfs | Mnemonic::Lgs | Mnemonic::Lss => {
            "loads a segment register with a selector from the data area (#GP)"
        }
        Mnemonic::Prefetchit0 | Mnemonic::Prefetchit1 => {
            "prefetches only with a RIP-relative address (a nop otherwise), \
             and RIP-relative operands are not run yet"
        }
        Mnemonic::Incsspd
        | Mnemonic::Incsspq
        | Mnemonic::Rstorssp
        | Mnemonic::Setssbsy
        | Mnemonic::Saveprevssp
        | Mnemonic::Wrssd
        | Mnemonic::Wrssq
        | Mnemonic::Wrussd
        | Mnemonic::Wrussq => "shadow stack (CET): faults unless the OS enabled it",
        Mnemonic::Fxrstor
        | Mnemonic::Fxrstor64
        | Mnemonic::Xrstor
        | Mnemonic::Xrstor64
        | Mnemonic::Xrstors
        | Mnemonic::Xrstors64 => {
            "restores the x87/SSE state from the data area, whose value sets reserved bits (#GP)"
        }
        _ => return writes_segment_register(form),
    };
    Some(why.into())
}

fn divides_by_memory(form: &Instr) -> bool {
    form.mc_operands()
        .iter()
        .any(|m| m.ty.kind() == OperandKind::Mem)
}

/// The values `div r` and `idiv r` run with: the divisor 1, the high half
/// of the dividend (`dx`, `edx`, `rdx`; `ah` of an 8-bit division) 0, and
/// so the quotient the low half and the remainder 0, every division again:
/// a chain of them never leaves that state, nor faults (#DE: a quotient
/// too wide for its register). The low half keeps the kernels' value
/// (0x4000 in each 16-bit lane, positive in every width) but for an 8-bit
/// division, whose `ax` is 0x40 (`ah` 0, `al` 64). Each division then
/// yields a quotient of the dividend's significant bits: 63 of 64, 31 of
/// 32, 15 of 16, 7 of 8: the slow end on cores whose dividers take
/// longer for wider quotients (AMD's since Zen 2).
pub fn divide_values(inst: &crate::arch::Inst) -> Vec<(crate::isa::Reg, u64)> {
    let divides = plan_of(&inst.form)
        .is_ok_and(|p| matches!(p.code.mnemonic(), Mnemonic::Div | Mnemonic::Idiv));
    if !divides || divides_by_memory(&inst.form) {
        return Vec::new();
    }
    let mut out: Vec<(crate::isa::Reg, u64)> = inst
        .ops
        .iter()
        .filter_map(|v| match v {
            crate::arch::OpValue::Reg(r) => Some((*r, 1)),
            _ => None,
        })
        .collect();
    let high = |r: &crate::isa::Reg| matches!(r.name(), "DX" | "EDX" | "RDX");
    match inst.form.implicit_uses().find(high) {
        Some(dx) => out.push((dx, 0)),
        // An 8-bit division reads `ax` alone: its high half is `ah`.
        None => out.extend(
            inst.form
                .implicit_uses()
                .filter(|r| r.name() == "AX")
                .map(|ax| (ax, 0x40)),
        ),
    }
    out
}

/// `bt [mem], reg`: the register is a signed bit offset from the address.
fn bit_offset_in_register(form: &Instr) -> bool {
    let kinds: Vec<_> = form.mc_operands().iter().map(|m| m.ty.kind()).collect();
    kinds.contains(&OperandKind::Mem) && kinds.contains(&OperandKind::Reg)
}

/// The bit offset register of `bt [m], r` and relatives, set to 0: its
/// value / 8 is added to the address (it reaches up to 2^60 bytes beyond
/// it), so any other value would send the access out of its block
/// ([`crate::arch::Operands::address_offsets`]).
pub fn bit_offsets(inst: &crate::arch::Inst) -> Vec<(crate::isa::Reg, u64)> {
    let bt = plan_of(&inst.form).is_ok_and(|p| {
        matches!(
            p.code.mnemonic(),
            Mnemonic::Bt | Mnemonic::Btc | Mnemonic::Btr | Mnemonic::Bts
        )
    });
    if !bt || !bit_offset_in_register(&inst.form) {
        return Vec::new();
    }
    inst.ops
        .iter()
        .filter_map(|v| match v {
            crate::arch::OpValue::Reg(r) => Some((*r, 0)),
            _ => None,
        })
        .collect()
}

/// `mov ds, ax` and the like: a segment register written with an
/// arbitrary selector faults.
fn writes_segment_register(form: &Instr) -> Option<String> {
    form.operands()
        .filter(|o| o.is_def())
        .find(|o| o.ty().class().is_some_and(|c| c.name() == "SEGMENT_REG"))
        .map(|_| "writes a segment register".into())
}
