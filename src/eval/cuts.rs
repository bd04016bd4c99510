//! Where a session is cut for grading (pure): at every compaction the agent recorded, or, for
//! a session with none, at the places `--at` names.
//!
//! A real cut is a compaction marker (Claude Code `compact_boundary`, Codex `compacted`, pi
//! `compaction`, and condense's own, which are the same lines; see [`crate::history`]) or, in
//! the formats that rewrite their file instead (kimi-cli, OpenAI and Anthropic lists, Gemini
//! CLI), a message that opens with an agent's compaction summary ([`is_compaction_summary`]).
//! The **prefix** is every line before the marker; the agent's own (**native**) summary is the
//! marker's text (pi, Codex) or the summary message after it (Claude Code's `isCompactSummary`
//! line); the **suffix** is the records after the summary, up to the next cut or `--horizon`
//! message records.
//!
//! An `--at` cut is counted in main-chain messages (records read as a message, sub-agents and
//! bookkeeping left out, as the quality benchmark counts): `--at N` cuts right after the line
//! of the N-th message, `--at P%` after the ⌊messages × P / 100⌋-th. Its prefix is the lines up
//! to and including that one; it has no native summary.

use std::ops::Range;
use std::str::FromStr;

use crate::transcript::classify::{is_compaction_summary, text_of};
use crate::transcript::{FormatId, Record, Role};

/// Where `--at` cuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// After the N-th main-chain message.
    Message(usize),
    /// After this percentage of the main-chain messages.
    Percent(u32),
}

impl FromStr for At {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is neither a message count N nor a share P% (1-100)");
        match s.strip_suffix('%') {
            Some(p) => match p.parse() {
                Ok(p @ 1..=100) => Ok(At::Percent(p)),
                _ => Err(bad()),
            },
            None => match s.parse() {
                Ok(n @ 1..) => Ok(At::Message(n)),
                _ => Err(bad()),
            },
        }
    }
}

/// One cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The marker's line, or for an `--at` cut the last line of the prefix.
    pub line: usize,
    /// What the cut is: `compact_boundary`, `compacted`, `compaction`, `summary` (a summary
    /// message in a rewritten file) or `at`.
    pub kind: &'static str,
    /// How many lines of the file the prefix is.
    pub prefix_lines: usize,
    /// The agent's own summary.
    pub native: Option<String>,
    /// The user's instructions for the compaction, which the agent's summariser was given
    /// ([`compact_instructions`]); the built-in summaries are given them too.
    pub instructions: Option<String>,
    /// The record indexes of the suffix.
    pub suffix: Range<usize>,
}

/// The compactions the session recorded, oldest first, each suffix ending at the next one
/// and after `horizon` message records.
pub fn real_cuts(format: FormatId, records: &[Record], horizon: Option<usize>) -> Vec<Cut> {
    let marker = format.format().compaction_marker();
    let starts: Vec<usize> = (0..records.len())
        .filter(|&i| {
            let record = &records[i];
            if marker.is_some() {
                record.compaction
            } else {
                record.message().is_some_and(is_compaction_summary)
            }
        })
        .collect();
    let kind = marker.unwrap_or("summary");
    starts
        .iter()
        .enumerate()
        .map(|(n, &marker)| {
            let end = starts.get(n + 1).copied().unwrap_or(records.len());
            // The summary is the marker itself (pi, Codex, a rewritten file's message) or the
            // message right after it (Claude Code's line after its boundary).
            // An encrypted summary (Codex's remote compaction) is no text to grade; the
            // messages kept beside it are the user's own, not a summary.
            let opaque = format
                .format()
                .opaque_summary(records[marker].raw)
                .is_some();
            let own = records[marker].message().map(text_of).filter(|_| !opaque);
            let (native, first) = match own {
                Some(text) if !text.trim().is_empty() => (Some(text), marker + 1),
                _ if opaque => (None, marker + 1),
                _ => match (marker + 1..end).find(|&i| records[i].message().is_some()) {
                    Some(i) if records[i].message().is_some_and(is_compaction_summary) => {
                        (records[i].message().map(text_of), i + 1)
                    }
                    _ => (None, marker + 1),
                },
            };
            Cut {
                line: records[marker].line,
                kind,
                prefix_lines: records[marker].line - 1,
                native,
                instructions: compact_instructions(&records[first..end]),
                suffix: first..horizon_end(records, first, end, horizon),
            }
        })
        .collect()
}

/// The text the user typed after `/compact`, from the command line Claude Code writes after its
/// boundary and summary, among the records before the agent's first message after the cut
/// (where the command is, as `<command-name>/compact</command-name>` with `<command-args>`);
/// `None` when no such line has any. pi, Codex and kimi-cli keep no record of theirs.
pub fn compact_instructions(after: &[Record]) -> Option<String> {
    after
        .iter()
        .filter_map(Record::message)
        .take_while(|m| m.role == Role::User)
        .map(text_of)
        .find(|text| text.contains("<command-name>/compact</command-name>"))
        .and_then(|text| {
            let (_, args) = text.split_once("<command-args>")?;
            let (args, _) = args.split_once("</command-args>")?;
            let args = args.trim();
            (!args.is_empty()).then(|| args.to_owned())
        })
}

/// The `--at` cuts of a session, in the order given; a place past the last message is none.
pub fn at_cuts(records: &[Record], at: &[At], horizon: Option<usize>) -> Vec<Cut> {
    let main: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].message().is_some_and(|m| !m.sidechain))
        .collect();
    at.iter()
        .filter_map(|&at| {
            let kept = match at {
                At::Message(n) => n,
                At::Percent(p) => main.len() * p as usize / 100,
            };
            let last = *main.get(kept.checked_sub(1)?)?;
            let line = records[last].line;
            Some(Cut {
                line,
                kind: "at",
                prefix_lines: line,
                native: None,
                instructions: None,
                suffix: last + 1..horizon_end(records, last + 1, records.len(), horizon),
            })
        })
        .collect()
}

/// Where a suffix from `first` ends: at `end`, or after `horizon` message records.
fn horizon_end(records: &[Record], first: usize, end: usize, horizon: Option<usize>) -> usize {
    let Some(horizon) = horizon else {
        return end;
    };
    if horizon == 0 {
        return first;
    }
    let mut seen = 0;
    for (i, record) in records.iter().enumerate().take(end).skip(first) {
        if record.message().is_some_and(|m| !m.sidechain) {
            seen += 1;
            if seen == horizon {
                return i + 1;
            }
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::load::{LoadOptions, Transcript};

    #[test]
    fn at_reads_a_count_or_a_share() {
        assert_eq!("12".parse(), Ok(At::Message(12)));
        assert_eq!("70%".parse(), Ok(At::Percent(70)));
        assert!("0".parse::<At>().is_err());
        assert!("101%".parse::<At>().is_err());
    }

    #[test]
    fn a_pi_compaction_is_cut_at_its_marker_with_its_own_summary() {
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/r"}"#,
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"one"}}"#,
            r#"{"type":"compaction","id":"c","parentId":"u1","timestamp":"t","summary":"Goal: ship","firstKeptEntryId":"u1","tokensBefore":9}"#,
            r#"{"type":"message","id":"a2","parentId":"c","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}"#,
            r#"{"type":"message","id":"u3","parentId":"a2","timestamp":"t","message":{"role":"user","content":"three"}}"#,
        ];
        let bytes = lines.join("\n");
        let transcript = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let cuts = real_cuts(FormatId::Pi, &transcript.records, None);
        assert_eq!(cuts.len(), 1);
        assert_eq!(
            (cuts[0].line, cuts[0].kind, cuts[0].prefix_lines),
            (3, "compaction", 2)
        );
        assert!(cuts[0]
            .native
            .as_deref()
            .is_some_and(|s| s.contains("Goal: ship")));
        assert_eq!(cuts[0].suffix, 3..5);
        assert_eq!(
            real_cuts(FormatId::Pi, &transcript.records, Some(1))[0].suffix,
            3..4
        );
        let at = at_cuts(
            &transcript.records,
            &[At::Percent(50), At::Message(9)],
            None,
        );
        assert_eq!(at.len(), 1);
        // The marker is a message record too: the second of four is the compaction, line 3.
        assert_eq!(
            (at[0].line, at[0].prefix_lines, at[0].suffix.clone()),
            (3, 3, 3..5)
        );
        assert_eq!(cuts[0].instructions, None);
    }

    /// Claude Code's lines at a `/compact let's do a review`: the boundary, the summary, the
    /// caveat, the command, its output (the shapes of entire-cli-67d765b5, trimmed).
    fn claude_compaction(args: &str) -> Vec<String> {
        let user = |uuid: &str, parent: &str, content: &str, extra: &str| {
            format!(
                r#"{{"type":"user","uuid":"{uuid}","parentUuid":"{parent}","sessionId":"s"{extra},"message":{{"role":"user","content":{}}}}}"#,
                serde_json::Value::from(content)
            )
        };
        vec![
            user("u1", "", "fix the bug", ""),
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"fixed"}]}}"#.to_owned(),
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a1","sessionId":"s","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":9}}"#.to_owned(),
            user("u2", "b", "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nGoal: fix", r#","isCompactSummary":true"#),
            user("u3", "u2", "<local-command-caveat>Caveat: local commands.</local-command-caveat>", r#","isMeta":true"#),
            user("u4", "u3", &format!("<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args>{args}</command-args>"), ""),
            user("u5", "u4", "<local-command-stdout>Compacted</local-command-stdout>", ""),
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u5","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"<command-args>not this</command-args>"}]}}"#.to_owned(),
        ]
    }

    #[test]
    fn a_claude_code_compaction_has_the_instructions_typed_after_compact() {
        for (args, expected) in [("let's do a review", Some("let's do a review")), ("", None)] {
            let bytes = claude_compaction(args).join("\n");
            let transcript =
                Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
            let cuts = real_cuts(FormatId::ClaudeCode, &transcript.records, None);
            assert_eq!(cuts.len(), 1);
            assert!(cuts[0]
                .native
                .as_deref()
                .is_some_and(|s| s.contains("Goal: fix")));
            assert_eq!(cuts[0].instructions.as_deref(), expected, "{args:?}");
        }
    }
}
