//! The user's instructions for a compaction: the text after `/compact` in Claude Code,
//! kimi-cli and pi, which Claude Code also hands its `PreCompact` hook as
//! `custom_instructions`. They say what the user wants carried over, and often what comes
//! next ("let's do a review", "summarise the investigation so we can continue"). No record
//! before the compaction holds them (Claude Code writes the command after its boundary), so
//! the command that summarises is given them (`--instructions`).
//!
//! kimi-cli tells its model that such a focus comes above every default priority. Without a
//! model the nearest is to state it, in the user's words, first among the next steps: caveman
//! as the first line under `## next`, bare at the head of NEXT, labelled with the command the
//! user typed them after.
//!
//! Measured on the eval corpus (4 of its 60 cuts have instructions, `condense eval` passes
//! them): caveman's probes 500 -> 503 (now +1, next +2, fact +1, test -1), its re-used
//! entities 1,469 -> 1,482, the all-entities per-cut line 37 -> 38 and the
//! paths+commands+errors+numbers one 51 -> 50; bare's 283 -> 283 (now +1, next +1 where the
//! instructions say what comes next, next -1 and decision -1 where they recount the work and
//! push out the agent's closing words). The same at caveman priorities 3 and 20, at 100 and
//! 160 characters for caveman and at 50 and 80 for bare, and with the longer label
//! `asked at compaction`.

use super::model::Extract;
use super::text::one_line;

/// Characters of the instructions caveman quotes: about a line, as the plan it sits beside.
pub(super) const CAVEMAN_SHOWN: usize = 160;

/// Characters of them bare quotes: NEXT shares 100 tokens with three other lines.
pub(super) const BARE_SHOWN: usize = 80;

/// The label that says where the step comes from: not the transcript, the command the user
/// typed them after.
const LABEL: &str = "/compact";

/// The user's instructions as a next step, `/compact: <text>`, the text on one line
/// and cut to `chars`; nothing when there are none (or they are blank).
pub(super) fn instructions_step(ex: &Extract, chars: usize) -> Option<String> {
    let text = one_line(ex.instructions.as_deref()?, chars);
    (!text.is_empty()).then(|| format!("{LABEL}: {text}"))
}

impl Extract {
    /// This extract with the user's instructions for the compaction (see the module docs).
    pub fn with_instructions(mut self, instructions: Option<&str>) -> Self {
        self.instructions = instructions.map(str::to_owned);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_are_a_step_on_one_line_cut_to_their_room() {
        let ex = Extract::default().with_instructions(Some("let's do\na review "));
        assert_eq!(
            instructions_step(&ex, 100).as_deref(),
            Some("/compact: let's do a review")
        );
        let long = Extract::default().with_instructions(Some(&"keep the plan ".repeat(20)));
        let step = instructions_step(&long, 30).unwrap();
        assert!(step.chars().count() <= LABEL.len() + 2 + 30, "{step}");
    }

    #[test]
    fn no_or_blank_instructions_are_no_step() {
        assert_eq!(instructions_step(&Extract::default(), 100), None);
        let blank = Extract::default().with_instructions(Some("  \n "));
        assert_eq!(instructions_step(&blank, 100), None);
    }
}
