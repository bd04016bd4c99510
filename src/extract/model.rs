//! What an [`Extract`] holds, and the questions the renderers ask of it: the current task, the
//! next action, the test command and the CI check to report.

use serde::Serialize;

use super::stopped::is_stopped;

/// A piece of text and the index of the record it was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Said {
    /// The text on one line, control characters removed, cut to a sane length.
    pub text: String,
    /// The record it comes from.
    pub index: usize,
}

/// A decision the session made: one of the user's turns (shortened) or answers to the agent's
/// questions, or a choice the agent stated with its reason or the constraint behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The words, on one line.
    pub text: String,
    /// The record it comes from.
    pub index: usize,
    /// The user's, not the agent's.
    pub user: bool,
    /// A user's rule ("always …", "don't …", "use X") or answer, which outranks a one-off turn.
    pub rule: bool,
    /// The figures the user's whole turn states (see `figures`), kept past its cut (see
    /// `turn_figures`); none for the agent's choices.
    pub figures: Vec<String>,
}

/// A file the agent touched, with how often it did what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileUse {
    /// The path, relative to the session's working directory when it lies inside it.
    pub path: String,
    /// Reads (read tools, and shell commands that only name the file).
    pub read: u32,
    /// Edits (edit tools, patches, `sed -i`, writes over a file seen before).
    pub edit: u32,
    /// Creations (writes to a file not seen before, patch `Add File`, `touch`, `>`).
    pub create: u32,
    /// Deletions (patch `Delete File`, `rm`).
    pub delete: u32,
    /// The record index of its last use.
    pub last: usize,
    /// Deleted by its last use: no longer part of the work's files.
    pub gone: bool,
}

impl FileUse {
    /// True when the agent changed the file, not only read it.
    pub fn written(&self) -> bool {
        self.edit + self.create + self.delete > 0
    }

    /// The counts as caveman labels: `r2 e3 c1 d1`, zero counts left out; `deleted` for a file
    /// its last use deleted.
    pub fn label(&self) -> String {
        if self.gone {
            return "deleted".to_owned();
        }
        let counts = [
            ("r", self.read),
            ("e", self.edit),
            ("c", self.create),
            ("d", self.delete),
        ];
        let labels: Vec<String> = counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(l, n)| format!("{l}{n}"))
            .collect();
        labels.join(" ")
    }
}

/// Passed and failed tests a runner reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TestCounts {
    /// Passed tests (go test without `-v`: passed packages).
    pub passed: u64,
    /// Failed tests, errors included (go test without `-v`: failed packages).
    pub failed: u64,
}

/// How one run of a command ended, as far as its result says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    /// The exit status, when the result states it.
    pub exit: Option<i64>,
    /// Whether it succeeded: the exit status, the format's error flag, failed tests; `None`
    /// when nothing says.
    pub ok: Option<bool>,
    /// Test counts parsed from the output.
    pub tests: Option<TestCounts>,
    /// The record index of the result.
    pub index: usize,
}

impl RunOutcome {
    /// The outcome as a caveman label: `8pass 2fail`, `exit 1`, `ok`, `fail`, `stopped` (see
    /// `stopped`), or empty.
    pub fn label(&self) -> String {
        if let Some(tests) = self.tests {
            return if tests.failed > 0 {
                format!("{}pass {}fail", tests.passed, tests.failed)
            } else {
                format!("{}pass", tests.passed)
            };
        }
        match (self.exit, self.ok) {
            (Some(0), _) | (None, Some(true)) => "ok".to_owned(),
            (code, None) if is_stopped(code) => "stopped".to_owned(),
            (Some(code), _) => format!("exit {code}"),
            (None, Some(false)) => "fail".to_owned(),
            (None, None) => String::new(),
        }
    }
}

/// A distinct shell command the agent (or the user, through the agent's shell) ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommandUse {
    /// The exact command, without a leading `cd <working directory> &&`.
    pub command: String,
    /// How many times it ran.
    pub runs: u32,
    /// The record index of its last call.
    pub last: usize,
    /// How its last run ended; `None` until a result arrives.
    pub outcome: Option<RunOutcome>,
    /// A test runner: named like one, or its output had test counts.
    pub test: bool,
    /// Only looks at things (`ls`, `cat`, `grep`, `git status` …).
    pub inspect: bool,
    /// What its run said it did (`Wrote 48 rows to out/report.md`), kept for the session's
    /// latest run only (see `result`).
    pub result: Option<String>,
    /// The programs its latest run started as a task runner's steps (`golangci-lint` for
    /// `mise run lint`; see `task_runs`).
    pub ran: Vec<String>,
}

/// A distinct error line from a command's output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErrorSeen {
    /// The first line of the error.
    pub text: String,
    /// The command whose output held it.
    pub command: Option<String>,
    /// How many results held it.
    pub count: u32,
    /// The record index of the last one.
    pub last: usize,
    /// A later run of the same command succeeded.
    pub resolved: bool,
}

/// An unfinished item of the agent's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Todo {
    /// What it says.
    pub text: String,
    /// Marked in progress.
    pub active: bool,
    /// What the item says beyond its title, where the list keeps that apart (a Claude Code
    /// task's description: the files, functions and commands of the step).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A CI check or workflow the session looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CiCheck {
    /// The check (job) name.
    pub check: Option<String>,
    /// The workflow: a `.github/workflows/` file name, or the name `gh run` prints.
    pub workflow: Option<String>,
    /// The state `gh` printed (`pass`, `fail`, `success`, `failure` …).
    pub status: Option<String>,
    /// The record index where it was last seen.
    pub last: usize,
}

impl CiCheck {
    fn failed(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| matches!(s, "fail" | "failure" | "failed" | "error" | "X" | "✗"))
    }

    /// `check@workflow`, with `?` for an unknown part, and `→ status` when known.
    pub fn label(&self) -> String {
        let mut label = format!(
            "{}@{}",
            self.check.as_deref().unwrap_or("?"),
            self.workflow.as_deref().unwrap_or("?")
        );
        if let Some(status) = &self.status {
            label.push_str(" → ");
            label.push_str(status);
        }
        label
    }
}

/// A commit the session made, as `git commit` reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// The abbreviated hash, as printed.
    pub hash: String,
    /// The first line of the message, as printed.
    pub subject: String,
    /// The record of the command's result.
    pub index: usize,
}

/// The code around the agent's latest edit, found in the fullest copy of its file the session
/// holds: what the edit's own text does not name, and the next step may need.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Around {
    /// The edited file.
    pub path: String,
    /// The definition (function, method, class) the edit sits in.
    pub function: Option<String>,
    /// The nearest calls the rest of the edit's block makes, in file order, leaving out the
    /// names the latest edits touched.
    pub calls: Vec<String>,
    /// The record index of the edit.
    pub index: usize,
}

/// Everything extracted from a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Extract {
    /// Main-chain messages.
    pub messages: usize,
    /// Tool calls, sub-agents' included.
    pub calls: usize,
    /// Real user requests.
    pub requests: usize,
    /// The session's working directory: the first `cwd` a record names, else the directory
    /// most commands `cd` into. Paths and commands are written relative to it.
    pub root: Option<String>,
    /// The git branch the session works on, the latest one recorded.
    pub branch: Option<String>,
    /// The first real user request, in the user's words; or, when the records start with an
    /// earlier compaction's summary, the goal that summary states (see `summarised`).
    pub goal: Option<Said>,
    /// The goal was taken from a compaction summary at the head of the records.
    pub summarised: bool,
    /// What the goal stands for, labelled: the gist of the document a short first request only
    /// points at and the agent read (`doc notes.md: …`), or the intent a summary states beside
    /// the user's own first words (`intent: …`).
    pub brief: Option<Said>,
    /// The work a leading summary says was in hand, when no request follows it: the current
    /// task until the user asks for something else.
    pub pending: Option<Said>,
    /// Decisions in session order: the user's turns between the goal and the current task, the
    /// user's answers, and the agent's latest stated choices.
    pub decisions: Vec<Decision>,
    /// The latest real user request.
    pub task: Option<Said>,
    /// When the latest request is short, the latest longer one before it, which it leans on.
    pub context: Option<Said>,
    /// The agent's last text.
    pub doing: Option<Said>,
    /// The figures the agent's whole last text states (see `figures`), then the commit hashes
    /// it names that the goal does not show (see `hashes`).
    pub doing_figures: Vec<String>,
    /// The latest figures the agent's texts stated that `doing_figures` does not hold, newest
    /// first (see `stated`).
    pub stated_figures: Vec<String>,
    /// The closing words of the agent's last text (see `closing`): where a finished turn
    /// says what is left or offered.
    pub closing: Option<Said>,
    /// Sub-agent tasks launched and not answered yet, in launch order: work in flight.
    pub delegated: Vec<Said>,
    /// Commands started in the background and not seen to end (a dev server, a watcher), as
    /// `$ command` labels in start order.
    pub running: Vec<Said>,
    /// The gists of the latest sub-agent reports, oldest first: what they found.
    pub reports: Vec<Said>,
    /// The agent's last tool call, as a label (`$ cargo test`, `edit src/a.rs`).
    pub last_call: Option<Said>,
    /// The calls the agent made after its last text: how far its work has gone past the step
    /// that text announced (see `stale_plan`).
    pub calls_after_words: usize,
    /// The agent's last call has no result yet: the transcript stops while it runs (see
    /// `open_call`).
    pub last_call_open: bool,
    /// The files the latest search listed, when its result is the latest the session saw
    /// (see `found`).
    pub found: Vec<String>,
    /// Files, written ones first, then by most recent use.
    pub files: Vec<FileUse>,
    /// The plan file the work follows, when the session accepted or wrote a plan (Claude
    /// Code's `~/.claude/plans/<slug>.md`).
    pub plan_file: Option<String>,
    /// Commands: failed last runs, then test runners, then others, then inspections; each
    /// group by most recent use.
    pub commands: Vec<CommandUse>,
    /// Errors: unresolved first, each group by most recent.
    pub errors: Vec<ErrorSeen>,
    /// Unfinished items of the agent's latest todo list, in progress first.
    pub todos: Vec<Todo>,
    /// The record index of that todo list.
    pub todo_at: Option<usize>,
    /// The agent's stated next step ("Next, I will …", "Now let me …") in its last text, when
    /// that text follows the latest request.
    pub plan: Option<Said>,
    /// The commands the verification section of the latest plan that has one says to run (its
    /// formatter, linter and tests) that the session has not run yet, in the plan's order (see
    /// `verification`).
    pub planned: Vec<String>,
    /// CI checks and workflows, most recent first.
    pub ci: Vec<CiCheck>,
    /// The transcript ends on the agent's answer: its turn is over.
    pub answered: bool,
    /// The transcript ends on a request the agent has not acted on yet.
    pub fresh: bool,
    /// Code names (identifiers, types, file names) the session mentions most, most frequent
    /// first: what a continuing agent will meet again.
    pub names: Vec<String>,
    /// In a session that mentions few names twice, the names it mentions once, weightiest
    /// first, that fill the list of names (see `once_named`).
    pub once_names: Vec<String>,
    /// Code names the latest edits wrote or replaced, newest edit first: what the agent was
    /// changing when the transcript ends, which outranks what was only frequent.
    pub touched: Vec<String>,
    /// The files the agent changed since the latest request, newest change first (see
    /// `request_edits`): what the current request has the work on.
    pub request_edits: Vec<String>,
    /// The test functions the session's edits wrote, newest edit first (see
    /// `written_tests`): what the next turn runs by name.
    pub written_tests: Vec<String>,
    /// The first code names of the goal's whole text (see `goal_names`): what a plan pasted as
    /// the goal changes, past where the shown goal is cut.
    pub goal_names: Vec<String>,
    /// The first code names of the agent's last words, whole (see `said_names`): what the
    /// user's next turn answers about, past where `said:` is cut.
    pub said_names: Vec<String>,
    /// The code around the latest edit whose place in its file the session shows.
    pub around: Option<Around>,
    /// The commits the session made, oldest first.
    pub commits: Vec<Commit>,
    /// Files changed after the latest of those commits (none when it made none).
    pub uncommitted: usize,
    /// The transcript ends in Claude Code's plan mode: no edits until the plan is approved.
    pub plan_mode: bool,
    /// The user's instructions for this compaction, given by the command that summarises, not
    /// read from the records (see `instructions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl Extract {
    /// The current task on one line: the latest request, after the one it leans on; with no
    /// request, the work a leading summary had in hand.
    pub fn now(&self) -> Option<String> {
        let Some(task) = self.task.as_ref() else {
            return self.pending.as_ref().map(|p| p.text.clone());
        };
        Some(match &self.context {
            Some(context) => format!("{} | {}", context.text, task.text),
            None => task.text.clone(),
        })
    }

    /// The file the work is on: the changed file used last. A session that changed nothing
    /// has none (what it read last may be a sub-agent's look around).
    pub fn focus(&self) -> Option<&FileUse> {
        self.files
            .iter()
            .filter(|f| f.written())
            .max_by_key(|f| f.last)
    }

    /// The test command to report: the most recent one with test counts, else the most recent
    /// one with any outcome.
    pub fn test_command(&self) -> Option<&CommandUse> {
        let tests = self.commands.iter().filter(|c| c.test);
        let counted = tests
            .clone()
            .filter(|c| c.outcome.is_some_and(|o| o.tests.is_some()))
            .max_by_key(|c| c.last);
        counted.or_else(|| tests.max_by_key(|c| c.last))
    }

    /// The CI check to report: the most recent failing one, else the most recent, with the
    /// most recent workflow name filled in when the check has none.
    pub fn ci_check(&self) -> Option<CiCheck> {
        let check = self
            .ci
            .iter()
            .filter(|c| c.failed())
            .max_by_key(|c| c.last)
            .or_else(|| self.ci.iter().max_by_key(|c| c.last))?;
        let mut check = check.clone();
        if check.workflow.is_none() {
            check.workflow = self
                .ci
                .iter()
                .filter(|c| c.workflow.is_some())
                .max_by_key(|c| c.last)
                .and_then(|c| c.workflow.clone());
        }
        Some(check)
    }
}
