//! What the model-free summaries (`caveman`, `bare`, and the ladder's rungs of them) extract
//! from: the live context, after the file's header.

use std::borrow::Cow;

use crate::extract::{extract, with_in_flight, Extract, Said};
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::load::Transcript;
use crate::transcript::Record;

/// How many characters of an earliest request are kept as the goal.
const GOAL_CHARS: usize = 1000;

/// The extract of `transcript`'s live context, after the file's header. When that holds no
/// request of the user's (a session compacted before, whose summary stands in for its start),
/// the goal is the earliest request in the file, in the user's own words. A prompt Claude Code
/// took off its queue to run next, when the file ends before its turn, is the task (see
/// `extract::queued`).
pub fn live_extract(transcript: &Transcript) -> Extract {
    // The file's leading bookkeeping (a session header with its working directory) comes
    // first, even where the agent's rule leaves it out of the context: it names the root.
    let first_message = transcript
        .records
        .iter()
        .position(|r| r.message().is_some())
        .unwrap_or(transcript.records.len());
    let header: Vec<usize> = (0..first_message)
        .filter(|i| !transcript.live.order.contains(i))
        .collect();
    // The context is read where it is when no header goes before it: a copy of every record
    // was some 30 MB more on a 100 MiB kimi-cli context (issue 33).
    let records: Cow<[Record]> = if header.is_empty() {
        Cow::Borrowed(transcript.context())
    } else {
        let header = header.iter().map(|&i| transcript.records[i].clone());
        Cow::Owned(header.chain(transcript.context().iter().cloned()).collect())
    };
    let mut extract = extract(&records);
    with_in_flight(&mut extract, &transcript.records);
    if extract.goal.is_none() {
        extract.goal = transcript
            .records
            .iter()
            .filter_map(Record::message)
            .filter(|message| !message.sidechain)
            .find(|message| is_real_user_request(message))
            .map(|message| Said {
                text: one_line(&text_of(message), GOAL_CHARS),
                // From outside the context: no record of the extract has this index.
                index: usize::MAX,
            });
    }
    extract
}

/// `text` on one line: whitespace runs (newlines included) become one space, control
/// characters go, and at most `limit` characters are kept.
fn one_line(text: &str, limit: usize) -> String {
    text.split_whitespace()
        .flat_map(|word| [" ", word])
        .skip(1)
        .flat_map(str::chars)
        .filter(|c| !c.is_control())
        .take(limit)
        .collect()
}
