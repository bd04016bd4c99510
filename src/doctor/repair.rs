//! The smallest fixes the agents' own rules allow (pure): the new bytes of a session and what
//! changed.
//!
//! - A line holding several whole records (a lost line end) is split into one line each.
//! - A half last line is dropped: every agent's loader skips it already, and the next line the
//!   agent appends would otherwise be glued to it.
//! - A broken link (a parent the file lacks, or the record that closes a cycle) is relinked to
//!   the nearest record before it in the file whose own walk reaches the root: the record the
//!   agent had as its leaf when it wrote the line, as far as the file can tell. For Claude Code
//!   that is a main-chain user or assistant message (what `parentUuid` names when Claude Code
//!   writes a message); for pi any entry (pi hangs every entry under its leaf). Only the value
//!   of the parent field changes; every other byte of the line stays.
//!
//! Duplicate ids, malformed lines in the middle, side branches and orphaned tool results are
//! left: any fix would drop or rewrite what the user wrote, and the agent's rules do not say
//! which copy or branch is right.

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

use super::glued;
use super::tree::Links;
use crate::transcript::load::Transcript;
use crate::transcript::Role;

/// One change a repair made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The line changed (or dropped).
    pub line: usize,
    /// What was done.
    pub what: String,
}

/// The repaired content and its changes.
#[derive(Debug)]
pub struct Repaired {
    /// The new bytes of the whole file.
    pub bytes: Vec<u8>,
    /// What changed, in line order.
    pub changes: Vec<Change>,
    /// Broken links left as they were, with why.
    pub left: Vec<Change>,
}

/// The string value of `field` in a record's JSON line.
fn string_field(raw: &[u8], field: &str) -> Option<String> {
    let value: Value = serde_json::from_slice(raw).ok()?;
    value.get(field)?.as_str().map(str::to_owned)
}

/// The fixes for `transcript` (read with malformed lines skipped).
pub fn repair(transcript: &Transcript) -> Result<Repaired> {
    let records = &transcript.records;
    let mut edits: Vec<Option<Vec<u8>>> = vec![None; transcript.lines.len()];
    let mut changes = Vec::new();
    let mut left = Vec::new();
    // An empty transcript has no format: its dialect, a plain list's, has no tree either.
    let agent = transcript.dialect();
    if let Some(tree) = agent.tree() {
        let (parent_field, id_field) = (tree.parent, tree.id);
        let links = Links::of(records);
        let messages_only = tree.messages_only;
        let main_message = |index: usize| {
            records[index]
                .message()
                .is_some_and(|m| !m.sidechain && matches!(m.role, Role::User | Role::Assistant))
        };
        let mut fixed: Vec<usize> = Vec::new();
        for broken in links.broken() {
            let record = &records[broken];
            if messages_only && !main_message(broken) {
                left.push(Change {
                    line: record.line,
                    what: format!(
                        "not a main-chain message: {} never resumes from it",
                        agent.name()
                    ),
                });
                continue;
            }
            // A record whose walk stopped at a link fixed already reaches the root now.
            let rooted = |j: usize| {
                links.rooted(j) || links.broken_at(j).is_some_and(|b| fixed.contains(&b))
            };
            let target = (0..broken).rev().find(|&j| {
                records[j].link.id.is_some() && rooted(j) && (!messages_only || main_message(j))
            });
            let Some(target) = target else {
                left.push(Change {
                    line: record.line,
                    what: "no earlier record reaches the root to hang it under".into(),
                });
                continue;
            };
            let (Some(old), Some(new)) = (
                string_field(record.raw, parent_field),
                string_field(records[target].raw, id_field),
            ) else {
                left.push(Change {
                    line: record.line,
                    what: format!("{parent_field} or the new parent's {id_field} is not a string"),
                });
                continue;
            };
            let line_index = transcript.record_lines[broken];
            let full = transcript.lines[line_index].full;
            let from = serde_json::to_string(&old)?;
            let to = serde_json::to_string(&new)?;
            let pattern = format!("\"{parent_field}\":{from}");
            let hits = memchr::memmem::find_iter(full, pattern.as_bytes()).count();
            if hits != 1 {
                left.push(Change {
                    line: record.line,
                    what: format!(
                        "{parent_field} is not written as one compact key and value; not edited"
                    ),
                });
                continue;
            }
            let at = memchr::memmem::find(full, pattern.as_bytes()).unwrap_or(0);
            let mut edited = full[..at].to_vec();
            edited.extend_from_slice(format!("\"{parent_field}\":{to}").as_bytes());
            edited.extend_from_slice(&full[at + pattern.len()..]);
            edits[line_index] = Some(edited);
            fixed.push(broken);
            changes.push(Change {
                line: record.line,
                what: format!(
                    "{parent_field} {} -> {} (line {}, the nearest earlier record on the chain)",
                    crate::output::sanitize(&old),
                    crate::output::sanitize(&new),
                    records[target].line
                ),
            });
        }
    }
    // A line that gave no record was skipped (or is blank): only those can be glued.
    let mut read = vec![false; transcript.lines.len()];
    for &index in &transcript.record_lines {
        read[index] = true;
    }
    for (index, line) in transcript.lines.iter().enumerate() {
        if read[index] || Some(index) == transcript.incomplete {
            continue;
        }
        let Some(points) = glued::split_points(line.text) else {
            continue;
        };
        let mut split = Vec::with_capacity(line.full.len() + points.len());
        let mut from = 0;
        for &at in &points {
            split.extend_from_slice(&line.full[from..at]);
            split.push(b'\n');
            from = at;
        }
        split.extend_from_slice(&line.full[from..]);
        edits[index] = Some(split);
        changes.push(Change {
            line: line.number,
            what: format!(
                "split into {} lines (a line end was lost)",
                points.len() + 1
            ),
        });
    }
    if let Some(index) = transcript.incomplete {
        changes.push(Change {
            line: transcript.lines[index].number,
            what: format!(
                "dropped the cut-off last line ({} bytes)",
                transcript.lines[index].full.len()
            ),
        });
    }
    let mut bytes = Vec::with_capacity(transcript.lines.iter().map(|l| l.full.len()).sum());
    for (index, line) in transcript.lines.iter().enumerate() {
        if Some(index) == transcript.incomplete {
            continue;
        }
        bytes.extend_from_slice(edits[index].as_deref().unwrap_or(line.full));
    }
    changes.sort_by_key(|c| c.line);
    Ok(Repaired {
        bytes,
        changes,
        left,
    })
}
