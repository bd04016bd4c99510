//! Running the user's LLM command for `compact --llm`: any CLI, through `sh -c`, with the
//! request on its standard input and the compactor's system prompt in `CONDENSE_SYSTEM`
//! (process I/O, beside [`crate::persist`]'s file I/O; the request itself is the core's).
//!
//! The command is a stranger's process tree (a shell, a CLI, its helpers), so it is bounded:
//! it runs in a process group of its own, which is killed whole when it outlives
//! `--llm-timeout`, answers more than the cap, or condense itself gets SIGINT/SIGTERM/SIGHUP
//! (a group of its own does not get the terminal's Ctrl-C, so condense passes it on).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rustix::process::{kill_process_group, Pid, Signal};

use crate::persist::shield;

use crate::request::SYSTEM_PROMPT;

/// The environment variable that holds the compactor's system prompt, for commands such as
/// `llm -s "$CONDENSE_SYSTEM"`.
pub const SYSTEM_VARIABLE: &str = "CONDENSE_SYSTEM";

/// The environment variable that holds the config file's `compaction_model`, when it names one.
pub const MODEL_VARIABLE: &str = "CONDENSE_MODEL";

/// How long and how much the command may answer.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Killed after this long.
    pub timeout: Duration,
    /// Killed when it prints more bytes than this.
    pub max_bytes: u64,
}

impl Limits {
    /// The limits of a command stopped after `timeout`, whose summary may have `tokens`: it may
    /// answer 64 bytes per token (16 times the 4 bytes of an average token), and never under
    /// 1 MiB; 16 MiB when no budget is given.
    pub fn new(timeout: Duration, tokens: Option<u64>) -> Self {
        Limits {
            timeout,
            max_bytes: tokens.map_or(16 << 20, |t| t.saturating_mul(64).max(1 << 20)),
        }
    }
}

/// What `command` prints for `request`. A command that cannot start, fails, is killed, runs
/// too long or answers too much is an error saying so; its standard error goes to ours, so the
/// user sees why.
pub fn summarise(
    command: &str,
    request: &str,
    model: Option<&str>,
    limits: Limits,
) -> Result<Vec<u8>> {
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
    // Its own group, so that everything it starts can be killed at once.
    shell.process_group(0);
    // Signals wait while the command runs, so that its group goes down with condense.
    let held = shield::hold()?;
    let mut child = shell
        .spawn()
        .context("--llm: cannot start the command with sh")?;
    let group = Pid::from_child(&child);
    let mut stdin = child.stdin.take().context("--llm: no standard input")?;
    // A writer thread, so a command that answers before it has read everything cannot
    // deadlock against a full pipe.
    let request = request.to_owned();
    let feeder = std::thread::spawn(move || {
        // A command that stops reading early (it ignores its input) is not our failure.
        let _ = stdin.write_all(request.as_bytes());
    });
    let stdout = child.stdout.take().context("--llm: no standard output")?;
    let max = limits.max_bytes;
    let reader = std::thread::spawn(move || {
        let mut answer = Vec::new();
        // One byte past the cap tells that it was passed, without holding more.
        let read = stdout.take(max + 1).read_to_end(&mut answer);
        read.map(|_| answer)
    });
    let ended = wait(&mut child, &held, limits.timeout, &reader);
    if !matches!(ended, Ended::Exited(_)) {
        let _ = kill_process_group(group, Signal::KILL);
        let _ = child.wait();
    }
    let answer = reader.join().ok().and_then(Result::ok);
    let _ = feeder.join();
    let status = match ended {
        Ended::Exited(status) => status,
        Ended::TimedOut => bail!(
            "--llm: the command was still running after --llm-timeout {} s; it was stopped",
            limits.timeout.as_secs()
        ),
        Ended::Signalled => {
            drop(held);
            bail!("--llm: interrupted; the command was stopped");
        }
        Ended::TooLong => bail!(
            "--llm: the command answered more than {max} bytes (far more than a summary); it \
             was stopped"
        ),
    };
    // Helpers it left behind in its group (a server it started) go with it.
    let _ = kill_process_group(group, Signal::KILL);
    drop(held);
    let answer = answer.context("--llm: cannot read the command's answer")?;
    if answer.len() as u64 > max {
        bail!("--llm: the command answered more than {max} bytes (far more than a summary)");
    }
    if !status.success() {
        match status.code() {
            Some(code) => bail!("--llm: the command failed with exit status {code}"),
            None => bail!("--llm: the command was killed by a signal"),
        }
    }
    Ok(answer)
}

/// How the wait for the command ended.
enum Ended {
    Exited(std::process::ExitStatus),
    TimedOut,
    Signalled,
    TooLong,
}

fn wait(
    child: &mut Child,
    held: &shield::Shield,
    timeout: Duration,
    reader: &std::thread::JoinHandle<std::io::Result<Vec<u8>>>,
) -> Ended {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ended::Exited(status),
            Ok(None) => {}
            Err(_) => return Ended::Signalled,
        }
        if held.pending().is_some() {
            return Ended::Signalled;
        }
        // The reader stops at the cap while the command may go on.
        if reader.is_finished() {
            let status = (0..50).find_map(|_| {
                std::thread::sleep(Duration::from_millis(2));
                child.try_wait().ok().flatten()
            });
            return match status {
                Some(status) => Ended::Exited(status),
                None => Ended::TooLong,
            };
        }
        if started.elapsed() > timeout {
            return Ended::TimedOut;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        timeout: Duration::from_secs(60),
        max_bytes: 1 << 20,
    };

    #[test]
    fn a_command_that_runs_too_long_is_stopped_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("alive");
        // A child of the shell that would outlive it, unless its group is killed.
        let command = format!("(sleep 30; touch {}) & sleep 30", marker.display());
        let limits = Limits {
            timeout: Duration::from_millis(300),
            ..LIMITS
        };
        let started = Instant::now();
        let error = summarise(&command, "", None, limits).unwrap_err();
        assert!(error.to_string().contains("--llm-timeout"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let ps = Command::new("pgrep")
            .args(["-f", "sleep 30; touch"])
            .output()
            .unwrap();
        assert!(ps.stdout.is_empty(), "a child survived");
    }

    #[test]
    fn an_endless_answer_is_cut_at_the_cap() {
        let limits = Limits {
            max_bytes: 4096,
            ..LIMITS
        };
        let error = summarise("yes summary", "", None, limits).unwrap_err();
        assert!(
            error.to_string().contains("more than 4096 bytes"),
            "{error}"
        );
        assert_eq!(summarise("printf 1234", "", None, limits).unwrap(), b"1234");
    }

    #[test]
    fn the_request_goes_in_and_the_answer_comes_out() {
        let out = summarise(
            "tr a-z A-Z; printf ' %s' \"$CONDENSE_SYSTEM\"",
            "hello",
            None,
            LIMITS,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HELLO "));
        assert!(text.ends_with(SYSTEM_PROMPT));
        let model = summarise("printf %s \"$CONDENSE_MODEL\"", "", Some("m1"), LIMITS).unwrap();
        assert_eq!(model, b"m1");
    }

    #[test]
    fn a_failing_command_is_an_error() {
        let error = summarise("cat > /dev/null; exit 7", "x", None, LIMITS).unwrap_err();
        assert!(error.to_string().contains("exit status 7"), "{error}");
        // One that never reads its input still fails cleanly.
        let error = summarise("exit 3", &"y".repeat(1 << 20), None, LIMITS).unwrap_err();
        assert!(error.to_string().contains("exit status 3"), "{error}");
    }
}
