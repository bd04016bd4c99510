//! The common transcript model every agent format is read into.
//!
//! A transcript is a sequence of [`Record`]s, one per non-blank line. A record either is a
//! [`Message`] the model saw (a role and its [`Part`]s) or is bookkeeping (checkpoints, usage,
//! snapshots, progress, metadata …) that commands carry through untouched and never count as a
//! message. Every record keeps the exact bytes of its line, so a record no command changes can be
//! written back byte-identical.
//!
//! Tool calls and tool results keep the ids the format links them by, so a call can be paired
//! with its result: see [`Message::call_ids`] and [`Message::answered_ids`].
//!
//! Strings borrow from the input line where JSON escaping allows it (`Cow`), which keeps reading
//! a large file allocation-light; a part's text may even stay JSON-escaped until something
//! reads it ([`Text`]), so that counting it decodes nothing.
//!
//! The parts: `role` ([`Role`]), `part` ([`Part`] and its kinds), `message` ([`Message`] and
//! the ids that pair calls with results), `record` ([`Record`]: a line, its entry and usage),
//! `link` (a record's place in the session tree and what it does to the live context), `queue`
//! (which entry each operation on Claude Code's queue takes);
//! `testing` holds what the format tests share.

mod link;
mod message;
mod part;
mod queue;
mod record;
mod role;

pub use super::text::Text;
pub use link::{node_id, Event, Keep, Link, NodeId, Parent, QueueOp};
pub use message::Message;
pub use part::{MediaKind, Part, PartKind};
pub use queue::Queue;
pub use record::{Entry, Record, Usage};
pub use role::Role;

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests;
