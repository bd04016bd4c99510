//! `upto` mode: compact exactly the records before a given one.

use super::error::PlanError;
use super::regions::{NoOp, Plan};
use super::tool_pairs::keep_calls_with_results;
use crate::transcript::Record;

pub(super) fn plan_upto(
    mut plan: Plan,
    records: &[Record],
    index: usize,
) -> Result<Plan, PlanError> {
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
