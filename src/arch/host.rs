//! What the machine winic runs on reports of itself, in LLVM's feature
//! names, for the arches whose kernels report features to user space as
//! bits or strings (AArch64: `AT_HWCAP`/`AT_HWCAP2`; RISC-V: `riscv_hwprobe`
//! and the `isa` line of `/proc/cpuinfo`). x86 asks CPUID per instruction
//! instead (`x86_64::host`). The per-arch modules turn their raw values into
//! a [`HostFeatures`]; this module decides forms against it.

use crate::isa::predicate::{eval, Verdict};
use crate::isa::{Arch, Instr, Isa};
use std::collections::BTreeSet;

/// A host's features as LLVM names, with LLVM's implications added
/// (`sve2` brings `sve`), and which features its source can report at all.
#[derive(Clone, Debug)]
pub struct HostFeatures {
    /// Where the features were read (`AT_HWCAP/AT_HWCAP2`).
    pub source: &'static str,
    /// The raw values read (`AT_HWCAP 0x… AT_HWCAP2 0x…`), for `winic host`
    /// and fixtures.
    pub raw: String,
    /// The features the host has.
    pub has: BTreeSet<String>,
    /// The features the source could report; any other one the host may or
    /// may not have. `None`: the source reports every feature (a complete
    /// ISA string), so an absent one is lacking.
    pub reportable: Option<BTreeSet<String>>,
}

impl HostFeatures {
    /// `names` and everything LLVM's records say they imply.
    pub fn new(
        arch: Arch,
        source: &'static str,
        raw: String,
        names: impl IntoIterator<Item = String>,
        reportable: Option<BTreeSet<String>>,
    ) -> HostFeatures {
        let isa = Isa::get(arch);
        let mut has = BTreeSet::new();
        for n in names {
            has.extend(isa.implied_features(&n).iter().map(|s| s.to_string()));
            has.insert(n);
        }
        let reportable = reportable.map(|r| {
            let mut all = r.clone();
            for n in &r {
                all.extend(isa.implied_features(n).iter().map(|s| s.to_string()));
            }
            all
        });
        HostFeatures {
            source,
            raw,
            has,
            reportable,
        }
    }

    /// Whether the host has `feature`: `None` when its source cannot tell.
    /// LLVM's `no-…` features are tuning switches no CPU reports: absent.
    pub fn lookup(&self, feature: &str) -> Option<bool> {
        if self.has.contains(feature) {
            return Some(true);
        }
        if feature.starts_with("no-") {
            return Some(false);
        }
        match &self.reportable {
            Some(r) if !r.contains(feature) => None,
            _ => Some(false),
        }
    }

    /// The verdict on `form`'s required features.
    pub fn verdict(&self, form: Instr) -> Verdict {
        match form.required_features() {
            None => Verdict::Has,
            Some(cond) => eval(&cond, &|f| self.lookup(f)),
        }
    }

    /// Why `form` cannot run here ("needs sve || sme, which this CPU lacks
    /// (AT_HWCAP …)"), or `None` when it can or the host cannot tell.
    pub fn lacks(&self, form: Instr) -> Option<String> {
        match self.verdict(form) {
            Verdict::Lacks(missing) => Some(format!(
                "needs {}, which this CPU lacks ({})",
                missing.join(" and "),
                self.source
            )),
            _ => None,
        }
    }

    /// The features of `form` the source cannot report (`tme, the`), when
    /// they alone decide whether it runs: a SIGILL then is the net, not a
    /// fault.
    pub fn cannot_tell(&self, form: Instr) -> Option<String> {
        match self.verdict(form) {
            Verdict::Unknown(u) => Some(u.join(", ")),
            _ => None,
        }
    }

    /// Every feature the host has, sorted: what `winic host` prints.
    pub fn names(&self) -> Vec<&str> {
        self.has.iter().map(String::as_str).collect()
    }
}

/// The value of `key` in the first block of a `/proc/cpuinfo` text
/// (`isa`, `model name`, `CPU part`).
pub fn cpuinfo_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}
