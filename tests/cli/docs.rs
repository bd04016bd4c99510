//! The documentation stays in step with the program: `--help` output is pinned by golden files
//! (regenerate with `CONDENSE_BLESS=1 cargo test`), the man pages in `man/` are what the
//! generator makes of the clap definitions and `src/manual/sections/` (the same variable
//! rewrites them), and every long option of a command appears in its man page and the other way
//! round.

use std::collections::BTreeSet;
use std::path::Path;

use clap::CommandFactory;

use crate::util::{assert_success, check_golden, condense, fixture, run_ok};

fn help(args: &[&str]) -> String {
    let output = run_ok(condense().args(args).arg("--help"));
    String::from_utf8(output.stdout).unwrap()
}

/// `--help` output against its golden file.
fn check_help_golden(name: &str, actual: &str) {
    check_golden(
        &fixture(&format!("golden/{name}")),
        actual,
        "review the --help text",
    );
}

/// Every command.
const COMMANDS: [&str; 16] = [
    "estimate",
    "split",
    "prompt",
    "inject",
    "prune",
    "caveman",
    "bare",
    "history",
    "eval",
    "compact",
    "sessions",
    "doctor",
    "undo",
    "completions",
    "man",
    "recipes",
];

#[test]
fn help_texts_match_their_golden_files() {
    check_help_golden("help.txt", &help(&[]));
    for command in COMMANDS {
        check_help_golden(&format!("help-{command}.txt"), &help(&[command]));
    }
}

/// `-h` is a page a reader takes in at a glance on an 80-column terminal: it wraps to the
/// terminal's width (COLUMNS, as clap reads it when stdout is not a terminal) and leaves the
/// rarer flags to `--help`.
#[test]
fn short_help_fits_an_80_column_terminal_in_about_40_lines() {
    for command in COMMANDS {
        for flag in ["-h", "--help"] {
            let output = run_ok(condense().env("COLUMNS", "80").args([command, flag]));
            let text = String::from_utf8(output.stdout).unwrap();
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "condense {command} {flag}: a line of {} columns: {line}",
                    line.chars().count()
                );
            }
            if flag == "-h" {
                let lines = text.lines().count();
                assert!(lines <= 42, "condense {command} -h: {lines} lines");
            }
        }
    }
}

/// Long options (`--name`) mentioned in a text; roff escapes dashes as `\-`.
fn long_options(text: &str) -> BTreeSet<String> {
    let text = text.replace("\\-", "-");
    let mut options = BTreeSet::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("--") {
        let name: String = rest[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.len() > 1 && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            options.insert(name);
        }
        rest = &rest[i + 2..];
    }
    options
}

#[test]
fn man_pages_document_exactly_the_options_of_help() {
    for (page, args) in [
        ("condense.1", vec![]),
        ("condense-estimate.1", vec!["estimate"]),
        ("condense-split.1", vec!["split"]),
        ("condense-prompt.1", vec!["prompt"]),
        ("condense-inject.1", vec!["inject"]),
        ("condense-prune.1", vec!["prune"]),
        ("condense-caveman.1", vec!["caveman"]),
        ("condense-bare.1", vec!["bare"]),
        ("condense-history.1", vec!["history"]),
        ("condense-eval.1", vec!["eval"]),
        ("condense-compact.1", vec!["compact"]),
        ("condense-sessions.1", vec!["sessions"]),
        ("condense-doctor.1", vec!["doctor"]),
        ("condense-undo.1", vec!["undo"]),
        ("condense-completions.1", vec!["completions"]),
        ("condense-man.1", vec!["man"]),
        ("condense-recipes.1", vec!["recipes"]),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("man")
            .join(page);
        let man = std::fs::read_to_string(&path).unwrap();
        assert!(man.starts_with(".TH "), "{page} is a roff man page");
        let in_help = long_options(&help(&args));
        let in_man = long_options(&man);
        let missing: Vec<_> = in_help.difference(&in_man).collect();
        assert!(missing.is_empty(), "{page} lacks {missing:?}");
        if !args.is_empty() {
            let stale: Vec<_> = in_man.difference(&in_help).collect();
            assert!(
                stale.is_empty(),
                "{page} documents options --help lacks: {stale:?}"
            );
        }
    }
}

/// The committed man pages are the generated ones, text for text: a changed `///` doc, flag,
/// default or hand-written section that is not regenerated fails here (`CONDENSE_BLESS=1`
/// rewrites them, and removes a page no command has any more).
#[test]
fn man_pages_are_what_the_generator_makes_of_the_command_line() {
    let pages = condense::manual::pages(condense::cli::Cli::command()).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let committed: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".1"))
        .collect();
    let generated: BTreeSet<String> = pages.iter().map(|page| page.file.clone()).collect();
    if std::env::var_os("CONDENSE_BLESS").is_some() {
        for stale in committed.difference(&generated) {
            std::fs::remove_file(dir.join(stale)).unwrap();
        }
    } else {
        assert_eq!(
            committed, generated,
            "man/ holds a page no command has, or lacks one; rerun with CONDENSE_BLESS=1"
        );
    }
    for page in &pages {
        for section in [".SH EXAMPLES", ".SH SEE ALSO"] {
            assert!(
                page.text.contains(section),
                "{} has no {section} (src/manual/sections/)",
                page.file
            );
        }
        check_golden(
            &dir.join(&page.file),
            &page.text,
            "the page is generated from src/cli.rs and src/manual/sections/; review the change",
        );
    }
}

/// Every page reads as a man page: groff (when installed) renders it without a warning.
#[test]
fn man_pages_render_without_warnings() {
    let Ok(probe) = std::process::Command::new("groff")
        .arg("--version")
        .output()
    else {
        assert!(std::env::var_os("CI").is_none(), "CI must have groff");
        crate::util::say_skipped("groff is not installed");
        return;
    };
    assert!(probe.status.success());
    for page in condense::manual::pages(condense::cli::Cli::command()).unwrap() {
        let output = std::process::Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(page.text.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        assert_success(&output, &page.file);
        assert!(
            output.stderr.is_empty(),
            "{}: {}",
            page.file,
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
