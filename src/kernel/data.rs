//! The data area every kernel may touch: one read-write (never executable)
//! mapping at a fixed address, so that a kernel built in the parent names
//! its addresses as plain constants and runs unchanged in any child, in a
//! `winic emit` executable (a segment of its own) or under qemu-user.
//!
//! It has two parts:
//! - **values** (`VALUES`, `VALUE_BYTES`): every 64-bit word is [`WORD`],
//!   the value the kernel frames give every data register, so a load
//!   returns the same uncritical value a register would hold (a normal
//!   number in every floating-point lane width, neither 0 nor 1 as an
//!   integer: no denormal stall, no division by zero);
//! - **chase** (`CHASE`, `CHASE_BYTES`): every 64-bit word holds its own
//!   address, so `mov rax, [rax]` loads the address it read from again (a
//!   pointer chase, the load-to-use latency's chain).
//!
//! Memory operands of a kernel address [`SLOT`]-byte slots of the value
//! part, each occurrence its own slot ([`slot_disp`]): independent copies
//! never wait on each other through memory, and stores never alias the
//! loads of the same body. [`SLOTS_USED`] slots (16 KiB) stay in the L1
//! data cache of every core winic targets.

/// The area's first byte. Below 2^31, so that an address also fits a
/// sign-extended 32-bit immediate (x86 `mov r32, imm32`, RISC-V
/// `lui`+`addi`) and lies inside the user address space of every paging
/// mode (RISC-V Sv39 leaves user space 256 GiB).
pub const BASE: u64 = 0x4000_0000;

/// Bytes of the value part.
pub const VALUE_BYTES: u64 = 512 * 1024;

/// Bytes of the chase part.
pub const CHASE_BYTES: u64 = 64 * 1024;

/// The whole area's size.
pub const SIZE: u64 = VALUE_BYTES + CHASE_BYTES;

/// The value part's first byte.
pub const VALUES: u64 = BASE;

/// The chase part's first byte.
pub const CHASE: u64 = BASE + VALUE_BYTES;

/// The value of every word of the value part: the register initialisation
/// value of the kernel frames (0x4000 in each 16-bit lane is 2.0 as half
/// and bfloat16; the 32- and 64-bit lanes are normal numbers too).
pub const WORD: u64 = 0x4000_4000_4000_4000;

/// Bytes per slot: one cache line on every core winic targets, and the
/// alignment of the widest access (a 512-bit vector, `cmpxchg16b`'s 16,
/// `fxsave`'s 16, `xsave`'s 64).
pub const SLOT: i32 = 64;

/// Slots a kernel cycles through: 256 × 64 bytes = 16 KiB, half of the
/// smallest L1 data cache of the cores measured so far.
pub const SLOTS_USED: usize = 256;

/// The first slot's displacement: large enough that every slot needs a
/// 32-bit displacement (also as EVEX's compressed `disp8*N` with N up to
/// 64), so that every copy of a form has the same length.
pub const FIRST_DISP: i32 = 8192;

/// The displacement of the `n`-th memory operand of a kernel from a base
/// register holding [`VALUES`].
pub fn slot_disp(n: usize) -> i32 {
    FIRST_DISP + (n % SLOTS_USED) as i32 * SLOT
}

/// How a kernel's accesses are placed, for reports.
pub fn slots_note() -> String {
    format!(
        "the bases hold {VALUES:#x} (winic's data area: every word {WORD:#x}); \
         each access of the kernel has its own {SLOT}-byte line at displacement \
         {FIRST_DISP} + {SLOT}*n (n = 0..{}, then again), so no copy waits on another \
         through memory and no store aliases a load; the lines above show displacement 0",
        SLOTS_USED - 1
    )
}

/// How a chain through a load's address runs, for reports.
pub fn chase_note() -> String {
    format!(
        "the base starts at {CHASE:#x}, where every word holds its own address, \
         displacement 0: each load returns the address it read (a pointer chase)"
    )
}

/// The word at `addr` of the area (`addr` 8-byte aligned, inside it).
pub fn word_at(addr: u64) -> u64 {
    if addr >= CHASE {
        addr
    } else {
        WORD
    }
}

/// The area's initial bytes (little-endian, as all three arches are).
pub fn contents() -> Vec<u8> {
    (0..SIZE / 8)
        .flat_map(|i| word_at(BASE + 8 * i).to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_hold_the_register_value_and_chase_words_their_address() {
        let c = contents();
        assert_eq!(c.len() as u64, SIZE);
        let word = |a: u64| {
            let i = (a - BASE) as usize;
            u64::from_le_bytes(c[i..i + 8].try_into().unwrap())
        };
        assert_eq!(word(VALUES), WORD);
        assert_eq!(word(CHASE - 8), WORD);
        assert_eq!(word(CHASE), CHASE);
        assert_eq!(word(BASE + SIZE - 8), BASE + SIZE - 8);
    }

    #[test]
    fn slots_are_distinct_lines_inside_the_value_part() {
        let d: Vec<i32> = (0..SLOTS_USED).map(slot_disp).collect();
        assert!(d.windows(2).all(|w| w[1] - w[0] == SLOT));
        assert_eq!(slot_disp(SLOTS_USED), FIRST_DISP);
        assert!(FIRST_DISP / 64 > 127, "a compressed disp8 would fit");
        assert!((d[SLOTS_USED - 1] + SLOT) as u64 <= VALUE_BYTES);
        assert!(BASE + SIZE < 1 << 31);
    }
}
