//! What `inject` reads besides the transcript: the summary, the file `--in-place` rewrites,
//! and where the plan comes from (a plan file, or the flags and the settings), each read once.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cli::{InjectArgs, InjectFormat};
use crate::cmd::{options, settings};
use crate::compaction::check::check_plan;
use crate::compaction::planning::PlanOptions;
use crate::compaction::report::SavedPlan;
use crate::input::Source;
use crate::persist::guard;
use crate::plan::Plan;
use crate::settings::Flags;
use crate::summary;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;

/// The file `--in-place` rewrites: the one FILE argument, which must be a file.
pub fn in_place_target(args: &InjectArgs, source: &Source) -> Result<Option<PathBuf>> {
    if !args.in_place.enabled {
        return Ok(None);
    }
    if args.format != InjectFormat::Jsonl {
        let why = "--in-place writes the session itself; --format markdown writes a document to \
                   standard output";
        return Err(crate::UsageError(why.to_owned()).into());
    }
    match source {
        Source::File(path) => Ok(Some(path.clone())),
        Source::Stdin => bail!("--in-place needs the transcript as a FILE, not standard input"),
    }
}

/// The summary `--summary` names, cleaned (see [`summary::clean`]); never the transcript
/// itself.
pub fn read_summary(path: &Path, transcript: &Source) -> Result<String> {
    let raw = if path.as_os_str() == "-" {
        if *transcript == Source::Stdin {
            bail!("--summary - reads standard input, so the transcript must be given as a FILE");
        }
        let mut raw = Vec::new();
        std::io::stdin()
            .read_to_end(&mut raw)
            .context("<stdin>: cannot read the summary")?;
        raw
    } else {
        // By inode, so a hard link, a symlink or `/dev/stdin` is seen through.
        let same = match transcript {
            Source::File(transcript) => guard::same_file(path, transcript),
            Source::Stdin => guard::is_stdin(path),
        };
        if same {
            bail!(
                "{}: the summary and the transcript are {}; --summary takes the file the LLM wrote",
                path.display(),
                match transcript {
                    Source::File(_) => "the same file",
                    Source::Stdin => "both standard input",
                }
            );
        }
        fs::read(path).with_context(|| format!("{}: cannot read the summary", path.display()))?
    };
    let name = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    summary::clean(&raw).with_context(|| name)
}

/// Where the plan comes from, read on first use (after the transcript, whose errors come
/// first) and kept for the builds `--in-place` may run again.
pub struct Planner<'a> {
    args: &'a InjectArgs,
    source: Option<PlanSource>,
}

/// The plan's source, read.
enum PlanSource {
    /// A `prompt --plan` file (at this path), checked against each transcript.
    File(SavedPlan, PathBuf),
    /// The plan flags and the settings.
    Flags(PlanOptions),
}

impl<'a> Planner<'a> {
    /// The planner of `args`.
    pub fn new(args: &'a InjectArgs) -> Self {
        Planner { args, source: None }
    }

    /// The plan of `transcript`.
    pub fn plan(&mut self, transcript: &Transcript) -> Result<(Plan, Tokenizer)> {
        let source = match self.source.take() {
            Some(source) => source,
            None => match &self.args.plan_file {
                Some(path) => PlanSource::File(read_plan(path)?, path.clone()),
                None => {
                    let settings = settings::load(&self.args.plan.settings, Flags::default())?;
                    PlanSource::Flags(options::plan(&self.args.plan, &settings, transcript)?)
                }
            },
        };
        let planned = match &source {
            PlanSource::File(saved, path) => {
                check_plan(saved, transcript, "run prompt --plan again")
                    .with_context(|| path.display().to_string())
            }
            PlanSource::Flags(options) => options
                .plan(transcript)
                .map(|plan| (plan, options.tokenizer)),
        };
        self.source = Some(source);
        planned
    }
}

/// The plan a `prompt --plan` file holds.
fn read_plan(path: &Path) -> Result<SavedPlan> {
    let text =
        fs::read(path).with_context(|| format!("{}: cannot read the plan", path.display()))?;
    serde_json::from_slice(&text).with_context(|| {
        format!(
            "{}: not a plan written by condense prompt --plan",
            path.display()
        )
    })
}
