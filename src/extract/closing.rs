//! The closing words of the agent's last text: its last sentences, up to a length. A finished
//! turn ends on what is left or offered ("Remaining: WP15 …", "5 commits ready for a PR",
//! "Quick fix option: remove the fallback"), so a short pointer to the next step reads the
//! end of the answer, not its opening recap.

use super::said::sentences;
use super::text::{cut, one_line};

/// The last sentences of `text` on one line, as many whole ones as fit `max` characters (the
/// last one cut when it alone is longer), led by `…` when earlier sentences were left out.
pub(super) fn closing_words(text: &str, max: usize) -> String {
    // Closing words cut again (a renderer with less room) lead with one `…`, not two.
    let text = text.trim_start_matches('…');
    let whole = one_line(text, text.len());
    if whole.chars().count() <= max {
        return whole;
    }
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    for &(start, end) in sentences(text).iter().rev() {
        let sentence = one_line(&text[start..end], end - start);
        // One character for the `…` or the space before it.
        let width = sentence.chars().count() + 1;
        if used + width > max {
            if kept.is_empty() {
                kept.push(cut(&sentence, max - 1));
            }
            break;
        }
        used += width;
        kept.push(sentence);
    }
    kept.reverse();
    format!("…{}", kept.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_keeps_the_last_sentences_that_fit() {
        let text =
            "All tests pass.\n\n## Summary\nI changed the parser.\n\n**Remaining:** WP15, WP16.";
        assert_eq!(closing_words(text, 40), "…**Remaining:** WP15, WP16.");
        assert_eq!(
            closing_words(text, 55),
            "…I changed the parser. **Remaining:** WP15, WP16."
        );
        // A text that fits is whole; a last sentence longer than the room is cut.
        assert_eq!(closing_words("Done.", 60), "Done.");
        let long = "Ok. This last sentence is far longer than the room it is given here.";
        assert_eq!(closing_words(long, 20), "…This last sentence…");
        // Closing words closed again lead with one `…`.
        assert_eq!(
            closing_words("…First part. Second part.", 14),
            "…Second part."
        );
        assert_eq!(closing_words("…Done.", 20), "Done.");
    }
}
