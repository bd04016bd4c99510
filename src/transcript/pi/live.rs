//! pi's rule (`packages/coding-agent/src/core/session-manager.ts`, `buildSessionContext`): the
//! leaf is the last entry of the file (`_buildIndex`), the context is the path from the root to
//! it by `parentId`, and when that path holds a `compaction`, the newest one's summary comes
//! first, then the path's entries from `firstKeptEntryId` up to the compaction, then the
//! entries after it. A v1 session has no ids: pi's migration links each entry to the one before
//! it (the header is entry 0 but no node) and turns `firstKeptEntryIndex` into that entry's id.

use super::Pi;
use crate::transcript::live::{Live, LiveRule, Map, Node};
use crate::transcript::model::{Event, Keep, NodeId, Parent};

impl LiveRule for Pi {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a pi session.
fn live(nodes: &[Node]) -> Live {
    let path = if nodes.iter().any(|node| node.link.id.is_some()) {
        tree_path(nodes)
    } else {
        // v1: a list. Entry indexes count the header (the first record) as entry 0.
        (1.min(nodes.len())..nodes.len()).collect()
    };
    let Some(at) = path.iter().rposition(|&i| nodes[i].compaction) else {
        return Live {
            order: path,
            marker: None,
        };
    };
    let compaction = path[at];
    let first_kept = match &nodes[compaction].link.event {
        Event::Compaction(Keep::FromNode(id)) => path[..at]
            .iter()
            .position(|&i| nodes[i].link.id == Some(*id)),
        Event::Compaction(Keep::FromEntry(entry)) => path[..at].iter().position(|&i| i == *entry),
        _ => None,
    };
    let mut order = vec![compaction];
    // An older compaction among the kept entries is not sent again: pi sends only messages.
    let kept = first_kept.map_or(&[][..], |first| &path[first..at]);
    order.extend(kept.iter().filter(|&&i| !nodes[i].compaction));
    order.extend_from_slice(&path[at + 1..]);
    Live {
        order,
        marker: Some(compaction),
    }
}

/// The path from the root to the last entry with an id, walking `parentId` (the last entry
/// with an id wins, as in pi's index; a cycle ends the walk).
fn tree_path(nodes: &[Node]) -> Vec<usize> {
    let mut by_id: Map<NodeId, usize> =
        Map::with_capacity_and_hasher(nodes.len(), Default::default());
    by_id.extend(
        nodes
            .iter()
            .enumerate()
            .filter_map(|(i, node)| node.link.id.map(|id| (id, i))),
    );
    let Some(leaf) = nodes.iter().rposition(|node| node.link.id.is_some()) else {
        return Vec::new();
    };
    let mut path = Vec::new();
    let mut seen = vec![false; nodes.len()];
    let mut current = Some(leaf);
    while let Some(index) = current.filter(|&i| !std::mem::replace(&mut seen[i], true)) {
        path.push(index);
        current = match nodes[index].link.parent {
            Parent::Node(parent) => by_id.get(&parent).copied(),
            Parent::Root | Parent::Unlinked => None,
        };
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::{node_id, Link, Role};

    fn entry(id: &str, parent: Option<&str>) -> Link {
        Link {
            id: Some(node_id(id)),
            parent: parent.map_or(Parent::Root, |p| Parent::Node(node_id(p))),
            event: Event::None,
            response: None,
        }
    }

    #[test]
    fn follows_the_branch_of_the_last_entry() {
        // a ─ b ─ c        (abandoned)
        //      └─ d ─ e    (the branch the user went back to)
        let links = [
            Link::default(), // header
            entry("a", None),
            entry("b", Some("a")),
            entry("c", Some("b")),
            entry("d", Some("b")),
            entry("e", Some("d")),
        ];
        let nodes: Vec<_> = links.iter().map(|l| node(l, Some(Role::User))).collect();
        assert_eq!(live(&nodes).order, [1, 2, 4, 5]);
    }

    #[test]
    fn starts_with_the_newest_compaction_and_its_kept_entries() {
        let mut compaction = entry("k", Some("c"));
        compaction.event = Event::Compaction(Keep::FromNode(node_id("b")));
        let links = [
            Link::default(),
            entry("a", None),
            entry("b", Some("a")),
            entry("c", Some("b")),
            compaction,
            entry("d", Some("k")),
        ];
        let mut nodes: Vec<_> = links.iter().map(|l| node(l, Some(Role::User))).collect();
        nodes[4].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [4, 2, 3, 5]);
        assert_eq!(live.marker, Some(4));
        // The kept entries were written before the marker: their usage is void.
        assert!(!live.usage_counts(3) && live.usage_counts(5));
    }

    #[test]
    fn a_v1_session_is_a_list_with_entry_indexes() {
        let plain = Link::default();
        let compaction = Link {
            event: Event::Compaction(Keep::FromEntry(3)),
            ..Link::default()
        };
        let mut nodes = vec![
            node(&plain, None),
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&compaction, Some(Role::User)),
            node(&plain, Some(Role::User)),
        ];
        nodes[5].compaction = true;
        assert_eq!(live(&nodes).order, [5, 3, 4, 6]);
    }
}
