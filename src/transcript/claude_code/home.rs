//! Where Claude Code keeps its sessions: `$CLAUDE_CONFIG_DIR/projects` (`~/.claude/projects`),
//! one folder per working directory (its path with every character but letters and digits
//! made `-`), each session `<session id>.jsonl` there. Beside them are `history.jsonl` (the
//! prompts typed, not a transcript) and the transcripts of sub-agents (`agent-<hex id>.jsonl`,
//! and files under `subagents/`), which are not sessions a user resumes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::ClaudeCode;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

impl Home for ClaudeCode {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("CLAUDE_CONFIG_DIR", &[".claude"])
                .map(|dir| dir.join("projects")),
        )
    }

    fn side_file(&self, file: &SessionFile) -> bool {
        let sub_agent = file
            .stem
            .strip_prefix("agent-")
            .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()));
        file.stem == "history" || sub_agent || file.under("subagents")
    }

    /// `claude --resume ID` in the working directory finds the file at
    /// `projects/<cwd, every character but letters and digits made '-'>/ID.jsonl`.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let id = session.id;
        let slug: String = cwd
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        Ok(Placement {
            path: home.join("projects").join(slug).join(format!("{id}.jsonl")),
            resume: format!("cd {} && claude --resume {id}", shell_quote(cwd)),
        })
    }
}
