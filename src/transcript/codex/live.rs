//! Codex's rule (`codex-rs/core/src/session/rollout_reconstruction.rs`,
//! `reconstruct_history_from_rollout`): a rollout is replayed from its newest `compacted` line
//! that has a `replacement_history` (the line itself stands for that history), with every line
//! after it in order. A `compacted` line without one (builds before 0.6x) is rebuilt from the
//! real user messages replayed so far and its summary (`build_compacted_history`). A
//! `thread_rolled_back` event drops the newest `num_turns` user turns
//! (`drop_last_n_user_turns`): everything from the first of them on.

use super::Codex;
use crate::transcript::live::{Live, LiveRule, Node};
use crate::transcript::model::{Event, Keep};

impl LiveRule for Codex {
    fn live(&self, nodes: &[Node]) -> Live {
        live(nodes)
    }
}

/// The live context of a Codex rollout.
fn live(nodes: &[Node]) -> Live {
    let mut live = Live::default();
    for (index, node) in nodes.iter().enumerate() {
        match &node.link.event {
            Event::Compaction(keep) => {
                if *keep == Keep::UserMessages {
                    live.order.retain(|&i| user_turn(&nodes[i]));
                } else {
                    live.order.clear();
                }
                live.order.push(index);
                live.marker = Some(index);
            }
            Event::RollBack(turns) => drop_user_turns(&mut live.order, nodes, *turns),
            _ => live.order.push(index),
        }
    }
    live
}

fn user_turn(node: &Node) -> bool {
    node.message.is_some_and(|m| m.user_turn)
}

/// Drops the newest `turns` user turns: the records from the `turns`-th last real user message
/// on, or every user turn when there are fewer (what came before the first stays).
fn drop_user_turns(order: &mut Vec<usize>, nodes: &[Node], turns: u32) {
    if turns == 0 {
        return;
    }
    let starts: Vec<usize> = (0..order.len())
        .filter(|&position| user_turn(&nodes[order[position]]))
        .collect();
    let cut = match starts.len().checked_sub(turns as usize) {
        Some(kept) => starts.get(kept).copied(),
        None => starts.first().copied(),
    };
    if let Some(cut) = cut {
        order.truncate(cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::live::testing::node;
    use crate::transcript::{Link, Role};

    fn event(event: Event) -> Link {
        Link {
            event,
            ..Link::default()
        }
    }

    #[test]
    fn starts_at_the_newest_compaction() {
        let plain = Link::default();
        let compacted = event(Event::Compaction(Keep::Nothing));
        let mut nodes = vec![
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&compacted, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&compacted, Some(Role::User)),
            node(&plain, None),
            node(&plain, Some(Role::User)),
        ];
        nodes[2].compaction = true;
        nodes[4].compaction = true;
        let live = live(&nodes);
        assert_eq!(live.order, [4, 5, 6]);
        assert_eq!(live.marker, Some(4));
        assert!(!live.usage_counts(3) && live.usage_counts(5));
    }

    #[test]
    fn a_legacy_compaction_keeps_the_user_messages_before_it() {
        let plain = Link::default();
        let legacy = event(Event::Compaction(Keep::UserMessages));
        let nodes = [
            node(&plain, None),
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&plain, Some(Role::User)),
            node(&legacy, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
        ];
        assert_eq!(live(&nodes).order, [1, 3, 4, 5]);
    }

    #[test]
    fn a_rollback_drops_the_newest_user_turns() {
        let plain = Link::default();
        let back_one = event(Event::RollBack(1));
        let back_many = event(Event::RollBack(9));
        let nodes = [
            node(&plain, None),
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&plain, Some(Role::User)),
            node(&plain, Some(Role::Assistant)),
            node(&back_one, None),
            node(&plain, Some(Role::User)),
        ];
        assert_eq!(live(&nodes).order, [0, 1, 2, 6]);
        let all = [
            node(&plain, None),
            node(&plain, Some(Role::User)),
            node(&back_many, None),
        ];
        assert_eq!(live(&all).order, [0]);
    }
}
