//! New message lists: kimi-cli's `context.jsonl` (OpenAI-style messages between a `_checkpoint`
//! 0, which kimi's `/undo` returns to, and a `_usage` record with an estimate of four bytes a
//! token, which kimi resumes its token count from), and Anthropic Messages API lists (content
//! as text blocks, the shape that tells them apart from OpenAI lists).

use anyhow::Result;
use serde_json::json;

use crate::transcript::handoff::{Session, Speaker};
use crate::transcript::write::{push_line, Sink};

fn role(speaker: Speaker) -> &'static str {
    match speaker {
        Speaker::User => "user",
        Speaker::Assistant => "assistant",
    }
}

/// Writes `session` as a kimi-cli `context.jsonl`.
pub fn write_kimi(session: &Session, out: &mut Sink) -> Result<()> {
    push_line(out, br#"{"role": "_checkpoint", "id": 0}"#);
    let mut bytes = 0;
    for turn in session.turns {
        let line = json!({ "role": role(turn.speaker), "content": turn.text });
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

/// Writes `session` as Anthropic Messages API messages.
pub fn write_anthropic(session: &Session, out: &mut Sink) -> Result<()> {
    for turn in session.turns {
        let line = json!({
            "role": role(turn.speaker),
            "content": [{ "type": "text", "text": turn.text }],
        });
        push_line(out, &serde_json::to_vec(&line)?);
    }
    Ok(())
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

    #[test]
    fn anthropic_lists_use_text_blocks() {
        let lines = written(FormatId::Anthropic);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["content"][0]["type"], "text");
        reads_back(FormatId::Anthropic);
    }
}
