//! A new pi session (format v3): the `session` header (`version` 3, `id`, `timestamp`, `cwd`),
//! then one `message` entry per turn, each the child of the one before (`id`, `parentId`), so
//! the last is pi's leaf. Assistant messages carry what pi restores the model from (`api`,
//! `provider`, `model`) and an all-zero `usage`, which pi writes for a request no provider
//! answered. `pi --session FILE` opens it; pi itself keeps sessions in
//! `~/.pi/agent/sessions/--<cwd, '/' made '-'>--/<timestamp>_<id>.jsonl`.

use anyhow::Result;
use serde_json::json;

use super::Pi;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

impl Handoff for Pi {
    /// The working directory (in the header) and the model (on every assistant message).
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd, Field::Model]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        write(session, out)
    }
}

/// Writes `session` as pi entries.
fn write(session: &Session, out: &mut Sink) -> Result<()> {
    let cwd = require(&Pi, Field::Cwd, session.cwd)?;
    let model = require(&Pi, Field::Model, session.model)?;
    let (provider, api, model) = provider_of(model);
    let header = json!({
        "type": "session",
        "version": 3,
        "id": session.id,
        "timestamp": session.timestamp(0),
        "cwd": cwd,
    });
    push_line(out, &serde_json::to_vec(&header)?);
    let mut parent: Option<String> = None;
    for (n, turn) in session.turns.iter().enumerate() {
        // pi's own entry ids are the first 8 hex digits of a UUID.
        let id = session.line_id(n)[..8].to_owned();
        let content = json!([{ "type": "text", "text": turn.text }]);
        let message = match turn.speaker {
            Speaker::User => json!({
                "role": "user",
                "content": content,
                "timestamp": session.millis(n + 1),
            }),
            Speaker::Assistant => json!({
                "role": "assistant",
                "content": content,
                "api": api,
                "provider": provider,
                "model": model,
                "usage": {
                    "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "stop",
                "timestamp": session.millis(n + 1),
            }),
        };
        let entry = json!({
            "type": "message",
            "id": id,
            "parentId": parent,
            "timestamp": session.timestamp(n + 1),
            "message": message,
        });
        push_line(out, &serde_json::to_vec(&entry)?);
        parent = Some(id);
    }
    Ok(())
}

/// pi's provider and API for a model: `PROVIDER/MODEL` names both, otherwise the provider is
/// told by the model's name (pi looks the model up under it when it resumes).
fn provider_of(model: &str) -> (&str, &'static str, &str) {
    let api = |provider: &str| match provider {
        "anthropic" => "anthropic-messages",
        "openai" => "openai-responses",
        "google" => "google-generative-ai",
        _ => "openai-completions",
    };
    if let Some((provider, name)) = model.split_once('/') {
        return (provider, api(provider), name);
    }
    let provider = if model.starts_with("claude") {
        "anthropic"
    } else if model.starts_with("gpt") || model.starts_with("codex") || model.starts_with('o') {
        "openai"
    } else if model.starts_with("gemini") {
        "google"
    } else if model.starts_with("kimi") || model.starts_with("moonshot") {
        "moonshotai"
    } else {
        "openai"
    };
    (provider, api(provider), model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn a_v3_header_then_a_chain_of_messages() {
        let lines = written(FormatId::Pi);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines[0]["version"], 3);
        assert_eq!(lines[0]["cwd"], "/home/user/project");
        assert!(lines[1]["parentId"].is_null());
        for pair in lines[1..].windows(2) {
            assert_eq!(pair[1]["parentId"], pair[0]["id"]);
        }
        let assistant = &lines[2]["message"];
        assert_eq!(assistant["provider"], "anthropic");
        assert_eq!(assistant["api"], "anthropic-messages");
        assert_eq!(assistant["model"], "claude-sonnet-4-5");
        reads_back(FormatId::Pi);
    }

    #[test]
    fn providers_come_from_the_model_name_or_its_prefix() {
        assert_eq!(provider_of("gpt-5").0, "openai");
        assert_eq!(provider_of("gemini-3-flash").0, "google");
        assert_eq!(
            provider_of("openrouter/qwen3"),
            ("openrouter", "openai-completions", "qwen3")
        );
    }
}
