//! The git branch the session works on, as the agent recorded it: Claude Code's `gitBranch` on
//! its lines (the latest one, since the agent may switch), Codex's `git.branch` in its session
//! header. A branch names the work (`soph/agent-attribution`, `fix-empty-amounts`) where a
//! first request may only be a chore done long ago, and the next turn checks it out, diffs
//! against it, opens a pull request from it.

use crate::transcript::Record;

/// The latest branch the records name; `None` for a detached `HEAD` or when none does.
pub fn branch(records: &[Record]) -> Option<String> {
    const KEYS: [&[u8]; 2] = [b"\"gitBranch\":\"", b"\"branch\":\""];
    records.iter().rev().find_map(|record| {
        KEYS.iter().find_map(|key| {
            let at = memchr::memmem::rfind(record.raw, key)? + key.len();
            let rest = &record.raw[at..];
            let end = memchr::memchr(b'"', rest)?;
            let name = std::str::from_utf8(&rest[..end]).ok()?;
            let usable = !name.is_empty()
                && name != "HEAD"
                && name.len() <= 120
                && !name.contains(['\\', ' ']);
            usable.then(|| name.to_owned())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Entry, Message, Role};

    fn line(raw: &'static [u8]) -> Record<'static> {
        Record::new(1, raw, Entry::Message(Message::new(Role::User, Vec::new())))
    }

    #[test]
    fn the_latest_branch_named() {
        let records = [
            line(br#"{"type":"user","gitBranch":"main"}"#),
            line(br#"{"type":"assistant","gitBranch":"soph/agent-attribution"}"#),
            line(br#"{"type":"user","gitBranch":"HEAD"}"#),
            line(br#"{"type":"user"}"#),
        ];
        assert_eq!(branch(&records).as_deref(), Some("soph/agent-attribution"));
        let codex = [line(
            br#"{"type":"session_meta","payload":{"git":{"commit_hash":"c7","branch":"fix-empty-amounts"}}}"#,
        )];
        assert_eq!(branch(&codex).as_deref(), Some("fix-empty-amounts"));
        assert_eq!(branch(&[line(br#"{"type":"user"}"#)]), None);
    }
}
