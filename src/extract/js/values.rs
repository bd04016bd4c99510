//! The values a tool's argument is written with: objects, arrays, numbers, names bound
//! earlier, strings joined with `+` and arrays with `.join(…)`; anything else is unknown.

use serde_json::{Map, Value};

use super::{Reader, DEPTH};

/// What [`Reader::item_start`] found before a list's next item.
#[derive(Debug, PartialEq, Eq)]
enum ItemStart {
    /// An item starts here.
    Item,
    /// The list's closing bracket, passed.
    Closed,
    /// The script ended inside the list.
    EndOfScript,
}

impl Reader<'_> {
    /// A value, then any `+ value` and `.join(…)` after it.
    pub(super) fn expression(&mut self, depth: usize) -> Option<Value> {
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
    pub(super) fn close(&mut self, close: u8) {
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

    /// Passes the blanks and commas before a list's next item (an object's field, an array's
    /// item): what comes next is an item, the `close` that ends the list (consumed), or the
    /// end of the script.
    fn item_start(&mut self, close: u8) -> ItemStart {
        loop {
            self.blank();
            match self.peek() {
                None => return ItemStart::EndOfScript,
                Some(byte) if byte == close => {
                    self.at += 1;
                    return ItemStart::Closed;
                }
                Some(b',') => self.at += 1,
                Some(_) => return ItemStart::Item,
            }
        }
    }

    /// `{ key: value, "key": value, shorthand, ...spread }`: the known fields.
    fn object(&mut self, depth: usize) -> Value {
        self.at += 1;
        let mut map = Map::new();
        loop {
            if self.item_start(b'}') != ItemStart::Item {
                break;
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
            match self.item_start(b']') {
                ItemStart::Item => {}
                ItemStart::Closed => break,
                ItemStart::EndOfScript => return None,
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
