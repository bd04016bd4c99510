//! Where each agent keeps its sessions, so `--to-session-dir` puts a handoff where the agent
//! finds it, and the command that resumes it there. Paths follow the agents' own code (see
//! `fixtures/agents/README.md`); a file that exists already is never overwritten.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::Written;
use crate::transcript::handoff::time::format_ms;
use crate::transcript::FormatId;

/// A session placed in an agent's folder.
pub struct Placed {
    /// The file written.
    pub path: PathBuf,
    /// The shell command that resumes it.
    pub resume: String,
}

/// Writes `written` into `home` (the agent's folder, such as `~/.codex`) where `target` looks.
pub fn place(target: FormatId, home: &Path, written: &Written) -> Result<Placed> {
    let id = &written.id;
    let cwd = || -> Result<&str> {
        written.cwd.as_deref().with_context(|| {
            format!(
                "--to-session-dir: {} keeps sessions by working directory; give --cwd",
                target.as_str()
            )
        })
    };
    let stamp = format_ms(written.start_ms);
    let quoted = |path: &Path| shell_quote(&path.display().to_string());
    let (path, resume) = match target {
        FormatId::ClaudeCode => {
            let cwd = cwd()?;
            let slug: String = cwd
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            let path = home.join("projects").join(slug).join(format!("{id}.jsonl"));
            let resume = format!("cd {} && claude --resume {id}", shell_quote(cwd));
            (path, resume)
        }
        FormatId::Codex => {
            // sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-ID.jsonl
            let day = home
                .join("sessions")
                .join(&stamp[0..4])
                .join(&stamp[5..7])
                .join(&stamp[8..10]);
            let name = format!("rollout-{}-{id}.jsonl", stamp[..19].replace(':', "-"));
            let resume = format!("cd {} && codex resume {id}", shell_quote(cwd()?));
            (day.join(name), resume)
        }
        FormatId::Pi => {
            let cwd = cwd()?;
            let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
            let slug = format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"));
            let name = format!("{}_{id}.jsonl", stamp.replace([':', '.'], "-"));
            let path = home.join("sessions").join(slug).join(name);
            let resume = format!("cd {} && pi --session {}", shell_quote(cwd), quoted(&path));
            (path, resume)
        }
        FormatId::Gemini => {
            // Gemini CLI keeps sessions under a project slug that its registry
            // (`projects.json`, with ownership markers) hands out; rather than write another
            // program's registry, the file goes into DIR and is resumed by path.
            let name = format!(
                "session-{}-{}.jsonl",
                stamp[..16].replace(':', "-"),
                &id[..8]
            );
            let path = home.join(name);
            let resume = format!("gemini --session-file {}", quoted(&path));
            (path, resume)
        }
        FormatId::Openai => {
            let cwd = cwd()?;
            let path = home
                .join("sessions")
                .join(md5_hex(cwd.as_bytes()))
                .join(id)
                .join("context.jsonl");
            register_kimi_work_dir(home, cwd, id)?;
            let resume = format!("cd {} && kimi --session {id}", shell_quote(cwd));
            (path, resume)
        }
        FormatId::Anthropic => bail!(
            "--to-session-dir: an Anthropic message list belongs to no agent's session folder; \
             leave the flag out to write it to standard output"
        ),
    };
    write_new(&path, &written.bytes)?;
    Ok(Placed { path, resume })
}

/// Writes `bytes` to a new file at `path`, making its folders; an existing file is an error.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| {
            format!(
                "{}: cannot create the session (the same handoff is there already?)",
                path.display()
            )
        })?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// kimi-cli finds a session only under a work directory listed in its `kimi.json`
/// (`work_dirs`, each `path`, `kaos`, `last_session_id`): adds `cwd` when it is missing, every
/// other field left as it was.
fn register_kimi_work_dir(home: &Path, cwd: &str, id: &str) -> Result<()> {
    let path = home.join("kimi.json");
    let mut metadata: serde_json::Value = match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not kimi-cli's metadata (JSON)", path.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(error) => {
            return Err(error).with_context(|| format!("{}: cannot read", path.display()))
        }
    };
    let Some(object) = metadata.as_object_mut() else {
        bail!("{}: not kimi-cli's metadata (an object)", path.display());
    };
    let dirs = object
        .entry("work_dirs")
        .or_insert_with(|| serde_json::json!([]));
    let Some(list) = dirs.as_array_mut() else {
        bail!("{}: work_dirs is not a list", path.display());
    };
    let known = list
        .iter()
        .any(|wd| wd["path"] == cwd && wd.get("kaos").is_none_or(|kaos| kaos == "local"));
    if known {
        return Ok(());
    }
    list.push(serde_json::json!({"path": cwd, "kaos": "local", "last_session_id": id}));
    fs::create_dir_all(home).with_context(|| format!("{}: cannot create", home.display()))?;
    crate::persist::atomic::write(&path, &serde_json::to_vec_pretty(&metadata)?)
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:=@,".contains(&b))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// MD5 of `data` in lowercase hex (RFC 1321): kimi-cli names a work directory's session folder
/// by it. Not for security; only to find the folder kimi-cli looks in.
fn md5_hex(data: &[u8]) -> String {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    // K[i] = floor(2^32 * |sin(i + 1)|), computed rather than listed.
    let k: Vec<u32> = (0..64)
        .map(|i| (((i + 1) as f64).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut state: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in message.chunks_exact(64) {
        let m: Vec<u32> = block
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(m[g])
                .rotate_left(S[i]);
            (a, b, c, d) = (d, b.wrapping_add(rotated), b, c);
        }
        for (word, add) in state.iter_mut().zip([a, b, c, d]) {
            *word = word.wrapping_add(add);
        }
    }
    state
        .iter()
        .flat_map(|word| word.to_le_bytes())
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(cwd: Option<&str>) -> Written {
        Written {
            bytes: b"{}\n".to_vec(),
            id: "11111111-2222-4333-8444-555555555555".to_owned(),
            cwd: cwd.map(str::to_owned),
            start_ms: crate::transcript::handoff::time::parse_ms("2026-12-01T09:05:06.789Z")
                .unwrap(),
        }
    }

    #[test]
    fn md5_matches_the_standard_vectors() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            md5_hex(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            ),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    #[test]
    fn each_agent_finds_the_file_where_its_code_looks() {
        let home = tempfile::tempdir().unwrap();
        let session = written(Some("/home/me/my.project"));
        let id = &session.id;
        let cases = [
            (
                FormatId::ClaudeCode,
                format!("projects/-home-me-my-project/{id}.jsonl"),
                format!("cd /home/me/my.project && claude --resume {id}"),
            ),
            (
                FormatId::Codex,
                format!("sessions/2026/12/01/rollout-2026-12-01T09-05-06-{id}.jsonl"),
                format!("cd /home/me/my.project && codex resume {id}"),
            ),
            (
                FormatId::Pi,
                format!("sessions/--home-me-my.project--/2026-12-01T09-05-06-789Z_{id}.jsonl"),
                String::new(),
            ),
            (
                FormatId::Openai,
                format!(
                    "sessions/{}/{id}/context.jsonl",
                    md5_hex(b"/home/me/my.project")
                ),
                format!("cd /home/me/my.project && kimi --session {id}"),
            ),
        ];
        for (target, path, resume) in cases {
            let placed = place(target, home.path(), &session).unwrap();
            assert_eq!(placed.path, home.path().join(&path), "{target:?}");
            if !resume.is_empty() {
                assert_eq!(placed.resume, resume);
            }
            // The same handoff again finds its file there and leaves it alone.
            assert!(place(target, home.path(), &session).is_err());
        }
        let kimi: serde_json::Value =
            serde_json::from_slice(&fs::read(home.path().join("kimi.json")).unwrap()).unwrap();
        assert_eq!(kimi["work_dirs"][0]["path"], "/home/me/my.project");
        let gemini = place(FormatId::Gemini, home.path(), &session).unwrap();
        assert_eq!(
            gemini.path,
            home.path().join("session-2026-12-01T09-05-11111111.jsonl")
        );
        assert!(gemini.resume.starts_with("gemini --session-file "));
        assert!(place(FormatId::Codex, home.path(), &written(None)).is_err());
        assert!(place(FormatId::Anthropic, home.path(), &session).is_err());
    }

    #[test]
    fn shell_quoting_only_where_needed() {
        assert_eq!(shell_quote("/a/b-c.d"), "/a/b-c.d");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
