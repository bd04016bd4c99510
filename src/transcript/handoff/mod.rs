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
//! Which of those a target cannot do without is [`needs`]; the command layer finds them in the
//! source or in flags.

pub mod time;
pub mod turns;

pub use super::gemini::handoff::sha256_hex;

use anyhow::Result;

pub use turns::{Speaker, Turn};

use super::write::Sink;
use super::FormatId;

/// The opening of the summary message in every target, which condense's own reader knows as a
/// summary (see [`super::classify::SUMMARY_PREFIXES`]), so a later compaction of the new session
/// does not take it for a request.
pub const LEAD: &str = "This session continues work handed over from another agent";

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

/// The fields `target`'s lines cannot do without: Claude Code and Codex record the working
/// directory on the session, Gemini CLI its hash (a session without one does not load), pi the
/// directory in its header and the model on every assistant message.
pub fn needs(target: FormatId) -> &'static [Field] {
    match target {
        FormatId::ClaudeCode | FormatId::Codex | FormatId::Gemini => &[Field::Cwd],
        FormatId::Pi => &[Field::Cwd, Field::Model],
        FormatId::Openai | FormatId::Anthropic => &[],
    }
}

/// The agent a format belongs to, for the summary's opening and for messages.
pub fn agent_name(format: FormatId) -> &'static str {
    match format {
        FormatId::Openai => "kimi-cli (an OpenAI-style message list)",
        FormatId::Anthropic => "an Anthropic-style message list",
        FormatId::ClaudeCode => "Claude Code",
        FormatId::Codex => "Codex CLI",
        FormatId::Pi => "pi",
        FormatId::Gemini => "Gemini CLI",
    }
}

/// The summary message's text: [`LEAD`], where the work comes from, the summary, and any user
/// messages the plan keeps beside it.
pub fn summary_text(source: FormatId, summary: &str, kept_user_texts: &[String]) -> String {
    let mut text = format!(
        "{LEAD}: {}. The summary below covers the conversation so far; the messages after it \
         are the most recent ones, with the tools that ran and what they returned written out \
         as text.\n\n{}",
        agent_name(source),
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

/// Writes `session` as a new session of `target`.
pub fn write(target: FormatId, session: &Session, out: &mut Sink) -> Result<()> {
    match target {
        FormatId::ClaudeCode => super::claude_code::handoff::write(session, out),
        FormatId::Codex => super::codex::handoff::write(session, out),
        FormatId::Pi => super::pi::handoff::write(session, out),
        FormatId::Gemini => super::gemini::handoff::write(session, out),
        FormatId::Openai => super::kimi::handoff::write_kimi(session, out),
        FormatId::Anthropic => super::kimi::handoff::write_anthropic(session, out),
    }
}

/// The field `target` needs that `session` lacks, as an error naming it.
pub(crate) fn require(target: FormatId, field: Field, value: Option<&str>) -> Result<&str> {
    value.ok_or_else(|| {
        anyhow::anyhow!(
            "{} sessions record {}, which the source does not; give it",
            agent_name(target),
            field.describe()
        )
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! A small session every writer's tests share.

    use super::*;

    /// Summary, then an assistant turn with a tool written out, then the user's last question.
    pub fn turns() -> Vec<Turn> {
        conversation(
            summary_text(FormatId::ClaudeCode, "SUMMARY-TEXT", &[]),
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
        }
    }

    /// The lines `target` writes for [`session`], parsed.
    pub fn written(target: FormatId) -> Vec<serde_json::Value> {
        let turns = turns();
        let mut bytes = Vec::new();
        let mut sink = Sink::new(&mut bytes);
        write(target, &session(&turns), &mut sink).unwrap();
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
        write(target, &session(&turns), &mut sink).unwrap();
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
            .context
            .iter()
            .filter_map(|r| r.message())
            .collect();
        let first = crate::transcript::classify::text_of(messages[0]);
        assert!(first.starts_with(LEAD) && first.contains("SUMMARY-TEXT"));
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
        let text = summary_text(FormatId::Codex, " S ", &["first ask".to_owned()]);
        assert!(text.starts_with(LEAD) && text.contains(": Codex CLI. The summary"));
        assert!(text.contains("\n\nS\n\n## The user's messages"));
        assert!(text.ends_with("first ask\n"));
    }
}
