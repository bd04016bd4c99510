//! The agents condense knows, listed once.
//!
//! Each agent is a folder of [`super`] (`claude_code/`, `codex/`, …) whose unit type implements
//! the jobs of [`Agent`]. The list below names each one once: the format's name on the command
//! line (`--from`, `--to`), the help text that describes it, and the type that implements it.
//! Everything else asks the agent, through [`FormatId::format`], what to do; no other module
//! matches on [`FormatId`] to choose behaviour. Adding an agent is one line here (and its place
//! in [`FormatId::DETECTION_ORDER`]).

use super::format::Format;
use super::handoff::Handoff;
use super::home::Home;
use super::live::LiveRule;
use super::model::Record;
use super::prune::Prune;
use super::sketch::Sketch;
use super::trigger::Trigger;
use super::write::WriteBack;
use super::{anthropic, claude_code, codex, copilot, droid, gemini, kimi, opencode, pi, qwen_code};

/// Everything an agent folder implements: reading its lines ([`Format`]), its live-context
/// rule ([`LiveRule`]), writing a compaction back ([`WriteBack`]), where prune may shrink and
/// how a prune is recorded ([`Prune`]), writing a new session for a handoff ([`Handoff`]),
/// where its sessions live ([`Home`]), and its own compaction trigger ([`Trigger`]).
pub trait Agent: Format + LiveRule + WriteBack + Prune + Handoff + Home + Trigger {}

impl<T: Format + LiveRule + WriteBack + Prune + Handoff + Home + Trigger> Agent for T {}

/// Declares [`FormatId`] from one line per agent: its doc comment (the `--help` text), the
/// variant, its name on the command line, and the type implementing [`Agent`].
macro_rules! agents {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal => $agent:path,)*) => {
        /// The transcript formats condense reads: one per agent folder.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
        pub enum FormatId {
            $($(#[doc = $doc])* #[value(name = $name)] $variant,)*
        }

        impl FormatId {
            /// The name used in output and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(FormatId::$variant => $name,)*
                }
            }

            /// Every format's name, as the command line lists them: `openai, anthropic, …`.
            pub fn names() -> String {
                [$($name,)*].join(", ")
            }

            /// The agent that writes this format: what everything else asks.
            pub fn format(self) -> &'static dyn Agent {
                match self {
                    $(FormatId::$variant => &$agent,)*
                }
            }
        }
    };
}

agents! {
    /// Chat messages one per line (OpenAI style; also kimi-cli `context.jsonl`).
    Openai = "openai" => kimi::Kimi,
    /// Anthropic Messages API messages one per line (content blocks).
    Anthropic = "anthropic" => anthropic::Anthropic,
    /// Claude Code session logs (`~/.claude/projects/…/*.jsonl`).
    ClaudeCode = "claude-code" => claude_code::ClaudeCode,
    /// Codex CLI rollout files (current envelope and the legacy bare layout).
    Codex = "codex" => codex::Codex,
    /// pi coding-agent sessions.
    Pi = "pi" => pi::Pi,
    /// Gemini CLI sessions in the JSONL layout.
    Gemini = "gemini" => gemini::Gemini,
    /// GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot = "copilot" => copilot::Copilot,
    /// Factory Droid sessions (`~/.factory/sessions/<project>/<id>.jsonl`).
    Droid = "droid" => droid::Droid,
    /// Qwen Code sessions (`~/.qwen/projects/<project>/chats/<id>.jsonl`).
    QwenCode = "qwen-code" => qwen_code::QwenCode,
    /// opencode sessions, rows of `~/.local/share/opencode/opencode.db` (named `DB#ID`).
    OpenCode = "opencode" => opencode::OpenCode,
}

impl FormatId {
    /// Every format, in detection order: the formats can be confused with one another in this
    /// order only. The envelope formats (Codex, Claude Code, pi, Gemini, Copilot) have fingerprints of
    /// their own; bare chat-message lines are OpenAI style unless they use Anthropic content
    /// blocks, so OpenAI, which takes any such line, comes last. Copilot CLI's events carry
    /// `id`, `parentId` and `type` as pi's entries do, so Copilot's envelope (a dotted `type`)
    /// is asked before pi's. Qwen Code's records carry Claude Code's `uuid` and `sessionId`
    /// around Gemini-shaped messages, so Qwen Code's envelope is asked before Claude Code's.
    pub const DETECTION_ORDER: [FormatId; 10] = [
        FormatId::Codex,
        FormatId::QwenCode,
        FormatId::OpenCode,
        FormatId::ClaudeCode,
        FormatId::Copilot,
        FormatId::Droid,
        FormatId::Pi,
        FormatId::Gemini,
        FormatId::Anthropic,
        FormatId::Openai,
    ];
}

/// Every agent, in detection order: for the questions every agent is asked in turn (whose
/// side file is this, whose window is this model's).
pub fn agents() -> impl Iterator<Item = &'static dyn Agent> {
    FormatId::DETECTION_ORDER.into_iter().map(FormatId::format)
}

/// The first format, in detection order, whose fingerprint matches these lines; `None` when no
/// line is a JSON object a format recognises.
pub fn detect(head: &[Sketch]) -> Option<FormatId> {
    FormatId::DETECTION_ORDER
        .into_iter()
        .find(|id| id.format().detect(head))
}

/// The agent whose envelope this one line carries (see [`Format::envelope`]), in detection
/// order; `None` for a bare message line, which fits more than one format.
pub fn envelope(line: &Sketch) -> Option<FormatId> {
    FormatId::DETECTION_ORDER
        .into_iter()
        .find(|id| id.format().envelope(line))
}

/// The whole text of the file the edit answered by this record changed, as it was before the
/// edit, when the record's format keeps one: Claude Code's `toolUseResult.originalFile`. (pi's
/// `details.diff` holds a few lines of context around the change, not the file.) The record
/// does not say its format, and only a line of the format that keeps the field has it, so each
/// format is asked in turn; the line is read only here, for the few results that need it.
pub fn file_before_edit(record: &Record) -> Option<String> {
    agents().find_map(|agent| agent.file_before_edit(record.raw))
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;
    use crate::transcript::model::testing::{corpus, corpus_bytes, corpus_head};

    /// Every real transcript is recognised by its own format's detector and by no other, so
    /// detection does not depend on the order formats are tried in.
    #[test]
    fn each_corpus_file_matches_exactly_its_own_format() {
        let files = [
            (
                "claude-code/claude-code-viewer-5c0375b4.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/claude-code-viewer-fe5e1c67.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
                FormatId::ClaudeCode,
            ),
            (
                "claude-code/kimi-cli-5b2c427a42e0.jsonl",
                FormatId::ClaudeCode,
            ),
            ("codex/agent-sessions-small.jsonl", FormatId::Codex),
            (
                "gemini-cli/agent-sessions-jsonl_v040.jsonl",
                FormatId::Gemini,
            ),
            (
                "openai-chat/kimi-cli-swebench-531d195b.jsonl",
                FormatId::Openai,
            ),
            (
                "openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
                FormatId::Openai,
            ),
            ("pi/pi-mono-large-session.jsonl", FormatId::Pi),
            // Written by Copilot CLI 1.0.102 against the mock (fixtures/agents/copilot/).
            ("../agents/copilot/turns.jsonl", FormatId::Copilot),
            ("../agents/copilot/compacted.jsonl", FormatId::Copilot),
            ("../agents/copilot/imported.jsonl", FormatId::Copilot),
            // Written by Droid 0.225.2 against the mock (fixtures/agents/droid/).
            ("../agents/droid/turns.jsonl", FormatId::Droid),
            ("../agents/droid/compacted.jsonl", FormatId::Droid),
            // Written by Qwen Code 0.24.4 against the mock (fixtures/agents/qwen-code/).
            ("../agents/qwen-code/turns.jsonl", FormatId::QwenCode),
            ("../agents/qwen-code/compressed.jsonl", FormatId::QwenCode),
            (
                "../agents/qwen-code/compressed-twice.jsonl",
                FormatId::QwenCode,
            ),
        ];
        // Gemini CLI's legacy document, as the JSON lines it is read as.
        let legacy = "gemini-cli/entireio-cli-12cbfeaa512b-legacy.json";
        let (id, jsonl) = crate::transcript::read::document(legacy, &corpus_bytes(legacy))
            .unwrap()
            .unwrap();
        assert_eq!(id, FormatId::Gemini);
        let text = String::from_utf8(jsonl).unwrap();
        let lines: Vec<(usize, String)> = text.lines().map(str::to_owned).enumerate().collect();
        let head = corpus_head(&lines);
        for id in FormatId::DETECTION_ORDER {
            assert_eq!(
                id.format().detect(&head),
                id == FormatId::Gemini,
                "{legacy}"
            );
        }
        // opencode's sessions, rows of its database, as the JSON lines they are read as.
        let db = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/agents/opencode/opencode.db");
        for (session, _) in crate::transcript::store::sessions(&db).unwrap().unwrap() {
            let text =
                String::from_utf8(crate::transcript::store::read(&session).unwrap().unwrap())
                    .unwrap();
            let lines: Vec<(usize, String)> = text.lines().map(str::to_owned).enumerate().collect();
            let head = corpus_head(&lines);
            for id in FormatId::DETECTION_ORDER {
                assert_eq!(
                    id.format().detect(&head),
                    id == FormatId::OpenCode,
                    "{}: {}",
                    session.display(),
                    id.as_str()
                );
            }
        }
        for (path, own) in files {
            let lines = corpus(path);
            let head = corpus_head(&lines);
            for id in FormatId::DETECTION_ORDER {
                assert_eq!(
                    id.format().detect(&head),
                    id == own,
                    "{path}: {}",
                    id.as_str()
                );
            }
        }
    }

    /// A pi entry is no Copilot event and a Copilot event no pi entry, though both carry
    /// `type`, `id` and `parentId`.
    #[test]
    fn copilot_and_pi_envelopes_are_told_apart() {
        let pi = Sketch::of(r#"{"type": "message", "id": "a", "parentId": null, "message": {}}"#)
            .unwrap();
        let copilot =
            Sketch::of(r#"{"type": "user.message", "id": "a", "parentId": null, "data": {}}"#)
                .unwrap();
        assert_eq!(envelope(&pi), Some(FormatId::Pi));
        assert_eq!(envelope(&copilot), Some(FormatId::Copilot));
    }

    /// Detection tries every agent, once; and the name a format goes by in output is the one
    /// the command line takes.
    #[test]
    fn the_list_is_whole_and_names_agree() {
        let all = FormatId::value_variants();
        let mut ordered = FormatId::DETECTION_ORDER.to_vec();
        ordered.sort_by_key(|id| all.iter().position(|listed| listed == id));
        assert_eq!(ordered, all);
        for id in all {
            let value = id.to_possible_value().unwrap();
            assert_eq!(value.get_name(), id.as_str());
        }
    }
}
