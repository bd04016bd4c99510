//! What the trigger and the budgets are, and where each number comes from: a flag, else the
//! config file, else a preset, else kimi-cli's defaults (pure; the commands read the file).

pub mod config;
pub mod models;
pub mod presets;

pub use config::{Config, MaxContext};
pub use presets::{Keep, Preset};

/// The settings of one run, every source merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// False: compaction is never due, and `compact` does nothing.
    pub enabled: bool,
    /// The preset the numbers fall back to.
    pub preset: &'static Preset,
    /// Whether a flag or the config file named the preset (else it is kimi-cli's, by default).
    pub preset_given: bool,
    /// Due at this share of the window.
    pub trigger_ratio: f64,
    /// Due when fewer tokens than this are left.
    pub reserved: u64,
    /// Whether a flag or the config file set `reserved` (else it is the preset's).
    pub reserved_given: bool,
    /// The window, if any source names one.
    pub max_context: Option<MaxContext>,
    /// What a compaction keeps by default (the plan flags override it).
    pub keep: Keep,
    /// The config file's model windows.
    pub models: Vec<(String, u64)>,
    /// The config file's prompt body file, resolved against the file's folder.
    pub prompt: Option<std::path::PathBuf>,
    /// The config file the settings came from, if any (its folder confines `prompt`).
    pub config_file: Option<std::path::PathBuf>,
    /// The model named in request bodies.
    pub compaction_model: Option<String>,
    /// Settings merged into OpenAI request bodies.
    pub settings_overrides: Option<serde_json::Map<String, serde_json::Value>>,
    /// `compact --budget`'s default.
    pub budget: Option<u64>,
    /// The config file's `[prune]` block (`prune`'s flags win over it).
    pub prune: config::Prune,
}

impl Settings {
    /// The estimator a named preset brings (see [`Preset::tokenizer`]); none when the preset
    /// is only the default.
    pub fn preset_tokenizer(&self) -> Option<crate::tokens::Tokenizer> {
        self.preset_given.then_some(self.preset.tokenizer).flatten()
    }
}

/// The flags that can override the file and the presets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    /// `--preset`.
    pub preset: Option<String>,
    /// `--trigger-ratio`.
    pub trigger_ratio: Option<f64>,
    /// `--reserved`.
    pub reserved: Option<u64>,
    /// `--max-context`.
    pub max_context: Option<MaxContext>,
}

/// Merges the sources: `flags` over `config` (read from `config_file`) over the preset over
/// kimi-cli's defaults.
pub fn resolve(
    flags: &Flags,
    config: &Config,
    config_file: Option<&std::path::Path>,
) -> Result<Settings, String> {
    let config_dir = config_file.and_then(std::path::Path::parent);
    let file = &config.compaction;
    let name = flags
        .preset
        .as_deref()
        .or(file.preset.as_deref())
        .unwrap_or("kimi");
    let preset = presets::preset(name).ok_or_else(|| {
        format!(
            "unknown preset {name:?}; the presets are {}",
            presets::names()
        )
    })?;
    let keep = match (
        file.max_preserved_messages,
        file.keep_user_tokens,
        file.head_tokens.or(file.tail_tokens),
    ) {
        (_, Some(keep_user_tokens), _) => Keep::User {
            keep_user_tokens,
            user_head_tokens: file.user_head_tokens.unwrap_or(2_000),
        },
        (_, None, Some(_)) => Keep::Budgets {
            head_tokens: file.head_tokens.unwrap_or(500),
            tail_tokens: file.tail_tokens.unwrap_or(1_000),
        },
        (Some(preserve), None, None) => Keep::Tail { preserve },
        (None, None, None) => preset.keep,
    };
    let settings_overrides = file
        .settings_overrides
        .as_ref()
        .map(|table| match serde_json::to_value(table) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            _ => Err("settings_overrides is not a table".to_owned()),
        })
        .transpose()?;
    Ok(Settings {
        enabled: file.enabled.unwrap_or(true),
        preset,
        preset_given: flags.preset.is_some() || file.preset.is_some(),
        trigger_ratio: flags
            .trigger_ratio
            .or(file.trigger_ratio)
            .unwrap_or(preset.trigger_ratio),
        reserved: flags.reserved.or(file.reserved).unwrap_or(preset.reserved),
        reserved_given: flags.reserved.or(file.reserved).is_some(),
        max_context: flags
            .max_context
            .or(file.max_context)
            .or(preset.max_context.map(MaxContext::Tokens)),
        keep,
        models: config.models.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        prompt: file
            .prompt
            .as_ref()
            .map(|p| config_dir.map_or_else(|| p.clone(), |dir| dir.join(p))),
        config_file: config_file.map(std::path::Path::to_path_buf),
        compaction_model: file.compaction_model.clone(),
        settings_overrides,
        budget: file.budget,
        prune: config.prune.clone(),
    })
}

/// The window `max_context` names for a session that records `model` (for `auto`: the config
/// file's `[models]` table, else the known models), for the session `name`.
pub fn window(
    max_context: MaxContext,
    model: Option<&str>,
    settings: &Settings,
    name: &str,
) -> anyhow::Result<u64> {
    use anyhow::Context;
    match max_context {
        MaxContext::Tokens(tokens) => Ok(tokens),
        MaxContext::Auto => {
            let Some(model) = model else {
                anyhow::bail!(
                    "{name}: --max-context auto: the session records no model; give the window \
                     as a number"
                );
            };
            models::window(model, &settings.models).with_context(|| {
                format!(
                    "{name}: --max-context auto: the window of model {:?} is not known; give it \
                     as a number, or add it to the config file's [models] table",
                    crate::output::sanitize(model)
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_and_the_file_over_presets() {
        let config = config::parse(
            std::path::Path::new("c.toml"),
            "[compaction]\npreset = \"acf\"\nreserved = 7\n",
        )
        .unwrap();
        let none = Flags::default();
        let from_file = resolve(&none, &config, None).unwrap();
        assert_eq!(from_file.preset.name, "acf");
        assert_eq!(from_file.trigger_ratio, 0.75, "the file's preset");
        assert_eq!(from_file.reserved, 7, "the file over its preset");
        assert_eq!(from_file.max_context, Some(MaxContext::Tokens(8_000)));
        let flags = Flags {
            preset: Some("codex".to_owned()),
            reserved: Some(9),
            ..Flags::default()
        };
        let flagged = resolve(&flags, &config, None).unwrap();
        assert_eq!(flagged.trigger_ratio, 0.9, "the flag's preset");
        assert_eq!(flagged.reserved, 9, "the flag over the file");
        let defaults = resolve(&none, &Config::default(), None).unwrap();
        assert_eq!((defaults.trigger_ratio, defaults.reserved), (0.85, 50_000));
        assert_eq!(defaults.keep, Keep::Tail { preserve: 2 });
        assert!(defaults.enabled);
    }
}
