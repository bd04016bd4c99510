//! Which records a compaction keeps and which it summarises (pure, no I/O).
//!
//! `split`, `prompt` and `inject` all call [`plan`] with the same flags, so they can never
//! disagree about the cut. A plan divides the records into consecutive regions:
//!
//! ```text
//! lead      leading bookkeeping and system messages: kept, and (system ones) sent numbered
//! head      ACF mode only: the session's first request, kept verbatim
//! compact   summarised away
//! tail      kept verbatim after the summary
//! ```
//!
//! Modes: `tail` (kimi-cli: keep the last N user/assistant messages and everything after the
//! first of them; a message is one as the model received it, see
//! [`crate::transcript::messages`], and the user's newest request is kept too, see
//! [`Plan::request`]), `budgets` (ACF: a head and a tail within token budgets), `user` (kimi-code:
//! everything is summarised, and the oldest and newest real user messages within token budgets
//! are kept beside the summary, with an elision marker between them), and `upto` (an explicit
//! cut). No mode cuts between a tool call and its result.
//!
//! This file holds [`plan`], which starts every plan and hands it to its mode's module
//! (`tail`, `budgets`, `user`, `upto`); `regions` holds the plan itself, `tool_pairs` the rule
//! that keeps a call with its result, `fingerprint` what `inject --plan` checks the compacted
//! records by, `error` why a plan cannot be made.

use crate::tokens::Tokenizer;
use crate::transcript::messages::units;
use crate::transcript::{Format, Record, Role};

mod budgets;
mod error;
mod fingerprint;
mod regions;
mod tail;
mod tool_pairs;
mod upto;
mod user;

use budgets::plan_budgets;
use tail::plan_tail;
use upto::plan_upto;
use user::select_user_messages;

pub use error::PlanError;
pub use fingerprint::fingerprint;
pub use regions::{elision_marker, Kept, KeptUser, Mode, NoOp, Plan};

/// Divides `records` into regions. `format` says what one message is (`tail` mode counts
/// them); `tokenizer` measures the budgets of `budgets` mode; `user` mode always uses
/// kimi-code's estimator, as kimi-code does.
pub fn plan(
    records: &[Record],
    mode: Mode,
    tokenizer: Tokenizer,
    format: &dyn Format,
) -> Result<Plan, PlanError> {
    let n = records.len();
    let lead_end = records
        .iter()
        .position(|r| {
            r.message()
                .is_some_and(|m| m.role != Role::System && !m.sidechain)
        })
        .unwrap_or(n);
    let mut plan = Plan {
        mode,
        records: n,
        lead: 0..lead_end,
        head: lead_end..lead_end,
        compact: lead_end..n,
        tail: n..n,
        request: None,
        noop: None,
        kept_head: Vec::new(),
        kept_tail: Vec::new(),
        elided_tokens: 0,
    };
    if !records.iter().any(|r| r.message().is_some()) {
        return Ok(plan.nothing(NoOp::Empty));
    }
    match mode {
        Mode::Tail { preserve } => plan_tail(plan, records, preserve, &units(format, records)),
        // The head budget applies where the head is rendered: the head region is always the
        // whole first request, truncated there, never dropped.
        Mode::Budgets { tail_tokens, .. } => {
            Ok(plan_budgets(plan, records, tokenizer, tail_tokens))
        }
        Mode::User {
            keep_user_tokens,
            user_head_tokens,
        } => {
            select_user_messages(&mut plan, records, keep_user_tokens, user_head_tokens);
            Ok(plan)
        }
        Mode::Upto { index } => plan_upto(plan, records, index),
    }
}

#[cfg(test)]
mod tests;
