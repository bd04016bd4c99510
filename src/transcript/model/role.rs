//! Who a message is from, normalised across formats.

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
