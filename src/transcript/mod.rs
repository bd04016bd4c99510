//! Agent transcript formats behind one trait, and format detection.
//!
//! Each agent writes its own JSONL dialect; [`model`] is the common shape they are read into.
//! A format module knows three things about its dialect: how to recognise it from the first
//! lines, how to read one line into a [`Record`], and (for the compaction commands) how to write
//! a compacted transcript back. Detection follows the order in which formats can be confused
//! with one another: the envelope formats (Codex, Claude Code, pi, Gemini) have fingerprints of
//! their own; bare chat-message lines are OpenAI style unless they use Anthropic content blocks.

pub mod anthropic;
pub mod blocks;
pub mod classify;
pub mod claude_code;
pub mod codex;
pub mod gemini;
pub mod handoff;
pub mod kimi;
pub mod live;
pub mod load;
pub mod messages;
pub mod model;
pub mod pi;
pub mod prune;
pub mod read;
pub mod scan;
pub mod text;
pub mod write;

pub use model::{
    node_id, Entry, Event, Keep, Link, MediaKind, Message, NodeId, Parent, Part, PartKind, Record,
    Role, Usage,
};

use anyhow::Result;
use serde_json::Value;

/// How many non-blank lines detection looks at.
pub const DETECT_LINES: usize = 50;

/// The transcript formats condense reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum FormatId {
    /// Chat messages one per line (OpenAI style; also kimi-cli `context.jsonl`).
    Openai,
    /// Anthropic Messages API messages one per line (content blocks).
    Anthropic,
    /// Claude Code session logs (`~/.claude/projects/…/*.jsonl`).
    ClaudeCode,
    /// Codex CLI rollout files (current envelope and the legacy bare layout).
    Codex,
    /// pi coding-agent sessions.
    Pi,
    /// Gemini CLI sessions in the JSONL layout.
    Gemini,
}

impl FormatId {
    /// Every format, in detection order.
    pub const DETECTION_ORDER: [FormatId; 6] = [
        FormatId::Codex,
        FormatId::ClaudeCode,
        FormatId::Pi,
        FormatId::Gemini,
        FormatId::Anthropic,
        FormatId::Openai,
    ];

    /// The name used in output and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            FormatId::Openai => "openai",
            FormatId::Anthropic => "anthropic",
            FormatId::ClaudeCode => "claude-code",
            FormatId::Codex => "codex",
            FormatId::Pi => "pi",
            FormatId::Gemini => "gemini",
        }
    }

    /// The implementation of this format.
    pub fn format(self) -> &'static dyn Format {
        match self {
            FormatId::Openai => &kimi::Openai,
            FormatId::Anthropic => &anthropic::Anthropic,
            FormatId::ClaudeCode => &claude_code::ClaudeCode,
            FormatId::Codex => &codex::Codex,
            FormatId::Pi => &pi::Pi,
            FormatId::Gemini => &gemini::Gemini,
        }
    }
}

/// One agent's transcript dialect.
pub trait Format: Sync {
    /// Whether these first lines (parsed, blank lines left out) look like this format.
    fn detect(&self, head: &[Value]) -> bool;

    /// Reads one line (`line` is its 1-based number, `text` its bytes without terminator) into
    /// the model. The error says what is wrong without the location, which the caller adds, and
    /// without quoting the line (it may hold terminal escape codes).
    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>>;

    /// Reads one line into every record it holds, handing each to `each` in order: one for
    /// most lines, more where a line carries a list of messages (Gemini's `$set` checkpoint),
    /// whose records then hold the bytes of their own object within the line. A line with an
    /// error hands out none of its records. Records go to `each` rather than into a list
    /// because `estimate` measures a record and drops it, and a list would cost an allocation
    /// a line.
    fn read_each<'a>(
        &self,
        line: usize,
        text: &'a str,
        each: &mut dyn FnMut(Record<'a>),
    ) -> Result<()> {
        each(self.read(line, text)?);
        Ok(())
    }

    /// Whether `record` is part of the same message as `unit`, the main-chain message records
    /// of the message before it (see [`messages`]): a fragment of the same response, or the
    /// result of one of its tool calls. The rule most formats share: a tool result continues
    /// the message that made the call; everything else opens a message of its own, since each
    /// record already is one message of the request (OpenAI and kimi-cli, Anthropic lists, pi
    /// entries, Gemini turns).
    fn continues_message(&self, unit: &[&Record], record: &Record) -> bool {
        let _ = unit;
        record.message().is_some_and(messages::answers_a_call)
    }

    /// The model a line says the session runs on, for formats that record it (`--max-context
    /// auto` looks up its window).
    fn model(&self, _raw: &[u8]) -> Option<String> {
        None
    }

    /// The working directory a line says the session runs in, for formats that record it (a
    /// handoff to another agent carries it over).
    fn cwd(&self, _raw: &[u8]) -> Option<String> {
        None
    }

    /// The whole text of a file as it was before the edit whose result this line holds, for
    /// formats whose edit results record one.
    fn file_before_edit(&self, _raw: &[u8]) -> Option<String> {
        None
    }

    /// Writes the compacted transcript: what the plan keeps, byte for byte, and the summary in
    /// the place and shape this agent uses for its own compactions, so the agent can resume.
    fn write_compacted(&self, compacted: &write::Compacted, out: &mut write::Sink) -> Result<()>;
}

/// The first format, in detection order, whose fingerprint matches these lines; `None` when no
/// line is a JSON object a format recognises.
pub fn detect(head: &[Value]) -> Option<FormatId> {
    FormatId::DETECTION_ORDER
        .into_iter()
        .find(|id| id.format().detect(head))
}

/// The whole text of the file the edit answered by this record changed, as it was before the
/// edit, when the record's format keeps one: Claude Code's `toolUseResult.originalFile`. (pi's
/// `details.diff` holds a few lines of context around the change, not the file.) The record
/// does not say its format, and only a line of the format that keeps the field has it, so each
/// format is asked in turn; the line is read only here, for the few results that need it.
pub fn file_before_edit(record: &Record) -> Option<String> {
    FormatId::DETECTION_ORDER
        .into_iter()
        .find_map(|id| id.format().file_before_edit(record.raw))
}

/// The string at `path` (keys, outermost first) of a JSON object line, found without parsing
/// the rest of the line.
pub(crate) fn str_at(raw: &[u8], path: &[&str]) -> Option<String> {
    let (last, outer) = path.split_last()?;
    let mut span = 0..raw.len();
    for key in outer {
        let inner = write::top_level_value(&raw[span.clone()], key)?;
        span = span.start + inner.start..span.start + inner.end;
    }
    write::top_level_str(&raw[span], last)
}

/// The string at `key` of a JSON object, if it is one.
pub(crate) fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::testing::{corpus, corpus_head};

    /// Every real transcript is recognised by its own format's detector and by no other, so
    /// detection does not depend on the order formats are tried in.
    #[test]
    fn each_corpus_file_matches_exactly_its_own_format() {
        let files = [
            (
                "claude-code/claude-code-viewer-5c0375b4.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/claude-code-viewer-fe5e1c67.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/kimi-cli-5b2c427a42e0.jsonl",
                FormatId::ClaudeCode,
            ),
            ("codex/agent-sessions-small.jsonl", FormatId::Codex),
            (
                "gemini-cli/agent-sessions-jsonl_v040.jsonl",
                FormatId::Gemini,
            ),
            (
                "openai-chat/kimi-cli-swebench-531d195b.jsonl",
                FormatId::Openai,
            ),
            (
                "openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
                FormatId::Openai,
            ),
            ("pi/pi-mono-large-session.jsonl", FormatId::Pi),
        ];
        for (path, own) in files {
            let head = corpus_head(&corpus(path));
            for id in FormatId::DETECTION_ORDER {
                assert_eq!(
                    id.format().detect(&head),
                    id == own,
                    "{path}: {}",
                    id.as_str()
                );
            }
        }
    }
}
