//! `summary::clean` and inject's writers. The bytes after the 12-byte header up to the first
//! NUL are the summary, the rest the transcript. A cleaned summary is trimmed, non-empty, free
//! of control characters and of `<system>` tags; each format's `write_compacted` (into a `Vec`
//! through a `Sink`, as inject's dry run does) is deterministic, its output reads back in the
//! same format without one bad line and ends with a newline, Claude Code and pi (append-only)
//! keep the input as its start, and the tail's records appear in it in order,
//! byte for byte (but kimi-cli's renewed `_checkpoint`/`_usage` records, and Gemini turns whose
//! stale `tokens` figure is voided). The handoff document renders.
#![no_main]

use condense::compaction::compaction;
use condense::markdown_document::{self, MarkdownDocument};
use condense::plan::plan;
use condense::summary;
use condense::transcript::load::{LoadOptions, Transcript};
use condense::transcript::json::top_level_value;
use condense::transcript::write::{Compacted, Sink};
use condense::transcript::{Entry, FormatId, Record};
use condense_fuzz::Choices;
use libfuzzer_sys::fuzz_target;

fn write(compacted: &Compacted, format: FormatId) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut sink = Sink::new(&mut out);
    format.format().write_compacted(compacted, &mut sink).ok()?;
    sink.finish().expect("writing to memory");
    Some(out)
}

fn check_summary(text: &str) {
    assert!(!text.is_empty());
    assert_eq!(text, text.trim());
    assert!(
        text.chars()
            .all(|c| !c.is_control() || c == '\n' || c == '\t'),
        "a control character survived"
    );
    let lower = text.to_ascii_lowercase();
    assert!(!lower.contains("<system>") && !lower.contains("</system>"));
}

/// Whether a writer may leave this tail record out or change it: kimi-cli's checkpoint and
/// usage records are written anew, and a Gemini turn loses its stale `tokens` figure.
fn renewed(format: FormatId, record: &Record) -> bool {
    match format {
        FormatId::Openai => matches!(&record.entry,
            Entry::Bookkeeping(kind) if kind == "_checkpoint" || kind == "_usage"),
        FormatId::Gemini => top_level_value(record.raw, "tokens").is_some(),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((choices, rest)) = Choices::split(data) else {
        return;
    };
    let Some(nul) = rest.iter().position(|&b| b == 0) else {
        return;
    };
    let (raw_summary, input) = (&rest[..nul], &rest[nul + 1..]);
    let Ok(cleaned) = summary::clean(raw_summary) else {
        return;
    };
    check_summary(&cleaned);

    let options = LoadOptions {
        from: choices.from,
        skip_invalid: false,
        ..LoadOptions::default()
    };
    let Ok(transcript) = Transcript::parse("fuzz", input, options) else {
        return;
    };
    let Some(format) = transcript.format else {
        return;
    };
    if transcript.incomplete.is_some() {
        return; // inject refuses a cut-off last line
    }
    let mode = choices.mode(transcript.context().len());
    let Ok(plan) = plan(
        transcript.context(),
        mode,
        choices.tokenizer,
        transcript.dialect(),
    ) else {
        return;
    };
    if plan.noop.is_some() {
        return;
    }
    let mut compacted = compaction(&transcript, &plan, &cleaned, choices.tokenizer);
    compacted.tokens_before = u64::from(data[4]) << (data[5] % 64);
    let _ = markdown_document::render(&MarkdownDocument {
        records: transcript.context(),
        tail: plan.kept_after().collect(),
        compacted_tokens: 7,
        summary: &cleaned,
        head_tokens: u64::from(data[8]),
        tail_tokens: u64::from(data[9]),
        tokenizer: choices.tokenizer,
    });

    let Some(out) = write(&compacted, format) else {
        return; // the writer refused this input (inject fails before writing anything)
    };
    assert_eq!(
        Some(&out),
        write(&compacted, format).as_ref(),
        "not deterministic"
    );

    let options = LoadOptions {
        from: Some(format),
        skip_invalid: false,
        ..LoadOptions::default()
    };
    let back = match Transcript::parse("out", &out, options) {
        Ok(back) => back,
        Err(error) => panic!("inject wrote a line its own format cannot read: {error:#}"),
    };
    assert_eq!(back.incomplete, None, "inject wrote a cut-off line");
    assert!(out.ends_with(b"\n"), "every output ends with a newline");
    // (A Codex rollout in the legacy bare layout has no marker and is written anew.)
    if matches!(format, FormatId::ClaudeCode | FormatId::Pi) {
        assert!(
            out.starts_with(input),
            "an append-only format changed what was there"
        );
    }

    // The tail's records, in order, byte for byte.
    let tail: Vec<&Record> = compacted
        .tail
        .iter()
        .map(|&i| &transcript.records[i])
        .collect();
    let mut written = back.records.iter().map(|r| r.raw);
    for record in tail {
        if renewed(format, record) {
            continue;
        }
        assert!(
            written.any(|raw| raw == record.raw),
            "tail record at line {} is missing or changed",
            record.line
        );
    }
});
