//! The arguments of `condense compact`: its output forms, and `--style`, parsed by hand so
//! that a style the user typed can be told from the default.

use clap::{Args, ValueEnum};

use super::handoff::HandoffArgs;
use super::in_place::InPlaceArgs;
use super::plan::PlanArgs;
use super::source::InputArgs;
use crate::prompts::Style;

/// `compact --style`: the style, and whether the command line gave it. An explicit style wins
/// over the config file's prompt, which wins over the default (as `prompt --style` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleFlag {
    /// The style named, or the default.
    pub style: Style,
    /// Whether the command line named it.
    pub given: bool,
}

impl StyleFlag {
    /// The style, when the command line named one.
    pub fn explicit(self) -> Option<Style> {
        self.given.then_some(self.style)
    }
}

// By hand rather than derived, because only the parsed matches tell a default from a value
// the user typed; the argument is the one the derive made (`--style <STYLE>`, its help and
// default).
impl clap::FromArgMatches for StyleFlag {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(StyleFlag {
            style: matches
                .get_one::<Style>("style")
                .copied()
                .unwrap_or(Style::Structured),
            given: matches.value_source("style") == Some(clap::parser::ValueSource::CommandLine),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for StyleFlag {
    fn augment_args(command: clap::Command) -> clap::Command {
        command.arg(
            clap::Arg::new("style")
                .long("style")
                .value_name("STYLE")
                .value_parser(clap::builder::EnumValueParser::<Style>::new())
                .action(clap::ArgAction::Set)
                .default_value("structured")
                .help("The prompt body that follows the compacted messages (the config file's prompt wins over the default)"),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

/// What `compact` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompactFormat {
    /// The compacted session in its own format.
    Jsonl,
    /// ACF's Markdown document: original request, elision marker, current state, summary.
    Markdown,
    /// A JSON line: the rung taken and the live context's tokens before and after (the
    /// session goes to the file with --in-place, nowhere without).
    Json,
}

/// The arguments of `condense compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// Which records to keep.
    #[command(flatten)]
    pub plan: PlanArgs,

    /// The LLM command that writes the summary (run with `sh -c`; the request on its standard
    /// input, the system prompt in $CONDENSE_SYSTEM).
    #[arg(long, value_name = "CMD")]
    pub llm: Option<String>,

    /// Stop the --llm command (its whole process group) after this many seconds.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        requires = "llm"
    )]
    pub llm_timeout: u64,

    /// Walk the ladder: write the richest form whose live context fits this many tokens.
    #[arg(short, long, value_name = "TOKENS")]
    pub budget: Option<u64>,

    /// The most tokens the summary may have: a longer LLM summary is refused, the session left
    /// untouched.
    #[arg(hide_short_help = true, long, value_name = "TOKENS")]
    pub summary_tokens: Option<u64>,

    /// Fit the request to the LLM into this many tokens, as `prompt --request-tokens` does.
    ///
    /// `--max-tokens` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "max-tokens",
        value_name = "TOKENS"
    )]
    pub request_tokens: Option<u64>,

    /// The prompt body of the request.
    #[command(flatten)]
    pub style: StyleFlag,

    /// A focus for the summary, appended under the custom-instruction marker; the model-free
    /// summaries state it first among their next steps. With --hook, by default the
    /// `custom_instructions` of Claude Code's PreCompact hook input.
    #[arg(hide_short_help = true, long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// What to write.
    #[arg(short, long, value_enum, default_value = "jsonl")]
    pub format: CompactFormat,

    /// Writing FILE itself.
    #[command(flatten)]
    pub in_place: InPlaceArgs,

    /// Handing the session to another agent.
    #[command(flatten)]
    pub handoff: HandoffArgs,
}
