//! The candidate lines of a caveman summary, section by section, each with its priority and
//! its share of the budget.

use super::decisions::decision_lines;
use super::line::*;
use super::render::{plural, NAMES_PER_LINE};
use super::terse::terse;
use super::touched::touched_in_use_order;
use super::written::written_tests_line;
use crate::extract::complete::{is_complete, COMPLETE};
use crate::extract::continued::by_file_names;
use crate::extract::error_types::error_types;
use crate::extract::figures::with_figures;
use crate::extract::file_names::short_names;
use crate::extract::file_uses::by_use;
use crate::extract::focused::focused_test;
use crate::extract::instructions::{self, instructions_step};
use crate::extract::model::{Around, Extract, Said};
use crate::extract::plan_mode::PLAN_MODE_STEP;
use crate::extract::repeats::same_request;
use crate::extract::shorten::{ask, Shortening};
use crate::extract::text::{cut, one_line};
use crate::extract::work_dirs::work_dirs;

/// The candidate lines of a caveman summary, in print order within each section.
pub(super) fn caveman_lines(ex: &Extract) -> Vec<Line> {
    let mut lines = Vec::new();
    let head = String::from("# caveman");
    // No working directory either: the next turn runs in it (the agent's own context names
    // it), the paths below are relative to it, and `/Users/<name>/…/project` took about 15
    // tokens a summary that carried no re-used entity and no probe (eval corpus; without it,
    // caveman's probes 476 -> 477 and entities carried 1,210 -> 1,246 against main).
    // No counts of messages, calls or asks: the next reader acts on none of them, and at 500
    // tokens each word of scaffolding is a path or a name less.
    lines.push(Line::plain(Section::Head, head, None, 0));
    // A work branch names the work; the default branch says nothing.
    let default = |b: &str| matches!(b, "main" | "master" | "trunk" | "develop");
    // With where the work stands in git: short, since the subjects are in the files' names;
    // and the plan file the work follows.
    let branch = ex.branch.as_deref().filter(|b| !default(b));
    let git: Vec<String> = branch
        .map(|b| format!("branch: {b}"))
        .into_iter()
        .chain(commits_note(ex))
        .chain(ex.plan_file.as_ref().map(|p| format!("plan: {p}")))
        .collect();
    if !git.is_empty() {
        lines.push(Line::plain(Section::Head, git.join(" | "), None, 25));
    }
    if let Some(goal) = &ex.goal {
        let text = if ex.summarised {
            format!("(from the summary) {}", terse(&cut(&goal.text, GOAL_SHOWN)))
        } else {
            terse(&cut(&goal.text, GOAL_SHOWN))
        };
        lines.push(Line::plain(Section::Goal, text, Some(30), 1));
    }
    if let Some(brief) = &ex.brief {
        lines.push(Line::plain(
            Section::Goal,
            terse(&cut(&brief.text, BRIEF_SHOWN)),
            Some(20),
            3,
        ));
    }
    decision_lines(ex, &mut lines);
    if let (None, Some(pending)) = (&ex.task, &ex.pending) {
        let text = format!(
            "pending (from the summary): {}",
            terse(&cut(&pending.text, 240))
        );
        lines.push(Line::plain(Section::Now, text, Some(20), 2));
    }
    // A request the goal already shows is not printed again (see `repeats`).
    let in_goal = |said: &Said| ex.goal.as_ref().is_some_and(|g| same_request(g, said));
    if let Some(task) = &ex.task {
        // The request the latest one leans on is often the goal itself ("push and create a
        // PR" after "Implement the following plan: …"): `## goal` shows it already.
        let context = ex.context.as_ref().map(|c| match in_goal(c) {
            true => Said {
                text: "=goal".to_owned(),
                index: c.index,
            },
            false => c.clone(),
        });
        let text = if in_goal(task) && context.is_none() {
            Shortening::plain("ask: =goal".to_owned())
        } else {
            let tersed = |said: &Said| Said {
                text: terse(&said.text),
                index: said.index,
            };
            ask(
                context.as_ref().map(tersed).as_ref(),
                &tersed(task),
                "ask: ",
            )
        };
        lines.push(Line::new(Section::Now, text, Some(20), 2));
    }
    if let Some(doing) = &ex.doing {
        // The figures the agent stated past the cut stay beside it (see `figures`).
        let text = format!("said: {}", terse(&cut(&doing.text, SAID_SHOWN)));
        let text = with_figures(text, &ex.doing_figures);
        lines.push(Line::new(Section::Now, text, Some(10), 6));
    }
    // The figures the agent reported before its last words (see `stated`).
    if !ex.stated_figures.is_empty() {
        let text = format!("figures: {}", ex.stated_figures.join("; "));
        lines.push(Line::plain(
            Section::Now,
            text,
            None,
            STATED_FIGURES_PRIORITY,
        ));
    }
    if is_complete(ex) {
        lines.push(Line::plain(Section::Now, COMPLETE.to_owned(), None, 7));
    }
    // Work in flight and what the sub-agents found: current state a summary must not lose.
    for (n, task) in ex.delegated.iter().take(CANDIDATES).enumerate() {
        let text = format!("running: {}", terse(&cut(&task.text, 160)));
        lines.push(Line::plain(
            Section::Now,
            text,
            None,
            if n == 0 { 16 } else { 38 },
        ));
    }
    // Commands left running (a dev server, a watcher): the next turn may talk to them.
    for (n, process) in ex.running.iter().rev().take(CANDIDATES).enumerate() {
        let text = format!("running: {}", cut(&process.text, 120));
        lines.push(Line::plain(
            Section::Now,
            text,
            None,
            if n == 0 { 17 } else { 41 },
        ));
    }
    for (n, report) in ex.reports.iter().rev().enumerate() {
        let text = format!("found: {}", terse(&cut(&report.text, 200)));
        let priority = report_priority(n, report, ex.last_call.as_ref());
        lines.push(Line::plain(Section::Now, text, None, priority));
    }
    if let Some(call) = &ex.last_call {
        let text = format!("last: {}", cut(&call.text, 100));
        lines.push(Line::plain(Section::Now, text, Some(10), 30));
    }
    // Where the latest edit sits and what its block goes on to call: the code a request like
    // "do it the way the check above does" points at, which the edit's own names miss.
    if let Some(text) = ex.around.as_ref().and_then(around_line) {
        lines.push(Line::plain(Section::Now, text, None, 31));
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
        let priority = [4, 35, 45].get(n).copied().unwrap_or(60);
        lines.push(Line::plain(Section::Errors, text, None, priority));
    }
    // The error types the session is about, where no command printed them (see
    // `error_types`); they leave the names below.
    let types = error_types(&ex.names);
    if !types.is_empty() {
        let text = format!("- types: {}", types.join(" "));
        lines.push(Line::plain(
            Section::Errors,
            text,
            None,
            ERROR_TYPES_PRIORITY,
        ));
    }
    // The files, by the short tail of their path that names them and a few to a line (see
    // `file_names`), under what was done to them (see `file_uses`): no whole directories and
    // no use counts, which took a dozen tokens a file. The first line (the most-used edited
    // files) comes right after the decisions and the task.
    let all: Vec<&str> = ex.files.iter().map(|f| f.path.as_str()).collect();
    let listed = &ex.files[..all.len().min(CANDIDATES)];
    let mut file_lines: Vec<String> = Vec::new();
    for (kind, at) in by_use(listed) {
        let paths: Vec<&str> = at.iter().map(|&i| all[i]).collect();
        for group in short_names(&paths, &all).chunks(NAMES_PER_LINE) {
            file_lines.push(format!("- {} {}", kind.label(), group.join(" ")));
        }
    }
    // The second line goes ahead of the frequent names too: of the files caveman lists, two
    // in three edited ones are used again after a cut (eval corpus), more than the names; the
    // lines after it go among the first lines of names (see `MORE_FILES_PRIORITY`).
    for (n, text) in file_lines.into_iter().enumerate() {
        let (third, step) = MORE_FILES_PRIORITY;
        let priority = [20, 21]
            .get(n)
            .copied()
            .unwrap_or_else(|| third + step * (n as u32 - 2));
        lines.push(Line {
            tie: n,
            ..Line::plain(Section::Files, text, None, priority)
        });
    }
    // The folders the changed files sit in (see `work_dirs`): where the next agent's tests
    // and searches run, which the short file names above leave out.
    let dirs = work_dirs(listed, WORK_DIRS_SHOWN, ex.plan_file.as_deref());
    if !dirs.is_empty() {
        let text = format!("- dirs: {}", dirs.join(" "));
        lines.push(Line::plain(Section::Files, text, None, WORK_DIRS_PRIORITY));
    }
    // The tests the agent wrote: what the next turn runs by name (see `written`).
    lines.extend(written_tests_line(ex));
    // The names the goal gives (see `goal_names`); the ones the goal line shows are not printed
    // again (see `render`), so what is left is what the cut goal leaves out.
    if !ex.goal_names.is_empty() {
        let text = format!("- {}", ex.goal_names.join(" "));
        lines.push(Line::plain(Section::Names, text, None, GOAL_NAMES_PRIORITY));
    }
    // The names the agent's last words give (see `said_names`), the ones `said:` shows left
    // out as the goal's are.
    if !ex.said_names.is_empty() {
        let text = format!("- {}", ex.said_names.join(" "));
        lines.push(Line::plain(Section::Names, text, None, SAID_NAMES_PRIORITY));
    }
    let test = ex.test_command().map(|c| c.command.as_str());
    // After a failed run, the test the agent last ran alone is the one it runs again.
    let focused = focused_test(ex);
    let mut others = 0;
    let mut programs_shown: Vec<&str> = Vec::new();
    for command in ex.commands.iter().take(CANDIDATES) {
        // The test command (the latest test run) leads the section; any test command keeps its
        // filter whole.
        let is_latest_test = test == Some(command.command.as_str());
        let shown = if command.test {
            TEST_SHOWN
        } else {
            COMMAND_SHOWN
        };
        let mut text = format!("- {}", one_line(&command.command, shown));
        // The programs a task runner ran, which the command does not name (see `task_runs`),
        // on the first line that ran them: `mise run lint` three ways is one linter.
        let ran: Vec<&str> = command
            .ran
            .iter()
            .map(String::as_str)
            .filter(|p| !programs_shown.contains(p))
            .collect();
        if !ran.is_empty() {
            text.push_str(&format!(" [{}]", ran.join(", ")));
            programs_shown.extend(ran);
        }
        let label = command.outcome.map(|o| o.label()).unwrap_or_default();
        if !label.is_empty() {
            text.push_str(&format!(" → {label}"));
        }
        if let Some(result) = &command.result {
            text.push_str(&format!(": {result}"));
        }
        if command.runs > 1 {
            text.push_str(&format!(" ×{}", command.runs));
        }
        if let Some(filter) = focused.as_ref().filter(|_| is_latest_test) {
            text.push_str(&format!("; alone: {filter}"));
        }
        let priority = if is_latest_test {
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
        lines.push(Line::plain(Section::Commands, text, None, priority));
    }
    // The checks the plan says to run and the session has not run yet: what the next agent
    // runs to verify its work, under the commands as planned, on one line (a line each would
    // take the room of a file name each).
    if !ex.planned.is_empty() {
        let runs: Vec<String> = ex
            .planned
            .iter()
            .map(|command| one_line(command, TEST_SHOWN))
            .collect();
        let text = format!("- planned: {}", runs.join("; "));
        lines.push(Line::plain(
            Section::Commands,
            cut(&text, PLANNED_SHOWN),
            None,
            PLANNED_PRIORITY,
        ));
    }
    // The user's instructions for the compaction lead the next steps (see `instructions`).
    if let Some(step) = instructions_step(ex, instructions::CAVEMAN_SHOWN) {
        lines.push(Line::plain(
            Section::Next,
            format!("- {step}"),
            None,
            INSTRUCTIONS_PRIORITY,
        ));
    }
    // The plan sentence comes from the agent's last words: when `said:` already shows it, a
    // second copy under next only takes the room of a file or a name.
    let plan = ex.plan.as_ref().filter(|p| !shown_in_said(ex, &p.text));
    if let Some(plan) = plan {
        let text = format!("- {}", terse(&cut(&plan.text, 200)));
        lines.push(Line::plain(Section::Next, text, Some(15), 7));
    }
    for (n, todo) in ex.todos.iter().take(CANDIDATES).enumerate() {
        let mark = if todo.active { "▶ " } else { "" };
        // The open todos after the first name the steps after it (the next functions to write,
        // the checks to run): the two after it come right after the top files.
        let priority = match n {
            0 => 8,
            1..=2 => 12,
            _ => 75,
        };
        // A task's description names the files and commands of the step (`TaskCreate`): the
        // first two steps carry theirs, the ones after them their titles.
        let item = match &todo.detail {
            Some(detail) if n < DETAILED_TODOS => format!("{}: {detail}", todo.text),
            _ => todo.text.clone(),
        };
        let text = format!("- {mark}{}", terse(&cut(&item, 160)));
        lines.push(Line::plain(Section::Next, text, None, priority));
    }
    if ex.plan.is_none() && ex.todos.is_empty() {
        if let Some(next) = ex.next() {
            lines.push(Line::plain(
                Section::Next,
                format!("- {}", terse(&cut(&by_file_names(&next), 160))),
                Some(10),
                8,
            ));
        }
    }
    // In plan mode, the plan and its approval come after whatever the agent looks at next.
    if ex.plan_mode {
        lines.push(Line::plain(
            Section::Next,
            format!("- {PLAN_MODE_STEP}"),
            None,
            8,
        ));
    }
    for (n, check) in ex.ci.iter().take(CANDIDATES).enumerate() {
        let priority = if n == 0 { 25 } else { 85 };
        lines.push(Line::plain(
            Section::Ci,
            format!("- {}", check.label()),
            None,
            priority,
        ));
    }
    // Then the names the latest edits wrote or replaced, ahead of most files and commands:
    // the code the agent was changing is what it will look for first; the ones the session
    // uses elsewhere first (see `touched`).
    let touched = touched_in_use_order(&ex.touched, &ex.names);
    for (n, group) in touched.chunks(NAMES_PER_LINE).enumerate() {
        lines.push(Line::plain(
            Section::Names,
            format!("- {}", group.join(" ")),
            None,
            [21, 48, 72].get(n).copied().unwrap_or(95),
        ));
    }
    // Last, the names the session keeps coming back to, a few to a line, filling what budget
    // is left: they are what the next turns will search for.
    let shown_around = |name: &str| {
        ex.around.as_ref().is_some_and(|a| {
            a.function.as_deref() == Some(name) || a.calls.iter().any(|c| c == name)
        })
    };
    let not_shown = |n: &&String| {
        !touched.contains(&n.as_str()) && !shown_around(n) && !types.contains(&n.as_str())
    };
    let frequent: Vec<&String> = ex
        .names
        .iter()
        .take(FREQUENT_NAMES_OFFERED)
        .filter(not_shown)
        .collect();
    // In a short session, the names it mentions once follow in what room every other line
    // leaves (see `once_named`).
    let once: Vec<&String> = ex.once_names.iter().filter(not_shown).collect();
    let ranked = [
        (frequent, FREQUENT_NAMES_PRIORITY),
        (once, ONCE_NAMES_PRIORITY),
    ];
    for (names, first) in ranked {
        for (n, group) in names.chunks(NAMES_PER_LINE).take(CANDIDATES).enumerate() {
            let group: Vec<&str> = group.iter().map(|s| s.as_str()).collect();
            lines.push(Line::plain(
                Section::Names,
                format!("- {}", group.join(" ")),
                None,
                first + 8 * n as u32,
            ));
        }
    }
    lines
}

/// Where the work stands in git: the latest commit the session made and how many files
/// changed after it.
pub(super) fn commits_note(ex: &Extract) -> Option<String> {
    let last = ex.commits.last()?;
    let mut text = format!("committed {}", last.hash);
    text.push_str(&match ex.uncommitted {
        // What the commits held is not known, only that nothing was edited after them.
        0 => ", no edit since".to_owned(),
        n => format!(", {n} {} uncommitted", plural(n, "file")),
    });
    Some(text)
}

/// The line of the code around the latest edit: `edit in <function>, beside: <calls>`.
pub(super) fn around_line(around: &Around) -> Option<String> {
    let calls = cut(&around.calls.join(" "), 200);
    match (&around.function, calls.is_empty()) {
        (Some(function), true) => Some(format!("edit in {function}")),
        (Some(function), false) => Some(format!("edit in {function}, beside: {calls}")),
        (None, false) => Some(format!("edit beside: {calls}")),
        (None, true) => None,
    }
}

/// The priority of the `n`th newest sub-agent report: the newest one, when no call came after
/// it, is what the agent learned last (see [`REPORT_LAST_PRIORITY`]); once the agent went on
/// from it, it ranks after the first lines of names, and older ones after nearly everything.
fn report_priority(n: usize, report: &Said, last_call: Option<&Said>) -> u32 {
    let acted_on = last_call.is_some_and(|call| call.index > report.index);
    match n {
        0 if !acted_on => REPORT_LAST_PRIORITY,
        0 => 60,
        _ => 90,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_report_nothing_ran_after_ranks_with_the_agents_last_words() {
        let said = |index| Said {
            text: "x".into(),
            index,
        };
        assert_eq!(
            report_priority(0, &said(9), Some(&said(8))),
            REPORT_LAST_PRIORITY
        );
        assert_eq!(report_priority(0, &said(9), Some(&said(10))), 60);
        assert_eq!(report_priority(1, &said(5), Some(&said(4))), 90);
    }
}
