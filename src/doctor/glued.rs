//! Lines that hold several whole JSON objects one after another (pure): a writer lost a line
//! end, as a crash between an object and its newline leaves it, and the next object was
//! appended to the same line. The agents' loaders parse a line as one object, fail, and skip
//! it, losing every record on it; putting the line ends back loses nothing.

use serde::de::IgnoredAny;

/// The offsets in `text` where the second and later objects start, when `text` is two or more
/// complete JSON objects with nothing but whitespace between them; `None` otherwise.
pub fn split_points(text: &[u8]) -> Option<Vec<usize>> {
    let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
    let mut starts = Vec::new();
    let mut end = 0;
    while let Some(item) = stream.next() {
        item.ok()?;
        let start = end
            + text[end..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if text.get(start) != Some(&b'{') {
            return None;
        }
        starts.push(start);
        end = stream.byte_offset();
    }
    if starts.len() < 2 || !text[end..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(starts.split_off(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_where_each_glued_object_starts() {
        assert_eq!(split_points(br#"{"a":1}{"b":2}"#), Some(vec![7]));
        assert_eq!(
            split_points(br#"{"a":1} {"b":"}{"}{"c":3}"#),
            Some(vec![8, 18])
        );
    }

    #[test]
    fn one_object_or_a_broken_one_is_not_glued() {
        assert_eq!(split_points(br#"{"a":1}"#), None);
        assert_eq!(split_points(br#"{"a":1}{"b":"#), None);
        assert_eq!(split_points(br#"{"a":1}[1]"#), None);
        assert_eq!(split_points(br#"{"a":1}x"#), None);
    }
}
