//! `condense recipes`: the agent recipes of `examples/`, compiled into the binary, so that a
//! `cargo install` user (who gets no other file of the repository) has them too. With no
//! argument it lists them; with a NAME it prints one; with `--dir DIR` it writes them all there,
//! never over a file that exists (a recipe the user edited is theirs).

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::cli::RecipesArgs;
use crate::Outcome;

/// A recipe: its path under `examples/`, what it is for, and its text.
pub struct Recipe {
    /// The path under `examples/`, which is also its name for `condense recipes NAME`.
    pub path: &'static str,
    /// One line on what it does.
    pub about: &'static str,
    /// The file's text.
    pub text: &'static str,
}

/// Every recipe. (A file added to `examples/` and not here fails the `recipes` test.)
pub const RECIPES: [Recipe; 6] = [
    Recipe {
        path: "claude-code/settings.json",
        about: "Claude Code: a status line with the context size, and a PreCompact hook",
        text: include_str!("../../examples/claude-code/settings.json"),
    },
    Recipe {
        path: "codex/install-compact-prompt.sh",
        about: "Codex: put one of condense's prompt bodies in config.toml's compact_prompt",
        text: include_str!("../../examples/codex/install-compact-prompt.sh"),
    },
    Recipe {
        path: "kimi/kimi-compact.sh",
        about: "kimi-cli: compact the newest session when due, kimi writing the summary",
        text: include_str!("../../examples/kimi/kimi-compact.sh"),
    },
    Recipe {
        path: "kimi/summariser.yaml",
        about: "kimi-cli: an agent with no tools, for kimi --quiet as a summariser",
        text: include_str!("../../examples/kimi/summariser.yaml"),
    },
    Recipe {
        path: "pi/pi-compact.sh",
        about: "pi: compact the newest session when due, pi writing the summary",
        text: include_str!("../../examples/pi/pi-compact.sh"),
    },
    Recipe {
        path: "fleet/estimate-fleet.sh",
        about: "every agent session on many machines, measured and merged into one total",
        text: include_str!("../../examples/fleet/estimate-fleet.sh"),
    },
];

/// Runs `recipes`.
pub fn run(args: &RecipesArgs, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(dir) = &args.dir {
        return write_all(dir, out);
    }
    match &args.name {
        None => {
            for recipe in &RECIPES {
                writeln!(out, "{:<32}  {}", recipe.path, recipe.about)?;
            }
        }
        Some(name) => {
            let exact = RECIPES.iter().filter(|r| r.path == name);
            let of_agent = RECIPES
                .iter()
                .filter(|r| r.path.split('/').next() == Some(name.as_str()));
            let found: Vec<&Recipe> = exact.chain(of_agent).collect();
            let paths = |recipes: &[&Recipe]| -> String {
                recipes
                    .iter()
                    .map(|r| r.path)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match found.as_slice() {
                [recipe, ..] if recipe.path == name => out.write_all(recipe.text.as_bytes())?,
                [recipe] => out.write_all(recipe.text.as_bytes())?,
                [] => bail!(
                    "no recipe {name:?}; the recipes are {}",
                    paths(&RECIPES.iter().collect::<Vec<_>>())
                ),
                several => bail!(
                    "{name} has {} recipes: {}; name one",
                    several.len(),
                    paths(several)
                ),
            }
        }
    }
    Ok(Outcome::Success)
}

/// Writes every recipe under `dir` (which must exist), each in its agent's folder, and names
/// each file written on stdout. Refuses before writing anything when one of them exists.
fn write_all(dir: &Path, out: &mut dyn Write) -> Result<Outcome> {
    if !dir.is_dir() {
        bail!("{}: no such directory", dir.display());
    }
    if let Some(taken) = RECIPES
        .iter()
        .map(|r| dir.join(r.path))
        .find(|p| p.exists())
    {
        bail!(
            "{}: exists; condense never writes over a recipe (yours may be edited): move it, or \
             choose another directory",
            taken.display()
        );
    }
    for recipe in &RECIPES {
        let path = dir.join(recipe.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create the directory", parent.display()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        file.write_all(recipe.text.as_bytes())
            .with_context(|| format!("{}: cannot write", path.display()))?;
        if recipe.path.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("{}: cannot make it executable", path.display()))?;
        }
        writeln!(out, "{}", path.display())?;
    }
    Ok(Outcome::Success)
}
