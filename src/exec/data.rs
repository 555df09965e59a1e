//! The data area of `crate::kernel::data`, mapped into this process at its
//! fixed address once, before any kernel runs: read-write, never
//! executable. Children forked afterwards inherit it copy-on-write, so
//! every child starts from the area's initial contents, whatever the
//! kernels of an earlier child stored.

use crate::kernel::data::{contents, BASE, SIZE, VALUES, WORD, WRITABLE};
use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::OnceLock;

/// Maps the area (once per process) and fills it. `Err` names why it
/// could not be mapped at its address (something else is there).
pub fn ensure() -> Result<(), String> {
    static MAPPED: OnceLock<Result<(), String>> = OnceLock::new();
    MAPPED.get_or_init(map).clone()
}

fn map() -> Result<(), String> {
    let len = NonZeroUsize::new(SIZE as usize).expect("the area is not empty");
    let addr = NonZeroUsize::new(BASE as usize);
    // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping: it
    // fails instead, so nothing of this process is overwritten.
    let p = unsafe {
        mmap_anonymous(
            addr,
            len,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_PRIVATE | MapFlags::MAP_FIXED_NOREPLACE,
        )
    }
    .map_err(|e| format!("cannot map the data area at {BASE:#x} ({SIZE} bytes): {e}"))?;
    if p.as_ptr() as u64 != BASE {
        // An old kernel that ignores MAP_FIXED_NOREPLACE maps elsewhere.
        return Err(format!(
            "the data area was mapped at {:p}, not at {BASE:#x}",
            p.as_ptr()
        ));
    }
    fill(p);
    Ok(())
}

/// Puts the part of the area kernels store to back to its initial words,
/// in this process (a child between two kernels' runs): a store of one
/// kernel is then never the next one's operand. A few microseconds (32
/// KiB); nothing when the area is not mapped.
pub fn restore() {
    if ensure().is_err() {
        return;
    }
    let words = VALUES as *mut u64;
    for i in 0..(WRITABLE / 8) as usize {
        // SAFETY: the area is mapped read-write from VALUES on, longer
        // than WRITABLE bytes; the words are 8-byte aligned.
        unsafe { words.add(i).write_volatile(WORD) };
    }
}

fn fill(p: NonNull<std::ffi::c_void>) {
    let bytes = contents();
    // SAFETY: the mapping is SIZE bytes long and writable; `bytes` is as
    // long.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.as_ptr().cast::<u8>(), bytes.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::data::{word_at, CHASE, VALUES};

    #[test]
    fn restore_puts_back_what_a_kernel_stored() {
        ensure().unwrap();
        let at = (VALUES + WRITABLE - 8) as *mut u64;
        // SAFETY: inside the mapped area, 8-byte aligned.
        unsafe { at.write_volatile(0x1) };
        restore();
        assert_eq!(unsafe { at.read_volatile() }, WORD);
    }

    #[test]
    fn the_area_is_mapped_at_its_address_with_its_contents() {
        ensure().unwrap();
        ensure().unwrap();
        for a in [VALUES, VALUES + 4096, CHASE, CHASE + 8, BASE + SIZE - 8] {
            // SAFETY: inside the mapped area, 8-byte aligned.
            let w = unsafe { (a as *const u64).read_volatile() };
            assert_eq!(w, word_at(a), "{a:#x}");
        }
    }
}
