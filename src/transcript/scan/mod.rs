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
//! - `classify`: the bits of each 64 bytes of a text, found with vector compares;
//! - `index`: the [`Scanner`], which finds a text's string delimiters, escapes and brackets
//!   once, as those bits, and reads strings and skips values with them;
//! - `walk`: the [`Walk`], a cursor that reads values one after another with it.

mod classify;
mod index;
mod walk;

pub use index::{skip_space, Scanner};
pub use walk::Walk;

use super::text::Text;

/// The text of `raw`, the JSON text of one string value (quotes included), read as a walk
/// reads a string: still escaped, its code points counted; `None` when it is no valid JSON
/// string.
pub fn json_text(raw: &str) -> Option<Text<'_>> {
    // Ids, types and names hold no escapes: such a string is its body, with nothing to index.
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    // A fold rather than `any`: with no early exit it runs on vectors.
    let plain = body.bytes().fold(true, |plain, b| {
        plain & (b != b'"') & (b != b'\\') & (b >= 0x20)
    });
    if plain {
        return Some(Text::from(body));
    }
    let scanner = Scanner::new(raw.as_bytes());
    let mut walk = Walk::new(&scanner, raw, 0);
    let text = walk.string()?;
    (walk.position() == raw.len()).then_some(text)
}

/// [`json_text`], decoded (a string without escapes is borrowed).
pub fn json_string(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    json_text(raw).map(Text::into_cow)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The members of the object a line holds, as the readers walk a line: each key as written
    /// and its value's text; `None` when the line is no such object and nothing else.
    fn top_level_fields(line: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
        let text = std::str::from_utf8(line).ok()?;
        let scanner = Scanner::new(line);
        let mut walk = Walk::new(&scanner, text, 0);
        let mut fields = Vec::new();
        walk.object(|key, walk| {
            let span = walk.skip()?;
            fields.push((key, &line[span]));
            Some(())
        })?;
        (walk.position() == line.len()).then_some(fields)
    }

    #[test]
    fn walking_a_line_hands_out_its_top_level_members_and_refuses_what_is_not_an_object() {
        let line =
            br#" { "type" : "user", "x": {"type": "inner", "s": "a\"}b"}, "n": [1, {"m": 2}] } "#;
        let found = top_level_fields(line).unwrap();
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
            // A key holding an escape, within the first word of the bitmap or past it.
            b"{\"r\\u006fle\":1}",
            b"{\"a\\\\b\":1}",
            br#"{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"b":1}"#,
        ] {
            assert!(
                top_level_fields(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
