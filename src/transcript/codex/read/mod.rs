//! Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), in the current
//! envelope layout and the legacy bare layout.
//!
//! Current layout: every line is `{"timestamp", ["ordinal",] "type", "payload"}`.
//!
//! - `response_item` payloads are what the model saw (Responses API items) and become messages:
//!   `message` (role `user`, `assistant`, or `developer`/`system` → [`Role::System`]),
//!   `reasoning` (thinking), `function_call` / `custom_tool_call` / `local_shell_call` (tool
//!   calls), `function_call_output` / `custom_tool_call_output` (tool results). A call's id is
//!   its `call_id` (a `local_shell_call` without one falls back to its `id`, as Codex does); an
//!   output's `call_id` names the call it answers and goes on its [`Part::ToolResult`], not on
//!   the message.
//! - Hosted tools are messages too, because their items are replayed to the model and fill its
//!   context: `web_search_call` and `tool_search_call` are assistant tool calls (named
//!   `web_search`, `tool_search`; only the latter has a `call_id`), `tool_search_output` a tool
//!   result holding the tool list found (answering its `call_id`), and `image_generation_call`
//!   an assistant image.
//! - `agent_message` (a multi-agent message from another agent, written as `input_text`) is a
//!   user message: it is input this agent receives.
//! - `ghost_snapshot` (undo bookkeeping, never sent to the model), `compaction` /
//!   `compaction_summary` (an opaque server-side compaction blob) and types this reader does
//!   not know are bookkeeping named `response_item/<type>`.
//! - `event_msg` lines are UI and telemetry events; many repeat a `response_item`, so they are
//!   never messages. They are bookkeeping named `event_msg/<type>`; a `token_count` event with
//!   `info` carries the context size (`info.last_token_usage.total_tokens`).
//! - `compacted` is Codex's own compaction marker ([`Record::compaction`]). It is read as the
//!   user message the model continues from: the texts (and images) of the `replacement_history`
//!   messages, and the summary in `message` unless that history already holds it. Codex resumes
//!   from `replacement_history` alone when present, and newer builds put the summary in it as a
//!   user message, so adding `message` as well would count the summary twice.
//! - `session_meta`, `turn_context`, `world_state` and every other type are bookkeeping named
//!   by their type.
//!
//! Legacy layout (until about September 2025): the first line is `{"id", "timestamp",
//! "instructions"}` (bookkeeping `session_meta`), `{"record_type": …}` lines are bookkeeping
//! (`record_type/<value>`), and every other line is a bare response item, read like a
//! `response_item` payload.
//!
//! Speed: a line is walked with [`crate::transcript::scan`] (`walk`), which passes over skipped payloads and
//! blobs from delimiter to delimiter and keeps message texts escaped ([`Text`]); serde reads it
//! when the walk gives up. Both read the envelope the same way: once `type` has been seen,
//! `payload` is read straight into the struct for that type, so a line is read once. Only when
//! `payload` comes before `type` is it kept (raw, or as where it starts) and read afterwards.
//!
//! Writing back (`inject`), as Codex's local compaction records itself. A rollout is
//! append-only and Codex resumes from the newest `compacted` line that has a
//! `replacement_history`, then replays the response items after it (see [`crate::transcript::live`]), so
//! every line stays as it was, followed by:
//!
//! - `{"timestamp","type":"compacted","payload":{"message","replacement_history"}}`, where
//!   `message` is Codex's [`SUMMARY_PREFIX`], a newline and the summary (the form Codex's
//!   `is_summary_message` recognises), and `replacement_history` is what Codex's own
//!   `build_compacted_history` keeps: the user's own recent messages (newest first within
//!   20,000 tokens of four bytes, the one crossing the budget cut, earlier summaries and the
//!   injected environment and instructions left out, since Codex sends those anew), or in user
//!   mode the kept user messages; then the summary as a user message;
//! - `{"timestamp","type":"event_msg","payload":{"type":"context_compacted"}}`;
//! - the kept tail's `response_item` lines again, byte for byte, which Codex replays after the
//!   marker (the tail's events, token counts measured before the compaction among them, are
//!   not repeated).
//!
//! The new lines take the timestamp of the file's last line that has one. The legacy bare
//! layout has no compaction marker, so such a rollout is rewritten as a fresh one: its header
//! and `record_type` lines, the same replacement history as bare `message` lines, then the
//! tail.

use std::borrow::Cow;
use std::fmt;

use anyhow::{bail, Result};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::transcript::blocks::{borrowed_str, borrowed_text, join_texts, raw_json, BorrowedStr};
use crate::transcript::blocks::{LenientU64, StrOrSeq};
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::model::Event as LinkEvent;
use crate::transcript::text::Text;
use crate::transcript::write::Compacted as Compaction;
use crate::transcript::write::{push_kept, push_line, top_level_str, top_level_value, Sink};
use crate::transcript::{
    str_field, Entry, Format, Keep, MediaKind, Message, Part, Record, Role, Usage,
};

mod walk;

/// The Codex CLI rollout format.
pub struct Codex;

impl Format for Codex {
    fn detect(&self, head: &[Value]) -> bool {
        let legacy_header = head.first().is_some_and(|first| {
            first.get("type").is_none()
                && ["id", "timestamp", "instructions"]
                    .iter()
                    .all(|key| first.get(key).is_some())
        });
        legacy_header
            || head.iter().any(|line| {
                is_session_meta(line) || str_field(line, "record_type") == Some("state")
            })
    }

    /// As Codex's own local compaction records itself (see the module docs): every line stays,
    /// then a `compacted` line whose `replacement_history` is the user's recent messages (or,
    /// in user mode, the kept ones) and the summary, a `context_compacted` event, and the kept
    /// tail's response items again, which Codex replays after the marker. A legacy bare
    /// rollout has no marker and is written anew instead.
    fn write_compacted(&self, compacted: &Compaction, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let envelope = records.iter().any(|record| is_envelope_line(record.raw));
        let message = format!("{SUMMARY_PREFIX}\n{}", compacted.summary);
        let recent = if compacted.kept_user_texts.is_empty() {
            recent_user_messages(records, &compacted.summarised)
        } else {
            compacted.kept_user_texts.clone()
        };
        let mut history: Vec<UserItem> = recent.iter().map(|text| UserItem::new(text)).collect();
        history.push(UserItem::new(&message));

        if !envelope {
            // A bare rollout has no compaction marker: it is rewritten as a fresh one, its
            // header and `record_type` lines first, the new history as its first items.
            let header: Vec<usize> = (0..records.len())
                .filter(|&index| {
                    matches!(&records[index].entry, Entry::Bookkeeping(name)
                        if name == "session_meta" || name.starts_with("record_type/"))
                })
                .collect();
            push_kept(out, &compacted.lines_of(&header));
            for item in &history {
                push_line(out, &serde_json::to_vec(item)?);
            }
            push_kept(out, &compacted.lines_of(&compacted.tail));
            return Ok(());
        }

        let timestamp = records
            .iter()
            .rev()
            .find_map(|record| top_level_str(record.raw, "timestamp"))
            .unwrap_or_default();
        push_kept(out, &compacted.all_lines());
        let marker = RolloutLine {
            timestamp: &timestamp,
            kind: "compacted",
            payload: CompactedPayload {
                message: &message,
                replacement_history: &history,
            },
        };
        push_line(out, &serde_json::to_vec(&marker)?);
        let event = RolloutLine {
            timestamp: &timestamp,
            kind: "event_msg",
            payload: EventPayload {
                kind: "context_compacted",
            },
        };
        push_line(out, &serde_json::to_vec(&event)?);
        // Only response items reach the model; the tail's events (token counts measured before
        // the compaction among them) stay history.
        let replayed: Vec<usize> = compacted
            .tail
            .iter()
            .copied()
            .filter(|&index| {
                top_level_str(records[index].raw, "type").as_deref() == Some("response_item")
            })
            .collect();
        push_kept(out, &compacted.lines_of(&replayed));
        Ok(())
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let record = match Line::walk(text) {
            Some(read) => record_of(line, text, read),
            None => Line::parse(text).and_then(|read| record_of(line, text, read)),
        };
        record.or_else(|error| unknown_item(line, text).ok_or(error))
    }

    /// Codex's messages as a request holds them: the items of one response (its `reasoning`,
    /// `message` and call items, which Codex records one after another as the response
    /// streams) are one message, and the outputs of its calls travel with it. An assistant
    /// item continues the message when the item before it is one too; after a call's output
    /// or a user message the next assistant item starts the next response.
    fn continues_message(&self, unit: &[&Record], record: &Record) -> bool {
        let Some(message) = record.message() else {
            return false;
        };
        match message.role {
            Role::Assistant => unit
                .last()
                .and_then(|r| r.message())
                .is_some_and(|m| m.role == Role::Assistant),
            _ => crate::transcript::messages::answers_a_call(message),
        }
    }

    /// A `turn_context` line's `payload.model`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        if crate::transcript::str_at(raw, &["type"]).as_deref() != Some("turn_context") {
            return None;
        }
        crate::transcript::str_at(raw, &["payload", "model"])
    }

    /// A `session_meta` or `turn_context` line's `payload.cwd`, or the legacy header's `cwd`.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        match crate::transcript::str_at(raw, &["type"]).as_deref() {
            Some("session_meta" | "turn_context") => {
                crate::transcript::str_at(raw, &["payload", "cwd"])
            }
            None if top_level_value(raw, "instructions").is_some() => top_level_str(raw, "cwd"),
            _ => None,
        }
    }
}

/// A line as read, by [`Line::walk`] or [`Line::parse`]: the envelope's fields, with the payload
/// read into the shape its type calls for.
#[derive(Default)]
struct Line<'a> {
    kind: Option<Cow<'a, str>>,
    /// The payload; for a bare response item of the legacy layout, the line itself. `None` for
    /// a line without `type` (whose payload is not read) or an envelope without `payload`.
    payload: Option<Payload<'a>>,
    record_type: Option<Cow<'a, str>>,
    has_id: bool,
    has_instructions: bool,
}

impl<'a> Line<'a> {
    /// The line read with serde, assuming every response item has the field shapes of the
    /// types known here.
    fn parse(text: &'a str) -> Result<Self> {
        let envelope: Envelope<'a> = serde_json::from_str(text)?;
        let payload = match (&envelope.kind, envelope.payload, envelope.raw_payload) {
            (None, ..) => None,
            (Some(_), Some(payload), _) => Some(payload),
            // `payload` came before `type`: read it now that the type is known.
            (Some(kind), None, Some(raw_payload)) => Some(
                PayloadSeed(kind)
                    .deserialize(&mut serde_json::Deserializer::from_str(raw_payload.get()))?,
            ),
            (Some(kind), None, None) if ENVELOPE_TYPES.contains(&kind.as_ref()) => None,
            // No payload at all: a bare response item of the legacy layout.
            (Some(_), None, None) => Some(Payload::Item(serde_json::from_str(text)?)),
        };
        Ok(Line {
            kind: envelope.kind,
            payload,
            record_type: envelope.record_type,
            has_id: envelope.has_id,
            has_instructions: envelope.has_instructions,
        })
    }
}

/// The record of line number `line`, whose text is `text`, read into `read`.
fn record_of<'a>(line: usize, text: &'a str, read: Line<'a>) -> Result<Record<'a>> {
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

/// Envelope types whose line must carry a payload; the name is safe to print once matched.
const ENVELOPE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

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
fn unknown_item(line: usize, text: &str) -> Option<Record<'_>> {
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

/// A current-layout first line: `session_meta` whose payload names the session and where or by
/// what it ran.
fn is_session_meta(line: &Value) -> bool {
    if str_field(line, "type") != Some("session_meta") {
        return false;
    }
    let Some(payload) = line.get("payload").filter(|payload| payload.is_object()) else {
        return false;
    };
    payload.get("id").is_some()
        && ["cwd", "originator", "cli_version"]
            .iter()
            .any(|key| payload.get(key).is_some())
}

/// The envelope of one line, plus the few legacy-layout keys.
#[derive(Default)]
struct Envelope<'a> {
    kind: Option<Cow<'a, str>>,
    /// The payload, read directly when `type` came first.
    payload: Option<Payload<'a>>,
    /// The payload as raw JSON, when it came before `type`.
    raw_payload: Option<&'a RawValue>,
    record_type: Option<Cow<'a, str>>,
    has_id: bool,
    has_instructions: bool,
}

/// The envelope keys this reader looks at; all others are skipped unread.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Type,
    Payload,
    RecordType,
    Id,
    Instructions,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Codex rollout line object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut envelope = Envelope::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => envelope.kind = Some(map.next_value::<BorrowedStr<'de>>()?.0),
                Key::Payload => match &envelope.kind {
                    Some(kind) => envelope.payload = Some(map.next_value_seed(PayloadSeed(kind))?),
                    None => envelope.raw_payload = Some(map.next_value()?),
                },
                Key::RecordType => {
                    envelope.record_type = Some(map.next_value::<BorrowedStr<'de>>()?.0)
                }
                Key::Id => {
                    envelope.has_id = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Instructions => {
                    envelope.has_instructions = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(envelope)
    }
}

/// A payload, read into the shape its envelope type calls for.
enum Payload<'a> {
    /// Boxed: an item is several times the size of the other payloads.
    Item(Box<Item<'a>>),
    Event(Event<'a>),
    Compacted(Compacted<'a>),
    /// Any other envelope type: skipped unread, it is bookkeeping.
    Other,
}

/// Reads a payload given its envelope `type`.
struct PayloadSeed<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = Payload<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Ok(match self.0 {
            "response_item" => Payload::Item(Box::new(Item::deserialize(deserializer)?)),
            "event_msg" => Payload::Event(Event::deserialize(deserializer)?),
            "compacted" => Payload::Compacted(Compacted::deserialize(deserializer)?),
            _ => {
                IgnoredAny::deserialize(deserializer)?;
                Payload::Other
            }
        })
    }
}

/// A response item, flattened: every field the item types read here use. Fields whose shape
/// differs between types (`arguments`, `input`, `action` …) are kept as raw JSON.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Item<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    /// Content of `message` and `agent_message`; full reasoning text of `reasoning`.
    #[serde(borrow)]
    content: StrOrSeq<'a, ContentItem<'a>>,
    /// Reasoning summaries.
    #[serde(borrow)]
    summary: StrOrSeq<'a, ContentItem<'a>>,
    /// Only whether it is there matters: the blob is opaque.
    encrypted_content: Option<IgnoredAny>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    name: Option<Cow<'a, str>>,
    /// The id tying a call to its output: on tool calls and on their outputs.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    call_id: Option<Cow<'a, str>>,
    /// The item's own id; only a `local_shell_call` without `call_id` uses it, as its call id.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    /// `function_call`: a JSON string holding JSON; `tool_search_call`: an object.
    #[serde(borrow, deserialize_with = "raw_json")]
    arguments: Option<&'a str>,
    /// `custom_tool_call`: the freeform input, a string.
    #[serde(borrow, deserialize_with = "raw_json")]
    input: Option<&'a str>,
    #[serde(borrow)]
    output: ToolOutput<'a>,
    /// `local_shell_call` and `web_search_call`.
    #[serde(borrow, deserialize_with = "raw_json")]
    action: Option<&'a str>,
    /// `tool_search_output`: the tool definitions found.
    #[serde(borrow, deserialize_with = "raw_json")]
    tools: Option<&'a str>,
    /// `image_generation_call`: the image, base64.
    result: Option<IgnoredAny>,
}

/// One content item of a message or reasoning item (`input_text`, `output_text`,
/// `input_image`, `summary_text`, `reasoning_text`, `encrypted_content` …). An image's URL
/// (often a large data URL) is skipped unread.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ContentItem<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    text: Option<Text<'a>>,
}

/// A tool call's output. Codex writes a string, a list of content items, or (seen in newer
/// files) one content item object; an object without `type` is read through its `content`.
#[derive(Default)]
enum ToolOutput<'a> {
    #[default]
    Absent,
    Text(Text<'a>),
    Items(Vec<ContentItem<'a>>),
}

/// The object form of a tool output.
#[derive(Deserialize, Default)]
#[serde(default)]
struct OutputObject<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    text: Option<Text<'a>>,
    #[serde(borrow)]
    content: StrOrSeq<'a, ContentItem<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ToolOutput<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OutputVisitor;

        impl<'de> Visitor<'de> for OutputVisitor {
            type Value = ToolOutput<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool output (string, list or object)")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            // A number or boolean output says nothing a model reads as text worth counting.
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(ToolOutput::Items(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let object = OutputObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(object.into())
            }
        }

        deserializer.deserialize_any(OutputVisitor)
    }
}

impl<'a> From<OutputObject<'a>> for ToolOutput<'a> {
    /// An object with a `type` is one content item; one without is read through its `content`.
    fn from(object: OutputObject<'a>) -> Self {
        match (object.kind, object.content) {
            (Some(kind), _) => ToolOutput::Items(vec![ContentItem {
                kind: Some(kind),
                text: object.text,
            }]),
            (None, StrOrSeq::Str(text)) => ToolOutput::Text(text),
            (None, StrOrSeq::Seq(items)) => ToolOutput::Items(items),
        }
    }
}

/// An `event_msg` payload: only its type, and the token figures of `token_count`. `info` is
/// kept raw because other events may use the name for something else.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Event<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "raw_json")]
    info: Option<&'a str>,
    /// `thread_rolled_back`: how many user turns were dropped.
    #[serde(borrow, deserialize_with = "raw_json")]
    num_turns: Option<&'a str>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenInfo {
    last_token_usage: Option<TokenUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenUsage {
    total_tokens: LenientU64,
}

/// A `compacted` payload. `replacement_history` is `null` in builds before 0.6x.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Compacted<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    replacement_history: Option<Vec<Item<'a>>>,
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
            arguments: json_text(item.arguments),
        }]),
        "custom_tool_call" => assistant(vec![Part::ToolCall {
            id: item.call_id,
            name: item.name.unwrap_or_default(),
            arguments: json_text(item.input),
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
            arguments: json_text(item.arguments),
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
        arguments: Cow::Borrowed(arguments.unwrap_or("{}")),
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

/// What the model sees after a compaction: the replacement history's message texts and images,
/// with the summary first unless the history already carries it.
fn compacted_parts(compacted: Compacted<'_>) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    for item in compacted.replacement_history.into_iter().flatten() {
        // Only messages carry what the model reads as the new context; `compaction` blobs are
        // opaque and `ghost_snapshot`s are never sent.
        if matches!(item.kind.as_deref(), Some("message" | "agent_message")) {
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

/// What goes before a summary in a `compacted` line (then a newline and the summary). It opens
/// with the marker sentence Codex puts before its own summaries (the formats spec names it), so
/// readers that look for summaries by that sentence find this one; the rest of Codex's
/// paragraph is its own prose and is not copied, so Codex's exact-paragraph check does not
/// recognise it, which only means a later Codex compaction may keep it as a user message.
pub const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and \
produced a summary of its thinking process. The notes below are that summary: continue the work \
from them.";

/// A rollout line as written back: `{"timestamp","type","payload"}`, Codex's order.
#[derive(Serialize)]
struct RolloutLine<'a, P> {
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    payload: P,
}

/// The payload of a written `compacted` line (the shape of local compaction in builds that
/// record the replacement history; the `window_*` fields of server-side compaction are left
/// out, as local compaction does).
#[derive(Serialize)]
struct CompactedPayload<'a> {
    message: &'a str,
    replacement_history: &'a [UserItem<'a>],
}

/// The payload of the `context_compacted` event.
#[derive(Serialize)]
struct EventPayload {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `{"type":"message","role":"user","content":[{"type":"input_text","text":…}]}`.
#[derive(Serialize)]
struct UserItem<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'static str,
    content: [InputText<'a>; 1],
}

impl<'a> UserItem<'a> {
    fn new(text: &'a str) -> Self {
        UserItem {
            kind: "message",
            role: "user",
            content: [InputText {
                kind: "input_text",
                text,
            }],
        }
    }
}

#[derive(Serialize)]
struct InputText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// True for a line of the envelope layout (`type` and `payload`).
fn is_envelope_line(raw: &[u8]) -> bool {
    top_level_str(raw, "type").is_some() && top_level_value(raw, "payload").is_some()
}

/// The budget of the user's recent messages in a replacement history, as Codex's
/// `COMPACT_USER_MESSAGE_MAX_TOKENS`, in Codex's estimate of four bytes a token.
const RECENT_USER_TOKENS: usize = 20_000;

/// The user's own recent messages among `summarised`, as Codex keeps them beside its summary
/// (`build_compacted_history`): newest first while they fit in [`RECENT_USER_TOKENS`], the one
/// that crosses the budget cut to what fits, earlier summaries and injected context left out,
/// then put back in their order.
fn recent_user_messages(records: &[Record], summarised: &[usize]) -> Vec<String> {
    let mut left = RECENT_USER_TOKENS * 4;
    let mut kept = Vec::new();
    for &index in summarised.iter().rev() {
        let Some(message) = records[index].message() else {
            continue;
        };
        // An earlier `compacted` line is a summary, whatever its history begins with.
        if records[index].compaction || !is_real_user_request(message) {
            continue;
        }
        if left == 0 {
            break;
        }
        let text = text_of(message);
        if text.len() <= left {
            left -= text.len();
            kept.push(text);
            continue;
        }
        let mut cut = left;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let dropped = (text.len() - cut).div_ceil(4);
        kept.push(format!(
            "{}\n[... about {dropped} tokens of this message left out ...]",
            &text[..cut]
        ));
        break;
    }
    kept.reverse();
    kept
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::transcript::model::testing;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

    fn read(text: &str) -> Record<'_> {
        Codex.read(1, text).unwrap()
    }

    /// What [`Codex::read`] made of a line before the walk: serde's reading, with the same
    /// fallback for response items of unknown shape, its error as text.
    fn by_serde(line: usize, text: &str) -> Result<Record<'_>, String> {
        Line::parse(text)
            .and_then(|read| record_of(line, text, read))
            .or_else(|error| unknown_item(line, text).ok_or(error))
            .map_err(|error| error.to_string())
    }

    /// [`by_serde`] with the walk in serde's place; `None` when the walk gives up.
    fn by_walk(line: usize, text: &str) -> Option<Result<Record<'_>, String>> {
        let read = Line::walk(text)?;
        Some(
            record_of(line, text, read)
                .or_else(|error| unknown_item(line, text).ok_or(error))
                .map_err(|error| error.to_string()),
        )
    }

    #[test]
    fn walking_a_line_reads_what_serde_reads_on_every_real_line() {
        let files = [
            "fixtures/corpus/codex/agent-sessions-small.jsonl",
            "fixtures/agents/codex-compacted.jsonl",
            "fixtures/agents/codex-turns.jsonl",
        ];
        let (mut walked, mut lines) = (0, 0);
        for file in files {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let text = std::fs::read_to_string(path).unwrap();
            for (n, line) in text.lines().enumerate() {
                lines += 1;
                let serde = by_serde(n + 1, line);
                let read = Codex.read(n + 1, line).map_err(|error| error.to_string());
                assert_eq!(read, serde, "{file}:{}", n + 1);
                if let Some(walk) = by_walk(n + 1, line) {
                    assert_eq!(walk, serde, "{file}:{}", n + 1);
                    walked += 1;
                }
            }
        }
        // Every line of these files is one the walk can follow: none would fall back to serde.
        assert!(lines > 200 && walked == lines, "{walked} of {lines}");
    }

    #[test]
    fn a_line_the_walk_gives_up_on_is_read_by_serde() {
        let message =
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a"}]}"#;
        for line in [
            // Repeated fields: serde keeps the last envelope `type`, refuses a repeated item
            // field, and ignores a repeated field it does not read.
            item(r#"{"type":"message","role":"user","role":"user","content":[]}"#),
            format!(r#"{{"type":"event_msg","type":"response_item","payload":{message}}}"#),
            item(r#"{"type":"reasoning","summary":[],"summary":[],"encrypted_content":"x"}"#),
            item(r#"{"type":"function_call_output","output":{"type":"input_text","type":"x"}}"#),
            // Escaped keys, which serde decodes.
            format!(r#"{{"ty\u0070e":"response_item","payload":{message}}}"#),
            item(r#"{"type":"message","r\u006fle":"user","content":[]}"#),
            item(r#"{"type":"message","role":"user","content":[{"t\u0065xt":"a"}]}"#),
            // Shapes serde refuses.
            item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":1}]}"#),
            item(r#"{"type":"message","role":"user","content":{"text":"a"}}"#),
            item(r#"{"type":"message","role":7,"content":[]}"#),
            item(r#"{"type":"function_call","name":"f","call_id":["c"]}"#),
            item(r#"{"type":"brand_new","content":{"odd":1}}"#),
            r#"{"type":7,"payload":{}}"#.to_owned(),
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":["token_count"]}}"#.to_owned(),
            r#"{"type":"compacted","payload":{"message":"S","replacement_history":{}}}"#.to_owned(),
            r#"{"type":"compacted","payload":{"message":"S","replacement_history":[null]}}"#
                .to_owned(),
            item(r#"{"type":"message","role":"user","content":"bad \q"}"#),
            // Shapes serde reads by a path of its own: a struct written as an array, a number
            // for an output.
            item(r#"["message","user"]"#),
            item(r#"{"type":"message","role":"user","content":[["input_text","a"]]}"#),
            item(r#"{"type":"function_call_output","call_id":"c","output":7}"#),
            // Not one JSON value.
            format!(r#"{{"type":"response_item","payload":{message}}} x"#),
            r#"{"type":"response_item","payload":{"type":"mess"#.to_owned(),
        ] {
            assert!(Line::walk(&line).is_none(), "{line}");
            let read = Codex.read(1, &line).map_err(|error| error.to_string());
            assert_eq!(read, by_serde(1, &line), "{line}");
        }
    }

    #[test]
    fn the_walk_reads_every_layout_as_serde_does() {
        let message =
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb"}]}"#;
        for line in [
            // Payload before type, and an envelope type without a payload.
            format!(r#"{{"payload":{message},"type":"response_item","timestamp":"t"}}"#),
            r#"{"payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":5}}},"type":"event_msg"}"#.to_owned(),
            r#"{"payload":[1,{"a":"}"}],"type":"world_state"}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item"}"#.to_owned(),
            r#"{"timestamp":"t","payload":{"type":"message"}}"#.to_owned(),
            // The legacy layout: a header, a state line, a bare item.
            r#"{"id":"s","timestamp":"t","instructions":null,"git":{"branch":"main"}}"#.to_owned(),
            r#"{"record_type":"state"}"#.to_owned(),
            format!(" {message} "),
            // Outputs in every shape, and values serde reads as none.
            item(r#"{"type":"function_call_output","call_id":"c","output":true}"#),
            item(r#"{"type":"function_call_output","call_id":null,"output":null}"#),
            item(r#"{"type":"custom_tool_call_output","output":{"content":[{"type":"input_text","text":"x"}]}}"#),
            item(r#"{"type":"custom_tool_call_output","output":{"content":"x","text":"y"}}"#),
            item(r#"{"type":"image_generation_call","result":null}"#),
            item(r#"{"type":"reasoning","summary":"s","content":"c\u00e9","encrypted_content":null}"#),
            item(r#"{"type":"function_call","name":"f","arguments":"{\"a\":\"\\u00e9\"}","call_id":"c"}"#),
            item(r#"{"type":"message","role":"user","content":null}"#),
            // A repeated field neither reads is ignored by both.
            item(r#"{"type":"ghost_snapshot","x":1,"x":2}"#),
            r#"{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":2}}"#.to_owned(),
            r#"{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":1.5e3}}}}"#.to_owned(),
            // Errors after reading, which both report alike.
            item(r#"{"type":"message","role":"critic","content":[]}"#),
            item(r#"{"role":"user","content":[]}"#),
        ] {
            let walk = by_walk(1, &line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(walk, by_serde(1, &line), "{line}");
        }
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

    fn item(payload: &str) -> String {
        format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
    }

    #[test]
    fn reads_messages_by_role() {
        let line = item(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files"},{"type":"input_image","image_url":"data:image/png;base64,AAA"}]}"#,
        );
        let record = read(&line);
        assert_eq!(role(&record), Role::User);
        assert_eq!(
            parts(&record),
            [
                Part::Text("List the files".into()),
                Part::Media(MediaKind::Image)
            ]
        );
        assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
        let assistant = item(
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}"#,
        );
        assert_eq!(role(&read(&assistant)), Role::Assistant);
        for system in ["developer", "system"] {
            let line = item(&format!(
                r#"{{"type":"message","role":"{system}","content":[{{"type":"input_text","text":"x"}}]}}"#
            ));
            assert_eq!(role(&read(&line)), Role::System);
        }
    }

    #[test]
    fn reads_reasoning() {
        let line = item(
            r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}],"content":[{"type":"reasoning_text","text":"deep"}],"encrypted_content":"gAAAA"}"#,
        );
        let record = read(&line);
        assert_eq!(role(&record), Role::Assistant);
        assert_eq!(
            parts(&record),
            [Part::Thinking("plan".into()), Part::Thinking("deep".into())]
        );
        let encrypted =
            item(r#"{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAAA"}"#);
        assert_eq!(parts(&read(&encrypted)), [Part::Thinking("".into())]);
    }

    #[test]
    fn reads_tool_calls() {
        let function = item(
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}"#,
        );
        assert_eq!(
            parts(&read(&function)),
            [Part::ToolCall {
                id: Some("c1".into()),
                name: "shell".into(),
                arguments: r#"{"command":["ls"]}"#.into()
            }]
        );
        let custom = item(
            r#"{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch"}"#,
        );
        assert_eq!(
            parts(&read(&custom)),
            [Part::ToolCall {
                id: Some("c2".into()),
                name: "apply_patch".into(),
                arguments: "*** Begin Patch".into()
            }]
        );
        let shell = item(
            r#"{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls"]}}"#,
        );
        assert_eq!(
            parts(&read(&shell)),
            [Part::ToolCall {
                id: Some("c3".into()),
                name: "local_shell".into(),
                arguments: r#"{"type":"exec","command":["ls"]}"#.into()
            }]
        );
        // A local shell call without `call_id` is known by its `id`, as Codex does.
        let by_id = item(
            r#"{"type":"local_shell_call","id":"ls_1","call_id":null,"status":"completed","action":{"type":"exec","command":["ls"]}}"#,
        );
        assert_eq!(
            read(&by_id)
                .message()
                .unwrap()
                .call_ids()
                .collect::<Vec<_>>(),
            ["ls_1"]
        );
        // `arguments: null` is seen in real files.
        let null = item(r#"{"type":"function_call","name":"f","arguments":null,"call_id":"c"}"#);
        assert_eq!(
            parts(&read(&null)),
            [Part::ToolCall {
                id: Some("c".into()),
                name: "f".into(),
                arguments: "".into()
            }]
        );
        // Other items' own ids are not call ids, and the call id borrows from the line.
        let with_id = item(r#"{"type":"function_call","id":"fc_1","name":"f","call_id":"c"}"#);
        let record = read(&with_id);
        assert_eq!(
            record.message().unwrap().call_ids().collect::<Vec<_>>(),
            ["c"]
        );
        assert!(matches!(
            parts(&record)[0],
            Part::ToolCall {
                id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
    }

    #[test]
    fn reads_tool_outputs_in_every_shape() {
        let string = item(r#"{"type":"function_call_output","call_id":"c","output":"a.txt\n"}"#);
        let record = read(&string);
        assert_eq!(role(&record), Role::Tool);
        assert_eq!(
            parts(&record),
            [Part::ToolResult {
                call_id: Some("c".into()),
                text: "a.txt\n".into()
            }]
        );
        // The id is on the result part; the message itself is not keyed.
        let message = record.message().unwrap();
        assert_eq!(message.call_id, None);
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["c"]);
        let list = item(
            r#"{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:"},{"type":"input_text","text":"b"}]}"#,
        );
        assert_eq!(
            parts(&read(&list)),
            [
                Part::ToolResult {
                    call_id: Some("c".into()),
                    text: "a\nb".into()
                },
                Part::Media(MediaKind::Image)
            ]
        );
        let object = item(
            r#"{"type":"function_call_output","call_id":"c","output":{"type":"input_text","text":"one","detail":null}}"#,
        );
        assert_eq!(
            parts(&read(&object)),
            [Part::ToolResult {
                call_id: Some("c".into()),
                text: "one".into()
            }]
        );
        let wrapped = item(
            r#"{"type":"function_call_output","call_id":"c","output":{"content":"failed","success":false}}"#,
        );
        assert_eq!(
            parts(&read(&wrapped)),
            [Part::ToolResult {
                call_id: Some("c".into()),
                text: "failed".into()
            }]
        );
        let absent = item(r#"{"type":"function_call_output","output":null}"#);
        assert_eq!(
            parts(&read(&absent)),
            [Part::ToolResult {
                call_id: None,
                text: "".into()
            }]
        );
    }

    #[test]
    fn reads_hosted_tools_and_agent_messages() {
        let search = item(
            r#"{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}"#,
        );
        assert_eq!(
            parts(&read(&search)),
            [Part::ToolCall {
                id: None,
                name: "web_search".into(),
                arguments: r#"{"type":"search","query":"q"}"#.into()
            }]
        );
        let tool_search =
            item(r#"{"type":"tool_search_call","call_id":"c","arguments":{"query":"x"}}"#);
        assert_eq!(
            parts(&read(&tool_search)),
            [Part::ToolCall {
                id: Some("c".into()),
                name: "tool_search".into(),
                arguments: r#"{"query":"x"}"#.into()
            }]
        );
        let found = item(r#"{"type":"tool_search_output","call_id":"c","tools":[{"name":"t"}]}"#);
        let record = read(&found);
        assert_eq!(role(&record), Role::Tool);
        assert_eq!(
            parts(&record),
            [Part::ToolResult {
                call_id: Some("c".into()),
                text: r#"[{"name":"t"}]"#.into()
            }]
        );
        let image = item(r#"{"type":"image_generation_call","status":"done","result":"iVBOR"}"#);
        assert_eq!(parts(&read(&image)), [Part::Media(MediaKind::Image)]);
        let agent = item(
            r#"{"type":"agent_message","author":"a","recipient":"b","content":[{"type":"input_text","text":"hi"},{"type":"encrypted_content","encrypted_content":"x"}]}"#,
        );
        let record = read(&agent);
        assert_eq!(role(&record), Role::User);
        assert_eq!(parts(&record), [Part::Text("hi".into())]);
    }

    #[test]
    fn harness_items_are_bookkeeping() {
        let cases = [
            (
                item(r#"{"type":"ghost_snapshot","ghost_commit":{"id":"g"}}"#),
                "response_item/ghost_snapshot",
            ),
            (
                item(r#"{"type":"compaction","encrypted_content":"x"}"#),
                "response_item/compaction",
            ),
            (
                item(r#"{"type":"compaction_summary","encrypted_content":"x"}"#),
                "response_item/compaction_summary",
            ),
            (
                item(r#"{"type":"brand_new","id":"x"}"#),
                "response_item/brand_new",
            ),
            // Unknown types may shape known field names differently; they stay bookkeeping.
            (
                item(r#"{"type":"brand_new","content":{"odd":1},"output":7}"#),
                "response_item/brand_new",
            ),
            (
                r#"{"type":"brand_new","summary":{"odd":1}}"#.to_owned(),
                "response_item/brand_new",
            ),
            (
                r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/"}}"#.to_owned(),
                "session_meta",
            ),
            (
                r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/","model":"m"}}"#.to_owned(),
                "turn_context",
            ),
            (
                r#"{"timestamp":"t","ordinal":3,"type":"world_state","payload":{"full":true}}"#.to_owned(),
                "world_state",
            ),
            (
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}"#.to_owned(),
                "event_msg/agent_message",
            ),
        ];
        for (line, name) in cases {
            let record = read(&line);
            assert_eq!(bookkeeping(&record), name);
            assert!(record.usage.is_none() && !record.compaction);
        }
    }

    #[test]
    fn token_count_events_carry_the_context_size() {
        let record = read(
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":99999},"last_token_usage":{"input_tokens":16341,"output_tokens":81,"total_tokens":16422},"model_context_window":258400},"rate_limits":{}}}"#,
        );
        assert_eq!(bookkeeping(&record), "event_msg/token_count");
        assert_eq!(
            record.usage,
            Some(Usage {
                context_tokens: 16422,
                response_key: None
            })
        );
        for info in [
            "null",
            r#"{"last_token_usage":{"total_tokens":0}}"#,
            r#"{"last_token_usage":{"total_tokens":"many"}}"#,
            r#""text""#,
        ] {
            let line = format!(
                r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{info}}}}}"#
            );
            assert!(read(&line).usage.is_none(), "{info}");
        }
        // Another event may use `info` for anything.
        let other =
            read(r#"{"timestamp":"t","type":"event_msg","payload":{"type":"x","info":"y"}}"#);
        assert!(other.usage.is_none());
    }

    #[test]
    fn compacted_is_a_compaction_with_the_new_context() {
        let legacy = read(
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"Summary text","replacement_history":null}}"#,
        );
        assert!(legacy.compaction);
        assert_eq!(role(&legacy), Role::User);
        assert_eq!(parts(&legacy), [Part::Text("Summary text".into())]);

        let local = read(
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"S","replacement_history":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"perms"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"},{"type":"input_image","image_url":"u"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"S"}]},{"type":"ghost_snapshot","ghost_commit":{}}]}}"#,
        );
        assert!(local.compaction);
        // The summary is in the history already, so it is not repeated in front.
        assert_eq!(
            parts(&local),
            [
                Part::Text("perms".into()),
                Part::Text("ask".into()),
                Part::Media(MediaKind::Image),
                Part::Text("S".into()),
            ]
        );

        let remote = read(
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"}]},{"type":"compaction","encrypted_content":"x"}],"window_number":2}}"#,
        );
        assert_eq!(parts(&remote), [Part::Text("ask".into())]);

        let other = read(
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"S","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"}]}]}}"#,
        );
        assert_eq!(
            parts(&other),
            [Part::Text("S".into()), Part::Text("ask".into())]
        );
    }

    #[test]
    fn payload_before_type_is_read_the_same() {
        let line = r#"{"payload":{"type":"function_call","name":"f","arguments":"{}"},"type":"response_item","timestamp":"t"}"#;
        assert_eq!(
            parts(&read(line)),
            [Part::ToolCall {
                id: None,
                name: "f".into(),
                arguments: "{}".into()
            }]
        );
        let event = r#"{"payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":5}}},"type":"event_msg"}"#;
        assert_eq!(read(event).usage.map(|u| u.context_tokens), Some(5));
    }

    #[test]
    fn reads_the_legacy_bare_layout() {
        let header = read(
            r#"{"id":"5973b6c0","timestamp":"2025-08-01T00:00:00Z","instructions":null,"git":{"branch":"main"}}"#,
        );
        assert_eq!(bookkeeping(&header), "session_meta");
        assert_eq!(
            bookkeeping(&read(r#"{"record_type":"state"}"#)),
            "record_type/state"
        );
        let message = read(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}"#,
        );
        assert_eq!(
            parts(&message),
            [Part::Text("<environment_context>".into())]
        );
        let call =
            read(r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}"#);
        assert_eq!(role(&call), Role::Assistant);
        assert_eq!(
            bookkeeping(&read(r#"{"type":"ghost_snapshot","ghost_commit":{}}"#)),
            "response_item/ghost_snapshot"
        );
    }

    #[test]
    fn errors_do_not_quote_the_line() {
        let no_type = Codex
            .read(1, r#"{"timestamp":"t","payload":{"type":"message"}}"#)
            .unwrap_err();
        assert_eq!(no_type.to_string(), "line has no \"type\"");
        assert!(Codex.read(1, r#"{"role":"user"}"#).is_err());
        let role = Codex
            .read(
                1,
                &item(r#"{"type":"message","role":"\u001b[31mcritic","content":[]}"#),
            )
            .unwrap_err()
            .to_string();
        assert!(!role.contains("critic"), "{role}");
        assert!(Codex
            .read(1, &item(r#"{"type":"message","content":[]}"#))
            .is_err());
        let shape = Codex
            .read(
                1,
                &item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":["secret"]}]}"#),
            )
            .unwrap_err()
            .to_string();
        assert!(!shape.contains("secret"), "{shape}");
        assert!(Codex.read(1, &item("[1]")).is_err());
        assert!(Codex.read(1, "{\"type\":").is_err());
        // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
        // recognises on an unterminated last line.
        let cut = Codex
            .read(
                1,
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"mess"#,
            )
            .unwrap_err();
        assert!(cut
            .downcast_ref::<serde_json::Error>()
            .is_some_and(serde_json::Error::is_eof));
    }

    #[test]
    fn detection() {
        assert!(Codex.detect(&head(&[
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/","originator":"codex_cli_rs"}}"#
        ])));
        assert!(Codex.detect(&head(&[
            r#"{"id":"s","timestamp":"t","instructions":null}"#,
            r#"{"type":"message","role":"user","content":[]}"#,
        ])));
        assert!(Codex.detect(&head(&[
            r#"{"type":"message","role":"user","content":[]}"#,
            r#"{"record_type":"state"}"#,
        ])));
        // A session_meta without identity, or a legacy header that is not first, is not enough.
        assert!(!Codex.detect(&head(&[
            r#"{"timestamp":"t","type":"session_meta","payload":{"cwd":"/"}}"#
        ])));
        assert!(!Codex.detect(&head(&[
            r#"{"role":"user","content":"x"}"#,
            r#"{"id":"s","timestamp":"t","instructions":null}"#,
        ])));
        assert!(!Codex.detect(&head(&[r#"{"role":"user","content":"x"}"#, "1"])));
    }

    #[test]
    fn reads_the_codex_corpus() {
        let lines = corpus("codex/agent-sessions-small.jsonl");
        let head = corpus_head(&lines);
        assert!(Codex.detect(&head));
        let (records, (messages, compactions, usages)) = read_all(&Codex, &lines);
        // Counted with jq:
        //   messages (response items of the types read as messages, plus `compacted`):
        //     jq -c 'select((.type=="response_item" and (.payload.type | IN("message",
        //       "reasoning","function_call","custom_tool_call","local_shell_call",
        //       "function_call_output","custom_tool_call_output","web_search_call",
        //       "tool_search_call","tool_search_output","image_generation_call",
        //       "agent_message"))) or .type=="compacted")' FILE | wc -l          → 27
        //   compactions: jq -c 'select(.type=="compacted")' FILE | wc -l         → 6
        //   usages: jq -c 'select(.type=="event_msg" and .payload.type=="token_count"
        //     and .payload.info.last_token_usage.total_tokens > 0)' FILE | wc -l → 1
        assert_eq!((messages, compactions, usages), (27, 6, 1));
        // Tool results, and those whose call_id no earlier call's has:
        //   jq -n 'reduce (inputs | select(.type=="response_item") | .payload) as $i
        //     ({seen: {}, results: 0, orphans: 0};
        //     if ($i.type | IN("function_call","custom_tool_call","local_shell_call",
        //       "tool_search_call")) then .seen[$i.call_id // $i.id] = true
        //     elif ($i.type | IN("function_call_output","custom_tool_call_output",
        //       "tool_search_output")) then .results += 1
        //       | (if .seen[$i.call_id] then . else .orphans += 1 end)
        //     else . end) | [.results, .orphans]' FILE                           → [6, 1]
        // The orphan is line 28, a custom_tool_call_output whose call_id the fixture's author
        // replaced by "[trimmed for fixture]" before any call with that id; the later trimmed
        // outputs "match" trimmed calls only because every trimmed id is the same text.
        let links = testing::links(records.iter().filter_map(Record::message));
        assert_eq!((links.results, links.orphans), (6, 1));
    }

    mod write_back {
        use super::*;
        use crate::cmd::compaction::compaction;
        use crate::plan::{plan, Mode, Plan};
        use crate::tokens::Tokenizer;
        use crate::transcript::load::{LoadOptions, Transcript};
        use crate::transcript::FormatId;

        const SUMMARY: &str = "## Active task\nFix \"the\" bug\u{1b}[0m\n";
        const MARKER: &str = "Another language model started to solve this problem and produced \
                              a summary of its thinking process.";

        fn corpus_bytes() -> Vec<u8> {
            std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/corpus/codex/agent-sessions-small.jsonl"
            ))
            .unwrap()
        }

        /// The keys of a JSON object, in order.
        fn keys(json: &[u8]) -> Vec<String> {
            struct Keys;
            impl<'de> Visitor<'de> for Keys {
                type Value = Vec<String>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((key, _)) = map.next_entry::<String, IgnoredAny>()? {
                        keys.push(key);
                    }
                    Ok(keys)
                }
            }
            let mut de = serde_json::Deserializer::from_slice(json);
            de.deserialize_map(Keys).unwrap()
        }

        fn payload(line: &[u8]) -> &[u8] {
            &line[top_level_value(line, "payload").unwrap()]
        }

        fn write(transcript: &Transcript, plan: &Plan) -> Vec<u8> {
            let mut compacted = compaction(transcript, plan, SUMMARY, Tokenizer::Chars4);
            compacted.tokens_before = 123_456;
            let mut out = Vec::new();
            let mut sink = crate::transcript::write::Sink::new(&mut out);
            Codex.write_compacted(&compacted, &mut sink).unwrap();
            sink.finish().unwrap();
            out
        }

        fn user_item(text: &str) -> Value {
            serde_json::json!({
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}]
            })
        }

        /// Writes a compaction of the corpus under `mode`, checks that it is appended in the
        /// shape of Codex's own and that, read back, the live context is the new history and the
        /// replayed tail; returns the replacement history and the kept user texts.
        fn check_corpus(mode: Mode) -> (Vec<Value>, Vec<String>) {
            let bytes = corpus_bytes();
            let input = Transcript::parse("codex", &bytes, LoadOptions::default()).unwrap();
            let plan = plan(&input.context, mode, Tokenizer::Chars4, &Codex).unwrap();
            assert!(plan.noop.is_none());
            let compacted = compaction(&input, &plan, SUMMARY, Tokenizer::Chars4);
            let out = write(&input, &plan);
            assert_eq!(out, write(&input, &plan), "not deterministic");
            let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
            assert_eq!(output.format, Some(FormatId::Codex));
            let count = |t: &Transcript| t.records.iter().filter(|r| r.compaction).count();
            assert_eq!(count(&output), count(&input) + 1);

            // Every line of the input unchanged, then the marker, the event, and the tail's
            // response items again.
            assert!(out.starts_with(&bytes));
            let new: Vec<&[u8]> = out[bytes.len()..]
                .strip_suffix(b"\n")
                .unwrap()
                .split(|&b| b == b'\n')
                .collect();
            let replayed: Vec<&[u8]> = compacted
                .tail
                .iter()
                .map(|&i| input.records[i].raw)
                .filter(|raw| top_level_str(raw, "type").as_deref() == Some("response_item"))
                .collect();
            assert_eq!(new[2..], replayed[..]);
            let (marker, event) = (new[0], new[1]);

            // Both have the keys of Codex's own lines, in its order. The newest real
            // `compacted` line is a server-side one: its `ordinal` (optional, B.1) and
            // `window_*` fields are not written by local compaction.
            let real = input
                .records
                .iter()
                .rev()
                .filter(|r| r.compaction)
                .map(|r| r.raw)
                .find(|raw| {
                    serde_json::from_slice::<Value>(payload(raw)).unwrap()["replacement_history"]
                        .is_array()
                })
                .unwrap();
            let mut real_keys = keys(real);
            real_keys.retain(|key| key != "ordinal");
            assert_eq!(keys(marker), real_keys);
            assert_eq!(keys(payload(marker)), ["message", "replacement_history"]);
            let real_event = input
                .records
                .iter()
                .map(|r| r.raw)
                .find(|raw| {
                    top_level_value(raw, "payload")
                        .is_some_and(|span| &raw[span] == br#"{"type":"context_compacted"}"#)
                })
                .unwrap();
            assert_eq!(keys(event), keys(real_event));
            assert_eq!(payload(event), payload(real_event));
            let last_timestamp = input
                .records
                .iter()
                .rev()
                .find_map(|r| top_level_str(r.raw, "timestamp"));
            assert_eq!(top_level_str(marker, "timestamp"), last_timestamp);

            // The message is Codex's summary text, and the history ends with it.
            let value: Value = serde_json::from_slice(marker).unwrap();
            let message = value["payload"]["message"].as_str().unwrap();
            assert_eq!(message, format!("{SUMMARY_PREFIX}\n{SUMMARY}"));
            assert!(message.starts_with(MARKER));
            let history = value["payload"]["replacement_history"]
                .as_array()
                .unwrap()
                .clone();
            assert_eq!(history.last(), Some(&user_item(message)));

            // Read back, the live context is the marker, the event and the replayed tail, and
            // the model reads the summary once.
            let context: Vec<&[u8]> = output.context.iter().map(|r| r.raw).collect();
            assert_eq!(context, new);
            let read_back =
                crate::transcript::classify::text_of(output.context[0].message().unwrap());
            assert_eq!(read_back.matches(SUMMARY.trim_end()).count(), 1);
            (history, compacted.kept_user_texts)
        }

        #[test]
        fn appends_a_native_compaction_and_replays_the_tail() {
            let (history, kept) = check_corpus(Mode::Tail { preserve: 2 });
            assert!(kept.is_empty());
            // Every item but the summary is one of the user's own recent messages.
            for item in &history[..history.len() - 1] {
                assert_eq!(item["role"], "user");
            }
        }

        #[test]
        fn user_mode_keeps_user_messages_before_the_summary() {
            let (history, kept) = check_corpus(Mode::User {
                keep_user_tokens: 200,
                user_head_tokens: 50,
            });
            assert!(!kept.is_empty());
            assert_eq!(history.len(), kept.len() + 1);
            for (item, text) in history.iter().zip(&kept) {
                assert_eq!(item, &user_item(text));
            }
        }

        #[test]
        fn the_history_keeps_the_users_recent_messages_like_codex() {
            let line = |kind: &str, payload: &str| {
                format!(
                    r#"{{"timestamp":"2025-11-22T20:00:00.000Z","type":"{kind}","payload":{payload}}}"#
                )
            };
            let user = |text: &str| {
                line(
                    "response_item",
                    &format!(
                        r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#
                    ),
                )
            };
            let reply = |text: &str| {
                line(
                    "response_item",
                    &format!(
                        r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#
                    ),
                )
            };
            let lines = [
                line(
                    "session_meta",
                    r#"{"id":"s","cwd":"/a","originator":"codex_cli_rs"}"#,
                ),
                line(
                    "response_item",
                    r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"perms"}]}"#,
                ),
                user("<environment_context>\\n<cwd>/a</cwd>\\n</environment_context>"),
                user("first ask"),
                reply("done"),
                line(
                    "event_msg",
                    r#"{"type":"token_count","info":{"last_token_usage":{"total_tokens":9000}}}"#,
                ),
                user("second ask"),
                reply("ok"),
                user("third ask"),
                reply("fine"),
            ];
            let bytes = lines.join("\n") + "\n";
            let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
            let plan = plan(
                &input.context,
                Mode::Tail { preserve: 2 },
                Tokenizer::Chars4,
                &Codex,
            )
            .unwrap();
            assert_eq!(plan.tail, 8..10);
            let out = String::from_utf8(write(&input, &plan)).unwrap();
            let out_lines: Vec<&str> = out.lines().collect();
            assert_eq!(out_lines[..lines.len()], lines[..]);
            let marker: Value = serde_json::from_str(out_lines[lines.len()]).unwrap();
            let history = marker["payload"]["replacement_history"].as_array().unwrap();
            // Not the developer message or the environment, which Codex sends anew; not the
            // tail's own request, which follows the marker.
            assert_eq!(
                history[..2],
                [user_item("first ask"), user_item("second ask")]
            );
            assert_eq!(history.len(), 3);
            assert_eq!(&out_lines[lines.len() + 2..], &lines[8..]);
            // The token count before the marker no longer describes the context.
            let output = Transcript::parse("out", out.as_bytes(), LoadOptions::default()).unwrap();
            let size = crate::cmd::compaction::context_size(&output, Tokenizer::Chars4);
            assert!(size < 9000, "{size}");
        }

        /// A bare rollout has no compaction marker: it becomes a fresh rollout whose first items
        /// are the new history.
        #[test]
        fn legacy_rollouts_start_over_from_the_new_history() {
            let lines = [
                r#"{"id":"s","timestamp":"2025-08-01T10:00:00.000Z","instructions":null}"#,
                r#"{"record_type":"state"}"#,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>be brief</user_instructions>"}]}"#,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"first ask"}]}"#,
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#,
                r#"{"record_type":"state"}"#,
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"second ask"}]}"#,
                r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}"#,
            ];
            let bytes = lines.join("\n") + "\n";
            let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
            assert_eq!(input.format, Some(FormatId::Codex));
            let plan = plan(
                &input.context,
                Mode::Tail { preserve: 2 },
                Tokenizer::Chars4,
                &Codex,
            )
            .unwrap();
            assert_eq!(plan.tail, 6..8);
            let out = write(&input, &plan);
            let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
            assert_eq!(output.format, Some(FormatId::Codex));
            let out = String::from_utf8(out).unwrap();
            let text = serde_json::to_string(&format!("{SUMMARY_PREFIX}\n{SUMMARY}")).unwrap();
            let summary = format!(
                r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{text}}}]}}"#
            );
            // The user's own request is kept beside the summary; the injected instructions are
            // not (Codex sends them anew).
            let expected = [
                lines[0], lines[1], lines[5], lines[3], &summary, lines[6], lines[7],
            ];
            assert_eq!(out, expected.join("\n") + "\n");
        }
    }
}

/// What one message is in a Codex rollout ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::Codex;
    use crate::transcript::messages::testing::check;

    fn item(payload: &str) -> String {
        format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
    }

    fn user(text: &str) -> String {
        item(&format!(
            r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#
        ))
    }

    fn said(text: &str) -> String {
        item(&format!(
            r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#
        ))
    }

    fn reasoning() -> String {
        item(r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}]}"#)
    }

    fn call(id: &str, name: &str) -> String {
        item(&format!(
            r#"{{"type":"function_call","name":"{name}","arguments":"{{}}","call_id":"{id}"}}"#
        ))
    }

    fn output(id: &str) -> String {
        item(&format!(
            r#"{{"type":"function_call_output","call_id":"{id}","output":"ok"}}"#
        ))
    }

    #[test]
    fn the_items_of_one_response_are_one_message_whatever_their_number() {
        for fragments in [1, 2, 3, 5] {
            let mut lines = vec![user("old question"), said("old"), user("the question")];
            let items = [
                reasoning(),
                said("one"),
                said("two"),
                reasoning(),
                said("three"),
            ];
            lines.extend(items.into_iter().take(fragments));
            check(&Codex, &lines, &[0..1, 1..2, 2..3, 3..3 + fragments]);
        }
    }

    #[test]
    fn parallel_calls_and_their_outputs_are_one_message_with_their_response() {
        let lines = [
            user("read both"),
            reasoning(),
            call("c1", "shell"),
            call("c2", "shell"),
            output("c1"),
            output("c2"),
            reasoning(),
            said("both read"),
        ];
        check(&Codex, &lines, &[0..1, 1..6, 6..8]);
    }

    #[test]
    fn a_sub_agent_call_travels_with_its_report() {
        let lines = [
            user("explore"),
            call("c1", "spawn_agent"),
            output("c1"),
            said("the sub-agent found it"),
        ];
        check(&Codex, &lines, &[0..1, 1..3, 3..4]);
    }
}
