//! Commands left running: a dev server, a watcher, a long test run the agent polls. What says a
//! command keeps running, which call reads from or stops it, and what says it ended, in each
//! agent's wording:
//!
//! - Codex's unified exec answers `Process running with session ID N` (a code-mode script gets
//!   `{"session_id": N}` and no `exit_code`, see `code_mode`); `write_stdin({session_id})` reads
//!   more of it, and says `Process exited with code N` once it ended.
//! - Claude Code answers a `run_in_background` Bash call with `Command running in background
//!   with ID: X`; `TaskOutput({task_id})` (before it, `BashOutput({bash_id})`) reads it, with a
//!   `<status>` of `running`, `completed`, `failed` or `killed`; `TaskStop({task_id})` (before
//!   it, `KillShell({shell_id})`) stops it.
//!
//! A command still running when the transcript ends is current state: the next turn may talk to
//! the server, or have to stop it.

use serde_json::Value;

use super::outcome::exit_status;
use super::text::has;

/// A call on a background process: its id, and whether the call stops it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Session {
    pub(super) id: String,
    pub(super) stops: bool,
}

/// The background process a call reads from or stops, from its arguments.
pub(super) fn session_argument(name: &str, arguments: &str) -> Option<Session> {
    if !has(arguments, "_id") {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).ok()?;
    let id = ["session_id", "task_id", "bash_id", "shell_id"]
        .iter()
        .find_map(|k| match args.get(*k)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })?;
    let lower = name.to_ascii_lowercase();
    let stops = lower.contains("kill") || lower.contains("stop");
    Some(Session { id, stops })
}

/// The id of the process a command's result says keeps running in the background.
pub(super) fn running_session(result: &str) -> Option<String> {
    const MARKS: [&str; 2] = [
        "Process running with session ID ",
        "Command running in background with ID: ",
    ];
    let head = result.get(..result.len().min(400)).unwrap_or(result);
    MARKS.iter().find_map(|mark| {
        let at = memchr::memmem::find(head.as_bytes(), mark.as_bytes())?;
        let id: String = head[at + mark.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect();
        (!id.is_empty()).then_some(id)
    })
}

/// True when a read of a background process says it has ended: an exit status, or a status
/// other than `running`.
pub(super) fn session_ended(result: &str) -> bool {
    if let Some(at) = result.find("<status>") {
        let status = &result[at + "<status>".len()..];
        return !status.starts_with("running");
    }
    exit_status(result).is_some() && running_session(result).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_reading_and_stopping_background_commands() {
        assert_eq!(
            running_session("Chunk ID: 9\nWall time: 10.0 seconds\nProcess running with session ID 42\nOutput:\nready"),
            Some("42".into())
        );
        assert_eq!(
            running_session("Command running in background with ID: b463a86. Output is being written to: /tmp/x.output"),
            Some("b463a86".into())
        );
        assert_eq!(running_session("Process exited with code 0"), None);
        assert_eq!(
            session_argument("write_stdin", r#"{"session_id":42,"chars":""}"#),
            Some(Session {
                id: "42".into(),
                stops: false
            })
        );
        assert_eq!(
            session_argument("TaskStop", r#"{"task_id":"b463a86"}"#),
            Some(Session {
                id: "b463a86".into(),
                stops: true
            })
        );
        assert_eq!(session_argument("Bash", r#"{"command":"ls"}"#), None);
        assert!(session_ended(
            "Chunk ID: 1\nProcess exited with code 1\nOutput:\nboom"
        ));
        assert!(!session_ended(
            "Chunk ID: 1\nProcess running with session ID 42\nOutput:"
        ));
        assert!(session_ended(
            "<status>completed</status>\n<exit_code>0</exit_code>"
        ));
        assert!(!session_ended("<status>running</status>\n<output>…"));
    }
}
