//! The live-session race: `prompt --plan`, then `inject --plan … --in-place` while a writer
//! appends a line every 2 ms, as an agent still at work does. Two writer styles (one that
//! reopens the file per line, one that keeps it open with O_APPEND as Codex does), each with
//! whole lines and with lines written in two chunks 1 ms apart. The writer is a child `sh`,
//! so `/proc` shows it as another process, as it would the agent.
//!
//! Every line the writer wrote must be in the session afterwards (not only in a backup), inside
//! the live context the agent resumes with (issue 31), and the session must parse. Runs go in
//! parallel threads; `CONDENSE_RACE_RUNS` sets how many per case (20 by default), and each
//! case prints its figures. `CONDENSE_RACE_MB` grows the sessions to that many megabytes
//! ([`inflated`]), with a writer that goes on through the whole compaction
//! (`benches/scripts/race.sh`).

use std::fmt;
use std::fs;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::util::{condense, fixture};

/// How the writer writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `printf … >> S` per line: open, write, close.
    Reopen,
    /// `exec 3>>S` once, then every line to fd 3.
    KeepOpen,
    /// `>> S` per line, and every twentieth line a rewrite of the whole file by rename (`cat S >
    /// S.w; … >> S.w; mv S.w S`), as an agent that saves its session anew does now and then.
    Rename,
}

/// A session format under test, with the writer's line template (`{head}{n}{tail}`).
#[derive(Clone, Copy, Debug)]
pub enum Session {
    /// pi: an append-only format, so inject appends.
    Pi,
    /// OpenAI-style chat lines (kimi `context.jsonl`): a rewrite format, so inject replaces.
    Openai,
}

impl Session {
    fn line_parts(self) -> (&'static str, &'static str) {
        match self {
            Session::Pi => (
                r#"{"type":"message","timestamp":"2025-11-21T02:20:00.000Z","message":{"role":"user","content":[{"type":"text","text":"live line "#,
                r#""}],"timestamp":1763691600000}}"#,
            ),
            Session::Openai => (r#"{"role":"user","content":"live line "#, r#""}"#),
        }
    }

    /// The session at its start: a real transcript (pi cut to its first 300 lines, so that
    /// an unoptimised build compacts it in a few tens of milliseconds), grown to
    /// `CONDENSE_RACE_MB` megabytes when that is set (see [`inflated`]).
    fn original(self) -> Vec<u8> {
        static BIG: std::sync::OnceLock<[Vec<u8>; 2]> = std::sync::OnceLock::new();
        match big_mb() {
            Some(mb) => {
                let big = BIG.get_or_init(|| {
                    [Session::Pi, Session::Openai].map(|s| inflated(&s.as_found(), mb << 20))
                });
                big[self as usize].clone()
            }
            None => self.as_found(),
        }
    }

    /// The transcript as the corpus has it (pi cut to 300 lines).
    fn as_found(self) -> Vec<u8> {
        match self {
            Session::Pi => {
                let all = fs::read(fixture("corpus/pi/pi-mono-large-session.jsonl")).unwrap();
                let text = String::from_utf8(all).unwrap();
                text.split_inclusive('\n')
                    .take(300)
                    .collect::<String>()
                    .into_bytes()
            }
            Session::Openai => fs::read(fixture(
                "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
            ))
            .unwrap(),
        }
    }
}

/// The size the sessions are grown to, in megabytes (`CONDENSE_RACE_MB`), if any.
fn big_mb() -> Option<usize> {
    std::env::var("CONDENSE_RACE_MB").ok()?.parse().ok()
}

/// `session` grown to about `size` bytes: the longest string of each line in its first half
/// (the part a compaction summarises) gets words of filler, so that the compaction reads,
/// plans and writes a session of that size while its records stay those of the real one.
pub fn inflated(session: &[u8], size: usize) -> Vec<u8> {
    let lines: Vec<&[u8]> = session.split_inclusive(|&b| b == b'\n').collect();
    // The lines of the first half that hold text (a message, a tool's output; not an id or a
    // path), read.
    let mut values: Vec<Option<serde_json::Value>> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut value = serde_json::from_slice::<serde_json::Value>(line).ok()?;
            let text = longest_string(&mut value).is_some_and(|s| s.len() >= 40);
            (i < lines.len() / 2 && text).then_some(value)
        })
        .collect();
    let grown = values.iter().flatten().count().max(1);
    let each = size.saturating_sub(session.len()) / grown;
    let filler = "the agent reads the file again and keeps every line whole ".repeat(each / 58 + 1);
    let mut out = Vec::with_capacity(size + session.len());
    for (line, value) in lines.iter().zip(&mut values) {
        let Some(value) = value else {
            out.extend_from_slice(line);
            continue;
        };
        if let Some(longest) = longest_string(value) {
            longest.push_str(&filler[..each]);
        }
        out.extend_from_slice(value.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

/// The longest string anywhere in `value`.
fn longest_string(value: &mut serde_json::Value) -> Option<&mut String> {
    use serde_json::Value;
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string)
            .max_by_key(|s| s.len()),
        Value::Object(fields) => fields
            .values_mut()
            .filter_map(longest_string)
            .max_by_key(|s| s.len()),
        _ => None,
    }
}

/// The writer: `count` lines, one every 2 ms, in `style`, each whole or in two chunks, and
/// after every `burst` lines (0: never) a pause of `pause` seconds, as an agent waits for its
/// model. Its `sleep`s close descriptor 3, so that the shell is the one process holding the
/// file open: one that inherited it would be named in a refusal as well as the shell.
const WRITER: &str = r#"
path=$1 count=$2 style=$3 split=$4 head=$5 tail=$6 burst=$7 pause=$8
i=0
if [ "$style" = keep ]; then exec 3>>"$path"; fi
while [ "$i" -lt "$count" ]; do
  i=$((i + 1))
  if [ "$style" = rename ] && [ $((i % 20)) = 0 ]; then
    cat "$path" > "$path.w"
    printf '%s%s%s\n' "$head" "$i" "$tail" >> "$path.w"
    mv "$path.w" "$path"
  elif [ "$style" = keep ]; then
    if [ "$split" = 1 ]; then
      printf '%s%s' "$head" "$i" >&3; sleep 0.001 3>&-; printf '%s\n' "$tail" >&3
    else
      printf '%s%s%s\n' "$head" "$i" "$tail" >&3
    fi
  else
    if [ "$split" = 1 ]; then
      { printf '%s%s' "$head" "$i"; sleep 0.001; printf '%s\n' "$tail"; } >>"$path"
    else
      printf '%s%s%s\n' "$head" "$i" "$tail" >>"$path"
    fi
  fi
  sleep 0.002 3>&-
  if [ "$burst" -gt 0 ] && [ $((i % burst)) = 0 ]; then sleep "$pause" 3>&-; fi
done
"#;

/// Lines each writer writes: it starts before inject and ends well after it. On big sessions
/// (`CONDENSE_RACE_MB`) it writes for the whole of a compaction of seconds, in bursts of 40
/// lines with a pause of 0.4 s between (else an append, which builds again while the agent
/// writes, would always refuse after 30 s); `CONDENSE_RACE_LINES` sets the count.
fn line_count() -> usize {
    let default = if big_mb().is_some() { 600 } else { 80 };
    std::env::var("CONDENSE_RACE_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// Lines between the writer's pauses, and the pause (see [`line_count`]).
fn bursts() -> (usize, &'static str) {
    if big_mb().is_some() {
        (40, "0.4")
    } else {
        (0, "0")
    }
}

/// What one case measured. Outside the live context: a line of the writer's that
/// `estimate --per-message` does not count, so the resumed agent would not see it.
#[derive(Default, Debug)]
pub struct Figures {
    runs: usize,
    session_bytes: usize,
    written: usize,
    lost: usize,
    runs_losing: usize,
    outside: usize,
    runs_outside: usize,
    unparsable: usize,
    original_lost: usize,
    overlapping: usize,
    warned: usize,
    exits: Vec<(i32, usize)>,
    refusals: Vec<String>,
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "runs {} on sessions of {:.1} MB | lines written {} | lines lost {} (in {} runs) | lines outside the live \
             context {} (in {} runs) | unparsable results {} | original lost {} | inject ran \
             while the writer wrote {} | warned {} | exit codes {:?}",
            self.runs,
            self.session_bytes as f64 / 1e6,
            self.written,
            self.lost,
            self.runs_losing,
            self.outside,
            self.runs_outside,
            self.unparsable,
            self.original_lost,
            self.overlapping,
            self.warned,
            self.exits
        )
    }
}

struct Run {
    written: usize,
    lost: usize,
    outside: usize,
    parses: bool,
    original_kept: bool,
    overlapped: bool,
    exit: i32,
    stderr: String,
}

fn one_run(dir: &Path, session: Session, style: Style, split: bool) -> Run {
    let path = dir.join("s.jsonl");
    let plan = dir.join("plan.json");
    let summary = dir.join("summary.md");
    let original = session.original();
    fs::write(&path, &original).unwrap();
    fs::write(&summary, "NOW: the live session\n").unwrap();
    condense()
        .args(["prompt", "--plan"])
        .arg(&plan)
        .arg(&path)
        .output()
        .unwrap();
    let (head, tail) = session.line_parts();
    let mut writer = StdCommand::new("sh")
        .arg("-c")
        .arg(WRITER)
        .arg("writer")
        .arg(&path)
        .arg(line_count().to_string())
        .arg(match style {
            Style::Reopen => "reopen",
            Style::KeepOpen => "keep",
            Style::Rename => "rename",
        })
        .arg(if split { "1" } else { "0" })
        .arg(head)
        .arg(tail)
        .arg(bursts().0.to_string())
        .arg(bursts().1)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Let the agent get going, then compact under it.
    std::thread::sleep(Duration::from_millis(15));
    // CONDENSE_RACE_BIN: another build's inject, to measure it the same way.
    let inject = std::env::var_os("CONDENSE_RACE_BIN")
        .map_or_else(|| assert_cmd::cargo::cargo_bin("condense"), Into::into);
    let last_line = format!("{head}{}{tail}", line_count());
    let at_start = fs::read_to_string(&path).unwrap_or_default();
    let output = StdCommand::new(inject)
        .env_clear()
        .args(["inject", "--in-place", "--plan"])
        .arg(&plan)
        .arg("--summary")
        .arg(&summary)
        .arg(&path)
        .output()
        .unwrap();
    // Whether the writer wrote while inject ran: it had not finished when inject began, and
    // the file grew meanwhile. (An append builds again until the writer pauses, so it often
    // ends after the writer; a replace carries its lines over or refuses.)
    let written = |text: &str| text.lines().filter(|l| l.starts_with(head)).count();
    let overlapped = !at_start.contains(last_line.as_str())
        && written(&fs::read_to_string(&path).unwrap_or_default()) > written(&at_start);
    assert!(writer.wait().unwrap().success());
    let now = fs::read_to_string(&path).unwrap();
    let lines: std::collections::HashSet<&str> = now.lines().collect();
    let lost = (1..=line_count())
        .filter(|i| !lines.contains(format!("{head}{i}{tail}").as_str()))
        .count();
    // The writer's lines the agent would not see on resume: not among the live context's
    // lines as `estimate --per-message` reports them.
    let live: std::collections::HashSet<u64> = crate::util::json_lines(
        &condense()
            .args(["estimate", "--per-message"])
            .arg(&path)
            .output()
            .unwrap()
            .stdout,
    )
    .iter()
    .filter_map(|m| m["line"].as_u64())
    .collect();
    let outside = now
        .lines()
        .enumerate()
        .filter(|(_, line)| line.starts_with(head) && line.ends_with(tail))
        .filter(|(i, _)| !live.contains(&(*i as u64 + 1)))
        .count();
    let check = condense().arg("estimate").arg(&path).output().unwrap();
    let parses = check.status.success() && check.stderr.is_empty();
    // The original is in the session (appended to) or in a backup (replaced).
    let original_kept = now.as_bytes().starts_with(&original)
        || fs::read_dir(dir).unwrap().flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("s.jsonl.bak")
                && fs::read(e.path()).is_ok_and(|b| b.starts_with(&original))
        });
    Run {
        written: line_count(),
        lost,
        outside,
        parses,
        original_kept,
        overlapped,
        exit: output.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs the race `runs` times, a few at once.
pub fn race(session: Session, style: Style, split: bool, runs: usize) -> Figures {
    let next = AtomicUsize::new(0);
    let figures = Mutex::new(Figures {
        runs,
        session_bytes: session.original().len(),
        ..Figures::default()
    });
    // Big sessions take memory and disk bandwidth: two at a time.
    let most = if big_mb().is_some() { 2 } else { 4 };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, most));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while next.fetch_add(1, Ordering::SeqCst) < runs {
                    let dir = tempfile::tempdir().unwrap();
                    let run = one_run(dir.path(), session, style, split);
                    let mut f = figures.lock().unwrap();
                    f.written += run.written;
                    f.lost += run.lost;
                    f.runs_losing += usize::from(run.lost > 0);
                    f.outside += run.outside;
                    f.runs_outside += usize::from(run.outside > 0);
                    f.unparsable += usize::from(!run.parses);
                    f.original_lost += usize::from(!run.original_kept);
                    f.overlapping += usize::from(run.overlapped);
                    f.warned += usize::from(run.exit == 0 && !run.stderr.is_empty());
                    match f.exits.iter_mut().find(|(code, _)| *code == run.exit) {
                        Some((_, n)) => *n += 1,
                        None => f.exits.push((run.exit, 1)),
                    }
                    if run.exit != 0 && f.refusals.len() < 3 {
                        f.refusals.push(run.stderr);
                    }
                }
            });
        }
    });
    let mut figures = figures.into_inner().unwrap();
    figures.exits.sort();
    figures
}

fn runs() -> usize {
    std::env::var("CONDENSE_RACE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
}

/// Runs a case, prints its figures and checks that nothing was lost.
#[track_caller]
fn check(session: Session, style: Style, split: bool) -> Figures {
    let figures = race(session, style, split, runs());
    // On a line of its own: libtest prints the test's name without a newline before it.
    println!(
        "\nrace-figures {session:?} {style:?} {}: {figures}",
        if split { "split lines" } else { "whole lines" }
    );
    assert_eq!(figures.lost, 0, "{figures}\n{:?}", figures.refusals);
    assert_eq!(figures.outside, 0, "{figures}\n{:?}", figures.refusals);
    assert_eq!(figures.unparsable, 0, "{figures}\n{:?}", figures.refusals);
    assert_eq!(
        figures.original_lost, 0,
        "{figures}\n{:?}",
        figures.refusals
    );
    assert!(
        figures.overlapping > 0,
        "the race never happened: {figures}"
    );
    figures
}

/// Exit codes other than `allowed`.
fn other_exits(figures: &Figures, allowed: &[i32]) -> Vec<(i32, usize)> {
    figures
        .exits
        .iter()
        .filter(|(code, _)| !allowed.contains(code))
        .copied()
        .collect()
}

#[test]
fn append_with_a_writer_that_reopens_per_line() {
    let figures = check(Session::Pi, Style::Reopen, false);
    assert_eq!(other_exits(&figures, &[0]), [], "{:?}", figures.refusals);
}

#[test]
fn append_with_a_writer_that_reopens_per_line_and_splits_lines() {
    let figures = check(Session::Pi, Style::Reopen, true);
    assert_eq!(other_exits(&figures, &[0]), [], "{:?}", figures.refusals);
}

#[test]
fn append_with_a_writer_that_keeps_the_file_open() {
    let figures = check(Session::Pi, Style::KeepOpen, false);
    assert_eq!(other_exits(&figures, &[0]), [], "{:?}", figures.refusals);
}

#[test]
fn append_with_a_writer_that_keeps_the_file_open_and_splits_lines() {
    let figures = check(Session::Pi, Style::KeepOpen, true);
    assert_eq!(other_exits(&figures, &[0]), [], "{:?}", figures.refusals);
}

#[test]
fn replace_with_a_writer_that_reopens_per_line() {
    let figures = check(Session::Openai, Style::Reopen, false);
    assert_eq!(other_exits(&figures, &[0]), [], "{:?}", figures.refusals);
}

#[test]
fn replace_with_a_writer_that_reopens_per_line_and_splits_lines() {
    // A writer between the two halves of a line holds the file for a millisecond: a run may
    // see it every time it looks, and refuse; it never loses the line.
    let figures = check(Session::Openai, Style::Reopen, true);
    assert_eq!(other_exits(&figures, &[0, 1]), [], "{:?}", figures.refusals);
}

#[test]
fn replace_with_a_writer_that_also_rewrites_the_file_by_rename() {
    let figures = check(Session::Openai, Style::Rename, false);
    assert_eq!(other_exits(&figures, &[0, 1]), [], "{:?}", figures.refusals);
}

#[test]
fn append_with_a_writer_that_also_rewrites_the_file_by_rename() {
    let figures = check(Session::Pi, Style::Rename, false);
    assert_eq!(other_exits(&figures, &[0, 1]), [], "{:?}", figures.refusals);
}

#[test]
fn replace_is_refused_while_a_writer_keeps_the_file_open() {
    for split in [false, true] {
        // A run that comes after the writer has exited may replace; the others refuse.
        let figures = check(Session::Openai, Style::KeepOpen, split);
        assert_eq!(other_exits(&figures, &[0, 1]), [], "{:?}", figures.refusals);
        assert!(!figures.refusals.is_empty(), "{figures}");
        for refusal in &figures.refusals {
            assert!(
                refusal.contains("(sh) has it open for writing"),
                "{refusal}"
            );
        }
    }
}
