//! `prompt` and `compact --llm` send one request, built in one place: for the same flags and
//! config file they are the same bytes, and the prompt body is the flag's (`--style`), else
//! the config file's, else the structured style's, in both.

use std::path::Path;

use crate::util::{condense, fixture};

/// What `prompt ARGS` prints and what `compact --llm ARGS` sends its command, run in `dir`.
fn requests(dir: &Path, args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let session = session.to_str().unwrap();
    let run = |command: &[&str]| {
        let output = condense()
            .current_dir(dir)
            .env("HOME", dir)
            .args(command)
            .args(args)
            .arg(session)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{command:?} {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    };
    let printed = run(&["prompt"]).stdout;
    let sent = dir.join("sent.txt");
    let _ = std::fs::remove_file(&sent);
    let llm = format!("cat > '{}'; echo 'NOW: the work so far'", sent.display());
    run(&["compact", "--llm", &llm]);
    (printed, std::fs::read(&sent).unwrap())
}

#[test]
fn prompt_and_compact_build_the_same_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ours.md"), "OUR-PROMPT-BODY").unwrap();
    std::fs::write(
        dir.path().join(".condense.toml"),
        "[compaction]\nprompt = \"ours.md\"\n",
    )
    .unwrap();
    for (args, body) in [
        // The config file's prompt, with no flag.
        (&[][..], "OUR-PROMPT-BODY"),
        // An explicit --style beats the config file's prompt, in compact too.
        (&["--style", "caveman"][..], "bare-minimum state dump"),
        (
            &["--style", "structured", "--instructions", "keep the SQL"][..],
            "keep the SQL",
        ),
        (
            &["--max-tokens", "5000", "--preserve", "4"][..],
            "OUR-PROMPT-BODY",
        ),
    ] {
        let (printed, sent) = requests(dir.path(), args);
        assert_eq!(printed, sent, "{args:?}");
        let text = String::from_utf8_lossy(&sent);
        assert!(text.contains(body), "{args:?}: {body:?} not in the request");
        if !args.is_empty() && args[1] == "caveman" {
            assert!(!text.contains("OUR-PROMPT-BODY"), "the flag wins");
        }
    }
}
