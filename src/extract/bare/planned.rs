//! The checks a plan names on bare's TEST line, when the session ran no test yet: what the next
//! agent runs to verify its work is then the plan's. They take only the room the four lines
//! leave under the budget, so NOW and NEXT keep every character they had: measured on the eval
//! corpus, cutting them to make room for the checks cost two now probes for one next and one
//! test probe.

use crate::extract::shorten::Shortening;

/// Characters below which a cut list of checks names none whole.
const SHORTEST: usize = 12;

/// The TEST value that lists the `planned` checks (`planned: a; b`), cut to the longest that
/// `fits`; none when there are no checks or no room for a useful part of them.
pub(super) fn planned_test(planned: &[String], fits: impl Fn(&str) -> bool) -> Option<String> {
    if planned.is_empty() {
        return None;
    }
    let text = Shortening::plain(format!("planned: {}", planned.join("; ")));
    let longest = text.longest_cut(0, fits);
    (longest >= SHORTEST).then(|| text.at(longest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planned_checks_take_the_room_left_or_none() {
        let planned = [
            "cargo fmt --check".to_owned(),
            "cargo test -p parser".to_owned(),
        ];
        let whole = "planned: cargo fmt --check; cargo test -p parser";
        assert_eq!(planned_test(&planned, |_| true).as_deref(), Some(whole));
        // Short of room, the list is cut; with too little, there is none.
        let cut = planned_test(&planned, |t| t.chars().count() <= 30).unwrap();
        assert!(
            cut.starts_with("planned: cargo") && cut.ends_with('…'),
            "{cut}"
        );
        assert_eq!(planned_test(&planned, |t| t.chars().count() <= 8), None);
        assert_eq!(planned_test(&[], |_| true), None);
    }
}
