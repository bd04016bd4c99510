//! `tail` mode (kimi-cli): keep the last N user/assistant messages and what follows them, and
//! the user's newest request when the tail misses it.

use std::ops::Range;

use super::error::PlanError;
use super::regions::{NoOp, Plan};
use super::tool_pairs::keep_calls_with_results;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::messages::Unit;
use crate::transcript::{Record, Role};

pub(super) fn plan_tail(
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
