//! The keyed lists of the extract: a file, command, error or CI check seen again updates its
//! first entry rather than adding one.

use super::Builder;
use crate::extract::gates::is_gate;
use crate::extract::model::*;
use crate::extract::paths::{is_harness_file, relative, strip_cd};
use crate::extract::shell::{is_inspection, is_test_command, without_plumbing};
use crate::extract::tools::Op;

impl Builder {
    /// An error line seen at record `index`, in the output of `command`.
    pub(super) fn error(&mut self, index: usize, text: String, command: &str) {
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

    pub(super) fn ci_seen(
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
    pub(super) fn command(&mut self, index: usize, text: &str) -> usize {
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

    pub(super) fn relative(&self, path: &str) -> String {
        relative(path, self.root.as_deref())
    }

    pub(super) fn file(&mut self, index: usize, path: &str, op: Op) {
        let path = self.relative(path);
        // A path is printed as it is, so one with control characters (an escape sequence
        // could drive the reader's terminal) is no path worth keeping; a harness's own file (a
        // background task's output) is no part of the work.
        if path.is_empty()
            || path == "."
            || path.contains(char::is_control)
            || is_harness_file(&path)
        {
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
}
