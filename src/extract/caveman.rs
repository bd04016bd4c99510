//! caveman: the Markdown summary of an extract within a token budget, lines admitted by
//! priority and cut to fit.

use super::dirs::by_directory;
use super::file_names::short_names;
use super::model::{Around, Extract, Said};
use super::plan_mode::PLAN_MODE_STEP;
use super::repeats::{printed_in, same_request};
use super::shorten::{ask, Shortening};
use super::text::{cut, one_line};
use crate::tokens::Tokenizer;

/// The sections of a caveman summary, in the order they print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Head,
    Goal,
    Decisions,
    Now,
    Errors,
    Files,
    Commands,
    Next,
    Ci,
    Names,
}

impl Section {
    const ALL: [Section; 10] = [
        Section::Head,
        Section::Goal,
        Section::Decisions,
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
            Section::Decisions => Some("## decisions"),
            Section::Now => Some("## now"),
            Section::Errors => Some("## errors"),
            Section::Files => Some("## files"),
            Section::Commands => Some("## cmds"),
            Section::Next => Some("## next"),
            Section::Ci => Some("## ci"),
            Section::Names => Some("## names"),
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
    /// Among lines of one priority, lower goes first (a file's rank, where files print in
    /// directory order); equal ones go in print order.
    tie: usize,
    /// The directory a file line prints under, with the line's text when it is the only one of
    /// its directory shown (the whole path on one line).
    group: Option<(String, String)>,
    /// For a line shown short at first (a decision): its characters then; budget left over
    /// lengthens it towards the whole text.
    start: Option<usize>,
}

/// Candidate lines per section beyond which the rest is left out.
const CANDIDATES: usize = 40;

/// Files shown whole, with their directory and use counts; the rest by name only.
const WHOLE_FILES: usize = 5;

/// The caveman summary of an extract: Markdown sections (goal, decisions, now, unresolved
/// errors, files, commands with outcomes, next, CI, names), in paths, counts,
/// labels and exact commands, within `budget` tokens of `tokenizer` over the whole text.
///
/// Lines are admitted by priority — the header, the goal and the task first, then the newest
/// decisions, the first error, the latest test command, the agent's last words and next step,
/// the top files, sub-agents in flight and commands, the names the latest edits touched, then
/// the rest section by section — and each is kept only if the whole summary
/// still fits; a long goal or task is cut to fit instead of dropped. When the whole does not
/// fit after all (token counts do not add up), lines go again from the lowest priority, down
/// to an empty summary: the budget is never exceeded.
pub fn caveman(ex: &Extract, budget: u64, tokenizer: Tokenizer) -> String {
    let lines = caveman_lines(ex);
    let fits = |text: &str| tokenizer.text_tokens(text) <= budget;
    let mut shown: Vec<Option<String>> = vec![None; lines.len()];
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| (lines[i].priority, lines[i].tie));
    for &i in &order {
        let line = &lines[i];
        shown[i] = Some(match line.start {
            Some(chars) => line.text.at(chars),
            None => line.text.full.clone(),
        });
        let within_share = line
            .share
            .is_none_or(|share| tokenizer.text_tokens(&line.text.full) * 100 <= share * budget);
        if within_share && fits(&render(&lines, &shown)) {
            continue;
        }
        shown[i] = None;
        if let Some(share) = line.share {
            // A long text first gets its share of the budget, so that one long goal cannot
            // crowd out the task and the files; what is left over goes back to it below.
            let longest = longest_cut(&line.text, 0, |text| {
                tokenizer.text_tokens(text) * 100 <= share * budget && {
                    shown[i] = Some(text.to_owned());
                    let whole = fits(&render(&lines, &shown));
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
        if (line.share.is_none() && line.start.is_none()) || current == line.text.full {
            continue;
        }
        let from = current.chars().count();
        let longest = longest_cut(&line.text, from, |text| {
            shown[i] = Some(text.to_owned());
            let whole = fits(&render(&lines, &shown));
            shown[i] = Some(current.clone());
            whole
        });
        shown[i] = Some(line.text.at(longest.max(from)));
    }
    // Token counts are not additive, so check the whole once more and give back lines from the
    // lowest priority until it fits.
    let mut text = render(&lines, &shown);
    for &i in order.iter().rev() {
        if fits(&text) {
            return text;
        }
        if shown[i].take().is_some() {
            text = render(&lines, &shown);
        }
    }
    if fits(&text) {
        text
    } else {
        String::new()
    }
}

/// Characters of the agent's last words shown as `said:`.
const SAID_SHOWN: usize = 200;

/// True when `said:` shows `text` whole: the plan sentence of the same last message.
fn shown_in_said(ex: &Extract, text: &str) -> bool {
    ex.doing
        .as_ref()
        .is_some_and(|doing| cut(&doing.text, SAID_SHOWN).contains(text.trim()))
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
            tie: 0,
            group: None,
            start: None,
        });
    };
    let mut head = String::from("# caveman");
    if let Some(root) = &ex.root {
        head.push_str(&format!(" | cwd:{root}"));
    }
    // No counts of messages, calls or asks: the next reader acts on none of them, and at 500
    // tokens each word of scaffolding is a path or a name less.
    push(Section::Head, head, None, 0);
    // A work branch names the work; the default branch says nothing.
    let default = |b: &str| matches!(b, "main" | "master" | "trunk" | "develop");
    // With where the work stands in git: short, since the subjects are in the files' names.
    let branch = ex.branch.as_deref().filter(|b| !default(b));
    let git: Vec<String> = branch
        .map(|b| format!("branch: {b}"))
        .into_iter()
        .chain(commits_note(ex))
        .collect();
    if !git.is_empty() {
        push(Section::Head, git.join(" | "), None, 25);
    }
    if let Some(goal) = &ex.goal {
        let text = if ex.summarised {
            format!("(from the summary) {}", cut(&goal.text, 300))
        } else {
            cut(&goal.text, 300)
        };
        push(Section::Goal, text, Some(30), 1);
    }
    if let Some(brief) = &ex.brief {
        push(Section::Goal, cut(&brief.text, 300), Some(20), 3);
    }
    decision_lines(ex, &mut lines);
    if let (None, Some(pending)) = (&ex.task, &ex.pending) {
        let text = format!("pending (from the summary): {}", cut(&pending.text, 240));
        lines.push(Line {
            section: Section::Now,
            text: Shortening::plain(text),
            share: Some(20),
            priority: 2,
            tie: 0,
            group: None,
            start: None,
        });
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
            ask(context.as_ref(), task, "ask: ")
        };
        lines.push(Line {
            section: Section::Now,
            text,
            share: Some(20),
            priority: 2,
            tie: 0,
            group: None,
            start: None,
        });
    }
    let mut push = |section, text: String, share, priority| {
        lines.push(Line {
            section,
            text: Shortening::plain(text),
            share,
            priority,
            tie: 0,
            group: None,
            start: None,
        });
    };
    if let Some(doing) = &ex.doing {
        let text = format!("said: {}", cut(&doing.text, SAID_SHOWN));
        push(Section::Now, text, Some(10), 6);
    }
    // Work in flight and what the sub-agents found: current state a summary must not lose.
    for (n, task) in ex.delegated.iter().take(CANDIDATES).enumerate() {
        let text = format!("running: {}", cut(&task.text, 160));
        push(Section::Now, text, None, if n == 0 { 16 } else { 38 });
    }
    // Commands left running (a dev server, a watcher): the next turn may talk to them.
    for (n, process) in ex.running.iter().rev().take(CANDIDATES).enumerate() {
        let text = format!("running: {}", cut(&process.text, 120));
        push(Section::Now, text, None, if n == 0 { 17 } else { 41 });
    }
    for (n, report) in ex.reports.iter().rev().enumerate() {
        let text = format!("found: {}", cut(&report.text, 200));
        push(Section::Now, text, None, if n == 0 { 60 } else { 90 });
    }
    if let Some(call) = &ex.last_call {
        let text = format!("last: {}", cut(&call.text, 100));
        push(Section::Now, text, Some(10), 30);
    }
    // Where the latest edit sits and what its block goes on to call: the code a request like
    // "do it the way the check above does" points at, which the edit's own names miss.
    if let Some(text) = ex.around.as_ref().and_then(around_line) {
        push(Section::Now, text, None, 31);
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
        push(Section::Errors, text, None, priority);
    }
    let all: Vec<&str> = ex.files.iter().map(|f| f.path.as_str()).collect();
    let paths = &all[..all.len().min(WHOLE_FILES)];
    for placed in by_directory(paths) {
        let n = placed.rank;
        let file = &ex.files[n];
        let priority = match n {
            0..=2 => 10 + n as u32,
            _ => 40,
        };
        let whole = format!("- {} {}", cut(&file.path, 160), file.label());
        let (text, group) = match placed.dir {
            // Under its directory, indented, so that a whole path after the group does not
            // read as inside it.
            Some(dir) => (
                format!("  {} {}", cut(placed.name, 120), file.label()),
                Some((cut(dir, 120), whole)),
            ),
            None => (whole, None),
        };
        lines.push(Line {
            section: Section::Files,
            text: Shortening::plain(text),
            share: None,
            priority,
            tie: n,
            group,
            start: None,
        });
    }
    // The files past them by name only, a few to a line (see `file_names`).
    let rest = &all[paths.len()..all.len().min(CANDIDATES)];
    let names = short_names(rest, &all);
    for (n, group) in names.chunks(NAMES_PER_LINE).enumerate() {
        lines.push(Line {
            section: Section::Files,
            text: Shortening::plain(format!("- {}", group.join(" "))),
            share: None,
            priority: [27, 44].get(n).copied().unwrap_or(74),
            tie: WHOLE_FILES + n,
            group: None,
            start: None,
        });
    }
    let mut push = |section, text: String, share, priority| {
        lines.push(Line {
            section,
            text: Shortening::plain(text),
            share,
            priority,
            tie: 0,
            group: None,
            start: None,
        });
    };
    let test = ex.test_command().map(|c| c.command.as_str());
    let mut others = 0;
    for command in ex.commands.iter().take(CANDIDATES) {
        let mut text = format!("- {}", one_line(&command.command, 120));
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
    // The plan sentence comes from the agent's last words: when `said:` already shows it, a
    // second copy under next only takes the room of a file or a name.
    let plan = ex.plan.as_ref().filter(|p| !shown_in_said(ex, &p.text));
    if let Some(plan) = plan {
        let text = format!("- {}", cut(&plan.text, 200));
        push(Section::Next, text, Some(15), 7);
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
        let text = format!("- {mark}{}", cut(&todo.text, 160));
        push(Section::Next, text, None, priority);
    }
    if ex.plan.is_none() && ex.todos.is_empty() {
        if let Some(next) = ex.next() {
            push(Section::Next, format!("- {}", cut(&next, 160)), Some(10), 8);
        }
    }
    // In plan mode, the plan and its approval come after whatever the agent looks at next.
    if ex.plan_mode {
        push(Section::Next, format!("- {PLAN_MODE_STEP}"), None, 8);
    }
    for (n, check) in ex.ci.iter().take(CANDIDATES).enumerate() {
        let priority = if n == 0 { 25 } else { 85 };
        push(Section::Ci, format!("- {}", check.label()), None, priority);
    }
    // Then the names the latest edits wrote or replaced, ahead of most files and commands:
    // the code the agent was changing is what it will look for first.
    for (n, group) in ex.touched.chunks(NAMES_PER_LINE).enumerate() {
        push(
            Section::Names,
            format!("- {}", group.join(" ")),
            None,
            [21, 48, 72].get(n).copied().unwrap_or(95),
        );
    }
    // Last, the names the session keeps coming back to, a few to a line, filling what budget
    // is left: they are what the next turns will search for.
    let shown_around = |name: &str| {
        ex.around.as_ref().is_some_and(|a| {
            a.function.as_deref() == Some(name) || a.calls.iter().any(|c| c == name)
        })
    };
    let frequent: Vec<&String> = ex
        .names
        .iter()
        .filter(|n| !ex.touched.contains(n) && !shown_around(n))
        .collect();
    for (n, group) in frequent.chunks(NAMES_PER_LINE).take(CANDIDATES).enumerate() {
        let group: Vec<&str> = group.iter().map(|s| s.as_str()).collect();
        push(
            Section::Names,
            format!("- {}", group.join(" ")),
            None,
            22 + 8 * n as u32,
        );
    }
    lines
}

/// Where the work stands in git: the latest commit the session made and how many files
/// changed after it.
fn commits_note(ex: &Extract) -> Option<String> {
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
fn around_line(around: &Around) -> Option<String> {
    let calls = cut(&around.calls.join(" "), 200);
    match (&around.function, calls.is_empty()) {
        (Some(function), true) => Some(format!("edit in {function}")),
        (Some(function), false) => Some(format!("edit in {function}, beside: {calls}")),
        (None, false) => Some(format!("edit beside: {calls}")),
        (None, true) => None,
    }
}

/// Characters shown of a decision line.
const DECISION_SHOWN: usize = 80;

/// Characters of a decision that budget left over may show.
const DECISION_WHOLE: usize = 150;

/// The decisions, in session order, each at a priority from its rank: the user's rules and
/// answers first, then their other turns, newest first; the agent's choices newest first. As
/// the checkpoint guidance ranks them, the newest of each come right after the goal and the
/// task, ahead of the first error and the test command: a decision without its reason gets
/// re-litigated.
fn decision_lines(ex: &Extract, lines: &mut Vec<Line>) {
    let mut user: Vec<usize> = (0..ex.decisions.len())
        .filter(|&i| ex.decisions[i].user)
        .collect();
    user.sort_by_key(|&i| {
        (
            !ex.decisions[i].rule,
            std::cmp::Reverse(ex.decisions[i].index),
        )
    });
    // A choice the next step already states ("We should fall back … Let me fix this:") is
    // printed once, under next.
    let in_plan = |text: &str| ex.plan.as_ref().is_some_and(|p| p.text.contains(text));
    let mut agent: Vec<usize> = (0..ex.decisions.len())
        .filter(|&i| !ex.decisions[i].user && !in_plan(&ex.decisions[i].text))
        .collect();
    agent.sort_by_key(|&i| std::cmp::Reverse(ex.decisions[i].index));
    let mut priority = vec![0; ex.decisions.len()];
    for (rank, &i) in user.iter().enumerate() {
        priority[i] = match rank {
            0 => 4,
            1 => 9,
            2 => 14,
            3..=5 => 60,
            _ => 85,
        };
    }
    for (rank, &i) in agent.iter().enumerate() {
        priority[i] = match rank {
            0 => 4,
            1 => 9,
            2 => 35,
            3 => 60,
            _ => 85,
        };
    }
    // The best-ranked candidates, printed in session order.
    let mut chosen: Vec<usize> = (0..ex.decisions.len()).collect();
    chosen.sort_by_key(|&i| priority[i]);
    chosen.truncate(CANDIDATES);
    chosen.sort_unstable();
    chosen.retain(|&i| ex.decisions[i].user || !in_plan(&ex.decisions[i].text));
    for i in chosen {
        let (decision, priority) = (&ex.decisions[i], priority[i]);
        let who = if decision.user { "user" } else { "agent" };
        let head = format!("- {who}: ");
        lines.push(Line {
            section: Section::Decisions,
            text: Shortening::plain(format!("{head}{}", cut(&decision.text, DECISION_WHOLE))),
            share: None,
            priority,
            tie: 0,
            group: None,
            start: Some(head.chars().count() + DECISION_SHOWN),
        });
    }
}

/// Names on one line of the names section (and file names on one line of the files section):
/// more to a line is fewer `- ` and line ends, fewer is a finer fit to the budget.
const NAMES_PER_LINE: usize = 7;

/// The summary with the shown lines. What did not fit is not counted: a `+14 more files` line
/// costs the room of a file or a name and tells the next reader nothing it can act on.
fn render(lines: &[Line], shown: &[Option<String>]) -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let mut first = true;
        let mut under: Option<&str> = None;
        for (line, text) in lines.iter().zip(shown) {
            let Some(text) = text else { continue };
            if line.section != section {
                continue;
            }
            // A name the lines above already print is not listed again (see `repeats`).
            let unprinted;
            let text = if section == Section::Names {
                unprinted = unprinted_names(text, &out);
                if unprinted.is_empty() {
                    continue;
                }
                &unprinted
            } else {
                text
            };
            if first {
                if let Some(heading) = section.heading() {
                    out.push_str(heading);
                    out.push('\n');
                }
                first = false;
            }
            let text = match &line.group {
                Some((dir, whole)) if shown_in(lines, shown, dir) < 2 => {
                    under = None;
                    whole
                }
                Some((dir, _)) => {
                    if under != Some(dir.as_str()) {
                        out.push_str(dir.trim_end_matches('/'));
                        out.push_str("/\n");
                        under = Some(dir);
                    }
                    text
                }
                None => {
                    under = None;
                    text
                }
            };
            out.push_str(text);
            out.push('\n');
        }
    }
    out
}

/// A names line (`- a b c`) without the names `printed` already holds; empty when none is left.
fn unprinted_names(line: &str, printed: &str) -> String {
    let names: Vec<&str> = line
        .trim_start_matches("- ")
        .split(' ')
        .filter(|name| !name.is_empty() && !printed_in(name, &[printed]))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("- {}", names.join(" "))
    }
}

/// How many shown lines print under directory `dir`.
fn shown_in(lines: &[Line], shown: &[Option<String>], dir: &str) -> usize {
    lines
        .iter()
        .zip(shown)
        .filter(|(l, s)| s.is_some() && l.group.as_ref().is_some_and(|(d, _)| d == dir))
        .count()
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn caveman_fits_any_budget_and_spends_none_of_it_on_counts() {
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
        // What did not fit is not counted, nor are the session's messages.
        assert!(
            !text.contains("more files") && !text.contains("## cut"),
            "{text}"
        );
        assert!(!text.contains("msgs"), "{text}");
        let roomy = caveman(&ex, 5000, Tokenizer::Chars4);
        // Files print under their directory, once; a file alone in its directory keeps its
        // whole path.
        assert!(
            roomy.contains("## files\nsrc/\n  module_29.rs r1\n  module_28.rs r1\n"),
            "{roomy}"
        );
        let mut alone = ex.clone();
        alone.files.truncate(1);
        alone.files[0].path = "src/parse/module_29.rs".into();
        let text = caveman(&alone, 5000, Tokenizer::Chars4);
        assert!(
            text.contains("## files\n- src/parse/module_29.rs r1\n"),
            "{text}"
        );
        assert!(roomy.contains("- cargo test -p crate29 → 5pass"), "{roomy}");
        // The plan sentence is in the agent's last words, shown as said: once is enough.
        assert!(
            roomy.contains("said: All green. Next, I will update the docs.\n"),
            "{roomy}"
        );
        assert!(!roomy.contains("## next"), "{roomy}");
        // A plan that said: does not show whole gets its own line.
        let mut long = ex.clone();
        let words = "the build passed on every target after the cache fix ".repeat(4);
        long.doing.as_mut().unwrap().text = format!("{words}Next, I will update the docs.");
        let text = caveman(&long, 5000, Tokenizer::Chars4);
        assert!(
            text.contains("## next\n- Next, I will update the docs."),
            "{text}"
        );
    }

    #[test]
    fn the_todos_after_the_first_come_before_most_files_and_commands() {
        let mut ex = busy();
        ex.todos = [
            "call it in runEnable",
            "handle the flag in runSetup",
            "run the tests",
        ]
        .map(|text| crate::extract::Todo {
            text: text.into(),
            active: false,
        })
        .to_vec();
        let text = caveman(&ex, 120, Tokenizer::Chars4);
        assert!(
            text.contains("## next\n- call it in runEnable\n- handle the flag in runSetup\n"),
            "{text}"
        );
    }

    #[test]
    fn a_short_ask_that_leans_on_the_goal_does_not_print_the_goal_twice() {
        let records = [
            user("Implement the following plan: fix the logging of the clean command"),
            bash("1", "go build ./..."),
            user("push and create a PR"),
        ];
        let ex = extract(&records);
        let text = caveman(&ex, 500, Tokenizer::Chars4);
        assert!(
            text.contains("## now\nask: =goal | push and create a PR\n"),
            "{text}"
        );
    }

    #[test]
    fn a_work_branch_is_shown_under_the_header_and_the_default_one_is_not() {
        let mut ex = busy();
        ex.branch = Some("soph/agent-attribution".into());
        let text = caveman(&ex, 5000, Tokenizer::Chars4);
        assert!(
            text.starts_with("# caveman\nbranch: soph/agent-attribution\n## goal"),
            "{text}"
        );
        ex.branch = Some("main".into());
        assert!(!caveman(&ex, 5000, Tokenizer::Chars4).contains("branch:"));
    }

    #[test]
    fn frequent_names_come_before_older_decisions_and_reports() {
        let mut ex = busy();
        ex.files.truncate(3);
        ex.commands.truncate(1);
        ex.decisions = (0..8)
            .map(|n| crate::extract::Decision {
                text: format!("we decided thing {n} because of reason {n}"),
                index: n,
                user: true,
                rule: true,
            })
            .collect();
        ex.names = ["parse_line", "QuoteState", "read_quoted"]
            .map(String::from)
            .to_vec();
        ex.reports = vec![crate::extract::Said {
            text: "I have gathered comprehensive information".into(),
            index: 9,
        }];
        let text = caveman(&ex, 150, Tokenizer::Chars4);
        assert!(
            text.contains("## names\n- parse_line QuoteState read_quoted"),
            "{text}"
        );
        assert!(text.contains("thing 7"), "{text}");
        assert!(!text.contains("thing 0"), "{text}");
        assert!(!text.contains("found:"), "{text}");
    }

    #[test]
    fn the_code_around_the_latest_edit_is_one_line_under_now() {
        let mut ex = busy();
        ex.names = [
            "checkConcurrentSessions",
            "outputHookResponse",
            "parse_line",
        ]
        .map(String::from)
        .to_vec();
        ex.around = Some(Around {
            path: "a.go".into(),
            function: Some("checkConcurrentSessions".into()),
            calls: vec!["ag.FormatResumeCommand".into(), "outputHookResponse".into()],
            index: 3,
        });
        let text = caveman(&ex, 5000, Tokenizer::Chars4);
        let line =
            "edit in checkConcurrentSessions, beside: ag.FormatResumeCommand outputHookResponse";
        assert!(
            text.contains(&format!("last: $ cargo test -p crate29\n{line}\n")),
            "{text}"
        );
        // What the line shows is not repeated among the frequent names.
        assert!(text.contains("## names\n- parse_line\n"), "{text}");
        ex.around.as_mut().unwrap().function = None;
        let text = caveman(&ex, 5000, Tokenizer::Chars4);
        assert!(
            text.contains("\nedit beside: ag.FormatResumeCommand"),
            "{text}"
        );
    }

    #[test]
    fn a_name_printed_above_is_not_listed_again() {
        let mut ex = busy();
        ex.files.truncate(1);
        ex.goal.as_mut().unwrap().text = "make parse_line handle quotes".into();
        ex.touched = ["parse_line", "QuoteState"].map(String::from).to_vec();
        ex.names = ["read_quoted", "module_29.rs"].map(String::from).to_vec();
        let text = caveman(&ex, 5000, Tokenizer::Chars4);
        assert!(
            text.contains("## names\n- QuoteState\n- read_quoted\n"),
            "{text}"
        );
        // A line whose every name is printed above is left out whole.
        ex.touched = vec!["parse_line".into()];
        let text = caveman(&ex, 5000, Tokenizer::Chars4);
        assert!(text.contains("## names\n- read_quoted\n"), "{text}");
    }
}
