//! opencode's sessions, rows of a copy of the fixture database (written by opencode 1.18.33
//! against the mock): found by `sessions` and `--agent opencode`, named `DB#ID` (the database
//! alone standing for its sessions), read by every command, written in place in one
//! transaction after a backup, refused while opencode has the database open or a writer holds
//! it, and undone. (opencode itself resuming what condense wrote: `agents::opencode`.)

use std::path::{Path, PathBuf};

use crate::util::{condense, condense_ok, condense_text, fixture, json_lines, stderr};

const TURNS: &str = "ses_dbdc535e8ffe5HFN9TBZwRoHKG";
const COMPACTED: &str = "ses_dbdc40a00ffedRji45t55ZECSd";
const TWICE: &str = "ses_dbdc1f885ffe1ifA1JLs4Mr0aM";

/// A copy of the fixture database at `dir/opencode/opencode.db` (so that `dir` is an
/// `XDG_DATA_HOME`).
fn database(dir: &Path) -> PathBuf {
    let folder = dir.join("opencode");
    std::fs::create_dir_all(&folder).unwrap();
    let db = folder.join("opencode.db");
    std::fs::copy(fixture("agents/opencode/opencode.db"), &db).unwrap();
    db
}

fn session(db: &Path, id: &str) -> String {
    format!("{}#{id}", db.display())
}

/// Waits (up to 30 s, for a loaded machine) until process `pid` has `db` open.
fn wait_until_open(pid: u32, db: &Path) {
    let db = std::fs::canonicalize(db).unwrap();
    let fds = PathBuf::from(format!("/proc/{pid}/fd"));
    for _ in 0..3000 {
        let open = std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == db));
        if open {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("process {pid} never opened {}", db.display());
}

/// The session's messages and parts, as rows.
fn rows(db: &Path, id: &str) -> Vec<(String, String)> {
    let connection = rusqlite::Connection::open(db).unwrap();
    let mut rows = Vec::new();
    for table in ["message", "part"] {
        let mut query = connection
            .prepare(&format!(
                "SELECT id, data FROM {table} WHERE session_id = ?1 ORDER BY id"
            ))
            .unwrap();
        let found = query
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap();
        rows.extend(found.map(Result::unwrap));
    }
    rows
}

#[test]
fn sessions_and_the_agent_place_list_each_session_of_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let listed = condense()
        .args(["sessions", "--agent", "opencode"])
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    // Newest first, by the session's time_updated.
    let expected: Vec<String> = [TWICE, COMPACTED, TURNS]
        .iter()
        .map(|id| session(&db, id))
        .collect();
    assert_eq!(listed.lines().collect::<Vec<_>>(), expected);
    // The database named alone stands for its sessions.
    let named = condense_text(&["sessions", db.to_str().unwrap()]);
    assert_eq!(named.lines().count(), 3);
    let latest = condense()
        .args(["estimate", "--latest", "--agent", "opencode"])
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    let report = &json_lines(&latest.stdout)[0];
    assert_eq!(report["file"], session(&db, TWICE));
    assert_eq!(report["format"], "opencode");
    let by_id = condense()
        .args(["history", "--agent", "opencode", "--session", "ses_dbdc40"])
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(json_lines(&by_id.stdout).len(), 1, "{}", stderr(&by_id));
    // Every session of a database named to estimate, one report each, then the total.
    let all = json_lines(&condense_ok(&["estimate", db.to_str().unwrap()]));
    assert_eq!(all.len(), 4);
    assert_eq!(all[3]["files"], 3);
}

#[test]
fn every_reading_command_reads_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let name = session(&db, COMPACTED);
    for command in [
        &["estimate"][..],
        &["split"],
        &["prompt"],
        &["caveman"],
        &["bare"],
        &["history"],
        &["eval"],
    ] {
        let mut args = command.to_vec();
        args.push(&name);
        let text = condense_text(&args);
        assert!(!text.trim().is_empty(), "{command:?} printed nothing");
    }
    // opencode's own summary is what the live context starts from.
    let prompt = condense_text(&["prompt", &name]);
    assert!(prompt.contains("MOCK-SUMMARY up to OC-OLD-Q1"));
    assert!(
        !prompt.contains("OC-OLD-Q1: list"),
        "a summarised request is in the prompt"
    );
    // Reading leaves nothing beside the database.
    let beside: Vec<_> = std::fs::read_dir(db.parent().unwrap()).unwrap().collect();
    assert_eq!(beside.len(), 1);
}

#[test]
fn a_write_back_is_one_transaction_with_a_backup_and_undo_puts_the_rows_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let before = rows(&db, TURNS);
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "CONDENSE-SUMMARY: the work so far.").unwrap();
    let name = session(&db, TURNS);
    let written = condense()
        .args(["inject", "--in-place", "--preserve", "1", "--summary"])
        .arg(&summary)
        .arg(&name)
        .output()
        .unwrap();
    assert!(written.status.success(), "{}", stderr(&written));
    assert!(
        stderr(&written).contains("2 message(s) added"),
        "{}",
        stderr(&written)
    );
    let after = rows(&db, TURNS);
    assert_eq!(after.len(), before.len() + 4, "two messages, one part each");
    assert!(
        before.iter().all(|row| after.contains(row)),
        "a row changed"
    );
    let backups: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".condense-backup"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    // condense reads its own write as opencode does: the summary, then the kept turn.
    let history = json_lines(&condense_ok(&["history", &name]));
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["summary"], "CONDENSE-SUMMARY: the work so far.");
    condense_ok(&["undo", &name]);
    assert_eq!(rows(&db, TURNS), before);
    // Nothing left to undo.
    assert!(!condense()
        .args(["undo", &name])
        .output()
        .unwrap()
        .status
        .success());
}

#[test]
fn a_write_is_refused_while_a_writer_holds_the_database_or_opencode_has_it_open() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "S").unwrap();
    let name = session(&db, TURNS);
    let inject = || {
        condense()
            .args(["inject", "--in-place", "--summary"])
            .arg(&summary)
            .arg(&name)
            .output()
            .unwrap()
    };
    let before = rows(&db, TURNS);
    {
        let mut writer = rusqlite::Connection::open(&db).unwrap();
        let held = writer
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        let refused = inject();
        assert!(!refused.status.success());
        assert!(
            stderr(&refused).contains("another process is writing"),
            "{}",
            stderr(&refused)
        );
        held.rollback().unwrap();
    }
    // A process named opencode with the database open (a shell under that name).
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opencode = bin.join("opencode");
    std::os::unix::fs::symlink("/bin/sh", &opencode).unwrap();
    let mut holder = std::process::Command::new(&opencode)
        .arg("-c")
        .arg("exec 3<\"$1\"; sleep 30")
        .arg("opencode")
        .arg(&db)
        .spawn()
        .unwrap();
    wait_until_open(holder.id(), &db);
    let refused = inject();
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("has the database open"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(rows(&db, TURNS), before);
}
