//! Reading the settings of a run: the config file (`--config FILE`, else `./.condense.toml`,
//! else `$XDG_CONFIG_HOME/condense/config.toml` or `~/.config/condense/config.toml`), merged
//! with the flags and the preset by [`crate::settings::resolve`].
//!
//! A config file is data, not trust: a cloned repository or a hook run in a project brings its
//! own `.condense.toml`. So the working directory's file is announced on stderr, and its
//! `prompt` (whose body is printed and sent to the LLM) must be a regular file inside the config
//! file's own folder tree, and is announced too; `--prompt-file` is the explicit way to use any
//! other file. What `settings_overrides` may set is checked where the file is parsed.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;

use crate::cli::SettingsArgs;
use crate::settings::{config, resolve, Config, Flags, Settings};

/// The settings for these flags: the config file is read once, here, and everything a
/// command takes from it (the `[prune]` block too) is in what this returns.
pub fn load(args: &SettingsArgs, flags: Flags) -> Result<Settings> {
    let flags = Flags {
        preset: args.preset.clone(),
        ..flags
    };
    let (config, dir) = match config_file(args)? {
        Some(path) => {
            crate::trace::config_read(&path);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("{}: cannot read the config file", path.display()))?;
            let config = config::parse(&path, &text).map_err(anyhow::Error::msg)?;
            (config, Some(path))
        }
        None => (Config::default(), None),
    };
    resolve(&flags, &config, dir.as_deref()).map_err(anyhow::Error::msg)
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
        note(
            &ANNOUNCED_LOCAL,
            "reading ./.condense.toml, the working directory's config file",
        );
        return Ok(Some(local));
    }
    let user = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("condense").join("config.toml"));
    Ok(user.filter(|path| path.is_file()))
}

static ANNOUNCED_LOCAL: AtomicBool = AtomicBool::new(false);
static ANNOUNCED_PROMPT: AtomicBool = AtomicBool::new(false);

/// Says `text` on stderr, once per run however often the settings are loaded.
fn note(once: &AtomicBool, text: &str) {
    if !once.swap(true, Ordering::SeqCst) {
        let _ = writeln!(
            std::io::stderr().lock(),
            "condense: note: {}",
            crate::output::sanitize(text)
        );
    }
}

/// The text of a prompt file: a regular file (a FIFO or a device is refused, never waited on).
pub fn read_prompt_file(path: &Path) -> Result<String> {
    let context = || format!("{}: cannot read the prompt file", path.display());
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .with_context(context)?;
    if !file.metadata().with_context(context)?.is_file() {
        bail!("{}: the prompt file is not a regular file", path.display());
    }
    let mut text = String::new();
    file.read_to_string(&mut text).with_context(context)?;
    Ok(text)
}

/// The config file's prompt body, if it names one: the file must lie inside the config file's
/// folder tree (after every symlink), and its use is announced.
pub fn config_prompt(settings: &Settings) -> Result<Option<String>> {
    let (Some(path), Some(config)) = (&settings.prompt, &settings.config_file) else {
        return Ok(None);
    };
    let root = config
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let outside = || {
        anyhow::anyhow!(
            "{}: prompt = {:?} is outside the config file's folder; a config file may only \
             name a prompt beside it or below it (use --prompt-file for any other file)",
            config.display(),
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        )
    };
    let real_root = std::fs::canonicalize(root)
        .with_context(|| format!("{}: cannot resolve", root.display()))?;
    let real = std::fs::canonicalize(path)
        .with_context(|| format!("{}: cannot read the prompt file", path.display()))?;
    if !real.starts_with(&real_root) {
        return Err(outside());
    }
    let text = read_prompt_file(&real)?;
    note(
        &ANNOUNCED_PROMPT,
        &format!(
            "the prompt body is {}, named by {}",
            path.display(),
            config.display()
        ),
    );
    Ok(Some(text))
}
