//! The common transcript model every agent format is read into.
//!
//! A transcript is a sequence of [`Record`]s, one per non-blank line. A record either is a
//! [`Message`] the model saw (a role and its [`Part`]s) or is bookkeeping (checkpoints, usage,
//! snapshots, progress, metadata …) that commands carry through untouched and never count as a
//! message. Every record keeps the exact bytes of its line, so a record no command changes can be
//! written back byte-identical.
//!
//! Strings borrow from the input line where JSON escaping allows it (`Cow`), which keeps reading
//! a large file allocation-light.

use std::borrow::Cow;

/// Who a message is from, normalised across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// System or developer instructions.
    System,
    /// The user, or the harness speaking as the user (tool results in Anthropic shape).
    User,
    /// The model.
    Assistant,
    /// A tool result message (OpenAI `tool`, pi `toolResult`).
    Tool,
}

impl Role {
    /// Every role, in the order reports list them.
    pub const ALL: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    /// The lowercase name used in output and in rendered prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// The role of an OpenAI / kimi-cli / Anthropic style `role` string, if it is a message role.
    pub fn from_chat(role: &str) -> Option<Role> {
        match role {
            "system" | "developer" => Some(Role::System),
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" | "function" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// The kind of a media part; media is never counted as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A picture (base64 or URL).
    Image,
    /// A sound clip.
    Audio,
    /// A video clip.
    Video,
    /// A document such as a PDF.
    Document,
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    /// Visible text.
    Text(Cow<'a, str>),
    /// Reasoning text (thinking blocks, reasoning summaries). Empty when the provider encrypted it.
    Thinking(Cow<'a, str>),
    /// A tool call: the tool's name and its arguments as JSON text.
    ToolCall {
        /// The tool's name.
        name: Cow<'a, str>,
        /// The arguments, as the JSON text the format stores (or an object serialised compactly).
        arguments: Cow<'a, str>,
    },
    /// The text a tool returned.
    ToolResult(Cow<'a, str>),
    /// An image, audio, video or document part.
    Media(MediaKind),
    /// A part type the model does not know; named for reports.
    Other(Cow<'a, str>),
}

/// The kinds of [`Part`], for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartKind {
    /// [`Part::Text`]
    Text,
    /// [`Part::Thinking`]
    Thinking,
    /// [`Part::ToolCall`]
    ToolCall,
    /// [`Part::ToolResult`]
    ToolResult,
    /// [`Part::Media`]
    Media,
    /// [`Part::Other`]
    Other,
}

impl PartKind {
    /// Every part kind, in the order reports list them.
    pub const ALL: [PartKind; 6] = [
        PartKind::Text,
        PartKind::Thinking,
        PartKind::ToolCall,
        PartKind::ToolResult,
        PartKind::Media,
        PartKind::Other,
    ];

    /// The snake_case name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Thinking => "thinking",
            PartKind::ToolCall => "tool_call",
            PartKind::ToolResult => "tool_result",
            PartKind::Media => "media",
            PartKind::Other => "other",
        }
    }
}

impl Part<'_> {
    /// Which kind of part this is.
    pub fn kind(&self) -> PartKind {
        match self {
            Part::Text(_) => PartKind::Text,
            Part::Thinking(_) => PartKind::Thinking,
            Part::ToolCall { .. } => PartKind::ToolCall,
            Part::ToolResult(_) => PartKind::ToolResult,
            Part::Media(_) => PartKind::Media,
            Part::Other(_) => PartKind::Other,
        }
    }
}

/// A message the model saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Who it is from.
    pub role: Role,
    /// Its content, in order.
    pub parts: Vec<Part<'a>>,
    /// True for a sub-agent's message stored in the parent's file (Claude Code `isSidechain`).
    /// Sidechain messages never reach the main agent's context.
    pub sidechain: bool,
}

impl<'a> Message<'a> {
    /// A main-chain message with these parts.
    pub fn new(role: Role, parts: Vec<Part<'a>>) -> Self {
        Message {
            role,
            parts,
            sidechain: false,
        }
    }
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// Tokens in the context window after this call (prompt plus output).
    pub context_tokens: u64,
    /// Records with the same key repeat one provider response (Claude Code writes one API
    /// response as several lines, each carrying the same usage); `None` when every usage record
    /// stands alone.
    pub response_key: Option<String>,
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
        }
    }

    /// The message, if this record is one.
    pub fn message(&self) -> Option<&Message<'a>> {
        match &self.entry {
            Entry::Message(message) => Some(message),
            Entry::Bookkeeping(_) => None,
        }
    }
}
