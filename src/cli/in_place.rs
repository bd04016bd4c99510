//! `--in-place` and its companions: writing the session file itself, shared by the commands
//! that compact it; and the check of a backup suffix every command that keeps backups uses.

use clap::Args;

/// Writing the session file itself, shared by the commands that compact it.
#[derive(Debug, Args)]
pub struct InPlaceArgs {
    /// Compact FILE itself, safely while its agent is still writing it.
    ///
    /// Where the result only adds records at the end (the append-only formats: Claude Code,
    /// Codex, pi), they are appended in one write: lines the agent writes meanwhile stay, the
    /// history before them is untouched and no backup is made. Otherwise FILE is replaced
    /// atomically and the original kept as FILE.bak, or FILE.bak.1, FILE.bak.2, … when that name
    /// is taken: a backup is never overwritten, and the highest number is the newest (`ls -v
    /// FILE.bak*`; restore with `mv FILE.bak.N FILE`). A replace is refused while another process
    /// has FILE open for writing. A symlinked FILE: the file it points to is compacted (its
    /// backup goes beside it) and the link is kept. Only regular files.
    #[arg(short = 'i', long = "in-place")]
    pub enabled: bool,

    /// With --in-place: always replace FILE (with a backup) rather than append, for a new file
    /// instead of a longer log.
    #[arg(hide_short_help = true, long, requires = "enabled")]
    pub rewrite: bool,

    /// The suffix of the backups --in-place keeps (not empty, no `/`).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SUFFIX",
        default_value = ".bak",
        requires = "enabled",
        value_parser = backup_suffix
    )]
    pub backup_suffix: String,

    /// With --in-place: write without reading the result back first.
    ///
    /// By default the compacted session is read by its agent's rule before anything is written
    /// and checked, in this order: readable (every line a record of the format, none cut off);
    /// summary (a compaction marker newer than the session's own, where the agent writes one,
    /// and the whole summary in the live context); references (the marker's references
    /// resolve: Claude Code preservedMessages, pi firstKeptEntryId); summarised-gone (no
    /// message the summary replaces left in the live context, known by its id where the
    /// format has ids, else by its bytes); tool-pairs (every tool result after its call);
    /// newest-message (the newest request a person typed verbatim: kept, or after the
    /// summary). `compact`'s pruned rung is checked as `prune --in-place` is (see `condense
    /// prune --help`). A failed check is an error naming it, with FILE left as it was.
    #[arg(hide_short_help = true, long, requires = "enabled")]
    pub no_verify: bool,
}

/// A backup suffix: an empty one would name the backup as the session itself, and one with a
/// `/` would put it in another directory.
pub(super) fn backup_suffix(suffix: &str) -> Result<String, String> {
    if suffix.is_empty() {
        return Err("the backup would be FILE itself; give a suffix such as .bak".to_owned());
    }
    if suffix.contains('/') {
        return Err("a suffix cannot hold `/`: backups stay beside FILE".to_owned());
    }
    Ok(suffix.to_owned())
}
