//! `winic selfcheck`: every real form with only register and immediate
//! operands is given operands, encoded, printed and decoded again by an
//! independent decoder; the outcomes are counted. This proves the encoders
//! on the machine winic runs on, without an assembler.

use crate::arch::{encodable_operands, Check, EncodeError, Target};
use crate::isa::{Instr, Isa};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// What became of one form.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Encoded, printed and decoded as intended.
    Ok,
    /// Encoded and printed; no decoder here knows the extension.
    Unchecked(String),
    /// The decoder disagrees with what was intended.
    Mismatch(String),
    /// This encoder cannot encode the form (the reason groups forms).
    Unencodable(String),
}

/// One form's example instruction and outcome.
#[derive(Clone, Debug)]
pub struct Row {
    /// The form.
    pub form: Instr,
    /// The printed example instruction (empty when unencodable).
    pub text: String,
    /// Its bytes (empty when unencodable).
    pub bytes: Vec<u8>,
    /// What became of it.
    pub outcome: Outcome,
}

/// Runs one form through example, encode, print and check.
pub fn check_form(target: &dyn Target, form: Instr) -> Row {
    let row = |text: String, bytes: Vec<u8>, outcome| Row {
        form,
        text,
        bytes,
        outcome,
    };
    let inst = match target.example(form) {
        Ok(inst) => inst,
        Err(e) => return row(String::new(), Vec::new(), unencodable(e)),
    };
    let bytes = match target.encode(&inst) {
        Ok(b) => b,
        Err(e) => return row(String::new(), Vec::new(), unencodable(e)),
    };
    let text = match target.print(&inst) {
        Ok(t) => t,
        Err(e) => return row(String::new(), bytes, unencodable(e)),
    };
    let outcome = match target.check(&inst, &bytes, &text) {
        Check::Ok => Outcome::Ok,
        Check::Unchecked(why) => Outcome::Unchecked(why),
        Check::Mismatch(why) => Outcome::Mismatch(why),
    };
    row(text, bytes, outcome)
}

fn unencodable(e: EncodeError) -> Outcome {
    Outcome::Unencodable(match e {
        EncodeError::Unsupported(m) => m,
        EncodeError::BadOperand(m) => format!("no valid operands: {m}"),
    })
}

/// The forms selfcheck covers: real, register/immediate operands only.
pub fn forms(isa: &'static Isa) -> impl Iterator<Item = Instr> {
    isa.real_instrs().filter(encodable_operands)
}

/// Checks every covered form of `target`'s arch, calling `progress(done,
/// total)` now and then.
pub fn run(target: &dyn Target, mut progress: impl FnMut(usize, usize)) -> (Vec<Row>, Summary) {
    let isa = Isa::get(target.arch());
    let all: Vec<Instr> = forms(isa).collect();
    let started = Instant::now();
    let mut rows = Vec::with_capacity(all.len());
    for (k, form) in all.iter().enumerate() {
        rows.push(check_form(target, *form));
        if k % 256 == 255 {
            progress(k + 1, all.len());
        }
    }
    progress(all.len(), all.len());
    let summary = Summary::of(target.arch().name(), &rows, started.elapsed().as_secs_f64());
    (rows, summary)
}

/// A failure as `--json` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    /// The LLVM record name.
    #[serde(rename = "llvmName")]
    pub llvm_name: String,
    /// `mismatch` or `unencodable`.
    pub kind: &'static str,
    /// Why.
    pub reason: String,
    /// The printed instruction (empty when unencodable).
    pub text: String,
    /// The bytes as hex (empty when unencodable).
    pub bytes: String,
}

/// Counts by outcome for one arch: the object `--json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The arch name.
    pub arch: String,
    /// Forms covered.
    pub total: usize,
    /// Decoded as intended.
    pub ok: usize,
    /// Not decodable by capstone (nor iced on x86).
    pub capstone_unsupported: usize,
    /// Decoded otherwise than intended.
    pub mismatch: usize,
    /// Not encodable by winic.
    pub unencodable: usize,
    /// `capstone_unsupported` by reason.
    pub unchecked_reasons: BTreeMap<String, usize>,
    /// `unencodable` by reason.
    pub unencodable_reasons: BTreeMap<String, usize>,
    /// Every mismatch and every unencodable form.
    pub failures: Vec<Failure>,
    /// Wall time of the check.
    pub seconds: f64,
}

impl Summary {
    /// Counts `rows`.
    pub fn of(arch: &str, rows: &[Row], seconds: f64) -> Summary {
        let mut s = Summary {
            arch: arch.to_string(),
            total: rows.len(),
            ok: 0,
            capstone_unsupported: 0,
            mismatch: 0,
            unencodable: 0,
            unchecked_reasons: BTreeMap::new(),
            unencodable_reasons: BTreeMap::new(),
            failures: Vec::new(),
            seconds,
        };
        for r in rows {
            let fail = |kind, reason: &str| Failure {
                llvm_name: r.form.name().to_string(),
                kind,
                reason: reason.to_string(),
                text: r.text.clone(),
                bytes: hex(&r.bytes),
            };
            match &r.outcome {
                Outcome::Ok => s.ok += 1,
                Outcome::Unchecked(why) => {
                    s.capstone_unsupported += 1;
                    *s.unchecked_reasons.entry(why.clone()).or_default() += 1;
                }
                Outcome::Mismatch(why) => {
                    s.mismatch += 1;
                    s.failures.push(fail("mismatch", why));
                }
                Outcome::Unencodable(why) => {
                    s.unencodable += 1;
                    *s.unencodable_reasons.entry(why.clone()).or_default() += 1;
                    s.failures.push(fail("unencodable", why));
                }
            }
        }
        s
    }

    /// Forms encoded per second of wall time.
    pub fn forms_per_second(&self) -> f64 {
        self.total as f64 / self.seconds.max(1e-9)
    }

    /// The human-readable report.
    pub fn render(&self) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.total.max(1) as f64;
        let mut out = format!(
            "{}: {} register, immediate and memory forms checked in {:.2} s ({:.0} forms/s)\n",
            self.arch,
            self.total,
            self.seconds,
            self.forms_per_second()
        );
        for (name, n) in [
            ("ok", self.ok),
            ("capstone-unsupported", self.capstone_unsupported),
            ("mismatch", self.mismatch),
            ("unencodable", self.unencodable),
        ] {
            out += &format!("  {name:<21} {n:>6}  ({:.1}%)\n", pct(n));
        }
        for (title, reasons) in [
            ("unchecked because", &self.unchecked_reasons),
            ("unencodable because", &self.unencodable_reasons),
        ] {
            if !reasons.is_empty() {
                out += &format!("  {title}:\n");
                let mut by_count: Vec<_> = reasons.iter().collect();
                by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                for (why, n) in by_count {
                    out += &format!("    {n:>6}  {why}\n");
                }
            }
        }
        for f in self.failures.iter().filter(|f| f.kind == "mismatch") {
            out += &format!(
                "  MISMATCH {}: {}  [{}]  {}\n",
                f.llvm_name, f.text, f.bytes, f.reason
            );
        }
        out
    }
}

/// Bytes as lowercase hex, no separators.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One `--examples` line: arch, LLVM name, outcome, required features (or
/// `-`), bytes as hex, and the text, separated by tabs.
pub fn example_line(arch: &str, r: &Row) -> String {
    let outcome = match &r.outcome {
        Outcome::Ok => "ok",
        Outcome::Unchecked(_) => "unchecked",
        Outcome::Mismatch(_) => "mismatch",
        Outcome::Unencodable(_) => "unencodable",
    };
    format!(
        "{arch}\t{}\t{outcome}\t{}\t{}\t{}",
        r.form.name(),
        r.form.required_features().unwrap_or_else(|| "-".into()),
        hex(&r.bytes),
        r.text
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{
        AsmDialect, Dialect, Encode, HostPolicy, Inst, KernelError, KernelFrame, Line, OpValue,
        Operands, StartStub,
    };
    use crate::isa::{Arch, Reg};

    /// A target that "encodes" the opcode number and checks by parity, so
    /// that every outcome occurs.
    struct Fake;

    impl Encode for Fake {
        fn arch(&self) -> Arch {
            Arch::Riscv64
        }
        fn encode(&self, inst: &Inst) -> Result<Vec<u8>, EncodeError> {
            Ok(inst.form.opcode().to_le_bytes().to_vec())
        }
        fn print(&self, inst: &Inst) -> Result<String, EncodeError> {
            Ok(inst.form.mnemonic())
        }
        fn check(&self, inst: &Inst, _bytes: &[u8], _text: &str) -> Check {
            match inst.form.opcode() % 4 {
                1 => Check::Ok,
                2 => Check::Unchecked("two".into()),
                _ => Check::Mismatch("three".into()),
            }
        }
    }

    impl Operands for Fake {
        fn reserved(&self, _reg: Reg) -> Option<&'static str> {
            None
        }
        fn instance(&self, form: Instr, _avoid: &[Reg]) -> Result<Inst, EncodeError> {
            match form.opcode() % 4 {
                0 => Err(EncodeError::Unsupported("multiple of four".into())),
                _ => Ok(Inst {
                    form,
                    ops: vec![OpValue::Imm(0); form.mc_operands().len()],
                }),
            }
        }
    }

    impl HostPolicy for Fake {}

    // Selfcheck builds no kernels, assembles nothing and writes no
    // executables.
    impl KernelFrame for Fake {
        fn prologue(&self, _: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
            Err(no_frame())
        }
        fn init(&self, _: Reg) -> Result<(Reg, Vec<Inst>), EncodeError> {
            Err(no_frame())
        }
        fn count_down(&self) -> Result<Vec<Inst>, EncodeError> {
            Err(no_frame())
        }
        fn branch_back(&self, _: usize) -> Result<Line, EncodeError> {
            Err(no_frame())
        }
        fn epilogue(&self, _: &[Reg]) -> Result<Vec<Inst>, EncodeError> {
            Err(no_frame())
        }
        fn chain_add(&self) -> Result<Inst, EncodeError> {
            Err(no_frame())
        }
    }

    impl AsmDialect for Fake {
        fn dialect(&self) -> Dialect {
            Dialect {
                syntax: None,
                align_is_power: true,
                hash_comment_anywhere: true,
                pseudo: crate::arch::no_pseudo,
                memory: None,
                isa_directives: &[],
            }
        }
        fn nop(&self) -> Result<Inst, EncodeError> {
            Err(no_frame())
        }
        fn branch(
            &self,
            _: &str,
            _: &[&str],
            _: i64,
            _: bool,
        ) -> Option<Result<Vec<u8>, EncodeError>> {
            None
        }
    }

    impl StartStub for Fake {
        fn start_count(&self, _: u64) -> Result<Vec<Inst>, EncodeError> {
            Err(no_frame())
        }
        fn start_call(&self, _: i64, _: i64) -> Result<Line, KernelError> {
            Err(no_frame().into())
        }
        fn start_exit(&self) -> Result<Vec<Inst>, EncodeError> {
            Err(no_frame())
        }
    }

    fn no_frame() -> EncodeError {
        EncodeError::Unsupported("the fake target has no kernel frame".into())
    }

    #[test]
    fn every_outcome_is_counted_once() {
        let (rows, s) = run(&Fake, |_, _| {});
        assert_eq!(s.total, rows.len());
        assert!(s.total > 1000, "{}", s.total);
        assert_eq!(
            s.ok + s.capstone_unsupported + s.mismatch + s.unencodable,
            s.total
        );
        for n in [s.ok, s.capstone_unsupported, s.mismatch, s.unencodable] {
            assert!(n > 0 && n < s.total / 2, "{s:?}");
        }
        assert_eq!(s.failures.len(), s.mismatch + s.unencodable);
        assert_eq!(s.unencodable_reasons["multiple of four"], s.unencodable);
        assert_eq!(s.unchecked_reasons["two"], s.capstone_unsupported);
    }

    #[test]
    fn the_report_lists_every_mismatch() {
        let (_, s) = run(&Fake, |_, _| {});
        let text = s.render();
        assert_eq!(text.matches("MISMATCH ").count(), s.mismatch);
        assert!(text.starts_with("riscv64: "), "{text}");
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "arch",
            "total",
            "ok",
            "capstone_unsupported",
            "mismatch",
            "unencodable",
            "failures",
        ] {
            assert!(json.get(key).is_some(), "no {key}");
        }
        assert!(json["failures"][0].get("llvmName").is_some());
    }

    #[test]
    fn only_register_and_immediate_forms_are_covered() {
        let isa = Isa::get(Arch::Riscv64);
        let names: Vec<&str> = forms(isa).map(|f| f.name()).collect();
        // RISC-V loads are register + immediate in LLVM's records.
        for present in ["ADD", "VADD_VV", "LD"] {
            assert!(names.contains(&present), "{present} not covered");
        }
        // Branches have PC-relative targets.
        for absent in ["BEQ", "JAL", "C_J"] {
            assert!(!names.contains(&absent), "{absent} covered");
        }
    }

    #[test]
    fn example_lines_have_six_fields() {
        let form = Isa::get(Arch::Riscv64).instr("ADD").unwrap();
        let row = check_form(&Fake, form);
        let line = example_line("riscv64", &row);
        assert_eq!(line.split('\t').count(), 6, "{line}");
        assert_eq!(hex(&[0x0f, 0xa0]), "0fa0");
    }
}
