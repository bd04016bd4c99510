//! The write-back of every format, loaded by the agent's own code: pi's SessionManager,
//! kimi-cli's Context and SimpleCompaction, Gemini CLI's session loader, and Claude Code, Codex,
//! GitHub Copilot CLI, Factory Droid, Qwen Code and opencode resuming against a mock API of ours. The agents are the pinned installs of
//! `.ci/install-agents`; without them a test fails in CI and skips, saying so, elsewhere.

mod claude;
mod codex;
mod copilot;
mod doctor;
mod droid;
mod gemini;
mod handoff;
mod harness;
mod kimi;
mod opencode;
mod pi;
mod prune;
mod qwen_code;

/// The summary every test injects: a marker no session contains.
const SUMMARY: &str = "CONDENSE-SUMMARY-7f3a: the work so far, as condense's summary.";
