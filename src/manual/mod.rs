//! The man pages, generated from the command-line definitions: `condense.1` and one page per
//! command, as `condense man DIR` writes them and as `man/` holds them in the repository.
//!
//! clap knows the name, the synopsis, the description (the command's `///` doc) and every
//! option with its `--help` text, possible values and default; `clap_mangen` renders those.
//! What clap cannot know is written by hand in `sections/<page>.roff` and appended: text
//! before the file's first `.SH` continues DESCRIPTION, and its sections (EXIT STATUS,
//! EXAMPLES, SEE ALSO, the sources of `estimate --explain`'s trigger rules, …) follow OPTIONS.
//!
//! The generator takes the command as a value rather than reaching for the CLI module, so the
//! command layer hands it over (`cmd::man`, and the test that keeps `man/` in step).

use anyhow::Result;
use clap::Command;
use clap_mangen::{roff, Man};

/// One man page: its file name (`condense-estimate.1`) and its roff text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The file name.
    pub file: String,
    /// The page, in roff.
    pub text: String,
}

/// `(page, its hand-written sections)` for each page named, from `sections/<page>.roff`.
macro_rules! sections {
    ($($page:literal),* $(,)?) => {
        [$(($page, include_str!(concat!("sections/", $page, ".roff")))),*]
    };
}

/// The hand-written part of every page, by page name.
const SECTIONS: [(&str, &str); 17] = sections![
    "condense",
    "condense-estimate",
    "condense-split",
    "condense-prompt",
    "condense-inject",
    "condense-prune",
    "condense-caveman",
    "condense-bare",
    "condense-history",
    "condense-eval",
    "condense-compact",
    "condense-sessions",
    "condense-doctor",
    "condense-undo",
    "condense-completions",
    "condense-man",
    "condense-recipes",
];

/// Every page of `cli` (the whole command line, as clap defines it): the top-level page, then
/// one per command in the order `--help` lists them. A command without hand-written sections
/// is an error, so that a new command cannot ship a page without its examples.
pub fn pages(cli: Command) -> Result<Vec<Page>> {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut pages = vec![page(
        &cli.clone().subcommand_help_heading("COMMANDS"),
        true,
    )?];
    for command in cli.get_subcommands().filter(|c| !c.is_hide_set()) {
        pages.push(page(command, false)?);
    }
    Ok(pages)
}

/// The page of `command`; `top` for the page of the whole program, which lists the commands.
fn page(command: &Command, top: bool) -> Result<Page> {
    let name = command
        .get_display_name()
        .unwrap_or_else(|| command.get_name())
        .to_owned();
    let Some((_, sections)) = SECTIONS.iter().find(|(page, _)| *page == name) else {
        anyhow::bail!("the man page {name} has no hand-written sections (src/manual/sections/)");
    };
    // Text before the first section continues DESCRIPTION.
    let (description, sections) = if sections.starts_with(".SH ") {
        ("", *sections)
    } else {
        match sections.find("\n.SH ") {
            Some(at) => sections.split_at(at + 1),
            None => (*sections, ""),
        }
    };
    let man = Man::new(long_help_everywhere(command.clone()));
    let mut text = String::new();
    // The title by hand: an empty date would shift the fields after it, and the source is the
    // version alone (the feature list `--version` adds differs between builds; the page must
    // not). Then, once, the definition of the apostrophe the rendered text uses.
    text.push_str(&format!(
        ".TH {} 1 \"\" \"condense {}\" \"User Commands\"\n",
        name.to_uppercase().replace('-', "\\-"),
        env!("CARGO_PKG_VERSION")
    ));
    text.push_str(&roff::Roff::new().render());
    text.push_str(&rendered(|w| man.render_name_section(w))?);
    text.push_str(&synopsis(command));
    text.push_str(&rendered(|w| man.render_description_section(w))?);
    text.push_str(description);
    text.push_str(&rendered(|w| man.render_options_section(w))?);
    if top {
        text.push_str(&rendered(|w| man.render_subcommands_section(w))?);
    }
    text.push_str(sections);
    Ok(Page {
        file: format!("{name}.1"),
        text,
    })
}

/// `command` with every option's full help as its long help. clap_mangen shows the long help,
/// or else the short one unless it is hidden from `-h`: an option `-h` leaves out whose help
/// is one paragraph (so it has no long help) would have no text on the page.
fn long_help_everywhere(command: Command) -> Command {
    command.mut_args(|arg| match (arg.get_long_help(), arg.get_help()) {
        (None, Some(help)) => {
            let help = help.clone();
            arg.long_help(help)
        }
        _ => arg,
    })
}

/// SYNOPSIS: the usage line `--help` prints (`condense estimate [OPTIONS] [FILE]...`), the
/// command in bold.
fn synopsis(command: &Command) -> String {
    let usage = command.clone().render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage).trim();
    let name = command.get_bin_name().unwrap_or_else(|| command.get_name());
    let rest = usage.strip_prefix(name).unwrap_or(usage);
    let mut roff = roff::Roff::new();
    roff.control("SH", ["SYNOPSIS"]);
    roff.text([roff::bold(name), roff::roman(rest)]);
    without_preamble(roff.render())
}

/// What one of `Man`'s renderers writes, without the preamble each one starts with (the page
/// has it once, at the top).
fn rendered(render: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Result<String> {
    let mut text = Vec::new();
    render(&mut text)?;
    Ok(without_preamble(String::from_utf8(text)?))
}

fn without_preamble(text: String) -> String {
    let preamble = roff::Roff::new().render();
    match text.strip_prefix(&preamble) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}
