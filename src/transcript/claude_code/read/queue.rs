//! A `queue-operation` line: what the user typed while the agent worked, and what became of it.
//!
//! Claude Code keeps a queue of the messages typed while a turn runs and writes one line per
//! operation on it. Read from the npm package's bundled `cli.js` of 2.1.19 (minified names):
//! `MO1` writes the line; `NZ` (enqueue) pushes onto `queuedCommands`; `PO1` shifts the head
//! off to run it as the next turn (`dequeue`); `AZ7` drops commands (`remove`), called only by
//! the query loop right after its attachments step made a `queued_command` attachment of each
//! queued command of mode `prompt` (`jG2`); `fO1` takes the editable ones back into the input
//! box (`popAll`). The `queued_command` attachment reaches the API as a meta user message,
//! `<system-reminder>`-wrapped (`gu`): "The user sent the following message: … Please address
//! this message and continue with your tasks." The 2.1.332 binary under `target/agents`
//! writes the same lines from its command queue, with `popOne` and a `reason` on `remove`
//! (`absorbed_mid_turn` when consumed mid-turn; `cleared_on_cancel`, `dropped_by_hook` …).
//! So:
//!
//! - `enqueue` carries the text (`content`, when the typed value is a string). Harness-made
//!   entries go through the same queue: a background task's `<task-notification>` (or
//!   2.0.x's `<agent-notification>`), a task's start as a JSON object (`{"task_id":…}`),
//!   and slash commands the user typed, which run as commands, not as words to the model;
//! - `remove` without a `reason` (or with `absorbed_mid_turn`) is the mid-turn delivery: the
//!   prompt went to the model beside the running turn's tool results, one `remove` each. In
//!   the sessions of 2.0.76 to 2.1.49 at hand no other line holds that text (the agent's
//!   next words take it up, and its own summary lists it among the user's messages); other
//!   reasons are a prompt never sent;
//! - `dequeue` takes the head of the queue to run as the next turn: the `user` line that
//!   follows carries its text (so the queued copy is not the message);
//! - `popAll` / `popOne` take queued prompts back into the input box to be edited (the
//!   edited text, if sent, is enqueued or typed again).
//!
//! An `enqueue` of the user's own words is read as a user message ([`QueueOp::Enqueue`]), and
//! the others as bookkeeping whose [`Event::Queue`] says what they did; which queued message
//! reached the model, and where, is decided with the session's other lines by the
//! live-context rule (`claude_code::queued`). The queue's lines are never rewritten: every
//! write-back copies them byte for byte.

use anyhow::Result;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::transcript::classify::is_injected;
use crate::transcript::model::{Entry, Event, Message, Part, QueueOp, Record, Role};
use crate::transcript::scan::{json_string, json_text};

/// The bookkeeping name of a `queue-operation` line.
pub(super) const QUEUE_OPERATION: &str = "queue-operation";

/// The `reason` 2.1.332 gives a `remove` whose prompt went to the model mid-turn.
const ABSORBED: &str = "absorbed_mid_turn";

/// Openings of queued text a harness made (beside what [`is_injected`] knows): a sub-agent's
/// notification (Claude Code 2.0.x) and a background task's start.
const HARNESS_ENTRIES: [&str; 2] = ["<agent-notification>", "{\"task_id\""];

/// The fields of a `queue-operation` line this reader uses, kept raw so that no value's type
/// can fail the line.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    operation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    reason: Option<&'a RawValue>,
}

/// The record of a `queue-operation` line (`text`, line number `line`): a user message for an
/// `enqueue` of the user's own words, bookkeeping otherwise; its link says which
/// [`QueueOp`] it is, and has no place in the `parentUuid` tree (the line has no uuid).
pub(super) fn read(line: usize, text: &str) -> Result<Record<'_>> {
    let fields: Line = serde_json::from_str(text)?;
    let operation = string(fields.operation);
    let op = match operation.as_deref() {
        Some("enqueue") => Some(QueueOp::Enqueue),
        Some("dequeue") => Some(QueueOp::Dequeue),
        Some("remove") => match string(fields.reason).as_deref() {
            None | Some(ABSORBED) => Some(QueueOp::Deliver),
            Some(_) => Some(QueueOp::Withdraw),
        },
        Some("popAll" | "popOne") => Some(QueueOp::Withdraw),
        _ => None,
    };
    let words = match op {
        Some(QueueOp::Enqueue) => fields
            .content
            .and_then(|raw| json_text(raw.get()))
            .filter(|content| users_words(content.as_str())),
        _ => None,
    };
    let entry = match words {
        Some(words) => Entry::Message(Message::new(Role::User, vec![Part::Text(words)])),
        None => Entry::Bookkeeping(QUEUE_OPERATION.into()),
    };
    let mut record = Record::new(line, text.as_bytes(), entry);
    if let Some(op) = op {
        record.link.event = Event::Queue(op);
    }
    Ok(record)
}

/// The string a raw JSON value holds, if it is one.
fn string(raw: Option<&RawValue>) -> Option<std::borrow::Cow<'_, str>> {
    raw.and_then(|raw| json_string(raw.get()))
}

/// Whether queued text is the user's own words to the model: not empty, not a harness's
/// entry, not a slash command.
fn users_words(text: &str) -> bool {
    let text = text.trim_start();
    let slash_command = text
        .strip_prefix('/')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()));
    !text.is_empty()
        && !slash_command
        && !is_injected(text)
        && !HARNESS_ENTRIES.iter().any(|entry| text.starts_with(entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(text: &str) -> (Entry<'_>, Event) {
        let record = read(1, text).unwrap();
        (record.entry, record.link.event)
    }

    fn words(entry: &Entry) -> Option<String> {
        match entry {
            Entry::Message(m) => Some(crate::transcript::classify::text_of(m)),
            Entry::Bookkeeping(_) => None,
        }
    }

    #[test]
    fn an_enqueue_of_the_users_words_is_a_user_message() {
        let (entry, event) = op(
            r#"{"type":"queue-operation","operation":"enqueue","timestamp":"t","sessionId":"s","content":"tests tests tests"}"#,
        );
        assert_eq!(words(&entry).as_deref(), Some("tests tests tests"));
        assert_eq!(event, Event::Queue(QueueOp::Enqueue));
        let escaped = r#"{"type":"queue-operation","operation":"enqueue","content":"what do the \n```\n  \"a\": 1"}"#;
        assert_eq!(
            words(&op(escaped).0).as_deref(),
            Some("what do the \n```\n  \"a\": 1")
        );
    }

    #[test]
    fn harness_entries_and_slash_commands_are_bookkeeping() {
        for content in [
            r#"<task-notification>\n<task-id>b1</task-id>"#,
            r#"<agent-notification>\n<agent-id>a1</agent-id>"#,
            r#"{\"task_id\":\"b1\",\"description\":\"Build\"}"#,
            "/compact",
            "/security:review of the changes",
            "   ",
        ] {
            let line = format!(
                r#"{{"type":"queue-operation","operation":"enqueue","content":"{content}"}}"#
            );
            let (entry, event) = op(&line);
            assert_eq!(entry, Entry::Bookkeeping(QUEUE_OPERATION.into()), "{line}");
            assert_eq!(event, Event::Queue(QueueOp::Enqueue));
        }
        // A typed value that is no string (pasted images) has no text to read.
        let (entry, _) = op(r#"{"type":"queue-operation","operation":"enqueue","content":[1]}"#);
        assert_eq!(entry, Entry::Bookkeeping(QUEUE_OPERATION.into()));
        // "/ path" is no command.
        let (entry, _) =
            op(r#"{"type":"queue-operation","operation":"enqueue","content":"/tmp is full"}"#);
        assert!(words(&entry).is_none());
        let (entry, _) =
            op(r#"{"type":"queue-operation","operation":"enqueue","content":"/ is the root"}"#);
        assert!(words(&entry).is_some());
    }

    #[test]
    fn the_other_operations_say_what_became_of_a_queued_message() {
        for (line, expected) in [
            (r#"{"operation":"dequeue"}"#, Some(QueueOp::Dequeue)),
            (r#"{"operation":"remove"}"#, Some(QueueOp::Deliver)),
            (
                r#"{"operation":"remove","content":"x","reason":"absorbed_mid_turn"}"#,
                Some(QueueOp::Deliver),
            ),
            (
                r#"{"operation":"remove","content":"x","reason":"cleared_on_cancel"}"#,
                Some(QueueOp::Withdraw),
            ),
            (
                r#"{"operation":"popAll","content":"x"}"#,
                Some(QueueOp::Withdraw),
            ),
            (
                r#"{"operation":"popOne","content":"x"}"#,
                Some(QueueOp::Withdraw),
            ),
            (r#"{"operation":"hover"}"#, None),
            (r#"{"operation":7}"#, None),
            (r#"{}"#, None),
        ] {
            let (entry, event) = op(line);
            assert_eq!(entry, Entry::Bookkeeping(QUEUE_OPERATION.into()), "{line}");
            assert_eq!(event, expected.map_or(Event::None, Event::Queue), "{line}");
        }
    }
}
