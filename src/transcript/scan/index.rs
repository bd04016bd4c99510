//! The index of a JSON text: where its strings end, where its escapes are and where its
//! objects and arrays open and close, one bit per byte.
//!
//! Finding the next quote byte by byte, or call by call, cost more than everything else
//! `estimate` does: transcripts hold a quote or a backslash every fifteen bytes or so. A
//! [`Scanner`] looks at 64 bytes at a time instead, with vector compares (32 bytes at a time
//! on a CPU with AVX2, found at run time, else 16), and keeps what it found as bits: where a
//! string ends is then a bit search however many escapes it holds, and a skipped object is
//! passed from bracket to bracket.

use std::ops::Range;

use super::super::text::{hex4, is_high_surrogate, is_low_surrogate, Text};
use super::classify::{self, control_and_ascii, Word};

/// A JSON text with the places of its string delimiters and escapes worked out (see the
/// module docs), one bit per byte: bit `k % 64` of word `k / 64` stands for byte `k`.
#[derive(Default)]
pub struct Scanner<'a> {
    bytes: &'a [u8],
    /// The bitmap: its first `count` words. The vector is a spare reused from scanner to
    /// scanner ([`classify::index`]), so the words past them are an earlier text's, never read.
    words: Vec<Word>,
    count: usize,
}

thread_local! {
    /// The bitmap of the last scanner a thread dropped, kept for the next one: lines are
    /// scanned one after another, and a bitmap a third of a line's size, allocated and freed
    /// for every line, cost the kernel a mapping for each long one.
    static SPARE_WORDS: std::cell::RefCell<Vec<Word>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        let words = std::mem::take(&mut self.words);
        SPARE_WORDS.with(|spare| {
            let mut spare = spare.borrow_mut();
            if words.capacity() > spare.capacity() {
                *spare = words;
            }
        });
    }
}

/// What [`Scanner::marks`] finds in a string's body.
#[derive(Default)]
struct BodyMarks {
    /// How many escapes it holds.
    escapes: u64,
    /// Whether one of them is a `\uXXXX` escape.
    unicode: bool,
    /// Whether it holds a byte that is no printable ASCII ([`Word::unusual`]).
    unusual: bool,
}

impl<'a> Scanner<'a> {
    /// Scans `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut words = SPARE_WORDS.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
        let count = classify::index(bytes, &mut words);
        Scanner {
            bytes,
            words,
            count,
        }
    }

    /// Word `index` of the bitmap, if the text reaches it.
    #[inline]
    fn word(&self, index: usize) -> Option<&Word> {
        self.words.get(index).filter(|_| index < self.count)
    }

    /// The string whose opening quote is at `open` and closing quote at `close` in `line`
    /// (the text scanned), its escapes checked (found from the bitmap) and its code points
    /// counted; `None` when it is no valid JSON string (a raw control character, an unknown
    /// or short escape).
    pub(super) fn text(&self, line: &'a str, open: usize, close: usize) -> Option<Text<'a>> {
        let body = open + 1..close;
        let marks = self.marks(body.clone())?;
        // Quotes are ASCII, so the body starts and ends on character boundaries.
        let text = line.get(body.clone())?;
        // Only a body with a byte that is no printable ASCII is looked at byte by byte.
        let ascii = match marks.unusual {
            false => true,
            true => match control_and_ascii(text.as_bytes()) {
                (true, _) => return None,
                (false, ascii) => ascii,
            },
        };
        if marks.escapes == 0 {
            // An ASCII body's count is its length: it need not be counted again.
            return Some(match ascii {
                true => Text::counted(text, text.len() as u64),
                false => Text::from(text),
            });
        }
        // What escapes take beyond the one character each stands for: one byte for each
        // two-character escape, more for a `\u` one.
        let extra = match marks.unicode {
            false => marks.escapes,
            true => self.unicode_extra(body)?,
        };
        let chars = match ascii {
            true => text.len(),
            false => text.chars().count(),
        };
        Some(Text::escaped(text, chars as u64 - extra))
    }

    /// What the bitmap says of the bytes `body` (a string's, between its quotes): its escapes,
    /// each checked to be one JSON has; `None` when one is not.
    ///
    /// An escape costs a few instructions here: a kimi-cli context holds one every twenty
    /// bytes, and finding, checking and weighing each on its own (a `\u` escape's four hex
    /// digits, a surrogate pair) in one loop was a fifth of what `estimate` spent on one.
    /// Those are left to [`Scanner::unicode_extra`], for the few strings that hold them.
    fn marks(&self, body: Range<usize>) -> Option<BodyMarks> {
        let mut marks = BodyMarks::default();
        if body.is_empty() {
            return Some(marks);
        }
        let (first, last) = (body.start / 64, (body.end - 1) / 64);
        let mut kinds = 0u8;
        for index in first..=last {
            let word = self.word(index)?;
            let mut mask = u64::MAX;
            if index == first {
                mask &= u64::MAX << (body.start % 64);
            }
            if index == last {
                mask &= u64::MAX >> (63 - (body.end - 1) % 64);
            }
            marks.unusual |= word.unusual & mask != 0;
            let mut bits = word.escapes & mask;
            while bits != 0 {
                let at = index * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                // Within the body: an escaping backslash is never the last byte before the
                // closing quote, which it would escape.
                kinds |= ESCAPE_KIND[usize::from(*self.bytes.get(at + 1)?)];
                marks.escapes += 1;
            }
        }
        if kinds & INVALID != 0 {
            return None;
        }
        marks.unicode = kinds & UNICODE != 0;
        Some(marks)
    }

    /// What the escapes of `body`, which [`Scanner::marks`] found valid and of which one at
    /// least is a `\u` escape, take beyond the one character each stands for; `None` when a
    /// `\u` escape's digits are no hex.
    fn unicode_extra(&self, body: Range<usize>) -> Option<u64> {
        let bytes = self.bytes;
        let mut extra = 0u64;
        let mut word = body.start / 64;
        let mut bits = self.word(word)?.escapes & (u64::MAX << (body.start % 64));
        'words: loop {
            while bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                if at >= body.end {
                    break 'words;
                }
                bits &= bits - 1;
                extra += 1;
                if ESCAPE_KIND[usize::from(*bytes.get(at + 1)?)] == UNICODE {
                    let unit = hex4(bytes, at + 2)?;
                    extra += 4;
                    // A surrogate pair is one character of twelve bytes: one more than
                    // its halves take as two escapes, the second of which comes next.
                    let pair = is_high_surrogate(unit)
                        && bytes.get(at + 6) == Some(&b'\\')
                        && bytes.get(at + 7) == Some(&b'u')
                        && hex4(bytes, at + 8).is_some_and(is_low_surrogate);
                    extra += u64::from(pair);
                }
            }
            word += 1;
            if word * 64 >= body.end {
                break;
            }
            bits = self.word(word)?.escapes;
        }
        Some(extra)
    }

    /// The text scanned.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The index just past the string starting at `i` (which must be a quote).
    pub fn skip_string(&self, i: usize) -> Option<usize> {
        let from = i + 1;
        let mut word = from / 64;
        let mut bits = self.word(word)?.quotes & (u64::MAX << (from % 64));
        while bits == 0 {
            word += 1;
            bits = self.word(word)?.quotes;
        }
        Some(word * 64 + bits.trailing_zeros() as usize + 1)
    }

    /// The index just past the JSON value starting at `i`.
    pub fn skip_value(&self, i: usize) -> Option<usize> {
        let line = self.bytes;
        match *line.get(i)? {
            b'"' => self.skip_string(i),
            b'{' | b'[' => {
                // From bracket to bracket outside strings, counting how deep each one is.
                let mut depth = 0usize;
                let mut word = i / 64;
                let mut bits = self.word(word)?.structure & (u64::MAX << (i % 64));
                loop {
                    while bits != 0 {
                        let at = word * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        match line[at] {
                            b'{' | b'[' => depth += 1,
                            b'}' | b']' => {
                                depth = depth.checked_sub(1)?;
                                if depth == 0 {
                                    return Some(at + 1);
                                }
                            }
                            _ => return None, // no bracket: the text is no valid JSON
                        }
                    }
                    word += 1;
                    bits = self.word(word)?.structure;
                }
            }
            _ => {
                let j = i + line[i..]
                    .iter()
                    .take_while(|&&b| !ends_literal(Some(b)))
                    .count();
                (j > i).then_some(j)
            }
        }
    }
}

/// Whether `byte` (`None` past the end of the text) ends a number or literal: what may follow
/// a value, whitespace, or the end.
#[inline(always)]
pub(super) fn ends_literal(byte: Option<u8>) -> bool {
    byte.is_none_or(|b| ENDS_LITERAL[usize::from(b)])
}

/// The bytes that end a number or literal: what may follow a value, and whitespace.
const ENDS_LITERAL: [bool; 256] = byte_set(b",}] \t\n\r\x0c");

/// What the character after a backslash makes of the escape: a two-character one, which
/// stands for one character (0), [`UNICODE`], or [`INVALID`]. Bits, so that the kinds of a
/// string's escapes are ORed together as they are met.
const ESCAPE_KIND: [u8; 256] = escape_kinds();
/// A `\uXXXX` escape.
const UNICODE: u8 = 1;
/// No escape JSON has.
const INVALID: u8 = 2;

const fn escape_kinds() -> [u8; 256] {
    let mut kinds = [INVALID; 256];
    let simple = byte_set(b"\"\\/bfnrt");
    let mut b = 0;
    while b < 256 {
        if simple[b] {
            kinds[b] = 0;
        }
        b += 1;
    }
    kinds[b'u' as usize] = UNICODE;
    kinds
}

/// A table of which bytes are among `members`.
const fn byte_set(members: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < members.len() {
        table[members[i] as usize] = true;
        i += 1;
    }
    table
}

/// The index of the first non-whitespace byte at or after `i`.
pub fn skip_space(line: &[u8], mut i: usize) -> usize {
    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scanner reuses the bitmap of the one before it on the thread, which holds more words
    /// after a longer text: none of them is read for the shorter one.
    #[test]
    fn a_shorter_text_after_a_longer_one_sees_none_of_its_words() {
        let long = format!("\"{}\" [\"]\"] \"x\"", "a".repeat(300));
        let scanner = Scanner::new(long.as_bytes());
        assert_eq!(scanner.skip_string(0), Some(302));
        drop(scanner);
        // Unterminated: the long text's quotes and brackets past its end must not close it.
        for short in [&b"\"abc"[..], b"[1,", b"\"", b"["] {
            let scanner = Scanner::new(short);
            assert_eq!(scanner.skip_value(0), None, "{}", short.escape_ascii());
        }
        let scanner = Scanner::new(b"\"abc\"");
        assert_eq!(scanner.skip_string(0), Some(5));
    }

    /// The words of a long body are each looked at: an escape, a bad escape, a character
    /// beyond ASCII or a control byte counts wherever it stands among them, the first and the
    /// last word included.
    #[test]
    fn long_strings_count_and_check_every_word_as_serde_json_reads_them() {
        for pad in [0, 1, 62, 63, 64, 65] {
            for at in [0, 1, 62, 63, 64, 65, 126, 127, 128, 190] {
                for (piece, valid) in [
                    ("\\n", true),
                    ("\\u00e9", true),
                    ("\\ud83d\\ude00", true),
                    ("é", true),
                    ("\\q", false),
                    ("\u{1}", false),
                ] {
                    let body = format!("{}{piece}{}", "a".repeat(at), "b".repeat(200 - at));
                    let line = format!("{}\"{body}\" ", " ".repeat(pad));
                    let scanner = Scanner::new(line.as_bytes());
                    let close = scanner.skip_string(pad).unwrap() - 1;
                    let text = scanner.text(&line, pad, close);
                    let serde = serde_json::from_str::<String>(&line[pad..=close]).ok();
                    assert_eq!(text.is_some(), valid, "{piece} at {at}, pad {pad}");
                    if let (Some(text), Some(serde)) = (text, serde) {
                        assert_eq!(text.code_points(), serde.chars().count() as u64);
                        assert_eq!(text.as_str(), serde, "{piece} at {at}, pad {pad}");
                    }
                }
            }
        }
    }

    #[test]
    fn values_skip_from_bracket_to_bracket_and_bytes_like_brackets_outside_strings_stop_it() {
        let inside = br#"[{"a":"Y_y\u007f]}{["},[1,2.5e3,true,null]] x"#;
        assert_eq!(Scanner::new(inside).skip_value(0), Some(inside.len() - 2));
        for bad in [&b"[1,y]"[..], b"{\"a\":_}", b"[Y]", b"[\x7f]"] {
            assert_eq!(
                Scanner::new(bad).skip_value(0),
                None,
                "{}",
                bad.escape_ascii()
            );
        }
    }

    #[test]
    fn strings_end_at_the_first_quote_no_backslash_escapes() {
        // Runs of backslashes of every length, before quotes and elsewhere, placed across the
        // 64-byte blocks the scanner works in.
        let bodies = [
            r#"plain"#,
            r#"a\\"#,
            r#"a\"b"#,
            r#"a\\\"b"#,
            r#"\\\\"#,
            r#"x\\\\\"y\\"#,
            r#"\n\t\u00e9 \" \\ end"#,
        ];
        for pad in 0..70 {
            for body in bodies {
                let text = format!("{}\"{body}\" ,\"k\"", " ".repeat(pad));
                let scanner = Scanner::new(text.as_bytes());
                let end = scanner.skip_string(pad).unwrap();
                assert_eq!(&text[pad + 1..end - 1], body, "pad {pad}");
                assert!(serde_json::from_str::<String>(&text[pad..end]).is_ok());
                assert_eq!(scanner.skip_string(end + 2), Some(text.len()), "pad {pad}");
            }
        }
        let long = format!("\"{}\\\"{}\"", "a".repeat(63), "b".repeat(100));
        assert_eq!(
            Scanner::new(long.as_bytes()).skip_string(0),
            Some(long.len())
        );
        assert_eq!(Scanner::new(br#""unterminated\""#).skip_string(0), None);
    }
}
