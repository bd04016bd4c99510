//! What the next reader of a session needs, taken from the transcript with no model (pure), in
//! the order the checkpoint guidance ranks it: the goal in the user's own words (or as the
//! summary at the head of a compacted session's live context states it), the decisions and
//! their reasons (the user's turns and answers, the agent's stated choices and the constraints
//! it found), the current task and state (what the agent was doing, sub-agents in flight and
//! what they reported), its own next step; then the files and shell commands it touched with
//! their outcomes, the errors it met, the code names it was changing, the code around its latest
//! edit and the CI checks it looked at; and the two renderings built from them, [`caveman`](fn@caveman)
//! (Markdown within a token budget) and [`bare`](fn@bare) (four lines).
//!
//! [`extract`] makes one pass over the records, after a scan for the working directory that
//! stops at the first record naming one (paths and commands are written relative to it, so it
//! must be known before the first of them). Tool results are paired with their calls by id
//! ([`Message::call_ids`](crate::transcript::Message::call_ids) /
//! [`Message::answered_ids`](crate::transcript::Message::answered_ids)), and by order where a format stores no
//! id. Everything is recognised by small matchers over the fixed shapes agents and tools write
//! (tool names and argument keys, test-runner summary lines, exit-status lines), never by a model
//! or a regex engine, so extraction costs about as much as reading the file.
//!
//! The [`Extract`] keeps the record index of each entity's last use and is `Serialize`, so a
//! benchmark can run it on any prefix of a session and score what survives.
//!
//! One file per job:
//!
//! - `model`: what an [`Extract`] holds, and the questions it answers (`now`, `next`, the test
//!   command, the CI check);
//! - `builder`: the one pass over the records that fills it;
//! - `said`: the user's requests and the agent's stated plan, in their words;
//! - `ask`: a long request compressed to its first line and its details;
//! - `goal`: the goal a compaction summary states, and the document a request points at;
//! - `chore`: a first request that was a chore gives way to the first one of substance;
//! - `decisions`: the user's turns and answers, and the agent's stated choices;
//! - `narration`: the agent narrating its way of working, which is no decision;
//! - `tools`: what a tool call does, from its name and argument keys;
//! - `code_mode` and `js`: the tool calls inside a Codex code-mode cell's script, and what its
//!   output says of them;
//! - `background`: commands left running, and the calls that read or stop them;
//! - `shell`: a small shell lexer, and what a command line does to files;
//! - `gates`: linters, format checks and type checks, shown like test runs;
//! - `paths`: the working directory and path-like words;
//! - `branch`: the git branch the session works on;
//! - `commits`: the commits the session made, from what `git commit` printed;
//! - `outcome`: exit statuses and error lines in tool results;
//! - `subtests`: a failed Go subtest's line in place of its parent's;
//! - `log_lines`: what a failing test logged at an informational level, which is no error;
//! - `error_types`: the error types among the frequent names, shown under errors;
//! - `figures`: the numbers with units the agent's last words state, kept past their cut;
//! - `hashes`: the commit hashes the agent's last words name, kept past their cut with the
//!   figures;
//! - `failures`: a failed run's findings, and the later runs that fix an error;
//! - `rerun`: a failed test fixed by a later passing run that names it;
//! - `focused`: the test the agent last ran by itself (`go test -run TestX`);
//! - `found`: the files the agent's latest search listed, which it opens next;
//! - `plan_file`: Claude Code's plan file, named from the session's slug;
//! - `verification`: the commands a plan's verification section says to run;
//! - `plumbing`: the segment of a command line that is the run, not its set-up or report;
//! - `warnings`: what a run that exited 0 still warns of;
//! - `result`: the line the latest run ends on to say what it did;
//! - `stopped`: runs the agent stopped, which did not fail;
//! - `runners`: test-runner summary lines;
//! - `ci`: workflow files and `gh` check listings;
//! - `names`: the code names a session keeps mentioning;
//! - `next`: the next step, a request not acted on first;
//! - `instructions`: the user's instructions for the compaction, first among the next steps;
//! - `stale_plan`: the latest call beside a plan the agent's silent calls have gone past;
//! - `open_call`: a plan whose call the transcript stops in the middle of;
//! - `asked_git`: the git steps the latest request orders that no command ran yet;
//! - `queued`: the prompt Claude Code took off its queue when the compaction came first;
//! - `tasks`: Claude Code's task list, rebuilt from its task tools' calls and results;
//! - `around`: the code around the latest edit, from the fullest copy of its file;
//! - `text`: one-line text, cuts, escape removal;
//! - `limits`: how many characters of each kind of text an extract keeps;
//! - `repeats`: one request shown once, when the goal and the current ask are the same text;
//! - `shorten`: texts that shorten with a protected tail, shared by both renderers;
//! - `file_names`: caveman's files, each by the shortest tail of its path that names it;
//! - `file_uses`: those files grouped by what was done to them (edited, read, deleted);
//! - `caveman` and `bare`: the two renderings.

mod around;
mod ask;
mod asked_git;
mod background;
mod bare;
mod branch;
mod builder;
mod caveman;
mod chore;
mod ci;
mod closing;
mod code_mode;
mod commits;
mod complete;
mod continued;
mod decisions;
mod error_types;
mod failures;
mod figures;
mod file_names;
mod file_uses;
mod focused;
mod found;
mod gates;
mod go_packages;
mod goal;
mod goal_names;
mod hashes;
mod instructions;
mod js;
mod limits;
mod log_lines;
mod mention_weight;
mod model;
mod names;
mod narration;
mod next;
mod once_named;
mod open_call;
mod outcome;
mod pasted;
mod paths;
mod plan_file;
mod plan_mode;
mod plumbing;
mod prompt_command;
mod queued;
mod recent_edits;
mod repeats;
mod report_files;
mod report_preamble;
mod request_edits;
mod rerun;
mod result;
mod runners;
mod said;
mod said_names;
mod shell;
mod shorten;
mod stale_plan;
mod stated;
mod stopped;
mod subtests;
mod task_runs;
mod tasks;
#[cfg(test)]
mod testkit;
mod text;
mod tools;
mod turn_figures;
mod verification;
mod warnings;
mod work_dirs;
mod written_tests;

pub use bare::{bare, Bare, BARE_FLOOR};
pub use caveman::caveman;
pub use model::{
    Around, CiCheck, CommandUse, Commit, Decision, ErrorSeen, Extract, FileUse, RunOutcome, Said,
    TestCounts, Todo,
};
pub use names::frequent_names;
pub use paths::is_pathlike;
pub use queued::with_in_flight;
pub use runners::test_counts;
pub use said::request_text;
pub use text::{cut, one_line};

use crate::transcript::{Entry, Record};

use builder::Builder;
use code_mode::has_item_events;
use names::{mentioned_names, NAMES};
use paths::find_root;

/// Extracts the entities of a transcript (its records in order).
pub fn extract(records: &[Record]) -> Extract {
    let mut builder = Builder::new(find_root(records));
    builder.item_events = has_item_events(records);
    for (index, record) in records.iter().enumerate() {
        // Every text is read here and let go: what it decodes is dropped with the record's
        // copy (see `Record::to_read_once`), not kept in `records` to the end.
        let record = record.to_read_once();
        match &record.entry {
            Entry::Message(message) => builder.message(index, &record, message),
            Entry::Bookkeeping(kind) => {
                builder.mode(&record);
                builder.event(index, &record, kind);
            }
        }
    }
    let mut extract = builder.finish(records);
    (extract.names, extract.once_names) = mentioned_names(records, NAMES);
    extract.branch = branch::branch(records);
    extract
}
