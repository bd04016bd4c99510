//! `--to FORMAT` on `inject` and `compact`: the cmd-layer side of a handoff. It turns a plan
//! and a summary into the target writer's input ([`crate::transcript::handoff::Session`]): the
//! tail's turns, the working directory and model from flags or the source, the time the new
//! session starts; and with `--to-session-dir` it puts the file where the target agent looks
//! for its sessions (see `place`) and prints the command that resumes it.

mod place;

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::HandoffArgs;
use crate::plan::{fingerprint, Plan};
use crate::tokens::{Family, Tokenizer};
use crate::transcript::handoff::{self, time, turns, Field, Session};
use crate::transcript::load::Transcript;
use crate::transcript::write::{derived_uuid, top_level_str, Sink};
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

/// The new `target` session that `plan` and `summary` make of `transcript`.
pub fn render(
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    target: FormatId,
    args: &HandoffArgs,
) -> Result<Written> {
    let source = transcript
        .format
        .context("an empty transcript has no format")?;
    let context = &transcript.context;
    let tail = turns::turns(plan.kept_after().filter_map(|p| context[p].message()));
    // What the plan keeps beside the summary (a head, kimi-code's user messages) goes in the
    // summary message: the new session has no place before it.
    let mut kept: Vec<String> = context[plan.head.clone()]
        .iter()
        .filter_map(|r| r.message())
        .map(crate::transcript::classify::text_of)
        .filter(|text| !text.trim().is_empty())
        .collect();
    kept.extend(crate::cmd::compaction::kept_user_texts(transcript, plan));
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
    let cwd = args
        .cwd
        .clone()
        .or_else(|| recorded(&|raw| format.cwd(raw)));
    let model = args
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
    let start_ms = start_ms(transcript);
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
/// input gives the same session and it sorts after the one it continues; the clock when the
/// source records no time (kimi-cli and plain lists).
fn start_ms(transcript: &Transcript) -> u64 {
    let last = transcript
        .records
        .iter()
        .filter_map(|r| top_level_str(r.raw, "timestamp"))
        .filter_map(|t| time::parse_ms(&t))
        .max();
    match last {
        Some(ms) => ms + 1,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    }
}

/// Writes the new session: to `out`, or with `--to-session-dir` into the agent's session
/// folder, printing the command that resumes it on `out` and where it went on stderr.
pub fn emit(
    written: &Written,
    target: FormatId,
    args: &HandoffArgs,
    out: &mut dyn Write,
    warnings: &mut crate::output::Warnings,
) -> Result<()> {
    let Some(dir) = &args.to_session_dir else {
        out.write_all(&written.bytes)?;
        return Ok(());
    };
    let placed = place::place(target, dir, written)?;
    warnings.note(format!(
        "{}: the new {} session",
        placed.path.display(),
        target.format().name()
    ));
    writeln!(out, "{}", placed.resume)?;
    Ok(())
}
