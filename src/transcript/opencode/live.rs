//! opencode's rule (`packages/opencode/src/session/message-v2.ts`, `MessageV2.filterCompacted`,
//! which `SessionPrompt.run` reads before every step, a resumed one included):
//!
//! 1. Walking the messages newest to oldest, each is kept; an assistant summary (`summary`,
//!    a `finish`, no error) marks its `parentID`. The walk stops at a marked user message
//!    holding a `compaction` part, kept: there when the part names no `tail_start_id`, else
//!    at the message with that id, further back.
//! 2. Oldest first again, when the newest compaction part with a `tail_start_id` has its
//!    tail before it and its summary after it, the list is reordered: the compaction's user
//!    message, the messages up to its summary, the tail (from `tail_start_id` up to the
//!    compaction), then everything after the summary.
//!
//! `toModelMessages` then leaves out what is not sent: an errored step (read as a message
//! beside the chain) and a message with no part it sends (read as bookkeeping).
//!
//! Not followed: a session left in opencode's `/undo` state (`session.revert`, on the session
//! row) loses the messages after its revert point when opencode next runs it
//! (`SessionRevert.cleanup`); condense reads the rows as they are.

use super::OpenCode;
use crate::transcript::live::{Live, LiveRule, Node};
use crate::transcript::model::{Event, Keep, Parent};

impl LiveRule for OpenCode {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The compaction part a node's message holds, if it holds one: its `tail_start_id`.
fn compaction_request(node: &Node) -> Option<Option<u64>> {
    match &node.link.event {
        Event::Compaction(Keep::FromNode(tail)) => Some(Some(*tail)),
        Event::Compaction(_) => Some(None),
        _ => None,
    }
}

/// The live context of an opencode session.
fn live(nodes: &[Node]) -> Live {
    // 1. filterCompacted's walk back.
    let mut kept = Vec::new();
    let mut summarised = Vec::new();
    let mut until = None;
    for (index, node) in nodes.iter().enumerate().rev() {
        kept.push(index);
        if let Some(tail) = until {
            if node.link.id == Some(tail) {
                break;
            }
            continue;
        }
        let marked = node.link.id.is_some_and(|id| summarised.contains(&id));
        if marked {
            if let Some(request) = compaction_request(node) {
                match request {
                    Some(tail) if node.link.id != Some(tail) => until = Some(tail),
                    _ => break,
                }
                continue;
            }
        }
        if node.compaction {
            if let Parent::Node(parent) = node.link.parent {
                summarised.push(parent);
            }
        }
    }
    kept.reverse();
    // 2. The summary first, then its tail.
    let request = kept
        .iter()
        .rposition(|&i| matches!(compaction_request(&nodes[i]), Some(Some(_))));
    if let Some(at) = request {
        let id = nodes[kept[at]].link.id;
        let tail = compaction_request(&nodes[kept[at]]).flatten();
        let summary = kept.iter().enumerate().position(|(k, &i)| {
            k > at
                && nodes[i].compaction
                && id.is_some_and(|id| nodes[i].link.parent == Parent::Node(id))
        });
        let start = kept.iter().position(|&i| nodes[i].link.id == tail);
        if let (Some(summary), Some(start)) = (summary, start) {
            if start < at {
                let mut order = kept[at..=summary].to_vec();
                order.extend_from_slice(&kept[start..at]);
                order.extend_from_slice(&kept[summary + 1..]);
                kept = order;
            }
        }
    }
    // What toModelMessages sends.
    let order: Vec<usize> = kept
        .into_iter()
        .filter(|&i| nodes[i].message.is_some_and(|m| !m.sidechain))
        .collect();
    let marker = nodes
        .iter()
        .rposition(|node| node.compaction)
        .filter(|m| order.contains(m));
    Live { order, marker }
}

#[cfg(test)]
mod tests {
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::opencode::testing::session;
    use crate::transcript::{classify::text_of, FormatId};

    /// What opencode sent resuming each fixture session (`docs/agents/opencode.md`, "Resume
    /// proof"), message by message, before the new question: the same messages here.
    #[test]
    fn the_fixture_sessions_resume_as_opencode_resumed_them() {
        let opening = |id: &str| -> Vec<String> {
            let bytes = session(id);
            let options = LoadOptions {
                from: Some(FormatId::OpenCode),
                ..LoadOptions::default()
            };
            let transcript = Transcript::parse("s", &bytes, options).unwrap();
            transcript
                .context()
                .iter()
                .map(|r| {
                    let text = text_of(r.message().unwrap());
                    text.chars().take(24).collect()
                })
                .collect()
        };
        let compact = opening("ses_dbdc40a00ffedRji45t55ZECSd");
        assert_eq!(compact.len(), 8, "{compact:?}");
        assert!(
            compact[1].starts_with("MOCK-SUMMARY up to OC-OL"),
            "{compact:?}"
        );
        assert!(compact[2].starts_with("\"OC-OLD-Q2"), "{compact:?}");
        assert!(compact[4].starts_with("\"OC-NEW-Q3"), "{compact:?}");
        assert!(
            !compact.iter().any(|t| t.contains("OC-OLD-Q1")),
            "{compact:?}"
        );
        let twice = opening("ses_dbdc1f885ffe1ifA1JLs4Mr0aM");
        assert_eq!(twice.len(), 6, "{twice:?}");
        assert!(
            twice[1].starts_with("MOCK-SUMMARY up to OC-TW"),
            "{twice:?}"
        );
        assert!(twice[2].starts_with("\"OC-TWICE-Q3"), "{twice:?}");
        // Every message of a session without a compaction: 3 questions, 4 answering steps.
        assert_eq!(opening("ses_dbdc535e8ffe5HFN9TBZwRoHKG").len(), 7);
    }
}
