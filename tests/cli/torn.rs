//! Issue 31: an append that is whole or absent. A full disk at every fill level (a small tmpfs
//! in a private mount namespace; skipped, saying so, where it cannot be mounted), and condense
//! killed or signalled at many points of an append: the session is then the original or the
//! result, and what a SIGKILL left is removed by the next run, which never blames the agent.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output};
use std::time::Instant;

use rustix::process::Signal;

use crate::util::{assert_success, fixture};

const CLAUDE: &str = "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl";
const KIMI: &str = "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl";

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("condense")
}

/// A summary of about `bytes` bytes of plain prose.
fn big_summary(bytes: usize) -> String {
    let line = "NOW: the parser keeps every record whole while the agent is writing the session.\n";
    line.repeat(bytes / line.len() + 1)
}

/// Whether this process may mount a tmpfs in a mount namespace of its own.
fn can_mount() -> bool {
    let dir = tempfile::tempdir().unwrap();
    StdCommand::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$1\""])
        .arg("sh")
        .arg(dir.path())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `condense inject --in-place` of a copy of `session` on a tmpfs of `size` bytes; returns its
/// output, the session afterwards and the names left on the tmpfs.
fn inject_on_tmpfs(
    session: &Path,
    summary: &Path,
    size: u64,
    scratch: &Path,
) -> (Output, Vec<u8>, String) {
    let mount = scratch.join("m");
    fs::create_dir_all(&mount).unwrap();
    let script = r#"set -e
mount -t tmpfs -o size="$1" tmpfs "$2"
cp "$3" "$2/s.jsonl"
status=0
"$4" inject --in-place --summary "$5" "$2/s.jsonl" || status=$?
cp "$2/s.jsonl" "$6/after.jsonl"
ls -A "$2" > "$6/names"
exit "$status""#;
    let output = StdCommand::new("unshare")
        .args(["-m", "sh", "-c", script, "sh"])
        .arg(size.to_string())
        .arg(&mount)
        .arg(session)
        .arg(bin())
        .arg(summary)
        .arg(scratch)
        .env_clear()
        .output()
        .unwrap();
    let after = fs::read(scratch.join("after.jsonl")).unwrap();
    let names = fs::read_to_string(scratch.join("names")).unwrap();
    (output, after, names)
}

/// Whether `condense estimate` reads the session with no warning.
fn reads_cleanly(bytes: &[u8]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    fs::write(&path, bytes).unwrap();
    let output = StdCommand::new(bin())
        .args(["estimate"])
        .arg(&path)
        .env_clear()
        .output()
        .unwrap();
    output.status.success() && output.stderr.is_empty()
}

#[test]
fn a_full_disk_leaves_the_session_whole_or_untouched_at_every_fill_level() {
    if !can_mount() {
        // CI runs as root, where the full-disk case must run: a skip there would prove nothing.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to mount a tmpfs (root, unshare -m)"
        );
        crate::util::say_skipped("cannot mount a tmpfs here (needs root and unshare -m)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    // Records of about 300 KB: the disk fills during the journal, or during the append.
    fs::write(&summary, big_summary(300_000)).unwrap();
    let original = fs::read(fixture(CLAUDE)).unwrap();
    let (mut refused, mut appended) = (0, 0);
    let mut refused_at_append = 0;
    let base = original.len() as u64;
    for step in 0..16u64 {
        let size = (base + step * 48 * 1024).div_ceil(4096) * 4096;
        let scratch = tempfile::tempdir().unwrap();
        let (output, after, names) =
            inject_on_tmpfs(&fixture(CLAUDE), &summary, size, scratch.path());
        let err = String::from_utf8_lossy(&output.stderr);
        // Nothing but the session, and after a whole write its undo journal (which a full disk
        // may also have kept from being written: a warning, not a failure).
        let undo = names.lines().any(|name| name == "s.jsonl.condense-undo");
        let others: Vec<&str> = names
            .lines()
            .filter(|&name| name != "s.jsonl.condense-undo")
            .collect();
        assert_eq!(others, ["s.jsonl"], "size {size}: strays left: {names}");
        assert!(
            !undo || output.status.code() == Some(0),
            "size {size}: an undo journal of a failed write"
        );
        match output.status.code() {
            Some(0) => {
                appended += 1;
                assert!(after.starts_with(&original), "size {size}");
                assert!(
                    reads_cleanly(&after),
                    "size {size}: the result does not read"
                );
            }
            Some(1) => {
                refused += 1;
                assert_eq!(after, original, "size {size}: touched on failure: {err}");
                assert!(err.contains("s.jsonl"), "size {size}: {err}");
                assert!(
                    err.contains("No space left on device"),
                    "size {size}: {err}"
                );
                if err.contains("cannot append:") {
                    refused_at_append += 1;
                }
            }
            other => panic!("size {size}: exit {other:?}: {err}"),
        }
    }
    eprintln!(
        "\nfull disk: {refused} refused ({refused_at_append} at the append), {appended} appended"
    );
    assert!(
        refused_at_append > 0 && appended > 0,
        "the sizes missed a case"
    );
}

#[test]
fn a_full_disk_on_the_replace_path_names_the_session_and_leaves_it_untouched() {
    if !can_mount() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to mount a tmpfs (root, unshare -m)"
        );
        crate::util::say_skipped("cannot mount a tmpfs here (needs root and unshare -m)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "NOW: a summary\n").unwrap();
    // kimi-cli's context.jsonl is rewritten: the new file needs as much room again.
    let session = fixture(KIMI);
    let original = fs::read(&session).unwrap();
    let (mut refused, mut replaced) = (0, 0);
    for step in 0..24u64 {
        let size = (original.len() as u64).div_ceil(4096) * 4096 + step * 4096;
        let scratch = tempfile::tempdir().unwrap();
        let (output, after, names) = inject_on_tmpfs(&session, &summary, size, scratch.path());
        let err = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => {
                replaced += 1;
                assert!(reads_cleanly(&after), "size {size}");
                assert!(names.lines().any(|n| n == "s.jsonl.bak"), "{names}");
            }
            Some(1) => {
                refused += 1;
                assert_eq!(after, original, "size {size}: touched on failure: {err}");
                assert_eq!(names.trim(), "s.jsonl", "size {size}: strays left");
                // It says which file it could not write (it said only the OS error).
                assert!(err.contains("s.jsonl: "), "size {size}: {err}");
                assert!(
                    err.contains("No space left on device"),
                    "size {size}: {err}"
                );
            }
            other => panic!("size {size}: exit {other:?}: {err}"),
        }
    }
    eprintln!("\nfull disk, replace path: {refused} refused, {replaced} replaced");
    assert!(refused > 0 && replaced > 0, "the sizes missed a case");
}

/// A run killed after its records were whole and synced, before its journal line said so: the
/// next run finds them whole, and `condense undo` takes them back (with an undo file apart from
/// the repair journal, this write could not be undone).
#[test]
fn records_whole_before_their_journal_line_was_done_can_still_be_undone() {
    let dir = tempfile::tempdir().unwrap();
    let (session, original, records) = session_and_records(dir.path());
    fs::write(&session, [original.as_slice(), &records].concat()).unwrap();
    fs::write(
        dir.path().join("s.jsonl.condense-undo"),
        pending(&session, original.len(), &records),
    )
    .unwrap();
    let undo = StdCommand::new(bin())
        .arg("undo")
        .arg(&session)
        .env_clear()
        .output()
        .unwrap();
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(fs::read(&session).unwrap(), original);
}

/// What a killed or signalled run left, and what the next run made of it.
#[derive(Debug, Default)]
struct Outcomes {
    original: usize,
    whole: usize,
    repaired: usize,
    torn_after_repair: usize,
}

impl std::ops::AddAssign for Outcomes {
    fn add_assign(&mut self, more: Outcomes) {
        self.original += more.original;
        self.whole += more.whole;
        self.repaired += more.repaired;
        self.torn_after_repair += more.torn_after_repair;
    }
}

/// [`kill_at_points`] again, up to four rounds, until `reached` says the kills landed where the
/// test needs them (on a loaded machine a run's length drifts, and a few points can all fall
/// on one side of the write): what every round left, added up.
fn kill_until(
    signal: Signal,
    points: usize,
    summary_bytes: usize,
    way: Way,
    reached: impl Fn(&Outcomes) -> bool,
) -> Outcomes {
    let mut outcomes = Outcomes::default();
    for _ in 0..4 {
        outcomes += kill_at_points(signal, points, summary_bytes, way);
        if reached(&outcomes) {
            break;
        }
    }
    outcomes
}

/// The two ways an in-place write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// A Claude Code session: the records are appended.
    Append,
    /// A kimi-cli session of 20 MB: a new file takes its place by rename.
    Replace,
}

/// The session a kill test compacts, the given way.
fn kill_session(way: Way) -> Vec<u8> {
    match way {
        Way::Append => fs::read(fixture(CLAUDE)).unwrap(),
        // Big enough that writing and syncing the new file takes a while to kill in.
        Way::Replace => crate::race::inflated(&fs::read(fixture(KIMI)).unwrap(), 20 << 20),
    }
}

/// Whether a backup beside `session` holds `original`.
fn backed_up(session: &Path, original: &[u8]) -> bool {
    let dir = session.parent().unwrap();
    fs::read_dir(dir).unwrap().flatten().any(|e| {
        e.file_name().to_string_lossy().starts_with("s.jsonl.bak")
            && fs::read(e.path()).is_ok_and(|b| b == original)
    })
}

/// Kills `inject --in-place` with `signal` after each of `points` delays spread over a run's
/// length, then runs it again; every session must end whole.
fn kill_at_points(signal: Signal, points: usize, summary_bytes: usize, way: Way) -> Outcomes {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    fs::write(&summary, big_summary(summary_bytes)).unwrap();
    let original = kill_session(way);
    let session = dir.path().join("s.jsonl");
    let run = |session: &Path| {
        StdCommand::new(bin())
            .args(["inject", "--in-place", "--summary"])
            .arg(&summary)
            .arg(session)
            .env_clear()
            .spawn()
            .unwrap()
    };
    // One whole run sets the span the kills are spread over.
    fs::write(&session, &original).unwrap();
    let started = Instant::now();
    assert!(run(&session).wait().unwrap().success());
    let span = started.elapsed();
    let compacted = fs::read(&session).unwrap();
    let mut outcomes = Outcomes::default();
    for point in 0..points {
        // Each point starts from the original, with no backup of an earlier one.
        for entry in fs::read_dir(dir.path()).unwrap().flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with("s.jsonl.bak")
            {
                fs::remove_file(entry.path()).unwrap();
            }
        }
        fs::write(&session, &original).unwrap();
        let mut child = run(&session);
        // The even points aim at the write itself: the kill follows the session's first growth
        // (an append) or its backup's link, made just before the rename (a replace), by 0 to a
        // few hundred microseconds. The odd ones fall anywhere in a run's second half.
        if point % 2 == 0 {
            let waiting = Instant::now();
            let grown = || match way {
                Way::Append => {
                    fs::metadata(&session).is_ok_and(|m| m.len() > original.len() as u64)
                }
                Way::Replace => dir.path().join("s.jsonl.bak").exists(),
            };
            while !grown() && waiting.elapsed() < span * 3 {
                std::hint::spin_loop();
            }
            std::thread::sleep(std::time::Duration::from_micros(40 * point as u64));
        } else {
            std::thread::sleep(span.mul_f64(0.5 + 0.6 * point as f64 / points as f64));
        }
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a child's pid");
        let _ = rustix::process::kill_process(pid, signal);
        let status = child.wait().unwrap();
        let left = fs::read(&session).unwrap();
        if left == original {
            outcomes.original += 1;
        } else if left == compacted {
            outcomes.whole += 1;
        } else {
            assert_eq!(signal, Signal::KILL, "a held signal tore it ({status:?})");
            outcomes.repaired += 1;
        }
        if status.signal().is_some() || !status.success() {
            // The next run takes out what was left, then compacts.
            let output = StdCommand::new(bin())
                .args(["inject", "--in-place", "--summary"])
                .arg(&summary)
                .arg(&session)
                .env_clear()
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&output.stderr);
            assert!(
                !err.contains("wait until the agent"),
                "blamed the agent: {err}"
            );
            if !output.status.success() {
                outcomes.torn_after_repair += 1;
                continue;
            }
        }
        let after = fs::read(&session).unwrap();
        let kept = match way {
            Way::Append => after.starts_with(&original),
            // The original is in a backup (or still in place, when the kill came first and the
            // next run found nothing to compact... which it never does here).
            Way::Replace => after == original || backed_up(&session, &original),
        };
        if !(kept && reads_cleanly(&after)) {
            outcomes.torn_after_repair += 1;
        }
        let strays: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            // The undo journal of the run that wrote the records whole is no stray.
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.contains("condense-") && !name.ends_with(".condense-undo")
            })
            .collect();
        assert!(strays.is_empty(), "{strays:?}");
    }
    outcomes
}

/// `SIGKILL`, `SIGINT`, … for the figures.
fn signal_name(signal: Signal) -> &'static str {
    match signal {
        Signal::KILL => "SIGKILL",
        Signal::INT => "SIGINT",
        Signal::TERM => "SIGTERM",
        Signal::HUP => "SIGHUP",
        _ => "another signal",
    }
}

fn points() -> usize {
    std::env::var("CONDENSE_KILL_POINTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8)
}

#[test]
fn sigkill_at_many_points_of_an_append_leaves_nothing_the_next_run_cannot_repair() {
    // Records of 16 MB: long enough a write for a kill to land inside it.
    let outcomes = kill_until(Signal::KILL, points(), 16_000_000, Way::Append, |o| {
        o.repaired > 0
    });
    // On a line of its own: libtest prints the test's name without a newline before it.
    eprintln!(
        "\nkill-figures append {} {outcomes:?}",
        signal_name(Signal::KILL)
    );
    assert_eq!(outcomes.torn_after_repair, 0, "{outcomes:?}");
    // The kills must reach the write, or the test proves nothing about it.
    assert!(
        outcomes.repaired > 0,
        "no kill landed inside the write: {outcomes:?}"
    );
}

#[test]
fn sigint_sigterm_and_sighup_during_an_append_leave_the_original_or_the_result() {
    for signal in [Signal::INT, Signal::TERM, Signal::HUP] {
        let outcomes = kill_until(signal, points() / 2, 4_000_000, Way::Append, |o| {
            o.whole > 0
        });
        eprintln!("\nkill-figures append {} {outcomes:?}", signal_name(signal));
        assert!(
            outcomes.whole > 0,
            "no signal came during or after the write: {outcomes:?}"
        );
        assert_eq!(
            outcomes.repaired + outcomes.torn_after_repair,
            0,
            "{outcomes:?}"
        );
    }
}

#[test]
fn every_signal_at_many_points_of_a_replace_leaves_the_original_or_the_result() {
    for signal in [Signal::KILL, Signal::INT, Signal::TERM, Signal::HUP] {
        let points = if signal == Signal::KILL {
            points()
        } else {
            points() / 2
        };
        let outcomes = kill_until(signal, points, 4_000, Way::Replace, |o| {
            o.whole > 0 && o.original > 0
        });
        eprintln!(
            "\nkill-figures replace {} {outcomes:?}",
            signal_name(signal)
        );
        assert_eq!(
            outcomes.repaired + outcomes.torn_after_repair,
            0,
            "{outcomes:?}"
        );
        assert!(
            outcomes.whole > 0,
            "no signal came after the rename: {outcomes:?}"
        );
        assert!(
            outcomes.original > 0,
            "no signal came before the rename: {outcomes:?}"
        );
    }
}

/// The journal line of an append under way: `records` about to land after the first `at`
/// bytes of `session`.
fn pending(session: &Path, at: usize, records: &[u8]) -> Vec<u8> {
    let meta = fs::metadata(session).unwrap();
    let line = serde_json::json!({"appending": {
        "dev": meta.dev(),
        "ino": meta.ino(),
        "at": at,
        "records": std::str::from_utf8(records).unwrap(),
    }});
    format!("{line}\n").into_bytes()
}

#[test]
fn a_torn_record_found_by_its_journal_is_removed_and_the_agents_line_after_it_kept() {
    // What a run killed mid-write leaves: the journal, the first part of its records, and the
    // agent's next line glued on.
    let dir = tempfile::tempdir().unwrap();
    let (session, original, records) = session_and_records(dir.path());
    let records = records.as_slice();
    let summary = dir.path().join("summary.md");
    let agent_line = original
        .split_inclusive(|&b| b == b'\n')
        .next_back()
        .unwrap();
    for cut in [1, records.len() / 3, records.len() - 1] {
        let mut torn = original.clone();
        torn.extend_from_slice(&records[..cut]);
        torn.extend_from_slice(agent_line);
        fs::write(&session, &torn).unwrap();
        fs::write(
            dir.path().join("s.jsonl.condense-undo"),
            pending(&session, original.len(), records),
        )
        .unwrap();
        let output = StdCommand::new(bin())
            .args(["inject", "--in-place", "--summary"])
            .arg(&summary)
            .arg(&session)
            .env_clear()
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_success(&output, format_args!("cut {cut}: {err}"));
        assert!(
            err.contains("a condense run was killed while appending"),
            "{err}"
        );
        let after = fs::read(&session).unwrap();
        let mut kept = original.clone();
        kept.extend_from_slice(agent_line);
        assert!(
            after.starts_with(&kept),
            "cut {cut}: the agent's line was not kept whole"
        );
        assert!(reads_cleanly(&after), "cut {cut}");
        // The pending line went; the journal holds the repairing run's own write.
        let journal = fs::read_to_string(dir.path().join("s.jsonl.condense-undo")).unwrap();
        assert!(!journal.contains("appending"), "{journal}");
        assert_eq!(journal.lines().count(), 1, "{journal}");
    }
}

#[test]
fn a_torn_record_of_condense_is_never_blamed_on_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let mut torn = fs::read(fixture(CLAUDE)).unwrap();
    torn.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"compact_boun");
    fs::write(&session, &torn).unwrap();
    fs::write(dir.path().join("summary.md"), "NOW: a summary\n").unwrap();
    let run = |args: &[&str]| {
        StdCommand::new(bin())
            .current_dir(dir.path())
            .args(args)
            .arg(&session)
            .env_clear()
            .output()
            .unwrap()
    };
    // Without a journal, the cut-off line may be the agent's, still being written.
    let agents = run(&["inject", "--summary", "summary.md"]);
    assert!(String::from_utf8_lossy(&agents.stderr).contains("wait until the agent"));
    let original = fs::read(fixture(CLAUDE)).unwrap();
    let records = &torn[original.len()..];
    fs::write(
        dir.path().join("s.jsonl.condense-undo"),
        pending(&session, original.len(), records),
    )
    .unwrap();
    let ours = run(&["inject", "--summary", "summary.md"]);
    let err = String::from_utf8_lossy(&ours.stderr);
    assert_eq!(ours.status.code(), Some(1), "{err}");
    assert!(err.contains("condense's own compaction records"), "{err}");
    assert!(!err.contains("wait until the agent"), "{err}");
    let estimate = run(&["estimate"]);
    let err = String::from_utf8_lossy(&estimate.stderr);
    assert!(
        err.contains("condense's own records, left by a killed run"),
        "{err}"
    );
}

#[test]
fn a_read_only_session_is_left_alone_on_both_paths() {
    use std::os::unix::fs::PermissionsExt;
    for (session, extra) in [
        (CLAUDE, &[][..]),
        (
            "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
            &[][..],
        ),
        (CLAUDE, &["--rewrite"][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let original = fs::read(fixture(session)).unwrap();
        fs::write(&path, &original).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        fs::write(dir.path().join("summary.md"), "NOW: a summary\n").unwrap();
        let output = StdCommand::new(bin())
            .current_dir(dir.path())
            .args(["inject", "--in-place", "--summary", "summary.md"])
            .args(extra)
            .arg("s.jsonl")
            .env_clear()
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{session} {extra:?}: {err}");
        assert!(err.contains("s.jsonl: read-only (mode 444)"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), original);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no backup, no stray"
        );
    }
}

/// A Claude Code session `s.jsonl` in `dir` and a summary beside it (`summary.md`): the
/// session's path, its bytes, and the records `inject` appends to it with that summary.
fn session_and_records(dir: &Path) -> (PathBuf, Vec<u8>, Vec<u8>) {
    let session = dir.join("s.jsonl");
    let original = fs::read(fixture(CLAUDE)).unwrap();
    let summary = dir.join("summary.md");
    fs::write(&summary, "NOW: a summary\n").unwrap();
    fs::write(&session, &original).unwrap();
    let output = StdCommand::new(bin())
        .args(["inject", "--summary"])
        .arg(&summary)
        .arg(&session)
        .env_clear()
        .output()
        .unwrap();
    assert_success(&output, "");
    let records = output.stdout[original.len()..].to_vec();
    (session, original, records)
}
