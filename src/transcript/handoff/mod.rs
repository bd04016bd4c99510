//! New sessions for another agent: a handoff. Where [`super::write`] compacts a session in its
//! own format, these writers start a fresh session of a *target* agent that opens with the
//! summary and carries the kept tail of the source's live context as plain turns (see
//! [`turns`]), so the target can resume work another agent began.
//!
//! Every target gets the same conversation, built by [`conversation`]: the summary as the first
//! user message, then the tail's turns, user and assistant strictly alternating (an
//! acknowledgement follows the summary when the tail opens with the user). Each writer only
//! puts that conversation into its agent's lines: fresh ids derived from the input (the same
//! input gives the same session), timestamps counting up one millisecond a line from
//! [`Session::start_ms`], and the working directory and model where its agent records them.
//! Which of those a target cannot do without is [`Handoff::needs`]; the command layer finds
//! them in the source or in flags. Each agent folder's `handoff.rs` implements [`Handoff`].

pub mod time;
pub mod turns;

use anyhow::Result;

pub use turns::{Speaker, Turn};

use super::classify::HANDOFF_LEAD;
use super::format::Format;
use super::write::Sink;

/// One agent's way of starting a new session handed over from another agent.
pub trait Handoff {
    /// The fields a new session of this agent cannot do without.
    fn needs(&self) -> &'static [Field] {
        &[]
    }

    /// Writes `session` as a new session of this agent.
    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()>;
}

/// The assistant turn that follows the summary when the tail opens with a user turn (or is
/// empty), so that user and assistant still alternate.
pub const ACKNOWLEDGEMENT: &str = "Understood. I have the summary and will continue from here.";

/// What a handoff writer needs: the new session's facts and its conversation.
#[derive(Debug)]
pub struct Session<'s> {
    /// The new session's id (a UUID derived from the input).
    pub id: &'s str,
    /// A seed for the ids of the session's lines.
    pub seed: &'s str,
    /// The conversation, from [`conversation`]: it opens with the summary, a user turn.
    pub turns: &'s [Turn],
    /// The working directory the session belongs to, when known.
    pub cwd: Option<&'s str>,
    /// The model the source ran on (or `--model`), when known.
    pub model: Option<&'s str>,
    /// The time of the first line, in milliseconds since the epoch.
    pub start_ms: u64,
    /// A text's size in tokens by condense's estimate for Claude models, for a target that
    /// records the context's size on its lines (Claude Code's `usage`).
    pub claude_tokens: fn(&str) -> u64,
}

impl Session<'_> {
    /// The timestamp of the `n`th line (0-based).
    pub fn timestamp(&self, n: usize) -> String {
        time::format_ms(self.start_ms + n as u64)
    }

    /// The time of the `n`th line in milliseconds (pi stores both forms).
    pub fn millis(&self, n: usize) -> u64 {
        self.start_ms + n as u64
    }

    /// A UUID for line `n` of this session.
    pub fn line_id(&self, n: usize) -> String {
        super::write::derived_uuid(self.seed, &format!("line-{n}"))
    }
}

/// A field a target's lines must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The working directory.
    Cwd,
    /// The model.
    Model,
}

impl Field {
    /// How the field is named to the user, with the flag that gives it.
    pub fn describe(self) -> &'static str {
        match self {
            Field::Cwd => "the working directory (--cwd)",
            Field::Model => "the model (--model)",
        }
    }
}

/// The summary message's text: [`HANDOFF_LEAD`], the agent the work comes from, the summary,
/// and any user messages the plan keeps beside it.
pub fn summary_text(source: &dyn Format, summary: &str, kept_user_texts: &[String]) -> String {
    let mut text = format!(
        "{HANDOFF_LEAD}: {}. The summary below covers the conversation so far; the messages \
         after it are the most recent ones, with the tools that ran and what they returned \
         written out as text.\n\n{}",
        source.name(),
        summary.trim()
    );
    if !kept_user_texts.is_empty() {
        text.push_str("\n\n## The user's messages, as they wrote them\n");
        for kept in kept_user_texts {
            text.push('\n');
            text.push_str(kept.trim());
            text.push('\n');
        }
    }
    text
}

/// The conversation of a new session: `summary` as the first user turn, then `tail`, joined so
/// that user and assistant alternate.
pub fn conversation(summary: String, tail: Vec<Turn>) -> Vec<Turn> {
    let mut out = vec![Turn {
        speaker: Speaker::User,
        text: summary,
    }];
    // A tail that opens with the user, or no tail at all: the summary is no request, so the
    // assistant takes it in before the next user turn (the target's own prompt, if nothing).
    if tail.first().is_none_or(|t| t.speaker == Speaker::User) {
        out.push(Turn {
            speaker: Speaker::Assistant,
            text: ACKNOWLEDGEMENT.to_owned(),
        });
    }
    // `turns` already joins one speaker's consecutive text, so the rest alternates.
    out.extend(tail);
    out
}

/// The field `target` needs that `session` lacks, as an error naming it.
pub fn require<'v>(target: &dyn Format, field: Field, value: Option<&'v str>) -> Result<&'v str> {
    value.ok_or_else(|| {
        anyhow::anyhow!(
            "{} sessions record {}, which the source does not; give it",
            target.name(),
            field.describe()
        )
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! A small session every writer's tests share.

    use super::*;
    use crate::tokens::{Family, Tokenizer};
    use crate::transcript::FormatId;

    /// Summary, then an assistant turn with a tool written out, then the user's last question.
    pub fn turns() -> Vec<Turn> {
        conversation(
            summary_text(FormatId::ClaudeCode.format(), "SUMMARY-TEXT", &[]),
            vec![
                Turn {
                    speaker: Speaker::Assistant,
                    text: "[ran the tool `Bash` with {}]\n\n[`Bash` returned:]\nok".to_owned(),
                },
                Turn {
                    speaker: Speaker::User,
                    text: "LAST-QUESTION".to_owned(),
                },
            ],
        )
    }

    /// The session of [`turns`], with a working directory and a model.
    pub fn session(turns: &[Turn]) -> Session<'_> {
        Session {
            id: "11111111-2222-4333-8444-555555555555",
            seed: "seed",
            turns,
            cwd: Some("/home/user/project"),
            model: Some("claude-sonnet-4-5"),
            start_ms: time::parse_ms("2026-12-01T09:00:00.000Z").unwrap(),
            claude_tokens: |text| Tokenizer::Fast(Family::Claude).text_tokens(text),
        }
    }

    /// The lines `target` writes for [`session`], parsed.
    pub fn written(target: FormatId) -> Vec<serde_json::Value> {
        let turns = turns();
        let mut bytes = Vec::new();
        let mut sink = Sink::new(&mut bytes);
        target
            .format()
            .write_handoff(&session(&turns), &mut sink)
            .unwrap();
        sink.finish().unwrap();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// Reads the written session back with condense's own reader for `target`: every line
    /// reads, the live context opens with the summary and ends with the last question, and it
    /// holds no tool call or result.
    pub fn reads_back(target: FormatId) {
        let turns = turns();
        let mut bytes = Vec::new();
        let mut sink = Sink::new(&mut bytes);
        target
            .format()
            .write_handoff(&session(&turns), &mut sink)
            .unwrap();
        sink.finish().unwrap();
        let detected = crate::transcript::load::Transcript::parse(
            "new",
            &bytes,
            crate::transcript::load::LoadOptions::default(),
        )
        .unwrap()
        .format;
        // A list of text blocks alone is as valid an OpenAI list as an Anthropic one, and
        // detection says OpenAI; every other target has a fingerprint of its own.
        if target != FormatId::Anthropic {
            assert_eq!(detected, Some(target), "detected as its own format");
        }
        let options = crate::transcript::load::LoadOptions {
            from: Some(target),
            ..Default::default()
        };
        let transcript =
            crate::transcript::load::Transcript::parse("new", &bytes, options).unwrap();
        let messages: Vec<_> = transcript
            .context()
            .iter()
            .filter_map(|r| r.message())
            .collect();
        let first = crate::transcript::classify::text_of(messages[0]);
        assert!(first.starts_with(HANDOFF_LEAD) && first.contains("SUMMARY-TEXT"));
        assert!(crate::transcript::classify::is_compaction_summary(
            messages[0]
        ));
        let last = messages.last().unwrap();
        assert_eq!(crate::transcript::classify::text_of(last), "LAST-QUESTION");
        assert!(messages.iter().all(|m| m.parts.iter().all(|p| !matches!(
            p,
            crate::transcript::Part::ToolCall { .. } | crate::transcript::Part::ToolResult { .. }
        ))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::FormatId;

    #[test]
    fn the_conversation_opens_with_the_summary_and_alternates() {
        let user = |text: &str| Turn {
            speaker: Speaker::User,
            text: text.to_owned(),
        };
        let both = conversation("S".to_owned(), vec![user("q")]);
        assert_eq!(both[1].text, ACKNOWLEDGEMENT);
        assert_eq!(both[2], user("q"));
        let answer = Turn {
            speaker: Speaker::Assistant,
            text: "a".to_owned(),
        };
        let direct = conversation("S".to_owned(), vec![answer.clone()]);
        assert_eq!(direct, vec![user("S"), answer]);
        let alone = conversation("S".to_owned(), Vec::new());
        assert_eq!(alone.len(), 2);
        assert_eq!(alone[1].text, ACKNOWLEDGEMENT);
    }

    #[test]
    fn the_summary_text_names_the_source_and_keeps_user_messages() {
        let text = summary_text(FormatId::Codex.format(), " S ", &["first ask".to_owned()]);
        assert!(text.starts_with(HANDOFF_LEAD) && text.contains(": Codex CLI. The summary"));
        assert!(text.contains("\n\nS\n\n## The user's messages"));
        assert!(text.ends_with("first ask\n"));
    }
}
