//! The context sizes at which an agent compacted before, as the session records them (pure):
//! Claude Code's `compactMetadata.preTokens` on its `compact_boundary` record and pi's
//! `tokensBefore` on its `compaction` entry. Codex records no such figure on its `compacted`
//! item; `estimate` takes the last usage figure before each marker instead. kimi-cli rotates
//! `context.jsonl` when it compacts and sends `tokens_before` only to its telemetry, so its file
//! holds none.

use serde_json::Value;

use crate::transcript::FormatId;

/// One earlier compaction of the session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Earlier {
    /// The line of the marker.
    pub line: usize,
    /// The context size just before it.
    pub tokens: u64,
    /// Where the figure comes from.
    pub field: &'static str,
}

/// The field of `format`'s compaction marker that records the context size before it.
fn field(format: FormatId) -> Option<&'static str> {
    match format {
        FormatId::ClaudeCode => Some("preTokens"),
        FormatId::Pi => Some("tokensBefore"),
        _ => None,
    }
}

/// The figure a marker line of `format` records, if this line is one that records it. Lines
/// that do not hold the field's name are passed over without being parsed.
pub fn recorded(format: FormatId, line: usize, text: &[u8]) -> Option<Earlier> {
    let name = field(format)?;
    memchr::memmem::find(text, name.as_bytes())?;
    let value: Value = serde_json::from_slice(text).ok()?;
    let tokens = match format {
        FormatId::ClaudeCode if value["subtype"] == "compact_boundary" => {
            value["compactMetadata"]["preTokens"].as_u64()
        }
        FormatId::Pi if value["type"] == "compaction" => value["tokensBefore"].as_u64(),
        _ => None,
    }?;
    Some(Earlier {
        line,
        tokens,
        field: match format {
            FormatId::ClaudeCode => "compactMetadata.preTokens",
            _ => "tokensBefore",
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_markers_of_claude_code_and_pi() {
        let claude = br#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":155250}}"#;
        let got = recorded(FormatId::ClaudeCode, 7, claude).unwrap();
        assert_eq!((got.line, got.tokens), (7, 155_250));
        let pi =
            br#"{"type":"compaction","summary":"s","firstKeptEntryId":"a","tokensBefore":175004}"#;
        assert_eq!(recorded(FormatId::Pi, 3, pi).unwrap().tokens, 175_004);
    }

    #[test]
    fn passes_over_other_lines_and_formats() {
        let text = br#"{"type":"user","message":{"content":"what is preTokens?"}}"#;
        assert_eq!(recorded(FormatId::ClaudeCode, 1, text), None);
        let pi = br#"{"type":"compaction","tokensBefore":5}"#;
        assert_eq!(recorded(FormatId::Codex, 1, pi), None);
        assert_eq!(recorded(FormatId::Pi, 1, b"{\"tokensBefore\":"), None);
    }
}
