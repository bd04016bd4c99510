//! The knobs of `prune`, with Anthropic's defaults, and the tools never pruned by default.

/// The knobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The last this many user turns keep every tool output verbatim.
    pub keep_turns: usize,
    /// The most recent this many tool uses are kept (Anthropic's `keep`).
    pub keep: usize,
    /// Tools whose uses are never pruned (Anthropic's `exclude_tools`).
    pub protect: Vec<String>,
    /// Values smaller than this are kept: a placeholder would save next to nothing.
    pub min_tokens: u64,
    /// Prune oldest first only until the context is at most this many tokens.
    pub target: Option<u64>,
    /// Prune only when the context is larger than this (Anthropic's `trigger`).
    pub trigger: Option<u64>,
    /// Prune nothing unless at least this many tokens are freed (Anthropic's
    /// `clear_at_least`: a small saving is not worth invalidating the prompt cache).
    pub clear_at_least: u64,
    /// Also prune the long arguments of the tool uses pruned (Anthropic's `clear_tool_inputs`).
    pub clear_inputs: bool,
    /// Remove thinking except in the last this many thinking turns; `None` keeps all of it.
    pub keep_thinking: Option<usize>,
}

impl Default for Options {
    /// Anthropic's defaults where it has them (`keep` 3, `clear_at_least` 0, no trigger here:
    /// a prune runs when asked), the protected tools of [`PROTECTED`], results under 100 tokens
    /// kept, thinking untouched.
    fn default() -> Self {
        Options {
            keep_turns: 0,
            keep: 3,
            protect: PROTECTED.iter().map(|tool| (*tool).to_owned()).collect(),
            min_tokens: 100,
            target: None,
            trigger: None,
            clear_at_least: 0,
            clear_inputs: false,
            keep_thinking: None,
        }
    }
}

/// The tools never pruned by default: to-do and plan tools (the agent's own state of the task;
/// Claude Code's task tools too, whose `TaskCreate` results are where a task's id meets its
/// subject and whose `TaskList` results are the list), skills (instructions to follow) and
/// sub-agent reports (which cannot be fetched again).
pub const PROTECTED: [&str; 16] = [
    "TodoWrite",
    "TodoRead",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "update_plan",
    "todo_write",
    "write_todos",
    "SetTodoList",
    "todowrite",
    "todoread",
    "Skill",
    "skill",
    "Task",
    "Agent",
];
