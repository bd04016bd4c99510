//! Byte-vector compares for the scanners that classify 64 bytes at a time (`tokens::fast`,
//! `transcript::scan`), behind one trait, so that each scanner states its tests once.
//!
//! On x86-64 the instructions are called through `pulp`'s tokens, which prove the CPU has them,
//! so no code here is `unsafe`: [`Sse2`] compares 16 bytes at a time on every x86-64 CPU, and
//! [`Avx2`] 32 at a time on a CPU that has AVX2, which [`Avx2::detect`] finds at run time. Code
//! that uses [`Avx2`] runs inside `V3::vectorize`, which compiles it for those instructions.
//! [`Portable`] states the same compares on plain arrays, for other CPUs (where the compiler
//! vectorizes them as it can) and as the tests' reference. [`Baseline`] is the widest one
//! every CPU of the target has.

/// Compares on vectors of [`Lanes::WIDTH`] bytes, the top bit of each lane being its answer.
pub trait Lanes: Copy {
    /// Bytes in one vector: a divisor of 64.
    const WIDTH: usize;
    /// One vector of bytes.
    type Vector: Copy;

    /// The [`Lanes::WIDTH`] bytes of `block` from byte `at`, a multiple of the width.
    fn load(self, block: &[u8; 64], at: usize) -> Self::Vector;
    /// `byte` in every lane.
    fn splat(self, byte: u8) -> Self::Vector;
    /// The lanes of `a` ORed with those of `b`.
    fn or(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// The lanes of `a` plus those of `b`, wrapping.
    fn add(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// All ones in the lanes where `a` equals `b`.
    fn eq(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// All ones in the lanes where `a` is greater than `b`, both read as signed bytes.
    fn greater_signed(self, a: Self::Vector, b: Self::Vector) -> Self::Vector;
    /// Each pair of lanes, read as a little-endian 16-bit number, shifted left by two bits:
    /// bit 5 of every byte moves to its bit 7 (bits crossing into the next byte land below it).
    fn shift_pairs_left_2(self, a: Self::Vector) -> Self::Vector;
    /// The top bit of each lane, bit `k` for lane `k`.
    fn top_bits(self, a: Self::Vector) -> u64;
}

/// The widest compares every CPU of the target has.
#[cfg(target_arch = "x86_64")]
pub type Baseline = Sse2;

/// The widest compares every CPU of the target has.
#[cfg(not(target_arch = "x86_64"))]
pub type Baseline = Portable;

/// 16-byte compares (SSE2, on every x86-64 CPU).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct Sse2(pulp::core_arch::x86::Sse2);

#[cfg(target_arch = "x86_64")]
impl Sse2 {
    /// The compares every x86-64 CPU has.
    #[inline(always)]
    pub fn new() -> Sse2 {
        // SSE2 is part of x86-64: the check is answered when the program is compiled.
        Sse2(pulp::core_arch::x86::Sse2::try_new().expect("every x86-64 CPU has SSE2"))
    }
}

#[cfg(target_arch = "x86_64")]
impl Default for Sse2 {
    fn default() -> Sse2 {
        Sse2::new()
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for Sse2 {
    const WIDTH: usize = 16;
    type Vector = std::arch::x86_64::__m128i;

    #[inline(always)]
    fn load(self, block: &[u8; 64], at: usize) -> Self::Vector {
        let bytes: [u8; 16] = block[at..at + 16].try_into().expect("16 bytes");
        pulp::cast(bytes)
    }

    #[inline(always)]
    fn splat(self, byte: u8) -> Self::Vector {
        self.0._mm_set1_epi8(byte as i8)
    }

    #[inline(always)]
    fn or(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0._mm_or_si128(a, b)
    }

    #[inline(always)]
    fn add(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0._mm_add_epi8(a, b)
    }

    #[inline(always)]
    fn eq(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0._mm_cmpeq_epi8(a, b)
    }

    #[inline(always)]
    fn greater_signed(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0._mm_cmpgt_epi8(a, b)
    }

    #[inline(always)]
    fn shift_pairs_left_2(self, a: Self::Vector) -> Self::Vector {
        self.0._mm_slli_epi16::<2>(a)
    }

    #[inline(always)]
    fn top_bits(self, a: Self::Vector) -> u64 {
        u64::from(self.0._mm_movemask_epi8(a) as u32)
    }
}

/// 32-byte compares, on a CPU with AVX2, which the token proves.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct Avx2(pub pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The AVX2 compares, if the CPU has them.
    #[inline]
    pub fn detect() -> Option<Avx2> {
        pulp::x86::V3::try_new().map(Avx2)
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for Avx2 {
    const WIDTH: usize = 32;
    type Vector = std::arch::x86_64::__m256i;

    #[inline(always)]
    fn load(self, block: &[u8; 64], at: usize) -> Self::Vector {
        let bytes: [u8; 32] = block[at..at + 32].try_into().expect("32 bytes");
        pulp::cast(bytes)
    }

    #[inline(always)]
    fn splat(self, byte: u8) -> Self::Vector {
        self.0.avx._mm256_set1_epi8(byte as i8)
    }

    #[inline(always)]
    fn or(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0.avx2._mm256_or_si256(a, b)
    }

    #[inline(always)]
    fn add(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0.avx2._mm256_add_epi8(a, b)
    }

    #[inline(always)]
    fn eq(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0.avx2._mm256_cmpeq_epi8(a, b)
    }

    #[inline(always)]
    fn greater_signed(self, a: Self::Vector, b: Self::Vector) -> Self::Vector {
        self.0.avx2._mm256_cmpgt_epi8(a, b)
    }

    #[inline(always)]
    fn shift_pairs_left_2(self, a: Self::Vector) -> Self::Vector {
        self.0.avx2._mm256_slli_epi16::<2>(a)
    }

    #[inline(always)]
    fn top_bits(self, a: Self::Vector) -> u64 {
        u64::from(self.0.avx2._mm256_movemask_epi8(a) as u32)
    }
}

/// The compares on plain arrays of 16 bytes, one lane after another.
#[derive(Clone, Copy, Default)]
pub struct Portable;

impl Portable {
    /// `op` on each pair of lanes.
    #[inline(always)]
    fn zip(a: [u8; 16], b: [u8; 16], op: fn(u8, u8) -> u8) -> [u8; 16] {
        std::array::from_fn(|k| op(a[k], b[k]))
    }
}

/// All ones for true.
#[inline(always)]
fn all_ones(is: bool) -> u8 {
    0u8.wrapping_sub(u8::from(is))
}

impl Lanes for Portable {
    const WIDTH: usize = 16;
    type Vector = [u8; 16];

    #[inline(always)]
    fn load(self, block: &[u8; 64], at: usize) -> [u8; 16] {
        block[at..at + 16].try_into().expect("16 bytes")
    }

    #[inline(always)]
    fn splat(self, byte: u8) -> [u8; 16] {
        [byte; 16]
    }

    #[inline(always)]
    fn or(self, a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
        Portable::zip(a, b, |a, b| a | b)
    }

    #[inline(always)]
    fn add(self, a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
        Portable::zip(a, b, u8::wrapping_add)
    }

    #[inline(always)]
    fn eq(self, a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
        Portable::zip(a, b, |a, b| all_ones(a == b))
    }

    #[inline(always)]
    fn greater_signed(self, a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
        Portable::zip(a, b, |a, b| all_ones(a as i8 > b as i8))
    }

    #[inline(always)]
    fn shift_pairs_left_2(self, a: [u8; 16]) -> [u8; 16] {
        let mut shifted = [0u8; 16];
        for (pair, out) in a.chunks_exact(2).zip(shifted.chunks_exact_mut(2)) {
            let moved = u16::from_le_bytes([pair[0], pair[1]]) << 2;
            out.copy_from_slice(&moved.to_le_bytes());
        }
        shifted
    }

    #[inline(always)]
    fn top_bits(self, a: [u8; 16]) -> u64 {
        a.iter()
            .enumerate()
            .fold(0, |bits, (k, &lane)| bits | (u64::from(lane >> 7) << k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every compare of every kind of lanes gives what [`Portable`]'s gives, bit for bit, on
    /// blocks that put every byte value against many others.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_compares_agree_with_the_portable_ones() {
        /// Bit `bit` of every lane of each result, as one mask over the 64 bytes.
        fn answers<L: Lanes>(simd: L, block: &[u8; 64], other: &[u8; 64], byte: u8) -> Vec<u64> {
            let mut answers = vec![0u64; 7 * 8];
            let mut at = 0;
            while at < 64 {
                let (a, b) = (simd.load(block, at), simd.load(other, at));
                let results = [
                    a,
                    simd.splat(byte),
                    simd.or(a, b),
                    simd.add(a, b),
                    simd.eq(a, b),
                    simd.greater_signed(a, b),
                    simd.shift_pairs_left_2(a),
                ];
                for (i, mut vector) in results.into_iter().enumerate() {
                    // Doubling moves each bit up to the top, where `top_bits` reads it.
                    for bit in (0..8).rev() {
                        answers[i * 8 + bit] |= simd.top_bits(vector) << at;
                        vector = simd.add(vector, vector);
                    }
                }
                at += L::WIDTH;
            }
            answers
        }
        for byte in 0..=255u8 {
            let block: [u8; 64] = std::array::from_fn(|k| (k as u8).wrapping_mul(37) ^ byte);
            let mut other: [u8; 64] = std::array::from_fn(|k| (k as u8).wrapping_mul(11) ^ !byte);
            other[(byte % 64) as usize] = block[(byte % 64) as usize];
            let expected = answers(Portable, &block, &other, byte);
            assert_eq!(answers(Sse2::new(), &block, &other, byte), expected, "SSE2");
            if let Some(simd) = Avx2::detect() {
                let got = simd.0.vectorize(|| answers(simd, &block, &other, byte));
                assert_eq!(got, expected, "AVX2");
            }
        }
    }

    #[test]
    fn portable_compares_do_what_they_say() {
        let simd = Portable;
        let a: [u8; 16] = std::array::from_fn(|k| k as u8 * 17);
        assert_eq!(simd.top_bits(a), 0b1111_1111_0000_0000);
        assert_eq!(simd.top_bits(simd.eq(a, simd.splat(34))), 0b100);
        assert_eq!(
            simd.top_bits(simd.greater_signed(a, simd.splat(0))),
            0b1111_1110
        );
        let pairs = simd.shift_pairs_left_2([0x20; 16]);
        assert_eq!(pairs[0], 0x80);
        assert_eq!(pairs[1], 0x80);
        assert_eq!(simd.add([0xff; 16], [2; 16]), [1; 16]);
    }
}
