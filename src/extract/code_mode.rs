//! Codex code mode (Codex 0.144 and later): the model runs most tools from a script. Its call is
//! a `custom_tool_call` named `exec` whose input is JavaScript calling `tools.exec_command({cmd,
//! workdir, …})`, `tools.apply_patch("*** Begin Patch …")`, `tools.update_plan(…)` and any other
//! tool; a `wait` function call (`{cell_id, yield_time_ms, terminate}`) collects more output of
//! a cell that yielded. Read as one opaque `exec`, a session shows no command, file or test.
//!
//! What Codex writes (`codex-rs/core/src/tools/code_mode/mod.rs`): the cell's output starts with
//! a status line, `Script completed`, `Script failed`, `Script terminated` or `Script running
//! with cell ID N` (`format_script_status`), then `Wall time N seconds` and `Output:`
//! (`prepend_script_status`), then what the script passed to `text(…)`, and `Script error:` and
//! the exception when it failed. A nested `exec_command` returns an object, `{chunk_id,
//! wall_time_seconds, exit_code | session_id, original_token_count, output}` (a `session_id`
//! and no `exit_code` while the process still runs), which scripts mostly print with
//! `text(JSON.stringify(r))`. Edits are also recorded as `patch_apply_end` events with the
//! changed files (`codex-rs/rollout/src/policy.rs` keeps them in the rollout).
//!
//! Newer builds (0.171) write `item_completed` events instead: a `CommandExecution` item for
//! each command once it has ended (`command` as an argv, `cwd`, `exit_code`, `status`,
//! `aggregated_output`), and a `FileChange` item for each patch (`changes` by path, as in
//! `patch_apply_end`). They are the surest account of what ran, a command in a loop of the
//! script included; a command the script started that has no such item by the time the cell
//! returns is still running (a server started with `yield_time_ms`).

use serde::Deserialize;
use serde_json::Value;

use super::js::tool_calls;
use super::tools::{shell_command, Op};

/// True for a code-mode cell: Codex's `exec` tool with a script as its input, where a shell tool
/// of that name takes a JSON object.
pub(super) fn is_cell(name: &str, arguments: &str) -> bool {
    name == "exec" && !serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object())
}

/// The cell a `wait` call collects more output of (`{"cell_id": …}`).
pub(super) fn waited_cell(name: &str, arguments: &str) -> Option<String> {
    if name != "wait" {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).ok()?;
    match args.get("cell_id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A tool call inside a cell, with its arguments as the JSON the tool itself takes.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NestedCall {
    pub(super) name: String,
    pub(super) arguments: String,
    /// An `apply_patch` whose patch the script builds in a way not read here: the files it
    /// changed come from the `patch_apply_end` event instead.
    pub(super) unread_patch: bool,
}

/// The tool calls of a cell's script, in the order they are written, arguments in each tool's
/// own shape: a command as `{"cmd": …}`, a patch as `{"input": …}`.
pub(super) fn cell_calls(script: &str) -> Vec<NestedCall> {
    tool_calls(script)
        .into_iter()
        .map(|call| {
            let patch = call.name == "apply_patch";
            let argument = match call.argument {
                Value::String(text) if patch => serde_json::json!({ "input": text }),
                Value::String(text) if call.name == "exec_command" => {
                    serde_json::json!({ "cmd": text })
                }
                Value::String(text) => serde_json::json!({ "input": text }),
                Value::Null => serde_json::json!({}),
                other => other,
            };
            let unread_patch = patch
                && !["input", "patch"]
                    .iter()
                    .any(|k| argument.get(*k).is_some_and(Value::is_string));
            NestedCall {
                name: call.name,
                arguments: argument.to_string(),
                unread_patch,
            }
        })
        .collect()
}

/// How a cell stands after an output of its own or of a `wait` on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CellState {
    Completed,
    Failed,
    Terminated,
    /// Yielded while still running: a `wait` with this cell id collects the rest.
    Running(String),
}

/// A cell's output: its state and what the script printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CellOutput<'t> {
    pub(super) state: CellState,
    pub(super) body: &'t str,
}

/// The state and body of a cell's (or a `wait`'s) output; `None` when it has no status header.
pub(super) fn cell_output(text: &str) -> Option<CellOutput<'_>> {
    let (status, rest) = text.split_once('\n').unwrap_or((text, ""));
    let state = match status.trim() {
        "Script completed" => CellState::Completed,
        "Script failed" => CellState::Failed,
        "Script terminated" => CellState::Terminated,
        other => CellState::Running(
            other
                .strip_prefix("Script running with cell ID ")?
                .trim()
                .to_owned(),
        ),
    };
    // `Wall time N seconds` and `Output:` come next; the body follows.
    let body = match rest.find("Output:") {
        Some(at) if rest[..at].lines().count() <= 2 => &rest[at + "Output:".len()..],
        _ => rest,
    };
    Some(CellOutput {
        state,
        body: body.trim_start_matches('\n'),
    })
}

/// What one nested `exec_command` returned, as the script printed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ExecResult {
    /// The exit status, once the process has ended.
    pub(super) exit: Option<i64>,
    /// The session of a process still running.
    pub(super) session: Option<String>,
    /// What it printed.
    pub(super) output: String,
}

/// The fields of an `exec_command` result object (unknown ones are skipped unread).
#[derive(Deserialize)]
struct ResultObject {
    exit_code: Option<i64>,
    session_id: Option<Value>,
    output: Option<String>,
    wall_time_seconds: Option<Value>,
    chunk_id: Option<Value>,
}

/// The `exec_command` results a cell's body holds as JSON objects (one a line, or pretty
/// printed), in order.
pub(super) fn exec_results(body: &str) -> Vec<ExecResult> {
    let mut results = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let line_end = body[at..].find('\n').map_or(body.len(), |e| at + e + 1);
        if body[at..line_end].trim_start().starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(&body[at..]).into_iter::<Value>();
            if let Some(Ok(value)) = stream.next() {
                let end = at + stream.byte_offset();
                if let Some(result) = exec_result(value) {
                    results.push(result);
                }
                at = end;
                continue;
            }
        }
        at = line_end;
    }
    results
}

fn exec_result(value: Value) -> Option<ExecResult> {
    let object: ResultObject = serde_json::from_value(value).ok()?;
    let shaped = object.exit_code.is_some()
        || object.session_id.is_some()
        || (object.output.is_some()
            && (object.wall_time_seconds.is_some() || object.chunk_id.is_some()));
    shaped.then(|| ExecResult {
        exit: object.exit_code,
        session: match (object.exit_code, object.session_id) {
            (None, Some(Value::Number(n))) => Some(n.to_string()),
            (None, Some(Value::String(s))) => Some(s),
            _ => None,
        },
        output: object.output.unwrap_or_default(),
    })
}

/// A `patch_apply_end` event: the files the patch changed and whether it applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct PatchApplied {
    pub(super) files: Vec<(String, Op)>,
    pub(super) success: bool,
    /// The first line of what it printed on failure.
    pub(super) error: Option<String>,
}

#[derive(Deserialize)]
struct EventLine {
    payload: PatchEvent,
}

#[derive(Deserialize)]
struct PatchEvent {
    #[serde(default)]
    success: bool,
    #[serde(default)]
    stderr: String,
    #[serde(default)]
    changes: serde_json::Map<String, Value>,
}

/// The `patch_apply_end` event of a rollout line (`{"type":"event_msg","payload":{…}}`).
pub(super) fn patch_applied(raw: &[u8]) -> Option<PatchApplied> {
    let event = serde_json::from_slice::<EventLine>(raw).ok()?.payload;
    Some(applied(&event.changes, event.success, &event.stderr))
}

/// The files of a `changes` map (path → `{"type": "add" | "delete" | "update", "move_path"}`;
/// older builds write `{"add": {…}}`), and the first line of `stderr` when it failed.
fn applied(changes: &serde_json::Map<String, Value>, success: bool, stderr: &str) -> PatchApplied {
    let mut files = Vec::new();
    for (path, change) in changes {
        let kind = change
            .get("type")
            .and_then(Value::as_str)
            .or_else(|| change.as_object()?.keys().next().map(String::as_str));
        let op = match kind {
            Some("add") => Op::Create,
            Some("delete") => Op::Delete,
            _ => Op::Edit,
        };
        files.push((path.clone(), op));
        let moved = change
            .get("move_path")
            .or_else(|| change.get("update")?.get("move_path"))
            .and_then(Value::as_str);
        if let Some(moved) = moved {
            files.push((moved.to_owned(), Op::Create));
        }
    }
    let error = (!success)
        .then(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .flatten()
        .map(|l| format!("apply_patch: {}", l.trim()));
    PatchApplied {
        files,
        success,
        error,
    }
}

/// A `CommandExecution` item: a command that ran, once it has ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Executed {
    /// The command line (the script of `bash -lc`).
    pub(super) command: String,
    pub(super) exit: Option<i64>,
    pub(super) failed: bool,
    pub(super) output: String,
}

/// What an `item_completed` event says that the extract needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Completed {
    Command(Executed),
    /// The files a patch changed, and its diffs (for the names it touched).
    Files(PatchApplied, String),
}

#[derive(Deserialize)]
struct ItemLine {
    payload: ItemEvent,
}

#[derive(Deserialize)]
struct ItemEvent {
    item: Item,
}

#[derive(Deserialize)]
struct Item {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    command: Value,
    exit_code: Option<i64>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    aggregated_output: String,
    #[serde(default)]
    changes: serde_json::Map<String, Value>,
    #[serde(default)]
    stderr: String,
}

/// The command or the file changes an `item_completed` rollout line records.
pub(super) fn completed_item(raw: &[u8]) -> Option<Completed> {
    if memchr::memmem::find(raw, b"\"CommandExecution\"").is_none()
        && memchr::memmem::find(raw, b"\"FileChange\"").is_none()
    {
        return None;
    }
    let item = serde_json::from_slice::<ItemLine>(raw).ok()?.payload.item;
    match item.kind.as_str() {
        "CommandExecution" => {
            let command = shell_command(&serde_json::json!({ "command": item.command }))?;
            Some(Completed::Command(Executed {
                command,
                exit: item.exit_code,
                failed: item.status == "failed",
                output: item.aggregated_output,
            }))
        }
        "FileChange" => {
            let success = item.status != "failed";
            let mut diffs = String::new();
            for change in item.changes.values() {
                if let Some(diff) = change.get("unified_diff").and_then(Value::as_str) {
                    diffs.push_str(diff);
                    diffs.push('\n');
                }
            }
            let applied = applied(&item.changes, success, &item.stderr);
            Some(Completed::Files(applied, diffs))
        }
        _ => None,
    }
}

/// True when the records hold Codex's `item_completed` command or file events: the commands
/// and edits of the cells then come from those, not from the scripts.
pub(super) fn has_item_events(records: &[crate::transcript::Record]) -> bool {
    records.iter().any(|r| {
        matches!(&r.entry, crate::transcript::Entry::Bookkeeping(kind) if kind == ITEM_COMPLETED)
            && memchr::memmem::find(r.raw, b"\"CommandExecution\"").is_some()
    })
}

/// The bookkeeping kind of Codex's `item_completed` events.
pub(super) const ITEM_COMPLETED: &str = "event_msg/item_completed";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cells_script_holds_the_tools_it_calls() {
        let script = "const r = await tools.exec_command({cmd: \"npm test\", workdir: \"/repo\"});\ntext(JSON.stringify(r));\nawait tools.apply_patch(\"*** Begin Patch\\n*** Update File: src/a.ts\\n@@\\n-a\\n+b\\n*** End Patch\");\nawait tools.apply_patch(makePatch());\nawait tools.exec_command(\"git status\");";
        assert!(is_cell("exec", script));
        assert!(!is_cell("exec", r#"{"command":"ls"}"#));
        assert!(!is_cell("shell", script));
        assert_eq!(
            waited_cell("wait", r#"{"cell_id":"12","yield_time_ms":1000}"#).as_deref(),
            Some("12")
        );
        assert_eq!(waited_cell("wait", "{}"), None);
        let calls = cell_calls(script);
        let got: Vec<(&str, &str, bool)> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str(), c.unread_patch))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "exec_command",
                    r#"{"cmd":"npm test","workdir":"/repo"}"#,
                    false
                ),
                (
                    "apply_patch",
                    r#"{"input":"*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch"}"#,
                    false
                ),
                ("apply_patch", "{}", true),
                ("exec_command", r#"{"cmd":"git status"}"#, false),
            ]
        );
    }

    #[test]
    fn a_cells_output_has_its_state_and_the_commands_results() {
        let done = "Script completed\nWall time 3.2 seconds\nOutput:\n\n{\"chunk_id\":\"a1\",\"wall_time_seconds\":3.1,\"exit_code\":1,\"original_token_count\":9,\"output\":\"1 failed, 4 passed\"}\n{\"chunk_id\":\"b2\",\"wall_time_seconds\":0.5,\"session_id\":7,\"output\":\"ready on :3000\"}\nnot json";
        let output = cell_output(done).unwrap();
        assert_eq!(output.state, CellState::Completed);
        assert_eq!(
            exec_results(output.body),
            [
                ExecResult {
                    exit: Some(1),
                    session: None,
                    output: "1 failed, 4 passed".into()
                },
                ExecResult {
                    exit: None,
                    session: Some("7".into()),
                    output: "ready on :3000".into()
                },
            ]
        );
        let running = cell_output(
            "Script running with cell ID 12\nWall time 10.0 seconds\nOutput:\n\nphase 1",
        )
        .unwrap();
        assert_eq!(running.state, CellState::Running("12".into()));
        assert_eq!(running.body, "phase 1");
        let failed = cell_output(
            "Script failed\nWall time 0.1 seconds\nOutput:\n\nScript error:\nError: boom",
        )
        .unwrap();
        assert_eq!(failed.state, CellState::Failed);
        assert!(exec_results(failed.body).is_empty());
        assert_eq!(cell_output("plain output"), None);
        // A pretty-printed result is one result; other JSON is none.
        let pretty = "{\n  \"exit_code\": 0,\n  \"output\": \"ok\"\n}\n{\"found\": true}";
        assert_eq!(exec_results(pretty).len(), 1);
    }

    #[test]
    fn item_completed_events_hold_the_commands_and_the_files() {
        let command = br##"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","command":["/bin/bash","-lc","npm test 2>&1 | tail -n 9"],"cwd":"file:///repo","status":"failed","aggregated_output":"# fail 1","exit_code":1}}}"##;
        assert_eq!(
            completed_item(command),
            Some(Completed::Command(Executed {
                command: "npm test 2>&1 | tail -n 9".into(),
                exit: Some(1),
                failed: true,
                output: "# fail 1".into()
            }))
        );
        let files = br#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","changes":{"/repo/src/legacy.js":{"type":"delete","content":"x"},"/repo/src/app.js":{"type":"update","unified_diff":"@@\n-old()\n+patchTodo()\n","move_path":null}},"status":"completed","stdout":"Success.","stderr":""}}}"#;
        let Some(Completed::Files(applied, diffs)) = completed_item(files) else {
            panic!("no files");
        };
        let mut got = applied.files.clone();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            [
                ("/repo/src/app.js".to_owned(), Op::Edit),
                ("/repo/src/legacy.js".to_owned(), Op::Delete)
            ]
        );
        assert_eq!(diffs, "@@\n-old()\n+patchTodo()\n\n");
        let message = br#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage"}}}"#;
        assert_eq!(completed_item(message), None);
    }

    #[test]
    fn patch_apply_end_lists_the_changed_files() {
        let raw = br#"{"timestamp":"t","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"exec-1","stdout":"Success.","stderr":"","success":true,"changes":{"/repo/src/a.ts":{"type":"update","unified_diff":"@@","move_path":"/repo/src/b.ts"},"/repo/new.md":{"type":"add","content":"x"}},"status":"completed"}}"#;
        let applied = patch_applied(raw).unwrap();
        assert!(applied.success);
        let mut files = applied.files.clone();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            files,
            [
                ("/repo/new.md".to_owned(), Op::Create),
                ("/repo/src/a.ts".to_owned(), Op::Edit),
                ("/repo/src/b.ts".to_owned(), Op::Create),
            ]
        );
        let failed = br#"{"type":"event_msg","payload":{"type":"patch_apply_end","success":false,"stderr":"\nInvalid hunk at line 3\n","changes":{}}}"#;
        assert_eq!(
            patch_applied(failed).unwrap().error.as_deref(),
            Some("apply_patch: Invalid hunk at line 3")
        );
    }
}
