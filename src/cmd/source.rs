//! Where the commands' transcripts come from: files, directories, file lists, or the session
//! `--latest`, `--session` or `--hook` finds (found once per run), and reading one whole.

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::document::{read_head, Head};
use crate::cli::{FilesArgs, FindArgs, InputArgs};
use crate::input::{compression_of, read_all, Compression, Source};
use crate::sessions::{self, Agent, Env};
use crate::transcript::{read, store};

/// The one source these commands read: FILE (a directory: its newest session file; an agent's
/// database: its newest session), the
/// session `--latest`, `--session` or `--hook` names, or standard input.
pub fn single_source(input: &InputArgs) -> Result<Source> {
    if let Some(path) = found(&input.find, &sessions::process_env)? {
        return Ok(Source::File(path));
    }
    Ok(match &input.file {
        // A database of sessions stands for them, as a folder for its files.
        Some(path) if path.is_dir() || store::database_of(path).is_some() => {
            Source::File(sessions::newest_in(path)?)
        }
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
        let hook = hook_input(std::io::stdin().lock())?;
        let transcript = hook.transcript.clone();
        // Standard input is read once; what else the hook said is kept for the command.
        let _ = HOOK.set(hook);
        return Ok(Some(transcript));
    }
    Ok(None)
}

/// What a hook was handed on standard input, once `--hook` has read it.
static HOOK: std::sync::OnceLock<Hook> = std::sync::OnceLock::new();

/// The user's instructions for the compaction: `--instructions` when given, else, with
/// `--hook`, the `custom_instructions` Claude Code hands its `PreCompact` hook (what the user
/// typed after `/compact`; empty for an automatic compaction). Call after [`single_source`].
pub fn instructions(input: &InputArgs, given: Option<&str>) -> Option<String> {
    match given {
        Some(text) => Some(text.to_owned()),
        None if input.find.hook => HOOK.get().and_then(|hook| hook.instructions.clone()),
        None => None,
    }
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
        // A session in a database is no file: nothing to decompress.
        (Source::File(path), _) if store::split(path).is_some() => return Ok(()),
        (Source::File(path), _) if input.find.latest || input.find.session.is_some() => path,
        (_, Some(path)) if path.is_file() && store::database_of(path).is_none() => path,
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

/// What a hook input says that condense uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    /// `transcript_path`: the session.
    pub transcript: PathBuf,
    /// `custom_instructions`, when not blank: what the user typed after `/compact`.
    pub instructions: Option<String>,
}

/// The hook input JSON on `reader` (Claude Code hands every hook and its status line one such
/// object on stdin): its `transcript_path`, and its `custom_instructions` if any.
pub fn hook_input(mut reader: impl Read) -> Result<Hook> {
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
        Some(path) if !path.is_empty() => Ok(Hook {
            transcript: PathBuf::from(path),
            instructions: value
                .get("custom_instructions")
                .and_then(|text| text.as_str())
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .map(str::to_owned),
        }),
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
        if !path.is_dir() && store::database_of(&path).is_none() {
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
    if let Some(lines) = stored_lines(source) {
        return lines;
    }
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
    if let Some(lines) = stored_lines(source) {
        return Ok(Box::new(Cursor::new(lines?)));
    }
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

/// The JSON lines of a source that names a session kept in a database (`DB#ID`).
fn stored_lines(source: &Source) -> Option<Result<Vec<u8>>> {
    match source {
        Source::File(path) => store::read(path),
        Source::Stdin => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_input_names_the_transcript_and_may_carry_instructions() {
        let compact = r#"{"transcript_path":"/s.jsonl","trigger":"manual","custom_instructions":" keep the plan "}"#;
        assert_eq!(
            hook_input(compact.as_bytes()).unwrap(),
            Hook {
                transcript: PathBuf::from("/s.jsonl"),
                instructions: Some("keep the plan".to_owned()),
            }
        );
        let auto = r#"{"transcript_path":"/s.jsonl","trigger":"auto","custom_instructions":""}"#;
        assert_eq!(hook_input(auto.as_bytes()).unwrap().instructions, None);
        // Claude Code's schema allows null.
        let null = r#"{"transcript_path":"/s.jsonl","custom_instructions":null}"#;
        assert_eq!(hook_input(null.as_bytes()).unwrap().instructions, None);
        let status_line = r#"{"transcript_path":"/s.jsonl"}"#;
        assert_eq!(
            hook_input(status_line.as_bytes()).unwrap().instructions,
            None
        );
        assert!(hook_input(r#"{"session_id":"x"}"#.as_bytes()).is_err());
    }
}
