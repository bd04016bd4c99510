//! Reading Claude Code session logs.
//!
//! Every line is an event object with a top-level `type`. Lines of type `user` and `assistant`
//! are messages: their `message` is an Anthropic Messages API message (the role comes from the
//! line's `type`, the content is read like [`crate::transcript::anthropic`]'s). A
//! `queue-operation` line that queues the user's own words (typed while the agent worked) is a
//! user message too, which reaches the model only as the queue's later lines say (`queue`).
//! Everything else (`system`, `summary`, `file-history-snapshot`, the queue's other lines,
//! `progress`, `attachment`, `permission-mode`, `last-prompt`, types added after this was
//! written …) is bookkeeping named by its type, and `system` lines as `system/<subtype>`.
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
//!   the API request only, and the file keeps their content. What it does to the usage figures
//!   before it depends on what it cleared ([`microcompaction`]): one that cleared results
//!   shrinks the last figure by its `tokensSaved` ([`Event::ShrinkUsage`]); one that cleared
//!   nothing (Claude Code writes those too) leaves it. `condense prune` appends one with the
//!   pruned context's size as `microcompactMetadata.postTokens`, which then stands for the
//!   records before it ([`Event::VoidUsage`]).
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

use super::ClaudeCode;
use crate::tokens::{Family, Tokenizer};
use crate::transcript::blocks::{anthropic_parts, usage_counts, LenientU64};
use crate::transcript::classify::is_real_user_request;
use crate::transcript::format::{Format, Tree};
use crate::transcript::json::{str_at, top_level_str, top_level_value};
use crate::transcript::model::{
    node_id, Entry, Event, Keep, Link, Message, NodeId, Parent, Record, Role, Usage,
};
use crate::transcript::sketch::Sketch;
mod line;
mod queue;
#[cfg(test)]
mod tests;

use line::{raw_str, ApiMessage, ApiUsage, Fields};

impl Format for ClaudeCode {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        // A `payload` envelope is Codex's, whatever else the line has.
        if head.iter().any(|line| line.has("payload")) {
            return false;
        }
        head.iter().any(|line| match line.str("type") {
            // `parentUuid` is present (null for roots) on every conversational line, which
            // tells these apart from the headless stream-json output (snake_case `session_id`,
            // no uuid chain). A Gemini-shaped message (`message.parts`) or a `systemPayload`
            // in that envelope is Qwen Code's.
            Some("user" | "assistant" | "system" | "progress" | "attachment") => {
                line.has("parentUuid")
                    && line.has("sessionId")
                    && !line.get("message").is_some_and(|m| m.has("parts"))
                    && !line.has("systemPayload")
            }
            Some("summary") => line.has("leafUuid"),
            Some("file-history-snapshot") => line.has("messageId"),
            _ => false,
        })
    }

    /// A line linked by `uuid`: `parentUuid` (present, `null` for roots, on every
    /// conversational line), or a `uuid` with the `sessionId`.
    fn envelope(&self, line: &Sketch) -> bool {
        let has = |key: &str| line.has(key);
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
    ///   user line; a person's request after tool results opens a message of its own, but one
    ///   typed while the agent worked (a queued message, handed over as a reminder beside the
    ///   turn's tool results) is a harness-made line here.
    fn continues_message(&self, unit: &[&Record], record: &Record) -> bool {
        let Some(message) = record.message() else {
            return false;
        };
        let messages = || unit.iter().filter_map(|r| r.message());
        let queued = matches!(record.link.event, Event::Queue(_));
        match message.role {
            Role::Assistant => record.link.response.is_some_and(|response| {
                unit.iter().any(|r| {
                    r.link.response == Some(response)
                        && r.message().is_some_and(|m| m.role == Role::Assistant)
                })
            }),
            Role::User if message.answers_a_call() => true,
            Role::User if is_real_user_request(message) && !queued => {
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

    /// Claude's family: Claude Code talks to Claude models (the model's own family where an
    /// assistant line names it, Opus 4.7's denser tokenizer included).
    fn default_tokenizer(&self, model: Option<&str>) -> Tokenizer {
        Tokenizer::Fast(model.map_or(Family::Claude, Family::of_model))
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
        if raw_str(event.kind).as_deref() == Some(queue::QUEUE_OPERATION) {
            return queue::read(line, text);
        }
        let mut record = read_entry(line, text, &event)?;
        record.link = Link {
            response: record.link.response,
            ..link(&event, record.compaction)
        };
        if matches!(&record.entry, Entry::Bookkeeping(name) if name == MICROCOMPACT) {
            record.link.event = microcompaction(text);
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
const MICROCOMPACT: &str = "system/microcompact_boundary";

/// What a `microcompact_boundary` did to the usage figures before it, by its
/// `microcompactMetadata`:
/// - `postTokens` (the marker `condense prune` writes): the context size after it, which stands
///   for every record before it;
/// - cleared tool results or attachments (`compactedToolIds`, `clearedAttachmentUUIDs`) and
///   `tokensSaved`: the figure before it, less that;
/// - cleared some without saying how much: the figures before it are void;
/// - cleared nothing: nothing (Claude Code writes such boundaries, with a `tokensSaved` of 2000,
///   and the next request is as large as the last; its `preTokens` counts only the tool
///   results, so it is no context size either).
fn microcompaction(line: &str) -> Event {
    #[derive(Deserialize)]
    struct Metadata {
        #[serde(rename = "postTokens", default)]
        post_tokens: LenientU64,
        #[serde(rename = "tokensSaved", default)]
        tokens_saved: LenientU64,
        #[serde(rename = "compactedToolIds", default)]
        tools: Vec<serde::de::IgnoredAny>,
        #[serde(rename = "clearedAttachmentUUIDs", default)]
        attachments: Vec<serde::de::IgnoredAny>,
    }
    let metadata = top_level_value(line.as_bytes(), "microcompactMetadata")
        .and_then(|span| serde_json::from_str::<Metadata>(&line[span]).ok());
    let Some(metadata) = metadata else {
        return Event::VoidUsage(None);
    };
    if let Some(post) = metadata.post_tokens.0 {
        return Event::VoidUsage(Some(post));
    }
    if metadata.tools.is_empty() && metadata.attachments.is_empty() {
        return Event::None;
    }
    match metadata.tokens_saved.0 {
        Some(saved) => Event::ShrinkUsage(saved),
        None => Event::VoidUsage(None),
    }
}
