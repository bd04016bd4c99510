//! What `estimate` prints: one JSON report per file and a total line, a Markdown table (with
//! `--explain` as prose under it), or one line per message.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use crate::cli::ReportFormat;
use crate::measure::file::FileReport;
use crate::measure::summary::{Summary, TotalLine};
use crate::output;
use crate::trigger::report::Explain;

/// The reports of `summaries`, and with `with_total` the total line that follows several.
pub fn write_summaries(
    out: &mut dyn Write,
    format: ReportFormat,
    summaries: &[Summary],
    with_total: bool,
) -> Result<()> {
    let total = with_total && summaries.len() > 1;
    match format {
        ReportFormat::Jsonl => {
            for summary in summaries {
                output::write_json_line(out, summary)?;
            }
            if total {
                output::write_json_line(out, &TotalLine::of(summaries))?;
            }
        }
        ReportFormat::Markdown => {
            summary_table(summaries, total).write(out)?;
            for s in summaries {
                if let Some(explain) = &s.explain {
                    write_explain(out, &s.file, explain, "**")?;
                }
            }
        }
        ReportFormat::Text => {
            summary_table(summaries, total).write_text(out)?;
            for s in summaries {
                if let Some(explain) = &s.explain {
                    write_explain(out, &s.file, explain, "")?;
                }
            }
        }
    }
    Ok(())
}

/// The table of `summaries`: the context size first, then what it is made of, and the window
/// where there is one; with `total`, a last row adding them up.
fn summary_table(summaries: &[Summary], total: bool) -> output::Table {
    let windowed = summaries.iter().any(|s| s.compaction.is_some());
    let mut header = vec![
        "file",
        "format",
        "model",
        "context",
        "from",
        "messages",
        "tokens",
        "tokenizer",
    ];
    if windowed {
        header.extend(["window", "used", "compaction"]);
    }
    let mut table = output::Table::new(&header);
    for s in summaries {
        let mut row = vec![
            s.file.clone(),
            s.format.unwrap_or("-").to_owned(),
            s.model.clone().unwrap_or_else(|| "-".to_owned()),
            s.context.tokens.to_string(),
            s.context.source.to_owned(),
            s.messages.to_string(),
            s.tokens.to_string(),
            s.tokenizer.to_owned(),
        ];
        if windowed {
            match &s.compaction {
                Some(c) => row.extend([
                    c.max_context.to_string(),
                    format!("{:.0}%", c.percent_used),
                    if c.due { "due" } else { "not due" }.to_owned(),
                ]),
                None => row.extend(["-".to_owned(), "-".to_owned(), "-".to_owned()]),
            }
        }
        table.row(row);
    }
    if total {
        let mut row = vec![
            "total".to_owned(),
            String::new(),
            String::new(),
            summaries
                .iter()
                .map(Summary::headline_tokens)
                .sum::<u64>()
                .to_string(),
            String::new(),
            summaries
                .iter()
                .map(|s| s.messages)
                .sum::<u64>()
                .to_string(),
            summaries.iter().map(|s| s.tokens).sum::<u64>().to_string(),
            String::new(),
        ];
        if windowed {
            row.extend([String::new(), String::new(), String::new()]);
        }
        table.row(row);
    }
    table
}

/// The `explain` object as prose under the table, the file name set off by `strong` (`**` in
/// Markdown).
fn write_explain(out: &mut dyn Write, file: &str, e: &Explain, strong: &str) -> Result<()> {
    let model = e.model.as_deref().map(output::sanitize).unwrap_or_default();
    writeln!(out)?;
    writeln!(
        out,
        "{strong}{file}{strong}: {} {model} compacts by itself at {} tokens of {} ({} now, {} left{})",
        e.agent,
        e.compacts_at,
        e.window,
        e.tokens,
        e.tokens_left,
        if e.due { ", due" } else { "" }
    )?;
    writeln!(out, "- rule: {}", e.rule)?;
    writeln!(out, "- source: {}", e.source)?;
    writeln!(
        out,
        "- condense --check: due at {}; {}",
        e.check.compacts_at, e.why
    )?;
    for c in &e.earlier {
        writeln!(
            out,
            "- earlier compaction at line {}: {} tokens ({}% of the window, {:+} from the rule; {})",
            c.line, c.tokens, c.percent_of_window, c.from_rule, c.field
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct MessageLine<'a> {
    file: &'a str,
    index: usize,
    line: usize,
    role: &'static str,
    tokens: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    sidechain: bool,
}

/// One line per message of the live contexts of `reports`.
pub fn write_per_message(
    out: &mut dyn Write,
    format: ReportFormat,
    reports: &[FileReport],
) -> Result<()> {
    let mut table = output::Table::new(&["file", "#", "line", "role", "tokens"]);
    for report in reports {
        let tokenizer = report.measure.tokenizer;
        for row in &report.rows {
            let line = MessageLine {
                file: &report.name,
                index: row.index,
                line: row.line,
                role: row.role.as_str(),
                tokens: tokenizer.tokens(row.units),
                sidechain: row.sidechain,
            };
            match format {
                ReportFormat::Jsonl => output::write_json_line(out, &line)?,
                ReportFormat::Markdown | ReportFormat::Text => table.row(vec![
                    line.file.to_owned(),
                    line.index.to_string(),
                    line.line.to_string(),
                    format!(
                        "{}{}",
                        line.role,
                        if line.sidechain { " (sidechain)" } else { "" }
                    ),
                    line.tokens.to_string(),
                ]),
            }
        }
    }
    match format {
        ReportFormat::Jsonl => {}
        ReportFormat::Markdown => table.write(out)?,
        ReportFormat::Text => table.write_text(out)?,
    }
    Ok(())
}
