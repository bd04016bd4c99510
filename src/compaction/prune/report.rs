//! `prune --report`: what a prune would do, as one JSON object: the tokens before and after,
//! the counts of what was pruned and of the candidates, and each value pruned, oldest first.

use serde::{Serialize, Serializer};

use super::PrunePlan;
use crate::prune::{Nothing, Target};
use crate::transcript::load::Transcript;
use crate::transcript::FormatId;

/// The `--report` line.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The transcript's name.
    pub file: String,
    /// Its format.
    #[serde(serialize_with = "format_name")]
    pub format: FormatId,
    /// The live context's tokens now.
    pub tokens_before: u64,
    /// ... and after the prune.
    pub tokens_after: u64,
    /// What is pruned, by kind.
    pub pruned: Counts,
    /// What could be, by kind.
    pub candidates: Counts,
    /// Why nothing is pruned, if so.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "nothing_reason"
    )]
    pub nothing: Option<Nothing>,
    /// Each value pruned, oldest first.
    pub items: Vec<Item>,
}

/// One pruned value in the `--report` line.
#[derive(Debug, Serialize)]
pub struct Item {
    /// The line number of its record.
    pub line: usize,
    /// What it is: `result`, `arguments` or `thinking`.
    pub kind: Target,
    /// Its tool, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Its size before.
    pub tokens: u64,
}

/// Values by kind.
#[derive(Debug, Serialize, Default)]
pub struct Counts {
    /// Tool results.
    pub results: usize,
    /// Tool-call arguments.
    pub arguments: usize,
    /// Thinking blocks.
    pub thinking: usize,
}

impl Counts {
    fn add(&mut self, target: Target) {
        match target {
            Target::Result => self.results += 1,
            Target::Arguments => self.arguments += 1,
            Target::Thinking => self.thinking += 1,
        }
    }
}

fn format_name<S: Serializer>(format: &FormatId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(format.as_str())
}

fn nothing_reason<S: Serializer>(nothing: &Option<Nothing>, s: S) -> Result<S::Ok, S::Error> {
    nothing.map(Nothing::reason).serialize(s)
}

impl PrunePlan {
    /// The `--report` object of this plan over `transcript`.
    pub fn report(&self, transcript: &Transcript) -> Report {
        let mut pruned = Counts::default();
        for &i in &self.choice.chosen {
            pruned.add(self.candidates[i].target);
        }
        let mut candidates = Counts::default();
        for candidate in &self.candidates {
            candidates.add(candidate.target);
        }
        Report {
            file: transcript.name.clone(),
            format: self.format,
            tokens_before: self.choice.tokens_before,
            tokens_after: self.choice.tokens_after,
            pruned,
            candidates,
            nothing: self.choice.nothing,
            items: self
                .choice
                .chosen
                .iter()
                .map(|&i| {
                    let candidate = &self.candidates[i];
                    Item {
                        line: transcript.records[self.measured[i].record].line,
                        kind: candidate.target,
                        tool: candidate.tool.clone(),
                        tokens: candidate.tokens,
                    }
                })
                .collect(),
        }
    }
}
