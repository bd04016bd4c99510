//! A compaction written back as Codex's local compaction records itself. A rollout is
//! append-only and Codex resumes from the newest `compacted` line that has a
//! `replacement_history`, then replays the response items after it (see [`super::live`]), so
//! every line stays as it was, followed by:
//!
//! - `{"timestamp","type":"compacted","payload":{"message","replacement_history"}}`, where
//!   `message` is Codex's [`SUMMARY_PREFIX`], a newline and the summary (the form Codex's
//!   `is_summary_message` recognises), and `replacement_history` is what Codex's own
//!   `build_compacted_history` keeps: the user's own recent messages (newest first within
//!   20,000 tokens of four bytes, the one crossing the budget cut, earlier summaries and the
//!   injected environment and instructions left out, since Codex sends those anew), or in user
//!   mode the kept user messages; then the summary as a user message;
//! - `{"timestamp","type":"event_msg","payload":{"type":"context_compacted"}}`;
//! - the kept tail's `response_item` lines again, byte for byte, which Codex replays after the
//!   marker (the tail's events, token counts measured before the compaction among them, are
//!   not repeated).
//!
//! The new lines take the timestamp of the file's last line that has one. The legacy bare
//! layout has no compaction marker, so such a rollout is rewritten as a fresh one: its header
//! and `record_type` lines, the same replacement history as bare `message` lines, then the
//! tail.

use serde::Serialize;

use anyhow::Result;

use super::Codex;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::json::{top_level_str, top_level_value};
use crate::transcript::model::{Entry, Record};
use crate::transcript::write::{push_kept, push_line, Compacted, Sink, WriteBack};

impl WriteBack for Codex {
    /// Every line stays, then a `compacted` line whose `replacement_history` is the user's recent messages (or,
    /// in user mode, the kept ones) and the summary, a `context_compacted` event, and the kept
    /// tail's response items again, which Codex replays after the marker. A legacy bare
    /// rollout has no marker and is written anew instead.
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let envelope = records.iter().any(|record| is_envelope_line(record.raw));
        let message = format!("{SUMMARY_PREFIX}\n{}", compacted.summary);
        let recent = if compacted.kept_user_texts.is_empty() {
            recent_user_messages(records, &compacted.summarised)
        } else {
            compacted.kept_user_texts.clone()
        };
        let mut history: Vec<UserItem> = recent.iter().map(|text| UserItem::new(text)).collect();
        history.push(UserItem::new(&message));

        if !envelope {
            // A bare rollout has no compaction marker: it is rewritten as a fresh one, its
            // header and `record_type` lines first, the new history as its first items.
            let header: Vec<usize> = (0..records.len())
                .filter(|&index| {
                    matches!(&records[index].entry, Entry::Bookkeeping(name)
                        if name == "session_meta" || name.starts_with("record_type/"))
                })
                .collect();
            push_kept(out, &compacted.lines_of(&header));
            for item in &history {
                push_line(out, &serde_json::to_vec(item)?);
            }
            push_kept(out, &compacted.lines_of(&compacted.tail));
            return Ok(());
        }

        let timestamp = records
            .iter()
            .rev()
            .find_map(|record| top_level_str(record.raw, "timestamp"))
            .unwrap_or_default();
        push_kept(out, &compacted.all_lines());
        let marker = RolloutLine {
            timestamp: &timestamp,
            kind: "compacted",
            payload: CompactedPayload {
                message: &message,
                replacement_history: &history,
            },
        };
        push_line(out, &serde_json::to_vec(&marker)?);
        let event = RolloutLine {
            timestamp: &timestamp,
            kind: "event_msg",
            payload: EventPayload {
                kind: "context_compacted",
            },
        };
        push_line(out, &serde_json::to_vec(&event)?);
        // Only response items reach the model; the tail's events (token counts measured before
        // the compaction among them) stay history.
        let replayed: Vec<usize> = compacted
            .tail
            .iter()
            .copied()
            .filter(|&index| {
                top_level_str(records[index].raw, "type").as_deref() == Some("response_item")
            })
            .collect();
        push_kept(out, &compacted.lines_of(&replayed));
        Ok(())
    }
}

/// What goes before a summary in a `compacted` line (then a newline and the summary). It opens
/// with the marker sentence Codex puts before its own summaries (the formats spec names it), so
/// readers that look for summaries by that sentence find this one; the rest of Codex's
/// paragraph is its own prose and is not copied, so Codex's exact-paragraph check does not
/// recognise it, which only means a later Codex compaction may keep it as a user message.
const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and \
produced a summary of its thinking process. The notes below are that summary: continue the work \
from them.";

/// A rollout line as written back: `{"timestamp","type","payload"}`, Codex's order.
#[derive(Serialize)]
struct RolloutLine<'a, P> {
    timestamp: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    payload: P,
}

/// The payload of a written `compacted` line (the shape of local compaction in builds that
/// record the replacement history; the `window_*` fields of server-side compaction are left
/// out, as local compaction does).
#[derive(Serialize)]
struct CompactedPayload<'a> {
    message: &'a str,
    replacement_history: &'a [UserItem<'a>],
}

/// The payload of the `context_compacted` event.
#[derive(Serialize)]
struct EventPayload {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `{"type":"message","role":"user","content":[{"type":"input_text","text":…}]}`.
#[derive(Serialize)]
struct UserItem<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'static str,
    content: [InputText<'a>; 1],
}

impl<'a> UserItem<'a> {
    fn new(text: &'a str) -> Self {
        UserItem {
            kind: "message",
            role: "user",
            content: [InputText {
                kind: "input_text",
                text,
            }],
        }
    }
}

#[derive(Serialize)]
struct InputText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// True for a line of the envelope layout (`type` and `payload`).
fn is_envelope_line(raw: &[u8]) -> bool {
    top_level_str(raw, "type").is_some() && top_level_value(raw, "payload").is_some()
}

/// The budget of the user's recent messages in a replacement history, as Codex's
/// `COMPACT_USER_MESSAGE_MAX_TOKENS`, in Codex's estimate of four bytes a token.
const RECENT_USER_TOKENS: usize = 20_000;

/// The user's own recent messages among `summarised`, as Codex keeps them beside its summary
/// (`build_compacted_history`): newest first while they fit in [`RECENT_USER_TOKENS`], the one
/// that crosses the budget cut to what fits, earlier summaries and injected context left out,
/// then put back in their order.
fn recent_user_messages(records: &[Record], summarised: &[usize]) -> Vec<String> {
    let mut left = RECENT_USER_TOKENS * 4;
    let mut kept = Vec::new();
    for &index in summarised.iter().rev() {
        let Some(message) = records[index].message() else {
            continue;
        };
        // An earlier `compacted` line is a summary, whatever its history begins with.
        if records[index].compaction || !is_real_user_request(message) {
            continue;
        }
        if left == 0 {
            break;
        }
        let text = text_of(message);
        if text.len() <= left {
            left -= text.len();
            kept.push(text);
            continue;
        }
        let mut cut = left;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let dropped = (text.len() - cut).div_ceil(4);
        kept.push(format!(
            "{}\n[... about {dropped} tokens of this message left out ...]",
            &text[..cut]
        ));
        break;
    }
    kept.reverse();
    kept
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::compaction::compaction;
    use crate::plan::{plan, Mode, Plan};
    use crate::tokens::Tokenizer;
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::model::testing::{corpus_bytes, keys};
    use crate::transcript::FormatId;

    const SUMMARY: &str = "## Active task\nFix \"the\" bug\u{1b}[0m\n";
    const MARKER: &str = "Another language model started to solve this problem and produced \
                          a summary of its thinking process.";

    fn payload(line: &[u8]) -> &[u8] {
        &line[top_level_value(line, "payload").unwrap()]
    }

    fn write(transcript: &Transcript, plan: &Plan) -> Vec<u8> {
        let mut compacted = compaction(transcript, plan, SUMMARY, Tokenizer::Chars4);
        compacted.tokens_before = 123_456;
        let mut out = Vec::new();
        let mut sink = crate::transcript::write::Sink::new(&mut out);
        Codex.write_compacted(&compacted, &mut sink).unwrap();
        sink.finish().unwrap();
        out
    }

    fn user_item(text: &str) -> Value {
        serde_json::json!({
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}]
        })
    }

    /// Writes a compaction of the corpus under `mode`, checks that it is appended in the
    /// shape of Codex's own and that, read back, the live context is the new history and the
    /// replayed tail; returns the replacement history and the kept user texts.
    fn check_corpus(mode: Mode) -> (Vec<Value>, Vec<String>) {
        let bytes = corpus_bytes("codex/agent-sessions-small.jsonl");
        let input = Transcript::parse("codex", &bytes, LoadOptions::default()).unwrap();
        let plan = plan(input.context(), mode, Tokenizer::Chars4, &Codex).unwrap();
        assert!(plan.noop.is_none());
        let compacted = compaction(&input, &plan, SUMMARY, Tokenizer::Chars4);
        let out = write(&input, &plan);
        assert_eq!(out, write(&input, &plan), "not deterministic");
        let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
        assert_eq!(output.format, Some(FormatId::Codex));
        let count = |t: &Transcript| t.records.iter().filter(|r| r.compaction).count();
        assert_eq!(count(&output), count(&input) + 1);

        // Every line of the input unchanged, then the marker, the event, and the tail's
        // response items again.
        assert!(out.starts_with(&bytes));
        let new: Vec<&[u8]> = out[bytes.len()..]
            .strip_suffix(b"\n")
            .unwrap()
            .split(|&b| b == b'\n')
            .collect();
        let replayed: Vec<&[u8]> = compacted
            .tail
            .iter()
            .map(|&i| input.records[i].raw)
            .filter(|raw| top_level_str(raw, "type").as_deref() == Some("response_item"))
            .collect();
        assert_eq!(new[2..], replayed[..]);
        let (marker, event) = (new[0], new[1]);

        // Both have the keys of Codex's own lines, in its order. The newest real
        // `compacted` line is a server-side one: its `ordinal` (optional, B.1) and
        // `window_*` fields are not written by local compaction.
        let real = input
            .records
            .iter()
            .rev()
            .filter(|r| r.compaction)
            .map(|r| r.raw)
            .find(|raw| {
                serde_json::from_slice::<Value>(payload(raw)).unwrap()["replacement_history"]
                    .is_array()
            })
            .unwrap();
        let mut real_keys = keys(real);
        real_keys.retain(|key| key != "ordinal");
        assert_eq!(keys(marker), real_keys);
        assert_eq!(keys(payload(marker)), ["message", "replacement_history"]);
        let real_event = input
            .records
            .iter()
            .map(|r| r.raw)
            .find(|raw| {
                top_level_value(raw, "payload")
                    .is_some_and(|span| &raw[span] == br#"{"type":"context_compacted"}"#)
            })
            .unwrap();
        assert_eq!(keys(event), keys(real_event));
        assert_eq!(payload(event), payload(real_event));
        let last_timestamp = input
            .records
            .iter()
            .rev()
            .find_map(|r| top_level_str(r.raw, "timestamp"));
        assert_eq!(top_level_str(marker, "timestamp"), last_timestamp);

        // The message is Codex's summary text, and the history ends with it.
        let value: Value = serde_json::from_slice(marker).unwrap();
        let message = value["payload"]["message"].as_str().unwrap();
        assert_eq!(message, format!("{SUMMARY_PREFIX}\n{SUMMARY}"));
        assert!(message.starts_with(MARKER));
        let history = value["payload"]["replacement_history"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(history.last(), Some(&user_item(message)));

        // Read back, the live context is the marker, the event and the replayed tail, and
        // the model reads the summary once.
        let context: Vec<&[u8]> = output.context().iter().map(|r| r.raw).collect();
        assert_eq!(context, new);
        let read_back =
            crate::transcript::classify::text_of(output.context()[0].message().unwrap());
        assert_eq!(read_back.matches(SUMMARY.trim_end()).count(), 1);
        (history, compacted.kept_user_texts)
    }

    #[test]
    fn appends_a_native_compaction_and_replays_the_tail() {
        let (history, kept) = check_corpus(Mode::Tail { preserve: 2 });
        assert!(kept.is_empty());
        // Every item but the summary is one of the user's own recent messages.
        for item in &history[..history.len() - 1] {
            assert_eq!(item["role"], "user");
        }
    }

    #[test]
    fn user_mode_keeps_user_messages_before_the_summary() {
        let (history, kept) = check_corpus(Mode::User {
            keep_user_tokens: 200,
            user_head_tokens: 50,
        });
        assert!(!kept.is_empty());
        assert_eq!(history.len(), kept.len() + 1);
        for (item, text) in history.iter().zip(&kept) {
            assert_eq!(item, &user_item(text));
        }
    }

    #[test]
    fn the_history_keeps_the_users_recent_messages_like_codex() {
        let line = |kind: &str, payload: &str| {
            format!(
                r#"{{"timestamp":"2025-11-22T20:00:00.000Z","type":"{kind}","payload":{payload}}}"#
            )
        };
        let user = |text: &str| {
            line(
                "response_item",
                &format!(
                    r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#
                ),
            )
        };
        let reply = |text: &str| {
            line(
                "response_item",
                &format!(
                    r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#
                ),
            )
        };
        let lines = [
            line(
                "session_meta",
                r#"{"id":"s","cwd":"/a","originator":"codex_cli_rs"}"#,
            ),
            line(
                "response_item",
                r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"perms"}]}"#,
            ),
            user("<environment_context>\\n<cwd>/a</cwd>\\n</environment_context>"),
            user("first ask"),
            reply("done"),
            line(
                "event_msg",
                r#"{"type":"token_count","info":{"last_token_usage":{"total_tokens":9000}}}"#,
            ),
            user("second ask"),
            reply("ok"),
            user("third ask"),
            reply("fine"),
        ];
        let bytes = lines.join("\n") + "\n";
        let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let plan = plan(
            input.context(),
            Mode::Tail { preserve: 2 },
            Tokenizer::Chars4,
            &Codex,
        )
        .unwrap();
        assert_eq!(plan.tail, 8..10);
        let out = String::from_utf8(write(&input, &plan)).unwrap();
        let out_lines: Vec<&str> = out.lines().collect();
        assert_eq!(out_lines[..lines.len()], lines[..]);
        let marker: Value = serde_json::from_str(out_lines[lines.len()]).unwrap();
        let history = marker["payload"]["replacement_history"].as_array().unwrap();
        // Not the developer message or the environment, which Codex sends anew; not the
        // tail's own request, which follows the marker.
        assert_eq!(
            history[..2],
            [user_item("first ask"), user_item("second ask")]
        );
        assert_eq!(history.len(), 3);
        assert_eq!(&out_lines[lines.len() + 2..], &lines[8..]);
        // The token count before the marker no longer describes the context.
        let output = Transcript::parse("out", out.as_bytes(), LoadOptions::default()).unwrap();
        let size = crate::compaction::context_size(&output, Tokenizer::Chars4);
        assert!(size < 9000, "{size}");
    }

    /// A bare rollout has no compaction marker: it becomes a fresh rollout whose first items
    /// are the new history.
    #[test]
    fn legacy_rollouts_start_over_from_the_new_history() {
        let lines = [
            r#"{"id":"s","timestamp":"2025-08-01T10:00:00.000Z","instructions":null}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>be brief</user_instructions>"}]}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"first ask"}]}"#,
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"second ask"}]}"#,
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}"#,
        ];
        let bytes = lines.join("\n") + "\n";
        let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        assert_eq!(input.format, Some(FormatId::Codex));
        let plan = plan(
            input.context(),
            Mode::Tail { preserve: 2 },
            Tokenizer::Chars4,
            &Codex,
        )
        .unwrap();
        assert_eq!(plan.tail, 6..8);
        let out = write(&input, &plan);
        let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
        assert_eq!(output.format, Some(FormatId::Codex));
        let out = String::from_utf8(out).unwrap();
        let text = serde_json::to_string(&format!("{SUMMARY_PREFIX}\n{SUMMARY}")).unwrap();
        let summary = format!(
            r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{text}}}]}}"#
        );
        // The user's own request is kept beside the summary; the injected instructions are
        // not (Codex sends them anew).
        let expected = [
            lines[0], lines[1], lines[5], lines[3], &summary, lines[6], lines[7],
        ];
        assert_eq!(out, expected.join("\n") + "\n");
    }
}
