//! Feature detection on AArch64 and RISC-V hosts, from the values recorded
//! under qemu-user CPU models (tests/fixtures/host-features.yaml): the raw
//! bits and strings map to LLVM's features, and a CPU model without SVE,
//! SME or V is found lacking exactly for the forms whose predicates need
//! them, with the feature named.

use std::collections::BTreeMap;
use winic::arch::aarch64::host::from_hwcaps;
use winic::arch::host::HostFeatures;
use winic::arch::riscv64::host::{features, Raw};
use winic::isa::predicate::Verdict;
use winic::isa::{Arch, Instr, Isa};

#[derive(serde::Deserialize)]
struct Aarch64Model {
    hwcap: u64,
    hwcap2: u64,
}

#[derive(serde::Deserialize)]
struct RiscvModel {
    hwprobe: (u64, u64),
    isa: String,
}

#[derive(serde::Deserialize)]
struct Fixture {
    aarch64: BTreeMap<String, Aarch64Model>,
    riscv64: BTreeMap<String, RiscvModel>,
}

fn fixture() -> Fixture {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/host-features.yaml"
    );
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn aarch64(model: &str) -> HostFeatures {
    let m = &fixture().aarch64[model];
    from_hwcaps(m.hwcap, m.hwcap2)
}

fn riscv64(model: &str) -> HostFeatures {
    let m = &fixture().riscv64[model];
    features(&Raw {
        isa: Some(m.isa.clone()),
        hwprobe: Some(m.hwprobe),
    })
    .unwrap()
}

/// Whether `cond` names a feature for which `word` holds.
fn names(cond: &str, word: impl Fn(&str) -> bool) -> bool {
    cond.split(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .any(word)
}

fn real(arch: Arch) -> impl Iterator<Item = Instr> {
    Isa::get(arch).real_instrs()
}

#[test]
fn aarch64_models_map_to_llvm_features() {
    let max = aarch64("max");
    for f in [
        "neon",
        "fp-armv8",
        "fullfp16",
        "sve",
        "sve2",
        "sme",
        "bf16",
        "i8mm",
        "dotprod",
        "lse",
        "mops",
        "sve2-bitperm",
        "sme-f64f64",
        "sme-i16i64",
        "sme-fa64",
    ] {
        assert_eq!(max.lookup(f), Some(true), "-cpu max: {f}");
    }
    // qemu 10.0's user mode reports neither SME2 nor SVE2.1 nor CSSC in
    // AT_HWCAP2 (bits 37, 36, 34 clear): by the kernel's ABI they are absent.
    for f in ["sme2", "sve2p1", "cssc"] {
        assert_eq!(max.lookup(f), Some(false), "-cpu max: {f}");
    }
    let n1 = aarch64("neoverse-n1");
    for f in [
        "neon", "fp-armv8", "fullfp16", "lse", "dotprod", "rcpc", "crc",
    ] {
        assert_eq!(n1.lookup(f), Some(true), "neoverse-n1: {f}");
    }
    for f in ["sve", "sve2", "sme", "bf16", "i8mm", "mte", "pauth"] {
        assert_eq!(n1.lookup(f), Some(false), "neoverse-n1: {f}");
    }
    // No HWCAP reports TME: neither present nor absent.
    assert_eq!(n1.lookup("tme"), None);
    let v1 = aarch64("neoverse-v1");
    assert_eq!(v1.lookup("sve"), Some(true));
    assert_eq!(v1.lookup("sve2"), Some(false));
}

#[test]
fn neoverse_n1_lacks_exactly_the_sve_and_sme_forms_and_names_the_feature() {
    let n1 = aarch64("neoverse-n1");
    let (mut vector, mut lacking) = (0, 0);
    for form in real(Arch::Aarch64) {
        let cond = form.required_features().unwrap_or_default();
        let scalable = names(&cond, |w| w.starts_with("sve") || w.starts_with("sme"));
        let reason = n1.lacks(form);
        if scalable {
            vector += 1;
            let reason = reason.unwrap_or_else(|| panic!("{} ({cond}) not lacking", form.name()));
            assert!(
                reason.contains("sve") || reason.contains("sme"),
                "{}: {reason}",
                form.name()
            );
            assert!(reason.contains("AT_HWCAP"), "{reason}");
        }
        lacking += usize::from(n1.lacks(form).is_some());
    }
    assert!(vector > 2500, "only {vector} SVE/SME forms");
    // Neoverse N1 is Armv8.2: NEON and the base run.
    let isa = Isa::get(Arch::Aarch64);
    for name in ["ADDXrs", "FMLAv2f64", "ADDv4i32", "LDADDX", "FMULHrr"] {
        assert_eq!(n1.lacks(isa.instr(name).unwrap()), None, "{name}");
    }
    assert!(n1.lacks(isa.instr("ABS_ZPmZ_B").unwrap()).is_some());
    eprintln!("neoverse-n1: {lacking} real forms lacking, {vector} of them SVE/SME");
}

#[test]
fn qemu_max_has_every_sve_and_sme_form_it_implements() {
    let max = aarch64("max");
    let isa = Isa::get(Arch::Aarch64);
    for name in [
        "ABS_ZPmZ_B",
        "FMLA_ZPmZZ_D",
        "ADDHA_MPPZ_S",
        "FMOPA_MPPZZ_S",
        "BFMMLA_ZZZ",
    ] {
        let form = isa.instr(name).unwrap();
        assert_eq!(
            max.verdict(form),
            Verdict::Has,
            "{name}: {:?}",
            form.required_features()
        );
    }
}

#[test]
fn riscv_models_map_to_llvm_features() {
    let max = riscv64("max");
    for f in [
        "64bit", "v", "zve32x", "zve64d", "zvl128b", "zba", "zbb", "zfh", "zvfh", "zicond", "zacas",
    ] {
        assert_eq!(max.lookup(f), Some(true), "-cpu max: {f}");
    }
    // Vendor extensions are absent: the ISA string names every extension.
    assert_eq!(max.lookup("xtheadba"), Some(false));
    let rva22 = riscv64("rva22u64");
    for f in [
        "64bit", "m", "a", "f", "d", "c", "zba", "zbb", "zbs", "zicbom",
    ] {
        assert_eq!(rva22.lookup(f), Some(true), "rva22u64: {f}");
    }
    for f in ["v", "zve32x", "zve32f", "zve64x", "zfh", "zvbb"] {
        assert_eq!(rva22.lookup(f), Some(false), "rva22u64: {f}");
    }
    assert_eq!(riscv64("rva23u64").lookup("zve64d"), Some(true));
}

#[test]
fn rva22u64_lacks_exactly_the_vector_forms_and_names_the_extension() {
    let rva22 = riscv64("rva22u64");
    let max = riscv64("max");
    let mut vector = 0;
    for form in real(Arch::Riscv64) {
        let cond = form.required_features().unwrap_or_default();
        if names(&cond, |w| w.starts_with("zv")) {
            vector += 1;
            let reason = rva22
                .lacks(form)
                .unwrap_or_else(|| panic!("{} ({cond}) not lacking", form.name()));
            assert!(reason.contains("zv"), "{}: {reason}", form.name());
            assert!(reason.contains("riscv_hwprobe"), "{reason}");
        }
        // Nothing is left to chance where the ISA string answers.
        assert!(
            !matches!(max.verdict(form), Verdict::Unknown(_)),
            "{}: {cond}",
            form.name()
        );
    }
    assert!(vector > 600, "only {vector} vector forms");
    let isa = Isa::get(Arch::Riscv64);
    for name in ["ADD", "SH1ADD", "FMADD_D", "C_ADD"] {
        assert_eq!(rva22.lacks(isa.instr(name).unwrap()), None, "{name}");
    }
    assert_eq!(max.lacks(isa.instr("VADD_VV").unwrap()), None);
    let th = max.lacks(isa.instr("TH_ADDSL").unwrap()).unwrap();
    assert!(th.contains("xtheadba"), "{th}");
}
