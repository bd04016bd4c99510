//! NOW: the current task (where the agent left off, when a new request waits), led by where the
//! work stands (`state`) and what the agent said of its progress, with its place (`@ file:function`,
//! and the other file the current request changed, see `request_file`) and the names the latest
//! edits changed (`names`, the rule of an open lint finding first, see `checker`).

use super::super::model::{Extract, Said};
use super::super::shorten::{ask, prefixed, Shortening};
use super::checker::open_checkers;
use super::hashes::hashes_then_touched;
use super::kept::cut_keeping_names;
use super::names::{with_names, NOW_NAMES};
use super::request_file::{other_request_file, with_request_file};
use super::state::work_state;
use super::subject::SubjectOrHash;
use crate::tokens::Tokenizer;

/// NOW before its cut: as it is, and with the other file the current request changed when
/// that fits in the room of its last names.
pub(super) struct Now {
    /// NOW without the other file.
    pub(super) plain: SubjectOrHash,
    /// The other file's name, and NOW with it.
    with_other: Option<(String, SubjectOrHash)>,
}

impl Now {
    /// NOW of `ex`; `fresh` is the request the agent has not acted on yet, if any.
    pub(super) fn of(ex: &Extract, fresh: Option<&Said>, tokenizer: Tokenizer) -> Now {
        let none = || Shortening::plain("none".to_owned());
        let left_off = ex
            .doing
            .as_ref()
            .or(ex.last_call.as_ref())
            .map(|said| Shortening::plain(said.text.clone()));
        let now = match (&ex.task, &ex.pending) {
            (Some(_), _) if fresh.is_some() && left_off.is_some() => left_off.unwrap_or_else(none),
            (Some(task), _) => ask(ex.context.as_ref(), task, ""),
            (None, Some(pending)) => Shortening::plain(pending.text.clone()),
            (None, None) => ex
                .goal
                .as_ref()
                .map_or_else(none, |g| Shortening::plain(g.text.clone())),
        };
        // The file the current request changed before the one NOW names joins the place in the
        // room of the last names (see `request_file`).
        let other_file = ex
            .focus()
            .and_then(|file| other_request_file(ex, &file.path));
        let asked = now;
        let build = |other_file: Option<&str>, names_shown: usize| {
            let now = match ex.focus() {
                Some(file) => with_file(
                    asked.clone(),
                    &file.path,
                    function_in(ex, &file.path),
                    other_file,
                ),
                None => asked.clone(),
            };
            // An open finding's rule leads the names, the failure the work is on (see `checker`).
            let mut names = open_checkers(ex);
            names.extend(hashes_then_touched(ex));
            let now = with_names(now, &names, names_shown);
            let now = match (fresh, ex.answered) {
                (None, false) => with_progress(now, ex),
                _ => now,
            };
            let with_state = |state: Option<String>| match state {
                Some(state) if now.full != "none" => prefixed(&format!("{state} | "), now.clone()),
                Some(state) => Shortening::plain(state),
                None => now.clone(),
            };
            let state = work_state(ex, true);
            SubjectOrHash {
                with_subject: with_state(state.clone()),
                state: state.unwrap_or_default(),
                with_hash: with_state(work_state(ex, false)),
            }
        };
        let plain = build(None, NOW_NAMES);
        let with_other = other_file.and_then(|other| {
            let with = with_request_file(&plain, NOW_NAMES, |n| build(Some(&other), n), tokenizer)?;
            Some((other, with))
        });
        Now { plain, with_other }
    }

    /// NOW in at most `max` characters, keeping the `marked` names its cut drops (see `kept`):
    /// with the other file while the cut still shows it, else as it was.
    pub(super) fn at(&self, max: usize, marked: &[String]) -> String {
        if let Some((other, with)) = &self.with_other {
            let line = cut_keeping_names(with, max, marked);
            if line.contains(other.as_str()) {
                return line;
            }
        }
        cut_keeping_names(&self.plain, max, marked)
    }
}

/// Characters below which what the agent last said, its plan sentence taken out, says nothing.
const PROGRESS_MIN: usize = 16;

/// `<progress> | <current task>`: what the agent said last, without the plan sentence NEXT
/// shows, ahead of the task, since mid-work it says where the task stands ("all unit tests
/// pass", "found it: the URL defaults to localhost"). The task's protected tail stays whole.
fn with_progress(now: Shortening, ex: &Extract) -> Shortening {
    let Some(doing) = &ex.doing else { return now };
    let mut said = doing.text.clone();
    if let Some(plan) = &ex.plan {
        said = said.replace(plan.text.as_str(), "");
    }
    let said = said.trim();
    if said.chars().count() < PROGRESS_MIN || now.full == "none" {
        return now;
    }
    prefixed(&format!("{said} | "), now)
}

/// The definition the latest edit sits in, when that edit is in this file.
fn function_in<'e>(ex: &'e Extract, path: &str) -> Option<&'e str> {
    let around = ex.around.as_ref().filter(|a| a.path == path)?;
    around.function.as_deref()
}

/// The current task and ` @ <file>`, the file the work is on, or ` @ <file>:<function>` with the
/// definition its latest edit sits in, then `, <other file>` the current request changed before it
/// (see `request_file`); each unless the task names it. When the line is cut the
/// place stays whole while the task before it shortens: the file and the definition are what
/// the next turn opens, and a task's words are the ones the other lines repeat.
pub(super) fn with_file(
    now: Shortening,
    path: &str,
    function: Option<&str>,
    other_file: Option<&str>,
) -> Shortening {
    let name = path.rsplit('/').next().unwrap_or(path);
    let named = |word: &str| word.is_empty() || now.full.contains(word);
    let place = match function.filter(|f| !named(f)) {
        Some(function) if named(name) => function.to_owned(),
        Some(function) => format!("{name}:{function}"),
        None => name.to_owned(),
    };
    let place = match other_file.filter(|other| !named(other)) {
        Some(other) if named(&place) => other.to_owned(),
        Some(other) => format!("{place}, {other}"),
        None => place,
    };
    if named(&place) || now.full == "none" {
        return now;
    }
    let protected = now.tail < now.full.len();
    let full = format!("{} @ {place}", now.full);
    Shortening {
        tail: if protected { now.tail } else { now.full.len() },
        full,
        fallback: now.fallback,
    }
}
