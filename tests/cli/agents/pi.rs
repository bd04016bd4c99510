//! pi: the context its SessionManager builds (the active branch from the leaf, the latest
//! compaction's summary and what follows `firstKeptEntryId`), before and after `inject`, on the
//! corpus session and on sessions pi's own code wrote (one branched, one compacted twice).

use std::path::Path;

use serde_json::Value;

use super::harness::{agents_dir, inject, installed, node_loader, prompt_parts};
use super::SUMMARY;
use crate::util::fixture;

pub(super) fn ready() -> bool {
    installed(
        "pi (@mariozechner/pi-coding-agent)",
        &agents_dir().join("node_modules/@mariozechner/pi-coding-agent"),
    )
}

/// What pi would send for `session`, as tests/agents/pi-context.mjs prints it.
pub(super) fn context(session: &Path) -> Value {
    node_loader("pi-context.mjs", session)
}

fn messages(context: &Value) -> Vec<(String, String)> {
    context["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
            (field("role"), field("text"))
        })
        .collect()
}

/// What `inject --preserve N` must give pi: the summary first, then a kept tail that is a suffix
/// of the context pi had (so it is on the active branch) and holds the last N user or assistant
/// messages, none of the compacted start, and less.
fn assert_compacted(name: &str, preserve: usize, before: &Value, after: &Value) {
    let (b, a) = (messages(before), messages(after));
    // The summary, and after it the user's newest request when the kept path does not reach
    // it (pi keeps one path from its first kept entry): one of the requests pi had.
    let summary = after["compaction"]["summary"].as_str().unwrap();
    let heading = format!("{SUMMARY}\n\n## The user's latest request, in their words\n\n");
    match summary.strip_prefix(&heading) {
        Some(request) => assert!(
            b.iter()
                .any(|m| m.0 == "user" && m.1.contains(request.trim())),
            "{name}: the request after the summary is none pi had: {request:.80}"
        ),
        None => assert_eq!(summary, SUMMARY, "{name}: pi's active compaction"),
    }
    assert!(
        a[0].0 == "user" && a[0].1.contains(SUMMARY),
        "{name}: pi's first message is not the summary: {:?}",
        a[0]
    );
    assert!(
        a.len() >= 2,
        "{name}: pi's context after inject is the summary alone"
    );
    let kept = &a[1..];
    assert!(
        kept.len() <= b.len() && b.ends_with(kept),
        "{name}: the kept messages are not the end of the context pi had: kept {:?}",
        kept.iter()
            .map(|m| &m.1[..m.1.len().min(60)])
            .collect::<Vec<_>>()
    );
    let turns = kept
        .iter()
        .filter(|m| m.0 == "user" || m.0 == "assistant")
        .count();
    assert!(
        turns >= preserve,
        "{name}: {turns} user/assistant messages kept, --preserve {preserve}"
    );
    assert!(
        !a.contains(&b[0]),
        "{name}: the first message of the old context survived"
    );
    let tokens = |c: &Value| c["estimatedTokens"].as_u64().unwrap();
    assert!(
        tokens(after) < tokens(before),
        "{name}: pi's context grew from {} to {} tokens",
        tokens(before),
        tokens(after)
    );
}

#[test]
fn the_corpus_session_after_inject_is_the_summary_and_the_tail_to_pi() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    let before = context(&session);
    assert!(
        before["compaction"].is_null(),
        "the corpus session has no compaction"
    );
    for preserve in ["2", "6"] {
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "pi.jsonl",
        );
        assert_compacted(
            &format!("corpus --preserve {preserve}"),
            preserve.parse().unwrap(),
            &before,
            &context(&out),
        );
    }
}

#[test]
fn a_branched_session_keeps_the_newest_question_and_answer() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/pi-branched.jsonl");
    let before = context(&session);
    let text = |c: &Value| serde_json::to_string(&c["messages"]).unwrap();
    // The fixture is what it claims: pi follows the new branch, not the file.
    assert!(text(&before).contains("NEWEST-A2") && !text(&before).contains("ABANDONED"));
    for preserve in ["2", "3"] {
        let name = format!("pi-branched --preserve {preserve}");
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "b.jsonl",
        );
        let after = context(&out);
        for newest in ["NEWEST-Q2", "NEWEST-A2"] {
            assert!(
                text(&after).contains(newest),
                "{name}: {newest} is lost to pi"
            );
        }
        assert!(
            !text(&after).contains("ABANDONED"),
            "{name}: the abandoned branch is back"
        );
        assert_compacted(&name, preserve.parse().unwrap(), &before, &after);
        let request = prompt_parts(&session, &["--preserve", preserve]).concat();
        assert!(
            !request.contains("ABANDONED"),
            "{name}: the compaction request holds the abandoned branch"
        );
        assert!(
            request.contains("BRANCH-Q1"),
            "{name}: the request lacks the first turn"
        );
    }
}

#[test]
fn a_session_pi_compacted_twice_is_compacted_from_its_live_context() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/pi-compacted-twice.jsonl");
    let before = context(&session);
    assert!(before["compaction"]["summary"]
        .as_str()
        .unwrap()
        .starts_with("PI-SUMMARY-TWO"));
    let out = inject(&session, SUMMARY, &[], dir.path(), "c.jsonl");
    let after = context(&out);
    assert_compacted("pi-compacted-twice", 2, &before, &after);
    let sent = serde_json::to_string(&after["messages"]).unwrap();
    assert!(
        !sent.contains("PI-SUMMARY-"),
        "an older summary is still in pi's context"
    );
    // The request summarises pi's live context: the latest summary and what pi kept after it,
    // never the first epoch, and no more messages than pi holds.
    let parts = prompt_parts(&session, &[]);
    let request = parts.concat();
    assert!(
        request.contains("PI-SUMMARY-TWO"),
        "the request lacks the previous summary"
    );
    assert!(
        !request.contains("PI-SUMMARY-ONE"),
        "the request holds the first epoch's summary"
    );
    let blocks = parts
        .iter()
        .filter(|p| p.starts_with("## Message "))
        .count();
    let live = messages(&before).len();
    assert!(
        blocks <= live,
        "the request has {blocks} messages; pi's live context has {live}"
    );
}
