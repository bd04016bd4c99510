//! The rule every mode cuts by: a tool call and its result stay on the same side of the cut.

use crate::transcript::Record;

/// Moves a proposed tail start earlier until no record in the tail answers a tool call made
/// before it, so a call and its result always stay on the same side.
pub(super) fn keep_calls_with_results(records: &[Record], start: usize) -> usize {
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
