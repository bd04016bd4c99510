//! `--preset` and `--config`: where the defaults of the trigger and of what a compaction keeps
//! come from.

use std::path::PathBuf;

use clap::Args;

/// Presets and the config file: the defaults of the trigger and of what a compaction keeps.
/// Flags win over the config file, the file over a preset.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Take the trigger and budgets of an agent or guide: kimi (the default), kimi-code, acf,
    /// checkpoint, claude-code, codex, gemini.
    ///
    /// Their numbers and sources are in `man condense`.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,

    /// Read this config file instead of ./.condense.toml or the user's
    /// condense/config.toml.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}
