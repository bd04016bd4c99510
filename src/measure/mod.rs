//! The pure core of `estimate`: folding records into token totals, the context size as the
//! agent sees it (one rule, [`Measure::add_context`], for every command that sizes a live
//! context), and kimi-cli's compaction trigger; a whole file streamed ([`file`](mod@file)) and its
//! report ([`summary`]); a session measured as it is written ([`written`]).
//!
//! Measuring is split in two so that it parallelises without changing any result: measuring
//! one record ([`RecordMeasure::of`]) is independent of every other record and runs on all
//! cores; folding the measures into a [`Measure`] runs in input order, because the context rule
//! ("the last usage figure plus the estimate of everything after it") depends on order.

pub mod file;
pub mod kept;
pub mod summary;
pub mod written;

use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::live::{Live, Node, NodeMessage};
use crate::transcript::{Event, Link, PartKind, Record, Role, Usage};

/// Counts of messages (or parts) and the estimator units they hold.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// How many messages or parts.
    pub count: u64,
    /// Their estimator units (see [`Tokenizer::tokens`]).
    pub units: u64,
}

impl Tally {
    fn add(&mut self, count: u64, units: u64) {
        self.count += count;
        self.units += units;
    }
}

/// What one record contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMeasure {
    /// Its line number.
    pub line: usize,
    /// Its message, if it is one.
    pub message: Option<MessageMeasure>,
    /// The provider's context size recorded on it.
    pub usage: Option<Usage>,
    /// True for the agent's own compaction marker.
    pub compaction: bool,
    /// Its place in the session, for the live-context rules.
    pub link: Link,
}

/// What one message contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageMeasure {
    /// Its role.
    pub role: Role,
    /// True for a sub-agent message, which never reaches the main context.
    pub sidechain: bool,
    /// True for a request a person typed.
    pub user_turn: bool,
    /// Units of the whole message, role included.
    pub units: u64,
    /// Parts and units by part kind, indexed like [`PartKind::ALL`].
    pub parts: [Tally; 6],
}

impl RecordMeasure {
    /// Measures one record.
    pub fn of(tokenizer: Tokenizer, record: &Record) -> Self {
        let message = record.message().map(|message| {
            // Each part is measured once: exact tokenizers are slow enough for that to matter.
            let mut parts = [Tally::default(); 6];
            for part in &message.parts {
                parts[part_index(part.kind())].add(1, tokenizer.part_units(part));
            }
            let part_units: u64 = parts.iter().map(|p| p.units).sum();
            MessageMeasure {
                role: message.role,
                sidechain: message.sidechain,
                user_turn: is_real_user_request(message),
                units: crate::tokens::role_units(tokenizer, message.role) + part_units,
                parts,
            }
        });
        RecordMeasure {
            line: record.line,
            message,
            usage: record.usage,
            compaction: record.compaction,
            link: record.link.clone(),
        }
    }

    /// What the live-context rules need of it.
    pub fn node(&self) -> Node<'_> {
        Node {
            link: &self.link,
            message: self.message.as_ref().map(MessageMeasure::node),
            compaction: self.compaction,
        }
    }
}

/// What folding a record into a context needs of its measure ([`Measure::add_context`]): its
/// message and its usage figure, borrowed from a [`RecordMeasure`] or from where `estimate`
/// keeps the measures of a file in fewer bytes. Building a whole [`RecordMeasure`] for each
/// record of a live context, copying its message and link, cost `estimate` 3% of its
/// instructions on a kimi-cli context.
pub trait Folded {
    /// The message, if the record is one.
    fn message(&self) -> Option<&MessageMeasure>;
    /// The provider's context size recorded on it.
    fn usage(&self) -> Option<&Usage>;
}

impl Folded for RecordMeasure {
    fn message(&self) -> Option<&MessageMeasure> {
        self.message.as_ref()
    }

    fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }
}

impl<T: Folded> Folded for &T {
    fn message(&self) -> Option<&MessageMeasure> {
        (**self).message()
    }

    fn usage(&self) -> Option<&Usage> {
        (**self).usage()
    }
}

impl Folded for (Option<&MessageMeasure>, Option<&Usage>) {
    fn message(&self) -> Option<&MessageMeasure> {
        self.0
    }

    fn usage(&self) -> Option<&Usage> {
        self.1
    }
}

impl MessageMeasure {
    /// What the live-context rules need of it.
    pub fn node(&self) -> NodeMessage {
        NodeMessage {
            role: self.role,
            sidechain: self.sidechain,
            tool_result: self.parts[part_index(PartKind::ToolResult)].count > 0,
            user_turn: self.user_turn,
        }
    }
}

fn part_index(kind: PartKind) -> usize {
    PartKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

fn role_index(role: Role) -> usize {
    Role::ALL.iter().position(|r| *r == role).unwrap_or(0)
}

/// The totals of one transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measure {
    /// The estimator.
    pub tokenizer: Tokenizer,
    /// Main-chain messages and their units.
    pub messages: Tally,
    /// Main-chain messages by role, indexed like [`Role::ALL`].
    pub by_role: [Tally; 4],
    /// Main-chain parts by kind, indexed like [`PartKind::ALL`].
    pub by_part: [Tally; 6],
    /// Sub-agent (sidechain) messages, kept apart from every other figure.
    pub sidechain: Tally,
    /// Bookkeeping records carried through.
    pub bookkeeping: u64,
    context: ContextTracker,
}

/// Follows the context rule through a transcript.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct ContextTracker {
    /// The last usage figure seen since the last compaction, with its response key.
    last_usage: Option<Usage>,
    /// Units of main-chain messages after `last_usage`.
    pending_units: u64,
    /// Units of main-chain messages since the last compaction marker (the fallback when the
    /// transcript records no usage).
    since_compaction_units: u64,
}

/// The context size as the agent sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    /// The context size in tokens.
    pub tokens: u64,
    /// The last provider usage figure it starts from; `None` when the transcript records none
    /// (then `tokens` is the estimate of everything since the last compaction).
    pub usage: Option<u64>,
    /// The estimate of the messages after that figure.
    pub pending: u64,
}

impl Measure {
    /// An empty measure.
    pub fn new(tokenizer: Tokenizer) -> Self {
        Measure {
            tokenizer,
            messages: Tally::default(),
            by_role: [Tally::default(); 4],
            by_part: [Tally::default(); 6],
            sidechain: Tally::default(),
            bookkeeping: 0,
            context: ContextTracker::default(),
        }
    }

    /// Folds in the next record, in file order: a compaction marker voids what came before it.
    pub fn add(&mut self, record: &RecordMeasure) {
        if record.compaction {
            self.context = ContextTracker::default();
        }
        self.add_with(record.message.as_ref(), record.usage.as_ref());
    }

    /// Folds in the next record of a live context, in its order (see
    /// [`crate::transcript::live`]); `usage_counts` says whether the usage figure the record
    /// carries still describes this context.
    fn add_live(&mut self, record: &impl Folded, usage_counts: bool) {
        self.add_with(record.message(), record.usage().filter(|_| usage_counts));
    }

    /// The context lost `saved` tokens here (a microcompaction): the figure so far, with what
    /// is pending on it, less that, stands from now on. Without a figure there is nothing to
    /// shrink: the estimate counts only what is left in the messages anyway.
    fn shrink(&mut self, saved: u64) {
        let Some(usage) = self.context.last_usage else {
            return;
        };
        let pending = self.tokenizer.tokens(self.context.pending_units);
        self.context.last_usage = Some(Usage {
            context_tokens: usage
                .context_tokens
                .saturating_add(pending)
                .saturating_sub(saved),
            response_key: None,
        });
        self.context.pending_units = 0;
    }

    /// Folds in the next record of a live context that a fresh figure of `tokens` (a prune
    /// marker's, see [`crate::transcript::live::Live::fresh`]) covers: its own usage is void,
    /// and its message is inside the figure.
    fn add_covered(&mut self, record: &impl Folded, tokens: u64) {
        let fresh = Usage {
            context_tokens: tokens,
            response_key: None,
        };
        self.add_with(record.message(), Some(&fresh));
    }

    /// Folds in the records of a live context in its order, each with its record index: the
    /// one rule for the live context's size. A prune marker's fresh figure (see
    /// [`Live::fresh`]; `link` gives a record's place) stands for every record up to it; after
    /// it, a record's own usage figure counts when [`Live::usage_counts`] says it still
    /// describes the context. A microcompaction ([`Event::ShrinkUsage`]) between the records,
    /// or on one, shrinks the figure where it stands in the file (the file's `count` records
    /// are looked at, since such a marker is seldom in the context's order itself).
    pub fn add_context<'l, M: Folded>(
        &mut self,
        live: &Live,
        link: impl Fn(usize) -> &'l Link,
        count: usize,
        records: impl IntoIterator<Item = (usize, M)>,
    ) {
        let fresh = live.fresh(&link);
        // The file's microcompactions, found in one pass (looked for between every two records
        // of the context, they cost `estimate` 1% of its instructions on a kimi-cli context,
        // which has none); none before the marker the context starts from counts.
        let from = live.marker.map_or(0, |marker| marker + 1);
        let shrinks: Vec<(usize, u64)> = (from..count)
            .filter_map(|index| match link(index).event {
                Event::ShrinkUsage(saved) => Some((index, saved)),
                _ => None,
            })
            .collect();
        let mut shrinks = shrinks.into_iter().peekable();
        for (index, record) in records {
            self.shrink_before(&mut shrinks, index);
            match fresh {
                Some((marker, tokens)) if index <= marker => self.add_covered(&record, tokens),
                _ => self.add_live(&record, live.usage_counts(index)),
            }
            self.shrink_before(&mut shrinks, index + 1);
        }
        self.shrink_before(&mut shrinks, count);
    }

    /// Shrinks the figure by each microcompaction of `shrinks` (those not yet applied, as
    /// record index and tokens saved, in file order) that stands before record `until`.
    fn shrink_before(
        &mut self,
        shrinks: &mut std::iter::Peekable<impl Iterator<Item = (usize, u64)>>,
        until: usize,
    ) {
        while let Some((_, saved)) = shrinks.next_if(|&(at, _)| at < until) {
            self.shrink(saved);
        }
    }

    fn add_with(&mut self, message: Option<&MessageMeasure>, usage: Option<&Usage>) {
        let Some(message) = message else {
            self.bookkeeping += 1;
            self.add_usage(usage);
            return;
        };
        if message.sidechain {
            self.sidechain.add(1, message.units);
            return;
        }
        self.messages.add(1, message.units);
        self.by_role[role_index(message.role)].add(1, message.units);
        for (total, part) in self.by_part.iter_mut().zip(&message.parts) {
            total.add(part.count, part.units);
        }
        self.context.since_compaction_units += message.units;
        if usage.is_some() {
            // A message carrying usage is the response the figure measured: it is inside it.
            self.add_usage(usage);
        } else {
            self.context.pending_units += message.units;
        }
    }

    fn add_usage(&mut self, usage: Option<&Usage>) {
        let Some(usage) = usage else { return };
        let same_response = usage.response_key.is_some()
            && self.context.last_usage.as_ref().map(|u| &u.response_key)
                == Some(&usage.response_key);
        // A later line of the same response repeats (or refines) the figure; what was added
        // between its lines (parallel tool results) is still pending.
        if !same_response {
            self.context.pending_units = 0;
        }
        self.context.last_usage = Some(*usage);
    }

    /// Main-chain tokens.
    pub fn tokens(&self) -> u64 {
        self.tokenizer.tokens(self.messages.units)
    }

    /// The context size as the agent sees it (kimi-cli's pending-token rule).
    pub fn context(&self) -> Context {
        let tracker = &self.context;
        match &tracker.last_usage {
            Some(usage) => {
                let pending = self.tokenizer.tokens(tracker.pending_units);
                Context {
                    tokens: usage.context_tokens.saturating_add(pending),
                    usage: Some(usage.context_tokens),
                    pending,
                }
            }
            None => {
                let pending = self.tokenizer.tokens(tracker.since_compaction_units);
                Context {
                    tokens: pending,
                    usage: None,
                    pending,
                }
            }
        }
    }
}

/// The reserve to measure against a window of `max_context` tokens: `reserved` itself, or,
/// when it is half the window or more, the share of the window `ratio` leaves free. A reserve
/// that large leaves too little room for what a compaction keeps, and one at least the window
/// (kimi-cli's default 50,000 against an 8k-32k model) makes compaction due at any size: a hook
/// or Makefile would call the model on every run. `None` when `reserved` fits.
pub fn scaled_reserve(reserved: u64, max_context: u64, ratio: f64) -> Option<u64> {
    (reserved.saturating_mul(2) >= max_context)
        .then(|| (max_context as f64 * (1.0 - ratio).clamp(0.0, 1.0)).floor() as u64)
}

/// kimi-cli's `should_auto_compact`: due when the context reaches `ratio` of the window, or
/// when it leaves less than `reserved` tokens free. The product is a float, as in kimi-cli.
pub fn compaction_due(tokens: u64, max_context: u64, ratio: f64, reserved: u64) -> bool {
    tokens as f64 >= max_context as f64 * ratio || tokens.saturating_add(reserved) >= max_context
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Entry, Message, Part};

    fn message(role: Role, text: &str) -> RecordMeasure {
        let record = Record::new(
            1,
            b"",
            Entry::Message(Message::new(role, vec![Part::Text(text.to_owned().into())])),
        );
        RecordMeasure::of(Tokenizer::Chars4, &record)
    }

    fn usage(tokens: u64, key: Option<&str>) -> RecordMeasure {
        let mut record = Record::new(1, b"", Entry::Bookkeeping("_usage".into()));
        record.usage = Some(Usage {
            context_tokens: tokens,
            response_key: key.map(crate::transcript::node_id),
        });
        RecordMeasure::of(Tokenizer::Chars4, &record)
    }

    fn fold(records: &[RecordMeasure]) -> Measure {
        let mut measure = Measure::new(Tokenizer::Chars4);
        records.iter().for_each(|r| measure.add(r));
        measure
    }

    #[test]
    fn d5_pending_tokens_after_the_last_usage() {
        let first = fold(&[
            message(Role::User, "first question"),
            usage(1000, None),
            message(Role::Assistant, "first answer"),
            message(Role::Tool, &"a".repeat(4000)),
            usage(5000, None),
            message(Role::Assistant, "second answer"),
        ]);
        assert_eq!(first.context().tokens, 5003);
        let second = fold(&[
            message(Role::User, "hello"),
            usage(10000, None),
            message(Role::Assistant, "let me read that file"),
            message(Role::Tool, &"y".repeat(8000)),
        ]);
        assert_eq!(second.context().pending, 2005);
        assert_eq!(second.context().tokens, 12005);
    }

    #[test]
    fn no_usage_falls_back_to_the_estimate() {
        let measure = fold(&[message(Role::User, "hi"), message(Role::User, "hello")]);
        assert_eq!(measure.context().usage, None);
        assert_eq!(measure.context().tokens, 1); // D6: (2 + 5) // 4
    }

    #[test]
    fn repeated_response_usage_keeps_what_came_between() {
        let measure = fold(&[
            usage(100, Some("msg_1")),
            message(Role::User, &"r".repeat(40)),
            usage(120, Some("msg_1")),
        ]);
        assert_eq!(measure.context().tokens, 130);
    }

    #[test]
    fn a_microcompaction_off_the_contexts_order_shrinks_the_figure_where_it_stands() {
        let mut marker = usage(0, None);
        marker.usage = None;
        marker.link.event = Event::ShrinkUsage(3000);
        let records = [
            message(Role::User, "question"),
            usage(10000, None),
            message(Role::Tool, &"t".repeat(400)),
            marker,
            message(Role::Assistant, &"a".repeat(40)),
        ];
        let context = |order: &[usize]| {
            let mut measure = Measure::new(Tokenizer::Chars4);
            let live = Live {
                order: order.to_vec(),
                marker: None,
            };
            let in_order = order.iter().map(|&i| (i, &records[i]));
            measure.add_context(&live, |i| &records[i].link, records.len(), in_order);
            measure.context()
        };
        // Between the records (Claude Code's order holds messages only): 10,000 and the 100
        // pending, less 3,000, then the answer's 10.
        assert_eq!(context(&[0, 1, 2, 4]).tokens, 7110);
        // After the last record: the next request is the smaller one.
        assert_eq!(context(&[0, 1, 2]).tokens, 7100);
        // A marker before the context's own start is not this context's.
        let mut measure = Measure::new(Tokenizer::Chars4);
        let live = Live {
            order: vec![4],
            marker: Some(3),
        };
        measure.add_context(
            &live,
            |i| &records[i].link,
            records.len(),
            [(4, &records[4])],
        );
        assert_eq!(measure.context().tokens, 10);
    }

    #[test]
    fn compaction_voids_earlier_usage() {
        let mut boundary = usage(0, None);
        boundary.usage = None;
        boundary.compaction = true;
        let measure = fold(&[
            usage(90_000, None),
            boundary,
            message(Role::User, &"s".repeat(400)),
        ]);
        assert_eq!(measure.context().usage, None);
        assert_eq!(measure.context().tokens, 100);
    }

    #[test]
    fn v10_trigger_table() {
        let cases = [
            (150_000, 200_000, 0.85, 50_000, true),
            (140_000, 200_000, 0.85, 50_000, false),
            (850_000, 1_000_000, 0.85, 50_000, true),
            (840_000, 1_000_000, 0.85, 50_000, false),
            (140_000, 200_000, 0.7, 50_000, true),
            (139_999, 200_000, 0.7, 50_000, false),
            (0, 200_000, 0.85, 50_000, false),
        ];
        for (tokens, max, ratio, reserved, due) in cases {
            assert_eq!(
                compaction_due(tokens, max, ratio, reserved),
                due,
                "{tokens}"
            );
        }
    }

    #[test]
    fn a_reserve_of_half_the_window_or_more_is_scaled_to_the_ratio() {
        // kimi-cli's defaults on a 200k window fit: the reserve is kept as kimi-cli has it.
        assert_eq!(scaled_reserve(50_000, 200_000, 0.85), None);
        assert_eq!(scaled_reserve(50_000, 100_001, 0.85), None);
        // At half the window and beyond, the share the ratio leaves (15 %) is the reserve.
        assert_eq!(scaled_reserve(50_000, 100_000, 0.85), Some(15_000));
        assert_eq!(scaled_reserve(50_000, 32_000, 0.85), Some(4_800));
        assert_eq!(scaled_reserve(50_000, 8_000, 0.85), Some(1_200));
        // Scaled, an empty context is not due on a small window; unscaled it always was.
        assert!(compaction_due(0, 32_000, 0.85, 50_000));
        assert!(!compaction_due(0, 32_000, 0.85, 4_800));
        assert!(!compaction_due(27_199, 32_000, 0.85, 4_800));
        assert!(compaction_due(27_200, 32_000, 0.85, 4_800));
    }
}
