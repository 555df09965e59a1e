//! Features a host's feature source cannot report, decided by trying one
//! instruction. Linux has no `AT_HWCAP` bit for some AArch64 features LLVM
//! predicates name (`tme`, `cpa`, `ite`), and `riscv_hwprobe` knows only a
//! subset of the `z…` extensions: a form needing such a feature alone would
//! run and die of SIGILL, one form after another. Instead the first time a
//! form's verdict hangs on such a feature, winic runs the throughput kernel
//! of one form that needs it and nothing else unknown (a probe) in a forked
//! child: it ran, the host has the feature; SIGILL, it lacks it. Every form
//! needing the feature is then decided before anything is measured, and
//! the reason names the probe. A probe that dies otherwise, or a feature no
//! form can probe, leaves the feature unknown: the SIGILL net stays.
//!
//! The `Target`s answer from their feature sources only and never fork;
//! [`host_lacks`], [`host_cannot_tell`] and [`host_report`] are the
//! answers with the probes, which the run modes ask.

use crate::arch::host::HostFeatures;
use crate::arch::{target, Target};
use crate::exec::once;
use crate::exec::ChildError;
use crate::isa::predicate::{eval, Verdict};
use crate::isa::{Arch, Instr, Isa};
use crate::kernel::shape;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// What a probe found for one feature.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// The form whose kernel ran.
    pub form: Instr,
    /// Whether it ran (`false`: it died of SIGILL).
    pub has: bool,
}

/// Candidates tried per feature before it is left unknown: a kernel that
/// does not build or dies of something other than SIGILL says nothing.
const TRIES: usize = 3;

/// How long one probe may run.
const DEADLINE: Duration = Duration::from_secs(20);

/// The forms that can probe `feature` on `host`, best first: their verdict
/// hangs on `feature` alone and no kernel rule keeps them from running.
/// Forms needing fewer features come first (`ADDPT` before SVE's `ADDPT`),
/// then by name, so every run picks the same probe.
pub fn candidates(t: &dyn Target, host: &HostFeatures, feature: &str) -> Vec<Instr> {
    let want = Verdict::Unknown(vec![feature.to_string()]);
    let mut found: Vec<(usize, Instr)> = Isa::get(t.arch())
        .real_instrs()
        .filter(|f| host.verdict(*f) == want)
        .filter(|f| shape::skip_reason(t, *f).is_none())
        .map(|f| (f.required_features().map_or(0, |c| c.len()), f))
        .collect();
    found.sort_by_key(|(len, f)| (*len, f.name()));
    found.into_iter().map(|(_, f)| f).collect()
}

/// Whether the host has `feature`, by probe: `None` when winic does not
/// run on `t`'s arch, LLVM knows no such feature of it (a C++ condition),
/// no form can probe it, or no probe decided. Each feature is probed once per process.
pub fn feature(t: &dyn Target, host: &HostFeatures, feature: &str) -> Option<Probe> {
    static DONE: Mutex<BTreeMap<(Arch, String), Option<Probe>>> = Mutex::new(BTreeMap::new());
    let key = (t.arch(), feature.to_string());
    if let Some(known) = DONE.lock().expect("probe cache").get(&key) {
        return *known;
    }
    let found = run_probes(t, host, feature);
    DONE.lock().expect("probe cache").insert(key, found);
    found
}

fn run_probes(t: &dyn Target, host: &HostFeatures, feature: &str) -> Option<Probe> {
    // Kernels run only on their own arch.
    if Arch::host() != Some(t.arch()) {
        return None;
    }
    Isa::get(t.arch()).feature(feature)?;
    let mut tried = 0;
    for form in candidates(t, host, feature) {
        let Ok((tp, _, _)) = once::kernels(t, form) else {
            continue;
        };
        match once::run_kernel(&tp, None, DEADLINE) {
            Ok(()) => return Some(Probe { form, has: true }),
            Err(ChildError::Signal(nix::sys::signal::Signal::SIGILL)) => {
                return Some(Probe { form, has: false })
            }
            Err(_) => {}
        }
        tried += 1;
        if tried == TRIES {
            break;
        }
    }
    None
}

/// `host`'s verdict on `form` with probes deciding what its source cannot
/// report, and the probes that decided a feature absent.
fn verdict(t: &dyn Target, host: &HostFeatures, form: Instr) -> (Verdict, Vec<Probe>) {
    let plain = host.verdict(form);
    let (Verdict::Unknown(_), Some(cond)) = (&plain, form.required_features()) else {
        return (plain, Vec::new());
    };
    let absent = std::cell::RefCell::new(Vec::new());
    let lookup = |f: &str| {
        host.lookup(f).or_else(|| {
            let p = feature(t, host, f)?;
            if !p.has {
                absent.borrow_mut().push(p);
            }
            Some(p.has)
        })
    };
    let v = eval(&cond, &lookup);
    (v, absent.into_inner())
}

/// Why `form` cannot run on `host`, where a probe decided it ("needs tme,
/// which this CPU lacks (probe: TCANCEL died of SIGILL; AT_HWCAP/AT_HWCAP2
/// cannot report tme)"); `None` when it can, when `host`'s source decides
/// alone ([`HostFeatures::lacks`] says that), or when nothing decides.
pub fn lacks(t: &dyn Target, host: &HostFeatures, form: Instr) -> Option<String> {
    let (Verdict::Lacks(missing), probes) = verdict(t, host, form) else {
        return None;
    };
    let what: Vec<String> = probes
        .iter()
        .map(|p| format!("{} died of SIGILL", p.form.name()))
        .collect();
    Some(format!(
        "needs {}, which this CPU lacks (probe: {}; {} cannot report it)",
        missing.join(" and "),
        what.join(", "),
        host.source
    ))
}

/// The features `form` needs that neither `host`'s source nor a probe
/// decided, when they alone decide whether it runs (a SIGILL is then the
/// net that was expected to catch it).
pub fn cannot_tell(t: &dyn Target, host: &HostFeatures, form: Instr) -> Option<String> {
    match verdict(t, host, form).0 {
        Verdict::Unknown(u) => Some(u.join(", ")),
        _ => None,
    }
}

/// Every feature of `t`'s arch that `host`'s source cannot report and that
/// alone decides some form, with what its probe found (`cpa no:
/// ADDPT_shift died of SIGILL`, `xs yes: DSBnXS ran`, `brbe unknown: no
/// probe decided`), joined by `; `: for `winic host` and report headers.
/// Empty when there is no such feature.
pub fn report(t: &dyn Target, host: &HostFeatures) -> String {
    let mut features = std::collections::BTreeSet::new();
    for form in Isa::get(t.arch()).real_instrs() {
        if let Verdict::Unknown(u) = host.verdict(form) {
            if let [f] = u.as_slice() {
                if Isa::get(t.arch()).feature(f).is_some() {
                    features.insert(f.clone());
                }
            }
        }
    }
    let found: Vec<String> = features
        .iter()
        .map(|f| match feature(t, host, f) {
            Some(p) if p.has => format!("{f} yes: {} ran", p.form.name()),
            Some(p) => format!("{f} no: {} died of SIGILL", p.form.name()),
            None => format!("{f} unknown: no probe decided"),
        })
        .collect();
    found.join("; ")
}

/// The features `form` needs that the host lacks, as a reason: by the
/// host's own feature source ([`crate::arch::HostPolicy::source_lacks`]),
/// else by a probe where the source cannot tell ([`lacks`]). `None` when it
/// has them, when winic does not run on `t`'s arch, or when nothing decides
/// (then a SIGILL is the last safety net).
pub fn host_lacks(t: &dyn Target, form: Instr) -> Option<String> {
    t.source_lacks(form)
        .or_else(|| lacks(target(t.arch()), t.host_features()?, form))
}

/// The features `form` needs that neither the host's feature source
/// (AArch64 has no HWCAP for TME) nor a probe decided, named, when they
/// alone decide whether it runs: such a form runs, and a SIGILL is then
/// the net that was expected to catch it. `None` otherwise.
pub fn host_cannot_tell(t: &dyn Target, form: Instr) -> Option<String> {
    cannot_tell(target(t.arch()), t.host_features()?, form)
}

/// What this host reports of itself
/// ([`crate::arch::HostPolicy::source_report`]), and what the probes found
/// of the features its source cannot report ([`report`]), as `(label,
/// value)` lines for `winic host` and report headers. Empty when winic does
/// not run on `t`'s arch.
pub fn host_report(t: &dyn Target) -> Vec<(&'static str, String)> {
    let mut lines = t.source_report();
    if let Some(host) = t.host_features() {
        let probed = report(t, host);
        if !probed.is_empty() {
            lines.push(("Probed (no source reports them)", probed));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::aarch64::host::from_hwcaps;

    /// What qemu-aarch64 -cpu max reports (tests/fixtures/host-features.yaml).
    fn qemu_max() -> HostFeatures {
        from_hwcaps(0xeffffffb, 0x18007fc77fff)
    }

    #[test]
    fn a_probe_needs_the_feature_and_nothing_else_unknown() {
        let t = target(Arch::Aarch64);
        let host = qemu_max();
        let tme = candidates(t, &host, "tme");
        let names: Vec<&str> = tme.iter().map(|f| f.name()).collect();
        assert!(names.contains(&"TTEST"), "{names:?}");
        for f in &tme {
            assert_eq!(
                host.verdict(*f),
                Verdict::Unknown(vec!["tme".into()]),
                "{}",
                f.name()
            );
        }
        // CPA: the base forms (needing only cpa) before SVE's (sve && cpa).
        let cpa = candidates(t, &host, "cpa");
        let conds: Vec<String> = cpa.iter().filter_map(|f| f.required_features()).collect();
        assert_eq!(conds.first().map(String::as_str), Some("cpa"), "{conds:?}");
        assert!(conds.iter().any(|c| c != "cpa"), "{conds:?}");
        assert!(conds.iter().all(|c| c.contains("cpa")), "{conds:?}");
        // A feature the source reports is no probe's business.
        assert!(candidates(t, &host, "sve").is_empty());
    }

    #[test]
    fn winic_host_lists_what_it_probed() {
        let t = target(Arch::Aarch64);
        let probed = report(t, &qemu_max());
        // On AArch64 (hardware or qemu) the probes decide; elsewhere
        // nothing runs, and every feature is listed undecided.
        let decided = cfg!(target_arch = "aarch64");
        for f in ["cpa", "tme", "ite"] {
            let yes = probed.contains(&format!("{f} yes: "));
            let no = probed.contains(&format!("{f} no: "));
            let unknown = probed.contains(&format!("{f} unknown: "));
            assert_eq!((yes || no, unknown), (decided, !decided), "{probed}");
        }
        assert!(!probed.contains("sve"), "{probed}");
    }

    #[test]
    fn what_llvm_does_not_know_is_never_probed() {
        let t = target(Arch::Aarch64);
        assert!(feature(t, &qemu_max(), "?hasFusion()").is_none());
    }
}
