//! Reading Codex CLI rollout files, in the current envelope layout and the legacy bare layout.
//!
//! Current layout: every line is `{"timestamp", ["ordinal",] "type", "payload"}`.
//!
//! - `response_item` payloads are what the model saw (Responses API items) and become messages:
//!   `message` (role `user`, `assistant`, or `developer`/`system` → [`Role::System`]),
//!   `reasoning` (thinking), `function_call` / `custom_tool_call` / `local_shell_call` (tool
//!   calls), `function_call_output` / `custom_tool_call_output` (tool results). A call's id is
//!   its `call_id` (a `local_shell_call` without one falls back to its `id`, as Codex does); an
//!   output's `call_id` names the call it answers and goes on its [`Part::ToolResult`](crate::transcript::model::Part::ToolResult), not on
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
//! Speed: a line is walked with [`crate::transcript::scan`] (`walk`), which passes over
//! skipped payloads and blobs from delimiter to delimiter and keeps message texts escaped ([`Text`](crate::transcript::text::Text)); serde reads it
//! when the walk gives up. Both read the envelope the same way: once `type` has been seen,
//! `payload` is read straight into the struct for that type, so a line is read once. Only when
//! `payload` comes before `type` is it kept (raw, or as where it starts) and read afterwards.
//!

use anyhow::Result;
use serde_json::Value;

use super::Codex;
use crate::transcript::classify::is_injected;
use crate::transcript::format::Format;
use crate::transcript::json::{str_at, str_field, top_level_str, top_level_value};
use crate::transcript::model::{Record, Role};
use crate::transcript::sketch::Sketch;

mod de;
mod items;
mod shape;
#[cfg(test)]
mod tests;
mod walk;

use items::{record_of, unknown_item};
use shape::Line;
impl Format for Codex {
    fn name(&self) -> &'static str {
        "Codex CLI"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        let legacy_header = head.first().is_some_and(|first| {
            !first.has("type")
                && ["id", "timestamp", "instructions"]
                    .iter()
                    .all(|key| first.has(key))
        });
        legacy_header
            || head
                .iter()
                .any(|line| is_session_meta(line) || line.str("record_type") == Some("state"))
    }

    /// The envelope: a `payload` object under a `type`, with the `timestamp`.
    fn envelope(&self, line: &Sketch) -> bool {
        line.get("payload").is_some_and(Sketch::is_object)
            && line.get("type").is_some_and(Sketch::is_string)
            && line.has("timestamp")
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some("compacted")
    }

    /// A remote compaction: a `compacted` line with no readable `message` whose
    /// `replacement_history` holds an encrypted summary item (`remote_summary`).
    fn opaque_summary(&self, raw: &[u8]) -> Option<String> {
        remote_summary(raw)
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
            _ => message.answers_a_call(),
        }
    }

    /// A `turn_context` line's `payload.model`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("turn_context") {
            return None;
        }
        str_at(raw, &["payload", "model"])
    }

    /// A `session_meta` or `turn_context` line's `payload.cwd`, or the legacy header's `cwd`.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        match str_at(raw, &["type"]).as_deref() {
            Some("session_meta" | "turn_context") => str_at(raw, &["payload", "cwd"]),
            None if top_level_value(raw, "instructions").is_some() => top_level_str(raw, "cwd"),
            _ => None,
        }
    }
}

/// A current-layout first line: `session_meta` whose payload names the session and where or by
/// what it ran.
/// What a remote compaction's line holds, for `history`: the bytes of the encrypted summary
/// only OpenAI's server reads (`compact.rs`, `should_use_remote_compact_task`: with the OpenAI
/// provider Codex posts the history with a `compaction_trigger` item and gets back one
/// `compaction` item with `encrypted_content`), and the user messages Codex kept beside it
/// (`retained_context`; in `replacement_history` verbatim, Codex's instructions and contextual
/// messages around them). `None` for any other line, a local compaction's above all.
fn remote_summary(raw: &[u8]) -> Option<String> {
    if top_level_str(raw, "type").as_deref() != Some("compacted") {
        return None;
    }
    let line: Value = serde_json::from_slice(raw).ok()?;
    let payload = line.get("payload")?;
    if str_field(payload, "message").is_some_and(|m| !m.is_empty()) {
        return None;
    }
    let history = payload.get("replacement_history")?.as_array()?;
    let encrypted: usize = history
        .iter()
        .filter(|item| {
            str_field(item, "type").is_some_and(|kind| items::OPAQUE_SUMMARIES.contains(&kind))
        })
        .filter_map(|item| str_field(item, "encrypted_content"))
        .map(str::len)
        .sum();
    let has_blob = history.iter().any(|item| {
        str_field(item, "type").is_some_and(|kind| items::OPAQUE_SUMMARIES.contains(&kind))
            && item.get("encrypted_content").is_some()
    });
    if !has_blob {
        return None;
    }
    let kept: Vec<usize> = history
        .iter()
        .filter(|item| str_field(item, "type") == Some("message"))
        .filter(|item| str_field(item, "role") == Some("user"))
        .filter_map(|item| {
            let texts: Vec<&str> = item
                .get("content")?
                .as_array()?
                .iter()
                .filter_map(|c| str_field(c, "text"))
                .collect();
            let text = texts.join("\n");
            (!text.trim().is_empty() && !is_injected(&text)).then_some(text.len())
        })
        .collect();
    Some(format!(
        "remote (encrypted) summary: {encrypted} bytes only the server reads; {} user messages \
         kept ({} bytes)",
        kept.len(),
        kept.iter().sum::<usize>()
    ))
}

fn is_session_meta(line: &Sketch) -> bool {
    if line.str("type") != Some("session_meta") {
        return false;
    }
    let Some(payload) = line.get("payload").filter(|payload| payload.is_object()) else {
        return false;
    };
    payload.has("id")
        && ["cwd", "originator", "cli_version"]
            .iter()
            .any(|key| payload.has(key))
}
