//! Where Gemini CLI keeps its sessions: under `$GEMINI_CLI_HOME/.gemini/tmp` (`~/.gemini/tmp`),
//! one folder per project, the sessions in its `chats/` as
//! `session-<YYYY-MM-DDTHH-MM>-<first 8 characters of the id>.jsonl`; the activity logs in its
//! `logs/` (`session-*.jsonl` too) are not sessions.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Gemini;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

impl Home for Gemini {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("GEMINI_CLI_HOME", &[])
                .map(|dir| dir.join(".gemini").join("tmp")),
        )
    }

    fn side_file(&self, file: &SessionFile) -> bool {
        file.folder() == Some("logs") && file.stem.starts_with("session-")
    }

    /// In Gemini CLI's temp folder the sessions are the files in `chats/`.
    fn holds_session(&self, file: &SessionFile) -> bool {
        file.folder() == Some("chats")
    }

    /// Gemini CLI names a session's file by the first eight characters of its id.
    fn names_session(&self, file: &SessionFile, id: &str) -> bool {
        let short: String = id.chars().take(8).collect();
        file.stem.starts_with("session-") && file.stem.ends_with(&format!("-{short}"))
    }

    /// Gemini CLI keeps sessions under a project slug that its registry (`projects.json`, with
    /// ownership markers) hands out; rather than write another program's registry, the file
    /// goes into `home` itself and is resumed by path.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let stamp = session.stamp();
        let name = format!(
            "session-{}-{}.jsonl",
            stamp[..16].replace(':', "-"),
            &session.id[..8]
        );
        let path = home.join(name);
        let resume = format!(
            "gemini --session-file {}",
            shell_quote(&path.display().to_string())
        );
        Ok(Placement { path, resume })
    }
}
