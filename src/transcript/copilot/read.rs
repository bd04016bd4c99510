//! Reading Copilot CLI's `events.jsonl`. Every line is one event, `{"type", "data", "id",
//! "timestamp", "parentId"}` (and `agentId` on a sub-agent's events), as its schema
//! (`schemas/session-events.schema.json`) defines them:
//!
//! - `user.message`: a user message; its text is `data.transformedContent` (what Copilot sent),
//!   or `data.content` (what the person typed) when the only difference is Copilot's
//!   `<current_datetime>` line before it (a few tokens a message that `estimate` leaves out);
//! - `assistant.message`: the model's answer: its thinking (`reasoningBlocks.blocks[].thinking`,
//!   else `reasoningText`), its `content` (an empty string is no part), then one call for each
//!   `toolRequests[]` (`toolCallId`, `name`, `arguments` as JSON); with `parentToolCallId` it is
//!   a sub-agent's;
//! - `tool.execution_complete`: the result of call `toolCallId`: `result.content` (what the
//!   model sees; `detailedContent` is for the interface), else `error.message`;
//! - `session.compaction_complete` with `success: true` and a `summaryContent`: Copilot's
//!   compaction marker, read as a user message holding the summary as Copilot's replay wraps
//!   it ([`SUMMARY_OPENING`], then the summary in a `<summary>` tag; the user messages the
//!   replay lists between them are their own records, see [`super::live`]); a failed or
//!   cancelled one changes nothing and is bookkeeping;
//! - every other event (`session.start`, `session.resume`, `system.message`, which Copilot
//!   builds afresh on every start, `assistant.turn_*`, `tool.execution_start`,
//!   `session.usage_record`, `model.*`, types it adds later): bookkeeping named by its type.
//!
//! An event with `agentId` is a sub-agent's: its messages are on a side chain.
//! `session.usage_record` figures are per call and are not read as the context's size.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::Copilot;
use crate::transcript::blocks::borrowed_text;
use crate::transcript::format::Format;
use crate::transcript::json::str_at;
use crate::transcript::model::{Entry, Event, Keep, Message, Part, Record, Role, Text};
use crate::transcript::sketch::Sketch;

/// The event type of Copilot's compaction marker.
pub(super) const COMPACTION: &str = "session.compaction_complete";

/// The first sentence of the message Copilot's replay puts in place of the conversation at a
/// compaction (a string of its `runtime.node`): the opening of the summary as condense reads it.
pub(super) const SUMMARY_OPENING: &str =
    "Some of the conversation history has been summarized to free up context.";

impl Format for Copilot {
    fn name(&self) -> &'static str {
        "Copilot CLI"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(|line| self.envelope(line))
    }

    /// An event: a dotted `type` (`session.start`, `user.message`; no other agent's types have
    /// a dot) beside a `data` object.
    fn envelope(&self, line: &Sketch) -> bool {
        line.str("type").is_some_and(|kind| kind.contains('.'))
            && line.get("data").is_some_and(Sketch::is_object)
    }

    /// A model answer records the model it came from; the session's start and resumes the
    /// model selected.
    fn model(&self, raw: &[u8]) -> Option<String> {
        match str_at(raw, &["type"]).as_deref()? {
            "assistant.message" => str_at(raw, &["data", "model"]),
            "session.start" | "session.resume" => str_at(raw, &["data", "selectedModel"]),
            _ => None,
        }
    }

    /// `session.start` and `session.resume` record the working directory in `data.context`.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        match str_at(raw, &["type"]).as_deref()? {
            "session.start" | "session.resume" => str_at(raw, &["data", "context", "cwd"]),
            _ => None,
        }
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some(COMPACTION)
    }

    fn lists_users_beside_summary(&self) -> bool {
        // The live rule (live.rs) keeps the first and last user messages before a marker.
        true
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let event: Event_<'a> = serde_json::from_str(text)?;
        let Some(kind) = event.kind else {
            bail!("line has no \"type\"");
        };
        let data = event.data.map_or("{}", RawValue::get);
        let sidechain = event.agent_id.is_some();
        let raw = text.as_bytes();
        let message = match kind.as_ref() {
            "user.message" => {
                let user: UserData<'a> = serde_json::from_str(data)?;
                Some(Message::new(Role::User, vec![Part::Text(user_text(user))]))
            }
            "assistant.message" => {
                let answer: AssistantData<'a> = serde_json::from_str(data)?;
                let sub_agent = answer.parent_tool_call_id.is_some();
                Some(Message {
                    sidechain: sub_agent,
                    ..Message::new(Role::Assistant, assistant_parts(answer))
                })
            }
            "tool.execution_complete" => {
                let done: ToolDone<'a> = serde_json::from_str(data)?;
                let text = done
                    .result
                    .and_then(|result| result.content)
                    .or_else(|| done.error.and_then(|error| error.message))
                    .unwrap_or_default();
                let part = Part::ToolResult {
                    call_id: Some(done.tool_call_id),
                    text,
                };
                Some(Message::new(Role::Tool, vec![part]))
            }
            COMPACTION => {
                let done: CompactionData<'a> = serde_json::from_str(data)?;
                match (done.success, done.summary) {
                    (Some(true), Some(summary)) => {
                        let text = format!(
                            "{SUMMARY_OPENING}\n\nHere is a summary of the prior context:\n\
                             <summary>\n{}\n</summary>",
                            summary.as_str()
                        );
                        let message = Message::new(Role::User, vec![Part::Text(text.into())]);
                        let mut record = Record::new(line, raw, Entry::Message(message));
                        record.compaction = true;
                        record.link.event = Event::Compaction(Keep::UserMessages);
                        return Ok(record);
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let entry = match message {
            Some(message) => Entry::Message(Message {
                sidechain: message.sidechain || sidechain,
                ..message
            }),
            None => Entry::Bookkeeping(kind),
        };
        Ok(Record::new(line, raw, entry))
    }
}

/// The text of a user message: `transformedContent`, what Copilot sends, unless it only puts
/// its `<current_datetime>` line before what the user typed: then `content`, so that the
/// person's words (what summaries, handoffs and `caveman` quote) are not opened by a clock.
fn user_text(user: UserData<'_>) -> Text<'_> {
    let (transformed, content) = match (user.transformed, user.content) {
        (Some(transformed), Some(content)) => (transformed, content),
        (one, other) => return one.or(other).unwrap_or_default(),
    };
    let clock_only = transformed
        .as_str()
        .strip_suffix(content.as_str())
        .is_some_and(|lead| {
            lead.starts_with("<current_datetime>")
                && lead.ends_with("</current_datetime>\n\n")
                && lead.matches("</current_datetime>").count() == 1
        });
    if clock_only {
        content
    } else {
        transformed
    }
}

/// The parts of an answer, in the order Copilot sends them: thinking, text, calls.
fn assistant_parts(answer: AssistantData<'_>) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let blocks: Vec<Text> = answer
        .reasoning_blocks
        .map(|blocks| blocks.blocks)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|block| block.thinking)
        .collect();
    if blocks.is_empty() {
        parts.extend(answer.reasoning_text.map(Part::Thinking));
    } else {
        parts.extend(blocks.into_iter().map(Part::Thinking));
    }
    if let Some(text) = answer.content.filter(|text| !text.as_str().is_empty()) {
        parts.push(Part::Text(text));
    }
    for call in answer.tool_requests {
        parts.push(Part::ToolCall {
            id: call.tool_call_id,
            name: call.name.unwrap_or_default(),
            arguments: call.arguments.map_or("{}", RawValue::get).into(),
        });
    }
    parts
}

/// One line: the event's type, its data (read by type), and whether a sub-agent wrote it.
#[derive(Deserialize)]
struct Event_<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(rename = "agentId", default)]
    agent_id: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct UserData<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    content: Option<Text<'a>>,
    #[serde(
        rename = "transformedContent",
        borrow,
        default,
        deserialize_with = "borrowed_text"
    )]
    transformed: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct AssistantData<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    content: Option<Text<'a>>,
    #[serde(rename = "toolRequests", borrow, default)]
    tool_requests: Vec<ToolRequest<'a>>,
    #[serde(
        rename = "reasoningText",
        borrow,
        default,
        deserialize_with = "borrowed_text"
    )]
    reasoning_text: Option<Text<'a>>,
    #[serde(rename = "reasoningBlocks", borrow, default)]
    reasoning_blocks: Option<ReasoningBlocks<'a>>,
    #[serde(rename = "parentToolCallId", default)]
    parent_tool_call_id: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ReasoningBlocks<'a> {
    #[serde(borrow, default)]
    blocks: Vec<ReasoningBlock<'a>>,
}

#[derive(Deserialize)]
struct ReasoningBlock<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    thinking: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct ToolRequest<'a> {
    #[serde(
        rename = "toolCallId",
        borrow,
        default,
        deserialize_with = "crate::transcript::blocks::borrowed_str"
    )]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        default,
        deserialize_with = "crate::transcript::blocks::borrowed_str"
    )]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolDone<'a> {
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: Cow<'a, str>,
    #[serde(borrow, default)]
    result: Option<ToolOutput<'a>>,
    #[serde(borrow, default)]
    error: Option<ToolError<'a>>,
}

#[derive(Deserialize)]
struct ToolOutput<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    content: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct ToolError<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    message: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct CompactionData<'a> {
    #[serde(default)]
    success: Option<bool>,
    #[serde(
        rename = "summaryContent",
        borrow,
        default,
        deserialize_with = "borrowed_text"
    )]
    summary: Option<Text<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

    fn read(text: &str) -> Record<'_> {
        Copilot.read(1, text).unwrap()
    }

    fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
        &record.message().unwrap().parts
    }

    #[test]
    fn reads_user_messages_as_sent() {
        let record = read(
            r#"{"type":"user.message","data":{"content":"Q1","transformedContent":"<current_datetime>t</current_datetime>\n\nQ1"},"id":"a","timestamp":"t","parentId":null}"#,
        );
        assert_eq!(record.message().unwrap().role, Role::User);
        // Only Copilot's clock before the typed words: the words.
        assert_eq!(parts(&record), [Part::Text("Q1".into())]);
        let plain = read(r#"{"type":"user.message","data":{"content":"Q2"}}"#);
        assert_eq!(parts(&plain), [Part::Text("Q2".into())]);
        // Anything else Copilot wrapped around them is what it sent.
        let wrapped = read(
            r#"{"type":"user.message","data":{"content":"Q3","transformedContent":"<current_datetime>t</current_datetime>\n\nQ3\n<attached>f</attached>"}}"#,
        );
        assert_eq!(
            parts(&wrapped),
            [Part::Text(
                "<current_datetime>t</current_datetime>\n\nQ3\n<attached>f</attached>".into()
            )]
        );
    }

    #[test]
    fn reads_answers_with_thinking_text_and_calls() {
        let record = read(
            r#"{"type":"assistant.message","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"c1","name":"view","arguments":{"path":"/a"},"type":"function"}],"reasoningText":"why","reasoningBlocks":{"provider":"anthropic-messages","blocks":[{"type":"thinking","thinking":"why","signature":"s"}]}},"id":"b"}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("why".into()),
                Part::ToolCall {
                    id: Some("c1".into()),
                    name: "view".into(),
                    arguments: r#"{"path":"/a"}"#.into(),
                },
            ]
        );
        let text = read(
            r#"{"type":"assistant.message","data":{"messageId":"m","content":"Hi","reasoningText":"r"}}"#,
        );
        assert_eq!(
            parts(&text),
            [Part::Thinking("r".into()), Part::Text("Hi".into())]
        );
        let sub = read(
            r#"{"type":"assistant.message","data":{"messageId":"m","content":"x","parentToolCallId":"c"}}"#,
        );
        assert!(sub.message().unwrap().sidechain);
        let agent = read(r#"{"type":"user.message","data":{"content":"x"},"agentId":"a1"}"#);
        assert!(agent.message().unwrap().sidechain);
    }

    #[test]
    fn reads_tool_results_and_errors() {
        let done = read(
            r##"{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"# notes\n","detailedContent":"diff"}}}"##,
        );
        assert_eq!(
            parts(&done),
            [Part::ToolResult {
                call_id: Some("c1".into()),
                text: "# notes\n".into()
            }]
        );
        let failed = read(
            r#"{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":false,"error":{"message":"denied"}}}"#,
        );
        let message = failed.message().unwrap();
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["c2"]);
        assert!(message.answers_a_call());
    }

    #[test]
    fn a_successful_compaction_is_the_marker() {
        let marker = read(
            r#"{"type":"session.compaction_complete","data":{"success":true,"summaryContent":"<overview>S</overview>"}}"#,
        );
        assert!(marker.compaction);
        assert_eq!(marker.link.event, Event::Compaction(Keep::UserMessages));
        assert_eq!(
            parts(&marker),
            [Part::Text(
                format!(
                    "{SUMMARY_OPENING}\n\nHere is a summary of the prior context:\n\
                     <summary>\n<overview>S</overview>\n</summary>"
                )
                .into()
            )]
        );
        assert!(crate::transcript::classify::is_compaction_summary(
            marker.message().unwrap()
        ));
        for line in [
            r#"{"type":"session.compaction_complete","data":{"success":false,"summaryContent":"S"}}"#,
            r#"{"type":"session.compaction_complete","data":{"success":true}}"#,
        ] {
            let record = read(line);
            assert!(!record.compaction && record.message().is_none());
        }
    }

    #[test]
    fn other_events_are_bookkeeping() {
        for kind in [
            "session.start",
            "system.message",
            "tool.execution_start",
            "session.usage_record",
            "model.messages_snapshot",
            "some.future_event",
        ] {
            let line = format!(r#"{{"type":"{kind}","data":{{"role":"system","content":"x"}}}}"#);
            let record = Copilot.read(1, &line).unwrap();
            assert_eq!(record.entry, Entry::Bookkeeping(kind.into()));
        }
        assert!(Copilot.read(1, r#"{"data":{}}"#).is_err());
        assert!(Copilot
            .read(1, r#"{"type":"user.message","data":{"content":7}}"#)
            .is_err());
    }

    #[test]
    fn detection_and_the_sessions_facts() {
        assert!(Copilot.detect(&head(&[
            r#"{"type":"session.start","data":{"sessionId":"s"},"id":"i","timestamp":"t","parentId":null}"#
        ])));
        // Claude Code's progress lines carry `data` too, under an undotted type.
        assert!(!Copilot.detect(&head(&[r#"{"type":"progress","data":{"x":1},"uuid":"u"}"#])));
        let start = br#"{"type":"session.start","data":{"selectedModel":"claude-sonnet-4.5","context":{"cwd":"/p"}}}"#;
        assert_eq!(Copilot.model(start).as_deref(), Some("claude-sonnet-4.5"));
        assert_eq!(Copilot.cwd(start).as_deref(), Some("/p"));
    }

    /// The sessions Copilot CLI 1.0.102 wrote against the mock (`fixtures/agents/copilot/`).
    #[test]
    fn reads_the_sessions_copilot_wrote() {
        // Counted with jq:
        //   messages: jq -c 'select(.type=="user.message" or .type=="assistant.message"
        //     or .type=="tool.execution_complete" or (.type=="session.compaction_complete"
        //     and .data.success and .data.summaryContent))' FILE | wc -l
        //   compactions: jq -c 'select(.type=="session.compaction_complete")' FILE | wc -l
        for (file, counts) in [("turns.jsonl", (9, 0, 0)), ("compacted.jsonl", (16, 1, 0))] {
            let lines = corpus(&format!("../agents/copilot/{file}"));
            assert!(Copilot.detect(&corpus_head(&lines)), "{file}");
            let (_, read) = read_all(&Copilot, &lines);
            assert_eq!(read, counts, "{file}");
        }
    }
}
