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

use anyhow::{bail, Result};
use serde::Deserialize;

use super::prune::PRUNE_CUSTOM_TYPE;
use super::Pi;
use crate::transcript::blocks::BorrowedStr;
use crate::transcript::blocks::{join_texts, usage_counts, LenientU64, StrOrSeq};
use crate::transcript::format::{Format, Tree};
use crate::transcript::json::{str_at, top_level_str, top_level_value};
use crate::transcript::model::{
    node_id, Entry, Event, Keep, Link, Message, Parent, Part, Record, Role, Usage,
};
use crate::transcript::scan;
use crate::transcript::sketch::Sketch;
use crate::transcript::text::Text;

mod entry;
#[cfg(test)]
mod tests;

use entry::{content_of_blocks, AgentMessage, Content, Line, PiUsage};

impl Format for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        // A header written with neither `provider` nor `version` (pi 0.27, the eval corpus's
        // pi-mono-2638daee) is pi's when a later line is a pi message entry.
        let messages = head.iter().any(|line| {
            line.str("type") == Some("message")
                && line.get("message").is_some_and(|m| m.has("role"))
        });
        head.iter().any(|line| {
            line.str("type") == Some("session")
                && line.has("cwd")
                && (line.has("provider") || line.has("version") || messages)
        })
    }

    /// An entry linked by `parentId` (v2, v3), or the session header.
    fn envelope(&self, line: &Sketch) -> bool {
        let kind = line.str("type");
        let has = |key: &str| line.has(key);
        (has("parentId") && has("id") && line.get("type").is_some_and(Sketch::is_string))
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

/// The parts of message content, one per block.
fn content_parts(content: Content<'_>) -> Vec<Part<'_>> {
    match content {
        StrOrSeq::Str(text) => vec![Part::Text(text)],
        StrOrSeq::Seq(parts) => parts,
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
