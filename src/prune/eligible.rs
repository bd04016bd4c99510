//! Which candidates the rules let be pruned: not recent, not protected, not in the last user
//! turns, large enough, not already a placeholder; thinking outside the last turns kept.

use super::candidate::{Candidate, Target};
use super::context::Context;
use super::options::Options;

/// Which candidates the rules let be pruned.
pub(super) struct Eligible<'o> {
    options: &'o Options,
    /// For each tool use, whether it is kept whole (any of its values recent or protected).
    kept_use: Vec<bool>,
    /// How many thinking turns there are.
    thinking_turns: usize,
    /// How many of the newest thinking turns keep their thinking, if thinking is pruned.
    keep_thinking: Option<usize>,
}

impl<'o> Eligible<'o> {
    pub(super) fn new(candidates: &[Candidate], context: &Context, options: &'o Options) -> Self {
        // The user turns whose tool outputs stay verbatim start here.
        let recent_turns = match options.keep_turns {
            0 => usize::MAX,
            n => context
                .turns
                .len()
                .checked_sub(n)
                .map_or(0, |first| context.turns[first]),
        };
        let units_of = |target: Target| {
            candidates
                .iter()
                .filter(|c| match target {
                    Target::Thinking => c.target == Target::Thinking,
                    _ => c.target != Target::Thinking,
                })
                .map(|c| c.unit)
                .max()
                .map_or(0, |max| max + 1)
        };
        let tool_uses = units_of(Target::Result);
        let mut kept_use = vec![false; tool_uses];
        for candidate in candidates.iter().filter(|c| c.target != Target::Thinking) {
            let protected = candidate
                .tool
                .as_deref()
                .is_some_and(|tool| options.protect.iter().any(|p| p == tool));
            let recent = candidate.unit + options.keep >= tool_uses;
            if protected || recent || candidate.position >= recent_turns {
                kept_use[candidate.unit] = true;
            }
        }
        Eligible {
            options,
            kept_use,
            thinking_turns: units_of(Target::Thinking),
            // The newest thinking turn always stays: Anthropic requires the thinking of an
            // assistant turn that continues a tool loop.
            keep_thinking: options.keep_thinking.map(|n| n.max(1)),
        }
    }

    pub(super) fn is(&self, candidate: &Candidate) -> bool {
        if candidate.pruned || !candidate.shrinks {
            return false;
        }
        let options = self.options;
        match candidate.target {
            Target::Thinking => self
                .keep_thinking
                .is_some_and(|keep| candidate.unit + keep < self.thinking_turns),
            Target::Result => {
                !self.kept_use[candidate.unit] && candidate.tokens >= options.min_tokens
            }
            Target::Arguments => {
                options.clear_inputs
                    && !self.kept_use[candidate.unit]
                    && candidate.tokens >= options.min_tokens
            }
        }
    }
}
