//! A plan: the regions of a transcript's records, the mode that made it, why it compacts
//! nothing when it does, and the user messages kimi-code's mode keeps beside the summary.

use std::ops::Range;

use crate::transcript::{Message, Record};

/// How to choose the regions. Plans record it (as `{"name": "tail", "preserve": 2}` …) so
/// that `inject --plan` can check a plan the way it was made.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum Mode {
    /// kimi-cli: preserve the last `preserve` user/assistant messages and what follows them.
    Tail {
        /// How many user/assistant messages the tail starts with (kimi-cli's default is 2).
        preserve: i64,
    },
    /// ACF: keep the first request within `head_tokens`, the latest output within
    /// `tail_tokens`, and compact the middle.
    Budgets {
        /// The head's budget.
        head_tokens: u64,
        /// The tail's budget.
        tail_tokens: u64,
    },
    /// kimi-code: keep real user messages within `keep_user_tokens`, the oldest
    /// `user_head_tokens` of them and the newest rest.
    User {
        /// The budget of all kept user messages (kimi-code: 20000).
        keep_user_tokens: u64,
        /// The part of it given to the oldest ones (kimi-code: 2000).
        user_head_tokens: u64,
    },
    /// Compact exactly the records before this record index.
    Upto {
        /// The index of the first record kept.
        index: usize,
    },
}

impl Mode {
    /// The mode's name in plans.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Tail { .. } => "tail",
            Mode::Budgets { .. } => "budgets",
            Mode::User { .. } => "user",
            Mode::Upto { .. } => "upto",
        }
    }
}

/// Why a plan compacts nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoOp {
    /// The transcript has no messages.
    Empty,
    /// `--preserve` is 0 or negative.
    NothingPreserved,
    /// Fewer user/assistant messages than `--preserve`.
    TooFewMessages,
    /// Every message is already in the preserved tail.
    NothingBeforeTail,
    /// The whole session fits in the head and tail budgets.
    FitsInBudgets,
}

impl NoOp {
    /// A sentence for stderr.
    pub fn reason(self) -> &'static str {
        match self {
            NoOp::Empty => "the transcript has no messages",
            NoOp::NothingPreserved => "--preserve is not positive, so kimi-cli compacts nothing",
            NoOp::TooFewMessages => "there are fewer user/assistant messages than --preserve",
            NoOp::NothingBeforeTail => "every message is already in the preserved tail",
            NoOp::FitsInBudgets => "the whole session fits in the head and tail budgets",
        }
    }
}

/// How much of a kept user message survives (kimi-code mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// The whole message, media and all.
    Whole,
    /// Only this text: the start (head side) or end (tail side) of the message's text.
    Text(String),
}

/// A user message kept beside the summary (kimi-code mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptUser {
    /// The record it comes from.
    pub record: usize,
    /// What of it is kept.
    pub kept: Kept,
    /// Its estimate (kimi-code estimator, role included).
    pub tokens: u64,
}

/// The regions of a transcript's records, and what a compaction does with them.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The mode that made it.
    pub mode: Mode,
    /// How many records the transcript has.
    pub records: usize,
    /// Leading bookkeeping and system messages.
    pub lead: Range<usize>,
    /// The verbatim head (budgets mode).
    pub head: Range<usize>,
    /// The records summarised away.
    pub compact: Range<usize>,
    /// The records kept after the summary.
    pub tail: Range<usize>,
    /// Tail mode: the message holding the user's newest request, when it lies before the
    /// tail. It is kept verbatim after the summary, before the tail, so the agent never
    /// carries on with an answer whose question was summarised away (however long the
    /// agent worked on it since); it is still sent to the summarizer, as part of `compact`.
    pub request: Option<Range<usize>>,
    /// Why nothing is compacted, if so.
    pub noop: Option<NoOp>,
    /// User messages kept around the summary (user mode): the oldest ones, then the newest.
    pub kept_head: Vec<KeptUser>,
    /// The newest kept user messages (user mode).
    pub kept_tail: Vec<KeptUser>,
    /// Estimated tokens of user messages left out between `kept_head` and `kept_tail`.
    pub elided_tokens: u64,
}

impl Plan {
    /// The positions of the records kept after the summary, in order: the kept request, then
    /// the tail.
    pub fn kept_after(&self) -> impl Iterator<Item = usize> {
        self.request
            .clone()
            .unwrap_or_default()
            .chain(self.tail.clone())
    }

    /// The positions of the records the summary replaces: the compacted region without the
    /// kept request.
    pub fn summarised(&self) -> impl Iterator<Item = usize> + '_ {
        self.compact
            .clone()
            .filter(|p| !self.request.as_ref().is_some_and(|r| r.contains(p)))
    }

    /// The messages the compaction request numbers: system messages of the lead, then the
    /// compacted region's messages (head and tail are not sent).
    pub fn sent<'r, 'a>(&self, records: &'r [Record<'a>]) -> Vec<&'r Message<'a>> {
        self.sent_records(records)
            .into_iter()
            .filter_map(Record::message)
            .collect()
    }

    /// The records of the messages [`Plan::sent`] returns, in the same order.
    pub fn sent_records<'r, 'a>(&self, records: &'r [Record<'a>]) -> Vec<&'r Record<'a>> {
        if self.noop.is_some() {
            return Vec::new();
        }
        records[self.lead.clone()]
            .iter()
            .chain(&records[self.compact.clone()])
            .filter(|r| r.message().is_some_and(|m| !m.sidechain))
            .collect()
    }

    /// The elision marker kimi-code puts between kept head and tail user messages, when any
    /// were left out.
    pub fn elision_marker(&self) -> Option<String> {
        (self.elided_tokens > 0 && !self.kept_head.is_empty())
            .then(|| elision_marker(self.elided_tokens))
    }
}

impl Plan {
    /// Turns the plan into a no-op: every record stays where it is.
    pub(super) fn nothing(mut self, why: NoOp) -> Self {
        let n = self.records;
        self.lead = 0..0;
        self.head = 0..0;
        self.compact = 0..0;
        self.tail = 0..n;
        self.request = None;
        self.noop = Some(why);
        self.kept_head.clear();
        self.kept_tail.clear();
        self.elided_tokens = 0;
        self
    }

    /// Sets the start of the tail; the compact region runs from the head's end to it.
    pub(super) fn cut_at(&mut self, tail_start: usize) {
        let start = tail_start.max(self.head.end);
        self.compact = self.head.end..start;
        self.tail = start..self.records;
    }

    /// True when the records the request would number include no message.
    pub(super) fn sends_nothing(&self, records: &[Record]) -> bool {
        self.sent(records).is_empty()
    }
}

/// kimi-code's marker between the oldest and newest kept user messages.
pub fn elision_marker(omitted_tokens: u64) -> String {
    format!(
        "<system-reminder>\nSome of this conversation's user messages were omitted here during \
         compaction: the messages above this note are the oldest user input, the messages below \
         are the most recent, and roughly {omitted_tokens} tokens in between were dropped. The \
         omitted content is covered by the compaction summary at the end of the conversation.\n\
         </system-reminder>"
    )
}
