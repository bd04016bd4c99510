//! `budgets` mode (ACF): keep the session's first request and the newest output within a token
//! budget, and compact the middle.

use super::regions::{NoOp, Plan};
use super::tool_pairs::keep_calls_with_results;
use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::Record;

pub(super) fn plan_budgets(
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
