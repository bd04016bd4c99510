//! The rows of one session: its compactions (or the `--at` cuts), each graded for every
//! summary made of the prefix before it, built-in or `--cmd`.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::shell::{PrefixFile, Shell};
use crate::cli::{Builtin, EvalArgs};
use crate::cmd::options;
use crate::cmd::shared::transcript_warnings;
use crate::cmd::source::read_source;
use crate::compaction::extract::live_extract;
use crate::eval::cuts::{at_cuts, real_cuts, Cut};
use crate::eval::grade::{grade, reused, Prefix, Summary};
use crate::eval::pieces::{context_pieces, written_pieces};
use crate::eval::probes::{Probe, ProbeFile};
use crate::eval::report::{Row, RowOf};
use crate::extract::{bare, caveman};
use crate::input::Source;
use crate::output::Warnings;
use crate::tokens::{Estimator, Tokenizer};
use crate::transcript::load::{LoadOptions, Transcript};

/// bare's default budget, which `eval` runs it at.
const BARE_BUDGET: u64 = 100;

/// The rows of one session.
pub fn eval_source(
    source: &Source,
    args: &EvalArgs,
    shells: &[Shell],
    probe_files: &[(PathBuf, ProbeFile)],
    estimator: Estimator,
) -> Result<(Vec<Row>, Warnings)> {
    let name = source.name();
    let bytes = read_source(source)?;
    let options = options::load(&args.input.read);
    let transcript = Transcript::parse(&name, &bytes, options)?;
    // The whole session's estimator, so that every cut of it is counted alike.
    let tokenizer = transcript.tokenizer(estimator);
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let Some(format) = transcript.format else {
        return Ok((Vec::new(), warnings));
    };
    let records = &transcript.records;
    let mut cuts = real_cuts(format, records, args.horizon);
    if cuts.is_empty() {
        cuts = at_cuts(records, &args.at, args.horizon);
        if cuts.is_empty() {
            warnings.push(format!(
                "{name}: no compaction to grade{}",
                if args.at.is_empty() {
                    " (--at N|P% cuts a session with none)"
                } else {
                    ", and no --at place within its messages"
                }
            ));
        }
    }
    let path = match source {
        Source::File(path) => path.to_string_lossy().replace('\\', "/"),
        Source::Stdin => String::new(),
    };
    let mut rows = Vec::new();
    for cut in &cuts {
        let prefix_bytes = whole_lines(&bytes, cut.prefix_lines);
        let prefix_options = LoadOptions {
            from: Some(format),
            ..options
        };
        let prefix = Transcript::parse(&name, prefix_bytes, prefix_options)?;
        if !prefix.context().iter().any(|r| r.message().is_some()) {
            warnings.push(format!(
                "{name}:{}: nothing before this compaction in the file (kimi-cli keeps it in \
                 the rotated context_N.jsonl); not graded",
                cut.line
            ));
            continue;
        }
        let mut pieces = Vec::new();
        for record in prefix.context() {
            context_pieces(record, &mut pieces);
        }
        let model = Prefix::new(&pieces);
        let mut suffix = Vec::new();
        for record in &records[cut.suffix.clone()] {
            written_pieces(record, &mut suffix);
        }
        let needed = reused(&model, &suffix);
        let summaries = summaries(cut, &prefix, &model, prefix_bytes, args, shells, tokenizer)
            .with_context(|| format!("{name}:{}", cut.line))?;
        let probes: Vec<Probe> = probe_files
            .iter()
            .filter(|(_, file)| file.is_for(&path, cut.line))
            .flat_map(|(_, file)| file.probes.iter().cloned())
            .collect();
        let has_probes = probe_files.iter().any(|(_, f)| f.is_for(&path, cut.line));
        for (summary_name, text) in &summaries {
            let graded = grade(&model, &needed, &Summary::new(text));
            rows.push(Row::new(RowOf {
                file: &name,
                cut: (cut.line, cut.kind),
                summary: (summary_name, text, tokenizer.text_tokens(text)),
                needed: &needed,
                grade: &graded,
                probes: has_probes.then_some(probes.as_slice()),
                show_lost: args.show_lost,
            }));
        }
    }
    Ok((rows, warnings))
}

/// The summaries of one cut, by name, in the order native, caveman, bare, baseline, then the
/// `--cmd` ones.
fn summaries(
    cut: &Cut,
    prefix: &Transcript,
    model: &Prefix,
    prefix_bytes: &[u8],
    args: &EvalArgs,
    shells: &[Shell],
    tokenizer: Tokenizer,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let extract = live_extract(prefix).with_instructions(cut.instructions.as_deref());
    for builtin in [
        Builtin::Native,
        Builtin::Caveman,
        Builtin::Bare,
        Builtin::Baseline,
    ] {
        if !args.builtin.contains(&builtin) {
            continue;
        }
        let (name, text) = match builtin {
            Builtin::Native => match &cut.native {
                Some(text) => ("native", text.clone()),
                None => continue,
            },
            Builtin::Caveman => ("caveman", caveman(&extract, args.budget, tokenizer)),
            Builtin::Bare => ("bare", bare(&extract, BARE_BUDGET, tokenizer).lines()),
            Builtin::Baseline => ("baseline", model.baseline(args.budget, tokenizer)),
        };
        out.push((name.to_owned(), text));
    }
    if !shells.is_empty() {
        let file = PrefixFile::write(prefix_bytes)?;
        for shell in shells {
            out.push((
                shell.name.clone(),
                file.run(shell, cut.instructions.as_deref())?,
            ));
        }
    }
    Ok(out)
}

/// The first `count` lines of `bytes`, terminators included.
fn whole_lines(bytes: &[u8], count: usize) -> &[u8] {
    let mut end = 0;
    for _ in 0..count {
        match memchr::memchr(b'\n', &bytes[end..]) {
            Some(i) => end += i + 1,
            None => return bytes,
        }
    }
    &bytes[..end]
}
