//! NEXT: the request the agent has not acted on, with the other file the work wrote (see
//! `asked_where`); else the next step (a finished turn: its closing words), past a plan the
//! agent's calls went beyond or whose call is still running (see `stale_plan`, `open_call`),
//! then the open todos from the item the plan is on (`todos`, `plan_todo`) and the file the
//! latest search found (`found`); led by the git steps the latest request ordered and no command
//! ran (see `asked_git`), in plan mode by the plan, and before all by the user's instructions
//! for the compaction (see `instructions`).

use super::super::asked_git::unfinished_git_steps;
use super::super::closing::closing_words;
use super::super::continued::by_file_names;
use super::super::instructions::{instructions_step, BARE_SHOWN};
use super::super::model::{Extract, Said};
use super::super::next::AWAIT_USER;
use super::super::plan_mode::PLAN_MODE_STEP;
use super::super::shorten::{ask, prefixed, Shortening};
use super::super::stale_plan::with_latest_call;
use super::asked_where::with_other_written;
use super::found::with_found;
use super::plan_todo::from_planned_item;
use super::todos::with_todos;

/// Characters of the agent's closing words NEXT quotes when its turn is over: its last sentence
/// or two, what it offers or leaves. More is its recap of the work, which NOW's task and
/// state already name, in the room NOW needs (eval corpus: at 100 rather than 150, goal probes
/// 34 -> 35 and no other kind moved; at 250, bare lost 3).
const SAID_CLOSING: usize = 100;

/// NEXT of `ex`; `fresh` is the request the agent has not acted on yet, if any.
pub(super) fn next_value(ex: &Extract, fresh: Option<&Said>) -> Shortening {
    let none = || Shortening::plain("none".to_owned());
    let next = match (fresh, ex.next()) {
        (Some(task), _) => ask(ex.context.as_ref(), task, ""),
        // The turn is over: what the agent answered is what the user will answer to, and its
        // answer ends on what is left or offered (see `closing`).
        (None, Some(next)) if next == AWAIT_USER => match &ex.closing {
            Some(said) => Shortening::plain(format!(
                "{next}; said: {}",
                closing_words(&said.text, SAID_CLOSING)
            )),
            None => Shortening::plain(next),
        },
        (None, next) => next.map_or_else(none, |n| {
            Shortening::plain(by_file_names(&with_latest_call(ex, &n)))
        }),
    };
    // A request not acted on is the whole of what comes next; otherwise what is left of the list.
    // What is left of the list runs from the item the plan is on (see `plan_todo`).
    let plan = ex
        .plan
        .as_ref()
        .filter(|p| ex.next().as_deref() == Some(p.text.as_str()));
    let todos = match plan {
        Some(plan) => from_planned_item(&plan.text, &ex.todos),
        None => &ex.todos[..],
    };
    let next = match fresh {
        Some(_) => with_other_written(next, ex),
        None => with_found(with_todos(next, todos), &ex.found),
    };
    // What the latest request ordered of git and no command ran yet goes first (see
    // `asked_git`).
    let next = match unfinished_git_steps(ex).filter(|_| fresh.is_none()) {
        Some(steps) => prefixed(&format!("{steps} (asked) | "), next),
        None => next,
    };
    let next = if ex.plan_mode {
        in_plan_mode(next)
    } else {
        next
    };
    // The user's instructions for the compaction come before everything (see
    // `instructions`).
    match instructions_step(ex, BARE_SHOWN) {
        Some(step) if next.full == "none" => Shortening::plain(step),
        Some(step) => prefixed(&format!("{step} | "), next),
        None => next,
    }
}

/// `<plan mode step> | <next>`: in plan mode the step after whatever the agent looks at next
/// is the plan and its approval; it goes first, so that a short cut keeps it.
fn in_plan_mode(next: Shortening) -> Shortening {
    let head = format!("{PLAN_MODE_STEP} | ");
    if next.full == "none" {
        return Shortening::plain(PLAN_MODE_STEP.to_owned());
    }
    prefixed(&head, next)
}
