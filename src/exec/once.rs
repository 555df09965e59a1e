//! A form's kernels built and run once, untimed: what `winic runcheck`
//! does for every form ([`crate::runcheck`]) and a feature probe does for
//! one ([`crate::probe`]). It lives here, below both, because the probe
//! decides what `runcheck` skips: neither imports the other for it.

use super::{in_child, ChildError, Code};
use crate::arch::Target;
use crate::isa::Instr;
use crate::kernel::{self, shape, Kernel};
use std::time::Duration;

/// Loop iterations per kernel run: enough to run every instruction many
/// times, few enough for an emulator.
pub const ITERATIONS: u64 = 64;

/// Copies in a latency kernel.
const CHAIN: usize = 4;

/// The two kernels of `form`, or why there are none. The latency kernel
/// is `None` when the form has no explicit chain.
pub fn kernels(t: &dyn Target, form: Instr) -> Result<(Kernel, Option<Kernel>, usize), String> {
    let body = shape::throughput(t, form, shape::COPIES).map_err(|e| e.to_string())?;
    let tp = kernel::build_streamed(t, &body, 1, kernel::data::Placement::Aligned)
        .map_err(|e| e.to_string())?;
    let lat = match shape::latency(t, form, CHAIN) {
        Ok(chain) => Some(kernel::build(t, &chain, 1).map_err(|e| format!("latency: {e}"))?),
        Err(_) => None,
    };
    Ok((tp, lat, body.len()))
}

/// Runs `k` for [`ITERATIONS`] in a forked child.
pub fn run_kernel(k: &Kernel, cpu: Option<usize>, deadline: Duration) -> Result<(), ChildError> {
    let code = Code::new(&k.bytes()).map_err(|e| ChildError::System(format!("mapping: {e}")))?;
    // SAFETY: a complete kernel function built by `kernel`; it runs only in
    // the child.
    let f = unsafe { code.entry() };
    in_child(cpu, deadline, move || {
        f(ITERATIONS);
        Vec::new()
    })
    .map(|_| ())
}
