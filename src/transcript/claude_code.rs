//! Claude Code session logs (`~/.claude/projects/<project>/<sessionId>.jsonl`).
//!
//! Every line is an event object with a top-level `type`. Lines of type `user` and `assistant`
//! are messages: their `message` is an Anthropic Messages API message (the role comes from the
//! line's `type`, the content is read like [`super::anthropic`]'s). Everything else (`system`,
//! `summary`, `file-history-snapshot`, `queue-operation`, `progress`, `attachment`,
//! `permission-mode`, `last-prompt`, types added after this was written …) is bookkeeping named
//! by its type, and `system` lines as `system/<subtype>`.
//!
//! How the dialect's peculiarities are treated:
//!
//! - **Sidechains.** Claude Code 1.0.x writes a sub-agent's conversation into the parent's file
//!   with `"isSidechain": true`. Those lines become messages with [`Message::sidechain`] set:
//!   they count as transcript content, but never as the main agent's context.
//! - **Split assistant lines.** One API response is written as several `assistant` lines, one
//!   content block each, all sharing `message.id` (and `requestId`) and each repeating the
//!   response's `usage`. Every line stays its own record, so each can be written back unchanged;
//!   the repeated usage carries the same [`Usage::response_key`] (`<message.id>/<requestId>`) and
//!   is deduplicated downstream. Sidechain lines keep their usage too; consumers skip them.
//! - **Context size.** `usage` is input + cache creation + cache read + output tokens: what the
//!   context window held once the response was written. Harness-made assistant lines (model
//!   `<synthetic>`, e.g. "No response requested.") carry an all-zero `usage` that the provider
//!   never reported, so they get no usage rather than a context size of zero.
//! - **Compaction.** A `system` line with subtype `compact_boundary` marks Claude Code's own
//!   compaction: [`Record::compaction`] is set, since nothing before it is in the context any
//!   more. `microcompact_boundary` is not a compaction here: it clears old tool results from
//!   the API request only, and the file keeps their content.
//! - **Compact summaries.** The `isCompactSummary` user line right after a boundary is an
//!   ordinary user message: it is what the model is sent in place of the earlier conversation.
//!   Assistant lines flagged `isApiErrorMessage` are likewise ordinary assistant messages.
//!
//! Speed: lines can be megabytes (a `toolUseResult` may hold whole files), so only the fields
//! used here are deserialised; serde skips the rest without allocating. `message` is first taken
//! as raw JSON and only read for message lines, which keeps any bookkeeping line readable however
//! its `message` (if it has one) is shaped.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::blocks::{push_anthropic_content, AnthropicBlock, LenientU64, StrOrSeq};
use super::{str_field, Entry, Format, Message, Record, Role, Usage};

/// The Claude Code session log format.
pub struct ClaudeCode;

/// The envelope fields this reader uses. Scalars are kept raw so that an unexpected JSON type
/// in any of them reads as "absent" instead of failing the line.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    subtype: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default)]
    is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

/// The parts of an API message a message line needs; `role`, `stop_reason` … are skipped.
#[derive(Deserialize)]
struct ApiMessage<'a> {
    #[serde(borrow, default)]
    content: StrOrSeq<'a, AnthropicBlock<'a>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: Option<&'a RawValue>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// The token counts of an API response's `usage`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiUsage {
    input_tokens: LenientU64,
    cache_creation_input_tokens: LenientU64,
    cache_read_input_tokens: LenientU64,
    output_tokens: LenientU64,
}

impl Format for ClaudeCode {
    fn detect(&self, head: &[Value]) -> bool {
        // A `payload` envelope is Codex's, whatever else the line has.
        if head.iter().any(|line| line.get("payload").is_some()) {
            return false;
        }
        head.iter().any(|line| match str_field(line, "type") {
            // `parentUuid` is present (null for roots) on every conversational line, which
            // tells these apart from the headless stream-json output (snake_case `session_id`,
            // no uuid chain).
            Some("user" | "assistant" | "system" | "progress" | "attachment") => {
                line.get("parentUuid").is_some() && line.get("sessionId").is_some()
            }
            Some("summary") => line.get("leafUuid").is_some(),
            Some("file-history-snapshot") => line.get("messageId").is_some(),
            _ => false,
        })
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let event: Line<'a> = serde_json::from_str(text)?;
        let Some(kind) = raw_str(event.kind) else {
            bail!("line has no \"type\"");
        };
        let role = match kind.as_ref() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => {
                let name = match raw_str(event.subtype) {
                    Some(subtype) => Cow::Owned(format!("system/{subtype}")),
                    None => kind,
                };
                let compaction = name == "system/compact_boundary";
                let mut record = Record::new(line, text.as_bytes(), Entry::Bookkeeping(name));
                record.compaction = compaction;
                return Ok(record);
            }
            _ => return Ok(Record::new(line, text.as_bytes(), Entry::Bookkeeping(kind))),
        };

        let Some(raw_message) = event.message.filter(|raw| raw.get().starts_with('{')) else {
            bail!("{} line has no \"message\" object", role.as_str());
        };
        let message: ApiMessage<'a> = serde_json::from_str(raw_message.get())?;
        let usage = match role {
            Role::Assistant => response_usage(&message, raw_str(event.request_id)),
            _ => None,
        };
        let mut parts = Vec::new();
        push_anthropic_content(message.content, &mut parts);
        let mut record = Record::new(
            line,
            text.as_bytes(),
            Entry::Message(Message {
                sidechain: event.is_sidechain.is_some_and(|raw| raw.get() == "true"),
                ..Message::new(role, parts)
            }),
        );
        record.usage = usage;
        Ok(record)
    }
}

/// The context size an assistant line's `usage` reports, keyed by the API response it repeats.
fn response_usage(message: &ApiMessage<'_>, request_id: Option<Cow<'_, str>>) -> Option<Usage> {
    if raw_str(message.model).as_deref() == Some("<synthetic>") {
        return None;
    }
    let usage: ApiUsage = serde_json::from_str(message.usage?.get()).ok()?;
    let counts = [
        usage.input_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
        usage.output_tokens,
    ];
    // A `usage` without a single readable count reports nothing (and is not a size of zero).
    if counts.iter().all(|count| count.0.is_none()) {
        return None;
    }
    let context_tokens = counts
        .iter()
        .fold(0u64, |sum, count| sum.saturating_add(count.or_zero()));
    let response_key = raw_str(message.id).map(|id| match request_id {
        Some(request) => format!("{id}/{request}"),
        None => id.into_owned(),
    });
    Some(Usage {
        context_tokens,
        response_key,
    })
}

/// The string a raw JSON value holds, or `None` when it is not a string. Borrows unless the
/// string has escapes.
fn raw_str(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    let json = raw?.get();
    if !json.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(json) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => serde_json::from_str::<String>(json).ok().map(Cow::Owned),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::transcript::anthropic::Anthropic;
    use crate::transcript::model::testing;
    use crate::transcript::{MediaKind, Part, DETECT_LINES};

    fn read(text: &str) -> Record<'_> {
        ClaudeCode.read(7, text).unwrap()
    }

    fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
        &record.message().unwrap().parts
    }

    fn head(lines: &[&str]) -> Vec<Value> {
        lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn reads_user_string_content() {
        let text = r#"{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"fix the bug"},"uuid":"u1"}"#;
        let record = read(text);
        assert_eq!(record.line, 7);
        assert_eq!(record.raw, text.as_bytes());
        let message = record.message().unwrap();
        assert_eq!(message.role, Role::User);
        assert!(!message.sidechain);
        assert_eq!(message.parts, vec![Part::Text("fix the bug".into())]);
        assert!(record.usage.is_none() && !record.compaction);
    }

    #[test]
    fn reads_assistant_blocks_and_usage() {
        let record = read(
            r#"{"parentUuid":"u1","message":{"model":"claude-opus-4-5","id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"look first","signature":"c2ln"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a","limit":25}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"cache_creation":{"ephemeral_5m_input_tokens":2000},"output_tokens":400,"service_tier":"standard"}},"requestId":"req_1","type":"assistant","uuid":"u2","sessionId":"s"}"#,
        );
        assert_eq!(record.message().unwrap().role, Role::Assistant);
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("look first".into()),
                Part::Text("Reading.".into()),
                Part::ToolCall {
                    id: Some("toolu_1".into()),
                    name: "Read".into(),
                    arguments: r#"{"file_path":"/a","limit":25}"#.into()
                },
            ]
        );
        assert_eq!(
            record.usage,
            Some(Usage {
                context_tokens: 32_410,
                response_key: Some("msg_1/req_1".into())
            })
        );
    }

    #[test]
    fn usage_edge_cases() {
        let usage = |text: &str| read(text).usage;
        // No requestId: the message id alone is the key.
        assert_eq!(
            usage(
                r#"{"type":"assistant","message":{"id":"msg_2","content":[],"usage":{"input_tokens":5,"output_tokens":"many"}}}"#
            ),
            Some(Usage {
                context_tokens: 5,
                response_key: Some("msg_2".into())
            })
        );
        // No usage, unreadable usage, and a harness-made message: no context size.
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[]}}"#),
            None
        );
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[],"usage":"lots"}}"#),
            None
        );
        assert_eq!(
            usage(r#"{"type":"assistant","message":{"id":"m","content":[],"usage":{}}}"#),
            None
        );
        assert_eq!(
            usage(
                r#"{"type":"assistant","requestId":null,"isApiErrorMessage":false,"message":{"id":"m","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
            ),
            None
        );
        // Usage on user lines is not the model's report.
        assert_eq!(
            usage(r#"{"type":"user","message":{"content":"x","usage":{"input_tokens":5}}}"#),
            None
        );
    }

    #[test]
    fn reads_tool_results() {
        let record = read(
            r#"{"parentUuid":"u2","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"   1\tfn main() {}"},{"tool_use_id":"toolu_2","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","data":"AA"}}]}]},"toolUseResult":{"type":"text","file":{"filePath":"/a","content":"fn main() {}"}},"sessionId":"s"}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::ToolResult {
                    call_id: Some("toolu_1".into()),
                    text: "   1\tfn main() {}".into()
                },
                Part::ToolResult {
                    call_id: Some("toolu_2".into()),
                    text: "a".into()
                },
                Part::Media(MediaKind::Image),
            ]
        );
        assert!(matches!(
            parts(&record)[0],
            Part::ToolResult {
                call_id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
        assert_eq!(record.message().unwrap().call_id, None);
    }

    #[test]
    fn sidechain_messages_keep_their_usage() {
        let record = read(
            r#"{"parentUuid":"p","isSidechain":true,"type":"assistant","requestId":"req_9","message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"sub-agent"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}}"#,
        );
        assert!(record.message().unwrap().sidechain);
        assert_eq!(record.usage.map(|u| u.context_tokens), Some(10));
        // Anything but `true` is the main chain.
        let other = read(r#"{"isSidechain":"yes","type":"user","message":{"content":"x"}}"#);
        assert!(!other.message().unwrap().sidechain);
    }

    #[test]
    fn compact_summary_and_api_errors_are_messages() {
        let summary = read(
            r#"{"parentUuid":"b","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true}"#,
        );
        assert_eq!(summary.message().unwrap().role, Role::User);
        assert!(!summary.compaction);
        let error = read(
            r#"{"type":"assistant","isApiErrorMessage":true,"message":{"id":"m","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 500"}]}}"#,
        );
        assert_eq!(error.message().unwrap().role, Role::Assistant);
    }

    #[test]
    fn system_lines_and_compaction() {
        let boundary = read(
            r#"{"parentUuid":null,"logicalParentUuid":"x","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155250},"sessionId":"s"}"#,
        );
        assert_eq!(
            boundary.entry,
            Entry::Bookkeeping("system/compact_boundary".into())
        );
        assert!(boundary.compaction && boundary.usage.is_none());
        let micro = read(
            r#"{"type":"system","subtype":"microcompact_boundary","content":"Context microcompacted","microcompactMetadata":{"preTokens":13265}}"#,
        );
        assert_eq!(
            micro.entry,
            Entry::Bookkeeping("system/microcompact_boundary".into())
        );
        assert!(!micro.compaction);
        let bare = read(r#"{"type":"system","content":"x"}"#);
        assert_eq!(bare.entry, Entry::Bookkeeping("system".into()));
    }

    #[test]
    fn other_types_are_bookkeeping() {
        for (text, name) in [
            (
                r#"{"type":"summary","summary":"Title","leafUuid":"l"}"#,
                "summary",
            ),
            (
                r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{}}}"#,
                "file-history-snapshot",
            ),
            (
                r#"{"type":"queue-operation","operation":"enqueue","content":"later","sessionId":"s"}"#,
                "queue-operation",
            ),
            (
                r#"{"type":"progress","data":{"type":"agent_progress","message":{"type":"user","message":{"content":5}}},"parentUuid":"p","sessionId":"s"}"#,
                "progress",
            ),
            (
                r#"{"type":"attachment","attachment":{"type":"file"},"parentUuid":"p","sessionId":"s"}"#,
                "attachment",
            ),
            (
                r#"{"type":"permission-mode","permissionMode":"plan"}"#,
                "permission-mode",
            ),
            (r#"{"type":"last-prompt","lastPrompt":"x"}"#, "last-prompt"),
            // An unknown type, with a `message` a message line could not hold.
            (
                r#"{"type":"hologram","message":{"content":42}}"#,
                "hologram",
            ),
        ] {
            let record = read(text);
            assert_eq!(record.entry, Entry::Bookkeeping(name.into()), "{text}");
            assert!(record.usage.is_none() && !record.compaction);
        }
    }

    #[test]
    fn errors() {
        let error = |text: &str| ClaudeCode.read(1, text).unwrap_err().to_string();
        assert_eq!(
            error(r#"{"message":{"content":"x"}}"#),
            "line has no \"type\""
        );
        assert_eq!(error(r#"{"type":3}"#), "line has no \"type\"");
        assert!(error(r#"{"type":"user"}"#).contains("no \"message\" object"));
        assert!(error(r#"{"type":"assistant","message":null}"#).contains("\"message\""));
        assert!(error(r#"{"type":"user","message":"hello"}"#).contains("\"message\""));
        let bytes = br#"{"type":"user","message":{"content":["\u001b]0;secret"]}}"#;
        let line = crate::input::lines(bytes, 1).next().unwrap();
        let quoted =
            match crate::transcript::read::read_line(super::super::FormatId::ClaudeCode, &line) {
                Err(crate::transcript::read::BadLine::Invalid(e)) => e.to_string(),
                other => panic!("{other:?}"),
            };
        assert!(!quoted.contains("secret"), "{quoted}");
        assert!(ClaudeCode.read(1, "[]").is_err());
        assert!(ClaudeCode.read(1, "{\"type\":").is_err());
    }

    #[test]
    fn detection() {
        assert!(ClaudeCode.detect(&head(&[
            r#"{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"x"}}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"summary","summary":"T","leafUuid":"l"}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#
        ])));
        assert!(ClaudeCode.detect(&head(&[
            r#"{"type":"queue-operation","sessionId":"s"}"#,
            r#"{"parentUuid":"p","sessionId":"s","type":"progress","data":{}}"#,
        ])));
        // Headless stream-json: no parentUuid, snake_case session_id.
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"system","subtype":"init","session_id":"s"}"#,
            r#"{"type":"assistant","message":{"content":[]},"session_id":"s"}"#,
        ])));
        // Codex envelopes, bare chat messages, pi sessions.
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"summary","leafUuid":"l"}"#,
            r#"{"timestamp":"t","type":"session_meta","payload":{}}"#,
        ])));
        assert!(!ClaudeCode.detect(&head(&[r#"{"role":"user","content":"x"}"#])));
        assert!(!ClaudeCode.detect(&head(&[
            r#"{"type":"session","id":"i","cwd":"/"}"#,
            r#"{"type":"message","parentId":null,"message":{"role":"user"}}"#,
        ])));
        assert!(!ClaudeCode.detect(&head(&[r#"{"type":"summary"}"#, "3"])));
    }

    /// Every non-blank line of every `.jsonl` file in a corpus folder, with its number.
    fn corpus(folder: &str) -> Vec<(String, Vec<(usize, String)>)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/corpus")
            .join(folder);
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let text = fs::read_to_string(&path).unwrap();
                let lines = text
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| !line.trim().is_empty())
                    .map(|(index, line)| (index + 1, line.to_owned()))
                    .collect();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, lines)
            })
            .collect()
    }

    fn corpus_head(lines: &[(usize, String)]) -> Vec<Value> {
        lines
            .iter()
            .take(DETECT_LINES)
            .map(|(_, line)| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn reads_the_claude_code_corpus() {
        // (messages, compaction markers, sidechain messages, usage records, tool results,
        // orphaned tool results) per file, counted with jq:
        //   jq -c 'select(.type=="user" or .type=="assistant")' FILE | wc -l
        //   jq -c 'select(.type=="system" and .subtype=="compact_boundary")' FILE | wc -l
        //   jq -c 'select((.type=="user" or .type=="assistant") and .isSidechain==true)' FILE | wc -l
        //   jq -c 'select(.type=="assistant" and .message.usage != null
        //          and .message.model != "<synthetic>")' FILE | wc -l
        //   tool results and orphans (a tool_use_id no earlier tool_use id has), in one go:
        //   jq -n 'reduce (inputs | select(.type=="user" or .type=="assistant")
        //          | .message.content | arrays | .[]) as $b ({seen: {}, results: 0, orphans: 0};
        //          if ($b.type | tostring | test("tool_use$")) then .seen[$b.id] = true
        //          elif ($b.type | tostring | test("tool_result$")) then .results += 1
        //            | (if .seen[$b.tool_use_id] then . else .orphans += 1 end)
        //          else . end) | [.results, .orphans]' FILE
        let expected = [
            ("claude-code-viewer-5c0375b4.jsonl", (53, 0, 22, 28, 21, 0)),
            (
                "claude-code-viewer-fe5e1c67.jsonl",
                (437, 0, 405, 262, 167, 0),
            ),
            ("entireio-cli-a6e4c2a0fbd1.jsonl", (48, 1, 0, 31, 10, 0)),
            ("kimi-cli-5b2c427a42e0.jsonl", (165, 0, 0, 103, 55, 0)),
        ];
        let files = corpus("claude-code");
        assert_eq!(files.len(), expected.len());
        for ((name, lines), (expected_name, counts)) in files.iter().zip(expected) {
            assert_eq!(name, expected_name);
            let head = corpus_head(lines);
            assert!(ClaudeCode.detect(&head), "{name}: not detected");
            assert!(!Anthropic.detect(&head), "{name}: taken for anthropic");
            let (mut messages, mut compactions, mut sidechains, mut usages) = (0, 0, 0, 0);
            let mut records = Vec::new();
            for (number, line) in lines {
                let record = ClaudeCode
                    .read(*number, line)
                    .unwrap_or_else(|err| panic!("{name}:{number}: {err}"));
                assert_eq!(record.line, *number);
                if let Some(message) = record.message() {
                    messages += 1;
                    sidechains += usize::from(message.sidechain);
                }
                compactions += usize::from(record.compaction);
                usages += usize::from(record.usage.is_some());
                records.push(record);
            }
            let links = testing::links(records.iter().filter_map(Record::message));
            assert_eq!(
                (
                    messages,
                    compactions,
                    sidechains,
                    usages,
                    links.results,
                    links.orphans
                ),
                counts,
                "{name}"
            );
        }
    }

    #[test]
    fn leaves_the_openai_corpus_alone() {
        for (name, lines) in corpus("openai-chat") {
            assert!(!ClaudeCode.detect(&corpus_head(&lines)), "{name}");
        }
    }
}
