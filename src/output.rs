//! Writing results: JSON lines and Markdown tables to the one buffered stdout handed down from
//! `main`, and diagnostics to stderr with control characters made visible.
//!
//! stdout is data, stderr is talk. Transcript text can hold terminal escape codes, so nothing
//! reaches stderr without passing through [`sanitize`].

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Writes `value` as one compact JSON line.
pub fn write_json_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

/// A JSON object whose keys keep the order they were pushed in.
pub struct OrderedMap<T>(Vec<(&'static str, T)>);

impl<T> FromIterator<(&'static str, T)> for OrderedMap<T> {
    fn from_iter<I: IntoIterator<Item = (&'static str, T)>>(iter: I) -> Self {
        OrderedMap(iter.into_iter().collect())
    }
}

impl<T: Serialize> Serialize for OrderedMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A Markdown table, written once all rows are known.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; cells are escaped for Markdown.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Writes the table.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells.iter().map(|c| escape_cell(c)).collect();
            format!("| {} |\n", escaped.join(" | "))
        };
        out.write_all(line(&self.header).as_bytes())?;
        let rule: Vec<String> = self.header.iter().map(|_| "---".to_owned()).collect();
        out.write_all(format!("|{}|\n", rule.join("|")).as_bytes())?;
        for row in &self.rows {
            out.write_all(line(row).as_bytes())?;
        }
        Ok(())
    }
}

fn escape_cell(cell: &str) -> String {
    sanitize(cell).replace('|', "\\|")
}

/// Makes control characters visible (`\u{1b}`), so no diagnostic or table cell can drive the
/// terminal.
pub fn sanitize(text: &str) -> String {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            let _ = write!(clean, "\\u{{{:x}}}", c as u32);
        } else {
            clean.push(c);
        }
    }
    clean
}

/// Warnings gathered while working, printed to stderr after the results.
#[derive(Default)]
pub struct Warnings(Vec<String>);

impl Warnings {
    /// Adds a warning.
    pub fn push(&mut self, warning: String) {
        self.0.push(warning);
    }

    /// Prints every warning, one line each.
    pub fn print(&self) {
        let stderr = io::stderr();
        let mut err = stderr.lock();
        for warning in &self.0 {
            let _ = writeln!(err, "condense: warning: {}", sanitize(warning));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_escapes_terminal_codes() {
        assert_eq!(sanitize("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(sanitize("plain"), "plain");
    }

    #[test]
    fn table_escapes_pipes() {
        let mut table = Table::new(&["a", "b"]);
        table.row(vec!["x|y".into(), "1".into()]);
        let mut out = Vec::new();
        table.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "| a | b |\n|---|---|\n| x\\|y | 1 |\n"
        );
    }
}
