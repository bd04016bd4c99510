//! Tool calls and their results in the live context (pure): a result must answer a call made
//! before it in the context the agent sends, or the provider rejects the request.

use std::collections::HashSet;

use crate::transcript::{Part, Record, Role};

/// The positions in `context` of the tool results whose call is not before them in it. A
/// result is a message keyed by [`crate::transcript::Message::call_id`], or a
/// [`Part::ToolResult`] of another message; results that name no call are passed over (some
/// formats pair by order, not by id).
pub fn orphaned_results(context: &[Record]) -> Vec<usize> {
    let mut calls: HashSet<&str> = HashSet::new();
    let mut orphans = Vec::new();
    for (position, record) in context.iter().enumerate() {
        let Some(message) = record.message() else {
            continue;
        };
        let mut orphaned = false;
        if let Some(id) = message.call_id.as_deref() {
            orphaned |= message.role == Role::Tool && !calls.contains(id);
        }
        for part in &message.parts {
            match part {
                Part::ToolCall { id: Some(id), .. } => {
                    calls.insert(id);
                }
                Part::ToolResult {
                    call_id: Some(id), ..
                } if message.call_id.is_none() => orphaned |= !calls.contains(id.as_ref()),
                _ => {}
            }
        }
        if orphaned {
            orphans.push(position);
        }
    }
    orphans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Entry, Message};
    use std::borrow::Cow;

    fn record<'a>(role: Role, parts: Vec<Part<'a>>, call_id: Option<&'a str>) -> Record<'a> {
        let mut message = Message::new(role, parts);
        message.call_id = call_id.map(Cow::Borrowed);
        Record::new(1, b"", Entry::Message(message))
    }

    fn call(id: &str) -> Part<'_> {
        Part::ToolCall {
            id: Some(Cow::Borrowed(id)),
            name: Cow::Borrowed("bash"),
            arguments: "{}".into(),
        }
    }

    fn result(id: &str) -> Part<'_> {
        Part::ToolResult {
            call_id: Some(Cow::Borrowed(id)),
            text: "ok".into(),
        }
    }

    #[test]
    fn a_result_before_or_without_its_call_is_orphaned() {
        let context = vec![
            record(Role::User, vec![result("early")], None),
            record(Role::Assistant, vec![call("a"), call("early")], None),
            record(Role::User, vec![result("a")], None),
            record(Role::Tool, vec![], Some("gone")),
            record(Role::Tool, vec![], Some("a")),
        ];
        assert_eq!(orphaned_results(&context), vec![0, 3]);
    }
}
