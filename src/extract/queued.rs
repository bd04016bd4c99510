//! The prompt in flight at the cut: what the user typed while Claude Code worked, taken off
//! its queue to run as the next turn, when the compaction came before the turn's own `user`
//! line. Claude Code compacts right then, so the file ends on `enqueue` … `dequeue` with no
//! line carrying the text (`transcript::claude_code::queued` leaves the queued copy out of the
//! live context, as the agent does): the next turn answers it, and the summary must say so.

use super::ask::compress;
use super::limits::ASK_CHARS;
use super::model::{Extract, Said};
use crate::transcript::classify::text_of;
use crate::transcript::model::{Event, Queue, QueueOp, Role};
use crate::transcript::Record;

/// Characters of the queued text that tell its own `user` line, once written, from others.
const SAME_START: usize = 60;

/// `ex` with the prompt in flight after `records` (the whole file, not only the live context)
/// as its task, not started yet, and the request before it as the context it leans on.
pub fn with_in_flight(ex: &mut Extract, records: &[Record]) {
    let Some(text) = in_flight(records) else {
        return;
    };
    if let Some(task) = ex.task.take() {
        ex.context = Some(task);
    }
    ex.task = Some(Said {
        text: compress(&text, ASK_CHARS),
        // From outside the context: no record of the extract has this index.
        index: usize::MAX,
    });
    ex.fresh = true;
}

/// The text of the prompt in flight after `records` (see the module docs): the user's queued
/// words that a `dequeue` took to run as the next turn, when no later user message carries
/// them.
fn in_flight(records: &[Record]) -> Option<String> {
    // Queued entries: the user's words, or none for a harness's entry.
    let mut queue: Queue<Option<String>> = Queue::default();
    let mut running: Option<String> = None;
    for record in records {
        let message = record.message();
        match record.link.event {
            Event::Queue(op) => {
                let taken = queue.replay(op, || {
                    let words = message.map(text_of).filter(|t| !t.trim().is_empty());
                    let users = words.is_some();
                    (words, users)
                });
                if op == QueueOp::Dequeue {
                    running = taken.and_then(|(words, _)| words);
                }
            }
            _ => {
                let Some(message) = message.filter(|m| m.role == Role::User) else {
                    continue;
                };
                if running
                    .as_deref()
                    .is_some_and(|text| carries(&text_of(message), text))
                {
                    running = None;
                }
            }
        }
    }
    running
}

/// True when `line` (a user message's text) is the queued `text` run as its turn.
fn carries(line: &str, text: &str) -> bool {
    let start: String = text.trim().chars().take(SAME_START).collect();
    line.contains(start.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::load::{LoadOptions, Transcript};

    fn records(lines: &[&str]) -> Option<String> {
        let text = lines.join("\n") + "\n";
        let transcript = Transcript::parse("t.jsonl", text.as_bytes(), LoadOptions::default());
        in_flight(&transcript.unwrap().records)
    }

    const USER: &str = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"fix the flaky test"}}"#;
    const ENQUEUE: &str = r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"there is a PR review comment, look at it"}"#;
    const DEQUEUE: &str = r#"{"type":"queue-operation","operation":"dequeue","sessionId":"s"}"#;
    const TURN: &str = r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":"there is a PR review comment, look at it"}}"#;

    #[test]
    fn a_dequeued_prompt_with_no_turn_yet_is_in_flight() {
        assert_eq!(
            records(&[USER, ENQUEUE, DEQUEUE]).as_deref(),
            Some("there is a PR review comment, look at it")
        );
        // Its turn was written: it is an ordinary request.
        assert_eq!(records(&[USER, ENQUEUE, DEQUEUE, TURN]), None);
        // Still queued, or delivered mid-turn: not the next turn.
        assert_eq!(records(&[USER, ENQUEUE]), None);
        let deliver = r#"{"type":"queue-operation","operation":"remove","sessionId":"s"}"#;
        assert_eq!(records(&[USER, ENQUEUE, deliver]), None);
    }
}
