//! Reading Claude Code lines: every line shape, the walk against serde, the corpus.

use std::fs;
use std::path::Path;

use super::*;
use crate::transcript::anthropic::Anthropic;
use crate::transcript::model::testing;
use crate::transcript::model::testing::{corpus_head, head};
use crate::transcript::scan;
use crate::transcript::{MediaKind, Part};

fn read(text: &str) -> Record<'_> {
    ClaudeCode.read(7, text).unwrap()
}

fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
    &record.message().unwrap().parts
}

/// A message read by walking it alone, or `None` where the walk gives up.
fn walked(raw: &str) -> Option<ApiMessage<'_>> {
    let scanner = scan::Scanner::new(raw.as_bytes());
    ApiMessage::walk(scan::Walk::new(&scanner, raw, 0), raw.len())
}

/// The parts and usage serde reads from a message, to hold the walk against.
fn by_serde(raw: &str) -> (Vec<Part<'_>>, Option<&str>, Option<&str>, Option<&str>) {
    let message: ApiMessage = serde_json::from_str(raw).unwrap();
    let parts = anthropic_parts(message.content);
    (parts, message.id, message.model, message.usage)
}

#[test]
fn walking_a_message_reads_what_serde_reads_on_every_real_line() {
    let dirs = ["fixtures/corpus/claude-code", "fixtures/agents"];
    let (mut walked, mut messages) = (0, 0);
    for dir in dirs {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("claude") && !dir.ends_with("claude-code") {
                continue;
            }
            let text = fs::read_to_string(&path).unwrap();
            for (n, line) in text.lines().enumerate() {
                let fields = Fields::of(line).unwrap();
                let Some(raw) = fields.message.filter(|raw| raw.starts_with('{')) else {
                    continue;
                };
                messages += 1;
                let Some((start, scanner)) = &fields.message_walk else {
                    continue;
                };
                let walk = scan::Walk::new(scanner, line, *start);
                let Some(message) = ApiMessage::walk(walk, start + raw.len()) else {
                    continue;
                };
                walked += 1;
                let serde_counts = message
                    .usage
                    .map(|raw| serde_json::from_str::<ApiUsage>(raw).unwrap().counts());
                assert_eq!(message.usage_counts, serde_counts, "{name}:{}", n + 1);
                let parts = anthropic_parts(message.content);
                let walk = (parts, message.id, message.model, message.usage);
                assert_eq!(walk, by_serde(raw), "{name}:{}", n + 1);
            }
        }
    }
    assert!(
        messages > 500 && walked == messages,
        "{walked} of {messages}"
    );
}

#[test]
fn a_message_the_walk_gives_up_on_is_read_by_serde() {
    for raw in [
        r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
        r#"{"content":[{"type":"text","te\u0078t":"a"}]}"#,
        r#"{"content":[{"type":"text","text":7}]}"#,
        r#"{"content":["bare"]}"#,
        r#"{"content":"bad \q escape"}"#,
    ] {
        assert!(walked(raw).is_none(), "{raw}");
        let serde = serde_json::from_str::<ApiMessage>(raw).map(|_| ());
        let ours = ApiMessage::of(raw, raw, None).map(|_| ());
        assert_eq!(ours.is_ok(), serde.is_ok(), "{raw}");
    }
    let raw = r#"{"content":[{"type":"text","te\u0078t":"a"}]}"#;
    let escaped_key = ApiMessage::of(raw, raw, None);
    let parts = anthropic_parts(escaped_key.unwrap().content);
    assert_eq!(parts, [Part::Text("a".into())]);
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
            response_key: Some(response_key("msg_1", Some("req_1")))
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
            response_key: Some(node_id("msg_2"))
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
fn a_microcompaction_shrinks_the_figure_by_what_it_cleared_and_one_that_cleared_nothing_leaves_it()
{
    let event = |metadata: &str| {
        read(&format!(
            r#"{{"type":"system","subtype":"microcompact_boundary","content":"Context microcompacted","microcompactMetadata":{metadata}}}"#
        ))
        .link
        .event
    };
    // As Claude Code 2.1 writes them (the corpus has both).
    assert_eq!(
        event(
            r#"{"trigger":"auto","preTokens":13265,"tokensSaved":2000,"compactedToolIds":[],"clearedAttachmentUUIDs":[]}"#
        ),
        Event::None
    );
    assert_eq!(
        event(
            r#"{"trigger":"auto","preTokens":60364,"tokensSaved":21294,"compactedToolIds":["toolu_1","toolu_2"],"clearedAttachmentUUIDs":[]}"#
        ),
        Event::ShrinkUsage(21294)
    );
    assert_eq!(
        event(r#"{"clearedAttachmentUUIDs":["a"]}"#),
        Event::VoidUsage(None)
    );
    // condense prune's marker: the size after it.
    assert_eq!(
        event(r#"{"trigger":"manual","preTokens":90,"postTokens":40,"compactedToolIds":["t"]}"#),
        Event::VoidUsage(Some(40))
    );
    // Unreadable metadata: the figures before it are void, as before this rule.
    assert_eq!(event(r#"{"compactedToolIds":7}"#), Event::VoidUsage(None));
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
            r#"{"type":"queue-operation","operation":"dequeue","sessionId":"s"}"#,
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
        match crate::transcript::read::read_line(crate::transcript::FormatId::ClaudeCode, &line) {
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

#[test]
fn reads_the_claude_code_corpus() {
    // (messages, compaction markers, sidechain messages, usage records, tool results,
    // orphaned tool results) per file, counted with jq (messages: the user and assistant lines,
    // and the queue's enqueues of the user's own words):
    //   jq -c 'select(.type=="user" or .type=="assistant")' FILE | wc -l
    //   jq -c 'select(.type=="queue-operation" and .operation=="enqueue")' FILE | wc -l
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
        ("entireio-cli-7f78a542-queued.jsonl", (14, 0, 0, 9, 4, 0)),
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

/// Claude Code's Edit result keeps the whole file before the edit; the same file's Read
/// result, the Bash result and the Edit call itself keep none.
#[test]
fn an_edit_result_keeps_the_file_before_the_edit() {
    let bytes = testing::corpus_bytes("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let before = ClaudeCode.file_before_edit(lines[17]).unwrap();
    assert!(before.starts_with("// hooks_claudecode_handlers.go contains"));
    assert!(before.contains("\tif err := outputHookResponse(false, \"You have another"));
    // The second edit's file already holds the first edit's text.
    assert!(before.contains("\t\trepo, err := strategy.OpenRepository()\n"));
    for line in [11, 13, 20] {
        assert_eq!(
            ClaudeCode.file_before_edit(lines[line]),
            None,
            "line {}",
            line + 1
        );
    }
    let record = ClaudeCode
        .read(18, std::str::from_utf8(lines[17]).unwrap())
        .unwrap();
    assert_eq!(crate::transcript::file_before_edit(&record), Some(before));
}

/// What one message is in a Claude Code session ([`Format::continues_message`]).
mod messages {
    use super::ClaudeCode;
    use crate::transcript::messages::testing::check;

    fn line(kind: &str, uuid: usize, extra: &str, message: &str) -> String {
        let parent = match uuid {
            0 => "null".to_owned(),
            n => format!("\"u{}\"", n - 1),
        };
        format!(
            r#"{{"type":"{kind}","uuid":"u{uuid}","parentUuid":{parent},"sessionId":"s"{extra},"message":{message}}}"#
        )
    }

    fn user(uuid: usize, text: &str) -> String {
        line(
            "user",
            uuid,
            "",
            &format!(r#"{{"role":"user","content":"{text}"}}"#),
        )
    }

    fn result(uuid: usize, call: &str) -> String {
        let content =
            format!(r#"[{{"type":"tool_result","tool_use_id":"{call}","content":"ok"}}]"#);
        line(
            "user",
            uuid,
            "",
            &format!(r#"{{"role":"user","content":{content}}}"#),
        )
    }

    /// One content block of the response `id`.
    fn fragment(uuid: usize, id: &str, block: &str) -> String {
        let message = format!(r#"{{"role":"assistant","id":"{id}","content":[{block}]}}"#);
        line("assistant", uuid, r#","requestId":"r""#, &message)
    }

    fn text(text: &str) -> String {
        format!(r#"{{"type":"text","text":"{text}"}}"#)
    }

    fn call(id: &str, name: &str) -> String {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"{name}","input":{{}}}}"#)
    }

    #[test]
    fn the_lines_of_one_response_are_one_message_whatever_their_number() {
        for fragments in [1, 2, 3, 5] {
            let mut lines = vec![user(0, "old question"), fragment(1, "m0", &text("old"))];
            lines.push(user(2, "the question"));
            let blocks = [
                r#"{"type":"thinking","thinking":"hm","signature":"s"}"#.to_owned(),
                text("one"),
                text("two"),
                text("three"),
                text("four"),
            ];
            for (i, block) in blocks.iter().take(fragments).enumerate() {
                lines.push(fragment(3 + i, "m1", block));
            }
            let end = 3 + fragments;
            check(&ClaudeCode, &lines, &[0..1, 1..2, 2..3, 3..end]);
        }
    }

    #[test]
    fn parallel_calls_and_their_results_are_one_message_with_their_response() {
        // Results written after both calls, and interleaved with them.
        let lines = [
            user(0, "read both"),
            fragment(1, "m1", &text("reading")),
            fragment(2, "m1", &call("t1", "Read")),
            fragment(3, "m1", &call("t2", "Read")),
            result(4, "t1"),
            result(5, "t2"),
            fragment(6, "m2", &call("t3", "Read")),
            result(7, "t3"),
            fragment(8, "m2", &call("t4", "Read")),
            result(9, "t4"),
            fragment(10, "m3", &text("both read")),
        ];
        check(&ClaudeCode, &lines, &[0..1, 1..6, 6..10, 10..11]);
    }

    #[test]
    fn a_sub_agent_call_travels_with_its_report() {
        let lines = [
            user(0, "explore the code"),
            fragment(1, "m1", &call("t1", "Task")),
            result(2, "t1"),
            fragment(3, "m2", &text("the sub-agent found it")),
        ];
        check(&ClaudeCode, &lines, &[0..1, 1..3, 3..4]);
    }

    #[test]
    fn user_lines_the_model_gets_as_one_message_are_one() {
        // A command's caveat and echo before the prompt; a reminder after a tool result.
        let lines = [
            user(0, "Caveat: The messages below were generated by the user while running local commands"),
            user(1, "<command-name>/model</command-name>"),
            user(2, "now fix it"),
            fragment(3, "m1", &call("t1", "Bash")),
            result(4, "t1"),
            user(5, "<system-reminder>todo list empty</system-reminder>"),
            user(6, "and the tests"),
            fragment(7, "m2", &text("done")),
        ];
        check(&ClaudeCode, &lines, &[0..3, 3..6, 6..7, 7..8]);
    }
}
