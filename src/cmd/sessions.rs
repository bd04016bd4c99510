//! `condense sessions`: the session files of the known agents (or of the DIRs given), newest
//! first, one path per line or one JSON object per session. The finding itself is in [`crate::sessions`].

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
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
    let found = if let Some(id) = &args.session {
        vec![sessions::session_by_id(
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
        found
    };
    match args.format {
        SessionsFormat::Text => {
            let end = if args.null { b'\0' } else { b'\n' };
            for session in found {
                out.write_all(session.path.as_os_str().as_encoded_bytes())?;
                out.write_all(&[end])?;
            }
        }
        SessionsFormat::Jsonl => {
            for session in &found {
                write_json_line(out, &Listed::of(session))?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// One session as `--format jsonl` lists it.
#[derive(Serialize)]
struct Listed {
    path: String,
    /// The file's size; none for a session that is rows of a database (`DB#ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    modified: String,
}

impl Listed {
    fn of(session: &Session) -> Listed {
        Listed {
            path: session.path.to_string_lossy().into_owned(),
            bytes: std::fs::metadata(&session.path).ok().map(|m| m.len()),
            modified: humantime::format_rfc3339_seconds(session.modified).to_string(),
        }
    }
}
