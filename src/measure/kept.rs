//! Each record's measure, kept in few bytes from the moment a file's block is folded until the
//! file's live context is known ([`super::file`]).
//!
//! A [`RecordMeasure`] is some 250 bytes: room for a message's tallies and for a link, which
//! most records leave empty (a kimi-cli context is more than half bookkeeping lines, and no
//! line of it has a link). Kept as they are, the measures of a 1 GiB context file took 258 MiB,
//! a record of 1 KiB costing a quarter of its size. Here each record is a row of a line number
//! and three indices, and a message, a usage figure and a link that is not the default are
//! each kept in a list of their own, only by the records that have one.

use super::{MessageMeasure, RecordMeasure};
use crate::transcript::live::Node;
use crate::transcript::{Event, Link, Parent, Record, Usage};

/// The link of a record that has none: it follows the one before it, and changes nothing.
static NO_LINK: Link = Link {
    id: None,
    parent: Parent::Unlinked,
    event: Event::None,
    response: None,
};

/// The index of an absent item.
const NONE: usize = usize::MAX;

/// The measures of a file's records, in file order (see the module docs).
#[derive(Default)]
pub(super) struct Kept {
    rows: Vec<Row>,
    messages: Vec<MessageMeasure>,
    usages: Vec<Usage>,
    links: Vec<Link>,
}

/// How many records a file is expected to hold, and how many of them a message, a usage figure
/// and a link: what [`WrittenMeasure::expecting`](super::written::WrittenMeasure::expecting)
/// reserves room for at once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Expected {
    /// Records.
    pub records: usize,
    /// Records with a message.
    pub messages: usize,
    /// Records with a usage figure.
    pub usages: usize,
    /// Records with a link that is not the default.
    pub links: usize,
}

impl Expected {
    /// What measuring `records` keeps of them.
    pub fn of(records: &[Record]) -> Self {
        let mut expected = Expected {
            records: records.len(),
            ..Expected::default()
        };
        for record in records {
            expected.messages += usize::from(record.message().is_some());
            expected.usages += usize::from(record.usage.is_some());
            expected.links += usize::from(record.link != NO_LINK);
        }
        expected
    }
}

/// One record: its line, and where its message, usage figure and link are ([`NONE`] for none).
struct Row {
    line: usize,
    message: usize,
    usage: usize,
    link: usize,
    compaction: bool,
}

impl Kept {
    /// Keeps the next record's measure (borrowed: moved out of the list it was measured into,
    /// each of some 240 bytes, it was copied once more).
    pub(super) fn push(&mut self, record: &RecordMeasure) {
        let RecordMeasure {
            line,
            message,
            usage,
            compaction,
            link,
        } = record;
        let row = Row {
            line: *line,
            message: push_some(&mut self.messages, message.clone()),
            usage: push_some(&mut self.usages, *usage),
            link: push_some(&mut self.links, (*link != NO_LINK).then(|| link.clone())),
            compaction: *compaction,
        };
        self.rows.push(row);
    }

    /// Room for `expected` more records. Grown by doubling instead, the lists of a 100 MiB
    /// session's measure held up to twice the room they needed, and left each buffer they
    /// outgrew to the allocator, beside the session they measure (issue 33).
    pub(super) fn reserve(&mut self, expected: Expected) {
        self.rows.reserve_exact(expected.records);
        self.messages.reserve_exact(expected.messages);
        self.usages.reserve_exact(expected.usages);
        self.links.reserve_exact(expected.links);
    }

    /// How many records are kept.
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no record is.
    pub(super) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Record `index`'s line number.
    pub(super) fn line(&self, index: usize) -> usize {
        self.rows[index].line
    }

    /// Record `index`'s message, if it is one.
    pub(super) fn message(&self, index: usize) -> Option<&MessageMeasure> {
        self.messages.get(self.rows[index].message)
    }

    /// Record `index`'s usage figure.
    pub(super) fn usage(&self, index: usize) -> Option<&Usage> {
        self.usages.get(self.rows[index].usage)
    }

    /// True when record `index` is the agent's compaction marker.
    pub(super) fn compaction(&self, index: usize) -> bool {
        self.rows[index].compaction
    }

    /// Record `index`'s link.
    pub(super) fn link(&self, index: usize) -> &Link {
        self.links.get(self.rows[index].link).unwrap_or(&NO_LINK)
    }

    /// Every message kept, in file order.
    pub(super) fn messages(&self) -> &[MessageMeasure] {
        &self.messages
    }

    /// Record `index`'s measure, as it was pushed.
    #[cfg(test)]
    pub(super) fn get(&self, index: usize) -> RecordMeasure {
        RecordMeasure {
            line: self.line(index),
            message: self.message(index).cloned(),
            usage: self.usage(index).copied(),
            compaction: self.compaction(index),
            link: self.link(index).clone(),
        }
    }

    /// What the live-context rules need of record `index` (see [`RecordMeasure::node`]).
    pub(super) fn node(&self, index: usize) -> Node<'_> {
        Node {
            link: self.link(index),
            message: self.message(index).map(MessageMeasure::node),
            compaction: self.compaction(index),
        }
    }
}

/// Pushes `item`, when there is one, onto `list`: its index there, or [`NONE`].
fn push_some<T>(list: &mut Vec<T>, item: Option<T>) -> usize {
    match item {
        Some(item) => {
            list.push(item);
            list.len() - 1
        }
        None => NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Tally;
    use crate::transcript::{Keep, Role};

    #[test]
    fn every_record_comes_back_as_it_was_kept() {
        let message = MessageMeasure {
            role: Role::Tool,
            sidechain: false,
            user_turn: false,
            units: 12,
            parts: [Tally {
                count: 1,
                units: 12,
            }; 6],
        };
        let usage = Usage {
            context_tokens: 170,
            response_key: Some(7),
        };
        let link = Link {
            id: Some(3),
            parent: Parent::Node(2),
            event: Event::Compaction(Keep::Preserved {
                anchor: 1,
                nodes: vec![2, 3],
            }),
            response: Some(9),
        };
        let records = [
            RecordMeasure {
                line: 1,
                message: None,
                usage: None,
                compaction: false,
                link: Link::default(),
            },
            RecordMeasure {
                line: 2,
                message: Some(message.clone()),
                usage: Some(usage),
                compaction: true,
                link: link.clone(),
            },
            RecordMeasure {
                line: 4,
                message: Some(message),
                usage: None,
                compaction: false,
                link: Link {
                    parent: Parent::Root,
                    ..Link::default()
                },
            },
        ];
        let mut kept = Kept::default();
        records.iter().for_each(|record| kept.push(record));
        assert_eq!(kept.len(), 3);
        for (index, record) in records.iter().enumerate() {
            assert_eq!(&kept.get(index), record);
            let (node, expected) = (kept.node(index), record.node());
            assert_eq!(
                (node.link, node.message, node.compaction),
                (expected.link, expected.message, expected.compaction)
            );
        }
        // Only what records have is kept beside the rows.
        assert_eq!(
            (kept.messages.len(), kept.usages.len(), kept.links.len()),
            (2, 1, 2)
        );
    }

    #[test]
    fn the_lists_are_sized_for_what_the_records_hold() {
        let text = concat!(
            "{\"role\":\"user\",\"content\":\"a\"}\n",
            "{\"role\":\"_usage\",\"token_count\":12}\n",
            "{\"role\":\"_checkpoint\",\"id\":0}\n",
            "{\"role\":\"assistant\",\"content\":\"b\"}\n",
        );
        let transcript = crate::transcript::load::Transcript::parse(
            "s",
            text.as_bytes(),
            crate::transcript::load::LoadOptions::default(),
        )
        .unwrap();
        let expected = Expected::of(&transcript.records);
        assert_eq!(
            expected,
            Expected {
                records: 4,
                messages: 2,
                usages: 1,
                links: 0
            }
        );
        let mut kept = Kept::default();
        kept.reserve(expected);
        assert_eq!(
            (
                kept.rows.capacity(),
                kept.messages.capacity(),
                kept.usages.capacity(),
                kept.links.capacity()
            ),
            (4, 2, 1, 0)
        );
    }
}
