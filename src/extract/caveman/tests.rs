//! caveman's tests: budgets, priorities, and what each section prints.

use super::*;
use crate::extract::model::Around;
use crate::extract::testkit::*;

#[test]
fn caveman_fits_any_budget_and_spends_none_of_it_on_counts() {
    let ex = busy();
    for budget in [0, 1, 5, 10, 30, 60, 100, 200, 500, 2000] {
        for tokenizer in [
            Tokenizer::Chars4,
            Tokenizer::KimiCode,
            Tokenizer::Fast(crate::tokens::Family::Openai),
        ] {
            let text = caveman(&ex, budget, tokenizer);
            assert!(tokenizer.text_tokens(&text) <= budget, "{budget}: {text}");
        }
    }
    let text = caveman(&ex, 200, Tokenizer::Chars4);
    assert!(text.starts_with("# caveman"), "{text}");
    assert!(text.contains("## goal\nmake parser"), "{text}");
    // What did not fit is not counted, nor are the session's messages.
    assert!(
        !text.contains("more files") && !text.contains("## cut"),
        "{text}"
    );
    assert!(!text.contains("msgs"), "{text}");
    let roomy = caveman(&ex, 5000, Tokenizer::Chars4);
    // Files print by name, a few to a line, under what was done to them; a name another file
    // shares keeps the directory that tells them apart.
    assert!(
        roomy.contains("\nread: module_29.rs module_28.rs "),
        "{roomy}"
    );
    let mut edited = ex.clone();
    edited.files.truncate(2);
    edited.files[0].path = "src/parse/lib.rs".into();
    edited.files[0].edit = 2;
    edited.files[1].path = "src/lex/lib.rs".into();
    let text = caveman(&edited, 5000, Tokenizer::Chars4);
    // The folder of the changed file follows the files (see `work_dirs`); a folder only read
    // in is not named.
    assert!(
        text.contains("\nedited: parse/lib.rs\nread: lex/lib.rs\ndirs: src/parse\n## goal\n"),
        "{text}"
    );
    assert!(roomy.contains("\ncargo test -p crate29 → 5pass"), "{roomy}");
    // The plan sentence is in the agent's last words, shown as said: once is enough.
    assert!(
        roomy.contains("said: All green. Next, I will update docs.\n"),
        "{roomy}"
    );
    assert!(!roomy.contains("## next"), "{roomy}");
    // A plan that said: does not show whole gets its own line.
    let mut long = ex.clone();
    let words = "the build passed on every target after the cache fix ".repeat(4);
    long.doing.as_mut().unwrap().text = format!("{words}Next, I will update the docs.");
    let text = caveman(&long, 5000, Tokenizer::Chars4);
    assert!(
        text.contains("## next\nNext, I will update docs."),
        "{text}"
    );
}

#[test]
fn the_todos_after_the_first_come_before_most_files_and_commands() {
    let mut ex = busy();
    ex.todos = [
        "call it in runEnable",
        "handle the flag in runSetup",
        "run the tests",
    ]
    .map(|text| crate::extract::Todo {
        text: text.into(),
        active: false,
        detail: None,
    })
    .to_vec();
    let text = caveman(&ex, 120, Tokenizer::Chars4);
    assert!(
        text.contains("## next\ncall it in runEnable\nhandle flag in runSetup\n"),
        "{text}"
    );
}

#[test]
fn a_short_ask_that_leans_on_the_goal_does_not_print_the_goal_twice() {
    let records = [
        user("Implement the following plan: fix the logging of the clean command"),
        bash("1", "go build ./..."),
        user("push and create a PR"),
    ];
    let ex = extract(&records);
    let text = caveman(&ex, 500, Tokenizer::Chars4);
    assert!(
        text.contains("\nask: =goal | push and create PR\n"),
        "{text}"
    );
}

#[test]
fn a_work_branch_is_shown_under_the_header_and_the_default_one_is_not() {
    let mut ex = busy();
    ex.branch = Some("soph/agent-attribution".into());
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(
        text.starts_with("# caveman\nbranch: soph/agent-attribution\n"),
        "{text}"
    );
    ex.branch = Some("main".into());
    assert!(!caveman(&ex, 5000, Tokenizer::Chars4).contains("branch:"));
}

#[test]
fn frequent_names_come_before_older_decisions_and_reports() {
    let mut ex = busy();
    ex.files.truncate(3);
    ex.commands.truncate(1);
    ex.decisions = (0..8)
        .map(|n| crate::extract::Decision {
            text: format!("we decided thing {n} because of reason {n}"),
            index: n,
            user: true,
            rule: true,
            figures: Vec::new(),
        })
        .collect();
    ex.names = ["parse_line", "QuoteState", "read_quoted"]
        .map(String::from)
        .to_vec();
    ex.reports = vec![crate::extract::Said {
        text: "I have gathered comprehensive information".into(),
        index: 9,
    }];
    // The agent went on from the report: a later call.
    ex.last_call = Some(crate::extract::Said {
        text: "Read src/parse.rs".into(),
        index: 10,
    });
    let text = caveman(&ex, 140, Tokenizer::Chars4);
    assert!(
        text.contains("## names\nparse_line QuoteState read_quoted"),
        "{text}"
    );
    assert!(text.contains("thing 7"), "{text}");
    assert!(!text.contains("thing 0"), "{text}");
    assert!(!text.contains("found:"), "{text}");
}

#[test]
fn the_code_around_the_latest_edit_is_one_line_under_now() {
    let mut ex = busy();
    ex.names = [
        "checkConcurrentSessions",
        "outputHookResponse",
        "parse_line",
    ]
    .map(String::from)
    .to_vec();
    ex.around = Some(Around {
        path: "a.go".into(),
        function: Some("checkConcurrentSessions".into()),
        calls: vec!["ag.FormatResumeCommand".into(), "outputHookResponse".into()],
        index: 3,
    });
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    let line = "edit in checkConcurrentSessions, beside: ag.FormatResumeCommand outputHookResponse";
    assert!(
        text.contains(&format!("last: $ cargo test -p crate29\n{line}\n")),
        "{text}"
    );
    // What the line shows is not repeated among the frequent names.
    assert!(text.contains("## names\nparse_line\n"), "{text}");
    ex.around.as_mut().unwrap().function = None;
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(
        text.contains("\nedit beside: ag.FormatResumeCommand"),
        "{text}"
    );
}

#[test]
fn a_name_printed_above_is_not_listed_again() {
    let mut ex = busy();
    ex.files.truncate(1);
    ex.goal.as_mut().unwrap().text = "make parse_line handle quotes".into();
    // The goal's own names: the goal line shows them, so no names line repeats them.
    ex.goal_names = vec!["parse_line".into()];
    ex.touched = ["parse_line", "QuoteState"].map(String::from).to_vec();
    ex.names = ["read_quoted", "module_29.rs"].map(String::from).to_vec();
    // The names are the ones above: none mentioned once fills the list (see `once_named`).
    ex.once_names.clear();
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(
        text.contains("## names\nQuoteState\nread_quoted\n"),
        "{text}"
    );
    // A line whose every name is printed above is left out whole.
    ex.touched = vec!["parse_line".into()];
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(text.contains("## names\nread_quoted\n"), "{text}");
}

#[test]
fn a_background_task_output_file_is_not_listed_among_the_files() {
    let ex = crate::extract::extract(&[
        user("fix the app"),
        call(
            "r1",
            "Read",
            r#"{"file_path":"/tmp/claude-501/-Users-me-app/tasks/b463a86.output"}"#,
        ),
        result("r1", "build finished"),
        call("r2", "Read", r#"{"file_path":"src/app.rs"}"#),
        result("r2", "fn main() {}"),
    ]);
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(text.contains("app.rs"), "{text}");
    assert!(!text.contains("b463a86"), "{text}");
}

#[test]
fn a_command_line_is_cut_short_and_the_test_command_keeps_its_arguments() {
    let long_test =
        "cargo test --package parser --lib nested::quotes::inside_double_quotes -- --exact";
    let long_other = "git commit -m 'parse nested quotes inside double-quoted strings'";
    let ex = crate::extract::extract(&[
        user("make the parser handle nested quotes"),
        bash("b1", long_other),
        result("b1", "[main 1a2b3c4] parse nested quotes"),
        bash("b2", long_test),
        result("b2", "test result: ok. 3 passed; 0 failed"),
    ]);
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(text.contains(long_test), "{text}");
    assert!(!text.contains(long_other), "{text}");
    assert!(
        text.contains("\ngit commit -m 'parse nested quotes…"),
        "{text}"
    );
}

#[test]
fn the_checks_a_plan_names_and_the_session_did_not_run_are_shown_as_planned() {
    let plan = "# Plan: quote nesting\n\n## Changes\n- `parse.rs`: track the quote depth\n\n\
                ## Verification\n1. `cargo fmt --check && cargo clippy`\n2. `cargo test -p parser`\n";
    let accepted = format!("Implement the following plan:\n\n{plan}");
    let written = serde_json::json!({ "file_path": "/home/u/.claude/plans/quiet-green-heron.md", "content": plan });
    let exited = serde_json::json!({ "plan": plan });
    for records in [
        vec![user(&accepted)],
        vec![
            user("plan the quote nesting"),
            call("w", "Write", &written.to_string()),
        ],
        vec![
            user("plan the quote nesting"),
            call("x", "ExitPlanMode", &exited.to_string()),
        ],
    ] {
        let mut records = records;
        records.push(bash("b1", "cargo fmt --check 2>&1"));
        records.push(result("b1", ""));
        let ex = extract(&records);
        assert_eq!(ex.planned, ["cargo clippy", "cargo test -p parser"]);
        let text = caveman(&ex, 500, Tokenizer::Chars4);
        assert!(
            text.contains(
                "## cmds\ncargo fmt --check\nplanned: cargo clippy; cargo test -p parser\n"
            ),
            "{text}"
        );
    }
    // A plan document the agent read counts when it names checks, as its read tool shows it; a
    // later plan note that names none leaves them standing, and a document out of any plans
    // folder is no plan.
    let gutter: String = plan
        .lines()
        .enumerate()
        .map(|(n, line)| format!("{:>6}\u{2192}{line}\n", n + 1))
        .collect();
    let ex = extract(&[
        user("implement docs/plans/quotes.md"),
        call("r1", "Read", r#"{"file_path":"docs/plans/quotes.md"}"#),
        result("r1", &gutter),
        call("r2", "Read", r#"{"file_path":"docs/plans/notes.md"}"#),
        result("r2", "# Notes\nno locking yet"),
        call("r3", "Read", r#"{"file_path":"docs/quotes.md"}"#),
        result("r3", "## Testing\n`make test`"),
    ]);
    assert_eq!(
        ex.planned,
        ["cargo fmt --check", "cargo clippy", "cargo test -p parser"]
    );
    // A session with no plan plans nothing.
    assert!(extract(&[user("fix the quote nesting in parse.rs")])
        .planned
        .is_empty());
}

#[test]
fn self_labelled_sections_print_under_the_title_with_no_heading() {
    let mut ex = busy();
    ex.files.truncate(2);
    ex.files[0].edit = 1;
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(
        !text.contains("## now") && !text.contains("## files"),
        "{text}"
    );
    // Every line between the title and the first heading says what it is by its label.
    let block: Vec<&str> = text
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .collect();
    assert!(block.iter().any(|l| l.starts_with("said: ")), "{text}");
    assert!(block.iter().any(|l| l.starts_with("edited: ")), "{text}");
    for line in &block {
        assert_ne!(line::unlabelled(line), *line, "{line} in {text}");
    }
    // The bare sections keep theirs, and a summary read back still finds its goal.
    assert!(text.contains("## goal\nmake parser"), "{text}");
    assert!(text.contains("## cmds\n"), "{text}");
    assert_eq!(
        crate::extract::goal::summary_goal(&text).as_deref(),
        Some("make parser handle nested quotes in src/parse.rs")
    );
}

#[test]
fn a_line_cut_down_to_its_label_is_not_printed() {
    assert!(!says_something("last: agent…"));
    assert!(!says_something("- pending (from the summary): fix the…"));
    assert!(says_something("last: agent Explore Gemini path…"));
    // Text with no label counts whole; a capitalised word before a colon is no label.
    assert!(says_something("make parser handle…"));
    assert_eq!(line::unlabelled("Fix: the parser"), "Fix: the parser");
    assert_eq!(line::unlabelled("- read: a.rs"), "a.rs");
    // In a summary: the agent's last call cut to a word goes, and the whole of it does not.
    let mut ex = busy();
    ex.last_call = Some(crate::extract::Said {
        text: format!(
            "agent {}",
            "Explore the Gemini path resolution code ".repeat(20)
        ),
        index: 0,
    });
    for budget in [40, 60, 80, 100, 150, 200] {
        let text = caveman(&ex, budget, Tokenizer::Chars4);
        for line in text.lines().filter(|l| l.starts_with("last: ")) {
            assert!(says_something(line), "{budget}: {text}");
        }
    }
}

#[test]
fn the_names_a_goal_gives_past_where_its_line_is_cut_are_listed_under_names() {
    let mut ex = busy();
    ex.goal.as_mut().unwrap().text = "Implement the plan: use RestoreLogsOnly …".into();
    ex.goal_names = ["RestoreLogsOnly", "GetClaudeProjectDir", "repoRoot"]
        .map(String::from)
        .to_vec();
    let text = caveman(&ex, 5000, Tokenizer::Chars4);
    assert!(
        text.contains("## names\nGetClaudeProjectDir repoRoot\n"),
        "{text}"
    );
    assert_eq!(text.matches("RestoreLogsOnly").count(), 1, "{text}");
}

#[test]
fn a_written_test_the_test_command_names_is_not_listed_again() {
    // The tests the agent wrote are a names line (see `written`), printed after the commands.
    let ex = Extract {
        written_tests: vec!["TestParseLine".into(), "TestParseEmpty".into()],
        commands: vec![crate::extract::model::CommandUse {
            command: "go test ./parser -run TestParseLine".into(),
            runs: 1,
            test: true,
            ..Default::default()
        }],
        ..Extract::default()
    };
    let text = caveman(&ex, 500, Tokenizer::Chars4);
    assert_eq!(text.matches("TestParseLine").count(), 1, "{text}");
    assert!(text.contains("## names\nTestParseEmpty\n"), "{text}");
    assert!(!text.contains("tests:"), "{text}");
}
