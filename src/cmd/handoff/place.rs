//! `--to-session-dir`: the new session written where the target agent looks for its sessions,
//! and the command that resumes it there. Where that is, each agent's folder says (its
//! `home.rs`, see [`crate::transcript::home::Home::place`]); this writes the file, and never
//! over one that exists.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::compaction::handover::Written;
use crate::transcript::home::NewSession;
use crate::transcript::FormatId;

/// A session placed in an agent's folder.
pub struct Placed {
    /// The file written.
    pub path: PathBuf,
    /// The shell command that resumes it.
    pub resume: String,
}

/// Writes `written` into `home` (the agent's folder, such as `~/.codex`) where `target` looks.
pub fn place(target: FormatId, home: &Path, written: &Written) -> Result<Placed> {
    let session = NewSession {
        format: target.as_str(),
        id: &written.id,
        cwd: written.cwd.as_deref(),
        start_ms: written.start_ms,
    };
    let placement = target.format().place(home, &session)?;
    write_new(&placement.path, &written.bytes)?;
    Ok(Placed {
        path: placement.path,
        resume: placement.resume,
    })
}

/// Writes `bytes` to a new file at `path`, making its folders; an existing file is an error.
/// A session in an agent's database (`DB#ID`) is created there as rows instead.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some((db, id, database)) = crate::transcript::store::split(path) {
        let note = database.create(&db, &id, bytes)?;
        eprintln!("condense: {}", crate::output::sanitize(&note));
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| {
            format!(
                "{}: cannot create the session (the same handoff is there already?)",
                path.display()
            )
        })?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(cwd: Option<&str>) -> Written {
        Written {
            bytes: b"{}\n".to_vec(),
            id: "11111111-2222-4333-8444-555555555555".to_owned(),
            cwd: cwd.map(str::to_owned),
            start_ms: crate::transcript::handoff::time::parse_ms("2026-12-01T09:05:06.789Z")
                .unwrap(),
        }
    }

    #[test]
    fn each_agent_finds_the_file_where_its_code_looks() {
        let home = tempfile::tempdir().unwrap();
        let session = written(Some("/home/me/my.project"));
        let id = &session.id;
        let cases = [
            (
                FormatId::ClaudeCode,
                format!("projects/-home-me-my-project/{id}.jsonl"),
                format!("cd /home/me/my.project && claude --resume {id}"),
            ),
            (
                FormatId::Codex,
                format!("sessions/2026/12/01/rollout-2026-12-01T09-05-06-{id}.jsonl"),
                format!("cd /home/me/my.project && codex resume {id}"),
            ),
            (
                FormatId::Pi,
                format!("sessions/--home-me-my.project--/2026-12-01T09-05-06-789Z_{id}.jsonl"),
                String::new(),
            ),
            (
                FormatId::Openai,
                // kimi-cli's folder for the work directory: the MD5 of its path.
                format!("sessions/d1ff7677166a37a1bd742fc832f59b92/{id}/context.jsonl"),
                format!("cd /home/me/my.project && kimi --session {id}"),
            ),
        ];
        for (target, path, resume) in cases {
            let placed = place(target, home.path(), &session).unwrap();
            assert_eq!(placed.path, home.path().join(&path), "{target:?}");
            if !resume.is_empty() {
                assert_eq!(placed.resume, resume);
            }
            // The same handoff again finds its file there and leaves it alone.
            assert!(place(target, home.path(), &session).is_err());
        }
        let kimi: serde_json::Value =
            serde_json::from_slice(&fs::read(home.path().join("kimi.json")).unwrap()).unwrap();
        assert_eq!(kimi["work_dirs"][0]["path"], "/home/me/my.project");
        let gemini = place(FormatId::Gemini, home.path(), &session).unwrap();
        assert_eq!(
            gemini.path,
            home.path().join("session-2026-12-01T09-05-11111111.jsonl")
        );
        assert!(gemini.resume.starts_with("gemini --session-file "));
        assert!(place(FormatId::Codex, home.path(), &written(None)).is_err());
        assert!(place(FormatId::Anthropic, home.path(), &session).is_err());
    }
}
