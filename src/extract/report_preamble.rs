//! A sub-agent's report without its preamble (pure): the sentences it opens with to say it is
//! done looking and about to write ("Perfect. Now I have enough information. Let me create a
//! detailed report.", "Based on my analysis, here's what I found:").
//!
//! Explore and Task agents open nearly every report that way: on the eval corpus, most of
//! caveman's `found:` lines showed only such words, since a report's gist is its first
//! paragraph. What it found comes after them.

/// How a sentence of narration starts, lowercase: a cheer, the agent saying it has what it
/// needs, or announcing what it will write.
const NARRATION_STARTS: [&str; 19] = [
    "perfect",
    "excellent",
    "great",
    "good",
    "okay",
    "alright",
    "now i have",
    "now i've",
    "now let me",
    "now i ",
    "i now have",
    "i have ",
    "i've ",
    "let me",
    "i'll ",
    "i will ",
    "based on ",
    "here's ",
    "here is ",
];

/// `report` from its first sentence that is not narration (see [`NARRATION_STARTS`]): a
/// sentence ends at `.`, `!`, `?` or `:` before a space or a line end. The whole report when
/// every sentence is narration.
pub(super) fn without_preamble(report: &str) -> &str {
    let mut rest = report.trim_start();
    while let Some(end) = sentence_end(rest) {
        let sentence = rest[..end].to_lowercase();
        if !NARRATION_STARTS
            .iter()
            .any(|s| starts_with_word(&sentence, s))
        {
            break;
        }
        let after = rest[end..].trim_start();
        if after.is_empty() {
            return report;
        }
        rest = after;
    }
    rest
}

/// Whether `sentence` starts with `start` as whole words: `good` starts "good news:", not
/// "goodbye".
fn starts_with_word(sentence: &str, start: &str) -> bool {
    sentence.strip_prefix(start).is_some_and(|rest| {
        start.ends_with(' ') || !rest.starts_with(|c: char| c.is_alphanumeric())
    })
}

/// The end of the first sentence of `text` (past its closing mark), if it has one.
fn sentence_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find_map(|at| {
        let mark = matches!(bytes[at], b'.' | b'!' | b'?' | b':');
        let next = bytes.get(at + 1).copied();
        (mark && next.is_none_or(|b| b == b' ' || b == b'\n' || b == b'\r')).then_some(at + 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_narration_goes_and_the_findings_stay() {
        let report = "Perfect. Now I have enough information. Let me create a detailed report.\n\n\
                      Based on my analysis, here's what I found: the session dir is built by \
                      SanitizePathForGemini.\n\n## Details";
        assert_eq!(
            without_preamble(report),
            "the session dir is built by SanitizePathForGemini.\n\n## Details"
        );
        // A report that opens on its subject keeps it; one that is all narration stays whole.
        assert_eq!(
            without_preamble("Summary: I have addressed all feedback."),
            "Summary: I have addressed all feedback."
        );
        assert_eq!(
            without_preamble("Now I have the full picture. Let me report."),
            "Now I have the full picture. Let me report."
        );
        // A version number's dot ends no sentence.
        assert_eq!(without_preamble("Good news: v1.2 is out."), "v1.2 is out.");
    }
}
