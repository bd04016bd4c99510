//! `condense doctor`: checks each session by its agent's resume rule ([`crate::doctor`]) and,
//! with `--repair`, writes the fixes through the safe in-place writer ([`crate::persist`]:
//! lock, atomic replace, a backup never overwritten).
//!
//! Every FILE is read and examined before anything is written or printed, so a file that
//! cannot be read leaves every session untouched and stdout empty.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::cli::{DoctorArgs, ReportFormat};
use crate::cmd::source::read_source;
use crate::doctor::repair::{repair, Change};
use crate::doctor::{examine, Diagnosis};
use crate::input::Source;
use crate::output;
use crate::persist::{self, Done};
use crate::transcript::load::{LoadOptions, Transcript};
use crate::Outcome;

/// One file's report.
#[derive(Serialize)]
struct Report {
    #[serde(flatten)]
    diagnosis: Diagnosis,
    #[serde(skip_serializing_if = "Option::is_none")]
    repair: Option<RepairReport>,
}

/// What `--repair` did to one file.
#[derive(Serialize)]
struct RepairReport {
    changes: Vec<Change>,
    /// Broken links it could not fix, with why.
    left: Vec<Change>,
    /// Where the original is kept, when the file was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    backup: Option<PathBuf>,
}

/// Runs `doctor`.
pub fn run(args: &DoctorArgs, out: &mut dyn Write) -> Result<Outcome> {
    let sources = Source::list(&args.files);
    if args.repair && sources.iter().any(|s| matches!(s, Source::Stdin)) {
        bail!("--repair writes each FILE in place, so it needs files, not standard input");
    }
    let options = LoadOptions {
        from: args.from,
        skip_invalid: true,
        whole_file: false,
    };
    let mut reports = Vec::with_capacity(sources.len());
    for source in &sources {
        let bytes = read_source(source)?;
        let transcript = Transcript::parse(&source.name(), &bytes, options)?;
        reports.push(Report {
            diagnosis: examine(&transcript, &skipped_lines(&transcript)),
            repair: None,
        });
    }
    if args.repair {
        for (source, report) in sources.iter().zip(&mut reports) {
            let Source::File(path) = source else {
                continue;
            };
            if report.diagnosis.healthy() {
                continue;
            }
            let persist_options = persist::Options {
                backup_suffix: &args.backup_suffix,
                strategy: persist::Strategy::Replace,
                inputs: &[],
            };
            let name = source.name();
            // The build reads the file again under the lock: what is repaired is what is there.
            let done = persist::in_place(path, &persist_options, |bytes, out| {
                let transcript = Transcript::parse(&name, bytes, options)?;
                let repaired = repair(&transcript)?;
                out.write_all(&repaired.bytes)?;
                Ok((repaired.changes, repaired.left))
            })?;
            for warning in &done.warnings {
                eprintln!("condense: warning: {}", output::sanitize(warning));
            }
            let (changes, left) = done.value;
            report.repair = Some(RepairReport {
                changes,
                left,
                backup: match done.done {
                    Done::Replaced { backup } => Some(backup),
                    Done::Unchanged | Done::Appended => None,
                },
            });
        }
    }
    match ReportFormat::chosen(args.format) {
        ReportFormat::Jsonl => {
            for report in &reports {
                output::write_json_line(out, report)?;
            }
        }
        ReportFormat::Markdown => write_table(out, &reports, false)?,
        ReportFormat::Text => write_table(out, &reports, true)?,
    }
    Ok(Outcome::Success)
}

/// The line numbers of the malformed lines the load skipped (its messages start with
/// `NAME:LINE:`).
fn skipped_lines(transcript: &Transcript) -> Vec<usize> {
    let prefix = format!("{}:", transcript.name);
    transcript
        .skipped
        .iter()
        .filter_map(|message| {
            let rest = message.strip_prefix(&prefix)?;
            rest.split(':').next()?.parse().ok()
        })
        .collect()
}

/// The reports as a table (Markdown, or aligned columns with `text`), then a line for each
/// finding and repair.
fn write_table(out: &mut dyn Write, reports: &[Report], text: bool) -> Result<()> {
    let mut table = output::Table::new(&["file", "format", "messages", "reachable", "defects"]);
    for report in reports {
        let d = &report.diagnosis;
        table.row(vec![
            d.file.clone(),
            d.format.unwrap_or("-").to_owned(),
            d.messages.to_string(),
            d.reachable.to_string(),
            if d.healthy() {
                "none".to_owned()
            } else {
                d.findings
                    .iter()
                    .map(|f| format!("{} {}", f.count, f.defect))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ]);
    }
    if text {
        table.write_text(out)?;
    } else {
        table.write(out)?;
    }
    for report in reports {
        let d = &report.diagnosis;
        for f in &d.findings {
            let lines: Vec<String> = f.lines.iter().take(10).map(usize::to_string).collect();
            writeln!(
                out,
                "- {}: {} {} (line {}{}): {}",
                d.file,
                f.count,
                f.defect,
                lines.join(", "),
                if f.count > lines.len() { ", …" } else { "" },
                f.effect
            )?;
        }
        if let Some(repair) = &report.repair {
            for change in &repair.changes {
                writeln!(
                    out,
                    "- {}:{}: repaired: {}",
                    d.file, change.line, change.what
                )?;
            }
            for change in &repair.left {
                writeln!(out, "- {}:{}: left: {}", d.file, change.line, change.what)?;
            }
            if let Some(backup) = &repair.backup {
                writeln!(
                    out,
                    "- {}: the original is kept as {}",
                    d.file,
                    backup.display()
                )?;
            }
        }
    }
    Ok(())
}
