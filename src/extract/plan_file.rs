//! Claude Code's plan file: in plan mode the agent writes its plan to
//! `~/.claude/plans/<slug>.md`, where `<slug>` is the session's `"slug"` (every record of a
//! Claude Code session carries it), and the accepted plan comes back as a user turn starting
//! "Implement the following plan:". The file never shows as a path in the session after a
//! `/clear` or when the plan was written before, yet it is a file the work is on: the agent
//! re-reads and rewrites it. So a session that implements a plan, or enters or leaves plan
//! mode, names the file.

use crate::transcript::{Message, Part};

/// The first words of the user turn Claude Code sends when the user accepts a plan.
const ACCEPTED_PLAN: &str = "Implement the following plan";

/// Claude Code's plan-mode tools.
const PLAN_MODE_TOOLS: [&str; 2] = ["EnterPlanMode", "ExitPlanMode"];

/// The plan file of the session `raw` (one record's JSON) belongs to, when `message` is about its
/// plan: a request that implements an accepted plan, or a call that enters or leaves plan mode.
pub(super) fn plan_file(raw: &[u8], message: &Message, request: Option<&str>) -> Option<String> {
    let about_plan = request.is_some_and(is_accepted_plan)
        || message.parts.iter().any(|part| {
            matches!(part, Part::ToolCall { name, .. } if PLAN_MODE_TOOLS.contains(&name.as_ref()))
        });
    if !about_plan {
        return None;
    }
    let slug = slug(raw)?;
    Some(format!("~/.claude/plans/{slug}.md"))
}

/// True for the user turn that carries a plan the user accepted.
pub(super) fn is_accepted_plan(request: &str) -> bool {
    request.trim_start().starts_with(ACCEPTED_PLAN)
}

/// The record's `"slug"`: Claude Code's three-word session name (`fizzy-dancing-otter`), only
/// lowercase letters, digits and dashes, else none.
fn slug(raw: &[u8]) -> Option<&str> {
    let needle = b"\"slug\":\"";
    let at = memchr::memmem::find(raw, needle)? + needle.len();
    let rest = &raw[at..];
    let end = memchr::memchr(b'"', rest)?;
    let slug = std::str::from_utf8(&rest[..end]).ok()?;
    let plain = !slug.is_empty()
        && slug.len() <= 80
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    plain.then_some(slug)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Role;

    fn message(parts: Vec<Part>) -> Message {
        Message::new(Role::User, parts)
    }

    #[test]
    fn an_accepted_plan_or_a_plan_mode_call_names_the_plan_file_from_the_slug() {
        let raw = br#"{"cwd":"/w","slug":"quiet-green-heron","type":"user"}"#;
        let ask = message(vec![]);
        assert_eq!(
            plan_file(
                raw,
                &ask,
                Some("Implement the following plan:\n\n# Plan: x")
            ),
            Some("~/.claude/plans/quiet-green-heron.md".to_owned())
        );
        let call = message(vec![Part::ToolCall {
            id: None,
            name: "ExitPlanMode".into(),
            arguments: "{}".into(),
        }]);
        assert!(plan_file(raw, &call, None).is_some());
        // Any other ask, or a record with no slug (another agent), names nothing.
        assert_eq!(plan_file(raw, &ask, Some("fix the plan parser")), None);
        assert_eq!(plan_file(br#"{"type":"user"}"#, &call, None), None);
        assert_eq!(plan_file(br#"{"slug":"../x"}"#, &call, None), None);
    }
}
