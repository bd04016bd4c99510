//! Where an agent keeps its sessions: the [`Home`] trait each agent folder's `home.rs`
//! implements. It says which folder the agent reads its sessions from (and the variables the
//! agent itself reads to move it), which files beside them are not sessions, how a session's id
//! shows in its path, and where a session handed over to the agent goes, with the command that
//! resumes it. Finding files on disk from these rules is [`crate::sessions`]' job; writing the
//! new session is the handoff command's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// One agent's session folder and the files in it.
pub trait Home {
    /// The folder the agent keeps its sessions in, as `env` sets it; `None` for a format no
    /// agent keeps sessions of (a plain message list).
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        let _ = env;
        None
    }

    /// Whether `file`, found among sessions, is one of the files this agent keeps beside them
    /// that are no session (a prompt history, a log, a sub-agent's transcript). Asked of every
    /// agent for every file: a folder the user names may hold any agent's.
    fn side_file(&self, file: &SessionFile) -> bool {
        let _ = file;
        false
    }

    /// The name without its suffix of a file this agent keeps a session in as one JSON
    /// document rather than JSON lines (Gemini CLI's legacy `session-*.json`); `None` for any
    /// other name. Such files are sessions too, wherever they are found.
    fn document_stem<'n>(&self, name: &'n str) -> Option<&'n str> {
        let _ = name;
        None
    }

    /// Whether `file`, found in this agent's own folder, is one of its sessions; the side files
    /// aside, all are, unless the agent keeps them in one place there.
    fn holds_session(&self, file: &SessionFile) -> bool {
        let _ = file;
        true
    }

    /// Whether `file`'s session is named by the folder it is in rather than by the file's name
    /// (the session's id is then the folder's name).
    fn named_by_folder(&self, file: &SessionFile) -> bool {
        let _ = file;
        false
    }

    /// Whether `file` is the session `id` (or its start) names, in a way of this agent's own;
    /// a name holding the id, or a folder named by it, is every agent's way.
    fn names_session(&self, file: &SessionFile, id: &str) -> bool {
        let _ = (file, id);
        false
    }

    /// The live process of this agent that holds `session` open by a lock of the agent's own
    /// (not a write descriptor, which [`crate::persist`] sees by itself), described for an
    /// error; `None` when no such lock is there or its process is gone. Asked of every agent
    /// before a session is written in place.
    fn holder(&self, session: &Path) -> Option<String> {
        let _ = session;
        None
    }

    /// Where a session handed over to this agent goes in `home` (the agent's folder, such as
    /// `~/.codex`) and the command that resumes it there, registering the session with the
    /// agent where it keeps a list of its own; an error for a format no agent keeps.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement>;

    /// For an agent that keeps its sessions as rows of one database file rather than as files
    /// (opencode's `opencode.db`): that database's reader and writer; `None` for the others.
    fn database(&self) -> Option<&dyn Database> {
        None
    }
}

/// Sessions kept as rows of one database file. A session in it is named `DB#ID` (the
/// database's path, `#`, the session's id) wherever a session file's path goes; it reads as the
/// JSON lines of the agent's format, and a write-back is those lines, changed, written back as
/// rows.
pub trait Database {
    /// Whether the file named `name` is one of the agent's databases.
    fn is_database(&self, name: &str) -> bool;

    /// Every session in the database at `db`: its id and when it was last written.
    fn sessions(&self, db: &Path) -> Result<Vec<(String, std::time::SystemTime)>>;

    /// The session `id` of the database at `db`, as JSON lines of the agent's format.
    fn read(&self, db: &Path, id: &str) -> Result<Vec<u8>>;

    /// Writes session `id` of the database at `db` back from `lines`, the JSON lines `before`
    /// (as [`Database::read`] made them) changed: all at once or not at all, and only when no
    /// process of the agent is writing the database. Returns what it did, for a note.
    fn write(&self, db: &Path, id: &str, before: &[u8], lines: &[u8]) -> Result<String>;

    /// Puts session `id`'s rows back as the newest backup [`Database::write`] left holds them,
    /// under the same refusals; the backup is kept, renamed, so the next undo takes the one
    /// before. Returns what it did.
    fn undo(&self, db: &Path, id: &str) -> Result<String>;

    /// Creates session `id` in the database at `db` from `lines` (a handoff's), never over a
    /// session that is there. Returns what it did.
    fn create(&self, db: &Path, id: &str, lines: &[u8]) -> Result<String>;
}

/// The environment, as the agents read it.
pub struct Vars<'e> {
    /// A variable's value, if it is set and not empty.
    pub lookup: &'e dyn Fn(&str) -> Option<OsString>,
}

impl Vars<'_> {
    /// The folder a variable names, `~` expanded as the agents expand it; `None` when unset.
    pub fn dir(&self, name: &str) -> Option<PathBuf> {
        let path = PathBuf::from((self.lookup)(name)?);
        let Ok(rest) = path.strip_prefix("~") else {
            return Some(path);
        };
        Some(match (self.lookup)("HOME") {
            Some(home) => PathBuf::from(home).join(rest),
            None => path,
        })
    }

    /// The user's home folder.
    pub fn home(&self) -> Result<PathBuf> {
        (self.lookup)("HOME")
            .or_else(|| (self.lookup)("USERPROFILE"))
            .map(PathBuf::from)
            .context("cannot find the agents' sessions: HOME is not set")
    }

    /// The folder variable `name` names, else `fallback` under the home folder.
    pub fn dir_or_home(&self, name: &str, fallback: &[&str]) -> Result<PathBuf> {
        match self.dir(name) {
            Some(dir) => Ok(dir),
            None => Ok(fallback
                .iter()
                .fold(self.home()?, |dir, part| dir.join(part))),
        }
    }
}

/// A file found where sessions are, as the rules see it.
#[derive(Debug, Clone, Copy)]
pub struct SessionFile<'p> {
    /// Its path.
    pub path: &'p Path,
    /// Its name without the session suffix (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`).
    pub stem: &'p str,
}

impl SessionFile<'_> {
    /// The name of the folder it is in.
    pub fn folder(&self) -> Option<&str> {
        self.path.parent()?.file_name()?.to_str()
    }

    /// Whether a folder on its path is named `name`.
    pub fn under(&self, name: &str) -> bool {
        self.path
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .any(|c| c.as_os_str() == name)
    }
}

/// A session handed over to an agent, to be placed in its folder.
#[derive(Debug, Clone, Copy)]
pub struct NewSession<'s> {
    /// The target's name, as the user gave it with `--to` (for messages).
    pub format: &'s str,
    /// The session's id.
    pub id: &'s str,
    /// Its working directory, when known.
    pub cwd: Option<&'s str>,
    /// When it starts, in milliseconds since the epoch.
    pub start_ms: u64,
}

impl NewSession<'_> {
    /// The working directory, which an agent that keeps sessions by directory needs.
    pub fn cwd(&self) -> Result<&str> {
        self.cwd.with_context(|| {
            format!(
                "--to-session-dir: {} keeps sessions by working directory; give --cwd",
                self.format
            )
        })
    }

    /// The start as `YYYY-MM-DDTHH:MM:SS.mmmZ`, which agents build file names from.
    pub fn stamp(&self) -> String {
        super::handoff::time::format_ms(self.start_ms)
    }
}

/// Where a handed-over session goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The file to write.
    pub path: PathBuf,
    /// The shell command that resumes it.
    pub resume: String,
}

/// `text` quoted for a POSIX shell when it needs it; a text a shell cannot hold (a NUL byte)
/// is left as it is, for the person to see.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| text.to_owned(), |quoted| quoted.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting_only_where_needed() {
        assert_eq!(shell_quote("/a/b-c.d"), "/a/b-c.d");
        // A single quote inside: shlex writes the whole in double quotes, where nothing else
        // of it would expand.
        assert_eq!(shell_quote("/a b/it's"), r#""/a b/it's""#);
        assert_eq!(shell_quote("/a b/$HOME"), "'/a b/$HOME'");
    }

    #[test]
    fn variables_name_folders_and_home_is_the_fallback() {
        let lookup = |name: &str| match name {
            "HOME" => Some(OsString::from("/h")),
            "X" => Some(OsString::from("~/x")),
            _ => None,
        };
        let vars = Vars { lookup: &lookup };
        assert_eq!(vars.dir("X"), Some(PathBuf::from("/h/x")));
        assert_eq!(
            vars.dir_or_home("Y", &[".y", "z"]).unwrap(),
            Path::new("/h/.y/z")
        );
    }
}
