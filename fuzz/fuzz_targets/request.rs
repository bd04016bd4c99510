//! The prompt renderer over planned messages: `request_parts` with a fuzzed custom instruction
//! (the bytes up to the first NUL after the 12-byte header) and every style's body. The request
//! numbers each sent message once, in order, and ends with the body and the instruction.
#![no_main]

use condense::plan::plan;
use condense::prompts::{self, Style};
use condense::request::{request_parts, INSTRUCTION_MARKER};
use condense::transcript::load::{LoadOptions, Transcript};
use condense_fuzz::Choices;
use libfuzzer_sys::fuzz_target;

const STYLES: [Style; 5] = [
    Style::Structured,
    Style::Notes,
    Style::Sdlc,
    Style::Caveman,
    Style::Checkpoint,
];

fuzz_target!(|data: &[u8]| {
    let Some((choices, rest)) = Choices::split(data) else {
        return;
    };
    let (instruction, input) = match rest.iter().position(|&b| b == 0) {
        Some(nul) => (&rest[..nul], &rest[nul + 1..]),
        None => (&b""[..], rest),
    };
    let instruction = String::from_utf8_lossy(instruction);
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
    let mode = choices.mode(transcript.records.len());
    let Ok(plan) = plan(
        &transcript.records,
        mode,
        choices.tokenizer,
        transcript.dialect(),
    ) else {
        return;
    };
    let messages = plan.sent(&transcript.records);
    let style = STYLES[usize::from(choices.flag(0)) + 2 * usize::from(choices.flag(1))];
    let body = prompts::body(style);
    let parts = request_parts(&messages, body, Some(&instruction));
    let last = parts.last().expect("the body is always a part");
    assert!(last.starts_with(&format!("\n{body}")));
    if instruction.is_empty() {
        assert_eq!(last, &format!("\n{body}"));
    } else {
        assert!(last.contains(INSTRUCTION_MARKER));
        assert!(last.ends_with(&*instruction));
    }
    let headers: Vec<&String> = parts
        .iter()
        .filter(|p| p.starts_with("## Message ") && p.ends_with("\nContent:\n"))
        .collect();
    assert!(headers.len() >= messages.len());
    for (index, message) in messages.iter().enumerate() {
        let header = format!(
            "## Message {}\nRole: {}\nContent:\n",
            index + 1,
            message.role.as_str()
        );
        assert!(
            parts.contains(&header),
            "message {} has no header",
            index + 1
        );
    }
});
