//! Each record's measure, kept in few bytes from the moment a file's block is folded until the
//! file's live context is known ([`super::file`]).
//!
//! A [`RecordMeasure`] is some 250 bytes: room for a message's tallies and for a link, which
//! most records leave empty (a kimi-cli context is more than half bookkeeping lines, and no
//! line of it has a link). Kept as they are, the measures of a 1 GiB context file took 258 MiB,
//! a record of 1 KiB costing a quarter of its size. Here a record is its line number and four
//! bits (whether it has a message, a usage figure, a link that is not the default, and whether
//! it is a compaction marker); the message is packed into a few bytes of varints, and the
//! usage figure and the link are kept in lists of their own, only by the records that have one,
//! each found by counting the bits before its record. A record of a plain message list costs
//! some 20 bytes (it took 170: `estimate` on 4 million one-word lines peaked at 712 MiB).

use super::{Folded, MessageMeasure, RecordMeasure, Tally};
use crate::transcript::live::{Node, NodeMessage};
use crate::transcript::{Event, Link, Parent, Role, Usage};

/// The link of a record that has none: it follows the one before it, and changes nothing.
static NO_LINK: Link = Link {
    id: None,
    parent: Parent::Unlinked,
    event: Event::None,
    response: None,
};

/// The measures of a file's records, in file order (see the module docs).
#[derive(Default)]
pub(super) struct Kept {
    lines: Vec<usize>,
    /// Per record: whether it has a message, a usage figure, a link, and is a marker.
    flags: Flags,
    messages: Packed,
    usages: Vec<Usage>,
    links: Vec<Link>,
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
        self.lines.push(*line);
        let linked = *link != NO_LINK;
        self.flags
            .push([message.is_some(), usage.is_some(), linked, *compaction]);
        if let Some(message) = message {
            self.messages.push(message);
        }
        self.usages.extend(*usage);
        if linked {
            self.links.push(link.clone());
        }
    }

    /// How many records are kept.
    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when no record is.
    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Record `index`'s line number.
    pub(super) fn line(&self, index: usize) -> usize {
        self.lines[index]
    }

    /// Record `index`'s message, if it is one.
    pub(super) fn message(&self, index: usize) -> Option<MessageMeasure> {
        let which = self.flags.rank_of(MESSAGE, index)?;
        Some(self.messages.get(which))
    }

    /// What the fold reads of record `index`: its message, unpacked, and its usage figure.
    pub(super) fn folded(&self, index: usize) -> Unpacked<'_> {
        Unpacked {
            message: self.message(index),
            usage: self.usage(index),
        }
    }

    /// Record `index`'s usage figure.
    pub(super) fn usage(&self, index: usize) -> Option<&Usage> {
        self.usages.get(self.flags.rank_of(USAGE, index)?)
    }

    /// True when record `index` is the agent's compaction marker.
    pub(super) fn compaction(&self, index: usize) -> bool {
        self.flags.get(COMPACTION, index)
    }

    /// Record `index`'s link.
    pub(super) fn link(&self, index: usize) -> &Link {
        match self.flags.rank_of(LINK, index) {
            Some(which) => &self.links[which],
            None => &NO_LINK,
        }
    }

    /// Every message kept, in file order.
    pub(super) fn messages(&self) -> impl Iterator<Item = MessageMeasure> + '_ {
        (0..self.messages.len()).map(|which| self.messages.get(which))
    }

    /// Record `index`'s measure, as it was pushed.
    #[cfg(test)]
    pub(super) fn get(&self, index: usize) -> RecordMeasure {
        RecordMeasure {
            line: self.line(index),
            message: self.message(index),
            usage: self.usage(index).copied(),
            compaction: self.compaction(index),
            link: self.link(index).clone(),
        }
    }

    /// What the live-context rules need of record `index` (see [`RecordMeasure::node`]).
    pub(super) fn node(&self, index: usize) -> Node<'_> {
        Node {
            link: self.link(index),
            message: (self.flags.rank_of(MESSAGE, index)).map(|which| self.messages.node(which)),
            compaction: self.compaction(index),
        }
    }
}

/// A record's message, unpacked, and its usage figure, as [`Folded`] reads them.
pub(super) struct Unpacked<'k> {
    message: Option<MessageMeasure>,
    usage: Option<&'k Usage>,
}

impl Folded for Unpacked<'_> {
    fn message(&self) -> Option<&MessageMeasure> {
        self.message.as_ref()
    }

    fn usage(&self) -> Option<&Usage> {
        self.usage
    }
}

/// The planes of [`Flags`]: whether a record has a message, a usage figure, a link, and
/// whether it is a compaction marker.
const MESSAGE: usize = 0;
const USAGE: usize = 1;
const LINK: usize = 2;
const COMPACTION: usize = 3;

/// Four bits a record, in four planes of 64-bit words, and how many are set in each plane
/// before each word: whether record `index` has an item, and where it is in the list of the
/// records that have one.
#[derive(Default)]
struct Flags {
    words: Vec<[u64; 4]>,
    /// How many bits are set in each plane's words before each word.
    before: Vec<[usize; 4]>,
    len: usize,
    set: [usize; 4],
}

impl Flags {
    fn push(&mut self, bits: [bool; 4]) {
        let bit = self.len % 64;
        if bit == 0 {
            self.words.push([0; 4]);
            self.before.push(self.set);
        }
        let words = self.words.last_mut().expect("a word was pushed");
        for plane in 0..4 {
            words[plane] |= u64::from(bits[plane]) << bit;
            self.set[plane] += usize::from(bits[plane]);
        }
        self.len += 1;
    }

    fn get(&self, plane: usize, index: usize) -> bool {
        self.words[index / 64][plane] >> (index % 64) & 1 == 1
    }

    /// For a set bit of `plane`, how many are set before it there; `None` for a clear one.
    fn rank_of(&self, plane: usize, index: usize) -> Option<usize> {
        let word = self.words[index / 64][plane];
        let bit = index % 64;
        let below = word & ((1u64 << bit) - 1);
        (word >> bit & 1 == 1).then(|| self.before[index / 64][plane] + below.count_ones() as usize)
    }
}

/// Messages, each packed into a few bytes: a byte of role and flags (what [`NodeMessage`]
/// needs), the units, a byte saying
/// which part kinds it has, and each one's count and units, the numbers as LEB128 varints.
#[derive(Default)]
struct Packed {
    bytes: Vec<u8>,
    /// Where each message starts, from the start of its group of [`GROUP`].
    starts: Vec<u32>,
    /// Where each group starts in `bytes`.
    groups: Vec<usize>,
}

/// How many messages share a group's start. A message packs into at most 132 bytes (two
/// bytes of flags and 13 varints of up to 10), so a group never spans more than a `u32`
/// counts.
const GROUP: usize = 1 << 16;

impl Packed {
    fn len(&self) -> usize {
        self.starts.len()
    }

    fn push(&mut self, message: &MessageMeasure) {
        if self.starts.len().is_multiple_of(GROUP) {
            self.groups.push(self.bytes.len());
        }
        let group = self.groups.last().copied().unwrap_or_default();
        let start = u32::try_from(self.bytes.len() - group).expect("a group fits a u32");
        self.starts.push(start);
        let role = Role::ALL
            .iter()
            .position(|r| *r == message.role)
            .unwrap_or(0) as u8;
        let flags = role
            | u8::from(message.sidechain) << 2
            | u8::from(message.user_turn) << 3
            | u8::from(message.node().tool_result) << 4;
        self.bytes.push(flags);
        put(&mut self.bytes, message.units);
        // A byte of the kinds whose tally is not zero, then those tallies.
        let kinds_at = self.bytes.len();
        self.bytes.push(0);
        let mut kinds = 0;
        for (kind, tally) in message.parts.iter().enumerate() {
            if *tally != Tally::default() {
                kinds |= 1 << kind;
                put(&mut self.bytes, tally.count);
                put(&mut self.bytes, tally.units);
            }
        }
        self.bytes[kinds_at] = kinds;
    }

    fn start(&self, which: usize) -> usize {
        self.groups[which / GROUP] + self.starts[which] as usize
    }

    /// What the live-context rules need of message `which`, read from its first byte.
    fn node(&self, which: usize) -> NodeMessage {
        let flags = self.bytes[self.start(which)];
        NodeMessage {
            role: Role::ALL[usize::from(flags & 0b11)],
            sidechain: flags & 0b100 != 0,
            user_turn: flags & 0b1000 != 0,
            tool_result: flags & 0b1_0000 != 0,
        }
    }

    fn get(&self, which: usize) -> MessageMeasure {
        let mut bytes = &self.bytes[self.start(which)..];
        let flags = take_byte(&mut bytes);
        let units = take(&mut bytes);
        let kinds = take_byte(&mut bytes);
        let mut parts = [Tally::default(); 6];
        for (kind, tally) in parts.iter_mut().enumerate() {
            if kinds >> kind & 1 == 1 {
                tally.count = take(&mut bytes);
                tally.units = take(&mut bytes);
            }
        }
        MessageMeasure {
            role: Role::ALL[usize::from(flags & 0b11)],
            sidechain: flags & 0b100 != 0,
            user_turn: flags & 0b1000 != 0,
            units,
            parts,
        }
    }
}

/// Appends `value` as a LEB128 varint.
fn put(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

/// Reads a LEB128 varint [`put`] wrote from the front of `bytes`.
fn take(bytes: &mut &[u8]) -> u64 {
    let mut value = 0;
    let mut shift = 0;
    loop {
        let byte = take_byte(bytes);
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

fn take_byte(bytes: &mut &[u8]) -> u8 {
    let (&first, rest) = bytes.split_first().expect("a packed message is whole");
    *bytes = rest;
    first
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
        // Only what records have is kept beside the lines.
        assert_eq!(
            (kept.messages.len(), kept.usages.len(), kept.links.len()),
            (2, 1, 2)
        );
        assert_eq!(kept.messages().count(), 2);
    }

    #[test]
    fn messages_and_links_come_back_past_a_group_and_a_word() {
        let message = |i: u64| MessageMeasure {
            role: Role::ALL[(i % 4) as usize],
            sidechain: i.is_multiple_of(3),
            user_turn: i.is_multiple_of(5),
            units: if i.is_multiple_of(7) {
                u64::MAX
            } else {
                i * 1000
            },
            parts: std::array::from_fn(|kind| Tally {
                count: if (i as usize + kind).is_multiple_of(3) {
                    0
                } else {
                    i
                },
                units: (i << (kind * 9)) % (u64::MAX - 3),
            }),
        };
        let record = |i: u64| RecordMeasure {
            line: i as usize * 2,
            message: (!i.is_multiple_of(11)).then(|| message(i)),
            usage: i.is_multiple_of(13).then_some(Usage {
                context_tokens: i,
                response_key: None,
            }),
            compaction: i.is_multiple_of(17),
            link: Link {
                id: i.is_multiple_of(2).then_some(i),
                ..Link::default()
            },
        };
        let count = (GROUP + 100) as u64;
        let mut kept = Kept::default();
        (0..count).for_each(|i| kept.push(&record(i)));
        assert_eq!(kept.len(), count as usize);
        for i in (0..count).step_by(97).chain(count - 70..count) {
            assert_eq!(kept.get(i as usize), record(i), "record {i}");
        }
    }
}
