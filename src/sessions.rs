//! Finding the agents' session files, in their places or in any directory.
//!
//! Each agent has one place, overridable by the variable the agent itself reads (checked in the
//! agents' own code); its folder's `home.rs` says where (see [`crate::transcript::home`]), which
//! files beside its sessions are not sessions, and how a file names its session. The
//! environment is passed in as a lookup function, so tests (and callers) decide what it holds.
//!
//! A session file is a `.jsonl` file (also `.jsonl.gz`, `.jsonl.zst`) that no agent calls one
//! of its side files (a prompt history, a log, a sub-agent's transcript, a rotated context):
//! those are not sessions a user resumes.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Context, Result};

use crate::transcript::home::{SessionFile, Vars};
use crate::transcript::{registry, store, FormatId};

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
    /// GitHub Copilot CLI: `~/.copilot/session-state/*/events.jsonl`, or
    /// `$COPILOT_HOME/session-state`.
    Copilot,
    /// Factory Droid: `~/.factory/sessions`, with `$FACTORY_HOME_OVERRIDE` in place of `~`.
    Droid,
    /// Qwen Code: `~/.qwen/projects/*/chats`, or `$QWEN_RUNTIME_DIR/projects`, or
    /// `$QWEN_HOME/projects`.
    QwenCode,
    /// opencode: the rows of `~/.local/share/opencode/opencode.db` (`$XDG_DATA_HOME`,
    /// `$OPENCODE_DB`), each session named `DB#ID`.
    #[value(name = "opencode")]
    OpenCode,
}

impl Agent {
    /// Every agent, in the order their places are searched.
    pub const ALL: [Agent; 9] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Kimi,
        Agent::Pi,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Droid,
        Agent::QwenCode,
        Agent::OpenCode,
    ];

    /// The format of the agent's sessions, whose folder knows where they are.
    pub fn format(self) -> FormatId {
        match self {
            Agent::ClaudeCode => FormatId::ClaudeCode,
            Agent::Codex => FormatId::Codex,
            Agent::Kimi => FormatId::Openai,
            Agent::Pi => FormatId::Pi,
            Agent::Gemini => FormatId::Gemini,
            Agent::Copilot => FormatId::Copilot,
            Agent::Droid => FormatId::Droid,
            Agent::QwenCode => FormatId::QwenCode,
            Agent::OpenCode => FormatId::OpenCode,
        }
    }

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Kimi => "kimi",
            Agent::Pi => "pi",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Droid => "droid",
            Agent::QwenCode => "qwen-code",
            Agent::OpenCode => "opencode",
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
    let vars = Vars { lookup: env };
    agent
        .format()
        .format()
        .sessions(&vars)
        .with_context(|| format!("{} keeps no sessions", agent.as_str()))?
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

/// The file name without its session suffix, or `None` when it is not a session file's name
/// (JSONL, or a name an agent gives a session it keeps as one JSON document).
fn stem(name: &str) -> Option<&str> {
    SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .or_else(|| registry::agents().find_map(|agent| agent.document_stem(name)))
}

/// The file at `path` as the agents' rules see it; `None` when its name has no session suffix.
fn session_file(path: &Path) -> Option<SessionFile<'_>> {
    let stem = stem(path.file_name()?.to_str()?)?;
    Some(SessionFile { path, stem })
}

/// The session id a session file's path carries: its name without the suffix (Claude Code's
/// `<uuid>.jsonl`, Codex's `rollout-<time>-<uuid>`, pi's `<time>_<uuid>`), unless an agent names
/// it otherwise (kimi-cli's `context.jsonl`, named by its folder). `None` for a name with no
/// session suffix.
pub fn id_of(path: &Path) -> Option<String> {
    let file = session_file(path)?;
    let mut agents = registry::agents();
    if agents.any(|agent| agent.named_by_folder(&file)) {
        return file.folder().map(str::to_owned);
    }
    Some(file.stem.to_owned())
}

/// Whether `path` (found under a searched directory) names a session file. `agent` is the
/// place's agent, when the directory is one.
pub fn is_session_file(path: &Path, agent: Option<Agent>) -> bool {
    let Some(file) = session_file(path) else {
        return false;
    };
    let mut agents = registry::agents();
    if agents.any(|any| any.side_file(&file)) {
        return false;
    }
    agent.is_none_or(|agent| agent.format().format().holds_session(&file))
}

/// Every session file under `dir`, sorted by path. Symbolic links to directories are not
/// followed (a link back up would never end); links to files are.
///
/// A database an agent keeps its sessions in stands for them, named alone or found in `dir`.
pub fn find_in(dir: &Path, agent: Option<Agent>) -> Result<Vec<Session>> {
    if let Some(stored) = store::sessions(dir) {
        return Ok(sessions_of(stored?));
    }
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
            if let Some(stored) = store::named_sessions(&path) {
                found.extend(sessions_of(stored?));
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

/// The sessions of a database, named `DB#ID`, as sessions found.
fn sessions_of(stored: Vec<(PathBuf, SystemTime)>) -> Vec<Session> {
    stored
        .into_iter()
        .map(|(path, modified)| Session { path, modified })
        .collect()
}

/// Every session file in the places that exist, newest first (ties broken by path).
pub fn find_all(places: &[Place]) -> Result<Vec<Session>> {
    let mut all = Vec::new();
    for place in places {
        if place.dir.is_dir() {
            all.extend(find_in(&place.dir, Some(place.agent))?);
        } else if let Some(database) = place.agent.format().format().database() {
            // An agent that keeps its sessions in one database: its place is that file.
            if place.dir.is_file() {
                all.extend(sessions_of(store::sessions_of(database, &place.dir)?));
            }
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

/// The one session in `places` with this id (or the start of it): its file name holds the id,
/// its folder is named by it, or its agent names it so (see
/// [`crate::transcript::home::Home::names_session`]).
pub fn by_id(places: &[Place], id: &str) -> Result<PathBuf> {
    session_by_id(places, id).map(|session| session.path)
}

/// The one session in `places` that `id` names, with when it was last written (see [`by_id`]).
pub fn session_by_id(places: &[Place], id: &str) -> Result<Session> {
    if id.is_empty() {
        bail!("--session needs an id");
    }
    let matches: Vec<Session> = find_all(places)?
        .into_iter()
        .filter(|session| names(&session.path, id))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!("no session with id {id} in {}", searched(places)),
        [first, second, ..] => bail!(
            "--session {id} matches {} sessions ({}, {}, …); give more of the id",
            matches.len(),
            first.path.display(),
            second.path.display()
        ),
    }
}

/// Whether the session file at `path` is the one `id` names.
fn names(path: &Path, id: &str) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let file = SessionFile {
        path,
        stem: stem(name).unwrap_or(name),
    };
    let mut agents = registry::agents();
    file.stem.contains(id)
        || file.folder() == Some(id)
        || agents.any(|agent| agent.names_session(&file, id))
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
                "/h/.gemini/tmp",
                "/h/.copilot/session-state",
                "/h/.factory/sessions",
                "/h/.qwen/projects",
                "/h/.local/share/opencode/opencode.db"
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
            ("COPILOT_HOME", "/cp"),
            ("FACTORY_HOME_OVERRIDE", "/f"),
            ("QWEN_HOME", "/q"),
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
                "/g/.gemini/tmp",
                "/cp/session-state",
                "/f/.factory/sessions",
                "/q/projects",
                "/h/.local/share/opencode/opencode.db"
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
        // Gemini CLI's legacy sessions, one JSON document each; other JSON files are none.
        assert!(yes(
            "t/abc/chats/session-2026-01-10T02-08-faff42ab.json",
            Some(Agent::Gemini)
        ));
        assert!(yes("t/abc/chats/session-1.json", None));
        assert!(!yes("t/abc/chats/notes.json", Some(Agent::Gemini)));
        assert!(!yes("t/abc/logs/session-1.json", Some(Agent::Gemini)));
    }
}
