//! `inject --in-place` and the files around it (issue 10): backups that are never overwritten,
//! the temporary file, owner and mode, symlinks and FIFOs, two runs at once, a line half-written
//! at read time, a process holding the session open; and the path guards of `prompt --plan` and
//! `inject --summary`, and errors writing stdout. The race with a live writer is in `race.rs`.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};

use crate::util::{assert_success, condense, fixture, run_ok, stderr};

const OPENAI: &str = "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl";
const PI: &str = "corpus/pi/pi-mono-large-session.jsonl";

/// A session copied from a fixture, with a summary, in a directory of its own.
struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new(session: &str) -> Dir {
        let dir = tempfile::tempdir().unwrap();
        fs::copy(fixture(session), dir.path().join("s.jsonl")).unwrap();
        fs::write(dir.path().join("summary.md"), "NOW: a summary\n").unwrap();
        Dir { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }

    /// `condense inject --in-place --summary summary.md EXTRA… s.jsonl`, run in the directory.
    fn inject(&self, extra: &[&str]) -> Output {
        condense()
            .current_dir(self.dir.path())
            .args(["inject", "--in-place", "--summary", "summary.md"])
            .args(extra)
            .arg("s.jsonl")
            .output()
            .unwrap()
    }

    /// Every name in the directory, sorted.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            // The undo journal beside the session is condense's own (see tests/cli/undo.rs).
            .filter(|name| !name.ends_with(".condense-undo"))
            .collect();
        names.sort();
        names
    }
}

#[track_caller]
fn fails_with(output: &Output, code: i32, text: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{err}");
    assert!(err.contains(text), "expected {text:?} in {err}");
    assert!(output.stdout.is_empty());
}

/// `condense` as a plain `std` command, for the standard streams assert_cmd does not set.
fn plain() -> StdCommand {
    let mut command = StdCommand::new(assert_cmd::cargo::cargo_bin("condense"));
    command.env_clear();
    command
}

#[track_caller]
fn parses(path: &Path) {
    let check = run_ok(condense().arg("estimate").arg(path));
    assert!(check.stderr.is_empty(), "{}", stderr(&check));
}

// --------------------------------------------------------------------------------------------
// Backups

#[test]
fn backups_are_kept_over_three_compactions_under_new_names() {
    let d = Dir::new(OPENAI);
    let mut inputs = Vec::new();
    for round in 0..3 {
        // The agent goes on between compactions, so every input differs.
        let mut now = d.read("s.jsonl");
        now.extend_from_slice(
            format!(
                "{{\"role\":\"user\",\"content\":\"round {round}\"}}\n\
                 {{\"role\":\"assistant\",\"content\":\"done {round}\"}}\n"
            )
            .as_bytes(),
        );
        fs::write(d.path("s.jsonl"), &now).unwrap();
        inputs.push(now);
        let output = d.inject(&[]);
        assert_success(&output, "");
        assert!(output.stdout.is_empty());
    }
    assert_eq!(
        d.names(),
        [
            "s.jsonl",
            "s.jsonl.bak",
            "s.jsonl.bak.1",
            "s.jsonl.bak.2",
            "summary.md"
        ]
    );
    // The highest number is the newest, as the documentation says.
    assert_eq!(d.read("s.jsonl.bak"), inputs[0]);
    assert_eq!(d.read("s.jsonl.bak.1"), inputs[1]);
    assert_eq!(d.read("s.jsonl.bak.2"), inputs[2]);
    parses(&d.path("s.jsonl"));
}

#[test]
fn an_empty_backup_suffix_or_one_with_a_slash_is_a_usage_error() {
    let d = Dir::new(OPENAI);
    let before = d.read("s.jsonl");
    for suffix in ["", "/../x", "dir/.bak"] {
        let output = d.inject(&["--backup-suffix", suffix]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{suffix:?}: {}",
            stderr(&output)
        );
        assert!(stderr(&output).contains("--backup-suffix"));
    }
    assert_eq!(d.read("s.jsonl"), before);
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

#[test]
fn a_backup_suffix_that_names_the_summary_or_the_plan_is_refused() {
    let d = Dir::new(OPENAI);
    let before = d.read("s.jsonl");
    fs::write(d.path("s.jsonl.md"), "SUMMARY").unwrap();
    let output = condense()
        .current_dir(d.dir.path())
        .args(["inject", "--in-place", "--summary", "s.jsonl.md"])
        .args(["--backup-suffix", ".md", "s.jsonl"])
        .output()
        .unwrap();
    fails_with(
        &output,
        1,
        "s.jsonl: the backup name is s.jsonl.md, which this run reads",
    );
    assert_eq!(d.read("s.jsonl.md"), b"SUMMARY");
    condense()
        .current_dir(d.dir.path())
        .args(["prompt", "--plan", "s.jsonl.plan", "s.jsonl"])
        .assert()
        .success();
    let plan = d.read("s.jsonl.plan");
    let output = d.inject(&["--plan", "s.jsonl.plan", "--backup-suffix", ".plan"]);
    fails_with(
        &output,
        1,
        "which this run reads; choose another --backup-suffix",
    );
    assert_eq!(d.read("s.jsonl.plan"), plan);
    assert_eq!(d.read("s.jsonl"), before);
}

#[test]
fn rewrite_replaces_an_append_only_session_and_keeps_a_backup() {
    let d = Dir::new(PI);
    let original = d.read("s.jsonl");
    let output = d.inject(&["--rewrite"]);
    assert_success(&output, "");
    assert_eq!(d.read("s.jsonl.bak"), original);
    parses(&d.path("s.jsonl"));
    // Without it, the same compaction is appended: no backup.
    let d = Dir::new(PI);
    assert_success(&d.inject(&[]), "inject");
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
    assert!(d.read("s.jsonl").starts_with(&original));
    // --rewrite needs --in-place.
    condense()
        .args(["inject", "--rewrite", "--summary"])
        .arg(d.path("summary.md"))
        .arg(d.path("s.jsonl"))
        .assert()
        .code(2);
}

// --------------------------------------------------------------------------------------------
// The temporary file, owner and mode

#[test]
fn a_planted_symlink_cannot_redirect_the_temporary_file() {
    let d = Dir::new(OPENAI);
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    fs::write(&secret, "secret\n").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    // The names older versions used (`.NAME.condense-PID.tmp`), for the pids that come next.
    let next = std::process::id();
    for pid in next..next + 200 {
        std::os::unix::fs::symlink(&secret, d.path(&format!(".s.jsonl.condense-{pid}.tmp")))
            .unwrap();
    }
    let output = d.inject(&[]);
    assert_success(&output, "");
    assert_eq!(fs::read(&secret).unwrap(), b"secret\n");
    assert_eq!(fs::metadata(&secret).unwrap().mode() & 0o777, 0o600);
    parses(&d.path("s.jsonl"));
}

#[test]
fn the_new_file_has_the_originals_mode_owner_and_group() {
    let d = Dir::new(OPENAI);
    let session = d.path("s.jsonl");
    fs::set_permissions(&session, fs::Permissions::from_mode(0o640)).unwrap();
    let root = is_root();
    if root {
        // Another user's session, compacted by root: it must stay theirs.
        std::os::unix::fs::chown(&session, Some(4242), Some(4343)).unwrap();
    }
    let before = fs::metadata(&session).unwrap();
    let output = d.inject(&[]);
    assert_success(&output, "");
    let after = fs::metadata(&session).unwrap();
    assert_ne!(after.ino(), before.ino(), "replaced");
    assert_eq!(after.mode() & 0o7777, 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    let backup = fs::metadata(d.path("s.jsonl.bak")).unwrap();
    assert_eq!(
        backup.ino(),
        before.ino(),
        "the backup is the original itself"
    );
}

/// A user attribute and a POSIX ACL (Linux keeps it as the `system.posix_acl_access`
/// attribute: version 2, then tag, permissions and id of each entry, little-endian) that
/// grants user 4242 read access beside a mode of 0640.
fn attributes() -> [(&'static std::ffi::CStr, Vec<u8>); 2] {
    const UNDEFINED: u32 = u32::MAX;
    let mut acl = 2u32.to_le_bytes().to_vec();
    // USER_OBJ rw, USER 4242 r, GROUP_OBJ r, MASK r, OTHER none.
    for (tag, perm, id) in [
        (0x01u16, 6u16, UNDEFINED),
        (0x02, 4, 4242),
        (0x04, 4, UNDEFINED),
        (0x10, 4, UNDEFINED),
        (0x20, 0, UNDEFINED),
    ] {
        acl.extend_from_slice(&tag.to_le_bytes());
        acl.extend_from_slice(&perm.to_le_bytes());
        acl.extend_from_slice(&id.to_le_bytes());
    }
    [
        (c"user.condense-test.origin", b"kept by the owner".to_vec()),
        (c"system.posix_acl_access", acl),
    ]
}

fn set_attributes(path: &Path) -> rustix::io::Result<()> {
    for (name, value) in attributes() {
        rustix::fs::setxattr(path, name, &value, rustix::fs::XattrFlags::empty())?;
    }
    Ok(())
}

fn attribute(path: &Path, name: &std::ffi::CStr) -> Option<Vec<u8>> {
    let mut value = vec![0u8; 4096];
    let n = rustix::fs::getxattr(path, name, &mut value[..]).ok()?;
    value.truncate(n);
    Some(value)
}

/// A fresh directory on a file system that keeps user attributes and POSIX ACLs: the system's
/// temporary folder, else cargo's (on the repository's file system), else `/dev/shm` (tmpfs,
/// which keeps both since Linux 6.6). `None` where none does.
fn attribute_dir() -> Option<tempfile::TempDir> {
    let candidates = [
        std::env::temp_dir(),
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        PathBuf::from("/dev/shm"),
    ];
    candidates.iter().find_map(|place| {
        let dir = tempfile::tempdir_in(place).ok()?;
        let probe = dir.path().join("probe");
        fs::write(&probe, "").ok()?;
        set_attributes(&probe).ok()?;
        fs::remove_file(&probe).ok()?;
        Some(dir)
    })
}

#[test]
fn extended_attributes_and_the_acl_stay_with_a_replaced_session() {
    let Some(dir) = attribute_dir() else {
        // CI must show that the replace keeps them: a skip there would prove nothing.
        assert!(
            std::env::var_os("CI").is_none(),
            "no file system here keeps user attributes and POSIX ACLs (tried the temporary \
             folder, cargo's, and /dev/shm)"
        );
        crate::util::say_skipped("no file system here keeps user attributes and POSIX ACLs");
        return;
    };
    // The replace path (kimi-cli), and an append-only session rewritten (--rewrite).
    for (session, extra) in [(OPENAI, &[][..]), (PI, &["--rewrite"][..])] {
        let path = dir.path().join("s.jsonl");
        fs::copy(fixture(session), &path).unwrap();
        fs::write(dir.path().join("summary.md"), "NOW: a summary\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        set_attributes(&path).unwrap();
        let before = fs::metadata(&path).unwrap();
        let output = condense()
            .current_dir(dir.path())
            .args(["inject", "--in-place", "--summary", "summary.md"])
            .args(extra)
            .arg("s.jsonl")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        let after = fs::metadata(&path).unwrap();
        assert_ne!(after.ino(), before.ino(), "{session}: replaced");
        assert_eq!(after.mode() & 0o7777, 0o640, "{session}");
        for (name, value) in attributes() {
            assert_eq!(
                attribute(&path, name),
                Some(value),
                "{session}: {name:?} was not kept"
            );
        }
        for entry in fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.file_name() != "s.jsonl" {
                fs::remove_file(entry.path()).unwrap();
            }
        }
    }
}

/// A session named with 224 bytes or more could not be compacted in place: the temporary
/// file, the backup and the journals beside it take the name and more, past the 255 bytes a
/// directory entry holds ("cannot write in this directory: File name too long").
#[test]
fn a_session_with_a_254_byte_name_is_compacted_undone_and_compacted_again() {
    let name = format!("{}.jsonl", "é".repeat(124));
    assert_eq!(name.len(), 254);
    for (session, kind) in [(OPENAI, "replace"), (PI, "append")] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(&name);
        fs::copy(fixture(session), &path).unwrap();
        fs::write(dir.path().join("summary.md"), "NOW: a summary\n").unwrap();
        let inject = || {
            condense()
                .current_dir(dir.path())
                .args(["inject", "--in-place", "--summary", "summary.md"])
                .arg(&name)
                .output()
                .unwrap()
        };
        let output = inject();
        assert!(output.status.success(), "{session}: {}", stderr(&output));
        assert!(output.stderr.is_empty(), "{session}: {}", stderr(&output));
        parses(&path);
        let listed = condense()
            .args(["undo", "--list"])
            .arg(&path)
            .output()
            .unwrap();
        let listed = crate::util::json_lines(&listed.stdout);
        assert_eq!(
            listed.len(),
            1,
            "{session}: the write is not in the journal"
        );
        assert_eq!(listed[0]["kind"], kind);
        let undo = condense().arg("undo").arg(&path).output().unwrap();
        assert!(undo.status.success(), "{session}: {}", stderr(&undo));
        assert_eq!(
            fs::read(&path).unwrap(),
            fs::read(fixture(session)).unwrap()
        );
        // Twice more, so that numbered backups follow the first.
        for _ in 0..2 {
            let output = inject();
            assert!(output.status.success(), "{session}: {}", stderr(&output));
        }
        for entry in fs::read_dir(dir.path()).unwrap().flatten() {
            assert!(entry.file_name().len() <= 255);
        }
    }
}

#[test]
fn the_temporary_file_is_never_more_readable_than_the_session_while_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    // About 24 MB, nearly all kept (--upto 2), so the new file takes a while to write.
    let text = "x".repeat(6000);
    let mut lines = String::new();
    for i in 0..2000 {
        lines.push_str(&format!(
            "{{\"role\":\"user\",\"content\":\"{i} {text}\"}}\n"
        ));
        lines.push_str(&format!(
            "{{\"role\":\"assistant\",\"content\":\"{i} {text}\"}}\n"
        ));
    }
    fs::write(&session, lines).unwrap();
    fs::set_permissions(&session, fs::Permissions::from_mode(0o600)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&session, Some(4242), Some(4343)).unwrap();
    }
    let want = fs::metadata(&session).unwrap();
    fs::write(dir.path().join("summary.md"), "SUMMARY").unwrap();
    let mut child = plain()
        .current_dir(dir.path())
        .args([
            "inject",
            "--in-place",
            "--upto",
            "2",
            "--summary",
            "summary.md",
            "s.jsonl",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Watch the child's open files: the new file has no name, but /proc shows it.
    let fds = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let mut seen = 0;
    while child.try_wait().unwrap().is_none() {
        for fd in fs::read_dir(&fds).into_iter().flatten().flatten() {
            let Ok(link) = fs::read_link(fd.path()) else {
                continue;
            };
            let in_dir = link.starts_with(dir.path())
                || link.starts_with(fs::canonicalize(dir.path()).unwrap());
            let name = link
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            // An unnamed (O_TMPFILE) file shows as `#INODE (deleted)`; the fallback has a name.
            let temporary = name.starts_with('#') || name.starts_with(".s.jsonl.condense-");
            if !in_dir || !temporary {
                continue;
            }
            let Ok(meta) = fs::metadata(fd.path()) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            seen += 1;
            // Never wider than the session; and the original's owner before its first byte
            // (in the instant between the open and the chown it is empty, unnamed and 0600).
            assert_eq!(meta.mode() & 0o777 & !0o600, 0, "{}", link.display());
            assert!(
                meta.len() == 0 || (meta.uid(), meta.gid()) == (want.uid(), want.gid()),
                "{}: {} bytes owned by {}:{}",
                link.display(),
                meta.len(),
                meta.uid(),
                meta.gid()
            );
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let output = child.wait_with_output().unwrap();
    assert_success(&output, "");
    assert!(
        seen > 0,
        "the temporary file was never seen: the test watched nothing"
    );
    let after = fs::metadata(&session).unwrap();
    assert_eq!(after.mode() & 0o777, 0o600);
    assert_eq!((after.uid(), after.gid()), (want.uid(), want.gid()));
}

fn is_root() -> bool {
    // Whoever runs the tests owns the files they create.
    let probe = tempfile::NamedTempFile::new().unwrap();
    fs::metadata(probe.path()).unwrap().uid() == 0
}

// --------------------------------------------------------------------------------------------
// Symlinks, FIFOs

#[test]
fn a_symlinked_session_compacts_its_target_and_keeps_the_link() {
    let d = Dir::new(OPENAI);
    let real_dir = tempfile::tempdir().unwrap();
    let real = real_dir.path().join("real.jsonl");
    fs::rename(d.path("s.jsonl"), &real).unwrap();
    let original = fs::read(&real).unwrap();
    std::os::unix::fs::symlink(&real, d.path("s.jsonl")).unwrap();
    let output = d.inject(&[]);
    assert_success(&output, "");
    let link = fs::symlink_metadata(d.path("s.jsonl")).unwrap();
    assert!(link.file_type().is_symlink(), "the link is kept");
    assert_eq!(fs::read_link(d.path("s.jsonl")).unwrap(), real);
    assert_ne!(
        fs::read(&real).unwrap(),
        original,
        "the target is compacted"
    );
    parses(&real);
    // The backup is beside the real file.
    assert_eq!(
        fs::read(real_dir.path().join("real.jsonl.bak")).unwrap(),
        original
    );
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

#[test]
fn in_place_refuses_a_fifo_and_leaves_it_alone() {
    let d = Dir::new(OPENAI);
    fs::remove_file(d.path("s.jsonl")).unwrap();
    let made = StdCommand::new("mkfifo")
        .arg(d.path("s.jsonl"))
        .status()
        .unwrap();
    assert!(made.success());
    let output = condense()
        .current_dir(d.dir.path())
        .args(["inject", "--in-place", "--summary", "summary.md", "s.jsonl"])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    fails_with(
        &output,
        1,
        "s.jsonl: a FIFO; --in-place only rewrites regular files",
    );
    let kind = fs::symlink_metadata(d.path("s.jsonl")).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind));
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

// --------------------------------------------------------------------------------------------
// Live sessions: another process, a half-written line, two runs at once

/// A `sleep` child holding `path` open for appending, as an agent that keeps its log open.
fn holder(path: &Path) -> std::process::Child {
    let file = fs::OpenOptions::new().append(true).open(path).unwrap();
    StdCommand::new("sleep")
        .arg("30")
        .stdout(file)
        .spawn()
        .unwrap()
}

#[test]
fn a_replace_is_refused_while_another_process_holds_the_session_for_writing() {
    let d = Dir::new(OPENAI);
    let original = d.read("s.jsonl");
    let mut child = holder(&d.path("s.jsonl"));
    let output = d.inject(&[]);
    let _ = child.kill();
    let _ = child.wait();
    fails_with(
        &output,
        1,
        &format!(
            "s.jsonl: process {} (sleep) has it open for writing; replacing it now would send \
             what it writes next to the backup, so nothing was written",
            child.id()
        ),
    );
    assert_eq!(d.read("s.jsonl"), original);
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

#[test]
fn an_append_goes_ahead_while_another_process_holds_the_session() {
    let d = Dir::new(PI);
    let original = d.read("s.jsonl");
    let mut child = holder(&d.path("s.jsonl"));
    let output = d.inject(&[]);
    let _ = child.kill();
    let _ = child.wait();
    assert_success(&output, "");
    assert!(d.read("s.jsonl").starts_with(&original));
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

#[test]
fn a_line_half_written_at_read_time_is_waited_for_and_never_split() {
    for (session, line) in [
        (
            PI,
            r#"{"type":"message","timestamp":"2025-11-21T03:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"half and half"}],"timestamp":1763694000000}}"#,
        ),
        (OPENAI, r#"{"role":"user","content":"half and half"}"#),
    ] {
        let d = Dir::new(session);
        let (first, second) = line.split_at(line.len() / 2);
        // The writer holds the file between the two halves, as a buffered writer does.
        let mut writer = StdCommand::new("sh")
            .arg("-c")
            .arg(r#"{ printf '%s' "$1"; sleep 0.4; printf '%s\n' "$2"; } >> "$0""#)
            .arg(d.path("s.jsonl"))
            .arg(first)
            .arg(second)
            .spawn()
            .unwrap();
        // Start once the first half is there.
        let size = fs::metadata(fixture(session)).unwrap().len();
        while fs::metadata(d.path("s.jsonl")).unwrap().len() == size {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let output = d.inject(&[]);
        assert!(writer.wait().unwrap().success());
        assert_success(&output, "");
        let now = String::from_utf8(d.read("s.jsonl")).unwrap();
        assert!(now.lines().any(|l| l == line), "the line is whole");
        parses(&d.path("s.jsonl"));
    }
}

#[test]
fn a_line_that_stays_half_written_while_its_writer_holds_the_file_is_a_clear_failure() {
    let d = Dir::new(PI);
    let mut half = d.read("s.jsonl");
    half.extend_from_slice(br#"{"type":"message","timestamp":"2025-11-21T03:00"#);
    fs::write(d.path("s.jsonl"), &half).unwrap();
    let mut child = holder(&d.path("s.jsonl"));
    let output = d.inject(&[]);
    let _ = child.kill();
    let _ = child.wait();
    fails_with(
        &output,
        1,
        &format!(
            "s.jsonl: process {} (sleep) has been writing its last line for 2 s; nothing was \
             written",
            child.id()
        ),
    );
    assert_eq!(d.read("s.jsonl"), half);
    assert_eq!(d.names(), ["s.jsonl", "summary.md"]);
}

#[test]
fn a_last_line_without_a_newline_that_no_one_is_writing_is_compacted() {
    let d = Dir::new(PI);
    let mut original = d.read("s.jsonl");
    assert_eq!(original.pop(), Some(b'\n'));
    fs::write(d.path("s.jsonl"), &original).unwrap();
    let output = d.inject(&[]);
    assert_success(&output, "");
    let now = d.read("s.jsonl");
    assert!(now.starts_with(&original));
    assert_eq!(now[original.len()], b'\n');
    parses(&d.path("s.jsonl"));
}

#[test]
fn two_in_place_runs_at_once_take_turns_and_lose_nothing() {
    for session in [OPENAI, PI] {
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(move || {
                    for _ in 0..5 {
                        let d = Dir::new(session);
                        let original = d.read("s.jsonl");
                        condense()
                            .current_dir(d.dir.path())
                            .args(["prompt", "--plan", "plan.json", "s.jsonl"])
                            .assert()
                            .success();
                        let spawn = || {
                            StdCommand::new(assert_cmd::cargo::cargo_bin("condense"))
                                .current_dir(d.dir.path())
                                .args(["inject", "--in-place", "--plan", "plan.json"])
                                .args(["--summary", "summary.md", "s.jsonl"])
                                .stdout(Stdio::null())
                                .stderr(Stdio::piped())
                                .spawn()
                                .unwrap()
                        };
                        let (a, b) = (spawn(), spawn());
                        let codes: Vec<Option<i32>> = [a, b]
                            .into_iter()
                            .map(|c| c.wait_with_output().unwrap().status.code())
                            .collect();
                        // One compacts; the other compacts what the first wrote, or finds the
                        // plan out of date, or nothing to do.
                        assert!(codes.contains(&Some(0)), "{codes:?}");
                        assert!(
                            codes.iter().all(|c| matches!(c, Some(0 | 1 | 4))),
                            "{codes:?}"
                        );
                        parses(&d.path("s.jsonl"));
                        // The original is where it should be: still at the start of the session
                        // (appended to) or whole in a backup (replaced).
                        let kept = d.read("s.jsonl").starts_with(&original)
                            || d.names().iter().any(|name| {
                                name.starts_with("s.jsonl.bak") && d.read(name) == original
                            });
                        assert!(kept, "{:?}", d.names());
                    }
                });
            }
        });
    }
}

// --------------------------------------------------------------------------------------------
// Path guards

#[test]
fn prompt_refuses_to_write_its_plan_over_the_transcript() {
    let d = Dir::new(OPENAI);
    let original = d.read("s.jsonl");
    fs::hard_link(d.path("s.jsonl"), d.path("hard.jsonl")).unwrap();
    std::os::unix::fs::symlink("s.jsonl", d.path("soft.jsonl")).unwrap();
    for plan in ["s.jsonl", "./s.jsonl", "hard.jsonl", "soft.jsonl"] {
        let output = condense()
            .current_dir(d.dir.path())
            .args(["prompt", "--plan", plan, "s.jsonl"])
            .output()
            .unwrap();
        fails_with(
            &output,
            1,
            &format!("{plan}: the plan file is the transcript"),
        );
    }
    // And the transcript on stdin, the plan to /dev/stdin.
    let output = plain()
        .current_dir(d.dir.path())
        .args(["prompt", "--plan", "/dev/stdin"])
        .stdin(fs::File::open(d.path("s.jsonl")).unwrap())
        .output()
        .unwrap();
    fails_with(&output, 1, "/dev/stdin: the plan file is the transcript");
    assert_eq!(d.read("s.jsonl"), original);
}

#[test]
fn a_summary_that_is_a_hard_link_of_the_session_is_refused() {
    let d = Dir::new(OPENAI);
    let original = d.read("s.jsonl");
    fs::hard_link(d.path("s.jsonl"), d.path("linked.md")).unwrap();
    for extra in [&[][..], &["--in-place"][..]] {
        let output = condense()
            .current_dir(d.dir.path())
            .args(["inject", "--summary", "linked.md"])
            .args(extra)
            .arg("s.jsonl")
            .output()
            .unwrap();
        fails_with(
            &output,
            1,
            "linked.md: the summary and the transcript are the same file",
        );
    }
    assert_eq!(d.read("s.jsonl"), original);
}

#[test]
fn a_summary_from_dev_stdin_with_the_session_on_stdin_is_an_error() {
    let d = Dir::new(OPENAI);
    // Redirected from the file, and through a pipe.
    let output = plain()
        .args(["inject", "--summary", "/dev/stdin"])
        .stdin(fs::File::open(d.path("s.jsonl")).unwrap())
        .output()
        .unwrap();
    fails_with(
        &output,
        1,
        "/dev/stdin: the summary and the transcript are both standard input",
    );
    let output = condense()
        .args(["inject", "--summary", "/dev/stdin"])
        .write_stdin(d.read("s.jsonl"))
        .output()
        .unwrap();
    fails_with(
        &output,
        1,
        "/dev/stdin: the summary and the transcript are both standard input",
    );
}

// --------------------------------------------------------------------------------------------
// stdout

#[test]
fn a_closed_or_full_stdout_is_an_error_that_names_stdout() {
    let session = fixture(OPENAI);
    let binary = assert_cmd::cargo::cargo_bin("condense");
    for command in ["estimate", "split", "prompt", "caveman", "bare"] {
        // As typed in bash (not `exec`, which leaves `$_` unset).
        let closed = StdCommand::new("bash")
            .arg("-c")
            .arg(r#""$0" "$1" "$2" >&-; exit $?"#)
            .arg(&binary)
            .arg(command)
            .arg(&session)
            .env_clear()
            .output()
            .unwrap();
        assert_eq!(
            closed.status.code(),
            Some(1),
            "{command}: {}",
            stderr(&closed)
        );
        assert!(
            stderr(&closed).starts_with("condense: error: stdout: cannot write: it is closed"),
            "{command}: {}",
            stderr(&closed)
        );
        let full = plain()
            .arg(command)
            .arg(&session)
            .stdout(fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(full.status.code(), Some(1), "{command}");
        assert!(
            stderr(&full).starts_with("condense: error: stdout: cannot write: No space left"),
            "{command}: {}",
            stderr(&full)
        );
    }
    // Discarding on purpose is not an error.
    let discarded = plain()
        .arg("estimate")
        .arg(&session)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(discarded.status.success() && discarded.stderr.is_empty());
    // So is a read-write /dev/null, as Python's subprocess.DEVNULL and Node's 'ignore' give.
    let devnull = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .unwrap();
    let discarded = plain()
        .arg("estimate")
        .arg(&session)
        .stdout(devnull)
        .output()
        .unwrap();
    assert_success(&discarded, "");
    assert!(discarded.stderr.is_empty(), "{}", stderr(&discarded));
    // A command that writes nothing to stdout does not care that it is closed.
    let d = Dir::new(OPENAI);
    let closed = StdCommand::new("bash")
        .arg("-c")
        .arg(r#"cd "$1" && "$0" inject --in-place --summary summary.md s.jsonl >&-; exit $?"#)
        .arg(&binary)
        .arg(d.dir.path())
        .env_clear()
        .output()
        .unwrap();
    assert_success(&closed, "");
}
