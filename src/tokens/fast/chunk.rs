//! The features of up to 64 ASCII chars at once, from bit masks of their classes.
//!
//! The table path costs a dozen instructions a byte, one byte after another: every char waits
//! for the history the one before it left. Here a window of 64 bytes is classified with
//! vector compares into one bit mask per class (bit `k` for byte `k`), "the char before" is a
//! shift of a mask, and each feature is the population count of a few ANDs: a digit run
//! starts at a digit whose previous char is no digit, and so on, exactly as
//! `scalar::increments` states it.
//!
//! An escaped JSON body is classified as it stands: the backslash that starts an escape is no
//! char of its own (the char before the one it escapes is the one before the backslash), and
//! the escaped byte is classed as what it stands for (`n` and `r` a newline, `t` a space, `b`
//! and `f` neither letter nor anything else), which the caller works out per escape.

use super::scalar::{DIGIT, LOWER, NEWLINE, OTHER, PUNCT, SPACE, UPPER};
use super::Features;
use crate::simd::Lanes;

/// Which of 64 bytes are in which class, one bit per byte (bit `k` for byte `k`), as the bytes
/// stand: no escape is decoded here.
pub(super) struct ByteMasks {
    /// ASCII letters of either case.
    pub(super) letters: u64,
    /// Bytes with bit 0x20 set: among the letters, the lowercase ones.
    pub(super) case_bit: u64,
    /// `0`–`9`.
    pub(super) digits: u64,
    /// `0x21..=0x7E`: letters, digits and punctuation.
    pub(super) printable: u64,
    /// `\n` and `\r`.
    pub(super) newlines: u64,
    /// `' '` and `'\t'`.
    pub(super) spaces: u64,
    /// Backslashes (only looked for in an escaped JSON string body).
    pub(super) backslashes: u64,
}

/// Which bytes of `window` are not ASCII (≥ 0x80), one bit per byte: where a chunk must end.
#[inline(always)]
pub(super) fn non_ascii<L: Lanes>(simd: L, window: &[u8; 64]) -> u64 {
    let mut bits = 0;
    let mut at = 0;
    while at < 64 {
        bits |= simd.top_bits(simd.load(window, at)) << at;
        at += L::WIDTH;
    }
    bits
}

impl ByteMasks {
    /// The masks of `window`, compared [`Lanes::WIDTH`] bytes at a time. `JSON_BODY` says it is
    /// part of an escaped JSON string body, which holds no raw control char (its newlines and
    /// tabs are all escapes) and whose backslashes start escapes, so those are looked for
    /// instead.
    #[inline(always)]
    pub(super) fn of<const JSON_BODY: bool, L: Lanes>(simd: L, window: &[u8; 64]) -> ByteMasks {
        let mut masks = ByteMasks {
            letters: 0,
            case_bit: 0,
            digits: 0,
            printable: 0,
            newlines: 0,
            spaces: 0,
            backslashes: 0,
        };
        let mut at = 0;
        while at < 64 {
            let part = ByteMasks::of_lanes::<JSON_BODY, L>(simd, simd.load(window, at));
            masks.letters |= part.letters << at;
            masks.case_bit |= part.case_bit << at;
            masks.digits |= part.digits << at;
            masks.printable |= part.printable << at;
            masks.newlines |= part.newlines << at;
            masks.spaces |= part.spaces << at;
            masks.backslashes |= part.backslashes << at;
            at += L::WIDTH;
        }
        masks
    }

    /// The masks of the bytes of one vector, in its low [`Lanes::WIDTH`] bits. (Plain functions
    /// and no closures: a closure is compiled on its own, without the vector instructions of
    /// the function it is written in, and would call each vector operation instead of holding
    /// it.)
    #[inline(always)]
    fn of_lanes<const JSON_BODY: bool, L: Lanes>(simd: L, bytes: L::Vector) -> ByteMasks {
        ByteMasks {
            // Setting bit 0x20 folds `A-Z` onto `a-z`.
            letters: in_range(simd, simd.or(bytes, simd.splat(0x20)), b'a', b'z'),
            // Bit 5 of every byte moved to its bit 7, the bit a mask takes.
            case_bit: simd.top_bits(simd.shift_pairs_left_2(bytes)),
            digits: in_range(simd, bytes, b'0', b'9'),
            printable: in_range(simd, bytes, 0x21, 0x7E),
            newlines: match JSON_BODY {
                true => 0,
                false => either(simd, bytes, b'\n', b'\r'),
            },
            spaces: match JSON_BODY {
                true => simd.top_bits(is(simd, bytes, b' ')),
                false => either(simd, bytes, b' ', b'\t'),
            },
            backslashes: match JSON_BODY {
                true => simd.top_bits(is(simd, bytes, b'\\')),
                false => 0,
            },
        }
    }
}

/// All ones in the lanes that hold `b`.
#[inline(always)]
fn is<L: Lanes>(simd: L, lanes: L::Vector, b: u8) -> L::Vector {
    simd.eq(lanes, simd.splat(b))
}

/// The lanes that hold `a` or `b`, one bit each.
#[inline(always)]
fn either<L: Lanes>(simd: L, lanes: L::Vector, a: u8, b: u8) -> u64 {
    simd.top_bits(simd.or(is(simd, lanes, a), is(simd, lanes, b)))
}

/// The lanes in `lo..=hi`, one bit each. An unsigned range test in two instructions: adding
/// `0x7F - hi` moves `lo..=hi` to the top of the signed range, where one signed compare (SSE2
/// has no unsigned one) tells it from everything else.
#[inline(always)]
fn in_range<L: Lanes>(simd: L, lanes: L::Vector, lo: u8, hi: u8) -> u64 {
    let moved = simd.add(lanes, simd.splat(0x7F - hi));
    simd.top_bits(simd.greater_signed(moved, simd.splat(0x7E - (hi - lo))))
}

/// The bits below bit `len` (0 to 64).
#[inline]
pub(super) fn below(len: usize) -> u64 {
    u64::MAX.checked_shr(64 - len as u32).unwrap_or(0)
}

/// What an escaped window's escapes stand for, worked out by the caller from its backslashes.
#[derive(Default)]
pub(super) struct Escapes {
    /// The backslashes that start an escape: no chars of their own.
    pub(super) starts: u64,
    /// Escaped bytes that stand for a newline (`\n`, `\r`).
    pub(super) newlines: u64,
    /// Escaped bytes that stand for a tab (`\t`).
    pub(super) spaces: u64,
}

/// The chars of a chunk (the first `len` bytes of a window) by class, one bit per byte.
pub(super) struct Chunk {
    /// How many bytes of the window the chunk takes, 1 to 64.
    len: u32,
    /// Escape starts, which are no chars: the char before the one after a start is the one
    /// before the start.
    starts: u64,
    letters: u64,
    lower: u64,
    digits: u64,
    punct: u64,
    newlines: u64,
    spaces: u64,
}

impl Chunk {
    /// The first `len` bytes (1 to 64) of the window `masks` describe, with its escapes.
    #[inline]
    pub(super) fn new(masks: &ByteMasks, len: usize, escapes: &Escapes) -> Chunk {
        debug_assert!((1..=64).contains(&len));
        let valid = below(len);
        let escaped = escapes.starts << 1;
        // An escaped letter (`\n`, `\t`, …) stands for no letter; escaped punctuation (`\"`,
        // `\\`, `\/`) stands for itself.
        let letters = masks.letters & !escaped & valid;
        Chunk {
            len: len as u32,
            starts: escapes.starts,
            letters,
            lower: letters & masks.case_bit,
            digits: masks.digits & valid,
            punct: masks.printable & !masks.letters & !masks.digits & !escapes.starts & valid,
            newlines: (masks.newlines | escapes.newlines) & valid,
            spaces: (masks.spaces | escapes.spaces) & valid,
        }
    }

    /// Adds the features of the chunk, whose chars follow what `carry` describes, and leaves
    /// `carry` describing its last chars.
    #[inline(always)]
    pub(super) fn count(&self, f: &mut Features, carry: &mut Carry) {
        // "The char before" moves each char's bit of a mask onto the char after it; `first`
        // (0 or 1) is the bit of the char before the chunk.
        if self.starts == 0 {
            let before = |mask: u64, first: u64| (mask << 1) | first;
            self.count_with(f, carry, before, before);
        } else {
            // After an escape's start the char before is two bytes back. Giving each start the
            // bit of the byte before it (the chunk's `first` for byte 0, as a chunk never
            // starts inside an escape) makes that a plain shift again. A class mask holds no
            // start; any other mask's bits there are replaced.
            let starts = self.starts;
            let class_before = |mask: u64, first: u64| {
                let filled = mask | (((mask << 1) | first) & starts);
                (filled << 1) | first
            };
            let any_before = |mask: u64, first: u64| {
                let filled = (mask & !starts) | (((mask << 1) | first) & starts);
                (filled << 1) | first
            };
            self.count_with(f, carry, class_before, any_before);
        }
    }

    /// [`count`](Self::count) with the "char before" of class masks and of any mask.
    #[inline(always)]
    fn count_with(
        &self,
        f: &mut Features,
        carry: &mut Carry,
        class_before: impl Fn(u64, u64) -> u64,
        any_before: impl Fn(u64, u64) -> u64,
    ) {
        let letter_before = class_before(self.letters, carry.letter);
        let lower_before = class_before(self.lower, carry.lower);
        let digit_before = class_before(self.digits, carry.digit);
        let punct_before = class_before(self.punct, carry.punct);
        let newline_before = class_before(self.newlines, carry.newline);
        let space_before = class_before(self.spaces, carry.space);
        let space_two_before = any_before(space_before, carry.space_before);

        let count = |mask: u64| u64::from(mask.count_ones());
        let upper = self.letters & !self.lower;
        f.letters += count(self.letters);
        // A letter after no letter starts a word, and so does a capital after a lowercase
        // letter (camelCase); the two never meet, so one count covers both.
        f.word_starts += count((self.letters & !letter_before) | (upper & lower_before));
        f.digits += count(self.digits);
        f.digit_runs += count(self.digits & !digit_before);
        f.punct += count(self.punct);
        f.punct_runs += count(self.punct & !punct_before);
        f.newline_runs += count(self.newlines & !newline_before);
        // The second space of a run marks it, exactly once per run.
        f.space_runs += count(self.spaces & space_before & !space_two_before);

        // The last byte is a char (a chunk never ends on a start), and the "before" masks say
        // what the char before it is. A class mask holds nothing past the chunk, so its last
        // bit is all that is left of it after the shift.
        let at = self.len - 1;
        *carry = Carry {
            letter: self.letters >> at,
            lower: self.lower >> at,
            digit: self.digits >> at,
            punct: self.punct >> at,
            newline: self.newlines >> at,
            space: self.spaces >> at,
            space_before: (space_before >> at) & 1,
        };
    }
}

/// What a chunk needs to know of the chars before it: which class the last one is in, and
/// whether the one before that is a space, each as the bit (0 or 1) that moves into bit 0 of
/// a mask. Chunk after chunk it is all the state there is; `scalar` reads a history instead.
#[derive(Clone, Copy)]
pub(super) struct Carry {
    letter: u64,
    lower: u64,
    digit: u64,
    punct: u64,
    newline: u64,
    space: u64,
    space_before: u64,
}

impl Carry {
    /// The carry of a `scalar` history.
    pub(super) fn from_hist(hist: usize) -> Carry {
        let last = (hist & 7) as u8;
        let before = ((hist >> 3) & 7) as u8;
        let bit = |is: bool| u64::from(is);
        Carry {
            letter: bit(last == LOWER || last == UPPER),
            lower: bit(last == LOWER),
            digit: bit(last == DIGIT),
            punct: bit(last == PUNCT),
            newline: bit(last == NEWLINE),
            space: bit(last == SPACE),
            space_before: bit(before == SPACE),
        }
    }

    /// The `scalar` history of this carry. Of the char before the last, the rules only ask
    /// whether it is a space, so any other class stands as `OTHER`.
    pub(super) fn hist(self) -> usize {
        let last = if self.letter != 0 {
            if self.lower != 0 {
                LOWER
            } else {
                UPPER
            }
        } else if self.digit != 0 {
            DIGIT
        } else if self.punct != 0 {
            PUNCT
        } else if self.newline != 0 {
            NEWLINE
        } else if self.space != 0 {
            SPACE
        } else {
            OTHER
        };
        let before = if self.space_before != 0 { SPACE } else { OTHER };
        (usize::from(before) << 3) | usize::from(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks as a tuple, to compare.
    fn fields(m: ByteMasks) -> [u64; 7] {
        [
            m.letters,
            m.case_bit,
            m.digits,
            m.printable,
            m.newlines,
            m.spaces,
            m.backslashes,
        ]
    }

    /// What each mask holds, byte by byte.
    fn expected<const JSON_BODY: bool>(window: &[u8; 64]) -> [u64; 7] {
        let bits = |is: &dyn Fn(u8) -> bool| {
            (0..64).fold(0u64, |bits, k| bits | (u64::from(is(window[k])) << k))
        };
        [
            bits(&|b| b.is_ascii_alphabetic()),
            bits(&|b| b & 0x20 != 0),
            bits(&|b| b.is_ascii_digit()),
            bits(&|b| (0x21..=0x7e).contains(&b)),
            bits(&|b| !JSON_BODY && (b == b'\n' || b == b'\r')),
            bits(&|b| b == b' ' || (!JSON_BODY && b == b'\t')),
            bits(&|b| JSON_BODY && b == b'\\'),
        ]
    }

    fn check<const JSON_BODY: bool>(window: &[u8; 64], what: &str) {
        let want = expected::<JSON_BODY>(window);
        let non_ascii_bits =
            (0..64).fold(0u64, |bits, k| bits | (u64::from(window[k] >= 0x80) << k));
        let portable = crate::simd::Portable;
        assert_eq!(
            fields(ByteMasks::of::<JSON_BODY, _>(portable, window)),
            want,
            "{what}"
        );
        assert_eq!(non_ascii(portable, window), non_ascii_bits, "{what}");
        #[cfg(target_arch = "x86_64")]
        {
            let sse2 = crate::simd::Sse2::new();
            let masks = fields(ByteMasks::of::<JSON_BODY, _>(sse2, window));
            assert_eq!(masks, want, "SSE2: {what}");
            assert_eq!(non_ascii(sse2, window), non_ascii_bits, "SSE2: {what}");
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = crate::simd::Avx2::detect() {
            let masks = avx2
                .0
                .vectorize(|| fields(ByteMasks::of::<JSON_BODY, _>(avx2, window)));
            assert_eq!(masks, want, "AVX2: {what}");
            let non_ascii = avx2.0.vectorize(|| non_ascii(avx2, window));
            assert_eq!(non_ascii, non_ascii_bits, "AVX2: {what}");
        }
    }

    /// Bytes of every class, around the byte each check places.
    const TEMPLATE: &[u8] = b"aZ7 \t\n\\-~\x80\r";

    #[test]
    fn every_classifier_puts_every_byte_value_in_its_classes_at_every_place() {
        let mut checked = 0;
        for value in 0..=255u8 {
            for at in 0..64 {
                let mut window: [u8; 64] = std::array::from_fn(|k| TEMPLATE[k % TEMPLATE.len()]);
                window[at] = value;
                let what = format!("byte {value:#04x} at {at}");
                check::<false>(&window, &what);
                check::<true>(&window, &what);
                checked += 1;
            }
        }
        assert_eq!(checked, 256 * 64);
    }
}
