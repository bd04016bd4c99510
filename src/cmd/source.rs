//! Where the commands' transcripts come from: files, directories, file lists, or the session
//! `--latest`, `--session` or `--hook` finds (found once per run), and reading one whole.

use std::io::{BufRead, Cursor, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cli::{FilesArgs, FindArgs, InputArgs};
use crate::input::{compression_of, read_all, Compression, Source};
use crate::sessions::{self, Agent, Env};
use crate::transcript::read::{self, may_be_document};
use crate::transcript::registry::FormatId;

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
    let found = find_session(find, env)?;
    if let Some(path) = &found {
        crate::trace::found(path);
    }
    Ok(found)
}

fn find_session(find: &FindArgs, env: Env) -> Result<Option<PathBuf>> {
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

/// Refuses `--in-place` on a compressed transcript: the result is plain JSONL, and writing it
/// over `session.jsonl.gz` would leave a file its name misdescribes and no agent reads.
/// `source` is the session `input` names, found once by [`single_source`]; a directory FILE
/// is not checked, nor a `--hook` input (whose stdin names it).
pub fn refuse_compressed_in_place(
    input: &InputArgs,
    source: &Source,
    in_place: bool,
) -> Result<()> {
    if !in_place || input.find.hook {
        return Ok(());
    }
    let path = match (source, &input.file) {
        (Source::File(path), _) if input.find.latest || input.find.session.is_some() => path,
        (_, Some(path)) if path.is_file() => path,
        _ => return Ok(()),
    };
    if compression_of(path)? != Compression::None {
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

/// Reads a whole source as JSON lines: a session its agent stored as one JSON document (Gemini
/// CLI's legacy `session-*.json`) becomes the lines the agent writes for it today.
pub fn read_source(source: &Source) -> Result<Vec<u8>> {
    let bytes = read_all(source)?;
    match read::document(&source.name(), &bytes) {
        Some(lines) => Ok(lines?.1),
        None => Ok(bytes),
    }
}

/// Opens a source to be read block by block, as [`read_source`] reads it: the first lines are
/// looked at, and only input that may be one JSON document (see
/// [`crate::transcript::read::may_be_document`]) is read whole; JSONL streams as it is.
pub fn open_source(source: &Source) -> Result<Box<dyn Read + Send>> {
    let name = source.name();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, source.open()?);
    let Head {
        bytes: mut head,
        ended,
        document,
    } = read_head(&mut reader, &name)?;
    if !document {
        if ended {
            return Ok(Box::new(Cursor::new(head)));
        }
        return Ok(Box::new(Cursor::new(head).chain(reader)));
    }
    if !ended {
        reader
            .read_to_end(&mut head)
            .with_context(|| format!("{name}: cannot read"))?;
    }
    let bytes = match read::document(&name, &head) {
        Some(lines) => lines?.1,
        None => head,
    };
    Ok(Box::new(Cursor::new(bytes)))
}

/// The longest first line a JSON document's writer leaves: Gemini CLI writes its legacy session
/// pretty-printed, `{` alone on the first line. Input whose first line is longer is JSON lines,
/// streamed rather than held while it is told apart (`estimate` holds one long line at a time).
const DOCUMENT_FIRST_LINE: u64 = 1 << 20;

/// The first lines of an input, as read to tell a JSON document from JSON lines.
struct Head {
    bytes: Vec<u8>,
    /// The input ended there (read again, a terminal would wait for a second Ctrl-D).
    ended: bool,
    /// The input may be one JSON document (see [`may_be_document`]).
    document: bool,
}

/// The first lines of `reader`, up to the second non-blank one or the first that shows the input
/// is JSON lines.
fn read_head(reader: &mut impl BufRead, name: &str) -> Result<Head> {
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
pub fn in_place_file<T>(path: &Path, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
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
