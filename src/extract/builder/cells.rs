//! Code-mode cells and background commands in the one pass. The calls a cell's script makes go
//! through the builder as the tools they are, and the cell's output (or a later `wait`'s)
//! answers them in order; a command that keeps running is kept until a read says it ended or a
//! call stops it; a `patch_apply_end` event names the files of a patch whose text was not read.
//!
//! Where the session records each command and patch as an `item_completed` event (Codex
//! 0.171), those are the runs and the edits, and a script's own calls only say what was
//! started: a command started with no event by the time its cell returned is still running.

use serde_json::Value;

use super::{Builder, Launch, Pending, Told};
use crate::extract::background::{session_ended, Session};
use crate::extract::code_mode::{
    cell_calls, cell_output, completed_item, exec_results, patch_applied, CellState, Completed,
    Executed, NestedCall, ITEM_COMPLETED,
};
use crate::extract::model::Said;
use crate::extract::paths::strip_cd;
use crate::extract::shell::without_plumbing;
use crate::extract::text::one_line;
use crate::extract::tools::{patch_paths, shell_command};
use crate::transcript::Record;

impl Builder {
    /// A code-mode cell: each call its script makes, then the cell itself, waiting for the
    /// output that answers them.
    pub(super) fn cell(&mut self, index: usize, main: bool, id: Option<&str>, script: &str) {
        if self.item_events {
            self.evented_cell(index, main, id, script);
            return;
        }
        let mut nested = Vec::new();
        for call in cell_calls(script) {
            let slot = self.pending.len();
            self.call(index, main, None, &call.name, &call.arguments);
            if let Some(pending) = self.pending.get_mut(slot) {
                pending.inner = true;
                nested.push(slot);
            }
            self.unread_patches += usize::from(call.unread_patch);
        }
        if nested.is_empty() {
            // A script that calls no tool (it computes, or prints): a call of its own.
            self.ex.calls += 1;
            if main {
                self.last_call_slot = None;
                self.ex.last_call = Some(Said {
                    text: "exec".to_owned(),
                    index,
                });
            }
        }
        self.waiting(id, nested, Vec::new());
    }

    /// A cell of a session whose commands and patches are events: the commands the script
    /// starts wait for their events; a patch gives the names it touched (its files come with
    /// its event); any other tool is read as it is.
    fn evented_cell(&mut self, index: usize, main: bool, id: Option<&str>, script: &str) {
        let mut launched = Vec::new();
        for NestedCall {
            name, arguments, ..
        } in cell_calls(script)
        {
            let args: Value = serde_json::from_str(&arguments).unwrap_or(Value::Null);
            let label = match name.as_str() {
                "exec_command" => {
                    // A command the script builds (a loop's) is only known from its event.
                    let Some(command) = shell_command(&args) else {
                        continue;
                    };
                    launched.push(self.launches.len());
                    self.launches.push(Launch {
                        key: self.command_key(&command),
                        ended: false,
                    });
                    format!("$ {}", one_line(&command, 120))
                }
                "apply_patch" => {
                    self.ex.calls += 1;
                    let text = args
                        .get("input")
                        .or_else(|| args.get("patch"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if text.is_empty() {
                        self.unread_patches += 1;
                    }
                    self.edited(text, true);
                    match patch_paths(text).first() {
                        Some((path, _)) => format!("patch {}", self.relative(path)),
                        None => "patch".to_owned(),
                    }
                }
                _ => {
                    self.call(index, main, None, &name, &arguments);
                    continue;
                }
            };
            if main {
                self.last_call_slot = None;
                self.ex.last_call = Some(Said { text: label, index });
            }
        }
        self.waiting(id, Vec::new(), launched);
    }

    /// The key a command is listed under (see `command`).
    fn command_key(&self, text: &str) -> String {
        without_plumbing(&strip_cd(text.trim(), self.root.as_deref())).to_owned()
    }

    /// A `wait` on a cell that yielded: its output answers the cell's calls still open.
    pub(super) fn wait(&mut self, id: Option<&str>, cell: &str) {
        self.ex.calls += 1;
        let (open, launched) = match self.cells.get(cell) {
            Some(&slot) => (
                self.pending[slot]
                    .nested
                    .iter()
                    .copied()
                    .filter(|&n| !self.pending[n].answered)
                    .collect(),
                self.pending[slot].launched.clone(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        self.waiting(id, open, launched);
    }

    fn waiting(&mut self, id: Option<&str>, nested: Vec<usize>, launched: Vec<usize>) {
        let slot = self.pending.len();
        self.pending.push(Pending {
            command: None,
            doc: false,
            agent: None,
            read: None,
            search: false,
            answered: false,
            inner: false,
            nested,
            session: None,
            launched,
        });
        if let Some(id) = id {
            self.by_id.insert(id.to_owned(), slot);
        }
    }

    /// The output of an evented cell (or of a `wait` on it): once the cell has returned, the
    /// commands it started that have no event yet are still running.
    pub(super) fn launches_settled(&mut self, index: usize, slot: usize, text: &str) {
        let state = cell_output(text).map_or(CellState::Completed, |o| o.state);
        if let CellState::Running(cell) = &state {
            self.cells.insert(cell.clone(), slot);
            return;
        }
        for n in self.pending[slot].launched.clone() {
            if self.launches[n].ended {
                continue;
            }
            self.launches[n].ended = true;
            let key = self.launches[n].key.clone();
            let command = self.command(index, &key);
            self.ex.calls += 1;
            self.started(index, command, format!("cell command {n}"));
        }
    }

    /// The output of a cell (or of a `wait` on it), at `slot`: the command results it prints
    /// answer the open commands in order; otherwise what it printed answers the last of them.
    pub(super) fn cell_result(&mut self, index: usize, record: &Record, slot: usize, text: &str) {
        let open: Vec<usize> = self.pending[slot]
            .nested
            .iter()
            .copied()
            .filter(|&n| !self.pending[n].answered)
            .collect();
        // The calls a command result can answer: commands, and reads of running ones.
        let runs: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&n| self.pending[n].command.is_some() || self.pending[n].session.is_some())
            .collect();
        let (state, body) = match cell_output(text) {
            Some(output) => (output.state, output.body),
            None => (CellState::Completed, text),
        };
        if let CellState::Running(cell) = &state {
            self.cells.insert(cell.clone(), slot);
        }
        let results = exec_results(body);
        let answered = results.len().min(runs.len());
        for (&n, result) in runs.iter().zip(results) {
            self.pending[n].answered = true;
            let told = Told {
                exit: result.exit,
                failed: false,
            };
            if let Some(command) = self.pending[n].command {
                self.shell_result(index, record, command, &result.output, 1, told);
                if let Some(session) = result.session {
                    self.started(index, command, session);
                }
            } else if let Some(session) = self.pending[n].session.clone() {
                let ended = result.exit.is_some() && result.session.is_none();
                let text = if ended { result.output.as_str() } else { "" };
                if ended || session.stops {
                    self.session_read(index, record, &session, text, told);
                }
            }
        }
        if matches!(state, CellState::Running(_)) {
            return;
        }
        // The cell ended: what it printed besides results answers its last open command, and
        // a failed script failed it.
        let last = runs[answered..]
            .last()
            .and_then(|&n| self.pending[n].command);
        if let Some(command) = last {
            let told = Told {
                exit: None,
                failed: state == CellState::Failed,
            };
            self.shell_result(index, record, command, body, 1, told);
        }
        for n in open {
            self.pending[n].answered = true;
        }
    }

    /// Command number `command` keeps running as background process `session`.
    pub(super) fn started(&mut self, index: usize, command: usize, session: String) {
        self.running.retain(|(id, _, _)| *id != session);
        self.running.push((session, command, index));
    }

    /// A read of (or a stop of) background process `session`: once it has ended, its command's
    /// outcome is the read's, and it no longer runs.
    pub(super) fn session_read(
        &mut self,
        index: usize,
        record: &Record,
        session: &Session,
        text: &str,
        told: Told,
    ) {
        let Some(at) = self.running.iter().position(|(id, _, _)| *id == session.id) else {
            return;
        };
        let ended = told.exit.is_some() || session_ended(text);
        if !(ended || session.stops) {
            return;
        }
        let (_, command, _) = self.running.remove(at);
        if ended {
            self.shell_result(index, record, command, text, 1, told);
        }
    }

    /// A bookkeeping record: Codex's `patch_apply_end` names the files of a patch made in a
    /// cell whose text was not read here (one that was is counted from its text already).
    pub(in crate::extract) fn event(&mut self, index: usize, record: &Record, kind: &str) {
        if kind == ITEM_COMPLETED && self.item_events {
            match completed_item(record.raw) {
                Some(Completed::Command(run)) => self.executed(index, record, run),
                Some(Completed::Files(applied, diffs)) => {
                    for (path, op) in &applied.files {
                        self.file(index, path, *op);
                    }
                    if let Some(error) = applied.error {
                        self.error(index, error, "apply_patch");
                    }
                    // A patch whose text the script built is known by its diff.
                    if self.unread_patches > 0 {
                        self.unread_patches -= 1;
                        self.edited(&diffs, true);
                    }
                }
                None => {}
            }
            return;
        }
        let raw = record.raw;
        if kind != "event_msg/patch_apply_end" || self.unread_patches == 0 {
            return;
        }
        let Some(applied) = patch_applied(raw) else {
            return;
        };
        self.unread_patches -= 1;
        for (path, op) in &applied.files {
            self.file(index, path, *op);
        }
        if let Some(error) = applied.error {
            self.error(index, error, "apply_patch");
        }
    }

    /// A command's `CommandExecution` event: the end of a command left running, else a run
    /// of its own (a command a cell started, or one of a loop the script built).
    fn executed(&mut self, index: usize, record: &Record, run: Executed) {
        let key = self.command_key(&run.command);
        let told = Told {
            exit: run.exit,
            failed: run.failed,
        };
        let running = self
            .running
            .iter()
            .position(|(_, c, _)| self.ex.commands[*c].command == key);
        if let Some(at) = running {
            let (_, command, _) = self.running.remove(at);
            self.shell_result(index, record, command, &run.output, 1, told);
            return;
        }
        if let Some(launch) = self.launches.iter_mut().find(|l| !l.ended && l.key == key) {
            launch.ended = true;
        }
        self.ex.calls += 1;
        let command = self.shell_call(index, &run.command);
        self.shell_result(index, record, command, &run.output, 1, told);
    }

    /// The commands still running, for the extract.
    pub(super) fn running_labels(&self) -> Vec<Said> {
        self.running
            .iter()
            .map(|(_, command, index)| Said {
                text: format!("$ {}", self.ex.commands[*command].command),
                index: *index,
            })
            .collect()
    }
}
