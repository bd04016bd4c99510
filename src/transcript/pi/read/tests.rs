//! Reading pi entries: every entry shape, the walk against serde, the corpus.

use super::*;
use crate::transcript::model::testing;
use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};
use crate::transcript::model::MediaKind;

#[test]
fn walking_an_entry_reads_what_serde_reads_on_every_real_line() {
    let files = [
        "fixtures/corpus/pi/pi-mono-large-session.jsonl",
        "fixtures/agents/pi-branched.jsonl",
        "fixtures/agents/pi-compacted-twice.jsonl",
    ];
    let (mut walked, mut usages) = (0, 0);
    for file in files {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let mut entry = Line::default();
            Line::walk(line, &mut entry).unwrap_or_else(|| panic!("{file}:{}", n + 1));
            if let Some(message) = entry.message.as_ref().filter(|m| m.usage.is_some()) {
                assert!(message.usage_counts.is_some(), "{file}:{}", n + 1);
                usages += 1;
            }
            let mut serde: Line = serde_json::from_str(line).unwrap();
            let walk = record_of(n + 1, line, &mut entry).map_err(|e| e.to_string());
            let serde = record_of(n + 1, line, &mut serde).map_err(|e| e.to_string());
            assert_eq!(walk, serde, "{file}:{}", n + 1);
            walked += 1;
        }
    }
    assert!(walked > 1000, "{walked}");
    assert!(usages > 100, "{usages}");
}

#[test]
fn an_entry_the_walk_gives_up_on_is_read_by_serde() {
    for line in [
        r#"{"type":"message","message":{"role":"user","role":"user","content":"a"}}"#,
        r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":1}]}}"#,
        r#"{"ty\u0070e":"message","message":{"role":"user","content":"a"}}"#,
        r#"{"type":"message","message":{"role":"user","content":"bad \q"}}"#,
        r#"{"type":7}"#,
    ] {
        assert!(Line::walk(line, &mut Line::default()).is_none(), "{line}");
        let serde = serde_json::from_str::<Line>(line)
            .map_err(anyhow::Error::from)
            .and_then(|mut entry| record_of(1, line, &mut entry).map(|_| ()));
        assert_eq!(Pi.read(1, line).is_ok(), serde.is_ok(), "{line}");
    }
}

fn read(text: &str) -> Record<'_> {
    Pi.read(1, text).unwrap()
}

fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
    &record.message().unwrap().parts
}

fn role(record: &Record<'_>) -> Role {
    record.message().unwrap().role
}

fn bookkeeping(record: &Record<'_>) -> String {
    match &record.entry {
        Entry::Bookkeeping(name) => name.to_string(),
        Entry::Message(_) => panic!("a message, not bookkeeping"),
    }
}

#[test]
fn reads_user_messages() {
    let record = read(
        r#"{"type":"message","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"AAA","mimeType":"image/png"}],"timestamp":1}}"#,
    );
    assert_eq!(role(&record), Role::User);
    assert_eq!(
        parts(&record),
        [Part::Text("hi".into()), Part::Media(MediaKind::Image)]
    );
    assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
    let plain = read(r#"{"type":"message","message":{"role":"user","content":"plain"}}"#);
    assert_eq!(parts(&plain), [Part::Text("plain".into())]);
}

#[test]
fn reads_assistant_blocks_and_usage() {
    let record = read(
        r#"{"type":"message","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"text","text":"Reading."},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a.ts"},"partialJson":"{\"pa"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":3,"output":191,"cacheRead":10,"cacheWrite":1684,"cost":{"total":0.01}},"stopReason":"toolUse","timestamp":2}}"#,
    );
    assert_eq!(role(&record), Role::Assistant);
    assert_eq!(
        parts(&record),
        [
            Part::Thinking("hmm".into()),
            Part::Text("Reading.".into()),
            Part::ToolCall {
                id: Some("t1".into()),
                name: "read".into(),
                arguments: r#"{"path":"a.ts"}"#.into()
            },
        ]
    );
    assert_eq!(
        record.usage,
        Some(Usage {
            context_tokens: 1888,
            response_key: None
        })
    );
}

#[test]
fn usage_edge_cases() {
    let usage = |usage: &str| {
        let line = format!(
            r#"{{"type":"message","message":{{"role":"assistant","content":[],"usage":{usage}}}}}"#
        );
        Pi.read(1, &line).unwrap().usage.map(|u| u.context_tokens)
    };
    // totalTokens wins when present.
    assert_eq!(
        usage(r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":50}"#),
        Some(50)
    );
    assert_eq!(
        usage(r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4}"#),
        Some(10)
    );
    // An aborted request's all-zero usage, and unreadable usage, report nothing.
    assert_eq!(
        usage(r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}"#),
        None
    );
    assert_eq!(usage(r#""lots""#), None);
    assert_eq!(usage("null"), None);
    // Only assistant messages carry a context size.
    let user = read(
        r#"{"type":"message","message":{"role":"user","content":"x","usage":{"totalTokens":5}}}"#,
    );
    assert!(user.usage.is_none());
}

#[test]
fn reads_tool_results() {
    let record = read(
        r#"{"type":"message","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"a"},{"type":"image","data":"AAA","mimeType":"image/png"},{"type":"text","text":"b"}],"details":{"diff":"x"},"isError":false}}"#,
    );
    assert_eq!(role(&record), Role::Tool);
    assert_eq!(
        parts(&record),
        [
            Part::ToolResult {
                call_id: None,
                text: "a\nb".into()
            },
            Part::Media(MediaKind::Image)
        ]
    );
    let message = record.message().unwrap();
    assert_eq!(message.call_id, Some(Cow::Borrowed("t1")));
    assert!(matches!(message.call_id, Some(Cow::Borrowed(_))));
    assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["t1"]);
}

#[test]
fn reads_bash_executions() {
    let record = read(
        r#"{"type":"message","message":{"role":"bashExecution","command":"ls","output":"a.txt\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}"#,
    );
    assert_eq!(role(&record), Role::User);
    assert_eq!(
        parts(&record),
        [
            Part::Text("ls".into()),
            Part::ToolResult {
                call_id: None,
                text: "a.txt\n".into()
            }
        ]
    );
    assert_eq!(record.message().unwrap().answered_ids().count(), 0);
    let excluded = read(
        r#"{"type":"message","message":{"role":"bashExecution","command":"ls","output":"x","excludeFromContext":true}}"#,
    );
    assert_eq!(bookkeeping(&excluded), "bashExecution/excluded");
}

#[test]
fn reads_other_message_roles() {
    let custom = read(
        r#"{"type":"message","message":{"role":"custom","customType":"x","content":"note","display":true}}"#,
    );
    assert_eq!(role(&custom), Role::User);
    assert_eq!(parts(&custom), [Part::Text("note".into())]);
    let summary = read(
        r#"{"type":"message","message":{"role":"branchSummary","summary":"went left","fromId":"a"}}"#,
    );
    assert_eq!(parts(&summary), [Part::Text("went left".into())]);
    let future = read(r#"{"type":"message","message":{"role":"critic","content":"x"}}"#);
    assert_eq!(bookkeeping(&future), "message/critic");
}

#[test]
fn compaction_and_summaries() {
    let v1 = read(
        r#"{"type":"compaction","timestamp":"t","summary":"Goal\nShip it","firstKeptEntryIndex":293,"tokensBefore":175004}"#,
    );
    assert!(v1.compaction);
    assert_eq!(role(&v1), Role::User);
    assert_eq!(parts(&v1), [Part::Text("Goal\nShip it".into())]);
    let v3 = read(
        r#"{"type":"compaction","id":"c","parentId":"p","timestamp":"t","summary":"S","firstKeptEntryId":"k","tokensBefore":9,"details":{"files":[]}}"#,
    );
    assert!(v3.compaction);
    let branch = read(
        r#"{"type":"branch_summary","id":"b","parentId":"p","timestamp":"t","fromId":"f","summary":"tried X"}"#,
    );
    assert!(!branch.compaction);
    assert_eq!(parts(&branch), [Part::Text("tried X".into())]);
    let empty = read(r#"{"type":"branch_summary","fromId":"f","summary":""}"#);
    assert_eq!(bookkeeping(&empty), "branch_summary");
}

#[test]
fn custom_messages_reach_the_model_and_custom_entries_do_not() {
    let message = read(
        r#"{"type":"custom_message","id":"c","customType":"ext","content":[{"type":"text","text":"injected"}],"display":false}"#,
    );
    assert_eq!(role(&message), Role::User);
    assert_eq!(parts(&message), [Part::Text("injected".into())]);
    let state = read(
        r#"{"type":"custom","customType":"ext","data":{"message":"not a message","content":7}}"#,
    );
    assert_eq!(bookkeeping(&state), "custom");
}

#[test]
fn bookkeeping_entries() {
    for (line, name) in [
        (
            r#"{"type":"session","id":"s","timestamp":"t","cwd":"/","provider":"anthropic","modelId":"m","thinkingLevel":"off"}"#,
            "session",
        ),
        (
            r#"{"type":"model_change","timestamp":"t","provider":"p","modelId":"m"}"#,
            "model_change",
        ),
        (
            r#"{"type":"thinking_level_change","thinkingLevel":"low"}"#,
            "thinking_level_change",
        ),
        (r#"{"type":"label","targetId":"x","label":"l"}"#, "label"),
        (r#"{"type":"session_info","name":"n"}"#, "session_info"),
        (
            r#"{"type":"brand_new","summary":7,"message":[]}"#,
            "brand_new",
        ),
    ] {
        let record = read(line);
        assert_eq!(bookkeeping(&record), name);
        assert!(record.usage.is_none() && !record.compaction);
    }
}

#[test]
fn fields_before_type_are_read_the_same() {
    let record =
        read(r#"{"message":{"role":"user","content":"late"},"timestamp":"t","type":"message"}"#);
    assert_eq!(parts(&record), [Part::Text("late".into())]);
    let compaction = read(r#"{"summary":"S","type":"compaction"}"#);
    assert!(compaction.compaction);
    assert_eq!(parts(&compaction), [Part::Text("S".into())]);
    let custom = read(r#"{"content":"c","type":"custom_message"}"#);
    assert_eq!(parts(&custom), [Part::Text("c".into())]);
    // A field another entry type shapes differently is skipped once the type is known.
    let state = read(r#"{"content":7,"message":"x","type":"custom"}"#);
    assert_eq!(bookkeeping(&state), "custom");
}

#[test]
fn errors_do_not_quote_the_line() {
    let no_type = Pi.read(1, r#"{"message":{"role":"user"}}"#).unwrap_err();
    assert_eq!(no_type.to_string(), "line has no \"type\"");
    let no_message = Pi.read(1, r#"{"type":"message"}"#).unwrap_err();
    assert_eq!(
        no_message.to_string(),
        "message line has no \"message\" object"
    );
    assert!(Pi
        .read(1, r#"{"type":"message","message":{"content":"x"}}"#)
        .is_err());
    let shape = Pi
        .read(
            1,
            r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":["secret"]}]}}"#,
        )
        .unwrap_err()
        .to_string();
    assert!(!shape.contains("secret"), "{shape}");
    assert!(Pi
        .read(1, r#"{"type":"message","message":"secret"}"#)
        .is_err());
    assert!(Pi.read(1, "{\"type\":").is_err());
    // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
    // recognises on an unterminated last line.
    let cut = Pi
        .read(1, r#"{"type":"message","message":{"role":"us"#)
        .unwrap_err();
    assert!(cut
        .downcast_ref::<serde_json::Error>()
        .is_some_and(serde_json::Error::is_eof));
}

#[test]
fn detection() {
    assert!(Pi.detect(&head(&[
        r#"{"type":"session","id":"s","timestamp":"t","cwd":"/","provider":"anthropic","modelId":"m"}"#
    ])));
    assert!(Pi.detect(&head(&[
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#
    ])));
    assert!(!Pi.detect(&head(&[r#"{"type":"session","id":"s","cwd":"/"}"#])));
    assert!(Pi.detect(&head(&[
        r#"{"type":"session","id":"s","timestamp":"t","cwd":"/"}"#,
        r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"x"}}"#
    ])));
    assert!(!Pi.detect(&head(&[
        r#"{"type":"message","message":{"role":"user","content":"x"}}"#
    ])));
}

#[test]
fn reads_the_pi_corpus() {
    let lines = corpus("pi/pi-mono-large-session.jsonl");
    let head = corpus_head(&lines);
    assert!(Pi.detect(&head));
    let (records, (messages, compactions, usages)) = read_all(&Pi, &lines);
    // Counted with jq:
    //   messages: jq -c 'select(.type=="message")' FILE | wc -l                   → 914
    //   compactions: jq -c 'select(.type=="compaction")' FILE | wc -l             → 0
    //   usages: jq -c 'select(.type=="message" and .message.role=="assistant")
    //     | .message.usage | select((.totalTokens // (.input + .output + .cacheRead
    //     + .cacheWrite)) > 0)' FILE | wc -l                                      → 439
    assert_eq!((messages, compactions, usages), (914, 0, 439));
    // Tool results (toolResult messages and bashExecution outputs), and those whose
    // toolCallId no earlier toolCall id has (a bashExecution answers no call: an orphan):
    //   jq -n 'reduce (inputs | select(.type=="message") | .message) as $m
    //     ({seen: {}, results: 0, orphans: 0};
    //     if $m.role=="assistant" then reduce ($m.content | arrays | .[]
    //       | select(.type=="toolCall")) as $c (.; .seen[$c.id] = true)
    //     elif $m.role=="toolResult" or ($m.role=="bashExecution"
    //       and $m.excludeFromContext != true) then .results += 1
    //       | (if .seen[$m.toolCallId // ""] then . else .orphans += 1 end)
    //     else . end) | [.results, .orphans]' FILE                           → [373, 0]
    let links = testing::links(records.iter().filter_map(Record::message));
    assert_eq!((links.results, links.orphans), (373, 0));
}

/// What one message is in a pi session: each entry is one message of pi's request, and a
/// `toolResult` travels with the call it answers ([`Format::continues_message`]).
mod messages {
    use super::Pi;
    use crate::transcript::messages::testing::check;

    fn entry(n: usize, message: &str) -> String {
        let parent = match n {
            0 => "null".to_owned(),
            n => format!("\"e{}\"", n - 1),
        };
        format!(
            r#"{{"type":"message","id":"e{n}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{message}}}"#
        )
    }

    fn user(n: usize, text: &str) -> String {
        entry(
            n,
            &format!(r#"{{"role":"user","content":"{text}","timestamp":1}}"#),
        )
    }

    /// An assistant response of these content blocks.
    fn response(n: usize, blocks: &[String]) -> String {
        let content = blocks.join(",");
        entry(
            n,
            &format!(r#"{{"role":"assistant","content":[{content}],"timestamp":1}}"#),
        )
    }

    fn text(text: &str) -> String {
        format!(r#"{{"type":"text","text":"{text}"}}"#)
    }

    fn call(id: &str, name: &str) -> String {
        format!(r#"{{"type":"toolCall","id":"{id}","name":"{name}","arguments":{{}}}}"#)
    }

    fn result(n: usize, id: &str) -> String {
        entry(
            n,
            &format!(
                r#"{{"role":"toolResult","toolCallId":"{id}","toolName":"read","content":[{{"type":"text","text":"ok"}}],"timestamp":1}}"#
            ),
        )
    }

    #[test]
    fn a_response_of_any_number_of_blocks_is_one_message() {
        let blocks = [
            r#"{"type":"thinking","thinking":"hm"}"#.to_owned(),
            text("one"),
            text("two"),
            call("c9", "read"),
            text("three"),
        ];
        for fragments in [1, 2, 3, 5] {
            let lines = [
                user(0, "old question"),
                response(1, &[text("old")]),
                user(2, "the question"),
                response(3, &blocks[..fragments]),
            ];
            check(&Pi, &lines, &[0..1, 1..2, 2..3, 3..4]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_travel_with_their_results() {
        let lines = [
            user(0, "read both"),
            response(1, &[call("c1", "read"), call("c2", "read")]),
            result(2, "c1"),
            result(3, "c2"),
            response(4, &[call("c3", "subagent")]),
            result(5, "c3"),
            response(6, &[text("done")]),
        ];
        check(&Pi, &lines, &[0..1, 1..4, 4..6, 6..7]);
    }
}
