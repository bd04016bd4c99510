//! Reading Gemini CLI sessions in the JSONL layout. The legacy layout, one pretty-printed JSON
//! document per session, is read as the JSONL it converts to (`gemini/legacy.rs`).
//!
//! Lines:
//!
//! - the metadata line `{sessionId, projectHash, startTime, …}` (no `type`): bookkeeping
//!   `metadata`;
//! - `{"$set": …}` metadata updates and `{"$rewindTo": <id>}` rewinds: bookkeeping `$set` and
//!   `$rewindTo`. Gemini CLI applies them when it loads a session; this reader keeps every line
//!   as written;
//! - message records `{id, timestamp, type, content, …}`:
//!   - `user`: content is a string or a list of Gemini API parts: `text` (or a `thought` part:
//!     thinking), `inlineData` / `fileData` (media, by MIME type; image when it has none),
//!     `functionCall` (a tool call, with its `id`), `functionResponse` (a tool result answering
//!     its `id`: `response.output` when it is a string, else the response's JSON);
//!   - `gemini`: the model's turn: each of `thoughts[]` as thinking (`subject`, a newline,
//!     `description`), then `content` (an empty string is no part), then for each of
//!     `toolCalls[]` the call (its `id`; arguments: the JSON of `args`) followed by its result
//!     parts read like `functionResponse` parts, joined into one tool result that answers the
//!     first `functionResponse` id, or the call's `id` when no response has one.
//!     `tokens.total` is the context size after the turn;
//!   - `info`, `error`, `warning` (UI notices the model never sees) and unknown types:
//!     bookkeeping `gemini/<type>`.
//!
//! Gemini CLI writes no compaction marker: its chat compression exists only in memory.
//!
//! Speed: every record shares one flat shape, so one derived struct reads a line in one pass;
//! `resultDisplay`, `displayContent` and media data are skipped unread.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::Gemini;
use crate::transcript::blocks::{join_texts, LenientU64};
use crate::transcript::format::Format;
use crate::transcript::json::str_at;
use crate::transcript::sketch::Sketch;
mod line;
#[cfg(test)]
mod tests;

use crate::transcript::model::{
    node_id, Entry, Event, Link, MediaKind, Message, Part, Record, Role, Usage,
};
pub(crate) use line::Parts;
use line::{GeminiPart, Line, ResponseOutput, Thought, Tokens, ToolCall};

impl Format for Gemini {
    fn name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(|line| {
            let metadata = !line.has("type")
                && !line.has("payload")
                && ["sessionId", "projectHash", "startTime"]
                    .iter()
                    .all(|key| line.has(key));
            metadata || line.str("type") == Some("gemini")
        })
    }

    /// The metadata line, a `$set` or `$rewindTo`, or a message record (typed, with an `id`
    /// and `content`, and no chat `role`).
    fn envelope(&self, line: &Sketch) -> bool {
        let kind = line.str("type");
        let has = |key: &str| line.has(key);
        has("$set")
            || has("$rewindTo")
            || (kind.is_none()
                && ["sessionId", "projectHash", "startTime"]
                    .iter()
                    .all(|k| has(k)))
            || (matches!(kind, Some("gemini" | "user" | "info" | "error" | "warning"))
                && has("id")
                && has("content")
                && !has("role"))
    }

    /// The legacy session file, one JSON document (`gemini/legacy.rs`).
    fn document(&self, name: &str, bytes: &[u8]) -> Option<Result<Vec<u8>>> {
        super::legacy::to_jsonl(name, bytes)
    }

    /// A legacy session is written back into `<same name>.jsonl`, where Gemini CLI moves it.
    fn document_import(&self, path: &std::path::Path) -> Option<std::path::PathBuf> {
        Some(super::legacy::import_path(path))
    }

    /// The import's metadata line says it was updated now (`legacy::touched`).
    fn import_lines(&self, lines: &[u8], now_ms: u64) -> Vec<u8> {
        super::legacy::touched(lines, now_ms)
    }

    /// Message records are indexed by `id`: a later record with an id replaces the earlier.
    fn has_ids(&self) -> bool {
        true
    }

    /// A model turn's `model`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("gemini") {
            return None;
        }
        str_at(raw, &["model"])
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let record: Line<'a> = serde_json::from_str(text)?;
        let link = record_link(&record);
        let mut read = read_record(line, text, record)?;
        read.link = link;
        Ok(read)
    }

    /// A `$set` line carrying `messages` (Gemini CLI writes one as a checkpoint when it resumes
    /// a session) starts the message list anew with those messages: the line is its own
    /// record, then each message is a record of its own, holding its object's bytes.
    fn read_each<'a>(
        &self,
        line: usize,
        text: &'a str,
        each: &mut dyn FnMut(Record<'a>),
    ) -> Result<()> {
        let first = self.read(line, text)?;
        if first.link.event != Event::Reset {
            each(first);
            return Ok(());
        }
        #[derive(Deserialize)]
        struct Line<'a> {
            #[serde(rename = "$set", borrow)]
            set: Set<'a>,
        }
        #[derive(Deserialize)]
        struct Set<'a> {
            #[serde(borrow)]
            messages: Vec<&'a RawValue>,
        }
        let set: Line<'a> = serde_json::from_str(text)?;
        let mut records = vec![first];
        for message in set.set.messages {
            let inner = message.get();
            if inner.starts_with('{') {
                records.push(self.read(line, inner)?);
            }
        }
        // Handed out once all are read: a message that fails fails the whole line.
        records.into_iter().for_each(each);
        Ok(())
    }
}

/// The record of a line, without its link.
fn read_record<'a>(line: usize, text: &'a str, record: Line<'a>) -> Result<Record<'a>> {
    let raw = text.as_bytes();
    let Some(kind) = record.kind else {
        let name = if record.set.is_some() {
            "$set"
        } else if record.rewind_to.is_some() {
            "$rewindTo"
        } else if record.session_id.is_some() {
            "metadata"
        } else {
            bail!("line has no \"type\" and is not a metadata, \"$set\" or \"$rewindTo\" line");
        };
        return Ok(Record::new(
            line,
            raw,
            Entry::Bookkeeping(Cow::Borrowed(name)),
        ));
    };
    let (role, parts) = match kind.as_ref() {
        "user" => (Role::User, content_parts(record.content)),
        "gemini" => (
            Role::Assistant,
            model_parts(record.content, record.thoughts, record.tool_calls),
        ),
        _ => {
            let name = Cow::Owned(format!("gemini/{kind}"));
            return Ok(Record::new(line, raw, Entry::Bookkeeping(name)));
        }
    };
    let mut message = Record::new(line, raw, Entry::Message(Message::new(role, parts)));
    if role == Role::Assistant {
        message.usage = record.tokens.and_then(context_size);
    }
    Ok(message)
}

/// A record's effect on the message list Gemini CLI rebuilds when it loads a session
/// (`loadConversationRecord`): a record with a string `id` is a message, which replaces an
/// earlier one with the same id in place; `$rewindTo` drops the message it names and all after
/// it (all of them when the id is unknown); `$set` with a `messages` list starts the list anew
/// (with the messages it carries, read as records of their own by [`Gemini::read_each`]).
fn record_link(record: &Line<'_>) -> Link {
    let string = |raw: Option<&RawValue>| {
        raw.and_then(|raw| serde_json::from_str::<Cow<str>>(raw.get()).ok())
    };
    if let Some(target) = string(record.rewind_to) {
        return Link {
            event: Event::RewindTo(node_id(&target)),
            ..Link::default()
        };
    }
    if let Some(id) = string(record.id) {
        return Link {
            id: Some(node_id(&id)),
            ..Link::default()
        };
    }
    #[derive(Deserialize)]
    struct Set {
        #[serde(default)]
        messages: Option<Vec<IgnoredAny>>,
        #[serde(rename = "condensePrune", default)]
        prune: Option<Prune>,
    }
    #[derive(Deserialize)]
    struct Prune {
        #[serde(rename = "tokensAfter", default)]
        tokens_after: LenientU64,
    }
    let set = record
        .set
        .and_then(|raw| serde_json::from_str::<Set>(raw.get()).ok());
    let event = match set {
        Some(Set {
            messages: Some(_), ..
        }) => Event::Reset,
        Some(Set {
            prune: Some(prune), ..
        }) => Event::VoidUsage(prune.tokens_after.0),
        _ => Event::None,
    };
    Link {
        event,
        ..Link::default()
    }
}

impl<'a> GeminiPart<'a> {
    /// The model part this is. A part with none of the fields read here (`executableCode`,
    /// `videoMetadata`, an empty object …) is an unnamed [`Part::Other`].
    fn into_part(self) -> Part<'a> {
        if let Some(call) = self.function_call {
            return Part::ToolCall {
                id: call.id,
                name: call.name.unwrap_or_default(),
                arguments: raw_json(call.args).into(),
            };
        }
        if let Some(response) = self.function_response {
            return Part::ToolResult {
                call_id: response.id,
                text: response_text(response.response).into(),
            };
        }
        if let Some(blob) = self.inline_data.or(self.file_data) {
            return Part::Media(media_kind(blob.mime_type.as_deref()));
        }
        match self.text {
            Some(text) if self.thought.is_some_and(|raw| raw.get() == "true") => {
                Part::Thinking(text.into())
            }
            Some(text) => Part::Text(text.into()),
            None => Part::Other(Cow::Borrowed("part")),
        }
    }
}

/// The parts of a record's content, one per Gemini part (Qwen Code's message parts too).
pub(crate) fn content_parts(content: Parts<'_>) -> Vec<Part<'_>> {
    content.0.into_iter().map(GeminiPart::into_part).collect()
}

/// A model turn: thoughts, then content, then each tool call followed by its result.
fn model_parts<'a>(
    content: Parts<'a>,
    thoughts: Option<Vec<Thought<'a>>>,
    tool_calls: Option<Vec<ToolCall<'a>>>,
) -> Vec<Part<'a>> {
    let mut parts: Vec<Part<'a>> = thoughts
        .into_iter()
        .flatten()
        .map(|thought| Part::Thinking(thought_text(thought).into()))
        .collect();
    parts.extend(
        content_parts(content)
            .into_iter()
            // A turn that only calls tools stores `"content": ""`, which is no text at all.
            .filter(|part| !matches!(part, Part::Text(text) if text.is_empty())),
    );
    for call in tool_calls.into_iter().flatten() {
        parts.push(Part::ToolCall {
            id: call.id.clone(),
            name: call.name.unwrap_or_default(),
            arguments: raw_json(call.args).into(),
        });
        if call.result.0.is_empty() {
            continue;
        }
        let mut response_id = None;
        let mut texts: Vec<Cow<str>> = Vec::new();
        let mut extras = Vec::new();
        for part in call.result.0 {
            match part.into_part() {
                Part::ToolResult { call_id, text } => {
                    response_id = response_id.or(call_id);
                    texts.push(text.into());
                }
                Part::Text(text) => texts.push(text.into()),
                other => extras.push(other),
            }
        }
        parts.push(Part::ToolResult {
            call_id: response_id.or(call.id),
            text: join_texts(texts),
        });
        parts.extend(extras);
    }
    parts
}

/// `subject`, a newline, `description`; either alone when the other is missing or empty.
fn thought_text(thought: Thought<'_>) -> Cow<'_, str> {
    let subject = thought.subject.filter(|s| !s.is_empty());
    let description = thought.description.filter(|d| !d.is_empty());
    match (subject, description) {
        (Some(subject), Some(description)) => Cow::Owned(format!("{subject}\n{description}")),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => Cow::Borrowed(""),
    }
}

/// A function response's text: its `output` string, else the whole response as JSON.
fn response_text(response: Option<&RawValue>) -> Cow<'_, str> {
    let Some(raw) = response else {
        return Cow::Borrowed("");
    };
    let output = serde_json::from_str::<ResponseOutput<'_>>(raw.get())
        .ok()
        .and_then(|response| response.output);
    output.unwrap_or(Cow::Borrowed(raw.get()))
}

/// Arguments as JSON text; `{}` when absent.
fn raw_json(raw: Option<&RawValue>) -> Cow<'_, str> {
    raw.map_or(Cow::Borrowed("{}"), |raw| Cow::Borrowed(raw.get()))
}

/// The media kind of a MIME type; an image when unknown, the common case in Gemini CLI.
fn media_kind(mime_type: Option<&str>) -> MediaKind {
    let mime_type = mime_type.unwrap_or_default();
    if mime_type.starts_with("audio/") {
        MediaKind::Audio
    } else if mime_type.starts_with("video/") {
        MediaKind::Video
    } else if mime_type.starts_with("application/") || mime_type.starts_with("text/") {
        MediaKind::Document
    } else {
        MediaKind::Image
    }
}

/// The context size a model turn's `tokens` report: `total`, when it is a positive number.
fn context_size(raw: &RawValue) -> Option<Usage> {
    let tokens: Tokens = serde_json::from_str(raw.get()).ok()?;
    let context_tokens = tokens.total.0.filter(|&total| total > 0)?;
    Some(Usage {
        context_tokens,
        response_key: None,
    })
}
