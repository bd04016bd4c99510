//! Reading pi coding-agent sessions, session formats v1 to v3.
//!
//! Every line is an entry with a top-level `type`:
//!
//! - `message` entries hold an agent message in `message`, by `role`:
//!   - `user`: content a string or `text` / `image` blocks;
//!   - `assistant`: `text`, `thinking` and `toolCall` blocks (with their `id`; arguments are an
//!     object, kept as its JSON text), with `usage`, which gives the context size (below);
//!   - `toolResult`: a [`Role::Tool`] message answering the call its `toolCallId` names
//!     ([`Message::call_id`]), its text blocks joined into one tool result, followed by any
//!     images;
//!   - `bashExecution` (a `!command` the user ran): pi sends it to the model as a user message,
//!     so it is a user message with the command as text and the output as a tool result that
//!     answers no call. With
//!     `excludeFromContext` (`!!command`) the model never sees it, and it is bookkeeping
//!     (`bashExecution/excluded`);
//!   - `custom` (v3; `hookMessage` in v2): extension content pi sends as a user message;
//!   - `branchSummary` / `compactionSummary`: a summary sent as a user message;
//!   - any other role: bookkeeping `message/<role>`.
//! - `compaction` is pi's own compaction marker ([`Record::compaction`]): a user message with
//!   the summary, which is what the model is sent in place of the entries it replaces.
//! - `branch_summary` is a user message with its summary (pi drops an empty one, and so does
//!   this reader: it is then bookkeeping).
//! - `custom_message` (v3) is extension content that pi does send to the model, as a user
//!   message; unlike `custom`, which is extension state and bookkeeping.
//! - `session` (the header), `model_change`, `thinking_level_change`, `custom`, `label`,
//!   `session_info` and unknown types are bookkeeping named by their type.
//!
//! The summaries are read without the fixed wording pi wraps them in when it builds a request
//! (`The conversation history before this point was compacted …`): that text is pi's, not the
//! transcript's.
//!
//! Context size: an assistant message's `usage.totalTokens`, or when absent (v1 files) the sum
//! of `input`, `output`, `cacheRead` and `cacheWrite`. A size of zero is no size: pi writes an
//! all-zero usage for a request aborted before the provider answered.
//!
//! Speed: a line is walked with [`crate::transcript::scan`] (serde reads it when the walk gives
//! up): the entry's `message` is read straight into its struct once `type` has been seen, its
//! texts kept escaped ([`crate::transcript::text::Text`]) so that counting them decodes
//! nothing; only when `type` comes later is `message` kept raw and read afterwards.
//! `LineVisitor` reads the same fields the same way with serde.
//!

use std::borrow::Cow;
use std::fmt;

use anyhow::{bail, Result};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::prune::PRUNE_CUSTOM_TYPE;
use super::Pi;
use crate::transcript::blocks::{borrowed_str, borrowed_text, raw_json, BorrowedStr};
use crate::transcript::blocks::{join_texts, usage_counts, walk_usage, LenientU64, StrOrSeq};
use crate::transcript::format::{Format, Tree};
use crate::transcript::json::{str_at, str_field, top_level_str, top_level_value};
use crate::transcript::model::{
    node_id, Entry, Event, Keep, Link, MediaKind, Message, Parent, Part, Record, Role, Usage,
};
use crate::transcript::scan;
use crate::transcript::text::Text;

impl Format for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn detect(&self, head: &[Value]) -> bool {
        // A header written with neither `provider` nor `version` (pi 0.27, the eval corpus's
        // pi-mono-2638daee) is pi's when a later line is a pi message entry.
        let messages = head.iter().any(|line| {
            str_field(line, "type") == Some("message")
                && line.get("message").and_then(|m| m.get("role")).is_some()
        });
        head.iter().any(|line| {
            str_field(line, "type") == Some("session")
                && line.get("cwd").is_some()
                && (line.get("provider").is_some() || line.get("version").is_some() || messages)
        })
    }

    /// An entry linked by `parentId` (v2, v3), or the session header.
    fn envelope(&self, line: &Value) -> bool {
        let kind = str_field(line, "type");
        let has = |key: &str| line.get(key).is_some();
        (has("parentId") && has("id") && kind.is_some())
            || (kind == Some("session") && has("id") && has("cwd"))
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some("compaction")
    }

    /// Entries (v2, v3) chain by `parentId`; pi resumes from the last entry, whatever it is.
    fn tree(&self) -> Option<Tree> {
        Some(Tree {
            parent: "parentId",
            id: "id",
            messages_only: false,
        })
    }

    /// The header's or a `model_change` entry's `modelId`, or an assistant message's `model`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        match str_at(raw, &["type"]).as_deref() {
            Some("session" | "model_change") => str_at(raw, &["modelId"]),
            Some("message") => str_at(raw, &["message", "model"]),
            _ => None,
        }
    }

    /// The header's `cwd`.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("session") {
            return None;
        }
        str_at(raw, &["cwd"])
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        // The entry is read into one place and taken from there: a `Line` is over 500 bytes,
        // and handing it on by value copied it several times a line.
        let mut entry = Line::default();
        if Line::walk(text, &mut entry).is_none() {
            entry = serde_json::from_str(text)?;
        }
        record_of(line, text, &mut entry)
    }
}

/// The record of an entry read from line `line`, whose text is `text`; what it uses is taken
/// out of `entry`.
fn record_of<'a>(line: usize, text: &'a str, entry: &mut Line<'a>) -> Result<Record<'a>> {
    let mut link = entry_link(entry);
    if entry.kind.as_deref() == Some("custom")
        && top_level_str(text.as_bytes(), "customType").as_deref() == Some(PRUNE_CUSTOM_TYPE)
    {
        link.event = Event::VoidUsage(prune_tokens_after(text));
    }
    let mut record = read_entry(line, text, entry)?;
    record.link = link;
    Ok(record)
}

/// `data.tokensAfter` of a `condense-prune` entry: the context size after the prune.
fn prune_tokens_after(text: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Data {
        #[serde(rename = "tokensAfter", default)]
        tokens_after: LenientU64,
    }
    let span = top_level_value(text.as_bytes(), "data")?;
    serde_json::from_str::<Data>(&text[span])
        .ok()?
        .tokens_after
        .0
}

/// An entry's place in the session tree (v2, v3: `id`, `parentId`) and, for a `compaction`,
/// what it keeps. The header is no entry: pi leaves it out of the tree.
fn entry_link<'a>(entry: &Line<'a>) -> Link {
    let string = |raw: Option<&'a str>| raw.and_then(scan::json_string);
    let kind = entry.kind.as_deref();
    if kind == Some("session") {
        return Link::default();
    }
    let parent = match entry.parent_id {
        None => Parent::Unlinked,
        Some("null") => Parent::Root,
        Some(_) => {
            string(entry.parent_id).map_or(Parent::Unlinked, |id| Parent::Node(node_id(&id)))
        }
    };
    let event = match kind {
        Some("compaction") => Event::Compaction(
            match (
                string(entry.first_kept_entry_id),
                entry
                    .first_kept_entry_index
                    .and_then(|raw| raw.parse::<usize>().ok()),
            ) {
                (Some(id), _) => Keep::FromNode(node_id(&id)),
                (None, Some(index)) => Keep::FromEntry(index),
                (None, None) => Keep::Nothing,
            },
        ),
        _ => Event::None,
    };
    Link {
        id: string(entry.id).map(|id| node_id(&id)),
        parent,
        event,
        response: None,
    }
}

/// The record of an entry, without its link; what it uses is taken out of `entry`.
fn read_entry<'a>(line: usize, text: &'a str, entry: &mut Line<'a>) -> Result<Record<'a>> {
    let raw = text.as_bytes();
    let Some(kind) = entry.kind.take() else {
        bail!("line has no \"type\"");
    };
    let bookkeeping = |name| Ok(Record::new(line, raw, Entry::Bookkeeping(name)));
    match kind.as_ref() {
        "message" => {
            let message = match (entry.message.take(), entry.raw_message) {
                (Some(message), _) => message,
                (None, Some(raw_message)) if raw_message.starts_with('{') => {
                    serde_json::from_str(raw_message)?
                }
                _ => bail!("message line has no \"message\" object"),
            };
            read_message(line, raw, message)
        }
        "compaction" => {
            let summary = summary_text(entry.summary)?.unwrap_or_default();
            let mut record = user_record(line, raw, vec![Part::Text(summary.into())]);
            record.compaction = true;
            Ok(record)
        }
        "branch_summary" => match summary_text(entry.summary)?.filter(|s| !s.is_empty()) {
            Some(summary) => Ok(user_record(line, raw, vec![Part::Text(summary.into())])),
            None => bookkeeping(kind),
        },
        "custom_message" => {
            let content = match (entry.content.take(), entry.raw_content) {
                (Some(content), _) => content,
                (None, Some(raw_content)) => content_of_blocks(serde_json::from_str(raw_content)?),
                (None, None) => StrOrSeq::default(),
            };
            Ok(user_record(line, raw, content_parts(content)))
        }
        _ => bookkeeping(kind),
    }
}

/// The entry fields this reader uses; every other field is skipped unread.
#[derive(Default)]
struct Line<'a> {
    kind: Option<Cow<'a, str>>,
    /// `message` of a `message` entry, read directly when `type` came first.
    message: Option<AgentMessage<'a>>,
    /// `message` as raw JSON, when it came before `type`.
    raw_message: Option<&'a str>,
    /// `summary` of `compaction` and `branch_summary`, a string, decoded once the type is known.
    summary: Option<&'a str>,
    /// `content` of a `custom_message` entry, read directly when `type` came first.
    content: Option<Content<'a>>,
    /// `content` as raw JSON, when it came before `type`.
    raw_content: Option<&'a str>,
    /// `id` (v2, v3), raw: a header's `id` is the session's, not an entry's.
    id: Option<&'a str>,
    /// `parentId` (v2, v3): `null` for the first entry.
    parent_id: Option<&'a str>,
    /// `firstKeptEntryId` of a v2/v3 `compaction`.
    first_kept_entry_id: Option<&'a str>,
    /// `firstKeptEntryIndex` of a v1 `compaction`.
    first_kept_entry_index: Option<&'a str>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
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

struct LineVisitor;

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
    fn walk(text: &'a str, line: &mut Line<'a>) -> Option<()> {
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
struct AgentMessage<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "deserialize_content")]
    content: Content<'a>,
    /// `toolResult`: the id of the call it answers.
    #[serde(rename = "toolCallId", borrow, deserialize_with = "borrowed_str")]
    tool_call_id: Option<Cow<'a, str>>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow, deserialize_with = "raw_json")]
    usage: Option<&'a str>,
    /// The counts of `usage`, when the walk read them along with the message.
    #[serde(skip)]
    usage_counts: Option<[LenientU64; 5]>,
    /// `bashExecution`: the command and its output.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    output: Option<Text<'a>>,
    #[serde(rename = "excludeFromContext", borrow, deserialize_with = "raw_json")]
    exclude_from_context: Option<&'a str>,
    /// `branchSummary` / `compactionSummary` roles.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    summary: Option<Cow<'a, str>>,
}

/// A content block, flattened: `text`, `thinking`, `toolCall`, `image` (whose base64 `data` is
/// skipped unread) ….
#[derive(Deserialize, Default)]
#[serde(default)]
struct Block<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    text: Option<Text<'a>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    thinking: Option<Text<'a>>,
    /// `toolCall`: the call's id.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "raw_json")]
    arguments: Option<&'a str>,
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
    fn walk(walk: &mut scan::Walk<'_, 'a>) -> Option<Self> {
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
    fn walk(walk: &mut scan::Walk<'_, 'a>) -> Option<Self> {
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
struct PiUsage {
    input: LenientU64,
    output: LenientU64,
    cache_read: LenientU64,
    cache_write: LenientU64,
    total_tokens: LenientU64,
}

impl PiUsage {
    /// The fields, in the order of [`PiUsage::counts`].
    const KEYS: [&'static str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

    fn counts(&self) -> [LenientU64; 5] {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total_tokens,
        ]
    }
}

fn user_record<'a>(line: usize, raw: &'a [u8], parts: Vec<Part<'a>>) -> Record<'a> {
    Record::new(line, raw, Entry::Message(Message::new(Role::User, parts)))
}

/// The record of a `message` entry.
fn read_message<'a>(line: usize, raw: &'a [u8], message: AgentMessage<'a>) -> Result<Record<'a>> {
    let Some(role_name) = message.role else {
        bail!("message has no \"role\"");
    };
    let (role, parts) = match role_name.as_ref() {
        "user" | "custom" | "hookMessage" => (Role::User, content_parts(message.content)),
        "assistant" => {
            let usage = usage_counts(message.usage_counts, message.usage, |usage: PiUsage| {
                usage.counts()
            })
            .and_then(context_size);
            let parts = content_parts(message.content);
            let mut record = Record::new(
                line,
                raw,
                Entry::Message(Message::new(Role::Assistant, parts)),
            );
            record.usage = usage;
            return Ok(record);
        }
        "toolResult" => {
            let parts = tool_result_parts(message.content);
            let message = Message::new(Role::Tool, parts).answering(message.tool_call_id);
            return Ok(Record::new(line, raw, Entry::Message(message)));
        }
        "bashExecution" => {
            if message
                .exclude_from_context
                .is_some_and(|raw| raw == "true")
            {
                let name = Cow::Borrowed("bashExecution/excluded");
                return Ok(Record::new(line, raw, Entry::Bookkeeping(name)));
            }
            let parts = vec![
                Part::Text(message.command.unwrap_or_default().into()),
                Part::ToolResult {
                    call_id: None,
                    text: message.output.unwrap_or_default(),
                },
            ];
            (Role::User, parts)
        }
        "branchSummary" | "compactionSummary" => (
            Role::User,
            vec![Part::Text(message.summary.unwrap_or_default().into())],
        ),
        _ => {
            let name = Cow::Owned(format!("message/{role_name}"));
            return Ok(Record::new(line, raw, Entry::Bookkeeping(name)));
        }
    };
    Ok(Record::new(
        line,
        raw,
        Entry::Message(Message::new(role, parts)),
    ))
}

/// Message content: a string, or its blocks, each read into the part it stands for as it is
/// read (as [`crate::transcript::blocks::AnthropicContent`] is, and for the same reason).
type Content<'a> = StrOrSeq<'a, Part<'a>>;

/// The content the walk stands at (see [`StrOrSeq::walk`]).
fn walk_content<'a>(walk: &mut scan::Walk<'_, 'a>) -> Option<Content<'a>> {
    StrOrSeq::walk(walk, |walk| Block::walk(walk).map(block_part))
}

/// Content as serde reads it, for `#[serde(deserialize_with = "deserialize_content")]`.
fn deserialize_content<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Content<'a>, D::Error> {
    StrOrSeq::<Block>::deserialize(deserializer).map(content_of_blocks)
}

/// The content of these blocks.
fn content_of_blocks<'a>(content: StrOrSeq<'a, Block<'a>>) -> Content<'a> {
    match content {
        StrOrSeq::Str(text) => StrOrSeq::Str(text),
        StrOrSeq::Seq(blocks) => StrOrSeq::Seq(blocks.into_iter().map(block_part).collect()),
    }
}

/// The parts of message content, one per block.
fn content_parts(content: Content<'_>) -> Vec<Part<'_>> {
    match content {
        StrOrSeq::Str(text) => vec![Part::Text(text)],
        StrOrSeq::Seq(parts) => parts,
    }
}

fn block_part(block: Block<'_>) -> Part<'_> {
    let kind = block.kind.unwrap_or_default();
    match kind.as_ref() {
        "text" => Part::Text(block.text.unwrap_or_default()),
        "thinking" => Part::Thinking(block.thinking.unwrap_or_default()),
        "toolCall" => Part::ToolCall {
            id: block.id,
            name: block.name.unwrap_or_default(),
            arguments: block.arguments.map_or(Cow::Borrowed("{}"), Cow::Borrowed),
        },
        "image" => Part::Media(MediaKind::Image),
        _ => Part::Other(kind),
    }
}

/// A tool result: its text blocks joined into one tool result, then any images it returned. The
/// parts carry no call id: pi keys the whole message (`toolCallId`).
fn tool_result_parts(content: Content<'_>) -> Vec<Part<'_>> {
    let result = |text| Part::ToolResult {
        call_id: None,
        text,
    };
    match content {
        StrOrSeq::Str(text) => vec![result(text)],
        StrOrSeq::Seq(parts) => {
            let mut texts: Vec<Text> = Vec::new();
            let mut extras = Vec::new();
            for part in parts {
                match part {
                    Part::Text(text) => texts.push(text),
                    other => extras.push(other),
                }
            }
            let mut parts = vec![result(join_texts(texts))];
            parts.extend(extras);
            parts
        }
    }
}

/// The context size an assistant message's usage reports (its counts as [`PiUsage::counts`]
/// orders them), if it reports one.
fn context_size(counts: [LenientU64; 5]) -> Option<Usage> {
    let [input, output, cache_read, cache_write, total_tokens] = counts;
    let context_tokens = match total_tokens.0.filter(|&total| total > 0) {
        Some(total) => total,
        None => [input, output, cache_read, cache_write]
            .iter()
            .fold(0u64, |sum, count| sum.saturating_add(count.or_zero())),
    };
    (context_tokens > 0).then_some(Usage {
        context_tokens,
        response_key: None,
    })
}

/// A summary field's text; `None` when absent or `null`, an error when it is not a string.
fn summary_text(raw: Option<&str>) -> Result<Option<Cow<'_, str>>> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let text: Option<BorrowedStr<'_>> = serde_json::from_str(raw)?;
    Ok(text.map(|text| text.0))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::transcript::model::testing;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

    #[test]
    fn walking_an_entry_reads_what_serde_reads_on_every_real_line() {
        let files = [
            "fixtures/corpus/pi/pi-mono-large-session.jsonl",
            "fixtures/agents/pi-branched.jsonl",
            "fixtures/agents/pi-compacted-twice.jsonl",
        ];
        let (mut walked, mut usages) = (0, 0);
        for file in files {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let text = std::fs::read_to_string(path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let mut entry = Line::default();
                Line::walk(line, &mut entry).unwrap_or_else(|| panic!("{file}:{}", n + 1));
                if let Some(message) = entry.message.as_ref().filter(|m| m.usage.is_some()) {
                    assert!(message.usage_counts.is_some(), "{file}:{}", n + 1);
                    usages += 1;
                }
                let mut serde: Line = serde_json::from_str(line).unwrap();
                let walk = record_of(n + 1, line, &mut entry).map_err(|e| e.to_string());
                let serde = record_of(n + 1, line, &mut serde).map_err(|e| e.to_string());
                assert_eq!(walk, serde, "{file}:{}", n + 1);
                walked += 1;
            }
        }
        assert!(walked > 1000, "{walked}");
        assert!(usages > 100, "{usages}");
    }

    #[test]
    fn an_entry_the_walk_gives_up_on_is_read_by_serde() {
        for line in [
            r#"{"type":"message","message":{"role":"user","role":"user","content":"a"}}"#,
            r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":1}]}}"#,
            r#"{"ty\u0070e":"message","message":{"role":"user","content":"a"}}"#,
            r#"{"type":"message","message":{"role":"user","content":"bad \q"}}"#,
            r#"{"type":7}"#,
        ] {
            assert!(Line::walk(line, &mut Line::default()).is_none(), "{line}");
            let serde = serde_json::from_str::<Line>(line)
                .map_err(anyhow::Error::from)
                .and_then(|mut entry| record_of(1, line, &mut entry).map(|_| ()));
            assert_eq!(Pi.read(1, line).is_ok(), serde.is_ok(), "{line}");
        }
    }

    fn read(text: &str) -> Record<'_> {
        Pi.read(1, text).unwrap()
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
    fn reads_user_messages() {
        let record = read(
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"AAA","mimeType":"image/png"}],"timestamp":1}}"#,
        );
        assert_eq!(role(&record), Role::User);
        assert_eq!(
            parts(&record),
            [Part::Text("hi".into()), Part::Media(MediaKind::Image)]
        );
        assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
        let plain = read(r#"{"type":"message","message":{"role":"user","content":"plain"}}"#);
        assert_eq!(parts(&plain), [Part::Text("plain".into())]);
    }

    #[test]
    fn reads_assistant_blocks_and_usage() {
        let record = read(
            r#"{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a.ts"},"partialJson":"{\"pa"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":3,"output":191,"cacheRead":10,"cacheWrite":1684,"cost":{"total":0.01}},"stopReason":"toolUse","timestamp":2}}"#,
        );
        assert_eq!(role(&record), Role::Assistant);
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("hmm".into()),
                Part::Text("Reading.".into()),
                Part::ToolCall {
                    id: Some("t1".into()),
                    name: "read".into(),
                    arguments: r#"{"path":"a.ts"}"#.into()
                },
            ]
        );
        assert_eq!(
            record.usage,
            Some(Usage {
                context_tokens: 1888,
                response_key: None
            })
        );
    }

    #[test]
    fn usage_edge_cases() {
        let usage = |usage: &str| {
            let line = format!(
                r#"{{"type":"message","message":{{"role":"assistant","content":[],"usage":{usage}}}}}"#
            );
            Pi.read(1, &line).unwrap().usage.map(|u| u.context_tokens)
        };
        // totalTokens wins when present.
        assert_eq!(
            usage(r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":50}"#),
            Some(50)
        );
        assert_eq!(
            usage(r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4}"#),
            Some(10)
        );
        // An aborted request's all-zero usage, and unreadable usage, report nothing.
        assert_eq!(
            usage(r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}"#),
            None
        );
        assert_eq!(usage(r#""lots""#), None);
        assert_eq!(usage("null"), None);
        // Only assistant messages carry a context size.
        let user = read(
            r#"{"type":"message","message":{"role":"user","content":"x","usage":{"totalTokens":5}}}"#,
        );
        assert!(user.usage.is_none());
    }

    #[test]
    fn reads_tool_results() {
        let record = read(
            r#"{"type":"message","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"a"},{"type":"image","data":"AAA","mimeType":"image/png"},{"type":"text","text":"b"}],"details":{"diff":"x"},"isError":false}}"#,
        );
        assert_eq!(role(&record), Role::Tool);
        assert_eq!(
            parts(&record),
            [
                Part::ToolResult {
                    call_id: None,
                    text: "a\nb".into()
                },
                Part::Media(MediaKind::Image)
            ]
        );
        let message = record.message().unwrap();
        assert_eq!(message.call_id, Some(Cow::Borrowed("t1")));
        assert!(matches!(message.call_id, Some(Cow::Borrowed(_))));
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["t1"]);
    }

    #[test]
    fn reads_bash_executions() {
        let record = read(
            r#"{"type":"message","message":{"role":"bashExecution","command":"ls","output":"a.txt\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}"#,
        );
        assert_eq!(role(&record), Role::User);
        assert_eq!(
            parts(&record),
            [
                Part::Text("ls".into()),
                Part::ToolResult {
                    call_id: None,
                    text: "a.txt\n".into()
                }
            ]
        );
        assert_eq!(record.message().unwrap().answered_ids().count(), 0);
        let excluded = read(
            r#"{"type":"message","message":{"role":"bashExecution","command":"ls","output":"x","excludeFromContext":true}}"#,
        );
        assert_eq!(bookkeeping(&excluded), "bashExecution/excluded");
    }

    #[test]
    fn reads_other_message_roles() {
        let custom = read(
            r#"{"type":"message","message":{"role":"custom","customType":"x","content":"note","display":true}}"#,
        );
        assert_eq!(role(&custom), Role::User);
        assert_eq!(parts(&custom), [Part::Text("note".into())]);
        let summary = read(
            r#"{"type":"message","message":{"role":"branchSummary","summary":"went left","fromId":"a"}}"#,
        );
        assert_eq!(parts(&summary), [Part::Text("went left".into())]);
        let future = read(r#"{"type":"message","message":{"role":"critic","content":"x"}}"#);
        assert_eq!(bookkeeping(&future), "message/critic");
    }

    #[test]
    fn compaction_and_summaries() {
        let v1 = read(
            r#"{"type":"compaction","timestamp":"t","summary":"Goal\nShip it","firstKeptEntryIndex":293,"tokensBefore":175004}"#,
        );
        assert!(v1.compaction);
        assert_eq!(role(&v1), Role::User);
        assert_eq!(parts(&v1), [Part::Text("Goal\nShip it".into())]);
        let v3 = read(
            r#"{"type":"compaction","id":"c","parentId":"p","timestamp":"t","summary":"S","firstKeptEntryId":"k","tokensBefore":9,"details":{"files":[]}}"#,
        );
        assert!(v3.compaction);
        let branch = read(
            r#"{"type":"branch_summary","id":"b","parentId":"p","timestamp":"t","fromId":"f","summary":"tried X"}"#,
        );
        assert!(!branch.compaction);
        assert_eq!(parts(&branch), [Part::Text("tried X".into())]);
        let empty = read(r#"{"type":"branch_summary","fromId":"f","summary":""}"#);
        assert_eq!(bookkeeping(&empty), "branch_summary");
    }

    #[test]
    fn custom_messages_reach_the_model_and_custom_entries_do_not() {
        let message = read(
            r#"{"type":"custom_message","id":"c","customType":"ext","content":[{"type":"text","text":"injected"}],"display":false}"#,
        );
        assert_eq!(role(&message), Role::User);
        assert_eq!(parts(&message), [Part::Text("injected".into())]);
        let state = read(
            r#"{"type":"custom","customType":"ext","data":{"message":"not a message","content":7}}"#,
        );
        assert_eq!(bookkeeping(&state), "custom");
    }

    #[test]
    fn bookkeeping_entries() {
        for (line, name) in [
            (
                r#"{"type":"session","id":"s","timestamp":"t","cwd":"/","provider":"anthropic","modelId":"m","thinkingLevel":"off"}"#,
                "session",
            ),
            (
                r#"{"type":"model_change","timestamp":"t","provider":"p","modelId":"m"}"#,
                "model_change",
            ),
            (
                r#"{"type":"thinking_level_change","thinkingLevel":"low"}"#,
                "thinking_level_change",
            ),
            (r#"{"type":"label","targetId":"x","label":"l"}"#, "label"),
            (r#"{"type":"session_info","name":"n"}"#, "session_info"),
            (
                r#"{"type":"brand_new","summary":7,"message":[]}"#,
                "brand_new",
            ),
        ] {
            let record = read(line);
            assert_eq!(bookkeeping(&record), name);
            assert!(record.usage.is_none() && !record.compaction);
        }
    }

    #[test]
    fn fields_before_type_are_read_the_same() {
        let record = read(
            r#"{"message":{"role":"user","content":"late"},"timestamp":"t","type":"message"}"#,
        );
        assert_eq!(parts(&record), [Part::Text("late".into())]);
        let compaction = read(r#"{"summary":"S","type":"compaction"}"#);
        assert!(compaction.compaction);
        assert_eq!(parts(&compaction), [Part::Text("S".into())]);
        let custom = read(r#"{"content":"c","type":"custom_message"}"#);
        assert_eq!(parts(&custom), [Part::Text("c".into())]);
        // A field another entry type shapes differently is skipped once the type is known.
        let state = read(r#"{"content":7,"message":"x","type":"custom"}"#);
        assert_eq!(bookkeeping(&state), "custom");
    }

    #[test]
    fn errors_do_not_quote_the_line() {
        let no_type = Pi.read(1, r#"{"message":{"role":"user"}}"#).unwrap_err();
        assert_eq!(no_type.to_string(), "line has no \"type\"");
        let no_message = Pi.read(1, r#"{"type":"message"}"#).unwrap_err();
        assert_eq!(
            no_message.to_string(),
            "message line has no \"message\" object"
        );
        assert!(Pi
            .read(1, r#"{"type":"message","message":{"content":"x"}}"#)
            .is_err());
        let shape = Pi
            .read(
                1,
                r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":["secret"]}]}}"#,
            )
            .unwrap_err()
            .to_string();
        assert!(!shape.contains("secret"), "{shape}");
        assert!(Pi
            .read(1, r#"{"type":"message","message":"secret"}"#)
            .is_err());
        assert!(Pi.read(1, "{\"type\":").is_err());
        // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
        // recognises on an unterminated last line.
        let cut = Pi
            .read(1, r#"{"type":"message","message":{"role":"us"#)
            .unwrap_err();
        assert!(cut
            .downcast_ref::<serde_json::Error>()
            .is_some_and(serde_json::Error::is_eof));
    }

    #[test]
    fn detection() {
        assert!(Pi.detect(&head(&[
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/","provider":"anthropic","modelId":"m"}"#
        ])));
        assert!(Pi.detect(&head(&[
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#
        ])));
        assert!(!Pi.detect(&head(&[r#"{"type":"session","id":"s","cwd":"/"}"#])));
        assert!(Pi.detect(&head(&[
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/"}"#,
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"x"}}"#
        ])));
        assert!(!Pi.detect(&head(&[
            r#"{"type":"message","message":{"role":"user","content":"x"}}"#
        ])));
    }

    #[test]
    fn reads_the_pi_corpus() {
        let lines = corpus("pi/pi-mono-large-session.jsonl");
        let head = corpus_head(&lines);
        assert!(Pi.detect(&head));
        let (records, (messages, compactions, usages)) = read_all(&Pi, &lines);
        // Counted with jq:
        //   messages: jq -c 'select(.type=="message")' FILE | wc -l                   → 914
        //   compactions: jq -c 'select(.type=="compaction")' FILE | wc -l             → 0
        //   usages: jq -c 'select(.type=="message" and .message.role=="assistant")
        //     | .message.usage | select((.totalTokens // (.input + .output + .cacheRead
        //     + .cacheWrite)) > 0)' FILE | wc -l                                      → 439
        assert_eq!((messages, compactions, usages), (914, 0, 439));
        // Tool results (toolResult messages and bashExecution outputs), and those whose
        // toolCallId no earlier toolCall id has (a bashExecution answers no call: an orphan):
        //   jq -n 'reduce (inputs | select(.type=="message") | .message) as $m
        //     ({seen: {}, results: 0, orphans: 0};
        //     if $m.role=="assistant" then reduce ($m.content | arrays | .[]
        //       | select(.type=="toolCall")) as $c (.; .seen[$c.id] = true)
        //     elif $m.role=="toolResult" or ($m.role=="bashExecution"
        //       and $m.excludeFromContext != true) then .results += 1
        //       | (if .seen[$m.toolCallId // ""] then . else .orphans += 1 end)
        //     else . end) | [.results, .orphans]' FILE                           → [373, 0]
        let links = testing::links(records.iter().filter_map(Record::message));
        assert_eq!((links.results, links.orphans), (373, 0));
    }
}

/// What one message is in a pi session: each entry is one message of pi's request, and a
/// `toolResult` travels with the call it answers ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::Pi;
    use crate::transcript::messages::testing::check;

    fn entry(n: usize, message: &str) -> String {
        let parent = match n {
            0 => "null".to_owned(),
            n => format!("\"e{}\"", n - 1),
        };
        format!(
            r#"{{"type":"message","id":"e{n}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{message}}}"#
        )
    }

    fn user(n: usize, text: &str) -> String {
        entry(
            n,
            &format!(r#"{{"role":"user","content":"{text}","timestamp":1}}"#),
        )
    }

    /// An assistant response of these content blocks.
    fn response(n: usize, blocks: &[String]) -> String {
        let content = blocks.join(",");
        entry(
            n,
            &format!(r#"{{"role":"assistant","content":[{content}],"timestamp":1}}"#),
        )
    }

    fn text(text: &str) -> String {
        format!(r#"{{"type":"text","text":"{text}"}}"#)
    }

    fn call(id: &str, name: &str) -> String {
        format!(r#"{{"type":"toolCall","id":"{id}","name":"{name}","arguments":{{}}}}"#)
    }

    fn result(n: usize, id: &str) -> String {
        entry(
            n,
            &format!(
                r#"{{"role":"toolResult","toolCallId":"{id}","toolName":"read","content":[{{"type":"text","text":"ok"}}],"timestamp":1}}"#
            ),
        )
    }

    #[test]
    fn a_response_of_any_number_of_blocks_is_one_message() {
        let blocks = [
            r#"{"type":"thinking","thinking":"hm"}"#.to_owned(),
            text("one"),
            text("two"),
            call("c9", "read"),
            text("three"),
        ];
        for fragments in [1, 2, 3, 5] {
            let lines = [
                user(0, "old question"),
                response(1, &[text("old")]),
                user(2, "the question"),
                response(3, &blocks[..fragments]),
            ];
            check(&Pi, &lines, &[0..1, 1..2, 2..3, 3..4]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_travel_with_their_results() {
        let lines = [
            user(0, "read both"),
            response(1, &[call("c1", "read"), call("c2", "read")]),
            result(2, "c1"),
            result(3, "c2"),
            response(4, &[call("c3", "subagent")]),
            result(5, "c3"),
            response(6, &[text("done")]),
        ];
        check(&Pi, &lines, &[0..1, 1..4, 4..6, 6..7]);
    }
}
