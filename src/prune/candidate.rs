//! A value prune could replace (a tool result, a call's arguments, a thinking block), as the
//! command measured it.

/// What a candidate value is (named in lowercase in `prune --report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// A tool result's body.
    Result,
    /// A tool call's arguments (pruned only with
    /// [`Options::clear_inputs`](super::Options::clear_inputs)).
    Arguments,
    /// A thinking block (pruned only with
    /// [`Options::keep_thinking`](super::Options::keep_thinking)).
    Thinking,
}

/// One value prune could replace, measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What it is.
    pub target: Target,
    /// Its position in the live context.
    pub position: usize,
    /// Its unit: the tool use it belongs to (results and arguments), or its thinking turn.
    /// Units of one target kind are numbered in context order.
    pub unit: usize,
    /// The tool's name, when known.
    pub tool: Option<String>,
    /// Its size in tokens now.
    pub tokens: u64,
    /// Estimator units the context loses when it is replaced (zero where the estimator does
    /// not count such values: chars4 counts neither arguments nor thinking).
    pub saved_units: u64,
    /// Whether replacing it makes it shorter (a placeholder can be longer than a short result).
    pub shrinks: bool,
    /// True when it is already a placeholder (a pruned session pruned again).
    pub pruned: bool,
}
