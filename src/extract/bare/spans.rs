//! The one-word code spans of the prose NOW quotes, as names its cut keeps. The agent and the
//! user mark code with backticks, and a marked word is a name the next turn searches for even
//! when it has no code name's shape: a branch pattern (`entire/<hash>-1`), a flag (`--force`),
//! a config key (`log.level`). Bare drops the backticks (see `plain`), so the spans are read
//! from the prose before that; a file's path is left out, as NOW's place and the other lines
//! name the files.

use super::super::model::{Extract, Said};
use super::super::paths::is_pathlike;

/// Characters a kept span may have at most: a longer one is code, not a name.
const SPAN_CHARS: usize = 40;

/// The one-word code spans of the requests and the agent's last words, in order, each once.
pub(super) fn code_spans(ex: &Extract) -> Vec<String> {
    let mut spans: Vec<String> = Vec::new();
    let texts = [&ex.context, &ex.task, &ex.doing, &ex.pending, &ex.goal];
    for said in texts.into_iter().flatten() {
        for span in spans_of(said) {
            if !spans.iter().any(|s| s == span) {
                spans.push(span.to_owned());
            }
        }
    }
    // A span another one extends (`entire/<hash>` of `entire/<hash>-1`) is named by it: in a
    // hundred tokens both would take the room of the prose around them.
    let extended = |s: &String| {
        spans
            .iter()
            .any(|o| o.len() > s.len() && o.starts_with(s.as_str()))
    };
    spans.iter().filter(|s| !extended(s)).cloned().collect()
}

/// The single backticks' contents of one text that are one word, not a file, and short.
fn spans_of(said: &Said) -> impl Iterator<Item = &str> {
    said.text
        .split("```")
        .step_by(2)
        .flat_map(|outside| outside.split('`').skip(1).step_by(2))
        .filter(|span| {
            (3..=SPAN_CHARS).contains(&span.chars().count())
                && !span.contains(char::is_whitespace)
                && !is_pathlike(span)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_spans_count_and_files_and_code_do_not() {
        let ex = Extract {
            doing: Some(Said {
                text: "They expect `entire/<hash>` but the code creates `entire/<hash>-1` \
                       in `manual_commit.go`; run `go test ./...` with `--force`."
                    .into(),
                index: 3,
            }),
            task: Some(Said {
                text: "use `--force` here ```\nlet `x` = 1\n```".into(),
                index: 1,
            }),
            ..Extract::default()
        };
        // `entire/<hash>` is named by the span that extends it.
        assert_eq!(code_spans(&ex), ["--force", "entire/<hash>-1"]);
    }
}
