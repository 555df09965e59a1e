//! What an AArch64 Linux host reports of itself: the bits of `AT_HWCAP` and
//! `AT_HWCAP2` (Linux, `arch/arm64/include/uapi/asm/hwcap.h`), named as
//! LLVM's features, and the SVE and SME vector lengths (`prctl`). The table
//! is the kernel's ABI, which LLVM's records do not hold; what a feature
//! implies comes from LLVM ([`HostFeatures::new`]).

use crate::arch::host::HostFeatures;
use crate::isa::Arch;
use std::sync::OnceLock;

/// `AT_HWCAP` bits and the LLVM feature each reports.
const HWCAP: &[(u32, &str)] = &[
    (0, "fp-armv8"),
    (1, "neon"),
    (3, "aes"),
    (6, "sha2"),
    (7, "crc"),
    (8, "lse"),
    (9, "fullfp16"),
    (12, "rdm"),
    (13, "jsconv"),
    (14, "complxnum"),
    (15, "rcpc"),
    (16, "ccpp"),
    (17, "sha3"),
    (19, "sm4"),
    (20, "dotprod"),
    (22, "sve"),
    (23, "fp16fml"),
    (24, "dit"),
    (26, "rcpc-immo"),
    (27, "flagm"),
    (28, "ssbs"),
    (29, "sb"),
    (30, "pauth"),
    (32, "gcs"),
];

/// `AT_HWCAP2` bits and the LLVM feature each reports.
const HWCAP2: &[(u32, &str)] = &[
    (0, "ccdp"),
    (1, "sve2"),
    (2, "sve2-aes"),
    (4, "sve2-bitperm"),
    (5, "sve2-sha3"),
    (6, "sve2-sm4"),
    (7, "altnzcv"),
    (8, "fptoint"),
    (10, "f32mm"),
    (11, "f64mm"),
    (13, "i8mm"),
    (14, "bf16"),
    (16, "rand"),
    (17, "bti"),
    (18, "mte"),
    (19, "ecv"),
    (23, "sme"),
    (24, "sme-i16i64"),
    (25, "sme-f64f64"),
    (30, "sme-fa64"),
    (31, "wfxt"),
    (34, "cssc"),
    (36, "sve2p1"),
    (37, "sme2"),
    (38, "sme2p1"),
    (41, "sme-b16b16"),
    (42, "sme-f16f16"),
    (43, "mops"),
    (44, "hbc"),
    (45, "sve-b16b16"),
    (46, "rcpc3"),
    (47, "lse128"),
    (49, "lut"),
    (50, "faminmax"),
    (51, "fp8"),
    (52, "fp8fma"),
    (53, "fp8dot4"),
    (54, "fp8dot2"),
    (57, "sme-lutv2"),
    (58, "sme-f8f16"),
    (59, "sme-f8f32"),
    (60, "ssve-fp8fma"),
    (61, "ssve-fp8dot4"),
    (62, "ssve-fp8dot2"),
];

/// Where [`from_hwcaps`] reads.
pub const SOURCE: &str = "AT_HWCAP/AT_HWCAP2";

/// The features `hwcap` and `hwcap2` report.
pub fn from_hwcaps(hwcap: u64, hwcap2: u64) -> HostFeatures {
    let set = |word: u64, table: &[(u32, &str)]| -> Vec<String> {
        table
            .iter()
            .filter(|(bit, _)| word >> bit & 1 == 1)
            .map(|(_, f)| f.to_string())
            .collect()
    };
    let mut names = set(hwcap, HWCAP);
    names.extend(set(hwcap2, HWCAP2));
    let reportable = HWCAP.iter().chain(HWCAP2).map(|(_, f)| f.to_string());
    HostFeatures::new(
        Arch::Aarch64,
        SOURCE,
        format!("AT_HWCAP {hwcap:#x} AT_HWCAP2 {hwcap2:#x}"),
        names,
        Some(reportable.collect()),
    )
}

/// Whether `form` runs in streaming mode with ZA on: its predicates hold
/// with SME's features and not without them (`sme`, `sme2`; not `sve ||
/// sme`, which runs outside streaming mode where SVE is there). Decided
/// with this host's features, or, where winic does not run on AArch64,
/// as if every feature were there.
pub fn needs_streaming(form: crate::isa::Instr) -> bool {
    use crate::isa::predicate::{eval, Verdict};
    let Some(cond) = form.required_features() else {
        return false;
    };
    let host = |f: &str| detected().map_or(Some(true), |(h, _)| h.lookup(f));
    let is_sme = |f: &str| f.starts_with("sme") || f.starts_with("ssve");
    let outside = eval(&cond, &|f| if is_sme(f) { Some(false) } else { host(f) });
    let inside = eval(&cond, &host);
    matches!(outside, Verdict::Lacks(_)) && !matches!(inside, Verdict::Lacks(_))
}

/// The SVE and SME (streaming) vector lengths in bits, where the host has
/// them (`prctl(PR_SVE_GET_VL)`, `prctl(PR_SME_GET_VL)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VectorLengths {
    /// SVE, outside streaming mode.
    pub sve: Option<u32>,
    /// SME's streaming vector length.
    pub sme: Option<u32>,
}

/// This host's features and vector lengths, read once; `None` when winic
/// does not run on AArch64.
pub fn detected() -> Option<&'static (HostFeatures, VectorLengths)> {
    static HOST: OnceLock<Option<(HostFeatures, VectorLengths)>> = OnceLock::new();
    HOST.get_or_init(read).as_ref()
}

#[cfg(target_arch = "aarch64")]
fn read() -> Option<(HostFeatures, VectorLengths)> {
    use nix::libc;
    // SAFETY: getauxval and these prctl requests only read process state.
    let (hwcap, hwcap2) = unsafe {
        (
            libc::getauxval(libc::AT_HWCAP),
            libc::getauxval(libc::AT_HWCAP2),
        )
    };
    const PR_SVE_GET_VL: libc::c_int = 51;
    const PR_SME_GET_VL: libc::c_int = 64;
    let vl = |request| {
        let r = unsafe { libc::prctl(request, 0, 0, 0, 0) };
        (r > 0).then(|| (r as u32 & 0xffff) * 8)
    };
    Some((
        from_hwcaps(hwcap, hwcap2),
        VectorLengths {
            sve: vl(PR_SVE_GET_VL),
            sme: vl(PR_SME_GET_VL),
        },
    ))
}

#[cfg(not(target_arch = "aarch64"))]
fn read() -> Option<(HostFeatures, VectorLengths)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Isa;

    #[test]
    fn every_hwcap_names_an_llvm_feature() {
        let isa = Isa::get(Arch::Aarch64);
        for (_, f) in HWCAP.iter().chain(HWCAP2) {
            assert!(
                isa.feature(f).is_some(),
                "{f} is no AArch64 feature of LLVM"
            );
        }
    }
}
