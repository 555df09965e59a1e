//! AArch64 immediate codecs: the `N:immr:imms` bitmask immediates of the
//! logical instructions and the 8-bit floating-point immediates of `fmov`.

/// Encodes `value` as a logical immediate of a `width`-bit register (32 or
/// 64): the 13-bit `N:immr:imms` field (`N` is bit 12). `None` when the
/// value is no replicated rotated run of ones (0 and all-ones never are).
pub fn encode_logical(value: u64, width: u32) -> Option<u64> {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let value = value & mask;
    if value == 0 || value == mask {
        return None;
    }
    // The smallest element size whose replication gives back the value.
    let mut size = width;
    while size > 2 {
        let half = size / 2;
        let low = value & ((1u64 << half) - 1);
        if (value >> half) & ((1u64 << half) - 1) != low {
            break;
        }
        size = half;
    }
    let emask = if size == 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    };
    let elem = value & emask;
    let ones = elem.count_ones();
    // Find the rotation that turns the element into a run of ones at bit 0.
    let rot = (0..size).find(|&r| rotate_right(elem, r, size) == (1u64 << ones) - 1)?;
    let immr = (size - rot) % size;
    let n = u64::from(size == 64);
    // imms: the element size as a prefix of ones, then ones - 1.
    let imms = ((!(size - 1) << 1) & 0x3f) as u64 | u64::from(ones - 1);
    Some((n << 12) | (u64::from(immr) << 6) | imms)
}

/// The value of a logical immediate field for a `width`-bit register (the
/// inverse of [`encode_logical`]), or `None` for a reserved encoding.
pub fn decode_logical(field: u64, width: u32) -> Option<u64> {
    let n = (field >> 12) & 1;
    let immr = ((field >> 6) & 0x3f) as u32;
    let imms = (field & 0x3f) as u32;
    let combined = ((n as u32) << 6) | (!imms & 0x3f);
    if combined == 0 {
        return None;
    }
    let len = 31 - combined.leading_zeros();
    let size = 1u32 << len;
    if size > width || (n == 1 && width == 32) {
        return None;
    }
    let s = imms & (size - 1);
    let r = immr & (size - 1);
    if s == size - 1 {
        return None;
    }
    let elem = rotate_right((1u64 << (s + 1)) - 1, r, size);
    let mut out = 0u64;
    let mut at = 0;
    while at < width {
        out |= elem << at;
        at += size;
    }
    Some(out)
}

fn rotate_right(v: u64, r: u32, size: u32) -> u64 {
    let mask = if size == 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    };
    if r == 0 {
        return v & mask;
    }
    ((v >> r) | (v << (size - r))) & mask
}

/// The value of an 8-bit floating-point immediate (`a:bcd:efgh`, ARM's
/// `VFPExpandImm`): `±(1 + efgh/16) × 2^e` with `e` in -3..=4.
pub fn fp8_value(imm8: u8) -> f64 {
    let sign = if imm8 & 0x80 != 0 { -1.0 } else { 1.0 };
    let bcd = i32::from((imm8 >> 4) & 7);
    let exp = if bcd < 4 { bcd + 1 } else { bcd - 7 };
    let mant = 1.0 + f64::from(imm8 & 0xf) / 16.0;
    sign * mant * 2f64.powi(exp)
}
