//! Checking a saved plan (`prompt --plan`) against the transcript as it is now, before
//! `inject --plan` (and `compact --in-place`, whose plan was made before its model ran) writes
//! it: the records it compacted must be unchanged; records appended since join the tail.

use anyhow::{bail, Context, Result};

use super::report::SavedPlan;
use crate::plan::{fingerprint, plan, Plan};
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;

/// The plan `saved` describes, made again over `transcript` and checked against it.
pub fn check_plan(saved: &SavedPlan, transcript: &Transcript) -> Result<(Plan, Tokenizer)> {
    let tokenizer =
        Tokenizer::from_name(&saved.tokenizer).context("unknown tokenizer in the plan")?;
    let records = &transcript.context;
    if records.len() < saved.records {
        bail!(
            "{}: the plan was made for {} records but the transcript now has {}; run prompt again",
            transcript.name,
            saved.records,
            records.len()
        );
    }
    let mut plan = plan(
        &records[..saved.records],
        saved.mode,
        tokenizer,
        transcript.dialect(),
    )
    .with_context(|| transcript.name.clone())?;
    let now = fingerprint(&records[..plan.tail.start]);
    if plan.tail.start != saved.fingerprint.records || now != saved.fingerprint.hash {
        bail!(
            "{}: the records the plan compacts changed since the plan was made (plan {} over {} \
             records, now {} over {}); run prompt again",
            transcript.name,
            saved.fingerprint.hash,
            saved.fingerprint.records,
            now,
            plan.tail.start
        );
    }
    // Everything written after the plan was made is kept.
    plan.records = records.len();
    if plan.noop.is_none() {
        plan.tail.end = records.len();
    } else {
        plan.tail = 0..records.len();
    }
    Ok((plan, tokenizer))
}
