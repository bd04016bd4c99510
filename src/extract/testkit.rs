//! Records for the unit tests: user and assistant texts, tool calls and results, and a busy
//! session.

pub(super) use super::{extract, Extract};
pub(super) use crate::transcript::{Entry, Message, Part, Record, Role};

pub(super) fn record(message: Message<'static>) -> Record<'static> {
    Record::new(1, b"", Entry::Message(message))
}

pub(super) fn user(text: &str) -> Record<'static> {
    record(Message::new(
        Role::User,
        vec![Part::Text(text.to_owned().into())],
    ))
}

pub(super) fn assistant(text: &str) -> Record<'static> {
    record(Message::new(
        Role::Assistant,
        vec![Part::Text(text.to_owned().into())],
    ))
}

pub(super) fn call(id: &str, name: &str, arguments: &str) -> Record<'static> {
    record(Message::new(
        Role::Assistant,
        vec![Part::ToolCall {
            id: Some(id.to_owned().into()),
            name: name.to_owned().into(),
            arguments: arguments.to_owned().into(),
        }],
    ))
}

pub(super) fn result(id: &str, text: &str) -> Record<'static> {
    record(Message::new(
        Role::User,
        vec![Part::ToolResult {
            call_id: Some(id.to_owned().into()),
            text: text.to_owned().into(),
        }],
    ))
}

pub(super) fn bash(id: &str, command: &str) -> Record<'static> {
    call(
        id,
        "Bash",
        &serde_json::json!({ "command": command }).to_string(),
    )
}

pub(super) fn busy() -> Extract {
    let mut records = vec![user("make the parser handle nested quotes in src/parse.rs")];
    for n in 0..30 {
        records.push(call(
            &format!("r{n}"),
            "Read",
            &format!(r#"{{"file_path":"src/module_{n}.rs"}}"#),
        ));
        records.push(bash(&format!("b{n}"), &format!("cargo test -p crate{n}")));
        records.push(result(
            &format!("b{n}"),
            "test result: ok. 5 passed; 0 failed;",
        ));
    }
    records.push(assistant("All green. Next, I will update the docs."));
    extract(&records)
}
