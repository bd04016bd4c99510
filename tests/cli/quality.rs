//! The quality benchmark (`cargo bench --bench quality`) as a regression test: the same cuts,
//! entities and probes (`benches/quality/score.rs`), run through the debug binary. caveman's
//! and bare's outputs on each prefix are golden files in `fixtures/probes/` (regenerate with
//! `CONDENSE_BLESS=1 cargo test`, then rerun the benchmark and read its tables before
//! committing), and issue 4's goals must hold, or, for the ones that do not hold yet, must not
//! get further from holding.

#[path = "../../benches/quality/score.rs"]
mod score;

use crate::util::{check_golden, condense_text, fixture};

/// Goals the extractor does not reach yet, with the margin it reached when this was written
/// (see the benchmark's output for the figures). A change that lowers the margin fails; one
/// that makes the goal hold fails too, so that it moves out of this list and stays held.
///
/// Coverage is the worst session's shortfall against the frequency list: pi, whose caveman
/// fills its 500 tokens with the goal, the decisions and the current state before the names
/// section. Issue 13 moved the floor from -50 to -53.0 on purpose: decisions and their reasons
/// outrank names, as the checkpoint guidance ranks them (corpus-wide, caveman covers 115 of 377
/// later entities against 126 before, and carries 64 of 77 probes against 53).
///
/// Issue 13's per-kind goal holds since caveman names the code around the latest edit: on
/// entireio the summary's next step, `outputHookResponse`, occurs before the cut only in Claude
/// Code's `toolUseResult.originalFile` copy of the edited file, in the block the edit sits in.
///
/// Issue 29 moved it to -55.0: caveman's 500 tokens are counted by the session's own estimator
/// since, Claude's family for pi's Claude session, which counts about a third more tokens than
/// characters ÷ 4 in the same text, so the note holds less.
const NOT_YET: [(&str, f64); 1] = [(score::COVERAGE, -55.0)];

/// The standard output of `condense ARGS`, which must succeed.
fn run(args: &[&str]) -> String {
    condense_text(args)
}

/// A summary of the quality benchmark against its golden file.
fn check_probe_golden(name: &str, actual: &str) {
    check_golden(
        &fixture(&format!("probes/{name}")),
        actual,
        "check the quality benchmark's tables",
    );
}

#[test]
fn compaction_keeps_what_the_agent_needed_after_the_cut() {
    let report = score::run(&fixture(""), &run);
    let tables = report.render();
    for (name, text) in report.goldens() {
        check_probe_golden(&name, text);
    }
    for session in report.sessions() {
        let caveman = session.row(score::CAVEMAN).expect("caveman row");
        assert!(
            caveman.tokens <= score::BUDGET,
            "{}: caveman used {} tokens\n{tables}",
            session.name,
            caveman.tokens
        );
    }
    for goal in report.goals() {
        match NOT_YET.iter().find(|(id, _)| *id == goal.id) {
            Some(&(_, floor)) => {
                assert!(
                    !goal.holds,
                    "goal {} holds now (margin {:+.1}): move it out of NOT_YET\n{tables}",
                    goal.id, goal.margin
                );
                assert!(
                    goal.margin >= floor,
                    "goal {} moved away: margin {:+.1}, was {floor:+.1}\n{tables}",
                    goal.id,
                    goal.margin
                );
            }
            None => assert!(goal.holds, "goal {} fails\n{tables}", goal.id),
        }
    }
}
