//! A session measured as it is written, never held whole: the writer runs on a thread of its
//! own and writes into a pipe that `estimate`'s streamed measure ([`measure_file`]) reads, so a
//! rung the ladder passes over costs a pipe's buffer, not a second copy of the session
//! (issue 33: `compact --budget` at most twice its input).

use std::io::{BufWriter, Write};

use anyhow::{anyhow, Result};

use crate::measure::file::{measure_file, FileOptions};
use crate::tokens::{Estimator, Tokenizer};
use crate::transcript::FormatId;

/// How many bytes the writer gathers before it writes into the pipe.
const CHUNK: usize = 1 << 16;

/// The live context's size of the session `write` writes, in format `from`, as `estimate`
/// reports it for the file: read back by its agent's rule, by `tokenizer`. `name` is the
/// input's, for messages.
pub fn written_size<W>(
    name: &str,
    from: Option<FormatId>,
    tokenizer: Tokenizer,
    write: W,
) -> Result<u64>
where
    W: FnOnce(&mut dyn Write) -> Result<()> + Send,
{
    let options = FileOptions {
        from,
        // A malformed line in what was written is one the input had, let through by
        // --skip-invalid (the read fails on it otherwise) and kept as it was.
        skip_invalid: true,
        estimator: Estimator::Given(tokenizer),
        per_message: false,
        whole_file: false,
        model: false,
        explain: false,
    };
    let (reader, pipe) = std::io::pipe()?;
    let (written, measured) = std::thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let mut out = BufWriter::with_capacity(CHUNK, pipe);
            write(&mut out)?;
            out.flush()?;
            Ok::<_, anyhow::Error>(())
        });
        // The reader is dropped when the measure returns, so a writer still at work gets a
        // broken pipe rather than waiting for a reader that is gone.
        let measured = measure_file(name, reader, &options);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(anyhow!("the writer of the session measured panicked")));
        (written, measured)
    });
    // The writer's error first: the measure of a session cut short says nothing.
    written?;
    Ok(measured?.measure.context().tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::context::context_size;
    use crate::transcript::load::{LoadOptions, Transcript};

    #[test]
    fn a_streamed_session_measures_as_the_file_does() {
        let mut text = String::new();
        for i in 0..3000 {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let content = format!("message {i} {}", "word ".repeat(i % 50));
            text.push_str(&serde_json::json!({"role": role, "content": content}).to_string());
            text.push('\n');
        }
        // Over several chunks, so the hand-over between them is measured too.
        assert!(text.len() > 3 * CHUNK);
        let transcript = Transcript::parse("s", text.as_bytes(), LoadOptions::default()).unwrap();
        let whole = context_size(&transcript, Tokenizer::Chars4);
        let streamed = written_size("s", None, Tokenizer::Chars4, |out| {
            // In small writes, as a writer makes them, and one larger than a chunk.
            let (head, rest) = text.as_bytes().split_at(2 * CHUNK + 7);
            for line in head.chunks(1000) {
                out.write_all(line)?;
            }
            Ok(out.write_all(rest)?)
        })
        .unwrap();
        assert_eq!(streamed, whole);
    }

    #[test]
    fn a_writers_error_is_the_answer() {
        let error = written_size("s", None, Tokenizer::Chars4, |out| {
            out.write_all(b"{\"role\":\"user\",\"content\":\"a\"}\n")?;
            Err(anyhow!("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "disk on fire");
    }
}
