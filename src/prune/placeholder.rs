//! What a pruned value becomes: one line saying what was there (the tool, its size, its exit
//! status, its first and last lines), recognisable so it is never pruned again.

/// How every placeholder begins, so a pruned value is recognised and never pruned again.
pub const PLACEHOLDER: &str = "[condense pruned";

/// Whether `text` is a placeholder prune wrote.
pub fn is_placeholder(text: &str) -> bool {
    text.trim_start().starts_with(PLACEHOLDER)
}

/// How many characters of a first or last line a placeholder quotes.
const QUOTED_CHARS: usize = 100;

/// The placeholder for a tool result: the tool, its size, its exit status when it states one,
/// and its first and last lines, e.g. `[condense pruned the output of Bash: 1234 tokens, 57
/// lines, exit status 1; first line: "…"; last line: "…"]`.
pub fn result_placeholder(tool: Option<&str>, tokens: u64, text: &str) -> String {
    Outline::of(text).result_placeholder(tool, tokens)
}

/// The placeholder for a long string in a tool call's arguments.
pub fn argument_placeholder(tokens: u64, text: &str) -> String {
    Outline::of(text).describe("this argument", tokens)
}

/// What a placeholder says of a text, taken from it once: a planner that holds this instead
/// of the text (a whole tool output) can write the placeholder later, when the tool's name is
/// known, without keeping every output of the session in memory until then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// Its lines.
    lines: usize,
    /// The exit status it states.
    exit_status: Option<i64>,
    /// Its first and last non-blank lines as quoted (the same line twice when it has one;
    /// `None` when every line is blank).
    ends: Option<(String, String)>,
    /// Whether it has more than one non-blank line.
    several: bool,
}

impl Outline {
    /// The outline of `text`.
    pub fn of(text: &str) -> Outline {
        let mut filled = text.lines().filter(|l| !l.trim().is_empty());
        let first = filled.next();
        let last = filled.next_back();
        Outline {
            lines: text.lines().count(),
            exit_status: exit_status(text),
            ends: first.map(|first| {
                (
                    one_line(first, QUOTED_CHARS),
                    one_line(last.unwrap_or(first), QUOTED_CHARS),
                )
            }),
            several: last.is_some(),
        }
    }

    /// The placeholder for the tool result this outlines (see [`result_placeholder`]).
    pub fn result_placeholder(&self, tool: Option<&str>, tokens: u64) -> String {
        let what = match tool {
            Some(tool) => format!("the output of {}", one_line(tool, 60)),
            None => "a tool output".to_owned(),
        };
        self.describe(&what, tokens)
    }

    fn describe(&self, what: &str, tokens: u64) -> String {
        let mut out = format!(
            "{PLACEHOLDER} {what}: {tokens} tokens, {} lines",
            self.lines
        );
        if let Some(status) = self.exit_status {
            out.push_str(&format!(", exit status {status}"));
        }
        match (&self.ends, self.several) {
            (None, _) => {}
            (Some((only, _)), false) => out.push_str(&format!("; only line: \"{only}\"")),
            (Some((first, last)), true) => {
                out.push_str(&format!("; first line: \"{first}\"; last line: \"{last}\""))
            }
        }
        out.push(']');
        out
    }
}

/// `text` on one line of at most `limit` characters (an ellipsis marks a cut), with control
/// characters and quotes that would confuse the placeholder replaced.
fn one_line(text: &str, limit: usize) -> String {
    let clean: String = text
        .trim()
        .chars()
        .map(|c| {
            if c.is_control() {
                ' '
            } else if c == '"' {
                '\''
            } else {
                c
            }
        })
        .collect();
    if clean.chars().count() <= limit {
        return clean;
    }
    let mut cut: String = clean.chars().take(limit).collect();
    cut.push('…');
    cut
}

/// The exit status a tool output states, in the wordings agents use: `Exit code: 1`, `exit
/// code 1`, `exited with code 1`, `"exit_code": 1`, `Exit status 1`.
pub fn exit_status(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    for pattern in ["exit code", "exited with code", "exit_code", "exit status"] {
        // The last mention is the final status (a log may quote earlier ones).
        if let Some(at) = lower.rfind(pattern) {
            let rest = lower[at + pattern.len()..].trim_start_matches(['"', ':', '=', ' ', '\t']);
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(status) = digits.parse() {
                return Some(status);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_say_what_was_there() {
        let text = "Compiling\nerror[E0308]: mismatched types\n\nProcess exited with code 101\n";
        let placeholder = result_placeholder(Some("Bash"), 42, text);
        assert_eq!(
            placeholder,
            "[condense pruned the output of Bash: 42 tokens, 4 lines, exit status 101; first \
             line: \"Compiling\"; last line: \"Process exited with code 101\"]"
        );
        assert!(is_placeholder(&placeholder));
        assert!(!is_placeholder("Compiling"));
        assert_eq!(
            argument_placeholder(7, "one \"quoted\"\u{1b} line"),
            "[condense pruned this argument: 7 tokens, 1 lines; only line: \"one 'quoted'  line\"]"
        );
        let long = "x".repeat(300);
        assert!(result_placeholder(None, 1, &long).contains(&format!("{}…", "x".repeat(100))));
    }

    #[test]
    fn an_outline_says_what_the_text_said_for_a_tool_named_later() {
        // Taken before the tool is known (the planner names a result through its call), it
        // writes what the text itself would.
        for (text, said) in [
            ("", "0 lines]"),
            ("\n  \n\t\n", "3 lines]"),
            ("\n  only \n\n", "3 lines; only line: \"only\"]"),
            (
                "a\n\nexit code: 3\n \n",
                "4 lines, exit status 3; first line: \"a\"; last line: \"exit code: 3\"]",
            ),
        ] {
            let outline = Outline::of(text);
            let placeholder = outline.result_placeholder(Some("Shell"), 5);
            assert_eq!(placeholder, result_placeholder(Some("Shell"), 5, text));
            assert_eq!(
                placeholder,
                format!("[condense pruned the output of Shell: 5 tokens, {said}"),
                "{text:?}"
            );
        }
    }

    #[test]
    fn exit_statuses_in_the_wordings_agents_use() {
        for (text, status) in [
            ("Exit code: 1", Some(1)),
            ("exit code 2\n", Some(2)),
            ("{\"output\":\"\",\"metadata\":{\"exit_code\": 0}}", Some(0)),
            ("Command exited with code 127", Some(127)),
            ("no status here", None),
        ] {
            assert_eq!(exit_status(text), status, "{text}");
        }
    }
}
