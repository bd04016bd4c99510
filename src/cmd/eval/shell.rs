//! The `--cmd` summarisers: a shell command run on the prefix, written to a temporary file of
//! its own (its path in `$CONDENSE_PREFIX`, its bytes on standard input), with the user's
//! instructions for the compaction in `$CONDENSE_INSTRUCTIONS`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};

use crate::output::sanitize;

/// A `--cmd` summariser.
pub struct Shell {
    pub name: String,
    pub command: String,
}

/// The prefix, written to a file of its own in the temporary directory for the `--cmd`
/// summarisers, and removed when dropped.
pub struct PrefixFile(PathBuf);

impl PrefixFile {
    pub fn write(bytes: &[u8]) -> Result<Self> {
        static SERIAL: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir();
        loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(
                "condense-eval-{}-{serial}.jsonl",
                std::process::id()
            ));
            // create_new: a file someone else left there is never written over.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let file_path = PrefixFile(path);
                    file.write_all(bytes).with_context(|| {
                        format!("{}: cannot write the prefix", file_path.0.display())
                    })?;
                    return Ok(file_path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => bail!("{}: cannot write the prefix: {e}", path.display()),
            }
        }
    }

    /// Runs a summariser on the prefix and returns its standard output; the user's
    /// instructions for the compaction, if any, are in `$CONDENSE_INSTRUCTIONS` (empty if none).
    pub fn run(&self, shell: &Shell, instructions: Option<&str>) -> Result<String> {
        let stdin = std::fs::File::open(&self.0)
            .with_context(|| format!("{}: cannot read the prefix", self.0.display()))?;
        let output = Command::new("sh")
            .arg("-c")
            .arg(&shell.command)
            .env("CONDENSE_PREFIX", &self.0)
            .env("CONDENSE_INSTRUCTIONS", instructions.unwrap_or(""))
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .with_context(|| format!("--cmd {}: cannot run sh", shell.name))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or("").trim();
            bail!(
                "--cmd {} failed ({}){}",
                shell.name,
                output.status,
                if first.is_empty() {
                    String::new()
                } else {
                    format!(": {}", sanitize(first))
                }
            );
        }
        String::from_utf8(output.stdout)
            .map_err(|_| anyhow::anyhow!("--cmd {}: its output is not UTF-8", shell.name))
    }
}

impl Drop for PrefixFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
