//! How the agent tests reach the real agents: where the pinned installs are, what a missing one
//! means (a failure in CI, a visible skip elsewhere), running condense and the loader scripts in
//! tests/agents/, and resuming a session with an agent against the mock API in a network
//! namespace of its own.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{assert_success, condense_ok};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The npm agents folder `.ci/install-agents` fills (or `$CONDENSE_AGENTS_DIR`).
pub fn agents_dir() -> PathBuf {
    std::env::var_os("CONDENSE_AGENTS_DIR")
        .map_or_else(|| repo().join("target/agents"), PathBuf::from)
}

/// The executable an npm agent package installs, e.g. `claude`.
pub fn agent_bin(name: &str) -> PathBuf {
    agents_dir().join("node_modules/.bin").join(name)
}

/// The Python of the kimi-cli venv (or `$CONDENSE_KIMI_PYTHON`).
pub fn kimi_python() -> PathBuf {
    std::env::var_os("CONDENSE_KIMI_PYTHON")
        .map_or_else(|| repo().join("target/kimi-venv/bin/python"), PathBuf::from)
}

/// A loader or driver script of ours in tests/agents/.
pub fn script(name: &str) -> PathBuf {
    repo().join("tests/agents").join(name)
}

/// Whether `what` is installed at `path`. A test that needs it returns when it is not: in CI
/// that is a failure (a suite that passes without its agents proves nothing), elsewhere a skip
/// that says so on stderr.
pub fn installed(what: &str, path: &Path) -> bool {
    if path.exists() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install {what} at {} (see .ci/install-agents)",
        path.display()
    );
    crate::util::say_skipped(&format!(
        "{what} is not installed at {} (run .ci/install-agents)",
        path.display()
    ));
    false
}

/// Runs `cmd`, requires success, and parses its stdout as one JSON value.
pub fn run_json(cmd: &mut Command) -> Value {
    let output = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert_success(&output, format_args!("{cmd:?}"));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{cmd:?}: stdout is not JSON: {e}"))
}

/// `program` in a network namespace with nothing in it, not even loopback: the loaders only
/// read files, and this way an import with a side effect cannot reach out either.
pub fn offline(program: impl AsRef<OsStr>) -> Command {
    let mut cmd = Command::new("unshare");
    cmd.args(["--net", "--map-root-user"]).arg(program);
    cmd
}

/// A node loader script run on `session`, e.g. `pi-context.mjs`.
pub fn node_loader(name: &str, session: &Path) -> Value {
    run_json(offline("node").arg(script(name)).arg(session))
}

/// `condense inject --summary SUMMARY EXTRA SESSION`, written to `dir/NAME`.
pub fn inject(session: &Path, summary: &str, extra: &[&str], dir: &Path, name: &str) -> PathBuf {
    let summary_file = dir.join(format!("{name}.summary.md"));
    std::fs::write(&summary_file, summary).unwrap();
    let mut args: Vec<&OsStr> = vec!["inject".as_ref(), "--summary".as_ref()];
    args.push(summary_file.as_os_str());
    args.extend(extra.iter().map(OsStr::new));
    args.push(session.as_os_str());
    let out = dir.join(name);
    std::fs::write(&out, condense_ok(&args)).unwrap();
    out
}

/// The text parts of the user message `condense prompt --format jsonl EXTRA SESSION` prints.
pub fn prompt_parts(session: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<&OsStr> = vec!["prompt".as_ref(), "--format".as_ref(), "jsonl".as_ref()];
    args.extend(extra.iter().map(OsStr::new));
    args.push(session.as_os_str());
    let stdout = String::from_utf8(condense_ok(&args)).unwrap();
    let user: Value = serde_json::from_str(stdout.lines().nth(1).expect("a user line")).unwrap();
    user["content"]
        .as_array()
        .expect("content parts")
        .iter()
        .map(|part| part["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Every string inside `value` (keys left out), one per line: what a request or a context
/// carries as text, searchable whatever the JSON escaping.
pub fn strings(value: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(value, &mut out);
    out
}

/// The requests mock_api.py recorded in `dir`, in order.
pub fn recorded(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

/// Runs `sh -c SHELL_SCRIPT sh ARGS` through tests/agents/isolated.sh: in a network namespace
/// with loopback only, beside a mock API recording into `record`, with `env` and nothing else
/// but PATH in the environment, from `cwd`. Returns the recorded requests.
pub fn isolated(
    record: &Path,
    cwd: &Path,
    env: &[(&str, &OsStr)],
    shell_script: &str,
    args: &[&OsStr],
) -> Vec<Value> {
    let mut cmd = Command::new(script("isolated.sh"));
    cmd.arg(record)
        .arg("120")
        .args(["sh", "-c", shell_script, "sh"])
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (key, value) in env {
        cmd.env(key, value);
    }
    let output = cmd.output().expect("isolated.sh runs");
    assert_success(
        &output,
        format_args!(
            "{shell_script} {args:?}, which printed\n{}\n",
            String::from_utf8_lossy(&output.stdout)
        ),
    );
    recorded(record)
}

/// The longest line of text in a request message, leaving out the reminders the agent itself
/// adds to every request (`<system-reminder>` blocks), cut to 200 bytes: a piece of text that
/// belongs to this message alone.
pub fn distinctive(message: &Value) -> String {
    let text = strings(message);
    let own = text
        .split("<system-reminder>")
        .enumerate()
        // Every piece after a marker starts inside a reminder; only its text after the closing
        // tag is the message's own.
        .filter_map(|(i, piece)| {
            if i == 0 {
                Some(piece)
            } else {
                piece.split_once("</system-reminder>").map(|(_, rest)| rest)
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let longest = own
        .lines()
        .filter(|line| !line.trim().is_empty())
        .max_by_key(|line| line.len())
        .unwrap_or_default();
    let mut end = longest.len().min(200);
    while !longest.is_char_boundary(end) {
        end -= 1;
    }
    longest[..end].to_owned()
}

/// The first string found at `pointer` on any line of a JSONL file.
pub fn first_field(session: &Path, pointer: &str) -> String {
    std::fs::read_to_string(session)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find_map(|v| {
            v.pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| panic!("{}: no {pointer}", session.display()))
}

/// A line of the newest real request of `session`'s live context, as condense reads it: its
/// longest line, at most 60 characters of it, so that it can be looked for in what an agent
/// sends however the agent wraps the message. `None` when the live context holds no request (a
/// compacted session whose summary stands in for it).
pub fn newest_question(session: &Path) -> Option<String> {
    use condense::transcript::classify::{is_real_user_request, text_of};
    use condense::transcript::load::{LoadOptions, Transcript};
    let bytes = std::fs::read(session).unwrap();
    let name = session.display().to_string();
    let transcript = Transcript::parse(&name, &bytes, LoadOptions::default()).unwrap();
    let text = transcript
        .context()
        .iter()
        .rev()
        .filter(|r| !r.compaction)
        .filter_map(|r| r.message())
        .find(|m| is_real_user_request(m))
        .map(text_of)?;
    let line = text
        .lines()
        .map(str::trim)
        .max_by_key(|line| line.len())
        .unwrap_or_default();
    Some(line.chars().take(60).collect())
}

/// Issue 27, for an agent whose `resume` returns the request it sends after resuming a file:
/// however few messages `inject` keeps (`--preserve` 1 and 2), the request holds the summary
/// and the user's last question. A session whose live context holds no question (its summary
/// stands in for it) has none to lose and is passed over.
pub fn assert_last_question_sent(sessions: &[&str], resume: impl Fn(&Path) -> Value) {
    let dir = tempfile::tempdir().unwrap();
    for file in sessions {
        let session = crate::util::fixture(file);
        let Some(question) = newest_question(&session) else {
            continue;
        };
        for preserve in ["1", "2"] {
            let out = inject(
                &session,
                super::SUMMARY,
                &["--preserve", preserve],
                dir.path(),
                "q.jsonl",
            );
            let sent = strings(&resume(&out));
            assert!(
                sent.contains(super::SUMMARY),
                "{file} --preserve {preserve}: no summary"
            );
            assert!(
                sent.contains(&question),
                "{file} --preserve {preserve}: the last question is not sent: {question}"
            );
        }
    }
}

/// A Codex session handed over to the agent `to` (`inject --to NAME`), resumed by it
/// (`resume`), sends the summary and the converted tail; then, when Claude Code is installed,
/// the agent's own session `own` (a fixture) handed over to Claude Code sends the summary and
/// the agent's last request, `last_request`.
pub fn handoffs_both_ways(
    to: &str,
    resume: impl Fn(&Path) -> Value,
    own: &str,
    last_request: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    let codex = crate::util::fixture("agents/codex-turns.jsonl");
    let handed = inject(
        &codex,
        super::SUMMARY,
        &["--to", to],
        dir.path(),
        "to-agent.jsonl",
    );
    let sent = strings(&resume(&handed));
    assert!(
        sent.contains(super::SUMMARY),
        "{to} did not send the summary"
    );
    for tail in ["CODEX-Q3: run the tests.", "MOCK-REPLY to: CODEX-Q3"] {
        assert!(sent.contains(tail), "{to} did not send {tail}");
    }
    if !super::claude::ready() {
        return;
    }
    let own = crate::util::fixture(own);
    let to_claude = inject(
        &own,
        super::SUMMARY,
        &["--to", "claude-code"],
        dir.path(),
        "to-claude.jsonl",
    );
    let sent = strings(&super::claude::resume(&to_claude));
    assert!(
        sent.contains(super::SUMMARY),
        "Claude Code did not send the summary"
    );
    assert!(
        sent.contains(last_request),
        "Claude Code did not get {to}'s last request"
    );
}

/// What the agent sent the model for `prompt`: the body field `field` of the newest request it
/// POSTed to a path `route` accepts that holds the prompt (`agent` and `session` name the run
/// in the failure).
pub fn sent_for(
    requests: Vec<Value>,
    route: impl Fn(&str) -> bool,
    field: &str,
    prompt: &str,
    agent: &str,
    session: &Path,
) -> Value {
    requests
        .into_iter()
        .rev()
        .filter(|r| r["method"] == "POST" && r["path"].as_str().is_some_and(&route))
        .map(|r| r["body"][field].clone())
        .find(|sent| strings(sent).contains(prompt))
        .unwrap_or_else(|| {
            panic!(
                "{}: {agent} sent no request with the prompt",
                session.display()
            )
        })
}

/// `inject` of the fixture `file` written to `dir/NAME` and `inject --in-place` of a copy in
/// `dir` (the summary from a file, no model, a backup kept), each handed to `check`; then `undo`
/// must restore the copy byte for byte.
pub fn inject_both_ways_then_undo(file: &str, dir: &Path, name: &str, check: impl Fn(&Path)) {
    let session = crate::util::fixture(file);
    check(&inject(&session, super::SUMMARY, &[], dir, name));
    let in_place = dir.join("in-place.jsonl");
    std::fs::copy(&session, &in_place).unwrap();
    let summary = dir.join("summary.md");
    std::fs::write(&summary, super::SUMMARY).unwrap();
    condense_ok(&[
        OsStr::new("inject"),
        OsStr::new("--summary"),
        summary.as_os_str(),
        OsStr::new("--in-place"),
        in_place.as_os_str(),
    ]);
    check(&in_place);
    condense_ok(&[OsStr::new("undo"), in_place.as_os_str()]);
    assert_eq!(
        std::fs::read(&in_place).unwrap(),
        std::fs::read(&session).unwrap(),
        "{file}: undo did not restore the session"
    );
}

/// The first line of each answer the mock gave (`MOCK-REPLY to: …`) among the assistant
/// messages of a request's `messages`, in order.
pub fn mock_answers(messages: &Value) -> Vec<String> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| {
            let text = strings(&m["content"]);
            let line = text.lines().find(|l| l.starts_with("MOCK-REPLY to:"))?;
            Some(line.to_owned())
        })
        .collect()
}

/// What an agent sent (`after`) when it resumed condense's compaction of a session it sent
/// `before` for: `summary` once, not the summarised answer `oldest` (where there is one to
/// check), the kept tail's `newest`, and, with `shrinks`, fewer bytes than before.
pub struct Resumed<'a> {
    /// The session's name, for messages.
    pub file: &'a str,
    /// The request the agent sent for the whole session.
    pub before: &'a Value,
    /// The request it sent after the compaction.
    pub after: &'a Value,
    /// The summary condense wrote.
    pub summary: &'a str,
    /// A text only the summarised messages held.
    pub oldest: Option<&'a str>,
    /// A text of the kept tail.
    pub newest: &'a str,
    /// Whether the request must be smaller (not where the summary replaces one of its size).
    pub shrinks: bool,
}

impl Resumed<'_> {
    /// Asserts all of the above.
    pub fn check(&self) {
        let file = self.file;
        let all = strings(self.after);
        assert_eq!(
            all.matches(self.summary).count(),
            1,
            "{file}: the summary is not sent once"
        );
        if let Some(oldest) = self.oldest {
            assert!(
                !all.contains(oldest),
                "{file}: a summarised answer was sent: {oldest:.80}"
            );
        }
        assert!(
            all.contains(self.newest),
            "{file}: the kept tail is not sent: {:.80}",
            self.newest
        );
        let size = |v: &Value| serde_json::to_string(v).unwrap().len();
        assert!(
            !self.shrinks || size(self.after) < size(self.before),
            "{file}: the request grew from {} to {} bytes",
            size(self.before),
            size(self.after)
        );
    }
}
