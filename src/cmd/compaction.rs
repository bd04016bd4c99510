//! From a plan to what a format writer needs: which records of the file the compaction keeps,
//! in the order of the live context, which it summarises, and the figures a format records with
//! its compaction. Plans speak in positions of the live context; writers in records of the file
//! (see [`crate::transcript::write::Compacted`]), so the planner stays out of the writers.

use crate::measure::{Context, Measure, RecordMeasure};
use crate::plan::{fingerprint, Kept, KeptUser, Plan};
use crate::summary::WRAPPER;
use crate::tokens::Tokenizer;
use crate::transcript::classify::text_of;
use crate::transcript::load::Transcript;
use crate::transcript::write::Compacted;

/// The writer's input for compacting `transcript` by `plan` with `summary`.
pub fn compaction<'c, 'a>(
    transcript: &'c Transcript<'a>,
    plan: &Plan,
    summary: &'c str,
    tokenizer: Tokenizer,
) -> Compacted<'c, 'a> {
    let records = |positions: &mut dyn Iterator<Item = usize>| -> Vec<usize> {
        positions
            .map(|position| transcript.record_index(position))
            .collect()
    };
    let context = &transcript.context;
    let elision_marker = plan.elision_marker();
    let kept_user_texts = kept_user_texts(transcript, plan);

    // What the agent is sent afterwards: the kept records, the kept user messages and the
    // summary behind its wrapper (kimi-cli's estimate of its new context).
    let kept_units: u64 = plan
        .head
        .clone()
        .chain(plan.kept_after())
        .filter_map(|position| context[position].message())
        .map(|message| tokenizer.message_units(message))
        .chain(
            kept_user_texts
                .iter()
                .map(|text| tokenizer.text_units(text)),
        )
        .chain([tokenizer.text_units(WRAPPER), tokenizer.text_units(summary)])
        .sum();

    Compacted {
        file: transcript.file(),
        lead: records(&mut plan.lead.clone()),
        head: records(&mut plan.head.clone()),
        summarised: records(&mut plan.summarised()),
        // The kept request first: it is the question the tail answers.
        tail: records(&mut plan.kept_after()),
        request: records(&mut plan.request.clone().unwrap_or_default()),
        kept_user_texts,
        elision_marker,
        summary,
        tokens_before: context_size(transcript, tokenizer),
        tokens_after: tokenizer.tokens(kept_units),
        seed: format!(
            "{}:{}",
            fingerprint(&context[..plan.tail.start]),
            summary.len()
        ),
    }
}

/// The user messages `plan` keeps beside the summary (user mode), oldest first, with the
/// elision marker where messages were left out.
pub fn kept_user_texts(transcript: &Transcript, plan: &Plan) -> Vec<String> {
    let context = &transcript.context;
    let text = |kept: &KeptUser| match &kept.kept {
        Kept::Whole => context[kept.record]
            .message()
            .map(text_of)
            .unwrap_or_default(),
        Kept::Text(text) => text.clone(),
    };
    let mut texts: Vec<String> = plan.kept_head.iter().map(text).collect();
    texts.extend(plan.elision_marker());
    texts.extend(plan.kept_tail.iter().map(text));
    texts
}

/// The size of the live context as the agent sees it: the last usage figure that still
/// describes it plus the estimate of what came after.
pub fn context_size(transcript: &Transcript, tokenizer: Tokenizer) -> u64 {
    live_context(transcript, tokenizer).tokens
}

/// The live context as the agent sees it, with the figure it starts from (see
/// [`context_size`]).
pub fn live_context(transcript: &Transcript, tokenizer: Tokenizer) -> Context {
    let mut measure = Measure::new(tokenizer);
    let live = &transcript.live;
    let fresh = live.fresh(|i| &transcript.records[i].link);
    for (position, record) in transcript.context.iter().enumerate() {
        let index = transcript.record_index(position);
        let record = RecordMeasure::of(tokenizer, record);
        match fresh {
            // A prune marker's figure stands for every record up to it.
            Some((marker, tokens)) if index <= marker => measure.add_covered(&record, tokens),
            _ => measure.add_live(&record, live.usage_counts(index)),
        }
    }
    measure.context()
}
