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
//! Memory operands of a kernel address blocks of the value part one after
//! the other, each of the access's own size ([`Slots`]): independent
//! copies never wait on each other through memory, and stores never alias
//! the loads of the same body. They cycle through [`SPAN`] bytes (16
//! KiB), which stay in the L1 data cache of every core winic targets.

/// The area's first byte. Below 2^31, so that an address also fits a
/// sign-extended 32-bit immediate (x86 `mov r32, imm32`, RISC-V
/// `lui`+`addi`) and lies inside the user address space of every paging
/// mode (RISC-V Sv39 leaves user space 256 GiB).
pub const BASE: u64 = crate::arch::DATA_AREA;

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

// Every displacement needs 32 bits (also as a compressed disp8*64), and
// the whole area lies below 2^31.
const _: () = assert!(FIRST_DISP / 64 > 127);
const _: () = assert!(BASE + SIZE < 1 << 31);

/// The value of every word of the value part: the register initialisation
/// value of the kernel frames (0x4000 in each 16-bit lane is 2.0 as half
/// and bfloat16; the 32- and 64-bit lanes are normal numbers too).
pub const WORD: u64 = 0x4000_4000_4000_4000;

/// Bytes of the value part a kernel's accesses cycle through: 16 KiB,
/// half of the smallest L1 data cache of the cores measured so far.
pub const SPAN: i32 = 16 * 1024;

/// The first access's displacement: large enough that every access needs
/// a 32-bit displacement (also as EVEX's compressed `disp8*N` with N up to
/// 64), so that every copy of a form has the same length.
pub const FIRST_DISP: i32 = 8192;

/// Where the pointers a body moves (x86 string operations' `rsi`, and
/// `rdi`) start every iteration ([`crate::arch::Operands::walk`]): reads
/// at the first block [`Slots`] uses, writes 9 KiB further (the middle of
/// the span plus a KiB: no store lands on a word the body loads, and no
/// two are a multiple of 4 KiB apart, which some cores mistake for the
/// same address). A body of 12 copies of 8 bytes, twice, moves either by
/// 192 bytes.
pub const STARTS: crate::arch::Starts = crate::arch::Starts {
    reads: VALUES + FIRST_DISP as u64,
    writes: VALUES + (FIRST_DISP + SPAN / 2 + 1024) as u64,
};

/// The displacement of the one block a latency chain through memory
/// stores to and loads back from (a store and its reload, a
/// read-modify-write and the next): past the blocks [`Slots`] cycles
/// through, so no placed access touches it. Accesses at it keep it:
/// [`crate::kernel::build`] places no access a chain linked.
pub const LINKED: i32 = FIRST_DISP + SPAN;

const _: () = assert!((LINKED + 64) as u64 <= VALUE_BYTES);

/// The bytes a streamed kernel's base walks through
/// ([`crate::kernel::build_streamed`]): every iteration it moves past the
/// blocks the iteration used, and back by this much once past it, so an
/// address comes round again after a few dozen iterations, long after its
/// store left the core. Its accesses, at most this many bytes from their
/// first block on, stay before [`LINKED`]'s block.
pub const STREAM_WINDOW: u32 = 8 * 1024;

const _: () = assert!(FIRST_DISP + 2 * STREAM_WINDOW as i32 <= LINKED);
const _: () = assert!(STREAM_WINDOW.is_power_of_two() && BASE & (STREAM_WINDOW as u64 - 1) == 0);

/// Bytes at the start of the value part that a kernel's stores can reach:
/// the blocks [`Slots`] cycles through, [`LINKED`]'s block and the walk of
/// the string operations from [`STARTS`]' `writes` (up to 8 KiB a
/// `rep movsb`). A child that runs several kernels puts them back to
/// [`WORD`] before each run (`crate::exec::data::restore`), so no kernel
/// reads what another stored: on xeon-cf `vsqrtpd zmm, [m]{1to8}` took
/// 160 or 18.75 cycles, as kernels of its group had stored, where the
/// form without the broadcast takes 24; since, 24.
pub const WRITABLE: u64 = 32 * 1024;

const _: () = assert!((LINKED + 64) as u64 <= WRITABLE);
const _: () = assert!(STARTS.writes - VALUES + 8192 <= WRITABLE);

/// The displacement, from a base holding [`CHASE`], of the load a
/// neutral chase times (a latency chain through the address of a load
/// whose result is not that address, `crate::mode::lat::chain`): the last
/// 16 KiB of the value part, past every block [`Slots`] and [`LINKED`]
/// use, where every word is [`WORD`] (the chase part's addresses are
/// denormal doubles, which some cores stall on).
pub const BESIDE_CHASE: i32 = -2 * FIRST_DISP;

const _: () = assert!(VALUE_BYTES as i64 + (BESIDE_CHASE as i64) > (LINKED + 64) as i64);

/// The displacement, from a base holding [`CHASE`], of the first lap's
/// line in a neutral chase through a form that writes the memory it
/// reads (x86 `xadd [m], r`, `xchg [m], r`; [`rewrite_chase`]): 26 KiB
/// into the value part, past the blocks [`Slots`], [`LINKED`] and the
/// string operations' walk use, within the [`WRITABLE`] bytes put back
/// before each run, so what it stores (`xchg` stores a cleared register)
/// reaches no other kernel.
pub const REWRITE_CHASE: i32 = 26 * 1024 - VALUE_BYTES as i32;

/// The most laps a chase through [`REWRITE_CHASE`] has lines for.
const REWRITE_LAPS: usize = 16;

const _: () =
    assert!((REWRITE_CHASE as i64 + VALUE_BYTES as i64) >= (STARTS.writes - VALUES + 8192) as i64);
const _: () = assert!(
    REWRITE_CHASE as i64 + VALUE_BYTES as i64 + 64 * REWRITE_LAPS as i64 <= WRITABLE as i64
);

/// The displacement of lap `lap`'s line, of `laps`, in a chase through a
/// form that writes the memory it reads: a line of its own each, so that
/// a load waits on no store of the lap before. `None` for fewer than two
/// laps (the line's next load would be the next lap's) or more than
/// there are lines for.
pub fn rewrite_chase(lap: usize, laps: usize) -> Option<i32> {
    (2..=REWRITE_LAPS)
        .contains(&laps)
        .then(|| REWRITE_CHASE + 64 * lap as i32)
}

/// Where the accesses of one kernel go: one after the other, each a block
/// of its own size aligned to that size (8 to 64 bytes; a gather's or
/// scatter's spans its lanes, up to [`MAX_BLOCK`]), as a loop
/// streaming through an array touches them: no two overlap, so no copy
/// waits on another through memory and no store aliases a load, while
/// accesses of a few bytes share cache lines as real code's do (stores to
/// a new line each: 1 per cycle on Zen 4, not its 2).
#[derive(Clone, Debug, Default)]
pub struct Slots {
    next: i32,
    /// The end of the furthest block handed out (from [`FIRST_DISP`]).
    end: i32,
    /// A block started over at the span's beginning.
    wrapped: bool,
    placement: Placement,
    /// The body writes no memory: an access that fills a cache line
    /// reads the same line as every other ([`Slots::loads_only`]).
    loads_only: bool,
}

/// How [`Slots`] places a kernel's accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Each access in a block of its own size, aligned to it: no access
    /// splits a cache line (how every mode measures).
    #[default]
    Aligned,
    /// Each access across the boundary of two 64-byte cache lines, half
    /// in each, no two in one line and none across a 4 KiB page: what a
    /// split itself costs (`winic ports`' line-split experiment).
    LineSplit,
    /// One access after the other, each half its size off its alignment:
    /// a stream through an array that starts off a vector's alignment,
    /// where every `64 / size`-th access splits a line (each 64-byte one)
    /// and one in a page's lines crosses a page.
    Misaligned,
    /// Each access aligned at the start of a cache line of its own, no
    /// two in one line: what an access costs when none shares a line with
    /// the one before it, as in a loop over several arrays (Zen 4 commits
    /// two stores a cycle only into one line).
    OwnLine,
}

/// The largest block an access takes: the 16 lanes of a gather or
/// scatter, a line each ([`crate::arch::LANE_STEP`]).
pub const MAX_BLOCK: u32 = 16 * crate::arch::LANE_STEP as u32;

const _: () = assert!(8 * MAX_BLOCK as i32 <= SPAN);

/// The cache line every core winic targets has.
pub const LINE: i32 = 64;

/// The page the line-split placement never crosses.
const PAGE: i32 = 4096;

impl Slots {
    /// Slots placing accesses as `placement` says.
    pub fn new(placement: Placement) -> Slots {
        Slots {
            next: 0,
            end: 0,
            wrapped: false,
            placement,
            loads_only: false,
        }
    }

    /// Slots for a body that writes no memory: as [`Slots::new`], but
    /// aligned accesses that fill a cache line (64 bytes: `zmmword`) all
    /// read the line at [`FIRST_DISP`]. A stream of 512-bit loads, each
    /// from a line of its own, runs at a rate that changes from minute to
    /// minute on Zen 4: 48 `vpaddd zmm, zmm31, [m]` a loop, timed by a
    /// C program outside winic (zen4, 2026-12-03), took 1.000 cycles a
    /// copy from one line in 27 of 27 runs, and 1.00 to 1.20 from 48
    /// lines in a row, backwards or shuffled alike; winic's kernels on
    /// consecutive lines gave the 1,440 512-bit load-op forms 1.06 to 1.14
    /// by run (150 to 216 of them more than 5% apart between two runs; 4
    /// to 10 from one line). Narrower loads share their lines as a
    /// stream's do and keep their blocks; a body that stores keeps every
    /// block apart, so that no store aliases a load.
    pub fn loads_only(placement: Placement) -> Slots {
        Slots {
            loads_only: true,
            ..Slots::new(placement)
        }
    }

    /// The displacement (from a base holding [`VALUES`]) of the next
    /// access of `bytes` bytes (up to [`MAX_BLOCK`]: a gather's lanes).
    pub fn next(&mut self, bytes: u32) -> i32 {
        let size = (bytes.clamp(8, MAX_BLOCK)).next_power_of_two() as i32;
        if self.loads_only && self.placement == Placement::Aligned && size == LINE {
            self.end = self.end.max(LINE);
            return FIRST_DISP;
        }
        let off = match self.placement {
            Placement::LineSplit => return self.next_split(size),
            Placement::Aligned | Placement::OwnLine => 0,
            Placement::Misaligned => size / 2,
        };
        // A line of its own: the block starts a line and fills it.
        let block = match self.placement {
            Placement::OwnLine => size.max(LINE),
            _ => size,
        };
        let mut at = (self.next + block - 1) / block * block;
        if at + off + block > SPAN {
            at = 0;
            self.wrapped = true;
        }
        self.next = at + block;
        self.end = self.end.max(at + off + block);
        FIRST_DISP + at + off
    }

    /// The bytes from [`FIRST_DISP`] the blocks handed out so far reach
    /// to, or `None` once they started over at the span's beginning (two
    /// accesses of the kernel may then share a block).
    pub fn extent(&self) -> Option<i32> {
        (!self.wrapped).then_some(self.end)
    }

    /// The next access of `size` bytes across a line boundary: half of
    /// it before the boundary, half after. The next access starts in the
    /// line after this one's second (so no line holds two: stores to one
    /// line could merge); boundaries a page starts at are skipped.
    fn next_split(&mut self, size: i32) -> i32 {
        let boundary = |from: i32| {
            let mut b = (from + size / 2 + LINE - 1) / LINE * LINE;
            while b % PAGE == 0 {
                b += LINE;
            }
            b
        };
        let mut b = boundary(self.next);
        if b + size / 2 > SPAN {
            b = boundary(0);
            self.wrapped = true;
        }
        self.next = b + LINE;
        self.end = self.end.max(b + size / 2);
        FIRST_DISP + b - size / 2
    }
}

/// How a kernel's accesses are placed, for reports.
pub fn slots_note() -> String {
    format!(
        "the bases hold {VALUES:#x} (winic's data area: every word {WORD:#x}); \
         the kernel's accesses take consecutive blocks of their own size (a gather's or \
         scatter's: its lanes') from displacement {FIRST_DISP} on (through {SPAN} bytes, then again), so no copy \
         waits on another through memory and no store aliases a load; in a body that \
         stores nothing, every 64-byte access reads the line at {FIRST_DISP}; the lines \
         above show displacement 0"
    )
}

/// How a chain through a load's address runs, for reports.
pub fn chase_note() -> String {
    format!(
        "the base starts at {CHASE:#x}, where every word holds its own address, \
         displacement 0: each load returns the address it read (a pointer chase)"
    )
}

/// How a neutral chase runs (a chain through the address of a load
/// whose result is not that address), for reports.
pub fn beside_chase_note() -> String {
    format!(
        "the base starts at {CHASE:#x}; the load reads {} bytes before it (words \
         {WORD:#x}) where its offset field reaches, else the chase part at its slot; the \
         result, cleared, is added to the base, which keeps its address: the lap is the \
         address -> result and the two steps back",
        -BESIDE_CHASE
    )
}

/// How a neutral chase through a form that writes the memory it reads
/// runs ([`rewrite_chase`]), for reports.
pub fn rewrite_chase_note() -> String {
    format!(
        "the base starts at {CHASE:#x}; the form reads and writes {} bytes before it \
         (words {WORD:#x}) in the first lap, a line further in each next lap, so no \
         load waits on the store of the lap before; the result, cleared, is added to the \
         base, which keeps its address: the lap is the address -> result and the two \
         steps back",
        -REWRITE_CHASE
    )
}

/// How a chain through memory runs, for reports.
pub fn linked_note() -> String {
    format!(
        "every store of the chain and the load after it address the same block, \
         displacement {LINKED} from a base holding {VALUES:#x} (where an offset field \
         does not reach it, the slot it reaches, as the kernel prints): the load reads \
         what the store wrote (store-to-load forwarding)"
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
    fn accesses_take_aligned_blocks_of_their_size_and_never_overlap() {
        let mut s = Slots::default();
        let got: Vec<i32> = [8, 8, 64, 4, 32, 16, 1]
            .iter()
            .map(|&b| s.next(b) - FIRST_DISP)
            .collect();
        assert_eq!(got, [0, 8, 64, 128, 160, 192, 208]);
        // Around the span, back to its start.
        let mut s = Slots::default();
        let n = (SPAN / 64) as usize;
        let d: Vec<i32> = (0..=n).map(|_| s.next(64)).collect();
        assert_eq!(d[n], FIRST_DISP);
        assert!(((d[n - 1] + 64) as u64) <= VALUE_BYTES);
    }

    /// A body that stores nothing: line-sized aligned accesses read one
    /// line; narrower ones, and the other placements, keep their blocks.
    #[test]
    fn a_loads_only_body_reads_its_line_sized_accesses_from_one_line() {
        let mut s = Slots::loads_only(Placement::Aligned);
        let got: Vec<i32> = [64, 64, 32, 32, 64, 8]
            .iter()
            .map(|&b| s.next(b) - FIRST_DISP)
            .collect();
        assert_eq!(got, [0, 0, 0, 32, 0, 64]);
        let mut s = Slots::loads_only(Placement::Misaligned);
        assert_ne!(s.next(64), s.next(64));
        let mut s = Slots::new(Placement::Aligned);
        assert_eq!(s.next(64) + 64, s.next(64));
    }

    /// Split placement: every access, of every size, has bytes in two
    /// lines and none in two pages; none overlaps another before the
    /// slots wrap; all stay inside the span.
    #[test]
    fn split_accesses_cross_a_line_never_a_page_and_never_overlap() {
        for bytes in [8, 16, 32, 64] {
            let mut s = Slots::new(Placement::LineSplit);
            let mut seen: Vec<(i32, i32)> = Vec::new();
            for _ in 0..2 * SPAN / LINE {
                let at = s.next(bytes) - FIRST_DISP;
                let end = at + bytes as i32;
                assert!(at >= 0 && end <= SPAN, "{bytes} bytes at {at}");
                assert_ne!(
                    at / LINE,
                    (end - 1) / LINE,
                    "{bytes} bytes at {at}: one line"
                );
                let page = |x: i32| (FIRST_DISP + x) / PAGE;
                assert_eq!(page(at), page(end - 1), "{bytes} bytes at {at}: two pages");
                if seen.last().is_some_and(|&(a, _)| at < a) {
                    seen.clear(); // wrapped round the span
                }
                let line = |x: i32| x.div_euclid(LINE);
                assert!(
                    seen.iter()
                        .all(|&(a, e)| line(end - 1) < line(a) || line(at) > line(e - 1)),
                    "{bytes} at {at}: a line of another access"
                );
                seen.push((at, end));
            }
        }
        // 16 bytes: 8 on each side of the second line's start, then of
        // the fourth.
        let mut s = Slots::new(Placement::LineSplit);
        assert_eq!(s.next(16) - FIRST_DISP, 56);
        assert_eq!(s.next(16) - FIRST_DISP, 184);
        let mut s = Slots::new(Placement::LineSplit);
        assert_eq!(s.next(64) - FIRST_DISP, 32);
        assert_eq!(s.next(64) - FIRST_DISP, 160);
    }

    /// Misaligned placement: a stream of accesses half their size off
    /// alignment; of 64-byte ones each splits, of 16-byte ones every
    /// fourth.
    #[test]
    fn a_misaligned_stream_splits_every_64_over_size_th_access() {
        for (bytes, every) in [(8, 8), (16, 4), (32, 2), (64, 1)] {
            let mut s = Slots::new(Placement::Misaligned);
            let at: Vec<i32> = (0..64).map(|_| s.next(bytes) - FIRST_DISP).collect();
            assert_eq!(at[0], bytes as i32 / 2);
            assert!(
                at.windows(2).all(|w| w[1] == w[0] + bytes as i32),
                "{bytes}: {at:?}"
            );
            let splits = at
                .iter()
                .filter(|&&a| a / LINE != (a + bytes as i32 - 1) / LINE)
                .count();
            assert_eq!(splits, 64 / every, "{bytes} bytes");
        }
    }

    #[test]
    fn an_access_of_its_own_line_starts_a_line_no_other_shares() {
        for bytes in [8, 16, 32, 64] {
            let mut s = Slots::new(Placement::OwnLine);
            let at: Vec<i32> = (0..400).map(|_| s.next(bytes) - FIRST_DISP).collect();
            assert!(
                at.iter().all(|a| a % LINE == 0 && *a + LINE <= SPAN),
                "{at:?}"
            );
            // Consecutive accesses in consecutive lines, around the span.
            assert!(
                at.windows(2).all(|w| w[1] == w[0] + LINE || w[1] == 0),
                "{bytes}: {at:?}"
            );
            assert_eq!(at[(SPAN / LINE) as usize], 0, "{bytes}: wraps at the span");
        }
    }
}
