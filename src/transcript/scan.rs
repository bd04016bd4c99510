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

/// A JSON text with the places of its string delimiters and escapes worked out (see the
/// module docs), one bit per byte: bit `k % 64` of word `k / 64` stands for byte `k`.
#[derive(Default)]
pub struct Scanner<'a> {
    bytes: &'a [u8],
    words: Vec<Word>,
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

/// The bits of 64 bytes of a scanned text.
#[derive(Default, Clone, Copy)]
struct Word {
    /// Quotes no backslash escapes.
    quotes: u64,
    /// Backslashes that start an escape (not those another backslash escapes).
    escapes: u64,
    /// Brackets and braces outside strings: where objects and arrays open and close.
    structure: u64,
}

impl<'a> Scanner<'a> {
    /// Scans `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut carry = Carry::default();
        let mut words = SPARE_WORDS.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
        words.clear();
        words.extend(bytes.chunks(64).map(|block| match block.try_into() {
            Ok(block) => Masks::of(block).word(&mut carry),
            Err(_) => {
                let mut padded = [b' '; 64];
                padded[..block.len()].copy_from_slice(block);
                Masks::of(&padded).word(&mut carry)
            }
        }));
        Scanner { bytes, words }
    }

    /// The string whose opening quote is at `open` and closing quote at `close` in `line`
    /// (the text scanned), its escapes checked (found from the bitmap) and its code points
    /// counted; `None` when it is no valid JSON string (a raw control character, an unknown
    /// or short escape).
    fn text(&self, line: &'a str, open: usize, close: usize) -> Option<Text<'a>> {
        let body = open + 1..close;
        if has_control(&self.bytes[body.clone()]) {
            return None;
        }
        let bytes = self.bytes;
        // What escapes take beyond the one character each stands for.
        let mut extra = 0u64;
        let mut escaped = false;
        let mut next = body.start;
        let mut word = body.start / 64;
        let mut bits = self.words.get(word)?.escapes & (u64::MAX << (body.start % 64));
        loop {
            while bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if at >= body.end {
                    break;
                }
                if at < next {
                    continue; // the second half of a surrogate pair, counted with the first
                }
                escaped = true;
                let kind = *bytes.get(at + 1)?;
                if SIMPLE_ESCAPE[usize::from(kind)] {
                    extra += 1;
                    next = at + 2;
                } else if kind == b'u' {
                    let unit = hex4(bytes, at + 2)?;
                    extra += 5;
                    next = at + 6;
                    let pair = is_high_surrogate(unit)
                        && bytes.get(next) == Some(&b'\\')
                        && bytes.get(next + 1) == Some(&b'u')
                        && hex4(bytes, next + 2).is_some_and(is_low_surrogate);
                    if pair {
                        extra += 6;
                        next += 6;
                    }
                } else {
                    return None;
                }
            }
            word += 1;
            if word * 64 >= body.end {
                break;
            }
            bits = self.words.get(word)?.escapes;
        }
        // Quotes are ASCII, so the body starts and ends on character boundaries.
        let text = line.get(body.clone())?;
        if !escaped {
            return Some(Text::from(text));
        }
        let points = text.chars().count() as u64 - extra;
        Some(Text::escaped(text, points))
    }

    /// The text scanned.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The index just past the string starting at `i` (which must be a quote).
    pub fn skip_string(&self, i: usize) -> Option<usize> {
        let from = i + 1;
        let mut word = from / 64;
        let mut bits = self.words.get(word)?.quotes & (u64::MAX << (from % 64));
        while bits == 0 {
            word += 1;
            bits = self.words.get(word)?.quotes;
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
                let mut bits = self.words.get(word)?.structure & (u64::MAX << (i % 64));
                loop {
                    while bits != 0 {
                        let at = word * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        match line[at] {
                            b'{' | b'[' => depth += 1,
                            _ => {
                                depth = depth.checked_sub(1)?;
                                if depth == 0 {
                                    return Some(at + 1);
                                }
                            }
                        }
                    }
                    word += 1;
                    bits = self.words.get(word)?.structure;
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
    brackets: u64,
}

impl Masks {
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
            // `[` and `]` are `{` and `}` with bit 0x20 cleared.
            let folded = lane | u8x16::splat(0x20);
            let brackets = folded.simd_eq(u8x16::splat(b'{')) | folded.simd_eq(u8x16::splat(b'}'));
            masks.brackets |= bits(brackets) << shift;
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

/// True when `bytes` holds a byte below 0x20, which a JSON string may not hold raw. Valid
/// text has none, so every byte is looked at: an OR over all of them, which the compiler
/// turns into vector instructions.
fn has_control(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |found, &b| found | u8::from(b < 0x20)) != 0
}

/// The characters that follow a backslash in a two-character escape.
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let simple = *b"\"\\/bfnrt";
    let mut i = 0;
    while i < simple.len() {
        table[simple[i] as usize] = true;
        i += 1;
    }
    table
};

/// The value of the four hex digits at `at`.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |value, &b| {
        let digit = char::from(b).to_digit(16)?;
        Some(value * 16 + digit)
    })
}

fn is_high_surrogate(unit: u32) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low_surrogate(unit: u32) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// The index of the first non-whitespace byte at or after `i`.
pub fn skip_space(line: &[u8], mut i: usize) -> usize {
    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The text of `raw`, the JSON text of one string value (quotes included); `None` when it is
/// no valid JSON string. A string without escapes is borrowed.
pub fn json_string(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    Text::from_json_body(body).map(Text::into_cow)
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
        let text = self.scanner.text(self.text, self.at, end - 1)?;
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

    #[test]
    fn a_walked_string_counts_and_decodes_as_serde_json_reads_it() {
        let bodies = [
            r#"plain ascii"#,
            r#"héllo wörld ✓ 中文 😀"#,
            r#"a\nb\tc\\d\/e\"f"#,
            r#"caf\u00e9 \u4e2d\u6587 and é"#,
            r#"pair \ud83d\ude00 and lone \ud83d then \ude00 x"#,
            r#"\\u0041 is no escape"#,
            r#"\b\f\r\u0000"#,
        ];
        for pad in 0..70 {
            for body in bodies {
                let line = format!("{}\"{body}\"", "x".repeat(pad));
                let scanner = Scanner::new(line.as_bytes());
                let text = Walk::new(&scanner, &line, pad).string().unwrap();
                let serde: String = serde_json::from_str(&line[pad..]).unwrap_or_else(|_| {
                    // serde refuses lone surrogates; the walk reads each as U+FFFD.
                    Text::from_json_body(body).unwrap().as_str().to_owned()
                });
                assert_eq!(
                    text.code_points(),
                    serde.chars().count() as u64,
                    "{body} at {pad}"
                );
                assert_eq!(text.as_str(), serde, "{body} at {pad}");
            }
        }
        for bad in ["\"raw\ncontrol\"", r#""bad \q""#, r#""short \u12""#] {
            let scanner = Scanner::new(bad.as_bytes());
            assert!(Walk::new(&scanner, bad, 0).string().is_none(), "{bad}");
        }
    }
}
