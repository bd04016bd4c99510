//! A pi entry as read before it becomes a record: the entry's fields, its agent message and
//! content blocks, read by serde or walked with [`crate::transcript::scan`].

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::transcript::blocks::{borrowed_str, borrowed_text, raw_json, BorrowedStr};
use crate::transcript::blocks::{walk_usage, LenientU64, StrOrSeq};
use crate::transcript::model::{MediaKind, Part};
use crate::transcript::scan;
use crate::transcript::text::Text;

/// The entry fields this reader uses; every other field is skipped unread.
#[derive(Default)]
pub(super) struct Line<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    /// `message` of a `message` entry, read directly when `type` came first.
    pub(super) message: Option<AgentMessage<'a>>,
    /// `message` as raw JSON, when it came before `type`.
    pub(super) raw_message: Option<&'a str>,
    /// `summary` of `compaction` and `branch_summary`, a string, decoded once the type is known.
    pub(super) summary: Option<&'a str>,
    /// `content` of a `custom_message` entry, read directly when `type` came first.
    pub(super) content: Option<Content<'a>>,
    /// `content` as raw JSON, when it came before `type`.
    pub(super) raw_content: Option<&'a str>,
    /// `id` (v2, v3), raw: a header's `id` is the session's, not an entry's.
    pub(super) id: Option<&'a str>,
    /// `parentId` (v2, v3): `null` for the first entry.
    pub(super) parent_id: Option<&'a str>,
    /// `firstKeptEntryId` of a v2/v3 `compaction`.
    pub(super) first_kept_entry_id: Option<&'a str>,
    /// `firstKeptEntryIndex` of a v1 `compaction`.
    pub(super) first_kept_entry_index: Option<&'a str>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
pub(super) enum Key {
    Type,
    Message,
    Summary,
    Content,
    Id,
    #[serde(rename = "parentId")]
    ParentId,
    #[serde(rename = "firstKeptEntryId")]
    FirstKeptEntryId,
    #[serde(rename = "firstKeptEntryIndex")]
    FirstKeptEntryIndex,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Line<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LineVisitor)
    }
}

pub(super) struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a pi session entry object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut line = Line::default();
        while let Some(key) = map.next_key::<Key>()? {
            // A field is read directly only on the entry type that uses it; on other types it
            // may have any shape and is skipped. Before `type` is known it is kept raw.
            let kind = line.kind.as_deref();
            match (key, kind) {
                (Key::Type, _) => line.kind = Some(map.next_value::<BorrowedStr<'de>>()?.0),
                (Key::Message, Some("message")) => line.message = Some(map.next_value()?),
                (Key::Message, None) => {
                    line.raw_message = Some(map.next_value::<&RawValue>()?.get())
                }
                (Key::Summary, Some("compaction" | "branch_summary") | None) => {
                    line.summary = Some(map.next_value::<&RawValue>()?.get())
                }
                (Key::Content, Some("custom_message")) => {
                    let blocks = map.next_value::<StrOrSeq<Block>>()?;
                    line.content = Some(content_of_blocks(blocks))
                }
                (Key::Content, None) => {
                    line.raw_content = Some(map.next_value::<&RawValue>()?.get())
                }
                (Key::Id, _) => line.id = Some(map.next_value::<&RawValue>()?.get()),
                (Key::ParentId, _) => line.parent_id = Some(map.next_value::<&RawValue>()?.get()),
                (Key::FirstKeptEntryId, _) => {
                    line.first_kept_entry_id = Some(map.next_value::<&RawValue>()?.get())
                }
                (Key::FirstKeptEntryIndex, _) => {
                    line.first_kept_entry_index = Some(map.next_value::<&RawValue>()?.get())
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(line)
    }
}

impl<'a> Line<'a> {
    /// Reads the entry `text` holds into `line`, a default one, by walking it (see [`scan`])
    /// as [`LineVisitor`] reads it, so that message text stays escaped until something needs
    /// it decoded; `None` when the walk gives up, and serde must read the line.
    pub(super) fn walk(text: &'a str, line: &mut Line<'a>) -> Option<()> {
        let scanner = scan::Scanner::new(text.as_bytes());
        let mut walk = scan::Walk::new(&scanner, text, 0);
        walk.object(|key, walk| {
            let kind = line.kind.as_deref();
            match (key, kind) {
                (b"type", _) => line.kind = Some(walk.string()?.into_cow()),
                (b"message", Some("message")) => line.message = Some(AgentMessage::walk(walk)?),
                (b"message", None) => line.raw_message = Some(walk.value()?),
                (b"summary", Some("compaction" | "branch_summary") | None) => {
                    line.summary = Some(walk.value()?)
                }
                (b"content", Some("custom_message")) => line.content = Some(walk_content(walk)?),
                (b"content", None) => line.raw_content = Some(walk.value()?),
                (b"id", _) => line.id = Some(walk.value()?),
                (b"parentId", _) => line.parent_id = Some(walk.value()?),
                (b"firstKeptEntryId", _) => line.first_kept_entry_id = Some(walk.value()?),
                (b"firstKeptEntryIndex", _) => line.first_kept_entry_index = Some(walk.value()?),
                _ => {
                    walk.skip()?;
                }
            }
            Some(())
        })?;
        (walk.position() == text.len()).then_some(())
    }
}

/// An agent message, flattened: every field the roles read here use.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct AgentMessage<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) role: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "deserialize_content")]
    pub(super) content: Content<'a>,
    /// `toolResult`: the id of the call it answers.
    #[serde(rename = "toolCallId", borrow, deserialize_with = "borrowed_str")]
    pub(super) tool_call_id: Option<Cow<'a, str>>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) usage: Option<&'a str>,
    /// The counts of `usage`, when the walk read them along with the message.
    #[serde(skip)]
    pub(super) usage_counts: Option<[LenientU64; 5]>,
    /// `bashExecution`: the command and its output.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) command: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub(super) output: Option<Text<'a>>,
    #[serde(rename = "excludeFromContext", borrow, deserialize_with = "raw_json")]
    pub(super) exclude_from_context: Option<&'a str>,
    /// `branchSummary` / `compactionSummary` roles.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) summary: Option<Cow<'a, str>>,
}

/// A content block, flattened: `text`, `thinking`, `toolCall`, `image` (whose base64 `data` is
/// skipped unread) ….
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub(super) text: Option<Text<'a>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub(super) thinking: Option<Text<'a>>,
    /// `toolCall`: the call's id.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "raw_json")]
    pub(super) arguments: Option<&'a str>,
}

impl<'a> AgentMessage<'a> {
    const KEYS: [&'static str; 8] = [
        "role",
        "content",
        "toolCallId",
        "usage",
        "command",
        "output",
        "excludeFromContext",
        "summary",
    ];

    /// The message the walk stands at, read as serde would read it; `None` when the walk
    /// gives up.
    pub(super) fn walk(walk: &mut scan::Walk<'_, 'a>) -> Option<Self> {
        let mut message = AgentMessage::default();
        walk.fields(Self::KEYS, |field, walk| {
            match field {
                0 => message.role = walk.optional_str()?,
                1 => message.content = walk_content(walk)?,
                2 => message.tool_call_id = walk.optional_str()?,
                3 => (message.usage, message.usage_counts) = walk_usage(walk, PiUsage::KEYS)?,
                4 => message.command = walk.optional_str()?,
                5 => message.output = walk.optional_string()?,
                6 => message.exclude_from_context = walk.raw()?,
                _ => message.summary = walk.optional_str()?,
            }
            Some(())
        })?;
        Some(message)
    }
}

impl<'a> Block<'a> {
    const KEYS: [&'static str; 6] = ["type", "text", "thinking", "id", "name", "arguments"];

    /// The block the walk stands at, read as serde would read it; `None` when the walk gives
    /// up.
    pub(super) fn walk(walk: &mut scan::Walk<'_, 'a>) -> Option<Self> {
        let mut block = Block::default();
        walk.fields(Self::KEYS, |field, walk| {
            match field {
                0 => block.kind = walk.optional_str()?,
                1 => block.text = walk.optional_string()?,
                2 => block.thinking = walk.optional_string()?,
                3 => block.id = walk.optional_str()?,
                4 => block.name = walk.optional_str()?,
                _ => block.arguments = walk.raw()?,
            }
            Some(())
        })?;
        Some(block)
    }
}

/// The token counts of an assistant message's `usage`.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct PiUsage {
    pub(super) input: LenientU64,
    pub(super) output: LenientU64,
    pub(super) cache_read: LenientU64,
    pub(super) cache_write: LenientU64,
    pub(super) total_tokens: LenientU64,
}

impl PiUsage {
    /// The fields, in the order of [`PiUsage::counts`].
    const KEYS: [&'static str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

    pub(super) fn counts(&self) -> [LenientU64; 5] {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total_tokens,
        ]
    }
}

/// Message content: a string, or its blocks, each read into the part it stands for as it is
/// read (as [`crate::transcript::blocks::AnthropicContent`] is, and for the same reason).
pub(super) type Content<'a> = StrOrSeq<'a, Part<'a>>;

/// The content the walk stands at (see [`StrOrSeq::walk`]).
pub(super) fn walk_content<'a>(walk: &mut scan::Walk<'_, 'a>) -> Option<Content<'a>> {
    StrOrSeq::walk(walk, |walk| Block::walk(walk).map(block_part))
}

/// Content as serde reads it, for `#[serde(deserialize_with = "deserialize_content")]`.
pub(super) fn deserialize_content<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Content<'a>, D::Error> {
    StrOrSeq::<Block>::deserialize(deserializer).map(content_of_blocks)
}

/// The content of these blocks.
pub(super) fn content_of_blocks<'a>(content: StrOrSeq<'a, Block<'a>>) -> Content<'a> {
    match content {
        StrOrSeq::Str(text) => StrOrSeq::Str(text),
        StrOrSeq::Seq(blocks) => StrOrSeq::Seq(blocks.into_iter().map(block_part).collect()),
    }
}

pub(super) fn block_part(block: Block<'_>) -> Part<'_> {
    let kind = block.kind.unwrap_or_default();
    match kind.as_ref() {
        "text" => Part::Text(block.text.unwrap_or_default()),
        "thinking" => Part::Thinking(block.thinking.unwrap_or_default()),
        "toolCall" => Part::ToolCall {
            id: block.id,
            name: block.name.unwrap_or_default(),
            arguments: block.arguments.unwrap_or("{}").into(),
        },
        "image" => Part::Media(MediaKind::Image),
        _ => Part::Other(kind),
    }
}
