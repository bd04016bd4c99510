//! The checks a plan names on bare's TEST line, when the session ran no test yet: what the next
//! agent runs to verify its work is then the plan's. They take only the room the four lines
//! leave under the budget, so NOW and NEXT keep every character they had: measured on the eval
//! corpus, cutting them to make room for the checks cost two now probes for one next and one
//! test probe.

use super::Bare;
use crate::extract::shorten::Shortening;
use crate::tokens::Tokenizer;

/// Characters below which a cut list of checks names none whole.
const SHORTEST: usize = 12;

/// `bare` with its `none` TEST line replaced by the `planned` checks (`planned: a; b`), cut to
/// the room left under `budget`; unchanged when there are none or no room.
pub(super) fn with_planned(
    bare: Bare,
    planned: &[String],
    budget: u64,
    tokenizer: Tokenizer,
) -> Bare {
    if bare.test != "none" || planned.is_empty() {
        return bare;
    }
    let text = Shortening::plain(format!("planned: {}", planned.join("; ")));
    let with = |chars: usize| Bare {
        test: text.at(chars),
        ..bare.clone()
    };
    let fits = |b: &Bare| tokenizer.text_tokens(&b.lines()) <= budget;
    let (mut low, mut high) = (0, text.full.chars().count());
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(&with(mid)) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    if low < SHORTEST {
        return bare;
    }
    with(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planned_checks_fill_an_empty_test_line_with_the_room_left() {
        let bare = Bare {
            now: "make the parser handle nested quotes".into(),
            next: "wire the flag into the CLI".into(),
            test: "none".into(),
            ci: "none".into(),
        };
        let planned = [
            "cargo fmt --check".to_owned(),
            "cargo test -p parser".to_owned(),
        ];
        let roomy = with_planned(bare.clone(), &planned, 100, Tokenizer::Chars4);
        assert_eq!(
            roomy.test,
            "planned: cargo fmt --check; cargo test -p parser"
        );
        assert_eq!(
            (roomy.now.as_str(), roomy.next.as_str()),
            (bare.now.as_str(), bare.next.as_str())
        );
        // Short of room, the list is cut; with none to spare, TEST stays `none`.
        let used = Tokenizer::Chars4.text_tokens(&bare.lines());
        let tight = with_planned(bare.clone(), &planned, used + 5, Tokenizer::Chars4);
        assert!(
            tight.test.starts_with("planned: cargo") && tight.test.ends_with('…'),
            "{tight:?}"
        );
        assert_eq!(
            with_planned(bare.clone(), &planned, used, Tokenizer::Chars4),
            bare
        );
        // A test that ran keeps its line.
        let ran = Bare {
            test: "cargo test → 3pass".into(),
            ..bare.clone()
        };
        assert_eq!(
            with_planned(ran.clone(), &planned, 100, Tokenizer::Chars4),
            ran
        );
    }
}
