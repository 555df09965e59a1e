//! What the x86 CPU winic runs on supports, from CPUID and XCR0: the
//! features iced-x86 names for each instruction ([`CpuidFeature`]) looked
//! up by their CPUID bits (Intel SDM vol. 2A, CPUID; AMD APM vol. 3,
//! appendix E). LLVM's records name subtarget features, not CPUID bits, so
//! this one table is facts of the manuals, not a copy of LLVM data.

use iced_x86::CpuidFeature as F;

/// Where a feature's bit is: leaf, subleaf, register (0 EAX, 1 EBX, 2 ECX,
/// 3 EDX), bit.
type Bit = (u32, u32, u8, u8);

/// The CPUID bit of `f`, `Some(None)` for what every x86-64 CPU has, or
/// `None` when winic does not know (the SIGILL net decides).
fn bit(f: F) -> Option<Option<Bit>> {
    let b = |leaf, sub, reg, bit| Some(Some((leaf, sub, reg, bit)));
    match f {
        F::INTEL8086
        | F::INTEL186
        | F::INTEL286
        | F::INTEL386
        | F::INTEL486
        | F::X64
        | F::CPUID
        | F::MULTIBYTENOP
        | F::PAUSE
        | F::FPU387
        | F::FPU287
        | F::FPU => Some(None),
        // endbr32/endbr64 are NOPs on CPUs without CET.
        F::CET_IBT => Some(None),
        F::SSE3 => b(1, 0, 2, 0),
        F::PCLMULQDQ => b(1, 0, 2, 1),
        F::MONITOR => b(1, 0, 2, 3),
        F::VMX => b(1, 0, 2, 5),
        F::SMX => b(1, 0, 2, 6),
        F::SSSE3 => b(1, 0, 2, 9),
        F::FMA => b(1, 0, 2, 12),
        F::CMPXCHG16B => b(1, 0, 2, 13),
        F::SSE4_1 => b(1, 0, 2, 19),
        F::SSE4_2 => b(1, 0, 2, 20),
        F::MOVBE => b(1, 0, 2, 22),
        F::POPCNT => b(1, 0, 2, 23),
        F::AES => b(1, 0, 2, 25),
        F::XSAVE => b(1, 0, 2, 26),
        F::AVX => b(1, 0, 2, 28),
        F::F16C => b(1, 0, 2, 29),
        F::RDRAND => b(1, 0, 2, 30),
        F::TSC => b(1, 0, 3, 4),
        F::MSR => b(1, 0, 3, 5),
        F::CX8 => b(1, 0, 3, 8),
        F::SEP => b(1, 0, 3, 11),
        F::CMOV => b(1, 0, 3, 15),
        F::CLFSH => b(1, 0, 3, 19),
        F::MMX => b(1, 0, 3, 23),
        F::FXSR => b(1, 0, 3, 24),
        F::SSE => b(1, 0, 3, 25),
        F::SSE2 => b(1, 0, 3, 26),
        F::FSGSBASE => b(7, 0, 1, 0),
        F::BMI1 => b(7, 0, 1, 3),
        F::HLE => b(7, 0, 1, 4),
        F::AVX2 => b(7, 0, 1, 5),
        F::BMI2 => b(7, 0, 1, 8),
        F::INVPCID => b(7, 0, 1, 10),
        F::RTM => b(7, 0, 1, 11),
        F::MPX => b(7, 0, 1, 14),
        F::AVX512F => b(7, 0, 1, 16),
        F::AVX512DQ => b(7, 0, 1, 17),
        F::RDSEED => b(7, 0, 1, 18),
        F::ADX => b(7, 0, 1, 19),
        F::SMAP => b(7, 0, 1, 20),
        F::AVX512_IFMA => b(7, 0, 1, 21),
        F::CLFLUSHOPT => b(7, 0, 1, 23),
        F::CLWB => b(7, 0, 1, 24),
        F::AVX512PF => b(7, 0, 1, 26),
        F::AVX512ER => b(7, 0, 1, 27),
        F::AVX512CD => b(7, 0, 1, 28),
        F::SHA => b(7, 0, 1, 29),
        F::AVX512BW => b(7, 0, 1, 30),
        F::AVX512VL => b(7, 0, 1, 31),
        F::PREFETCHWT1 => b(7, 0, 2, 0),
        F::AVX512_VBMI => b(7, 0, 2, 1),
        F::PKU => b(7, 0, 2, 3),
        F::WAITPKG => b(7, 0, 2, 5),
        F::AVX512_VBMI2 => b(7, 0, 2, 6),
        F::CET_SS => b(7, 0, 2, 7),
        F::GFNI => b(7, 0, 2, 8),
        F::VAES => b(7, 0, 2, 9),
        F::VPCLMULQDQ => b(7, 0, 2, 10),
        F::AVX512_VNNI => b(7, 0, 2, 11),
        F::AVX512_BITALG => b(7, 0, 2, 12),
        F::AVX512_VPOPCNTDQ => b(7, 0, 2, 14),
        F::RDPID => b(7, 0, 2, 22),
        F::KL => b(7, 0, 2, 23),
        F::CLDEMOTE => b(7, 0, 2, 25),
        F::MOVDIRI => b(7, 0, 2, 27),
        F::MOVDIR64B => b(7, 0, 2, 28),
        F::ENQCMD => b(7, 0, 2, 29),
        F::AVX512_4VNNIW => b(7, 0, 3, 2),
        F::AVX512_4FMAPS => b(7, 0, 3, 3),
        F::UINTR => b(7, 0, 3, 5),
        F::AVX512_VP2INTERSECT => b(7, 0, 3, 8),
        F::SERIALIZE => b(7, 0, 3, 14),
        F::TSXLDTRK => b(7, 0, 3, 16),
        F::PCONFIG => b(7, 0, 3, 18),
        F::AMX_BF16 => b(7, 0, 3, 22),
        F::AVX512_FP16 => b(7, 0, 3, 23),
        F::AMX_TILE => b(7, 0, 3, 24),
        F::AMX_INT8 => b(7, 0, 3, 25),
        F::SHA512 => b(7, 1, 0, 0),
        F::SM3 => b(7, 1, 0, 1),
        F::SM4 => b(7, 1, 0, 2),
        F::RAO_INT => b(7, 1, 0, 3),
        F::AVX_VNNI => b(7, 1, 0, 4),
        F::AVX512_BF16 => b(7, 1, 0, 5),
        F::CMPCCXADD => b(7, 1, 0, 7),
        F::FRED => b(7, 1, 0, 17),
        F::LKGS => b(7, 1, 0, 18),
        F::WRMSRNS => b(7, 1, 0, 19),
        F::AMX_FP16 => b(7, 1, 0, 21),
        F::HRESET => b(7, 1, 0, 22),
        F::AVX_IFMA => b(7, 1, 0, 23),
        F::MSRLIST => b(7, 1, 0, 27),
        F::AVX_VNNI_INT8 => b(7, 1, 3, 4),
        F::AVX_VNNI_INT16 => b(7, 1, 3, 10),
        // Key Locker's AES instructions (Intel SDM: CPUID leaf 19H).
        F::AESKLE => b(0x19, 0, 1, 0),
        F::WIDE_KL => b(0x19, 0, 1, 2),
        F::AVX_NE_CONVERT => b(7, 1, 3, 5),
        F::AMX_COMPLEX => b(7, 1, 3, 8),
        F::PREFETCHITI => b(7, 1, 3, 14),
        F::XSAVEOPT => b(0xd, 1, 0, 0),
        F::XSAVEC => b(0xd, 1, 0, 1),
        F::XSAVES => b(0xd, 1, 0, 3),
        F::PTWRITE => b(0x14, 0, 1, 4),
        F::SVM => b(0x8000_0001, 0, 2, 2),
        F::LZCNT => b(0x8000_0001, 0, 2, 5),
        F::SSE4A => b(0x8000_0001, 0, 2, 6),
        F::PREFETCHW => b(0x8000_0001, 0, 2, 8),
        F::XOP => b(0x8000_0001, 0, 2, 11),
        F::SKINIT => b(0x8000_0001, 0, 2, 12),
        F::LWP => b(0x8000_0001, 0, 2, 15),
        F::FMA4 => b(0x8000_0001, 0, 2, 16),
        F::TBM => b(0x8000_0001, 0, 2, 21),
        F::MONITORX => b(0x8000_0001, 0, 2, 29),
        F::SYSCALL => b(0x8000_0001, 0, 3, 11),
        F::RDTSCP => b(0x8000_0001, 0, 3, 27),
        F::D3NOWEXT => b(0x8000_0001, 0, 3, 30),
        F::D3NOW => b(0x8000_0001, 0, 3, 31),
        F::CLZERO => b(0x8000_0008, 0, 1, 0),
        F::INVLPGB => b(0x8000_0008, 0, 1, 3),
        F::RDPRU => b(0x8000_0008, 0, 1, 4),
        F::MCOMMIT => b(0x8000_0008, 0, 1, 8),
        F::WBNOINVD => b(0x8000_0008, 0, 1, 9),
        _ => None,
    }
}

/// Whether CPUID has a bit for `f` (not a feature of every x86-64 CPU).
pub fn bit_known(f: F) -> bool {
    matches!(bit(f), Some(Some(_)))
}

/// Whether this CPU has `f`: `Some(bool)` from CPUID (and, for AVX and
/// AVX-512, whether the OS saves their registers: XCR0), `None` when winic
/// does not know the feature's bit or does not run on x86.
pub fn has(f: F) -> Option<bool> {
    if let Some(lacking) = ASSUMED.get() {
        if lacking.contains(&f) {
            return Some(false);
        }
        if f == F::HLE_or_RTM {
            return Some(has(F::HLE)? || has(F::RTM)?);
        }
        return bit(f).map(|_| true);
    }
    if f == F::HLE_or_RTM {
        // xtest: either TSX half (Intel SDM).
        return Some(has(F::HLE)? || has(F::RTM)?);
    }
    #[cfg(target_arch = "x86_64")]
    if is_padlock(f) && !centaur() {
        // VIA's and Zhaoxin's PadLock (xstore, xcrypt*): their own CPUID
        // leaf C000_0001H, which other vendors do not define. Elsewhere
        // absent; on theirs the SIGILL net decides.
        return Some(false);
    }
    let bit = bit(f)?;
    #[cfg(target_arch = "x86_64")]
    {
        let Some((leaf, sub, reg, b)) = bit else {
            return Some(true);
        };
        Some(cpuid_bit(leaf, sub, reg, b) && os_saves(f))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = bit;
        None
    }
}

#[cfg(target_arch = "x86_64")]
fn cpuid_bit(leaf: u32, sub: u32, reg: u8, bit: u8) -> bool {
    use std::arch::x86_64::__cpuid_count;
    // CPUID exists on every x86-64 CPU (safe since Rust 1.87); leaves
    // above the maximum are checked first.
    let max = __cpuid_count(leaf & 0x8000_0000, 0).eax;
    if leaf > max {
        return false;
    }
    let r = __cpuid_count(leaf, sub);
    let v = [r.eax, r.ebx, r.ecx, r.edx][reg as usize];
    v >> bit & 1 == 1
}

#[cfg(target_arch = "x86_64")]
fn is_padlock(f: F) -> bool {
    matches!(
        f,
        F::PADLOCK_ACE
            | F::PADLOCK_PHE
            | F::PADLOCK_PMM
            | F::PADLOCK_RNG
            | F::PADLOCK_GMI
            | F::PADLOCK_UNDOC
    )
}

/// Whether the CPU is VIA's (`CentaurHauls`) or Zhaoxin's (`  Shanghai  `).
#[cfg(target_arch = "x86_64")]
fn centaur() -> bool {
    let vendor = vendor();
    vendor == b"CentaurHauls" || vendor == b"  Shanghai  "
}

/// CPUID's vendor string (`GenuineIntel`, `AuthenticAMD`), as bytes.
#[cfg(target_arch = "x86_64")]
fn vendor() -> Vec<u8> {
    let r = std::arch::x86_64::__cpuid_count(0, 0);
    [r.ebx, r.edx, r.ecx]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// Whether the OS enabled the register state `f` needs (XCR0): SSE and
/// AVX state for AVX forms, plus the opmask and upper ZMM state for
/// AVX-512 ones.
#[cfg(target_arch = "x86_64")]
fn os_saves(f: F) -> bool {
    let name = format!("{f:?}");
    let need: u64 = if name.starts_with("AVX512") {
        0xe6
    } else if name.starts_with("AVX") || matches!(f, F::FMA | F::F16C | F::VAES | F::VPCLMULQDQ) {
        0x6
    } else {
        return true;
    };
    if !cpuid_bit(1, 0, 2, 27) {
        return false; // no OSXSAVE: no XGETBV, no AVX state
    }
    // SAFETY: OSXSAVE is set, so XGETBV with ECX = 0 is valid.
    let xcr0 = unsafe { std::arch::x86_64::_xgetbv(0) };
    xcr0 & need == need
}

/// The features a replay's recorded host lacked ([`assume_lacking`]):
/// [`has`] answers by them instead of CPUID.
static ASSUMED: std::sync::OnceLock<Vec<F>> = std::sync::OnceLock::new();

/// Every feature this CPU lacks ([`has`] says `Some(false)`), by iced's
/// names: what a raw file records of an x86 host.
pub fn lacking() -> Vec<String> {
    F::values()
        .filter(|f| *f != F::HLE_or_RTM && has(*f) == Some(false))
        .map(|f| format!("{f:?}"))
        .collect()
}

/// From now on [`has`] answers as a CPU lacking exactly `names` (iced's
/// names, as [`lacking`] gave them), on any machine. Once per process.
pub fn assume_lacking(names: &[String]) -> Result<(), String> {
    let mut lacking = Vec::new();
    for n in names {
        match F::values().find(|f| format!("{f:?}") == *n) {
            Some(f) => lacking.push(f),
            None => return Err(format!("{n}: no CPUID feature of this winic")),
        }
    }
    lacking.sort_by_key(|f| *f as u32);
    let set = ASSUMED.get_or_init(|| lacking.clone());
    if *set != lacking {
        return Err("another recorded host was assumed before".into());
    }
    Ok(())
}

/// CPUID's vendor, family, model and stepping (`AuthenticAMD family 0x1a
/// model 0x2 stepping 0x0`), on x86.
pub fn identity() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let a = std::arch::x86_64::__cpuid_count(1, 0).eax;
        let base = (a >> 8) & 0xf;
        let family = base + if base == 0xf { (a >> 20) & 0xff } else { 0 };
        let model = ((a >> 4) & 0xf) | (((a >> 16) & 0xf) << 4);
        Some(format!(
            "{} family {family:#x} model {model:#x} stepping {:#x}",
            String::from_utf8_lossy(&vendor()),
            a & 0xf
        ))
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// The features of `code` this CPU lacks, by iced's names.
pub fn missing(code: iced_x86::Code) -> Vec<String> {
    code.cpuid_features()
        .iter()
        .filter(|f| has(**f) == Some(false))
        .map(|f| format!("{f:?}"))
        .collect()
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn the_base_isa_is_there_and_answers_agree_with_std() {
        assert_eq!(has(F::X64), Some(true));
        assert_eq!(has(F::SSE2), Some(true));
        use std::arch::is_x86_feature_detected as detected;
        let std_says = [
            (F::AVX2, detected!("avx2")),
            (F::AVX512F, detected!("avx512f")),
            (F::BMI2, detected!("bmi2")),
            (F::LZCNT, detected!("lzcnt")),
            (F::SHA, detected!("sha")),
            (F::AVX512_VBMI2, detected!("avx512vbmi2")),
            // Ran into the SIGILL net on Zen 4: no bits known before.
            (F::AVX_VNNI_INT16, detected!("avxvnniint16")),
            (F::AESKLE, detected!("kl")),
            (F::WIDE_KL, detected!("widekl")),
            (F::RTM, detected!("rtm")),
        ];
        for (feature, present) in std_says {
            assert_eq!(has(feature), Some(present), "{feature:?}");
        }
        assert!(missing(iced_x86::Code::Add_rm64_r64).is_empty());
        // xtest needs either half of TSX; SIGILLed on Zen 4 (neither).
        assert_eq!(
            has(F::HLE_or_RTM),
            Some(has(F::HLE) == Some(true) || has(F::RTM) == Some(true))
        );
        // PadLock: absent on Intel and AMD (no leaf C000_0001H there).
        if !centaur() {
            assert_eq!(has(F::PADLOCK_RNG), Some(false));
            assert_eq!(missing(iced_x86::Code::Xstore_16), ["PADLOCK_RNG"]);
        }
    }
}
