//! A line's shape, as read, into the model: its record, a response item's message and parts,
//! and the bookkeeping names of the rest.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::shape::{Compacted, ContentItem, Event, Item, Line, Payload, TokenInfo, ToolOutput};
use crate::transcript::blocks::{join_texts, StrOrSeq};
use crate::transcript::classify::is_injected;
use crate::transcript::model::{
    Entry, Event as LinkEvent, Keep, MediaKind, Message, Part, Record, Role, Usage,
};
use crate::transcript::text::Text;

/// The record of line number `line`, whose text is `text`, read into `read`.
pub(super) fn record_of<'a>(line: usize, text: &'a str, read: Line<'a>) -> Result<Record<'a>> {
    let raw = text.as_bytes();
    let Some(kind) = read.kind else {
        if let Some(record_type) = read.record_type {
            let name = named("record_type/", &record_type);
            return Ok(Record::new(line, raw, Entry::Bookkeeping(name)));
        }
        if read.has_id && read.has_instructions {
            return Ok(Record::new(
                line,
                raw,
                Entry::Bookkeeping("session_meta".into()),
            ));
        }
        bail!("line has no \"type\"");
    };
    let Some(payload) = read.payload else {
        bail!("{kind} line has no \"payload\"")
    };
    match payload {
        Payload::Item(item) => read_item(line, raw, *item),
        Payload::Event(event) => {
            let mut record = Record::new(line, raw, Entry::Bookkeeping(event_name(&event)));
            match event.kind.as_deref() {
                Some("token_count") => record.usage = token_usage(event.info),
                Some("thread_rolled_back") => {
                    let turns = event.num_turns.and_then(|raw| raw.parse::<u32>().ok());
                    record.link.event = LinkEvent::RollBack(turns.unwrap_or(0));
                }
                _ => {}
            }
            Ok(record)
        }
        Payload::Compacted(compacted) => {
            let replaces = compacted.replacement_history.is_some();
            let parts = compacted_parts(compacted);
            let mut record =
                Record::new(line, raw, Entry::Message(Message::new(Role::User, parts)));
            record.compaction = true;
            record.link.event = LinkEvent::Compaction(if replaces {
                Keep::Nothing
            } else {
                Keep::UserMessages
            });
            Ok(record)
        }
        Payload::Other => Ok(Record::new(line, raw, Entry::Bookkeeping(kind))),
    }
}

/// The response item types [`read_item`] reads as messages; any other type is bookkeeping.
const MESSAGE_ITEMS: [&str; 12] = [
    "message",
    "agent_message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
    "function_call_output",
    "custom_tool_call_output",
    "tool_search_output",
];

/// The bookkeeping record of a line [`record_of`] could not read because it is a response item
/// of a type not read here, whose fields may have any shape; `None` for every other line, whose
/// error stands. Only failed lines pay for this second look.
pub(super) fn unknown_item(line: usize, text: &str) -> Option<Record<'_>> {
    #[derive(Deserialize)]
    struct Loose<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        payload: Option<&'a RawValue>,
    }
    let envelope: Loose<'_> = serde_json::from_str(text).ok()?;
    let item: Loose<'_> = match envelope.payload {
        Some(payload) if envelope.kind.as_deref() == Some("response_item") => {
            serde_json::from_str(payload.get()).ok()?
        }
        Some(_) => return None,
        // A bare legacy item is its own payload.
        None => envelope,
    };
    let kind = item.kind?;
    if MESSAGE_ITEMS.contains(&kind.as_ref()) {
        return None;
    }
    let name = named("response_item/", &kind);
    Some(Record::new(line, text.as_bytes(), Entry::Bookkeeping(name)))
}

/// The record a response item (an envelope payload or a bare legacy line) is read into.
fn read_item<'a>(line: usize, raw: &'a [u8], item: Item<'a>) -> Result<Record<'a>> {
    let Some(kind) = item.kind else {
        bail!("response item has no \"type\"");
    };
    let assistant = |parts| Entry::Message(Message::new(Role::Assistant, parts));
    let entry = match kind.as_ref() {
        "message" => {
            let role = match item.role.as_deref() {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                Some("developer" | "system") => Role::System,
                // The value is not quoted: it is transcript text and may hold escape codes.
                Some(_) => {
                    bail!("message item has an unknown role (expected user, assistant, developer or system)")
                }
                None => bail!("message item has no \"role\""),
            };
            Entry::Message(Message::new(role, content_parts(item.content)))
        }
        "agent_message" => Entry::Message(Message::new(Role::User, content_parts(item.content))),
        "reasoning" => assistant(reasoning_parts(
            item.summary,
            item.content,
            item.encrypted_content.is_some(),
        )),
        "function_call" => assistant(vec![Part::ToolCall {
            id: item.call_id,
            name: item.name.unwrap_or_default(),
            arguments: json_text(item.arguments).into(),
        }]),
        "custom_tool_call" => assistant(vec![Part::ToolCall {
            id: item.call_id,
            name: item.name.unwrap_or_default(),
            arguments: json_text(item.input).into(),
        }]),
        "local_shell_call" => assistant(vec![tool_call(
            item.call_id.or(item.id),
            "local_shell",
            item.action,
        )]),
        // A web search has no output item, and no `call_id`.
        "web_search_call" => assistant(vec![tool_call(None, "web_search", item.action)]),
        "tool_search_call" => assistant(vec![Part::ToolCall {
            id: item.call_id,
            name: Cow::Borrowed("tool_search"),
            arguments: json_text(item.arguments).into(),
        }]),
        "image_generation_call" => assistant(vec![match item.result {
            Some(_) => Part::Media(MediaKind::Image),
            None => Part::Other(kind),
        }]),
        "function_call_output" | "custom_tool_call_output" => Entry::Message(Message::new(
            Role::Tool,
            output_parts(item.call_id, item.output),
        )),
        "tool_search_output" => Entry::Message(Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                call_id: item.call_id,
                text: item.tools.unwrap_or_default().into(),
            }],
        )),
        _ => Entry::Bookkeeping(named("response_item/", &kind)),
    };
    Ok(Record::new(line, raw, entry))
}

/// A tool call whose arguments are a raw JSON object (or `{}` when it is missing).
fn tool_call<'a>(
    id: Option<Cow<'a, str>>,
    name: &'static str,
    arguments: Option<&'a str>,
) -> Part<'a> {
    Part::ToolCall {
        id,
        name: Cow::Borrowed(name),
        arguments: arguments.unwrap_or("{}").into(),
    }
}

/// The parts of message content: text, images, other media; encrypted items hold nothing
/// readable and are left out.
fn content_parts<'a>(content: StrOrSeq<'a, ContentItem<'a>>) -> Vec<Part<'a>> {
    match content {
        StrOrSeq::Str(text) => vec![Part::Text(text)],
        StrOrSeq::Seq(items) => items.into_iter().filter_map(content_part).collect(),
    }
}

fn content_part(item: ContentItem<'_>) -> Option<Part<'_>> {
    let Some(kind) = item.kind else {
        // An untyped item with text is text; an untyped item without it says nothing.
        return item.text.map(Part::Text);
    };
    Some(match kind.as_ref() {
        "input_text" | "output_text" | "text" => Part::Text(item.text.unwrap_or_default()),
        "input_image" | "image" => Part::Media(MediaKind::Image),
        "input_audio" | "audio" => Part::Media(MediaKind::Audio),
        "input_file" | "file" => Part::Media(MediaKind::Document),
        "encrypted_content" => return None,
        _ => Part::Other(kind),
    })
}

/// Reasoning: one thinking part per summary and per content text. Reasoning that is only an
/// encrypted blob becomes one empty thinking part, as redacted thinking does elsewhere.
fn reasoning_parts<'a>(
    summary: StrOrSeq<'a, ContentItem<'a>>,
    content: StrOrSeq<'a, ContentItem<'a>>,
    encrypted: bool,
) -> Vec<Part<'a>> {
    let mut parts = Vec::new();
    for texts in [summary, content] {
        match texts {
            StrOrSeq::Str(text) => parts.push(Part::Thinking(text)),
            StrOrSeq::Seq(items) => parts.extend(
                items
                    .into_iter()
                    .filter_map(|item| item.text.map(Part::Thinking)),
            ),
        }
    }
    if parts.is_empty() && encrypted {
        parts.push(Part::Thinking(Cow::Borrowed("").into()));
    }
    parts
}

/// A tool output: one tool result answering `call_id`, with the text items joined by newlines,
/// then any images.
fn output_parts<'a>(call_id: Option<Cow<'a, str>>, output: ToolOutput<'a>) -> Vec<Part<'a>> {
    let mut extras = Vec::new();
    let text = match output {
        ToolOutput::Absent => Text::default(),
        ToolOutput::Text(text) => text,
        ToolOutput::Items(items) => {
            let mut texts: Vec<Text> = Vec::new();
            for item in items {
                match content_part(item) {
                    Some(Part::Text(text)) => texts.push(text),
                    Some(other) => extras.push(other),
                    None => {}
                }
            }
            join_texts(texts)
        }
    };
    let mut parts = Vec::with_capacity(1 + extras.len());
    parts.push(Part::ToolResult { call_id, text });
    parts.extend(extras);
    parts
}

/// The text of a JSON value that may be a string (tool-call arguments are a JSON string
/// holding JSON; a custom tool's input is free text): the string's contents, borrowed when it
/// has no escapes; any other value as its JSON text; empty when absent or `null`.
fn json_text(raw: Option<&str>) -> Cow<'_, str> {
    let Some(json) = raw else {
        return Cow::Borrowed("");
    };
    if !json.starts_with('"') {
        return Cow::Borrowed(if json == "null" { "" } else { json });
    }
    match serde_json::from_str::<&str>(json) {
        Ok(text) => Cow::Borrowed(text),
        // A string with escapes cannot be borrowed and is decoded into a copy. That only fails
        // on an escape serde_json refuses (a lone surrogate); the JSON text is then the best
        // account of the value, and a tool call is never worth failing the line over.
        Err(_) => serde_json::from_str::<String>(json).map_or(Cow::Borrowed(json), Cow::Owned),
    }
}

/// A bookkeeping name, `prefix` then `kind`: most lines are bookkeeping, and `format!` took
/// several times as long to join the two.
fn named(prefix: &str, kind: &str) -> Cow<'static, str> {
    let mut name = String::with_capacity(prefix.len() + kind.len());
    name.push_str(prefix);
    name.push_str(kind);
    Cow::Owned(name)
}

/// `event_msg/<type>`, or `event_msg` for an event without a type.
fn event_name<'a>(event: &Event<'a>) -> Cow<'a, str> {
    match &event.kind {
        Some(kind) => named("event_msg/", kind),
        None => Cow::Borrowed("event_msg"),
    }
}

/// The context size a `token_count` event reports: the last call's total tokens. `info` is
/// `null` before the first call; a total of zero is a placeholder no real call reports (a
/// context always holds at least the instructions), so it is not a size either.
fn token_usage(info: Option<&str>) -> Option<Usage> {
    let info: TokenInfo = serde_json::from_str(info?).ok()?;
    let context_tokens = info
        .last_token_usage?
        .total_tokens
        .0
        .filter(|&total| total > 0)?;
    Some(Usage {
        context_tokens,
        response_key: None,
    })
}

/// The item types of an opaque summary in a replacement history: the encrypted item a remote
/// compaction leaves (`compaction`, its alias `compaction_summary`, and `context_compaction`).
pub(super) const OPAQUE_SUMMARIES: [&str; 3] =
    ["compaction", "compaction_summary", "context_compaction"];

/// What the model sees after a compaction: the replacement history's conversation (its user
/// and assistant message texts and images), with the summary first unless the history already
/// carries it. Developer and system messages are Codex's instructions, which a remote
/// compaction's history opens with (`replacement_history` is the next context item for item);
/// they are neither conversation nor summary. After a remote compaction (an encrypted summary
/// and no readable one) the contextual user messages Codex re-injects before the last request
/// (`<environment_context>` …) are left out too: only the requests a person typed remain.
fn compacted_parts(compacted: Compacted<'_>) -> Vec<Part<'_>> {
    let history = compacted.replacement_history.unwrap_or_default();
    let readable = compacted.message.as_deref().is_some_and(|m| !m.is_empty());
    let remote = !readable
        && history.iter().any(|item| {
            item.encrypted_content.is_some()
                && item
                    .kind
                    .as_deref()
                    .is_some_and(|kind| OPAQUE_SUMMARIES.contains(&kind))
        });
    let mut parts = Vec::new();
    for item in history {
        // Only messages carry what the model reads as the new context; `compaction` blobs are
        // opaque and `ghost_snapshot`s are never sent.
        if !matches!(item.kind.as_deref(), Some("message" | "agent_message")) {
            continue;
        }
        if matches!(item.role.as_deref(), Some("developer" | "system")) {
            continue;
        }
        let start = parts.len();
        // `content_parts`, without a vector of its own for each item.
        match item.content {
            StrOrSeq::Str(text) => parts.push(Part::Text(text)),
            StrOrSeq::Seq(items) => parts.extend(
                items
                    .into_iter()
                    .filter_map(content_part)
                    .filter(|part| matches!(part, Part::Text(_) | Part::Media(_))),
            ),
        }
        let injected = parts[start..].iter().find_map(|part| match part {
            Part::Text(text) if !text.trim().is_empty() => Some(is_injected(text)),
            _ => None,
        });
        if remote && injected == Some(true) {
            parts.truncate(start);
        }
    }
    if let Some(summary) = compacted.message.filter(|message| !message.is_empty()) {
        let repeated = parts
            .iter()
            .any(|part| matches!(part, Part::Text(text) if **text == *summary));
        if !repeated {
            parts.insert(0, Part::Text(summary.into()));
        }
    }
    parts
}
