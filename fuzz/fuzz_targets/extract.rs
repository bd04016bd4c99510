//! caveman and bare extraction (`extract::{extract, caveman, bare}`) over any transcript, with
//! a fuzzed budget and estimator. Never panics; caveman never exceeds its budget; bare's four
//! lines fit any budget from `BARE_FLOOR` up.
#![no_main]

use condense::extract::{bare, caveman, extract, BARE_FLOOR};
use condense::transcript::load::{LoadOptions, Transcript};
use condense_fuzz::Choices;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((choices, input)) = Choices::split(data) else {
        return;
    };
    let options = LoadOptions {
        from: choices.from,
        skip_invalid: true,
        ..LoadOptions::default()
    };
    let Ok(transcript) = Transcript::parse("fuzz", input, options) else {
        return;
    };
    let tokenizer = choices.tokenizer;
    let budget = u64::from(u16::from_le_bytes([data[4], data[5]]) % 1200);
    let ex = extract(transcript.context());
    let summary = caveman(&ex, budget, tokenizer);
    assert!(
        tokenizer.text_tokens(&summary) <= budget,
        "caveman exceeds its budget"
    );
    let lines = bare(&ex, budget, tokenizer);
    if budget >= BARE_FLOOR {
        assert!(
            tokenizer.text_tokens(&lines.lines()) <= budget,
            "bare exceeds its budget"
        );
    }
    for line in [&lines.now, &lines.next, &lines.test, &lines.ci] {
        assert!(!line.contains('\n'), "a bare value spans lines");
    }
});
