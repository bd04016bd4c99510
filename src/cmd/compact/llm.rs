//! Running the user's LLM command for `compact --llm`: any CLI, through `sh -c`, with the
//! request on its standard input and the compactor's system prompt in `CONDENSE_SYSTEM`.

use std::io::Write;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::request::SYSTEM_PROMPT;

/// The environment variable that holds the compactor's system prompt, for commands such as
/// `llm -s "$CONDENSE_SYSTEM"`.
pub const SYSTEM_VARIABLE: &str = "CONDENSE_SYSTEM";

/// The environment variable that holds the config file's `compaction_model`, when it names one.
pub const MODEL_VARIABLE: &str = "CONDENSE_MODEL";

/// What `command` prints for `request`. A command that cannot start, fails, or is killed is an
/// error saying so; its standard error goes to ours, so the user sees why.
pub fn summarise(command: &str, request: &str, model: Option<&str>) -> Result<Vec<u8>> {
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .env(SYSTEM_VARIABLE, SYSTEM_PROMPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(model) = model {
        shell.env(MODEL_VARIABLE, model);
    }
    let mut child = shell
        .spawn()
        .context("--llm: cannot start the command with sh")?;
    let mut stdin = child.stdin.take().context("--llm: no standard input")?;
    // A writer thread, so a command that answers before it has read everything cannot
    // deadlock against a full pipe.
    let request = request.to_owned();
    let feeder = std::thread::spawn(move || {
        // A command that stops reading early (it ignores its input) is not our failure.
        let _ = stdin.write_all(request.as_bytes());
    });
    let output = child
        .wait_with_output()
        .context("--llm: cannot wait for the command")?;
    let _ = feeder.join();
    if !output.status.success() {
        match output.status.code() {
            Some(code) => bail!("--llm: the command failed with exit status {code}"),
            None => bail!("--llm: the command was killed by a signal"),
        }
    }
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_goes_in_and_the_answer_comes_out() {
        let out = summarise(
            "tr a-z A-Z; printf ' %s' \"$CONDENSE_SYSTEM\"",
            "hello",
            None,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HELLO "));
        assert!(text.ends_with(SYSTEM_PROMPT));
        let model = summarise("printf %s \"$CONDENSE_MODEL\"", "", Some("m1")).unwrap();
        assert_eq!(model, b"m1");
    }

    #[test]
    fn a_failing_command_is_an_error() {
        let error = summarise("cat > /dev/null; exit 7", "x", None).unwrap_err();
        assert!(error.to_string().contains("exit status 7"), "{error}");
        // One that never reads its input still fails cleanly.
        let error = summarise("exit 3", &"y".repeat(1 << 20), None).unwrap_err();
        assert!(error.to_string().contains("exit status 3"), "{error}");
    }
}
