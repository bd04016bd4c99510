//! `summary::clean` and inject's writers. The bytes after the 12-byte header up to the first
//! NUL are the summary, the rest the transcript. A cleaned summary is trimmed, non-empty, free
//! of control characters and of `<system>` tags; each format's `write_compacted` (into a `Vec`
//! through a `Sink`, as inject's dry run does) is deterministic, its output reads back in the
//! same format without one bad line, and the tail's records appear in it in order, byte for
//! byte (Claude Code re-points one `parentUuid`, and only that). The handoff document renders.
#![no_main]

use condense::handoff::{self, Handoff};
use condense::plan::plan;
use condense::summary;
use condense::transcript::load::{LoadOptions, Transcript};
use condense::transcript::write::{top_level_value, Compacted, Sink};
use condense::transcript::{FormatId, Record};
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

/// Whether Claude Code's writer may re-point this tail line (its first main-chain line with a
/// `parentUuid`).
fn repointable(raw: &[u8]) -> bool {
    let sidechain = top_level_value(raw, "isSidechain").is_some_and(|s| &raw[s] == b"true");
    !sidechain && top_level_value(raw, "parentUuid").is_some()
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
    let mode = choices.mode(transcript.records.len());
    let Ok(plan) = plan(&transcript.records, mode, choices.tokenizer) else {
        return;
    };
    if plan.noop.is_some() {
        return;
    }
    let compacted = Compacted {
        transcript: &transcript,
        plan: &plan,
        summary: &cleaned,
        tokenizer: choices.tokenizer,
        tokens_before: u64::from(data[4]) << (data[5] % 64),
    };
    let _ = handoff::render(&Handoff {
        records: &transcript.records,
        tail: plan.tail.clone(),
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
    };
    let back = match Transcript::parse("out", &out, options) {
        Ok(back) => back,
        Err(error) => panic!("inject wrote a line its own format cannot read: {error:#}"),
    };
    assert_eq!(back.incomplete, None, "inject wrote a cut-off line");
    assert!(out.is_empty() || out.ends_with(b"\n") || input.last() != Some(&b'\n'));

    // The tail's records, in order, byte for byte.
    let tail: &[Record] = &transcript.records[plan.tail.clone()];
    let mut repointed = format != FormatId::ClaudeCode;
    let mut written = back.records.iter().map(|r| r.raw);
    for record in tail {
        if !repointed && repointable(record.raw) {
            repointed = true;
            assert!(written.next().is_some(), "the re-pointed line is missing");
            continue;
        }
        assert!(
            written.any(|raw| raw == record.raw),
            "tail record at line {} is missing or changed",
            record.line
        );
    }
});
