//! WINIC's naming rules: how WINIC describes a form in its file (the
//! mnemonic, the operands it lists) and how it numbers operands in
//! `operandLatencies`, reproduced from LLVM's tables so that winic's
//! entries match WINIC's for the same form.

use super::{Entry, Measured, OperandEntry};
use crate::isa::desc::OperandKind;
use crate::isa::{select_asm_variant, Instr, Operand};

impl Entry {
    /// A new entry for `form` with nothing measured, described as WINIC's
    /// `createOpInstruction` (`src/IOSystem.cpp`) describes it:
    ///
    /// * `name` is the literal text of the assembly string before its
    ///   first operand, trailing blanks removed, in the syntax variant
    ///   WINIC's printer uses (`createMCInstPrinter(…, 1, …)`: Intel on
    ///   x86, the Apple syntax on AArch64, so `ZIP2v8i8` is `zip2.8b`);
    /// * the operands are LLVM's flattened machine operands in order, each
    ///   kept only if its operand's LLVM `OperandType` is
    ///   `OPERAND_REGISTER` (class `register`, `name` = register class) or
    ///   `OPERAND_IMMEDIATE` (class `immediate`, `imd: int`). Memory,
    ///   PC-relative and target-specific immediates (RISC-V `simm12`)
    ///   and every sub-operand of a complex operand (AArch64's shifted
    ///   `Rm` of `ADDXrs`, whose type is `OPERAND_UNKNOWN`) are left out;
    /// * of a tied pair (`$src1 = $dst`) only the earlier operand is kept,
    ///   marked read and written; defs are written, uses read;
    /// * implicit registers are not operands.
    pub fn for_form(form: Instr) -> Entry {
        Entry {
            llvm_name: form.name().to_string(),
            name: winic_mnemonic(form),
            operands: winic_operands(form),
            measured: Measured::default(),
            vector_state: crate::arch::target(form.isa().arch()).vector_state(form),
            vector_configs: Vec::new(),
            inferred_ports: Vec::new(),
            inferred_ports_misfit: None,
            line_split_throughput: None,
            misaligned_throughput: None,
            own_line_throughput: None,
            repeated: Vec::new(),
            access_alone: None,
        }
    }
}

/// Whether an `operandLatencies` key names a flags register (x86
/// `EFLAGS`, AArch64 `NZCV`): written and read as a whole by compares and
/// conditional forms.
pub fn is_flags_key(key: &str) -> bool {
    matches!(key, "EFLAGS" | "NZCV")
}

/// The string WINIC writes in `sourceOperand`/`targetOperand` for machine
/// operand `mc_index` of `form` (`llvmOpNumToNormalOpNum`): the index,
/// less one for every use operand up to it that is tied to an earlier
/// operand. Operands WINIC leaves out of `operands` (memory, complex) are
/// still counted, so the number is not always a position in that list.
pub fn operand_key(form: Instr, mc_index: usize) -> String {
    let tied = form
        .mc_operands()
        .iter()
        .take(mc_index + 1)
        .filter(|mc| is_tied_duplicate(mc.operand))
        .count();
    (mc_index - tied).to_string()
}

/// The later operand of a tied pair: LLVM puts the `TIED_TO` constraint on
/// it, and WINIC drops it as a duplicate.
fn is_tied_duplicate(op: Operand) -> bool {
    op.tied_to().is_some_and(|t| t < op.index())
}

/// The syntax variant WINIC's `MCInstPrinter` prints: `LLVMEnvironment.cpp`
/// creates it with variant 1 on every target, a constant of WINIC's file
/// format (its `name` field) and not of an arch. x86 has it (Intel) and
/// AArch64 (Apple); RISC-V's printer has only variant 0, but no RISC-V
/// `AsmString` has `{…|…}` alternatives, so variant 1 selects the same
/// text there (`riscv_asm_strings_have_no_syntax_variants` checks every
/// form).
const WINIC_PRINTER_VARIANT: usize = 1;

/// `MCInstPrinter::getMnemonic` as WINIC trims it: the literal text before
/// the first `$operand` (`$$` is a literal `$`), trailing blanks removed.
fn winic_mnemonic(form: Instr) -> String {
    let asm = select_asm_variant(form.asm_string(), WINIC_PRINTER_VARIANT);
    let mut out = String::new();
    let mut chars = asm.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' {
            if chars.peek() == Some(&'$') {
                chars.next();
            } else {
                break;
            }
        }
        out.push(c);
    }
    out.truncate(out.trim_end().len());
    out
}

fn winic_operands(form: Instr) -> Vec<OperandEntry> {
    let ops: Vec<_> = form.operands().collect();
    let read_defs: Vec<usize> = ops
        .iter()
        .filter(|o| is_tied_duplicate(**o))
        .filter_map(|o| o.tied_to())
        .collect();
    let mut out = Vec::new();
    for mc in form.mc_operands() {
        let op = mc.operand;
        if is_tied_duplicate(op) {
            continue;
        }
        // LLVM gives every sub-operand its parent's OperandType; a plain
        // register class has no OperandType record and is a register.
        let parent = op.ty();
        let optype = match parent.operand_type() {
            "" if parent.kind() == OperandKind::Reg => "OPERAND_REGISTER",
            t => t,
        };
        let (write, read) = (op.is_def(), !op.is_def() || read_defs.contains(&op.index()));
        match optype {
            "OPERAND_REGISTER" => {
                let Some(class) = mc.ty.class() else { continue };
                out.push(OperandEntry {
                    class: "register".into(),
                    name: Some(class.name().to_string()),
                    read,
                    write,
                    ..OperandEntry::default()
                });
            }
            "OPERAND_IMMEDIATE" => out.push(OperandEntry {
                class: "immediate".into(),
                imd: Some("int".into()),
                read: true,
                ..OperandEntry::default()
            }),
            _ if mc.ty.kind() == OperandKind::Mem => out.push(memory_operand(form, mc.ty)),
            _ => {}
        }
    }
    out
}

/// An x86 memory operand as the measurement addressed it: base and a
/// 32-bit displacement (`crate::kernel::data`), and for `lea` an index
/// at scale 1 (`[base + index]`); a gather's vector index by its kind.
/// Read and written as the target says of the access (`lea` does
/// neither).
fn memory_operand(form: Instr, ty: crate::isa::OperandType) -> OperandEntry {
    let vector_index = ty.sub_operands().find_map(|(sub, _)| {
        let class = sub.class()?;
        let name = class.name();
        ["VR128", "VR256", "VR512"]
            .iter()
            .zip(["xmm", "ymm", "zmm"])
            .find(|(p, _)| name.starts_with(*p))
            .map(|(_, kind)| kind.to_string())
    });
    let lea = ty.name().starts_with("lea");
    let index = vector_index.or_else(|| lea.then(|| "gpr".to_string()));
    let (read, write) = crate::arch::target(form.isa().arch())
        .memory_access(form)
        .unwrap_or((!lea, false));
    OperandEntry {
        class: "memory".into(),
        name: Some(ty.name().to_string()),
        base: Some("gpr".into()),
        offset: Some("imd".into()),
        scale: index.as_ref().map(|_| 1),
        index,
        read,
        write,
        ..OperandEntry::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::fixtures::{form, V2, X60};
    use crate::db::Database;
    use crate::isa::{Arch, Isa};

    /// `for_form` describes the forms of both WINIC files exactly as WINIC
    /// did: same mnemonic, same operands.
    #[test]
    fn for_form_matches_winic_entries() {
        for (arch, text) in [(Arch::Riscv64, X60), (Arch::Aarch64, V2)] {
            for winic in Database::parse(text).unwrap().entries {
                let ours = Entry::for_form(form(arch, &winic.llvm_name));
                assert_eq!(ours.name, winic.name, "{}", winic.llvm_name);
                assert_eq!(ours.operands, winic.operands, "{}", winic.llvm_name);
                assert_eq!(ours.latency, None);
                assert_eq!(ours.throughput, None);
            }
        }
    }

    fn reg(class: &str, read: bool, write: bool) -> OperandEntry {
        OperandEntry {
            class: "register".into(),
            name: Some(class.into()),
            read,
            write,
            ..OperandEntry::default()
        }
    }

    /// x86 memory operands are in `operands`, with their parts as the
    /// measurement addressed them, read and written as the form does:
    /// a consumer tells `VADDPDZrm` from `VADDPDZrr`.
    #[test]
    fn x86_memory_operands_name_their_parts() {
        let ops = |name: &str| Entry::for_form(form(Arch::X86_64, name)).operands;
        let store = &ops("MOV64mr")[0];
        assert_eq!(
            (
                store.class.as_str(),
                store.name.as_deref(),
                store.read,
                store.write
            ),
            ("memory", Some("i64mem"), false, true)
        );
        assert_eq!(
            (store.base.as_deref(), store.offset.as_deref()),
            (Some("gpr"), Some("imd"))
        );
        assert_eq!((store.index.as_deref(), store.scale), (None, None));
        let rmw = &ops("ADD64mr")[0];
        assert!(rmw.read && rmw.write);
        let load = &ops("VADDPDZrm")[2];
        assert_eq!(
            (load.class.as_str(), load.read, load.write),
            ("memory", true, false)
        );
        assert_eq!(ops("VADDPDZrr")[2].class, "register");
        // lea computes the address at [base + index]: no access.
        let lea = &ops("LEA64r")[1];
        assert_eq!((lea.index.as_deref(), lea.scale), (Some("gpr"), Some(1)));
        assert!(!lea.read && !lea.write);
        // A gather's index is a vector.
        let gather = ops("VPGATHERDDZrm");
        let m = gather.iter().find(|o| o.class == "memory").unwrap();
        assert_eq!(m.index.as_deref(), Some("zmm"));
    }

    fn imm() -> OperandEntry {
        OperandEntry {
            class: "immediate".into(),
            imd: Some("int".into()),
            read: true,
            ..OperandEntry::default()
        }
    }

    #[test]
    fn x86_forms_use_intel_mnemonics_and_drop_tied_operands() {
        let add = Entry::for_form(form(Arch::X86_64, "ADD64rr"));
        assert_eq!(add.llvm_name, "ADD64rr");
        assert_eq!(add.name, "add");
        assert_eq!(
            add.operands,
            [reg("GR64", true, true), reg("GR64", true, false)]
        );
        let addi = Entry::for_form(form(Arch::X86_64, "ADD64ri32"));
        assert_eq!(addi.operands, [reg("GR64", true, true), imm()]);
        let addm = Entry::for_form(form(Arch::X86_64, "ADD64rm"));
        assert_eq!(addm.operands[0], reg("GR64", true, true));
        assert_eq!(addm.operands[1].class, "memory");
        assert!(add.operand_latencies.is_empty());
    }

    #[test]
    fn aarch64_and_riscv_add_operands() {
        let add = Entry::for_form(form(Arch::Aarch64, "ADDXrs"));
        assert_eq!(add.name, "add");
        // The shifted Rm is a sub-operand of an OPERAND_UNKNOWN operand.
        assert_eq!(
            add.operands,
            [reg("GPR64", false, true), reg("GPR64", true, false)]
        );
        let add = Entry::for_form(form(Arch::Riscv64, "ADD"));
        assert_eq!(add.name, "add");
        let gpr = reg("GPR", true, false);
        assert_eq!(add.operands, [reg("GPR", false, true), gpr.clone(), gpr]);
    }

    #[test]
    fn operand_keys_skip_tied_duplicates() {
        let add = form(Arch::X86_64, "ADD64rr");
        let keys: Vec<_> = (0..3).map(|i| operand_key(add, i)).collect();
        assert_eq!(keys, ["0", "0", "1"]);
        let fmla = form(Arch::Aarch64, "FMLAv4f32");
        let keys: Vec<_> = (0..4).map(|i| operand_key(fmla, i)).collect();
        assert_eq!(keys, ["0", "0", "1", "2"]);
    }

    /// [`WINIC_PRINTER_VARIANT`] is right on RISC-V, whose printer has no
    /// variant 1, only because its assembly strings have no alternatives;
    /// should a new LLVM add one, this names the form.
    #[test]
    fn riscv_asm_strings_have_no_syntax_variants() {
        for form in Isa::get(Arch::Riscv64).instrs() {
            let asm = form.asm_string();
            assert_eq!(
                select_asm_variant(asm, WINIC_PRINTER_VARIANT),
                select_asm_variant(asm, 0),
                "{}: {asm:?}",
                form.name()
            );
        }
    }
}
