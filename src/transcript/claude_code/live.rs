//! Claude Code's rule, as its resume loads a session (read from the 2.1.x bundle: the
//! transcript loader that relinks a compaction's kept messages and then walks the `parentUuid`
//! chain back from the newest leaf):
//!
//! 1. Lines are nodes by `uuid` (the first line with a uuid wins: a resumed session may replay
//!    an earlier prefix with the same uuids).
//! 2. When a `compact_boundary` carries `compactMetadata.preservedMessages` (or a
//!    `preservedSegment`, walked back from its tail to its head), and it is the newest
//!    boundary, the preserved records are chained one after another under the anchor (the
//!    summary line), and what hung under the anchor hangs under the last of them; once any
//!    boundary carries such metadata, every line before the newest boundary that is not
//!    preserved is dropped, and what hung under a dropped line hangs under the last preserved
//!    record. A list naming a uuid the file lacks relinks nothing.
//! 3. The leaf is the newest main-chain user or assistant line with no user or assistant line
//!    under it; the context is the chain from the root (a boundary has `parentUuid: null`) to
//!    the leaf.
//! 4. Parallel tool calls can leave lines hanging beside the chain rather than on it: further
//!    `assistant` fragments of a response on the chain (same `message.id`) and tool results.
//!    Those join the context, in file order, right after the chain record they hang under.
//! 5. What the user typed while the agent worked and the model was handed mid-turn (a queued
//!    message no line of the tree holds) joins the context where the model read it (see
//!    [`super::queued`]).

use super::{queued, ClaudeCode};
use crate::transcript::live::{Live, LiveRule, Map, Node, Set};
use crate::transcript::model::{Event, Keep, NodeId, Parent, Role};

impl LiveRule for ClaudeCode {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Claude Code session.
fn live(nodes: &[Node]) -> Live {
    let mut by_id: Map<NodeId, usize> =
        Map::with_capacity_and_hasher(nodes.len(), Default::default());
    for (index, node) in nodes.iter().enumerate() {
        if let Some(id) = node.link.id {
            by_id.entry(id).or_insert(index);
        }
    }
    let mut parent: Vec<Option<usize>> = nodes
        .iter()
        .map(|node| match node.link.parent {
            Parent::Node(id) => by_id.get(&id).copied(),
            Parent::Root | Parent::Unlinked => None,
        })
        .collect();
    let mut dropped = vec![false; nodes.len()];
    relink_preserved(nodes, &by_id, &mut parent, &mut dropped);

    let mut has_child = vec![false; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        if let (false, true, Some(p)) = (dropped[index], node.conversational(), parent[index]) {
            has_child[p] = true;
        }
    }
    let Some(leaf) =
        (0..nodes.len()).rfind(|&i| !dropped[i] && !has_child[i] && nodes[i].conversational())
    else {
        return Live::default();
    };

    let mut chain = Vec::new();
    let mut on_chain = vec![false; nodes.len()];
    let mut current = Some(leaf);
    while let Some(index) = current.filter(|&i| !std::mem::replace(&mut on_chain[i], true)) {
        chain.push(index);
        current = parent[index];
    }
    chain.reverse();

    // Records beside the chain that belong to a response on it: further fragments of that
    // response (parallel tool calls) and the tool results under them or under the chain.
    let responses: Set<NodeId> = chain
        .iter()
        .filter_map(|&i| nodes[i].link.response)
        .collect();
    let belongs = |index: usize| {
        let node = &nodes[index];
        !dropped[index]
            && !on_chain[index]
            && node.message.is_some_and(|m| {
                !m.sidechain
                    && match m.role {
                        Role::User => m.tool_result,
                        Role::Assistant => {
                            node.link.response.is_some_and(|r| responses.contains(&r))
                        }
                        _ => false,
                    }
            })
    };
    let mut children: Map<usize, Vec<usize>> = Map::default();
    for index in (0..nodes.len()).filter(|&i| belongs(i)) {
        if let Some(p) = parent[index] {
            children.entry(p).or_default().push(index);
        }
    }
    let mut order = Vec::with_capacity(chain.len());
    for index in chain {
        order.push(index);
        let mut found = Vec::new();
        let mut next = children.remove(&index).unwrap_or_default();
        while let Some(beside) = next.pop() {
            found.push(beside);
            next.extend(children.remove(&beside).unwrap_or_default());
        }
        found.sort_unstable();
        order.extend(found);
    }
    let order = queued::with_delivered(nodes, order);
    let marker = order.iter().rev().copied().find(|&i| nodes[i].compaction);
    Live { order, marker }
}

/// Applies a compaction's kept-messages metadata (step 2 of the module docs).
fn relink_preserved(
    nodes: &[Node],
    by_id: &Map<NodeId, usize>,
    parent: &mut [Option<usize>],
    dropped: &mut [bool],
) {
    let Some(newest) = nodes.iter().rposition(|node| node.compaction) else {
        return;
    };
    let keeps = |node: &Node| {
        matches!(
            node.link.event,
            Event::Compaction(Keep::Preserved { .. } | Keep::Segment { .. })
        )
    };
    if !nodes[..=newest].iter().any(keeps) {
        return;
    }
    let mut preserved: Vec<usize> = Vec::new();
    let mut anchor = None;
    if let Event::Compaction(keep) = &nodes[newest].link.event {
        let listed = match keep {
            Keep::Preserved { anchor, nodes: ids } => ids
                .iter()
                .map(|id| by_id.get(id).copied())
                .collect::<Option<Vec<_>>>()
                .map(|list| (*anchor, list)),
            Keep::Segment { head, anchor, tail } => {
                walk_segment(nodes, by_id, parent, *head, *tail).map(|list| (*anchor, list))
            }
            _ => Some((0, Vec::new())),
        };
        // A list that names a line the file lacks relinks nothing and drops nothing.
        let Some((anchor_id, list)) = listed else {
            return;
        };
        anchor = by_id.get(&anchor_id).copied();
        preserved = list;
    }
    let kept: Set<usize> = preserved.iter().copied().collect();
    if let (Some(&first), Some(&last)) = (preserved.first(), preserved.last()) {
        let mut under = anchor;
        for &index in &preserved {
            parent[index] = under;
            under = Some(index);
        }
        for (index, up) in parent.iter_mut().enumerate() {
            if anchor.is_some() && *up == anchor && index != first {
                *up = Some(last);
            }
        }
    }
    for (index, gone) in dropped.iter_mut().enumerate().take(newest) {
        *gone = !kept.contains(&index);
    }
    if let Some(&last) = preserved.last() {
        for index in 0..nodes.len() {
            let hangs_under_dropped = parent[index].is_some_and(|p| dropped[p]);
            if !dropped[index] && nodes[index].conversational() && hangs_under_dropped {
                parent[index] = Some(last);
            }
        }
    }
}

/// The records of a `preservedSegment`, head first: the chain walked back from `tail` until
/// `head`; `None` when the walk does not reach it.
fn walk_segment(
    nodes: &[Node],
    by_id: &Map<NodeId, usize>,
    parent: &[Option<usize>],
    head: NodeId,
    tail: NodeId,
) -> Option<Vec<usize>> {
    let mut list = Vec::new();
    let mut seen = Set::default();
    let mut current = by_id.get(&tail).copied();
    while let Some(index) = current.filter(|&i| seen.insert(i)) {
        list.push(index);
        if nodes[index].link.id == Some(head) {
            list.reverse();
            return Some(list);
        }
        current = parent[index];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::{node_id, Link};

    fn line(id: &str, parent: Option<&str>) -> Link {
        Link {
            id: Some(node_id(id)),
            parent: parent.map_or(Parent::Root, |p| Parent::Node(node_id(p))),
            event: Event::None,
            response: None,
        }
    }

    fn boundary(id: &str, keep: Keep) -> Link {
        Link {
            event: Event::Compaction(keep),
            ..line(id, None)
        }
    }

    #[test]
    fn a_rewind_keeps_the_newest_branch() {
        // u1 ─ a1 ─ u2 ─ a2      (rewound away)
        //       └── u3 ─ a3      (written last)
        let links = [
            line("u1", None),
            line("a1", Some("u1")),
            line("u2", Some("a1")),
            line("a2", Some("u2")),
            line("u3", Some("a1")),
            line("a3", Some("u3")),
        ];
        let roles = [Role::User, Role::Assistant].repeat(3);
        let nodes: Vec<_> = links
            .iter()
            .zip(roles)
            .map(|(l, r)| node(l, Some(r)))
            .collect();
        assert_eq!(live(&nodes).order, [0, 1, 4, 5]);
    }

    #[test]
    fn a_boundary_without_kept_messages_starts_a_new_root() {
        let links = [
            line("u1", None),
            line("a1", Some("u1")),
            boundary("b", Keep::Nothing),
            line("s", Some("b")),
            line("a2", Some("s")),
        ];
        let roles = [
            Some(Role::User),
            Some(Role::Assistant),
            None,
            Some(Role::User),
            Some(Role::Assistant),
        ];
        let mut nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        nodes[2].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [2, 3, 4]);
        assert_eq!(live.marker, Some(2));
    }

    #[test]
    fn preserved_messages_are_relinked_after_the_summary() {
        // The kept tail (u2, a2) stays where it was in the file; the boundary appended after it
        // names it, and the summary is its anchor; a reply written later hangs under the summary.
        let keep = Keep::Preserved {
            anchor: node_id("s"),
            nodes: vec![node_id("u2"), node_id("a2")],
        };
        let links = [
            line("u1", None),
            line("a1", Some("u1")),
            line("u2", Some("a1")),
            line("a2", Some("u2")),
            boundary("b", keep),
            line("s", Some("b")),
            line("u3", Some("s")),
        ];
        let roles = [
            Some(Role::User),
            Some(Role::Assistant),
            Some(Role::User),
            Some(Role::Assistant),
            None,
            Some(Role::User),
            Some(Role::User),
        ];
        let mut nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        nodes[4].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [4, 5, 2, 3, 6]);
        assert!(
            !live.usage_counts(3),
            "the kept reply's usage predates the summary"
        );
        // Without the later reply, the leaf is the last kept record.
        assert_eq!(super::live(&nodes[..6]).order, [4, 5, 2, 3]);
    }

    #[test]
    fn a_preserved_segment_is_walked_from_its_tail() {
        let keep = Keep::Segment {
            head: node_id("u2"),
            anchor: node_id("s"),
            tail: node_id("a2"),
        };
        let links = [
            line("u1", None),
            line("u2", Some("u1")),
            line("a2", Some("u2")),
            boundary("b", keep),
            line("s", Some("b")),
        ];
        let roles = [
            Some(Role::User),
            Some(Role::User),
            Some(Role::Assistant),
            None,
            Some(Role::User),
        ];
        let mut nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        nodes[3].compaction = true;
        assert_eq!(live(&nodes).order, [3, 4, 1, 2]);
    }

    #[test]
    fn a_parallel_tool_result_beside_the_chain_is_kept() {
        // a1 and a2 are two tool calls of one response; r1 answers a1 but hangs under it,
        // beside the chain that runs a1 ─ a2 ─ r2 ─ a3.
        let links = [
            line("u1", None),
            line("a1", Some("u1")),
            line("a2", Some("a1")),
            line("r1", Some("a1")),
            line("r2", Some("a2")),
            line("a3", Some("r2")),
        ];
        let roles = [
            Role::User,
            Role::Assistant,
            Role::Assistant,
            Role::User,
            Role::User,
            Role::Assistant,
        ];
        let mut nodes: Vec<_> = links
            .iter()
            .zip(roles)
            .map(|(l, r)| node(l, Some(r)))
            .collect();
        for result in [3, 4] {
            let message = nodes[result].message.as_mut().unwrap();
            message.tool_result = true;
            message.user_turn = false;
        }
        assert_eq!(live(&nodes).order, [0, 1, 3, 2, 4, 5]);
    }
}
