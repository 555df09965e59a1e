//! Repeated string operations by size: x86 `rep movsb` and `rep stosq`,
//! what `memcpy` and `memset` run (glibc for most sizes on cores with fast
//! short `rep movsb`, and gcc inline for copies of unknown length).
//!
//! Each `movs` and `stos` form of the selection is timed as one repeated
//! instruction over 64 to 8,192 bytes ([`SIZES`]): the kernel's body sets
//! `rsi`, `rdi` and `ecx` and runs the form with a `rep` prefix
//! ([`crate::arch::Operands::repeated`]), once and twice an iteration;
//! the difference is one copy of that many bytes (the three `mov`s with
//! it, each a fraction of a cycle beside it). The source and destination
//! are the data area's string starts ([`crate::kernel::data::STARTS`]):
//! 9 KiB apart, both in L1, so the figures are a copy's within L1, where
//! the data of a loop that copies often is. A line per form gives the
//! cycles at each size, the bytes a cycle at the largest, and the
//! startup: the cycles at 0 bytes of the straight line through the two
//! largest sizes, which a copy of n bytes adds to n / bytes-a-cycle.
//! The cycles are the database's `repeated` of the form.
//!
//! x86 only: AArch64's `cpyf*`/`set*` (FEAT_MOPS) are three instructions
//! each, and RISC-V has none.

use super::Unmeasured;
use crate::arch::{EncodeError, KernelError, Target};
use crate::exec::run::{batch_costs, Options};
use crate::isa::Instr;
use crate::kernel::{self, data, Regs};

/// Bytes a repeated operation moves, smallest first.
pub const SIZES: [u32; 5] = [64, 256, 1024, 4096, 8192];

// Source and destination of the largest copy must not overlap.
const _: () = assert!(data::STARTS.reads + SIZES[4] as u64 <= data::STARTS.writes);

/// One form, repeated at every size.
#[derive(Clone, Debug)]
pub struct Repeat {
    /// The form (`MOVSB`, `STOSQ`).
    pub form: Instr,
    /// Bytes and cycles of one repeated operation, at each size.
    pub cycles: Vec<(u32, f64)>,
    /// Whether any timing was noisy.
    pub noisy: bool,
}

impl Repeat {
    /// Bytes a cycle at the largest size.
    pub fn bytes_per_cycle(&self) -> Option<f64> {
        self.cycles.last().map(|&(b, c)| f64::from(b) / c)
    }

    /// The cycles at 0 bytes of the line through the two largest sizes:
    /// what a copy costs before its bytes (`None` below two sizes).
    pub fn startup(&self) -> Option<f64> {
        let [.., (b0, c0), (b1, c1)] = self.cycles[..] else {
            return None;
        };
        let per_byte = (c1 - c0) / f64::from(b1 - b0);
        Some(c0 - per_byte * f64::from(b0))
    }
}

/// What the experiment found.
#[derive(Clone, Debug, Default)]
pub struct Repeats {
    /// The forms timed at every size.
    pub measured: Vec<Repeat>,
    /// The forms that were not, each with why.
    pub failed: Vec<(Instr, Unmeasured)>,
}

/// Times the repeatable string forms among `forms` that this host runs,
/// at every size; `None` when there are none, or in a replay of a run
/// that did not time them (an earlier winic's raw file).
/// `progress(done, total)` after each kernel.
pub fn measure(
    t: &dyn Target,
    forms: &[Instr],
    opts: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Option<Repeats> {
    let runnable: Vec<(Instr, crate::arch::Inst)> = forms
        .iter()
        .filter(|f| crate::mode::common::early_skip(t, **f, false).is_none())
        .filter_map(|f| Some((*f, t.example(*f).ok()?)))
        .filter(|(_, i)| t.repeated(i, 1, data::STARTS).is_some())
        .collect();
    if runnable.is_empty() {
        return None;
    }
    let jobs: Vec<(usize, u32)> = (0..runnable.len())
        .flat_map(|k| SIZES.map(|s| (k, s)))
        .collect();
    let element = |inst: &crate::arch::Inst| t.access_bytes(inst).max(1);
    let make = |i: usize| -> Result<_, KernelError> {
        let (k, size) = jobs[i];
        let inst = &runnable[k].1;
        let lines = t
            .repeated(inst, size / element(inst), data::STARTS)
            .expect("filtered above")?;
        // The form's own registers (its pointers, `stos`'s accumulator):
        // the lines set the pointers and the count themselves.
        let regs = kernel::registers_of(std::slice::from_ref(inst));
        let regs = Regs {
            all: &regs,
            bases: &[],
            lanes: &[],
        };
        Ok((
            kernel::assemble(t, &lines, &regs, 1, None)?,
            kernel::assemble(t, &lines, &regs, 2, None)?,
        ))
    };
    let mut got: Vec<(Result<f64, Unmeasured>, bool)> =
        vec![(Err(Unmeasured::NotMeasured), false); jobs.len()];
    let (total, mut done) = (jobs.len(), 0);
    batch_costs(t, total, &make, &|_| 64, opts, &mut |i, c| {
        got[i] = match c {
            Ok(c) if c.positive() => (Ok(c.cycles), c.noisy()),
            Ok(_) => (Err(Unmeasured::Noise), true),
            Err(e) => (Err(Unmeasured::Run(e)), false),
        };
        // A job can report more than once (its rounds): never past the
        // total.
        done = (done + 1).min(total);
        progress(done, total);
    });
    if got
        .iter()
        .all(|g| g.0.as_ref().is_err_and(Unmeasured::not_recorded))
    {
        return None;
    }
    let mut out = Repeats::default();
    for (k, (form, _)) in runnable.iter().enumerate() {
        let mine: Vec<_> = jobs
            .iter()
            .zip(&got)
            .filter(|((j, _), _)| *j == k)
            .map(|((_, size), g)| (*size, g))
            .collect();
        match mine.iter().find_map(|(_, g)| g.0.clone().err()) {
            Some(why) => out.failed.push((*form, why)),
            None => out.measured.push(Repeat {
                form: *form,
                cycles: mine
                    .iter()
                    .map(|(s, g)| (*s, *g.0.as_ref().expect("no error above")))
                    .collect(),
                noisy: mine.iter().any(|(_, g)| g.1),
            }),
        }
    }
    Some(out)
}

impl Repeats {
    /// The output's lines.
    pub fn render(&self) -> String {
        let sizes: Vec<String> = SIZES.iter().map(|s| s.to_string()).collect();
        let mut text = format!(
            "repeated string operations (rep; cycles a copy of {} bytes, within L1; bytes a \
             cycle at the largest; startup: cycles at 0 bytes of the line through the two \
             largest):\n",
            sizes.join(", ")
        );
        for r in &self.measured {
            let cycles: Vec<String> = r.cycles.iter().map(|(_, c)| format!("{c:.1}")).collect();
            text.push_str(&format!(
                "  rep {}: {}; {:.1} bytes a cycle, startup {:.1} cycles{}\n",
                r.form.name(),
                cycles.join(", "),
                r.bytes_per_cycle().unwrap_or(f64::NAN),
                r.startup().unwrap_or(f64::NAN),
                if r.noisy { "; noisy" } else { "" }
            ));
        }
        for (f, why) in &self.failed {
            text.push_str(&format!("  rep {}: not measured: {why}\n", f.name()));
        }
        text
    }

    /// Each measured form with its bytes and cycles, for the database.
    pub fn values(&self) -> Vec<(Instr, Vec<(u32, f64)>)> {
        self.measured
            .iter()
            .map(|r| (r.form, r.cycles.clone()))
            .collect()
    }
}

impl From<KernelError> for Unmeasured {
    fn from(e: KernelError) -> Self {
        match e {
            KernelError::Encode(e) => Unmeasured::NoBody(e),
            KernelError::Check(m) => Unmeasured::NoBody(EncodeError::BadOperand(m)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Arch, Isa};

    fn repeat(cycles: &[(u32, f64)]) -> Repeat {
        Repeat {
            form: Isa::get(Arch::X86_64).instr("MOVSB").unwrap(),
            cycles: cycles.to_vec(),
            noisy: false,
        }
    }

    #[test]
    fn startup_and_rate_come_from_the_two_largest_sizes() {
        let r = repeat(&[(64, 30.0), (4096, 100.0), (8192, 164.0)]);
        assert_eq!(r.bytes_per_cycle(), Some(8192.0 / 164.0));
        // 64 cycles for 4096 bytes more: 64 bytes a cycle, from 36.
        assert!((r.startup().unwrap() - 36.0).abs() < 1e-9);
        assert_eq!(repeat(&[(64, 30.0)]).startup(), None);
    }

    /// The kernel of each size runs `rep movsb` over that many bytes, its
    /// pointers and count set right before it.
    #[test]
    fn a_repeated_copy_sets_its_pointers_and_count_first() {
        let t = crate::arch::target(Arch::X86_64);
        let isa = Isa::get(Arch::X86_64);
        for (name, size, count, text) in [
            (
                "MOVSB",
                256,
                256,
                "rep movsb byte ptr es:[rdi], byte ptr [rsi]",
            ),
            ("STOSQ", 4096, 512, "rep stosq qword ptr es:[rdi], rax"),
        ] {
            let inst = t.example(isa.instr(name).unwrap()).unwrap();
            let lines = t.repeated(&inst, size / t.access_bytes(&inst), data::STARTS);
            let lines = lines.unwrap().unwrap();
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            assert_eq!(texts.last(), Some(&text), "{name}");
            assert!(
                texts.contains(&format!("mov ecx, {count}").as_str()),
                "{texts:?}"
            );
            assert_eq!(lines.last().unwrap().bytes[0], 0xf3, "{name}");
        }
        // Neither `rep lods` nor SSE's `movsd` (the string `movsd`'s
        // mnemonic, no pointer moved) is a repeated copy.
        for name in ["LODSB", "MOVSDrm", "MOVSDmr", "MOVSDrr"] {
            let inst = t.example(isa.instr(name).unwrap()).unwrap();
            assert!(t.repeated(&inst, 8, data::STARTS).is_none(), "{name}");
        }
    }
}
