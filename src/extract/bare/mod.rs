//! bare: four lines (`NOW:`, `NEXT:`, `TEST:`, `CI:`) within a token budget, every value cut to
//! one common length (NOW to a little more, see `NOW_SHARE`). NOW (`now`) starts with where the
//! work stands (`state`), names beside its file the other file the current request changed
//! (`request_file`), and keeps the first names its cut drops (`kept`), with the commit hashes the
//! agent's last words name (`hashes`), the code spans of its prose (`spans`) and the rule an open
//! lint finding names (`checker`); NEXT (`next`) starts with the git steps the latest request
//! ordered and no command ran, names the latest call after a plan the agent's calls went past or
//! whose call is still running, and ends on the open todos (`todos`), and a request not acted on
//! comes with the other file the work wrote (`asked_where`); TEST falls back to the latest build
//! (`built`); the prose they quote goes without decoration (`plain`) and without the agent's "let
//! me" (`leads`).

use serde::Serialize;

use super::focused::focused_test;
use super::model::{CommandUse, Extract};
use super::shell::compact_command;
use super::shorten::{with_outcome, Shortening};
use super::text::one_line;
use crate::tokens::Tokenizer;

mod asked_where;
mod built;
mod checker;
mod failed;
mod fences;
mod found;
mod hashes;
mod kept;
mod leads;
mod names;
mod next;
mod now;
mod plain;
mod plan_todo;
mod planned;
mod pushed;
mod request_file;
mod spans;
mod state;
mod subject;
mod todos;

use built::latest_build;
use checker::open_checkers;
use failed::failed_tests;
use leads::drop_leads;
use next::next_value;
use now::Now;
use plain::undecorated_extract;
use planned::planned_test;
use spans::code_spans;

/// The smallest budget `bare` always meets: the four labels with empty values take up to 13
/// tokens in every estimator, and a few more leave room for the values to say something.
pub const BARE_FLOOR: u64 = 20;

/// The four values of `bare`, without their labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bare {
    /// The current task.
    pub now: String,
    /// The next action (a finished turn: the agent's closing words), then the open todos.
    pub next: String,
    /// `<test command> → <N>pass [<M>fail[: <failed test>]]`; with no test run, the latest
    /// build with its outcome, else the checks the plan names (`planned: <command>; …`) when
    /// they fit, else `none`.
    pub test: String,
    /// `<check>@<workflow> [→ status]`, or `none`.
    pub ci: String,
}

impl Bare {
    /// The four lines, each ending in a newline.
    pub fn lines(&self) -> String {
        format!(
            "NOW:{}\nNEXT:{}\nTEST:{}\nCI:{}\n",
            self.now, self.next, self.test, self.ci
        )
    }
}

/// The four `bare` lines of an extract within `budget` tokens of `tokenizer` together.
///
/// No line is ever dropped: the values are cut instead, all to one common length found by
/// bisection (NOW to `NOW_SHARE` tenths of it; short values keep whole, long ones share what
/// is left); a test or CI value
/// keeps its `→ …` outcome while it can. A session that ran no test yet shows the checks its
/// plan names in what room is left (see `planned`). From [`BARE_FLOOR`] tokens up the lines always fit;
/// below it the labels alone may not, and they print anyway.
pub fn bare(ex: &Extract, budget: u64, tokenizer: Tokenizer) -> Bare {
    // Names NOW's cut keeps whatever their shape: the prose's code spans and the rules of
    // the open lint findings (see `spans`, `checker`).
    let mut marked = code_spans(ex);
    marked.extend(open_checkers(ex));
    let mut plain = undecorated_extract(ex);
    drop_leads(&mut plain);
    let ex = &plain;
    let bare = cut_to_fit(ex, budget, tokenizer, &marked);
    if bare.test != "none" {
        return bare;
    }
    let fits = |test: &str| {
        let lines = Bare {
            test: test.to_owned(),
            ..bare.clone()
        };
        tokenizer.text_tokens(&lines.lines()) <= budget
    };
    match planned_test(&ex.planned, fits) {
        Some(test) => Bare { test, ..bare },
        None => bare,
    }
}

/// The four lines cut to fit `budget`, before the planned checks.
fn cut_to_fit(ex: &Extract, budget: u64, tokenizer: Tokenizer, marked: &[String]) -> Bare {
    let none = || Shortening::plain("none".to_owned());
    // A request the agent has not acted on is what comes next; now is where it left off.
    let fresh = ex.task.as_ref().filter(|_| ex.fresh);
    let now = Now::of(ex, fresh, tokenizer);
    let next = next_value(ex, fresh);
    let shown = |command: &str, compact: bool| {
        let command = if compact {
            compact_command(command)
        } else {
            command
        };
        one_line(command, 200)
    };
    // With no test run, the latest build is what verified the work (see `built`).
    let test = |compact: bool| {
        let run = ex.test_command().or_else(|| latest_build(ex));
        run.map_or_else(none, |c| {
            with_outcome(shown(&c.command, compact), c.outcome.map(|o| o.label()))
        })
    };
    // A failed run's counts come with the tests it failed, while the line has room for them
    // whole (see `failed`).
    let failed = ex
        .test_command()
        .map(|c| failed_tests(ex, c))
        .filter(|names| !names.is_empty())
        .map(|names| format!(": {}", names.join(" ")));
    let focused = focused_test(ex);
    // The other check follows the reported test run while the line has room for both whole.
    let other = |compact: bool| {
        let reported = ex.test_command()?;
        let other = other_check(ex, &reported.command)?;
        let outcome = other.outcome.map(|o| o.label());
        Some(format!(
            "; {}",
            with_outcome(shown(&other.command, compact), outcome).full
        ))
    };
    let ci = ex.ci_check().map_or_else(none, |c| {
        let place = format!(
            "{}@{}",
            c.check.as_deref().unwrap_or("?"),
            c.workflow.as_deref().unwrap_or("?")
        );
        with_outcome(place, c.status)
    });
    let fits = |b: &Bare| tokenizer.text_tokens(&b.lines()) <= budget;
    let values = [now.plain.with_subject.clone(), next, test(false), ci];
    let at = |values: &[Shortening; 4], other: &Option<String>, cap: usize| Bare {
        now: now.at(cap.saturating_mul(NOW_SHARE) / 10, marked),
        next: values[1].at(cap),
        test: match other {
            Some(other) if values[2].full.chars().count() + other.chars().count() <= cap => {
                format!("{}{other}", values[2].full)
            }
            _ => values[2].at(cap),
        },
        ci: values[3].at(cap),
    };
    let full = at(&values, &other(false), usize::MAX);
    if fits(&full) {
        let full = with_failed(full, &values[2].full, failed.as_deref(), fits);
        return with_focused(full, focused.as_deref(), fits);
    }
    // Short of room, the test command loses what only says where and how it ran.
    let values = [
        values[0].clone(),
        values[1].clone(),
        test(true),
        values[3].clone(),
    ];
    let other = other(true);
    let longest = values
        .iter()
        .map(|v| v.full.chars().count())
        .max()
        .unwrap_or(0)
        .max(values[2].full.chars().count() + other.as_ref().map_or(0, |o| o.chars().count()));
    let (mut low, mut high) = (0, longest);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(&at(&values, &other, mid)) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let cut = at(&values, &other, low);
    let cut = with_failed(cut, &values[2].full, failed.as_deref(), fits);
    with_focused(cut, focused.as_deref(), fits)
}

/// `bare` with `; alone: <filter>`, the test the agent last ran by itself (see `focused`),
/// at the end of its test value when the lines still fit: like the failed tests, it only
/// takes what room is left.
fn with_focused(bare: Bare, focused: Option<&str>, fits: impl Fn(&Bare) -> bool) -> Bare {
    let Some(focused) = focused.filter(|_| bare.test != "none") else {
        return bare;
    };
    let with = Bare {
        test: format!("{}; alone: {focused}", bare.test),
        ..bare.clone()
    };
    if fits(&with) {
        with
    } else {
        bare
    }
}

/// `bare` with the failed tests after the test run's counts when its test value is whole
/// and the lines still fit: the names take no room from the other lines, only what is left
/// (an unused margin of the common length), before the other check, which gives way to them.
fn with_failed(
    bare: Bare,
    reported: &str,
    failed: Option<&str>,
    fits: impl Fn(&Bare) -> bool,
) -> Bare {
    let Some(failed) = failed else { return bare };
    let Some(other) = bare.test.strip_prefix(reported) else {
        return bare;
    };
    [
        format!("{reported}{failed}{other}"),
        format!("{reported}{failed}"),
    ]
    .into_iter()
    .map(|test| Bare {
        test,
        ..bare.clone()
    })
    .find(|b| fits(b))
    .unwrap_or(bare)
}

/// NOW's length against the common length the other lines are cut to, in tenths: NOW holds
/// the task, where it stands, the place and the names it changes, the others one thing each.
const NOW_SHARE: usize = 13;

/// The other check the test line names beside the reported test command: the latest
/// test-like command (a linter, a format or type check, another test run) that the reported one
/// does not hold. A session that gates its work on `lint` and `test` runs both again next.
fn other_check<'e>(ex: &'e Extract, reported: &str) -> Option<&'e CommandUse> {
    ex.commands
        .iter()
        .filter(|c| c.test && c.outcome.is_some())
        .filter(|c| !reported.contains(c.command.as_str()) && !c.command.contains(reported))
        .max_by_key(|c| c.last)
}

#[cfg(test)]
mod tests {
    use super::now::with_file;
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn now_names_the_latest_edits_and_next_the_answer_a_finished_turn_gave() {
        let records = [
            user("make the retry count configurable"),
            call(
                "1",
                "Edit",
                r#"{"file_path":"src/upload.rs","old_string":"const retry_count: u32 = 3;","new_string":"let retries = config.maxRetries.unwrap_or(default_retries());"}"#,
            ),
            assistant("Done: the count is read from the config, 3 by default."),
        ];
        let lines = bare(&extract(&records), 100, Tokenizer::Chars4);
        assert_eq!(
            lines.now,
            "make the retry count configurable @ upload.rs [maxRetries unwrap_or default_retries]"
        );
        assert_eq!(
            lines.next,
            "await user; said: Done: the count is read from the config, 3 by default."
        );
    }

    #[test]
    fn now_names_the_other_file_the_current_request_changed_not_an_older_one() {
        let edit = |id: &str, path: &str, new: &str| {
            let input =
                format!(r#"{{"file_path":"{path}","old_string":"x","new_string":"{new}"}}"#);
            call(id, "Edit", &input)
        };
        let records = [
            user("rename the upload module"),
            edit("1", "src/old.rs", "renamed"),
            user("validate the checkpoints in the e2e tests"),
            edit("2", "e2e/testenv.go", "func validateCheckpoint() {}"),
            edit(
                "3",
                "e2e/scenario_test.go",
                "validateCheckpoint(checkpointAB, checkpointCD, wantedLines)",
            ),
            assistant("Both scenarios validate their checkpoints now."),
        ];
        let now = bare(&extract(&records), 100, Tokenizer::Chars4).now;
        assert!(now.contains("@ scenario_test.go, testenv.go"), "{now}");
        assert!(!now.contains("old.rs"), "{now}");
        // Alone under its request, the file is the place by itself.
        let alone = bare(&extract(&records[1..]), 100, Tokenizer::Chars4).now;
        assert!(!alone.contains("old.rs"), "{alone}");
        let single = bare(
            &extract(&[records[2].clone(), records[4].clone()]),
            100,
            Tokenizer::Chars4,
        )
        .now;
        assert!(
            single.contains("@ scenario_test.go") && !single.contains(", "),
            "{single}"
        );
    }

    #[test]
    fn a_request_not_acted_on_is_next_and_now_is_where_the_agent_left_off() {
        let records = [
            user("add the retry flag to the uploader"),
            assistant("Added --retry; all 12 tests pass."),
            user("call it --retries, not --retry"),
        ];
        let lines = bare(&extract(&records), 100, Tokenizer::Chars4);
        assert_eq!(lines.now, "Added --retry; all 12 tests pass.");
        assert_eq!(lines.next, "call it --retries, not --retry");
    }

    #[test]
    fn mid_work_now_says_where_the_task_stands_before_the_task() {
        let records = [
            user("make the uploader retry"),
            bash("1", "cargo test"),
            result("1", "test result: ok. 12 passed; 0 failed"),
            assistant("All unit tests pass. Now let me run the integration tests:"),
            bash("2", "cargo test --test integration"),
        ];
        let ex = extract(&records);
        let lines = bare(&ex, 100, Tokenizer::Chars4);
        assert_eq!(lines.now, "All unit tests pass. | make the uploader retry");
        // The run the plan announced has no result yet: NEXT names it (see `open_call`).
        assert_eq!(
            lines.next,
            "Run the integration tests: | continue $ cargo test --test integration"
        );
        // Cut short, the task goes first and where it stands stays.
        let short = bare(&ex, 30, Tokenizer::Chars4);
        assert!(short.now.starts_with("All unit tests"), "{short:?}");
        // A last message that is only the plan adds nothing NEXT does not show.
        let mut only_plan = records.to_vec();
        only_plan[3] = assistant("Now let me run the integration tests:");
        let lines = bare(&extract(&only_plan), 100, Tokenizer::Chars4);
        assert_eq!(lines.now, "make the uploader retry");
    }

    #[test]
    fn the_test_line_names_the_other_gate_while_it_fits_whole() {
        let records = [
            user("fix the lint errors"),
            bash("1", "mise run lint"),
            result("1", "0 issues.\nExit code 0"),
            bash("2", "mise run test"),
            result("2", "ok  \tpkg/a\t0.1s\nok  \tpkg/b\t0.2s"),
            assistant("Both pass."),
        ];
        let ex = extract(&records);
        let lines = bare(&ex, 100, Tokenizer::Chars4);
        assert_eq!(lines.test, "mise run test → 2pass; mise run lint → ok");
        // Short of room, the reported run keeps its outcome and the other check goes first.
        let short = bare(&ex, BARE_FLOOR + 4, Tokenizer::Chars4);
        assert!(!short.test.contains("lint"), "{short:?}");
        // A run the reported command holds is no other check.
        assert!(other_check(&ex, "mise run lint && mise run test").is_none());
    }

    #[test]
    fn bare_keeps_four_lines_within_the_budget() {
        let ex = busy();
        for budget in [BARE_FLOOR, 25, 40, 100, 1000] {
            for tokenizer in [
                Tokenizer::Chars4,
                Tokenizer::O200k,
                Tokenizer::Fast(crate::tokens::Family::Claude),
            ] {
                let lines = bare(&ex, budget, tokenizer).lines();
                assert!(tokenizer.text_tokens(&lines) <= budget, "{budget}: {lines}");
                let labels: Vec<&str> = lines
                    .lines()
                    .map(|l| l.split(':').next().unwrap())
                    .collect();
                assert_eq!(labels, ["NOW", "NEXT", "TEST", "CI"]);
            }
        }
        let lines = bare(&ex, 100, Tokenizer::Chars4);
        assert_eq!(
            lines.test,
            "cargo test -p crate29 → 5pass; cargo test -p crate28 → 5pass"
        );
        assert_eq!(lines.ci, "none");
        assert_eq!(lines.next, "Update the docs.");
        let empty = bare(&Extract::default(), 100, Tokenizer::Chars4).lines();
        assert_eq!(empty, "NOW:none\nNEXT:none\nTEST:none\nCI:none\n");
    }

    #[test]
    fn now_names_the_file_and_the_function_the_latest_edit_sits_in() {
        let mut ex = busy();
        let place = |ex: &Extract| bare(ex, 1000, Tokenizer::Chars4).now;
        ex.files.push(crate::extract::FileUse {
            path: "src/lexer.rs".into(),
            edit: 1,
            last: 90,
            ..Default::default()
        });
        let task = "make the parser handle nested quotes in src/parse.rs";
        assert_eq!(place(&ex), format!("{task} @ lexer.rs"));
        ex.around = Some(crate::extract::Around {
            path: "src/lexer.rs".into(),
            function: Some("read_quoted".into()),
            calls: Vec::new(),
            index: 90,
        });
        assert_eq!(place(&ex), format!("{task} @ lexer.rs:read_quoted"));
        // Cut short, the task shortens and the place stays.
        let file = ex.files.last().unwrap();
        let now = with_file(
            Shortening::plain(task.into()),
            &file.path,
            Some("read_quoted"),
            None,
        );
        assert_eq!(now.at(40), "make the parser… @ lexer.rs:read_quoted");
        // A task that names the file gets the function alone; an edit elsewhere, nothing.
        ex.files.last_mut().unwrap().path = "src/parse.rs".into();
        ex.around.as_mut().unwrap().path = "src/parse.rs".into();
        assert_eq!(place(&ex), format!("{task} @ read_quoted"));
        ex.around.as_mut().unwrap().path = "src/other.rs".into();
        assert_eq!(place(&ex), task);
    }

    #[test]
    fn a_finished_turn_is_quoted_by_its_closing_words() {
        let recap = "I changed the parser so that nested quotes are read as one token. ".repeat(4);
        let records = [
            user("make the parser handle nested quotes"),
            assistant(&format!(
                "{recap}\n\nRemaining: the lexer tests. Shall I add them?"
            )),
        ];
        let lines = bare(&extract(&records), 100, Tokenizer::Chars4);
        assert!(
            lines
                .next
                .ends_with("Remaining: the lexer tests. Shall I add them?"),
            "{lines:?}"
        );
        assert!(lines.next.starts_with("await user; said: …"), "{lines:?}");
    }

    #[test]
    fn now_is_cut_to_a_larger_share_than_the_other_lines() {
        let mut ex = busy();
        ex.task = Some(crate::extract::Said {
            text: "word ".repeat(60),
            index: 1,
        });
        ex.plan = None;
        ex.todos.clear();
        ex.doing = Some(crate::extract::Said {
            text: "Now let me ".to_owned() + &"step ".repeat(60),
            index: 80,
        });
        ex.plan = ex.doing.clone();
        let lines = bare(&ex, 60, Tokenizer::Chars4);
        let (now, next) = (lines.now.chars().count(), lines.next.chars().count());
        // Cuts back off to a space, by a word at most: the lengths hold the share within one.
        assert!(
            now > next && now * 10 <= (next + 16) * NOW_SHARE,
            "{lines:?}"
        );
    }

    #[test]
    fn the_bare_floor_holds_the_empty_labels_in_every_estimator() {
        let labels = "NOW:\nNEXT:\nTEST:\nCI:\n";
        for tokenizer in [
            Tokenizer::Chars4,
            Tokenizer::Chars35,
            Tokenizer::KimiCode,
            Tokenizer::Fast(crate::tokens::Family::Openai),
            Tokenizer::Fast(crate::tokens::Family::Claude),
            Tokenizer::Fast(crate::tokens::Family::Claude47),
            Tokenizer::O200k,
            Tokenizer::Cl100k,
        ] {
            assert!(tokenizer.text_tokens(labels) <= 13, "{}", tokenizer.name());
        }
    }
}
