//! Reading Droid sessions (`chunk-1jh5v2tt.js` → `src/services/sessionJsonl.ts`, `mF`; record
//! schemas `ek` and `eH`, and `Gt` of `packages/common/src/session/summary/schema.ts`):
//!
//! - `session_start` (`id`, `title`, `owner`, `cwd`, …): bookkeeping;
//! - `message`: `{id, parentId, timestamp, message: {role, content: [blocks]}}`, the message an
//!   Anthropic-shaped one (`text`, `thinking`, `redacted_thinking`, `tool_use`, `tool_result`,
//!   `image`, `document`); a message with `visibility: "user_only"` is shown, never sent, and is
//!   read as a side message; the `context-…` messages (`visibility: "llm_only"`) are the
//!   `<system-reminder>` texts Droid sends before a user's message;
//! - `compaction_state`: its compaction marker, read as a user message holding the summary as
//!   Droid sends it (`Ze`: [`SUMMARY_OPENING`], the `summaryText` in a `<summary>` tag, and
//!   Droid's note after it); its `anchorMessage.id` is the last message it replaced;
//! - `agent_turn_outcome` and anything else: bookkeeping named by its type.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;

use super::Droid;
use crate::transcript::blocks::{
    anthropic_parts, borrowed_str, deserialize_anthropic_content, AnthropicContent,
};
use crate::transcript::format::Format;
use crate::transcript::json::str_at;
use crate::transcript::model::{node_id, Entry, Event, Keep, Message, Part, Record, Role};
use crate::transcript::sketch::Sketch;

/// The type of Droid's compaction marker.
pub(super) const COMPACTION: &str = "compaction_state";

/// The first sentence of the message Droid sends in place of what a compaction replaced
/// (`chunk-1fv69zjf.js`, `Ze`).
pub(super) const SUMMARY_OPENING: &str =
    "A previous instance of Droid has summarized the conversation thus far as follows:";

/// What Droid's summary message says after the summary (`Ze`).
const SUMMARY_CLOSING: &str = "IMPORTANT: This summary was created by a previous instance of \
Droid. Files referenced in the summary may not be available until you explicitly view them again.";

impl Format for Droid {
    fn name(&self) -> &'static str {
        "Factory Droid"
    }

    /// The `session_start` line (with its `owner`, without which Droid does not take the file
    /// for a session) or a `compaction_state`.
    ///
    /// Droid claims no envelope ([`Format::envelope`]): its `message` lines carry `type`, `id`
    /// and `parentId` exactly as pi's entries do, so pi's envelope takes them, and a Droid
    /// line of its own beside them would make every Droid file look like a mix of two formats.
    /// pi's detection needs its `session` header, which a Droid file never has.
    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(|line| match line.str("type") {
            Some("session_start") => line.has("owner") && line.has("id"),
            Some(COMPACTION) => line.has("summaryText"),
            _ => false,
        })
    }

    /// An assistant message's `modelId`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("message") {
            return None;
        }
        str_at(raw, &["message", "modelId"])
    }

    /// The `session_start`'s `cwd`.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("session_start") {
            return None;
        }
        str_at(raw, &["cwd"])
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some(COMPACTION)
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let record: Line<'a> = serde_json::from_str(text)?;
        let Some(kind) = record.kind else {
            bail!("line has no \"type\"");
        };
        let raw = text.as_bytes();
        match kind.as_ref() {
            "message" => {
                let Some(message) = record.message else {
                    bail!("message line has no \"message\" object");
                };
                let role = match message.role.as_deref() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    Some("system") => Role::System,
                    _ => bail!("message has no known \"role\" (expected user or assistant)"),
                };
                let shown_only = message.visibility.as_deref() == Some("user_only");
                let message = Message {
                    sidechain: shown_only,
                    ..Message::new(role, anthropic_parts(message.content))
                };
                let mut read = Record::new(line, raw, Entry::Message(message));
                read.link.id = record.id.as_deref().map(node_id);
                Ok(read)
            }
            COMPACTION => {
                let Some(summary) = record.summary else {
                    bail!("compaction_state has no \"summaryText\"");
                };
                let text = format!(
                    "{SUMMARY_OPENING}\n\n<summary>\n{summary}\n</summary>\n\n{SUMMARY_CLOSING}"
                );
                let message = Message::new(Role::User, vec![Part::Text(text.into())]);
                let mut read = Record::new(line, raw, Entry::Message(message));
                read.compaction = true;
                read.link.event = Event::Compaction(match record.anchor.and_then(|a| a.id) {
                    Some(anchor) => Keep::After(node_id(&anchor)),
                    None => Keep::Nothing,
                });
                Ok(read)
            }
            _ => Ok(Record::new(line, raw, Entry::Bookkeeping(kind))),
        }
    }
}

/// One line: its type, and what a message or a compaction holds.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<DroidMessage<'a>>,
    #[serde(
        rename = "summaryText",
        borrow,
        default,
        deserialize_with = "borrowed_str"
    )]
    summary: Option<Cow<'a, str>>,
    #[serde(rename = "anchorMessage", borrow, default)]
    anchor: Option<Anchor<'a>>,
}

#[derive(Deserialize)]
struct DroidMessage<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "deserialize_anthropic_content")]
    content: AnthropicContent<'a>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    visibility: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Anchor<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

    fn read(text: &str) -> Record<'_> {
        Droid.read(1, text).unwrap()
    }

    #[test]
    fn reads_messages_and_the_marker() {
        let user = read(
            r#"{"type":"message","id":"u1","parentId":"c","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"Q1"}]}}"#,
        );
        assert_eq!(user.message().unwrap().parts, [Part::Text("Q1".into())]);
        assert_eq!(user.link.id, Some(node_id("u1")));
        let result = read(
            r#"{"type":"message","id":"r","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":false,"content":"ok"}]}}"#,
        );
        assert!(result.message().unwrap().answers_a_call());
        let hidden = read(
            r#"{"type":"message","id":"h","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"visibility":"user_only"}}"#,
        );
        assert!(hidden.message().unwrap().sidechain);
        let marker = read(
            r#"{"type":"compaction_state","id":"m","timestamp":"t","summaryText":"S","summaryKind":"llm_summary","anchorMessage":{"id":"a1","index":3},"removedCount":4}"#,
        );
        assert!(marker.compaction);
        assert_eq!(
            marker.link.event,
            Event::Compaction(Keep::After(node_id("a1")))
        );
        let text = crate::transcript::classify::text_of(marker.message().unwrap());
        assert!(text.starts_with(SUMMARY_OPENING) && text.contains("<summary>\nS\n</summary>"));
        assert!(crate::transcript::classify::is_compaction_summary(
            marker.message().unwrap()
        ));
        let outcome = read(r#"{"type":"agent_turn_outcome","turnId":"u1","reason":"completed"}"#);
        assert!(outcome.message().is_none());
        assert!(Droid.read(1, r#"{"type":"message","id":"x"}"#).is_err());
        assert!(Droid.read(1, r#"{"id":"x"}"#).is_err());
    }

    #[test]
    fn detection() {
        assert!(Droid.detect(&head(&[
            r#"{"type":"session_start","id":"s","title":"t","owner":"unknown","cwd":"/p"}"#
        ])));
        // A pi header and pi entries are not Droid's.
        assert!(!Droid.detect(&head(&[
            r#"{"type":"session","id":"s","cwd":"/p","version":3}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}"#
        ])));
    }

    /// The sessions Droid 0.225.2 wrote against the mock (`fixtures/agents/droid/`).
    #[test]
    fn reads_the_sessions_droid_wrote() {
        // Counted with jq:
        //   messages: jq -c 'select(.type=="message" or .type=="compaction_state")' FILE | wc -l
        //   compactions: jq -c 'select(.type=="compaction_state")' FILE | wc -l
        for (file, counts) in [("turns.jsonl", (9, 0, 0)), ("compacted.jsonl", (23, 1, 0))] {
            let lines = corpus(&format!("../agents/droid/{file}"));
            assert!(Droid.detect(&corpus_head(&lines)), "{file}");
            let (_, read) = read_all(&Droid, &lines);
            assert_eq!(read, counts, "{file}");
        }
    }
}
