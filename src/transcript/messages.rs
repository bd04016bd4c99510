//! What one message is: the records of the live context grouped into the messages the agent's
//! loader sends the model, which is what `--preserve N` counts.
//!
//! A record is one line, and a line is not always one message. Claude Code writes one API
//! response as several `assistant` lines (one per content block, sharing `message.id`); Codex
//! writes a response's `reasoning`, `message` and call items one per line; every format writes a
//! tool's output apart from the call that asked for it. A [`Unit`] is one message as the model
//! received it, and everything that travels with it: the fragments of one response, the results
//! of its tool calls (parallel calls and a sub-agent's report included), and the bookkeeping
//! lines between them. Cutting between two units never splits a response or separates a call
//! from its result.
//!
//! Each format says which records continue the message before them
//! ([`super::format::Format::continues_message`]);
//! [`super::model::Message::answers_a_call`] is the rule most share.

use std::ops::Range;

use super::format::Format;
use super::model::{Record, Role};

/// One message as the model received it, with what travels with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The records it spans: from its first record up to the next unit's first (bookkeeping
    /// and sidechain lines between its records are inside).
    pub records: Range<usize>,
    /// The role of its first message.
    pub role: Role,
}

impl Unit {
    /// Whether `--preserve` counts it: a user or assistant message (kimi-cli counts those two
    /// roles; system prompts and tool results are not counted).
    pub fn counts(&self) -> bool {
        matches!(self.role, Role::User | Role::Assistant)
    }
}

/// The units of `records` by `format`'s rule, in order. Records before the first main-chain
/// message belong to no unit.
pub fn units(format: &dyn Format, records: &[Record]) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let mut current: Vec<&Record> = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let Some(message) = record.message().filter(|m| !m.sidechain) else {
            continue;
        };
        if current.is_empty() || !format.continues_message(&current, record) {
            if let Some(last) = units.last_mut() {
                last.records.end = index;
            }
            units.push(Unit {
                records: index..records.len(),
                role: message.role,
            });
            current.clear();
        }
        current.push(record);
    }
    units
}

#[cfg(test)]
pub(crate) mod testing {
    //! Builders for the unit tests of every format's rule.

    use super::*;
    use crate::transcript::{Entry, Message, Part};

    /// A main-chain message record with these parts, answering `call_id` when given.
    pub fn message(role: Role, parts: Vec<Part<'static>>) -> Record<'static> {
        Record::new(0, b"", Entry::Message(Message::new(role, parts)))
    }

    /// A text part.
    pub fn text(text: &str) -> Part<'static> {
        Part::Text(text.to_owned().into())
    }

    /// A tool call part with this id.
    pub fn call(id: &str, name: &str) -> Part<'static> {
        Part::ToolCall {
            id: Some(id.to_owned().into()),
            name: name.to_owned().into(),
            arguments: "{}".into(),
        }
    }

    /// A tool result part answering `id`.
    pub fn result(id: &str) -> Part<'static> {
        Part::ToolResult {
            call_id: Some(id.to_owned().into()),
            text: "ok".into(),
        }
    }

    /// The record ranges of the units `format` makes of `records`.
    pub fn spans(format: &dyn Format, records: &[Record]) -> Vec<Range<usize>> {
        units(format, records)
            .into_iter()
            .map(|u| u.records)
            .collect()
    }

    /// Reads `lines` with `format` (numbered from 1) and checks the units it makes of them
    /// against `expected`, and that `--preserve N` for every N starts the tail at a unit's
    /// first record and keeps the newest request (in the tail, or apart before it).
    pub fn check(format: &dyn Format, lines: &[String], expected: &[Range<usize>]) {
        use crate::plan::{plan, Mode};
        use crate::tokens::Tokenizer;
        let records: Vec<Record> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| format.read(i + 1, line).unwrap())
            .collect();
        assert_eq!(spans(format, &records), expected, "units");
        let newest = records.iter().rposition(|r| {
            r.message()
                .is_some_and(crate::transcript::classify::is_real_user_request)
        });
        for preserve in 1..=expected.len() as i64 {
            let plan = plan(&records, Mode::Tail { preserve }, Tokenizer::Chars4, format).unwrap();
            if plan.noop.is_some() {
                continue;
            }
            assert!(
                expected.iter().any(|u| u.start == plan.tail.start),
                "--preserve {preserve}: the tail starts inside a message at {}",
                plan.tail.start
            );
            if let Some(newest) = newest {
                assert!(
                    plan.kept_after().any(|p| p == newest),
                    "--preserve {preserve}: the newest request is not kept"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::transcript::kimi::Kimi;
    use crate::transcript::{Entry, Part};

    #[test]
    fn leading_bookkeeping_belongs_to_no_unit_and_trailing_to_the_last() {
        let records = [
            Record::new(0, b"", Entry::Bookkeeping("_checkpoint".into())),
            message(Role::User, vec![text("q")]),
            Record::new(0, b"", Entry::Bookkeeping("_usage".into())),
            message(Role::Assistant, vec![text("a")]),
            Record::new(0, b"", Entry::Bookkeeping("_usage".into())),
        ];
        assert_eq!(spans(&Kimi, &records), [1..3, 3..5]);
    }

    #[test]
    fn results_without_a_call_id_are_the_users_own() {
        let bash = message(
            Role::User,
            vec![
                text("ls"),
                Part::ToolResult {
                    call_id: None,
                    text: "a.txt".into(),
                },
            ],
        );
        assert!(!bash.message().unwrap().answers_a_call());
        let tool = message(Role::Tool, vec![text("ok")]);
        assert!(tool.message().unwrap().answers_a_call());
        let result = message(Role::User, vec![result("c1")]);
        assert!(result.message().unwrap().answers_a_call());
        let own = message(
            Role::Assistant,
            vec![call("c1", "ls"), super::testing::result("c1")],
        );
        assert!(!own.message().unwrap().answers_a_call());
    }

    #[test]
    fn sidechain_messages_neither_open_nor_break_a_unit() {
        let mut side = message(Role::User, vec![text("sub-agent prompt")]);
        if let Entry::Message(m) = &mut side.entry {
            m.sidechain = true;
        }
        let records = [
            message(Role::User, vec![text("q")]),
            message(Role::Assistant, vec![call("t1", "Task")]),
            side,
            message(Role::Tool, vec![text("report")]).clone(),
            message(Role::Assistant, vec![text("done")]),
        ];
        assert_eq!(spans(&Kimi, &records), [0..1, 1..4, 4..5]);
    }
}
