//! Turning input lines into records: format detection, UTF-8 and JSON checks, and the
//! located, quote-free error for a bad line.
//!
//! Detection looks at the first [`DETECT_LINES`] non-blank lines, and refuses them when their
//! envelopes belong to different agents (`cat codex.jsonl gemini.jsonl`): read as one format,
//! the other's lines would silently count as nothing. Input that is not JSONL at all
//! (a JSON array, one pretty-printed document) is recognised here and named, because the JSON
//! error a line parser would give for it ("EOF while parsing") says nothing useful.

use anyhow::{anyhow, bail, Error, Result};
use serde::de::IgnoredAny;

use super::line_records::LineRecords;
use super::model::Record;
use super::registry::{detect, envelope, FormatId};
use super::sketch::Sketch;
use super::text::{holds_backslash_u, without_lone_surrogates};
use crate::input::Line;

/// How many non-blank lines detection looks at.
pub const DETECT_LINES: usize = 50;

/// Why a line could not be read.
#[derive(Debug)]
pub enum BadLine {
    /// The line is malformed; the error says how, without location.
    Invalid(Error),
    /// The input's last line is unterminated and its JSON stops early: a session still being
    /// written. Readers that only measure skip it with a warning.
    Incomplete,
}

/// Picks the format of an input from its first lines, or `None` for input with no non-blank
/// line (an empty transcript). `name` is the input's name, for messages.
pub fn detect_format<'a>(
    name: &str,
    lines: impl IntoIterator<Item = Line<'a>>,
) -> Result<Option<FormatId>> {
    let mut head = Vec::new();
    let mut numbers = Vec::new();
    let mut unreadable = None;
    let mut first = true;
    let mut lines = lines.into_iter().filter(|line| !line.is_blank()).peekable();
    while let Some(line) = lines.next() {
        if head.len() == DETECT_LINES {
            break;
        }
        let more_follow = lines.peek().is_some();
        if first {
            first = false;
            check_is_jsonl(name, &line, more_follow)?;
        }
        match std::str::from_utf8(line.text) {
            Ok(text) => match detection_sketch(text) {
                Ok(value) => {
                    head.push(value);
                    numbers.push(line.number);
                }
                Err(error) => {
                    unreadable.get_or_insert((line.number, describe(error.into())));
                }
            },
            Err(error) => {
                unreadable.get_or_insert((line.number, invalid_utf8(&error)));
            }
        }
    }
    if first {
        return Ok(None);
    }
    check_one_envelope(name, &head, &numbers)?;
    match (detect(&head), unreadable) {
        (Some(id), _) => Ok(Some(id)),
        // Say why a line was left out: a line serde_json cannot hold (a number such as 1e999)
        // is otherwise only "not recognised".
        (None, Some((number, error))) => {
            bail!(
                "{name}:{number}: {error:#}, and no other of the first lines tells which agent \
                 wrote this transcript; name the format with --from ({})",
                FormatId::names()
            )
        }
        (None, None) => bail!(
            "{name}: cannot tell which agent wrote this transcript from its first lines; \
             name the format with --from ({})",
            FormatId::names()
        ),
    }
}

/// Fails when two of the first lines carry different agents' envelopes.
fn check_one_envelope(name: &str, head: &[Sketch], numbers: &[usize]) -> Result<()> {
    let mut first: Option<(usize, FormatId)> = None;
    for (line, number) in head.iter().zip(numbers) {
        let Some(format) = envelope(line) else {
            continue;
        };
        match first {
            None => first = Some((*number, format)),
            Some((first_number, first_format)) if first_format != format => bail!(
                "{name}: line {first_number} is a {} line and line {number} a {} line: the input \
                 mixes transcript formats; name the one to read with --from",
                first_format.as_str(),
                format.as_str()
            ),
            Some(_) => {}
        }
    }
    Ok(())
}

/// A line as detection sees it (see [`Sketch`]): a lone surrogate escape reads as U+FFFD, as
/// when the line is read (see [`read_each_record`]), and a field serde_json cannot read (a
/// number such as `1e999` in the levels a sketch keeps) becomes null, so that the line's other
/// fields still identify the format. Deeper values are skipped unread, so a value nested
/// deeper than serde_json's recursion limit (a tool's JSON output can be) costs nothing.
fn detection_sketch(text: &str) -> Result<Sketch<'_>, serde_json::Error> {
    Sketch::of(text).or_else(|error| {
        let Some(copy) = without_lone_surrogates(text) else {
            return Sketch::of_fields(text).map_err(|_| error);
        };
        Sketch::of(&copy)
            .or_else(|_| Sketch::of_fields(&copy))
            .map(Sketch::into_owned)
            .map_err(|_| error)
    })
}

/// Recognises the two common non-JSONL inputs from the first non-blank line.
fn check_is_jsonl(name: &str, first: &Line, more_follow: bool) -> Result<()> {
    let text = first.text.trim_ascii_start();
    // A first line that is neither a JSON object nor text (an executable, an image, an archive
    // not named .gz or .zst) is not a transcript in any format: --from would not help.
    if !text.starts_with(b"{") {
        let binary = memchr::memchr(0, text)
            .or_else(|| std::str::from_utf8(text).err().map(|e| e.valid_up_to()));
        if let Some(at) = binary {
            bail!(
                "{name}:{}: not a transcript: the file holds binary data (byte {} is not text); \
                 condense reads JSON lines, and gzip or zstd files of them",
                first.number,
                at + 1
            );
        }
    }
    if text.starts_with(b"[") {
        if let Err(e) = serde_json::from_slice::<IgnoredAny>(first.text) {
            if e.is_eof() {
                bail!(
                    "{name}:{}: not JSONL: the input is one JSON array spread over many lines \
                     (like `llm logs --json`); turn it into one object per line with jq -c '.[]'",
                    first.number
                );
            }
        }
        bail!(
            "{name}:{}: not JSONL: the line is a JSON array, not one object per line; \
             turn it into one object per line with jq -c '.[]'",
            first.number
        );
    }
    if let Some(found) = std::str::from_utf8(text).ok().and_then(not_an_object) {
        bail!(
            "{name}:{}: expected a JSON object, found {found}",
            first.number
        );
    }
    if more_follow && text.starts_with(b"{") {
        if let Err(e) = serde_json::from_slice::<IgnoredAny>(first.text) {
            if e.is_eof() {
                bail!(
                    "{name}:{}: not JSONL: one JSON object spans many lines, as in a \
                     pretty-printed JSON document; condense reads one JSON object per line (and \
                     Gemini CLI's legacy session files)",
                    first.number
                );
            }
        }
    }
    Ok(())
}

/// Whether `bytes` may be one JSON document rather than JSON lines: the first non-blank line
/// opens an object that does not end on it, or it is the only non-blank line. Only then is the
/// whole input parsed as one document; a JSONL file pays for parsing its first line once.
pub fn may_be_document(bytes: &[u8]) -> bool {
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace));
    let Some(first) = lines.next() else {
        return false;
    };
    let first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    if !first.trim_ascii_start().starts_with(b"{") {
        return false;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(first) {
        Err(error) => error.is_eof(),
        Ok(_) => lines.next().is_none(),
    }
}

/// The JSON lines of `bytes` (named `name` in messages) when they are a session an agent stores
/// as one JSON document (see [`super::format::Format::document`]), with that agent; `None` for anything else,
/// JSONL above all, which is recognised from its first line.
pub fn document(name: &str, bytes: &[u8]) -> Option<anyhow::Result<(FormatId, Vec<u8>)>> {
    if !may_be_document(bytes) {
        return None;
    }
    FormatId::DETECTION_ORDER.into_iter().find_map(|id| {
        let lines = id.format().document(name, bytes)?;
        Some(lines.map(|lines| (id, lines)))
    })
}

/// The error for `--from FORMAT` on input with records but no message with content in that
/// format: the lines are some other agent's, and reading them as nothing would report 0 tokens.
pub fn no_message_error(name: &str, format: FormatId) -> Error {
    anyhow!(
        "{name}: no line is a {} message with content; is --from right? (without it the format \
         is detected)",
        format.as_str()
    )
}

/// Reads one non-blank line of a transcript in format `format` into its first record.
pub fn read_line<'a>(format: FormatId, line: &Line<'a>) -> Result<Record<'a>, BadLine> {
    read_records(format, line).map(|records| {
        records
            .into_iter()
            .next()
            .expect("a line read is at least one record")
    })
}

/// Reads one non-blank line of a transcript in format `format` into every record it holds
/// (see [`super::format::Format::read_each`]); never an empty list. Almost every line is one
/// record, held in place (see [`LineRecords`]).
pub fn read_records<'a>(format: FormatId, line: &Line<'a>) -> Result<LineRecords<'a>, BadLine> {
    let mut records = LineRecords::new();
    read_each_record(format, line, &mut |record| records.push(record))?;
    Ok(records)
}

/// [`read_records`], handing each record to `each` as it is read.
pub fn read_each_record<'a>(
    format: FormatId,
    line: &Line<'a>,
    each: &mut dyn FnMut(Record<'a>),
) -> Result<(), BadLine> {
    let text = object_text(line)?;
    let each = &mut |mut record: Record<'a>| {
        readable_arguments(&mut record);
        each(record)
    };
    let error = match format.format().read_each(line.number, text, each) {
        Ok(()) => return Ok(()),
        Err(error) => error,
    };
    // A lone surrogate escape, which serde_json refuses: read the line as the walk does, from a
    // copy with U+FFFD in its place, and keep the line's own bytes for writing it back.
    if let Some(copy) = without_lone_surrogates(text) {
        let mut records = Vec::new();
        if format
            .format()
            .read_each(line.number, &copy, &mut |record| records.push(record))
            .is_ok()
        {
            for record in records {
                let at = record.raw.as_ptr() as usize - copy.as_ptr() as usize;
                let raw = &text.as_bytes()[at..at + record.raw.len()];
                each(record.owned_as(raw));
            }
            return Ok(());
        }
    }
    Err(bad_line(format, line, text, error))
}

/// Tool-call arguments are JSON text, which readers of their own take apart (the commands and
/// paths `caveman` and `bare` find): a lone surrogate escape in them reads as U+FFFD, as in
/// the line around them, so that they read at all.
fn readable_arguments(record: &mut Record<'_>) {
    let super::Entry::Message(message) = &mut record.entry else {
        return;
    };
    for part in &mut message.parts {
        if let super::Part::ToolCall { arguments, .. } = part {
            // Cheap first: most arguments hold no escape of a surrogate at all. Arguments a
            // reader kept escaped are not decoded to find out: their text can only hold a `\u`
            // where their escaped body does (from a `\\` before a `u`, or a `\u` escape).
            let maybe = match arguments.escaped_body() {
                Some(body) => holds_backslash_u(body.as_bytes()),
                None => {
                    let bytes = arguments.as_bytes();
                    memchr::memmem::find(bytes, b"\\ud").is_some()
                        || memchr::memmem::find(bytes, b"\\uD").is_some()
                }
            };
            if let Some(fixed) = maybe.then(|| without_lone_surrogates(arguments)).flatten() {
                *arguments = fixed.into();
            }
        }
    }
}

/// A line's text, when it is UTF-8 and starts a JSON object.
fn object_text<'a>(line: &Line<'a>) -> Result<&'a str, BadLine> {
    let text = utf8(line.text)?;
    match not_an_object(text) {
        Some(found) => Err(BadLine::Invalid(anyhow!(
            "expected a JSON object, found {found}"
        ))),
        None => Ok(text),
    }
}

/// What is wrong with a line its format could not read: a last line cut off mid-write is
/// incomplete rather than invalid.
fn bad_line(format: FormatId, line: &Line<'_>, text: &str, error: Error) -> BadLine {
    let cut_off = line.is_unterminated()
        && error
            .downcast_ref::<serde_json::Error>()
            .is_some_and(serde_json::Error::is_eof);
    if cut_off {
        return BadLine::Incomplete;
    }
    let error = describe(error);
    // A line of another agent's format past the lines the format was told from fails with
    // that format's complaint (`line has no "type"`); say what the line is instead.
    let other = detection_sketch(text)
        .ok()
        .and_then(|value| detect(std::slice::from_ref(&value)))
        .filter(|&other| other != format);
    match other {
        Some(other) => BadLine::Invalid(anyhow!(
            "{error:#}: it reads as a line in the {} format, in a transcript the first lines \
             showed to be {}; the input mixes formats (split it, or leave such lines out with \
             --skip-invalid)",
            other.as_str(),
            format.as_str()
        )),
        None => BadLine::Invalid(error),
    }
}

/// A line as text. The check is SIMD-accelerated (lines run to megabytes of tool output, and a
/// plain check is a tenth of the time `estimate` takes); only a line that fails it is checked
/// again to say where.
fn utf8(bytes: &[u8]) -> Result<&str, BadLine> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text),
            Err(error) => Err(BadLine::Invalid(invalid_utf8(&error))),
        },
    }
}

/// The error for a line that is not UTF-8, naming the first bad byte.
fn invalid_utf8(error: &std::str::Utf8Error) -> Error {
    anyhow!(
        "invalid UTF-8 at byte {} of the line",
        error.valid_up_to() + 1
    )
}

/// What a line holds when it does not start a JSON object.
fn not_an_object(text: &str) -> Option<&'static str> {
    // Nearly every line starts with its brace: it need not be trimmed (a Unicode-aware trim,
    // at some thirty instructions a line).
    if text.starts_with('{') {
        return None;
    }
    let first = *text.trim_start().as_bytes().first()?;
    Some(match first {
        b'{' => return None,
        b'[' => "an array",
        b'"' => "a string",
        b'-' | b'0'..=b'9' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "text that is not JSON",
    })
}

/// Rewords serde_json's errors: "line 1" is meaningless for a single line, the column is not,
/// and a type error's quoted value is transcript text, which must not reach the terminal.
fn describe(error: Error) -> Error {
    let json = match error.downcast::<serde_json::Error>() {
        Ok(json) => json,
        Err(other) => return other,
    };
    let column = json.column();
    let text = json.to_string();
    let text = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(head, _)| head);
    if !json.is_data() {
        return anyhow!("invalid JSON at column {column}: {text}");
    }
    // serde puts the value before ", expected …"; keep only the expectation, which is ours.
    match text.rsplit_once(", expected ") {
        Some((_, expected)) => {
            anyhow!("unexpected JSON value at column {column} (expected {expected})")
        }
        None if text.starts_with("missing field") => anyhow!("{text}"),
        None => anyhow!("unexpected JSON value at column {column}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines;

    fn first_error(input: &[u8]) -> String {
        detect_format("t.jsonl", lines(input, 1))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn names_json_arrays_and_pretty_printed_documents() {
        assert!(first_error(b"[\n  {\"a\": 1}\n]\n").contains("JSON array"));
        assert!(first_error(b"[{\"a\": 1}]\n").contains("JSON array"));
        assert!(first_error(b"{\n  \"sessionId\": \"x\"\n}\n").contains("pretty-printed"));
    }

    #[test]
    fn lines_of_two_agents_are_refused_and_one_agent_with_bare_messages_is_not() {
        let codex = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message"}}"#;
        let gemini = r#"{"id":"g","timestamp":"t","type":"gemini","content":"hi"}"#;
        let mixed = format!("{codex}\n{codex}\n{gemini}\n");
        let error = first_error(mixed.as_bytes());
        assert!(
            error.contains("line 1 is a codex line and line 3 a gemini line"),
            "{error}"
        );
        assert!(error.contains("--from"));
        let bare = r#"{"role":"user","content":"a"}"#;
        let fine = format!("{gemini}\n{bare}\n");
        assert_eq!(
            detect_format("t", lines(fine.as_bytes(), 1)).unwrap(),
            Some(FormatId::Gemini)
        );
    }

    #[test]
    fn only_a_multi_line_object_or_a_lone_line_may_be_a_document() {
        assert!(may_be_document(b"{\n  \"sessionId\": \"s\"\n}\n"));
        assert!(may_be_document(
            b"\n{\"sessionId\":\"s\",\"messages\":[]}\n"
        ));
        assert!(!may_be_document(b"{\"a\":1}\n{\"b\":2}\n"));
        assert!(!may_be_document(b"[\n1]\n"));
        assert!(!may_be_document(b"\n \n"));
    }

    #[test]
    fn empty_input_has_no_format() {
        assert_eq!(detect_format("t", lines(b"\n  \n", 1)).unwrap(), None);
    }

    #[test]
    fn reports_non_objects_and_bad_utf8_without_quoting() {
        let read = |bytes: &'static [u8]| {
            let line = lines(bytes, 1).next().unwrap();
            match read_line(FormatId::Openai, &line) {
                Err(BadLine::Invalid(e)) => e.to_string(),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(read(b"[1,2]\n"), "expected a JSON object, found an array");
        assert_eq!(read(b"42\n"), "expected a JSON object, found a number");
        assert!(read(b"{\"role\":\"user\",\"content\":\"\xff\"}\n").contains("invalid UTF-8"));
        assert!(read(b"{\"role\": \n").starts_with("invalid JSON at column"));
    }

    #[test]
    fn a_lone_surrogate_reads_as_a_replacement_character_and_keeps_its_bytes() {
        // Gemini's `$set` carries a list of messages, each a record holding its own object.
        let bytes = br#"{"$set":{"messages":[{"id":"a","type":"user","content":"cut \ud83d"},{"id":"b","type":"gemini","content":"ok","toolCalls":[{"id":"c","name":"run","args":{"command":"ls\udc00"}}]}]}}"#;
        let line = lines(bytes, 1).next().unwrap();
        let records = read_records(FormatId::Gemini, &line).unwrap();
        let texts: Vec<String> = records
            .as_slice()
            .iter()
            .filter_map(|r| r.message())
            .map(|m| match &m.parts[0] {
                super::super::Part::Text(text) => text.to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(texts[0], "cut \u{FFFD}");
        // Each record's bytes are its own object's, as they stand in the line.
        let first = records
            .as_slice()
            .iter()
            .find(|r| r.message().is_some())
            .unwrap();
        assert_eq!(
            first.raw,
            br#"{"id":"a","type":"user","content":"cut \ud83d"}"#
        );
        // Tool-call arguments read as JSON.
        let calls: Vec<String> = records
            .as_slice()
            .iter()
            .filter_map(|r| r.message())
            .flat_map(|m| m.parts.iter())
            .filter_map(|p| match p {
                super::super::Part::ToolCall { arguments, .. } => Some(arguments.to_string()),
                _ => None,
            })
            .collect();
        let args: serde_json::Value = serde_json::from_str(&calls[0]).unwrap();
        assert_eq!(args["command"], "ls\u{FFFD}");
    }

    #[test]
    fn an_unterminated_cut_off_last_line_is_incomplete() {
        let line = lines(b"{\"role\":\"user\",\"con", 1).next().unwrap();
        assert!(matches!(
            read_line(FormatId::Openai, &line),
            Err(BadLine::Incomplete)
        ));
    }
}
