//! What one mention of a code name weighs when the frequent names are ranked (see
//! `names::frequent_names`): by who wrote it and by how late in the session.
//!
//! A name the agent wrote into an edit, or the user typed, is a name the work is about; the
//! same name in a file the agent read is often one of hundreds the file happened to hold (a
//! `Read` of a Go file mentions every field of every struct). And what the session is on at its
//! end outranks what it settled early. Measured on the eval corpus (re-used identifiers among
//! the 30 and 50 first names, against every mention weighing alike and growing linearly with
//! the record's place): 542 -> 752 and 797 -> 1,049 with the qualified names split (see
//! `names`), the writer's weight alone doing about two thirds of it.

use super::tools::{tool_kind, Tool};
use crate::transcript::{Part, Role};

/// Who wrote the text a mention is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Writer {
    /// A tool's output: a file read, a listing, a command's output.
    Tool,
    /// The arguments of a call that reads or runs (a search pattern, a command line).
    Call,
    /// The agent's own words: its text and thinking (a summary it wrote before is its words).
    Agent,
    /// What the user typed.
    User,
    /// The code an edit, write or patch call wrote or replaced.
    Edit,
}

impl Writer {
    /// Who wrote `part` of a message of `role`.
    pub(super) fn of(role: Role, part: &Part) -> Writer {
        match part {
            Part::ToolResult { .. } => Writer::Tool,
            Part::ToolCall {
                name, arguments, ..
            } => match tool_kind(name, arguments) {
                Tool::Edit | Tool::Write | Tool::Patch => Writer::Edit,
                _ => Writer::Call,
            },
            _ => match role {
                Role::Tool => Writer::Tool,
                Role::User => Writer::User,
                Role::System | Role::Assistant => Writer::Agent,
            },
        }
    }

    /// The weight of a mention by this writer. The ratios were chosen on the eval corpus; the
    /// ranking moves little within a factor of two of each. The user's words weigh most (what
    /// they ask for by name is what the next turn works on): at 60 against 30, caveman's
    /// probes 498 either way and cuts at least native's on all entities 27 -> 29 of 60.
    /// A slash command's expanded prompt (Claude Code's `isMeta` text: a template's
    /// `PHASE_DIR`, `offer_next`) weighed as a file read instead, at 1 or 5, was tried (stop
    /// 49): entities 1,465 either way, cuts on paths+commands+errors+numbers 51 -> 50 (a
    /// template that says to read `CLAUDE.md` names what the agent re-reads); with its file
    /// names kept at the user's weight, cuts on all entities 37 -> 36. Not kept.
    fn weight(self) -> u64 {
        match self {
            Writer::Tool => 1,
            Writer::Call => 5,
            Writer::Agent => 20,
            Writer::User => 60,
            Writer::Edit => 40,
        }
    }
}

/// The weight of a mention by `writer` in record `index` of `records`: the writer's weight
/// times a recency that grows with the square of the record's place, from a tenth at the first
/// record to 1.1 at the last (in thousandths squared, so integers). A lower floor lifts the
/// per-cut counts and costs probes (eval corpus, against this one: at 0.03, caveman's probes
/// 498 -> 497 and cuts at least native's on all entities 29 -> 30 of 60; at 0.01, 496 and 31).
pub(super) fn mention_weight(writer: Writer, index: usize, records: usize) -> u64 {
    let place = (index as u64 * 1000) / records.max(1) as u64;
    writer.weight() * (place * place + 100_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_outweighs_a_file_read_and_late_outweighs_early() {
        let edit = Part::ToolCall {
            id: None,
            name: "Edit".into(),
            arguments: r#"{"file_path":"a.rs","old_string":"x","new_string":"y"}"#
                .to_owned()
                .into(),
        };
        let grep = Part::ToolCall {
            id: None,
            name: "Grep".into(),
            arguments: r#"{"pattern":"x"}"#.to_owned().into(),
        };
        let output = Part::ToolResult {
            call_id: None,
            text: "fn x()".to_owned().into(),
        };
        let text = Part::Text("x".to_owned().into());
        assert_eq!(Writer::of(Role::Assistant, &edit), Writer::Edit);
        assert_eq!(Writer::of(Role::Assistant, &grep), Writer::Call);
        assert_eq!(Writer::of(Role::User, &output), Writer::Tool);
        assert_eq!(Writer::of(Role::Tool, &text), Writer::Tool);
        assert_eq!(Writer::of(Role::User, &text), Writer::User);
        assert_eq!(Writer::of(Role::Assistant, &text), Writer::Agent);
        // Ten reads of a name weigh less than one edit that writes it, at the same place.
        assert!(10 * mention_weight(Writer::Tool, 50, 100) < mention_weight(Writer::Edit, 50, 100));
        // The last record weighs eleven times the first.
        assert_eq!(
            mention_weight(Writer::Agent, 100, 100),
            11 * mention_weight(Writer::Agent, 0, 100)
        );
    }
}
