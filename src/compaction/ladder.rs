//! `compact`'s ladder (ACF's): from the richest form of the session to the smallest, the first
//! whose live context fits the budget. The session unchanged when it fits already; pruned (old
//! tool outputs replaced by placeholders) if that is enough; the LLM's summary; caveman's; bare's
//! four lines. Each summary rung first keeps the plan's tail, then, if that does not fit,
//! nothing but the summary and the newest request. Each rung is a function of the transcript
//! and typed options that says what happened; the model itself is the command's to run (a
//! callback).

use std::io::Write;

use anyhow::{bail, Result};
use serde::Serialize;

use super::extract::live_extract;
use super::handover::{self, HandoverOptions, Written};
use super::planning::{Keeping, PlanOptions};
use super::prune::{pruned_toward, PrunePlan};
use super::streamed::written_size;
use super::writer::write_session;
use crate::extract::{bare, caveman};
use crate::measure::kept::Expected;
use crate::plan::Plan;
use crate::prune::Options as PruneOptions;
use crate::settings::Keep;
use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::load::Transcript;
use crate::transcript::FormatId;

/// A rung of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rung {
    /// The session fits (or compaction is off): nothing written.
    Unchanged,
    /// Old tool outputs replaced by placeholders (`prune`), no summary.
    Pruned,
    /// The LLM's summary.
    Llm,
    /// caveman's summary, no model.
    Caveman,
    /// bare's four lines.
    Bare,
}

impl Rung {
    /// Its name, as `--format json` and the notes say it.
    pub fn name(self) -> &'static str {
        match self {
            Rung::Unchanged => "unchanged",
            Rung::Pruned => "pruned",
            Rung::Llm => "llm",
            Rung::Caveman => "caveman",
            Rung::Bare => "bare",
        }
    }
}

/// The ladder's caveman rung: its summary in under this many tokens (the ACF notes: < 500).
pub const CAVEMAN_TOKENS: u64 = 500;

/// The ladder's bare rung: four lines in about this many tokens.
pub const BARE_TOKENS: u64 = 100;

/// What the ladder aims at: the live context's size afterwards, at most `budget` (when given),
/// and smaller than it is `before`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Goal {
    /// `--budget`, or the config file's.
    pub budget: Option<u64>,
    /// The live context's size now.
    pub before: u64,
}

/// Why the session is left as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unchanged {
    /// The config file turns compaction off.
    Off,
    /// The live context fits the budget already.
    Fits {
        /// Its size.
        before: u64,
        /// The budget.
        budget: u64,
    },
    /// The plan compacts nothing and no budget asks for more.
    NothingToCompact,
}

impl Unchanged {
    /// Why, for the note.
    pub fn why(self) -> String {
        match self {
            Unchanged::Off => {
                "compaction is turned off (enabled = false in the config file)".to_owned()
            }
            Unchanged::Fits { before, budget } => {
                format!("the live context ({before} tokens) fits --budget {budget}")
            }
            Unchanged::NothingToCompact => {
                "there is nothing to compact (every message is in the preserved tail)".to_owned()
            }
        }
    }
}

/// Whether `goal` leaves nothing to do: compaction turned off (`enabled` false), or a budget
/// the live context fits already.
pub fn unchanged(enabled: bool, goal: Goal) -> Option<Unchanged> {
    if !enabled {
        return Some(Unchanged::Off);
    }
    let budget = goal.budget.filter(|&budget| goal.before <= budget)?;
    Some(Unchanged::Fits {
        before: goal.before,
        budget,
    })
}

/// What the ladder writes: the session in its own format, or (`--to`) a new session of
/// another agent.
#[derive(Debug, Clone)]
pub enum Output {
    /// The session itself, compacted.
    Own,
    /// A new session of `target`, starting at `now_ms` if the source records no time.
    Handover {
        /// The agent.
        target: FormatId,
        /// What the user says of the new session.
        options: HandoverOptions,
        /// Now, in milliseconds since the epoch.
        now_ms: u64,
    },
}

/// A session a summary rung makes.
pub enum Made {
    /// The compacted session, in its own format: not kept, as it is as large as the input
    /// ([`Ladder::write_own`] writes it where it goes).
    Own,
    /// A new session of another agent.
    Handover {
        /// The session.
        written: Written,
        /// The agent.
        target: FormatId,
    },
}

/// A summary rung taken: the rung, its summary and plan, the session they make and the size of
/// its live context.
pub struct Choice {
    /// The rung.
    pub rung: Rung,
    /// The summary.
    pub summary: String,
    /// The plan it replaces.
    pub plan: Plan,
    /// The session made.
    pub made: Made,
    /// Its live context's tokens.
    pub after: u64,
}

/// The pruned rung taken: what was pruned and its live context's size. The session itself is
/// not kept: [`PrunePlan::write`] writes it again where it goes (holding it beside the input
/// would take a second copy of a large session).
pub struct Pruned {
    /// What was chosen (which `--verify` holds the session against).
    pub plan: PrunePlan,
    /// Its live context's tokens.
    pub after: u64,
}

/// The LLM rung: the command that summarises a plan (the request it is sent is the caller's
/// to build), and the most tokens its summary may have.
pub struct Llm<'f> {
    /// Runs the model on the request of a plan; its answer, cleaned.
    pub summarise: &'f mut dyn FnMut(&Plan) -> Result<String>,
    /// `--summary-tokens`.
    pub summary_tokens: Option<u64>,
}

/// What the summary rungs did.
pub struct Climb {
    /// The rung taken; `None` when the plan compacts nothing and no budget asks for more.
    pub choice: Option<Choice>,
    /// The LLM's summary, passed over because the session it makes is over the budget: its
    /// tokens, and the live context it leaves.
    pub passed_over: Option<(u64, u64)>,
}

/// A transcript on its way down the ladder.
pub struct Ladder<'l, 'a> {
    /// The session.
    pub transcript: &'l Transcript<'a>,
    /// How tokens are counted.
    pub tokenizer: Tokenizer,
    /// What is written.
    pub output: Output,
    /// What the result must fit.
    pub goal: Goal,
    /// The user's instructions for the compaction (`--instructions`, or a hook's), which the
    /// model-free summaries state first among the next steps, as the LLM's prompt carries them.
    pub instructions: Option<&'l str>,
}

impl Ladder<'_, '_> {
    /// The pruned rung: the session pruned by `options` toward the budget, when that fits it.
    pub fn pruned(&self, options: &PruneOptions) -> Result<Option<Pruned>> {
        let Some(budget) = self.goal.budget else {
            return Ok(None);
        };
        let transcript = self.transcript;
        let Some(plan) = pruned_toward(transcript, self.tokenizer, budget, options)? else {
            return Ok(None);
        };
        // Measured as it is written, never held whole.
        // The pruned session holds the input's records again, values shrunk.
        let expected = Expected::of(&transcript.records);
        let after = written_size(
            &transcript.name,
            transcript.format,
            self.tokenizer,
            expected,
            |out| plan.write(transcript, out),
        )?;
        Ok((after <= budget).then_some(Pruned { plan, after }))
    }

    /// The summary rungs, from the top: the LLM's summary (when `llm` is given), then
    /// caveman's, then bare's; the first whose session fits the budget (without one: any that
    /// makes the context smaller).
    pub fn climb(&self, plan: Plan, llm: Option<Llm>) -> Result<Climb> {
        let mut passed_over = None;
        if let Some(llm) = llm.filter(|_| plan.noop.is_none()) {
            let choice = self.llm(&plan, llm)?;
            if self.fits(choice.after) {
                return Ok(Climb {
                    choice: Some(choice),
                    passed_over,
                });
            }
            let tokens = self.tokenizer.text_tokens(&choice.summary);
            passed_over = Some((tokens, choice.after));
        }
        let choice = match self.goal.budget {
            Some(budget) => Some(self.model_free(&plan, budget)?),
            None => None,
        };
        Ok(Climb {
            choice,
            passed_over,
        })
    }

    fn fits(&self, after: u64) -> bool {
        self.goal.budget.is_none_or(|budget| after <= budget)
    }

    /// The LLM rung's session; an error when the summary is over `--summary-tokens`, or,
    /// without a budget, leaves no smaller a context.
    fn llm(&self, plan: &Plan, llm: Llm) -> Result<Choice> {
        let summary = (llm.summarise)(plan)?;
        if let Some(max) = llm.summary_tokens {
            let tokens = self.tokenizer.text_tokens(&summary);
            if tokens > max {
                bail!(
                    "--llm: the summary has {tokens} tokens, over --summary-tokens {max}; the \
                     session is left as it is"
                );
            }
        }
        let choice = self.build(Rung::Llm, summary, plan.clone())?;
        let before = self.goal.before;
        if self.goal.budget.is_none() && choice.after >= before {
            bail!(
                "{}: --llm: the summary ({} tokens) leaves {} tokens of live context, no fewer \
                 than the {before} before; the session is left as it is",
                self.transcript.name,
                self.tokenizer.text_tokens(&choice.summary),
                choice.after
            );
        }
        Ok(choice)
    }

    /// Without a model: the summaries of caveman and bare, each with the plan's tail first,
    /// then with nothing kept but the summary; the first that fits `budget`.
    fn model_free(&self, plan: &Plan, budget: u64) -> Result<Choice> {
        let everything = self.plan_everything()?;
        let extract = live_extract(self.transcript).with_instructions(self.instructions);
        let tokenizer = self.tokenizer;
        let rungs = [
            (Rung::Caveman, caveman(&extract, CAVEMAN_TOKENS, tokenizer)),
            (Rung::Bare, bare(&extract, BARE_TOKENS, tokenizer).lines()),
        ];
        let mut smallest = u64::MAX;
        for (rung, summary) in rungs {
            for candidate in [plan, &everything] {
                if candidate.noop.is_some() {
                    continue;
                }
                let choice = self.build(rung, summary.clone(), candidate.clone())?;
                smallest = smallest.min(choice.after);
                if choice.after <= budget {
                    return Ok(choice);
                }
            }
        }
        bail!(
            "{}: the session does not fit --budget {budget}: even bare's four lines leave \
             {smallest} tokens of live context; the session is left as it is",
            self.transcript.name
        )
    }

    /// A plan that summarises the whole live context and keeps nothing beside the summary but
    /// the newest request a person typed, which the agent carries on from (`--verify`'s
    /// `newest-message`): kimi-code's user rule, its budget that request's own size.
    fn plan_everything(&self) -> Result<Plan> {
        // The estimator kimi-code's rule measures user messages with.
        let newest_request = self
            .transcript
            .context()
            .iter()
            .rev()
            .filter_map(|r| r.message())
            .find(|m| is_real_user_request(m))
            .map_or(0, |m| Tokenizer::KimiCode.message_units(m));
        let nothing = PlanOptions {
            keeping: Keeping::Rule(Keep::User {
                keep_user_tokens: newest_request,
                user_head_tokens: 0,
            }),
            tokenizer: self.tokenizer,
        };
        nothing.plan(self.transcript)
    }

    /// The session `plan` and `summary` make, and the size of its live context.
    pub fn build(&self, rung: Rung, summary: String, plan: Plan) -> Result<Choice> {
        let transcript = self.transcript;
        let name = &transcript.name;
        // With --to, the session measured is the new one, in the target's format.
        let (made, after) = match &self.output {
            Output::Handover {
                target,
                options,
                now_ms,
            } => {
                let written =
                    handover::render(transcript, &plan, &summary, *target, options, *now_ms)?;
                let after = written_size(
                    name,
                    Some(*target),
                    self.tokenizer,
                    Expected::default(),
                    |out| Ok(out.write_all(&written.bytes)?),
                )?;
                let target = *target;
                (Made::Handover { written, target }, after)
            }
            // Measured as it is written, never held whole.
            Output::Own => {
                let after = written_size(
                    name,
                    transcript.format,
                    self.tokenizer,
                    Expected::default(),
                    |out| self.write_own(&plan, &summary, out),
                )?;
                (Made::Own, after)
            }
        };
        Ok(Choice {
            rung,
            summary,
            plan,
            made,
            after,
        })
    }

    /// Writes the session `plan` and `summary` make, in the transcript's own format, to `out`
    /// (what [`Made::Own`] stands for).
    pub fn write_own(&self, plan: &Plan, summary: &str, out: &mut dyn Write) -> Result<()> {
        write_session(self.transcript, plan, summary, self.tokenizer, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::context::context_size;
    use crate::compaction::planning::{Keeping, PlanOptions};
    use crate::settings::Keep;
    use crate::transcript::load::LoadOptions;

    /// A plain message list whose early messages are long: compacting them frees much.
    fn session() -> String {
        let long = "word ".repeat(400);
        let mut text = String::new();
        for (role, content) in [
            ("user", long.as_str()),
            ("assistant", long.as_str()),
            ("user", "now the next step"),
            ("assistant", "done"),
        ] {
            text.push_str(&serde_json::json!({"role": role, "content": content}).to_string());
            text.push('\n');
        }
        text
    }

    fn ladder<'l, 'a>(transcript: &'l Transcript<'a>, budget: Option<u64>) -> Ladder<'l, 'a> {
        Ladder {
            transcript,
            tokenizer: Tokenizer::Chars4,
            output: Output::Own,
            goal: Goal {
                budget,
                before: context_size(transcript, Tokenizer::Chars4),
            },
            instructions: None,
        }
    }

    fn tail_plan(transcript: &Transcript) -> Plan {
        let options = PlanOptions {
            keeping: Keeping::Rule(Keep::Tail { preserve: 2 }),
            tokenizer: Tokenizer::Chars4,
        };
        options.plan(transcript).unwrap()
    }

    #[test]
    fn nothing_is_done_when_compaction_is_off_or_the_budget_is_met() {
        let goal = |budget| Goal {
            budget,
            before: 100,
        };
        assert_eq!(unchanged(false, goal(None)), Some(Unchanged::Off));
        assert_eq!(
            unchanged(true, goal(Some(100))),
            Some(Unchanged::Fits {
                before: 100,
                budget: 100
            })
        );
        assert_eq!(unchanged(true, goal(Some(99))), None);
        assert_eq!(unchanged(true, goal(None)), None);
        assert_eq!(
            Unchanged::Fits {
                before: 100,
                budget: 120
            }
            .why(),
            "the live context (100 tokens) fits --budget 120"
        );
    }

    #[test]
    fn the_llms_summary_is_taken_when_it_fits_and_passed_over_when_not() {
        let text = session();
        let transcript = Transcript::parse("s", text.as_bytes(), LoadOptions::default()).unwrap();
        let short = || "NOW: the next step".to_owned();
        let mut summarise = |_: &Plan| Ok(short());
        let llm = Llm {
            summarise: &mut summarise,
            summary_tokens: None,
        };
        let climb = ladder(&transcript, Some(200))
            .climb(tail_plan(&transcript), Some(llm))
            .unwrap();
        let choice = climb.choice.unwrap();
        assert_eq!(choice.rung, Rung::Llm);
        assert!(choice.after <= 200 && climb.passed_over.is_none());

        // An answer far over the budget: caveman's summary is written instead.
        let mut long = |_: &Plan| Ok("NOW: ".to_owned() + &"more ".repeat(2000));
        let llm = Llm {
            summarise: &mut long,
            summary_tokens: None,
        };
        let climb = ladder(&transcript, Some(200))
            .climb(tail_plan(&transcript), Some(llm))
            .unwrap();
        assert!(matches!(climb.passed_over, Some((tokens, _)) if tokens > 2000));
        let choice = climb.choice.unwrap();
        assert!(matches!(choice.rung, Rung::Caveman | Rung::Bare));
        assert!(choice.after <= 200);
    }

    #[test]
    fn a_rungs_size_is_that_of_the_session_written_read_back() {
        let text = session();
        let transcript = Transcript::parse("s", text.as_bytes(), LoadOptions::default()).unwrap();
        let ladder_ = ladder(&transcript, Some(200));
        let summary = "NOW: the next step".to_owned();
        let choice = ladder_
            .build(Rung::Caveman, summary.clone(), tail_plan(&transcript))
            .unwrap();
        assert!(matches!(choice.made, Made::Own));
        // Measured as it streamed by; the same figure as the file written and parsed whole.
        let mut bytes = Vec::new();
        ladder_
            .write_own(&choice.plan, &summary, &mut bytes)
            .unwrap();
        let written = Transcript::parse("s", &bytes, LoadOptions::default()).unwrap();
        assert_eq!(choice.after, context_size(&written, Tokenizer::Chars4));
        assert!(choice.after < ladder_.goal.before);
    }

    #[test]
    fn an_llm_summary_over_its_limit_or_that_frees_nothing_is_refused() {
        let text = session();
        let transcript = Transcript::parse("s", text.as_bytes(), LoadOptions::default()).unwrap();
        let mut long = |_: &Plan| Ok("NOW: ".to_owned() + &"more ".repeat(2000));
        let llm = Llm {
            summarise: &mut long,
            summary_tokens: Some(100),
        };
        let ladder_ = ladder(&transcript, None);
        let error = ladder_.climb(tail_plan(&transcript), Some(llm)).err();
        assert!(error
            .unwrap()
            .to_string()
            .contains("over --summary-tokens 100"));
        let mut long = |_: &Plan| Ok("NOW: ".to_owned() + &"more ".repeat(2000));
        let llm = Llm {
            summarise: &mut long,
            summary_tokens: None,
        };
        let error = ladder_.climb(tail_plan(&transcript), Some(llm)).err();
        assert!(error.unwrap().to_string().contains("no fewer than the"));
    }
}
