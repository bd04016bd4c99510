//! Format detection pinned on every session under `fixtures/`: what [`detect_format`] answers
//! for each whole file, for each of its lines alone, and for the first lines of one file
//! followed by the first lines of another (the mixed-input refusal). The answers in
//! `fixtures/golden/detection.txt` were written by the detection that parsed each line into a
//! `serde_json::Value` (commit "detection golden" on branch mem33); detection since reads a
//! [`super::sketch::Sketch`] of each line and must give every one of them again.
//! `CONDENSE_BLESS=1` rewrites the file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::read::detect_format;
use crate::input::lines;

/// Every `.jsonl` file under `fixtures/`, sorted, as paths relative to the crate.
fn sessions() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                found.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    walk(&root.join("fixtures"), &mut found);
    found.sort();
    found
        .into_iter()
        .map(|path| path.strip_prefix(root).unwrap().to_owned())
        .collect()
}

/// Detection's answer for `bytes`, as one line of text: the format, `none`, or the error.
fn answer(bytes: &[u8]) -> String {
    match detect_format("in", lines(bytes, 1)) {
        Ok(Some(id)) => id.as_str().to_owned(),
        Ok(None) => "none".to_owned(),
        Err(error) => format!("error: {error:#}"),
    }
}

/// The first `count` non-blank lines of `bytes`, each with its newline.
fn first_lines(bytes: &[u8], count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.trim_ascii().is_empty())
        .take(count)
    {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// Every answer, as the golden file holds them: runs of equal per-line answers are folded
/// into one row (`lines 3-40: pi`).
fn all_answers() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<(PathBuf, Vec<u8>)> = sessions()
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(root.join(&path)).unwrap();
            (path, bytes)
        })
        .collect();
    let mut out = String::new();
    for (path, bytes) in &files {
        writeln!(out, "{}: {}", path.display(), answer(bytes)).unwrap();
        let mut run: Option<(usize, usize, String)> = None;
        let flush = |run: &mut Option<(usize, usize, String)>, out: &mut String| {
            if let Some((from, to, said)) = run.take() {
                writeln!(out, "  lines {from}-{to}: {said}").unwrap();
            }
        };
        for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.trim_ascii().is_empty() {
                continue;
            }
            let said = answer(line);
            match &mut run {
                Some((_, to, same)) if *same == said => *to = index + 1,
                _ => {
                    flush(&mut run, &mut out);
                    run = Some((index + 1, index + 1, said));
                }
            }
        }
        flush(&mut run, &mut out);
        for (other, other_bytes) in &files {
            let mut mixed = first_lines(bytes, 3);
            mixed.extend(first_lines(other_bytes, 3));
            writeln!(out, "  then {}: {}", other.display(), answer(&mixed)).unwrap();
        }
    }
    out
}

#[test]
fn detection_answers_as_it_always_did_on_every_fixture_session() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden/detection.txt");
    let now = all_answers();
    if std::env::var_os("CONDENSE_BLESS").is_some() {
        std::fs::write(&golden, &now).unwrap();
    }
    let before = std::fs::read_to_string(&golden).unwrap();
    for (line, (now, before)) in now.lines().zip(before.lines()).enumerate() {
        assert_eq!(now, before, "fixtures/golden/detection.txt:{}", line + 1);
    }
    assert_eq!(now.lines().count(), before.lines().count());
}
