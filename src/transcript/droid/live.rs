//! Droid's rule (`chunk-1jh5v2tt.js` → `src/services/sessionJsonl.ts`, `T8`/`mF`: every
//! `message` record in file order and the newest `compaction_state`; `chunk-1fv69zjf.js` →
//! `src/hooks/compaction/CompactionManager.ts`, `Mb`, `V0`, `tt`): with no `compaction_state`
//! every message is sent; with one, the newest one's summary message, then the messages after
//! its anchor (`anchorMessage.id`), the tool results right after the anchor left out so that no
//! result is sent without its call. An anchor id no message has sends every message after the
//! summary (E3 of `docs/agents/droid.md`); a compaction without an anchor (Droid's `/compact`,
//! which starts a new session) sends the messages after it. `parentId` is not followed. A
//! `user_only` message is never sent. (An anchor given by its `index` alone, which Droid
//! accepts too (E2), is read as no anchor: Droid's own compactions and condense's name the id.)

use super::Droid;
use crate::transcript::live::{Live, LiveRule, Node};
use crate::transcript::model::{Event, Keep};

impl LiveRule for Droid {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Droid session.
fn live(nodes: &[Node]) -> Live {
    let sent = |index: &usize| {
        let node = &nodes[*index];
        !node.compaction && node.message.is_none_or(|m| !m.sidechain)
    };
    let Some(marker) = nodes.iter().rposition(|node| node.compaction) else {
        return Live {
            order: (0..nodes.len()).filter(sent).collect(),
            marker: None,
        };
    };
    let start = match &nodes[marker].link.event {
        Event::Compaction(Keep::After(anchor)) => {
            match nodes.iter().position(|node| {
                node.message.is_some() && !node.compaction && node.link.id == Some(*anchor)
            }) {
                Some(at) => {
                    // The tool results right after the anchor answer calls the summary replaced.
                    let mut from = at + 1;
                    while nodes
                        .get(from)
                        .is_some_and(|n| n.message.is_none_or(|m| m.tool_result))
                    {
                        from += 1;
                    }
                    from
                }
                None => 0,
            }
        }
        _ => marker + 1,
    };
    let mut order = vec![marker];
    order.extend((start..nodes.len()).filter(sent));
    Live {
        order,
        marker: Some(marker),
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

    #[test]
    fn the_summary_then_the_messages_after_the_anchor() {
        let links = [
            Link::default(), // session_start
            message("u1"),
            message("a1"),
            message("u2"),
            message("a2"),
            Link::default(), // agent_turn_outcome
            Link {
                event: Event::Compaction(Keep::After(node_id("a1"))),
                ..Link::default()
            },
            message("u3"),
        ];
        let roles = [
            None,
            Some(Role::User),
            Some(Role::Assistant),
            Some(Role::User),
            Some(Role::Assistant),
            None,
            Some(Role::User),
            Some(Role::User),
        ];
        let mut nodes: Vec<_> = links.iter().zip(roles).map(|(l, r)| node(l, r)).collect();
        nodes[6].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [6, 3, 4, 5, 7]);
        assert_eq!(live.marker, Some(6));
        // An anchor no message has: every message after the summary.
        let lost = Link {
            event: Event::Compaction(Keep::After(node_id("nowhere"))),
            ..Link::default()
        };
        nodes[6] = node(&lost, Some(Role::User));
        nodes[6].compaction = true;
        assert_eq!(super::live(&nodes).order, [6, 0, 1, 2, 3, 4, 5, 7]);
    }
}
