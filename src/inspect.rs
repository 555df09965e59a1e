//! Human-readable views of the ISA tables: `winic list` and `winic show`.

use crate::arch::{self, encodable_operands};
use crate::error::Error;
use crate::isa::desc::OperandKind;
use crate::isa::{Arch, Encoding, Instr, Isa, Operand, OperandType};
use crate::selfcheck::{self, Outcome};
use std::fmt::Write as _;

/// What `winic list` selects.
pub struct ListQuery<'a> {
    /// The arch whose forms are listed.
    pub arch: Arch,
    /// Regular expression matched against the LLVM name or the mnemonic.
    pub filter: Option<&'a str>,
    /// Include pseudo and codegen-only records.
    pub all: bool,
}

/// The forms `query` selects, in opcode order.
pub fn select(query: &ListQuery) -> Result<Vec<Instr>, Error> {
    let re = match query.filter {
        Some(f) => Some(regex::Regex::new(f).map_err(|e| {
            Error::BadInput(format!(
                "--filter '{f}' is not a valid regular expression: {e}"
            ))
        })?),
        None => None,
    };
    Ok(Isa::get(query.arch)
        .instrs()
        .filter(|i| query.all || i.is_real())
        .filter(|i| {
            re.as_ref()
                .is_none_or(|re| re.is_match(i.name()) || re.is_match(&i.mnemonic()))
        })
        .collect())
}

/// One line per form: opcode, LLVM name, assembly template.
pub fn list_line(i: &Instr) -> String {
    let tmpl = i.asm_template().replace('\t', " ");
    let mut line = format!("{:>6}  {:<28} {}", i.opcode(), i.name(), tmpl.trim());
    if !i.is_real() {
        line.push_str(if i.has(crate::isa::Flag::IsPseudo) {
            "   [pseudo]"
        } else {
            "   [codegen-only]"
        });
    }
    line
}

/// Looks up `name` in `arch`, with close names in the error when unknown.
pub fn find(arch: Arch, name: &str) -> Result<Instr, Error> {
    let isa = Isa::get(arch);
    isa.instr(name).ok_or_else(|| {
        let close = isa.closest_instr_names(name, 5).join(", ");
        Error::BadInput(format!("no instruction form '{name}' on {arch}; closest: {close} (see `winic list --arch {arch}`)"))
    })
}

/// Operand names in the order the assembly template prints them; operands
/// the template does not mention (tied inputs, implicit-in-syntax) follow.
pub fn assembly_order(i: &Instr) -> Vec<Operand> {
    let tmpl = i.asm_template();
    let ops: Vec<Operand> = i.operands().collect();
    let mut order: Vec<(usize, Operand)> = ops
        .iter()
        .map(|o| (template_position(&tmpl, o.name()).unwrap_or(usize::MAX), *o))
        .collect();
    order.sort_by_key(|(pos, o)| (*pos, o.index()));
    order.into_iter().map(|(_, o)| o).collect()
}

/// Byte offset of `$name` or `${name…}` in `tmpl`.
fn template_position(tmpl: &str, name: &str) -> Option<usize> {
    let b = tmpl.as_bytes();
    let mut from = 0;
    while let Some(rel) = tmpl[from..].find('$') {
        let at = from + rel;
        let rest = &tmpl[at + 1..];
        let ident = if let Some(inner) = rest.strip_prefix('{') {
            inner.split(['}', ':']).next().unwrap_or("")
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        };
        if ident == name {
            return Some(at);
        }
        from = at + 1;
        debug_assert!(from <= b.len());
    }
    None
}

fn describe_type(t: &OperandType) -> String {
    let mut s = t.name().to_string();
    match t.kind() {
        OperandKind::Reg => {
            if let Some(c) = t.class() {
                if c.name() != t.name() {
                    let _ = write!(s, " = {}", c.name());
                }
                let n = c.members().count();
                let _ = write!(s, " (register, {} bits, {n} registers)", c.bits());
            }
        }
        OperandKind::Imm => {
            s.push_str(" (immediate");
            if let Some(imm) = t.imm() {
                if imm.bits > 0 {
                    let _ = write!(s, ", {} bits", imm.bits);
                }
                match imm.signed {
                    Some(true) => s.push_str(", signed"),
                    Some(false) => s.push_str(", unsigned"),
                    None => {}
                }
                if let (Some(lo), Some(hi)) = (imm.min, imm.max) {
                    let _ = write!(s, ", {lo}..={hi}");
                }
                if imm.align > 1 {
                    let _ = write!(s, ", multiple of {}", imm.align);
                }
            }
            s.push(')');
        }
        OperandKind::Complex | OperandKind::Mem => {
            let subs: Vec<String> = t
                .sub_operands()
                .map(|(st, n)| {
                    if n.is_empty() {
                        st.name().to_string()
                    } else {
                        format!("{}:${n}", st.name())
                    }
                })
                .collect();
            let kind = if t.kind() == OperandKind::Mem {
                "memory"
            } else {
                "complex"
            };
            let _ = write!(s, " ({kind}: {})", subs.join(", "));
        }
        OperandKind::PcRel => s.push_str(" (pc-relative target)"),
        OperandKind::Ptr => s.push_str(" (pointer register)"),
        OperandKind::Other => s.push_str(" (other)"),
    }
    let methods: Vec<String> = [("print", t.print_method()), ("encode", t.encoder_method())]
        .iter()
        .filter(|(_, m)| !m.is_empty() && *m != "printOperand")
        .map(|(k, m)| format!("{k} {m}"))
        .collect();
    if !methods.is_empty() {
        let _ = write!(s, " [{}]", methods.join(", "));
    }
    s
}

/// The full description `winic show` prints.
pub fn show(i: &Instr) -> String {
    let mut s = String::new();
    let isa = i.isa();
    let _ = writeln!(s, "{} ({}, opcode {})", i.name(), isa.arch(), i.opcode());
    let _ = writeln!(s, "  assembly:   {}", i.asm_template().replace('\t', " "));
    let _ = writeln!(s, "  AsmString:  {:?}", i.asm_string());
    let _ = writeln!(s, "  operands (assembly order):");
    let ops: Vec<Operand> = i.operands().collect();
    for o in assembly_order(i) {
        let mut line = format!(
            "    ${:<14} {:<5} {}",
            o.name(),
            if o.is_def() { "write" } else { "read" },
            describe_type(&o.ty())
        );
        if let Some(t) = o.tied_to() {
            let _ = write!(line, "; tied to ${}", ops[t].name());
        }
        if o.early_clobber() {
            line.push_str("; early-clobber");
        }
        if !o.sub_names().is_empty() {
            let _ = write!(line, "; sub-operands ${}", o.sub_names().join(", $"));
        }
        let _ = writeln!(s, "{line}");
    }
    let list = |regs: Vec<String>| {
        if regs.is_empty() {
            "-".to_string()
        } else {
            regs.join(", ")
        }
    };
    let _ = writeln!(
        s,
        "  implicit reads:  {}",
        list(i.implicit_uses().map(|r| r.name().to_string()).collect())
    );
    let _ = writeln!(
        s,
        "  implicit writes: {}",
        list(i.implicit_defs().map(|r| r.name().to_string()).collect())
    );
    let _ = writeln!(
        s,
        "  flags:      {}",
        list(i.flags().names().map(str::to_string).collect())
    );
    let unknown: Vec<String> = i.unknown_flags().names().map(str::to_string).collect();
    if !unknown.is_empty() {
        let _ = writeln!(
            s,
            "  unset:      {} (LLVM infers these from patterns)",
            unknown.join(", ")
        );
    }
    let preds: Vec<String> = i
        .predicates()
        .map(|p| format!("{} ({})", p.name(), p.cond()))
        .collect();
    let _ = writeln!(s, "  predicates: {}", list(preds));
    let _ = writeln!(
        s,
        "  requires:   {}",
        i.required_features()
            .unwrap_or_else(|| "nothing beyond the base ISA".into())
    );
    s += &encoding(i);
    s += &example(i);
    s
}

/// The example instruction `winic selfcheck` proves for `i`: its text,
/// bytes and decode check, or why there is none.
fn example(i: &Instr) -> String {
    let t = arch::target(i.isa().arch());
    if t.runs_anyway(*i) {
        return match t.example(*i).map(|inst| crate::kernel::emit(t, &inst)) {
            Ok(Ok(line)) => format!(
                "  example:    {}\n  bytes:      {}  (decodes as intended; a kernel runs it)\n",
                line.text,
                line.bytes
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Ok(Err(e)) => format!("  example:    - ({e})\n"),
            Err(e) => format!("  example:    - ({e})\n"),
        };
    }
    if !encodable_operands(i) {
        return "  example:    - (PC-relative or special memory operand: selfcheck covers \
                register, immediate and plain memory forms)\n"
            .into();
    }
    let row = selfcheck::check_form(arch::target(i.isa().arch()), *i);
    let check = match &row.outcome {
        Outcome::Unencodable(why) => return format!("  example:    - (unencodable: {why})\n"),
        Outcome::Ok => "decodes as intended".to_string(),
        Outcome::Unchecked(why) => format!("unchecked: {why}"),
        Outcome::Mismatch(why) => format!("MISMATCH: {why}"),
    };
    let bytes: Vec<String> = row.bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "  example:    {}\n  bytes:      {}  ({check})\n",
        row.text,
        bytes.join(" ")
    )
}

fn encoding(i: &Instr) -> String {
    let mut s = String::new();
    match i.encoding() {
        Encoding::X86(e) => {
            let _ = writeln!(
                s,
                "  encoding:   {} map {} prefix {} opcode {:#04x} form {} ({}) imm {} opsize {} adsize {}",
                e.openc(),
                e.map(),
                e.prefix(),
                e.opcode(),
                e.form(),
                e.form_value(),
                e.immt(),
                e.opsize(),
                e.adsize()
            );
            let bits: Vec<&str> = e.bits().names().collect();
            if !bits.is_empty() {
                let _ = writeln!(s, "              {}", bits.join(" "));
            }
            let (scale, form, elt) = e.cd8();
            if scale != 0 || elt != 0 {
                let _ = writeln!(
                    s,
                    "              cd8 scale {scale} form {form} element size {elt}"
                );
            }
        }
        Encoding::Bits(b) => {
            let width = b.width() as usize;
            let mut pattern: Vec<char> = (0..width)
                .rev()
                .map(|bit| {
                    if b.known() >> bit & 1 == 0 {
                        '-'
                    } else if b.fixed() >> bit & 1 == 1 {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect();
            for f in b.fields() {
                for k in 0..f.width as usize {
                    pattern[width - 1 - (f.inst_lo as usize + k)] = 'x';
                }
            }
            let grouped: Vec<String> = pattern.chunks(4).map(|c| c.iter().collect()).collect();
            let _ = writeln!(
                s,
                "  encoding:   {} bits  {}  (fixed {:#x})",
                width,
                grouped.join(" "),
                b.fixed()
            );
            for f in b.fields() {
                let hi = f.inst_lo + f.width - 1;
                let vhi = f.var_lo + f.width - 1;
                let _ = writeln!(
                    s,
                    "              Inst[{hi}:{}] = {}[{vhi}:{}]",
                    f.inst_lo, f.var, f.var_lo
                );
            }
            if !b.post_encoder().is_empty() {
                let _ = writeln!(s, "              post-encoder {}", b.post_encoder());
            }
        }
        Encoding::None => {
            let _ = writeln!(s, "  encoding:   none (pseudo)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_names_operands_in_assembly_order_with_ties() {
        let i = find(Arch::X86_64, "ADC64ri32").unwrap();
        let order: Vec<&str> = assembly_order(&i).iter().map(|o| o.name()).collect();
        assert_eq!(order, ["src1", "src2", "dst"]);
        let text = show(&i);
        assert!(text.contains("$dst"), "{text}");
        assert!(text.contains("tied to $src1"), "{text}");
        assert!(text.contains("implicit reads:  EFLAGS"), "{text}");
        assert!(text.contains("opcode 0x81 form MRM2r"), "{text}");
    }

    #[test]
    fn show_prints_the_bit_layout() {
        let text = show(&find(Arch::Riscv64, "ADD").unwrap());
        assert!(
            text.contains("0000 000x xxxx xxxx x000 xxxx x011 0011"),
            "{text}"
        );
        assert!(text.contains("Inst[11:7] = rd[4:0]"), "{text}");
    }

    #[test]
    fn unknown_name_error_suggests_close_names() {
        let Err(Error::BadInput(msg)) = find(Arch::Aarch64, "ADDXrrr") else {
            panic!()
        };
        assert!(msg.contains("ADDXrr"), "{msg}");
    }

    #[test]
    fn filter_matches_names_and_mnemonics() {
        let q = ListQuery {
            arch: Arch::Riscv64,
            filter: Some("^ADD$"),
            all: false,
        };
        let names: Vec<&str> = select(&q).unwrap().iter().map(|i| i.name()).collect();
        assert_eq!(names, ["ADD"]);
        let q = ListQuery {
            arch: Arch::Riscv64,
            filter: Some("^vadd\\.vv$"),
            all: false,
        };
        assert_eq!(
            select(&q)
                .unwrap()
                .iter()
                .map(|i| i.name())
                .collect::<Vec<_>>(),
            ["VADD_VV"]
        );
        let bad = ListQuery {
            arch: Arch::Riscv64,
            filter: Some("("),
            all: false,
        };
        assert!(matches!(select(&bad), Err(Error::BadInput(_))));
    }
}
