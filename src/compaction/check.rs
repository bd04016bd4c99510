//! Checking a saved plan (`prompt --plan`) against the transcript as it is now, before
//! `inject --plan` (and `compact --in-place`, whose plan was made before its model ran) writes
//! it: the records it compacted must be unchanged; records appended since join the tail.

use anyhow::{bail, Context, Result};

use super::report::SavedPlan;
use crate::plan::{fingerprint, plan, Plan};
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;

/// The plan `saved` describes, made again over `transcript` and checked against it. `again` is
/// what to run for a new plan, said when this one no longer fits.
pub fn check_plan(
    saved: &SavedPlan,
    transcript: &Transcript,
    again: &str,
) -> Result<(Plan, Tokenizer)> {
    let tokenizer =
        Tokenizer::from_name(&saved.tokenizer).context("unknown tokenizer in the plan")?;
    let records = transcript.context();
    if records.len() < saved.records {
        bail!(
            "{}: the plan was made for {} records but the transcript now has {}; {again}",
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
             records, now {} over {}); {again}",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::report::plan_report;
    use crate::plan::Mode;
    use crate::transcript::load::LoadOptions;

    const LIST: &str = concat!(
        r#"{"role":"user","content":"first question"}"#,
        "\n",
        r#"{"role":"assistant","content":"first answer"}"#,
        "\n",
        r#"{"role":"user","content":"second question"}"#,
        "\n",
        r#"{"role":"assistant","content":"second answer"}"#,
        "\n",
    );

    fn saved(text: &str) -> SavedPlan {
        let transcript = Transcript::parse("t", text.as_bytes(), LoadOptions::default()).unwrap();
        let made = plan(
            transcript.context(),
            Mode::Tail { preserve: 2 },
            Tokenizer::Chars4,
            transcript.dialect(),
        )
        .unwrap();
        // Through the JSON a plan file holds, as `inject --plan` reads it.
        let json = serde_json::to_string(&plan_report(&made, &transcript, Tokenizer::Chars4));
        serde_json::from_str(&json.unwrap()).unwrap()
    }

    #[test]
    fn records_appended_since_join_the_tail() {
        let saved = saved(LIST);
        let grown = format!("{LIST}{}\n", r#"{"role":"user","content":"third"}"#);
        let now = Transcript::parse("t", grown.as_bytes(), LoadOptions::default()).unwrap();
        let (plan, tokenizer) = check_plan(&saved, &now, "run prompt again").unwrap();
        assert_eq!(tokenizer, Tokenizer::Chars4);
        assert_eq!((plan.records, plan.tail.end), (5, 5));
    }

    #[test]
    fn a_changed_compacted_record_is_refused() {
        let saved = saved(LIST);
        let changed = LIST.replace("first answer", "another answer");
        let now = Transcript::parse("t", changed.as_bytes(), LoadOptions::default()).unwrap();
        let error = check_plan(&saved, &now, "run prompt again")
            .unwrap_err()
            .to_string();
        assert!(error.contains("changed since the plan was made"), "{error}");
        let fewer = LIST.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
        let now = Transcript::parse("t", fewer.as_bytes(), LoadOptions::default()).unwrap();
        let error = check_plan(&saved, &now, "run prompt again")
            .unwrap_err()
            .to_string();
        assert!(error.contains("the plan was made for 4 records"), "{error}");
    }
}
