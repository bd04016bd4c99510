//! What the commands share: finding the transcripts they read (files, directories, file lists,
//! `--latest`, `--session`, `--hook`), reading the one transcript `split`, `prompt`, `inject`,
//! `caveman` and `bare` work on, turning the plan flags into a [`Plan`], and the plan's JSON
//! form with its fingerprint.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cli::{FilesArgs, FindArgs, InputArgs, PlanArgs, ReadArgs};
use crate::cmd::settings;
use crate::extract::{extract, Extract, Said};
use crate::input::{compression_of, read_all, Compression, Source};
use crate::output::Warnings;
use crate::plan::{fingerprint, plan, Kept, KeptUser, Mode, Plan};
use crate::request::budget::Cut;
use crate::sessions::{self, Agent, Env};
use crate::settings::{Flags, Keep};
use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::write::top_level_str;
use crate::transcript::Record;

/// The one source these commands read: FILE (a directory: its newest session file), the
/// session `--latest`, `--session` or `--hook` names, or standard input.
pub fn single_source(input: &InputArgs) -> Result<Source> {
    if let Some(path) = found(&input.find, &sessions::process_env)? {
        return Ok(Source::File(path));
    }
    Ok(match &input.file {
        Some(path) if path.is_dir() => Source::File(sessions::newest_in(path)?),
        Some(path) => Source::list(std::slice::from_ref(path)).remove(0),
        None => Source::Stdin,
    })
}

/// The session the finding flags name, if they name one.
pub fn found(find: &FindArgs, env: Env) -> Result<Option<PathBuf>> {
    let agents = match find.agent {
        Some(agent) => vec![agent],
        None => Agent::ALL.to_vec(),
    };
    if find.latest {
        return Ok(Some(sessions::latest(&sessions::places(&agents, env)?)?));
    }
    if let Some(id) = &find.session {
        return Ok(Some(sessions::by_id(&sessions::places(&agents, env)?, id)?));
    }
    if find.hook {
        return hook_transcript(std::io::stdin().lock()).map(Some);
    }
    Ok(None)
}

/// Refuses `inject --in-place` on a compressed transcript: the result is plain JSONL, and
/// writing it over `session.jsonl.gz` would leave a file its name misdescribes and no agent
/// reads. (A `--hook` input is not checked here: its stdin is read once, by the command.)
pub fn refuse_compressed_in_place(input: &InputArgs, in_place: bool) -> Result<()> {
    if !in_place || input.find.hook {
        return Ok(());
    }
    let path = match found(&input.find, &sessions::process_env)? {
        Some(path) => path,
        None => match &input.file {
            Some(path) if path.is_file() => path.clone(),
            _ => return Ok(()),
        },
    };
    if compression_of(&path)? != Compression::None {
        bail!(
            "{}: --in-place cannot rewrite a compressed transcript; decompress it first, or write \
             the result to stdout",
            path.display()
        );
    }
    Ok(())
}

/// The `transcript_path` of the hook input JSON on `reader` (Claude Code hands every hook and
/// its status line one such object on stdin).
pub fn hook_transcript(mut reader: impl Read) -> Result<PathBuf> {
    let mut text = String::new();
    reader
        .read_to_string(&mut text)
        .context("<stdin>: cannot read the hook input")?;
    let value: serde_json::Value =
        serde_json::from_str(&text).context("<stdin>: the hook input is not a JSON object")?;
    match value.get("transcript_path").and_then(|p| p.as_str()) {
        // The agent names its own session file; anything else (a FIFO would block the read
        // forever) is refused.
        Some(path) if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) => {
            bail!("{path}: the hook input's transcript_path is not a regular file")
        }
        Some(path) if !path.is_empty() => Ok(PathBuf::from(path)),
        _ => bail!("<stdin>: the hook input has no transcript_path"),
    }
}

/// One input of a multi-file command: a source, or why a FILE gave none (a directory that
/// cannot be listed or holds no session), located by its name.
pub type Input = Result<Source>;

/// The inputs of `estimate`, in order: FILEs (directories expanded to their session files,
/// sorted by path), then the files `--files-from` lists, or the session the finding flags name.
pub fn sources(args: &FilesArgs) -> Result<Vec<Input>> {
    if let Some(path) = found(&args.find, &sessions::process_env)? {
        return Ok(vec![Ok(Source::File(path))]);
    }
    let mut named = args.files.clone();
    if let Some(list) = &args.files_from {
        if list.as_os_str() == "-" && named.iter().any(|f| f.as_os_str() == "-") {
            bail!("--files-from - reads the file list from standard input, so no transcript can come from it too");
        }
        named.extend(file_list(list)?);
        if named.is_empty() {
            return Ok(Vec::new());
        }
    }
    if named.is_empty() {
        return Ok(vec![Ok(Source::Stdin)]);
    }
    let mut inputs = Vec::new();
    for path in named {
        if !path.is_dir() {
            inputs.extend(Source::list(&[path]).into_iter().map(Ok));
            continue;
        }
        match sessions::find_in(&path, None) {
            Ok(found) if found.is_empty() => inputs.push(Err(anyhow::anyhow!(
                "{}: no session file (*.jsonl) in this directory",
                path.display()
            ))),
            Ok(found) => inputs.extend(found.into_iter().map(|s| Ok(Source::File(s.path)))),
            Err(error) => inputs.push(Err(error)),
        }
    }
    Ok(inputs)
}

/// The paths a `--files-from` list names: NUL-separated when it holds a NUL byte, else one per
/// line (a CR before the newline dropped); empty entries are skipped.
pub fn file_list(list: &Path) -> Result<Vec<PathBuf>> {
    let (name, bytes) = if list.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("<stdin>: cannot read the file list")?;
        ("<stdin>".to_owned(), bytes)
    } else {
        let bytes = std::fs::read(list)
            .with_context(|| format!("{}: cannot read the file list", list.display()))?;
        (list.display().to_string(), bytes)
    };
    let separator = if bytes.contains(&0) { 0 } else { b'\n' };
    bytes
        .split(|&b| b == separator)
        .map(|entry| entry.strip_suffix(b"\r").unwrap_or(entry))
        .filter(|entry| !entry.is_empty())
        .map(|entry| path_of(entry).with_context(|| format!("{name}: a file name is not valid")))
        .collect()
}

#[cfg(unix)]
fn path_of(bytes: &[u8]) -> Result<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> Result<PathBuf> {
    Ok(PathBuf::from(std::str::from_utf8(bytes)?))
}

/// Reading options from the input flags.
pub fn load_options(input: &InputArgs) -> LoadOptions {
    read_options(&input.read)
}

/// Reading options from the reading flags.
pub fn read_options(read: &ReadArgs) -> LoadOptions {
    LoadOptions {
        from: read.from,
        skip_invalid: read.skip_invalid,
        whole_file: read.whole_file,
    }
}

/// Refuses a transcript whose last line is cut off: writing a compaction now would lose the
/// rest of that line, which the agent is still writing.
pub fn refuse_cut_off(transcript: &Transcript, verb: &str) -> Result<()> {
    if let Some(index) = transcript.incomplete {
        if crate::persist::journal::left_beside(Path::new(&transcript.name)) {
            bail!(
                "{}:{}: the last line is the start of condense's own compaction records, left by \
                 a run that was killed while writing them; any --in-place run on the session \
                 removes it first",
                transcript.name,
                transcript.lines[index].number
            );
        }
        bail!(
            "{}:{}: the last line is cut off (a session still being written?); {verb} now \
             would lose it, so wait until the agent has finished writing",
            transcript.name,
            transcript.lines[index].number
        );
    }
    Ok(())
}

/// Warnings about lines a transcript could not use.
pub fn transcript_warnings(transcript: &Transcript, warnings: &mut Warnings) {
    if let Some(index) = transcript.incomplete {
        let whose = if crate::persist::journal::left_beside(Path::new(&transcript.name)) {
            "condense's own records, left by a killed run; an --in-place run removes them"
        } else {
            "a session still being written?"
        };
        warnings.push(format!(
            "{}:{}: the last line is cut off ({whose}); not read",
            transcript.name, transcript.lines[index].number
        ));
    }
    if let Some(first) = transcript.skipped.first() {
        warnings.push(format!(
            "{}: skipped {} malformed line(s); the first: {first}",
            transcript.name,
            transcript.skipped.len()
        ));
    }
}

/// Reads a whole source.
pub fn read_source(source: &Source) -> Result<Vec<u8>> {
    read_all(source)
}

/// The mode the plan flags select, else the one the settings (config file, preset) keep.
pub fn mode(args: &PlanArgs, keep: Keep, records: &[Record], tokenizer: Tokenizer) -> Result<Mode> {
    if let Some(upto) = &args.upto {
        return Ok(Mode::Upto {
            index: resolve_upto(upto, records)?,
        });
    }
    if let Some(keep_user_tokens) = args.keep_user_tokens {
        return Ok(Mode::User {
            keep_user_tokens,
            user_head_tokens: args.user_head_tokens.unwrap_or(2000),
        });
    }
    if args.head_tokens.is_some() || args.tail_tokens.is_some() {
        return Ok(Mode::Budgets {
            head_tokens: args.head_tokens.unwrap_or(500),
            tail_tokens: args.tail_tokens.unwrap_or(1000),
        });
    }
    if let Some(preserve) = args.preserve {
        return Ok(Mode::Tail { preserve });
    }
    Ok(match keep {
        Keep::Tail { preserve } => Mode::Tail { preserve },
        Keep::Budgets {
            head_tokens,
            tail_tokens,
        } => Mode::Budgets {
            head_tokens,
            tail_tokens,
        },
        Keep::User {
            keep_user_tokens,
            user_head_tokens,
        } => Mode::User {
            keep_user_tokens,
            user_head_tokens,
        },
        // Gemini CLI keeps the newest share of the history: a tail budget of that share.
        Keep::Share { percent } => Mode::Budgets {
            head_tokens: 0,
            tail_tokens: tokenizer.messages_tokens(records.iter().filter_map(Record::message))
                * percent
                / 100,
        },
    })
}

/// A position in the live context, or the first record of it whose `uuid` or `id` field is
/// `id`.
fn resolve_upto(id: &str, records: &[Record]) -> Result<usize> {
    if let Ok(index) = id.parse::<usize>() {
        return Ok(index);
    }
    let quoted = serde_json::to_string(id)?;
    let needles = [format!("\"uuid\":{quoted}"), format!("\"id\":{quoted}")];
    // A top-level field is compared as a value, so JSON written with spaces (`"uuid": "…"`)
    // matches too; the byte search also finds ids nested in an envelope (Codex `payload.id`).
    let top_level = |raw: &[u8]| {
        ["uuid", "id"]
            .iter()
            .any(|key| top_level_str(raw, key).as_deref() == Some(id))
    };
    records
        .iter()
        .position(|r| {
            top_level(r.raw)
                || needles
                    .iter()
                    .any(|n| memchr::memmem::find(r.raw, n.as_bytes()).is_some())
        })
        .with_context(|| "--upto names no record index or record id of this transcript")
}

/// Plans `transcript` by the flags.
pub fn plan_for(args: &PlanArgs, transcript: &Transcript) -> Result<(Plan, Tokenizer)> {
    let tokenizer = args.tokens.tokenizer()?;
    let settings = settings::load(&args.settings, Flags::default())?;
    let mode = mode(args, settings.keep, &transcript.context, tokenizer)?;
    let plan = plan(&transcript.context, mode, tokenizer, transcript.dialect())
        .with_context(|| transcript.name.clone())?;
    Ok((plan, tokenizer))
}

/// The JSON form of a plan, as `split` prints it and `prompt --plan` writes it.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlanReport {
    /// The transcript's name.
    pub file: String,
    /// Its format.
    pub format: Option<String>,
    /// The mode and its settings.
    pub mode: Mode,
    /// The estimator that measured the regions (and the budgets of budgets mode).
    pub tokenizer: String,
    /// How many records the live context has (positions below count in it).
    pub records: usize,
    /// Why nothing is compacted, or null.
    pub noop: Option<String>,
    /// The regions.
    pub regions: Regions,
    /// User messages kept beside the summary (user mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_user: Option<KeptUsers>,
    /// Tail mode: the user's newest request, part of `compact` but kept verbatim after the
    /// summary because the tail does not reach back to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_request: Option<RegionReport>,
    /// The records before the tail, which inject checks are unchanged.
    pub fingerprint: Fingerprint,
    /// How `prompt --max-tokens` shrank the request, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<RequestReport>,
}

/// What `prompt --max-tokens` did to the request. The summary still replaces exactly the
/// compacted records: only what the summarizer read was shortened.
#[derive(Debug, Serialize, Deserialize)]
pub struct RequestReport {
    /// The budget.
    pub max_tokens: u64,
    /// The request's tokens.
    pub tokens: u64,
    /// What was cut, in order.
    pub cuts: Vec<Cut>,
}

/// The four regions of a plan.
#[derive(Debug, Serialize, Deserialize)]
pub struct Regions {
    /// Leading bookkeeping and system records.
    pub lead: RegionReport,
    /// The head kept verbatim.
    pub head: RegionReport,
    /// The records summarised.
    pub compact: RegionReport,
    /// The records kept after the summary.
    pub tail: RegionReport,
}

/// One region.
#[derive(Debug, Serialize, Deserialize)]
pub struct RegionReport {
    /// Positions in the live context, start inclusive, end exclusive.
    pub records: [usize; 2],
    /// First and last line numbers of its records, or null when it is empty.
    pub lines: Option<[usize; 2]>,
    /// Main-chain messages in it.
    pub messages: usize,
    /// Their tokens.
    pub tokens: u64,
}

/// The user messages kept in user mode.
#[derive(Debug, Serialize, Deserialize)]
pub struct KeptUsers {
    /// The oldest, in order.
    pub head: Vec<KeptUserReport>,
    /// The newest, in order.
    pub tail: Vec<KeptUserReport>,
    /// Estimated tokens of the user messages left out between them.
    pub elided_tokens: u64,
}

/// One kept user message.
#[derive(Debug, Serialize, Deserialize)]
pub struct KeptUserReport {
    /// Its record index.
    pub record: usize,
    /// `whole`, or `text` when only part of its text is kept.
    pub kept: String,
    /// Characters of text kept, for `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chars: Option<usize>,
    /// Its estimate (kimi-code).
    pub tokens: u64,
}

/// What identifies the records before the tail.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Fingerprint {
    /// How many records precede the tail.
    pub records: usize,
    /// Their hash.
    pub hash: String,
}

/// The JSON form of `plan` over `transcript`'s live context.
pub fn plan_report(plan: &Plan, transcript: &Transcript, tokenizer: Tokenizer) -> PlanReport {
    let records = &transcript.context;
    let region = |range: &Range<usize>| {
        let messages: Vec<_> = records[range.clone()]
            .iter()
            .filter_map(Record::message)
            .filter(|m| !m.sidechain)
            .collect();
        RegionReport {
            records: [range.start, range.end],
            lines: (!range.is_empty())
                .then(|| [records[range.start].line, records[range.end - 1].line]),
            messages: messages.len(),
            tokens: tokenizer.messages_tokens(messages),
        }
    };
    let kept = |k: &KeptUser| KeptUserReport {
        record: k.record,
        kept: match k.kept {
            Kept::Whole => "whole".to_owned(),
            Kept::Text(_) => "text".to_owned(),
        },
        chars: match &k.kept {
            Kept::Whole => None,
            Kept::Text(text) => Some(text.chars().count()),
        },
        tokens: k.tokens,
    };
    PlanReport {
        file: transcript.name.clone(),
        format: transcript.format.map(|f| f.as_str().to_owned()),
        mode: plan.mode,
        tokenizer: tokenizer.name().to_owned(),
        records: plan.records,
        noop: plan.noop.map(|n| n.reason().to_owned()),
        regions: Regions {
            lead: region(&plan.lead),
            head: region(&plan.head),
            compact: region(&plan.compact),
            tail: region(&plan.tail),
        },
        kept_request: plan.request.as_ref().map(region),
        kept_user: matches!(plan.mode, Mode::User { .. }).then(|| KeptUsers {
            head: plan.kept_head.iter().map(kept).collect(),
            tail: plan.kept_tail.iter().map(kept).collect(),
            elided_tokens: plan.elided_tokens,
        }),
        fingerprint: Fingerprint {
            records: plan.tail.start,
            hash: fingerprint(&records[..plan.tail.start]),
        },
        request: None,
    }
}

/// What `caveman` and `bare` extract: the live context, after the file's header. When that
/// holds no request of the
/// user's (a session compacted before, whose summary stands in for its start), the goal is the
/// earliest request in the file, in the user's own words.
pub fn live_extract(transcript: &Transcript) -> Extract {
    // The file's leading bookkeeping (a session header with its working directory) comes
    // first, even where the agent's rule leaves it out of the context: it names the root.
    let first_message = transcript
        .records
        .iter()
        .position(|r| r.message().is_some())
        .unwrap_or(transcript.records.len());
    let header = (0..first_message).filter(|i| !transcript.live.order.contains(i));
    let records: Vec<Record> = header
        .map(|i| transcript.records[i].clone())
        .chain(transcript.context.iter().cloned())
        .collect();
    let mut extract = extract(&records);
    if extract.goal.is_none() {
        extract.goal = transcript
            .records
            .iter()
            .filter_map(Record::message)
            .filter(|message| !message.sidechain)
            .find(|message| is_real_user_request(message))
            .map(|message| Said {
                text: one_line(&text_of(message), GOAL_CHARS),
                // From outside the context: no record of the extract has this index.
                index: usize::MAX,
            });
    }
    extract
}

/// How many characters of an earliest request are kept as the goal.
const GOAL_CHARS: usize = 1000;

/// `text` on one line: whitespace runs (newlines included) become one space, control
/// characters go, and at most `limit` characters are kept.
fn one_line(text: &str, limit: usize) -> String {
    text.split_whitespace()
        .flat_map(|word| [" ", word])
        .skip(1)
        .flat_map(str::chars)
        .filter(|c| !c.is_control())
        .take(limit)
        .collect()
}

/// The plan `report` describes, checked against the transcript as it is now: the records it
/// compacted must be unchanged; records appended since join the tail. `again` is what to run
/// for a new plan, said when this one no longer fits.
pub fn check_plan(
    report: &PlanReport,
    transcript: &Transcript,
    again: &str,
) -> Result<(Plan, Tokenizer)> {
    let tokenizer =
        Tokenizer::from_name(&report.tokenizer).context("unknown tokenizer in the plan")?;
    let records = &transcript.context;
    if records.len() < report.records {
        bail!(
            "{}: the plan was made for {} records but the transcript now has {}; {again}",
            transcript.name,
            report.records,
            records.len()
        );
    }
    let mut plan = plan(
        &records[..report.records],
        report.mode,
        tokenizer,
        transcript.dialect(),
    )
    .with_context(|| transcript.name.clone())?;
    let now = fingerprint(&records[..plan.tail.start]);
    if plan.tail.start != report.fingerprint.records || now != report.fingerprint.hash {
        bail!(
            "{}: the records the plan compacts changed since the plan was made (plan {} over {} \
             records, now {} over {}); {again}",
            transcript.name,
            report.fingerprint.hash,
            report.fingerprint.records,
            now,
            plan.tail.start
        );
    }
    // Everything written after the plan was made is kept.
    plan.records = records.len();
    if plan.noop.is_none() {
        plan.tail.end = records.len();
    } else {
        plan.tail = 0..records.len();
    }
    Ok((plan, tokenizer))
}
