//! Where pi keeps its sessions: `$PI_CODING_AGENT_SESSION_DIR`, else
//! `$PI_CODING_AGENT_DIR/sessions` (`~/.pi/agent/sessions`), one folder per working directory
//! (`--<path, separators made '-'>--`), each session `<start time>_<session id>.jsonl` there.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Pi;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, Vars};

impl Home for Pi {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(match env.dir("PI_CODING_AGENT_SESSION_DIR") {
            Some(dir) => Ok(dir),
            None => env
                .dir_or_home("PI_CODING_AGENT_DIR", &[".pi", "agent"])
                .map(|dir| dir.join("sessions")),
        })
    }

    /// `pi --session FILE` in the working directory resumes it.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
        let slug = format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"));
        let name = format!(
            "{}_{}.jsonl",
            session.stamp().replace([':', '.'], "-"),
            session.id
        );
        let path = home.join("sessions").join(slug).join(name);
        let resume = format!(
            "cd {} && pi --session {}",
            shell_quote(cwd),
            shell_quote(&path.display().to_string())
        );
        Ok(Placement { path, resume })
    }
}
