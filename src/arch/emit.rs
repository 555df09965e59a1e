//! One emitted instruction ([`Line`]) and how it is emitted ([`emit`]):
//! encoded, printed and decode-checked. The frames and start stubs of the
//! targets emit through it as the kernel generator does, so it lives here,
//! below `crate::kernel` (which re-exports it).

use super::{Check, Encode, EncodeError, Inst};
use std::fmt;

/// One emitted instruction: its assembly text and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// As printed (`add rax, rbx`).
    pub text: String,
    /// The encoding.
    pub bytes: Vec<u8>,
}

/// The label of the loop in a kernel's text; the targets' `branch_back`
/// lines name it.
pub const LOOP_LABEL: &str = ".Lloop";

/// Why no kernel could be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelError {
    /// An instruction could not be encoded or printed.
    Encode(EncodeError),
    /// The decoder reads an emitted instruction otherwise than intended.
    Check(String),
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::Encode(e) => write!(f, "{e}"),
            KernelError::Check(m) => write!(f, "decode check failed: {m}"),
        }
    }
}

impl From<EncodeError> for KernelError {
    fn from(e: EncodeError) -> KernelError {
        KernelError::Encode(e)
    }
}

/// Encodes, prints and checks one instruction (`t` is any target: a
/// `&dyn Target` or a start stub emitting its own pieces).
pub fn emit<T: Encode + ?Sized>(t: &T, inst: &Inst) -> Result<Line, KernelError> {
    let bytes = t.encode(inst)?;
    let text = t.print(inst)?;
    match t.check(inst, &bytes, &text) {
        Check::Mismatch(m) => Err(KernelError::Check(format!("{text}: {m}"))),
        Check::Ok | Check::Unchecked(_) => Ok(Line { text, bytes }),
    }
}

/// The verdicts a thread's decode checks gave, by form, bytes and text.
type Verdicts = std::collections::HashMap<(crate::isa::Arch, u32, Vec<u8>, String), Check>;

/// Verdicts kept per thread before the memo starts again: bounds its
/// memory on a full run (a verdict is about 100 bytes).
const VERDICTS_KEPT: usize = 200_000;

thread_local! {
    static VERDICTS: std::cell::RefCell<Verdicts> = Default::default();
}

/// `check()`'s verdict on `inst` emitted as `bytes` and printed as `text`,
/// remembered: a target's decode check is a function of the form, the
/// bytes and the text alone, and kernels repeat their instructions (a
/// pair's two unrolls, every candidate helper beside one form, a replay's
/// every kernel): 30% of `winic analyse`'s time on a recorded LAT run
/// went to checking the same lines again (Xeon fixture, 2026-12-01).
pub fn remembered(inst: &Inst, bytes: &[u8], text: &str, check: impl FnOnce() -> Check) -> Check {
    let key = (
        inst.form.isa().arch(),
        inst.form.opcode(),
        bytes.to_vec(),
        text.to_string(),
    );
    if let Some(v) = VERDICTS.with(|m| m.borrow().get(&key).cloned()) {
        return v;
    }
    let verdict = check();
    VERDICTS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= VERDICTS_KEPT {
            m.clear();
        }
        m.insert(key, verdict.clone());
    });
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Arch, Isa};

    /// A verdict is given once for a form, its bytes and its text: asked
    /// again it comes from the memo; other bytes or text are checked anew.
    #[test]
    fn a_check_is_remembered_by_form_bytes_and_text() {
        let form = Isa::get(Arch::X86_64).instr("ADD64rr").unwrap();
        let inst = Inst {
            form,
            ops: Vec::new(),
        };
        let checks = std::cell::Cell::new(0);
        let check = |verdict: Check| {
            checks.set(checks.get() + 1);
            verdict
        };
        let bytes = [0x48, 0x01, 0xd8];
        let ok = remembered(&inst, &bytes, "add rax, rbx", || check(Check::Ok));
        let again = remembered(&inst, &bytes, "add rax, rbx", || {
            check(Check::Mismatch("x".into()))
        });
        assert_eq!((ok, again, checks.get()), (Check::Ok, Check::Ok, 1));
        let other = remembered(&inst, &bytes, "add rbx, rax", || {
            check(Check::Mismatch("x".into()))
        });
        assert_eq!((other, checks.get()), (Check::Mismatch("x".into()), 2));
        let bytes = [0x48, 0x01, 0xc3];
        remembered(&inst, &bytes, "add rax, rbx", || check(Check::Ok));
        assert_eq!(checks.get(), 3);
    }
}
