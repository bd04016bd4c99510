//! The pure core of `condense prune`: which old tool outputs, tool-call arguments and thinking
//! blocks of the live context to replace, and the placeholder that says what was there.
//!
//! The knobs are those of Anthropic's server-side context editing, so that users who know it
//! find the same ones: `clear_tool_uses_20250919` (`trigger`, `keep` the most recent tool uses,
//! `clear_at_least`, `exclude_tools`, `clear_tool_inputs`) and `clear_thinking_20251015` (keep
//! the last N thinking turns); plus OpenCode's and Gemini CLI's protection of the newest user
//! turns, a minimum size below which a result is not worth a placeholder, and a target size.
//!
//! The unit of pruning is a *tool use* (a call and its result, paired by id) or a *thinking
//! turn* (one response's thinking). Units are taken oldest first; each is pruned whole (every
//! one of its values that is large enough), and with a target, taking stops as soon as the
//! context fits. Nothing here reads or writes anything: the command measures the values and
//! applies the choice.

use std::collections::HashMap;

use crate::tokens::Tokenizer;

/// What a candidate value is (named in lowercase in `prune --report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// A tool result's body.
    Result,
    /// A tool call's arguments (pruned only with [`Options::clear_inputs`]).
    Arguments,
    /// A thinking block (pruned only with [`Options::keep_thinking`]).
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

/// The tools never pruned by default: to-do and plan tools (the agent's own state of the task),
/// skills (instructions to follow) and sub-agent reports (which cannot be fetched again).
pub const PROTECTED: [&str; 12] = [
    "TodoWrite",
    "TodoRead",
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

/// Where the live context stands, for the rules that look at turns and sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The estimator.
    pub tokenizer: Tokenizer,
    /// Estimator units of every main-chain message of the live context.
    pub units: u64,
    /// Its size as the agent sees it (`estimate --context`): a provider's usage figure plus
    /// the estimate of what came after it, or, with `usage` false, the estimate of `units`.
    pub tokens: u64,
    /// Whether `tokens` starts from a provider's figure. The size after pruning is then that
    /// size less what is freed (the figure holds what the file does not: system prompt, tool
    /// definitions); otherwise it is the estimate of what is left.
    pub usage: bool,
    /// The positions of the user turns (real user requests), in order.
    pub turns: Vec<usize>,
}

impl Context {
    /// The size after freeing `saved` estimator units: never below the estimate of what is
    /// left, nor above the size before (a figure smaller than the file's own text, as a test
    /// double reports, is no floor).
    pub fn after(&self, saved: u64) -> u64 {
        let left = self.tokenizer.tokens(self.units.saturating_sub(saved));
        if self.usage {
            self.tokens
                .saturating_sub(self.tokenizer.tokens(saved))
                .max(left)
                .min(self.tokens)
        } else {
            left
        }
    }
}

/// Why nothing is pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nothing {
    /// The context is not larger than the trigger.
    BelowTrigger,
    /// The context already fits the target.
    FitsTarget,
    /// No value may be pruned by the rules (or every one already is).
    NoCandidate,
    /// Less than `clear_at_least` would be freed.
    TooLittle,
}

impl Nothing {
    /// The reason, for messages.
    pub fn reason(self) -> &'static str {
        match self {
            Nothing::BelowTrigger => "the context is not larger than --trigger",
            Nothing::FitsTarget => "the context already fits --target",
            Nothing::NoCandidate => "no tool output, argument or thinking block may be pruned",
            Nothing::TooLittle => "less than --clear-at-least tokens would be freed",
        }
    }
}

/// What to prune.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Indexes into the candidates, in order.
    pub chosen: Vec<usize>,
    /// Why nothing is, when `chosen` is empty.
    pub nothing: Option<Nothing>,
    /// The context's tokens before.
    pub tokens_before: u64,
    /// Its tokens after.
    pub tokens_after: u64,
}

/// Chooses what to prune.
pub fn choose(candidates: &[Candidate], context: &Context, options: &Options) -> Choice {
    let before = context.tokens;
    let nothing = |why| Choice {
        chosen: Vec::new(),
        nothing: Some(why),
        tokens_before: before,
        tokens_after: before,
    };
    if options.trigger.is_some_and(|trigger| before <= trigger) {
        return nothing(Nothing::BelowTrigger);
    }
    if options.target.is_some_and(|target| before <= target) {
        return nothing(Nothing::FitsTarget);
    }
    let eligible = Eligible::new(candidates, context, options);
    let order = oldest_first(candidates, |candidate| eligible.is(candidate));
    let (mut chosen, saved) = take_units(candidates, &order, context, options);
    if chosen.is_empty() {
        return nothing(Nothing::NoCandidate);
    }
    let after = context.after(saved);
    if before.saturating_sub(after) < options.clear_at_least {
        return nothing(Nothing::TooLittle);
    }
    chosen.sort_unstable();
    Choice {
        chosen,
        nothing: None,
        tokens_before: before,
        tokens_after: after,
    }
}

/// Which candidates the rules let be pruned.
struct Eligible<'o> {
    options: &'o Options,
    /// For each tool use, whether it is kept whole (any of its values recent or protected).
    kept_use: Vec<bool>,
    /// How many thinking turns there are.
    thinking_turns: usize,
    /// How many of the newest thinking turns keep their thinking, if thinking is pruned.
    keep_thinking: Option<usize>,
}

impl<'o> Eligible<'o> {
    fn new(candidates: &[Candidate], context: &Context, options: &'o Options) -> Self {
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

    fn is(&self, candidate: &Candidate) -> bool {
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

/// The candidates `eligible` lets be pruned, their units oldest first (by the first position
/// of a value in them).
fn oldest_first(candidates: &[Candidate], eligible: impl Fn(&Candidate) -> bool) -> Vec<usize> {
    let mut starts: HashMap<(bool, usize), usize> = HashMap::new();
    for candidate in candidates {
        let key = (candidate.target == Target::Thinking, candidate.unit);
        let start = starts.entry(key).or_insert(candidate.position);
        *start = (*start).min(candidate.position);
    }
    let mut order: Vec<usize> = (0..candidates.len())
        .filter(|&i| eligible(&candidates[i]))
        .collect();
    order.sort_by_key(|&i| {
        let candidate = &candidates[i];
        let key = (candidate.target == Target::Thinking, candidate.unit);
        (starts[&key], candidate.position, i)
    });
    order
}

/// Takes whole units in `order` until the context fits the target (all of them without
/// one): the candidates taken, and the estimator units they free.
fn take_units(
    candidates: &[Candidate],
    order: &[usize],
    context: &Context,
    options: &Options,
) -> (Vec<usize>, u64) {
    let mut chosen = Vec::new();
    let mut saved = 0u64;
    let mut index = 0;
    while index < order.len() {
        if options
            .target
            .is_some_and(|target| context.after(saved) <= target)
        {
            break;
        }
        // Take the whole unit.
        let first = &candidates[order[index]];
        let is_thinking = first.target == Target::Thinking;
        let unit = first.unit;
        while index < order.len() {
            let candidate = &candidates[order[index]];
            if (candidate.target == Target::Thinking) != is_thinking || candidate.unit != unit {
                break;
            }
            saved += candidate.saved_units;
            chosen.push(order[index]);
            index += 1;
        }
    }
    (chosen, saved)
}

/// How every placeholder begins, so a pruned value is recognised and never pruned again.
pub const PLACEHOLDER: &str = "[condense pruned";

/// Whether `text` is a placeholder prune wrote.
pub fn is_placeholder(text: &str) -> bool {
    text.trim_start().starts_with(PLACEHOLDER)
}

/// How many characters of a first or last line a placeholder quotes.
const QUOTED_CHARS: usize = 100;

/// The placeholder for a tool result: the tool, its size, its exit status when it states one,
/// and its first and last lines, e.g. `[condense pruned the output of Bash: 1234 tokens, 57
/// lines, exit status 1; first line: "…"; last line: "…"]`.
pub fn result_placeholder(tool: Option<&str>, tokens: u64, text: &str) -> String {
    let what = match tool {
        Some(tool) => format!("the output of {}", one_line(tool, 60)),
        None => "a tool output".to_owned(),
    };
    describe(&what, tokens, text)
}

/// The placeholder for a long string in a tool call's arguments.
pub fn argument_placeholder(tokens: u64, text: &str) -> String {
    describe("this argument", tokens, text)
}

fn describe(what: &str, tokens: u64, text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = format!(
        "{PLACEHOLDER} {what}: {tokens} tokens, {} lines",
        text.lines().count()
    );
    if let Some(status) = exit_status(text) {
        out.push_str(&format!(", exit status {status}"));
    }
    match lines.as_slice() {
        [] => {}
        [only] => out.push_str(&format!(
            "; only line: \"{}\"",
            one_line(only, QUOTED_CHARS)
        )),
        [first, .., last] => out.push_str(&format!(
            "; first line: \"{}\"; last line: \"{}\"",
            one_line(first, QUOTED_CHARS),
            one_line(last, QUOTED_CHARS)
        )),
    }
    out.push(']');
    out
}

/// `text` on one line of at most `limit` characters (an ellipsis marks a cut), with control
/// characters and quotes that would confuse the placeholder replaced.
fn one_line(text: &str, limit: usize) -> String {
    let clean: String = text
        .trim()
        .chars()
        .map(|c| {
            if c.is_control() {
                ' '
            } else if c == '"' {
                '\''
            } else {
                c
            }
        })
        .collect();
    if clean.chars().count() <= limit {
        return clean;
    }
    let mut cut: String = clean.chars().take(limit).collect();
    cut.push('…');
    cut
}

/// The exit status a tool output states, in the wordings agents use: `Exit code: 1`, `exit
/// code 1`, `exited with code 1`, `"exit_code": 1`, `Exit status 1`.
pub fn exit_status(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    for pattern in ["exit code", "exited with code", "exit_code", "exit status"] {
        // The last mention is the final status (a log may quote earlier ones).
        if let Some(at) = lower.rfind(pattern) {
            let rest = lower[at + pattern.len()..].trim_start_matches(['"', ':', '=', ' ', '\t']);
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(status) = digits.parse() {
                return Some(status);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            keep_turns: 0,
            keep: 0,
            protect: vec!["TodoWrite".to_owned()],
            min_tokens: 0,
            target: None,
            trigger: None,
            clear_at_least: 0,
            clear_inputs: false,
            keep_thinking: None,
        }
    }

    /// Tool uses 0..n, each a call at 2i and a result of `tokens[i]` at 2i+1.
    fn uses(tokens: &[u64]) -> Vec<Candidate> {
        tokens
            .iter()
            .enumerate()
            .flat_map(|(unit, &tokens)| {
                [
                    Candidate {
                        target: Target::Arguments,
                        position: 2 * unit,
                        unit,
                        tool: Some(if unit == 1 { "TodoWrite" } else { "Bash" }.to_owned()),
                        tokens: 50,
                        saved_units: 160,
                        shrinks: true,
                        pruned: false,
                    },
                    Candidate {
                        target: Target::Result,
                        position: 2 * unit + 1,
                        unit,
                        tool: None,
                        tokens,
                        saved_units: tokens * 4,
                        shrinks: true,
                        pruned: false,
                    },
                ]
            })
            .collect()
    }

    fn context(tokens: u64, turns: Vec<usize>) -> Context {
        Context {
            tokenizer: Tokenizer::Chars4,
            units: tokens * 4,
            tokens,
            usage: false,
            turns,
        }
    }

    #[test]
    fn after_a_usage_figure_what_is_freed_comes_off_the_figure() {
        let context = Context {
            usage: true,
            tokens: 30_000,
            ..context(10_000, vec![0])
        };
        assert_eq!(context.after(4000), 29_000);
        assert_eq!(
            Context {
                usage: false,
                ..context.clone()
            }
            .after(4000),
            9000
        );
        let small = Context {
            tokens: 500,
            ..context
        };
        assert_eq!(small.after(4000), 500, "never above what it was");
        let text = Context {
            tokens: 9500,
            ..small
        };
        assert_eq!(text.after(4000), 9000, "never below what is left");
    }

    fn results(choice: &Choice, candidates: &[Candidate]) -> Vec<usize> {
        choice
            .chosen
            .iter()
            .map(|&i| &candidates[i])
            .filter(|c| c.target == Target::Result)
            .map(|c| c.unit)
            .collect()
    }

    #[test]
    fn keeps_recent_protected_and_small_uses() {
        let candidates = uses(&[1000, 1000, 10, 1000, 1000]);
        let choice = choose(
            &candidates,
            &context(10_000, vec![0]),
            &Options {
                keep: 1,
                min_tokens: 100,
                ..options()
            },
        );
        // 1 is protected, 2 too small, 4 the most recent.
        assert_eq!(results(&choice, &candidates), [0, 3]);
        assert_eq!(choice.tokens_after, 10_000 - 2000);
        // Arguments only with clear_inputs.
        assert_eq!(choice.chosen.len(), 2);
        let inputs = choose(
            &candidates,
            &context(10_000, vec![0]),
            &Options {
                keep: 1,
                min_tokens: 40,
                clear_inputs: true,
                ..options()
            },
        );
        assert_eq!(inputs.chosen.len(), 5, "{inputs:?}");
    }

    #[test]
    fn the_last_user_turns_keep_their_outputs() {
        let candidates = uses(&[1000, 1000, 1000, 1000]);
        // Turns start at positions 0 and 5: use 2 (positions 4, 5) is in the last turn.
        let choice = choose(
            &candidates,
            &context(10_000, vec![0, 5]),
            &Options {
                keep_turns: 1,
                ..options()
            },
        );
        assert_eq!(results(&choice, &candidates), [0]);
    }

    #[test]
    fn a_target_stops_pruning_oldest_first() {
        let candidates = uses(&[1000, 500, 1000, 1000, 1000]);
        let choice = choose(
            &candidates,
            &context(5000, vec![0]),
            &Options {
                target: Some(3500),
                protect: Vec::new(),
                ..options()
            },
        );
        assert_eq!(results(&choice, &candidates), [0, 1]);
        assert_eq!(choice.tokens_after, 3500);
        let fits = choose(
            &candidates,
            &context(3000, vec![0]),
            &Options {
                target: Some(3500),
                ..options()
            },
        );
        assert_eq!(fits.nothing, Some(Nothing::FitsTarget));
    }

    #[test]
    fn trigger_clear_at_least_and_pruned_values() {
        let mut candidates = uses(&[1000, 1000, 1000]);
        let below = choose(
            &candidates,
            &context(5000, vec![0]),
            &Options {
                trigger: Some(5000),
                ..options()
            },
        );
        assert_eq!(below.nothing, Some(Nothing::BelowTrigger));
        let little = choose(
            &candidates,
            &context(5000, vec![0]),
            &Options {
                clear_at_least: 2001,
                ..options()
            },
        );
        assert_eq!(little.nothing, Some(Nothing::TooLittle));
        for candidate in &mut candidates {
            candidate.pruned = true;
        }
        let again = choose(&candidates, &context(5000, vec![0]), &options());
        assert_eq!(again.nothing, Some(Nothing::NoCandidate));
    }

    #[test]
    fn thinking_keeps_the_last_turns_and_always_the_newest() {
        let candidates: Vec<Candidate> = (0..4)
            .map(|unit| Candidate {
                target: Target::Thinking,
                position: unit,
                unit,
                tool: None,
                tokens: 100,
                saved_units: 400,
                shrinks: true,
                pruned: false,
            })
            .collect();
        let kept = |keep: Option<usize>| {
            let choice = choose(
                &candidates,
                &context(1000, vec![0]),
                &Options {
                    keep_thinking: keep,
                    ..options()
                },
            );
            choice.chosen
        };
        assert_eq!(kept(None), Vec::<usize>::new());
        assert_eq!(kept(Some(2)), [0, 1]);
        assert_eq!(kept(Some(0)), [0, 1, 2]);
    }

    #[test]
    fn placeholders_say_what_was_there() {
        let text = "Compiling\nerror[E0308]: mismatched types\n\nProcess exited with code 101\n";
        let placeholder = result_placeholder(Some("Bash"), 42, text);
        assert_eq!(
            placeholder,
            "[condense pruned the output of Bash: 42 tokens, 4 lines, exit status 101; first \
             line: \"Compiling\"; last line: \"Process exited with code 101\"]"
        );
        assert!(is_placeholder(&placeholder));
        assert!(!is_placeholder("Compiling"));
        assert_eq!(
            argument_placeholder(7, "one \"quoted\"\u{1b} line"),
            "[condense pruned this argument: 7 tokens, 1 lines; only line: \"one 'quoted'  line\"]"
        );
        let long = "x".repeat(300);
        assert!(result_placeholder(None, 1, &long).contains(&format!("{}…", "x".repeat(100))));
    }

    #[test]
    fn exit_statuses_in_the_wordings_agents_use() {
        for (text, status) in [
            ("Exit code: 1", Some(1)),
            ("exit code 2\n", Some(2)),
            ("{\"output\":\"\",\"metadata\":{\"exit_code\": 0}}", Some(0)),
            ("Command exited with code 127", Some(127)),
            ("no status here", None),
        ] {
            assert_eq!(exit_status(text), status, "{text}");
        }
    }
}
