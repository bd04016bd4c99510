//! The prompt bodies that follow the compacted messages in a compaction request, one Markdown
//! file per style, compiled into the binary.
//!
//! Every body starts with a blank line and a `---` rule and ends with one newline, so that the
//! request reads: the last compacted message, a blank line, the rule, then the task.

/// Prompt styles: the body that follows the compacted messages (named on the command line by
/// `--style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Style {
    /// Six priorities, four rules and six XML-tagged sections (kimi-cli's structure).
    Structured,
    /// First-person working notes with exact commands, outcomes and the next action (`handoff`
    /// is its old name, kept for one release).
    #[value(alias = "handoff")]
    Notes,
    /// ACF's SDLC tags: current_focus, stack, tests, ci, architecture, conventions,
    /// completed_phases.
    Sdlc,
    /// Under 500 tokens: paths, counts, labels, commands, symbols.
    Caveman,
    /// The goal in the user's words, decisions and reasons, hard constraints, state, questions.
    Checkpoint,
}

/// The body of a style.
pub fn body(style: Style) -> &'static str {
    match style {
        Style::Structured => include_str!("structured.md"),
        Style::Notes => include_str!("notes.md"),
        Style::Sdlc => include_str!("sdlc.md"),
        Style::Caveman => include_str!("caveman.md"),
        Style::Checkpoint => include_str!("checkpoint.md"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_body_is_framed_by_the_rule_and_one_newline() {
        for style in Style::value_variants() {
            let text = body(*style);
            assert!(text.starts_with("\n---\n\n"), "{style:?}");
            assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{style:?}");
        }
    }
}
