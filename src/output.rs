//! Writing results: JSON lines and Markdown tables to the one buffered stdout handed down from
//! `main`, and diagnostics to stderr with control characters made visible.
//!
//! stdout is data, stderr is talk. Transcript text can hold terminal escape codes, so nothing
//! reaches stderr without passing through [`sanitize`]. A failed write to stdout says it was
//! stdout ([`Stdout`]); a closed stdout is an error, not a silent loss of the output.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Standard output, whose write errors name it (`stdout: No space left on device`) and keep
/// their kind, so that a reader that went away (`BrokenPipe`) is still told apart.
pub struct Stdout {
    out: io::StdoutLock<'static>,
    closed: bool,
}

impl Stdout {
    /// The locked process stdout.
    pub fn new() -> Self {
        Stdout {
            out: io::stdout().lock(),
            closed: stdout_was_closed(),
        }
    }

    fn named(error: io::Error) -> io::Error {
        io::Error::new(error.kind(), format!("stdout: cannot write: {error}"))
    }
}

impl Default for Stdout {
    fn default() -> Self {
        Stdout::new()
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(io::Error::other(
                "stdout: cannot write: it is closed (>&-); redirect it to /dev/null to discard the \
                 output",
            ));
        }
        self.out.write(buf).map_err(Stdout::named)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        self.out.flush().map_err(Stdout::named)
    }
}

/// Whether the process was started with stdout closed (`>&-`). The Rust runtime reopens a
/// closed standard descriptor on `/dev/null`, read-write, before `main`, so writes would vanish
/// without an error; that is what is looked for. It cannot be told apart from a parent that
/// hands over a read-write `/dev/null` on purpose (Python's `subprocess.DEVNULL`, Node's
/// `'ignore'`, a daemon), which must keep working, so it counts only when a shell started
/// condense directly (bash and zsh export `$_` as the command's path; a shell's own
/// `>/dev/null` is write-only) and stdin is not such a `/dev/null` too. A `>&-` from another
/// parent still goes unseen.
fn stdout_was_closed() -> bool {
    use rustix::fs::{fcntl_getfl, fstat, major, minor, FileType, OFlags};
    let runtime_null = |fd: std::os::fd::BorrowedFd<'_>| {
        let null = fstat(fd).is_ok_and(|stat| {
            FileType::from_raw_mode(stat.st_mode) == FileType::CharacterDevice
                && major(stat.st_rdev) == 1
                && minor(stat.st_rdev) == 3
        });
        null && fcntl_getfl(fd).is_ok_and(|flags| flags & OFlags::ACCMODE == OFlags::RDWR)
    };
    use std::os::fd::AsFd;
    runtime_null(io::stdout().as_fd()) && !runtime_null(io::stdin().as_fd()) && started_by_a_shell()
}

/// Whether `$_`, which bash and zsh set to the path of the command they run, names this
/// executable (a parent of another kind leaves its own path there, or nothing).
fn started_by_a_shell() -> bool {
    let (Some(command), Ok(exe)) = (std::env::var_os("_"), std::env::current_exe()) else {
        return false;
    };
    std::fs::canonicalize(command).is_ok_and(|path| path == exe)
}

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

impl<T> OrderedMap<T> {
    /// The value of a key.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The values, in order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter().map(|(_, v)| v)
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

/// A table, written once all rows are known: as Markdown, or as aligned columns for a person.
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

impl Table {
    /// Writes the table as aligned columns, two spaces apart: a column whose every cell is a
    /// number (or `-`) is right-aligned, with thousands separated by commas so that a reader
    /// sees 71,102 at a glance.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let columns = self.header.len();
        // A number, a percentage, or a blank (`-`, or nothing in a total row).
        let number_like = |v: &str| {
            let digits = v.strip_suffix('%').unwrap_or(v);
            v.is_empty() || v == "-" || digits.parse::<u64>().is_ok()
        };
        let numeric: Vec<bool> = (0..columns)
            .map(|c| {
                let cells = || self.rows.iter().filter_map(|row| row.get(c));
                cells().any(|v| !v.is_empty() && v != "-") && cells().all(|v| number_like(v))
            })
            .collect();
        let cells: Vec<Vec<String>> = std::iter::once(self.header.clone())
            .chain(self.rows.iter().map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(c, v)| match v.parse::<u64>() {
                        Ok(n) if numeric[c] => thousands(n),
                        _ => sanitize(v),
                    })
                    .collect()
            }))
            .collect();
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                cells
                    .iter()
                    .map(|row| row.get(c).map_or(0, |v| v.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &cells {
            let mut line = String::new();
            for (c, value) in row.iter().enumerate() {
                let pad = widths[c] - value.chars().count();
                if c > 0 {
                    line.push_str("  ");
                }
                if numeric[c] {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(value);
                } else {
                    line.push_str(value);
                    if c + 1 < row.len() {
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            out.write_all(line.trim_end().as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// `n` with its thousands separated by commas: 71102 reads 71,102.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

fn escape_cell(cell: &str) -> String {
    sanitize(cell).replace('|', "\\|")
}

/// Makes control characters visible (`\u{1b}`), so no diagnostic or table cell can drive the
/// terminal, and every message stays on one line: a newline (in a file name, say) reads `\n`.
pub fn sanitize(text: &str) -> String {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            clean.push_str("\\n");
        } else if c.is_control() {
            let _ = write!(clean, "\\u{{{:x}}}", c as u32);
        } else {
            clean.push(c);
        }
    }
    clean
}

/// What a command has to say on stderr besides its results: warnings (something the user
/// should look at) and notes (what a successful run did, such as "compact: pruned" or where a
/// new session was placed). Notes are not printed as warnings, so that a CI log that flags
/// "warning" flags only what needs a look. Both are printed after the results, in the order
/// they were said.
#[derive(Default)]
pub struct Warnings(Vec<Said>);

/// One thing said on stderr.
struct Said {
    warning: bool,
    text: String,
}

impl Warnings {
    /// Adds a warning: printed as `condense: warning: …`.
    pub fn push(&mut self, warning: String) {
        self.0.push(Said {
            warning: true,
            text: warning,
        });
    }

    /// Adds a note about what a successful run did: printed as `condense: …`.
    pub fn note(&mut self, note: String) {
        self.0.push(Said {
            warning: false,
            text: note,
        });
    }

    /// Takes over everything `other` said, in its order.
    pub fn extend(&mut self, other: Warnings) {
        self.0.extend(other.0);
    }

    /// The lines as they are printed, without the `condense: ` lead.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.0.iter().map(|said| {
            let text = sanitize(&said.text);
            if said.warning {
                format!("warning: {text}")
            } else {
                text
            }
        })
    }

    /// Prints every warning and note, one line each.
    pub fn print(&self) {
        let stderr = io::stderr();
        let mut err = stderr.lock();
        for line in self.lines() {
            let _ = writeln!(err, "condense: {line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(71102), "71,102");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn text_tables_align_words_left_and_numbers_right() {
        let mut table = Table::new(&["file", "context", "used", "note"]);
        table.row(vec![
            "a.jsonl".into(),
            "71102".into(),
            "36%".into(),
            "x".into(),
        ]);
        table.row(vec![
            "long-name.jsonl".into(),
            "-".into(),
            "5%".into(),
            "".into(),
        ]);
        table.row(vec!["total".into(), "".into(), "".into(), "".into()]);
        let mut out = Vec::new();
        table.write_text(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "file             context  used  note\n\
             a.jsonl           71,102   36%  x\n\
             long-name.jsonl        -    5%\n\
             total\n"
        );
    }

    #[test]
    fn sanitize_escapes_terminal_codes() {
        assert_eq!(sanitize("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(sanitize("plain"), "plain");
        assert_eq!(sanitize("a\nb.jsonl: cut"), "a\\nb.jsonl: cut");
    }

    #[test]
    fn notes_are_not_warnings() {
        let mut said = Warnings::default();
        said.push("f.jsonl:3: the last line is cut off".into());
        said.note("f.jsonl: compact: pruned (10 -> 5 tokens of live context)".into());
        let lines: Vec<String> = said.lines().collect();
        assert_eq!(
            lines,
            [
                "warning: f.jsonl:3: the last line is cut off",
                "f.jsonl: compact: pruned (10 -> 5 tokens of live context)"
            ]
        );
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
