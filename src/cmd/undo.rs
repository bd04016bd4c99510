//! `condense undo FILE`: undoes the newest in-place write the journal records
//! ([`crate::undo`]), through the safe in-place writer (lock, atomic replace, a backup of the
//! state it undoes); `--list` shows the journal and what can be undone.

use std::io::Write;

use anyhow::{anyhow, Context, Result};
use serde::Serialize;

use crate::cli::UndoArgs;
use crate::output;
use crate::persist::{self, journal, Done};
use crate::undo::{self, Entry};
use crate::Outcome;

#[derive(Serialize)]
struct Listed<'a> {
    /// 1 is the newest write.
    index: usize,
    #[serde(flatten)]
    entry: &'a Entry,
    undoable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
}

#[derive(Serialize)]
struct Undone<'a> {
    file: String,
    #[serde(flatten)]
    entry: &'a Entry,
    /// Where the state that was undone is kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    kept_as: Option<std::path::PathBuf>,
}

/// The backup's bytes of a replace, `None` for an append or a backup that is gone.
fn backup_of(entry: &Entry) -> Option<Vec<u8>> {
    match entry {
        Entry::Replace { backup, .. } => std::fs::read(backup).ok(),
        Entry::Append { .. } => None,
    }
}

/// Runs `undo`.
pub fn run(args: &UndoArgs, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(undone) = super::stored::undo(&args.file, out) {
        return undone;
    }
    // A document session (Gemini CLI's legacy file) is written back beside it.
    let path = &super::document::undo_file(&args.file);
    let name = path.display().to_string();
    if args.list {
        let entries = journal::entries(path)?;
        let current = std::fs::read(path).with_context(|| format!("{name}: cannot read"))?;
        for (n, entry) in entries.iter().rev().enumerate() {
            let why = if n == 0 {
                undo::undone(entry, &current, backup_of(entry).as_deref()).err()
            } else {
                Some("undo the newer writes first".to_owned())
            };
            let listed = Listed {
                index: n + 1,
                entry,
                undoable: why.is_none(),
                why,
            };
            output::write_json_line(out, &listed)?;
        }
        return Ok(Outcome::Success);
    }
    let options = persist::Options {
        backup_suffix: &args.backup_suffix,
        strategy: persist::Strategy::Replace,
        inputs: &[],
    };
    let done = persist::undo_newest(path, &options, |entry, bytes, out| {
        let restored = undo::undone(entry, bytes, backup_of(entry).as_deref())
            .map_err(|why| anyhow!("{name}: cannot undo: {why}"))?;
        Ok(out.write_all(&restored)?)
    })?;
    for warning in &done.warnings {
        eprintln!("condense: warning: {}", output::sanitize(warning));
    }
    let report = Undone {
        file: name,
        entry: &done.value.0,
        kept_as: match done.done {
            Done::Replaced { backup } => Some(backup),
            Done::Unchanged | Done::Appended => None,
        },
    };
    output::write_json_line(out, &report)?;
    Ok(Outcome::Success)
}
