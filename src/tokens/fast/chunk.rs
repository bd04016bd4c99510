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

use wide::{i8x64, u16x32, u8x64};

use super::scalar::{DIGIT, LOWER, NEWLINE, OTHER, PUNCT, SPACE, UPPER};
use super::Features;

/// Which of 64 bytes are in which class, one bit per byte (bit `k` for byte `k`), as the bytes
/// stand: no escape is decoded here.
pub(super) struct ByteMasks {
    /// ASCII letters of either case.
    letters: u64,
    /// Bytes with bit 0x20 set: among the letters, the lowercase ones.
    case_bit: u64,
    /// `0`–`9`.
    digits: u64,
    /// `0x21..=0x7E`: letters, digits and punctuation.
    printable: u64,
    /// `\n` and `\r`.
    newlines: u64,
    /// `' '` and `'\t'`.
    spaces: u64,
    /// Bytes ≥ 0x80.
    pub(super) non_ascii: u64,
    /// Backslashes (left empty when not asked for).
    pub(super) backslashes: u64,
}

impl ByteMasks {
    /// The masks of `window`; `BACKSLASHES` says whether to find its backslashes too.
    #[inline]
    pub(super) fn of<const BACKSLASHES: bool>(window: &[u8; 64]) -> ByteMasks {
        let bytes: u8x64 = wide::bytemuck::cast(*window);
        let bits = |lanes: u8x64| lanes.to_bitmask();
        // An unsigned range test in two instructions: adding `0x80 - lo` moves `lo..=hi` to the
        // bottom of the signed range, where one signed compare (SSE2 has no unsigned one)
        // tells it from everything else.
        let in_range = |lanes: u8x64, lo: u8, hi: u8| {
            let moved: i8x64 = wide::bytemuck::cast(lanes + u8x64::splat(0x80u8.wrapping_sub(lo)));
            let bound = 0x80u8.wrapping_add(hi - lo + 1) as i8;
            moved.simd_lt(i8x64::splat(bound)).to_bitmask()
        };
        let is = |b: u8| bytes.simd_eq(u8x64::splat(b));
        // Shifting each 16-bit pair left by two moves bit 5 of every byte to its bit 7, which
        // is the bit a mask takes (bits crossing into the next byte land below it).
        let case_bit: u8x64 = wide::bytemuck::cast(wide::bytemuck::cast::<_, u16x32>(bytes) << 2);
        ByteMasks {
            // Setting bit 0x20 folds `A-Z` onto `a-z`.
            letters: in_range(bytes | u8x64::splat(0x20), b'a', b'z'),
            case_bit: bits(case_bit),
            digits: in_range(bytes, b'0', b'9'),
            printable: in_range(bytes, 0x21, 0x7E),
            newlines: bits(is(b'\n') | is(b'\r')),
            spaces: bits(is(b' ') | is(b'\t')),
            non_ascii: bits(bytes),
            backslashes: if BACKSLASHES { bits(is(b'\\')) } else { 0 },
        }
    }
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

    /// Each char's bit of `mask` moved onto the char after it: bit `k` of the result says
    /// whether the char before char `k` is in `mask`. `first` is what the char before the
    /// chunk's first char is.
    #[inline]
    fn before(&self, mask: u64, first: bool) -> u64 {
        let next = (mask << 1) | u64::from(first);
        // After a start, the char before is two bytes back. A chunk never starts inside an
        // escape, so bit 0 is never after a start, and bit 1 is only when byte 0 is one: its
        // char before is then the chunk's, `first`.
        let after_start = self.starts << 1;
        let skip = (mask << 2) | (u64::from(first) << 1);
        (next & !after_start) | (skip & after_start)
    }

    /// Adds the features of the chunk, whose chars follow what `hist` describes (see
    /// `scalar`), and leaves `hist` describing its last chars.
    #[inline]
    pub(super) fn count(&self, f: &mut Features, hist: &mut usize) {
        let last = (*hist & 7) as u8;
        let second = ((*hist >> 3) & 7) as u8;
        let letter_before = self.before(self.letters, last == LOWER || last == UPPER);
        let lower_before = self.before(self.lower, last == LOWER);
        let digit_before = self.before(self.digits, last == DIGIT);
        let punct_before = self.before(self.punct, last == PUNCT);
        let newline_before = self.before(self.newlines, last == NEWLINE);
        let space_before = self.before(self.spaces, last == SPACE);
        let space_two_before = self.before(space_before, second == SPACE);

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

        // The last byte is a char (a chunk never ends on a start), and the masks "before" say
        // what the char before it is.
        let at = self.len - 1;
        let class = |letters: u64, lower: u64, digits, punct, newlines, spaces| {
            let set = |mask: u64| (mask >> at) & 1 != 0;
            if set(letters) {
                if set(lower) {
                    LOWER
                } else {
                    UPPER
                }
            } else if set(digits) {
                DIGIT
            } else if set(punct) {
                PUNCT
            } else if set(newlines) {
                NEWLINE
            } else if set(spaces) {
                SPACE
            } else {
                OTHER
            }
        };
        let last = class(
            self.letters,
            self.lower,
            self.digits,
            self.punct,
            self.newlines,
            self.spaces,
        );
        let second = class(
            letter_before,
            lower_before,
            digit_before,
            punct_before,
            newline_before,
            space_before,
        );
        *hist = (usize::from(second) << 3) | usize::from(last);
    }
}
