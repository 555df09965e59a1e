//! What a RISC-V Linux host reports of itself: the `riscv_hwprobe` system
//! call (Linux 6.4+, `arch/riscv/include/uapi/asm/hwprobe.h`) and the `isa`
//! line of `/proc/cpuinfo` (`rv64imafdcv_zicbom_zba…`, every extension the
//! kernel knows), named as LLVM's features; the vector length from the
//! `vlenb` CSR. What an extension implies (`v` brings `zve64d`, `zvl128b`)
//! comes from LLVM ([`HostFeatures::new`]).

use crate::arch::host::{cpuinfo_value, HostFeatures};
use crate::isa::{Arch, Isa};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// `RISCV_HWPROBE_KEY_BASE_BEHAVIOR`.
pub const KEY_BASE_BEHAVIOR: i64 = 3;
/// `RISCV_HWPROBE_KEY_IMA_EXT_0`.
pub const KEY_IMA_EXT_0: i64 = 4;

/// Bits of `RISCV_HWPROBE_KEY_IMA_EXT_0` and the extension each reports.
const IMA_EXT_0: &[(u32, &str)] = &[
    (0, "f"), // IMA_FD: F and D
    (0, "d"),
    (1, "c"),
    (2, "v"),
    (3, "zba"),
    (4, "zbb"),
    (5, "zbs"),
    (6, "zicboz"),
    (7, "zbc"),
    (8, "zbkb"),
    (9, "zbkc"),
    (10, "zbkx"),
    (11, "zknd"),
    (12, "zkne"),
    (13, "zknh"),
    (14, "zksed"),
    (15, "zksh"),
    (16, "zkt"),
    (17, "zvbb"),
    (18, "zvbc"),
    (19, "zvkb"),
    (20, "zvkg"),
    (21, "zvkned"),
    (22, "zvknha"),
    (23, "zvknhb"),
    (24, "zvksed"),
    (25, "zvksh"),
    (26, "zvkt"),
    (27, "zfh"),
    (28, "zfhmin"),
    (29, "zihintntl"),
    (30, "zvfh"),
    (31, "zvfhmin"),
    (32, "zfa"),
    (33, "ztso"),
    (34, "zacas"),
    (35, "zicond"),
    (36, "zihintpause"),
    (37, "zve32x"),
    (38, "zve32f"),
    (39, "zve64x"),
    (40, "zve64f"),
    (41, "zve64d"),
    (42, "zimop"),
    (43, "zca"),
    (44, "zcb"),
    (45, "zcd"),
    (46, "zcf"),
    (47, "zcmop"),
    (48, "zawrs"),
    (50, "zicntr"),
    (51, "zihpm"),
    (52, "zfbfmin"),
    (53, "zvfbfmin"),
    (54, "zvfbfwma"),
    (55, "zicbom"),
    (56, "zaamo"),
    (57, "zalrsc"),
    (58, "zabha"),
];

/// What the host reported, before naming: the `isa` line of
/// `/proc/cpuinfo` and the hwprobe values, each where it was available.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Raw {
    /// The `isa` line's value (`rv64imafdc_zicsr…`).
    pub isa: Option<String>,
    /// `(BASE_BEHAVIOR, IMA_EXT_0)`.
    pub hwprobe: Option<(u64, u64)>,
}

/// The extensions an ISA string names: `rv64` gives `64bit`, each letter
/// of the base one extension (`g` = `imafd` with `zicsr` and `zifencei`,
/// `b` = `zba zbb zbs`), each `_`-separated word one more.
pub fn from_isa_string(isa: &str) -> Vec<String> {
    let isa = isa.trim().to_ascii_lowercase();
    let mut out = Vec::new();
    let rest = if let Some(r) = isa.strip_prefix("rv64") {
        out.push("64bit".to_string());
        r
    } else {
        isa.strip_prefix("rv32").unwrap_or(&isa)
    };
    let mut words = rest.split('_');
    for letter in words.next().unwrap_or("").chars() {
        match letter {
            'g' => out.extend(["i", "m", "a", "f", "d", "zicsr", "zifencei"].map(String::from)),
            'b' => out.extend(["zba", "zbb", "zbs"].map(String::from)),
            c if c.is_ascii_lowercase() => out.push(c.to_string()),
            _ => {} // version digits (`i2p1`) carry no extension
        }
    }
    out.extend(words.filter(|w| !w.is_empty()).map(str::to_string));
    out
}

/// The extensions the hwprobe values report: the base behaviour IMA is
/// `i`, `m`, `a` with `zicsr` and `zifencei` (user ISA 2.2), then the bits
/// of `IMA_EXT_0`.
pub fn from_hwprobe(base: u64, ext: u64) -> Vec<String> {
    let mut out = Vec::new();
    if base & 1 == 1 {
        out.extend(["i", "m", "a", "zicsr", "zifencei"].map(String::from));
    }
    out.extend(
        IMA_EXT_0
            .iter()
            .filter(|(bit, _)| ext >> bit & 1 == 1)
            .map(|(_, f)| f.to_string()),
    );
    out
}

/// Where [`features`] reads, as skip reasons name it.
pub const SOURCE: &str = "riscv_hwprobe and /proc/cpuinfo isa";

/// The features of `raw`, in LLVM's names: both sources together, and an
/// extension LLVM still calls experimental under that name too. With an
/// ISA string every feature is reportable (the string names them all);
/// with hwprobe alone only those of its bits. `None` when neither source
/// answered.
pub fn features(raw: &Raw) -> Option<HostFeatures> {
    if raw.isa.is_none() && raw.hwprobe.is_none() {
        return None;
    }
    let isa = Isa::get(Arch::Riscv64);
    let mut names: BTreeSet<String> = BTreeSet::new();
    if let Some(line) = &raw.isa {
        names.extend(from_isa_string(line));
    }
    if let Some((base, ext)) = raw.hwprobe {
        names.extend(from_hwprobe(base, ext));
        // hwprobe exists only on 64-bit kernels' RV64 processes here.
        names.insert("64bit".into());
    }
    let experimental: Vec<String> = names
        .iter()
        .map(|n| format!("experimental-{n}"))
        .filter(|e| isa.feature(e).is_some())
        .collect();
    names.extend(experimental);
    let reportable = raw.isa.is_none().then(|| {
        let mut r: BTreeSet<String> = from_hwprobe(1, u64::MAX).into_iter().collect();
        r.insert("64bit".into());
        r
    });
    let mut text = Vec::new();
    if let Some((base, ext)) = raw.hwprobe {
        text.push(format!(
            "hwprobe BASE_BEHAVIOR {base:#x} IMA_EXT_0 {ext:#x}"
        ));
    }
    if let Some(line) = &raw.isa {
        text.push(format!("isa {line}"));
    }
    Some(HostFeatures::new(
        Arch::Riscv64,
        SOURCE,
        text.join("; "),
        names,
        reportable,
    ))
}

/// This host's features and vector length in bits (`vlenb` × 8, when it
/// has vectors), read once; `None` when winic does not run on RISC-V or
/// the host reports nothing.
pub fn detected() -> Option<&'static (HostFeatures, Option<u32>)> {
    static HOST: OnceLock<Option<(HostFeatures, Option<u32>)>> = OnceLock::new();
    HOST.get_or_init(read).as_ref()
}

/// The raw values of this host.
pub fn read_raw() -> Raw {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    Raw {
        isa: cpuinfo_value(&cpuinfo, "isa")
            .filter(|v| v.starts_with("rv"))
            .map(str::to_string),
        hwprobe: hwprobe(),
    }
}

#[cfg(target_arch = "riscv64")]
fn hwprobe() -> Option<(u64, u64)> {
    #[repr(C)]
    struct Pair {
        key: i64,
        value: u64,
    }
    const NR_RISCV_HWPROBE: nix::libc::c_long = 258;
    let mut pairs = [
        Pair {
            key: KEY_BASE_BEHAVIOR,
            value: 0,
        },
        Pair {
            key: KEY_IMA_EXT_0,
            value: 0,
        },
    ];
    // SAFETY: the kernel writes only into `pairs` (2 entries, no CPU set).
    let r = unsafe {
        nix::libc::syscall(
            NR_RISCV_HWPROBE,
            pairs.as_mut_ptr(),
            pairs.len(),
            0usize,
            std::ptr::null_mut::<u8>(),
            0u32,
        )
    };
    // A key the kernel does not know comes back as -1.
    (r == 0 && pairs.iter().all(|p| p.key >= 0)).then(|| (pairs[0].value, pairs[1].value))
}

#[cfg(not(target_arch = "riscv64"))]
fn hwprobe() -> Option<(u64, u64)> {
    None
}

fn read() -> Option<(HostFeatures, Option<u32>)> {
    if cfg!(not(target_arch = "riscv64")) {
        return None;
    }
    let f = features(&read_raw())?;
    let vlen = (f.lookup("zve32x") == Some(true))
        .then(vlenb)
        .flatten()
        .map(|b| b * 8);
    Some((f, vlen))
}

/// The `vlenb` CSR (0xc22), read only when the host has vectors (it traps
/// otherwise).
#[cfg(target_arch = "riscv64")]
fn vlenb() -> Option<u32> {
    let v: u64;
    // SAFETY: reading vlenb has no side effect; the caller checked that
    // the vector extension exists.
    unsafe { std::arch::asm!("csrr {0}, 0xc22", out(reg) v) };
    Some(v as u32)
}

#[cfg(not(target_arch = "riscv64"))]
fn vlenb() -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isa_strings_and_hwprobe_bits_name_llvm_features() {
        assert_eq!(
            from_isa_string("rv64imafdcv_zba_zvl128b"),
            ["64bit", "i", "m", "a", "f", "d", "c", "v", "zba", "zvl128b"]
        );
        assert!(from_isa_string("rv64gc").contains(&"zifencei".to_string()));
        assert_eq!(
            from_hwprobe(1, 0b101),
            ["i", "m", "a", "zicsr", "zifencei", "f", "d", "v"]
        );
        let isa = Isa::get(Arch::Riscv64);
        for (_, f) in IMA_EXT_0 {
            assert!(
                isa.feature(f).is_some() || isa.feature(&format!("experimental-{f}")).is_some(),
                "{f} is no RISC-V feature of LLVM"
            );
        }
    }
}
