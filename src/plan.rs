//! Which records a compaction keeps and which it summarises (pure, no I/O).
//!
//! `split`, `prompt` and `inject` all call [`plan`] with the same flags, so they can never
//! disagree about the cut. A plan divides the records into consecutive regions:
//!
//! ```text
//! lead      leading bookkeeping and system messages: kept, and (system ones) sent numbered
//! head      ACF mode only: the session's first request, kept verbatim
//! compact   summarised away
//! tail      kept verbatim after the summary
//! ```
//!
//! Modes: `tail` (kimi-cli: keep the last N user/assistant messages and everything after the
//! first of them; a message is one as the model received it, see
//! [`crate::transcript::messages`], and the user's newest request is kept too, see
//! [`Plan::request`]), `budgets` (ACF: a head and a tail within token budgets), `user` (kimi-code:
//! everything is summarised, and the oldest and newest real user messages within token budgets
//! are kept beside the summary, with an elision marker between them), and `upto` (an explicit
//! cut). No mode cuts between a tool call and its result.

use std::ops::Range;

use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::messages::{units, Unit};
use crate::transcript::{Format, Message, Record, Role};

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

/// FNV-1a over the raw bytes of `records`, each followed by a newline: a cheap fingerprint that
/// changes when any byte of them does.
pub fn fingerprint(records: &[Record]) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for record in records {
        for &byte in record.raw.iter().chain(b"\n") {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    format!("fnv1a64:{hash:016x}")
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

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// `--upto` points past the end.
    UptoOutOfRange {
        /// The index asked for.
        index: usize,
        /// How many records there are.
        records: usize,
    },
    /// `--upto` would separate a tool call from its result.
    UptoSplitsToolCall {
        /// The record `--upto` named.
        result_record: usize,
    },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            PlanError::UptoOutOfRange { index, records } => write!(
                f,
                "--upto {index} is past the last record (the transcript has {records})"
            ),
            PlanError::UptoSplitsToolCall { result_record } => write!(
                f,
                "--upto {result_record} would separate a tool result from the call it answers; \
                 choose a record that starts a turn"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// Divides `records` into regions. `format` says what one message is (`tail` mode counts
/// them); `tokenizer` measures the budgets of `budgets` mode; `user` mode always uses
/// kimi-code's estimator, as kimi-code does.
pub fn plan(
    records: &[Record],
    mode: Mode,
    tokenizer: Tokenizer,
    format: &dyn Format,
) -> Result<Plan, PlanError> {
    let n = records.len();
    let lead_end = records
        .iter()
        .position(|r| {
            r.message()
                .is_some_and(|m| m.role != Role::System && !m.sidechain)
        })
        .unwrap_or(n);
    let mut plan = Plan {
        mode,
        records: n,
        lead: 0..lead_end,
        head: lead_end..lead_end,
        compact: lead_end..n,
        tail: n..n,
        request: None,
        noop: None,
        kept_head: Vec::new(),
        kept_tail: Vec::new(),
        elided_tokens: 0,
    };
    if !records.iter().any(|r| r.message().is_some()) {
        return Ok(plan.nothing(NoOp::Empty));
    }
    match mode {
        Mode::Tail { preserve } => plan_tail(plan, records, preserve, &units(format, records)),
        // The head budget applies where the head is rendered: the head region is always the
        // whole first request, truncated there, never dropped.
        Mode::Budgets { tail_tokens, .. } => {
            Ok(plan_budgets(plan, records, tokenizer, tail_tokens))
        }
        Mode::User {
            keep_user_tokens,
            user_head_tokens,
        } => {
            select_user_messages(&mut plan, records, keep_user_tokens, user_head_tokens);
            Ok(plan)
        }
        Mode::Upto { index } => plan_upto(plan, records, index),
    }
}

impl Plan {
    /// Turns the plan into a no-op: every record stays where it is.
    fn nothing(mut self, why: NoOp) -> Self {
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
    fn cut_at(&mut self, tail_start: usize) {
        let start = tail_start.max(self.head.end);
        self.compact = self.head.end..start;
        self.tail = start..self.records;
    }

    /// True when the records the request would number include no message.
    fn sends_nothing(&self, records: &[Record]) -> bool {
        self.sent(records).is_empty()
    }
}

fn plan_tail(
    mut plan: Plan,
    records: &[Record],
    preserve: i64,
    units: &[Unit],
) -> Result<Plan, PlanError> {
    if preserve <= 0 {
        return Ok(plan.nothing(NoOp::NothingPreserved));
    }
    let counted: Vec<&Unit> = units.iter().filter(|unit| unit.counts()).collect();
    let first_kept = usize::try_from(preserve)
        .ok()
        .and_then(|preserve| counted.len().checked_sub(preserve));
    let Some(first_kept) = first_kept else {
        return Ok(plan.nothing(NoOp::TooFewMessages));
    };
    let start = keep_calls_with_results(records, counted[first_kept].records.start);
    plan.lead.end = plan.lead.end.min(start);
    plan.head = plan.lead.end..plan.lead.end;
    plan.cut_at(start);
    plan.request = newest_request(records, units, start);
    let request = plan.request.clone().unwrap_or_default();
    // A record of the kept request is not summarised away.
    let summarised_nothing = !plan
        .lead
        .clone()
        .chain(plan.compact.clone())
        .filter(|position| !request.contains(position))
        .any(|position| records[position].message().is_some_and(|m| !m.sidechain));
    if summarised_nothing {
        return Ok(plan.nothing(NoOp::NothingBeforeTail));
    }
    Ok(plan)
}

/// The newest real user request, when it lies before `tail_start`: its record and the rest of
/// its message (the reminders the harness sent with it), up to the tail, so that no record is
/// kept twice. What the message held before the request (an earlier summary Claude Code sends
/// in the same user message, a command's caveat) is left to the summary.
fn newest_request(records: &[Record], units: &[Unit], tail_start: usize) -> Option<Range<usize>> {
    let newest = records
        .iter()
        // A compaction marker's summary (pi's `compaction` entry) is no request, whatever
        // its text.
        .rposition(|r| !r.compaction && r.message().is_some_and(is_real_user_request))?;
    if newest >= tail_start {
        return None;
    }
    let unit = units.iter().find(|u| u.records.contains(&newest))?;
    let end = unit.records.end.min(tail_start);
    let harness_lines = records[newest + 1..end].iter().position(|r| {
        r.message()
            .is_some_and(|m| !m.sidechain && (m.role != Role::User || m.answers_a_call()))
    });
    Some(newest..harness_lines.map_or(end, |i| newest + 1 + i))
}

fn plan_upto(mut plan: Plan, records: &[Record], index: usize) -> Result<Plan, PlanError> {
    if index > records.len() {
        return Err(PlanError::UptoOutOfRange {
            index,
            records: records.len(),
        });
    }
    if keep_calls_with_results(records, index) != index {
        return Err(PlanError::UptoSplitsToolCall {
            result_record: index,
        });
    }
    plan.lead.end = plan.lead.end.min(index);
    plan.head = plan.lead.end..plan.lead.end;
    plan.cut_at(index);
    if plan.sends_nothing(records) {
        return Ok(plan.nothing(NoOp::NothingBeforeTail));
    }
    Ok(plan)
}

fn plan_budgets(
    mut plan: Plan,
    records: &[Record],
    tokenizer: Tokenizer,
    tail_tokens: u64,
) -> Plan {
    let n = records.len();
    // The head runs to the session's first real request (whatever its size: a head over its
    // budget is truncated where it is rendered, never dropped).
    let head_end = records[plan.lead.end..]
        .iter()
        .position(|r| r.message().is_some_and(is_real_user_request))
        .map_or(plan.lead.end, |i| plan.lead.end + i + 1);
    plan.head = plan.lead.end..head_end;

    // The tail: the newest whole records within the budget, and always the last message.
    let mut start = n;
    let mut spent = 0;
    for (index, record) in records.iter().enumerate().rev() {
        let tokens = record
            .message()
            .map_or(0, |m| tokenizer.tokens(tokenizer.message_units(m)));
        let is_last_message = record.message().is_some() && start == n;
        if spent + tokens > tail_tokens && !is_last_message && record.message().is_some() {
            break;
        }
        spent += tokens;
        start = index;
    }
    let start = keep_calls_with_results(records, start);
    if start <= head_end {
        return plan.nothing(NoOp::FitsInBudgets);
    }
    plan.cut_at(start);
    if !records[plan.compact.clone()]
        .iter()
        .any(|r| r.message().is_some())
    {
        return plan.nothing(NoOp::FitsInBudgets);
    }
    plan
}

/// Moves a proposed tail start earlier until no record in the tail answers a tool call made
/// before it, so a call and its result always stay on the same side.
fn keep_calls_with_results(records: &[Record], start: usize) -> usize {
    let earliest = earliest_call_from(records);
    let mut start = start.min(records.len());
    while start < records.len() && earliest[start] < start {
        start = earliest[start];
    }
    start
}

/// For each index `i`, the earliest record holding a call that some record at `i` or later
/// answers (`usize::MAX` when none does). A result answers the nearest call before it with
/// its id, so ids reused later in a file (a replayed or concatenated session) link correctly.
fn earliest_call_from(records: &[Record]) -> Vec<usize> {
    let mut last_call: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut answered_call = vec![usize::MAX; records.len()];
    for (index, record) in records.iter().enumerate() {
        let Some(message) = record.message() else {
            continue;
        };
        for id in message.answered_ids() {
            if let Some(&call) = last_call.get(id) {
                answered_call[index] = answered_call[index].min(call);
            }
        }
        for id in message.call_ids() {
            last_call.insert(id, index);
        }
    }
    let mut suffix_min = usize::MAX;
    for slot in answered_call.iter_mut().rev() {
        suffix_min = suffix_min.min(*slot);
        *slot = suffix_min;
    }
    answered_call
}

/// kimi-code's `selectCompactionUserMessages` over the transcript's real user messages.
fn select_user_messages(plan: &mut Plan, records: &[Record], max: u64, head: u64) {
    let pool: Vec<(usize, &Message)> = records
        .iter()
        .enumerate()
        .skip(plan.lead.end)
        .filter_map(|(i, r)| {
            r.message()
                .filter(|m| is_real_user_request(m))
                .map(|m| (i, m))
        })
        .collect();
    let estimate = |m: &Message| USER_ESTIMATOR.message_units(m);
    let total: u64 = pool.iter().map(|(_, m)| estimate(m)).sum();
    if total <= max {
        plan.kept_tail = pool
            .iter()
            .map(|(i, m)| KeptUser {
                record: *i,
                kept: Kept::Whole,
                tokens: estimate(m),
            })
            .collect();
        return;
    }
    let head_budget = head.min(max);
    let newest = newest_users(&pool, max - head_budget);
    let kept_head = oldest_users(&pool[..newest.boundary], newest.cut_prefix, head_budget);
    let kept: u64 = kept_head.iter().chain(&newest.kept).map(|k| k.tokens).sum();
    plan.elided_tokens = total.saturating_sub(kept);
    plan.kept_head = kept_head;
    plan.kept_tail = newest.kept;
}

/// kimi-code's estimator of user messages.
const USER_ESTIMATOR: Tokenizer = Tokenizer::KimiCode;

/// The newest user messages kept: from where they start in the pool, and the beginning of a
/// message whose end they keep (a candidate for the head).
struct Newest {
    kept: Vec<KeptUser>,
    boundary: usize,
    cut_prefix: Option<(usize, String)>,
}

/// The tail, newest first within `budget`: whole messages while they fit, then the end of the
/// first that does not; its beginning becomes a candidate for the head.
fn newest_users(pool: &[(usize, &Message)], mut remaining: u64) -> Newest {
    let role_tokens = crate::tokens::role_units(USER_ESTIMATOR, Role::User);
    let mut tail = Vec::new();
    let mut boundary = pool.len();
    let mut cut_prefix: Option<(usize, String)> = None;
    for (position, (record, message)) in pool.iter().enumerate().rev() {
        if remaining == 0 {
            break;
        }
        let tokens = USER_ESTIMATOR.message_units(message);
        boundary = position;
        if tokens <= remaining {
            tail.push(KeptUser {
                record: *record,
                kept: Kept::Whole,
                tokens,
            });
            remaining -= tokens;
            continue;
        }
        let text = text_of(message);
        let split = suffix_start_within(&text, remaining);
        let (prefix, suffix) = text.split_at(split);
        if !suffix.is_empty() {
            tail.push(KeptUser {
                record: *record,
                kept: Kept::Text(suffix.to_owned()),
                tokens: USER_ESTIMATOR.text_units(suffix) + role_tokens,
            });
        }
        if !prefix.is_empty() {
            cut_prefix = Some((*record, prefix.to_owned()));
        }
        break;
    }
    tail.reverse();
    Newest {
        kept: tail,
        boundary,
        cut_prefix,
    }
}

/// The head, oldest first within `budget`, over what the tail left (`older`, then the
/// beginning the tail cut off): whole messages while they fit, then the beginning of the
/// first that does not.
fn oldest_users(
    older: &[(usize, &Message)],
    cut_prefix: Option<(usize, String)>,
    budget: u64,
) -> Vec<KeptUser> {
    let role_tokens = crate::tokens::role_units(USER_ESTIMATOR, Role::User);
    let mut remaining = budget;
    let mut kept_head = Vec::new();
    let candidates = older
        .iter()
        .map(|(record, message)| (*record, Some(*message), None))
        .chain(cut_prefix.map(|(record, text)| (record, None, Some(text))));
    for (record, message, text) in candidates {
        let text = text.unwrap_or_else(|| message.map(text_of).unwrap_or_default());
        let tokens = match message {
            Some(message) => USER_ESTIMATOR.message_units(message),
            None => USER_ESTIMATOR.text_units(&text) + role_tokens,
        };
        if tokens <= remaining && message.is_some() {
            kept_head.push(KeptUser {
                record,
                kept: Kept::Whole,
                tokens,
            });
            remaining -= tokens;
            continue;
        }
        let head_text = &text[..prefix_end_within(&text, remaining)];
        if !head_text.is_empty() {
            kept_head.push(KeptUser {
                record,
                kept: Kept::Text(head_text.to_owned()),
                tokens: USER_ESTIMATOR.text_units(head_text) + role_tokens,
            });
        }
        break;
    }
    kept_head
}

/// kimi-code's estimate of a text: ⌈ascii/4⌉ + non-ascii.
fn kimi_text_tokens(ascii: u64, other: u64) -> u64 {
    ascii.div_ceil(4) + other
}

/// The byte index where the longest suffix of `text` whose estimate fits `budget` starts.
fn suffix_start_within(text: &str, budget: u64) -> usize {
    let (mut ascii, mut other) = (0, 0);
    let mut start = text.len();
    for (index, c) in text.char_indices().rev() {
        if c.is_ascii() {
            ascii += 1
        } else {
            other += 1
        }
        if kimi_text_tokens(ascii, other) > budget {
            break;
        }
        start = index;
    }
    start
}

/// The byte index where the longest prefix of `text` whose estimate fits `budget` ends.
fn prefix_end_within(text: &str, budget: u64) -> usize {
    let (mut ascii, mut other) = (0, 0);
    let mut end = 0;
    for (index, c) in text.char_indices() {
        if c.is_ascii() {
            ascii += 1
        } else {
            other += 1
        }
        if kimi_text_tokens(ascii, other) > budget {
            break;
        }
        end = index + c.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::kimi::Kimi;
    use crate::transcript::{Entry, Message, Part};

    use crate::transcript::model::testing::text_record as record;

    fn tail(records: &[Record], preserve: i64) -> Plan {
        plan(records, Mode::Tail { preserve }, Tokenizer::Chars4, &Kimi).unwrap()
    }

    #[test]
    fn v1_v2_d3_no_ops() {
        let one = [record(Role::User, "Only one message")];
        assert_eq!(tail(&one, 2).noop, Some(NoOp::TooFewMessages));
        let two = [record(Role::User, "q"), record(Role::Assistant, "a")];
        assert_eq!(tail(&two, 2).noop, Some(NoOp::NothingBeforeTail));
        assert_eq!(tail(&two, 0).noop, Some(NoOp::NothingPreserved));
        assert_eq!(tail(&[], 2).noop, Some(NoOp::Empty));
        let noop = tail(&two, 2);
        assert_eq!(noop.tail, 0..2);
    }

    #[test]
    fn v3_keeps_the_last_two_and_leads_with_system() {
        let records = [
            record(Role::System, "System note"),
            record(Role::User, "Old question"),
            record(Role::Assistant, "Old answer"),
            record(Role::User, "Latest question"),
            record(Role::Assistant, "Latest answer"),
        ];
        let plan = tail(&records, 2);
        assert_eq!(
            (plan.lead.clone(), plan.compact.clone(), plan.tail.clone()),
            (0..1, 1..3, 3..5)
        );
        assert_eq!(plan.sent(&records).len(), 3);
    }

    #[test]
    fn d2_a_leading_system_message_alone_is_compacted() {
        let records = [
            record(Role::System, "S"),
            record(Role::User, "q"),
            record(Role::Assistant, "a"),
        ];
        let plan = tail(&records, 2);
        assert_eq!(plan.noop, None);
        assert_eq!(plan.sent(&records).len(), 1);
        assert_eq!(plan.tail, 1..3);
    }

    #[test]
    fn d1_tail_keeps_trailing_tool_messages() {
        let records = [
            record(Role::User, "do it"),
            record(Role::Assistant, "running"),
            record(Role::Tool, "a.txt"),
            record(Role::Assistant, "done"),
            record(Role::User, "thanks"),
            record(Role::Tool, "late"),
        ];
        let plan = tail(&records, 2);
        assert_eq!(plan.compact, 0..3);
        assert_eq!(plan.tail, 3..6);
    }

    fn kept(plan: &Plan) -> (Vec<String>, Vec<String>, u64) {
        let show = |k: &KeptUser| match &k.kept {
            Kept::Whole => format!("#{}", k.record),
            Kept::Text(t) => t.clone(),
        };
        (
            plan.kept_head.iter().map(show).collect(),
            plan.kept_tail.iter().map(show).collect(),
            plan.elided_tokens,
        )
    }

    fn user_mode(records: &[Record], max: u64, head: u64) -> Plan {
        let mode = Mode::User {
            keep_user_tokens: max,
            user_head_tokens: head,
        };
        plan(records, mode, Tokenizer::Chars4, &Kimi).unwrap()
    }

    #[test]
    fn k1_everything_fits() {
        let records = [record(Role::User, "one"), record(Role::User, "two")];
        assert_eq!(
            kept(&user_mode(&records, 1000, 100)),
            (vec![], vec!["#0".into(), "#1".into()], 0)
        );
        assert_eq!(user_mode(&records, 1000, 100).elision_marker(), None);
    }

    #[test]
    fn k2_whole_messages_head_and_tail() {
        let records: Vec<_> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|c| record(Role::User, &c.repeat(100)))
            .collect();
        assert_eq!(
            kept(&user_mode(&records, 78, 26)),
            (vec!["#0".into()], vec!["#3".into(), "#4".into()], 52)
        );
    }

    #[test]
    fn k3_a_tail_message_cut_to_its_end() {
        let records = [
            record(Role::User, &"x".repeat(100)),
            record(
                Role::User,
                &format!("{}{}", "p".repeat(400), "s".repeat(400)),
            ),
        ];
        assert_eq!(
            kept(&user_mode(&records, 106, 26)),
            (vec!["#0".into()], vec!["s".repeat(320)], 120)
        );
    }

    #[test]
    fn k4_one_message_split_into_head_and_tail() {
        let text = format!("{}{}{}", "h".repeat(400), "m".repeat(400), "t".repeat(400));
        let records = [record(Role::User, &text)];
        let plan = user_mode(&records, 100, 20);
        assert_eq!(
            kept(&plan),
            (vec!["h".repeat(80)], vec!["t".repeat(320)], 199)
        );
        assert!(plan
            .elision_marker()
            .unwrap()
            .contains("roughly 199 tokens"));
    }

    #[test]
    fn multibyte_text_is_never_split_inside_a_character() {
        let records = [record(Role::User, &"🦀".repeat(300))];
        let plan = user_mode(&records, 100, 20);
        for k in plan.kept_head.iter().chain(&plan.kept_tail) {
            if let Kept::Text(t) = &k.kept {
                assert!(t.chars().all(|c| c == '🦀'));
            }
        }
    }

    #[test]
    fn budgets_keep_the_first_request_and_the_latest_output() {
        let records = [
            record(Role::User, "build the parser"),
            record(Role::Assistant, &"x".repeat(4000)),
            record(Role::User, "now the tests"),
            record(Role::Assistant, &"y".repeat(400)),
        ];
        let mode = Mode::Budgets {
            head_tokens: 500,
            tail_tokens: 200,
        };
        let plan = plan(&records, mode, Tokenizer::Chars4, &Kimi).unwrap();
        // The newest records that fit 200 tokens: the last answer (100) and the request before it.
        assert_eq!(
            (plan.head.clone(), plan.compact.clone(), plan.tail.clone()),
            (0..1, 1..2, 2..4)
        );
        let small = plan_for_budgets(&records[..1]);
        assert_eq!(small.noop, Some(NoOp::FitsInBudgets));
    }

    fn plan_for_budgets(records: &[Record]) -> Plan {
        let mode = Mode::Budgets {
            head_tokens: 500,
            tail_tokens: 1000,
        };
        plan(records, mode, Tokenizer::Chars4, &Kimi).unwrap()
    }

    fn call(id: &str) -> Record<'static> {
        let part = Part::ToolCall {
            id: Some(id.to_owned().into()),
            name: "Shell".into(),
            arguments: "{}".into(),
        };
        Record::new(
            0,
            b"",
            Entry::Message(Message::new(Role::Assistant, vec![part])),
        )
    }

    fn result(id: &str) -> Record<'static> {
        let part = Part::ToolResult {
            call_id: Some(id.to_owned().into()),
            text: "ok".into(),
        };
        Record::new(0, b"", Entry::Message(Message::new(Role::User, vec![part])))
    }

    #[test]
    fn a_call_and_its_result_count_as_one_message() {
        // The result (a user-role record) is not a message of its own: preserve 2 keeps the
        // call with its result and the answer, and the request they serve beside the summary.
        let records = [
            record(Role::User, "old"),
            record(Role::Assistant, "old answer"),
            record(Role::User, "go"),
            call("c1"),
            result("c1"),
            record(Role::Assistant, "done"),
        ];
        let plan = tail(&records, 2);
        assert_eq!(
            (
                plan.compact.clone(),
                plan.request.clone(),
                plan.tail.clone()
            ),
            (0..3, Some(2..3), 3..6)
        );
        assert_eq!(plan.kept_after().collect::<Vec<_>>(), [2, 3, 4, 5]);
        assert_eq!(plan.summarised().collect::<Vec<_>>(), [0, 1]);
        // Only the request would be summarised: nothing to do.
        assert_eq!(tail(&records[2..], 2).noop, Some(NoOp::NothingBeforeTail));
        let records = [
            record(Role::User, "go"),
            call("c1"),
            result("c1"),
            record(Role::Assistant, "done"),
        ];
        let upto = super::plan(&records, Mode::Upto { index: 2 }, Tokenizer::Chars4, &Kimi);
        assert!(matches!(upto, Err(PlanError::UptoSplitsToolCall { .. })));
    }

    #[test]
    fn the_newest_request_is_kept_apart_only_when_the_tail_misses_it() {
        let records = [
            record(Role::User, "first"),
            record(Role::Assistant, "one"),
            record(Role::User, "second"),
            record(Role::Assistant, "two"),
            record(Role::Assistant, "three"),
        ];
        let one = tail(&records, 1);
        assert_eq!((one.request.clone(), one.tail.clone()), (Some(2..3), 4..5));
        let three = tail(&records, 3);
        assert_eq!((three.request.clone(), three.tail.clone()), (None, 2..5));
        // A summary or a reminder is no request: the newest real one is kept.
        let records = [
            record(Role::User, "the task"),
            record(Role::Assistant, "working"),
            record(Role::User, "<system-reminder>\nkeep going"),
            record(Role::Assistant, "done"),
        ];
        assert_eq!(tail(&records, 2).request, Some(0..1));
    }

    #[test]
    fn a_reused_call_id_links_to_the_nearest_call() {
        // A replayed session reuses ids: the second result answers the second call only.
        let records = [
            record(Role::User, "a"),
            call("c1"),
            result("c1"),
            record(Role::User, "b"),
            call("c1"),
            result("c1"),
            record(Role::Assistant, "done"),
        ];
        assert_eq!(tail(&records, 2).tail, 4..7);
    }

    #[test]
    fn upto_compacts_exactly_the_records_before_it() {
        let records = [
            record(Role::User, "a"),
            record(Role::Assistant, "b"),
            record(Role::User, "c"),
        ];
        let plan = plan(&records, Mode::Upto { index: 2 }, Tokenizer::Chars4, &Kimi).unwrap();
        assert_eq!((plan.compact.clone(), plan.tail.clone()), (0..2, 2..3));
        let past = super::plan(&records, Mode::Upto { index: 9 }, Tokenizer::Chars4, &Kimi);
        assert!(past.is_err());
    }
}
