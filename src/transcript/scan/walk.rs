//! A cursor over a scanned JSON text that reads one value after another.

use std::ops::Range;

use super::super::text::Text;
use super::index::{ends_literal, skip_space, Scanner};

/// A cursor that reads one JSON value after another in a single pass: each member of an
/// object or element of an array is handed to the caller, who reads it (descending into it)
/// or skips it, so nested values are walked once rather than once per level.
#[derive(Clone)]
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

    /// The next value as an integer written as JSON writes one (no fraction or exponent):
    /// `Some(Some(n))` for one a `u64` holds, `Some(None)` for one it does not (negative, or
    /// past `u64::MAX`; `-0` is 0); `None` for any other value, where the walk gives up.
    /// Digits are read as they are passed over, in one pass.
    pub fn integer(&mut self) -> Option<Option<u64>> {
        let bytes = self.text.as_bytes();
        let negative = self.peek()? == b'-';
        let first = self.at + usize::from(negative);
        let mut end = first;
        let mut value = 0u64;
        while let Some(&digit) = bytes.get(end).filter(|b| b.is_ascii_digit()) {
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit - b'0'));
            end += 1;
        }
        // Nineteen digits never overflow a u64; longer runs are parsed again with the check.
        let value = match end - first {
            ..=19 => Some(value),
            _ => self.text[first..end].parse().ok(),
        };
        let leading_zero = bytes[first..end].starts_with(b"0") && end - first > 1;
        if end == first || leading_zero || !ends_literal(bytes.get(end).copied()) {
            return None;
        }
        self.at = skip_space(bytes, end);
        Some(match negative {
            false => value,
            true => (value == Some(0)).then_some(0),
        })
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

    /// [`Walk::optional_string`] decoded, for fields that are compared or kept rather than
    /// counted (types, ids, names).
    pub fn optional_str(&mut self) -> Option<Option<std::borrow::Cow<'a, str>>> {
        Some(self.optional_string()?.map(Text::into_cow))
    }

    /// Walks the object that comes next as serde reads a struct with the fields `keys`: each
    /// member whose key is one of them is handed to `field` with its index in `keys` and the
    /// walk standing at its value, which `field` must read; other members are skipped. A key
    /// that repeats one of `keys` ends the walk, as serde refuses a repeated field.
    ///
    /// Inlined into each reader, so that `keys` is a constant there and each key is compared
    /// with a few loads: called, the list was copied in and each key compared by a call to
    /// `bcmp`, which took a seventh of what `estimate` spent on a short line.
    #[inline(always)]
    pub fn fields<const N: usize>(
        &mut self,
        keys: [&str; N],
        mut field: impl FnMut(usize, &mut Walk<'s, 'a>) -> Option<()>,
    ) -> Option<()> {
        let mut seen = [false; N];
        self.object(|key, walk| match wanted(key, keys, &mut seen)? {
            Some(slot) => field(slot, walk),
            None => walk.skip().map(drop),
        })
    }

    /// Walks the object that comes next, handing `member` each key (as written) with the walk
    /// standing at its value, which `member` must read or skip. A key holding an escape ends
    /// the walk (serde would decode it; the walk compares keys as written).
    #[inline(always)]
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
            // Not `contains`: its search is a call, which costs more than a key of a few bytes.
            #[allow(clippy::manual_contains)]
            if key.iter().any(|&b| b == b'\\') {
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
/// Inlined into each reader's walk, where `keys` is a constant list, so that each compare is
/// of a known length and compiles to a few loads instead of a call to `memcmp`: 3.5% of the
/// instructions `estimate` spends on pi's sessions.
#[inline(always)]
fn wanted<const N: usize>(
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
                // serde refuses lone surrogates; the walk reads each as U+FFFD.
                let serde: String = serde_json::from_str(&line[pad..]).unwrap_or_else(|_| {
                    "pair \u{1F600} and lone \u{FFFD} then \u{FFFD} x".to_owned()
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
