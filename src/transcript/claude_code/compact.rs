//! A compaction written back as Claude Code's own `/compact` appends it when it keeps a recent
//! tail (the session file is append-only, and every line stays as it was): a
//! `compact_boundary` system line (`parentUuid` null, `logicalParentUuid` naming the context's
//! last main-chain line, `compactMetadata` with trigger `manual`, the context size before, and
//! `preservedMessages`: the summary line as `anchorUuid` and the uuids of the kept records,
//! which stay where they are in the file), in user mode the kept user messages chained one
//! after another (before the summary, as kimi-code orders them), and the summary as an
//! `isCompactSummary` user line, its text opening with Claude Code's marker sentence; a kept
//! message the user typed while the agent worked, which only `queue-operation` lines hold,
//! follows as a plain user line, named in its place among the preserved uuids. On resume
//! Claude Code chains the preserved records under the summary and drops everything else before
//! the boundary (see [`super::live`]). The new lines copy `userType`, `cwd`, `sessionId`,
//! `version`, `gitBranch`, `slug` and `entrypoint` verbatim from that last line, take the
//! timestamp of the file's last line, and get uuids derived from the compaction, so the same
//! input gives the same output.

use anyhow::Result;
use serde::Serialize;
use serde_json::value::RawValue;

use super::ClaudeCode;
use crate::transcript::classify::text_of;
use crate::transcript::json::{top_level_str, top_level_value};
use crate::transcript::model::{Event, QueueOp, Record};
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

/// The summary text's opening: Claude Code's marker sentence (what tools recognise compact
/// summaries by), then what follows it.
const SUMMARY_LEAD: &str = "This session is being continued from a previous conversation that ran \
     out of context. The summary below covers the earlier part of the conversation, which is no \
     longer in context.";

impl WriteBack for ClaudeCode {
    /// Every line stays, then a `compact_boundary` line naming the kept records in
    /// `preservedMessages`, the kept user messages (user mode) chained to it, and the summary
    /// line chained after them. See the module docs.
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        // The line the boundary follows: the last main-chain line with a uuid of the context.
        let source = compacted
            .lead
            .iter()
            .chain(&compacted.head)
            .chain(&compacted.summarised)
            .chain(&compacted.tail)
            .rev()
            .map(|&index| records[index].raw)
            .find(|raw| !is_sidechain_line(raw) && top_level_value(raw, "uuid").is_some());
        let envelope = Envelope::of(source)?;
        let timestamp = last_timestamp(records)?;
        let seed = &compacted.seed;
        let summary_uuid = derived_uuid(seed, "summary");
        // The kept records stay where they are; Claude Code chains them under the summary. A
        // kept message the tree does not hold (one the user typed while the agent worked,
        // handed to the model mid-turn) is written again, after the summary, as a user line
        // named in its place.
        let mut preserved: Vec<String> = Vec::new();
        let mut queued: Vec<(String, String)> = Vec::new();
        for &index in compacted.head.iter().chain(&compacted.tail) {
            let record = &records[index];
            if is_sidechain_line(record.raw) {
                continue;
            }
            if let Some(uuid) = top_level_str(record.raw, "uuid") {
                preserved.push(uuid);
            } else if let Some(text) = queued_text(record) {
                let uuid = derived_uuid(seed, &format!("queued-{}", queued.len()));
                preserved.push(uuid.clone());
                queued.push((uuid, text));
            }
        }

        push_kept(out, &compacted.all_lines());

        let boundary_uuid = derived_uuid(seed, "boundary");
        let boundary = BoundaryLine {
            parent_uuid: None,
            logical_parent_uuid: copied(source, "uuid")?,
            is_sidechain: false,
            envelope: &envelope,
            kind: "system",
            subtype: "compact_boundary",
            content: "Conversation compacted",
            is_meta: false,
            timestamp,
            uuid: &boundary_uuid,
            level: "info",
            compact_metadata: CompactMetadata {
                trigger: "manual",
                pre_tokens: compacted.tokens_before,
                preserved_messages: (!preserved.is_empty()).then(|| PreservedMessages {
                    anchor_uuid: &summary_uuid,
                    uuids: &preserved,
                }),
            },
        };
        push_line(out, &serde_json::to_vec(&boundary)?);

        // Kept user messages (user mode) come before the summary, as kimi-code orders them: its
        // elision marker tells the model the summary is at the end.
        let mut last_uuid = boundary_uuid;
        for (index, text) in compacted.kept_user_texts.iter().enumerate() {
            let uuid = derived_uuid(seed, &format!("kept-{index}"));
            let kept = UserLine::new(&envelope, &last_uuid, &uuid, timestamp, text);
            push_line(out, &serde_json::to_vec(&kept)?);
            last_uuid = uuid;
        }

        let summary_text = format!("{SUMMARY_LEAD}\n\n{}", compacted.summary);
        let summary = UserLine {
            is_visible_in_transcript_only: Some(true),
            is_compact_summary: Some(true),
            ..UserLine::new(
                &envelope,
                &last_uuid,
                &summary_uuid,
                timestamp,
                &summary_text,
            )
        };
        push_line(out, &serde_json::to_vec(&summary)?);
        for (uuid, text) in &queued {
            let kept = UserLine::new(&envelope, &summary_uuid, uuid, timestamp, text);
            push_line(out, &serde_json::to_vec(&kept)?);
        }
        Ok(())
    }
}

/// The text of a queued message the model was handed (a user message read from a
/// `queue-operation` line, which has no uuid).
fn queued_text(record: &Record) -> Option<String> {
    let message = record.message()?;
    matches!(record.link.event, Event::Queue(QueueOp::Enqueue)).then(|| text_of(message))
}

/// The `timestamp` of the file's last line that has one, as JSON: the new lines come after
/// every line of the file, so they take its time.
fn last_timestamp<'r>(records: &[Record<'r>]) -> Result<Option<&'r RawValue>> {
    Ok(records
        .iter()
        .rev()
        .find_map(|record| top_level_value(record.raw, "timestamp").map(|s| &record.raw[s]))
        .map(serde_json::from_slice::<&RawValue>)
        .transpose()?)
}

/// Whether a line is on a sidechain (`"isSidechain": true`).
fn is_sidechain_line(line: &[u8]) -> bool {
    top_level_value(line, "isSidechain").is_some_and(|span| &line[span] == b"true")
}

/// The raw JSON value of top-level `key` of a line, if it has one.
pub(super) fn copied<'r>(line: Option<&'r [u8]>, key: &str) -> Result<Option<&'r RawValue>> {
    match line.and_then(|raw| Some(&raw[top_level_value(raw, key)?])) {
        Some(json) => Ok(Some(serde_json::from_slice(json)?)),
        None => Ok(None),
    }
}

/// The envelope values a written line copies, verbatim, from the line it follows, in Claude
/// Code's order; absent ones are left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Envelope<'r> {
    #[serde(skip_serializing_if = "Option::is_none")]
    user_type: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entrypoint: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    git_branch: Option<&'r RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slug: Option<&'r RawValue>,
}

impl<'r> Envelope<'r> {
    /// The envelope of `source` (none when there is no such line).
    pub(super) fn of(source: Option<&'r [u8]>) -> Result<Self> {
        Ok(Envelope {
            user_type: copied(source, "userType")?,
            entrypoint: copied(source, "entrypoint")?,
            cwd: copied(source, "cwd")?,
            session_id: copied(source, "sessionId")?,
            version: copied(source, "version")?,
            git_branch: copied(source, "gitBranch")?,
            slug: copied(source, "slug")?,
        })
    }
}

/// A `compact_boundary` system line, keys in the order Claude Code writes them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BoundaryLine<'r> {
    parent_uuid: Option<&'r str>,
    logical_parent_uuid: Option<&'r RawValue>,
    is_sidechain: bool,
    #[serde(flatten)]
    envelope: &'r Envelope<'r>,
    #[serde(rename = "type")]
    kind: &'static str,
    subtype: &'static str,
    content: &'static str,
    is_meta: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'r RawValue>,
    uuid: &'r str,
    level: &'static str,
    compact_metadata: CompactMetadata<'r>,
}

/// A boundary's `compactMetadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactMetadata<'r> {
    trigger: &'static str,
    pre_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    preserved_messages: Option<PreservedMessages<'r>>,
}

/// The kept records a boundary names: Claude Code chains them, in this order, under the anchor.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreservedMessages<'r> {
    anchor_uuid: &'r str,
    uuids: &'r [String],
}

/// A user line: the compact summary (with its two flags) or a kept user message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UserLine<'r> {
    parent_uuid: &'r str,
    is_sidechain: bool,
    #[serde(flatten)]
    envelope: &'r Envelope<'r>,
    #[serde(rename = "type")]
    kind: &'static str,
    message: UserMessage<'r>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_visible_in_transcript_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_compact_summary: Option<bool>,
    uuid: &'r str,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'r RawValue>,
}

impl<'r> UserLine<'r> {
    /// A plain user line holding `content`, under `parent_uuid`.
    fn new(
        envelope: &'r Envelope<'r>,
        parent_uuid: &'r str,
        uuid: &'r str,
        timestamp: Option<&'r RawValue>,
        content: &'r str,
    ) -> Self {
        UserLine {
            parent_uuid,
            is_sidechain: false,
            envelope,
            kind: "user",
            message: UserMessage {
                role: "user",
                content,
            },
            is_visible_in_transcript_only: None,
            is_compact_summary: None,
            uuid,
            timestamp,
        }
    }
}

/// A user line's `message`.
#[derive(Serialize)]
struct UserMessage<'r> {
    role: &'static str,
    content: &'r str,
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::compaction::compaction;
    use crate::plan::{plan, Mode, Plan};
    use crate::tokens::Tokenizer;
    use crate::transcript::classify::text_of;
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::model::testing::{corpus_bytes, keys};
    use crate::transcript::FormatId;

    /// The real boundary and summary lines of the corpus's native compaction.
    fn real_compaction() -> (Vec<u8>, Vec<u8>) {
        let bytes = corpus_bytes("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
        let text = String::from_utf8(bytes).unwrap();
        let find = |needle: &str| {
            text.lines()
                .find(|line| line.contains(needle))
                .unwrap()
                .as_bytes()
                .to_vec()
        };
        (
            find(r#""subtype":"compact_boundary""#),
            find(r#""isCompactSummary":true"#),
        )
    }

    const SUMMARY: &str = "Summary:\n1. Primary Request: fix \"the\" bug\u{1b}[0m\n";

    fn write(transcript: &Transcript, plan: &Plan) -> Vec<u8> {
        let mut compacted = compaction(transcript, plan, SUMMARY, Tokenizer::Chars4);
        compacted.tokens_before = 155_250;
        let mut out = Vec::new();
        let mut sink = crate::transcript::write::Sink::new(&mut out);
        ClaudeCode.write_compacted(&compacted, &mut sink).unwrap();
        sink.finish().unwrap();
        out
    }

    /// The envelope keys a written line copies only when its source line has them.
    const COPIED: [&str; 7] = [
        "userType",
        "entrypoint",
        "cwd",
        "sessionId",
        "version",
        "gitBranch",
        "slug",
    ];

    /// Writes a compaction of `name` under `mode` and checks that it is appended in Claude
    /// Code's own shape and that, read back, the live context is the summary and the kept tail.
    fn check_write_back(name: &str, mode: Mode) {
        let bytes = corpus_bytes(&format!("claude-code/{name}"));
        let input = Transcript::parse(name, &bytes, LoadOptions::default()).unwrap();
        let plan = plan(input.context(), mode, Tokenizer::Chars4, &ClaudeCode).unwrap();
        assert!(plan.noop.is_none(), "{name}: no-op plan");
        let compacted = compaction(&input, &plan, SUMMARY, Tokenizer::Chars4);
        let out = write(&input, &plan);
        assert_eq!(out, write(&input, &plan), "{name}: not deterministic");

        // Every line of the input, byte for byte, then the new lines: appended, nothing moved.
        let mut prefix = bytes.clone();
        if !prefix.ends_with(b"\n") {
            prefix.push(b'\n');
        }
        assert!(out.starts_with(&prefix), "{name}: the input changed");
        let added: Vec<&[u8]> = out[prefix.len()..]
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
            .collect();
        let kept_texts = &compacted.kept_user_texts;
        assert_eq!(added.len(), 2 + kept_texts.len(), "{name}");
        let boundary = added[0];
        let kept = &added[1..added.len() - 1];
        let summary = added[added.len() - 1];
        let requests = input
            .context()
            .iter()
            .filter_map(|r| r.message())
            .any(crate::transcript::classify::is_real_user_request);
        if matches!(mode, Mode::Tail { .. }) {
            assert!(!compacted.tail.is_empty(), "{name}: empty tail");
        } else {
            assert_eq!(!kept.is_empty(), requests, "{name}: kept user messages");
        }

        // The new lines have the keys of Claude Code's own, in its order, and copy the envelope
        // of the context's last line.
        let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
        assert_eq!(output.format, Some(FormatId::ClaudeCode), "{name}");
        let logical = top_level_str(boundary, "logicalParentUuid").unwrap();
        let source = input
            .context()
            .iter()
            .rev()
            .find(|r| top_level_str(r.raw, "uuid").as_deref() == Some(logical.as_str()))
            .unwrap_or_else(|| panic!("{name}: logicalParentUuid names no line of the context"))
            .raw;
        assert!(!is_sidechain_line(source), "{name}");
        let source_keys = keys(source);
        let expected = |real: &[u8]| -> Vec<String> {
            keys(real)
                .into_iter()
                .filter(|key| !COPIED.contains(&key.as_str()) || source_keys.contains(key))
                .collect()
        };
        let (real_boundary, real_summary) = real_compaction();
        assert_eq!(keys(boundary), expected(&real_boundary), "{name}");
        assert_eq!(keys(summary), expected(&real_summary), "{name}");
        for key in COPIED {
            assert_eq!(
                top_level_value(boundary, key).map(|span| &boundary[span]),
                top_level_value(source, key).map(|span| &source[span]),
                "{name}: {key}"
            );
        }
        let boundary_value: Value = serde_json::from_slice(boundary).unwrap();
        let summary_value: Value = serde_json::from_slice(summary).unwrap();
        assert_eq!(boundary_value["parentUuid"], Value::Null);
        assert_eq!(boundary_value["subtype"], "compact_boundary");
        let metadata = &boundary_value["compactMetadata"];
        assert_eq!(metadata["trigger"], "manual");
        assert_eq!(metadata["preTokens"], 155_250);
        let tail_uuids: Vec<String> = compacted
            .tail
            .iter()
            .map(|&i| input.records[i].raw)
            .filter(|raw| !is_sidechain_line(raw))
            .filter_map(|raw| top_level_str(raw, "uuid"))
            .collect();
        if tail_uuids.is_empty() {
            assert!(metadata.get("preservedMessages").is_none(), "{name}");
        } else {
            assert_eq!(
                metadata["preservedMessages"],
                serde_json::json!({"anchorUuid": summary_value["uuid"], "uuids": tail_uuids}),
                "{name}"
            );
        }
        let summary_parent = kept.last().copied().unwrap_or(boundary);
        assert_eq!(
            summary_value["parentUuid"].as_str(),
            top_level_str(summary_parent, "uuid").as_deref()
        );
        let text = summary_value["message"]["content"].as_str().unwrap();
        assert!(text.starts_with(
            "This session is being continued from a previous conversation that ran out of context. "
        ));
        assert!(text.ends_with(&format!("\n\n{SUMMARY}")));
        for (line, expected) in kept.iter().zip(kept_texts) {
            let value: Value = serde_json::from_slice(line).unwrap();
            assert_eq!(value["message"]["content"], expected.as_str());
        }

        // Read back, the live context is the boundary, the kept user messages, the summary and
        // the kept tail, in that order, and nothing else.
        let context: Vec<&[u8]> = output.context().iter().map(|r| r.raw).collect();
        let mut want: Vec<&[u8]> = added.clone();
        want.extend(
            compacted
                .tail
                .iter()
                .map(|&i| input.records[i].raw)
                .filter(|raw| top_level_str(raw, "uuid").is_some() && !is_sidechain_line(raw)),
        );
        assert_eq!(context, want, "{name}: live context after compaction");
        let compactions = |t: &Transcript| t.records.iter().filter(|r| r.compaction).count();
        assert_eq!(compactions(&output), compactions(&input) + 1, "{name}");
    }

    const CORPUS: [&str; 4] = [
        "claude-code-viewer-5c0375b4.jsonl",
        "claude-code-viewer-fe5e1c67.jsonl",
        "entireio-cli-a6e4c2a0fbd1.jsonl",
        "kimi-cli-5b2c427a42e0.jsonl",
    ];

    #[test]
    fn writes_back_a_native_compaction_in_tail_mode() {
        for name in CORPUS {
            check_write_back(name, Mode::Tail { preserve: 2 });
        }
    }

    #[test]
    fn writes_back_a_native_compaction_in_user_mode() {
        for name in CORPUS {
            check_write_back(
                name,
                Mode::User {
                    keep_user_tokens: 200,
                    user_head_tokens: 50,
                },
            );
        }
    }

    #[test]
    fn a_rewound_branch_is_neither_kept_nor_summarised() {
        // u2/a2 were rewound away: the user went back to a1 and asked u3 instead.
        let bytes = br#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"one"},"uuid":"u1","timestamp":"t1"}
{"parentUuid":"u1","isSidechain":false,"sessionId":"s","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"two"}]},"uuid":"a1","timestamp":"t2"}
{"parentUuid":"a1","isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"abandoned question"},"uuid":"u2","timestamp":"t3"}
{"parentUuid":"u2","isSidechain":false,"sessionId":"s","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"abandoned answer"}]},"uuid":"a2","timestamp":"t4"}
{"parentUuid":"a1","isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"newest question"},"uuid":"u3","timestamp":"t5"}
{"parentUuid":"u3","isSidechain":false,"sessionId":"s","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"newest answer"}]},"uuid":"a3","timestamp":"t6"}"#;
        let input = Transcript::parse("t", bytes, LoadOptions::default()).unwrap();
        let texts = |t: &Transcript| -> Vec<String> {
            t.context()
                .iter()
                .filter_map(|r| r.message())
                .map(text_of)
                .collect()
        };
        assert_eq!(
            texts(&input),
            ["one", "two", "newest question", "newest answer"]
        );
        let plan = plan(
            input.context(),
            Mode::Tail { preserve: 2 },
            Tokenizer::Chars4,
            &ClaudeCode,
        )
        .unwrap();
        let out = write(&input, &plan);
        assert!(
            out.ends_with(b"\n"),
            "an unterminated input gets its newline"
        );
        let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
        let after = texts(&output);
        assert_eq!(after.len(), 3);
        assert!(after[0].ends_with(SUMMARY));
        assert_eq!(after[1..], ["newest question", "newest answer"]);
    }
}
