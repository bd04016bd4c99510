//! The plan as data: the JSON object `split` prints and `prompt --plan` writes (one line, its
//! keys in this order), and [`SavedPlan`], the part of it `inject --plan` reads back to check
//! the plan against the transcript as it is then (see [`super::check`]).

use std::ops::Range;

use serde::{Deserialize, Serialize, Serializer};

use crate::plan::{fingerprint, Kept, KeptUser, Mode, NoOp, Plan};
use crate::request::budget::Cut;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;
use crate::transcript::{FormatId, Record};

/// The JSON form of a plan.
#[derive(Debug, Serialize)]
pub struct PlanReport {
    /// The transcript's name.
    pub file: String,
    /// Its format.
    #[serde(serialize_with = "format_name")]
    pub format: Option<FormatId>,
    /// The mode and its settings.
    pub mode: Mode,
    /// The estimator that measured the regions (and the budgets of budgets mode).
    #[serde(serialize_with = "tokenizer_name")]
    pub tokenizer: Tokenizer,
    /// How many records the live context has (positions below count in it).
    pub records: usize,
    /// Why nothing is compacted, or null.
    #[serde(serialize_with = "noop_reason")]
    pub noop: Option<NoOp>,
    /// The regions.
    pub regions: Regions,
    /// User messages kept beside the summary (user mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_user: Option<KeptUsers>,
    /// Tail mode: the user's newest request, part of `compact` but kept verbatim after the
    /// summary because the tail does not reach back to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_request: Option<RegionReport>,
    /// The records before the tail, which inject checks are unchanged.
    pub fingerprint: Fingerprint,
    /// How `prompt --max-tokens` shrank the request, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<RequestReport>,
}

/// What `prompt --max-tokens` did to the request. The summary still replaces exactly the
/// compacted records: only what the summarizer read was shortened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestReport {
    /// The budget.
    pub max_tokens: u64,
    /// The request's tokens.
    pub tokens: u64,
    /// What was cut, in order.
    pub cuts: Vec<Cut>,
}

/// The four regions of a plan.
#[derive(Debug, Serialize)]
pub struct Regions {
    /// Leading bookkeeping and system records.
    pub lead: RegionReport,
    /// The head kept verbatim.
    pub head: RegionReport,
    /// The records summarised.
    pub compact: RegionReport,
    /// The records kept after the summary.
    pub tail: RegionReport,
}

/// One region.
#[derive(Debug, Serialize)]
pub struct RegionReport {
    /// Positions in the live context, start inclusive, end exclusive.
    pub records: [usize; 2],
    /// First and last line numbers of its records, or null when it is empty.
    pub lines: Option<[usize; 2]>,
    /// Main-chain messages in it.
    pub messages: usize,
    /// Their tokens.
    pub tokens: u64,
}

/// The user messages kept in user mode.
#[derive(Debug, Serialize)]
pub struct KeptUsers {
    /// The oldest, in order.
    pub head: Vec<KeptUserReport>,
    /// The newest, in order.
    pub tail: Vec<KeptUserReport>,
    /// Estimated tokens of the user messages left out between them.
    pub elided_tokens: u64,
}

/// One kept user message.
#[derive(Debug, Serialize)]
pub struct KeptUserReport {
    /// Its record index.
    pub record: usize,
    /// How much of it is kept.
    pub kept: KeptPart,
    /// Characters of text kept, for [`KeptPart::Text`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars: Option<usize>,
    /// Its estimate (kimi-code).
    pub tokens: u64,
}

/// How much of a kept user message the plan keeps: `whole`, or `text` when only part of its
/// text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KeptPart {
    /// The whole message.
    Whole,
    /// Part of its text.
    Text,
}

/// What identifies the records before the tail.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Fingerprint {
    /// How many records precede the tail.
    pub records: usize,
    /// Their hash.
    pub hash: String,
}

/// What `inject --plan` reads back from a plan file: what the plan was made with and what
/// it compacted (the other keys are for people and scripts).
#[derive(Debug, Deserialize)]
pub struct SavedPlan {
    /// The mode, to plan again the way the plan was made.
    pub mode: Mode,
    /// The estimator's name (see [`Tokenizer::name`]).
    pub tokenizer: String,
    /// How many records the live context had.
    pub records: usize,
    /// The records the plan compacts.
    pub fingerprint: Fingerprint,
}

/// The report of `plan` over `transcript`'s live context.
pub fn plan_report(plan: &Plan, transcript: &Transcript, tokenizer: Tokenizer) -> PlanReport {
    let records = transcript.context();
    let region = |range: &Range<usize>| region_report(records, range, tokenizer);
    PlanReport {
        file: transcript.name.clone(),
        format: transcript.format,
        mode: plan.mode,
        tokenizer,
        records: plan.records,
        noop: plan.noop,
        regions: Regions {
            lead: region(&plan.lead),
            head: region(&plan.head),
            compact: region(&plan.compact),
            tail: region(&plan.tail),
        },
        kept_request: plan.request.as_ref().map(region),
        kept_user: matches!(plan.mode, Mode::User { .. }).then(|| KeptUsers {
            head: plan.kept_head.iter().map(kept_user_report).collect(),
            tail: plan.kept_tail.iter().map(kept_user_report).collect(),
            elided_tokens: plan.elided_tokens,
        }),
        fingerprint: Fingerprint {
            records: plan.tail.start,
            hash: fingerprint(&records[..plan.tail.start]),
        },
        request: None,
    }
}

/// The report of the records at `range`.
fn region_report(records: &[Record], range: &Range<usize>, tokenizer: Tokenizer) -> RegionReport {
    let messages: Vec<_> = records[range.clone()]
        .iter()
        .filter_map(Record::message)
        .filter(|m| !m.sidechain)
        .collect();
    RegionReport {
        records: [range.start, range.end],
        lines: (!range.is_empty())
            .then(|| [records[range.start].line, records[range.end - 1].line]),
        messages: messages.len(),
        tokens: tokenizer.messages_tokens(messages),
    }
}

fn kept_user_report(kept: &KeptUser) -> KeptUserReport {
    let (part, chars) = match &kept.kept {
        Kept::Whole => (KeptPart::Whole, None),
        Kept::Text(text) => (KeptPart::Text, Some(text.chars().count())),
    };
    KeptUserReport {
        record: kept.record,
        kept: part,
        chars,
        tokens: kept.tokens,
    }
}

fn format_name<S: Serializer>(format: &Option<FormatId>, s: S) -> Result<S::Ok, S::Error> {
    format.map(FormatId::as_str).serialize(s)
}

fn tokenizer_name<S: Serializer>(tokenizer: &Tokenizer, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tokenizer.name())
}

fn noop_reason<S: Serializer>(noop: &Option<NoOp>, s: S) -> Result<S::Ok, S::Error> {
    noop.map(NoOp::reason).serialize(s)
}

impl SavedPlan {
    /// What a plan file written for `plan` over `transcript` gives back.
    pub fn of(plan: &Plan, transcript: &Transcript, tokenizer: Tokenizer) -> Self {
        SavedPlan {
            mode: plan.mode,
            tokenizer: tokenizer.name().to_owned(),
            records: plan.records,
            fingerprint: Fingerprint {
                records: plan.tail.start,
                hash: fingerprint(&transcript.context()[..plan.tail.start]),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan;
    use crate::transcript::load::LoadOptions;

    #[test]
    fn the_report_keeps_its_keys_and_names_as_split_prints_them() {
        let text = concat!(
            r#"{"role":"user","content":"first question"}"#,
            "\n",
            r#"{"role":"assistant","content":"first answer"}"#,
            "\n",
            r#"{"role":"user","content":"second question"}"#,
            "\n",
        );
        let transcript = Transcript::parse("t", text.as_bytes(), LoadOptions::default()).unwrap();
        let mode = Mode::User {
            keep_user_tokens: 3,
            user_head_tokens: 0,
        };
        let made = plan(
            transcript.context(),
            mode,
            Tokenizer::Chars4,
            transcript.dialect(),
        );
        let report = plan_report(&made.unwrap(), &transcript, Tokenizer::Chars4);
        let json = serde_json::to_string(&report).unwrap();
        let keys = [
            "\"file\":\"t\"",
            "\"format\":\"openai\"",
            "\"mode\":{\"name\":\"user\"",
            "\"tokenizer\":\"chars4\"",
            "\"records\":3",
            "\"noop\":null",
            "\"regions\":{\"lead\":",
            "\"kept_user\":{\"head\":[],\"tail\":[{\"record\":2,\"kept\":\"text\",\"chars\":",
            "\"fingerprint\":{\"records\":3,",
        ];
        let mut at = 0;
        for key in keys {
            let found = json[at..]
                .find(key)
                .unwrap_or_else(|| panic!("{key} in {json}"));
            at += found + key.len();
        }
        assert!(!json.contains("\"request\""), "{json}");
        assert!(!json.contains("\"kept_request\""), "{json}");
    }
}
