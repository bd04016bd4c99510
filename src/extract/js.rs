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

use std::collections::HashMap;

use serde_json::{Map, Value};

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

    /// A value, then any `+ value` and `.join(…)` after it.
    fn expression(&mut self, depth: usize) -> Option<Value> {
        if depth > DEPTH {
            return None;
        }
        let mut value = self.operand(depth);
        loop {
            self.blank();
            if self.starts(".join(") {
                self.at += ".join(".len();
                self.blank();
                let separator = if self.peek() == Some(b')') {
                    Some(",".to_owned())
                } else {
                    self.expression(depth + 1)
                        .and_then(|v| v.as_str().map(str::to_owned))
                };
                self.close(b')');
                value = match (value, separator) {
                    (Some(Value::Array(items)), Some(separator)) => join(&items, &separator),
                    _ => None,
                };
            } else if self.peek() == Some(b'+') && !self.starts("++") && !self.starts("+=") {
                self.at += 1;
                self.blank();
                let right = self.operand(depth);
                value = match (value, right) {
                    (Some(left), Some(right)) => concat(&left, &right),
                    _ => None,
                };
            } else {
                return value;
            }
        }
    }

    /// One literal, bound name, array or object; `None` (with the cursor past it) otherwise.
    fn operand(&mut self, depth: usize) -> Option<Value> {
        self.blank();
        let byte = self.peek()?;
        match byte {
            b'"' | b'\'' | b'`' => self.string(depth),
            b'{' => Some(self.object(depth)),
            b'[' => self.array(depth),
            b'0'..=b'9' | b'-' => self.number(),
            b'(' => {
                self.at += 1;
                let value = self.expression(depth + 1);
                self.close(b')');
                value
            }
            _ => {
                let name = self.name()?.to_owned();
                self.blank();
                match name.as_str() {
                    "true" => Some(Value::Bool(true)),
                    "false" => Some(Value::Bool(false)),
                    "null" | "undefined" => Some(Value::Null),
                    // A member or a call of a name (`r.output`, `fn(x)`) is not its value.
                    _ if matches!(self.peek(), Some(b'.' | b'(' | b'['))
                        && !self.starts(".join(") =>
                    {
                        self.skip_member();
                        None
                    }
                    _ => self.bindings.get(&name).cloned(),
                }
            }
        }
    }

    /// Passes over `.x`, `(…)` and `[…]` after a name.
    fn skip_member(&mut self) {
        loop {
            self.blank();
            match self.peek() {
                Some(b'.') => {
                    self.at += 1;
                    self.blank();
                    self.name();
                }
                Some(open @ (b'(' | b'[')) => {
                    self.at += 1;
                    self.close(if open == b'(' { b')' } else { b']' });
                }
                _ => return,
            }
        }
    }

    /// Passes over everything up to and including the `close` that matches an opening already
    /// consumed, strings and comments included.
    fn close(&mut self, close: u8) {
        let mut stack = vec![close];
        while let Some(&want) = stack.last() {
            self.blank();
            let Some(byte) = self.peek() else { return };
            match byte {
                b'"' | b'\'' | b'`' => {
                    self.string(DEPTH);
                }
                b'(' => {
                    stack.push(b')');
                    self.at += 1;
                }
                b'[' => {
                    stack.push(b']');
                    self.at += 1;
                }
                b'{' => {
                    stack.push(b'}');
                    self.at += 1;
                }
                b')' | b']' | b'}' => {
                    self.at += 1;
                    if byte == want {
                        stack.pop();
                    }
                }
                _ => self.at += 1,
            }
        }
    }

    /// `{ key: value, "key": value, shorthand, ...spread }`: the known fields.
    fn object(&mut self, depth: usize) -> Value {
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.blank();
            match self.peek() {
                None => break,
                Some(b'}') => {
                    self.at += 1;
                    break;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let key = match self.peek() {
                Some(b'"' | b'\'' | b'`') => self.string(depth + 1).and_then(|k| match k {
                    Value::String(s) => Some(s),
                    _ => None,
                }),
                Some(b'[' | b'.') => {
                    // A computed key or a spread: its value is unknown.
                    None
                }
                _ => self.name().map(str::to_owned),
            };
            self.blank();
            match (key, self.peek()) {
                (Some(key), Some(b':')) => {
                    self.at += 1;
                    if let Some(value) = self.expression(depth + 1) {
                        map.insert(key, value);
                    }
                }
                (Some(key), Some(b',' | b'}')) => {
                    if let Some(value) = self.bindings.get(&key) {
                        map.insert(key, value.clone());
                    }
                }
                _ => self.skip_field(),
            }
        }
        Value::Object(map)
    }

    /// Passes over the rest of an object field, up to its `,` or the object's `}`.
    fn skip_field(&mut self) {
        loop {
            self.blank();
            match self.peek() {
                None | Some(b',' | b'}') => return,
                Some(b'"' | b'\'' | b'`') => {
                    self.string(DEPTH);
                }
                Some(open @ (b'(' | b'[' | b'{')) => {
                    self.at += 1;
                    self.close(match open {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    });
                }
                _ => self.at += 1,
            }
        }
    }

    /// `[value, …]`: known only when every item is.
    fn array(&mut self, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        let mut known = true;
        loop {
            self.blank();
            match self.peek() {
                None => return None,
                Some(b']') => {
                    self.at += 1;
                    break;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let before = self.at;
            match self.expression(depth + 1) {
                Some(value) => items.push(value),
                None => known = false,
            }
            if self.at == before {
                // Nothing read: step over what cannot start a value.
                self.skip_field_in_array();
                known = false;
            }
        }
        known.then_some(Value::Array(items))
    }

    /// Passes over an unreadable array item, up to its `,` or the array's `]`.
    fn skip_field_in_array(&mut self) {
        while let Some(byte) = self.peek() {
            if matches!(byte, b',' | b']') {
                return;
            }
            self.at += 1;
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'e' | b'E'))
        {
            self.at += 1;
        }
        let digits: String = self.text[start..self.at].replace('_', "");
        if let Ok(n) = digits.parse::<i64>() {
            return Some(Value::from(n));
        }
        digits.parse::<f64>().ok().map(Value::from)
    }

    /// A string literal in any of the three quotes, escapes decoded; a template literal's
    /// `${name}` is the bound string, any other `${…}` stays as written.
    fn string(&mut self, depth: usize) -> Option<Value> {
        let quote = self.peek()?;
        self.at += 1;
        let mut out = String::new();
        let mut run = self.at;
        while let Some(byte) = self.peek() {
            match byte {
                b'\\' => {
                    out.push_str(&self.text[run..self.at]);
                    self.at += 1;
                    self.escape(&mut out);
                    run = self.at;
                }
                b if b == quote => {
                    out.push_str(&self.text[run..self.at]);
                    self.at += 1;
                    return Some(Value::String(out));
                }
                b'$' if quote == b'`' && self.src.get(self.at + 1) == Some(&b'{') => {
                    out.push_str(&self.text[run..self.at]);
                    let open = self.at;
                    self.at += 2;
                    self.blank();
                    let name = self.name().map(str::to_owned);
                    let bound = name
                        .and_then(|n| self.bindings.get(&n).and_then(Value::as_str))
                        .map(str::to_owned);
                    self.blank();
                    match bound.filter(|_| self.peek() == Some(b'}') && depth < DEPTH) {
                        Some(text) => {
                            self.at += 1;
                            out.push_str(&text);
                        }
                        None => {
                            self.at = open + 2;
                            self.close(b'}');
                            out.push_str(&self.text[open..self.at]);
                        }
                    }
                    run = self.at;
                }
                // A line break ends a quoted string that was never closed.
                b'\n' if quote != b'`' => return None,
                _ => self.at += 1,
            }
        }
        None
    }

    /// One escape after a backslash (already consumed), decoded into `out`.
    fn escape(&mut self, out: &mut String) {
        let Some(byte) = self.peek() else { return };
        self.at += 1;
        match byte {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'0' => out.push('\0'),
            b'b' | b'f' | b'v' => {}
            // A line continuation joins the lines.
            b'\n' => {}
            b'u' | b'x' => {
                let hex: String = if byte == b'u' && self.peek() == Some(b'{') {
                    let start = self.at + 1;
                    let end = self.text[start..].find('}').map_or(start, |e| start + e);
                    self.at = (end + 1).min(self.src.len());
                    self.text[start..end].to_owned()
                } else {
                    let len = if byte == b'u' { 4 } else { 2 };
                    let end = (self.at + len).min(self.src.len());
                    let hex = self.text.get(self.at..end).unwrap_or_default().to_owned();
                    self.at = end;
                    hex
                };
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            _ => {
                // Any other escaped character stands for itself (a UTF-8 lead byte included:
                // the whole character is copied).
                let start = self.at - 1;
                let len = self.text[start..].chars().next().map_or(1, char::len_utf8);
                self.at = start + len;
                out.push_str(&self.text[start..self.at]);
            }
        }
    }
}

/// The items joined by `separator`, when they are all strings or numbers.
fn join(items: &[Value], separator: &str) -> Option<Value> {
    let parts: Option<Vec<String>> = items
        .iter()
        .map(|item| match item {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect();
    parts.map(|parts| Value::String(parts.join(separator)))
}

/// `left + right` for strings (and a number beside a string).
fn concat(left: &Value, right: &Value) -> Option<Value> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    if !(left.is_string() || right.is_string()) {
        return None;
    }
    Some(Value::String(text(left)? + &text(right)?))
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
