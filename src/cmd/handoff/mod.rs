//! `--to FORMAT` on `inject` and `compact`: the command side of a handoff. The new session is
//! made by [`crate::compaction::handover`]; here it goes to stdout or, with `--to-session-dir`,
//! where the target agent looks for its sessions (see `place`), and the command that resumes it
//! is printed.

mod place;

use std::io::Write;

use anyhow::Result;

use crate::cli::HandoffArgs;
use crate::compaction::handover::HandoverOptions;
pub use crate::compaction::handover::Written;
use crate::transcript::FormatId;

/// What `--cwd` and `--model` say of the new session.
pub fn options(args: &HandoffArgs) -> HandoverOptions {
    HandoverOptions {
        cwd: args.cwd.clone(),
        model: args.to_model.clone(),
    }
}

/// Now, in milliseconds since the epoch: when a new session starts whose source records no
/// time.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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
