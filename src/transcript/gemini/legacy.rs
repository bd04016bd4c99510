//! Gemini CLI's legacy session file: one JSON document per session,
//! `chats/session-<date>-<id8>.json`, written by every release before 0.39.0 and still read and
//! resumed by 0.61 (see `docs/agents/gemini-legacy.md`).
//!
//! The document is `{sessionId, projectHash, startTime, lastUpdated, messages: [...], summary?,
//! directories?, kind?}`, and its message records are exactly the records of the JSONL layout.
//! So condense reads it as the JSONL Gemini CLI 0.61 itself makes of it when it resumes one
//! (`ChatRecordingService.initialize`, which switches a `.json` session to `<same name>.jsonl`
//! and writes the metadata line and then every message into it): a metadata line holding every
//! field but `messages`, then one line per message, each the message's own object with the
//! whitespace between its tokens taken out (no string, number or key changes). Every reader of
//! the JSONL layout then reads it unchanged.
//!
//! How 0.61 loads the document (`chatRecordingService.ts`, `loadConversationRecord`): line by
//! line first; a pretty-printed document fails every line, so it falls back to
//! `parseLegacyRecordFallback`, the whole file as one object, taken when it has a `sessionId`;
//! a document on one line is read by the line loop itself (its metadata carries `messages`).
//! Both are read here the same way.
//!
//! Write-back goes to the JSONL import beside the document, never into it (see
//! [`import_path`]): it is the file and the layout 0.61 writes when it resumes the session, its
//! session list (`getSessionFiles`, `sessionUtils.ts`) keeps the file with the later
//! `lastUpdated` of the two, and the document stays as it was.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::Gemini;
use crate::transcript::format::Format;
use crate::transcript::json::{replace_top_level, top_level_str};

/// A document's top-level fields, in its order, as their JSON text.
struct Fields<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Fields<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldsVisitor;
        impl<'de> Visitor<'de> for FieldsVisitor {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(FieldsVisitor)
    }
}

/// The JSONL lines of the legacy document `bytes` (named `name` in messages), or `None` when
/// `bytes` are not one: not a single JSON object, or one without a `sessionId` and a `messages`
/// list. A message that is not an object, or that the JSONL reader refuses, fails with the line
/// of the document it starts on.
pub fn to_jsonl(name: &str, bytes: &[u8]) -> Option<Result<Vec<u8>>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Fields(fields) = serde_json::from_str(text).ok()?;
    let has = |key: &str| fields.iter().any(|(k, _)| k == key);
    let messages = fields.iter().find(|(key, _)| key == "messages")?.1;
    if !has("sessionId") || !messages.get().starts_with('[') {
        return None;
    }
    Some(lines_of(name, text, &fields, messages))
}

/// The metadata line, then a line for each message.
fn lines_of(
    name: &str,
    text: &str,
    fields: &[(String, &RawValue)],
    messages: &RawValue,
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    out.push(b'{');
    let metadata = fields.iter().filter(|(key, _)| key != "messages");
    for (index, (key, value)) in metadata.enumerate() {
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(serde_json::to_string(key)?.as_bytes());
        out.push(b':');
        squeeze_into(value.get(), &mut out);
    }
    out.extend_from_slice(b"}\n");
    let list: Vec<&RawValue> = serde_json::from_str(messages.get())?;
    for (index, message) in list.into_iter().enumerate() {
        let line = line_in(text, message.get());
        if !message.get().starts_with('{') {
            bail!("{name}:{line}: message {} is not a JSON object", index + 1);
        }
        let start = out.len();
        squeeze_into(message.get(), &mut out);
        let squeezed = std::str::from_utf8(&out[start..]).expect("squeezed from UTF-8 text");
        Gemini
            .read(line, squeezed)
            .map_err(|error| anyhow!("{name}:{line}: {error:#}"))?;
        out.push(b'\n');
    }
    Ok(out)
}

/// The 1-based line of `text` on which `inner` (a slice of it) starts.
fn line_in(text: &str, inner: &str) -> usize {
    let offset = (inner.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset.min(text.len())]).count()
}

/// Appends the JSON text `json` without the whitespace between its tokens; strings are copied
/// as they are, escapes included.
fn squeeze_into(json: &str, out: &mut Vec<u8>) {
    let mut in_string = false;
    let mut escaped = false;
    for &byte in json.as_bytes() {
        if in_string {
            out.push(byte);
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if !matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
            out.push(byte);
            in_string = byte == b'"';
        }
    }
}

/// The JSONL file Gemini CLI 0.61 moves the legacy session `document` to when it resumes it,
/// and where condense writes it back: the same name with `l` added (`session-….json` →
/// `session-….jsonl`, `ChatRecordingService.initialize`); a name not ending in `.json` gets
/// `.jsonl` added.
pub fn import_path(document: &Path) -> PathBuf {
    let mut name = document.as_os_str().to_owned();
    if document.extension().is_some_and(|e| e == "json") {
        name.push("l");
    } else {
        name.push(".jsonl");
    }
    PathBuf::from(name)
}

/// The JSONL lines `lines` of a legacy document with `lastUpdated` in their metadata line set
/// to `now_ms`, or to a millisecond after the document's when that is later (a clock behind the
/// document's). Gemini CLI's session list keeps, of two files with one `sessionId`, the one
/// whose `lastUpdated` is strictly later, and lists the `.json` first (`getSessionFiles`), so
/// the import must be the later; Gemini itself sets `lastUpdated` to now whenever it writes.
pub fn touched(lines: &[u8], now_ms: u64) -> Vec<u8> {
    let end = memchr::memchr(b'\n', lines).unwrap_or(lines.len());
    let metadata = &lines[..end];
    let parse = |text: &str| text.parse::<jiff::Timestamp>().ok();
    let recorded = top_level_str(metadata, "lastUpdated").and_then(|t| parse(&t));
    let now = jiff::Timestamp::from_millisecond(i64::try_from(now_ms).unwrap_or(i64::MAX))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let stamp = match recorded {
        Some(recorded) if recorded >= now => recorded
            .checked_add(jiff::SignedDuration::from_millis(1))
            .unwrap_or(recorded),
        _ => now,
    };
    // JavaScript's `toISOString()`: milliseconds, UTC.
    let iso = format!("\"{}\"", stamp.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"));
    let updated = replace_top_level(metadata, "lastUpdated", &iso).unwrap_or_else(|| {
        // No `lastUpdated`: one is added at the end of the object.
        let close = metadata
            .iter()
            .rposition(|&b| b == b'}')
            .unwrap_or(metadata.len());
        let comma = if metadata[..close].trim_ascii_end().ends_with(b"{") {
            ""
        } else {
            ","
        };
        [
            &metadata[..close],
            format!("{comma}\"lastUpdated\":{iso}").as_bytes(),
            &metadata[close..],
        ]
        .concat()
    });
    [&updated[..], &lines[end..]].concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines;
    use crate::transcript::read::detect_format;
    use crate::transcript::FormatId;

    fn read_fixture(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    /// Records per kind: `jq '.messages[] | .type' FILE | sort | uniq -c`.
    fn kinds(jsonl: &[u8]) -> Vec<String> {
        lines(jsonl, 1)
            .map(|line| {
                let value: serde_json::Value = serde_json::from_slice(line.text).unwrap();
                value["type"].as_str().unwrap_or("metadata").to_owned()
            })
            .collect()
    }

    #[test]
    fn the_documents_gemini_wrote_become_its_jsonl() {
        // The fixture 0.38.2 wrote against the mock, and the real corpus file:
        //   jq -c '.messages[].type' FILE
        let fixture = to_jsonl("f", &read_fixture("agents/gemini-legacy/legacy.json"))
            .unwrap()
            .unwrap();
        let turns = [
            "user", "gemini", "user", "gemini", "gemini", "user", "gemini",
        ];
        assert_eq!(
            kinds(&fixture),
            [&["metadata"][..], &turns, &["user", "gemini"]].concat()
        );
        let corpus = to_jsonl(
            "c",
            &read_fixture("corpus/gemini-cli/entireio-cli-12cbfeaa512b-legacy.json"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            kinds(&corpus),
            ["metadata", "user", "gemini", "user", "gemini", "gemini", "gemini"]
        );
        for jsonl in [&fixture, &corpus] {
            assert_eq!(
                detect_format("t", lines(jsonl, 1)).unwrap(),
                Some(FormatId::Gemini)
            );
        }
        // The metadata keeps every field but the messages, in the document's order.
        let first = lines(&corpus, 1).next().unwrap().text;
        assert!(first
            .starts_with(br#"{"sessionId":"faff42ab-6ea5-4f78-b8c4-f7dd6272af08","projectHash":"#));
        assert!(!first.windows(10).any(|w| w == b"\"messages\""));
    }

    #[test]
    fn messages_keep_their_strings_byte_for_byte() {
        let document = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\n      \"id\": \"u\",\n      \"type\": \"user\",\n      \"content\": \"a  b\\\" \\n {x: 1}\"\n    }\n  ]\n}";
        let jsonl = to_jsonl("t", document.as_bytes()).unwrap().unwrap();
        assert_eq!(
            String::from_utf8(jsonl).unwrap(),
            "{\"sessionId\":\"s\"}\n{\"id\":\"u\",\"type\":\"user\",\"content\":\"a  b\\\" \\n {x: 1}\"}\n"
        );
    }

    #[test]
    fn other_input_is_not_a_document_and_a_bad_message_is_located() {
        assert!(to_jsonl(
            "t",
            b"{\"role\":\"user\",\"content\":\"x\"}\n{\"role\":\"user\"}\n"
        )
        .is_none());
        assert!(to_jsonl("t", b"{\n  \"a\": 1\n}").is_none());
        assert!(to_jsonl("t", b"{\"sessionId\":\"s\",\"messages\":{}}").is_none());
        let bad = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"u\", \"type\": \"user\", \"content\": 7}\n  ]\n}";
        let error = to_jsonl("t.json", bad.as_bytes()).unwrap().unwrap_err();
        assert!(error.to_string().starts_with("t.json:4: "), "{error}");
        let not_object = "{\"sessionId\": \"s\",\n\"messages\": [\n 3]}";
        let error = to_jsonl("t.json", not_object.as_bytes())
            .unwrap()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.json:3: message 1 is not a JSON object"
        );
    }

    #[test]
    fn the_import_is_updated_later_than_the_document() {
        let lines =
            b"{\"sessionId\":\"s\",\"lastUpdated\":\"2026-01-10T02:09:27.575Z\"}\n{\"id\":\"u\"}\n";
        // 2026-12-04T20:00:00Z
        let now = 1_796_414_400_000;
        assert_eq!(
            touched(lines, now),
            b"{\"sessionId\":\"s\",\"lastUpdated\":\"2026-12-04T20:00:00.000Z\"}\n{\"id\":\"u\"}\n"
        );
        // A clock behind the document: a millisecond after it.
        assert!(String::from_utf8(touched(lines, 0))
            .unwrap()
            .contains("\"2026-01-10T02:09:27.576Z\""));
        assert_eq!(
            touched(b"{\"sessionId\":\"s\"}\n", now),
            b"{\"sessionId\":\"s\",\"lastUpdated\":\"2026-12-04T20:00:00.000Z\"}\n"
        );
    }

    #[test]
    fn the_import_is_the_same_name_with_an_l() {
        assert_eq!(
            import_path(Path::new("/c/session-2026-01-10T02-08-faff42ab.json")),
            Path::new("/c/session-2026-01-10T02-08-faff42ab.jsonl")
        );
        assert_eq!(import_path(Path::new("x.txt")), Path::new("x.txt.jsonl"));
    }
}
