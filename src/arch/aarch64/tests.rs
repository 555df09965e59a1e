//! Tests of the AArch64 encoder, printer and check.

use super::*;
use crate::isa::Isa;

fn all_forms() -> impl Iterator<Item = Instr> {
    Isa::get(Arch::Aarch64).real_instrs().filter(reg_imm_only)
}

/// Writes `name\ttext\thex` (or the error) for every reg/imm form to the
/// file named by `WINIC_A64_DUMP`; the llvm-mc cross-check reads it.
#[test]
#[ignore]
fn dump_examples() {
    let Ok(path) = std::env::var("WINIC_A64_DUMP") else {
        return;
    };
    let t = AArch64;
    let mut out = String::new();
    for form in all_forms() {
        let row = t
            .example(form)
            .and_then(|i| Ok((t.print(&i)?, t.encode(&i)?, i)));
        match row {
            Ok((text, bytes, inst)) => {
                let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let c = t.check(&inst, &bytes, &text);
                out.push_str(&format!("{}\t{text}\t{hex}\t{c:?}\n", form.name()));
            }
            Err(e) => out.push_str(&format!("{}\tERR\t{e}\n", form.name())),
        }
    }
    std::fs::write(path, out).unwrap();
}
