//! `--to` and its companions: handing a session to another agent, shared by `inject` and
//! `compact`.

use std::path::PathBuf;

use clap::Args;

use crate::transcript::FormatId;

/// Handing a session to another agent, shared by `inject` and `compact`.
#[derive(Debug, Args)]
pub struct HandoffArgs {
    /// Start a new session of this agent instead (openai: kimi-cli's context.jsonl).
    ///
    /// It opens with the summary, then carries the plan's kept tail: user and assistant text
    /// as messages, every tool call and result written out as text in the assistant's turn
    /// (the target has other tools), thinking and the source's own injected context left out,
    /// user and assistant alternating. Ids are derived from the input, timestamps count on from
    /// the source's last one (the clock, when it records none). FILE is not changed.
    #[arg(long, value_name = "FORMAT", conflicts_with = "enabled")]
    pub to: Option<FormatId>,

    /// With --to: the working directory the new session belongs to, instead of the one the
    /// source records (Claude Code, Codex, pi and Gemini CLI sessions need one; kimi-cli and
    /// plain lists record none, Gemini CLI only a hash of it).
    #[arg(hide_short_help = true, long, value_name = "DIR", requires = "to")]
    pub cwd: Option<String>,

    /// With --to: the model the new session's assistant turns name, instead of the one the
    /// source records (pi needs one; PROVIDER/MODEL names pi's provider too).
    ///
    /// `--model` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "model",
        value_name = "NAME",
        requires = "to"
    )]
    pub to_model: Option<String>,

    /// With --to: write the session where the agent keeps its sessions under DIR (its home:
    /// ~/.claude, ~/.codex, ~/.pi/agent, ~/.kimi) instead of to standard output, and print the
    /// command that resumes it.
    ///
    /// Claude Code: DIR/projects/SLUG/ID.jsonl (SLUG: the working directory, every character
    /// but letters and digits made -); Codex: DIR/sessions/YYYY/MM/DD/rollout-TIME-ID.jsonl;
    /// pi: DIR/sessions/--PATH--/TIME_ID.jsonl (PATH: the working directory, / made -);
    /// kimi-cli: DIR/sessions/MD5/ID/context.jsonl (MD5: of the working directory, which is
    /// added to DIR/kimi.json); Gemini CLI (whose folders come from a registry of its own):
    /// DIR/session-TIME-ID.jsonl, resumed by path. An
    /// existing file is never overwritten.
    #[arg(hide_short_help = true, long, value_name = "DIR", requires = "to")]
    pub to_session_dir: Option<PathBuf>,
}
