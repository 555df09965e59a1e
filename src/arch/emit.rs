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
