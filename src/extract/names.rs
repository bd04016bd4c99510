//! The code names a session works on: the ones its latest edits wrote or replaced (what the
//! agent was changing when the transcript ends), and the ones main-chain messages keep
//! mentioning (what a continuing agent will meet again).

use super::mention_weight::{mention_weight, Writer};
use super::once_named::once_named;
use super::said::HARNESS_TEXT;
use crate::transcript::classify::{is_compaction_summary, is_real_user_request};
use crate::transcript::{Message, Part, Record, Role};

/// How many frequent names an extract keeps: more than caveman prints (a few dozen), since
/// the error types are read from them (see `error_types`) and a type the agent only read
/// about ranks low once a file read weighs little (see `mention_weight`). At 120, caveman
/// carried two error types fewer on the eval corpus.
pub(super) const NAMES: usize = 400;

/// The code names main-chain messages mention at least twice, the weightiest first (ties in
/// first-seen order): a mention weighs by who wrote it (an edit or the user far more than a
/// file the agent read) and by how late it came (see `mention_weight`), so that the names the
/// work is about now outrank the ones a read file held. A name is a word with an inner `_` (`parse_jsonl`, `IPFS_API_URL`), a camelCase or
/// PascalCase word with two humps (`checkConcurrentSessions`, `TodoItem`), or a file name with
/// an extension (`CLAUDE.md`): the words an agent searches for, not prose. In a tool call's
/// arguments only the values count: the keys (`file_path`, `old_string`) are the tool's own.
pub fn frequent_names(records: &[Record], limit: usize) -> Vec<String> {
    mentioned_names(records, limit).0
}

/// The frequent names (see [`frequent_names`]), and the names mentioned once that fill a
/// short list (see `once_named`).
pub(super) fn mentioned_names(records: &[Record], limit: usize) -> (Vec<String>, Vec<String>) {
    // Per name: mentions, first-seen order, the weight of its mentions. A name is copied
    // the first time it is seen: the text it is read from is let go with its record's copy
    // (see `Record::to_read_once`), so that the session is never held decoded whole.
    let mut counts: std::collections::HashMap<String, (usize, usize, u64)> =
        std::collections::HashMap::new();
    let mut order = 0;
    for (index, record) in records.iter().enumerate() {
        let record = record.to_read_once();
        let Some(message) = record.message() else {
            continue;
        };
        if message.sidechain || is_harness_text(message) {
            continue;
        }
        for part in &message.parts {
            let (text, json) = match part {
                Part::Text(text) | Part::Thinking(text) | Part::ToolResult { text, .. } => {
                    (text.as_str(), false)
                }
                Part::ToolCall { arguments, .. } => (arguments.as_ref(), true),
                _ => continue,
            };
            let weight = mention_weight(Writer::of(message.role, part), index, records.len());
            // A word right after a backslash is the rest of an escape in JSON arguments
            // (`\nPlease`): it is no name.
            let words = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .map(|w| w.trim_matches('.'));
            let mut mention = |name: &str| {
                if escaped(text, name) || (json && is_key(text, name)) {
                    return;
                }
                order += 1;
                let entry = match counts.get_mut(name) {
                    Some(entry) => entry,
                    None => counts.entry(name.to_owned()).or_insert((0, order, 0)),
                };
                entry.0 += 1;
                entry.2 += weight;
            };
            // A loop rather than `flat_map(code_names)`: this is the hot loop of a long
            // session, and most words are prose that fails the first test.
            for word in words {
                if is_code_name(word) {
                    mention(word);
                } else if word.contains('.') {
                    word.split('.')
                        .filter(|p| is_code_name(p))
                        .for_each(&mut mention);
                }
            }
        }
    }
    let mut ranked: Vec<(String, (usize, usize, u64))> = counts.into_iter().collect();
    ranked.sort_by_key(|&(_, (_, first, weight))| (std::cmp::Reverse(weight), first));
    let (twice, once): (Vec<_>, Vec<_>) = ranked.into_iter().partition(|(_, (n, _, _))| *n >= 2);
    let frequent: Vec<String> = twice
        .into_iter()
        .take(limit)
        .map(|(name, _)| name)
        .collect();
    let once = once_named(frequent.len(), once.into_iter().map(|(name, _)| name));
    (frequent, once)
}

/// True for text the harness wrote for its own model, not the work: system and developer
/// messages (a system prompt, tool lists, permissions) and instructions injected as user text
/// (`<environment_context>`, AGENTS.md, reminders). Their names (`request_user_input`,
/// `CODEX_HOME`) are the harness's, the same in every session.
fn is_harness_text(message: &Message) -> bool {
    match message.role {
        Role::System => true,
        Role::User => {
            let result = message
                .parts
                .iter()
                .any(|p| matches!(p, Part::ToolResult { .. }));
            let injected = message.parts.iter().any(|p| {
                matches!(p, Part::Text(t) if HARNESS_TEXT.iter().any(|h| t.trim_start().starts_with(h)))
            });
            !result
                && (injected || !is_real_user_request(message))
                && !is_compaction_summary(message)
        }
        _ => false,
    }
}

/// How many of the latest edits the touched names come from.
pub(super) const EDITS_TOUCHED: usize = 6;

/// The code names in an edit's texts (see [`edit_texts`]), new text first.
pub(super) fn edit_names(texts: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (n, text) in texts.iter().enumerate() {
        // The error messages the new code gives: what its user will see, and grep for.
        if n == 0 {
            for message in error_messages(text) {
                if !names.contains(&message) {
                    names.push(message);
                }
            }
        }
        for name in names_in(text) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// The first `count` distinct code names of a text, in the order it gives them (see
/// [`names_in`]): what a text named once, early or late, is about.
pub(super) fn first_names(text: &str, count: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in names_in(text) {
        if names.len() == count {
            break;
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The code names in a text, in order, repeats included: the words that are names and the names
/// in qualified words (see [`code_names`]). None right after a backslash: code quoted in code
/// keeps its escapes (`"…\\n\\nPlease"`).
pub(super) fn names_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !escaped(text, w))
        .flat_map(code_names)
}

/// The text an edit writes and the text it replaces, in that order: every string in the
/// arguments of an edit or write tool (JSON), or the `+` and `-` lines of a patch, except the
/// fields that only say where (paths, patterns, descriptions); none when its arguments do not
/// parse.
pub(super) fn edit_texts(arguments: &str, patch: bool) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    if patch {
        let (added, removed): (Vec<&str>, Vec<&str>) = arguments
            .lines()
            .filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("***"))
            .partition(|l| l.starts_with('+'));
        texts.push(added.join("\n"));
        texts.push(removed.join("\n"));
    } else if let Ok(value) = serde_json::from_str::<serde_json::Value>(arguments) {
        let (mut new, mut old) = (Vec::new(), Vec::new());
        edit_strings(&value, false, &mut new, &mut old);
        texts.push(new.join("\n"));
        texts.push(old.join("\n"));
    }
    texts
}

/// Calls whose first string argument is an error message, as code writes them in Go, Rust,
/// Python, JavaScript and Java.
const ERROR_CALLS: [&str; 9] = [
    "Errorf(",
    "errors.New(",
    "Error(",
    "Exception(",
    "panic!(",
    "bail!(",
    "anyhow!(",
    "eprintln!(",
    "Err(",
];

/// The messages of the error calls in a piece of code (see [`ERROR_CALLS`]), quoted, without
/// their format verbs (`"failed to open repository: %w"` is `"failed to open repository"`).
pub(super) fn error_messages(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for call in ERROR_CALLS {
        let mut rest = code;
        while let Some(at) = rest.find(call) {
            rest = &rest[at + call.len()..];
            let Some(quote) = rest
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\'' | '`'))
            else {
                continue;
            };
            let body = &rest[1..];
            let end = body.find(quote).unwrap_or(body.len());
            let message = body[..end]
                .split(['%', '{', '\\'])
                .next()
                .unwrap_or("")
                .trim_end_matches([':', ' ', ',', '.']);
            let words = message.split_whitespace().count();
            if words >= 2 && message.len() <= 80 && !message.contains(char::is_control) {
                let quoted = format!("\"{message}\"");
                if !found.contains(&quoted) {
                    found.push(quoted);
                }
            }
        }
    }
    found
}

/// Collects the strings of edit arguments: under a key naming replaced text into `old`, the
/// rest into `new`, skipping keys that locate rather than change.
fn edit_strings(
    value: &serde_json::Value,
    replaced: bool,
    new: &mut Vec<String>,
    old: &mut Vec<String>,
) {
    use serde_json::Value;
    match value {
        Value::String(s) if replaced => old.push(s.clone()),
        Value::String(s) => new.push(s.clone()),
        Value::Array(items) => items
            .iter()
            .for_each(|v| edit_strings(v, replaced, new, old)),
        Value::Object(map) => {
            for (key, v) in map {
                let lower = key.to_ascii_lowercase();
                let locates = lower.contains("path")
                    || lower.contains("file")
                    || matches!(lower.as_str(), "pattern" | "description" | "command");
                if !locates {
                    edit_strings(v, replaced || lower.starts_with("old"), new, old);
                }
            }
        }
        _ => {}
    }
}

/// True when `word` (a slice of `text`) directly follows a backslash.
fn escaped(text: &str, word: &str) -> bool {
    let start = word.as_ptr() as usize - text.as_ptr() as usize;
    text[..start].ends_with('\\')
}

/// True when `word` (a slice of JSON `text`) is a whole object key: a quote right before it,
/// a quote and a colon right after. A key quoted inside a string value has escaped quotes.
fn is_key(text: &str, word: &str) -> bool {
    let start = word.as_ptr() as usize - text.as_ptr() as usize;
    let after = &text[start + word.len()..];
    text[..start].ends_with('"')
        && after
            .strip_prefix('"')
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// The code names in a word: the word when it is one, else the parts of a qualified name
/// that are (`strategy.OpenRepository` is no file name, but `OpenRepository` is a name, and
/// `self.parse_line` holds `parse_line`). Go, Python and JavaScript write most calls and
/// fields qualified: without the parts, a name the code only ever calls as `pkg.Name` is
/// never counted.
fn code_names(word: &str) -> impl Iterator<Item = &str> {
    let whole = is_code_name(word);
    let parts = (!whole && word.contains('.')).then(|| word.split('.').filter(|p| is_code_name(p)));
    whole
        .then_some(word)
        .into_iter()
        .chain(parts.into_iter().flatten())
}

/// The endings of web host names that no file has: `github.com` in every Go import and
/// `entire.io` in a project's module path are addresses, and no next turn searches for them.
const HOST_ENDINGS: [&str; 4] = ["com", "org", "net", "io"];

/// True for a word that names something in code (see [`frequent_names`]). One pass over the
/// bytes: this runs on every word of a session.
pub(super) fn is_code_name(word: &str) -> bool {
    let bytes = word.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    if !(4..=60).contains(&bytes.len()) || !(first.is_ascii_alphabetic() || first == b'_') {
        return false;
    }
    let (mut lower, mut upper, mut inner_upper) = (0, 0, 0);
    let mut last_dot = None;
    // The first `_` after a byte that is not one, and the last byte that is not one: an inner
    // `_` is one with other bytes on both sides.
    let (mut underscore, mut last_other, mut seen_other) = (None, 0, false);
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b'a'..=b'z' => lower += 1,
            b'A'..=b'Z' => {
                upper += 1;
                inner_upper += usize::from(at > 0);
            }
            b'.' => last_dot = Some(at),
            _ => {}
        }
        if byte != b'_' {
            (seen_other, last_other) = (true, at);
        } else if seen_other && underscore.is_none() {
            underscore = Some(at);
        }
    }
    // A file name's extension is lower case: `time.Now`, `testing.T` and `errors.New` are
    // qualified code (see `code_names`), not files. A web host (`github.com`) is no file.
    if let Some(at) = last_dot {
        let (stem, extension) = (&word[..at], &word[at + 1..]);
        return !stem.is_empty()
            && (1..=5).contains(&extension.len())
            && extension.bytes().all(|b| b.is_ascii_lowercase())
            && !HOST_ENDINGS.contains(&extension)
            && !stem.ends_with('.');
    }
    let inner_underscore = underscore.is_some_and(|at| at < last_other);
    let snake = inner_underscore && lower > 0;
    // SCREAMING_CASE: a constant or an environment variable (`IPFS_LOCAL_API_URL`).
    let screaming = inner_underscore && lower == 0 && upper >= 3;
    let camel = first.is_ascii_lowercase() && inner_upper >= 1;
    let pascal = first.is_ascii_uppercase() && inner_upper >= 1 && lower >= 2;
    snake || screaming || camel || pascal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_are_identifiers_types_and_file_names_not_prose() {
        for name in [
            "parse_jsonl",
            "checkConcurrentSessions",
            "TodoItem",
            "CLAUDE.md",
            "_safe_set_output",
            "IPFS_LOCAL_API_URL",
            "__private_name",
            "SKILL.md",
        ] {
            assert!(is_code_name(name), "{name}");
        }
        for word in [
            "the",
            "Hello",
            "README",
            "v1.2.3",
            "1234",
            "a_b",
            "TypeScript.",
            "A_B",
            "testing.T",
            "time.Now",
            "github.com",
            "__init__",
            "_a_",
        ] {
            assert!(!is_code_name(word), "{word}");
        }
    }

    #[test]
    fn frequent_names_rank_by_recent_mentions_and_skip_escapes() {
        let text = |s: &str| {
            Record::new(
                0,
                b"",
                crate::transcript::Entry::Message(Message::new(
                    crate::transcript::Role::Assistant,
                    vec![Part::Text(s.to_owned().into())],
                )),
            )
        };
        let call = |arguments: &str| {
            Record::new(
                0,
                b"",
                crate::transcript::Entry::Message(Message::new(
                    crate::transcript::Role::Assistant,
                    vec![Part::ToolCall {
                        id: None,
                        name: "Edit".into(),
                        arguments: arguments.to_owned().into(),
                    }],
                )),
            )
        };
        let records = [
            text("fix parse_jsonl in reader.rs, then parse_jsonl again"),
            text("reader.rs calls parse_jsonl; TodoItem once"),
            // A qualified name counts by its name; `time.Now` is neither a file nor a name.
            text("strategy.OpenRepository then strategy.OpenRepository, time.Now time.Now"),
            text("{\"a\":\"x\\nPleaseNote\\nPleaseNote\"}"),
            // Argument keys are the tool's, not the code's; a value (or a key quoted in one)
            // is the code's.
            call(r#"{"file_path": "a.rs", "old_string": "load_config", "new_string": "x"}"#),
            call(r#"{"file_path":"b.rs","old_string":"y","new_string":"{\"load_config\":1}"}"#),
            // The harness's own text: a developer message, injected instructions.
            Record::new(
                0,
                b"",
                crate::transcript::Entry::Message(Message::new(
                    crate::transcript::Role::System,
                    vec![Part::Text("request_user_input request_user_input".into())],
                )),
            ),
            Record::new(
                0,
                b"",
                crate::transcript::Entry::Message(Message::new(
                    crate::transcript::Role::User,
                    vec![Part::Text(
                        "<environment_context>workspace_roots workspace_roots".into(),
                    )],
                )),
            ),
        ];
        // Two edits that write `load_config` outweigh every mention in the agent's words; two
        // later mentions of `OpenRepository` outweigh three earlier ones of `parse_jsonl`, and
        // those the two of `reader.rs`.
        assert_eq!(
            frequent_names(&records, 10),
            vec!["load_config", "OpenRepository", "parse_jsonl", "reader.rs"]
        );
    }

    #[test]
    fn edit_names_put_the_written_text_first() {
        let edit = r#"{"file_path":"src/very_long_path.rs","old_string":"fn old_helper() {}","new_string":"fn checkConcurrentSessions() { old_helper() }"}"#;
        assert_eq!(
            edit_names(&edit_texts(edit, false)),
            ["checkConcurrentSessions", "old_helper"]
        );
        let patch = "*** Begin Patch\n*** Update File: src/a_b.rs\n@@\n-let x = parse_line();\n+let x = parse_record();\n*** End Patch";
        assert_eq!(
            edit_names(&edit_texts(patch, true)),
            ["parse_record", "parse_line"]
        );
        let go = "return false, fmt.Errorf(\"failed to open repository: %w\", err)\nx := errors.New(\"bad\")";
        assert_eq!(error_messages(go), ["\"failed to open repository\""]);
    }
}
