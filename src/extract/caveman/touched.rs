//! The order the names the latest edits touched print in: the ones the session keeps using
//! first.
//!
//! An edit's text holds the names it is about (the function it changes, the types and calls
//! it uses) and the names only it holds: the local variables it declares (`baseErr`,
//! `treeErr`), which no other message names and the next turn does not search for. A name the
//! session mentions at least twice (it is among the frequent names) is one of the first kind.
//! Measured on the eval corpus with the frequent names ranked by who wrote them (see
//! `mention_weight`): caveman's probes 496 either way, cuts carrying at least the native
//! summary's re-used entities 24 -> 25 of 60.

/// `touched` (newest edit first, error messages last) with the names `frequent` holds first,
/// then the other names, then the quoted error messages, each group in its order.
pub(super) fn touched_in_use_order<'a>(touched: &'a [String], frequent: &[String]) -> Vec<&'a str> {
    let mut ordered: Vec<&str> = touched.iter().map(String::as_str).collect();
    ordered.sort_by_key(|name| {
        let quoted = name.starts_with('"');
        (quoted, !frequent.iter().any(|f| f == name))
    });
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_used_elsewhere_go_before_the_edits_locals_and_messages() {
        let touched = ["saveState", "stateErr", "StateFile", "\"cannot save\""].map(String::from);
        let frequent = ["StateFile", "saveState", "loadConfig"].map(String::from);
        assert_eq!(
            touched_in_use_order(&touched, &frequent),
            ["saveState", "StateFile", "stateErr", "\"cannot save\""]
        );
    }
}
