//! The one pass over the records that fills an [`Extract`]: requests, the agent's words and its
//! last call from the main chain; tool calls paired with their results (by id, else by order);
//! files, commands, errors, todos and CI checks keyed so that a repeat updates the first entry.
//! The calls a Codex code-mode cell makes are read as the tools they are (`cells`).
//!
//! This file holds the builder's state and routes each message; the user's turns are read in
//! `requests`, tool calls in `calls`, their results in `results`, the keyed lists in `entries`,
//! and `finish` ranks and cuts everything once the pass is over.

use std::collections::HashMap;

use super::around::EditSite;
use super::background::Session;
use super::decisions::choice_sentences;
use super::model::*;
use super::plan_file::plan_file;
use super::plan_mode::sets_plan_mode;
use super::said::request_text;
use super::stated::Stated;
use super::tasks::TaskList;
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
    /// A search of file contents (a search tool, `grep`, `rg`): its output lists files.
    search: bool,
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
    /// The pending slot of the agent's last call, while that call is a tool call of its own.
    last_call_slot: Option<usize>,
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
    /// The figures the agent's texts stated (see `stated`).
    stated: Stated,
    /// The code names of the latest edits, oldest first, at most [`EDITS_TOUCHED`](crate::extract::names::EDITS_TOUCHED) of them.
    edits: Vec<Vec<String>>,
    /// The tests each edit that wrote any wrote, oldest first (see `written_tests`).
    tests: Vec<Vec<String>>,
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
    /// The latest plan the user accepted (Claude Code's "Implement the following plan:" turn):
    /// with `plan_doc`, where the checks the plan names come from.
    accepted_plan: Option<(usize, String)>,
    /// The checks the latest plan document the agent read (`docs/plans/….md`) names, when it
    /// names any.
    plan_read: Option<(usize, Vec<String>)>,
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
    /// Claude Code's task list, rebuilt from its task tools.
    tasks: TaskList,
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
            last_call_slot: None,
            by_id: HashMap::new(),
            cursor: 0,
            goal: None,
            task: None,
            substantive: None,
            context: None,
            last_text: None,
            stated: Stated::default(),
            edits: Vec::new(),
            tests: Vec::new(),
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
            accepted_plan: None,
            plan_read: None,
            cells: HashMap::new(),
            unread_patches: 0,
            running: Vec::new(),
            item_events: false,
            launches: Vec::new(),
            writes: Vec::new(),
            tasks: TaskList::default(),
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
                self.asked(record, message, &request);
                self.request(index, request);
            } else if self.goal.is_none() && (record.compaction || is_compaction_summary(message)) {
                self.summary(index, &text_of(message));
            }
        }
        if main && message.role == Role::Assistant {
            if let Some(plan) = plan_file(record.raw, message, None) {
                self.ex.plan_file = Some(plan);
            }
            for part in &message.parts {
                if let Part::Text(text) = part {
                    self.stated.text(text);
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
                self.ex.calls_after_words = 0;
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
}

mod calls;
mod cells;
mod entries;
mod finish;
mod requests;
mod results;

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
