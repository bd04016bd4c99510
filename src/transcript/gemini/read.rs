//! Reading Gemini CLI sessions in the JSONL layout. The legacy layout, one pretty-printed JSON
//! document per session, is not JSONL and is not read here.
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
use std::fmt;

use anyhow::{bail, Result};
use serde::de::{
    self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::Gemini;
use crate::transcript::blocks::borrowed_str;
use crate::transcript::blocks::{join_texts, LenientU64};
use crate::transcript::format::Format;
use crate::transcript::json::{str_at, str_field};
use crate::transcript::model::{
    node_id, Entry, Event, Link, MediaKind, Message, Part, Record, Role, Usage,
};

impl Format for Gemini {
    fn name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn detect(&self, head: &[Value]) -> bool {
        head.iter().any(|line| {
            let metadata = line.get("type").is_none()
                && line.get("payload").is_none()
                && ["sessionId", "projectHash", "startTime"]
                    .iter()
                    .all(|key| line.get(key).is_some());
            metadata || str_field(line, "type") == Some("gemini")
        })
    }

    /// The metadata line, a `$set` or `$rewindTo`, or a message record (typed, with an `id`
    /// and `content`, and no chat `role`).
    fn envelope(&self, line: &Value) -> bool {
        let kind = str_field(line, "type");
        let has = |key: &str| line.get(key).is_some();
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

/// A line, flattened: every field the record kinds read here use.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Line<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Parts<'a>,
    #[serde(borrow)]
    thoughts: Option<Vec<Thought<'a>>>,
    #[serde(rename = "toolCalls", borrow)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow)]
    tokens: Option<&'a RawValue>,
    #[serde(rename = "sessionId")]
    session_id: Option<IgnoredAny>,
    #[serde(rename = "$set", borrow)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: Option<&'a RawValue>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
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

/// A thought summary of a model turn.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Thought<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    subject: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    description: Option<Cow<'a, str>>,
}

/// A tool call of a model turn and its result.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    /// The parts sent back to the model; `null` when the call never ran.
    #[serde(borrow)]
    result: Parts<'a>,
}

/// A `PartListUnion`: a string, one part, or a list of parts and strings; `null` is none.
#[derive(Default)]
struct Parts<'a>(Vec<GeminiPart<'a>>);

/// A Gemini API part, flattened. A bare string in a part list is a `text` part.
#[derive(Deserialize, Default)]
#[serde(default)]
struct GeminiPart<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    text: Option<Cow<'a, str>>,
    /// True on a thought part, whose `text` is reasoning.
    #[serde(borrow)]
    thought: Option<&'a RawValue>,
    #[serde(rename = "inlineData", borrow)]
    inline_data: Option<Blob<'a>>,
    #[serde(rename = "fileData", borrow)]
    file_data: Option<Blob<'a>>,
    #[serde(rename = "functionCall", borrow)]
    function_call: Option<FunctionCall<'a>>,
    #[serde(rename = "functionResponse", borrow)]
    function_response: Option<FunctionResponse<'a>>,
}

/// Inline or file media; only the MIME type is read, the data is skipped.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Blob<'a> {
    #[serde(rename = "mimeType", borrow, deserialize_with = "borrowed_str")]
    mime_type: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FunctionCall<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FunctionResponse<'a> {
    /// The id of the call this answers.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    /// Any object; Gemini CLI's tools put their text in `output`.
    #[serde(borrow)]
    response: Option<&'a RawValue>,
}

/// The `output` of a function response, when it is a string.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ResponseOutput<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    output: Option<Cow<'a, str>>,
}

/// The token figures of a model turn.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Tokens {
    total: LenientU64,
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PartsVisitor)
    }
}

struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Parts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, a part or a list of parts")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Borrowed(v))]))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Owned(v.to_owned()))]))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Owned(v))]))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Parts::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Parts::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(PartOrText(part)) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Parts(parts))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(Parts(vec![GeminiPart::deserialize(
            MapAccessDeserializer::new(map),
        )?]))
    }
}

/// An element of a part list: a part object or a bare string.
struct PartOrText<'a>(GeminiPart<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for PartOrText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;

        impl<'de> Visitor<'de> for PartVisitor {
            type Value = PartOrText<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a part or a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Ok(PartOrText(GeminiPart::deserialize(
                    MapAccessDeserializer::new(map),
                )?))
            }
        }

        deserializer.deserialize_any(PartVisitor)
    }
}

impl<'a> GeminiPart<'a> {
    fn text(text: Cow<'a, str>) -> Self {
        GeminiPart {
            text: Some(text),
            ..GeminiPart::default()
        }
    }

    /// The model part this is. A part with none of the fields read here (`executableCode`,
    /// `videoMetadata`, an empty object …) is an unnamed [`Part::Other`].
    fn into_part(self) -> Part<'a> {
        if let Some(call) = self.function_call {
            return Part::ToolCall {
                id: call.id,
                name: call.name.unwrap_or_default(),
                arguments: raw_json(call.args),
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

/// The parts of a record's content, one per Gemini part.
fn content_parts(content: Parts<'_>) -> Vec<Part<'_>> {
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
            arguments: raw_json(call.args),
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

#[cfg(test)]
mod tests {

    use super::*;
    use crate::transcript::model::testing;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

    fn read(text: &str) -> Record<'_> {
        Gemini.read(1, text).unwrap()
    }

    fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
        &record.message().unwrap().parts
    }

    fn role(record: &Record<'_>) -> Role {
        record.message().unwrap().role
    }

    fn bookkeeping(record: &Record<'_>) -> String {
        match &record.entry {
            Entry::Bookkeeping(name) => name.to_string(),
            Entry::Message(_) => panic!("a message, not bookkeeping"),
        }
    }

    #[test]
    fn reads_user_records() {
        let record = read(
            r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Say hello."},{"inlineData":{"mimeType":"image/png","data":"AAA"}},{"fileData":{"mimeType":"application/pdf","fileUri":"f"}},"bare"]}"#,
        );
        assert_eq!(role(&record), Role::User);
        assert_eq!(
            parts(&record),
            [
                Part::Text("Say hello.".into()),
                Part::Media(MediaKind::Image),
                Part::Media(MediaKind::Document),
                Part::Text("bare".into()),
            ]
        );
        assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
        let string = read(r#"{"id":"u2","timestamp":"t","type":"user","content":"hi"}"#);
        assert_eq!(parts(&string), [Part::Text("hi".into())]);
        let one = read(r#"{"id":"u3","type":"user","content":{"text":"one part"}}"#);
        assert_eq!(parts(&one), [Part::Text("one part".into())]);
        let media = read(r#"{"type":"user","content":[{"inlineData":{"data":"AAA"}}]}"#);
        assert_eq!(parts(&media), [Part::Media(MediaKind::Image)]);
    }

    #[test]
    fn reads_function_responses_in_user_content() {
        let record = read(
            r#"{"type":"user","content":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a.txt"}}},{"functionResponse":{"name":"ls","response":{"error":"denied"}}}]}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::ToolResult {
                    call_id: Some("c".into()),
                    text: "a.txt".into()
                },
                Part::ToolResult {
                    call_id: None,
                    text: r#"{"error":"denied"}"#.into()
                },
            ]
        );
    }

    #[test]
    fn a_message_list_checkpoint_is_read_as_its_messages() {
        let text = r#"{"$set":{"messages":[{"id":"u1","type":"user","content":"first"},{"id":"g1","type":"gemini","content":"answer"}],"lastUpdated":"t"}}"#;
        let mut records = Vec::new();
        Gemini
            .read_each(7, text, &mut |record| records.push(record))
            .unwrap();
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].link.event, Event::Reset);
        assert_eq!(
            records[1].raw,
            br#"{"id":"u1","type":"user","content":"first"}"#
        );
        assert_eq!(role(&records[2]), Role::Assistant);
        assert!(records.iter().all(|r| r.line == 7));
        // In a session: the checkpoint replaces what came before, later messages follow it.
        let lines = [
            r#"{"sessionId":"s","projectHash":"p","startTime":"t"}"#,
            r#"{"id":"old","type":"user","content":"superseded"}"#,
            text,
            r#"{"id":"u2","type":"user","content":"second"}"#,
        ]
        .join("\n");
        let transcript = crate::transcript::load::Transcript::parse(
            "t",
            lines.as_bytes(),
            crate::transcript::load::LoadOptions::default(),
        )
        .unwrap();
        let texts: Vec<String> = transcript
            .context
            .iter()
            .filter_map(|r| r.message())
            .map(crate::transcript::classify::text_of)
            .collect();
        assert_eq!(texts, ["first", "answer", "second"]);
    }

    #[test]
    fn reads_model_turns() {
        let record = read(
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[{"subject":"Listing","description":"I will run ls.","timestamp":"t"}],"tokens":{"input":11855,"output":81,"cached":0,"thoughts":0,"tool":0,"total":11936},"model":"gemini-3-flash-preview","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls -F"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"README.md"}}}],"status":"success","resultDisplay":"README.md","displayName":"Shell"},{"id":"c2","name":"read_file","args":{"path":"x"},"result":null,"status":"cancelled"}]}"#,
        );
        assert_eq!(role(&record), Role::Assistant);
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("Listing\nI will run ls.".into()),
                Part::ToolCall {
                    id: Some("c1".into()),
                    name: "run_shell_command".into(),
                    arguments: r#"{"command":"ls -F"}"#.into()
                },
                Part::ToolResult {
                    call_id: Some("c1".into()),
                    text: "README.md".into()
                },
                Part::ToolCall {
                    id: Some("c2".into()),
                    name: "read_file".into(),
                    arguments: r#"{"path":"x"}"#.into()
                },
            ]
        );
        let message = record.message().unwrap();
        assert_eq!(message.call_ids().collect::<Vec<_>>(), ["c1", "c2"]);
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["c1"]);
        assert!(matches!(
            parts(&record)[1],
            Part::ToolCall {
                id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
        assert_eq!(
            record.usage,
            Some(Usage {
                context_tokens: 11936,
                response_key: None
            })
        );
        let text =
            read(r#"{"id":"g2","type":"gemini","content":"Hello!","thoughts":[],"tokens":null}"#);
        assert_eq!(parts(&text), [Part::Text("Hello!".into())]);
        assert!(text.usage.is_none());
    }

    #[test]
    fn tool_results_join_texts_and_keep_media() {
        let record = read(
            r#"{"type":"gemini","content":[{"text":"why","thought":true},{"text":"so"}],"toolCalls":[{"name":"shot","args":{},"result":[{"functionResponse":{"name":"shot","response":{"output":"taken"}}},{"inlineData":{"mimeType":"image/png","data":"AA"}},{"text":"note"}]}],"tokens":{"total":"x"}}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("why".into()),
                Part::Text("so".into()),
                Part::ToolCall {
                    id: None,
                    name: "shot".into(),
                    arguments: "{}".into()
                },
                Part::ToolResult {
                    call_id: None,
                    text: "taken\nnote".into()
                },
                Part::Media(MediaKind::Image),
            ]
        );
        assert!(record.usage.is_none());
        // A result without a response id answers its call's id; a response id wins.
        let ids = |line: &str| {
            read(line)
                .message()
                .unwrap()
                .answered_ids()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(
                r#"{"type":"gemini","content":"","toolCalls":[{"id":"c9","name":"shot","args":{},"result":[{"text":"plain"}]}]}"#
            ),
            ["c9"]
        );
        assert_eq!(
            ids(
                r#"{"type":"gemini","content":"","toolCalls":[{"id":"c9","name":"shot","args":{},"result":[{"text":"plain"},{"functionResponse":{"id":"r9","response":{}}}]}]}"#
            ),
            ["r9"]
        );
    }

    #[test]
    fn bookkeeping_lines() {
        for (line, name) in [
            (
                r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#,
                "metadata",
            ),
            (r#"{"$set":{"lastUpdated":"t"}}"#, "$set"),
            (
                r#"{"$set":{"messages":[{"id":"u","type":"user","content":"x"}]}}"#,
                "$set",
            ),
            (r#"{"$rewindTo":"g-user-1"}"#, "$rewindTo"),
            (
                r#"{"id":"i","timestamp":"t","type":"info","content":"Compressed."}"#,
                "gemini/info",
            ),
            (
                r#"{"id":"e","type":"error","content":"quota"}"#,
                "gemini/error",
            ),
            (
                r#"{"id":"w","type":"warning","content":"slow"}"#,
                "gemini/warning",
            ),
        ] {
            let record = read(line);
            assert_eq!(bookkeeping(&record), name);
            assert!(record.usage.is_none() && !record.compaction);
        }
    }

    #[test]
    fn errors_do_not_quote_the_line() {
        let untyped = Gemini.read(1, r#"{"content":"x"}"#).unwrap_err();
        assert!(untyped.to_string().starts_with("line has no \"type\""));
        let shape = Gemini
            .read(1, r#"{"type":"user","content":[{"text":["secret"]}]}"#)
            .unwrap_err()
            .to_string();
        assert!(!shape.contains("secret"), "{shape}");
        assert!(Gemini.read(1, r#"{"type":"user","content":7}"#).is_err());
        assert!(Gemini.read(1, "{\"type\":").is_err());
        // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
        // recognises on an unterminated last line.
        let cut = Gemini
            .read(1, r#"{"id":"g","type":"gemini","content":"Hel"#)
            .unwrap_err();
        assert!(cut
            .downcast_ref::<serde_json::Error>()
            .is_some_and(serde_json::Error::is_eof));
    }

    #[test]
    fn detection() {
        assert!(Gemini.detect(&head(&[
            r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#
        ])));
        assert!(Gemini.detect(&head(&[
            r#"{"$set":{"lastUpdated":"t"}}"#,
            r#"{"id":"g","type":"gemini","content":"hi"}"#,
        ])));
        assert!(!Gemini.detect(&head(&[
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","type":"user"}"#
        ])));
        assert!(!Gemini.detect(&head(&[r#"{"id":"u","type":"user","content":"hi"}"#])));
    }

    #[test]
    fn reads_the_gemini_corpus() {
        let lines = corpus("gemini-cli/agent-sessions-jsonl_v040.jsonl");
        let head = corpus_head(&lines);
        assert!(Gemini.detect(&head));
        let (records, (messages, compactions, usages)) = read_all(&Gemini, &lines);
        // Counted with jq:
        //   messages: jq -c 'select(.type=="user" or .type=="gemini")' FILE | wc -l   → 3
        //   compactions: none; Gemini CLI writes no marker                            → 0
        //   usages: jq -c 'select(.type=="gemini" and .tokens.total > 0)' FILE | wc -l → 2
        assert_eq!((messages, compactions, usages), (3, 0, 2));
        // Tool results (each toolCalls[] entry with a result, and each functionResponse part
        // of a user record), and those whose id no earlier call's id has:
        //   jq -n 'reduce inputs as $l ({seen: {}, results: 0, orphans: 0};
        //     if $l.type=="gemini" then reduce ($l.toolCalls // [] | .[]) as $c (.;
        //       (if $c.id then .seen[$c.id] = true else . end)
        //       | if ($c.result // [] | length) > 0 then .results += 1
        //         | (if .seen[[$c.result[]?.functionResponse?.id // empty][0] // $c.id // ""]
        //           then . else .orphans += 1 end) else . end)
        //     elif $l.type=="user" then reduce ($l.content | arrays | .[] | objects
        //       | select(.functionResponse)) as $r (.; .results += 1
        //       | (if .seen[$r.functionResponse.id // ""] then . else .orphans += 1 end))
        //     else . end) | [.results, .orphans]' FILE                          → [1, 0]
        let links = testing::links(records.iter().filter_map(Record::message));
        assert_eq!((links.results, links.orphans), (1, 0));
    }
}

/// What one message is in a Gemini CLI session: each turn is one message, a model turn holding
/// its calls' results (`toolCalls[].result`) as well ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::Gemini;
    use crate::transcript::messages::testing::check;

    fn user(n: usize, text: &str) -> String {
        format!(r#"{{"id":"m{n}","timestamp":"t","type":"user","content":[{{"text":"{text}"}}]}}"#)
    }

    /// A model turn with this text, these thoughts and these calls (each with its result).
    fn model(n: usize, text: &str, thoughts: usize, calls: &[&str]) -> String {
        let thoughts: Vec<String> = (0..thoughts)
            .map(|i| format!(r#"{{"subject":"s{i}","description":"d","timestamp":"t"}}"#))
            .collect();
        let calls: Vec<String> = calls
            .iter()
            .map(|id| {
                format!(
                    r#"{{"id":"{id}","name":"read_file","args":{{}},"result":[{{"functionResponse":{{"id":"{id}","name":"read_file","response":{{"output":"ok"}}}}}}],"status":"success"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"id":"m{n}","timestamp":"t","type":"gemini","content":"{text}","thoughts":[{}],"toolCalls":[{}]}}"#,
            thoughts.join(","),
            calls.join(",")
        )
    }

    #[test]
    fn a_turn_of_any_number_of_parts_is_one_message() {
        // 1: text; 2: a thought and text; 3: two thoughts and text; 5: two thoughts, text
        // and two calls.
        for (thoughts, calls) in [(0, 0), (1, 0), (2, 0), (2, 2)] {
            let ids = ["c1", "c2"];
            let lines = [
                user(0, "old question"),
                model(1, "old", 0, &[]),
                user(2, "the question"),
                model(3, "answer", thoughts, &ids[..calls]),
            ];
            check(&Gemini, &lines, &[0..1, 1..2, 2..3, 3..4]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_stay_in_their_turn() {
        let lines = [
            user(0, "read both"),
            model(1, "", 0, &["c1", "c2"]),
            model(2, "", 0, &["codebase_investigator"]),
            model(3, "done", 0, &[]),
        ];
        check(&Gemini, &lines, &[0..1, 1..2, 2..3, 3..4]);
    }
}
