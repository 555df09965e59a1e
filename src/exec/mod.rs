//! Running generated code safely: an executable buffer that is never
//! writable and executable at once ([`Code`]), and a forked child per
//! measurement ([`in_child`]) whose crash, garbage or hang is a result with
//! a reason, never a crash of winic.

mod child;
pub mod data;
pub mod guard;
mod jail;
pub mod once;
pub mod run;

pub use child::{in_child, in_child_stream, ChildError, Records};

use memmap2::MmapMut;
use std::io;

/// Machine code in an anonymous mapping: written while read-write, then
/// switched to read-execute before anything can run it.
pub struct Code {
    map: memmap2::Mmap,
}

impl Code {
    /// Maps `bytes` as executable code (instruction caches synchronised on
    /// the arches that need it).
    pub fn new(bytes: &[u8]) -> io::Result<Code> {
        if bytes.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no code to map",
            ));
        }
        // Every kernel may address the data area: it exists before any
        // code can run, in this process and in every child forked later.
        data::ensure().map_err(io::Error::other)?;
        let mut rw = MmapMut::map_anon(bytes.len())?;
        rw.copy_from_slice(bytes);
        let map = rw.make_exec()?;
        sync_icache(map.as_ptr(), map.len());
        Ok(Code { map })
    }

    /// The code's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// The entry point as a function taking the iteration count, as every
    /// winic kernel does.
    ///
    /// # Safety
    /// The code must be a complete function of the platform's C calling
    /// convention that takes one 64-bit argument; run it in a child
    /// ([`in_child`]) unless it is known not to fault.
    pub unsafe fn entry(&self) -> extern "C" fn(u64) {
        // SAFETY: the caller promises the bytes are such a function; the
        // mapping lives as long as `self`.
        unsafe { std::mem::transmute::<*const u8, extern "C" fn(u64)>(self.map.as_ptr()) }
    }

    /// The function at `offset` (a label of an assembled file), or `None`
    /// when the offset is outside the code.
    ///
    /// # Safety
    /// As for [`Code::entry`], for the code at `offset`.
    pub unsafe fn entry_at(&self, offset: usize) -> Option<extern "C" fn(u64)> {
        if offset >= self.map.len() {
            return None;
        }
        // SAFETY: in bounds; the caller promises a function starts there.
        let p = unsafe { self.map.as_ptr().add(offset) };
        Some(unsafe { std::mem::transmute::<*const u8, extern "C" fn(u64)>(p) })
    }
}

/// Makes freshly written code visible to instruction fetch. x86 keeps its
/// caches coherent; AArch64 and RISC-V need an explicit flush, which
/// libgcc's `__clear_cache` does (on RISC-V through the
/// `riscv_flush_icache` system call, for every hart).
fn sync_icache(start: *const u8, len: usize) {
    #[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
    {
        extern "C" {
            fn __clear_cache(start: *mut std::ffi::c_char, end: *mut std::ffi::c_char);
        }
        // SAFETY: the range is one live mapping of `len` bytes.
        unsafe { __clear_cache(start as *mut _, start.add(len) as *mut _) };
    }
    #[cfg(not(any(target_arch = "aarch64", target_arch = "riscv64")))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// `ret` of the host arch (x86 `c3`, AArch64 `d65f03c0`, RISC-V
    /// `jalr x0, 0(x1)`), as the ISA manuals give it.
    fn ret() -> Vec<u8> {
        if cfg!(target_arch = "x86_64") {
            vec![0xc3]
        } else if cfg!(target_arch = "aarch64") {
            0xd65f03c0u32.to_le_bytes().to_vec()
        } else {
            0x00008067u32.to_le_bytes().to_vec()
        }
    }

    #[test]
    fn mapped_code_runs() {
        let code = Code::new(&ret()).unwrap();
        assert_eq!(code.bytes(), &ret()[..]);
        // SAFETY: `ret` is a complete function.
        let f = unsafe { code.entry() };
        let got = in_child(None, Duration::from_secs(20), || {
            f(5);
            vec![1.0]
        });
        assert_eq!(got, Ok(vec![1.0]));
    }

    #[test]
    fn mapped_code_is_not_writable() {
        let code = Code::new(&ret()).unwrap();
        let p = code.bytes().as_ptr() as *mut u8;
        let got = in_child(None, Duration::from_secs(20), || {
            // SAFETY: it is not: the write must fault.
            unsafe { p.write_volatile(0) };
            vec![]
        });
        assert_eq!(
            got,
            Err(ChildError::Signal(nix::sys::signal::Signal::SIGSEGV))
        );
    }

    #[test]
    fn empty_code_is_refused() {
        assert!(Code::new(&[]).is_err());
    }
}
