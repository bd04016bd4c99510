//! The one pass over the records that fills an [`Extract`]: requests, the agent's words and its
//! last call from the main chain; tool calls paired with their results (by id, else by order);
//! files, commands, errors, todos and CI checks keyed so that a repeat updates the first entry.
//! The calls a Codex code-mode cell makes are read as the tools they are (`cells`).

use std::collections::HashMap;

use serde_json::Value;

use super::around::{around, replaced, EditSite};
use super::ask::compress;
use super::background::{running_session, session_argument, Session};
use super::chore::goal_after_chore;
use super::ci::{gh_checks, is_gh_ci, workflow_files};
use super::code_mode::{is_cell, waited_cell};
use super::commits::commits_made;
use super::decisions::{answers, choice_sentences, is_decision_turn, is_rule, DECISION_CHARS};
use super::failures::fixed_by;
use super::gates::is_gate;
use super::goal::{gist, pointed_document, summary_first_words, summary_goal, summary_pending};
use super::limits::{ASK_CHARS, GOAL_CHARS, GOAL_SHOWN, SAID_CHARS, SHORT_REQUEST};
use super::model::*;
use super::names::{edit_names, EDITS_TOUCHED};
use super::next::is_fresh;
use super::outcome::{error_flag, error_lines, exit_status};
use super::paths::{is_pathlike, relative, strip_cd};
use super::plan_mode::{ends_plan_mode, sets_plan_mode};
use super::plumbing::run_segments;
use super::result::result_line;
use super::runners::test_counts;
use super::said::{
    is_plan_call, plan_sentence, plan_text, rejection_words, request_text, unchecked_items, weight,
};
use super::shell::{is_inspection, is_test_command, shell_paths, without_plumbing};
use super::stopped::is_stopped;
use super::text::{cut, has, one_line, plain_text};
use super::tools::{
    argument_paths, delegated_task, patch_paths, shell_command, todo_items, tool_kind, Op, Tool,
};
use super::warnings::warning_lines;
use crate::transcript::classify::{is_compaction_summary, text_of};
use crate::transcript::{Message, Part, Record, Role};

/// How many of the agent's stated choices the builder keeps, and how many distinct ones become
/// decisions.
const CHOICES: usize = 24;

/// How many sub-agent reports the extract keeps.
const REPORTS: usize = 2;
const AGENT_DECISIONS: usize = 8;

/// How many names of the latest edits an extract keeps.
const TOUCHED: usize = 18;

/// What a caller knows of a command's run beyond its output text: the exit status a code-mode
/// result states, or a failed script.
#[derive(Debug, Clone, Copy, Default)]
struct Told {
    exit: Option<i64>,
    failed: bool,
}

/// A call waiting for its result.
struct Pending {
    /// The command's index in the builder's list, for a shell call.
    command: Option<usize>,
    /// A read of the document the goal points at.
    doc: bool,
    /// For a sub-agent call: the record index and what it delegates.
    agent: Option<(usize, String)>,
    /// For a read: the file, as the extract writes paths.
    read: Option<String>,
    answered: bool,
    /// A call made inside a code-mode cell: its result comes in the cell's, never by order.
    inner: bool,
    /// For a code-mode cell, or a `wait` on one: the calls its output answers.
    nested: Vec<usize>,
    /// The background process a call reads from or stops (`write_stdin`, `TaskStop`).
    session: Option<Session>,
    /// For a code-mode cell (or a `wait` on one) in a session with command events: the
    /// commands its script started (indexes into the builder's launches).
    launched: Vec<usize>,
}

/// The state of the one pass: the extract so far, indexes into its lists by key, and the calls
/// still waiting for results.
pub(super) struct Builder {
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
    /// The code names of the latest edits, oldest first, at most [`EDITS_TOUCHED`] of them.
    edits: Vec<Vec<String>>,
    /// The latest edit, and every read's file and result record, for the code around it.
    site: Option<EditSite>,
    reads: Vec<(String, usize)>,
    /// Every request (record index, full text), the user's answers, and the agent's stated
    /// choices (the latest [`CHOICES`]), for the decisions.
    requests: Vec<(usize, String)>,
    answers: Vec<(usize, String)>,
    choices: Vec<(usize, String)>,
    /// The file name of the document the goal request points at, and what was learnt from it
    /// or from the summary the goal came from.
    goal_doc: Option<String>,
    brief: Option<(usize, String)>,
    /// What a leading summary says was in hand.
    summary_pending: Option<(usize, String)>,
    /// The latest sub-agent reports (record index, text), at most [`REPORTS`].
    reports: Vec<(usize, String)>,
    /// The latest plan text the agent wrote (a plan tool's argument, a written plan file),
    /// for its unchecked items.
    plan_doc: Option<(usize, String)>,
    /// Code-mode cells that yielded, by cell id: their slot, for a `wait` on them.
    cells: HashMap<String, usize>,
    /// Patches made in cells whose text is not read here; the `patch_apply_end` events that
    /// follow name their files.
    unread_patches: usize,
    /// Commands left running, by session id: the command's index and the record that said so.
    running: Vec<(String, usize, usize)>,
    /// The session records each command and patch as an event (`Launch`): the
    /// commands and files of cells come from those.
    pub(super) item_events: bool,
    /// Commands cells started, waiting for the event that says they ended.
    launches: Vec<Launch>,
    /// Each change to a file: (record index, file slot), for what the latest commit left out.
    writes: Vec<(usize, usize)>,
}

impl Builder {
    pub(super) fn new(root: Option<String>) -> Self {
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
            edits: Vec::new(),
            site: None,
            reads: Vec::new(),
            requests: Vec::new(),
            answers: Vec::new(),
            choices: Vec::new(),
            goal_doc: None,
            brief: None,
            summary_pending: None,
            reports: Vec::new(),
            plan_doc: None,
            cells: HashMap::new(),
            unread_patches: 0,
            running: Vec::new(),
            item_events: false,
            launches: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// A bookkeeping line that may set the permission mode (Claude Code's `permission-mode`).
    pub(super) fn mode(&mut self, record: &Record) {
        if let Some(on) = sets_plan_mode(record.raw) {
            self.ex.plan_mode = on;
        }
    }

    /// One message. Requests, the agent's words and its last call come from the main chain
    /// only; tool calls and results of sub-agents count too, because they touch the same files.
    pub(super) fn message(&mut self, index: usize, record: &Record, message: &Message) {
        let main = !message.sidechain;
        if main {
            self.ex.messages += 1;
            if let Some(on) = sets_plan_mode(record.raw) {
                self.ex.plan_mode = on;
            }
        }
        if main && message.role == Role::User {
            if let Some(request) = request_text(record, message) {
                self.request(index, request);
            } else if self.goal.is_none() && (record.compaction || is_compaction_summary(message)) {
                self.summary(index, &text_of(message));
            }
        }
        if main && message.role == Role::Assistant {
            for part in &message.parts {
                if let Part::Text(text) = part {
                    for sentence in choice_sentences(text) {
                        if self.choices.len() == CHOICES {
                            self.choices.remove(0);
                        }
                        self.choices.push((index, sentence.to_owned()));
                    }
                }
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
                self.shell_result(index, record, command, output, 1, Told::default());
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

    /// A compaction summary ahead of every request: the goal it states, and the intent beside
    /// the user's own first words when it quotes them.
    fn summary(&mut self, index: usize, text: &str) {
        let Some(goal) = summary_goal(text) else {
            return;
        };
        self.ex.summarised = true;
        self.summary_pending = summary_pending(text).map(|p| (index, p));
        match summary_first_words(text) {
            Some(words) => {
                self.brief = Some((index, format!("intent: {goal}")));
                self.goal = Some((index, words));
            }
            None => self.goal = Some((index, goal)),
        }
    }

    fn request(&mut self, index: usize, text: String) {
        self.ex.requests += 1;
        self.requests.push((index, text.clone()));
        if self.goal.is_none() {
            self.goal_doc = pointed_document(&text);
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
        if main && ends_plan_mode(name) {
            self.ex.plan_mode = false;
        }
        if is_cell(name, arguments) {
            self.cell(index, main, id, arguments);
            return;
        }
        if let Some(cell) = waited_cell(name, arguments) {
            self.wait(id, &cell);
            return;
        }
        // A call written again with its id (a format that rewrites a message as it updates)
        // is one call.
        if id.is_some_and(|id| self.by_id.contains_key(id)) {
            return;
        }
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
                    let c = self.shell_call(index, &text);
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
                self.edited(edit_names(&text, true));
                label = Some(match paths.first() {
                    Some((path, _)) => format!("patch {}", self.relative(path)),
                    None => "patch".to_owned(),
                });
            }
            Tool::Read | Tool::Edit | Tool::Write | Tool::Delete | Tool::Search => {
                if matches!(kind, Tool::Edit | Tool::Write) {
                    self.edited(edit_names(arguments, false));
                }
                if kind == Tool::Edit {
                    self.edit_site(index, arguments);
                }
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
            Tool::Agent => {
                label = delegated_task(arguments).map(|t| format!("agent {}", cut(&t, 60)));
            }
            Tool::Other => {}
        }
        if main {
            let text = label.unwrap_or_else(|| one_line(name, 60));
            self.ex.last_call = Some(Said { text, index });
        }
        let slot = self.pending.len();
        let doc = kind == Tool::Read
            && self.brief.is_none()
            && self.goal_doc.as_deref().is_some_and(|doc| {
                argument_paths(arguments)
                    .iter()
                    .any(|p| p.rsplit('/').next() == Some(doc))
            });
        if matches!(kind, Tool::Write | Tool::Other) && is_plan_call(name, arguments) {
            if let Some(plan) = plan_text(arguments) {
                self.plan_doc = Some((index, plan));
            }
        }
        let agent = (kind == Tool::Agent && main)
            .then(|| delegated_task(arguments))
            .flatten()
            .map(|task| (index, task));
        let read = (kind == Tool::Read)
            .then(|| argument_paths(arguments).first().map(|p| self.relative(p)))
            .flatten();
        self.pending.push(Pending {
            command,
            doc,
            agent,
            read,
            answered: false,
            inner: false,
            nested: Vec::new(),
            session: session_argument(name, arguments),
            launched: Vec::new(),
        });
        if let Some(id) = id {
            self.by_id.insert(id.to_owned(), slot);
        }
    }

    /// A shell command line run: the files it names (a patch's, in a heredoc) and the command,
    /// whose index it returns.
    fn shell_call(&mut self, index: usize, text: &str) -> usize {
        if has(text, "*** Begin Patch") {
            for (path, op) in patch_paths(text) {
                self.file(index, &path, op);
            }
            self.edited(edit_names(text, true));
        }
        for (path, op) in shell_paths(text) {
            self.file(index, &path, op);
        }
        self.command(index, text)
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
                while self.cursor < self.pending.len()
                    && (self.pending[self.cursor].answered || self.pending[self.cursor].inner)
                {
                    self.cursor += 1;
                }
                (self.cursor < self.pending.len()).then_some(self.cursor)
            }
        };
        if let Some(answer) = answers(text) {
            self.answers.push((index, answer));
        }
        let Some(slot) = slot else { return };
        self.pending[slot].answered = true;
        if !self.pending[slot].nested.is_empty() {
            self.cell_result(index, record, slot, text);
            return;
        }
        if !self.pending[slot].launched.is_empty() {
            self.launches_settled(index, slot, text);
            return;
        }
        if let Some(session) = self.pending[slot].session.clone() {
            self.session_read(index, record, &session, text, Told::default());
        }
        if let Some(path) = &self.pending[slot].read {
            self.reads.push((path.clone(), index));
        }
        if let Some(site) = self.site.as_mut().filter(|s| s.slot == slot) {
            site.result = Some(index);
        }
        if self.pending[slot].agent.is_some() {
            if let Some(report) = gist(text).or_else(|| Some(text.to_owned())) {
                if self.reports.len() == REPORTS {
                    self.reports.remove(0);
                }
                self.reports.push((index, report));
            }
        }
        if self.pending[slot].doc && self.brief.is_none() {
            if let (Some(doc), Some(gist)) = (&self.goal_doc, gist(text)) {
                self.brief = Some((index, format!("doc {doc}: {gist}")));
            }
        }
        if let Some(command) = self.pending[slot].command {
            self.shell_result(index, record, command, text, results, Told::default());
        }
    }

    /// The output of a run of command number `command`, with what the caller knows of the run
    /// beyond its text.
    fn shell_result(
        &mut self,
        index: usize,
        record: &Record,
        command: usize,
        text: &str,
        results: usize,
        told: Told,
    ) {
        let plain = plain_text(text);
        let exit = told.exit.or_else(|| exit_status(&plain));
        if let Some(session) = running_session(&plain) {
            self.started(index, command, session);
        }
        // Claude Code and pi flag a failed tool result on the line; only trusted when the
        // line holds this one result.
        let flag = if results == 1 {
            error_flag(record.raw)
        } else {
            None
        };
        let tests = test_counts(&plain);
        let mut ok = match exit {
            // A process the agent stopped did not fail.
            code if is_stopped(code) => None,
            Some(code) => Some(code == 0),
            None if told.failed => Some(false),
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
            error_lines(&plain, ok == Some(false))
        };
        // Error lines mean failure even after a zero exit: `build | head` exits with `head`.
        let succeeded = ok != Some(false) && errors.is_empty();
        let inspect = self.ex.commands[command].inspect;
        // A run that passed may still warn, and says what it did on its last line.
        let warnings = if succeeded && exit == Some(0) && !inspect {
            warning_lines(&plain)
        } else {
            Vec::new()
        };
        let key = self.ex.commands[command].command.clone();
        let looks = run_segments(&key).iter().all(|s| is_inspection(s));
        let result =
            (succeeded && !inspect && !looks && tests.is_none() && !key.starts_with("git "))
                .then(|| result_line(&plain))
                .flatten();
        for commit in commits_made(&key, &plain, index) {
            // A result read twice (a cell's output and its event) is one commit.
            if !self.ex.commits.iter().any(|c| c.hash == commit.hash) {
                self.ex.commits.push(commit);
            }
        }
        {
            let entry = &mut self.ex.commands[command];
            entry.outcome = Some(RunOutcome {
                exit,
                ok,
                tests,
                index,
            });
            entry.test |= tests.is_some();
            entry.result = result;
        }
        if succeeded {
            for error in &mut self.ex.errors {
                let Some(by) = error.command.as_deref() else {
                    continue;
                };
                let look = self
                    .commands
                    .get(by)
                    .is_some_and(|&c| self.ex.commands[c].inspect);
                if fixed_by(&error.text, by, look, &key) {
                    error.resolved = true;
                }
            }
        }
        for line in errors.into_iter().chain(warnings) {
            self.error(index, line, &key);
        }
        if is_gh_ci(&key) {
            for (check, workflow, status) in gh_checks(&key, &plain) {
                self.ci_seen(index, check, workflow, status);
            }
        }
    }

    /// An error line seen at record `index`, in the output of `command`.
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
        let key = without_plumbing(&key).to_owned();
        let slot = match self.commands.get(&key) {
            Some(&slot) => slot,
            None => {
                self.commands.insert(key.clone(), self.ex.commands.len());
                self.ex.commands.push(CommandUse {
                    test: is_test_command(&key) || is_gate(&key),
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

    /// Records the names of one edit, keeping the latest [`EDITS_TOUCHED`].
    fn edited(&mut self, names: Vec<String>) {
        if names.is_empty() {
            return;
        }
        if self.edits.len() == EDITS_TOUCHED {
            self.edits.remove(0);
        }
        self.edits.push(names);
    }

    /// Keeps where an edit tool call changed its file, for the code around it; the call's
    /// slot is the next pending one, as it is recorded before it waits for its result.
    fn edit_site(&mut self, index: usize, arguments: &str) {
        let (Some((old, new)), Some(path)) = (
            replaced(arguments),
            argument_paths(arguments).into_iter().next(),
        ) else {
            return;
        };
        self.site = Some(EditSite {
            path: self.relative(&path),
            old,
            new,
            index,
            slot: self.pending.len(),
            result: None,
        });
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
        file.gone = op == Op::Delete;
        file.last = index;
        if op != Op::Read {
            self.writes.push((index, slot));
        }
    }

    pub(super) fn finish(mut self, records: &[Record]) -> Extract {
        self.ex.running = self.running_labels();
        let said = |(index, text): (usize, String), max: usize| Said {
            text: one_line(&text, max),
            index,
        };
        // A first request that was a chore gives way to the first request of substance.
        if !self.ex.summarised && self.goal_doc.is_none() {
            if let Some(goal) = goal_after_chore(&self.requests) {
                self.goal = Some(goal.clone());
            }
        }
        let goal_index = self.goal.as_ref().map(|g| g.0);
        let task_index = self.task.as_ref().map(|t| t.0);
        let context_index = self.context.as_ref().map(|c| c.0);
        let shown =
            |i: usize| Some(i) == goal_index || Some(i) == task_index || Some(i) == context_index;
        let mut decisions: Vec<Decision> = Vec::new();
        // A turn sent again (after an interruption, a rejected call) is one turn, the latest;
        // one that repeats the goal or the task is shown there.
        let same = |a: &str, b: &str| a.trim() == b.trim();
        let shown_text = |text: &str| {
            [&self.goal, &self.task, &self.context]
                .iter()
                .any(|s| s.as_ref().is_some_and(|(_, t)| same(t, text)))
        };
        for (n, (index, text)) in self.requests.iter().enumerate() {
            let again = self.requests[n + 1..].iter().any(|(_, t)| same(t, text));
            if !shown(*index) && !again && !shown_text(text) && is_decision_turn(text) {
                decisions.push(Decision {
                    text: one_line(text, DECISION_CHARS),
                    index: *index,
                    user: true,
                    rule: is_rule(text),
                });
            }
        }
        for (index, text) in &self.answers {
            decisions.push(Decision {
                text: one_line(text, DECISION_CHARS),
                index: *index,
                user: true,
                rule: true,
            });
        }
        let mut seen: Vec<&str> = Vec::new();
        for (index, text) in self.choices.iter().rev() {
            if seen.len() == AGENT_DECISIONS || seen.contains(&text.as_str()) {
                continue;
            }
            seen.push(text);
            decisions.push(Decision {
                text: one_line(text, DECISION_CHARS),
                index: *index,
                user: false,
                rule: false,
            });
        }
        decisions.sort_by_key(|d| d.index);
        self.ex.decisions = decisions;
        self.ex.brief = self.brief.map(|b| said(b, GOAL_CHARS));
        if self.task.is_none() {
            self.ex.pending = self.summary_pending.map(|p| said(p, SAID_CHARS));
        }
        self.ex.delegated = self
            .pending
            .iter()
            .filter(|p| !p.answered)
            .filter_map(|p| p.agent.clone())
            .map(|a| said(a, SAID_CHARS))
            .collect();
        self.ex.reports = std::mem::take(&mut self.reports)
            .into_iter()
            .map(|r| said(r, SAID_CHARS))
            .collect();
        // Long requests keep their details rather than their first few hundred characters.
        self.ex.goal = self.goal.map(|(index, text)| Said {
            text: compress(&text, GOAL_SHOWN),
            index,
        });
        self.ex.task = self.task.map(|(index, text)| Said {
            text: compress(&text, ASK_CHARS),
            index,
        });
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
        self.ex.fresh = is_fresh(
            self.ex.task.as_ref().map(|t| t.index),
            self.last_text,
            self.ex.last_call.as_ref().map(|c| c.index),
        );
        for names in self.edits.iter().rev() {
            for name in names {
                if !self.ex.touched.contains(name) {
                    self.ex.touched.push(name.clone());
                }
            }
        }
        // The names the edits wrote before the error messages they give: a quoted message
        // takes the room of several names, and the names are what the next turn searches.
        self.ex.touched.sort_by_key(|name| name.starts_with('"'));
        self.ex.touched.truncate(TOUCHED);
        if let Some(site) = &self.site {
            self.ex.around = around(records, site, &self.reads, &self.ex.touched);
        }
        if let Some((index, plan)) = &self.plan_doc {
            let newer = self.ex.todo_at.is_none_or(|at| at < *index);
            let items = unchecked_items(plan);
            if newer && !items.is_empty() {
                self.ex.todos = items
                    .into_iter()
                    .map(|text| Todo {
                        text: one_line(text, SAID_CHARS),
                        active: false,
                    })
                    .collect();
                self.ex.todo_at = Some(*index);
            }
        }
        if let Some(last) = self.ex.commits.last() {
            let mut after: Vec<usize> = self
                .writes
                .iter()
                .filter(|(index, _)| *index > last.index)
                .map(|&(_, slot)| slot)
                .collect();
            after.sort_unstable();
            after.dedup();
            self.ex.uncommitted = after.len();
        }
        let ex = &mut self.ex;
        // Changes weigh more than reads, and recent use up to twice as much as the first
        // record: the files a session is about, with the ones it is on now ahead.
        let n = records.len().max(1) as u64;
        let rank = |f: &FileUse| {
            let uses = u64::from(3 * f.edit + 2 * f.create + 2 * f.delete + f.read);
            uses * (n + f.last as u64) / n
        };
        // A deleted file is no file of the work any more: it goes after the live ones.
        ex.files.sort_by(|a, b| {
            (a.gone.cmp(&b.gone))
                .then(rank(b).cmp(&rank(a)))
                .then(b.last.cmp(&a.last))
        });
        let group = |c: &CommandUse| {
            let failed = c.outcome.is_some_and(|o| o.ok == Some(false));
            match (failed, c.test, c.inspect) {
                (true, _, _) => 0,
                (false, true, _) => 1,
                (false, false, false) => 2,
                (false, false, true) => 3,
            }
        };
        // Only the latest result line is current.
        let latest = ex
            .commands
            .iter()
            .filter(|c| c.result.is_some())
            .filter_map(|c| c.outcome.map(|o| o.index))
            .max();
        for c in &mut ex.commands {
            if c.outcome.map(|o| o.index) != latest {
                c.result = None;
            }
        }
        ex.commands
            .sort_by(|a, b| group(a).cmp(&group(b)).then(b.last.cmp(&a.last)));
        ex.errors
            .sort_by(|a, b| a.resolved.cmp(&b.resolved).then(b.last.cmp(&a.last)));
        ex.ci.sort_by_key(|c| std::cmp::Reverse(c.last));
        self.ex
    }
}

mod cells;

/// A command a code-mode cell started, until its event says it ended.
#[derive(Debug, Clone)]
struct Launch {
    /// The command, as the extract lists it.
    key: String,
    /// Its event came, or its cell returned without one (it is then running).
    ended: bool,
}

#[cfg(test)]
mod tests;
