//! Copilot CLI's rule. Its session runtime is native code (`prebuilds/linux-x64/runtime.node`,
//! the Rust module `copilot_runtime` of `@github/copilot` 1.0.102: the event replay and the
//! message list rebuilt after a compaction); the rule below is what its strings and the
//! experiments of `docs/agents/copilot.md` (E1–E12, `fixtures/agents/copilot/resume.sh`) show:
//!
//! - every line of `events.jsonl` is replayed in file order (`parentId` is not followed: E7);
//!   messages append, bookkeeping sends nothing;
//! - a successful `session.compaction_complete` with a `summaryContent` replaces everything
//!   replayed so far by one user message: "Some of the conversation history has been
//!   summarized to free up context.", the `content` of every `user.message` before the event
//!   (earlier compactions' included: E10), each in a `<user_message>` tag, and the summary in a
//!   `<summary>` tag. With more than ten such messages only the first two and the last eight
//!   are listed, `... N messages omitted ...` between them (E12);
//! - a failed or cancelled compaction, or one without a summary, changes nothing (E11), and
//!   its numbers (`messagesRemoved`, …) are never read (E4).
//!
//! So the live context after a marker is the user messages it lists (their records), the
//! marker, and what follows it. A sub-agent's messages (`agentId`, `parentToolCallId`) are not
//! the main conversation's.

use super::Copilot;
use crate::transcript::live::{Live, LiveRule, Node};

/// How many of the first user messages a compaction message lists.
pub(super) const LISTED_FIRST: usize = 2;

/// How many of the last user messages a compaction message lists.
pub(super) const LISTED_LAST: usize = 8;

impl LiveRule for Copilot {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Copilot CLI session.
fn live(nodes: &[Node]) -> Live {
    let mut live = Live::default();
    // Every user message of the main conversation so far, in file order.
    let mut users: Vec<usize> = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        if node.compaction {
            live.order = listed(&users).to_vec();
            live.order.push(index);
            live.marker = Some(index);
            continue;
        }
        match node.message {
            Some(message) if message.sidechain => {}
            Some(message) => {
                if message.role == crate::transcript::Role::User && !message.tool_result {
                    users.push(index);
                }
                live.order.push(index);
            }
            None => live.order.push(index),
        }
    }
    live
}

/// The user messages a compaction message lists: all of them up to ten, else the first
/// [`LISTED_FIRST`] and the last [`LISTED_LAST`].
pub(super) fn listed<T: Copy>(users: &[T]) -> Vec<T> {
    if users.len() <= LISTED_FIRST + LISTED_LAST {
        return users.to_vec();
    }
    let mut kept = users[..LISTED_FIRST].to_vec();
    kept.extend_from_slice(&users[users.len() - LISTED_LAST..]);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::{Event, Keep, Link, Role};

    #[test]
    fn a_compaction_keeps_the_user_messages_before_it() {
        let plain = Link::default();
        let marker = Link {
            event: Event::Compaction(Keep::UserMessages),
            ..Link::default()
        };
        let mut nodes = vec![
            node(&plain, None),                  // session.start
            node(&plain, Some(Role::User)),      // Q1
            node(&plain, Some(Role::Assistant)), // A1
            node(&plain, Some(Role::User)),      // Q2
            node(&plain, Some(Role::Assistant)), // A2
            node(&marker, Some(Role::User)),     // the compaction
            node(&plain, Some(Role::User)),      // Q3
            node(&plain, Some(Role::Assistant)), // A3
        ];
        nodes[5].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [1, 3, 5, 6, 7]);
        assert_eq!(live.marker, Some(5));
        // A second compaction lists the users of both spans, not the first summary.
        nodes.push(node(&marker, Some(Role::User)));
        nodes[8].compaction = true;
        assert_eq!(super::live(&nodes).order, [1, 3, 6, 8]);
    }

    #[test]
    fn more_than_ten_user_messages_list_the_first_two_and_the_last_eight() {
        let all: Vec<usize> = (0..40).collect();
        let listed = listed(&all);
        assert_eq!(listed[..2], [0, 1]);
        assert_eq!(listed[2..], (32..40).collect::<Vec<_>>()[..]);
        assert_eq!(super::listed(&all[..10]), all[..10]);
    }
}
