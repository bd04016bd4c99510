//! Where the agents keep their sessions, and finding session files there or in any directory.
//!
//! Each agent has one place, overridable by the variable the agent itself reads (checked in the
//! agents' own code): Claude Code `$CLAUDE_CONFIG_DIR/projects` (`~/.claude/projects`), Codex
//! `$CODEX_HOME/sessions` (`~/.codex/sessions`), kimi-cli `$KIMI_SHARE_DIR/sessions`
//! (`~/.kimi/sessions`), pi `$PI_CODING_AGENT_SESSION_DIR`, else
//! `$PI_CODING_AGENT_DIR/sessions` (`~/.pi/agent/sessions`), and Gemini CLI
//! `$GEMINI_CLI_HOME/.gemini/tmp/*/chats` (`~/.gemini/tmp/*/chats`). The environment is passed
//! in as a lookup function, so tests (and callers) decide what it holds.
//!
//! A session file is a `.jsonl` file (also `.jsonl.gz`, `.jsonl.zst`) that is not one of the
//! side files agents keep next to their sessions: kimi-cli's `wire.jsonl` and rotated
//! `context_N.jsonl`, the prompt histories `history.jsonl` of Claude Code and Codex, Gemini
//! CLI's `logs/session-*.jsonl`, and the transcripts of sub-agents
//! (`subagents/`, Claude Code's `agent-*.jsonl`), which are not sessions a user resumes.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};

/// The agents whose session places condense knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: `~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`.
    ClaudeCode,
    /// Codex CLI: `~/.codex/sessions`, or `$CODEX_HOME/sessions`.
    Codex,
    /// kimi-cli: `~/.kimi/sessions`, or `$KIMI_SHARE_DIR/sessions`.
    Kimi,
    /// pi: `~/.pi/agent/sessions`, or `$PI_CODING_AGENT_SESSION_DIR`, or
    /// `$PI_CODING_AGENT_DIR/sessions`.
    Pi,
    /// Gemini CLI: `~/.gemini/tmp/*/chats`, with `$GEMINI_CLI_HOME` in place of `~`.
    Gemini,
}

impl Agent {
    /// Every agent, in the order their places are searched.
    pub const ALL: [Agent; 5] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Kimi,
        Agent::Pi,
        Agent::Gemini,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Kimi => "kimi",
            Agent::Pi => "pi",
            Agent::Gemini => "gemini",
        }
    }
}

/// An environment lookup: the value of a variable, if it is set and not empty.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// The process environment, as [`Env`] wants it.
pub fn process_env(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// One agent's session place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Whose place it is.
    pub agent: Agent,
    /// The directory searched.
    pub dir: PathBuf,
}

/// The session places of `agents`, as the environment sets them.
pub fn places(agents: &[Agent], env: Env) -> Result<Vec<Place>> {
    agents
        .iter()
        .map(|&agent| {
            Ok(Place {
                agent,
                dir: place(agent, env)?,
            })
        })
        .collect()
}

fn place(agent: Agent, env: Env) -> Result<PathBuf> {
    // An agent's own variable wins; the home directory is needed only without it.
    let var = |name: &str| env(name).map(|value| expand_tilde(PathBuf::from(value), env));
    let home = || -> Result<PathBuf> {
        env("HOME")
            .or_else(|| env("USERPROFILE"))
            .map(PathBuf::from)
            .context("cannot find the agents' sessions: HOME is not set")
    };
    Ok(match agent {
        Agent::ClaudeCode => match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir,
            None => home()?.join(".claude"),
        }
        .join("projects"),
        Agent::Codex => match var("CODEX_HOME") {
            Some(dir) => dir,
            None => home()?.join(".codex"),
        }
        .join("sessions"),
        Agent::Kimi => match var("KIMI_SHARE_DIR") {
            Some(dir) => dir,
            None => home()?.join(".kimi"),
        }
        .join("sessions"),
        Agent::Pi => match var("PI_CODING_AGENT_SESSION_DIR") {
            Some(dir) => dir,
            None => match var("PI_CODING_AGENT_DIR") {
                Some(dir) => dir,
                None => home()?.join(".pi").join("agent"),
            }
            .join("sessions"),
        },
        Agent::Gemini => match var("GEMINI_CLI_HOME") {
            Some(dir) => dir,
            None => home()?,
        }
        .join(".gemini")
        .join("tmp"),
    })
}

/// `~` and `~/…` as the agents expand them in their variables.
fn expand_tilde(path: PathBuf, env: Env) -> PathBuf {
    let Ok(rest) = path.strip_prefix("~") else {
        return path;
    };
    match env("HOME") {
        Some(home) => PathBuf::from(home).join(rest),
        None => path,
    }
}

/// A session file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Its path.
    pub path: PathBuf,
    /// When it was last written.
    pub modified: SystemTime,
}

/// The suffixes of session files: JSONL, plain or compressed.
const SUFFIXES: [&str; 3] = [".jsonl", ".jsonl.gz", ".jsonl.zst"];

/// The file name without its session suffix, or `None` when it is not a session file's name.
fn stem(name: &str) -> Option<&str> {
    SUFFIXES.iter().find_map(|suffix| name.strip_suffix(suffix))
}

/// The session id a session file's path carries: its name without the suffix (Claude Code's
/// `<uuid>.jsonl`, Codex's `rollout-<time>-<uuid>`, pi's `<time>_<uuid>`), or for kimi-cli's
/// `context.jsonl` the name of the directory it sits in. `None` for a name with no session
/// suffix.
pub fn id_of(path: &Path) -> Option<String> {
    let stem = stem(path.file_name()?.to_str()?)?;
    if stem.starts_with("context") {
        let dir = path.parent()?.file_name()?.to_str()?;
        return Some(dir.to_owned());
    }
    Some(stem.to_owned())
}

/// Whether `path` (found under a searched directory) names a session file. `agent` is the
/// place's agent, when the directory is one.
pub fn is_session_file(path: &Path, agent: Option<Agent>) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some(stem) = stem(name) else {
        return false;
    };
    let rotated = stem
        .strip_prefix("context_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let parent = path.parent().and_then(Path::file_name);
    let in_subagents = path
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .any(|c| c.as_os_str() == "subagents");
    // Gemini CLI keeps activity logs as `<project>/logs/session-*.jsonl` beside its chats.
    let gemini_log = parent == Some("logs".as_ref()) && stem.starts_with("session-");
    // Claude Code names a sub-agent's transcript `agent-<hex id>.jsonl`.
    let sub_agent = stem
        .strip_prefix("agent-")
        .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()));
    // `history.jsonl` beside Claude Code's and Codex's sessions is the prompts typed, not a
    // transcript.
    if stem == "wire" || stem == "history" || rotated || sub_agent || in_subagents || gemini_log {
        return false;
    }
    // In Gemini CLI's temp directory the sessions are the files in `chats/`.
    if agent == Some(Agent::Gemini) {
        return parent == Some("chats".as_ref());
    }
    true
}

/// Every session file under `dir`, sorted by path. Symbolic links to directories are not
/// followed (a link back up would never end); links to files are.
pub fn find_in(dir: &Path, agent: Option<Agent>) -> Result<Vec<Session>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            fs::read_dir(&dir).with_context(|| format!("{}: cannot list", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .with_context(|| format!("{}: cannot read", path.display()))?;
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            if !is_session_file(&path, agent) {
                continue;
            }
            // A dangling link or a file removed meanwhile is not a session.
            let Ok(metadata) = fs::metadata(&path) else {
                continue;
            };
            if metadata.is_file() {
                found.push(Session {
                    modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    path,
                });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// Every session file in the places that exist, newest first (ties broken by path).
pub fn find_all(places: &[Place]) -> Result<Vec<Session>> {
    let mut all = Vec::new();
    for place in places {
        if place.dir.is_dir() {
            all.extend(find_in(&place.dir, Some(place.agent))?);
        }
    }
    newest_first(&mut all);
    Ok(all)
}

/// Sorts sessions newest first, ties by path.
pub fn newest_first(sessions: &mut [Session]) {
    sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
}

/// The newest session in `places`.
pub fn latest(places: &[Place]) -> Result<PathBuf> {
    match find_all(places)?.into_iter().next() {
        Some(session) => Ok(session.path),
        None => bail!("no session found in {}", searched(places)),
    }
}

/// The one session in `places` with this id: its file name holds the id (Claude Code, Codex, pi),
/// its directory's name starts with it (kimi-cli), or, for Gemini CLI, its name ends with the id's
/// first eight characters, as Gemini CLI names its files.
pub fn by_id(places: &[Place], id: &str) -> Result<PathBuf> {
    if id.is_empty() {
        bail!("--session needs an id");
    }
    let short: String = id.chars().take(8).collect();
    let matches: Vec<Session> = find_all(places)?
        .into_iter()
        .filter(|session| {
            let path = &session.path;
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let stem = stem(name).unwrap_or(name);
            let dir = path.parent().and_then(Path::file_name);
            // kimi-cli names a session's directory by its id and the file `context*.jsonl`;
            // the start of the id finds it, as it finds the other agents' files.
            let kimi_dir = stem.starts_with("context")
                && dir
                    .and_then(|d| d.to_str())
                    .is_some_and(|d| d.starts_with(id));
            stem.contains(id)
                || dir == Some(id.as_ref())
                || kimi_dir
                || (stem.starts_with("session-") && stem.ends_with(&format!("-{short}")))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.path.clone()),
        [] => bail!("no session with id {id} in {}", searched(places)),
        [first, second, ..] => bail!(
            "--session {id} matches {} sessions ({}, {}, …); give more of the id",
            matches.len(),
            first.path.display(),
            second.path.display()
        ),
    }
}

/// The newest session file under `dir`, for the commands that read one transcript.
pub fn newest_in(dir: &Path) -> Result<PathBuf> {
    let mut found = find_in(dir, None)?;
    newest_first(&mut found);
    match found.into_iter().next() {
        Some(session) => Ok(session.path),
        None => bail!(
            "{}: no session file (*.jsonl) in this directory",
            dir.display()
        ),
    }
}

fn searched(places: &[Place]) -> String {
    places
        .iter()
        .map(|p| p.dir.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_places_follow_home_and_the_agents_own_variables() {
        let home = env_of(&[("HOME", "/h")]);
        let dirs: Vec<PathBuf> = places(&Agent::ALL, &home)
            .unwrap()
            .into_iter()
            .map(|p| p.dir)
            .collect();
        assert_eq!(
            dirs,
            [
                "/h/.claude/projects",
                "/h/.codex/sessions",
                "/h/.kimi/sessions",
                "/h/.pi/agent/sessions",
                "/h/.gemini/tmp"
            ]
            .map(PathBuf::from)
        );
        let set = env_of(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", "~/cx"),
            ("KIMI_SHARE_DIR", "/k"),
            ("PI_CODING_AGENT_DIR", "/p"),
            ("GEMINI_CLI_HOME", "/g"),
        ]);
        let dirs: Vec<PathBuf> = places(&Agent::ALL, &set)
            .unwrap()
            .into_iter()
            .map(|p| p.dir)
            .collect();
        assert_eq!(
            dirs,
            [
                "/c/projects",
                "/h/cx/sessions",
                "/k/sessions",
                "/p/sessions",
                "/g/.gemini/tmp"
            ]
            .map(PathBuf::from)
        );
        let pi = env_of(&[("PI_CODING_AGENT_SESSION_DIR", "/ps")]);
        assert_eq!(places(&[Agent::Pi], &pi).unwrap()[0].dir, Path::new("/ps"));
        let nothing = env_of(&[]);
        let error = places(&[Agent::Codex], &nothing).unwrap_err();
        assert!(error.to_string().contains("HOME is not set"));
    }

    #[test]
    fn side_files_are_not_sessions() {
        let yes = |p: &str, agent| is_session_file(Path::new(p), agent);
        assert!(yes("p/-w/0b4e.jsonl", None));
        assert!(yes("s/2026/01/02/rollout-x.jsonl.zst", None));
        assert!(yes("s/h/id/context.jsonl", Some(Agent::Kimi)));
        assert!(!yes("s/h/id/wire.jsonl", None));
        assert!(!yes(".codex/history.jsonl", None));
        assert!(!yes("s/h/id/context_1.jsonl", None));
        assert!(!yes("p/-w/agent-a1.jsonl", None));
        assert!(yes("s/agent-sessions-small.jsonl", None));
        assert!(!yes("p/-w/0b4e/subagents/x.jsonl", None));
        assert!(!yes("p/-w/notes.json", None));
        assert!(!yes("p/-w/s.jsonl.bak", None));
        assert!(yes("t/abc/chats/session-1.jsonl", Some(Agent::Gemini)));
        assert!(!yes("t/abc/logs/session-1.jsonl", Some(Agent::Gemini)));
        assert!(!yes("t/abc/logs/session-1.jsonl", None));
        assert!(!yes("t/abc/other/x.jsonl", Some(Agent::Gemini)));
    }
}
