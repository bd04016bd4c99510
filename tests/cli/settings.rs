//! Presets, the config file and `--max-context auto`: flags win over the file, the file over a
//! preset; a bad file names its line and key; unknown models are an error, not a guess.

use std::path::Path;

use serde_json::Value;

use crate::util::{assert_success, condense, fixture, json_lines};

const PI: &str = "corpus/pi/pi-mono-large-session.jsonl";

/// `condense ARGS` run in `dir` with HOME there too (so no user config leaks in).
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    condense()
        .current_dir(dir)
        .env("HOME", dir)
        .args(args)
        .output()
        .unwrap()
}

fn report(output: &std::process::Output) -> Value {
    assert!(
        output.status.success() || output.status.code() == Some(3),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    json_lines(&output.stdout).remove(0)
}

#[test]
fn presets_set_the_trigger_and_flags_override_them() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture(PI);
    let session = session.to_str().unwrap();
    // The pi session's context is about 177,657 tokens of a 200,000 window.
    let due = |args: &[&str]| {
        let mut all = vec!["estimate", "--check", "--max-context", "200000"];
        all.extend_from_slice(args);
        all.push(session);
        run_in(dir.path(), &all).status.code()
    };
    assert_eq!(
        due(&["--preset", "kimi"]),
        Some(3),
        "0.85 and 50000 reserved"
    );
    assert_eq!(
        due(&["--preset", "codex"]),
        Some(0),
        "0.9, nothing reserved"
    );
    assert_eq!(
        due(&["--preset", "codex", "--trigger-ratio", "0.8"]),
        Some(3),
        "a flag wins"
    );
    // acf's own window is 8000: --check needs no --max-context.
    let acf = run_in(
        dir.path(),
        &["estimate", "--check", "--preset", "acf", session],
    );
    assert_eq!(acf.status.code(), Some(3));
    assert_eq!(report(&acf)["compaction"]["max_context"], 8000);
    let unknown = run_in(dir.path(), &["estimate", "--preset", "nope", session]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown preset \"nope\""));
    // What a compaction keeps follows the preset, unless a plan flag says otherwise.
    let mode = |args: &[&str]| {
        let mut all = vec!["split"];
        all.extend_from_slice(args);
        all.push(session);
        report(&run_in(dir.path(), &all))["mode"].clone()
    };
    assert_eq!(mode(&["--preset", "kimi-code"])["name"], "user");
    assert_eq!(mode(&["--preset", "kimi-code"])["keep_user_tokens"], 20000);
    assert_eq!(mode(&["--preset", "gemini"])["name"], "budgets");
    assert_eq!(
        mode(&["--preset", "gemini", "--preserve", "4"])["preserve"],
        4
    );
}

#[test]
fn the_config_file_sits_between_the_flags_and_the_presets() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture(PI);
    let session = session.to_str().unwrap();
    std::fs::write(
        dir.path().join(".condense.toml"),
        "[compaction]\npreset = \"codex\"\nreserved = 30000\nmax_context = 200000\nmax_preserved_messages = 3\n",
    )
    .unwrap();
    let estimate = report(&run_in(dir.path(), &["estimate", "--check", session]));
    let trigger = &estimate["compaction"];
    assert_eq!(trigger["trigger_ratio"], 0.9, "the file's preset");
    assert_eq!(trigger["reserved"], 30000, "the file over its preset");
    assert_eq!(
        trigger["due"], true,
        "177,657 + 30,000 reserved reach 200,000"
    );
    let flagged = report(&run_in(
        dir.path(),
        &["estimate", "--reserved", "0", session],
    ));
    assert_eq!(
        flagged["compaction"]["due"], false,
        "the flag over the file"
    );
    let plan = report(&run_in(dir.path(), &["split", session]));
    assert_eq!(
        plan["mode"],
        serde_json::json!({"name": "tail", "preserve": 3})
    );
    // The user's config dir is read when the working directory has none.
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join(".config/condense");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("config.toml"),
        "[compaction]\nmax_context = 1000000\n",
    )
    .unwrap();
    let output = condense()
        .current_dir(home.path())
        .env("HOME", home.path())
        .args(["estimate", session])
        .output()
        .unwrap();
    assert_eq!(report(&output)["compaction"]["max_context"], 1_000_000);
}

#[test]
fn enabled_false_is_never_due_and_a_bad_file_names_its_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture(PI);
    let session = session.to_str().unwrap();
    let config = dir.path().join(".condense.toml");
    std::fs::write(&config, "[compaction]\nenabled = false\n").unwrap();
    let off = run_in(
        dir.path(),
        &["estimate", "--check", "--max-context", "1000", session],
    );
    assert_eq!(off.status.code(), Some(0));
    assert_eq!(report(&off)["compaction"]["enabled"], false);
    std::fs::write(&config, "[compaction]\nenabled = true\n\nreserve = 5\n").unwrap();
    let bad = run_in(dir.path(), &["estimate", session]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(stderr.contains(".condense.toml:4:"), "{stderr}");
    assert!(stderr.contains("reserve"), "{stderr}");
    // The error in one line, after the note that the working directory's file is read.
    let errors: Vec<_> = stderr
        .lines()
        .filter(|l| !l.starts_with("condense: note:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
}

#[test]
fn max_context_auto_takes_the_window_of_the_recorded_model() {
    let dir = tempfile::tempdir().unwrap();
    for (file, model, window) in [
        (
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
            "claude-opus-4-5-20251101",
            200_000,
        ),
        (
            "corpus/pi/pi-mono-large-session.jsonl",
            "claude-sonnet-4-5",
            200_000,
        ),
        (
            "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
            "gemini-3-flash-preview",
            1_048_576,
        ),
    ] {
        let path = fixture(file);
        let output = run_in(
            dir.path(),
            &["estimate", "--max-context", "auto", path.to_str().unwrap()],
        );
        let trigger = report(&output)["compaction"].clone();
        assert_eq!(trigger["model"], model, "{file}");
        assert_eq!(trigger["max_context"], window, "{file}");
        let tokens = report(&output)["context"]["tokens"].as_u64().unwrap();
        assert_eq!(trigger["tokens_left"], window - tokens, "{file}");
        let percent = trigger["percent_used"].as_f64().unwrap();
        assert!(
            (percent - tokens as f64 * 100.0 / window as f64).abs() < 0.06,
            "{file}"
        );
    }
    // No model recorded, or one the table does not know: an error, not a guess.
    let kimi = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let none = run_in(
        dir.path(),
        &["estimate", "--max-context", "auto", kimi.to_str().unwrap()],
    );
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("records no model"));
    let session = dir.path().join("s.jsonl");
    let text =
        std::fs::read_to_string(fixture("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl"))
            .unwrap()
            .replace("gemini-3-flash-preview", "house-model-7");
    std::fs::write(&session, text).unwrap();
    let unknown = run_in(
        dir.path(),
        &["estimate", "--max-context", "auto", "s.jsonl"],
    );
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("\"house-model-7\" is not known"));
    std::fs::write(
        dir.path().join(".condense.toml"),
        "[models]\n\"house-model-7\" = 32768\n",
    )
    .unwrap();
    let known = run_in(
        dir.path(),
        &["estimate", "--max-context", "auto", "s.jsonl"],
    );
    assert_eq!(report(&known)["compaction"]["max_context"], 32768);
}

#[test]
fn the_config_file_names_the_prompt_the_model_and_request_settings() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ours.md"), "OUR-PROMPT-BODY").unwrap();
    std::fs::write(
        dir.path().join(".condense.toml"),
        "[compaction]\nprompt = \"ours.md\"\ncompaction_model = \"kimi-k2\"\nsettings_overrides = { temperature = 0.2 }\n",
    )
    .unwrap();
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let session = session.to_str().unwrap();
    let text = run_in(dir.path(), &["prompt", session]);
    assert!(String::from_utf8_lossy(&text.stdout).ends_with("OUR-PROMPT-BODY"));
    let styled = run_in(dir.path(), &["prompt", "--style", "caveman", session]);
    assert!(
        !String::from_utf8_lossy(&styled.stdout).contains("OUR-PROMPT-BODY"),
        "a flag wins"
    );
    let body = report(&run_in(
        dir.path(),
        &["prompt", "--format", "openai", session],
    ));
    assert_eq!(body["model"], "kimi-k2");
    assert_eq!(body["temperature"], 0.2);
    let flagged = report(&run_in(
        dir.path(),
        &["prompt", "--format", "openai", "--model", "m", session],
    ));
    assert_eq!(flagged["model"], "m");
}

/// Issue 31: a config file is data, not trust.
mod trust {
    use super::*;

    fn session() -> String {
        fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl")
            .to_str()
            .unwrap()
            .to_owned()
    }

    fn config(dir: &Path, text: &str) {
        std::fs::write(dir.join(".condense.toml"), text).unwrap();
    }

    #[track_caller]
    fn refused(output: &std::process::Output, text: &str) {
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(err.contains(text), "expected {text:?} in {err}");
        assert!(output.stdout.is_empty(), "nothing printed");
    }

    #[test]
    fn a_prompt_outside_the_config_files_folder_is_refused_by_any_name() {
        let outer = tempfile::tempdir().unwrap();
        std::fs::write(outer.path().join("secret.md"), "SECRET-BODY").unwrap();
        let dir = outer.path().join("project");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.md"), dir.join("link.md")).unwrap();
        let absolute = outer.path().join("secret.md");
        for prompt in [
            "/etc/passwd",
            "../secret.md",
            "link.md",
            absolute.to_str().unwrap(),
        ] {
            config(&dir, &format!("[compaction]\nprompt = {prompt:?}\n"));
            for command in [&["prompt"][..], &["compact", "--llm", "cat"]] {
                let mut args = command.to_vec();
                let session = session();
                args.push(&session);
                let output = run_in(&dir, &args);
                refused(&output, "is outside the config file's folder");
                assert!(!String::from_utf8_lossy(&output.stderr).contains("SECRET"));
            }
        }
        // The explicit flag is the way to use such a file.
        let flagged = run_in(
            &dir,
            &[
                "prompt",
                "--prompt-file",
                absolute.to_str().unwrap(),
                &session(),
            ],
        );
        assert!(String::from_utf8_lossy(&flagged.stdout).ends_with("SECRET-BODY"));
    }

    #[test]
    fn a_prompt_inside_is_used_and_announced_and_the_local_file_too() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("prompts")).unwrap();
        std::fs::write(dir.path().join("prompts/ours.md"), "OUR-BODY").unwrap();
        config(dir.path(), "[compaction]\nprompt = \"prompts/ours.md\"\n");
        let output = run_in(dir.path(), &["prompt", &session()]);
        assert_success(&output, "");
        assert!(String::from_utf8_lossy(&output.stdout).ends_with("OUR-BODY"));
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains(
                "condense: note: reading ./.condense.toml, the working directory's config file"
            ),
            "{err}"
        );
        assert!(
            err.contains("condense: note: the prompt body is ./prompts/ours.md")
                || err.contains("condense: note: the prompt body is prompts/ours.md"),
            "{err}"
        );
        assert_eq!(err.matches("note:").count(), 2, "each said once: {err}");
        // A user's own config file is not announced.
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".config/condense")).unwrap();
        std::fs::write(home.path().join(".config/condense/config.toml"), "").unwrap();
        let quiet = condense()
            .current_dir(home.path())
            .env("HOME", home.path())
            .args(["estimate", &session()])
            .output()
            .unwrap();
        assert!(quiet.status.success() && quiet.stderr.is_empty());
    }

    #[test]
    fn a_fifo_as_the_prompt_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p.md");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        config(dir.path(), "[compaction]\nprompt = \"p.md\"\n");
        let started = std::time::Instant::now();
        let output = condense()
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .args(["prompt", &session()])
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        refused(&output, "the prompt file is not a regular file");
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn settings_overrides_cannot_add_tools_or_replace_the_messages() {
        let dir = tempfile::tempdir().unwrap();
        for (text, word) in [
            (
                "settings_overrides = { tools = [{ type = \"function\" }] }",
                "\"tools\"",
            ),
            (
                "settings_overrides = { tool_choice = \"required\" }",
                "\"tool_choice\"",
            ),
            ("settings_overrides = { messages = [] }", "\"messages\""),
            (
                "settings_overrides = { model = \"other\" }",
                "compaction_model",
            ),
        ] {
            config(dir.path(), &format!("[compaction]\n{text}\n"));
            let output = run_in(dir.path(), &["prompt", "--format", "openai", &session()]);
            refused(&output, ".condense.toml:2: settings_overrides: ");
            refused(&output, word);
        }
    }
}
