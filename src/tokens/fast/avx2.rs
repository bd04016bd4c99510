//! The window classifier for CPUs with AVX2: [`ByteMasks::of`]'s tests, 32 bytes at a time.
//!
//! `pulp` finds AVX2 at run time and hands out a token that proves it ([`V3`]), whose vector
//! operations are safe to call; [`super::walk`] runs its whole walk compiled for them. There
//! are no closures here: see [`Classifier`].

use pulp::x86::V3;

use super::chunk::{ByteMasks, Classifier};

/// 32 bytes in a vector register.
type Lanes = std::arch::x86_64::__m256i;

/// 32-byte compares, on a CPU with AVX2, which the token proves.
#[derive(Clone, Copy)]
pub(super) struct Avx2(pub(super) V3);

impl Classifier for Avx2 {
    #[inline(always)]
    fn masks<const JSON_BODY: bool>(self, window: &[u8; 64]) -> ByteMasks {
        let [low, high]: [Lanes; 2] = pulp::cast(*window);
        let (low, high) = (
            half::<JSON_BODY>(self.0, low),
            half::<JSON_BODY>(self.0, high),
        );
        ByteMasks {
            letters: low.letters | high.letters << 32,
            case_bit: low.case_bit | high.case_bit << 32,
            digits: low.digits | high.digits << 32,
            printable: low.printable | high.printable << 32,
            newlines: low.newlines | high.newlines << 32,
            spaces: low.spaces | high.spaces << 32,
            backslashes: low.backslashes | high.backslashes << 32,
        }
    }

    #[inline(always)]
    fn non_ascii(self, window: &[u8; 64]) -> u64 {
        let [low, high]: [Lanes; 2] = pulp::cast(*window);
        bits(self.0, low) | bits(self.0, high) << 32
    }
}

/// The masks of 32 bytes, in the low half of each.
#[inline(always)]
fn half<const JSON_BODY: bool>(simd: V3, bytes: Lanes) -> ByteMasks {
    ByteMasks {
        // Setting bit 0x20 folds `A-Z` onto `a-z`.
        letters: in_range(simd, or(simd, bytes, splat(simd, 0x20)), b'a', b'z'),
        // Bit 5 of each byte moved to its bit 7, as in `ByteMasks::of`.
        case_bit: bits(simd, simd.avx2._mm256_slli_epi16::<2>(bytes)),
        digits: in_range(simd, bytes, b'0', b'9'),
        printable: in_range(simd, bytes, 0x21, 0x7E),
        newlines: match JSON_BODY {
            true => 0,
            false => either(simd, bytes, b'\n', b'\r'),
        },
        spaces: match JSON_BODY {
            true => bits(simd, is(simd, bytes, b' ')),
            false => either(simd, bytes, b' ', b'\t'),
        },
        backslashes: match JSON_BODY {
            true => bits(simd, is(simd, bytes, b'\\')),
            false => 0,
        },
    }
}

/// `b` in every lane.
#[inline(always)]
fn splat(simd: V3, b: u8) -> Lanes {
    simd.avx._mm256_set1_epi8(b as i8)
}

/// The top bit of each lane, bit `k` for lane `k`.
#[inline(always)]
fn bits(simd: V3, lanes: Lanes) -> u64 {
    u64::from(simd.avx2._mm256_movemask_epi8(lanes) as u32)
}

/// The lanes of `a` ORed with those of `b`.
#[inline(always)]
fn or(simd: V3, a: Lanes, b: Lanes) -> Lanes {
    simd.avx2._mm256_or_si256(a, b)
}

/// All ones in the lanes that hold `b`.
#[inline(always)]
fn is(simd: V3, lanes: Lanes, b: u8) -> Lanes {
    simd.avx2._mm256_cmpeq_epi8(lanes, splat(simd, b))
}

/// The lanes that hold `a` or `b`, one bit each.
#[inline(always)]
fn either(simd: V3, lanes: Lanes, a: u8, b: u8) -> u64 {
    bits(simd, or(simd, is(simd, lanes, a), is(simd, lanes, b)))
}

/// The lanes in `lo..=hi`, tested as [`ByteMasks::of`] tests them: moved to the top of the
/// signed range, then one signed compare.
#[inline(always)]
fn in_range(simd: V3, lanes: Lanes, lo: u8, hi: u8) -> u64 {
    let moved = simd.avx2._mm256_add_epi8(lanes, splat(simd, 0x7F - hi));
    let top = splat(simd, 0x7E - (hi - lo));
    bits(simd, simd.avx2._mm256_cmpgt_epi8(moved, top))
}
