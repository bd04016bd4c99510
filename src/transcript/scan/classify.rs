//! The bits of 64 bytes of JSON text: which bytes are quotes that end or start a string,
//! backslashes that start an escape, and brackets outside strings ([`Word`]), worked out block
//! after block with what each block hands the next (a string or an escape left open).
//!
//! The bytes are classified with vector compares: 16 bytes at a time with `wide` (SSE2 on
//! every x86-64 CPU), or 32 at a time on a CPU with AVX2, which `pulp` finds at run time and
//! hands out as a token, so that no code here is `unsafe`.

use wide::u8x16;

/// The bits of 64 bytes of a scanned text.
#[derive(Default, Clone, Copy)]
pub(super) struct Word {
    /// Quotes no backslash escapes.
    pub(super) quotes: u64,
    /// Backslashes that start an escape (not those another backslash escapes).
    pub(super) escapes: u64,
    /// Brackets and braces outside strings: where objects and arrays open and close (and
    /// the bytes [`Masks::of`] cannot tell from them, which valid JSON never holds there).
    pub(super) structure: u64,
}

/// Appends the words of `bytes` to `words`, with the widest compares the CPU has.
pub(super) fn index(bytes: &[u8], words: &mut Vec<Word>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        simd.vectorize(IndexBlocks {
            classify: Avx2(simd),
            bytes,
            words,
        });
        return;
    }
    IndexBlocks {
        classify: Sse2,
        bytes,
        words,
    }
    .run();
}

/// A way to find the [`Masks`] of 64 bytes. There are no closures between a classifier and the
/// loop that calls it: a closure is compiled on its own, without the vector instructions of
/// the function it was written in, and would call each vector operation instead of holding it.
trait Classify {
    fn masks(&self, block: &[u8; 64]) -> Masks;
}

/// 16-byte compares (`wide`'s: SSE2 on every x86-64 CPU), [`Masks::of`].
struct Sse2;

impl Classify for Sse2 {
    #[inline(always)]
    fn masks(&self, block: &[u8; 64]) -> Masks {
        Masks::of(block)
    }
}

/// 32-byte compares, on a CPU with AVX2 ([`Masks::of_avx2`]).
#[cfg(target_arch = "x86_64")]
struct Avx2(pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Classify for Avx2 {
    #[inline(always)]
    fn masks(&self, block: &[u8; 64]) -> Masks {
        Masks::of_avx2(self.0, block)
    }
}

/// Appends the words of `bytes` to `words`, each block of 64 bytes classified by `classify`
/// (the last one padded with spaces).
struct IndexBlocks<'b, C> {
    classify: C,
    bytes: &'b [u8],
    words: &'b mut Vec<Word>,
}

impl<C: Classify> IndexBlocks<'_, C> {
    #[inline(always)]
    fn run(self) {
        let mut carry = Carry::default();
        let blocks = self.bytes.chunks_exact(64);
        let rest = blocks.remainder();
        // The words are written in place: a push per block checked the vector's capacity,
        // and stored its length, each time.
        let start = self.words.len();
        self.words.resize(start + blocks.len(), Word::default());
        for (slot, block) in self.words[start..].iter_mut().zip(blocks) {
            let block = block.try_into().expect("chunks of 64");
            *slot = self.classify.masks(block).word(&mut carry);
        }
        if !rest.is_empty() {
            let mut padded = [b' '; 64];
            padded[..rest.len()].copy_from_slice(rest);
            self.words
                .push(self.classify.masks(&padded).word(&mut carry));
        }
    }
}

/// The AVX2 run: `V3::vectorize` compiles it for the instructions the token proves.
#[cfg(target_arch = "x86_64")]
impl pulp::NullaryFnOnce for IndexBlocks<'_, Avx2> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.run()
    }
}

/// What one block of 64 bytes hands the next.
#[derive(Default)]
struct Carry {
    /// 1 when the block ended with a backslash that escapes the next byte.
    escape: u64,
    /// All ones when the block ended inside a string.
    inside: u64,
}

/// Bit masks of the quotes, backslashes and brackets (`[]{}`) of 64 bytes.
struct Masks {
    quotes: u64,
    backslashes: u64,
    /// The brackets, and some bytes no valid JSON holds outside a string (see [`Masks::of`]).
    brackets: u64,
}

impl Masks {
    #[inline(always)]
    fn of(block: &[u8; 64]) -> Masks {
        let mut masks = Masks {
            quotes: 0,
            backslashes: 0,
            brackets: 0,
        };
        let bits = |lane: u8x16| u64::from(lane.to_bitmask());
        let lanes: [u8x16; 4] = wide::bytemuck::cast(*block);
        for (k, lane) in lanes.into_iter().enumerate() {
            let shift = 16 * k;
            masks.quotes |= bits(lane.simd_eq(u8x16::splat(b'"'))) << shift;
            masks.backslashes |= bits(lane.simd_eq(u8x16::splat(b'\\'))) << shift;
            // `[` `]` `{` `}` (0x5B 0x5D 0x7B 0x7D) are the bytes that setting bits 0x26 turns
            // into 0x7F, with `Y` `_` `y` and DEL: one compare, where telling them apart took
            // three. Those four never stand outside a string in valid JSON (only punctuation,
            // digits, `eE.+-` and the letters of `true`, `false` and `null` do), and a skip
            // that meets one gives up.
            let folded = lane | u8x16::splat(0x26);
            masks.brackets |= bits(folded.simd_eq(u8x16::splat(0x7f))) << shift;
        }
        masks
    }

    /// [`Masks::of`] with 32-byte compares, on a CPU that has AVX2 (which `simd` proves).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of_avx2(simd: pulp::x86::V3, block: &[u8; 64]) -> Masks {
        let halves: [pulp::u8x32; 2] = pulp::cast(*block);
        let mut masks = Masks {
            quotes: 0,
            backslashes: 0,
            brackets: 0,
        };
        for (k, half) in halves.into_iter().enumerate() {
            let shift = 32 * k;
            let quotes = simd.cmp_eq_u8x32(half, simd.splat_u8x32(b'"'));
            let backslashes = simd.cmp_eq_u8x32(half, simd.splat_u8x32(b'\\'));
            // The brackets as in `of`: setting bits 0x26 turns them into 0x7F.
            let folded = simd.or_u8x32(half, simd.splat_u8x32(0x26));
            let brackets = simd.cmp_eq_u8x32(folded, simd.splat_u8x32(0x7f));
            masks.quotes |= high_bits(simd, quotes) << shift;
            masks.backslashes |= high_bits(simd, backslashes) << shift;
            masks.brackets |= high_bits(simd, brackets) << shift;
        }
        masks
    }

    /// The bits the scanner keeps of this block; `carry` comes from the block before and is
    /// set for the one after.
    fn word(&self, carry: &mut Carry) -> Word {
        let escaped = self.escaped(&mut carry.escape);
        let quotes = self.quotes & !escaped;
        // Each delimiter flips in and out of a string: a prefix XOR of them marks the bytes
        // from an opening quote up to its closing one.
        let mut inside = quotes;
        for shift in [1, 2, 4, 8, 16, 32] {
            inside ^= inside << shift;
        }
        inside ^= carry.inside;
        carry.inside = 0u64.wrapping_sub(inside >> 63);
        Word {
            quotes,
            escapes: self.backslashes & !escaped,
            structure: self.brackets & !inside,
        }
    }

    /// The bytes a backslash escapes. In a run of backslashes every second one escapes the
    /// byte after it: the runs are told apart by whether they start on an even or odd bit, and
    /// adding the run starts to the run carries each run's end past it. `carry` says whether
    /// the last byte of the previous block was an escaping backslash, and is set for the next.
    fn escaped(&self, carry: &mut u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let backslashes = self.backslashes & !*carry;
        let follows_backslash = (backslashes << 1) | *carry;
        let odd_starts = backslashes & !EVEN & !follows_backslash;
        let (even_runs, overflow) = odd_starts.overflowing_add(backslashes);
        *carry = u64::from(overflow);
        (EVEN ^ (even_runs << 1)) & follows_backslash
    }
}

/// The lanes of `lanes` that are set, one bit each.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn high_bits(simd: pulp::x86::V3, lanes: pulp::m8x32) -> u64 {
    u64::from(simd.avx2._mm256_movemask_epi8(pulp::cast(lanes)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_classifier_marks_exactly_the_quotes_backslashes_and_bracket_like_bytes() {
        // Every byte value at every place of a block, among bytes of every class.
        let class_bits = |block: &[u8; 64]| {
            let bits = |is: fn(u8) -> bool| {
                (0..64).fold(0u64, |bits, k| bits | (u64::from(is(block[k])) << k))
            };
            (
                bits(|b| b == b'"'),
                bits(|b| b == b'\\'),
                bits(|b| b | 0x26 == 0x7f),
            )
        };
        let of = |masks: Masks| (masks.quotes, masks.backslashes, masks.brackets);
        let mut checked = 0;
        for value in 0..=255u8 {
            for at in 0..64 {
                let mut block: [u8; 64] = std::array::from_fn(|k| b"\"\\{}[]ab 7_"[k % 11]);
                block[at] = value;
                let expected = class_bits(&block);
                assert_eq!(of(Masks::of(&block)), expected, "byte {value} at {at}");
                #[cfg(target_arch = "x86_64")]
                if let Some(simd) = pulp::x86::V3::try_new() {
                    let avx2 = simd.vectorize(|| Masks::of_avx2(simd, &block));
                    assert_eq!(of(avx2), expected, "AVX2: byte {value} at {at}");
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 256 * 64);
    }
}
