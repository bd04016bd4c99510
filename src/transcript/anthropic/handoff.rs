//! A new Anthropic Messages API list: content as text blocks, the shape that tells it apart
//! from an OpenAI list.

use anyhow::Result;
use serde_json::json;

use super::Anthropic;
use crate::transcript::handoff::{Handoff, Session};
use crate::transcript::write::{push_line, Sink};

impl Handoff for Anthropic {
    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        for turn in session.turns {
            let line = json!({
                "role": turn.speaker.role(),
                "content": [{ "type": "text", "text": turn.text }],
            });
            push_line(out, &serde_json::to_vec(&line)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn anthropic_lists_use_text_blocks() {
        let lines = written(FormatId::Anthropic);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["content"][0]["type"], "text");
        reads_back(FormatId::Anthropic);
    }
}
