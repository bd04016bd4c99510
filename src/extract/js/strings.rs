//! String literals in any of JavaScript's three quotes, template literals included, with
//! their escapes decoded.

use serde_json::Value;

use super::{Reader, DEPTH};

impl Reader<'_> {
    /// A string literal in any of the three quotes, escapes decoded; a template literal's
    /// `${name}` is the bound string, any other `${…}` stays as written.
    pub(super) fn string(&mut self, depth: usize) -> Option<Value> {
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
