//! `NEXT: <request not acted on> @ prompt-generator.ts`: a new request comes right after the
//! work, and is most often about the code that work wrote. NOW names the file of the latest
//! edit; NEXT names the one written before it, the other place the request may send the
//! agent ("make sure both files are merged", "prefix it in both places"). Cut short, the
//! request shortens and the file stays.

use super::super::model::Extract;
use super::super::paths::file_name;
use super::super::shorten::Shortening;

/// `next` and ` @ <file name>`: the file written most recently after NOW's own (the focus),
/// unless `next` names it already; `next` as it is when the session wrote no other file.
pub(super) fn with_other_written(next: Shortening, ex: &Extract) -> Shortening {
    let focus = ex.focus().map(|f| f.path.as_str());
    let name = ex
        .files
        .iter()
        .filter(|f| f.written() && Some(f.path.as_str()) != focus)
        .max_by_key(|f| f.last)
        .map(|f| file_name(&f.path));
    next.with_file_named(" @ ", name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn a_new_request_names_the_file_written_before_the_latest() {
        let edit = |id: &str, path: &str| {
            call(
                id,
                "Edit",
                &format!(r#"{{"file_path":"{path}","old_string":"a","new_string":"b"}}"#),
            )
        };
        let records = [
            user("make the prompt shorter"),
            edit("1", "src/prompt.ts"),
            call("2", "Read", r#"{"file_path":"src/notes.ts"}"#),
            edit("3", "src/engine.ts"),
            assistant("Done."),
            user("make sure both agree on the limit"),
        ];
        let ex = extract(&records);
        let next = Shortening::plain("make sure both agree on the limit".to_owned());
        let named = with_other_written(next.clone(), &ex);
        // engine.ts is NOW's; notes.ts was only read.
        assert_eq!(named.full, "make sure both agree on the limit @ prompt.ts");
        // Cut short, the request shortens and the file stays.
        assert_eq!(named.at(27), "make sure both… @ prompt.ts");
        // A request that names the file, or a session that wrote one file only, gets nothing.
        let names_it = Shortening::plain("fix prompt.ts".to_owned());
        assert_eq!(with_other_written(names_it, &ex).full, "fix prompt.ts");
        let one = extract(&records[3..]);
        assert_eq!(with_other_written(next.clone(), &one).full, next.full);
    }
}
