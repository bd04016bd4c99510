//! Just enough JavaScript to read the tool calls a script makes: `tools.NAME(argument)` (or
//! `tools["NAME"](…)`) with the argument read as a literal value, JSON-like (strings in any of
//! the three quotes, template literals, numbers, `true` / `false` / `null`, arrays, objects with
//! bare, quoted or shorthand keys), a name bound earlier by `const` / `let` / `var` (or assigned
//! again), strings joined with `+`, and an array's `.join(separator)`. Whatever else an argument
//! holds (a call, a member, arithmetic) is unknown: an object keeps the fields that are known,
//! and a call whose argument is wholly unknown is still reported, with `null`.
//!
//! Not a parser: comments and strings are skipped so that nothing inside them is taken for a
//! call, and everything between the calls is passed over token by token. Codex's code mode
//! sends the model's script as the `exec` tool's input (see `code_mode`); the agent's tools are
//! what that script calls.
//!
//! The reading is split by what it reads: statements and calls here, values (objects, arrays,
//! numbers, joins) in `values`, string literals and their escapes in `strings`.

use std::collections::HashMap;

mod strings;
mod values;

use serde_json::Value;

/// One call of a tool in a script: the tool's name and its argument (`null` when unknown).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ScriptCall {
    pub(super) name: String,
    pub(super) argument: Value,
}

/// The `tools.NAME(…)` calls of a script, in the order they are written.
pub(super) fn tool_calls(source: &str) -> Vec<ScriptCall> {
    let mut reader = Reader {
        src: source.as_bytes(),
        text: source,
        at: 0,
        bindings: HashMap::new(),
    };
    let mut calls = Vec::new();
    while reader.at < reader.src.len() {
        reader.statement_step(&mut calls);
    }
    calls
}

/// A cursor over the script, with the names bound to known values so far.
struct Reader<'s> {
    src: &'s [u8],
    text: &'s str,
    at: usize,
    bindings: HashMap<String, Value>,
}

/// Nesting deeper than this is not followed (a value that deep is no tool argument).
const DEPTH: usize = 32;

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    fn starts(&self, word: &str) -> bool {
        self.src[self.at..].starts_with(word.as_bytes())
    }

    /// Skips whitespace and comments.
    fn blank(&mut self) {
        loop {
            while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
                self.at += 1;
            }
            if self.starts("//") {
                while self.peek().is_some_and(|b| b != b'\n') {
                    self.at += 1;
                }
            } else if self.starts("/*") {
                self.at = match self.text[self.at + 2..].find("*/") {
                    Some(end) => self.at + 2 + end + 2,
                    None => self.src.len(),
                };
            } else {
                return;
            }
        }
    }

    /// A name (identifier) at the cursor, consumed.
    fn name(&mut self) -> Option<&str> {
        let start = self.at;
        let first = self.peek()?;
        if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
            return None;
        }
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        {
            self.at += 1;
        }
        Some(&self.text[start..self.at])
    }

    /// One step through the script outside any argument: a binding, a tool call, a string or
    /// comment passed over whole, or one character.
    fn statement_step(&mut self, calls: &mut Vec<ScriptCall>) {
        self.blank();
        let Some(byte) = self.peek() else { return };
        match byte {
            b'"' | b'\'' | b'`' => {
                self.string(0);
            }
            b if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                // A name glued to the one before (`mytools.x`) was passed over with it.
                let start = self.at;
                let word = self.name().unwrap_or_default().to_owned();
                if word == "tools" && !self.after_dot(start) {
                    if let Some(call) = self.tool_call() {
                        calls.push(call);
                    }
                } else if matches!(word.as_str(), "const" | "let" | "var") {
                    self.declaration();
                } else {
                    self.assignment(word, start);
                }
            }
            _ => self.at += 1,
        }
    }

    /// True when the name starting at `start` is a member (`x.tools`), not a name of its own.
    fn after_dot(&self, start: usize) -> bool {
        self.text[..start].trim_end().ends_with('.')
    }

    /// After `tools`: `.NAME(` or `["NAME"](`, and the argument.
    fn tool_call(&mut self) -> Option<ScriptCall> {
        self.blank();
        let name = match self.peek()? {
            b'.' => {
                self.at += 1;
                self.blank();
                self.name()?.to_owned()
            }
            b'[' => {
                self.at += 1;
                self.blank();
                // `tools[tool.name]`: a name only known when the script runs.
                if !matches!(self.peek()?, b'"' | b'\'' | b'`') {
                    return None;
                }
                let name = self.string(0)?.as_str()?.to_owned();
                self.blank();
                (self.peek()? == b']').then(|| self.at += 1)?;
                name
            }
            _ => return None,
        };
        self.blank();
        if self.peek()? != b'(' {
            return None;
        }
        self.at += 1;
        self.blank();
        let argument = if self.peek() == Some(b')') {
            Value::Null
        } else {
            self.expression(0).unwrap_or(Value::Null)
        };
        Some(ScriptCall { name, argument })
    }

    /// `const NAME = value` (and `let`, `var`): binds the name when the value is known.
    fn declaration(&mut self) {
        self.blank();
        let start = self.at;
        let Some(name) = self.name().map(str::to_owned) else {
            return;
        };
        self.assignment(name, start);
    }

    /// `NAME = value` binds or unbinds NAME; `NAME +=` and the like unbind it (its value is no
    /// longer what was bound).
    fn assignment(&mut self, name: String, start: usize) {
        if self.after_dot(start) {
            return;
        }
        self.blank();
        let rest = &self.src[self.at..];
        if rest.starts_with(b"=") && !rest.starts_with(b"==") && !rest.starts_with(b"=>") {
            self.at += 1;
            self.blank();
            // A tool call as the value is still a call: read it as one, in the next step.
            if self.starts("tools") || self.starts("await") {
                self.bindings.remove(&name);
                return;
            }
            match self.expression(0) {
                Some(value) => {
                    self.bindings.insert(name, value);
                }
                None => {
                    self.bindings.remove(&name);
                }
            }
        } else if rest.len() > 1 && rest[1] == b'=' && b"+-*/|&".contains(&rest[0]) {
            self.bindings.remove(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(source: &str) -> Vec<(String, Value)> {
        tool_calls(source)
            .into_iter()
            .map(|c| (c.name, c.argument))
            .collect()
    }

    #[test]
    fn tool_calls_with_literal_arguments() {
        let script = r#"// @exec: {"yield_time_ms": 10000}
const r = await tools.exec_command({ cmd: "cargo test -q", workdir: '/repo', yield_time_ms: 30_000 });
text(JSON.stringify(r));
await tools["apply_patch"]("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch");
"#;
        assert_eq!(
            calls(script),
            [
                (
                    "exec_command".to_owned(),
                    json!({"cmd": "cargo test -q", "workdir": "/repo", "yield_time_ms": 30000})
                ),
                (
                    "apply_patch".to_owned(),
                    json!("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch")
                ),
            ]
        );
    }

    #[test]
    fn bound_names_joins_and_templates_are_followed() {
        let script = r#"
const patch = ["*** Begin Patch", "*** Update File: src/a.rs", "@@", "-x", "+y", "*** End Patch"].join("\n");
let dir = "/repo/web";
const cmd = `npm test -- ${dir}`;
await tools.apply_patch({ input: patch });
for (const c of ["ls", "pwd"]) { await tools.exec_command({ cmd: c, workdir: dir }); }
await tools.exec_command({ cmd });
let late = "a"; late += "b"; await tools.exec_command({ cmd: late });
await tools.exec_command({ cmd: `echo ${r.output}` });
"#;
        assert_eq!(
            calls(script),
            [
                (
                    "apply_patch".to_owned(),
                    json!({"input": "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch"})
                ),
                ("exec_command".to_owned(), json!({"workdir": "/repo/web"})),
                (
                    "exec_command".to_owned(),
                    json!({"cmd": "npm test -- /repo/web"})
                ),
                ("exec_command".to_owned(), json!({})),
                (
                    "exec_command".to_owned(),
                    json!({"cmd": "echo ${r.output}"})
                ),
            ]
        );
    }

    #[test]
    fn strings_comments_and_members_are_no_calls() {
        let script = r#"
text("tools.exec_command({cmd: 'rm -rf /'})");
/* tools.apply_patch("x") */
const out = mytools.exec_command({ cmd: "nope" });
const all = await Promise.all([tools.wait({ cell_id: "3" }), tools.exec_command("git status")]);
await tools[tool.name]({});
"#;
        assert_eq!(
            calls(script),
            [
                ("wait".to_owned(), json!({"cell_id": "3"})),
                ("exec_command".to_owned(), json!("git status")),
            ]
        );
        // Unclosed or cut-off scripts end without a panic.
        for broken in [
            "tools.exec_command({cmd: \"ls",
            "tools.",
            "tools.x(",
            "`${",
            "'\\u{",
        ] {
            let _ = tool_calls(broken);
        }
    }
}
