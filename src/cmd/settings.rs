//! Reading the settings of a run: the config file (`--config FILE`, else `./.condense.toml`,
//! else `$XDG_CONFIG_HOME/condense/config.toml` or `~/.config/condense/config.toml`), merged
//! with the flags and the preset by [`crate::settings::resolve`].

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cli::SettingsArgs;
use crate::settings::{config, resolve, Config, Flags, MaxContext, Settings};

/// The settings for these flags.
pub fn load(args: &SettingsArgs, flags: Flags) -> Result<Settings> {
    let flags = Flags {
        preset: args.preset.clone(),
        ..flags
    };
    let (config, dir) = match config_file(args)? {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("{}: cannot read the config file", path.display()))?;
            let config = config::parse(&path, &text).map_err(anyhow::Error::msg)?;
            (config, path.parent().map(Path::to_path_buf))
        }
        None => (Config::default(), None),
    };
    resolve(&flags, &config, dir.as_deref()).map_err(anyhow::Error::msg)
}

/// The config file in force, read (an empty one when there is none), for the commands that
/// take their knobs from it directly (`prune`).
pub fn config(args: &SettingsArgs) -> Result<Config> {
    match config_file(args)? {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("{}: cannot read the config file", path.display()))?;
            config::parse(&path, &text).map_err(anyhow::Error::msg)
        }
        None => Ok(Config::default()),
    }
}

/// The config file in force, if there is one.
fn config_file(args: &SettingsArgs) -> Result<Option<PathBuf>> {
    if let Some(path) = &args.config {
        if !path.is_file() {
            bail!("{}: no such config file", path.display());
        }
        return Ok(Some(path.clone()));
    }
    let local = PathBuf::from(".condense.toml");
    if local.is_file() {
        return Ok(Some(local));
    }
    let user = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("condense").join("config.toml"));
    Ok(user.filter(|path| path.is_file()))
}

/// The window `max_context` names for a session that records `model` (for `auto`).
pub fn window(
    max_context: MaxContext,
    model: Option<&str>,
    settings: &Settings,
    name: &str,
) -> Result<u64> {
    match max_context {
        MaxContext::Tokens(tokens) => Ok(tokens),
        MaxContext::Auto => {
            let Some(model) = model else {
                bail!(
                    "{name}: --max-context auto: the session records no model; give the window \
                     as a number"
                );
            };
            crate::settings::models::window(model, &settings.models).with_context(|| {
                format!(
                    "{name}: --max-context auto: the window of model {:?} is not known; give it \
                     as a number, or add it to the config file's [models] table",
                    crate::output::sanitize(model)
                )
            })
        }
    }
}
