//! Where the messages the user typed while Claude Code worked join the live context.
//!
//! The reader makes each queued text of the user's a user message with no place in the
//! `parentUuid` tree, and the queue's other lines events (`read::queue` says what Claude Code
//! does on each). The queue is first in, first out, and the lines name no entry, so they are
//! replayed in file order:
//!
//! - `dequeue` takes the oldest entry: it runs as the next turn, whose own `user` line is the
//!   message (the queued copy never is, so nothing is counted twice);
//! - `remove` (delivered mid-turn) takes the oldest entry that is the user's words, else the
//!   oldest entry: the harness's own entries (task notifications) leave the queue that way
//!   too, and what they said is not the user's;
//! - `popAll` / `popOne`, or a `remove` giving a reason other than delivery, take the oldest
//!   entry of the user's the same way, unsent.
//!
//! A delivered message joins the context where the model read it: beside the tool results of
//! the turn that was running, so right before the first message after the `remove` line that
//! is no tool result (the reply it prompted), or at the end when none follows. It is live when
//! the turn it was handed to is: when the last tree message before the `remove` line is in the
//! context (not on a branch a rewind left), and no compaction came after it: a compaction keeps
//! lines of the tree only (its summary carries the rest), which is why condense's own
//! write-back writes a kept queued message again as a user line (`compact`).
//!
//! Counting follows: `estimate` counts a delivered message's words in the context (the model
//! also got the harness's wrapper sentence of some twenty tokens, which no line holds, so it
//! is not counted; where the agent recorded a usage figure after it, that figure holds it
//! all), and a dequeued or withdrawn one not at all. The file's totals (`whole_file`, and
//! `--whole-file`, which leaves the agent's rule aside) count every line's messages, the
//! queue's copies included.

use crate::transcript::live::{Map, Node};
use crate::transcript::model::{Event, Parent, Queue, QueueOp, Role};

/// `order` (the context by the tree rule) with the queued messages delivered into it inserted
/// where the model read them (see the module docs).
pub(super) fn with_delivered(nodes: &[Node], order: Vec<usize>) -> Vec<usize> {
    let delivered = deliveries(nodes);
    if delivered.is_empty() {
        return order;
    }
    let marker = nodes.iter().rposition(|node| node.compaction);
    let position: Map<usize, usize> = order.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    // The messages to insert before each position of `order` (`order.len()`: at the end).
    let mut before: Map<usize, Vec<usize>> = Map::default();
    for (message, delivery) in delivered {
        if marker.is_some_and(|marker| delivery < marker) {
            continue;
        }
        let turn = (0..delivery).rev().find(|&i| in_tree(&nodes[i]));
        if !turn.is_some_and(|turn| position.contains_key(&turn)) {
            continue;
        }
        let reply = (delivery + 1..nodes.len())
            .filter(|&i| in_tree(&nodes[i]) && !is_tool_result(&nodes[i]))
            .find_map(|i| position.get(&i).copied());
        before
            .entry(reply.unwrap_or(order.len()))
            .or_default()
            .push(message);
    }
    let mut placed = Vec::with_capacity(order.len() + before.len());
    for (at, &index) in order.iter().enumerate() {
        placed.extend(before.remove(&at).unwrap_or_default());
        placed.push(index);
    }
    placed.extend(before.remove(&order.len()).unwrap_or_default());
    placed
}

/// The queued user messages handed to the model mid-turn, each with the index of the line that
/// says so, by replaying the queue's lines (see the module docs).
fn deliveries(nodes: &[Node]) -> Vec<(usize, usize)> {
    // Queued entries: the index of the line that queued each.
    let mut queue: Queue<usize> = Queue::default();
    let mut delivered = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        let Event::Queue(op) = node.link.event else {
            continue;
        };
        let taken = queue.replay(op, || (index, node.message.is_some()));
        if let (QueueOp::Deliver, Some((message, true))) = (op, taken) {
            delivered.push((message, index));
        }
    }
    delivered
}

/// Whether a node is a message of the `parentUuid` tree (every message but a queued one).
fn in_tree(node: &Node) -> bool {
    node.message.is_some_and(|m| !m.sidechain) && node.link.parent != Parent::Unlinked
}

/// Whether a node is a user line of tool results.
fn is_tool_result(node: &Node) -> bool {
    node.message
        .is_some_and(|m| m.role == Role::User && m.tool_result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::live::NodeMessage;
    use crate::transcript::{node_id, Link};

    /// A tree line: its link, and its role (`None` for bookkeeping), with a tool result for
    /// `Role::Tool` (a Claude Code user line of results).
    fn tree(id: &str, parent: &str) -> Link {
        Link {
            id: Some(node_id(id)),
            parent: Parent::Node(node_id(parent)),
            ..Link::default()
        }
    }

    fn queue(op: QueueOp) -> Link {
        Link {
            event: Event::Queue(op),
            ..Link::default()
        }
    }

    /// Nodes for `lines`: (link, role), with `Role::Tool` standing for a user line of tool
    /// results.
    fn nodes_of(lines: &[(Link, Option<Role>)]) -> Vec<Node<'_>> {
        lines
            .iter()
            .map(|(link, role)| match role {
                Some(Role::Tool) => Node {
                    message: Some(NodeMessage {
                        role: Role::User,
                        sidechain: false,
                        tool_result: true,
                        user_turn: false,
                    }),
                    ..node(link, None)
                },
                _ => node(link, *role),
            })
            .collect()
    }

    const USER: Option<Role> = Some(Role::User);
    const ASSISTANT: Option<Role> = Some(Role::Assistant);
    const RESULT: Option<Role> = Some(Role::Tool);
    const BOOKKEEPING: Option<Role> = None;

    #[test]
    fn a_message_delivered_mid_turn_joins_after_the_turns_results() {
        // As entire-cli-7f78a542 writes it: the enqueue while the agent thinks, the remove
        // before the tool result line it was handed over with.
        let lines = [
            (tree("a1", "u0"), ASSISTANT),
            (queue(QueueOp::Enqueue), USER),
            (tree("a2", "a1"), ASSISTANT),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (tree("r2", "a2"), RESULT),
            (tree("a3", "r2"), ASSISTANT),
        ];
        let nodes = nodes_of(&lines);
        assert_eq!(deliveries(&nodes), [(1, 3)]);
        assert_eq!(with_delivered(&nodes, vec![0, 2, 4, 5]), [0, 2, 4, 1, 5]);
        // Written after the results, it goes to the same place; with no reply yet, last.
        let lines = [
            (tree("a2", "a1"), ASSISTANT),
            (queue(QueueOp::Enqueue), USER),
            (tree("r2", "a2"), RESULT),
            (queue(QueueOp::Deliver), BOOKKEEPING),
        ];
        let nodes = nodes_of(&lines);
        assert_eq!(with_delivered(&nodes, vec![0, 2]), [0, 2, 1]);
    }

    #[test]
    fn a_dequeued_or_withdrawn_message_is_never_delivered() {
        let lines = [
            (tree("a1", "u0"), ASSISTANT),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Dequeue), BOOKKEEPING),
            // The next turn's own user line carries the text.
            (tree("u2", "a1"), USER),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Withdraw), BOOKKEEPING),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Withdraw), BOOKKEEPING),
            (tree("a2", "u2"), ASSISTANT),
        ];
        let nodes = nodes_of(&lines);
        assert!(deliveries(&nodes).is_empty());
        assert_eq!(with_delivered(&nodes, vec![0, 3, 8]), [0, 3, 8]);
    }

    #[test]
    fn a_delivery_takes_the_users_words_before_a_harness_entry() {
        // A task notification queued first, then the user's words: one remove hands the
        // user's words over; the notification leaves with the next dequeue.
        let lines = [
            (tree("a1", "u0"), ASSISTANT),
            (queue(QueueOp::Enqueue), BOOKKEEPING),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (tree("r1", "a1"), RESULT),
            (queue(QueueOp::Dequeue), BOOKKEEPING),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (tree("a2", "r1"), ASSISTANT),
        ];
        let nodes = nodes_of(&lines);
        assert_eq!(deliveries(&nodes), [(2, 3), (6, 7)]);
        assert_eq!(with_delivered(&nodes, vec![0, 4, 8]), [0, 4, 2, 6, 8]);
        // A remove with nothing of the user's queued takes the harness entry.
        let lines = [
            (queue(QueueOp::Enqueue), BOOKKEEPING),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Dequeue), BOOKKEEPING),
            (queue(QueueOp::Deliver), BOOKKEEPING),
        ];
        assert!(deliveries(&nodes_of(&lines)).is_empty());
    }

    #[test]
    fn a_delivery_before_a_compaction_stays_out() {
        let lines = [
            (tree("a1", "u0"), ASSISTANT),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (tree("r1", "a1"), RESULT),
            (tree("b", "r1"), BOOKKEEPING),
            (tree("s", "b"), USER),
        ];
        let mut nodes = nodes_of(&lines);
        nodes[4].compaction = true;
        // The boundary kept the turn (a preserved tail), but not the queued message.
        assert_eq!(with_delivered(&nodes, vec![0, 3, 4, 5]), [0, 3, 4, 5]);
    }

    #[test]
    fn a_delivery_outside_the_context_stays_out() {
        // Handed to a turn the context no longer holds (compacted, or rewound away).
        let lines = [
            (tree("a1", "u0"), ASSISTANT),
            (queue(QueueOp::Enqueue), USER),
            (queue(QueueOp::Deliver), BOOKKEEPING),
            (tree("r1", "a1"), RESULT),
            (tree("s", "b"), USER),
        ];
        let nodes = nodes_of(&lines);
        assert_eq!(with_delivered(&nodes, vec![4]), [4]);
    }
}

#[cfg(test)]
mod corpus {
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::messages::units;

    /// Claude Code 2.1.19 (entireio/cli, lines 373-395 of its session): "tests tests tests" is
    /// queued (line 10) while the agent thinks, handed over mid-turn (the `remove` of line 12)
    /// with the Edit's result (line 13), and the next reply (line 14) takes it up ("The user is
    /// reminding me to run tests"); no other line holds the text.
    #[test]
    fn a_real_queued_message_is_context_once_where_the_model_read_it() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/corpus/claude-code/entireio-cli-7f78a542-queued.jsonl"
        );
        let bytes = std::fs::read(path).unwrap();
        let transcript = Transcript::parse("queued", &bytes, LoadOptions::default()).unwrap();
        let lines: Vec<usize> = transcript.context().iter().map(|r| r.line).collect();
        let at = lines.iter().position(|&line| line == 10).unwrap();
        assert_eq!(lines[at - 1..=at + 1], [13, 10, 14], "{lines:?}");
        assert_eq!(lines.iter().filter(|&&line| line == 10).count(), 1);
        let queued = transcript.context()[at].message().unwrap();
        assert_eq!(
            crate::transcript::classify::text_of(queued),
            "tests tests tests"
        );
        // The model got it in the user message of the Edit's result (line 13), which answers
        // the Edit call (line 11) of the response that thought at line 9.
        let context = transcript.context();
        let unit = units(transcript.dialect(), context)
            .into_iter()
            .find(|u| u.records.contains(&at))
            .unwrap();
        let unit_lines: Vec<usize> = context[unit.records].iter().map(|r| r.line).collect();
        assert_eq!(unit_lines, [9, 11, 13, 10]);
    }
}
