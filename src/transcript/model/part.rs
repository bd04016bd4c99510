//! One piece of a message's content (text, thinking, a tool call or result, media), and the
//! kinds reports count parts by.

use std::borrow::Cow;

use super::Text;

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
    Text(Text<'a>),
    /// Reasoning text (thinking blocks, reasoning summaries). Empty when the provider encrypted it.
    Thinking(Text<'a>),
    /// A tool call: its id, the tool's name and its arguments as JSON text.
    ToolCall {
        /// The call's id as the format stores it, which its result refers to: OpenAI / kimi-cli
        /// `tool_calls[].id`, Anthropic / Claude Code `tool_use.id`, Codex `call_id` (for
        /// `local_shell_call`, `id` when it has no `call_id`, as Codex itself does), pi
        /// `toolCall.id`, Gemini `toolCalls[].id` (or `functionCall.id` in a part list).
        /// `None` when the call has none (e.g. OpenAI's legacy `function_call`, Codex
        /// `web_search_call`).
        id: Option<Cow<'a, str>>,
        /// The tool's name.
        name: Cow<'a, str>,
        /// The arguments, as the JSON text the format stores (or an object serialised compactly).
        arguments: Text<'a>,
    },
    /// What a tool returned: its text, and the id of the call it answers when the format stores
    /// that id on the result itself.
    ToolResult {
        /// The [`Part::ToolCall::id`] of the call this answers: Anthropic / Claude Code
        /// `tool_use_id`, Codex `call_id` of `function_call_output`, `custom_tool_call_output`
        /// and `tool_search_output`, Gemini `functionResponse.id` (for a result stored inside a
        /// model turn's `toolCalls[]`, that call's `id` when the response has none). `None` in
        /// formats that key the whole message instead (see
        /// [`Message::call_id`](super::Message::call_id)) and for results no call produced (pi
        /// `bashExecution`).
        call_id: Option<Cow<'a, str>>,
        /// The text the tool returned.
        text: Text<'a>,
    },
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
            Part::ToolResult { .. } => PartKind::ToolResult,
            Part::Media(_) => PartKind::Media,
            Part::Other(_) => PartKind::Other,
        }
    }
}
