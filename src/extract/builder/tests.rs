//! Unit tests of the one pass, on small crafted sessions.

use super::super::outcome::error_lines;
use super::super::runners::test_counts;
use super::super::{TestCounts, Todo};
use crate::extract::testkit::*;

#[test]
fn goal_is_the_first_real_request_and_task_the_latest() {
    let records = [
        user("<system-reminder>ignore me</system-reminder>"),
        user("/mode"),
        user("fix the failing parser test in src/parse.rs"),
        assistant("Looking."),
        user("[Request interrupted by user]"),
        user("also update the changelog for the release"),
    ];
    let ex = extract(&records);
    assert_eq!(
        ex.goal.unwrap().text,
        "fix the failing parser test in src/parse.rs"
    );
    assert_eq!(
        ex.task.unwrap().text,
        "also update the changelog for the release"
    );
    assert_eq!(ex.requests, 2);
    assert!(!ex.answered);
}

#[test]
fn a_short_request_leans_on_the_one_before() {
    let records = [
        user("release a new minor version with the theme changes"),
        user("yeah, do it all"),
    ];
    let ex = extract(&records);
    assert_eq!(
        ex.now().unwrap(),
        "release a new minor version with the theme changes | yeah, do it all"
    );
}

#[test]
fn slash_command_arguments_are_the_users_words() {
    let records = [user(
        "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app by Next.js</command-args>",
    )];
    let ex = extract(&records);
    assert_eq!(
        ex.goal.unwrap().text,
        "/orchestrator create TODO app by Next.js"
    );
}

#[test]
fn files_come_from_tools_patches_and_shell_commands() {
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: src/new.rs\n+hi\n*** Delete File: old.txt\n*** End Patch";
    let records = [
        call("1", "Read", r#"{"file_path":"/repo/src/a.rs"}"#),
        call("2", "Edit", r#"{"file_path":"/repo/src/a.rs","old_string":"x"}"#),
        call("3", "Write", r#"{"file_path":"/repo/notes.md","content":"x"}"#),
        call("4", "apply_patch", patch),
        bash(
            "5",
            "cd /repo && rm -f build.log && sed -i 's/a/b/' Cargo.toml && cat README.md | grep foo > out.txt",
        ),
        call("6", "StrReplaceFile", r#"{"path":"/repo/src/a.rs","edit":{}}"#),
        call("7", "Glob", r#"{"pattern":"**/*.rs","path":"/repo/src"}"#),
        call("8", "read_many_files", r#"{"paths":["docs/a.md","docs/b.md"]}"#),
    ];
    let ex = extract(&records);
    let mut got: Vec<(&str, String)> = ex
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.label()))
        .collect();
    got.sort();
    // One `cd` and no recorded cwd: no root, so paths stay as the calls wrote them.
    let want = [
        ("/repo/notes.md", "c1"),
        ("/repo/src/a.rs", "r1 e2"),
        ("Cargo.toml", "e1"),
        ("README.md", "r1"),
        ("build.log", "deleted"),
        ("docs/a.md", "r1"),
        ("docs/b.md", "r1"),
        ("old.txt", "deleted"),
        ("out.txt", "c1"),
        ("src/a.rs", "e1"),
        ("src/new.rs", "c1"),
    ];
    let want: Vec<(&str, String)> = want.iter().map(|(p, l)| (*p, l.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn paths_are_relative_to_the_working_directory() {
    let mut first = call("1", "Read", r#"{"file_path":"/w/p/src/main.rs"}"#);
    first.raw = br#"{"cwd":"/w/p","type":"assistant"}"#;
    let records = [
        first,
        bash("2", "cd /w/p && cargo test"),
        bash("3", "cd /w/p/web; npm test"),
        bash("4", "cd /w/pq && ls"),
    ];
    let ex = extract(&records);
    assert_eq!(ex.root.as_deref(), Some("/w/p"));
    assert_eq!(ex.files[0].path, "src/main.rs");
    let mut commands: Vec<&str> = ex.commands.iter().map(|c| c.command.as_str()).collect();
    commands.sort();
    assert_eq!(
        commands,
        ["cargo test", "cd /w/pq && ls", "cd web && npm test"]
    );
}

#[test]
fn inspections_show_text_not_errors() {
    let records = [
        bash("1", "cat notes.txt"),
        result("1", "error: this line is a note\nExit code 0"),
        bash("2", "cat missing.txt"),
        result(
            "2",
            "cat: missing.txt: No such file or directory\nExit code 1",
        ),
    ];
    let ex = extract(&records);
    assert_eq!(ex.errors.len(), 1);
    assert_eq!(
        ex.errors[0].text,
        "cat: missing.txt: No such file or directory"
    );
    assert!(error_lines("Output: x\nError: (none)\nExit Code: (none)", false).is_empty());
}

#[test]
fn meta_lines_and_user_commands_are_not_requests() {
    let mut meta = user("Split complex tasks into independent subtasks");
    meta.raw = br#"{"type":"user","isMeta":true}"#;
    // pi's `bashExecution`: the user ran a command; its output answers no call.
    let ran = record(Message::new(
        Role::User,
        vec![
            Part::Text("npm test".into()),
            Part::ToolResult {
                call_id: None,
                text: "Tests: 1 failed, 4 passed, 5 total".into(),
            },
        ],
    ));
    let ex = extract(&[meta, user("fix the flaky test in the cart module"), ran]);
    assert_eq!(
        ex.goal.unwrap().text,
        "fix the flaky test in the cart module"
    );
    assert_eq!(ex.requests, 1);
    assert_eq!(ex.commands[0].outcome.unwrap().label(), "4pass 1fail");
    assert_eq!(
        test_counts("ℹ tests 5\nℹ pass 4\nℹ fail 1"),
        Some(TestCounts {
            passed: 4,
            failed: 1
        })
    );
}

#[test]
fn commands_keep_their_last_outcome_and_test_counts() {
    let records = [
        bash("1", "cargo test"),
        result("1", "running 3 tests\ntest result: FAILED. 2 passed; 1 failed; 0 ignored\nerror: test failed, to rerun pass `--lib`"),
        bash("2", "cargo test"),
        result("2", "test result: ok. 3 passed; 0 failed;\n\ntest result: ok. 4 passed; 0 failed;"),
    ];
    let ex = extract(&records);
    assert_eq!(ex.commands.len(), 1);
    let command = &ex.commands[0];
    assert_eq!(command.runs, 2);
    assert!(command.test);
    let outcome = command.outcome.unwrap();
    assert_eq!(
        outcome.tests,
        Some(TestCounts {
            passed: 7,
            failed: 0
        })
    );
    assert_eq!(outcome.label(), "7pass");
    assert_eq!(ex.errors.len(), 1);
    assert!(ex.errors[0].resolved, "{:?}", ex.errors);
}

#[test]
fn an_error_is_resolved_when_its_command_later_succeeds() {
    let records = [
        bash("1", "npm run build"),
        result("1", "src/a.ts(1,1): error TS2305: no member\nExit code 2"),
        bash("2", "npm test"),
        result("2", "Error: Cannot find module 'x'\nExit code 1"),
        bash("3", "npm run build"),
        result("3", "built\nExit code 0"),
    ];
    let ex = extract(&records);
    assert_eq!(ex.errors.len(), 2);
    assert!(!ex.errors[0].resolved);
    assert_eq!(ex.errors[0].text, "Error: Cannot find module 'x'");
    assert!(ex.errors[1].resolved);
    assert_eq!(ex.commands[0].command, "npm test");
    assert_eq!(ex.commands[0].outcome.unwrap().label(), "exit 1");
}

#[test]
fn results_pair_by_order_when_there_is_no_id() {
    let noid = |command: &str| {
        record(Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: None,
                name: "shell".into(),
                arguments: serde_json::json!({ "command": ["bash", "-lc", command] })
                    .to_string()
                    .into(),
            }],
        ))
    };
    let answer = |text: &str| {
        record(Message::new(
            Role::Tool,
            vec![Part::Text(text.to_owned().into())],
        ))
    };
    let records = [
        noid("make"),
        noid("pytest"),
        answer("Exit code: 2"),
        answer("3 passed in 0.1s"),
    ];
    let ex = extract(&records);
    let by_name = |name: &str| ex.commands.iter().find(|c| c.command == name).unwrap();
    assert_eq!(by_name("make").outcome.unwrap().exit, Some(2));
    assert_eq!(by_name("pytest").outcome.unwrap().label(), "3pass");
}

#[test]
fn next_is_the_newest_plan_or_todo() {
    let records = [
        user("ship the feature and its tests"),
        call(
            "1",
            "TodoWrite",
            r#"{"todos":[{"content":"write code","status":"completed"},{"content":"add tests","status":"pending"},{"content":"run linter","status":"in_progress"}]}"#,
        ),
        assistant("The code compiles. Next, I will add the integration tests for the parser."),
    ];
    let ex = extract(&records);
    assert_eq!(ex.todos.len(), 2);
    assert_eq!(ex.todos[0].text, "run linter");
    assert!(ex.todos[0].active);
    assert_eq!(
        ex.plan.as_ref().unwrap().text,
        "Next, I will add the integration tests for the parser."
    );
    assert_eq!(
        ex.next().unwrap(),
        "Next, I will add the integration tests for the parser."
    );
    assert!(ex.answered);
    let done = [
        user("hi there, what is this repository?"),
        assistant("It is a CLI."),
    ];
    assert_eq!(extract(&done).next().unwrap(), "await user");
    let mid = [user("run the tests please"), bash("1", "cargo test")];
    assert_eq!(extract(&mid).next().unwrap(), "continue $ cargo test");
}

#[test]
fn codex_plans_and_kimi_todos_are_todos() {
    let plan = [call(
        "1",
        "update_plan",
        r#"{"plan":[{"step":"a","status":"completed"},{"step":"b","status":"pending"}]}"#,
    )];
    assert_eq!(extract(&plan).todos[0].text, "b");
    let kimi = [call(
        "1",
        "SetTodoList",
        r#"{"todos":[{"title":"x","status":"Done"},{"title":"y","status":"In Progress"}]}"#,
    )];
    let todos = extract(&kimi).todos;
    assert_eq!(
        todos,
        [Todo {
            text: "y".into(),
            active: true,
            detail: None,
        }]
    );
}

#[test]
fn user_words_in_a_rejected_tool_use_are_a_request() {
    let records = [
        user("implement the sidebar button"),
        call("1", "Edit", r#"{"file_path":"a.tsx"}"#),
        result("1", "The user doesn't want to proceed with this tool use. To tell you how to proceed, the user said:\nuse a tooltip instead"),
    ];
    assert_eq!(
        extract(&records).task.unwrap().text,
        "use a tooltip instead"
    );
}

#[test]
fn decisions_are_the_users_turns_answers_and_the_agents_reasons() {
    let records = [
        user("add retries to the uploader in src/upload.rs"),
        assistant("I'll use exponential backoff because the server rate-limits at 10/s."),
        user("always overwrite, the file may come from another device"),
        user("continue"),
        call("q", "AskUserQuestion", r#"{"questions":[]}"#),
        result("q", "User has answered your questions: \"Max retries?\"=\"5\". You can now continue with the user's answers in mind."),
        user("now write the unit tests for the retries, the backoff included"),
    ];
    let ex = extract(&records);
    let got: Vec<(bool, &str)> = ex
        .decisions
        .iter()
        .map(|d| (d.user, d.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                false,
                "I'll use exponential backoff because the server rate-limits at 10/s."
            ),
            (
                true,
                "always overwrite, the file may come from another device"
            ),
            (true, "5 ← Max retries?"),
        ]
    );
}

#[test]
fn a_leading_summary_gives_the_goal() {
    let summary = "This session is being continued from a previous conversation that ran out of context.\nSummary:\n1. Primary Request and Intent:\n   - Make the parser handle nested quotes\n\n6. All user messages:\n   - \"the parser breaks on nested quotes, fix it\"\n";
    let records = [user(summary), user("and also the docs")];
    let ex = extract(&records);
    assert!(ex.summarised);
    assert_eq!(
        ex.goal.unwrap().text,
        "the parser breaks on nested quotes, fix it"
    );
    assert_eq!(
        ex.brief.unwrap().text,
        "intent: - Make the parser handle nested quotes"
    );
    assert_eq!(ex.task.unwrap().text, "and also the docs");
    // A summary after the first request (a whole file) leaves the goal alone.
    let later = [user("fix the parser"), user(summary)];
    assert_eq!(extract(&later).goal.unwrap().text, "fix the parser");
}

#[test]
fn a_request_that_points_at_a_document_gets_its_gist() {
    let records = [
        user("read docs/task.md, it is my take-home"),
        call("1", "Read", r#"{"file_path":"/repo/docs/task.md"}"#),
        result(
            "1",
            "     1→# Rate limiter\n     2→\n     3→Build a token bucket allowing 10 requests/s.",
        ),
    ];
    assert_eq!(
        extract(&records).brief.unwrap().text,
        "doc task.md: Rate limiter: Build a token bucket allowing 10 requests/s."
    );
}

#[test]
fn sub_agents_in_flight_and_their_reports_are_state() {
    let records = [
        user("build the app"),
        call(
            "1",
            "Task",
            r#"{"description":"Types","prompt":"Write the types"}"#,
        ),
        result("1", "## Report\n\nCreated types/index.ts with Todo."),
        call(
            "2",
            "Task",
            r#"{"description":"Page","prompt":"Write page.tsx"}"#,
        ),
    ];
    let ex = extract(&records);
    assert_eq!(ex.delegated.len(), 1);
    assert_eq!(ex.delegated[0].text, "Page: Write page.tsx");
    assert_eq!(
        ex.reports[0].text,
        "Report: Created types/index.ts with Todo."
    );
}

#[test]
fn unchecked_plan_items_are_the_next_step_without_a_todo_list() {
    let records = [
        user("ship it"),
        call(
            "1",
            "ExitPlanMode",
            r##"{"plan":"# Plan\n- [x] parse\n- [ ] wire the parser into main\n- [ ] docs"}"##,
        ),
        bash("2", "cargo build"),
    ];
    let ex = extract(&records);
    assert_eq!(ex.next().unwrap(), "wire the parser into main");
}

#[test]
fn a_code_mode_cell_is_read_as_the_tools_it_calls() {
    let cell = "const t = await tools.exec_command({cmd: \"npm test\", workdir: \"/repo\"});\ntext(JSON.stringify(t));\nawait tools.apply_patch(\"*** Begin Patch\\n*** Update File: src/cart.ts\\n@@\\n-const total = 0;\\n+const cartTotal = sum(items);\\n*** End Patch\");\nconst s = await tools.exec_command({cmd: \"npm run dev\"});\ntext(JSON.stringify(s));";
    let output = "Script completed\nWall time 9.1 seconds\nOutput:\n\n{\"chunk_id\":\"a\",\"wall_time_seconds\":8.0,\"exit_code\":1,\"output\":\"Tests: 1 failed, 11 passed, 12 total\\nError: expected 3 to be 4\"}\n{\"chunk_id\":\"b\",\"wall_time_seconds\":1.0,\"session_id\":7,\"output\":\"ready on http://localhost:3000\"}";
    let built = "const p = makePatch(\"src/cart.ts\");\nawait tools.apply_patch(p);\nconst r = await tools.exec_command({cmd: \"npm test\"});\ntext(JSON.stringify(r));\nyield_control();\nawait tools.exec_command({cmd: \"npm run lint\"});";
    let event = Record::new(
        1,
        br#"{"type":"event_msg","payload":{"type":"patch_apply_end","success":true,"changes":{"/repo/src/cart_test.ts":{"type":"add","content":"x"}}}}"#,
        Entry::Bookkeeping("event_msg/patch_apply_end".into()),
    );
    let records = [
        user("fix the cart total and keep the dev server up"),
        call("c1", "exec", cell),
        result("c1", output),
        call("c2", "exec", built),
        event,
        result("c2", "Script running with cell ID 4\nWall time 10.0 seconds\nOutput:\n\n{\"exit_code\":0,\"output\":\"Tests: 12 passed, 12 total\"}"),
        call("w1", "wait", r#"{"cell_id":"4","yield_time_ms":30000}"#),
        result("w1", "Script completed\nWall time 2.0 seconds\nOutput:\n\n{\"exit_code\":2,\"output\":\"src/cart.ts:3:7 error no-unused-vars\"}"),
    ];
    let ex = extract(&records);
    let mut files: Vec<(&str, String)> = ex
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.label()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ("/repo/src/cart_test.ts", "c1".to_owned()),
            ("src/cart.ts", "e1".to_owned())
        ]
    );
    let outcome = |command: &str| {
        let c = ex.commands.iter().find(|c| c.command == command).unwrap();
        (c.runs, c.outcome.map(|o| o.label()).unwrap_or_default())
    };
    assert_eq!(outcome("npm test"), (2, "12pass".to_owned()));
    assert_eq!(outcome("npm run lint"), (1, "exit 2".to_owned()));
    assert_eq!(outcome("npm run dev"), (1, String::new()));
    assert_eq!(
        ex.running
            .iter()
            .map(|r| r.text.as_str())
            .collect::<Vec<_>>(),
        ["$ npm run dev"]
    );
    assert!(
        ex.touched.contains(&"cartTotal".to_owned()),
        "{:?}",
        ex.touched
    );
    assert_eq!(ex.last_call.unwrap().text, "$ npm run lint");
    // Six tool calls in two cells, and a wait.
    assert_eq!(ex.calls, 7);
}

#[test]
fn a_background_command_runs_until_a_read_says_it_ended() {
    let records = [
        call("1", "Bash", r#"{"command":"npm run dev","run_in_background":true}"#),
        result("1", "Command running in background with ID: b46. Output is being written to: /tmp/b46.output"),
        call("2", "Bash", r#"{"command":"ngrok http 3000","run_in_background":true}"#),
        result("2", "Command running in background with ID: c57. Output is being written to: /tmp/c57.output"),
        call("3", "TaskOutput", r#"{"task_id":"c57","block":true}"#),
        result("3", "<status>failed</status>\n<exit_code>1</exit_code>\n<output>ERR_NGROK_4018: authentication failed</output>"),
        call("4", "TaskStop", r#"{"task_id":"b46"}"#),
        result("4", "Successfully stopped task: b46"),
        call("5", "Bash", r#"{"command":"npm run dev","run_in_background":true}"#),
        result("5", "Command running in background with ID: d68. Output is being written to: /tmp/d68.output"),
    ];
    let ex = extract(&records);
    assert_eq!(
        ex.running
            .iter()
            .map(|r| r.text.as_str())
            .collect::<Vec<_>>(),
        ["$ npm run dev"]
    );
    let ngrok = ex
        .commands
        .iter()
        .find(|c| c.command == "ngrok http 3000")
        .unwrap();
    assert_eq!(ngrok.outcome.unwrap().label(), "exit 1");
}

#[test]
fn a_failure_is_fixed_by_a_later_pass_of_its_runner_and_a_missed_look_by_moving_on() {
    let records = [
        bash("1", "go test ./cmd/cli -run TestAttribution"),
        result(
            "1",
            "    attribution_test.go:760: AgentPercentage = 33.3%, want ~42.9%\n--- FAIL: TestAttribution (0.00s)\nFAIL\nExit code 1",
        ),
        bash("2", "cat docs/missing.md"),
        result("2", "cat: docs/missing.md: No such file or directory\nExit code 1"),
        bash("3", "go build ./..."),
        result("3", "a.go:3:1: syntax error: unexpected keyword type\nExit code 1"),
        bash("4", "ls docs"),
        result("4", "plan.md\nExit code 0"),
    ];
    let ex = extract(&records);
    let open: Vec<&str> = ex
        .errors
        .iter()
        .filter(|e| !e.resolved)
        .map(|e| e.text.as_str())
        .collect();
    // The failed assertion and the build's finding are the live failures; the missed look is
    // not.
    assert_eq!(
        open,
        [
            "a.go:3:1: syntax error: unexpected keyword type",
            "attribution_test.go:760: AgentPercentage = 33.3%, want ~42.9%",
            "--- FAIL: TestAttribution (0.00s)",
        ]
    );
    let mut more = records.to_vec();
    more.push(bash("5", "go test ./..."));
    more.push(result(
        "5",
        "ok  \tentire.io/cli/cmd/cli\t0.3s\nExit code 0",
    ));
    let ex = extract(&more);
    let open: Vec<&str> = ex
        .errors
        .iter()
        .filter(|e| !e.resolved)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(open, ["a.go:3:1: syntax error: unexpected keyword type"]);
}

/// A Codex 0.171 `item_completed` event line.
fn item(raw: &'static str) -> Record<'static> {
    Record::new(
        1,
        raw.as_bytes(),
        Entry::Bookkeeping("event_msg/item_completed".into()),
    )
}

#[test]
fn code_mode_events_are_the_runs_and_the_files_and_a_command_with_none_is_running() {
    let looped = "for (const cmd of [\"git status\", \"npm test\"]) {\n  const r = await tools.exec_command({cmd, workdir: \"/repo\"});\n  text(r.output);\n}\nawait tools.apply_patch(\"*** Begin Patch\\n*** Delete File: src/legacy.js\\n*** Update File: src/app.js\\n@@\\n-old()\\n+patchTodo()\\n*** End Patch\");";
    let server = "const r = await tools.exec_command({cmd: \"PORT=3100 node src/server.js\", yield_time_ms: 1500});\ntext(`session ${r.session_id}`);";
    let records = [
        user("add PATCH /todos/:id and keep the server up"),
        call("c1", "exec", looped),
        item(
            r#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":["/bin/bash","-lc","git status"],"status":"completed","aggregated_output":"","exit_code":0}}}"#,
        ),
        item(
            r#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":["/bin/bash","-lc","npm test"],"status":"failed","aggregated_output":"\u2139 tests 6\n\u2139 pass 5\n\u2139 fail 1","exit_code":1}}}"#,
        ),
        item(
            r#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","changes":{"src/legacy.js":{"type":"delete","content":"x"},"src/app.js":{"type":"update","unified_diff":"@@\n-old()\n+patchTodo()\n"}},"status":"completed","stderr":""}}}"#,
        ),
        result("c1", "Script completed\nWall time 1.0 seconds\nOutput:\n\n"),
        call("c2", "exec", server),
        result(
            "c2",
            "Script completed\nWall time 1.6 seconds\nOutput:\n\nsession 7",
        ),
    ];
    let ex = extract(&records);
    let outcome = |command: &str| {
        let c = ex.commands.iter().find(|c| c.command == command).unwrap();
        (c.runs, c.outcome.map(|o| o.label()).unwrap_or_default())
    };
    assert_eq!(outcome("git status"), (1, "ok".to_owned()));
    assert_eq!(outcome("npm test"), (1, "5pass 1fail".to_owned()));
    assert_eq!(outcome("PORT=3100 node src/server.js"), (1, String::new()));
    assert_eq!(
        ex.running
            .iter()
            .map(|r| r.text.as_str())
            .collect::<Vec<_>>(),
        ["$ PORT=3100 node src/server.js"]
    );
    let mut files: Vec<(&str, String)> = ex
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.label()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ("src/app.js", "e1".to_owned()),
            ("src/legacy.js", "deleted".to_owned())
        ]
    );
    // A deleted file goes after the live ones.
    assert_eq!(ex.files.last().unwrap().path, "src/legacy.js");
    assert!(ex.touched.contains(&"patchTodo".to_owned()));
    // Two commands, a patch and the server.
    assert_eq!(ex.calls, 4);
    // Its end, when it comes, is the server's outcome.
    let mut ended = records.to_vec();
    ended.push(item(r#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":["/bin/bash","-lc","PORT=3100 node src/server.js"],"status":"failed","aggregated_output":"listening on 3100","exit_code":-1}}}"#));
    let ex = extract(&ended);
    assert!(ex.running.is_empty());
    let server = ex
        .commands
        .iter()
        .find(|c| c.command == "PORT=3100 node src/server.js")
        .unwrap();
    assert_eq!(
        (server.runs, server.outcome.unwrap().label()),
        (1, "stopped".to_owned())
    );
}

#[test]
fn a_harness_context_is_no_request_and_a_call_written_again_is_one_call() {
    let records = [
        user("<session_context>\nThis is the Gemini CLI. Today's date is Tuesday.\n</session_context>"),
        user("list the files"),
        call("t1", "run_shell_command", r#"{"command":"ls -F"}"#),
        call("t1", "run_shell_command", r#"{"command":"ls -F"}"#),
        result("t1", "a.rs\nb.rs"),
    ];
    let ex = extract(&records);
    assert_eq!(ex.goal.unwrap().text, "list the files");
    assert_eq!(ex.requests, 1);
    assert_eq!(ex.calls, 1);
    assert_eq!(ex.commands[0].runs, 1);
    assert!(!ex.names.contains(&"session_context".to_owned()));
}

#[test]
fn a_turn_sent_again_is_one_decision_and_none_repeats_the_task() {
    let records = [
        user("add retries to the uploader"),
        user("always overwrite, the file may come from another device"),
        user("always overwrite, the file may come from another device"),
        user("now write the unit tests for the retries"),
        user("also cover the timeout"),
        user("now write the unit tests for the retries"),
    ];
    let ex = extract(&records);
    let got: Vec<&str> = ex.decisions.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(
        got,
        [
            "always overwrite, the file may come from another device",
            "also cover the timeout"
        ]
    );
}

#[test]
fn the_commits_made_and_the_files_changed_after_the_last() {
    let edit = |id: &str, path: &str| {
        call(
            id,
            "Edit",
            &format!(r#"{{"file_path":"{path}","old_string":"x"}}"#),
        )
    };
    let records = [
        user("fix the leak and commit"),
        edit("1", "src/a.rs"),
        bash("2", "git add -A && git commit -m 'fix: close the reader'"),
        result(
            "2",
            "[fix-leak 9f5a3c7] fix: close the reader\n 1 file changed",
        ),
        edit("3", "src/b.rs"),
        bash("4", "git commit -am 'test: cover the leak'"),
        result(
            "4",
            "[fix-leak f6b2c87] test: cover the leak\n 1 file changed",
        ),
        edit("5", "src/a.rs"),
        edit("6", "src/c.rs"),
        edit("7", "src/a.rs"),
    ];
    let mut ex = extract(&records);
    ex.branch = Some("fix-leak".into());
    let hashes: Vec<&str> = ex.commits.iter().map(|c| c.hash.as_str()).collect();
    assert_eq!(hashes, ["9f5a3c7", "f6b2c87"]);
    assert_eq!(ex.commits[1].subject, "test: cover the leak");
    assert_eq!(ex.uncommitted, 2);
    let text = crate::extract::caveman(&ex, 500, crate::tokens::Tokenizer::Chars4);
    assert!(
        text.contains("\nbranch: fix-leak | committed f6b2c87, 2 files uncommitted\n"),
        "{text}"
    );
    // With nothing changed after the last commit, it says so; with no commit, nothing.
    let ex = extract(&records[..7]);
    assert_eq!(ex.uncommitted, 0);
    let text = crate::extract::caveman(&ex, 500, crate::tokens::Tokenizer::Chars4);
    assert!(
        text.contains("committed f6b2c87, no edit since\n"),
        "{text}"
    );
    let ex = extract(&records[..2]);
    assert!(ex.commits.is_empty());
    assert!(
        !crate::extract::caveman(&ex, 500, crate::tokens::Tokenizer::Chars4).contains("committed")
    );
}

#[test]
fn touched_names_put_the_edits_identifiers_before_their_error_messages() {
    let older = r#"{"file_path":"a.go","old_string":"x","new_string":"func loadConfig() { return fmt.Errorf(\"config file is missing\") }"}"#;
    let newer = r#"{"file_path":"b.go","old_string":"y","new_string":"func saveState() error { return fmt.Errorf(\"cannot write the state: %w\", err) }"}"#;
    let records = [
        call("1", "Edit", older),
        result("1", "ok"),
        call("2", "Edit", newer),
        result("2", "ok"),
    ];
    let ex = extract(&records);
    assert_eq!(
        ex.touched,
        [
            "saveState",
            "loadConfig",
            "\"cannot write the state\"",
            "\"config file is missing\""
        ]
    );
}
