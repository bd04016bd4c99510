//! `CONDENSE_TRACE=parses`: each command reads and parses its session once and reads the
//! config file once, however far down the ladder `compact` goes and however `inject` finds the
//! session (issue 28).

use std::path::Path;

use crate::util::{condense, fixture};

/// FNV-1a (64 bits), as the trace prints it.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The trace lines of a run, and how many parsed `session`'s bytes.
struct Trace {
    lines: Vec<String>,
    session_parses: usize,
}

impl Trace {
    fn of(stderr: &[u8], session: &[u8]) -> Trace {
        let lines: Vec<String> = String::from_utf8_lossy(stderr)
            .lines()
            .filter_map(|line| line.strip_prefix("condense: trace: "))
            .map(str::to_owned)
            .collect();
        let hash = format!("fnv1a {:016x}", fnv1a(session));
        let session_parses = lines
            .iter()
            .filter(|line| line.starts_with("parse ") && line.ends_with(&hash))
            .count();
        Trace {
            lines,
            session_parses,
        }
    }

    fn count(&self, kind: &str) -> usize {
        self.lines.iter().filter(|l| l.starts_with(kind)).count()
    }
}

/// A Claude Code session of the corpus at `dir/s.jsonl`, and a config file beside it.
fn session(dir: &Path) -> Vec<u8> {
    let bytes = std::fs::read(fixture("corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl")).unwrap();
    std::fs::write(dir.join("s.jsonl"), &bytes).unwrap();
    std::fs::write(
        dir.join(".condense.toml"),
        "[compaction]\npreset = \"kimi\"\n",
    )
    .unwrap();
    bytes
}

#[test]
fn compact_down_the_whole_ladder_parses_the_session_once() {
    // An answer far over the budget: the LLM's summary is passed over, and caveman's and
    // bare's are each tried with the plan's tail and without, every session made measured.
    let llm = "cat > /dev/null; yes 'the work so far, as the model wrote it' | head -c 40000";
    for in_place in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let bytes = session(dir.path());
        let mut args = vec!["compact", "--budget", "400", "--llm", llm, "s.jsonl"];
        if in_place {
            args.push("--in-place");
        }
        let output = condense()
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env("CONDENSE_TRACE", "parses")
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains("compact: bare"), "{stderr}");
        let trace = Trace::of(&output.stderr, &bytes);
        assert_eq!(trace.session_parses, 1, "in place: {in_place}: {stderr}");
        assert_eq!(trace.count("config "), 1, "{stderr}");
        // The sessions the rungs made are measured as they are written (issue 33: never held
        // whole), not each parsed: beside the session, one parse of a made session is left
        // (1916 bytes over the input: the one written), where every rung tried was parsed.
        assert!(trace.count("parse ") <= 2, "{stderr}");
    }
}

#[test]
fn inject_in_place_finds_and_parses_the_session_once() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(".claude/projects/-work");
    std::fs::create_dir_all(&project).unwrap();
    let bytes = session(dir.path());
    std::fs::write(project.join("0b1c.jsonl"), &bytes).unwrap();
    std::fs::write(dir.path().join("summary.md"), "NOW: the work so far\n").unwrap();
    let output = condense()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("CONDENSE_TRACE", "parses")
        .args([
            "inject",
            "--summary",
            "summary.md",
            "--in-place",
            "--latest",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let trace = Trace::of(&output.stderr, &bytes);
    assert_eq!(trace.count("found "), 1, "{stderr}");
    assert_eq!(trace.session_parses, 1, "{stderr}");
    assert_eq!(trace.count("config "), 1, "{stderr}");
    // The session written is the compaction, read back once by --verify.
    assert_ne!(std::fs::read(project.join("0b1c.jsonl")).unwrap(), bytes);
    assert_eq!(trace.count("parse "), 2, "{stderr}");
}

#[test]
fn without_the_variable_nothing_is_traced() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path());
    let output = condense()
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .args(["split", "s.jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("trace:"));
}
