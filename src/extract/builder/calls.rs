//! Tool calls in the one pass: what each call touches (files, commands, the plan, a sub-agent),
//! waiting for its result; and the names and site of the latest edits.

use serde_json::Value;

use super::{Builder, Pending};
use crate::extract::around::{replaced, EditSite};
use crate::extract::background::session_argument;
use crate::extract::ci::workflow_files;
use crate::extract::code_mode::{is_cell, waited_cell};
use crate::extract::found::is_search_command;
use crate::extract::model::*;
use crate::extract::names::{edit_names, edit_texts, EDITS_TOUCHED};
use crate::extract::paths::is_pathlike;
use crate::extract::plan_mode::ends_plan_mode;
use crate::extract::said::{is_plan_call, plan_text};
use crate::extract::shell::shell_paths;
use crate::extract::text::{cut, has, one_line};
use crate::extract::tools::{
    argument_paths, delegated_task, patch_paths, shell_command, todo_items, tool_kind, Op, Tool,
};
use crate::extract::written_tests::test_definitions;

impl Builder {
    pub(super) fn call(
        &mut self,
        index: usize,
        main: bool,
        id: Option<&str>,
        name: &str,
        arguments: &str,
    ) {
        if main && ends_plan_mode(name) {
            self.ex.plan_mode = false;
        }
        if main {
            self.ex.calls_after_words += 1;
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
                self.edited(&text, true);
                label = Some(match paths.first() {
                    Some((path, _)) => format!("patch {}", self.relative(path)),
                    None => "patch".to_owned(),
                });
            }
            Tool::Read | Tool::Edit | Tool::Write | Tool::Delete | Tool::Search => {
                if matches!(kind, Tool::Edit | Tool::Write) {
                    self.edited(arguments, false);
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
                // Claude Code's task tools change one task at a time: `tasks` rebuilds the list.
                let task = self.tasks.call(index, id, name, arguments);
                if let Some(todos) = serde_json::from_str::<Value>(arguments)
                    .ok()
                    .as_ref()
                    .filter(|_| !task)
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
            self.last_call_slot = Some(self.pending.len());
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
        let search = kind == Tool::Search
            || command.is_some_and(|c| is_search_command(&self.ex.commands[c].command));
        self.pending.push(Pending {
            command,
            doc,
            agent,
            read,
            search,
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
    pub(super) fn shell_call(&mut self, index: usize, text: &str) -> usize {
        if has(text, "*** Begin Patch") {
            for (path, op) in patch_paths(text) {
                self.file(index, &path, op);
            }
            self.edited(text, true);
        }
        for (path, op) in shell_paths(text) {
            self.file(index, &path, op);
        }
        self.command(index, text)
    }

    /// Records the names of one edit (its `arguments`, or a patch's text), keeping the
    /// latest [`EDITS_TOUCHED`], and the tests it wrote (see `written_tests`).
    pub(super) fn edited(&mut self, arguments: &str, patch: bool) {
        // One parse of the arguments serves both.
        let texts = edit_texts(arguments, patch);
        let tests = texts
            .first()
            .map(|written| test_definitions(written))
            .unwrap_or_default();
        if !tests.is_empty() {
            self.tests.push(tests);
        }
        let names = edit_names(&texts);
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
    pub(super) fn edit_site(&mut self, index: usize, arguments: &str) {
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
}
