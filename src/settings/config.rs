//! The config file (TOML), pure: `.condense.toml` in the working directory, else the user's
//! `condense/config.toml`, read by the commands (see [`crate::cmd::settings`]).
//!
//! ```toml
//! [compaction]
//! enabled = true              # false: estimate --check is never due, compact does nothing
//! preset = "kimi"             # kimi, kimi-code, acf, checkpoint, claude-code, codex, gemini
//! max_preserved_messages = 2  # kimi-cli's key: the tail's messages
//! prompt = "prompts/ours.md"  # the prompt body, relative to the file
//! compaction_model = "gpt-4o-mini"
//! settings_overrides = { temperature = 0.2 }   # merged into `prompt --format openai` bodies
//! trigger_ratio = 0.85
//! reserved = 50000
//! max_context = 200000        # or "auto": the window of the model the session records
//! head_tokens = 500           # ACF's budgets
//! tail_tokens = 1000
//! keep_user_tokens = 20000    # kimi-code's user mode
//! user_head_tokens = 2000
//! budget = 800                # compact --budget
//!
//! [models]                    # windows for --max-context auto, by exact model name
//! "my-local-model" = 32768
//!
//! [prune]                     # condense prune's knobs (flags win)
//! keep = 3                    # the most recent tool uses kept
//! keep_turns = 0              # the last user turns kept verbatim
//! protect = ["TodoWrite", "update_plan"]   # replaces the default list
//! min_tokens = 100
//! budget = 100000
//! trigger = 100000
//! clear_at_least = 0
//! clear_inputs = false
//! keep_thinking = 1
//! ```
//!
//! The keys are the parity spec's `compaction` block (`enabled`, `max_preserved_messages`,
//! `prompt`, `compaction_model`, `settings_overrides`) plus the trigger and budgets. An unknown
//! key or a value of the wrong type is an error naming the file, the line and the key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A config file's settings; every one optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The `[compaction]` block.
    #[serde(default)]
    pub compaction: Compaction,
    /// Model windows by exact name, for `--max-context auto`.
    #[serde(default)]
    pub models: std::collections::BTreeMap<String, u64>,
    /// The `[prune]` block.
    #[serde(default)]
    pub prune: Prune,
}

/// The `[prune]` block: `condense prune`'s knobs, named like its flags.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prune {
    /// `--keep`.
    pub keep: Option<usize>,
    /// `--keep-turns`.
    pub keep_turns: Option<usize>,
    /// `--protect`.
    pub protect: Option<Vec<String>>,
    /// `--min-tokens`.
    pub min_tokens: Option<u64>,
    /// `--budget` (`target` is its old name, read for one release).
    #[serde(alias = "target")]
    pub budget: Option<u64>,
    /// `--trigger`.
    pub trigger: Option<u64>,
    /// `--clear-at-least`.
    pub clear_at_least: Option<u64>,
    /// `--clear-inputs`.
    pub clear_inputs: Option<bool>,
    /// `--keep-thinking`.
    pub keep_thinking: Option<usize>,
}

/// The `[compaction]` block.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compaction {
    /// `false`: never due, and `compact` does nothing.
    pub enabled: Option<bool>,
    /// A preset's name.
    pub preset: Option<String>,
    /// kimi-cli's tail: how many user/assistant messages it starts with.
    pub max_preserved_messages: Option<i64>,
    /// The prompt body's file, relative to the config file.
    pub prompt: Option<PathBuf>,
    /// The model named in request bodies.
    pub compaction_model: Option<String>,
    /// Settings merged into `prompt --format openai` request bodies.
    pub settings_overrides: Option<toml::Table>,
    /// Due at this share of the window.
    pub trigger_ratio: Option<f64>,
    /// Due when fewer tokens than this are left.
    pub reserved: Option<u64>,
    /// The window: a number, or `"auto"`.
    pub max_context: Option<MaxContext>,
    /// ACF's head budget.
    pub head_tokens: Option<u64>,
    /// ACF's tail budget.
    pub tail_tokens: Option<u64>,
    /// kimi-code's budget of kept user messages.
    pub keep_user_tokens: Option<u64>,
    /// kimi-code's share of it for the oldest ones.
    pub user_head_tokens: Option<u64>,
    /// `compact --budget`.
    pub budget: Option<u64>,
}

/// A window: a number of tokens, or the window of the model the session records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxContext {
    /// This many tokens.
    Tokens(u64),
    /// Looked up from the session's model.
    Auto,
}

impl MaxContext {
    /// A window of this many tokens; none is empty (a window of 0 would be due at any size).
    fn tokens(tokens: u64) -> Result<Self, String> {
        if tokens == 0 {
            return Err(
                "a context window of 0 tokens holds nothing; give the model's window".into(),
            );
        }
        Ok(MaxContext::Tokens(tokens))
    }
}

impl std::str::FromStr for MaxContext {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == "auto" {
            return Ok(MaxContext::Auto);
        }
        match text.parse::<u64>() {
            Ok(tokens) => MaxContext::tokens(tokens),
            Err(_) => Err(format!(
                "{text:?} is neither a number of tokens nor \"auto\""
            )),
        }
    }
}

impl<'de> Deserialize<'de> for MaxContext {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Tokens(u64),
            Word(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Tokens(tokens) => MaxContext::tokens(tokens).map_err(serde::de::Error::custom),
            Raw::Word(word) => word.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Parses a config file's text; the error names `path`, the line and what is wrong, in one
/// line.
pub fn parse(path: &Path, text: &str) -> Result<Config, String> {
    let config: Config = toml::from_str(text).map_err(|error| {
        let line = error
            .span()
            .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let message = error.message().replace('\n', " ");
        match line {
            Some(line) => format!("{}:{line}: {message}", path.display()),
            None => format!("{}: {message}", path.display()),
        }
    })?;
    if let Some(name) = &config.compaction.preset {
        if super::presets::preset(name).is_none() {
            let line = line_of(text, "preset");
            return Err(format!(
                "{}:{line}: preset: unknown preset {name:?}; the presets are {}",
                path.display(),
                super::presets::names()
            ));
        }
    }
    if let Some(overrides) = &config.compaction.settings_overrides {
        if let Some(why) = refused_override(overrides) {
            let line = line_of(text, "settings_overrides");
            return Err(format!(
                "{}:{line}: settings_overrides: {why}",
                path.display()
            ));
        }
    }
    Ok(config)
}

/// Keys a request body's settings may not set: what the request says and to whom (condense
/// writes them; `compaction_model` names the model), and anything that would let the summariser
/// call tools instead of summarising.
const OWNED_KEYS: [&str; 7] = [
    "messages",
    "model",
    "system",
    "input",
    "instructions",
    "prompt",
    "extra_body",
];

/// Keys that give a model tools, refused at any depth.
const TOOL_KEYS: [&str; 9] = [
    "tools",
    "tool_choice",
    "tool_config",
    "tool_resources",
    "functions",
    "function_call",
    "parallel_tool_calls",
    "mcp_servers",
    "web_search_options",
];

/// Why `settings_overrides` cannot be used, if it cannot.
fn refused_override(table: &toml::Table) -> Option<String> {
    for key in table.keys() {
        if OWNED_KEYS.contains(&key.as_str()) {
            let hint = if key == "model" {
                " (name the model with compaction_model)"
            } else {
                ""
            };
            return Some(format!(
                "{key:?} cannot be set here: condense writes the request's {key}{hint}"
            ));
        }
    }
    fn tool_key(value: &toml::Value) -> Option<String> {
        match value {
            toml::Value::Table(table) => table.iter().find_map(|(key, value)| {
                if TOOL_KEYS.contains(&key.as_str()) {
                    Some(key.clone())
                } else {
                    tool_key(value)
                }
            }),
            toml::Value::Array(items) => items.iter().find_map(tool_key),
            _ => None,
        }
    }
    tool_key(&toml::Value::Table(table.clone())).map(|key| {
        format!("{key:?} cannot be set: the summariser gets no tools, it only summarises")
    })
}

/// The 1-based line of the first `key =` in `text`.
fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            line.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Config, String> {
        parse(Path::new(".condense.toml"), text)
    }

    #[test]
    fn settings_overrides_cannot_set_the_messages_the_model_or_tools() {
        assert!(parsed(
            "[compaction]\nsettings_overrides = { temperature = 0.2, max_tokens = 9 }\n"
        )
        .is_ok());
        for (text, word) in [
            (
                "settings_overrides = { messages = [] }",
                "\"messages\" cannot be set here",
            ),
            ("settings_overrides = { model = \"x\" }", "compaction_model"),
            ("settings_overrides = { system = \"x\" }", "\"system\""),
            (
                "settings_overrides = { tools = [] }",
                "\"tools\" cannot be set",
            ),
            (
                "settings_overrides = { tool_choice = \"auto\" }",
                "\"tool_choice\"",
            ),
            (
                "settings_overrides = { a = { b = [{ functions = [] }] } }",
                "\"functions\"",
            ),
        ] {
            let error = parsed(&format!("[compaction]\n{text}\n")).unwrap_err();
            assert!(
                error.starts_with(".condense.toml:2: settings_overrides: "),
                "{error}"
            );
            assert!(error.contains(word), "{error}");
        }
    }

    #[test]
    fn reads_every_key() {
        let config = parsed(
            "[compaction]\nenabled = false\npreset = \"acf\"\nmax_preserved_messages = 3\n\
             prompt = \"p.md\"\ncompaction_model = \"m\"\nsettings_overrides = { temperature = 0.2 }\n\
             trigger_ratio = 0.7\nreserved = 100\nmax_context = \"auto\"\nhead_tokens = 1\n\
             tail_tokens = 2\nkeep_user_tokens = 3\nuser_head_tokens = 4\nbudget = 800\n\
             [models]\n\"x\" = 5\n",
        )
        .unwrap();
        let c = &config.compaction;
        assert_eq!(c.enabled, Some(false));
        assert_eq!(c.max_context, Some(MaxContext::Auto));
        assert_eq!(c.max_preserved_messages, Some(3));
        assert_eq!(config.models["x"], 5);
        assert_eq!(
            parsed("[compaction]\nmax_context = 9\n")
                .unwrap()
                .compaction
                .max_context,
            Some(MaxContext::Tokens(9))
        );
    }

    #[test]
    fn reads_the_prune_block() {
        let config = parsed(
            "[prune]\nkeep = 0\nkeep_turns = 2\nprotect = [\"Bash\"]\nmin_tokens = 5\ntarget = 9\n\
             trigger = 8\nclear_at_least = 7\nclear_inputs = true\nkeep_thinking = 1\n",
        )
        .unwrap();
        let p = &config.prune;
        assert_eq!(
            (p.keep, p.keep_turns, p.min_tokens),
            (Some(0), Some(2), Some(5))
        );
        assert_eq!(p.protect.as_deref(), Some(&["Bash".to_owned()][..]));
        assert_eq!(
            (p.budget, p.trigger, p.clear_at_least),
            (Some(9), Some(8), Some(7))
        );
        assert_eq!((p.clear_inputs, p.keep_thinking), (Some(true), Some(1)));
        let unknown = parsed("[prune]\n\nkeep_tools = 3\n").unwrap_err();
        assert!(unknown.starts_with(".condense.toml:3: "), "{unknown}");
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        let unknown = parsed("[compaction]\nenabled = true\ntrigger = 0.5\n").unwrap_err();
        assert!(unknown.starts_with(".condense.toml:3: "), "{unknown}");
        assert!(unknown.contains("trigger"), "{unknown}");
        let wrong = parsed("[compaction]\n\nreserved = \"many\"\n").unwrap_err();
        assert!(wrong.starts_with(".condense.toml:3: "), "{wrong}");
        let preset = parsed("[compaction]\npreset = \"fast\"\n").unwrap_err();
        assert!(
            preset.starts_with(".condense.toml:2: preset: unknown preset"),
            "{preset}"
        );
        assert!(!unknown.contains('\n') && !wrong.contains('\n'));
    }
}
