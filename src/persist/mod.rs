//! Writing a session in place without losing a line, even while its agent goes on writing it.
//!
//! [`in_place`] takes a *build*: given the file's content (read so that it ends at a line end,
//! see [`snapshot`]), it writes the complete new content. What it wrote decides the path:
//!
//! - **append** — the new content begins with exactly the bytes read (the append-only formats,
//!   Claude Code, Codex and pi, add their compaction records at the end): only the extension is
//!   written, in one `O_APPEND` write to the same inode ([`append`]). Every line any writer adds
//!   meanwhile stays in the file; nothing before the records changes; no backup is needed.
//! - **replace** — anything else, or [`Strategy::Replace`]: a temporary file in the same
//!   directory becomes the file by rename, and the original is kept under a backup name that was
//!   never used before ([`replace`], [`backup`]).
//!
//! Either way the session is locked first ([`lock`]), so two condense runs on one session take
//! turns; what the agent appended since the read is built in (on the append path as often as it
//! takes, for up to 30 s, then the run refuses: lines before the records would be
//! outside the context the agent resumes with; on the replace path a few times, then carried
//! over after them, which is where it would be had the agent written it a moment later); and a
//! process that
//! keeps the file open for writing makes a replace refuse ([`writers`]) rather than send its
//! next lines to the backup; an agent's own lock on the session, held by a live process
//! ([`crate::transcript::home::Home::holder`]), makes every write refuse.
//!
//! An append is whole or absent: room is reserved first, a write cut short is taken back out
//! ([`whole`]), the usual signals wait until the records are synced ([`shield`]), and for a
//! SIGKILL the records are first kept in a journal from which the next run removes what
//! landed ([`journal`]).

pub mod append;
pub mod atomic;
pub mod attrs;
pub mod backup;
pub mod exchange;
pub mod extend;
pub mod guard;
pub mod journal;
pub mod link;
pub mod lock;
pub mod names;
pub mod replace;
pub mod salvage;
pub mod shield;
pub mod snapshot;
pub mod whole;
pub mod writers;

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use append::Appended;
use extend::{Built, Extending};
use replace::{Committed, Temp};

use crate::undo;

/// How many times a replace builds the content, when the agent wrote during the build; after
/// that, what came is carried over as it is.
const ATTEMPTS: usize = 4;

/// How long an append goes on building again while the agent writes (each build takes the new
/// lines into the kept tail); then it refuses rather than put them before the records.
const BUILD_WINDOW: Duration = Duration::from_secs(30);

/// How a run may write the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Append when the new content extends the file, replace otherwise.
    Extend,
    /// Always replace (a trimmed file, or a format that must be rewritten).
    Replace,
}

/// What [`in_place`] needs besides the build.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The backup's suffix (not empty, no `/`).
    pub backup_suffix: &'a str,
    /// How to write.
    pub strategy: Strategy,
    /// The other files the run reads (summary, plan): no backup may be one of them.
    pub inputs: &'a [&'a Path],
}

/// What was done to the file.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    /// The build wrote the content unchanged; the file was not touched.
    Unchanged,
    /// The extension was appended.
    Appended,
    /// The file was replaced; the original is at `backup`.
    Replaced {
        /// The backup's path.
        backup: PathBuf,
    },
}

/// The result of [`in_place`].
#[derive(Debug)]
pub struct InPlace<T> {
    /// What the (last) build returned.
    pub value: T,
    /// What was done.
    pub done: Done,
    /// What the user should know (lines kept outside the tail, a writer still at work).
    pub warnings: Vec<String>,
}

/// Writes the file at `path` anew with what `build` makes of its content, and records the
/// write in the session's journal, from which `condense undo` takes it back.
///
/// `build` may run more than once (when the agent appended while it ran); only the last run's
/// value is returned. It must not write anything else anywhere.
pub fn in_place<T>(
    path: &Path,
    options: &Options,
    build: impl FnMut(&[u8], &mut dyn Write) -> Result<T>,
) -> Result<InPlace<T>> {
    let (target, repaired) = prepare(path, options)?;
    write_locked(&target, options, None, repaired, Journaling::Record, build)
}

/// [`in_place`], for a caller that read the file before taking the lock: while the file still
/// holds exactly `read`, the build is handed those very bytes (compared with the file, not read
/// again, so the session is in memory once); once it holds anything else, what it holds.
pub fn in_place_after<T>(
    path: &Path,
    options: &Options,
    read: &[u8],
    build: impl FnMut(&[u8], &mut dyn Write) -> Result<T>,
) -> Result<InPlace<T>> {
    let (target, repaired) = prepare(path, options)?;
    write_locked(
        &target,
        options,
        Some(read),
        repaired,
        Journaling::Record,
        build,
    )
}

/// Undoes the newest write the session's journal records: `build` makes, of that entry and the
/// file's content, what the file is to hold; the file is replaced with it (the state undone
/// kept as a backup) and the entry leaves the journal. Returns the entry with the build's
/// value.
pub fn undo_newest<T>(
    path: &Path,
    options: &Options,
    mut build: impl FnMut(&undo::Entry, &[u8], &mut dyn Write) -> Result<T>,
) -> Result<InPlace<(undo::Entry, T)>> {
    let (target, repaired) = prepare(path, options)?;
    // Read under the lock, after the repair: what a killed run left whole is its newest write.
    let Some(entry) = journal::entries_of(&target)?.pop() else {
        bail!(
            "{}: nothing to undo (no journal {})",
            target.name,
            journal::path_of(path)?.display()
        );
    };
    let done = write_locked(
        &target,
        options,
        None,
        repaired,
        Journaling::Pop,
        |bytes, out| build(&entry, bytes, out),
    )?;
    Ok(InPlace {
        value: (entry, done.value),
        done: done.done,
        warnings: done.warnings,
    })
}

/// What the journal is told of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Journaling {
    /// The write, as its newest entry.
    Record,
    /// That the write undid its newest entry, which goes.
    Pop,
}

/// Locks the session at `path`, checks it may be written, and repairs what a killed run left;
/// returns it with what the user should be told of the repair.
fn prepare(path: &Path, options: &Options) -> Result<(lock::Target, Vec<String>)> {
    let target = lock::open_locked(path)?;
    // An agent that keeps a lock of its own while it has the session open (Copilot CLI's
    // `inuse.<pid>.lock`) would go on from what it holds in memory, or write over the result.
    if let Some(holder) = crate::transcript::registry::agents().find_map(|agent| agent.holder(path))
    {
        bail!(
            "{}: {holder} has the session open; nothing was written (end it first)",
            target.name
        );
    }
    // A replace needs only the directory's permission, and root needs none: the file's own
    // mode is the user's word that it is not to be changed.
    if target.mode & 0o222 == 0 {
        bail!(
            "{}: read-only (mode {:o}); nothing was written (make it writable to compact it)",
            target.name,
            target.mode
        );
    }
    let first_backup = backup::first_name(&target, options.backup_suffix);
    for input in options.inputs {
        if guard::same_file(&first_backup, input) {
            bail!(
                "{}: the backup name is {}, which this run reads; choose another --backup-suffix",
                target.name,
                input.display()
            );
        }
    }
    // What a killed run left goes before anything is read, so it is never taken for the agent's.
    let repaired: Vec<String> = journal::repair(&target)?.into_iter().collect();
    replace::clean_strays(&target);
    Ok((target, repaired))
}

/// The write itself, on the locked `target` (see [`in_place`]); `known` is what the caller read
/// of the file before, if it did (see [`in_place_after`]).
fn write_locked<T>(
    target: &lock::Target,
    options: &Options,
    known: Option<&[u8]>,
    mut warnings: Vec<String>,
    journaling: Journaling,
    mut build: impl FnMut(&[u8], &mut dyn Write) -> Result<T>,
) -> Result<InPlace<T>> {
    let make = || {
        Temp::create(target).with_context(|| format!("{}: cannot replace in place", target.name))
    };
    let building = Instant::now();
    for attempt in 1.. {
        let (file, dev, ino, name) = (&target.file, target.dev, target.ino, &target.name);
        let read = match known {
            Some(known) => snapshot::settled_as(file, known, dev, ino, name)?,
            None => Cow::Owned(snapshot::settled_from(file, 0, dev, ino, name)?),
        };
        crate::input::check_lines(&target.name, &read)?;
        let mut out = Extending::new(
            &target.name,
            &read,
            &make,
            options.strategy == Strategy::Replace,
        );
        let value = match build(&read, &mut out) {
            Ok(value) => value,
            Err(error) => return Err(out.take_error().unwrap_or(error)),
        };
        let done = match out.finish()? {
            Built::Unchanged => Done::Unchanged,
            Built::Extension(extension) => match append::append(target, &read, &extension)? {
                // The new lines join the tail of the next build, inside the live context.
                Appended::Grew if building.elapsed() < BUILD_WINDOW => continue,
                Appended::Grew => bail!(
                    "{}: the agent kept writing while the compaction was built ({attempt} builds \
                     in {} s); nothing was written, since its new lines would have come before \
                     the compaction records, outside the context it resumes with: compact it \
                     when the agent pauses",
                    target.name,
                    building.elapsed().as_secs()
                ),
                Appended::Done { unrecorded } => {
                    warnings.extend(unrecorded.map(unrecorded_warning));
                    Done::Appended
                }
            },
            Built::Rewrite(temp) => {
                let last = attempt >= ATTEMPTS;
                match replace::commit(target, temp, read.len(), options.backup_suffix, last)? {
                    Committed::Grew => continue,
                    Committed::Replaced(replaced) => {
                        warnings.extend(replaced.warnings);
                        if journaling == Journaling::Record {
                            let (length, hash) = replaced.left;
                            let entry = undo::Entry::Replace {
                                backup: replaced.backup.clone(),
                                length,
                                hash,
                            };
                            if let Err(error) = journal::record(target, entry) {
                                warnings.push(unrecorded_warning(format!("{error:#}")));
                            }
                        }
                        Done::Replaced {
                            backup: replaced.backup,
                        }
                    }
                }
            }
        };
        if journaling == Journaling::Pop && done != Done::Unchanged {
            if let Err(error) = journal::pop(target) {
                warnings.push(format!(
                    "{error:#}; the undone write is still listed by condense undo --list"
                ));
            }
        }
        return Ok(InPlace {
            value,
            done,
            warnings,
        });
    }
    unreachable!("the attempts are endless")
}

/// The warning for a write the journal could not record.
fn unrecorded_warning(why: String) -> String {
    format!("{why}; condense undo cannot take this write back")
}
