//! An agent's own auto-compaction trigger and what its sessions record of earlier compactions:
//! the [`Trigger`] trait each agent folder's `trigger.rs` implements, and the [`Native`] rule,
//! [`Earlier`] compaction and model [`Window`] it fills in. `estimate --explain` sets the rule
//! beside the trigger condense's `--check` uses (see [`crate::trigger`]), and
//! `--max-context auto` looks up the windows (see [`crate::settings::models`]).
//!
//! Every rule is reduced to one number, `compacts_at`: the smallest context size at which the
//! agent compacts. The agents compare differently (`>=` for most, `>` for pi, a float ratio for
//! Gemini CLI and kimi-cli), and the reduction keeps each comparison exact, so "one token below
//! the threshold" means the same thing for every agent.

/// One agent's compaction trigger, as its code computes it (pure).
pub trait Trigger {
    /// The agent's own trigger for a `window` (and the `model` the session names, where the
    /// rule depends on it); `None` for a format no agent writes.
    fn native(&self, window: u64, model: Option<&str>) -> Option<Native> {
        let _ = (window, model);
        None
    }

    /// The earlier compaction a marker line (numbered `line`) records, with the context size
    /// just before it, if this line is one that records it. Lines that do not hold the field's
    /// name are passed over without being parsed.
    fn recorded(&self, line: usize, text: &[u8]) -> Option<Earlier> {
        let _ = (line, text);
        None
    }

    /// For an agent whose compaction markers record no context size: what stands in for it,
    /// the last usage figure recorded before each marker, described as a report names it.
    fn size_before_marker(&self) -> Option<&'static str> {
        None
    }

    /// The context windows of models, where the agent's own code lists them (its sessions name
    /// the model, and `--max-context auto` looks its window up).
    fn windows(&self) -> &'static [Window] {
        &[]
    }
}

/// An agent's own trigger for one window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Native {
    /// The agent whose rule this is.
    pub agent: &'static str,
    /// The window the rule was applied to.
    pub window: u64,
    /// The smallest context size at which the agent compacts by itself.
    pub compacts_at: u64,
    /// The rule with its numbers filled in.
    pub rule: String,
    /// The file and function of the agent's code the rule is taken from.
    pub source: &'static str,
}

impl Native {
    /// True when a context of `tokens` makes the agent compact.
    pub fn due(&self, tokens: u64) -> bool {
        tokens >= self.compacts_at
    }

    /// Tokens the context can still grow before the agent compacts (0 when it would now).
    pub fn tokens_left(&self, tokens: u64) -> u64 {
        self.compacts_at.saturating_sub(tokens)
    }
}

/// The smallest whole number of tokens `t` with `t >= window * ratio`, computed the way the
/// agents do it (a float product).
pub fn at_least(window: u64, ratio: f64) -> u64 {
    (window as f64 * ratio).ceil() as u64
}

/// One earlier compaction of the session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Earlier {
    /// The line of the marker.
    pub line: usize,
    /// The context size just before it.
    pub tokens: u64,
    /// Where the figure comes from.
    pub field: &'static str,
}

/// A window: model names starting with `prefix` have `tokens` of context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The start of the model names it covers.
    pub prefix: &'static str,
    /// The context window, in tokens.
    pub tokens: u64,
    /// Where the number comes from.
    pub source: &'static str,
}

#[cfg(test)]
pub(crate) mod testing {
    //! The check every agent's rule is tested with.

    use super::Native;

    /// One token below, at, and one above the threshold, by the agent's own comparison.
    pub fn edge(native: &Native, agent_due: impl Fn(u64) -> bool) {
        let at = native.compacts_at;
        for tokens in [at - 1, at, at + 1] {
            assert_eq!(
                native.due(tokens),
                agent_due(tokens),
                "{native:?} at {tokens}"
            );
        }
        assert!(!native.due(at - 1) && native.due(at));
        assert_eq!(native.tokens_left(at - 1), 1);
        assert_eq!(native.tokens_left(at + 1), 0);
    }
}
