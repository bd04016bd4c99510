//! One line of a transcript read into the model: a message or bookkeeping, its exact bytes, the
//! provider's usage figure, and its link into the session.

use std::borrow::Cow;

use super::link::{Link, NodeId};
use super::message::Message;
use super::part::Part;
use super::Text;

/// What a record is.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry<'a> {
    /// A message the model saw.
    Message(Message<'a>),
    /// A record carried through untouched: its format-specific kind (`_checkpoint`,
    /// `file-history-snapshot`, `event_msg`, …), for reports.
    Bookkeeping(Cow<'a, str>),
}

/// A context size the provider itself reported at this point of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Tokens in the context window after this call (prompt plus output).
    pub context_tokens: u64,
    /// Records with the same key repeat one provider response (Claude Code writes one API
    /// response as several lines, each carrying the same usage); `None` when every usage record
    /// stands alone. A hash, like a [`NodeId`]: keys are only ever compared, and `estimate`
    /// keeps one per line.
    pub response_key: Option<NodeId>,
}

/// One non-blank line of a transcript, read into the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Record<'a> {
    /// 1-based line number in its input.
    pub line: usize,
    /// The line's exact bytes, without its line terminator.
    pub raw: &'a [u8],
    /// What the line is.
    pub entry: Entry<'a>,
    /// The provider's own context size recorded on this line, if any.
    pub usage: Option<Usage>,
    /// True when this line is the agent's own compaction marker (Claude Code
    /// `compact_boundary`, Codex `compacted`, pi `compaction`): what came before it is no longer
    /// in the agent's context.
    pub compaction: bool,
    /// Where the line sits in the session's tree and what it does to the live context.
    pub link: Link,
}

impl<'a> Record<'a> {
    /// A record holding this entry, with no usage and no compaction mark.
    pub fn new(line: usize, raw: &'a [u8], entry: Entry<'a>) -> Self {
        Record {
            line,
            raw,
            entry,
            usage: None,
            compaction: false,
            link: Link::default(),
        }
    }

    /// The message, if this record is one.
    pub fn message(&self) -> Option<&Message<'a>> {
        match &self.entry {
            Entry::Message(message) => Some(message),
            Entry::Bookkeeping(_) => None,
        }
    }

    /// This record to read in one pass and let go: a copy when one of its texts is still
    /// JSON-escaped (see [`Text`]), else itself. A text that is read decodes once and keeps
    /// what it decoded for as long as it lives; in a copy, that goes with the copy. A pass over
    /// every text of a session that read them in place (the extract behind caveman and bare
    /// does) left the whole session decoded beside the file it was read from: some 95 MB
    /// more on a 100 MiB kimi-cli context, the size of the file again (issue 33). A copy
    /// costs a list of parts; the escaped texts are borrowed, not copied.
    pub fn to_read_once(&self) -> Cow<'_, Record<'a>> {
        let escaped = self.message().is_some_and(|message| {
            message.parts.iter().any(|part| match part {
                Part::Text(text) | Part::Thinking(text) | Part::ToolResult { text, .. } => {
                    text.escaped_body().is_some()
                }
                Part::ToolCall { arguments, .. } => arguments.escaped_body().is_some(),
                Part::Media(_) | Part::Other(_) => false,
            })
        });
        if escaped {
            Cow::Owned(self.clone())
        } else {
            Cow::Borrowed(self)
        }
    }
}

impl Record<'_> {
    /// This record with nothing borrowed from the text it was read from, standing for the line
    /// `raw` (a line read from a copy of itself, see
    /// [`transcript::read`](crate::transcript::read)).
    pub fn owned_as<'b>(self, raw: &'b [u8]) -> Record<'b> {
        let owned = |text: Cow<'_, str>| -> Cow<'b, str> { Cow::Owned(text.into_owned()) };
        let text = |text: Text<'_>| -> Text<'b> { Text::from(text.into_owned()) };
        let entry = match self.entry {
            Entry::Bookkeeping(kind) => Entry::Bookkeeping(owned(kind)),
            Entry::Message(message) => Entry::Message(Message {
                role: message.role,
                sidechain: message.sidechain,
                call_id: message.call_id.map(owned),
                parts: message
                    .parts
                    .into_iter()
                    .map(|part| match part {
                        Part::Text(t) => Part::Text(text(t)),
                        Part::Thinking(t) => Part::Thinking(text(t)),
                        Part::ToolCall {
                            id,
                            name,
                            arguments,
                        } => Part::ToolCall {
                            id: id.map(owned),
                            name: owned(name),
                            arguments: text(arguments),
                        },
                        Part::ToolResult { call_id, text: t } => Part::ToolResult {
                            call_id: call_id.map(owned),
                            text: text(t),
                        },
                        Part::Media(kind) => Part::Media(kind),
                        Part::Other(kind) => Part::Other(owned(kind)),
                    })
                    .collect(),
            }),
        };
        Record {
            line: self.line,
            raw,
            entry,
            usage: self.usage,
            compaction: self.compaction,
            link: self.link,
        }
    }
}
