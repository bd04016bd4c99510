//! From a plan to what a format writer needs: which records of the file the compaction keeps,
//! in the order of the live context, which it summarises, and the figures a format records with
//! its compaction. Plans speak in positions of the live context; writers in records of the file
//! (see [`crate::transcript::write::Compacted`]), so the planner stays out of the writers. Also
//! the compacted session written in its own format, and ACF's handoff document of the same.

use std::io::Write;

use anyhow::{Context as _, Result};

use crate::markdown_document::MarkdownDocument;
use crate::plan::{fingerprint, Kept, KeptUser, Plan};
use crate::tokens::Tokenizer;
use crate::transcript::classify::text_of;
use crate::transcript::load::Transcript;
use crate::transcript::write::WRAPPER;
use crate::transcript::write::{Compacted, Sink};
use crate::transcript::FormatId;

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
    let context = transcript.context();
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
        tokens_before: super::context::context_size(transcript, tokenizer),
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
    let context = transcript.context();
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

/// Writes the compaction `compacted` describes to `out`, in `format`, the format of the
/// transcript it was made of (`None` for an empty one, which has nothing to write).
pub fn write(format: Option<FormatId>, compacted: &Compacted, out: &mut dyn Write) -> Result<()> {
    let format = format.context("an empty transcript has no format")?;
    let mut sink = Sink::new(out);
    format.format().write_compacted(compacted, &mut sink)?;
    Ok(sink.finish()?)
}

/// Writes the session compacting `transcript` by `plan` with `summary` makes to `out`, in its
/// own format.
pub fn write_session(
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    tokenizer: Tokenizer,
    out: &mut dyn Write,
) -> Result<()> {
    write(
        transcript.format,
        &compaction(transcript, plan, summary, tokenizer),
        out,
    )
}

/// The token budgets of the handoff document's verbatim parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentBudgets {
    /// The original request's (`--head-tokens`).
    pub head_tokens: u64,
    /// The current state's (`--tail-tokens`).
    pub tail_tokens: u64,
}

/// ACF's handoff document of compacting `transcript` by `plan` with `summary` (what `inject`
/// and `compact` write with `--format markdown`).
pub fn document(
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    tokenizer: Tokenizer,
    budgets: DocumentBudgets,
) -> String {
    let records = transcript.context();
    let compacted_tokens = tokenizer.messages_tokens(
        plan.summarised()
            .filter_map(|position| records[position].message()),
    );
    crate::markdown_document::render(&MarkdownDocument {
        records,
        tail: plan.kept_after().collect(),
        compacted_tokens,
        summary,
        head_tokens: budgets.head_tokens,
        tail_tokens: budgets.tail_tokens,
        tokenizer,
    })
}
