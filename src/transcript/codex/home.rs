//! Where Codex keeps its sessions: `$CODEX_HOME/sessions` (`~/.codex/sessions`), each rollout
//! at `YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<session id>.jsonl`. `history.jsonl` beside them
//! (in `$CODEX_HOME`) is the prompts typed, not a transcript.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Codex;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

impl Home for Codex {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("CODEX_HOME", &[".codex"])
                .map(|dir| dir.join("sessions")),
        )
    }

    fn side_file(&self, file: &SessionFile) -> bool {
        file.stem == "history"
    }

    /// `codex resume ID` in the working directory finds the rollout by its name.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let (id, stamp) = (session.id, session.stamp());
        let day = home
            .join("sessions")
            .join(&stamp[0..4])
            .join(&stamp[5..7])
            .join(&stamp[8..10]);
        let name = format!("rollout-{}-{id}.jsonl", stamp[..19].replace(':', "-"));
        let resume = format!("cd {} && codex resume {id}", shell_quote(session.cwd()?));
        Ok(Placement {
            path: day.join(name),
            resume,
        })
    }
}
