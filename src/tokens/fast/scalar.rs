//! Char classes and the feature rules, applied one char at a time.
//!
//! `increments` is the single statement of the ASCII rules; the 64-byte classifier
//! (`chunk`) reproduces it with bit masks. What that classifier leaves out goes through here:
//! non-ASCII chars, the chars of `\u` escapes, and ASCII stretches too short to be worth a
//! chunk. ASCII bytes are classified with a 256-entry table, and a second table maps (class
//! two back, class one back, class now) straight to the eight ASCII feature increments,
//! packed as eight 8-bit lanes of one `u64`.
//!
//! A reading carries its history as the classes of its last chars, 3 bits each (the last in
//! bits 0–2, the one before in bits 3–5; the rules look no further back): the low bits of
//! an `INC` index, with the start of a text as `OTHER`, which continues no run.

use super::features::Features;
use crate::transcript::text::escape;

// Char classes. `NON_ASCII` only appears in `CLASS`, to leave the table path; non-ASCII chars
// are recorded in the history as `LOWER`, `UPPER` or `OTHER`.
/// Controls, and anything that continues no run.
pub(super) const OTHER: u8 = 0;
/// A lowercase letter.
pub(super) const LOWER: u8 = 1;
/// An uppercase letter, or a caseless one (which continues a run but splits no camelCase).
pub(super) const UPPER: u8 = 2;
/// An ASCII digit.
pub(super) const DIGIT: u8 = 3;
/// ASCII punctuation.
pub(super) const PUNCT: u8 = 4;
/// `\n` or `\r`.
pub(super) const NEWLINE: u8 = 5;
/// `' '` or `'\t'`.
pub(super) const SPACE: u8 = 6;
/// A byte ≥ 0x80: the first of a char the table cannot classify.
const NON_ASCII: u8 = 7;

// Lanes of the packed ASCII increments (bits 8n..8n+8).
const L_WORD: u32 = 0;
const L_LETTER: u32 = 1;
const L_DIGIT: u32 = 2;
const L_DIGIT_RUN: u32 = 3;
const L_PUNCT: u32 = 4;
const L_PUNCT_RUN: u32 = 5;
const L_NEWLINE_RUN: u32 = 6;
const L_SPACE_RUN: u32 = 7;

/// The most bytes a short reading may take: each 8-bit lane of a packed sum grows by at most
/// one a byte.
pub(super) const MAX_SHORT: usize = 255;

/// Byte → char class; bytes ≥ 0x80 are `NON_ASCII`.
static CLASS: [u8; 256] = class_table();

/// (class two back, class one back, class now) as 3-bit digits → packed feature increments.
/// Replaces every per-byte comparison of the table path with one load.
static INC: [u64; 512] = inc_table();

/// The history after a char of class `class` follows `hist`.
fn push(hist: usize, class: u8) -> usize {
    ((hist << 3) | usize::from(class)) & 0o777
}

impl Features {
    /// Adds the features of `text`, at most [`MAX_SHORT`] bytes, char by char: for a few
    /// bytes, quicker than a chunk. `JSON_BODY` says it is part of an escaped JSON string body
    /// (holding whole escapes), whose escapes are decoded as they come; otherwise it is decoded
    /// text, where a backslash is punctuation.
    pub(super) fn short<const JSON_BODY: bool>(&mut self, text: &str, hist: &mut usize) {
        debug_assert!(text.len() <= MAX_SHORT);
        let bytes = text.as_bytes();
        let mut packed = 0;
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            let class = CLASS[usize::from(b)];
            if JSON_BODY && b == b'\\' {
                let (ch, next) = escape(bytes, i);
                if ch.is_ascii() {
                    *hist = push(*hist, CLASS[ch as usize]);
                    packed += INC[*hist];
                } else {
                    self.non_ascii_char(ch, hist);
                }
                i = next;
            } else if class == NON_ASCII {
                // `i` is on a char boundary, after whole ASCII chars, whole decoded chars and
                // whole escapes (which are ASCII).
                i += self.non_ascii_run(&text[i..], hist);
            } else {
                *hist = push(*hist, class);
                packed += INC[*hist];
                i += 1;
            }
        }
        self.add_packed(packed);
    }

    /// Adds the features of one char (the one a `\u` escape stands for).
    pub(super) fn char(&mut self, ch: char, hist: &mut usize) {
        if ch.is_ascii() {
            *hist = push(*hist, CLASS[ch as usize]);
            self.add_packed(INC[*hist]);
        } else {
            self.non_ascii_char(ch, hist);
        }
    }

    /// Consumes the non-ASCII chars at the start of `rest` and returns how many bytes they
    /// took. It stops at the first ASCII char so the faster paths resume there.
    pub(super) fn non_ascii_run(&mut self, rest: &str, hist: &mut usize) -> usize {
        for (pos, ch) in rest.char_indices() {
            if ch.is_ascii() {
                return pos;
            }
            self.non_ascii_char(ch, hist);
        }
        rest.len()
    }

    /// Adds the features of one non-ASCII char.
    fn non_ascii_char(&mut self, ch: char, hist: &mut usize) {
        let prev = (*hist & 7) as u8;
        let class = if is_symbol(ch) {
            self.other += 1;
            OTHER
        } else if is_cjk(ch) {
            self.cjk += 1;
            OTHER
        } else if ch.is_alphabetic() {
            self.letters += 1;
            self.non_ascii_letters += 1;
            let upper = ch.is_uppercase();
            let prev_letter = prev == LOWER || prev == UPPER;
            if !prev_letter || (prev == LOWER && upper) {
                self.word_starts += 1;
            }
            // Caseless letters (Arabic, Devanagari, …) continue a run like uppercase ones
            // and never start a camelCase split, so they are stored as `UPPER`.
            if ch.is_lowercase() {
                LOWER
            } else {
                UPPER
            }
        } else {
            self.other += 1;
            OTHER
        };
        *hist = push(*hist, class);
    }

    /// Adds packed 8-bit lane counts from the table path.
    fn add_packed(&mut self, p: u64) {
        let lane = |n: u32| (p >> (8 * n)) & 0xff;
        self.word_starts += lane(L_WORD);
        self.letters += lane(L_LETTER);
        self.digits += lane(L_DIGIT);
        self.digit_runs += lane(L_DIGIT_RUN);
        self.punct += lane(L_PUNCT);
        self.punct_runs += lane(L_PUNCT_RUN);
        self.newline_runs += lane(L_NEWLINE_RUN);
        self.space_runs += lane(L_SPACE_RUN);
    }
}

/// True for the scripts the spec lumps into "CJK chars": ideographs, kana, hangul, CJK
/// symbols and punctuation, and the half/full-width forms block.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF     // Hangul Jamo
        | 0x2E80..=0x9FFF   // radicals, CJK symbols & punct., kana, bopomofo, ext. A, unified
        | 0xA960..=0xA97F   // Hangul Jamo extended-A
        | 0xAC00..=0xD7FF   // Hangul syllables, Jamo extended-B
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFE30..=0xFE4F   // CJK compatibility forms (vertical punctuation)
        | 0xFF00..=0xFFEF   // half-width and full-width forms
        | 0x1B000..=0x1B16F // kana supplement / extended
        | 0x20000..=0x3FFFF // ideograph extensions B… and compatibility supplement
    )
}

/// Arrows, box drawing and block elements: the non-ASCII chars transcripts hold most (`→` in
/// tool output, `─│├└` in trees), none of them a letter. Telling them apart first spares each
/// a search of the alphabetic tables, which cost more than all the rest of its counting.
pub(super) fn is_symbol(c: char) -> bool {
    matches!(c as u32, 0x2190..=0x21FF | 0x2500..=0x259F)
}

const fn class_table() -> [u8; 256] {
    let mut t = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else if c == b'\n' || c == b'\r' {
            NEWLINE
        } else if c == b' ' || c == b'\t' {
            SPACE
        } else {
            OTHER
        };
        b += 1;
    }
    t
}

const fn inc_table() -> [u64; 512] {
    let mut t = [0u64; 512];
    let mut idx = 0;
    while idx < 512 {
        t[idx] = increments((idx >> 6) as u8, ((idx >> 3) & 7) as u8, (idx & 7) as u8);
        idx += 1;
    }
    t
}

/// A count of one in `lane` of a packed increment.
const fn one(lane: u32) -> u64 {
    1u64 << (8 * lane)
}

/// The feature definitions for an ASCII char of class `cur`, given the classes of the two
/// chars before it. This is the single place the ASCII rules live.
const fn increments(before_prev: u8, prev: u8, cur: u8) -> u64 {
    match cur {
        LOWER | UPPER => {
            let prev_letter = prev == LOWER || prev == UPPER;
            let camel = prev == LOWER && cur == UPPER;
            let start = if !prev_letter || camel {
                one(L_WORD)
            } else {
                0
            };
            one(L_LETTER) | start
        }
        DIGIT => one(L_DIGIT) | if prev != DIGIT { one(L_DIGIT_RUN) } else { 0 },
        PUNCT => one(L_PUNCT) | if prev != PUNCT { one(L_PUNCT_RUN) } else { 0 },
        NEWLINE if prev != NEWLINE => one(L_NEWLINE_RUN),
        // The second char of a space run marks it as "length ≥ 2", exactly once per run.
        SPACE if prev == SPACE && before_prev != SPACE => one(L_SPACE_RUN),
        _ => 0,
    }
}
