//! The shape a rollout line is read into before it becomes records: the envelope, and its
//! payload in the shape its type calls for. Serde's derive reads most of it; [`super::de`] holds
//! the hand-written readers, [`super::walk`] the walk that reads the same shapes faster.

use std::borrow::Cow;

use anyhow::Result;
use serde::de::{DeserializeSeed, IgnoredAny};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::transcript::blocks::{borrowed_str, borrowed_text, raw_json, LenientU64, StrOrSeq};
use crate::transcript::text::Text;

/// A line as read, by [`Line::walk`] or [`Line::parse`]: the envelope's fields, with the payload
/// read into the shape its type calls for.
#[derive(Default)]
pub(super) struct Line<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    /// The payload; for a bare response item of the legacy layout, the line itself. `None` for
    /// a line without `type` (whose payload is not read) or an envelope without `payload`.
    pub(super) payload: Option<Payload<'a>>,
    pub(super) record_type: Option<Cow<'a, str>>,
    pub(super) has_id: bool,
    pub(super) has_instructions: bool,
}

impl<'a> Line<'a> {
    /// The line read with serde, assuming every response item has the field shapes of the
    /// types known here.
    pub(super) fn parse(text: &'a str) -> Result<Self> {
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

/// Envelope types whose line must carry a payload; the name is safe to print once matched.
pub(super) const ENVELOPE_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// The envelope of one line, plus the few legacy-layout keys.
#[derive(Default)]
pub(super) struct Envelope<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    /// The payload, read directly when `type` came first.
    pub(super) payload: Option<Payload<'a>>,
    /// The payload as raw JSON, when it came before `type`.
    pub(super) raw_payload: Option<&'a RawValue>,
    pub(super) record_type: Option<Cow<'a, str>>,
    pub(super) has_id: bool,
    pub(super) has_instructions: bool,
}

/// The envelope keys this reader looks at; all others are skipped unread.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
pub(super) enum Key {
    Type,
    Payload,
    RecordType,
    Id,
    Instructions,
    #[serde(other)]
    Other,
}

/// A payload, read into the shape its envelope type calls for.
pub(super) enum Payload<'a> {
    /// Boxed: an item is several times the size of the other payloads.
    Item(Box<Item<'a>>),
    Event(Event<'a>),
    Compacted(Compacted<'a>),
    /// Any other envelope type: skipped unread, it is bookkeeping.
    Other,
}

/// Reads a payload given its envelope `type`.
pub(super) struct PayloadSeed<'k>(pub(super) &'k str);

/// A response item, flattened: every field the item types read here use. Fields whose shape
/// differs between types (`arguments`, `input`, `action` …) are kept as raw JSON.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Item<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) role: Option<Cow<'a, str>>,
    /// Content of `message` and `agent_message`; full reasoning text of `reasoning`.
    #[serde(borrow)]
    pub(super) content: StrOrSeq<'a, ContentItem<'a>>,
    /// Reasoning summaries.
    #[serde(borrow)]
    pub(super) summary: StrOrSeq<'a, ContentItem<'a>>,
    /// Only whether it is there matters: the blob is opaque.
    pub(super) encrypted_content: Option<IgnoredAny>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) name: Option<Cow<'a, str>>,
    /// The id tying a call to its output: on tool calls and on their outputs.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) call_id: Option<Cow<'a, str>>,
    /// The item's own id; only a `local_shell_call` without `call_id` uses it, as its call id.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) id: Option<Cow<'a, str>>,
    /// `function_call`: a JSON string holding JSON; `tool_search_call`: an object.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) arguments: Option<&'a str>,
    /// `custom_tool_call`: the freeform input, a string.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) input: Option<&'a str>,
    #[serde(borrow)]
    pub(super) output: ToolOutput<'a>,
    /// `local_shell_call` and `web_search_call`.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) action: Option<&'a str>,
    /// `tool_search_output`: the tool definitions found.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) tools: Option<&'a str>,
    /// `image_generation_call`: the image, base64.
    pub(super) result: Option<IgnoredAny>,
}

/// One content item of a message or reasoning item (`input_text`, `output_text`,
/// `input_image`, `summary_text`, `reasoning_text`, `encrypted_content` …). An image's URL
/// (often a large data URL) is skipped unread.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ContentItem<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub(super) text: Option<Text<'a>>,
}

/// A tool call's output. Codex writes a string, a list of content items, or (seen in newer
/// files) one content item object; an object without `type` is read through its `content`.
#[derive(Default)]
pub(super) enum ToolOutput<'a> {
    #[default]
    Absent,
    Text(Text<'a>),
    Items(Vec<ContentItem<'a>>),
}

/// The object form of a tool output.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct OutputObject<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub(super) text: Option<Text<'a>>,
    #[serde(borrow)]
    pub(super) content: StrOrSeq<'a, ContentItem<'a>>,
}

/// An `event_msg` payload: only its type, and the token figures of `token_count`. `info` is
/// kept raw because other events may use the name for something else.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) info: Option<&'a str>,
    /// `thread_rolled_back`: how many user turns were dropped.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) num_turns: Option<&'a str>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct TokenInfo {
    pub(super) last_token_usage: Option<TokenUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct TokenUsage {
    pub(super) total_tokens: LenientU64,
}

/// A `compacted` payload. `replacement_history` is `null` in builds before 0.6x.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Compacted<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) replacement_history: Option<Vec<Item<'a>>>,
}
