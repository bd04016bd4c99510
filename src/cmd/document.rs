//! Sessions an agent stores as one JSON document (Gemini CLI's legacy `session-*.json`): told
//! apart from JSON lines by their first lines, read as the JSON lines the agent itself makes of
//! them, and written in place into the JSONL file the agent resumes instead, never into the
//! document.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::transcript::read::{self, may_be_document};
use crate::transcript::registry::FormatId;

/// The longest first line a JSON document's writer leaves: Gemini CLI writes its legacy session
/// pretty-printed, `{` alone on the first line. Input whose first line is longer is JSON lines,
/// streamed rather than held while it is told apart (`estimate` holds one long line at a time).
const DOCUMENT_FIRST_LINE: u64 = 1 << 20;

/// The first lines of an input, as read to tell a JSON document from JSON lines.
pub(super) struct Head {
    pub bytes: Vec<u8>,
    /// The input ended there (read again, a terminal would wait for a second Ctrl-D).
    pub ended: bool,
    /// The input may be one JSON document (see [`may_be_document`]).
    pub document: bool,
}

/// The first lines of `reader`, up to the second non-blank one or the first that shows the input
/// is JSON lines.
pub(super) fn read_head(reader: &mut impl BufRead, name: &str) -> Result<Head> {
    let mut bytes = Vec::new();
    let mut non_blank = 0;
    while non_blank < 2 {
        let before = bytes.len();
        let read = reader
            .by_ref()
            .take(DOCUMENT_FIRST_LINE)
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("{name}: cannot read"))?;
        if read as u64 == DOCUMENT_FIRST_LINE && bytes.last() != Some(&b'\n') {
            // A line this long is no document's first line.
            return Ok(Head {
                bytes,
                ended: false,
                document: false,
            });
        }
        if read == 0 || bytes.last() != Some(&b'\n') {
            let document = may_be_document(&bytes);
            return Ok(Head {
                bytes,
                ended: true,
                document,
            });
        }
        if !bytes[before..].iter().all(u8::is_ascii_whitespace) {
            non_blank += 1;
        }
        if non_blank == 1 && !may_be_document(&bytes) {
            break;
        }
    }
    let document = may_be_document(&bytes);
    Ok(Head {
        bytes,
        ended: false,
        document,
    })
}

/// The file an in-place write of the session at `path` goes to: `path` itself, or for a session
/// its agent stored as one JSON document, the JSONL file the agent resumes instead (Gemini CLI's
/// `<same name>.jsonl`), made now from the document's lines, with a `lastUpdated` later than the
/// document's so that the agent's session list prefers it. The document is never written. When
/// that JSONL file exists already the agent has moved the session there: the write is refused,
/// naming it, since the document no longer holds the session.
///
/// `write` then writes that file; an import it wrote nothing into (an error, nothing to
/// compact) is taken away again, leaving the session as it was.
///
/// A session kept as rows of a database (`DB#ID`) is written through a file of its lines
/// ([`super::stored`]).
pub fn in_place_file<T>(path: &Path, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    if super::stored::is_stored(path) {
        return super::stored::in_place(path, write);
    }
    let Some((import, lines)) = import_of(path)? else {
        return write(path);
    };
    let written = write(&import);
    if std::fs::read(&import).is_ok_and(|now| now == lines) {
        let _ = std::fs::remove_file(&import);
    }
    written
}

/// The JSONL file made beside the document session at `path`, and its content; `None` for a
/// file that is not a document.
fn import_of(path: &Path) -> Result<Option<(PathBuf, Vec<u8>)>> {
    let name = path.display().to_string();
    let Some((format, lines)) = document_at(path)? else {
        return Ok(None);
    };
    let import = format
        .format()
        .document_import(path)
        .with_context(|| format!("{name}: {} cannot write this document", format.as_str()))?;
    if import.exists() {
        bail!(
            "{name}: {} already continues this session in {}; that file is the session now \
             (this one is left as it was): name it instead",
            format.format().name(),
            import.display()
        );
    }
    let lines = format
        .format()
        .import_lines(&lines, crate::cmd::handoff::now_ms());
    create_new(&import, &lines)?;
    Ok(Some((import, lines)))
}

/// The file `condense undo` takes a write back from for the session at `path`: the JSONL file
/// beside a document session (see [`in_place_file`]) when there is one, else `path`.
pub fn undo_file(path: &Path) -> PathBuf {
    let Ok(Some((format, _))) = document_at(path) else {
        return path.to_path_buf();
    };
    match format.format().document_import(path) {
        Some(import) if import.exists() => import,
        _ => path.to_path_buf(),
    }
}

/// The agent and JSON lines of the document session at `path`, or `None` for any other file
/// (one that is not a regular file is never read here: a FIFO would be drained).
fn document_at(path: &Path) -> Result<Option<(FormatId, Vec<u8>)>> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let name = path.display().to_string();
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut reader = std::io::BufReader::new(file);
    // A JSONL session is told from its first line, not read whole.
    let Head {
        mut bytes,
        ended,
        document,
    } = read_head(&mut reader, &name)?;
    if !document {
        return Ok(None);
    }
    if !ended {
        reader
            .read_to_end(&mut bytes)
            .with_context(|| format!("{name}: cannot read"))?;
    }
    read::document(&name, &bytes).transpose()
}

/// Writes `bytes` as the new file `path`, all at once or not at all, never over a file: into a
/// temporary file beside it first, then linked to its name (which fails when the name is taken).
fn create_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut temp_name = path.as_os_str().to_owned();
    temp_name.push(format!(".{}.tmp", crate::persist::link::random_tag()));
    let temp = PathBuf::from(temp_name);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    written.with_context(|| format!("{}: cannot create", path.display()))
}
