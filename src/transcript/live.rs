//! The live context: the records an agent sends to its model, in the order it sends them.
//!
//! A session file is history, not context. Each agent rebuilds its context from the file by a
//! rule of its own: the path from the root of a tree to the active leaf (Claude Code, pi), an
//! ordered map of messages that rewinds can cut (Gemini CLI), or a replay that starts again at
//! the newest compaction (Codex). Every agent starts at its latest compaction, so what came
//! before it is history only. Each agent folder implements its rule as a [`LiveRule`]; [`live`]
//! applies it to the [`Node`]s of a transcript, one per record, and returns the [`Live`] order;
//! every other record stays in the file, untouched, but is neither counted as context nor
//! summarised again.
//!
//! The rules work on nodes rather than records so that `estimate`, which streams and keeps
//! only a small node per line, and the commands that hold whole transcripts share them.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::classify::is_real_user_request;
use super::model::{Event, Link, Part, Record, Role};

/// A map keyed by node ids or record indexes, for the rules. The rules run on one thread after
/// the cores have read the file, once per record of it, so the hash is on `estimate`'s critical
/// path: std's SipHash resists keys chosen against it, which costs more than everything else a
/// lookup does, and these keys are hashes already or plain indexes.
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<SpreadHasher>>;

/// A set of node ids or record indexes (see [`Map`]).
pub(crate) type Set<K> = HashSet<K, BuildHasherDefault<SpreadHasher>>;

/// Spreads integer keys over the table with one multiply by an odd constant (2^64 over the
/// golden ratio), which carries every bit of a small index into the high bits the table
/// probes with.
#[derive(Default)]
pub(crate) struct SpreadHasher(u64);

impl Hasher for SpreadHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// What the live-context rules need to know of one record.
#[derive(Debug, Clone, Copy)]
pub struct Node<'l> {
    /// Its link: id, parent, and what it does to the context.
    pub link: &'l Link,
    /// Its message, if it is one.
    pub message: Option<NodeMessage>,
    /// True for the agent's own compaction marker.
    pub compaction: bool,
}

/// What the rules need to know of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeMessage {
    /// Its role.
    pub role: Role,
    /// True for a sub-agent's message.
    pub sidechain: bool,
    /// True when it holds a tool result.
    pub tool_result: bool,
    /// True when it is a request a person typed (it opens a user turn).
    pub user_turn: bool,
}

impl<'l> Node<'l> {
    /// The node of a record.
    pub fn of(record: &'l Record) -> Self {
        Node {
            link: &record.link,
            message: record.message().map(|message| NodeMessage {
                role: message.role,
                sidechain: message.sidechain,
                tool_result: message
                    .parts
                    .iter()
                    .any(|part| matches!(part, Part::ToolResult { .. })),
                user_turn: is_real_user_request(message),
            }),
            compaction: record.compaction,
        }
    }

    /// True for a main-chain user or assistant message (what can be a Claude Code leaf); a
    /// message Claude Code queued is none, as it hangs in no tree.
    pub(crate) fn conversational(&self) -> bool {
        self.message
            .is_some_and(|m| !m.sidechain && matches!(m.role, Role::User | Role::Assistant))
            && !matches!(self.link.event, Event::Queue(_))
    }
}

/// The live context of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Live {
    /// Indexes of the records in the context, in the order the agent sends them.
    pub order: Vec<usize>,
    /// The index of the compaction marker the context starts from, or of a newer
    /// [`Event::VoidUsage`] marker, if any. A usage figure on a record before it was measured
    /// on a context that no longer exists, even when the record itself was kept (a kept tail
    /// before the marker in the file, a pruned record).
    pub marker: Option<usize>,
}

impl Live {
    /// Every record, in file order: the context of a format without a rule, and what
    /// `--whole-file` asks for.
    pub fn whole(records: usize) -> Self {
        Live {
            order: (0..records).collect(),
            marker: None,
        }
    }

    /// This context, with the usage figures recorded before record `void` (a
    /// [`Event::VoidUsage`] marker) void as well as those before its compaction marker.
    pub fn voiding_before(mut self, void: Option<usize>) -> Self {
        self.marker = self.marker.max(void);
        self
    }

    /// The context size a [`Event::VoidUsage`] marker records, when the newest marker the
    /// context starts from is one that holds a figure: its index and the figure, which stands
    /// for every record up to it (`link` gives a record's link by index).
    pub fn fresh<'l>(&self, link: impl Fn(usize) -> &'l Link) -> Option<(usize, u64)> {
        let marker = self.marker?;
        match link(marker).event {
            Event::VoidUsage(Some(tokens)) => Some((marker, tokens)),
            _ => None,
        }
    }

    /// Whether a usage figure recorded on record `index` still describes the context.
    pub fn usage_counts(&self, index: usize) -> bool {
        self.marker.is_none_or(|marker| index > marker)
    }
}

/// One agent's rule for its live context.
pub trait LiveRule {
    /// The live context of `nodes` (one per record, in file order) by this agent's rule; every
    /// record, in file order, for a plain message list, which has no rule.
    fn live(&self, nodes: &[Node]) -> Live {
        Live::whole(nodes.len())
    }
}

/// The live context of `nodes` (one per record, in file order) by `rule`.
///
/// Whatever the rule, a usage figure recorded before the newest [`Event::VoidUsage`] marker of
/// the file is void: the marker says the context was made smaller after it was measured.
pub fn live(rule: &dyn LiveRule, nodes: &[Node]) -> Live {
    rule.live(nodes)
        .voiding_before(newest_void(nodes.iter().map(|node| node.link)))
}

/// The index of the newest [`Event::VoidUsage`] marker among these links, in file order.
pub fn newest_void<'l>(
    mut links: impl DoubleEndedIterator<Item = &'l Link> + ExactSizeIterator,
) -> Option<usize> {
    links.rposition(|link| matches!(link.event, Event::VoidUsage(_)))
}

#[cfg(test)]
pub(crate) mod testing {
    //! Nodes written by hand, for the rules' tests.

    use super::{Node, NodeMessage};
    use crate::transcript::{Link, Role};

    /// A node with this link and, for `Some(role)`, a main-chain message.
    pub fn node(link: &Link, role: Option<Role>) -> Node<'_> {
        Node {
            link,
            message: role.map(|role| NodeMessage {
                role,
                sidechain: false,
                tool_result: false,
                user_turn: role == Role::User,
            }),
            compaction: false,
        }
    }
}
