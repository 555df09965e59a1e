//! Calling a function winic did not write (MAN mode's, from a user's
//! assembly file) so that breaking the calling convention cannot break
//! winic: every register the ABI says a callee keeps is saved before the
//! call and restored after it, with the floating-point control register
//! and (x86) the direction flag. A function that forgets to save `rbx`
//! (AArch64 `x19`, RISC-V `s1`) then costs what it costs, where before the
//! child's own code went on with the function's value in it: a hang until
//! the deadline, or a time of `inf`.
//!
//! A function that moves the stack pointer and does not put it back, or
//! writes over the stack, is not saved by this: it faults, and the child's
//! fault is reported as one.

/// Calls `f(n)` with the callee-saved registers of the host's ABI saved
/// and restored around it.
#[cfg(target_arch = "x86_64")]
pub fn call(f: extern "C" fn(u64), n: u64) {
    // rbx and rbp cannot be named as operands (LLVM keeps them): pushed
    // and popped here, beside the old stack pointer, MXCSR and the x87
    // control word, on a stack aligned to 16 bytes for the call. r12-r15
    // are declared clobbered, so the compiler saves them.
    // SAFETY: the caller promises `f` is a function of one integer
    // argument; whatever it does to the registers is undone here.
    unsafe {
        std::arch::asm!(
            "mov r11, rsp",
            "and rsp, -16",
            "push r11",
            "push rbx",
            "push rbp",
            "sub rsp, 8",
            "stmxcsr [rsp]",
            "fnstcw [rsp + 4]",
            "call rax",
            "cld",
            "ldmxcsr [rsp]",
            "fldcw [rsp + 4]",
            "add rsp, 8",
            "pop rbp",
            "pop rbx",
            "pop rsp",
            in("rax") f,
            in("rdi") n,
            out("r12") _,
            out("r13") _,
            out("r14") _,
            out("r15") _,
            clobber_abi("C"),
        );
    }
}

/// Calls `f(n)` with the callee-saved registers of the host's ABI saved
/// and restored around it.
#[cfg(target_arch = "aarch64")]
pub fn call(f: extern "C" fn(u64), n: u64) {
    // x19 and x29 cannot be named as operands: stored here with the link
    // register and FPCR. x20-x28 and d8-d15 (v8-v15) are declared
    // clobbered, so the compiler saves them.
    // SAFETY: as on x86-64.
    unsafe {
        std::arch::asm!(
            "stp x29, x30, [sp, #-32]!",
            "mrs x9, fpcr",
            "stp x19, x9, [sp, #16]",
            "blr x16",
            "ldp x19, x9, [sp, #16]",
            "msr fpcr, x9",
            "ldp x29, x30, [sp], #32",
            in("x16") f,
            in("x0") n,
            out("x20") _,
            out("x21") _,
            out("x22") _,
            out("x23") _,
            out("x24") _,
            out("x25") _,
            out("x26") _,
            out("x27") _,
            out("x28") _,
            out("v8") _,
            out("v9") _,
            out("v10") _,
            out("v11") _,
            out("v12") _,
            out("v13") _,
            out("v14") _,
            out("v15") _,
            clobber_abi("C"),
        );
    }
}

/// Calls `f(n)` with the callee-saved registers of the host's ABI saved
/// and restored around it.
#[cfg(target_arch = "riscv64")]
pub fn call(f: extern "C" fn(u64), n: u64) {
    // s0 (the frame pointer), s1, gp and tp cannot be named as operands:
    // stored here with the return address and fcsr. s2-s11 and fs0-fs11
    // are declared clobbered, so the compiler saves them.
    // SAFETY: as on x86-64.
    unsafe {
        std::arch::asm!(
            "addi sp, sp, -48",
            "sd s0, 0(sp)",
            "sd s1, 8(sp)",
            "sd gp, 16(sp)",
            "sd tp, 24(sp)",
            "sd ra, 32(sp)",
            "frcsr t1",
            "sd t1, 40(sp)",
            "jalr ra, 0(t0)",
            "ld t1, 40(sp)",
            "fscsr t1",
            "ld ra, 32(sp)",
            "ld tp, 24(sp)",
            "ld gp, 16(sp)",
            "ld s1, 8(sp)",
            "ld s0, 0(sp)",
            "addi sp, sp, 48",
            in("t0") f,
            in("a0") n,
            out("s2") _,
            out("s3") _,
            out("s4") _,
            out("s5") _,
            out("s6") _,
            out("s7") _,
            out("s8") _,
            out("s9") _,
            out("s10") _,
            out("s11") _,
            out("fs0") _,
            out("fs1") _,
            out("fs2") _,
            out("fs3") _,
            out("fs4") _,
            out("fs5") _,
            out("fs6") _,
            out("fs7") _,
            out("fs8") _,
            out("fs9") _,
            out("fs10") _,
            out("fs11") _,
            clobber_abi("C"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Code;

    /// A function that overwrites every callee-saved general-purpose
    /// register with its argument (and, on x86, sets the direction flag)
    /// and returns: machine code of the host arch, as its ISA manual
    /// encodes it.
    fn clobbering() -> Vec<u8> {
        if cfg!(target_arch = "x86_64") {
            // mov rbx, rdi; mov rbp, rdi; mov r12..r15, rdi; std; ret
            let mut c = vec![0x48, 0x89, 0xfb, 0x48, 0x89, 0xfd];
            for modrm in [0xfc, 0xfd, 0xfe, 0xff] {
                c.extend([0x49, 0x89, modrm]);
            }
            c.extend([0xfd, 0xc3]);
            c
        } else if cfg!(target_arch = "aarch64") {
            // mov x19..x29, x0 (orr xd, xzr, x0); ret
            let mut c = Vec::new();
            for d in 19..=29u32 {
                c.extend((0xaa0003e0u32 | d).to_le_bytes());
            }
            c.extend(0xd65f03c0u32.to_le_bytes());
            c
        } else {
            // mv s0, a0; mv s1, a0; mv s2..s11, a0 (addi rd, a0, 0); mv gp, a0; ret
            let mut c = Vec::new();
            for d in [8u32, 9, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 3] {
                c.extend((0x00050013u32 | (d << 7)).to_le_bytes());
            }
            c.extend(0x00008067u32.to_le_bytes());
            c
        }
    }

    #[test]
    fn a_function_that_clobbers_callee_saved_registers_leaves_the_caller_intact() {
        let code = Code::new(&clobbering()).unwrap();
        // SAFETY: the bytes are a complete function of one argument.
        let f = unsafe { code.entry() };
        // Values the compiler keeps in callee-saved registers across the
        // calls (a loop's sum and counter), checked after every call.
        let mut sum = 0u64;
        let values: Vec<u64> = (1..=64).map(|k| k * 0x0101_0101).collect();
        for (k, v) in values.iter().enumerate() {
            call(f, 0xdead_beef_0000_0000 | k as u64);
            sum = sum.wrapping_add(*v);
        }
        assert_eq!(sum, values.iter().sum::<u64>());
        // The direction flag is clear again: a copy runs forwards.
        let src: Vec<u8> = (0..=255).collect();
        let mut dst = vec![0u8; 256];
        dst.copy_from_slice(&src);
        assert_eq!(dst, src);
    }
}
