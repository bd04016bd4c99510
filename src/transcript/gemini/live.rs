//! Gemini CLI's rule (`packages/core/src/services/chatRecordingService.ts`,
//! `loadConversationRecord`): the session's messages are an ordered map by `id`. A record with
//! a known id replaces the earlier message in its place (Gemini rewrites a turn as it streams
//! and as its tool calls finish); `$rewindTo` removes the named message and every message after
//! it, or all of them when the id is unknown; a `$set` carrying a `messages` list starts the
//! map again with those messages (read as the records that follow the `$set` record).
//! Lines without an id (the metadata line, `$set`) are not messages.

use super::Gemini;
use crate::transcript::live::{Live, LiveRule, Map, Node};
use crate::transcript::model::{Event, NodeId};

impl LiveRule for Gemini {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Gemini CLI session.
fn live(nodes: &[Node]) -> Live {
    let mut order: Vec<usize> = Vec::new();
    let mut ids: Vec<NodeId> = Vec::new();
    let mut position: Map<NodeId, usize> = Map::default();
    for (index, node) in nodes.iter().enumerate() {
        let cut = match (&node.link.event, node.link.id) {
            (Event::RewindTo(target), _) => Some(position.get(target).copied().unwrap_or(0)),
            (Event::Reset, _) => Some(0),
            (_, Some(id)) => {
                match position.get(&id) {
                    Some(&at) => order[at] = index,
                    None => {
                        position.insert(id, order.len());
                        order.push(index);
                        ids.push(id);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(cut) = cut {
            for id in ids.drain(cut..) {
                position.remove(&id);
            }
            order.truncate(cut);
        }
    }
    Live {
        order,
        marker: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::{node_id, Link, Role};

    fn message(id: &str) -> Link {
        Link {
            id: Some(node_id(id)),
            ..Link::default()
        }
    }

    fn event(event: Event) -> Link {
        Link {
            event,
            ..Link::default()
        }
    }

    #[test]
    fn updates_replace_in_place_and_rewinds_cut() {
        let links = [
            Link::default(), // metadata
            message("u1"),
            message("g1"),
            message("g1"), // g1 again: replaces it where it was
            message("u2"),
            message("g2"),
            event(Event::RewindTo(node_id("u2"))),
            message("u3"),
        ];
        let roles = [
            None,
            Some(Role::User),
            Some(Role::Assistant),
            Some(Role::Assistant),
            Some(Role::User),
            Some(Role::Assistant),
            None,
            Some(Role::User),
        ];
        let nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        assert_eq!(live(&nodes).order, [1, 3, 7]);
    }

    #[test]
    fn an_unknown_rewind_or_a_message_list_clears_everything() {
        let links = [
            message("u1"),
            event(Event::RewindTo(node_id("nowhere"))),
            message("u2"),
            event(Event::Reset),
            message("u3"),
        ];
        let nodes: Vec<_> = links.iter().map(|l| node(l, Some(Role::User))).collect();
        assert_eq!(live(&nodes).order, [4]);
        assert_eq!(live(&nodes[..3]).order, [2]);
    }
}
