//! Checks the corpus tests of every format share: records and corpus files to read, and what
//! was read counted.

use std::collections::HashSet;
use std::path::Path;

use crate::transcript::sketch::Sketch;

use crate::transcript::DETECT_LINES;

/// A main-chain message record holding one text.
pub fn text_record(role: Role, text: &str) -> super::Record<'static> {
    super::Record::new(
        0,
        b"",
        super::Entry::Message(Message::new(role, vec![Part::Text(text.to_owned().into())])),
    )
}

/// Parses literal lines, as detection sees them.
pub fn head<'a>(lines: &[&'a str]) -> Vec<Sketch<'a>> {
    lines.iter().map(|line| Sketch::of(line).unwrap()).collect()
}

/// Every non-blank line of a file under `fixtures/corpus/`, with its 1-based number.
pub fn corpus(path: &str) -> Vec<(usize, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/corpus")
        .join(path);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| (index + 1, line.to_owned()))
        .collect()
}

/// The bytes of a file under `fixtures/corpus/`.
pub fn corpus_bytes(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/corpus")
        .join(path);
    std::fs::read(path).unwrap()
}

/// The top-level keys of a JSON object line, in the order written (a writer copies the
/// agent's own key order).
pub fn keys(line: &[u8]) -> Vec<String> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    serde::Deserializer::deserialize_map(&mut de, Keys).unwrap()
}

/// Reads corpus lines with `format`, panicking on a bad line, and counts the messages,
/// compaction markers and usage figures among the records.
pub fn read_all<'l>(
    format: &dyn crate::transcript::format::Format,
    lines: &'l [(usize, String)],
) -> (Vec<crate::transcript::Record<'l>>, (usize, usize, usize)) {
    let records: Vec<_> = lines
        .iter()
        .map(|(number, line)| {
            format
                .read(*number, line)
                .unwrap_or_else(|err| panic!("line {number}: {err}"))
        })
        .collect();
    let count = |f: fn(&crate::transcript::Record) -> bool| records.iter().filter(|r| f(r)).count();
    let counts = (
        count(|r| r.message().is_some()),
        count(|r| r.compaction),
        count(|r| r.usage.is_some()),
    );
    (records, counts)
}

/// The lines detection looks at.
pub fn corpus_head(lines: &[(usize, String)]) -> Vec<Sketch<'_>> {
    lines
        .iter()
        .filter_map(|(_, line)| Sketch::of(line).ok())
        .take(DETECT_LINES)
        .collect()
}

use super::{Message, Part, Role};

/// Tool results of a transcript and how many of them are orphaned.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// Tool results: each message with a [`Message::call_id`], and each
    /// [`Part::ToolResult`] of a message without one; a tool-role message with neither
    /// counts as one result without an id.
    pub results: usize,
    /// Those whose id no earlier tool call of the transcript has, or that have no id.
    pub orphans: usize,
}

/// Counts the tool results of these messages (in transcript order) and which answer no
/// call made before them. Parts are taken in order, so a call and its result in one
/// message (Gemini) link.
pub fn links<'m, 'a: 'm>(messages: impl IntoIterator<Item = &'m Message<'a>>) -> Links {
    let mut calls: HashSet<&str> = HashSet::new();
    let mut links = Links::default();
    let mut result = |calls: &HashSet<&str>, id: Option<&str>| {
        links.results += 1;
        links.orphans += usize::from(!id.is_some_and(|id| calls.contains(id)));
    };
    for message in messages {
        let keyed = message.call_id.is_some();
        if keyed {
            result(&calls, message.call_id.as_deref());
        }
        let mut parts_results = 0;
        for part in &message.parts {
            match part {
                Part::ToolCall { id: Some(id), .. } => {
                    calls.insert(id);
                }
                Part::ToolResult { call_id, .. } if !keyed => {
                    parts_results += 1;
                    result(&calls, call_id.as_deref());
                }
                _ => {}
            }
        }
        if !keyed && parts_results == 0 && message.role == Role::Tool {
            result(&calls, None);
        }
    }
    links
}
