//! Reading one agent's dialect: the [`Format`] trait every agent folder implements first.
//!
//! A format knows how to recognise its lines among the first lines of an input, how to read
//! one line into [`Record`]s of the common [`super::model`], which records make up one message
//! of a request, and a few facts its lines record (the model, the working directory, the file
//! an edit changed) or its records are (compaction markers, a tree of ids). The other jobs an
//! agent folder does (its live-context rule, write-back, prune, handoff, session home, trigger)
//! have traits of their own beside the machinery they plug into; [`super::registry::Agent`]
//! gathers them.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::model::{Message, Record};
use super::sketch::Sketch;
use crate::tokens::{Estimator, Family, Tokenizer};

/// What a session of `agent` whose lines first name `model` is counted with under
/// `estimator`: the one named, the agent's own, or `fast` for the model's family (the agent's
/// own family where that is a `fast` estimate).
pub fn session_tokenizer(
    agent: &dyn Format,
    estimator: Estimator,
    model: Option<&str>,
) -> Tokenizer {
    match (estimator, agent.default_tokenizer(model)) {
        (Estimator::Given(tokenizer), _) => tokenizer,
        (Estimator::Session, own) | (Estimator::SessionFamily, own @ Tokenizer::Fast(_)) => own,
        (Estimator::SessionFamily, _) => {
            Tokenizer::Fast(model.map_or(Family::Openai, Family::of_model))
        }
    }
}

/// One agent's transcript dialect.
pub trait Format: Sync {
    /// The agent's name for people: in messages, and in the opening of a summary handed to
    /// another agent.
    fn name(&self) -> &'static str;

    /// Whether these first lines (sketched, blank lines left out) look like this format.
    fn detect(&self, head: &[Sketch]) -> bool;

    /// Whether this one line carries an envelope only this agent writes (its top-level fields
    /// alone tell whose it is). Detection refuses input whose first lines carry two agents'
    /// envelopes; bare message lines, which fit more than one format, carry none.
    fn envelope(&self, line: &Sketch) -> bool {
        let _ = line;
        false
    }

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
    /// of the message before it (see [`super::messages`]): a fragment of the same response, or
    /// the result of one of its tool calls. The rule most formats share: a tool result
    /// continues the message that made the call; everything else opens a message of its own,
    /// since each record already is one message of the request (OpenAI and kimi-cli, Anthropic
    /// lists, pi entries, Gemini turns).
    fn continues_message(&self, unit: &[&Record], record: &Record) -> bool {
        let _ = unit;
        record.message().is_some_and(Message::answers_a_call)
    }

    /// The model a line says the session runs on, for formats that record it (`--max-context
    /// auto` looks up its window).
    fn model(&self, _raw: &[u8]) -> Option<String> {
        None
    }

    /// The estimator condense counts this agent's sessions with when none is asked for, given
    /// the model the session records (the first one [`model`](Self::model) finds, if any): the
    /// `fast` estimate weighted for that model's tokenizer family, OpenAI's when the session
    /// names no model. An agent with a counting rule of its own (kimi-cli's characters ÷ 4)
    /// or a model family it always uses overrides this.
    fn default_tokenizer(&self, model: Option<&str>) -> Tokenizer {
        Tokenizer::Fast(model.map_or(Family::Openai, Family::of_model))
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

    /// The kind of record the agent writes when it compacts (Claude Code's `compact_boundary`,
    /// Codex's `compacted`, pi's `compaction`), read as [`Record::compaction`]; `None` for an
    /// agent whose compaction leaves no marker, only a summary message in a rewritten file.
    fn compaction_marker(&self) -> Option<&'static str> {
        None
    }

    /// For a compaction marker whose summary the agent cannot read back (Codex's remote
    /// compaction keeps only an encrypted item the server reads): what it is, with its sizes,
    /// for `history` to show in place of a summary line. `None` for a readable summary, and
    /// for every line that is no such marker. A context that starts from such a marker is read,
    /// for summarising, with the records it stands for (see [`super::load`]).
    fn opaque_summary(&self, raw: &[u8]) -> Option<String> {
        let _ = raw;
        None
    }

    /// How the agent links its records into a tree it walks back from a leaf to resume;
    /// `None` for a list.
    fn tree(&self) -> Option<Tree> {
        None
    }

    /// For an agent that stores (or once stored) a session as one JSON document rather than
    /// JSON lines: the JSON lines it writes today for the same session, which every command
    /// then reads (an error, located in the document, for a record it cannot read); `None`
    /// when `bytes` (`name` in messages) are not such a document. Asked only of input
    /// [`super::read::may_be_document`] lets through.
    fn document(&self, name: &str, bytes: &[u8]) -> Option<Result<Vec<u8>>> {
        let _ = (name, bytes);
        None
    }

    /// Where a session read from the document at `path` ([`Format::document`]) is written
    /// back: a file of the agent's JSON lines beside it, which the agent resumes instead; the
    /// document itself is never written. `None` for an agent with no documents.
    fn document_import(&self, path: &Path) -> Option<PathBuf> {
        let _ = path;
        None
    }

    /// The first content of the file [`Format::document_import`] names, made at `now_ms`
    /// (milliseconds since the epoch) from the document's JSON lines `lines`: as they are,
    /// unless the agent needs a mark to take it for the newer copy of the session.
    fn import_lines(&self, lines: &[u8], now_ms: u64) -> Vec<u8> {
        let _ = now_ms;
        lines.to_vec()
    }

    /// Whether the agent's own compaction keeps user messages from before its marker in the
    /// live context, beside the summary (Copilot CLI lists its first and last ones): a
    /// summarised user message found there is the agent's rule at work, not a write's
    /// left-over.
    fn lists_users_beside_summary(&self) -> bool {
        false
    }

    /// Whether the records carry ids the agent indexes (every tree's, Gemini CLI's message
    /// ids): two lines with one id are then a defect.
    fn has_ids(&self) -> bool {
        self.tree().is_some()
    }
}

/// How an agent's records link into a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    /// The field naming a record's parent.
    pub parent: &'static str,
    /// The field holding a record's own id.
    pub id: &'static str,
    /// True when the agent resumes from a main-chain message only: its leaf is one, and a
    /// line of another kind (bookkeeping, a sub-agent's) never starts the walk back.
    pub messages_only: bool,
}
