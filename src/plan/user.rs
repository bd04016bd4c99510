//! `user` mode (kimi-code): everything is summarised, and the oldest and newest real user
//! messages within token budgets are kept beside the summary, cut at a character boundary
//! where a message does not fit whole.

use super::regions::{Kept, KeptUser, Plan};
use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::{Message, Record, Role};

/// kimi-code's `selectCompactionUserMessages` over the transcript's real user messages.
pub(super) fn select_user_messages(plan: &mut Plan, records: &[Record], max: u64, head: u64) {
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
    last_fitting(text.char_indices().rev(), budget).map_or(text.len(), |(index, _)| index)
}

/// The byte index where the longest prefix of `text` whose estimate fits `budget` ends.
fn prefix_end_within(text: &str, budget: u64) -> usize {
    last_fitting(text.char_indices(), budget).map_or(0, |(index, c)| index + c.len_utf8())
}

/// The last of `chars` (byte index and character, in the order taken) whose estimate, with
/// every one taken before it, still fits `budget`; `None` when the first does not.
fn last_fitting(chars: impl Iterator<Item = (usize, char)>, budget: u64) -> Option<(usize, char)> {
    let (mut ascii, mut other) = (0, 0);
    let mut last = None;
    for (index, c) in chars {
        if c.is_ascii() {
            ascii += 1
        } else {
            other += 1
        }
        if kimi_text_tokens(ascii, other) > budget {
            break;
        }
        last = Some((index, c));
    }
    last
}
