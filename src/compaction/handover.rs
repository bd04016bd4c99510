//! `--to FORMAT` on `inject` and `compact`: a new session of another agent, made of a plan and
//! a summary: the summary first (with what the plan keeps beside it), then the tail's turns,
//! the working directory and model from the options or the source, and the time it starts.
//! The target's writer is [`crate::transcript::handoff`]; placing the file where the agent
//! looks is the command's (`cmd::handoff`).

use anyhow::{Context, Result};

use crate::plan::{fingerprint, Plan};
use crate::tokens::{Family, Tokenizer};
use crate::transcript::handoff::{self, time, turns, Field, Session};
use crate::transcript::json::top_level_str;
use crate::transcript::load::Transcript;
use crate::transcript::write::{derived_uuid, Sink};
use crate::transcript::FormatId;

/// A new session of another agent, written.
pub struct Written {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its id.
    pub id: String,
    /// Its working directory, when known.
    pub cwd: Option<String>,
    /// When it starts, in milliseconds since the epoch.
    pub start_ms: u64,
}

/// What the user says of the new session (`--cwd`, `--model`), over what the source records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandoverOptions {
    /// Its working directory.
    pub cwd: Option<String>,
    /// The model its assistant turns name.
    pub model: Option<String>,
}

/// The new `target` session that `plan` and `summary` make of `transcript`; `now_ms` is when
/// it starts if the source records no time.
pub fn render(
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    target: FormatId,
    options: &HandoverOptions,
    now_ms: u64,
) -> Result<Written> {
    let source = transcript
        .format
        .context("an empty transcript has no format")?;
    let context = transcript.context();
    let tail = turns::turns(plan.kept_after().filter_map(|p| context[p].message()));
    // What the plan keeps beside the summary (a head, kimi-code's user messages) goes in the
    // summary message: the new session has no place before it.
    let mut kept: Vec<String> = context[plan.head.clone()]
        .iter()
        .filter_map(|r| r.message())
        .map(crate::transcript::classify::text_of)
        .filter(|text| !text.trim().is_empty())
        .collect();
    kept.extend(super::writer::kept_user_texts(transcript, plan));
    let format = source.format();
    let conversation = handoff::conversation(handoff::summary_text(format, summary, &kept), tail);
    let seed = format!(
        "{}:{}:{}",
        fingerprint(context),
        summary.len(),
        target.as_str()
    );
    let id = derived_uuid(&seed, "session");
    let recorded = |get: &dyn Fn(&[u8]) -> Option<String>| {
        transcript.records.iter().rev().find_map(|r| get(r.raw))
    };
    let cwd = options
        .cwd
        .clone()
        .or_else(|| recorded(&|raw| format.cwd(raw)));
    let model = options
        .model
        .clone()
        .or_else(|| recorded(&|raw| format.model(raw)));
    let target_agent = target.format();
    for field in target_agent.needs() {
        let have = match field {
            Field::Cwd => cwd.is_some(),
            Field::Model => model.is_some(),
        };
        if !have {
            anyhow::bail!(
                "{}: {} sessions record {}, which this {} session does not; give it",
                transcript.name,
                target_agent.name(),
                field.describe(),
                format.name()
            );
        }
    }
    let start_ms = start_ms(transcript).unwrap_or(now_ms);
    let session = Session {
        id: &id,
        seed: &seed,
        turns: &conversation,
        cwd: cwd.as_deref(),
        model: model.as_deref(),
        start_ms,
        claude_tokens: |text| Tokenizer::Fast(Family::Claude).text_tokens(text),
    };
    let mut bytes = Vec::new();
    let mut sink = Sink::new(&mut bytes);
    target_agent.write_handoff(&session, &mut sink)?;
    sink.finish()?;
    Ok(Written {
        bytes,
        id,
        cwd,
        start_ms,
    })
}

/// When the new session starts: a millisecond after the source's last timestamp, so the same
/// input gives the same session and it sorts after the one it continues; `None` when the
/// source records no time (kimi-cli and plain lists).
fn start_ms(transcript: &Transcript) -> Option<u64> {
    transcript
        .records
        .iter()
        .filter_map(|r| top_level_str(r.raw, "timestamp"))
        .filter_map(|t| time::parse_ms(&t))
        .max()
        .map(|ms| ms + 1)
}
