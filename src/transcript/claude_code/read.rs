//! Reading Claude Code session logs.
//!
//! Every line is an event object with a top-level `type`. Lines of type `user` and `assistant`
//! are messages: their `message` is an Anthropic Messages API message (the role comes from the
//! line's `type`, the content is read like [`crate::transcript::anthropic`]'s). Everything else
//! (`system`, `summary`, `file-history-snapshot`, `queue-operation`, `progress`, `attachment`,
//! `permission-mode`, `last-prompt`, types added after this was written …) is bookkeeping named
//! by its type, and `system` lines as `system/<subtype>`.
//!
//! How the dialect's peculiarities are treated:
//!
//! - **Sidechains.** Claude Code 1.0.x writes a sub-agent's conversation into the parent's file
//!   with `"isSidechain": true`. Those lines become messages with [`Message::sidechain`] set:
//!   they count as transcript content, but never as the main agent's context.
//! - **Split assistant lines.** One API response is written as several `assistant` lines, one
//!   content block each, all sharing `message.id` (and `requestId`) and each repeating the
//!   response's `usage`. Every line stays its own record, so each can be written back unchanged;
//!   the repeated usage carries the same [`Usage::response_key`] (`<message.id>/<requestId>`) and
//!   is deduplicated downstream. Sidechain lines keep their usage too; consumers skip them.
//! - **Context size.** `usage` is input + cache creation + cache read + output tokens: what the
//!   context window held once the response was written. Harness-made assistant lines (model
//!   `<synthetic>`, e.g. "No response requested.") carry an all-zero `usage` that the provider
//!   never reported, so they get no usage rather than a context size of zero.
//! - **Compaction.** A `system` line with subtype `compact_boundary` marks Claude Code's own
//!   compaction: [`Record::compaction`] is set, since nothing before it is in the context any
//!   more. `microcompact_boundary` is not a compaction here: it clears old tool results from
//!   the API request only, and the file keeps their content. It does make the usage figures
//!   recorded before it void ([`Event::VoidUsage`]): the request after it is smaller than they
//!   say. `condense prune` appends one for the same reason, with the pruned context's size as
//!   `microcompactMetadata.postTokens`, which then stands for the records before it.
//! - **Compact summaries.** The `isCompactSummary` user line right after a boundary is an
//!   ordinary user message: it is what the model is sent in place of the earlier conversation.
//!   Assistant lines flagged `isApiErrorMessage` are likewise ordinary assistant messages.
//!
//! Speed: lines can be megabytes (a `toolUseResult` may hold whole files), so a line is walked
//! with [`crate::transcript::scan`]: its top-level fields are found by span and the rest is
//! passed over by the scanner's index. `message` is only read for message lines, which keeps
//! any bookkeeping line readable however its `message` (if it has one) is shaped, and it is
//! walked with the same index, its texts kept escaped ([`crate::transcript::text::Text`]) so
//! that counting them decodes nothing. What the walk cannot follow is read by serde, which says
//! what is wrong with it.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::ClaudeCode;
use crate::transcript::blocks::{
    anthropic_parts, deserialize_anthropic_content, raw_json, usage_counts, walk_anthropic_content,
    walk_usage, AnthropicContent, LenientU64,
};
use crate::transcript::classify::is_real_user_request;
use crate::transcript::format::{Format, Tree};
use crate::transcript::json::{str_at, str_field, top_level_str, top_level_value};
use crate::transcript::model::{
    node_id, Entry, Event, Keep, Link, Message, NodeId, Parent, Record, Role, Usage,
};
use crate::transcript::scan;

/// The envelope fields this reader uses. Scalars are kept raw so that an unexpected JSON type
/// in any of them reads as "absent" instead of failing the line.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    subtype: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default)]
    is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uuid: Option<&'a RawValue>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "compactMetadata", borrow, default)]
    compact_metadata: Option<&'a RawValue>,
}

/// The raw JSON text of the envelope fields a line's reading needs.
#[derive(Default)]
struct Fields<'a> {
    kind: Option<&'a str>,
    subtype: Option<&'a str>,
    is_sidechain: Option<&'a str>,
    request_id: Option<&'a str>,
    message: Option<&'a str>,
    uuid: Option<&'a str>,
    parent_uuid: Option<&'a str>,
    compact_metadata: Option<&'a str>,
    /// Where `message` starts in the line, and the line's scanner to walk it with (none when
    /// serde read the line).
    message_walk: Option<(usize, scan::Scanner<'a>)>,
}

impl<'a> Fields<'a> {
    /// The fields, found by walking the line's top level without parsing what is skipped:
    /// lines carry whole files in `toolUseResult`, which a full parse would scan twice as
    /// slowly. A line the walk cannot follow goes to serde_json, which says what is wrong.
    fn of(text: &'a str) -> Result<Self> {
        let scanner = scan::Scanner::new(text.as_bytes());
        if let Some((mut fields, message_start)) = Fields::walk(&scanner, text) {
            fields.message_walk = message_start.map(|start| (start, scanner));
            return Ok(fields);
        }
        let line: Line<'a> = serde_json::from_str(text)?;
        let get = |raw: Option<&'a RawValue>| raw.map(RawValue::get);
        Ok(Fields {
            kind: get(line.kind),
            subtype: get(line.subtype),
            is_sidechain: get(line.is_sidechain),
            request_id: get(line.request_id),
            message: get(line.message),
            uuid: get(line.uuid),
            parent_uuid: get(line.parent_uuid),
            compact_metadata: get(line.compact_metadata),
            message_walk: None,
        })
    }

    /// The fields found by walking the top level of the line `scanner` scanned, and where
    /// `message` starts; `None` where the walk gives up (an escaped key, a line that is no
    /// object).
    fn walk(scanner: &scan::Scanner<'a>, text: &'a str) -> Option<(Fields<'a>, Option<usize>)> {
        let mut fields = Fields::default();
        let mut message_start = None;
        let mut walk = scan::Walk::new(scanner, text, 0);
        walk.object(|key, walk| {
            let slot = match key {
                b"type" => &mut fields.kind,
                b"subtype" => &mut fields.subtype,
                b"isSidechain" => &mut fields.is_sidechain,
                b"requestId" => &mut fields.request_id,
                b"message" => &mut fields.message,
                b"uuid" => &mut fields.uuid,
                b"parentUuid" => &mut fields.parent_uuid,
                b"compactMetadata" => &mut fields.compact_metadata,
                _ => return walk.skip().map(drop),
            };
            let start = walk.position();
            let value = walk.value()?;
            // The first of a repeated key wins, as serde's borrowed reading would reject it
            // anyway.
            if slot.is_none() {
                *slot = Some(value);
                if key == b"message" {
                    message_start = Some(start);
                }
            }
            Some(())
        })?;
        (walk.position() == text.len()).then_some((fields, message_start))
    }
}

/// The parts of an API message a message line needs; `role`, `stop_reason` … are skipped.
#[derive(Deserialize)]
struct ApiMessage<'a> {
    #[serde(borrow, default, deserialize_with = "deserialize_anthropic_content")]
    content: AnthropicContent<'a>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    id: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    model: Option<&'a str>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    usage: Option<&'a str>,
    /// The counts of `usage`, when the walk read them along with the message.
    #[serde(skip)]
    usage_counts: Option<[LenientU64; 4]>,
}

impl<'a> ApiMessage<'a> {
    /// The message whose JSON text is `raw`, which starts at byte `start` of `line`, which
    /// `scanner` scanned. It is walked (see [`crate::transcript::scan`]), so that its text stays escaped
    /// until something needs it decoded; serde reads it when the walk gives up, and says what
    /// is wrong with it if anything is.
    fn of(raw: &'a str, line: &'a str, walk: Option<&(usize, scan::Scanner<'a>)>) -> Result<Self> {
        let walked = walk.and_then(|(start, scanner)| {
            Self::walk(scan::Walk::new(scanner, line, *start), start + raw.len())
        });
        match walked {
            Some(message) => Ok(message),
            None => Ok(serde_json::from_str(raw)?),
        }
    }

    /// The message `walk` stands at, which must end at byte `end`.
    fn walk(mut walk: scan::Walk<'_, 'a>, end: usize) -> Option<Self> {
        let mut message = ApiMessage {
            content: AnthropicContent::default(),
            id: None,
            model: None,
            usage: None,
            usage_counts: None,
        };
        walk.fields(["content", "id", "model", "usage"], |field, walk| {
            match field {
                0 => message.content = walk_anthropic_content(walk)?,
                1 => message.id = walk.raw()?,
                2 => message.model = walk.raw()?,
                _ => (message.usage, message.usage_counts) = walk_usage(walk, ApiUsage::KEYS)?,
            }
            Some(())
        })?;
        (walk.position() >= end).then_some(message)
    }
}

/// The token counts of an API response's `usage`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiUsage {
    input_tokens: LenientU64,
    cache_creation_input_tokens: LenientU64,
    cache_read_input_tokens: LenientU64,
    output_tokens: LenientU64,
}

impl ApiUsage {
    /// The fields, in the order of [`ApiUsage::counts`].
    const KEYS: [&'static str; 4] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ];

    fn counts(&self) -> [LenientU64; 4] {
        [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
            self.output_tokens,
        ]
    }
}

impl Format for ClaudeCode {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn detect(&self, head: &[Value]) -> bool {
        // A `payload` envelope is Codex's, whatever else the line has.
        if head.iter().any(|line| line.get("payload").is_some()) {
            return false;
        }
        head.iter().any(|line| match str_field(line, "type") {
            // `parentUuid` is present (null for roots) on every conversational line, which
            // tells these apart from the headless stream-json output (snake_case `session_id`,
            // no uuid chain).
            Some("user" | "assistant" | "system" | "progress" | "attachment") => {
                line.get("parentUuid").is_some() && line.get("sessionId").is_some()
            }
            Some("summary") => line.get("leafUuid").is_some(),
            Some("file-history-snapshot") => line.get("messageId").is_some(),
            _ => false,
        })
    }

    /// A line linked by `uuid`: `parentUuid` (present, `null` for roots, on every
    /// conversational line), or a `uuid` with the `sessionId`.
    fn envelope(&self, line: &Value) -> bool {
        let has = |key: &str| line.get(key).is_some();
        has("parentUuid") || (has("uuid") && has("sessionId"))
    }

    /// Claude Code's messages as its API request holds them (`normalizeMessagesForAPI`
    /// merges the lines of one response, and consecutive user lines, into one message):
    ///
    /// - an `assistant` line continues the message when an `assistant` line of it has the
    ///   same `message.id` (one response, one content block a line; the tool results of its
    ///   parallel calls can sit between them);
    /// - a `user` line of `tool_result` blocks continues the message that made the calls (a
    ///   sub-agent's report is the `Task` call's result);
    /// - any other `user` line continues a message of user lines that answer no call (the
    ///   caveat, command and reminder lines around a prompt, or two prompts the model got as
    ///   one), and a harness-made one (a reminder after tool results) any message ending in a
    ///   user line; a person's request after tool results opens a message of its own.
    fn continues_message(&self, unit: &[&Record], record: &Record) -> bool {
        let Some(message) = record.message() else {
            return false;
        };
        let messages = || unit.iter().filter_map(|r| r.message());
        match message.role {
            Role::Assistant => record.link.response.is_some_and(|response| {
                unit.iter().any(|r| {
                    r.link.response == Some(response)
                        && r.message().is_some_and(|m| m.role == Role::Assistant)
                })
            }),
            Role::User if message.answers_a_call() => true,
            Role::User if is_real_user_request(message) => {
                messages().all(|m| m.role == Role::User && !m.answers_a_call())
            }
            Role::User => messages().next_back().is_some_and(|m| m.role == Role::User),
            _ => false,
        }
    }

    /// An assistant line's `message.model` (not the harness's own `<synthetic>` lines).
    fn model(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("assistant") {
            return None;
        }
        str_at(raw, &["message", "model"]).filter(|model| model != "<synthetic>")
    }

    /// A line's `cwd` (every conversational line carries one).
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        top_level_str(raw, "cwd")
    }

    /// An Edit result's `toolUseResult.originalFile`: the whole file before the edit. The
    /// reader skips `toolUseResult` (it is the bulk of most lines), so this walks to it only
    /// when asked.
    fn file_before_edit(&self, raw: &[u8]) -> Option<String> {
        str_at(raw, &["toolUseResult", "originalFile"])
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some("compact_boundary")
    }

    /// Lines chain by `parentUuid`, and Claude Code resumes from a main-chain message only.
    fn tree(&self) -> Option<Tree> {
        Some(Tree {
            parent: "parentUuid",
            id: "uuid",
            messages_only: true,
        })
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let event = Fields::of(text)?;
        let mut record = read_entry(line, text, &event)?;
        record.link = Link {
            response: record.link.response,
            ..link(&event, record.compaction)
        };
        if matches!(&record.entry, Entry::Bookkeeping(name) if name == MICROCOMPACT) {
            record.link.event = Event::VoidUsage(post_tokens(text));
        }
        Ok(record)
    }
}

/// The record of a line, without its link.
fn read_entry<'a>(line: usize, text: &'a str, event: &Fields<'a>) -> Result<Record<'a>> {
    let Some(kind) = raw_str(event.kind) else {
        bail!("line has no \"type\"");
    };
    let role = match kind.as_ref() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => {
            let name = match raw_str(event.subtype) {
                Some(subtype) => Cow::Owned(format!("system/{subtype}")),
                None => kind,
            };
            let compaction = name == "system/compact_boundary";
            let mut record = Record::new(line, text.as_bytes(), Entry::Bookkeeping(name));
            record.compaction = compaction;
            return Ok(record);
        }
        _ => return Ok(Record::new(line, text.as_bytes(), Entry::Bookkeeping(kind))),
    };

    let Some(raw_message) = event.message.filter(|raw| raw.starts_with('{')) else {
        bail!("{} line has no \"message\" object", role.as_str());
    };
    let message = ApiMessage::of(raw_message, text, event.message_walk.as_ref())?;
    let usage = match role {
        Role::Assistant => response_usage(&message, raw_str(event.request_id)),
        _ => None,
    };
    let response = match role {
        Role::Assistant => raw_str(message.id).map(|id| node_id(&id)),
        _ => None,
    };
    let parts = anthropic_parts(message.content);
    let mut record = Record::new(
        line,
        text.as_bytes(),
        Entry::Message(Message {
            sidechain: event.is_sidechain == Some("true"),
            ..Message::new(role, parts)
        }),
    );
    record.usage = usage;
    record.link.response = response;
    Ok(record)
}

/// A line's place in the session tree: its `uuid`, its `parentUuid` (`null` for roots, absent on
/// metadata lines), and for a `compact_boundary` the records its `compactMetadata` keeps.
fn link(fields: &Fields<'_>, compaction: bool) -> Link {
    let id = raw_str(fields.uuid).map(|uuid| node_id(&uuid));
    let parent = match fields.parent_uuid {
        None => Parent::Unlinked,
        Some("null") => Parent::Root,
        Some(raw) => raw_str(Some(raw)).map_or(Parent::Unlinked, |p| Parent::Node(node_id(&p))),
    };
    let event = if compaction {
        Event::Compaction(
            fields
                .compact_metadata
                .map(kept_records)
                .unwrap_or_default(),
        )
    } else {
        Event::None
    };
    Link {
        id,
        parent,
        event,
        response: None,
    }
}

/// What a boundary's `compactMetadata` keeps: the `preservedMessages` list, else the
/// `preservedSegment`, else nothing. Metadata that does not parse keeps nothing, as Claude Code
/// then relinks nothing.
fn kept_records(metadata: &str) -> Keep {
    #[derive(Deserialize)]
    struct Metadata {
        #[serde(rename = "preservedMessages", default)]
        preserved_messages: Option<Preserved>,
        #[serde(rename = "preservedSegment", default)]
        preserved_segment: Option<Segment>,
    }
    #[derive(Deserialize)]
    struct Preserved {
        #[serde(rename = "anchorUuid")]
        anchor_uuid: String,
        uuids: Vec<String>,
    }
    #[derive(Deserialize)]
    struct Segment {
        #[serde(rename = "headUuid")]
        head_uuid: String,
        #[serde(rename = "anchorUuid")]
        anchor_uuid: String,
        #[serde(rename = "tailUuid")]
        tail_uuid: String,
    }
    match serde_json::from_str::<Metadata>(metadata) {
        Ok(Metadata {
            preserved_messages: Some(list),
            ..
        }) if !list.uuids.is_empty() => Keep::Preserved {
            anchor: node_id(&list.anchor_uuid),
            nodes: list.uuids.iter().map(|uuid| node_id(uuid)).collect(),
        },
        Ok(Metadata {
            preserved_segment: Some(segment),
            ..
        }) => Keep::Segment {
            head: node_id(&segment.head_uuid),
            anchor: node_id(&segment.anchor_uuid),
            tail: node_id(&segment.tail_uuid),
        },
        _ => Keep::Nothing,
    }
}

/// The context size an assistant line's `usage` reports, keyed by the API response it repeats.
fn response_usage(message: &ApiMessage<'_>, request_id: Option<Cow<'_, str>>) -> Option<Usage> {
    if raw_str(message.model).as_deref() == Some("<synthetic>") {
        return None;
    }
    let counts = usage_counts(message.usage_counts, message.usage, |usage: ApiUsage| {
        usage.counts()
    })?;
    // A `usage` without a single readable count reports nothing (and is not a size of zero).
    if counts.iter().all(|count| count.0.is_none()) {
        return None;
    }
    let context_tokens = counts
        .iter()
        .fold(0u64, |sum, count| sum.saturating_add(count.or_zero()));
    let response_key = raw_str(message.id).map(|id| response_key(&id, request_id.as_deref()));
    Some(Usage {
        context_tokens,
        response_key,
    })
}

/// The key of the API response an assistant line belongs to: its `message.id` and, when the
/// line has one, its `requestId`.
fn response_key(id: &str, request_id: Option<&str>) -> NodeId {
    match request_id {
        // Mixed, not joined: the pair is hashed without building a string per line.
        Some(request) => node_id(id).rotate_left(21) ^ node_id(request),
        None => node_id(id),
    }
}

/// The bookkeeping name of a `microcompact_boundary` system line.
pub const MICROCOMPACT: &str = "system/microcompact_boundary";

/// `microcompactMetadata.postTokens`: the context size after the clearing, which `condense
/// prune` records (Claude Code's own boundaries carry `preTokens` and `tokensSaved` of the
/// cleared results only, which are no context size).
fn post_tokens(line: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Metadata {
        #[serde(rename = "postTokens", default)]
        post_tokens: LenientU64,
    }
    let span = top_level_value(line.as_bytes(), "microcompactMetadata")?;
    serde_json::from_str::<Metadata>(&line[span])
        .ok()?
        .post_tokens
        .0
}

/// The string a raw JSON value holds, or `None` when it is not a string. Borrows unless the
/// string has escapes.
fn raw_str<'r>(raw: Option<&'r (impl AsRawJson + ?Sized)>) -> Option<Cow<'r, str>> {
    scan::json_string(raw?.json())
}

/// JSON text kept raw: a `RawValue`, or a span of a line.
trait AsRawJson {
    fn json(&self) -> &str;
}

impl AsRawJson for RawValue {
    fn json(&self) -> &str {
        self.get()
    }
}

impl AsRawJson for str {
    fn json(&self) -> &str {
        self
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::transcript::anthropic::Anthropic;
    use crate::transcript::model::testing;
    use crate::transcript::model::testing::{corpus_head, head};
    use crate::transcript::{MediaKind, Part};

    fn read(text: &str) -> Record<'_> {
        ClaudeCode.read(7, text).unwrap()
    }

    fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
        &record.message().unwrap().parts
    }

    /// A message read by walking it alone, or `None` where the walk gives up.
    fn walked(raw: &str) -> Option<ApiMessage<'_>> {
        let scanner = scan::Scanner::new(raw.as_bytes());
        ApiMessage::walk(scan::Walk::new(&scanner, raw, 0), raw.len())
    }

    /// The parts and usage serde reads from a message, to hold the walk against.
    fn by_serde(raw: &str) -> (Vec<Part<'_>>, Option<&str>, Option<&str>, Option<&str>) {
        let message: ApiMessage = serde_json::from_str(raw).unwrap();
        let parts = anthropic_parts(message.content);
        (parts, message.id, message.model, message.usage)
    }

    #[test]
    fn walking_a_message_reads_what_serde_reads_on_every_real_line() {
        let dirs = ["fixtures/corpus/claude-code", "fixtures/agents"];
        let (mut walked, mut messages) = (0, 0);
        for dir in dirs {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if !name.starts_with("claude") && !dir.ends_with("claude-code") {
                    continue;
                }
                let text = fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let fields = Fields::of(line).unwrap();
                    let Some(raw) = fields.message.filter(|raw| raw.starts_with('{')) else {
                        continue;
                    };
                    messages += 1;
                    let Some((start, scanner)) = &fields.message_walk else {
                        continue;
                    };
                    let walk = scan::Walk::new(scanner, line, *start);
                    let Some(message) = ApiMessage::walk(walk, start + raw.len()) else {
                        continue;
                    };
                    walked += 1;
                    let serde_counts = message
                        .usage
                        .map(|raw| serde_json::from_str::<ApiUsage>(raw).unwrap().counts());
                    assert_eq!(message.usage_counts, serde_counts, "{name}:{}", n + 1);
                    let parts = anthropic_parts(message.content);
                    let walk = (parts, message.id, message.model, message.usage);
                    assert_eq!(walk, by_serde(raw), "{name}:{}", n + 1);
                }
            }
        }
        assert!(
            messages > 500 && walked == messages,
            "{walked} of {messages}"
        );
    }

    #[test]
    fn a_message_the_walk_gives_up_on_is_read_by_serde() {
        for raw in [
            r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
            r#"{"content":[{"type":"text","te\u0078t":"a"}]}"#,
            r#"{"content":[{"type":"text","text":7}]}"#,
            r#"{"content":["bare"]}"#,
            r#"{"content":"bad \q escape"}"#,
        ] {
            assert!(walked(raw).is_none(), "{raw}");
            let serde = serde_json::from_str::<ApiMessage>(raw).map(|_| ());
            let ours = ApiMessage::of(raw, raw, None).map(|_| ());
            assert_eq!(ours.is_ok(), serde.is_ok(), "{raw}");
        }
        let raw = r#"{"content":[{"type":"text","te\u0078t":"a"}]}"#;
        let escaped_key = ApiMessage::of(raw, raw, None);
        let parts = anthropic_parts(escaped_key.unwrap().content);
        assert_eq!(parts, [Part::Text("a".into())]);
    }

    #[test]
    fn reads_user_string_content() {
        let text = r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"fix the bug"},"uuid":"u1"}"#;
        let record = read(text);
        assert_eq!(record.line, 7);
        assert_eq!(record.raw, text.as_bytes());
        let message = record.message().unwrap();
        assert_eq!(message.role, Role::User);
        assert!(!message.sidechain);
        assert_eq!(message.parts, vec![Part::Text("fix the bug".into())]);
        assert!(record.usage.is_none() && !record.compaction);
    }

    #[test]
    fn reads_assistant_blocks_and_usage() {
        let record = read(
            r#"{"parentUuid":"u1","message":{"model":"claude-opus-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"look first","signature":"c2ln"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a","limit":25}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"cache_creation":{"ephemeral_5m_input_tokens":2000},"output_tokens":400,"service_tier":"standard"}},"requestId":"req_1","type":"assistant","uuid":"u2","sessionId":"s"}"#,
        );
        assert_eq!(record.message().unwrap().role, Role::Assistant);
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("look first".into()),
                Part::Text("Reading.".into()),
                Part::ToolCall {
                    id: Some("toolu_1".into()),
                    name: "Read".into(),
                    arguments: r#"{"file_path":"/a","limit":25}"#.into()
                },
            ]
        );
        assert_eq!(
            record.usage,
            Some(Usage {
                context_tokens: 32_410,
                response_key: Some(response_key("msg_1", Some("req_1")))
            })
        );
    }

    #[test]
    fn usage_edge_cases() {
        let usage = |text: &str| read(text).usage;
        // No requestId: the message id alone is the key.
        assert_eq!(
            usage(
                r#"{"type":"assistant","message":{"id":"msg_2","content":[],"usage":{"input_tokens":5,"output_tokens":"many"}}}"#
            ),
            Some(Usage {
                context_tokens: 5,
                response_key: Some(node_id("msg_2"))
            })
        );
        // No usage, unreadable usage, and a harness-made message: no context size.
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[]}}"#),
            None
        );
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[],"usage":"lots"}}"#),
            None
        );
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[],"usage":{}}}"#),
            None
        );
        assert_eq!(
            usage(
                r#"{"type":"assistant","requestId":null,"isApiErrorMessage":false,"message":{"id":"m","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
            ),
            None
        );
        // Usage on user lines is not the model's report.
        assert_eq!(
            usage(r#"{"type":"user","message":{"content":"x","usage":{"input_tokens":5}}}"#),
            None
        );
    }

    #[test]
    fn reads_tool_results() {
        let record = read(
            r#"{"parentUuid":"u2","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"   1\tfn main() {}"},{"tool_use_id":"toolu_2","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","data":"AA"}}]}]},"toolUseResult":{"type":"text","file":{"filePath":"/a","content":"fn main() {}"}},"sessionId":"s"}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::ToolResult {
                    call_id: Some("toolu_1".into()),
                    text: "   1\tfn main() {}".into()
                },
                Part::ToolResult {
                    call_id: Some("toolu_2".into()),
                    text: "a".into()
                },
                Part::Media(MediaKind::Image),
            ]
        );
        assert!(matches!(
            parts(&record)[0],
            Part::ToolResult {
                call_id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
        assert_eq!(record.message().unwrap().call_id, None);
    }

    #[test]
    fn sidechain_messages_keep_their_usage() {
        let record = read(
            r#"{"parentUuid":"p","isSidechain":true,"type":"assistant","requestId":"req_9","message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"sub-agent"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}}"#,
        );
        assert!(record.message().unwrap().sidechain);
        assert_eq!(record.usage.map(|u| u.context_tokens), Some(10));
        // Anything but `true` is the main chain.
        let other = read(r#"{"isSidechain":"yes","type":"user","message":{"content":"x"}}"#);
        assert!(!other.message().unwrap().sidechain);
    }

    #[test]
    fn compact_summary_and_api_errors_are_messages() {
        let summary = read(
            r#"{"parentUuid":"b","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true}"#,
        );
        assert_eq!(summary.message().unwrap().role, Role::User);
        assert!(!summary.compaction);
        let error = read(
            r#"{"type":"assistant","isApiErrorMessage":true,"message":{"id":"m","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 500"}]}}"#,
        );
        assert_eq!(error.message().unwrap().role, Role::Assistant);
    }

    #[test]
    fn system_lines_and_compaction() {
        let boundary = read(
            r#"{"parentUuid":null,"logicalParentUuid":"x","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155250},"sessionId":"s"}"#,
        );
        assert_eq!(
            boundary.entry,
            Entry::Bookkeeping("system/compact_boundary".into())
        );
        assert!(boundary.compaction && boundary.usage.is_none());
        let micro = read(
            r#"{"type":"system","subtype":"microcompact_boundary","content":"Context microcompacted","microcompactMetadata":{"preTokens":13265}}"#,
        );
        assert_eq!(
            micro.entry,
            Entry::Bookkeeping("system/microcompact_boundary".into())
        );
        assert!(!micro.compaction);
        let bare = read(r#"{"type":"system","content":"x"}"#);
        assert_eq!(bare.entry, Entry::Bookkeeping("system".into()));
    }

    #[test]
    fn other_types_are_bookkeeping() {
        for (text, name) in [
            (
                r#"{"type":"summary","summary":"Title","leafUuid":"l"}"#,
                "summary",
            ),
            (
                r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{}}}"#,
                "file-history-snapshot",
            ),
            (
                r#"{"type":"queue-operation","operation":"enqueue","content":"later","sessionId":"s"}"#,
                "queue-operation",
            ),
            (
                r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"user","message":{"content":5}}},"parentUuid":"p","sessionId":"s"}"#,
                "progress",
            ),
            (
                r#"{"type":"attachment","attachment":{"type":"file"},"parentUuid":"p","sessionId":"s"}"#,
                "attachment",
            ),
            (
                r#"{"type":"permission-mode","permissionMode":"plan"}"#,
                "permission-mode",
            ),
            (r#"{"type":"last-prompt","lastPrompt":"x"}"#, "last-prompt"),
            // An unknown type, with a `message` a message line could not hold.
            (
                r#"{"type":"hologram","message":{"content":42}}"#,
                "hologram",
            ),
        ] {
            let record = read(text);
            assert_eq!(record.entry, Entry::Bookkeeping(name.into()), "{text}");
            assert!(record.usage.is_none() && !record.compaction);
        }
    }

    #[test]
    fn errors() {
        let error = |text: &str| ClaudeCode.read(1, text).unwrap_err().to_string();
        assert_eq!(
            error(r#"{"message":{"content":"x"}}"#),
            "line has no \"type\""
        );
        assert_eq!(error(r#"{"type":3}"#), "line has no \"type\"");
        assert!(error(r#"{"type":"user"}"#).contains("no \"message\" object"));
        assert!(error(r#"{"type":"assistant","message":null}"#).contains("\"message\""));
        assert!(error(r#"{"type":"user","message":"hello"}"#).contains("\"message\""));
        let bytes = br#"{"type":"user","message":{"content":["\u001b]0;secret"]}}"#;
        let line = crate::input::lines(bytes, 1).next().unwrap();
        let quoted = match crate::transcript::read::read_line(
            crate::transcript::FormatId::ClaudeCode,
            &line,
        ) {
            Err(crate::transcript::read::BadLine::Invalid(e)) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(!quoted.contains("secret"), "{quoted}");
        assert!(ClaudeCode.read(1, "[]").is_err());
        assert!(ClaudeCode.read(1, "{\"type\":").is_err());
    }

    #[test]
    fn detection() {
        assert!(ClaudeCode.detect(&head(&[
            r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"x"}}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"summary","summary":"T","leafUuid":"l"}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"queue-operation","sessionId":"s"}"#,
            r#"{"parentUuid":"p","sessionId":"s","type":"progress","data":{}}"#,
        ])));
        // Headless stream-json: no parentUuid, snake_case session_id.
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            r#"{"type":"assistant","message":{"content":[]},"session_id":"s"}"#,
        ])));
        // Codex envelopes, bare chat messages, pi sessions.
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"summary","leafUuid":"l"}"#,
            r#"{"timestamp":"t","type":"session_meta","payload":{}}"#,
        ])));
        assert!(!ClaudeCode.detect(&head(&[r#"{"role":"user","content":"x"}"#])));
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"session","id":"i","cwd":"/"}"#,
            r#"{"type":"message","parentId":null,"message":{"role":"user"}}"#,
        ])));
        assert!(!ClaudeCode.detect(&head(&[r#"{"type":"summary"}"#, "3"])));
    }

    /// Every non-blank line of every `.jsonl` file in a corpus folder, with its number.
    fn corpus(folder: &str) -> Vec<(String, Vec<(usize, String)>)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/corpus")
            .join(folder);
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let text = fs::read_to_string(&path).unwrap();
                let lines = text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| !line.trim().is_empty())
                    .map(|(index, line)| (index + 1, line.to_owned()))
                    .collect();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, lines)
            })
            .collect()
    }

    #[test]
    fn reads_the_claude_code_corpus() {
        // (messages, compaction markers, sidechain messages, usage records, tool results,
        // orphaned tool results) per file, counted with jq:
        //   jq -c 'select(.type=="user" or .type=="assistant")' FILE | wc -l
        //   jq -c 'select(.type=="system" and .subtype=="compact_boundary")' FILE | wc -l
        //   jq -c 'select((.type=="user" or .type=="assistant") and .isSidechain==true)' FILE | wc -l
        //   jq -c 'select(.type=="assistant" and .message.usage != null
        //          and .message.model != "<synthetic>")' FILE | wc -l
        //   tool results and orphans (a tool_use_id no earlier tool_use id has), in one go:
        //   jq -n 'reduce (inputs | select(.type=="user" or .type=="assistant")
        //          | .message.content | arrays | .[]) as $b ({seen: {}, results: 0, orphans: 0};
        //          if ($b.type | tostring | test("tool_use$")) then .seen[$b.id] = true
        //          elif ($b.type | tostring | test("tool_result$")) then .results += 1
        //            | (if .seen[$b.tool_use_id] then . else .orphans += 1 end)
        //          else . end) | [.results, .orphans]' FILE
        let expected = [
            ("claude-code-viewer-5c0375b4.jsonl", (53, 0, 22, 28, 21, 0)),
            (
                "claude-code-viewer-fe5e1c67.jsonl",
                (437, 0, 405, 262, 167, 0),
            ),
            ("entireio-cli-a6e4c2a0fbd1.jsonl", (48, 1, 0, 31, 10, 0)),
            ("kimi-cli-5b2c427a42e0.jsonl", (165, 0, 0, 103, 55, 0)),
        ];
        let files = corpus("claude-code");
        assert_eq!(files.len(), expected.len());
        for ((name, lines), (expected_name, counts)) in files.iter().zip(expected) {
            assert_eq!(name, expected_name);
            let head = corpus_head(lines);
            assert!(ClaudeCode.detect(&head), "{name}: not detected");
            assert!(!Anthropic.detect(&head), "{name}: taken for anthropic");
            let (mut messages, mut compactions, mut sidechains, mut usages) = (0, 0, 0, 0);
            let mut records = Vec::new();
            for (number, line) in lines {
                let record = ClaudeCode
                    .read(*number, line)
                    .unwrap_or_else(|err| panic!("{name}:{number}: {err}"));
                assert_eq!(record.line, *number);
                if let Some(message) = record.message() {
                    messages += 1;
                    sidechains += usize::from(message.sidechain);
                }
                compactions += usize::from(record.compaction);
                usages += usize::from(record.usage.is_some());
                records.push(record);
            }
            let links = testing::links(records.iter().filter_map(Record::message));
            assert_eq!(
                (
                    messages,
                    compactions,
                    sidechains,
                    usages,
                    links.results,
                    links.orphans
                ),
                counts,
                "{name}"
            );
        }
    }

    #[test]
    fn leaves_the_openai_corpus_alone() {
        for (name, lines) in corpus("openai-chat") {
            assert!(!ClaudeCode.detect(&corpus_head(&lines)), "{name}");
        }
    }

    /// Claude Code's Edit result keeps the whole file before the edit; the same file's Read
    /// result, the Bash result and the Edit call itself keep none.
    #[test]
    fn an_edit_result_keeps_the_file_before_the_edit() {
        let bytes = testing::corpus_bytes("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        let before = ClaudeCode.file_before_edit(lines[17]).unwrap();
        assert!(before.starts_with("// hooks_claudecode_handlers.go contains"));
        assert!(before.contains("\tif err := outputHookResponse(false, \"You have another"));
        // The second edit's file already holds the first edit's text.
        assert!(before.contains("\t\trepo, err := strategy.OpenRepository()\n"));
        for line in [11, 13, 20] {
            assert_eq!(
                ClaudeCode.file_before_edit(lines[line]),
                None,
                "line {}",
                line + 1
            );
        }
        let record = ClaudeCode
            .read(18, std::str::from_utf8(lines[17]).unwrap())
            .unwrap();
        assert_eq!(crate::transcript::file_before_edit(&record), Some(before));
    }
}

/// What one message is in a Claude Code session ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::ClaudeCode;
    use crate::transcript::messages::testing::check;

    fn line(kind: &str, uuid: usize, extra: &str, message: &str) -> String {
        let parent = match uuid {
            0 => "null".to_owned(),
            n => format!("\"u{}\"", n - 1),
        };
        format!(
            r#"{{"type":"{kind}","uuid":"u{uuid}","parentUuid":{parent},"sessionId":"s"{extra},"message":{message}}}"#
        )
    }

    fn user(uuid: usize, text: &str) -> String {
        line(
            "user",
            uuid,
            "",
            &format!(r#"{{"role":"user","content":"{text}"}}"#),
        )
    }

    fn result(uuid: usize, call: &str) -> String {
        let content =
            format!(r#"[{{"type":"tool_result","tool_use_id":"{call}","content":"ok"}}]"#);
        line(
            "user",
            uuid,
            "",
            &format!(r#"{{"role":"user","content":{content}}}"#),
        )
    }

    /// One content block of the response `id`.
    fn fragment(uuid: usize, id: &str, block: &str) -> String {
        let message = format!(r#"{{"role":"assistant","id":"{id}","content":[{block}]}}"#);
        line("assistant", uuid, r#","requestId":"r""#, &message)
    }

    fn text(text: &str) -> String {
        format!(r#"{{"type":"text","text":"{text}"}}"#)
    }

    fn call(id: &str, name: &str) -> String {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"{name}","input":{{}}}}"#)
    }

    #[test]
    fn the_lines_of_one_response_are_one_message_whatever_their_number() {
        for fragments in [1, 2, 3, 5] {
            let mut lines = vec![user(0, "old question"), fragment(1, "m0", &text("old"))];
            lines.push(user(2, "the question"));
            let blocks = [
                r#"{"type":"thinking","thinking":"hm","signature":"s"}"#.to_owned(),
                text("one"),
                text("two"),
                text("three"),
                text("four"),
            ];
            for (i, block) in blocks.iter().take(fragments).enumerate() {
                lines.push(fragment(3 + i, "m1", block));
            }
            let end = 3 + fragments;
            check(&ClaudeCode, &lines, &[0..1, 1..2, 2..3, 3..end]);
        }
    }

    #[test]
    fn parallel_calls_and_their_results_are_one_message_with_their_response() {
        // Results written after both calls, and interleaved with them.
        let lines = [
            user(0, "read both"),
            fragment(1, "m1", &text("reading")),
            fragment(2, "m1", &call("t1", "Read")),
            fragment(3, "m1", &call("t2", "Read")),
            result(4, "t1"),
            result(5, "t2"),
            fragment(6, "m2", &call("t3", "Read")),
            result(7, "t3"),
            fragment(8, "m2", &call("t4", "Read")),
            result(9, "t4"),
            fragment(10, "m3", &text("both read")),
        ];
        check(&ClaudeCode, &lines, &[0..1, 1..6, 6..10, 10..11]);
    }

    #[test]
    fn a_sub_agent_call_travels_with_its_report() {
        let lines = [
            user(0, "explore the code"),
            fragment(1, "m1", &call("t1", "Task")),
            result(2, "t1"),
            fragment(3, "m2", &text("the sub-agent found it")),
        ];
        check(&ClaudeCode, &lines, &[0..1, 1..3, 3..4]);
    }

    #[test]
    fn user_lines_the_model_gets_as_one_message_are_one() {
        // A command's caveat and echo before the prompt; a reminder after a tool result.
        let lines = [
            user(0, "Caveat: The messages below were generated by the user while running local commands"),
            user(1, "<command-name>/model</command-name>"),
            user(2, "now fix it"),
            fragment(3, "m1", &call("t1", "Bash")),
            result(4, "t1"),
            user(5, "<system-reminder>todo list empty</system-reminder>"),
            user(6, "and the tests"),
            fragment(7, "m2", &text("done")),
        ];
        check(&ClaudeCode, &lines, &[0..3, 3..6, 6..7, 7..8]);
    }
}
