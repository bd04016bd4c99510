//! The live context's size as the agent sees it, of a transcript in memory: the last usage
//! figure that still describes it plus the estimate of what came after, by the one rule of
//! [`Measure::add_context`] (which `estimate` folds its streamed records by too).

use crate::measure::{Context, Measure, RecordMeasure};
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;

/// The size of `transcript`'s live context, in tokens.
pub fn context_size(transcript: &Transcript, tokenizer: Tokenizer) -> u64 {
    live_context(transcript, tokenizer).tokens
}

/// The live context of `transcript` as the agent sees it, with the figure it starts from.
pub fn live_context(transcript: &Transcript, tokenizer: Tokenizer) -> Context {
    let mut measure = Measure::new(tokenizer);
    let records = transcript
        .context()
        .iter()
        .enumerate()
        .map(|(position, record)| {
            let index = transcript.record_index(position);
            (index, RecordMeasure::of(tokenizer, record))
        });
    measure.add_context(
        &transcript.live,
        |i| &transcript.records[i].link,
        transcript.records.len(),
        records,
    );
    measure.context()
}
