//! Errors the user pasted into a request: a stack trace, a compiler's or a linter's complaint,
//! a CI failure quoted in the ask ("I get this linting error on remote ci: Error: a.go:12:3: …").
//!
//! They are the problem the ask is about, yet no command of the session printed them, so the
//! error lines of tool outputs never see them. A request's text is read with the same error
//! shapes as a failed command's output (see `outcome`), and a finding the user quoted whose
//! message goes on over several lines (a linter quoting a multi-line string literal) is joined
//! up to where its quote closes, the long literal cut short, so that the complaint itself (`has
//! 3 occurrences, make it a constant`) survives the cut of an error line.
//!
//! A finding's place keeps the file's last two components (`strategy/a_test.go:12:16`), which
//! name it as well as the whole path does, so that the complaint fits the error line.
//!
//! A pasted error stands until the user's next substantive request (a short follow-up leans on
//! the one before): by then the agent has answered it, and whether a fix held is for the agent's
//! own runs to say.

use super::outcome::error_lines;

/// What an error the user pasted shows in place of a command.
pub(super) const PASTED_BY: &str = "pasted by the user";

/// Characters kept of a quoted literal inside a pasted error, before an ellipsis.
const LITERAL_CHARS: usize = 8;

/// The error lines of a user's request, in order: each line of the request read as the output
/// of a failed run (findings included), with the lines a quote spans joined first.
pub(super) fn pasted_errors(request: &str) -> Vec<String> {
    // Shortened before the error lines are taken, which cut each line to a fixed length.
    let lines: Vec<String> = joined_quotes(request)
        .lines()
        .map(|line| short_literals(&short_place(line)))
        .collect();
    error_lines(&lines.join("\n"), true)
}

/// The line with every path of three components or more (a finding's place `cmd/a/b/c.go:12:3`,
/// a quoted `'/Users/me/repo/src/package.json'`) cut to its last two: a pasted error names files
/// by the user's absolute paths, which take the room of the complaint.
fn short_place(line: &str) -> String {
    let words: Vec<String> = line.split(' ').map(short_path).collect();
    words.join(" ")
}

/// One word with the path in it cut to its last two components; a URL and a word with no
/// path are left alone.
fn short_path(word: &str) -> String {
    let start = word.find(|c: char| c.is_alphanumeric() || "/~.".contains(c));
    let Some(start) = start.filter(|_| !word.contains("://")) else {
        return word.to_owned();
    };
    let end = word[start..]
        .find(|c: char| !(c.is_alphanumeric() || "/~._-@+".contains(c)))
        .map_or(word.len(), |n| start + n);
    let path = &word[start..end];
    let parts: Vec<&str> = path.rsplitn(3, '/').collect();
    if parts.len() < 3 || !parts[0].contains('.') || parts[1].is_empty() {
        return word.to_owned();
    }
    format!(
        "{}{}/{}{}",
        &word[..start],
        parts[1],
        parts[0],
        &word[end..]
    )
}

/// The text with every line that opens a backtick quote it does not close joined (with a
/// space) to the lines up to the one that closes it, at most a few lines on.
fn joined_quotes(text: &str) -> String {
    // Long enough for a literal of several lines; longer, the quote is code, not a message.
    const SPAN: usize = 6;
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut at = 0;
    while at < lines.len() {
        let mut line = lines[at].trim_end().to_owned();
        at += 1;
        // A ``` fence is no quote of a message.
        let open = |l: &str| !l.contains("```") && l.matches('`').count() % 2 == 1;
        if open(&line) {
            let end = (at..lines.len().min(at + SPAN)).find(|&i| lines[i].contains('`'));
            if let Some(end) = end.filter(|&i| !lines[i].contains("```")) {
                for next in &lines[at..=end] {
                    line.push(' ');
                    line.push_str(next.trim());
                }
                at = end + 1;
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// The line with each backtick-quoted literal longer than [`LITERAL_CHARS`] cut to its start
/// and `…`: the literal is the code at fault, the words around it say what is wrong with it.
fn short_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for (n, piece) in line.split('`').enumerate() {
        if n > 0 {
            out.push('`');
        }
        let quoted = n % 2 == 1;
        if quoted && piece.chars().count() > LITERAL_CHARS {
            out.extend(piece.chars().take(LITERAL_CHARS));
            out.push('…');
        } else {
            out.push_str(piece);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_stack_error_is_an_error() {
        let ask = "running it fails:\n\
                   node:fs:443\n    return binding.readFileUtf8(path, flags);\n\
                   Error: ENOENT: no such file or directory, open '/home/me/repo/src/package.json'\n\
                   any other such pathing issues?";
        assert_eq!(
            pasted_errors(ask),
            ["Error: ENOENT: no such file or directory, open 'src/package.json'"]
        );
    }

    #[test]
    fn a_finding_quoting_a_long_literal_keeps_its_complaint() {
        let ask = "I get this linting error on remote ci:\n\n  \
                   Error: cmd/cli/a_test.go:12:16: string `{\"type\":\"human\",\"message\":{\"content\":\"test prompt\"}}\n  \
                   {\"type\":\"assistant\",\"message\":{\"content\":\"test response\"}}\n  ` has 3 occurrences, make it a constant (goconst)\n\
                   transcript := `x`";
        let errors = pasted_errors(ask);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("Error: cli/a_test.go:12:16: string `{\"type\":…`"),
            "{}",
            errors[0]
        );
        assert!(
            errors[0].ends_with("…` has 3 occurrences, make it a constant (goconst)"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn a_request_with_no_error_has_none() {
        assert!(pasted_errors("please add an error message to the login form").is_empty());
        assert!(pasted_errors("```\nlet x = `a\nb`;\n```\nwhy?").is_empty());
    }
}
