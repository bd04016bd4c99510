//! The text of a message part: borrowed from the line, owned, or still JSON-escaped.
//!
//! Most commands read a part's text as a `&str` (through `Deref`), but `estimate` with a
//! character estimator only needs how many code points it holds. Decoding every escaped string
//! of a large file into an owned one (an allocation, a copy and an unescape per part) was most
//! of the time `estimate` spent, so a reader that walks the line ([`super::scan`]) keeps the
//! string's body escaped, with the code points its escapes stand for counted as it checked
//! them: [`Text::code_points`] decodes nothing, and the first `Deref` decodes the text once
//! and keeps the result. A body with no escapes is borrowed as it is, and when it is all ASCII
//! its length, which the scan found, is its count.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::{LazyLock, OnceLock};

use memchr::memchr;
use memchr::memmem::Finder;

/// The text of a part (see the module docs).
pub struct Text<'a>(Repr<'a>);

enum Repr<'a> {
    Decoded(Cow<'a, str>),
    /// The body of a JSON string with no escapes, borrowed as it is, and its code points.
    Counted {
        text: &'a str,
        points: u64,
    },
    /// The body of a JSON string (between its quotes) whose escapes were checked, and the
    /// code points it decodes to.
    Escaped {
        body: &'a str,
        points: u64,
        decoded: OnceLock<String>,
    },
}

impl<'a> Text<'a> {
    /// The text of a JSON string body whose escapes the caller checked, which holds no raw
    /// control character, and which decodes to `points` code points.
    pub(crate) fn escaped(body: &'a str, points: u64) -> Text<'a> {
        Text(Repr::Escaped {
            body,
            points,
            decoded: OnceLock::new(),
        })
    }

    /// The body of a JSON string with no escapes, whose code points the caller counted.
    pub(crate) fn counted(text: &'a str, points: u64) -> Text<'a> {
        Text(Repr::Counted { text, points })
    }

    /// The text as a string slice, decoding it the first time if it is still escaped.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Decoded(text) => text,
            Repr::Counted { text, .. } => text,
            Repr::Escaped { body, decoded, .. } => decoded.get_or_init(|| unescape(body)),
        }
    }

    /// Unicode code points, as Python's `len` counts them, without decoding an escaped text.
    pub fn code_points(&self) -> u64 {
        match &self.0 {
            Repr::Decoded(text) => text.chars().count() as u64,
            Repr::Counted { points, .. } | Repr::Escaped { points, .. } => *points,
        }
    }

    /// The body of a text that is still JSON-escaped, as it stands in the line, while it has
    /// not been decoded, for a reader that understands escapes: it is read without being
    /// decoded into a string of its own. Its escapes were checked, so every backslash
    /// starts a valid escape and none is cut off at the end, and it holds no raw control
    /// character (JSON allows none in a string: newlines and tabs are escapes).
    pub(crate) fn escaped_body(&self) -> Option<&str> {
        match &self.0 {
            Repr::Escaped { body, decoded, .. } if decoded.get().is_none() => Some(body),
            _ => None,
        }
    }

    /// True when no copy of the text was made: it borrows from the line, decoded or not.
    pub fn is_borrowed(&self) -> bool {
        match &self.0 {
            Repr::Decoded(text) => matches!(text, Cow::Borrowed(_)),
            Repr::Counted { .. } => true,
            Repr::Escaped { decoded, .. } => decoded.get().is_none(),
        }
    }

    /// The text as a `Cow`, decoding it if it is still escaped.
    pub fn into_cow(self) -> Cow<'a, str> {
        match self.0 {
            Repr::Decoded(text) => text,
            Repr::Counted { text, .. } => Cow::Borrowed(text),
            Repr::Escaped { body, decoded, .. } => {
                Cow::Owned(decoded.into_inner().unwrap_or_else(|| unescape(body)))
            }
        }
    }

    /// The text as an owned string.
    pub fn into_owned(self) -> String {
        self.into_cow().into_owned()
    }
}

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Clone for Text<'_> {
    fn clone(&self) -> Self {
        match &self.0 {
            Repr::Decoded(text) => Text(Repr::Decoded(text.clone())),
            Repr::Counted { text, points } => Text(Repr::Counted {
                text,
                points: *points,
            }),
            Repr::Escaped {
                body,
                points,
                decoded,
            } => Text(Repr::Escaped {
                body,
                points: *points,
                decoded: decoded.clone(),
            }),
        }
    }
}

impl Default for Text<'_> {
    fn default() -> Self {
        Text(Repr::Decoded(Cow::Borrowed("")))
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text<'_> {}

impl PartialEq<str> for Text<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<'a> From<Cow<'a, str>> for Text<'a> {
    fn from(text: Cow<'a, str>) -> Self {
        Text(Repr::Decoded(text))
    }
}

impl<'a> From<&'a str> for Text<'a> {
    fn from(text: &'a str) -> Self {
        Text(Repr::Decoded(Cow::Borrowed(text)))
    }
}

impl From<String> for Text<'_> {
    fn from(text: String) -> Self {
        Text(Repr::Decoded(Cow::Owned(text)))
    }
}

impl<'a> From<Text<'a>> for Cow<'a, str> {
    fn from(text: Text<'a>) -> Self {
        text.into_cow()
    }
}

/// The value of the four hex digits at `at`. Digit by digit: going through `from_utf8` and
/// `from_str_radix` took some 200 instructions an escape, 4% of `estimate` on a kimi-cli
/// context full of `\u` escapes.
pub(super) fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)?
        .iter()
        .try_fold(0, |value, &digit| Some(value << 4 | hex_digit(digit)?))
}

/// The value of one hex digit.
fn hex_digit(digit: u8) -> Option<u32> {
    let value = match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        b'A'..=b'F' => digit - b'A' + 10,
        _ => return None,
    };
    Some(u32::from(value))
}

pub(super) fn is_high_surrogate(unit: u32) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

pub(super) fn is_low_surrogate(unit: u32) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// Whether `bytes` hold a backslash followed by a `u`: in JSON text, a `\u` escape or an
/// escaped backslash before a `u`. The searcher is built once: `memmem::find` builds one for
/// every call, which cost more than the search in a tool call's arguments, looked at twice
/// for every call `estimate` reads (3% of its instructions on a kimi-cli context).
pub(crate) fn holds_backslash_u(bytes: &[u8]) -> bool {
    static BACKSLASH_U: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
    BACKSLASH_U.find(bytes).is_some()
}

/// `json` with each lone surrogate escape (`\ud83d` with no low half after it, or a low half
/// with no high one before it: what a JavaScript program writes when it cuts a string inside an
/// emoji) replaced by `\ufffd`, which is as long; `None` when it holds none. serde_json
/// refuses such an escape in a string it decodes, where JavaScript and Python read it; the
/// line walk ([`super::scan`]), by which the Claude Code reader reads a line, reads U+FFFD. A
/// line read from the copy reads as the walk reads it, at the same byte offsets.
pub fn without_lone_surrogates(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut lone = Vec::new();
    let mut i = 0;
    // Outside strings valid JSON holds no backslash, so every one starts an escape.
    while let Some(at) = memchr(b'\\', &bytes[i..]) {
        let at = i + at;
        let Some(unit) = (bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex4(bytes, at + 2))
            .flatten()
        else {
            i = (at + 2).min(bytes.len());
            continue;
        };
        let paired = is_high_surrogate(unit)
            && bytes.get(at + 6..at + 8) == Some(b"\\u")
            && hex4(bytes, at + 8).is_some_and(is_low_surrogate);
        if paired {
            i = at + 12;
            continue;
        }
        if is_high_surrogate(unit) || is_low_surrogate(unit) {
            lone.push(at);
        }
        i = at + 6;
    }
    if lone.is_empty() {
        return None;
    }
    let mut copy = json.as_bytes().to_vec();
    for at in lone {
        copy[at..at + 6].copy_from_slice(b"\\ufffd");
    }
    Some(String::from_utf8(copy).expect("ASCII replaced by ASCII"))
}

/// Decodes a valid escaped body (lone surrogates become U+FFFD).
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    pieces(body, &mut |piece| out.push_str(piece));
    out
}

/// The character the escape whose backslash is at `at` of a valid escaped body stands for,
/// and where the escape ends.
pub(crate) fn escape(bytes: &[u8], at: usize) -> (char, usize) {
    match bytes[at + 1] {
        b'n' => ('\n', at + 2),
        b't' => ('\t', at + 2),
        b'r' => ('\r', at + 2),
        b'b' => ('\u{8}', at + 2),
        b'f' => ('\u{c}', at + 2),
        b'u' => unicode_escape(bytes, at),
        other => (char::from(other), at + 2),
    }
}

/// The character the `\uXXXX` escape at `at` of a valid escaped body stands for, and where
/// the escape ends: a surrogate pair is one character (two escapes), and a lone surrogate
/// (which serde_json refuses) is U+FFFD.
fn unicode_escape(bytes: &[u8], at: usize) -> (char, usize) {
    let unit = hex4(bytes, at + 2).unwrap_or(0xFFFD);
    let low = (bytes.get(at + 6) == Some(&b'\\') && bytes.get(at + 7) == Some(&b'u'))
        .then(|| hex4(bytes, at + 8))
        .flatten()
        .filter(|&low| is_high_surrogate(unit) && is_low_surrogate(low));
    match low {
        Some(low) => {
            let point = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            (char::from_u32(point).unwrap_or('\u{FFFD}'), at + 12)
        }
        None => (char::from_u32(unit).unwrap_or('\u{FFFD}'), at + 6),
    }
}

/// Hands `piece` a valid escaped body decoded, in order: each run between escapes as it is,
/// each escape as the character it stands for (a lone surrogate as U+FFFD).
fn pieces(body: &str, piece: &mut impl FnMut(&str)) {
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut buffer = [0u8; 4];
    while let Some(at) = memchr(b'\\', &bytes[i..]) {
        let at = i + at;
        if at > i {
            piece(&body[i..at]);
        }
        let (c, next) = escape(bytes, at);
        piece(c.encode_utf8(&mut buffer));
        i = next;
    }
    if i < body.len() {
        piece(&body[i..]);
    }
}

#[cfg(test)]
mod tests {
    use crate::transcript::scan;

    /// A JSON string of `body`, quotes added, for [`scan::json_text`] to read as a reader would.
    fn quoted(body: &str) -> String {
        format!("\"{body}\"")
    }

    /// What serde_json makes of the same JSON string.
    fn serde(body: &str) -> Option<String> {
        serde_json::from_str::<String>(&format!("\"{body}\"")).ok()
    }

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters_and_pairs_stay() {
        use super::without_lone_surrogates as fixed;
        assert_eq!(fixed(r#"{"a":"plain \n \u00e9"}"#), None);
        assert_eq!(fixed(r#"{"a":"\ud83d\ude00"}"#), None);
        assert_eq!(
            fixed(r#"{"a":"cut \ud83d","b":"\ude00 x \\ud83d"}"#).unwrap(),
            r#"{"a":"cut \ufffd","b":"\ufffd x \\ud83d"}"#
        );
        // A high half before a pair, and one at the very end.
        assert_eq!(
            fixed(r#""\ud83d\ud83d\ude00\ud83d""#).unwrap(),
            r#""\ufffd\ud83d\ude00\ufffd""#
        );
        let read: String = serde_json::from_str(&fixed(r#""a\udc00b""#).unwrap()).unwrap();
        assert_eq!(read, "a\u{FFFD}b");
    }

    #[test]
    fn escaped_text_decodes_and_counts_as_serde_json_reads_it() {
        for body in [
            "plain",
            "",
            r#"a\nb\tc\\d\/e\"f"#,
            r"caf\u00e9 \u4e2d\u6587",
            r"emoji \ud83d\ude00 pair",
            r"two pairs \ud83d\ude00\ud83d\ude00 in a row",
            "héllo \\n wörld ✓",
            r"\b\f\r",
            r"end\\",
        ] {
            let raw = quoted(body);
            let text = scan::json_text(&raw).unwrap();
            let expected = serde(body).unwrap();
            assert_eq!(
                text.code_points(),
                expected.chars().count() as u64,
                "{body}"
            );
            assert_eq!(text.as_str(), expected, "{body}");
            assert_eq!(
                text.code_points(),
                expected.chars().count() as u64,
                "{body}"
            );
            assert_eq!(
                text.is_borrowed(),
                !body.contains('\\') || body.is_empty(),
                "{body}"
            );
        }
    }

    #[test]
    fn a_lone_surrogate_is_one_replacement_character() {
        let raw = quoted(r"a\ud83db");
        let text = scan::json_text(&raw).unwrap();
        assert_eq!(text.code_points(), 3);
        assert_eq!(text.as_str(), "a\u{FFFD}b");
        let raw = quoted(r"\ude00\ud83d\u0041");
        let text = scan::json_text(&raw).unwrap();
        assert_eq!(text.code_points(), 3);
        assert_eq!(text.as_str(), "\u{FFFD}\u{FFFD}A");
        // A high surrogate before a pair, and a low one after it.
        let raw = quoted(r"\ud83d\ud83d\ude00\ude00");
        let text = scan::json_text(&raw).unwrap();
        assert_eq!(text.code_points(), 3);
        assert_eq!(text.as_str(), "\u{FFFD}\u{1F600}\u{FFFD}");
    }

    #[test]
    fn invalid_bodies_are_refused() {
        for body in [
            r"bad \q escape",
            r"short \u12",
            r"not hex \u12g4",
            "raw\nnewline",
            r#"trailing \"#,
        ] {
            assert!(scan::json_text(&quoted(body)).is_none(), "{body}");
            assert!(serde(body).is_none(), "serde_json accepts {body}");
        }
    }
}
