//! What a tool call does, from the tool's name as each agent calls it and from the argument
//! keys that name files, shell commands, patches and todo lists.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::limits::SAID_CHARS;
use super::model::Todo;
use super::text::one_line;

/// What a tool does, from its name (and, for multi-command editors, its arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tool {
    Shell,
    Read,
    Edit,
    Write,
    Delete,
    Patch,
    Search,
    Todo,
    /// A sub-agent the agent delegates to (Claude Code `Task`, kimi-cli `ReadContext`).
    Agent,
    Other,
}

/// The tool kind of a name as Claude Code, Codex, kimi-cli, pi, Gemini CLI and the common
/// OpenAI-style agents call their tools.
pub(super) fn tool_kind(name: &str, arguments: &str) -> Tool {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    // MCP and namespaced tools: `mcp__server__bash`, `functions.shell`.
    let base = lower
        .rsplit("__")
        .next()
        .unwrap_or(&lower)
        .rsplit('.')
        .next()
        .unwrap_or(&lower);
    match base {
        "bash" | "shell" | "exec_command" | "shell_command" | "local_shell"
        | "run_shell_command" | "execute_command" | "run_terminal_cmd" | "run_command"
        | "terminal" | "exec" => Tool::Shell,
        "read" | "read_file" | "readfile" | "view" | "view_file" | "notebookread"
        | "read_many_files" | "open_file" => Tool::Read,
        "edit" | "multiedit" | "multi_edit" | "edit_file" | "str_replace" | "strreplacefile"
        | "str_replace_file" | "replace" | "notebookedit" | "notebook_edit" | "search_replace" => {
            Tool::Edit
        }
        "write" | "write_file" | "writefile" | "create_file" => Tool::Write,
        "delete" | "delete_file" | "remove_file" => Tool::Delete,
        "apply_patch" | "applypatch" => Tool::Patch,
        "glob"
        | "grep"
        | "list_directory"
        | "ls"
        | "search_file_content"
        | "list_dir"
        | "file_search"
        | "find" => Tool::Search,
        "task" | "agent" | "dispatch_agent" | "spawn_agent" | "subagent" | "readcontext"
        | "read_context" => Tool::Agent,
        "todowrite" | "todo_write" | "update_plan" | "settodolist" | "set_todo_list"
        | "write_todos" | "todo" | "todos" | "todo_list" | "taskcreate" | "taskupdate"
        | "tasklist" | "taskget" => Tool::Todo,
        "str_replace_editor" | "str_replace_based_edit_tool" | "text_editor" => {
            if arguments.contains("\"view\"") {
                Tool::Read
            } else if arguments.contains("\"create\"") {
                Tool::Write
            } else {
                Tool::Edit
            }
        }
        _ => Tool::Other,
    }
}

/// What a tool call did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Read,
    Edit,
    Create,
    Delete,
    /// A write: a creation when the file was not seen before, else an edit.
    Write,
}

/// The shell command of a shell tool's arguments: `command` or `cmd`, a string or an argv
/// array (`["bash", "-lc", "script"]` is the script).
pub(super) fn shell_command(args: &Value) -> Option<String> {
    let value = args.get("command").or_else(|| args.get("cmd"))?;
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(argv) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            let shell = words.first().map(|w| w.rsplit('/').next().unwrap_or(w));
            let is_shell = matches!(shell, Some("bash" | "sh" | "zsh" | "dash"));
            if is_shell && words.len() >= 3 && words[1].starts_with('-') && words[1].contains('c') {
                return Some(words[2].to_owned());
            }
            let quoted: Vec<String> = words
                .iter()
                .map(|w| {
                    if w.is_empty() || w.contains(char::is_whitespace) {
                        format!("'{}'", w.replace('\'', "'\\''"))
                    } else {
                        (*w).to_owned()
                    }
                })
                .collect();
            (!quoted.is_empty()).then(|| quoted.join(" "))
        }
        _ => None,
    }
}

/// The path-bearing fields of a file tool's arguments. Everything else (a written file's
/// content, an edit's old and new text) is skipped unread rather than decoded, and each field
/// is kept raw so that an unexpected shape loses that field, not the call.
#[derive(Deserialize, Default)]
#[serde(default)]
struct FileArgs<'a> {
    #[serde(borrow)]
    file_path: Option<&'a RawValue>,
    #[serde(borrow)]
    path: Option<&'a RawValue>,
    #[serde(borrow)]
    notebook_path: Option<&'a RawValue>,
    #[serde(borrow)]
    absolute_path: Option<&'a RawValue>,
    #[serde(borrow, rename = "filePath")]
    file_path_camel: Option<&'a RawValue>,
    #[serde(borrow)]
    target_file: Option<&'a RawValue>,
    #[serde(borrow)]
    filename: Option<&'a RawValue>,
    #[serde(borrow)]
    file: Option<&'a RawValue>,
    #[serde(borrow)]
    paths: Option<&'a RawValue>,
    #[serde(borrow)]
    file_paths: Option<&'a RawValue>,
    #[serde(borrow)]
    files: Option<&'a RawValue>,
}

/// Paths in a file tool's arguments (JSON text): the first of its single-path fields, then the
/// entries of its list fields.
pub(super) fn argument_paths(arguments: &str) -> Vec<String> {
    let Ok(args) = serde_json::from_str::<FileArgs>(arguments) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    let single = [
        args.file_path,
        args.path,
        args.notebook_path,
        args.absolute_path,
        args.file_path_camel,
        args.target_file,
        args.filename,
        args.file,
    ];
    if let Some(path) = single
        .iter()
        .flatten()
        .find_map(|raw| serde_json::from_str::<String>(raw.get()).ok())
    {
        paths.push(path);
    }
    for list in [args.paths, args.file_paths, args.files].iter().flatten() {
        if let Ok(list) = serde_json::from_str::<Vec<Value>>(list.get()) {
            paths.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }
    paths.retain(|p| !p.trim().is_empty() && !p.contains(['*', '\n']));
    paths
}

/// Files an `apply_patch` patch names: `*** Update File:` edits, `*** Add File:` creates,
/// `*** Delete File:` deletes, `*** Move to:` creates the new name.
pub(super) fn patch_paths(patch: &str) -> Vec<(String, Op)> {
    let mut paths = Vec::new();
    for line in patch.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("*** ") else {
            continue;
        };
        let op = [
            ("Update File:", Op::Edit),
            ("Add File:", Op::Create),
            ("Delete File:", Op::Delete),
            ("Move to:", Op::Create),
        ]
        .into_iter()
        .find_map(|(head, op)| rest.strip_prefix(head).map(|p| (p.trim(), op)));
        if let Some((path, op)) = op {
            if !path.is_empty() {
                paths.push((path.to_owned(), op));
            }
        }
    }
    paths
}

/// Unfinished items of a todo tool's arguments: Claude Code `TodoWrite` (`todos[].content`),
/// Codex `update_plan` (`plan[].step`), kimi-cli `SetTodoList` (`todos[].title`), Gemini
/// `write_todos` (`todos[].description`). `None` when the arguments hold no list.
pub(super) fn todo_items(args: &Value) -> Option<Vec<Todo>> {
    let list = ["todos", "plan", "items", "tasks"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_array))?;
    let mut items: Vec<Todo> = Vec::new();
    for item in list {
        let text = match item {
            Value::String(s) => Some(s.as_str()),
            _ => ["content", "title", "step", "description", "task", "text"]
                .iter()
                .find_map(|k| item.get(*k).and_then(Value::as_str)),
        };
        let Some(text) = text else { continue };
        let status = item
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("pending")
            .to_ascii_lowercase()
            .replace([' ', '-'], "_");
        if matches!(
            status.as_str(),
            "completed" | "complete" | "done" | "cancelled" | "canceled"
        ) {
            continue;
        }
        let active = matches!(status.as_str(), "in_progress" | "active" | "doing");
        items.push(Todo {
            text: one_line(text, SAID_CHARS),
            active,
            detail: None,
        });
    }
    // In progress first, the rest in the agent's order.
    items.sort_by_key(|t| !t.active);
    Some(items)
}
/// What a sub-agent call delegates, on one line: its `description`, then its `prompt`.
pub(super) fn delegated_task(arguments: &str) -> Option<String> {
    let value: Value = serde_json::from_str(arguments).ok()?;
    let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::trim);
    let text = match (field("description"), field("prompt")) {
        (Some(d), Some(p)) if !d.is_empty() && !p.is_empty() => format!("{d}: {p}"),
        (Some(d), _) if !d.is_empty() => d.to_owned(),
        (_, Some(p)) if !p.is_empty() => p.to_owned(),
        _ => return None,
    };
    Some(one_line(&text, SAID_CHARS))
}
