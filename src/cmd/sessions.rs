//! `condense sessions`: the session files of the known agents (or of the DIRs given), newest
//! first, one path per line or one JSON object per session. The finding itself is in [`crate::sessions`].

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::cli::{SessionsArgs, SessionsFormat};
use crate::output::write_json_line;
use crate::sessions::{self, Agent, Session};
use crate::Outcome;

/// Runs `sessions`.
pub fn run(args: &SessionsArgs, out: &mut dyn Write) -> Result<Outcome> {
    let agents = match args.agent {
        Some(agent) => vec![agent],
        None => Agent::ALL.to_vec(),
    };
    let paths = if let Some(id) = &args.session {
        vec![sessions::by_id(
            &sessions::places(&agents, &sessions::process_env)?,
            id,
        )?]
    } else {
        let mut found: Vec<Session> = if args.dirs.is_empty() {
            sessions::find_all(&sessions::places(&agents, &sessions::process_env)?)?
        } else {
            let mut found = Vec::new();
            for dir in &args.dirs {
                found.extend(sessions::find_in(dir, None)?);
            }
            found
        };
        sessions::newest_first(&mut found);
        if args.latest {
            if found.is_empty() {
                // As `bare --latest` and the other commands answer: no newest session is an
                // error, not an empty success.
                let dirs: Vec<PathBuf> = if args.dirs.is_empty() {
                    sessions::places(&agents, &sessions::process_env)?
                        .into_iter()
                        .map(|place| place.dir)
                        .collect()
                } else {
                    args.dirs.clone()
                };
                let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                bail!("no session found in {}", dirs.join(", "));
            }
            found.truncate(1);
        }
        found.into_iter().map(|s| s.path).collect()
    };
    match args.format {
        SessionsFormat::Text => {
            let end = if args.null { b'\0' } else { b'\n' };
            for path in paths {
                out.write_all(path.as_os_str().as_encoded_bytes())?;
                out.write_all(&[end])?;
            }
        }
        SessionsFormat::Jsonl => {
            for path in paths {
                write_json_line(out, &Listed::of(&path)?)?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// One session as `--format jsonl` lists it.
#[derive(Serialize)]
struct Listed {
    path: String,
    bytes: u64,
    modified: String,
}

impl Listed {
    fn of(path: &Path) -> Result<Listed> {
        let metadata = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?;
        Ok(Listed {
            path: path.to_string_lossy().into_owned(),
            bytes: metadata.len(),
            modified: humantime::format_rfc3339_seconds(metadata.modified()?).to_string(),
        })
    }
}
