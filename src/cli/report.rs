//! The output formats of the reports (`estimate`, `history`, `doctor`), and which one a
//! terminal or a pipe gets.

use clap::ValueEnum;

/// Output formats of reports. Without `--format`, a terminal gets `text` and a pipe `jsonl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns for a person.
    Text,
    /// One JSON object per line (`json` is its old name, kept for one release).
    #[value(alias = "json")]
    Jsonl,
    /// A Markdown table.
    Markdown,
}

impl ReportFormat {
    /// The format asked for, else `text` at a terminal and `jsonl` for a program.
    pub fn chosen(asked: Option<ReportFormat>) -> ReportFormat {
        asked.unwrap_or(if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            ReportFormat::Text
        } else {
            ReportFormat::Jsonl
        })
    }
}
