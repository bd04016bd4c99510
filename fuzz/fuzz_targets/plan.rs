//! The planner over a parsed transcript with fuzzed mode parameters (mode, budgets, estimator,
//! `--upto` index) from the input's first 12 bytes. The regions are consecutive, tile the input
//! byte for byte, never part a call from its result; the plan's JSON report round-trips.
#![no_main]

use condense::compaction::report::{plan_report, SavedPlan};
use condense::plan::plan;
use condense::transcript::load::{LoadOptions, Transcript};
use condense_fuzz::{check_plan, check_transcript, Choices};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((choices, input)) = Choices::split(data) else {
        return;
    };
    let options = LoadOptions {
        from: choices.from,
        skip_invalid: true,
        // The plan's invariants below are about the file's records in file order.
        whole_file: true,
        ..LoadOptions::default()
    };
    let Ok(transcript) = Transcript::parse("fuzz", input, options) else {
        return;
    };
    check_transcript(&transcript, input);
    let mode = choices.mode(transcript.records.len());
    let Ok(plan) = plan(
        &transcript.records,
        mode,
        choices.tokenizer,
        transcript.dialect(),
    ) else {
        return;
    };
    check_plan(&plan, &transcript, input);
    let _ = plan.sent(&transcript.records);
    let _ = plan.elision_marker();
    let report = plan_report(&plan, &transcript, choices.tokenizer);
    let json = serde_json::to_string(&report).expect("a plan report serialises");
    let back: SavedPlan = serde_json::from_str(&json).expect("a plan report reads back");
    assert_eq!(back.mode, plan.mode);
    assert_eq!(back.fingerprint, report.fingerprint);
});
