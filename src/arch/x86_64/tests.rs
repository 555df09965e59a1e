use super::*;
use crate::arch::reg_imm_only;
use std::collections::BTreeMap;

fn isa() -> &'static Isa {
    Isa::get(Arch::X86_64)
}

/// Runs example/encode/print/check over every reg/imm form; returns
/// (ok, unchecked, mismatch, unsupported) with reasons, and writes the
/// rows to `WINIC_X86_DUMP` when set (for the llvm-mc cross-check).
fn sweep() -> (usize, BTreeMap<String, usize>, Vec<String>, BTreeMap<String, usize>) {
    let t = X86_64;
    let (mut ok, mut unchecked, mut mism, mut unsup) = (0, BTreeMap::new(), Vec::new(), BTreeMap::new());
    let mut dump = String::new();
    for form in isa().real_instrs().filter(reg_imm_only) {
        let inst = match t.example(form) {
            Ok(i) => i,
            Err(e) => {
                *unsup.entry(e.to_string()).or_insert(0) += 1;
                continue;
            }
        };
        let bytes = t.encode(&inst).unwrap_or_else(|e| panic!("{}: {e}", form.name()));
        let text = t.print(&inst).unwrap_or_else(|e| panic!("{}: {e}", form.name()));
        dump.push_str(&format!("{}\t{}\t{}\n", form.name(), text, checker_hex(&bytes)));
        match t.check(&inst, &bytes, &text) {
            Check::Ok => ok += 1,
            Check::Unchecked(r) => *unchecked.entry(r).or_insert(0) += 1,
            Check::Mismatch(m) => mism.push(format!("{}: {m}", form.name())),
        }
    }
    if let Ok(path) = std::env::var("WINIC_X86_DUMP") {
        std::fs::write(path, dump).expect("dump");
    }
    (ok, unchecked, mism, unsup)
}

fn checker_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

#[test]
fn every_reg_imm_form_encodes_prints_and_checks() {
    let (ok, unchecked, mism, unsup) = sweep();
    eprintln!("ok {ok}");
    eprintln!("unchecked {unchecked:#?}");
    let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
    for (k, v) in &unsup {
        let key: String = k.chars().take(60).collect();
        *grouped.entry(key).or_insert(0) += v;
    }
    eprintln!("unsupported {grouped:#?}");
    for m in mism.iter().take(400) {
        eprintln!("MISMATCH {m}");
    }
    eprintln!("mismatch {}", mism.len());
}
