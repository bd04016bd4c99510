//! The replay of Claude Code's queue of what the user typed while the agent worked: which
//! entry each [`QueueOp`] takes. The queue's lines name no entry, so every reader replays them
//! in file order with this one rule, and the readers cannot drift apart:
//!
//! - `dequeue` takes the oldest entry (it runs as the next turn);
//! - a delivery or a withdrawal takes the oldest entry that is the user's words, else the
//!   oldest entry: the harness's own entries (task notifications) leave the queue that way too.

use std::collections::VecDeque;

use super::QueueOp;

/// Queued entries, oldest first, each a caller's value and whether it is the user's words.
#[derive(Debug)]
pub struct Queue<T> {
    entries: VecDeque<(T, bool)>,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            entries: VecDeque::new(),
        }
    }
}

impl<T> Queue<T> {
    /// Replays one queue line: an `Enqueue` adds `entry()` (its value, and whether it is the
    /// user's words) and takes nothing; any other operation takes the entry it removes, with
    /// whether it was the user's, or none when the queue is empty.
    pub fn replay(&mut self, op: QueueOp, entry: impl FnOnce() -> (T, bool)) -> Option<(T, bool)> {
        let at = match op {
            QueueOp::Enqueue => {
                self.entries.push_back(entry());
                return None;
            }
            QueueOp::Dequeue => 0,
            QueueOp::Deliver | QueueOp::Withdraw => self
                .entries
                .iter()
                .position(|&(_, users)| users)
                .unwrap_or(0),
        };
        self.entries.remove(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_takes_the_entry_the_agent_does() {
        let mut queue = Queue::default();
        let mut replay = |op, entry: (&'static str, bool)| queue.replay(op, || entry);
        assert_eq!(replay(QueueOp::Enqueue, ("notification", false)), None);
        assert_eq!(replay(QueueOp::Enqueue, ("run the tests", true)), None);
        assert_eq!(replay(QueueOp::Enqueue, ("then commit", true)), None);
        // A delivery passes over the harness's entry for the user's oldest.
        assert_eq!(
            replay(QueueOp::Deliver, ("", false)),
            Some(("run the tests", true))
        );
        // A dequeue takes the oldest, whoever's it is.
        assert_eq!(
            replay(QueueOp::Dequeue, ("", false)),
            Some(("notification", false))
        );
        assert_eq!(
            replay(QueueOp::Withdraw, ("", false)),
            Some(("then commit", true))
        );
        // With nothing of the user's left, a withdrawal takes the oldest; then nothing.
        replay(QueueOp::Enqueue, ("notification 2", false));
        assert_eq!(
            replay(QueueOp::Withdraw, ("", false)),
            Some(("notification 2", false))
        );
        assert_eq!(replay(QueueOp::Dequeue, ("", false)), None);
    }
}
