//! One flag vocabulary: each renamed flag gives what its old name (kept as a hidden alias for
//! one release) gave, the short flags are their long ones, and no flag name means two things.

use std::collections::BTreeMap;

use crate::util::{condense, condense_ok, fixture, run_ok};

/// A pi session long enough to prune and compact, and a kimi-cli one for the request.
fn pi() -> String {
    fixture("corpus/pi/pi-mono-large-session.jsonl")
        .display()
        .to_string()
}

fn claude() -> String {
    fixture("corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl")
        .display()
        .to_string()
}

fn kimi() -> String {
    fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl")
        .display()
        .to_string()
}

/// `new` and `old` print the same bytes (and both succeed).
fn same(new: &[&str], old: &[&str]) {
    let new_out = condense_ok(new);
    assert!(!new_out.is_empty(), "{new:?} printed nothing");
    assert_eq!(
        new_out,
        condense_ok(old),
        "{new:?} and its old spelling {old:?} differ"
    );
}

#[test]
fn every_old_name_gives_what_its_new_name_gives() {
    let (pi, kimi) = (pi(), kimi());
    same(
        &["prune", "--budget", "150000", &pi],
        &["prune", "--target", "150000", &pi],
    );
    same(
        &["prune", "--format", "json", &pi],
        &["prune", "--report", &pi],
    );
    same(
        &["prompt", "--request-tokens", "5000", &kimi],
        &["prompt", "--max-tokens", "5000", &kimi],
    );
    same(
        &[
            "prompt",
            "--format",
            "anthropic",
            "--summary-tokens",
            "900",
            &kimi,
        ],
        &[
            "prompt",
            "--format",
            "anthropic",
            "--reply-tokens",
            "900",
            &kimi,
        ],
    );
    same(
        &["prompt", "--body", "--style", "notes"],
        &["prompt", "--body", "--style", "handoff"],
    );
    let both = [pi.as_str(), kimi.as_str()];
    same(
        &[
            &["estimate", "--no-total-line", "--format", "jsonl"][..],
            &both,
        ]
        .concat(),
        &[
            &["estimate", "--no-total", "--format", "json", "--context"][..],
            &both,
        ]
        .concat(),
    );
    same(
        &["estimate", "--tokenizer", "fast-claude-4.7", &kimi],
        &["estimate", "--family", "claude-4.7", &kimi],
    );
    same(
        &["estimate", "--tokenizer", "chars3.5", &pi],
        &["estimate", "--lang", "es", &pi],
    );
    // From a session that records its times (a new session's times count on from them, from
    // the clock for one that records none).
    let summary = fixture("corpus/SOURCES.md").display().to_string();
    same(
        &[
            "inject",
            "--to",
            "pi",
            "--to-model",
            "acme/m1",
            "--summary",
            &summary,
            &claude(),
        ],
        &[
            "inject",
            "--to",
            "pi",
            "--model",
            "acme/m1",
            "--summary",
            &summary,
            &claude(),
        ],
    );
}

#[test]
fn short_flags_are_their_long_ones() {
    let (pi, kimi) = (pi(), kimi());
    same(
        &["caveman", "-b", "300", &pi],
        &["caveman", "--budget", "300", &pi],
    );
    same(
        &["bare", "-f", "jsonl", &pi],
        &["bare", "--format", "jsonl", &pi],
    );
    same(
        &["estimate", "-t", "fast-claude", "-f", "markdown", &kimi],
        &[
            "estimate",
            "--tokenizer",
            "fast-claude",
            "--format",
            "markdown",
            &kimi,
        ],
    );
    same(
        &["prune", "-b", "150000", "-f", "json", &pi],
        &["prune", "--budget", "150000", "--format", "json", &pi],
    );
}

/// `prune --format json` reports and so cannot write the file.
#[test]
fn a_prune_report_does_not_go_in_place() {
    let output = run_ok(condense().args(["prune", "--help"]));
    assert!(String::from_utf8_lossy(&output.stdout).contains("--format"));
    let refused = condense()
        .args(["prune", "--format", "json", "--in-place", &pi()])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("does not go with --in-place"));
}

/// Every flag name opens its `--help` the same way in every command that takes it (the first
/// four words of its first paragraph), but for the few whose meaning is the same and whose
/// wording names the command's own object (what the budget caps, the format's values): each of
/// their texts must hold the word of that meaning.
#[test]
fn each_flag_name_means_one_thing() {
    let commands = [
        "estimate", "split", "prompt", "inject", "compact", "prune", "caveman", "bare", "history",
        "eval", "sessions", "doctor", "undo",
    ];
    let mut meanings: BTreeMap<String, BTreeMap<String, (String, Vec<&str>)>> = BTreeMap::new();
    for command in commands {
        let help = String::from_utf8(condense_ok(&[command, "--help"])).unwrap();
        for (name, text) in flag_paragraphs(&help) {
            let opening: Vec<&str> = text.split_whitespace().take(4).collect();
            meanings
                .entry(name)
                .or_default()
                .entry(opening.join(" "))
                .or_insert_with(|| (text.clone(), Vec::new()))
                .1
                .push(command);
        }
    }
    // Flags whose text differs by command on purpose, each with the one meaning all its
    // texts share (checked below by a word each text must hold).
    let shared_meaning = [
        ("budget", "tokens"),
        ("format", ""),
        ("latest", "newest"),
        ("session", "id"),
        ("agent", "agent"),
        ("in-place", "itself"),
        // The one plan file: `prompt` writes it, `inject` reads it.
        ("plan", "plan"),
    ];
    for (name, texts) in &meanings {
        if texts.len() == 1 {
            continue;
        }
        let Some((_, word)) = shared_meaning.iter().find(|(n, _)| n == name) else {
            panic!(
                "--{name} has {} different help texts: {texts:#?}",
                texts.len()
            );
        };
        for (text, _) in texts.values() {
            assert!(
                text.contains(word),
                "--{name}: {text:?} does not say {word:?}"
            );
        }
    }
}

/// Each long flag of a `--help` page with the first paragraph of its text: clap writes the
/// flag on a line of its own, indented, and the text indented deeper under it, paragraphs
/// apart (the command's own text above starts at the margin).
fn flag_paragraphs(help: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut lines = help.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        if indent == 0 || indent >= 8 {
            continue; // the command's own text, or a flag text's later paragraph
        }
        let line = line.trim_start();
        let flag = if let Some(rest) = line.strip_prefix("--") {
            rest
        } else if line.starts_with('-') && line.get(2..4) == Some(", ") {
            line[4..].trim_start_matches('-')
        } else {
            continue;
        };
        let name = flag.split([' ', '=']).next().unwrap_or_default().to_owned();
        let mut text = Vec::new();
        // The text is indented deeper than any flag line (2 or 6 spaces).
        while let Some(next) = lines.peek() {
            let indent = next.len() - next.trim_start().len();
            if next.trim().is_empty() || indent < 8 {
                break;
            }
            text.push(next.trim().to_owned());
            lines.next();
        }
        found.push((name, text.join(" ")));
    }
    found
}
