//! What a compaction keeps, as options, and the plan they make of a transcript: the plan flags
//! (`--preserve`, `--head-tokens`, `--keep-user-tokens`, `--upto` …) when given, else what the
//! settings (config file, preset) keep. `split`, `prompt`, `inject` and `compact` all plan
//! through [`PlanOptions::plan`], so they cannot disagree about the cut.

use anyhow::{Context, Result};

use crate::plan::{plan, Mode, Plan};
use crate::settings::Keep;
use crate::tokens::Tokenizer;
use crate::transcript::json::top_level_str;
use crate::transcript::load::Transcript;
use crate::transcript::Record;

/// Which records a compaction keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum Keeping {
    /// Everything from this record on (`--upto`): a position in the live context, or the id
    /// (`uuid` or `id` field) of one of its records.
    Upto(String),
    /// A rule: the tail, the head and tail budgets, the user messages, a share.
    Rule(Keep),
}

/// How a transcript is planned.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanOptions {
    /// What is kept.
    pub keeping: Keeping,
    /// How tokens are counted (the budgets, the regions' sizes).
    pub tokenizer: Tokenizer,
}

impl PlanOptions {
    /// The plan of `transcript`'s live context.
    pub fn plan(&self, transcript: &Transcript) -> Result<Plan> {
        let mode = self.mode(transcript.context())?;
        plan(
            transcript.context(),
            mode,
            self.tokenizer,
            transcript.dialect(),
        )
        .with_context(|| transcript.name.clone())
    }

    /// The planner's mode for `records`.
    pub fn mode(&self, records: &[Record]) -> Result<Mode> {
        Ok(match &self.keeping {
            Keeping::Upto(id) => Mode::Upto {
                index: resolve_upto(id, records)?,
            },
            Keeping::Rule(Keep::Tail { preserve }) => Mode::Tail {
                preserve: *preserve,
            },
            Keeping::Rule(Keep::Budgets {
                head_tokens,
                tail_tokens,
            }) => Mode::Budgets {
                head_tokens: *head_tokens,
                tail_tokens: *tail_tokens,
            },
            Keeping::Rule(Keep::User {
                keep_user_tokens,
                user_head_tokens,
            }) => Mode::User {
                keep_user_tokens: *keep_user_tokens,
                user_head_tokens: *user_head_tokens,
            },
            // Gemini CLI keeps the newest share of the history: a tail budget of that share.
            Keeping::Rule(Keep::Share { percent }) => Mode::Budgets {
                head_tokens: 0,
                tail_tokens: self
                    .tokenizer
                    .messages_tokens(records.iter().filter_map(Record::message))
                    * percent
                    / 100,
            },
        })
    }
}

/// A position in the live context, or the first record of it whose `uuid` or `id` field is
/// `id`.
fn resolve_upto(id: &str, records: &[Record]) -> Result<usize> {
    if let Ok(index) = id.parse::<usize>() {
        return Ok(index);
    }
    let quoted = serde_json::to_string(id)?;
    let needles = [format!("\"uuid\":{quoted}"), format!("\"id\":{quoted}")];
    // A top-level field is compared as a value, so JSON written with spaces (`"uuid": "…"`)
    // matches too; the byte search also finds ids nested in an envelope (Codex `payload.id`).
    let top_level = |raw: &[u8]| {
        ["uuid", "id"]
            .iter()
            .any(|key| top_level_str(raw, key).as_deref() == Some(id))
    };
    records
        .iter()
        .position(|r| {
            top_level(r.raw)
                || needles
                    .iter()
                    .any(|n| memchr::memmem::find(r.raw, n.as_bytes()).is_some())
        })
        .with_context(|| "--upto names no record index or record id of this transcript")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::load::LoadOptions;

    const PI: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/r"}"#,
        "\n",
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"one one one one"}}"#,
        "\n",
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"two two two two"}]}}"#,
        "\n",
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"t","message":{"role":"user","content":"three three three"}}"#,
        "\n",
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"four four four four"}]}}"#,
        "\n",
    );

    fn options(keeping: Keeping) -> PlanOptions {
        PlanOptions {
            keeping,
            tokenizer: Tokenizer::Chars4,
        }
    }

    #[test]
    fn upto_takes_a_position_or_a_record_id() {
        let transcript = Transcript::parse("t", PI.as_bytes(), LoadOptions::default()).unwrap();
        let by_id = options(Keeping::Upto("u2".to_owned()))
            .plan(&transcript)
            .unwrap();
        // Positions count in the live context, which the session header is not part of.
        let by_position = options(Keeping::Upto("2".to_owned()))
            .plan(&transcript)
            .unwrap();
        assert_eq!(by_id, by_position);
        assert_eq!(by_id.tail.start, 2);
        let error = options(Keeping::Upto("nope".to_owned()))
            .plan(&transcript)
            .unwrap_err();
        assert!(
            error.to_string().contains("--upto names no record"),
            "{error}"
        );
    }

    #[test]
    fn a_share_is_a_tail_budget_of_that_share_of_the_context() {
        let transcript = Transcript::parse("t", PI.as_bytes(), LoadOptions::default()).unwrap();
        let tokens = Tokenizer::Chars4
            .messages_tokens(transcript.context().iter().filter_map(Record::message));
        let mode = options(Keeping::Rule(Keep::Share { percent: 50 }))
            .mode(transcript.context())
            .unwrap();
        assert_eq!(
            mode,
            Mode::Budgets {
                head_tokens: 0,
                tail_tokens: tokens * 50 / 100
            }
        );
        let tail = options(Keeping::Rule(Keep::Tail { preserve: 2 }))
            .mode(transcript.context())
            .unwrap();
        assert_eq!(tail, Mode::Tail { preserve: 2 });
    }
}
