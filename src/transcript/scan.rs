//! Walking JSON text by spans: finding where a value starts and ends, an object's members and
//! an array's elements, without parsing what is only passed over.
//!
//! Readers use this where a line is large and most of it is not needed (Claude Code's
//! `toolUseResult` copies whole files), and where a message's text only has to be counted:
//! [`Walk::string`] hands out a string's body still escaped, as a [`Text`] that counts its
//! code points without decoding. Structure is followed (strings end at an unescaped quote,
//! brackets balance) but skipped values are not validated; whatever the walk cannot follow
//! makes it return `None`, and the caller then reads the text with serde_json, which says what
//! is wrong. Keys are compared as written: a key holding an escape makes a walk give up.
//!
//! Speed: a [`Scanner`] first finds every quote of its text that is not escaped, 64 bytes at
//! a time with vector compares, and keeps them as bits. Where a string ends is then a bit
//! search, however many escapes the string holds; looking for the next quote byte by byte or
//! call by call cost more than everything else `estimate` does, because transcripts hold a
//! quote or a backslash every fifteen bytes or so.

use std::ops::Range;

use wide::u8x16;

use super::text::Text;

/// A JSON text with the places of its string delimiters worked out (see the module docs).
#[derive(Default)]
pub struct Scanner<'a> {
    bytes: &'a [u8],
    /// Bit `k % 64` of word `k / 64` is set when byte `k` is a quote no backslash escapes.
    quotes: Vec<u64>,
}

impl<'a> Scanner<'a> {
    /// Finds the delimiting quotes of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut quotes = Vec::with_capacity(bytes.len() / 64 + 1);
        let mut carry = 0;
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            quotes.push(Masks::of(block).delimiters(&mut carry));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let mut padded = [0u8; 64];
            padded[..rest.len()].copy_from_slice(rest);
            quotes.push(Masks::of(&padded).delimiters(&mut carry));
        }
        Scanner { bytes, quotes }
    }

    /// The text scanned.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The index just past the string starting at `i` (which must be a quote).
    pub fn skip_string(&self, i: usize) -> Option<usize> {
        let from = i + 1;
        let mut word = from / 64;
        let mut bits = self.quotes.get(word)? & (u64::MAX << (from % 64));
        while bits == 0 {
            word += 1;
            bits = *self.quotes.get(word)?;
        }
        Some(word * 64 + bits.trailing_zeros() as usize + 1)
    }

    /// The index just past the JSON value starting at `i`.
    pub fn skip_value(&self, i: usize) -> Option<usize> {
        let line = self.bytes;
        match *line.get(i)? {
            b'"' => self.skip_string(i),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    match *line.get(j)? {
                        b'"' => {
                            j = self.skip_string(j)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while line
                    .get(j)
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    j += 1;
                }
                (j > i).then_some(j)
            }
        }
    }

    /// The members of the object spanning `span`, as (key as written, value span) pairs in
    /// order; `None` when `span` is no object the scanner can walk.
    pub fn members(&self, span: Range<usize>) -> Option<Vec<(&'a [u8], Range<usize>)>> {
        let text = self.bytes;
        if text.get(span.start) != Some(&b'{') {
            return None;
        }
        let mut fields = Vec::new();
        let mut i = skip_space(text, span.start + 1);
        if text.get(i) == Some(&b'}') {
            return (i + 1 == span.end).then_some(fields);
        }
        loop {
            if text.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = self.skip_string(i)?;
            let key = &text[i + 1..key_end - 1];
            i = skip_space(text, key_end);
            if text.get(i) != Some(&b':') {
                return None;
            }
            let value_start = skip_space(text, i + 1);
            let value_end = self.skip_value(value_start)?;
            fields.push((key, value_start..value_end));
            i = skip_space(text, value_end);
            match text.get(i) {
                Some(b',') => i = skip_space(text, i + 1),
                Some(b'}') if i + 1 == span.end => return Some(fields),
                _ => return None,
            }
        }
    }
}

/// Bit masks of the quotes and backslashes of 64 bytes.
struct Masks {
    quotes: u64,
    backslashes: u64,
}

impl Masks {
    fn of(block: &[u8]) -> Masks {
        let (mut quotes, mut backslashes) = (0u64, 0u64);
        for (k, lane) in block.chunks_exact(16).enumerate() {
            let lane = u8x16::new(lane.try_into().unwrap_or([0; 16]));
            let shift = 16 * k;
            quotes |= u64::from(lane.simd_eq(u8x16::splat(b'"')).to_bitmask()) << shift;
            backslashes |= u64::from(lane.simd_eq(u8x16::splat(b'\\')).to_bitmask()) << shift;
        }
        Masks {
            quotes,
            backslashes,
        }
    }

    /// The quotes no backslash escapes. In a run of backslashes every second one escapes the
    /// byte after it, so a quote is escaped when the run before it is odd: the runs are told
    /// apart by whether they start on an even or odd bit, and adding the run starts to the
    /// run carries each run's end past it. `carry` says whether the last byte of the previous
    /// block was an escaping backslash, and is set for the next block.
    fn delimiters(&self, carry: &mut u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let backslashes = self.backslashes & !*carry;
        let follows_backslash = (backslashes << 1) | *carry;
        let odd_starts = backslashes & !EVEN & !follows_backslash;
        let (even_runs, overflow) = odd_starts.overflowing_add(backslashes);
        *carry = u64::from(overflow);
        let escaped = (EVEN ^ (even_runs << 1)) & follows_backslash;
        self.quotes & !escaped
    }
}

/// The index of the first non-whitespace byte at or after `i`.
pub fn skip_space(line: &[u8], mut i: usize) -> usize {
    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The top-level fields of a JSON object line, as (key as written, value span) pairs, in
/// order; `None` when the line is not an object this scanner can walk (the caller then lets
/// serde_json say what is wrong). Values are skipped, not validated.
pub fn top_level_fields(line: &[u8]) -> Option<Vec<(&[u8], Range<usize>)>> {
    Scanner::new(line).top_level_fields()
}

impl<'a> Scanner<'a> {
    /// [`top_level_fields`] of the text scanned.
    pub fn top_level_fields(&self) -> Option<Vec<(&'a [u8], Range<usize>)>> {
        let line = self.bytes;
        let start = skip_space(line, 0);
        let end = self.skip_value(start)?;
        if skip_space(line, end) != line.len() {
            return None;
        }
        self.members(start..end)
    }
}

/// A cursor that reads one JSON value after another in a single pass: each member of an
/// object or element of an array is handed to the caller, who reads it (descending into it)
/// or skips it, so nested values are walked once rather than once per level.
pub struct Walk<'s, 'a> {
    text: &'a str,
    scanner: &'s Scanner<'a>,
    at: usize,
}

impl<'s, 'a> Walk<'s, 'a> {
    /// A walk of `text`, which `scanner` scanned, from byte `at`.
    pub fn new(scanner: &'s Scanner<'a>, text: &'a str, at: usize) -> Self {
        debug_assert_eq!(scanner.bytes().len(), text.len());
        Walk {
            text,
            scanner,
            at: skip_space(text.as_bytes(), at),
        }
    }

    /// Where the walk stands: the first byte of the next value (or past the last one).
    pub fn position(&self) -> usize {
        self.at
    }

    /// The first byte of the next value.
    pub fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Passes over the next value; its span.
    pub fn skip(&mut self) -> Option<Range<usize>> {
        let start = self.at;
        let end = self.scanner.skip_value(start)?;
        self.at = skip_space(self.text.as_bytes(), end);
        Some(start..end)
    }

    /// The next value's raw JSON text, or `None` for `null`, as serde reads an
    /// `Option<&RawValue>`.
    pub fn raw(&mut self) -> Option<Option<&'a str>> {
        let span = self.skip()?;
        let raw = &self.text[span];
        Some((raw != "null").then_some(raw))
    }

    /// The next value's raw JSON text, `null` included, as serde reads a `&RawValue`.
    pub fn value(&mut self) -> Option<&'a str> {
        let span = self.skip()?;
        Some(&self.text[span])
    }

    /// True when the next value is `null`, which is then passed over.
    pub fn null(&mut self) -> Option<bool> {
        if self.peek()? != b'n' {
            return Some(false);
        }
        let span = self.skip()?;
        (&self.text[span] == "null").then_some(true)
    }

    /// The next value as a string, its escapes checked but not decoded; `None` when it is no
    /// valid JSON string.
    pub fn string(&mut self) -> Option<Text<'a>> {
        if self.peek()? != b'"' {
            return None;
        }
        let end = self.scanner.skip_string(self.at)?;
        let text = Text::from_json_body(&self.text[self.at + 1..end - 1])?;
        self.at = skip_space(self.text.as_bytes(), end);
        Some(text)
    }

    /// A string, or `null` for none, as serde reads an `Option<String>` field; `None` for any
    /// other value, which such a field refuses.
    pub fn optional_string(&mut self) -> Option<Option<Text<'a>>> {
        match self.null()? {
            true => Some(None),
            false => self.string().map(Some),
        }
    }

    /// Walks the object that comes next, handing `member` each key (as written) with the walk
    /// standing at its value, which `member` must read or skip. A key holding an escape ends
    /// the walk (serde would decode it; the walk compares keys as written).
    pub fn object(
        &mut self,
        mut member: impl FnMut(&'a [u8], &mut Walk<'s, 'a>) -> Option<()>,
    ) -> Option<()> {
        let bytes = self.text.as_bytes();
        if self.peek()? != b'{' {
            return None;
        }
        self.at = skip_space(bytes, self.at + 1);
        if self.peek()? == b'}' {
            self.at = skip_space(bytes, self.at + 1);
            return Some(());
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key_end = self.scanner.skip_string(self.at)?;
            let key = &bytes[self.at + 1..key_end - 1];
            if key.contains(&b'\\') {
                return None;
            }
            self.at = skip_space(bytes, key_end);
            if self.peek()? != b':' {
                return None;
            }
            self.at = skip_space(bytes, self.at + 1);
            member(key, self)?;
            match self.peek()? {
                b',' => self.at = skip_space(bytes, self.at + 1),
                b'}' => {
                    self.at = skip_space(bytes, self.at + 1);
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Walks the array that comes next, handing `element` the walk standing at each element,
    /// which `element` must read or skip.
    pub fn array(
        &mut self,
        mut element: impl FnMut(&mut Walk<'s, 'a>) -> Option<()>,
    ) -> Option<()> {
        let bytes = self.text.as_bytes();
        if self.peek()? != b'[' {
            return None;
        }
        self.at = skip_space(bytes, self.at + 1);
        if self.peek()? == b']' {
            self.at = skip_space(bytes, self.at + 1);
            return Some(());
        }
        loop {
            element(self)?;
            match self.peek()? {
                b',' => self.at = skip_space(bytes, self.at + 1),
                b']' => {
                    self.at = skip_space(bytes, self.at + 1);
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// Which of `keys` a member's key is (`Some(None)` for another key); `None` when it is one
/// already `seen`: serde refuses a repeated field, so the walk gives up and leaves it to serde.
pub fn wanted<const N: usize>(
    key: &[u8],
    keys: [&str; N],
    seen: &mut [bool; N],
) -> Option<Option<usize>> {
    let Some(slot) = keys.iter().position(|k| k.as_bytes() == key) else {
        return Some(None);
    };
    (!std::mem::replace(&mut seen[slot], true)).then_some(Some(slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_fields_walks_one_level_and_refuses_what_is_not_an_object() {
        let line =
            br#" { "type" : "user", "x": {"type": "inner", "s": "a\"}b"}, "n": [1, {"m": 2}] } "#;
        let fields = top_level_fields(line).unwrap();
        let found: Vec<(&[u8], &[u8])> = fields
            .iter()
            .map(|(k, span)| (*k, &line[span.clone()]))
            .collect();
        assert_eq!(
            found,
            vec![
                (&b"type"[..], &br#""user""#[..]),
                (&b"x"[..], &br#"{"type": "inner", "s": "a\"}b"}"#[..]),
                (&b"n"[..], &br#"[1, {"m": 2}]"#[..]),
            ]
        );
        assert_eq!(top_level_fields(b"{}").unwrap().len(), 0);
        for bad in [
            &b"[1]"[..],
            b"{\"a\":1",
            b"{\"a\":1} x",
            b"{\"a\" 1}",
            b"{\"a\":\"b}",
        ] {
            assert!(
                top_level_fields(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}

#[cfg(test)]
mod quote_tests {
    use super::*;

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
