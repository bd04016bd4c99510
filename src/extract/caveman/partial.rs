//! A list line cut to the items that fit. A line of file names or code names that does not fit
//! whole would otherwise be dropped with every name on it, and the budget it could have used
//! goes to lengthening prose (the goal, a decision), where a token carries a tenth of the
//! re-used names a list token does (eval corpus). So the first list lines left out get as
//! many of their leading items as still fit, each item whole: half a path finds nothing.

/// The line `text` (`- edited: a.rs b.rs c.rs`, `- alpha beta`) with only its first `items`
/// items, its bullet and label kept; `None` when `items` is zero.
pub(super) fn first_items(text: &str, items: usize) -> Option<String> {
    if items == 0 {
        return None;
    }
    let (head, list) = split_label(text);
    let kept: Vec<&str> = list
        .split(' ')
        .filter(|w| !w.is_empty())
        .take(items)
        .collect();
    Some(format!("{head}{}", kept.join(" ")))
}

/// How many items the list line `text` holds.
pub(super) fn item_count(text: &str) -> usize {
    split_label(text)
        .1
        .split(' ')
        .filter(|w| !w.is_empty())
        .count()
}

/// The bullet and label of a list line (`- edited: `), and its items.
fn split_label(text: &str) -> (&str, &str) {
    let bullet = if text.starts_with("- ") { 2 } else { 0 };
    let rest = &text[bullet..];
    let label = match rest.split_once(' ') {
        Some((first, _)) if first.ends_with(':') => first.len() + 1,
        _ => 0,
    };
    text.split_at(bullet + label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_line_keeps_its_label_and_its_first_items_whole() {
        let files = "- edited: lib.rs cli/setup.go main.rs";
        assert_eq!(item_count(files), 3);
        assert_eq!(
            first_items(files, 2).as_deref(),
            Some("- edited: lib.rs cli/setup.go")
        );
        assert_eq!(first_items(files, 9).as_deref(), Some(files));
        let names = "- parse_probes Prefix::new holds_path";
        assert_eq!(item_count(names), 3);
        assert_eq!(first_items(names, 1).as_deref(), Some("- parse_probes"));
        assert_eq!(first_items(names, 0), None);
    }
}
