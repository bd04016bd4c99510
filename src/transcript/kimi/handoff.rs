//! A new kimi-cli `context.jsonl`: OpenAI-style messages between a `_checkpoint` 0, which
//! kimi's `/undo` returns to, and a `_usage` record with an estimate of four bytes a token,
//! which kimi resumes its token count from.

use anyhow::Result;
use serde_json::json;

use super::Kimi;
use crate::transcript::handoff::{Handoff, Session};
use crate::transcript::write::{push_line, Sink};

impl Handoff for Kimi {
    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        push_line(out, br#"{"role": "_checkpoint", "id": 0}"#);
        let mut bytes = 0;
        for turn in session.turns {
            let line = json!({ "role": turn.speaker.role(), "content": turn.text });
            bytes += turn.text.len();
            push_line(out, &serde_json::to_vec(&line)?);
        }
        let usage = format!(
            r#"{{"role": "_usage", "token_count": {}}}"#,
            bytes.div_ceil(4)
        );
        push_line(out, usage.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn kimi_context_has_a_checkpoint_the_messages_and_a_usage() {
        let lines = written(FormatId::Openai);
        assert_eq!(lines[0]["role"], "_checkpoint");
        assert_eq!(lines[1]["role"], "user");
        assert_eq!(lines[2]["role"], "assistant");
        assert_eq!(lines.last().unwrap()["role"], "_usage");
        assert!(lines.last().unwrap()["token_count"].as_u64().unwrap() > 0);
        reads_back(FormatId::Openai);
    }
}
