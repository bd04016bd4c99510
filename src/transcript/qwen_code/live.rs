//! Qwen Code's rule, as its resume rebuilds the history it sends:
//!
//! 1. the leaf is the last conversation record in file order, and the chain its `parentUuid`
//!    walk back to the root, stopping at a parent it does not have or has seen
//!    (`packages/core/src/services/session-transcript-reader.ts`, the index build, and
//!    `walkTranscriptUuidChain` of `packages/core/src/utils/transcript-records.ts`); a record
//!    off the chain (a rewound branch) is never sent; of two records with one `uuid`, the
//!    first stands for both;
//! 2. over the chain in order (`packages/core/src/services/session-api-history.ts`,
//!    `SessionApiHistoryAccumulator.add`): a `chat_compression` record replaces the history so
//!    far with its `compressedHistory`; any other record with a message is appended; `system`
//!    records add nothing.
//!
//! A `chat_compression` line is read as its summary (the marker) and its further entries, which
//! have ids of their own but no parent ([`super::read`]): the history restarts with the marker,
//! then those entries. (`slash_command` results that were not sent to the model drop their
//! command's user entry; a `mid_turn_user_message` joins the user entry before it: neither
//! changes which records are sent, and condense counts them as Qwen Code writes them.)

use super::read::on_chain;
use super::QwenCode;
use crate::transcript::live::{Live, LiveRule, Map, Node, Set};
use crate::transcript::model::{NodeId, Parent};

impl LiveRule for QwenCode {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Qwen Code session.
fn live(nodes: &[Node]) -> Live {
    let mut first: Map<NodeId, usize> = Map::default();
    for (index, node) in nodes.iter().enumerate() {
        if let Some(id) = node.link.id {
            first.entry(id).or_insert(index);
        }
    }
    let mut order: Vec<usize> = Vec::new();
    let mut marker = None;
    for index in chain(nodes, &first) {
        let node = &nodes[index];
        if node.compaction {
            order.clear();
            order.push(index);
            marker = Some(index);
            let entries = nodes[index + 1..]
                .iter()
                .take_while(|entry| is_entry(entry));
            order.extend((index + 1..).zip(entries).map(|(at, _)| at));
        } else if node.message.is_some() {
            order.push(index);
        }
    }
    Live { order, marker }
}

/// Whether `node` is an entry of a compression's history after its first: an id of its own
/// and no parent, which no record of a line lacks.
fn is_entry(node: &Node) -> bool {
    node.link.id.is_some() && !on_chain(node.link)
}

/// The chain from the root to the leaf, the last record of a line with an id, as indexes.
fn chain(nodes: &[Node], first: &Map<NodeId, usize>) -> Vec<usize> {
    let leaf = nodes.iter().rposition(|node| on_chain(node.link));
    let Some(leaf) = leaf else {
        return Vec::new();
    };
    let mut seen: Set<usize> = Set::default();
    seen.insert(leaf);
    let mut walk = vec![leaf];
    let mut at = leaf;
    while let Parent::Node(parent) = nodes[at].link.parent {
        match first.get(&parent) {
            Some(&up) if seen.insert(up) => {
                walk.push(up);
                at = up;
            }
            _ => break,
        }
    }
    walk.reverse();
    walk
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::model::{Event, Keep};
    use crate::transcript::{node_id, Link, Role};

    fn record(id: &str, parent: Option<&str>) -> Link {
        Link {
            id: Some(node_id(id)),
            parent: parent.map_or(Parent::Root, |p| Parent::Node(node_id(p))),
            ..Link::default()
        }
    }

    #[test]
    fn the_chain_from_the_last_record_restarting_at_a_compression() {
        let links = [
            record("u1", None),
            record("t1", Some("u1")), // ui_telemetry
            record("a1", Some("t1")),
            record("x", Some("u1")), // a rewound branch
            Link {
                event: Event::Compaction(Keep::Nothing),
                ..record("c", Some("a1"))
            },
            Link {
                id: Some(node_id("c#1")),
                ..Link::default()
            }, // the acknowledgement
            record("u2", Some("c")),
            record("a2", Some("u2")),
            Link::default(), // a snapshot, off the chain
        ];
        let roles = [
            Some(Role::User),
            None,
            Some(Role::Assistant),
            Some(Role::Assistant),
            Some(Role::User),
            Some(Role::Assistant),
            Some(Role::User),
            Some(Role::Assistant),
            None,
        ];
        let mut nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        nodes[4].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [4, 5, 6, 7]);
        assert_eq!(live.marker, Some(4));
        // Before the compression: the chain, not the rewound branch.
        assert_eq!(super::live(&nodes[..3]).order, [0, 2]);
        // The leaf is the last record: the branch, when it comes last.
        assert_eq!(super::live(&nodes[..4]).order, [0, 3]);
    }

    #[test]
    fn a_cycle_ends_the_walk() {
        let links = [record("a", Some("b")), record("b", Some("a"))];
        let nodes: Vec<_> = links.iter().map(|l| node(l, Some(Role::User))).collect();
        assert_eq!(live(&nodes).order, [0, 1]);
    }
}
