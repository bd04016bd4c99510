//! Tool results in the one pass: each finds its call (by id, else by order) and says what the
//! run gave: errors, test counts, warnings, result lines, CI checks, the background jobs left.

use super::{Builder, Told, REPORTS};
use crate::extract::background::running_session;
use crate::extract::ci::{gh_checks, is_gh_ci};
use crate::extract::commits::commits_made;
use crate::extract::decisions::answers;
use crate::extract::failures::fixed_by;
use crate::extract::found::found_files;
use crate::extract::goal::gist;
use crate::extract::model::*;
use crate::extract::outcome::{error_flag, error_lines, exit_status};
use crate::extract::plumbing::run_segments;
use crate::extract::report_files::report_files;
use crate::extract::report_preamble::without_preamble;
use crate::extract::result::result_line;
use crate::extract::runners::test_counts;
use crate::extract::said::{is_plan_path, rejection_words};
use crate::extract::shell::is_inspection;
use crate::extract::stopped::is_stopped;
use crate::extract::task_runs::task_programs;
use crate::extract::text::plain_text;
use crate::extract::tools::Op;
use crate::extract::verification::verification_commands;
use crate::extract::warnings::warning_lines;
use crate::transcript::Record;

impl Builder {
    /// A tool result: finds its call by id, else the oldest unanswered call.
    pub(super) fn result(
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
        self.tasks.result(index, id, text);
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
        // Only the latest result's search hits are where the agent goes next (see `found`).
        self.ex.found = if self.pending[slot].search {
            found_files(text)
        } else {
            Vec::new()
        };
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
            // A plan document the agent reads is the plan it follows, when it names checks.
            if is_plan_path(path) {
                let checks = verification_commands(text);
                if !checks.is_empty() {
                    self.plan_read = Some((index, checks));
                }
            }
        }
        if let Some(site) = self.site.as_mut().filter(|s| s.slot == slot) {
            site.result = Some(index);
        }
        if self.pending[slot].agent.is_some() {
            // The known files the report names are the ones the agent opens next (see
            // `report_files`).
            for path in report_files(text, &self.ex.files) {
                self.file(index, &path, Op::Read);
            }
            // What it found, past the words it opens with (see `report_preamble`).
            let text = without_preamble(text);
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
    pub(super) fn shell_result(
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
            entry.ran = task_programs(&key, &plain);
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
}
