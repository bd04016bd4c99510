//! A session measured as it is written, never held whole: the writer writes into
//! [`WrittenMeasure`], which measures each stretch of complete lines as `estimate` measures a
//! file's blocks and keeps only their measures, so a rung the ladder passes over costs a stretch
//! of lines and the records' measures, not a second copy of the session (issue 33: `compact
//! --budget` at most twice its input).

use std::io::Write;

use anyhow::Result;

use crate::measure::kept::Expected;
use crate::measure::written::WrittenMeasure;
use crate::tokens::Tokenizer;
use crate::transcript::FormatId;

/// The live context's size of the session `write` writes, in format `from`, as `estimate`
/// reports it for the file: read back by its agent's rule, by `tokenizer`. `name` is the
/// input's, for messages; `expected`, the records it is known to be made of (the pruned
/// session's are the input's), or none.
pub fn written_size<W>(
    name: &str,
    from: Option<FormatId>,
    tokenizer: Tokenizer,
    expected: Expected,
    write: W,
) -> Result<u64>
where
    W: FnOnce(&mut dyn Write) -> Result<()>,
{
    // A malformed line in what was written is one the input had, let through by
    // --skip-invalid (the read fails on it otherwise) and kept as it was.
    let mut measure = WrittenMeasure::new(name, from, tokenizer, true).expecting(expected);
    // The writer's error first: the measure of a session cut short says nothing.
    write(&mut measure)?;
    Ok(measure.finish()?.measure.context().tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::context::context_size;
    use crate::measure::written::STRETCH;
    use crate::transcript::load::{LoadOptions, Transcript};
    use anyhow::anyhow;

    #[test]
    fn a_streamed_session_measures_as_the_file_does() {
        let mut text = String::new();
        for i in 0..12000 {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let content = format!("message {i} {}", "word ".repeat(i % 120));
            text.push_str(&serde_json::json!({"role": role, "content": content}).to_string());
            text.push('\n');
        }
        // Over several stretches, so the hand-over between them is measured too.
        assert!(text.len() > 3 * STRETCH);
        let transcript = Transcript::parse("s", text.as_bytes(), LoadOptions::default()).unwrap();
        let whole = context_size(&transcript, Tokenizer::Chars4);
        let streamed = written_size("s", None, Tokenizer::Chars4, Expected::default(), |out| {
            // In small writes, as a writer makes them, and one larger than a stretch.
            let (head, rest) = text.as_bytes().split_at(2 * STRETCH + 7);
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
        let error = written_size("s", None, Tokenizer::Chars4, Expected::default(), |out| {
            out.write_all(b"{\"role\":\"user\",\"content\":\"a\"}\n")?;
            Err(anyhow!("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "disk on fire");
    }
}
