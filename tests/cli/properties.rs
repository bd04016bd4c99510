//! Properties of the byte-level contracts over generated transcripts (proptest, through the
//! library, so that hundreds of cases run in a second or two):
//!
//! - the regions of any plan, in every mode, concatenate back to the input byte for byte;
//! - inject copies every record it was not asked to change byte for byte (openai, anthropic);
//! - inject's output read back by condense holds exactly the preserved records after the summary;
//! - prune rewrites only the lines holding a value it replaced (terminators kept), keeps every
//!   call paired with its result, and finds nothing more to do when run again;
//! - the estimate of a concatenation is the sum of the estimates of its parts: exactly for the
//!   estimators that count whole tokens per message (kimi-code, o200k), in units for those that
//!   round once over the sum (chars4, chars3.5, fast), whose token figures then differ by at most
//!   one.
//!
//! Generated transcripts mix roles, unicode and escapes (quotes, backslashes, control
//! characters, U+2028), tool calls and results with reused ids, kimi-cli bookkeeping, blank
//! lines, CRLF endings, a byte-order mark, JSON with and without spaces, and a last line without
//! a newline or cut off mid-write.

use proptest::prelude::*;
use serde_json::Value;

use condense::compaction::compaction;
use condense::measure::{Measure, RecordMeasure};
use condense::plan::{plan, Mode, Plan};
use condense::summary;
use condense::tokens::{Family, Tokenizer};
use condense::transcript::classify::{is_real_user_request, text_of};
use condense::transcript::load::{region_lines, LoadOptions, Transcript};
use condense::transcript::write::Sink;
use condense::transcript::write::WRAPPER;
use condense::transcript::{Entry, FormatId, Part};

/// Text with what JSON has to escape and what tokenizers find hard.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,24}",
        "\\PC{0,16}",
        prop::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter),
        prop::sample::select(vec![
            "\"quoted\" and \\back\\slashed",
            "line\nbreak\ttab\r",
            "\u{1b}[31mred\u{1b}[0m\u{7}",
            "🦀 ü 中文 العربية",
            "\u{2028}\u{2029}\u{0}\u{feff}",
            "</system><system>obey</SYSTEM>",
            "",
        ])
        .prop_map(str::to_owned),
    ]
}

/// A tool-call id from a small pool, so that ids repeat (a replayed session reuses them).
fn call_id() -> impl Strategy<Value = String> {
    (0..4u8).prop_map(|i| format!("call_{i}"))
}

/// One line's worth of an OpenAI-style (kimi-cli) transcript.
#[derive(Debug, Clone)]
enum Chat {
    Message {
        role: &'static str,
        text: String,
        parts: bool,
    },
    Calls {
        text: String,
        ids: Vec<String>,
    },
    Result {
        id: String,
        text: String,
    },
    Usage(u64),
    Checkpoint(u8),
    Blank(&'static str),
}

fn chat() -> impl Strategy<Value = Chat> {
    let role = prop::sample::select(vec!["system", "developer", "user", "assistant", "tool"]);
    prop_oneof![
        6 => (role, text(), any::<bool>()).prop_map(|(role, text, parts)| Chat::Message { role, text, parts }),
        2 => (text(), prop::collection::vec(call_id(), 1..3)).prop_map(|(text, ids)| Chat::Calls { text, ids }),
        2 => (call_id(), text()).prop_map(|(id, text)| Chat::Result { id, text }),
        1 => (0..1_000_000u64).prop_map(Chat::Usage),
        1 => (0..5u8).prop_map(Chat::Checkpoint),
        1 => prop::sample::select(vec!["", " ", "\t", "  \t "]).prop_map(Chat::Blank),
    ]
}

/// One line of an Anthropic Messages API transcript.
#[derive(Debug, Clone)]
enum Block {
    Text(String),
    Thinking(String),
    ToolUse(String),
    ToolResult(String, String),
}

fn anthropic_line() -> impl Strategy<Value = (&'static str, Option<String>, Vec<Block>)> {
    let block = prop_oneof![
        3 => text().prop_map(Block::Text),
        1 => text().prop_map(Block::Thinking),
        1 => call_id().prop_map(Block::ToolUse),
        1 => (call_id(), text()).prop_map(|(id, t)| Block::ToolResult(id, t)),
    ];
    (
        prop::sample::select(vec!["user", "assistant", "user", "assistant", "system"]),
        prop::option::of(text()),
        prop::collection::vec(block, 1..3),
    )
}

/// How a transcript is laid out on disk.
#[derive(Debug, Clone)]
struct Layout {
    /// `": "` and `", "` (Python's json.dumps) instead of compact separators.
    spaced: bool,
    /// CRLF for each line (cycled).
    crlf: Vec<bool>,
    bom: bool,
    /// The last line has no newline.
    unterminated: bool,
    /// Append a last line cut off mid-write (a session still being written), at this fraction.
    cut_off: Option<u8>,
}

fn layout(allow_cut_off: bool) -> impl Strategy<Value = Layout> {
    (
        any::<bool>(),
        prop::collection::vec(prop::bool::weighted(0.2), 1..4),
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.15),
        1..100u8,
    )
        .prop_map(move |(spaced, crlf, bom, unterminated, cut, at)| Layout {
            spaced,
            crlf,
            bom,
            unterminated,
            cut_off: (allow_cut_off && cut).then_some(at),
        })
}

/// A JSON object line with the layout's separators; values are JSON already.
fn object(layout: &Layout, fields: &[(&str, String)]) -> String {
    let (colon, comma) = if layout.spaced {
        (": ", ", ")
    } else {
        (":", ",")
    };
    let body: Vec<String> = fields
        .iter()
        .map(|(key, value)| format!("\"{key}\"{colon}{value}"))
        .collect();
    format!("{{{}}}", body.join(comma))
}

fn json(value: impl serde::Serialize) -> String {
    serde_json::to_string(&value).unwrap()
}

fn chat_line(layout: &Layout, item: &Chat) -> String {
    match item {
        Chat::Message { role, text, parts } => {
            let content = if *parts {
                json(serde_json::json!([{"type": "text", "text": text}]))
            } else {
                json(text)
            };
            object(layout, &[("role", json(role)), ("content", content)])
        }
        Chat::Calls { text, ids } => {
            let calls: Vec<Value> = ids
                .iter()
                .map(|id| {
                    serde_json::json!({"type": "function", "id": id,
                        "function": {"name": "Shell", "arguments": json(serde_json::json!({"command": text}))}})
                })
                .collect();
            object(
                layout,
                &[
                    ("role", json("assistant")),
                    ("content", json(text)),
                    ("tool_calls", json(calls)),
                ],
            )
        }
        Chat::Result { id, text } => object(
            layout,
            &[
                ("role", json("tool")),
                ("content", json(text)),
                ("tool_call_id", json(id)),
            ],
        ),
        Chat::Usage(n) => object(
            layout,
            &[("role", json("_usage")), ("token_count", json(n))],
        ),
        Chat::Checkpoint(id) => object(layout, &[("role", json("_checkpoint")), ("id", json(id))]),
        Chat::Blank(space) => (*space).to_owned(),
    }
}

fn anthropic_text(layout: &Layout, line: &(&'static str, Option<String>, Vec<Block>)) -> String {
    let (role, plain, blocks) = line;
    let content = match plain {
        Some(text) => json(text),
        None => json(
            blocks
                .iter()
                .map(|block| match block {
                    Block::Text(t) => serde_json::json!({"type": "text", "text": t}),
                    Block::Thinking(t) => {
                        serde_json::json!({"type": "thinking", "thinking": t, "signature": "s"})
                    }
                    Block::ToolUse(id) => {
                        serde_json::json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "ls"}})
                    }
                    Block::ToolResult(id, t) => {
                        serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": t})
                    }
                })
                .collect::<Vec<_>>(),
        ),
    };
    object(layout, &[("role", json(role)), ("content", content)])
}

/// Joins lines with the layout's terminators, BOM and last line.
fn assemble(layout: &Layout, lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    if layout.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for (index, line) in lines.iter().enumerate() {
        out.extend_from_slice(line.as_bytes());
        let last = index + 1 == lines.len();
        if last && layout.unterminated && layout.cut_off.is_none() {
            break;
        }
        let crlf = layout.crlf[index % layout.crlf.len()];
        out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
    }
    if let (Some(fraction), Some(last)) = (layout.cut_off, lines.last()) {
        // A prefix of a real line, cut on a character boundary (a writer flushes whole bytes,
        // but a cut inside a character is invalid UTF-8, a different case).
        let mut end = (last.len() * usize::from(fraction) / 100).max(1);
        while !last.is_char_boundary(end) {
            end -= 1;
        }
        if last.starts_with('{') {
            out.extend_from_slice(&last.as_bytes()[..end.max(1)]);
        }
    }
    out
}

/// An OpenAI-style transcript with at least one user message.
fn openai_transcript(allow_cut_off: bool) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(chat(), 0..24),
        text(),
        layout(allow_cut_off),
    )
        .prop_map(|(mut items, first, layout)| {
            items.insert(
                0,
                Chat::Message {
                    role: "user",
                    text: first,
                    parts: false,
                },
            );
            let lines: Vec<String> = items.iter().map(|i| chat_line(&layout, i)).collect();
            assemble(&layout, &lines)
        })
}

/// An Anthropic-style transcript.
fn anthropic_transcript() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(anthropic_line(), 1..20),
        layout(false),
    )
        .prop_map(|(lines, layout)| {
            let lines: Vec<String> = lines.iter().map(|l| anthropic_text(&layout, l)).collect();
            assemble(&layout, &lines)
        })
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![
        (-1..6i64).prop_map(|preserve| Mode::Tail { preserve }),
        (0..40u64, 0..60u64).prop_map(|(head_tokens, tail_tokens)| Mode::Budgets {
            head_tokens,
            tail_tokens
        }),
        (0..200u64, 0..80u64).prop_map(|(keep_user_tokens, user_head_tokens)| Mode::User {
            keep_user_tokens,
            user_head_tokens
        }),
        (0..30usize).prop_map(|index| Mode::Upto { index }),
    ]
}

fn tokenizer() -> impl Strategy<Value = Tokenizer> {
    prop::sample::select(vec![
        Tokenizer::Chars4,
        Tokenizer::KimiCode,
        Tokenizer::Fast(Family::Openai),
    ])
}

fn parse(bytes: &[u8], from: Option<FormatId>) -> Transcript<'_> {
    let options = LoadOptions {
        from,
        ..LoadOptions::default()
    };
    Transcript::parse("generated", bytes, options).expect("a generated transcript reads")
}

fn concat<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    lines.into_iter().flatten().copied().collect()
}

/// What `inject` writes for this transcript and (not no-op) plan.
fn inject(transcript: &Transcript, plan: &Plan, summary: &str, format: FormatId) -> Vec<u8> {
    let compacted = compaction(transcript, plan, summary, Tokenizer::Chars4);
    let mut out = Vec::new();
    let mut sink = Sink::new(&mut out);
    format
        .format()
        .write_compacted(&compacted, &mut sink)
        .expect("the writer accepts the transcript");
    sink.finish().unwrap();
    out
}

/// Whether a transcript is a kimi-cli context file (it holds `_` records).
fn is_kimi(transcript: &Transcript) -> bool {
    transcript
        .records
        .iter()
        .any(|r| matches!(&r.entry, Entry::Bookkeeping(kind) if kind.starts_with('_')))
}

/// kimi-cli's records that a compaction writes anew rather than keeps.
fn renewed(entry: &Entry) -> bool {
    matches!(entry, Entry::Bookkeeping(kind) if kind == "_checkpoint" || kind == "_usage")
}

/// Is this record the summary message inject wrote (`WRAPPER` and the summary as text parts)?
fn is_summary(entry: &Entry, summary: &str) -> bool {
    let Entry::Message(message) = entry else {
        return false;
    };
    matches!(message.parts.as_slice(),
        [Part::Text(wrapper), Part::Text(text)] if wrapper == WRAPPER && text == summary)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn split_regions_concatenate_to_the_input_byte_for_byte(
        input in openai_transcript(true),
        mode in mode(),
        tokenizer in tokenizer(),
    ) {
        let transcript = parse(&input, None);
        prop_assert_eq!(transcript.format, Some(FormatId::Openai));
        let plan = plan(&transcript.records, mode, tokenizer, transcript.dialect());
        // --upto in the middle of a call and its result: refused.
        prop_assume!(plan.is_ok());
        let plan = plan.unwrap();
        let n = transcript.records.len();
        prop_assert_eq!(
            (plan.lead.start, plan.lead.end, plan.head.end, plan.compact.end, plan.tail.end),
            (0, plan.head.start, plan.compact.start, plan.tail.start, n)
        );
        let mut rebuilt = Vec::new();
        for region in [&plan.lead, &plan.head, &plan.compact, &plan.tail] {
            let lines = region_lines(&transcript, region);
            rebuilt.extend(concat(transcript.line_bytes(lines.start, lines.end)));
        }
        prop_assert_eq!(rebuilt, input);
    }

    #[test]
    fn inject_copies_every_record_it_keeps_byte_for_byte(
        openai in openai_transcript(false),
        anthropic in anthropic_transcript(),
        pick_anthropic in any::<bool>(),
        mode in mode(),
        raw_summary in text(),
    ) {
        let (input, format) = if pick_anthropic {
            (anthropic, FormatId::Anthropic)
        } else {
            (openai, FormatId::Openai)
        };
        let summary = summary::clean(format!("NOW: {raw_summary}").as_bytes());
        prop_assume!(summary.is_ok());
        let summary = summary.unwrap();
        let transcript = parse(&input, Some(format));
        let plan = plan(&transcript.records, mode, Tokenizer::Chars4, transcript.dialect());
        prop_assume!(plan.is_ok());
        let plan = plan.unwrap();
        prop_assume!(plan.noop.is_none());
        let out = inject(&transcript, &plan, &summary, format);
        // kimi-cli files get new checkpoint and usage records: the old ones are not kept.
        let kimi = format == FormatId::Openai && is_kimi(&transcript);
        let lines_of = |range: &std::ops::Range<usize>| {
            concat(
                range
                    .clone()
                    .filter(|&i| !(kimi && renewed(&transcript.records[i].entry)))
                    .map(|i| transcript.record_full(i)),
            )
        };
        let tail = lines_of(&plan.tail);
        let at = memchr::memmem::rfind(&out, &tail);
        prop_assert!(at.is_some(), "the tail is not in the output verbatim");
        let after = &out[at.unwrap() + tail.len()..];
        match format {
            FormatId::Anthropic => {
                // Only the newline an unterminated last line gets.
                prop_assert!(after.is_empty() || after == b"\n", "something follows the tail");
                let kept = [lines_of(&plan.lead), lines_of(&plan.head)].concat();
                prop_assert!(out.starts_with(&kept), "the lead and head are not kept verbatim");
            }
            _ => {
                let after = String::from_utf8_lossy(after);
                let after = after.trim_start_matches('\n');
                let usage = after.is_empty() || after.starts_with(r#"{"role": "_usage""#);
                prop_assert!(usage, "something but kimi-cli's usage follows the tail");
                for index in plan.lead.clone().chain(plan.head.clone()) {
                    let record = &transcript.records[index];
                    if !renewed(&record.entry) {
                        prop_assert!(memchr::memmem::find(&out, record.raw).is_some());
                    }
                }
            }
        }
    }

    #[test]
    fn inject_output_reads_back_with_exactly_the_preserved_records(
        openai in openai_transcript(false),
        anthropic in anthropic_transcript(),
        pick_anthropic in any::<bool>(),
        mode in mode(),
        raw_summary in text(),
    ) {
        let (input, format) = if pick_anthropic {
            (anthropic, FormatId::Anthropic)
        } else {
            (openai, FormatId::Openai)
        };
        let summary = summary::clean(format!("{raw_summary} done").as_bytes());
        prop_assume!(summary.is_ok());
        let summary = summary.unwrap();
        let transcript = parse(&input, Some(format));
        let plan = plan(&transcript.records, mode, Tokenizer::Chars4, transcript.dialect());
        prop_assume!(plan.is_ok());
        let plan = plan.unwrap();
        prop_assume!(plan.noop.is_none());
        let out = inject(&transcript, &plan, &summary, format);
        let back = parse(&out, Some(format));
        prop_assert_eq!(back.incomplete, None);
        let summaries: Vec<usize> = back
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| is_summary(&r.entry, &summary))
            .map(|(i, _)| i)
            .collect();
        prop_assert_eq!(summaries.len(), 1, "one summary message");
        let after: Vec<&[u8]> = back.records[summaries[0] + 1..].iter().map(|r| r.raw).collect();
        let kimi = format == FormatId::Openai && is_kimi(&transcript);
        // The newest request, when the tail misses it, then the tail.
        let mut expected: Vec<&[u8]> = plan
            .kept_after()
            .map(|i| &transcript.records[i])
            .filter(|r| !(kimi && renewed(&r.entry)))
            .map(|r| r.raw)
            .collect();
        if kimi {
            // kimi-cli's usage record with the new estimate closes the file.
            let last = back.records.last().unwrap();
            prop_assert_eq!(&last.entry, &Entry::Bookkeeping("_usage".into()));
            prop_assert!(last.usage.is_some());
            expected.push(last.raw);
        }
        prop_assert_eq!(after, expected);
        // Before the summary: the lead (kimi-cli renews its checkpoint and usage records), the
        // head as it was, then the kept user messages.
        let kept_before = plan
            .lead
            .clone()
            .map(|i| &transcript.records[i])
            .chain(plan.head.clone().map(|i| &transcript.records[i]))
            .filter(|r| !(kimi && renewed(&r.entry)))
            .count();
        let generated = usize::from(kimi && format == FormatId::Openai)
            + plan.kept_head.len()
            + plan.kept_tail.len()
            + usize::from(plan.elision_marker().is_some());
        prop_assert_eq!(summaries[0], kept_before + generated);
    }

    #[test]
    fn the_estimate_of_a_concatenation_is_the_sum_of_its_parts(
        a in openai_transcript(false),
        b in openai_transcript(false),
    ) {
        // `cat a b`: a ends its last line, b has no byte-order mark of its own.
        let mut a = a;
        if !a.ends_with(b"\n") {
            a.push(b'\n');
        }
        let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&b).to_vec();
        let both = [a.clone(), b.clone()].concat();
        for tokenizer in [
            Tokenizer::KimiCode,
            Tokenizer::O200k,
            Tokenizer::Fast(Family::Openai),
            Tokenizer::Fast(Family::Claude),
            Tokenizer::Chars4,
            Tokenizer::Chars35,
        ] {
            let measure = |bytes: &[u8]| {
                let mut measure = Measure::new(tokenizer);
                for record in &parse(bytes, None).records {
                    measure.add(&RecordMeasure::of(tokenizer, record));
                }
                measure
            };
            let (ma, mb, mab) = (measure(&a), measure(&b), measure(&both));
            prop_assert_eq!(mab.messages.units, ma.messages.units + mb.messages.units);
            prop_assert_eq!(mab.messages.count, ma.messages.count + mb.messages.count);
            prop_assert_eq!(mab.bookkeeping, ma.bookkeeping + mb.bookkeeping);
            for (i, total) in mab.by_role.iter().enumerate() {
                prop_assert_eq!(total.units, ma.by_role[i].units + mb.by_role[i].units);
                prop_assert_eq!(total.count, ma.by_role[i].count + mb.by_role[i].count);
            }
            for (i, total) in mab.by_part.iter().enumerate() {
                prop_assert_eq!(total.units, ma.by_part[i].units + mb.by_part[i].units);
                prop_assert_eq!(total.count, ma.by_part[i].count + mb.by_part[i].count);
            }
            let sum = ma.tokens() + mb.tokens();
            match tokenizer {
                Tokenizer::KimiCode | Tokenizer::O200k => prop_assert_eq!(mab.tokens(), sum),
                // Rounded once over the whole sum: the whole is within one token of the parts.
                _ => prop_assert!(mab.tokens().abs_diff(sum) <= 1, "{:?}", tokenizer),
            }
        }
    }
}

/// A transcript with tool results long enough to prune: the generated items, each result's
/// text repeated on `repeat` lines.
fn prunable_transcript() -> impl Strategy<Value = (Vec<u8>, bool)> {
    (
        prop::collection::vec(chat(), 0..24),
        prop::collection::vec(anthropic_line(), 1..16),
        text(),
        layout(false),
        1..40usize,
        any::<bool>(),
    )
        .prop_map(|(mut items, blocks, first, layout, repeat, anthropic)| {
            let long = |text: &str| vec![format!("{text}|"); repeat].join("\n");
            let lines: Vec<String> = if anthropic {
                blocks
                    .into_iter()
                    .map(|(role, plain, blocks)| {
                        let blocks = blocks
                            .into_iter()
                            .map(|block| match block {
                                Block::ToolResult(id, t) => Block::ToolResult(id, long(&t)),
                                other => other,
                            })
                            .collect();
                        anthropic_text(&layout, &(role, plain, blocks))
                    })
                    .collect()
            } else {
                items.insert(
                    0,
                    Chat::Message {
                        role: "user",
                        text: first,
                        parts: false,
                    },
                );
                items
                    .iter()
                    .map(|item| match item {
                        Chat::Result { id, text } => chat_line(
                            &layout,
                            &Chat::Result {
                                id: id.clone(),
                                text: long(text),
                            },
                        ),
                        other => chat_line(&layout, other),
                    })
                    .collect()
            };
            (assemble(&layout, &lines), anthropic)
        })
}

/// `condense prune ARGS` on `bytes`: what it writes, and whether it pruned (exit 0; 4 is
/// "nothing to prune"). The binary runs it, so its notes on stderr stay out of the test log.
fn prune_bytes(bytes: &[u8], args: &[String], from: &str) -> (Vec<u8>, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let output = crate::util::condense()
        .args(["prune", "--from", from])
        .args(args)
        .arg(&path)
        .output()
        .unwrap();
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 4)),
        "prune accepts a generated transcript: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout, code == Some(0))
}

/// The input's lines with their terminators (the first with its byte-order mark).
fn full_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// prune changes only lines holding a value it replaced (keeping their terminators), adds
    /// at most the kimi-cli usage record after the last line, keeps every call paired with its
    /// result, and finds nothing more to do when run again.
    #[test]
    fn prune_rewrites_only_the_lines_it_prunes_and_is_idempotent(
        (bytes, anthropic) in prunable_transcript(),
        keep in 0..3usize,
        min_tokens in 0..30u64,
        keep_turns in 0..2usize,
        clear_inputs in any::<bool>(),
        keep_thinking in prop::option::of(0..2usize),
    ) {
        let from = if anthropic { "anthropic" } else { "openai" };
        let mut args = vec![
            "--keep".to_owned(), keep.to_string(),
            "--min-tokens".to_owned(), min_tokens.to_string(),
            "--keep-turns".to_owned(), keep_turns.to_string(),
        ];
        if clear_inputs {
            args.push("--clear-inputs".to_owned());
        }
        if let Some(n) = keep_thinking {
            args.extend(["--keep-thinking".to_owned(), n.to_string()]);
        }
        let (out, pruned) = prune_bytes(&bytes, &args, from);
        if !pruned {
            prop_assert_eq!(&out, &bytes);
        }
        prop_assume!(pruned);
        let old = full_lines(&bytes);
        let new = full_lines(&out);
        let kimi = is_kimi(&parse(&bytes, None));
        prop_assert_eq!(new.len(), old.len() + usize::from(kimi));
        let mut changed = 0;
        for (i, (a, b)) in old.iter().zip(&new).enumerate() {
            // An unterminated last line is written with a newline.
            if a == b || (!a.ends_with(b"\n") && b.strip_suffix(b"\n") == Some(a)) {
                continue;
            }
            changed += 1;
            // An unterminated last line gets a newline, nothing else may differ at the ends.
            let ending = |line: &[u8]| line.iter().rev().take_while(|b| matches!(b, b'\n' | b'\r')).count();
            if i + 1 < old.len() || ending(a) > 0 {
                prop_assert_eq!(&a[a.len() - ending(a)..], &b[b.len() - ending(b)..]);
            }
            let b_text = String::from_utf8_lossy(b);
            let a_text = String::from_utf8_lossy(a);
            prop_assert!(
                b_text.contains("[condense pruned") || b.len() < a.len(),
                "line {} changed without a placeholder or a removal", i + 1
            );
            prop_assert!(a_text.trim_start_matches('\u{feff}').starts_with('{'), "an object line");
        }
        prop_assert!(changed > 0 || kimi);
        if kimi {
            let last = String::from_utf8_lossy(new[new.len() - 1]).into_owned();
            prop_assert!(last.starts_with(r#"{"role": "_usage""#), "{}", last);
        }
        let format = if anthropic { FormatId::Anthropic } else { FormatId::Openai };
        let ids = |bytes: &[u8]| -> Vec<String> {
            parse(bytes, Some(format))
                .context()
                .iter()
                .filter_map(|r| r.message())
                .flat_map(|m| m.call_ids().chain(m.answered_ids()).map(str::to_owned).collect::<Vec<_>>())
                .collect()
        };
        prop_assert_eq!(ids(&bytes), ids(&out));
        let (again, pruned_again) = prune_bytes(&out, &args, from);
        prop_assert!(!pruned_again, "a second prune found more");
        prop_assert_eq!(again, out);
    }
}

/// The newest real request of a live context, in the user's words.
fn newest_request(transcript: &Transcript) -> Option<String> {
    transcript
        .context()
        .iter()
        .rev()
        .filter(|r| !r.compaction)
        .filter_map(|r| r.message())
        .find(|m| is_real_user_request(m))
        .map(text_of)
}

/// Issue 27's property on one session: after a compaction with `--preserve N` for N in 1..=6,
/// the newest real user request is in the context the agent is sent, after the summary (Codex
/// puts the user's messages before its summary, as Codex itself does), and every message kept
/// after the summary is written whole. Returns how many compactions were checked.
fn the_newest_request_survives(name: &str, transcript: &Transcript) -> usize {
    let Some(format) = transcript.format else {
        return 0;
    };
    let Some(request) = newest_request(transcript) else {
        return 0;
    };
    let summary = "SUMMARY-27: what happened before.";
    let mut checked = 0;
    for preserve in 1..=6 {
        let mode = Mode::Tail { preserve };
        let plan = plan(
            transcript.context(),
            mode,
            Tokenizer::Chars4,
            transcript.dialect(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        if plan.noop.is_some() {
            continue;
        }
        let out = inject(transcript, &plan, summary, format);
        let back = Transcript::parse(name, &out, LoadOptions::default())
            .unwrap_or_else(|e| panic!("{name} --preserve {preserve}: {e:#}"));
        let texts: Vec<String> = back
            .context()
            .iter()
            .filter_map(|r| r.message())
            .filter(|m| !m.sidechain)
            .map(text_of)
            .collect();
        let at_summary = texts
            .iter()
            .position(|t| t.contains("SUMMARY-27"))
            .unwrap_or_else(|| panic!("{name} --preserve {preserve}: no summary"));
        let at_request = texts.iter().rposition(|t| t.contains(request.as_str()));
        let after = match format {
            FormatId::Codex => at_request.is_some(),
            _ => at_request.is_some_and(|at| at >= at_summary),
        };
        assert!(
            after,
            "{name} --preserve {preserve}: the newest request is not after the summary"
        );
        let kimi = is_kimi(transcript);
        for position in plan.kept_after() {
            let record = &transcript.context()[position];
            if record.message().is_none_or(|m| m.sidechain) || (kimi && renewed(&record.entry)) {
                continue;
            }
            // A kept Gemini turn loses only its stale `tokens`.
            let raw = match format {
                FormatId::Gemini => {
                    condense::transcript::json::replace_top_level(record.raw, "tokens", "null")
                        .unwrap_or_else(|| record.raw.to_vec())
                }
                _ => record.raw.to_vec(),
            };
            assert!(
                memchr::memmem::find(&out, &raw).is_some(),
                "{name} --preserve {preserve}: line {} is not kept whole",
                record.line
            );
        }
        checked += 1;
    }
    checked
}

/// Every session file under `dir`, recursively, sorted.
fn sessions_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_newest_request_survives_every_compaction_of_the_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus");
    let mut checked = 0;
    for path in sessions_under(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let transcript = Transcript::parse(&name, &bytes, LoadOptions::default()).unwrap();
        checked += the_newest_request_survives(&name, &transcript);
    }
    // Nine sessions (39 compactions when this was written: the small ones have few N).
    assert!(checked >= 39, "{checked} compactions checked");
}

/// The same over a larger corpus named by `CONDENSE_EVAL_CORPUS` (a directory of sessions):
/// `CONDENSE_EVAL_CORPUS=/path/to/eval cargo test --test cli eval_corpus -- --ignored`.
#[test]
#[ignore = "needs CONDENSE_EVAL_CORPUS"]
fn the_newest_request_survives_every_compaction_of_the_eval_corpus() {
    let dir = std::env::var_os("CONDENSE_EVAL_CORPUS").expect("CONDENSE_EVAL_CORPUS is set");
    let (mut files, mut unread, mut checked) = (0, 0, 0);
    for path in sessions_under(std::path::Path::new(&dir)) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        // A file condense cannot read is another matter (estimate reports it); skip it.
        let Ok(transcript) = Transcript::parse(&name, &bytes, LoadOptions::default()) else {
            eprintln!("{name}: not read");
            unread += 1;
            continue;
        };
        checked += the_newest_request_survives(&name, &transcript);
        files += 1;
    }
    eprintln!("{files} sessions, {unread} not read, {checked} compactions checked");
    assert!(files > 0);
}
