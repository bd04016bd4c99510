//! The bits of 64 bytes of JSON text: which bytes are quotes that end or start a string,
//! backslashes that start an escape, brackets outside strings, and bytes that are no printable
//! ASCII ([`Word`]), worked out block after block with what each block hands the next (a string
//! or an escape left open).
//!
//! The bytes are classified with the vector compares of [`crate::simd`]: 16 bytes at a time
//! (SSE2 on every x86-64 CPU), or 32 at a time on a CPU with AVX2, found at run time.

use crate::simd::{self, Lanes};

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
    /// Bytes below 0x20 (which no JSON string holds raw) or from 0x80 up (of a character
    /// beyond ASCII), inside strings or not: a string whose body has none is ASCII with no
    /// control byte, which [`super::index::Scanner::text`] then need not look at its bytes
    /// again to know.
    pub(super) unusual: u64,
}

/// Writes the words of `bytes` into the first slots of `words`, with the widest compares the
/// CPU has, and returns how many there are. `words` is a spare kept from text to text
/// ([`super::index::Scanner`]): it grows (its new slots zeroed first) only for a text longer
/// than those before, and what it holds past the words written is an earlier text's.
pub(super) fn index(bytes: &[u8], words: &mut Vec<Word>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = simd::Avx2::detect() {
        return avx2.0.vectorize(IndexBlocks {
            simd: avx2,
            bytes,
            words,
        });
    }
    IndexBlocks {
        simd: simd::Baseline::default(),
        bytes,
        words,
    }
    .run()
}

/// Writes the words of `bytes` into `words` (see [`index`]), each block of 64 bytes classified
/// with the compares of `simd` (the last one padded with spaces). There are no closures between
/// the compares and the loop: a closure is compiled on its own, without the vector instructions
/// of the function it was written in, and would call each vector operation instead of holding
/// it.
struct IndexBlocks<'b, L> {
    simd: L,
    bytes: &'b [u8],
    words: &'b mut Vec<Word>,
}

impl<L: Lanes> IndexBlocks<'_, L> {
    #[inline(always)]
    fn run(self) -> usize {
        let mut carry = Carry::default();
        let blocks = self.bytes.chunks_exact(64);
        let rest = blocks.remainder();
        let count = blocks.len() + usize::from(!rest.is_empty());
        // The words are written in place: a push per block checked the vector's capacity,
        // and stored its length, each time, and zeroing the whole vector for every text (a
        // `memset`) cost `estimate` 2% more instructions than the scan itself (callgrind).
        if self.words.len() < count {
            self.words.resize(count, Word::default());
        }
        for (slot, block) in self.words.iter_mut().zip(blocks) {
            let block = block.try_into().expect("chunks of 64");
            *slot = Masks::of(self.simd, block).word(&mut carry);
        }
        if !rest.is_empty() {
            let mut padded = [b' '; 64];
            padded[..rest.len()].copy_from_slice(rest);
            self.words[count - 1] = Masks::of(self.simd, &padded).word(&mut carry);
        }
        count
    }
}

/// The AVX2 run: `V3::vectorize` compiles it for the instructions the token proves.
#[cfg(target_arch = "x86_64")]
impl pulp::NullaryFnOnce for IndexBlocks<'_, simd::Avx2> {
    type Output = usize;

    #[inline(always)]
    fn call(self) -> usize {
        self.run()
    }
}

/// Whether `bytes` holds a byte below 0x20, which a JSON string may not hold raw, and whether
/// they are all ASCII, when their characters are as many as they are. Valid text has no
/// control byte, so every byte is looked at: 64 at a time with the widest compares the CPU
/// has (a string's body is most of what `estimate` reads of a kimi-cli context, and ORs over
/// single bytes, which the compiler could only vectorize 16 at a time, cost 7% of its
/// instructions there), and a short string or the last few bytes one at a time.
pub(crate) fn control_and_ascii(bytes: &[u8]) -> (bool, bool) {
    if bytes.len() < 64 {
        return control_and_ascii_bytes(bytes);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = simd::Avx2::detect() {
        return avx2.0.vectorize(ControlAndAscii { simd: avx2, bytes });
    }
    ControlAndAscii {
        simd: simd::Baseline::default(),
        bytes,
    }
    .run()
}

/// [`control_and_ascii`] byte by byte.
fn control_and_ascii_bytes(bytes: &[u8]) -> (bool, bool) {
    let (control, all) = bytes.iter().fold((0u8, 0u8), |(control, all), &b| {
        (control | u8::from(b < 0x20), all | b)
    });
    (control != 0, all.is_ascii())
}

/// [`control_and_ascii`] of `bytes`, 64 bytes at a time with the compares of `simd`.
struct ControlAndAscii<'b, L> {
    simd: L,
    bytes: &'b [u8],
}

impl<L: Lanes> ControlAndAscii<'_, L> {
    #[inline(always)]
    fn run(self) -> (bool, bool) {
        let simd = self.simd;
        let (mut control, mut high) = (0u64, 0u64);
        let blocks = self.bytes.chunks_exact(64);
        let rest = blocks.remainder();
        for block in blocks {
            let block: &[u8; 64] = block.try_into().expect("chunks of 64");
            let mut at = 0;
            while at < 64 {
                let lanes = simd.load(block, at);
                // Read as signed, the bytes from 0x80 up are below 0x20 too: their top bit,
                // which is `high`, tells them apart.
                let below = simd.top_bits(simd.greater_signed(simd.splat(0x20), lanes));
                let top = simd.top_bits(lanes);
                control |= below & !top;
                high |= top;
                at += L::WIDTH;
            }
        }
        let (rest_control, rest_ascii) = control_and_ascii_bytes(rest);
        (control != 0 || rest_control, high == 0 && rest_ascii)
    }
}

/// The AVX2 run: `V3::vectorize` compiles it for the instructions the token proves.
#[cfg(target_arch = "x86_64")]
impl pulp::NullaryFnOnce for ControlAndAscii<'_, simd::Avx2> {
    type Output = (bool, bool);

    #[inline(always)]
    fn call(self) -> (bool, bool) {
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

/// Bit masks of the quotes, backslashes, brackets (`[]{}`) and unusual bytes of 64 bytes.
struct Masks {
    quotes: u64,
    backslashes: u64,
    /// The brackets, and some bytes no valid JSON holds outside a string (see [`Masks::of`]).
    brackets: u64,
    /// Control bytes and bytes from 0x80 up ([`Word::unusual`]).
    unusual: u64,
}

impl Masks {
    /// The masks of `block`, compared [`Lanes::WIDTH`] bytes at a time.
    #[inline(always)]
    fn of<L: Lanes>(simd: L, block: &[u8; 64]) -> Masks {
        let mut masks = Masks {
            quotes: 0,
            backslashes: 0,
            brackets: 0,
            unusual: 0,
        };
        let mut at = 0;
        while at < 64 {
            let lanes = simd.load(block, at);
            let quotes = simd.eq(lanes, simd.splat(b'"'));
            let backslashes = simd.eq(lanes, simd.splat(b'\\'));
            // `[` `]` `{` `}` (0x5B 0x5D 0x7B 0x7D) are the bytes that setting bits 0x26 turns
            // into 0x7F, with `Y` `_` `y` and DEL: one compare, where telling them apart took
            // three. Those four never stand outside a string in valid JSON (only punctuation,
            // digits, `eE.+-` and the letters of `true`, `false` and `null` do), and a skip
            // that meets one gives up.
            let folded = simd.or(lanes, simd.splat(0x26));
            let brackets = simd.eq(folded, simd.splat(0x7f));
            // Read as signed, the bytes from 0x80 up are below 0x20 too: one compare finds
            // both kinds of unusual byte.
            let unusual = simd.greater_signed(simd.splat(0x20), lanes);
            masks.quotes |= simd.top_bits(quotes) << at;
            masks.backslashes |= simd.top_bits(backslashes) << at;
            masks.brackets |= simd.top_bits(brackets) << at;
            masks.unusual |= simd.top_bits(unusual) << at;
            at += L::WIDTH;
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
            unusual: self.unusual,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_ascii_agrees_with_a_byte_by_byte_look_at_any_length() {
        let pattern = b"ab \\\"{}~\x7f";
        for len in [0usize, 1, 63, 64, 65, 127, 128, 200] {
            for value in 0..=255u8 {
                for at in [0, len / 2, len.saturating_sub(1)] {
                    let mut bytes: Vec<u8> = (0..len).map(|k| pattern[k % pattern.len()]).collect();
                    if len > 0 {
                        bytes[at] = value;
                    }
                    let expected = control_and_ascii_bytes(&bytes);
                    assert_eq!(
                        control_and_ascii(&bytes),
                        expected,
                        "byte {value} at {at} of {len}"
                    );
                    let sse2 = ControlAndAscii {
                        simd: simd::Baseline::default(),
                        bytes: &bytes,
                    };
                    assert_eq!(
                        sse2.run(),
                        expected,
                        "baseline: byte {value} at {at} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_classifier_marks_exactly_the_quotes_backslashes_bracket_like_and_unusual_bytes() {
        // Every byte value at every place of a block, among bytes of every class.
        let class_bits = |block: &[u8; 64]| {
            let bits = |is: fn(u8) -> bool| {
                (0..64).fold(0u64, |bits, k| bits | (u64::from(is(block[k])) << k))
            };
            (
                bits(|b| b == b'"'),
                bits(|b| b == b'\\'),
                bits(|b| b | 0x26 == 0x7f),
                bits(|b| !(0x20..0x80).contains(&b)),
            )
        };
        let of = |masks: Masks| {
            (
                masks.quotes,
                masks.backslashes,
                masks.brackets,
                masks.unusual,
            )
        };
        let mut checked = 0;
        for value in 0..=255u8 {
            for at in 0..64 {
                let mut block: [u8; 64] = std::array::from_fn(|k| b"\"\\{}[]ab 7_"[k % 11]);
                block[at] = value;
                let expected = class_bits(&block);
                assert_eq!(
                    of(Masks::of(simd::Portable, &block)),
                    expected,
                    "byte {value} at {at}"
                );
                #[cfg(target_arch = "x86_64")]
                assert_eq!(
                    of(Masks::of(simd::Sse2::new(), &block)),
                    expected,
                    "SSE2: byte {value} at {at}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(avx2) = simd::Avx2::detect() {
                    let masks = avx2.0.vectorize(|| Masks::of(avx2, &block));
                    assert_eq!(of(masks), expected, "AVX2: byte {value} at {at}");
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 256 * 64);
    }
}
