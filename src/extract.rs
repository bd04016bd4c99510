//! What the next reader of a session needs, taken from the transcript with no model (pure): the
//! goal in the user's own words, the current task and what the agent was doing, the files and
//! shell commands it touched with their outcomes, the errors it met, its own next step and the
//! CI checks it looked at; and the two renderings built from them, [`caveman`] (Markdown within
//! a token budget) and [`bare`] (four lines).
//!
//! [`extract`] makes one pass over the records, after a scan for the working directory that
//! stops at the first record naming one (paths and commands are written relative to it, so it
//! must be known before the first of them). Tool results are paired with their calls by id
//! ([`Message::call_ids`] / [`Message::answered_ids`]), and by order where a format stores no
//! id. Everything is recognised by small matchers over the fixed shapes agents and tools write
//! (tool names and argument keys, test-runner summary lines, exit-status lines), never by a model
//! or a regex engine, so extraction costs about as much as reading the file.
//!
//! The [`Extract`] keeps the record index of each entity's last use and is `Serialize`, so a
//! benchmark can run it on any prefix of a session and score what survives.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::{Message, Part, Record, Role};

/// Characters kept of the goal in the [`Extract`]; the renderers cut further to fit.
const GOAL_CHARS: usize = 600;
/// Characters kept of a request, an assistant text or a plan sentence.
const SAID_CHARS: usize = 300;
/// Characters kept of an error line.
const ERROR_CHARS: usize = 160;
/// Error lines kept from one tool result: a compiler failing on 40 lines repeats itself.
const ERRORS_PER_RESULT: usize = 3;
/// A request lighter than this (CJK characters weigh two) leans on the one before it
/// ("continue", "yeah, do it all"), so the task carries that one too.
const SHORT_REQUEST: usize = 40;
/// Bytes of text a plan sentence may be followed by in the agent's last message.
const PLAN_TAIL: usize = 200;

/// A piece of text and the index of the record it was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Said {
    /// The text on one line, control characters removed, cut to a sane length.
    pub text: String,
    /// The record it comes from.
    pub index: usize,
}

/// A file the agent touched, with how often it did what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileUse {
    /// The path, relative to the session's working directory when it lies inside it.
    pub path: String,
    /// Reads (read tools, and shell commands that only name the file).
    pub read: u32,
    /// Edits (edit tools, patches, `sed -i`, writes over a file seen before).
    pub edit: u32,
    /// Creations (writes to a file not seen before, patch `Add File`, `touch`, `>`).
    pub create: u32,
    /// Deletions (patch `Delete File`, `rm`).
    pub delete: u32,
    /// The record index of its last use.
    pub last: usize,
}

impl FileUse {
    /// True when the agent changed the file, not only read it.
    pub fn written(&self) -> bool {
        self.edit + self.create + self.delete > 0
    }

    /// The counts as caveman labels: `r2 e3 c1 d1`, zero counts left out.
    pub fn label(&self) -> String {
        let counts = [
            ("r", self.read),
            ("e", self.edit),
            ("c", self.create),
            ("d", self.delete),
        ];
        let labels: Vec<String> = counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(l, n)| format!("{l}{n}"))
            .collect();
        labels.join(" ")
    }
}

/// Passed and failed tests a runner reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TestCounts {
    /// Passed tests (go test without `-v`: passed packages).
    pub passed: u64,
    /// Failed tests, errors included (go test without `-v`: failed packages).
    pub failed: u64,
}

/// How one run of a command ended, as far as its result says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    /// The exit status, when the result states it.
    pub exit: Option<i64>,
    /// Whether it succeeded: the exit status, the format's error flag, failed tests; `None`
    /// when nothing says.
    pub ok: Option<bool>,
    /// Test counts parsed from the output.
    pub tests: Option<TestCounts>,
    /// The record index of the result.
    pub index: usize,
}

impl RunOutcome {
    /// The outcome as a caveman label: `8pass 2fail`, `exit 1`, `ok`, `fail`, or empty.
    pub fn label(&self) -> String {
        if let Some(tests) = self.tests {
            return if tests.failed > 0 {
                format!("{}pass {}fail", tests.passed, tests.failed)
            } else {
                format!("{}pass", tests.passed)
            };
        }
        match (self.exit, self.ok) {
            (Some(0), _) | (None, Some(true)) => "ok".to_owned(),
            (Some(code), _) => format!("exit {code}"),
            (None, Some(false)) => "fail".to_owned(),
            (None, None) => String::new(),
        }
    }
}

/// A distinct shell command the agent (or the user, through the agent's shell) ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommandUse {
    /// The exact command, without a leading `cd <working directory> &&`.
    pub command: String,
    /// How many times it ran.
    pub runs: u32,
    /// The record index of its last call.
    pub last: usize,
    /// How its last run ended; `None` until a result arrives.
    pub outcome: Option<RunOutcome>,
    /// A test runner: named like one, or its output had test counts.
    pub test: bool,
    /// Only looks at things (`ls`, `cat`, `grep`, `git status` …).
    pub inspect: bool,
}

/// A distinct error line from a command's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErrorSeen {
    /// The first line of the error.
    pub text: String,
    /// The command whose output held it.
    pub command: Option<String>,
    /// How many results held it.
    pub count: u32,
    /// The record index of the last one.
    pub last: usize,
    /// A later run of the same command succeeded.
    pub resolved: bool,
}

/// An unfinished item of the agent's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Todo {
    /// What it says.
    pub text: String,
    /// Marked in progress.
    pub active: bool,
}

/// A CI check or workflow the session looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CiCheck {
    /// The check (job) name.
    pub check: Option<String>,
    /// The workflow: a `.github/workflows/` file name, or the name `gh run` prints.
    pub workflow: Option<String>,
    /// The state `gh` printed (`pass`, `fail`, `success`, `failure` …).
    pub status: Option<String>,
    /// The record index where it was last seen.
    pub last: usize,
}

impl CiCheck {
    fn failed(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| matches!(s, "fail" | "failure" | "failed" | "error" | "X" | "✗"))
    }

    /// `check@workflow`, with `?` for an unknown part, and `→ status` when known.
    pub fn label(&self) -> String {
        let mut label = format!(
            "{}@{}",
            self.check.as_deref().unwrap_or("?"),
            self.workflow.as_deref().unwrap_or("?")
        );
        if let Some(status) = &self.status {
            label.push_str(" → ");
            label.push_str(status);
        }
        label
    }
}

/// Everything extracted from a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Extract {
    /// Main-chain messages.
    pub messages: usize,
    /// Tool calls, sub-agents' included.
    pub calls: usize,
    /// Real user requests.
    pub requests: usize,
    /// The session's working directory: the first `cwd` a record names, else the directory
    /// most commands `cd` into. Paths and commands are written relative to it.
    pub root: Option<String>,
    /// The first real user request, in the user's words.
    pub goal: Option<Said>,
    /// The latest real user request.
    pub task: Option<Said>,
    /// When the latest request is short, the latest longer one before it, which it leans on.
    pub context: Option<Said>,
    /// The agent's last text.
    pub doing: Option<Said>,
    /// The agent's last tool call, as a label (`$ cargo test`, `edit src/a.rs`).
    pub last_call: Option<Said>,
    /// Files, written ones first, then by most recent use.
    pub files: Vec<FileUse>,
    /// Commands: failed last runs, then test runners, then others, then inspections; each
    /// group by most recent use.
    pub commands: Vec<CommandUse>,
    /// Errors: unresolved first, each group by most recent.
    pub errors: Vec<ErrorSeen>,
    /// Unfinished items of the agent's latest todo list, in progress first.
    pub todos: Vec<Todo>,
    /// The record index of that todo list.
    pub todo_at: Option<usize>,
    /// The agent's stated next step ("Next, I will …", "Now let me …") in its last text, when
    /// that text follows the latest request.
    pub plan: Option<Said>,
    /// CI checks and workflows, most recent first.
    pub ci: Vec<CiCheck>,
    /// The transcript ends on the agent's answer: its turn is over.
    pub answered: bool,
    /// Code names (identifiers, types, file names) the session mentions most, most frequent
    /// first: what a continuing agent will meet again.
    pub names: Vec<String>,
}

impl Extract {
    /// The current task on one line: the latest request, after the one it leans on.
    pub fn now(&self) -> Option<String> {
        let task = self.task.as_ref()?;
        Some(match &self.context {
            Some(context) => format!("{} | {}", context.text, task.text),
            None => task.text.clone(),
        })
    }

    /// The next action: the newer of the agent's stated plan and its first open todo; else
    /// `await user` when its turn is over, or `continue <last call>` when it stopped mid-work.
    pub fn next(&self) -> Option<String> {
        let todo = self
            .todos
            .first()
            .map(|t| (t.text.clone(), self.todo_at.unwrap_or(0)));
        let plan = self.plan.as_ref().map(|p| (p.text.clone(), p.index));
        let newest = match (plan, todo) {
            (Some(p), Some(t)) => Some(if p.1 >= t.1 { p } else { t }),
            (p, t) => p.or(t),
        };
        if let Some((text, _)) = newest {
            return Some(text);
        }
        if self.answered {
            return Some("await user".to_owned());
        }
        self.last_call
            .as_ref()
            .map(|call| format!("continue {}", call.text))
    }

    /// The test command to report: the most recent one with test counts, else the most recent
    /// one with any outcome.
    pub fn test_command(&self) -> Option<&CommandUse> {
        let tests = self.commands.iter().filter(|c| c.test);
        let counted = tests
            .clone()
            .filter(|c| c.outcome.is_some_and(|o| o.tests.is_some()))
            .max_by_key(|c| c.last);
        counted.or_else(|| tests.max_by_key(|c| c.last))
    }

    /// The CI check to report: the most recent failing one, else the most recent, with the
    /// most recent workflow name filled in when the check has none.
    pub fn ci_check(&self) -> Option<CiCheck> {
        let check = self
            .ci
            .iter()
            .filter(|c| c.failed())
            .max_by_key(|c| c.last)
            .or_else(|| self.ci.iter().max_by_key(|c| c.last))?;
        let mut check = check.clone();
        if check.workflow.is_none() {
            check.workflow = self
                .ci
                .iter()
                .filter(|c| c.workflow.is_some())
                .max_by_key(|c| c.last)
                .and_then(|c| c.workflow.clone());
        }
        Some(check)
    }
}

/// Extracts the entities of a transcript (its records in order).
pub fn extract(records: &[Record]) -> Extract {
    let mut builder = Builder::new(find_root(records));
    for (index, record) in records.iter().enumerate() {
        if let Some(message) = record.message() {
            builder.message(index, record, message);
        }
    }
    let mut extract = builder.finish(records);
    extract.names = frequent_names(records, NAMES);
    extract
}

/// How many frequent names an extract keeps.
const NAMES: usize = 120;

/// The code names main-chain messages mention at least twice, most frequent first (ties in
/// first-seen order). A name is a word with an inner `_` (`parse_jsonl`), a camelCase or
/// PascalCase word with two humps (`checkConcurrentSessions`, `TodoItem`), or a file name with
/// an extension (`CLAUDE.md`): the words an agent searches for, not prose.
pub fn frequent_names(records: &[Record], limit: usize) -> Vec<String> {
    let mut counts: std::collections::HashMap<&str, (usize, usize)> =
        std::collections::HashMap::new();
    let mut order = 0;
    for message in records.iter().filter_map(Record::message) {
        if message.sidechain {
            continue;
        }
        for part in &message.parts {
            let text = match part {
                Part::Text(text) | Part::Thinking(text) | Part::ToolResult { text, .. } => text,
                Part::ToolCall { arguments, .. } => arguments,
                _ => continue,
            };
            // A word right after a backslash is the rest of an escape in JSON arguments
            // (`\nPlease`): it is no name.
            let words = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .map(|w| w.trim_matches('.'));
            for word in words.filter(|w| is_code_name(w) && !escaped(text, w)) {
                order += 1;
                counts.entry(word).or_insert((0, order)).0 += 1;
            }
        }
    }
    let mut ranked: Vec<(&str, (usize, usize))> =
        counts.into_iter().filter(|(_, (n, _))| *n >= 2).collect();
    ranked.sort_by_key(|&(_, (n, first))| (std::cmp::Reverse(n), first));
    ranked
        .into_iter()
        .take(limit)
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// True when `word` (a slice of `text`) directly follows a backslash.
fn escaped(text: &str, word: &str) -> bool {
    let start = word.as_ptr() as usize - text.as_ptr() as usize;
    text[..start].ends_with('\\')
}

/// True for a word that names something in code (see [`frequent_names`]).
fn is_code_name(word: &str) -> bool {
    let Some(first) = word.chars().next() else {
        return false;
    };
    if !(4..=60).contains(&word.len()) || !(first.is_ascii_alphabetic() || first == '_') {
        return false;
    }
    if let Some((stem, extension)) = word.rsplit_once('.') {
        return !stem.is_empty()
            && (1..=5).contains(&extension.len())
            && extension.chars().all(|c| c.is_ascii_alphabetic())
            && !stem.ends_with('.');
    }
    let lower = word.chars().filter(char::is_ascii_lowercase).count();
    let inner_upper = word
        .chars()
        .skip(1)
        .filter(char::is_ascii_uppercase)
        .count();
    let snake = word.trim_matches('_').contains('_') && lower > 0;
    let camel = first.is_ascii_lowercase() && inner_upper >= 1;
    let pascal = first.is_ascii_uppercase() && inner_upper >= 1 && lower >= 2;
    snake || camel || pascal
}

/// What a tool does, from its name (and, for multi-command editors, its arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Shell,
    Read,
    Edit,
    Write,
    Delete,
    Patch,
    Search,
    Todo,
    Other,
}

/// The tool kind of a name as Claude Code, Codex, kimi-cli, pi, Gemini CLI and the common
/// OpenAI-style agents call their tools.
fn tool_kind(name: &str, arguments: &str) -> Tool {
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
        "todowrite" | "todo_write" | "update_plan" | "settodolist" | "set_todo_list"
        | "write_todos" | "todo" | "todos" | "todo_list" => Tool::Todo,
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
enum Op {
    Read,
    Edit,
    Create,
    Delete,
    /// A write: a creation when the file was not seen before, else an edit.
    Write,
}

/// A call waiting for its result.
struct Pending {
    /// The command's index in the builder's list, for a shell call.
    command: Option<usize>,
    answered: bool,
}

/// The state of the one pass: the extract so far, indexes into its lists by key, and the calls
/// still waiting for results.
struct Builder {
    ex: Extract,
    root: Option<String>,
    files: HashMap<String, usize>,
    commands: HashMap<String, usize>,
    errors: HashMap<String, usize>,
    ci: HashMap<(Option<String>, Option<String>), usize>,
    pending: Vec<Pending>,
    by_id: HashMap<String, usize>,
    /// The first call that may still be unanswered, for pairing by order.
    cursor: usize,
    /// The requests that matter as found (record index, full text), cut to length once at the
    /// end; and the last assistant message with text, read again at the end.
    goal: Option<(usize, String)>,
    task: Option<(usize, String)>,
    substantive: Option<(usize, String)>,
    context: Option<(usize, String)>,
    last_text: Option<usize>,
}

impl Builder {
    fn new(root: Option<String>) -> Self {
        Builder {
            ex: Extract {
                root: root.clone(),
                ..Extract::default()
            },
            root,
            files: HashMap::new(),
            commands: HashMap::new(),
            errors: HashMap::new(),
            ci: HashMap::new(),
            pending: Vec::new(),
            by_id: HashMap::new(),
            cursor: 0,
            goal: None,
            task: None,
            substantive: None,
            context: None,
            last_text: None,
        }
    }

    /// One message. Requests, the agent's words and its last call come from the main chain
    /// only; tool calls and results of sub-agents count too, because they touch the same files.
    fn message(&mut self, index: usize, record: &Record, message: &Message) {
        let main = !message.sidechain;
        if main {
            self.ex.messages += 1;
        }
        if main && message.role == Role::User {
            if let Some(request) = request_text(record, message) {
                self.request(index, request);
            }
        }
        if main && message.role == Role::Assistant {
            let has_text = message
                .parts
                .iter()
                .any(|p| matches!(p, Part::Text(t) if !t.trim().is_empty()));
            let has_call = message
                .parts
                .iter()
                .any(|p| matches!(p, Part::ToolCall { .. }));
            if has_text {
                self.last_text = Some(index);
            }
            if has_text || has_call {
                self.ex.answered = has_text && !has_call;
            }
        } else if main && message.role != Role::System {
            self.ex.answered = false;
        }
        // pi's `bashExecution`: a command the user ran, sent as a user message with its output.
        if message.role == Role::User && message.call_id.is_none() {
            let command = message.parts.iter().find_map(|p| match p {
                Part::Text(t) => Some(t),
                _ => None,
            });
            let output = message.parts.iter().find_map(|p| match p {
                Part::ToolResult {
                    call_id: None,
                    text,
                } => Some(text),
                _ => None,
            });
            if let (Some(command), Some(output)) = (command, output) {
                let command = self.command(index, command);
                self.shell_result(index, record, command, output, 1);
                return;
            }
        }
        let results = message
            .parts
            .iter()
            .filter(|p| matches!(p, Part::ToolResult { .. }))
            .count();
        if let Some(id) = message.call_id.as_deref() {
            // The whole message answers one call (OpenAI `tool`, pi `toolResult`).
            let texts: Vec<&str> = message
                .parts
                .iter()
                .filter_map(|part| match part {
                    Part::Text(t) | Part::ToolResult { text: t, .. } => Some(t.as_ref()),
                    _ => None,
                })
                .collect();
            let text = match texts.as_slice() {
                [one] => std::borrow::Cow::Borrowed(*one),
                many => std::borrow::Cow::Owned(many.join("\n")),
            };
            self.result(index, record, Some(id), &text, 1);
        } else if message.role == Role::Tool && results == 0 {
            // A result keyed by nothing (OpenAI's legacy `function` role): pair by order.
            self.result(index, record, None, &text_of(message), 1);
        }
        for part in &message.parts {
            match part {
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => self.call(index, main, id.as_deref(), name, arguments),
                Part::ToolResult { call_id, text } if message.call_id.is_none() => {
                    self.result(index, record, call_id.as_deref(), text, results);
                }
                _ => {}
            }
        }
    }

    fn request(&mut self, index: usize, text: String) {
        self.ex.requests += 1;
        if self.goal.is_none() {
            self.goal = Some((index, text.clone()));
        }
        if weight(&text) < SHORT_REQUEST {
            self.context = self.substantive.clone();
        } else {
            self.context = None;
            self.substantive = Some((index, text.clone()));
        }
        self.task = Some((index, text));
        self.ex.answered = false;
    }

    fn call(&mut self, index: usize, main: bool, id: Option<&str>, name: &str, arguments: &str) {
        self.ex.calls += 1;
        for workflow in workflow_files(arguments) {
            self.ci_seen(index, None, Some(workflow), None);
        }
        let kind = tool_kind(name, arguments);
        let mut command = None;
        let mut label = None;
        match kind {
            Tool::Shell => {
                let args = serde_json::from_str::<Value>(arguments).ok();
                if let Some(text) = args.as_ref().and_then(shell_command) {
                    if has(&text, "*** Begin Patch") {
                        for (path, op) in patch_paths(&text) {
                            self.file(index, &path, op);
                        }
                    }
                    for (path, op) in shell_paths(&text) {
                        self.file(index, &path, op);
                    }
                    let c = self.command(index, &text);
                    label = Some(format!("$ {}", one_line(&self.ex.commands[c].command, 120)));
                    command = Some(c);
                }
            }
            Tool::Patch => {
                let text = serde_json::from_str::<Value>(arguments)
                    .ok()
                    .and_then(|v| {
                        ["input", "patch"]
                            .iter()
                            .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_owned))
                    })
                    .unwrap_or_else(|| arguments.to_owned());
                let paths = patch_paths(&text);
                for (path, op) in &paths {
                    self.file(index, path, *op);
                }
                label = Some(match paths.first() {
                    Some((path, _)) => format!("patch {}", self.relative(path)),
                    None => "patch".to_owned(),
                });
            }
            Tool::Read | Tool::Edit | Tool::Write | Tool::Delete | Tool::Search => {
                let op = match kind {
                    Tool::Read | Tool::Search => Op::Read,
                    Tool::Edit => Op::Edit,
                    Tool::Write => Op::Write,
                    _ => Op::Delete,
                };
                let mut first = None;
                for path in argument_paths(arguments) {
                    // A search names a directory or a pattern; only a file counts as read.
                    if kind == Tool::Search && !is_pathlike(&path) {
                        continue;
                    }
                    self.file(index, &path, op);
                    first.get_or_insert(path);
                }
                let verb = match kind {
                    Tool::Read => "read",
                    Tool::Edit => "edit",
                    Tool::Write => "write",
                    Tool::Delete => "delete",
                    _ => "search",
                };
                label = Some(match first {
                    Some(path) => format!("{verb} {}", self.relative(&path)),
                    None => verb.to_owned(),
                });
            }
            Tool::Todo => {
                if let Some(todos) = serde_json::from_str::<Value>(arguments)
                    .ok()
                    .as_ref()
                    .and_then(todo_items)
                {
                    self.ex.todos = todos;
                    self.ex.todo_at = Some(index);
                }
                label = Some("todo".to_owned());
            }
            Tool::Other => {}
        }
        if main {
            let text = label.unwrap_or_else(|| one_line(name, 60));
            self.ex.last_call = Some(Said { text, index });
        }
        let slot = self.pending.len();
        self.pending.push(Pending {
            command,
            answered: false,
        });
        if let Some(id) = id {
            self.by_id.insert(id.to_owned(), slot);
        }
    }

    /// A tool result: finds its call by id, else the oldest unanswered call.
    fn result(
        &mut self,
        index: usize,
        record: &Record,
        id: Option<&str>,
        text: &str,
        results: usize,
    ) {
        // Claude Code files the user's words on a rejected tool use as its result.
        if let Some(words) = rejection_words(text) {
            self.request(index, words);
        }
        let by_id = id.and_then(|id| self.by_id.get(id).copied());
        let slot = match by_id {
            Some(slot) => Some(slot),
            None => {
                while self.cursor < self.pending.len() && self.pending[self.cursor].answered {
                    self.cursor += 1;
                }
                (self.cursor < self.pending.len()).then_some(self.cursor)
            }
        };
        let Some(slot) = slot else { return };
        self.pending[slot].answered = true;
        if let Some(command) = self.pending[slot].command {
            self.shell_result(index, record, command, text, results);
        }
    }

    /// The output of a run of command number `command`.
    fn shell_result(
        &mut self,
        index: usize,
        record: &Record,
        command: usize,
        text: &str,
        results: usize,
    ) {
        let plain = plain_text(text);
        let exit = exit_status(&plain);
        // Claude Code and pi flag a failed tool result on the line; only trusted when the
        // line holds this one result.
        let flag = if results == 1 {
            error_flag(record.raw)
        } else {
            None
        };
        let tests = test_counts(&plain);
        let mut ok = match exit {
            Some(code) => Some(code == 0),
            None => flag.map(|failed| !failed),
        };
        if tests.is_some_and(|t| t.failed > 0) {
            ok = Some(false);
        }
        // What `cat` or `grep` shows is the file's text, not the command's errors, unless the
        // command itself failed.
        let errors = if self.ex.commands[command].inspect && ok != Some(false) {
            Vec::new()
        } else {
            error_lines(&plain)
        };
        // Error lines mean failure even after a zero exit: `build | head` exits with `head`.
        let succeeded = ok != Some(false) && errors.is_empty();
        let key = self.ex.commands[command].command.clone();
        {
            let entry = &mut self.ex.commands[command];
            entry.outcome = Some(RunOutcome {
                exit,
                ok,
                tests,
                index,
            });
            entry.test |= tests.is_some();
        }
        if succeeded {
            for error in &mut self.ex.errors {
                if error.command.as_deref() == Some(key.as_str()) {
                    error.resolved = true;
                }
            }
        }
        for line in errors {
            self.error(index, line, &key);
        }
        if is_gh_ci(&key) {
            for (check, workflow, status) in gh_checks(&key, &plain) {
                self.ci_seen(index, check, workflow, status);
            }
        }
    }

    fn error(&mut self, index: usize, text: String, command: &str) {
        match self.errors.get(&text) {
            Some(&slot) => {
                let error = &mut self.ex.errors[slot];
                error.count += 1;
                error.last = index;
                error.resolved = false;
                error.command = Some(command.to_owned());
            }
            None => {
                self.errors.insert(text.clone(), self.ex.errors.len());
                self.ex.errors.push(ErrorSeen {
                    text,
                    command: Some(command.to_owned()),
                    count: 1,
                    last: index,
                    resolved: false,
                });
            }
        }
    }

    fn ci_seen(
        &mut self,
        index: usize,
        check: Option<String>,
        workflow: Option<String>,
        status: Option<String>,
    ) {
        let key = (check.clone(), workflow.clone());
        match self.ci.get(&key) {
            Some(&slot) => {
                let seen = &mut self.ex.ci[slot];
                seen.last = index;
                if status.is_some() {
                    seen.status = status;
                }
            }
            None => {
                self.ci.insert(key, self.ex.ci.len());
                self.ex.ci.push(CiCheck {
                    check,
                    workflow,
                    status,
                    last: index,
                });
            }
        }
    }

    /// The command's index in the list, counting this run.
    fn command(&mut self, index: usize, text: &str) -> usize {
        let key = strip_cd(text.trim(), self.root.as_deref());
        let slot = match self.commands.get(&key) {
            Some(&slot) => slot,
            None => {
                self.commands.insert(key.clone(), self.ex.commands.len());
                self.ex.commands.push(CommandUse {
                    test: is_test_command(&key),
                    inspect: is_inspection(&key),
                    command: key,
                    ..CommandUse::default()
                });
                self.ex.commands.len() - 1
            }
        };
        let entry = &mut self.ex.commands[slot];
        entry.runs += 1;
        entry.last = index;
        slot
    }

    fn relative(&self, path: &str) -> String {
        relative(path, self.root.as_deref())
    }

    fn file(&mut self, index: usize, path: &str, op: Op) {
        let path = self.relative(path);
        // A path is printed as it is, so one with control characters (an escape sequence
        // could drive the reader's terminal) is no path worth keeping.
        if path.is_empty() || path == "." || path.contains(char::is_control) {
            return;
        }
        let slot = match self.files.get(&path) {
            Some(&slot) => slot,
            None => {
                self.files.insert(path.clone(), self.ex.files.len());
                self.ex.files.push(FileUse {
                    path,
                    ..FileUse::default()
                });
                self.ex.files.len() - 1
            }
        };
        let file = &mut self.ex.files[slot];
        let seen = file.read + file.edit + file.create + file.delete > 0;
        match op {
            Op::Read => file.read += 1,
            Op::Edit => file.edit += 1,
            Op::Create => file.create += 1,
            Op::Delete => file.delete += 1,
            Op::Write if seen => file.edit += 1,
            Op::Write => file.create += 1,
        }
        file.last = index;
    }

    fn finish(mut self, records: &[Record]) -> Extract {
        let said = |(index, text): (usize, String), max: usize| Said {
            text: one_line(&text, max),
            index,
        };
        self.ex.goal = self.goal.map(|g| said(g, GOAL_CHARS));
        self.ex.task = self.task.map(|t| said(t, SAID_CHARS));
        self.ex.context = self.context.map(|c| said(c, SAID_CHARS));
        if let Some(index) = self.last_text {
            let text = records[index].message().map(text_of).unwrap_or_default();
            self.ex.doing = Some(Said {
                text: one_line(&text, SAID_CHARS),
                index,
            });
            let after_request = self.ex.task.as_ref().is_none_or(|t| t.index < index);
            if after_request {
                self.ex.plan = plan_sentence(&text).map(|s| Said {
                    text: one_line(s, SAID_CHARS),
                    index,
                });
            }
        }
        let ex = &mut self.ex;
        // Changes weigh more than reads, and recent use up to twice as much as the first
        // record: the files a session is about, with the ones it is on now ahead.
        let n = records.len().max(1) as u64;
        let rank = |f: &FileUse| {
            let uses = u64::from(3 * f.edit + 2 * f.create + 2 * f.delete + f.read);
            uses * (n + f.last as u64) / n
        };
        ex.files
            .sort_by(|a, b| rank(b).cmp(&rank(a)).then(b.last.cmp(&a.last)));
        let group = |c: &CommandUse| {
            let failed = c.outcome.is_some_and(|o| o.ok == Some(false));
            match (failed, c.test, c.inspect) {
                (true, _, _) => 0,
                (false, true, _) => 1,
                (false, false, false) => 2,
                (false, false, true) => 3,
            }
        };
        ex.commands
            .sort_by(|a, b| group(a).cmp(&group(b)).then(b.last.cmp(&a.last)));
        ex.errors
            .sort_by(|a, b| a.resolved.cmp(&b.resolved).then(b.last.cmp(&a.last)));
        ex.ci.sort_by_key(|c| std::cmp::Reverse(c.last));
        self.ex
    }
}

/// The user's own words in a user message, when it is a request: a real request, or the
/// arguments of a slash command. Claude Code's `isMeta` lines (a slash command's expanded
/// prompt, caveats) and bare harness commands (`/mode`) are not requests.
fn request_text(record: &Record, message: &Message) -> Option<String> {
    if memchr::memmem::find(record.raw, b"\"isMeta\":true").is_some() {
        return None;
    }
    let text = text_of(message);
    if has(&text, "<command-name>") {
        let name = between(&text, "<command-name>", "</command-name>")?.trim();
        let args = between(&text, "<command-args>", "</command-args>")?.trim();
        return (!args.is_empty()).then(|| format!("{name} {args}"));
    }
    if !is_real_user_request(message) {
        return None;
    }
    let trimmed = text.trim();
    let harness_command = trimmed.starts_with('/') && !trimmed.contains(char::is_whitespace);
    if harness_command || trimmed.starts_with("[Request interrupted") {
        return None;
    }
    Some(trimmed.to_owned())
}

/// What the user said when rejecting a tool use, in Claude Code's wording.
fn rejection_words(text: &str) -> Option<String> {
    const MARK: &str = "To tell you how to proceed, the user said:";
    let at = memchr::memmem::find(text.as_bytes(), MARK.as_bytes())?;
    let words = text[at + MARK.len()..].trim();
    (!words.is_empty()).then(|| words.to_owned())
}

/// True when `needle` occurs in `hay` (memchr's search: no per-call set-up worth the name,
/// unlike `str::contains` with a string pattern).
fn has(hay: &str, needle: &str) -> bool {
    memchr::memmem::find(hay.as_bytes(), needle.as_bytes()).is_some()
}

fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// A text's length in columns, roughly: CJK and other wide characters count two.
fn weight(text: &str) -> usize {
    text.trim()
        .chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

/// The sentence of `text` that states a next step, the last such one.
fn plan_sentence(text: &str) -> Option<&str> {
    const MARKS: [&str; 13] = [
        "next, ",
        "next i ",
        "next step",
        "next up",
        "now let me ",
        "now let's ",
        "now i'll ",
        "now i will ",
        "let me ",
        "let's ",
        "i'll ",
        "i will ",
        "then i'll ",
    ];
    let mut best: Option<(usize, usize)> = None;
    for (start, end) in sentences(text) {
        let sentence = text[start..end].trim_start_matches(|c: char| !c.is_alphanumeric());
        let lower = sentence
            .get(..sentence.len().min(24))
            .unwrap_or(sentence)
            .to_ascii_lowercase();
        // A promise the same text goes on to keep ("Let me summarize: …" and the summary) is
        // not a next step: only a sentence near the end counts.
        let near_end = text[end..].trim().len() <= PLAN_TAIL;
        if near_end && MARKS.iter().any(|m| lower.starts_with(m)) {
            best = Some((end - sentence.len(), end));
        }
    }
    best.map(|(start, end)| text[start..end].trim())
}

/// Byte ranges of the sentences of a text: split after `.`, `!`, `?`, `:` followed by
/// whitespace, and at newlines.
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let boundary = b == b'\n'
            || (matches!(b, b'.' | b'!' | b'?' | b':')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()));
        if boundary {
            let end = if b == b'\n' { i } else { i + 1 };
            if text[start..end].trim().len() > 1 {
                out.push((start, end));
            }
            start = i + 1;
        }
    }
    if text[start..].trim().len() > 1 {
        out.push((start, text.len()));
    }
    out
}

/// The text on one line: terminal escape sequences and control characters removed, runs of
/// whitespace made one space, cut to `max` characters at a word boundary when one is near,
/// marked `…` when cut.
pub fn one_line(text: &str, max: usize) -> String {
    let plain = plain_text(text);
    let mut out = String::with_capacity(plain.len().min(max * 4));
    let mut space = false;
    for c in plain.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !c.is_control() {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    cut(&out, max)
}

/// `text` cut to at most `max` characters, `…` included, at a space when one is near.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let end = text
        .char_indices()
        .nth(max - 1)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // Back off to a space only when the cut splits a word, and only by a word's length.
    let splits_word = !text[end..].starts_with(' ');
    let head = match head.rfind(' ') {
        Some(space) if splits_word && space > 0 && head[space..].chars().count() <= 16 => {
            &head[..space]
        }
        _ => head,
    };
    format!("{}…", head.trim_end())
}

/// The text with ANSI escape sequences and carriage returns removed.
fn plain_text(text: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr2(0x1b, b'\r', text.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {}
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The session's working directory: the first `"cwd"` a line records (Claude Code, Codex, pi),
/// else the absolute directory that commands `cd` into most often (at least twice).
fn find_root(records: &[Record]) -> Option<String> {
    for record in records {
        for needle in [&b"\"cwd\":\""[..], &b"\"cwd\": \""[..]] {
            if let Some(at) = memchr::memmem::find(record.raw, needle) {
                let start = at + needle.len() - 1;
                if let Some(root) = json_string_at(&record.raw[start..]) {
                    let root = root.trim_end_matches('/');
                    if root.starts_with('/') && root.len() > 1 && !root.contains(char::is_control) {
                        return Some(root.to_owned());
                    }
                }
            }
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for record in records {
        let Some(message) = record.message() else {
            continue;
        };
        for part in &message.parts {
            if let Part::ToolCall { arguments, .. } = part {
                if let Some(at) = memchr::memmem::find(arguments.as_bytes(), b"cd /") {
                    let rest = &arguments[at + 3..];
                    let end = rest
                        .find([' ', '&', ';', '"', '\\', '\n', '|', ')'])
                        .unwrap_or(rest.len());
                    *counts.entry(&rest[..end]).or_default() += 1;
                }
            }
        }
    }
    counts
        .into_iter()
        .filter(|(dir, n)| *n >= 2 && dir.len() > 1)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|(dir, _)| dir.trim_end_matches('/').to_owned())
}

/// The JSON string starting at `bytes[0]` (a quote), decoded.
fn json_string_at(bytes: &[u8]) -> Option<String> {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return serde_json::from_slice(&bytes[..=i]).ok(),
            _ => i += 1,
        }
    }
    None
}

/// `path` relative to `root` when it lies inside it, without a leading `./`.
fn relative(path: &str, root: Option<&str>) -> String {
    let path = path.trim();
    let path = match root {
        Some(root) if path == root => ".",
        Some(root) => path
            .strip_prefix(root)
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path),
        None => path,
    };
    path.strip_prefix("./").unwrap_or(path).to_owned()
}

/// The command without a leading `cd <root> &&` (or `;`), and with a `cd` into a directory
/// below the root written relative to it: the root is stated once instead.
fn strip_cd(command: &str, root: Option<&str>) -> String {
    let unchanged = || command.to_owned();
    let (Some(root), Some(rest)) = (root, command.strip_prefix("cd ")) else {
        return unchanged();
    };
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ';' || c == '&')
        .unwrap_or(rest.len());
    let after = rest[end..].trim_start();
    let Some(after) = after.strip_prefix("&&").or_else(|| after.strip_prefix(';')) else {
        return unchanged();
    };
    let after = after.trim_start();
    let dir = rest[..end].trim_matches(['"', '\'']).trim_end_matches('/');
    if dir == root {
        return after.to_owned();
    }
    match dir.strip_prefix(root).and_then(|d| d.strip_prefix('/')) {
        Some(below) => format!("cd {below} && {after}"),
        None => unchanged(),
    }
}

/// The shell command of a shell tool's arguments: `command` or `cmd`, a string or an argv
/// array (`["bash", "-lc", "script"]` is the script).
fn shell_command(args: &Value) -> Option<String> {
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
fn argument_paths(arguments: &str) -> Vec<String> {
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
fn patch_paths(patch: &str) -> Vec<(String, Op)> {
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

/// Workflow file names (`ci.yml`) under `.github/workflows/` in a text.
fn workflow_files(text: &str) -> Vec<String> {
    const DIR: &str = ".github/workflows/";
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), DIR.as_bytes()) {
        rest = &rest[at + DIR.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if (name.ends_with(".yml") || name.ends_with(".yaml")) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

fn is_gh_ci(command: &str) -> bool {
    has(command, "gh pr checks") || has(command, "gh run ")
}

/// Checks in the output of `gh pr checks` and `gh run list|view|watch`:
/// `(check, workflow, status)`.
fn gh_checks(command: &str, output: &str) -> Vec<(Option<String>, Option<String>, Option<String>)> {
    let mut checks = Vec::new();
    let own = |s: &str| Some(one_line(s, 80)).filter(|s| !s.is_empty());
    let run_list = command.contains("gh run list");
    let mut in_jobs = false;
    for line in output.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        if run_list && fields.len() >= 4 {
            // status, conclusion, title, workflow, branch, event, id, elapsed, age
            let status = own(fields[1]).or_else(|| own(fields[0]));
            checks.push((None, own(fields[3]), status));
            continue;
        }
        if fields.len() >= 2
            && matches!(
                fields[1].trim(),
                "pass" | "fail" | "pending" | "skipping" | "cancel" | "neutral"
            )
        {
            checks.push((own(fields[0]), None, own(fields[1])));
            continue;
        }
        let trimmed = line.trim();
        if trimmed == "JOBS" {
            in_jobs = true;
            continue;
        }
        // The terminal form: a symbol, the name, then columns two spaces apart; `gh run
        // view`'s jobs: `✓ build in 1m2s (ID 1)`.
        let symbol = trimmed.chars().next();
        let status = match symbol {
            Some('✓') => "pass",
            Some('X' | '✗' | '×') => "fail",
            Some('*' | '-') if !in_jobs => "pending",
            _ => continue,
        };
        let rest = trimmed[symbol.map_or(0, char::len_utf8)..].trim_start();
        if rest.is_empty() || (!in_jobs && !line.contains("  ")) {
            continue;
        }
        let name = if in_jobs {
            rest.split(" in ").next().unwrap_or(rest)
        } else {
            rest.split("  ").next().unwrap_or(rest)
        };
        checks.push((own(name), None, Some(status.to_owned())));
    }
    checks
}

/// The failure flag a line records for its one tool result: Claude Code `is_error`, pi
/// `isError`.
fn error_flag(raw: &[u8]) -> Option<bool> {
    use memchr::memmem::find;
    if find(raw, b"\"is_error\":true").is_some() || find(raw, b"\"isError\":true").is_some() {
        Some(true)
    } else if find(raw, b"\"is_error\":false").is_some()
        || find(raw, b"\"isError\":false").is_some()
    {
        Some(false)
    } else {
        None
    }
}

/// The exit status a tool result states, in the wordings of the agents: kimi-cli's
/// `Command executed successfully.` / `Command failed with exit code: N.`, Claude Code's
/// `Exit code N`, Codex's `Exit code: N` / `Process exited with code N` / JSON `exit_code`,
/// pi's `Command exited with code N`, Gemini's `Exit Code: N`. Only the first and last few
/// lines are looked at, where the agents put it, so output that merely mentions an exit code
/// is not taken for one.
fn exit_status(text: &str) -> Option<i64> {
    let head = text.get(..text.len().min(200)).unwrap_or(text);
    if has(head, "<system>Command executed successfully.") {
        return Some(0);
    }
    if text.trim_start().starts_with('{') {
        if let Some(at) = text.find("\"exit_code\":") {
            return leading_int(text[at + 12..].trim_start());
        }
    }
    // The first and last four lines (they overlap in a short text; no matter).
    let edges = text.lines().take(4).chain(text.lines().rev().take(4));
    for line in edges {
        let lower = line.trim().to_ascii_lowercase();
        for mark in [
            "failed with exit code",
            "exited with code",
            "exit code",
            "exit status",
        ] {
            if let Some(at) = memchr::memmem::find(lower.as_bytes(), mark.as_bytes()) {
                let after = lower[at + mark.len()..].trim_start_matches([':', ' ']);
                if let Some(code) = leading_int(after) {
                    return Some(code);
                }
            }
        }
    }
    None
}

fn leading_int(text: &str) -> Option<i64> {
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    text[..end].parse().ok()
}

/// Test counts in a runner's output: cargo test (`test result: ok. N passed; M failed`, summed
/// over test binaries), pytest (`N passed, M failed in 0.2s`), jest / vitest (`Tests: N failed,
/// M passed`), mocha (`N passing`, `M failing`), node --test / TAP (`# pass N`), go test
/// (`--- PASS` / `--- FAIL` lines under `-v`, else `ok` / `FAIL` package lines).
pub fn test_counts(output: &str) -> Option<TestCounts> {
    let mut cargo: Option<TestCounts> = None;
    let mut summary: Option<TestCounts> = None;
    let (mut go_pass, mut go_fail, mut pkg_pass, mut pkg_fail) = (0, 0, 0, 0);
    let add = |slot: &mut Option<TestCounts>, passed: u64, failed: u64| {
        let counts = slot.get_or_insert_with(TestCounts::default);
        counts.passed += passed;
        counts.failed += failed;
    };
    // Most outputs are not a test run's; a few fast scans say so before any line is looked at.
    const SIGNS: [&str; 7] = ["pass", "fail", "PASS", "FAIL", "ok  \t", "ok \t", "ok\t"];
    if !SIGNS.iter().any(|sign| has(output, sign)) {
        return None;
    }
    for line in output.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(at) = memchr::memmem::find(t.as_bytes(), b"test result:") {
            let rest = &t[at..];
            add(
                &mut cargo,
                count_before(rest, "passed").unwrap_or(0),
                count_before(rest, "failed").unwrap_or(0),
            );
            continue;
        }
        if t.starts_with("--- PASS") {
            go_pass += 1;
            continue;
        }
        if t.starts_with("--- FAIL") {
            go_fail += 1;
            continue;
        }
        if (t.starts_with("ok ") || t.starts_with("ok\t")) && line.contains('\t') {
            if !has(t, "[no tests to run]") {
                pkg_pass += 1;
            }
            continue;
        }
        if t.starts_with("FAIL\t") {
            pkg_fail += 1;
            continue;
        }
        let jest = t.starts_with("Tests:") || t.starts_with("Tests ");
        // node --test: TAP's `# pass 5`, the spec reporter's `ℹ pass 5`.
        let tap = t
            .strip_prefix("# ")
            .or_else(|| t.strip_prefix("ℹ "))
            .filter(|rest| rest.starts_with("pass ") || rest.starts_with("fail "));
        if let Some(rest) = tap {
            let n = leading_int(rest[5..].trim()).unwrap_or(0).max(0) as u64;
            let (p, f) = if rest.starts_with("pass") {
                (n, 0)
            } else {
                (0, n)
            };
            add(&mut summary, p, f);
            continue;
        }
        let passed = count_before(t, "passed").or_else(|| count_before(t, "passing"));
        let failed = count_before(t, "failed")
            .or_else(|| count_before(t, "failing"))
            .map(|f| {
                f + count_before(t, "errors")
                    .or_else(|| count_before(t, "error"))
                    .unwrap_or(0)
            });
        if passed.is_none() && failed.is_none() {
            continue;
        }
        let digit_first = t.starts_with(|c: char| c.is_ascii_digit());
        // pytest's summary sits between `=` rules or ends with the run time (`in 0.25s`).
        let pytest = t.starts_with('=') || (digit_first && t.contains(" in "));
        let mocha = digit_first
            && (t.ends_with("passing") || t.contains("passing (") || t.contains("failing"));
        if jest || pytest || mocha {
            add(&mut summary, passed.unwrap_or(0), failed.unwrap_or(0));
        }
    }
    cargo.or(summary).or_else(|| {
        if go_pass + go_fail > 0 {
            Some(TestCounts {
                passed: go_pass,
                failed: go_fail,
            })
        } else if pkg_pass + pkg_fail > 0 {
            Some(TestCounts {
                passed: pkg_pass,
                failed: pkg_fail,
            })
        } else {
            None
        }
    })
}

/// The number right before ` word` in `line` (`5 passed`), for a whole word.
fn count_before(line: &str, word: &str) -> Option<u64> {
    let mut rest = line;
    let mut offset = 0;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), word.as_bytes()) {
        let pos = offset + at;
        let end = pos + word.len();
        let whole = line[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if whole {
            let before = line[..pos].trim_end();
            let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 && before.len() < pos {
                if let Ok(n) = before[before.len() - digits..].parse() {
                    return Some(n);
                }
            }
        }
        offset = end;
        rest = &line[end..];
    }
    None
}

/// Distinct error lines of a command's output, at most [`ERRORS_PER_RESULT`]: compiler
/// errors (`error[E0308]`, `error:`, `error TS2305`, `file:1:2: error:`), Python exceptions
/// (the last line of a `Traceback`, `AssertionError`), panics, `FAILED` / `--- FAIL` test
/// lines, `Error:`, `fatal:`, `npm ERR!`, and missing files or commands.
fn error_lines(output: &str) -> Vec<String> {
    // Every error shape below holds one of these; most outputs hold none.
    const SIGNS: [&str; 9] = [
        "rror",
        "FAIL",
        "fatal",
        "panic",
        "ERR",
        "No such file",
        "not found",
        "Exception",
        "Traceback",
    ];
    let mut found: Vec<String> = Vec::new();
    if !SIGNS.iter().any(|sign| has(output, sign)) {
        return found;
    }
    let mut traceback = false;
    for line in output.lines() {
        if found.len() >= ERRORS_PER_RESULT {
            break;
        }
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("Traceback (most recent call last)") {
            traceback = true;
            continue;
        }
        if traceback {
            // The exception is the first line back at the left margin.
            if line.starts_with(char::is_whitespace) {
                continue;
            }
            traceback = false;
            push_error(&mut found, t);
            continue;
        }
        // Gemini CLI reports `Error: (none)` after every command.
        if is_error_line(t) && !t.ends_with(": (none)") {
            push_error(&mut found, t);
        }
    }
    found
}

fn push_error(found: &mut Vec<String>, line: &str) {
    let line = one_line(line, ERROR_CHARS);
    if !line.is_empty() && !found.contains(&line) {
        found.push(line);
    }
}

fn is_error_line(t: &str) -> bool {
    const STARTS: [&str; 14] = [
        "error[",
        "error:",
        "error TS",
        "ERROR:",
        "ERROR ",
        "Error:",
        "FAILED ",
        "--- FAIL",
        "FAIL ",
        "fatal:",
        "panic:",
        "npm ERR!",
        "AssertionError",
        "SyntaxError",
    ];
    if STARTS.iter().any(|s| t.starts_with(s)) {
        return true;
    }
    if has(t, "panicked at")
        || has(t, ": error:")
        || has(t, ": error TS")
        || has(t, "): error ")
        || t.ends_with(": command not found")
        || has(t, ": No such file or directory")
    {
        return true;
    }
    // A Python or JavaScript exception at the left margin: `ValueError: …`, `TypeError: …`,
    // and as Node prints a thrown one, `[TypeError: …]`.
    let t = t.strip_prefix('[').unwrap_or(t);
    let name_end = t.find(':').unwrap_or(0);
    let name = &t[..name_end];
    name_end > 0
        && !name.contains(char::is_whitespace)
        && (name.ends_with("Error") || name.ends_with("Exception"))
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// Unfinished items of a todo tool's arguments: Claude Code `TodoWrite` (`todos[].content`),
/// Codex `update_plan` (`plan[].step`), kimi-cli `SetTodoList` (`todos[].title`), Gemini
/// `write_todos` (`todos[].description`). `None` when the arguments hold no list.
fn todo_items(args: &Value) -> Option<Vec<Todo>> {
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
        });
    }
    // In progress first, the rest in the agent's order.
    items.sort_by_key(|t| !t.active);
    Some(items)
}

/// True for a command that runs tests.
fn is_test_command(command: &str) -> bool {
    const RUNNERS: [&str; 21] = [
        "cargo test",
        "cargo nextest",
        "pytest",
        "go test",
        "jest",
        "vitest",
        "npm test",
        "npm run test",
        "npm t ",
        "yarn test",
        "pnpm test",
        "pnpm run test",
        "bun test",
        "mise run test",
        "make test",
        "make check",
        "tox",
        "rspec",
        "node --test",
        "deno test",
        "unittest",
    ];
    RUNNERS.iter().any(|r| has(command, r))
}

/// True for a command that only looks: its first word is a viewer or search, or a read-only
/// git subcommand.
fn is_inspection(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let Some(first) = words.next() else {
        return true;
    };
    let verb = first.rsplit('/').next().unwrap_or(first);
    match verb {
        "ls" | "cat" | "head" | "tail" | "less" | "grep" | "rg" | "find" | "fd" | "wc" | "echo"
        | "pwd" | "which" | "tree" | "file" | "stat" | "du" | "df" | "awk" | "sort" | "nl"
        | "diff" => true,
        "sed" => !command.contains(" -i"),
        "git" => matches!(
            words.next(),
            Some("status" | "log" | "diff" | "show" | "branch" | "remote" | "rev-parse")
        ),
        _ => false,
    }
}

/// Files a shell command names, with what it does to them. A word is a path when its last
/// component has a file extension or is a well-known file name (see [`is_pathlike`]); the
/// verb decides the operation (`rm` deletes, `touch` / `>` / `tee` create, `sed -i` edits,
/// `cp` / `mv` create their target, anything else reads).
fn shell_paths(command: &str) -> Vec<(String, Op)> {
    let mut paths = Vec::new();
    for words in simple_commands(command) {
        let mut words = words.as_slice();
        while let Some(first) = words.first() {
            let wrapper = matches!(
                first.as_str(),
                "sudo" | "env" | "time" | "nohup" | "command"
            ) || (first.contains('=') && !first.starts_with('-'));
            if !wrapper {
                break;
            }
            words = &words[1..];
        }
        let Some(verb) = words.first() else { continue };
        let verb = verb.rsplit('/').next().unwrap_or(verb).to_owned();
        let mut args: Vec<&str> = Vec::new();
        let mut redirects: Vec<(&str, Op)> = Vec::new();
        let mut i = 1;
        let mut in_place = false;
        let mut pattern_given = false;
        while i < words.len() {
            let w = words[i].as_str();
            i += 1;
            match w {
                ">" | ">|" | "1>" | "2>" | "&>" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Create));
                    }
                    i += 1;
                }
                ">>" | "2>>" | "&>>" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Edit));
                    }
                    i += 1;
                }
                "<" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Read));
                    }
                    i += 1;
                }
                _ if takes_value(&verb, w) => {
                    pattern_given |= w == "-e";
                    i += 1;
                }
                // `find DIR -name X`: past the first option, words are tests and their values.
                _ if verb == "find" && w.starts_with('-') => break,
                _ if w.starts_with('-') => {
                    in_place |= w.starts_with("-i") || w == "--in-place" || w.contains("pi");
                }
                _ if w.starts_with('>') => {
                    let target = w.trim_start_matches('>');
                    let op = if w.starts_with(">>") {
                        Op::Edit
                    } else {
                        Op::Create
                    };
                    redirects.push((target, op));
                }
                _ => args.push(w),
            }
        }
        // The first operand of a search or stream editor is its pattern or script.
        let scripted = matches!(
            verb.as_str(),
            "grep" | "rg" | "egrep" | "ag" | "ack" | "awk" | "sed"
        );
        if scripted && !pattern_given && !args.is_empty() {
            args.remove(0);
        }
        if verb == "echo" || verb == "printf" || verb == "cd" {
            args.clear();
        }
        let git = verb == "git";
        if git && !args.is_empty() {
            args.remove(0);
        }
        let sub = if git {
            words.get(1).map(String::as_str).unwrap_or("")
        } else {
            verb.as_str()
        };
        let last = args.len().saturating_sub(1);
        for (n, arg) in args.iter().enumerate() {
            let op = match sub {
                "rm" | "unlink" => Op::Delete,
                "touch" | "tee" => Op::Create,
                "mv" if n == last && n > 0 => Op::Create,
                "mv" => Op::Delete,
                "cp" if n == last && n > 0 => Op::Create,
                "sed" | "perl" if in_place => Op::Edit,
                _ => Op::Read,
            };
            if let Some(path) = clean_path(arg) {
                paths.push((path, op));
            }
        }
        for (target, op) in redirects {
            if let Some(path) = clean_path(target) {
                paths.push((path, op));
            }
        }
    }
    paths
}

/// True when option `option` of `verb` takes the next word as its value, which is not a file
/// (a module, a script, a pattern, a count, a message, a directory to run in, a crate).
fn takes_value(verb: &str, option: &str) -> bool {
    let verb = verb.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match verb {
        // `python -m pytest -k expr`: the module's options follow the interpreter's.
        "python" | "node" | "ruby" | "perl" | "bash" | "sh" | "zsh" => {
            matches!(option, "-c" | "-m" | "-e" | "-k" | "-p")
        }
        "pytest" => matches!(option, "-k" | "-m" | "-p"),
        "head" | "tail" => matches!(option, "-n" | "-c"),
        "git" => matches!(option, "-m" | "-C" | "-c" | "--message"),
        "grep" | "rg" | "egrep" => {
            matches!(option, "-e" | "-m" | "-g" | "--glob" | "-t" | "--type")
        }
        "sed" => option == "-e",
        "awk" => matches!(option, "-F" | "-v"),
        "cargo" => matches!(
            option,
            "-p" | "--package" | "--bin" | "--test" | "--features"
        ),
        "npm" | "pnpm" | "yarn" => matches!(option, "-w" | "--workspace" | "--filter"),
        _ => false,
    }
}

/// The path a shell word names, without a `:line` or pytest `::test` suffix, when it is one.
fn clean_path(word: &str) -> Option<String> {
    let word = word.split("::").next().unwrap_or(word);
    let word = match word.find(':') {
        Some(at)
            if word[at + 1..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':') =>
        {
            &word[..at]
        }
        _ => word,
    };
    (is_pathlike(word) && !word.starts_with("/dev/") && !word.starts_with("/proc/"))
        .then(|| word.to_owned())
}

/// True when a word looks like a file: no shell syntax, a URL or a glob, and a last component
/// with a short alphanumeric extension (and a name with a letter), or a well-known file name.
pub fn is_pathlike(word: &str) -> bool {
    const NAMES: [&str; 10] = [
        "Makefile",
        "Dockerfile",
        "Justfile",
        "Rakefile",
        "Gemfile",
        "Procfile",
        "LICENSE",
        "README",
        "Containerfile",
        "Vagrantfile",
    ];
    if word.is_empty()
        || word.len() > 300
        || word.starts_with(['-', '@'])
        || word.contains("://")
        || word.contains(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '$' | '*'
                        | '?'
                        | '{'
                        | '}'
                        | '['
                        | ']'
                        | '<'
                        | '>'
                        | '|'
                        | ';'
                        | '&'
                        | '('
                        | ')'
                        | '`'
                        | '\''
                        | '"'
                        | '='
                        | ','
                        | '\\'
                        | '%'
                )
        })
    {
        return false;
    }
    let base = word.rsplit('/').next().unwrap_or(word);
    if NAMES.contains(&base) {
        return true;
    }
    let Some(dot) = base.rfind('.') else {
        return false;
    };
    let (stem, ext) = (&base[..dot], &base[dot + 1..]);
    let ext_ok = (1..=10).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    let stem_ok = if stem.is_empty() {
        // A dotfile: `.gitignore`, `.env`.
        ext.len() >= 2
    } else {
        stem.chars().any(char::is_alphabetic) && !stem.ends_with('.')
    };
    ext_ok && stem_ok
}

/// The words of each simple command in a shell script: split at unquoted `;`, `&`, `|` and
/// newlines, quotes removed, heredoc bodies skipped. Good enough to find file names; not a
/// shell.
fn simple_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quoted = false; // the word had quotes, so an empty word still counts
    let mut heredocs: Vec<String> = Vec::new();
    let mut chars = script.chars().peekable();
    let flush_word = |words: &mut Vec<String>, word: &mut String, quoted: &mut bool| {
        if !word.is_empty() || *quoted {
            words.push(std::mem::take(word));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    if n != '\n' {
                        word.push(n);
                    }
                }
            }
            '#' if word.is_empty() && !quoted => {
                // A comment runs to the end of the line.
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                // `2>&1`, `&>` and `>&` are redirections, not separators.
                if c == '&' && (word.ends_with('>') || chars.peek() == Some(&'>')) {
                    word.push(c);
                    continue;
                }
                flush_word(&mut words, &mut word, &mut quoted);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
                if c == '\n' && !heredocs.is_empty() {
                    skip_heredocs(&mut chars, &mut heredocs);
                }
            }
            c if c.is_whitespace() => flush_word(&mut words, &mut word, &mut quoted),
            '<' if chars.peek() == Some(&'<') => {
                chars.next();
                if chars.peek() == Some(&'<') {
                    // A here-string `<<<`: its word follows as usual.
                    chars.next();
                    continue;
                }
                if chars.peek() == Some(&'-') {
                    chars.next();
                }
                flush_word(&mut words, &mut word, &mut quoted);
                while chars.peek().is_some_and(|c| *c == ' ') {
                    chars.next();
                }
                let mut delimiter = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, ';' | '&' | '|' | ')') {
                        break;
                    }
                    if c != '\'' && c != '"' {
                        delimiter.push(c);
                    }
                    chars.next();
                }
                if !delimiter.is_empty() {
                    heredocs.push(delimiter);
                }
            }
            c => word.push(c),
        }
    }
    flush_word(&mut words, &mut word, &mut quoted);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

/// Skips the bodies of pending heredocs, each up to its delimiter line.
fn skip_heredocs(chars: &mut std::iter::Peekable<std::str::Chars>, heredocs: &mut Vec<String>) {
    for delimiter in heredocs.drain(..) {
        loop {
            let mut line = String::new();
            let mut ended = false;
            for c in chars.by_ref() {
                if c == '\n' {
                    ended = true;
                    break;
                }
                line.push(c);
            }
            if line.trim() == delimiter || !ended {
                break;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// caveman

/// The sections of a caveman summary, in the order they print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Head,
    Goal,
    Now,
    Errors,
    Files,
    Commands,
    Next,
    Ci,
    Names,
}

impl Section {
    const ALL: [Section; 9] = [
        Section::Head,
        Section::Goal,
        Section::Now,
        Section::Errors,
        Section::Files,
        Section::Commands,
        Section::Next,
        Section::Ci,
        Section::Names,
    ];

    fn heading(self) -> Option<&'static str> {
        match self {
            Section::Head => None,
            Section::Goal => Some("## goal"),
            Section::Now => Some("## now"),
            Section::Errors => Some("## errors"),
            Section::Files => Some("## files"),
            Section::Commands => Some("## cmds"),
            Section::Next => Some("## next"),
            Section::Ci => Some("## ci"),
            Section::Names => Some("## names"),
        }
    }

    /// The noun of the cut counts (`+14 more files`), singular.
    fn noun(self) -> &'static str {
        match self {
            Section::Head | Section::Goal | Section::Now => "line",
            Section::Errors => "error",
            Section::Files => "file",
            Section::Commands => "cmd",
            Section::Next => "todo",
            Section::Ci => "check",
            Section::Names => "name",
        }
    }
}

/// One candidate line of a caveman summary.
struct Line {
    section: Section,
    /// The text, and how it shortens.
    text: Shortening,
    /// For a line that carries one long text (goal, task, agent's last words): the percentage
    /// of the budget it may take before the other lines have had theirs. Such a line is cut to
    /// fit rather than dropped.
    share: Option<u64>,
    /// Lower prints sooner when the budget is short.
    priority: u32,
}

/// Candidate lines per section beyond which the rest is only counted.
const CANDIDATES: usize = 40;

/// The caveman summary of an extract: Markdown sections in priority order (goal, now,
/// unresolved errors, files, commands with outcomes, next, CI, what was cut), in paths,
/// counts, labels and exact commands, within `budget` tokens of `tokenizer` over the whole
/// text.
///
/// Lines are admitted by priority — the header, the goal and the task first, then the first
/// error, the latest test command, the agent's last words and next step, the top files and
/// commands, then the rest section by section — and each is kept only if the whole summary
/// still fits; a long goal or task is cut to fit instead of dropped. What did not fit is
/// counted in the last section (`+14 more files`). When not even that fits, lines go again from
/// the lowest priority, down to an empty summary: the budget is never exceeded.
pub fn caveman(ex: &Extract, budget: u64, tokenizer: Tokenizer) -> String {
    let lines = caveman_lines(ex);
    let fits = |text: &str| tokenizer.text_tokens(text) <= budget;
    let mut shown: Vec<Option<String>> = vec![None; lines.len()];
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| lines[i].priority);
    for &i in &order {
        let line = &lines[i];
        shown[i] = Some(line.text.full.clone());
        let within_share = line
            .share
            .is_none_or(|share| tokenizer.text_tokens(&line.text.full) * 100 <= share * budget);
        if within_share && fits(&render(&lines, &shown, ex, true)) {
            continue;
        }
        shown[i] = None;
        if let Some(share) = line.share {
            // A long text first gets its share of the budget, so that one long goal cannot
            // crowd out the task and the files; what is left over goes back to it below.
            let longest = longest_cut(&line.text, 0, |text| {
                tokenizer.text_tokens(text) * 100 <= share * budget && {
                    shown[i] = Some(text.to_owned());
                    let whole = fits(&render(&lines, &shown, ex, true));
                    shown[i] = None;
                    whole
                }
            });
            shown[i] = (longest >= MIN_CUT).then(|| line.text.at(longest));
        }
    }
    // Budget left over lengthens the texts that were cut, in priority order.
    for &i in &order {
        let line = &lines[i];
        let Some(current) = shown[i].clone() else {
            continue;
        };
        if line.share.is_none() || current == line.text.full {
            continue;
        }
        let from = current.chars().count();
        let longest = longest_cut(&line.text, from, |text| {
            shown[i] = Some(text.to_owned());
            let whole = fits(&render(&lines, &shown, ex, true));
            shown[i] = Some(current.clone());
            whole
        });
        shown[i] = Some(line.text.at(longest.max(from)));
    }
    // Token counts are not additive, so check the whole once more and give back lines from the
    // lowest priority until it fits.
    let mut text = render(&lines, &shown, ex, true);
    for &i in order.iter().rev() {
        if fits(&text) {
            return text;
        }
        if shown[i].take().is_some() {
            text = render(&lines, &shown, ex, true);
        }
    }
    if fits(&text) {
        return text;
    }
    let bare_text = render(&lines, &shown, ex, false);
    if fits(&bare_text) {
        bare_text
    } else {
        String::new()
    }
}

/// A text and how it shortens: from the end, except for a tail that stays whole (the latest
/// request after the one it leans on, a command's outcome) while the head before it keeps a
/// few characters; below that, a fallback (the tail's own words) is cut instead.
#[derive(Debug, Clone)]
struct Shortening {
    full: String,
    /// Where the protected tail starts in `full` (its length when there is none).
    tail: usize,
    fallback: String,
}

impl Shortening {
    fn plain(text: String) -> Self {
        Shortening {
            tail: text.len(),
            fallback: text.clone(),
            full: text,
        }
    }

    /// At most `max` characters.
    fn at(&self, max: usize) -> String {
        if self.full.chars().count() <= max {
            return self.full.clone();
        }
        let tail = &self.full[self.tail..];
        let tail_chars = tail.chars().count();
        if tail_chars > 0 && max >= tail_chars + 8 {
            return format!("{}{tail}", cut(&self.full[..self.tail], max - tail_chars));
        }
        cut(&self.fallback, max)
    }
}

/// The current task after `prefix`: the request it leans on, then ` | ` and the latest one,
/// which shortening keeps whole longest.
fn ask(context: Option<&Said>, task: &Said, prefix: &str) -> Shortening {
    let task_text = cut(&task.text, 240);
    match context {
        Some(context) => {
            let head = format!("{prefix}{}", cut(&context.text, 160));
            Shortening {
                tail: head.len(),
                full: format!("{head} | {task_text}"),
                fallback: format!("{prefix}{task_text}"),
            }
        }
        None => Shortening::plain(format!("{prefix}{task_text}")),
    }
}

/// Characters below which a cut text says nothing and is dropped instead.
const MIN_CUT: usize = 16;

/// The largest `n` in `from..=len` (characters of `text`) whose cut passes `ok`, assuming it
/// passes up to some point and fails after; `from` when none does.
fn longest_cut(text: &Shortening, from: usize, mut ok: impl FnMut(&str) -> bool) -> usize {
    let (mut low, mut high) = (from, text.full.chars().count());
    while low < high {
        let mid = (low + high).div_ceil(2);
        if ok(&text.at(mid)) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

/// The candidate lines of a caveman summary, in print order within each section.
fn caveman_lines(ex: &Extract) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut push = |section, text: String, share, priority| {
        lines.push(Line {
            section,
            text: Shortening::plain(text),
            share,
            priority,
        });
    };
    let mut head = String::from("# caveman");
    if let Some(root) = &ex.root {
        head.push_str(&format!(" | cwd:{root}"));
    }
    head.push_str(&format!(
        " | {} msgs | {} calls | {} asks",
        ex.messages, ex.calls, ex.requests
    ));
    push(Section::Head, head, None, 0);
    if let Some(goal) = &ex.goal {
        push(Section::Goal, cut(&goal.text, 300), Some(30), 1);
    }
    let same_as_goal = ex.task.as_ref().map(|t| t.index) == ex.goal.as_ref().map(|g| g.index);
    if let Some(task) = &ex.task {
        let text = if same_as_goal && ex.context.is_none() {
            Shortening::plain("ask: =goal".to_owned())
        } else {
            ask(ex.context.as_ref(), task, "ask: ")
        };
        lines.push(Line {
            section: Section::Now,
            text,
            share: Some(20),
            priority: 2,
        });
    }
    let mut push = |section, text: String, share, priority| {
        lines.push(Line {
            section,
            text: Shortening::plain(text),
            share,
            priority,
        });
    };
    if let Some(doing) = &ex.doing {
        let text = format!("said: {}", cut(&doing.text, 200));
        push(Section::Now, text, Some(10), 6);
    }
    if let Some(call) = &ex.last_call {
        let text = format!("last: {}", cut(&call.text, 100));
        push(Section::Now, text, Some(10), 30);
    }
    let open = ex.errors.iter().filter(|e| !e.resolved);
    let mut previous: Option<&str> = None;
    for (n, error) in open.take(CANDIDATES).enumerate() {
        let mut text = format!("- {}", cut(&error.text, 120));
        // Errors of one command come together; the command is named once, on the first.
        if let Some(command) = error.command.as_deref().filter(|c| previous != Some(*c)) {
            text.push_str(&format!(" ← {}", cut(command, 40)));
        }
        previous = error.command.as_deref();
        if error.count > 1 {
            text.push_str(&format!(" ×{}", error.count));
        }
        let priority = [4, 20, 21].get(n).copied().unwrap_or(60);
        push(Section::Errors, text, None, priority);
    }
    for (n, file) in ex.files.iter().take(CANDIDATES).enumerate() {
        let priority = match n {
            0..=2 => 10 + n as u32,
            3..=7 => 40,
            _ => 70,
        };
        let text = format!("- {} {}", cut(&file.path, 160), file.label());
        push(Section::Files, text, None, priority);
    }
    let test = ex.test_command().map(|c| c.command.as_str());
    let mut others = 0;
    for command in ex.commands.iter().take(CANDIDATES) {
        let mut text = format!("- {}", one_line(&command.command, 120));
        let label = command.outcome.map(|o| o.label()).unwrap_or_default();
        if !label.is_empty() {
            text.push_str(&format!(" → {label}"));
        }
        if command.runs > 1 {
            text.push_str(&format!(" ×{}", command.runs));
        }
        let priority = if test == Some(command.command.as_str()) {
            5
        } else if command.inspect {
            90
        } else {
            others += 1;
            match others {
                1..=2 => 15,
                3..=8 => 50,
                _ => 80,
            }
        };
        push(Section::Commands, text, None, priority);
    }
    if let Some(plan) = &ex.plan {
        let text = format!("- {}", cut(&plan.text, 200));
        push(Section::Next, text, Some(15), 7);
    }
    for (n, todo) in ex.todos.iter().take(CANDIDATES).enumerate() {
        let mark = if todo.active { "▶ " } else { "" };
        let priority = match n {
            0 => 8,
            1..=2 => 45,
            _ => 75,
        };
        let text = format!("- {mark}{}", cut(&todo.text, 160));
        push(Section::Next, text, None, priority);
    }
    if ex.plan.is_none() && ex.todos.is_empty() {
        if let Some(next) = ex.next() {
            push(Section::Next, format!("- {}", cut(&next, 160)), Some(10), 8);
        }
    }
    for (n, check) in ex.ci.iter().take(CANDIDATES).enumerate() {
        let priority = if n == 0 { 25 } else { 85 };
        push(Section::Ci, format!("- {}", check.label()), None, priority);
    }
    // Last, the names the session keeps coming back to, a few to a line, filling what budget
    // is left: they are what the next turns will search for.
    for (n, group) in ex.names.chunks(NAMES_PER_LINE).take(CANDIDATES).enumerate() {
        push(
            Section::Names,
            format!("- {}", group.join(" ")),
            None,
            100 + n as u32,
        );
    }
    lines
}

/// Names on one line of the names section.
const NAMES_PER_LINE: usize = 6;

/// The summary with the shown lines, and with the counts of what is not shown when `footer`.
fn render(lines: &[Line], shown: &[Option<String>], ex: &Extract, footer: bool) -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let mut first = true;
        for (line, text) in lines.iter().zip(shown) {
            let Some(text) = text else { continue };
            if line.section != section {
                continue;
            }
            if first {
                if let Some(heading) = section.heading() {
                    out.push_str(heading);
                    out.push('\n');
                }
                first = false;
            }
            out.push_str(text);
            out.push('\n');
        }
    }
    if !footer {
        return out;
    }
    let mut cut_counts: Vec<String> = Vec::new();
    for section in Section::ALL {
        let candidates = lines
            .iter()
            .zip(shown)
            .filter(|(l, _)| l.section == section);
        let mut missing = candidates.filter(|(_, s)| s.is_none()).count();
        missing += match section {
            Section::Errors => ex
                .errors
                .iter()
                .filter(|e| !e.resolved)
                .count()
                .saturating_sub(CANDIDATES),
            Section::Files => ex.files.len().saturating_sub(CANDIDATES),
            Section::Commands => ex.commands.len().saturating_sub(CANDIDATES),
            Section::Next => ex.todos.len().saturating_sub(CANDIDATES),
            Section::Ci => ex.ci.len().saturating_sub(CANDIDATES),
            _ => 0,
        };
        if missing > 0 {
            cut_counts.push(format!(
                "+{missing} more {}",
                plural(missing, section.noun())
            ));
        }
    }
    let fixed = ex.errors.iter().filter(|e| e.resolved).count();
    if fixed > 0 {
        cut_counts.push(format!("{fixed} {} fixed", plural(fixed, "error")));
    }
    if !cut_counts.is_empty() {
        out.push_str("## cut\n");
        out.push_str(&cut_counts.join(" | "));
        out.push('\n');
    }
    out
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

// ---------------------------------------------------------------------------------------------
// bare

/// The smallest budget `bare` always meets: the four labels with empty values take up to 13
/// tokens in every estimator, and a few more leave room for the values to say something.
pub const BARE_FLOOR: u64 = 20;

/// The four values of `bare`, without their labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bare {
    /// The current task.
    pub now: String,
    /// The next action.
    pub next: String,
    /// `<test command> → <N>pass [<M>fail]`, or `none`.
    pub test: String,
    /// `<check>@<workflow> [→ status]`, or `none`.
    pub ci: String,
}

impl Bare {
    /// The four lines, each ending in a newline.
    pub fn lines(&self) -> String {
        format!(
            "NOW:{}\nNEXT:{}\nTEST:{}\nCI:{}\n",
            self.now, self.next, self.test, self.ci
        )
    }
}

/// The four `bare` lines of an extract within `budget` tokens of `tokenizer` together.
///
/// No line is ever dropped: the values are cut instead, all to one common length found by
/// bisection (short values keep whole, long ones share what is left); a test or CI value
/// keeps its `→ …` outcome while it can. From [`BARE_FLOOR`] tokens up the lines always fit;
/// below it the labels alone may not, and they print anyway.
pub fn bare(ex: &Extract, budget: u64, tokenizer: Tokenizer) -> Bare {
    let none = || Shortening::plain("none".to_owned());
    let now = match &ex.task {
        Some(task) => ask(ex.context.as_ref(), task, ""),
        None => ex
            .goal
            .as_ref()
            .map_or_else(none, |g| Shortening::plain(g.text.clone())),
    };
    let next = ex.next().map_or_else(none, Shortening::plain);
    let test = |compact: bool| {
        ex.test_command().map_or_else(none, |c| {
            let command = if compact {
                compact_command(&c.command)
            } else {
                &c.command
            };
            with_outcome(one_line(command, 200), c.outcome.map(|o| o.label()))
        })
    };
    let ci = ex.ci_check().map_or_else(none, |c| {
        let place = format!(
            "{}@{}",
            c.check.as_deref().unwrap_or("?"),
            c.workflow.as_deref().unwrap_or("?")
        );
        with_outcome(place, c.status)
    });
    let fits = |b: &Bare| tokenizer.text_tokens(&b.lines()) <= budget;
    let values = [now, next, test(false), ci];
    let at = |values: &[Shortening; 4], cap: usize| Bare {
        now: values[0].at(cap),
        next: values[1].at(cap),
        test: values[2].at(cap),
        ci: values[3].at(cap),
    };
    let full = at(&values, usize::MAX);
    if fits(&full) {
        return full;
    }
    // Short of room, the test command loses what only says where and how it ran.
    let values = [
        values[0].clone(),
        values[1].clone(),
        test(true),
        values[3].clone(),
    ];
    let longest = values
        .iter()
        .map(|v| v.full.chars().count())
        .max()
        .unwrap_or(0);
    let (mut low, mut high) = (0, longest);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(&at(&values, mid)) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    at(&values, low)
}

/// `value → outcome`, the outcome kept whole longest; just the value without an outcome.
fn with_outcome(value: String, outcome: Option<String>) -> Shortening {
    match outcome.filter(|o| !o.is_empty()) {
        Some(outcome) => Shortening {
            tail: value.len(),
            full: format!("{value} → {outcome}"),
            fallback: format!("→ {outcome}"),
        },
        None => Shortening::plain(value),
    }
}

/// A command without a leading `cd DIR &&` and a trailing `2>&1` or `| head|tail -N`: what
/// runs, not where or how much of its output was shown.
fn compact_command(command: &str) -> &str {
    let mut command = command.trim();
    if command.starts_with("cd ") {
        if let Some(at) = command.find("&&") {
            command = command[at + 2..].trim_start();
        }
    }
    loop {
        let before = command;
        if let Some(at) = command.rfind('|') {
            let piped = command[at + 1..].trim_start();
            if piped.starts_with("head") || piped.starts_with("tail") {
                command = command[..at].trim_end();
            }
        }
        command = command.strip_suffix("2>&1").unwrap_or(command).trim_end();
        if command == before {
            return command;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_are_identifiers_types_and_file_names_not_prose() {
        for name in [
            "parse_jsonl",
            "checkConcurrentSessions",
            "TodoItem",
            "CLAUDE.md",
            "_safe_set_output",
        ] {
            assert!(is_code_name(name), "{name}");
        }
        for word in [
            "the",
            "Hello",
            "README",
            "v1.2.3",
            "1234",
            "a_b",
            "TypeScript.",
        ] {
            assert!(!is_code_name(word), "{word}");
        }
    }

    #[test]
    fn frequent_names_rank_by_mentions_and_skip_escapes() {
        let text = |s: &str| {
            Record::new(
                0,
                b"",
                crate::transcript::Entry::Message(Message::new(
                    crate::transcript::Role::Assistant,
                    vec![Part::Text(s.to_owned().into())],
                )),
            )
        };
        let records = [
            text("fix parse_jsonl in reader.rs, then parse_jsonl again"),
            text("reader.rs calls parse_jsonl; TodoItem once"),
            text("{\"a\":\"x\\nPleaseNote\\nPleaseNote\"}"),
        ];
        assert_eq!(
            frequent_names(&records, 10),
            vec!["parse_jsonl", "reader.rs"]
        );
    }
    use crate::transcript::Entry;

    fn record(message: Message<'static>) -> Record<'static> {
        Record::new(1, b"", Entry::Message(message))
    }

    fn user(text: &str) -> Record<'static> {
        record(Message::new(
            Role::User,
            vec![Part::Text(text.to_owned().into())],
        ))
    }

    fn assistant(text: &str) -> Record<'static> {
        record(Message::new(
            Role::Assistant,
            vec![Part::Text(text.to_owned().into())],
        ))
    }

    fn call(id: &str, name: &str, arguments: &str) -> Record<'static> {
        record(Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: Some(id.to_owned().into()),
                name: name.to_owned().into(),
                arguments: arguments.to_owned().into(),
            }],
        ))
    }

    fn result(id: &str, text: &str) -> Record<'static> {
        record(Message::new(
            Role::User,
            vec![Part::ToolResult {
                call_id: Some(id.to_owned().into()),
                text: text.to_owned().into(),
            }],
        ))
    }

    fn bash(id: &str, command: &str) -> Record<'static> {
        call(
            id,
            "Bash",
            &serde_json::json!({ "command": command }).to_string(),
        )
    }

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
            ("build.log", "d1"),
            ("docs/a.md", "r1"),
            ("docs/b.md", "r1"),
            ("old.txt", "d1"),
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
    fn shell_words_that_are_not_files_are_ignored() {
        let paths: Vec<String> = shell_paths(
            "python -m sklearn.compose -c 'import a.b' && git push origin main 2>&1 | tail -30; echo done.txt; ls 0.25s v1.2.3 https://x.io/a.js *.rs $HOME/x.rs",
        )
        .into_iter()
        .map(|(p, _)| p)
        .collect();
        assert!(paths.is_empty(), "{paths:?}");
        let found = shell_paths(
            "cat > notes.md <<'EOF'\nsee other.md\nEOF\npytest tests/test_a.py::test_b -x && grep -n 'x' src/lib.rs:12 && find src -name '*.md'",
        );
        assert_eq!(
            found,
            [
                ("notes.md".to_owned(), Op::Create),
                ("tests/test_a.py".to_owned(), Op::Read),
                ("src/lib.rs".to_owned(), Op::Read),
            ]
        );
        let moved = shell_paths("git mv a.rs b.rs; mv c.txt d.txt; cp e.json f.json; touch g.md");
        assert_eq!(
            moved,
            [
                ("a.rs".to_owned(), Op::Delete),
                ("b.rs".to_owned(), Op::Create),
                ("c.txt".to_owned(), Op::Delete),
                ("d.txt".to_owned(), Op::Create),
                ("e.json".to_owned(), Op::Read),
                ("f.json".to_owned(), Op::Create),
                ("g.md".to_owned(), Op::Create),
            ]
        );
    }

    #[test]
    fn test_commands_compact_to_what_runs() {
        assert_eq!(
            compact_command("cd packages/tui && npm test -- a.test.ts 2>&1 | tail -20"),
            "npm test -- a.test.ts"
        );
        assert_eq!(compact_command("cargo test"), "cargo test");
    }

    #[test]
    fn shortening_keeps_the_tail_while_it_can() {
        let task = Said {
            text: "yeah, do it all".into(),
            index: 2,
        };
        let context = Said {
            text: "release a new minor version with the theme changes".into(),
            index: 1,
        };
        let now = ask(Some(&context), &task, "");
        assert_eq!(
            now.at(500),
            "release a new minor version with the theme changes | yeah, do it all"
        );
        assert_eq!(now.at(40), "release a new minor… | yeah, do it all");
        assert_eq!(now.at(12), "yeah, do it…");
        let test = with_outcome("cargo test --workspace".into(), Some("12pass".into()));
        assert_eq!(test.at(21), "cargo test… → 12pass");
        assert_eq!(test.at(9), "→ 12pass");
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
        assert!(error_lines("Output: x\nError: (none)\nExit Code: (none)").is_empty());
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
    fn test_runners_are_parsed() {
        let pytest = "\u{1b}[32m====== \u{1b}[1m53 passed\u{1b}[0m, \u{1b}[33m135 deselected\u{1b}[0m in 0.25s ======\u{1b}[0m";
        assert_eq!(
            test_counts(&plain_text(pytest)),
            Some(TestCounts {
                passed: 53,
                failed: 0
            })
        );
        assert_eq!(
            test_counts("FAILED a.py::t - assert 1\n2 failed, 10 passed in 1.2s"),
            Some(TestCounts {
                passed: 10,
                failed: 2
            })
        );
        assert_eq!(
            test_counts("Tests:       1 failed, 5 passed, 6 total"),
            Some(TestCounts {
                passed: 5,
                failed: 1
            })
        );
        assert_eq!(
            test_counts(" Test Files  1 passed (1)\n      Tests  12 passed (12)"),
            Some(TestCounts {
                passed: 12,
                failed: 0
            })
        );
        assert_eq!(
            test_counts("ok  \tpkg/a\t0.1s\nok  \tpkg/b\t(cached)\nFAIL\tpkg/c\t0.2s\n?   \tpkg/d\t[no test files]"),
            Some(TestCounts { passed: 2, failed: 1 })
        );
        assert_eq!(
            test_counts("=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\tpkg\t0.1s"),
            Some(TestCounts { passed: 1, failed: 1 })
        );
        assert_eq!(
            test_counts("  12 passing (30ms)\n  1 failing"),
            Some(TestCounts {
                passed: 12,
                failed: 1
            })
        );
        assert_eq!(test_counts("All tests passed!\n✓ 3 cases passed"), None);
    }

    #[test]
    fn exit_statuses_in_each_agents_wording() {
        assert_eq!(
            exit_status("<system>Command executed successfully.</system>\nok"),
            Some(0)
        );
        assert_eq!(
            exit_status("<system>Command failed with exit code: 2.</system>"),
            Some(2)
        );
        assert_eq!(exit_status("Exit code 1\nboom"), Some(1));
        assert_eq!(
            exit_status("Exit code: 0\nWall time: 1s\nOutput:\nx"),
            Some(0)
        );
        assert_eq!(
            exit_status("Chunk ID: a\nWall time: 1s\nProcess exited with code 3\nOutput:"),
            Some(3)
        );
        assert_eq!(
            exit_status("a\nb\nc\nd\ne\nf\n\nCommand exited with code 1"),
            Some(1)
        );
        assert_eq!(
            exit_status(r#"{"output":"x","metadata":{"exit_code":127}}"#),
            Some(127)
        );
        assert_eq!(
            exit_status("Output: x\nError: (none)\nExit Code: (none)"),
            None
        );
        let middle = format!(
            "start\n1\n2\n3\n{}\nexit code 5 was seen\n{}\nend",
            "x\n".repeat(5),
            "y\n".repeat(5)
        );
        assert_eq!(exit_status(&middle), None);
    }

    #[test]
    fn errors_are_first_lines_and_tracebacks_their_exception() {
        let output = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    x()\nValueError: bad value\nerror[E0308]: mismatched types\n --> src/a.rs:1:1\nthread 'main' panicked at src/main.rs:2:5:\nsrc/t.ts(5,15): error TS2305: Module has no member";
        assert_eq!(
            error_lines(output),
            [
                "ValueError: bad value",
                "error[E0308]: mismatched types",
                "thread 'main' panicked at src/main.rs:2:5:",
            ]
        );
        assert!(error_lines("all good\nwarning: unused").is_empty());
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
                active: true
            }]
        );
    }

    #[test]
    fn ci_checks_come_from_workflow_files_and_gh() {
        let records = [
            call("1", "Read", r#"{"file_path":".github/workflows/ci.yml"}"#),
            bash("2", "gh pr checks 12"),
            result(
                "2",
                "build\tpass\t1m\thttps://x\nlint\tfail\t20s\thttps://y\n",
            ),
        ];
        let ex = extract(&records);
        let check = ex.ci_check().unwrap();
        assert_eq!(check.label(), "lint@ci.yml → fail");
        let list = gh_checks(
            "gh run list",
            "completed\tfailure\tfix\tCI\tmain\tpush\t1\t1m\t1h",
        );
        assert_eq!(list, [(None, Some("CI".into()), Some("failure".into()))]);
        let view = gh_checks(
            "gh run view 1",
            "✓ main CI · 1\n\nJOBS\n✓ build in 1m (ID 1)\nX test in 2m (ID 2)",
        );
        assert_eq!(view.len(), 2);
        assert_eq!(view[1], (Some("test".into()), None, Some("fail".into())));
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
    fn one_line_strips_escapes_and_cuts_at_words() {
        assert_eq!(one_line("a\u{1b}[31mred\u{1b}[0m\n\n b\u{7}", 50), "ared b");
        assert_eq!(cut("alpha beta gamma delta", 12), "alpha beta…");
        assert_eq!(cut("abc", 0), "");
        assert!(cut("日本語のテキスト", 4).chars().count() <= 4);
    }

    fn busy() -> Extract {
        let mut records = vec![user("make the parser handle nested quotes in src/parse.rs")];
        for n in 0..30 {
            records.push(call(
                &format!("r{n}"),
                "Read",
                &format!(r#"{{"file_path":"src/module_{n}.rs"}}"#),
            ));
            records.push(bash(&format!("b{n}"), &format!("cargo test -p crate{n}")));
            records.push(result(
                &format!("b{n}"),
                "test result: ok. 5 passed; 0 failed;",
            ));
        }
        records.push(assistant("All green. Next, I will update the docs."));
        extract(&records)
    }

    #[test]
    fn caveman_fits_any_budget_and_counts_what_it_cut() {
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
        assert!(text.contains("## goal\nmake the parser"), "{text}");
        assert!(text.contains("more files"), "{text}");
        let roomy = caveman(&ex, 5000, Tokenizer::Chars4);
        assert!(!roomy.contains("## cut"), "{roomy}");
        assert!(roomy.contains("- cargo test -p crate29 → 5pass"), "{roomy}");
        assert!(
            roomy.contains("## next\n- Next, I will update the docs."),
            "{roomy}"
        );
    }

    #[test]
    fn bare_keeps_four_lines_within_the_budget() {
        let ex = busy();
        for budget in [BARE_FLOOR, 25, 40, 100, 1000] {
            for tokenizer in [
                Tokenizer::Chars4,
                Tokenizer::O200k,
                Tokenizer::Fast(crate::tokens::Family::Claude),
            ] {
                let lines = bare(&ex, budget, tokenizer).lines();
                assert!(tokenizer.text_tokens(&lines) <= budget, "{budget}: {lines}");
                let labels: Vec<&str> = lines
                    .lines()
                    .map(|l| l.split(':').next().unwrap())
                    .collect();
                assert_eq!(labels, ["NOW", "NEXT", "TEST", "CI"]);
            }
        }
        let lines = bare(&ex, 100, Tokenizer::Chars4);
        assert_eq!(lines.test, "cargo test -p crate29 → 5pass");
        assert_eq!(lines.ci, "none");
        assert_eq!(lines.next, "Next, I will update the docs.");
        let empty = bare(&Extract::default(), 100, Tokenizer::Chars4).lines();
        assert_eq!(empty, "NOW:none\nNEXT:none\nTEST:none\nCI:none\n");
    }

    #[test]
    fn the_bare_floor_holds_the_empty_labels_in_every_estimator() {
        let labels = "NOW:\nNEXT:\nTEST:\nCI:\n";
        for tokenizer in [
            Tokenizer::Chars4,
            Tokenizer::Chars35,
            Tokenizer::KimiCode,
            Tokenizer::Fast(crate::tokens::Family::Openai),
            Tokenizer::Fast(crate::tokens::Family::Claude),
            Tokenizer::Fast(crate::tokens::Family::Claude47),
            Tokenizer::O200k,
            Tokenizer::Cl100k,
        ] {
            assert!(tokenizer.text_tokens(labels) <= 13, "{}", tokenizer.name());
        }
    }
}
