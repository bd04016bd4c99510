//! Claude Code's plan mode: while it is on, the agent may only read and must not edit; its next
//! step is to write the plan and call `ExitPlanMode` for the user's approval (the preamble
//! Claude Code injects says "Plan mode is active … you MUST NOT make any edits", and
//! `ExitPlanMode` is the tool that ends it; both in the `claude` binary of
//! `@anthropic-ai/claude-code-linux-x64`). Claude Code writes the mode as `permissionMode` on
//! every user line and on its `permission-mode` lines (`/work/shared/spec/formats.md`), so
//! the mode at the end of a transcript is the last one written, unless an `ExitPlanMode`
//! call came after it. A summary that drops the mode resumes an agent that edits before the
//! plan is approved, or one that plans again after it was.

/// The tool that ends plan mode.
const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// What comes next in plan mode, whatever the agent was looking at first.
pub(super) const PLAN_MODE_STEP: &str = "plan mode: write the plan, then ExitPlanMode";

/// Whether the mode a record sets is plan mode: `Some(true)` for `"permissionMode":"plan"`,
/// `Some(false)` for another mode, `None` for a record that sets none.
pub(super) fn sets_plan_mode(raw: &[u8]) -> Option<bool> {
    const KEY: &[u8] = b"\"permissionMode\":\"";
    let at = memchr::memmem::find(raw, KEY)? + KEY.len();
    let rest = &raw[at..];
    let end = memchr::memchr(b'"', rest)?;
    Some(&rest[..end] == b"plan")
}

/// True for the call that ends plan mode.
pub(super) fn ends_plan_mode(name: &str) -> bool {
    name == EXIT_PLAN_MODE || name == "exit_plan_mode"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn plan_mode_is_on_from_the_last_mode_written_until_exit_plan_mode() {
        assert_eq!(
            sets_plan_mode(br#"{"type":"user","permissionMode":"plan"}"#),
            Some(true)
        );
        assert_eq!(
            sets_plan_mode(br#"{"type":"permission-mode","permissionMode":"acceptEdits"}"#),
            Some(false)
        );
        assert_eq!(sets_plan_mode(br#"{"type":"user"}"#), None);
        assert!(ends_plan_mode("ExitPlanMode"));
        assert!(!ends_plan_mode("EnterPlanMode"));

        let mut ask = user("make a plan to fix the gemini path");
        ask.raw = br#"{"type":"user","permissionMode":"plan"}"#;
        let records = [
            ask,
            assistant("Let me explore the gemini agent first."),
            call("1", "Read", r#"{"file_path":"gemini.go"}"#),
        ];
        let ex = extract(&records);
        assert!(ex.plan_mode);
        // bare puts the step first, so that a short cut keeps it.
        let next = crate::extract::bare(&ex, 30, crate::tokens::Tokenizer::Chars4).next;
        assert!(next.starts_with(PLAN_MODE_STEP), "{next}");
        let mut approved = records.to_vec();
        approved.push(call("2", "ExitPlanMode", r#"{"plan":"the plan"}"#));
        assert!(!extract(&approved).plan_mode);
    }
}
