//! One candidate line of a caveman summary and the sections lines print in: the types the
//! line makers (`lines`, `decisions`) and the printer (`render`) share.

use crate::extract::model::Extract;
use crate::extract::shorten::Shortening;
use crate::extract::text::cut;

/// The sections of a caveman summary, in the order they print.
///
/// The sections whose every line carries its own label (`ask:`, `said:`, `last:`; `edited:`,
/// `read:`) print no heading: a heading line costs about 4 tokens, 21 a summary (eval corpus),
/// the room of a file or a name, and `last: cargo test` says what it is without `## now` above
/// it. They print right under the title, before the first heading, so that no labelled line
/// reads as part of a headed section (`edited: a.rs` under `## errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    Head,
    Now,
    Files,
    Goal,
    Decisions,
    Errors,
    Commands,
    Next,
    Ci,
    Names,
}

impl Section {
    pub(super) const ALL: [Section; 10] = [
        Section::Head,
        Section::Now,
        Section::Files,
        Section::Goal,
        Section::Decisions,
        Section::Errors,
        Section::Commands,
        Section::Next,
        Section::Ci,
        Section::Names,
    ];

    /// Whether the section's lines are lists of names (files, code names): such a line cut
    /// to its first items still says what each of them is.
    pub(super) fn is_list(self) -> bool {
        matches!(self, Section::Files | Section::Names)
    }

    /// The heading the section prints under; none for the title block and for the sections
    /// whose lines are self-labelled (see [`Section`]). The goal prose, the decisions (whose
    /// `user:` and `agent:` say who, not what), the errors, commands, next steps, CI checks
    /// and names are bare and keep theirs, and a summary read back finds its goal under
    /// `## goal` (see `goal::summary_goal`).
    pub(super) fn heading(self) -> Option<&'static str> {
        match self {
            Section::Head | Section::Now | Section::Files => None,
            Section::Goal => Some("## goal"),
            Section::Decisions => Some("## decisions"),
            Section::Errors => Some("## errors"),
            Section::Commands => Some("## cmds"),
            Section::Next => Some("## next"),
            Section::Ci => Some("## ci"),
            Section::Names => Some("## names"),
        }
    }
}

/// What `text` says after its list bullet and its label (`last: `, `pending (from the
/// summary): `); all of it when it has no label. A label is a few lowercase words before the
/// first `: `, so a sentence with a colon in it (`Fix: the parser`) stays whole.
pub(super) fn unlabelled(text: &str) -> &str {
    let text = text.strip_prefix("- ").unwrap_or(text);
    let is_label = |head: &str| {
        !head.is_empty()
            && head.len() <= LABEL_CHARS
            && head
                .chars()
                .all(|c| c.is_ascii_lowercase() || matches!(c, ' ' | '(' | ')'))
    };
    match text.split_once(": ") {
        Some((head, rest)) if is_label(head) => rest,
        _ => text,
    }
}

/// The longest label: `pending (from the summary)` is the longest caveman prints.
const LABEL_CHARS: usize = 32;

/// One candidate line of a caveman summary.
pub(super) struct Line {
    pub(super) section: Section,
    /// The text, and how it shortens.
    pub(super) text: Shortening,
    /// For a line that carries one long text (goal, task, agent's last words): the percentage
    /// of the budget it may take before the other lines have had theirs. Such a line is cut to
    /// fit rather than dropped.
    pub(super) share: Option<u64>,
    /// Lower prints sooner when the budget is short.
    pub(super) priority: u32,
    /// Among lines of one priority, lower goes first; equal ones go in print order.
    pub(super) tie: usize,
    /// For a line shown short at first (a decision): its characters then; budget left over
    /// lengthens it towards the whole text.
    pub(super) start: Option<usize>,
}

impl Line {
    /// A line of `text` in `section`, shown whole or cut as [`Shortening`] says, first among
    /// lines of its `priority` in print order.
    pub(super) fn new(
        section: Section,
        text: Shortening,
        share: Option<u64>,
        priority: u32,
    ) -> Line {
        Line {
            section,
            text,
            share,
            priority,
            tie: 0,
            start: None,
        }
    }

    /// A line of plain `text`, which shortens by cutting its end.
    pub(super) fn plain(section: Section, text: String, share: Option<u64>, priority: u32) -> Line {
        Line::new(section, Shortening::plain(text), share, priority)
    }
}

/// Candidate lines per section beyond which the rest is left out.
pub(super) const CANDIDATES: usize = 40;

/// Characters of the agent's last words shown as `said:`.
pub(super) const SAID_SHOWN: usize = 200;

/// Characters of a command line shown under cmds: the program, its subcommand and first
/// arguments say what ran; the rest of a long line (a commit message, a heredoc, a jq
/// program) costs the room of several names and files. Measured on the eval corpus against
/// 120: caveman's probes unchanged (421), re-used names carried 572 -> 607.
pub(super) const COMMAND_SHOWN: usize = 40;

/// The priority of the line of figures the agent stated (see `stated`): after the three first
/// errors and the error types. Measured on the eval corpus with the figures of the user's
/// turns (the last before it, 480 probes, 1,275 entities): at 40, caveman's probes 481
/// (decision +2, next and test -1 and +1 -1), numbers carried 6 -> 9, entities 1,263; at 46,
/// the same probes and numbers, entities 1,268; at 55, probes unchanged, numbers 7. With the
/// task runners' checkers (`task_runs`) in, 50 against 46: probes 481 -> 482 (next +1),
/// entities 1,271 -> 1,280.
pub(super) const STATED_FIGURES_PRIORITY: u32 = 50;

/// The priority of the `found:` line of a sub-agent's report when no call came after it: what
/// the agent learned last, which its next turn acts on, beside its last words (`said:`, 6) and
/// a command left running (17). A report the agent went on from keeps 60. Measured on the
/// eval corpus with the reports' opening narration left out (see `report_preamble`; without
/// it the line shows only that, and no probe moves at any priority): at 12 and 20, caveman's
/// probes 495 -> 497 (error 14 -> 15, file 109 -> 110), cuts at least native's on
/// paths+commands+errors+numbers 49 -> 50 of 60, entities unchanged; at 30, 496; at 40, 495.
pub(super) const REPORT_LAST_PRIORITY: u32 = 20;

/// The priority of the line of error types (see `error_types`): after the first two errors.
pub(super) const ERROR_TYPES_PRIORITY: u32 = 36;
/// Open todos shown with their detail (a Claude Code task's description); the ones after them
/// show their titles, which leaves the room of the detail to names and files.
pub(super) const DETAILED_TODOS: usize = 2;

/// Characters of a test command shown: its filter, package or test file is what the next turn
/// re-runs, so it keeps more.
pub(super) const TEST_SHOWN: usize = 120;

/// True when `said:` shows `text` whole: the plan sentence of the same last message.
pub(super) fn shown_in_said(ex: &Extract, text: &str) -> bool {
    ex.doing
        .as_ref()
        .is_some_and(|doing| cut(&doing.text, SAID_SHOWN).contains(text.trim()))
}

/// Characters of the line of planned checks (see `verification`): a verification section
/// names a handful of commands.
pub(super) const PLANNED_SHOWN: usize = 200;

/// Where the planned checks rank among caveman's lines: after the latest test command, the
/// plan sentence and the first todos, just before the first other commands. Measured on the
/// eval corpus when the line came in (caveman's probes 424 -> 427, per-cut
/// paths+commands+errors+numbers 33 -> 35 of 60): the same at 5, 10 and 20; at 40 the line is
/// cut where it is needed (34/60, next probes 36 -> 34); under next as `- verify: …`, 34/60.
pub(super) const PLANNED_PRIORITY: u32 = 14;

/// Where the user's instructions for the compaction rank (see `instructions`): with the
/// first lines, as the user asked for them above every default (the plan sentence is 7).
pub(super) const INSTRUCTIONS_PRIORITY: u32 = 3;

/// Where the first line of the names the session keeps coming back to ranks (each line after
/// it 8 lower): after the two first lines of files and the names the latest edits touched.
/// Measured on the eval corpus with the second file line moved from 26 to 21 (issue 26): at
/// 22, caveman's probes 429 of 521; at 24, 430, with re-used paths carried 349 -> 366 against
/// main; at 27 and 32 (measured with an earlier form of the file names) 426 and 422, the names
/// going where they are needed.
pub(super) const FREQUENT_NAMES_PRIORITY: u32 = 24;

/// Where the first line of the names a short session mentions once ranks (see `once_named`):
/// after every other line, so they fill only the room left. A name mentioned once is as often
/// a traceback's (`selectors.py`, `KeyboardInterrupt`) as a report's. Measured against their
/// following the frequent names at once (stop 48): on the eval corpus nothing moves at 100 or
/// 120 (caveman's probes 498, re-used entities 1,462, cuts at least native's on all entities
/// 34 of 60), at 60 and 80 probes 496; on the Codex code-mode probes 27 -> 28 of 30 (at 60 and
/// 80, 27: the names pushed out the command line that named `invoices/cli.py`).
pub(super) const ONCE_NAMES_PRIORITY: u32 = 100;

/// Characters of the goal shown. The goal is the user's first words, the least dense line of
/// the summary (about 7 re-used names per 1,000 tokens against 60 to 100 for the file and name
/// lines, eval corpus), and its gist is in its first sentence; the request in `ask:` and the
/// decisions carry the rest. Measured on the eval corpus against 300 (with the other rules of
/// issue 26's stop 46): caveman's probes 477 -> 478 (goal probes 61 either way), re-used
/// entities carried 1,236 -> 1,288; alone, against main: probes 476 either way, 1,210 -> 1,253.
pub(super) const GOAL_SHOWN: usize = 150;

/// The priority of the third line of files and the step to each one after it: among the first
/// lines of frequent names (24, 32, …), not after all of them. Files are the densest lines in
/// re-used paths (about 64 per 1,000 tokens, names 6), which is what the per-cut target on paths,
/// commands, errors and numbers counts. Measured on the eval corpus against 74 for all of them
/// (with the other rules of this stop): caveman's probes 479 -> 478 (file 106 -> 108, next
/// 46 -> 44), entities 1,303 -> 1,288, cuts at least native's on paths+commands+errors+numbers
/// 37 -> 40 of 60.
pub(super) const MORE_FILES_PRIORITY: (u32, u32) = (26, 4);

/// Where the line of the tests the agent wrote (see `written_tests`) ranks: among the
/// lines of frequent names (24, 32, 40, 48, …), after the third. A test's name is long (8 to 12
/// tokens) and about one in three of the newest ones is used again after a cut, against one in
/// two of the first names (eval corpus), so it comes after those. Measured on the eval corpus
/// (stop 48, with the newest 8): at 44 to 48, caveman's probes 497 either way, re-used
/// entities carried 1,446 -> 1,451, cuts at least native's on all entities 32 -> 33 of 60; at
/// 40, 498 probes (next +1), 1,448 and 32 cuts; at 30, 497, 1,431 and 31; from 50 on it seldom
/// fits (1,445, 32). As an unlabelled names line (stop 49, see `written`): at 44 to 48, probes
/// 499 either way, entities 1,458 -> 1,462, cuts 34 -> 35; at 40 and 36, 1,458 and 34; at 52,
/// 1,451 and 33.
pub(super) const WRITTEN_TESTS_PRIORITY: u32 = 46;

/// Where the line of the goal's names (see `goal_names`) ranks: after the second line of frequent
/// names (32) and the error types (36). Measured on the eval corpus (stop 49, with the written
/// tests as a names line): at 34 to 44, caveman's probes 499 either way, re-used entities
/// carried 1,462 -> 1,466 (1,465 at 44), cuts at least native's on all entities 35 -> 36 of 60 (on
/// paths+commands+errors+numbers 51 either way); at 24, probes 498 (next -1); at 60, nothing
/// moves. Ten names instead of seven: 36 cuts, 1,465; five or three: 35.
pub(super) const GOAL_NAMES_PRIORITY: u32 = 38;

/// Where the line of the names in the agent's last words (see `said_names`) ranks: after the
/// written tests (46) and the goal's names, before the older reports (60, 90). Measured on the
/// eval corpus (stop 49, on the split-signature rule): at 50 to 55, caveman's probes 499 -> 500
/// (goal +1), re-used entities carried 1,465 -> 1,469, cuts at least native's on all entities
/// 37 either way (pi-mono-ffae836b@360 -11 -> -8, cipher-box-3e110024@563 -3 -> -2), on
/// paths+commands+errors+numbers 51 either way; at 47, 44 and 34: 36 cuts (af74d9e0@527 falls
/// from level); at 28: 35 and probes 499; at 60, nothing moves. The latest request's names
/// the same way: 36 cuts at 34 to 44 (fdd24234@483 falls), nothing moves at 50 and 60.
pub(super) const SAID_NAMES_PRIORITY: u32 = 52;

/// The most directories the `dirs:` line names (see `work_dirs`). Measured on the eval corpus
/// at priority 34: 3 and 5 carry fewer re-used paths (460, 460 against 463 at 4).
pub(super) const WORK_DIRS_SHOWN: usize = 4;

/// Where the `dirs:` line ranks: among the first lines of files and frequent names, before
/// the fourth line of files (30). Measured on the eval corpus (issue 26, stop 47), with the
/// names ranked by writer (`mention_weight`) and the agent's figures in: at 27 to 29 caveman
/// meets native's re-used paths+commands+errors+numbers at 49 of 60 cuts (495 probes, next
/// 42 -> 41); at 30 and 34, 47 (496); at 38, 46; at 24 and 26 it pushes out a file line (file
/// probes 109 -> 107). Before those rules, at 34: 39 -> 45 cuts with the probes unchanged.
pub(super) const WORK_DIRS_PRIORITY: u32 = 28;

/// Characters of the brief shown (the gist of a document the goal points at, or the intent a
/// summary states beside the goal): like the goal, prose with few names the next turn reuses
/// (about 12 re-used entities per 1,000 tokens on the eval corpus, against 100 and more for
/// the names), and its gist comes first. Measured on the eval corpus against 300 (with the
/// frequent names ranked by writer, see `mention_weight`): caveman's probes 492 -> 496 (goal
/// 61 either way), re-used entities carried 1,427 -> 1,443; at 150, 495 and 1,447.
pub(super) const BRIEF_SHOWN: usize = 100;

/// How many of the frequent names caveman offers as lines: a 500-token summary prints a few
/// dozen, and every line offered is a render of the summary when it does not fit; the extract
/// keeps more for the error types (see `names::NAMES`).
pub(super) const FREQUENT_NAMES_OFFERED: usize = 120;
