//! A message the model saw, and the ids by which its tool calls and results pair up.

use std::borrow::Cow;

use super::part::Part;
use super::role::Role;

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
    /// For a tool-role message, the [`Part::ToolCall::id`] of the call it answers, in formats
    /// that key the whole message: OpenAI / kimi-cli `tool_call_id`, pi `toolCallId`. Formats
    /// that key each result (Anthropic, Claude Code, Codex, Gemini) leave this `None` and set
    /// [`Part::ToolResult::call_id`] instead, so an id is never stored twice.
    pub call_id: Option<Cow<'a, str>>,
}

impl<'a> Message<'a> {
    /// A main-chain message with these parts, answering no call.
    pub fn new(role: Role, parts: Vec<Part<'a>>) -> Self {
        Message {
            role,
            parts,
            sidechain: false,
            call_id: None,
        }
    }

    /// This message, answering the call with this id (its [`Message::call_id`]).
    pub fn answering(mut self, call_id: Option<Cow<'a, str>>) -> Self {
        self.call_id = call_id;
        self
    }

    /// The ids of the tool calls this message makes, in order; calls without an id are
    /// left out.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> + use<'_, 'a> {
        self.parts.iter().filter_map(|part| match part {
            Part::ToolCall { id, .. } => id.as_deref(),
            _ => None,
        })
    }

    /// The ids of the tool calls this message answers: its own [`Message::call_id`], then the
    /// [`Part::ToolResult::call_id`] of each of its tool results, in order; results without an
    /// id are left out.
    pub fn answered_ids(&self) -> impl Iterator<Item = &str> + use<'_, 'a> {
        let results = self.parts.iter().filter_map(|part| match part {
            Part::ToolResult { call_id, .. } => call_id.as_deref(),
            _ => None,
        });
        self.call_id.as_deref().into_iter().chain(results)
    }

    /// True when this message answers a tool call: a tool-role message (OpenAI `tool`, pi
    /// `toolResult`, Codex call outputs), or one holding results that name the call they
    /// answer (Anthropic `tool_result` blocks, Gemini `functionResponse` parts). Such a message
    /// belongs with the call. A result naming no call (pi's `bashExecution`, a command the user
    /// ran) is the user's own message, and so is a turn holding its own calls' results (a
    /// Gemini model turn's `toolCalls[].result`).
    pub fn answers_a_call(&self) -> bool {
        self.role == Role::Tool
            || self
                .answered_ids()
                .any(|id| !self.call_ids().any(|call| call == id))
    }
}
