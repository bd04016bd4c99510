//! The code around the agent's latest edit: where the edit landed in the fullest copy of its
//! file the session holds, the definition it sits in, and the calls the rest of its block
//! makes. The edit's own text names none of these, yet the next step often lies there: a
//! request like "do it the way the check above does" points at the code beside the change.
//!
//! The file's text comes from the edit's result when the format keeps the whole file there
//! ([`file_before_edit`]), else from the latest read of the file that holds the edit's text.
//! The block is found by indentation alone, which every language is written with, so no
//! parser is needed: from the edit's lines, out to the first lines above and below that are
//! indented less.

use serde_json::Value;

use super::model::Around;
use super::names::is_code_name;
use super::text::without_gutter;
use crate::transcript::{file_before_edit, Part, Record};

/// How many calls around an edit an extract keeps.
const CALLS: usize = 6;

/// An edit as its call states it, and the record of its result once it comes.
#[derive(Debug)]
pub(super) struct EditSite {
    /// The file, written as the extract writes paths.
    pub path: String,
    /// The text the edit replaced: where it sits in the file before the edit.
    pub old: String,
    /// The text it wrote: where it sits in a read of the file after the edit.
    pub new: String,
    /// The record index of the call.
    pub index: usize,
    /// The call's slot among the builder's pending calls, which its result is paired with.
    pub slot: usize,
    /// The record index of the result.
    pub result: Option<usize>,
}

/// The replaced and the written text of an edit tool's arguments: the strings under an
/// `old…` and a `new…` key of one object (`old_string` / `new_string`, pi's `oldText` /
/// `newText`, kimi-cli's `edit.old` / `edit.new`, the first of a multi-edit's list).
pub(super) fn replaced(arguments: &str) -> Option<(String, String)> {
    fn pair(value: &Value) -> Option<(String, String)> {
        match value {
            Value::Object(map) => {
                let text = |prefix: &str| {
                    map.iter()
                        .find(|(k, v)| k.to_ascii_lowercase().starts_with(prefix) && v.is_string())
                        .and_then(|(_, v)| v.as_str())
                };
                match (text("old"), text("new")) {
                    (Some(old), Some(new)) => Some((old.to_owned(), new.to_owned())),
                    _ => map.values().find_map(pair),
                }
            }
            Value::Array(items) => items.iter().find_map(pair),
            _ => None,
        }
    }
    let (old, new) = pair(&serde_json::from_str(arguments).ok()?)?;
    (!old.trim().is_empty()).then_some((old, new))
}

/// The code around an edit, given the reads of files (path, record index of the result) in
/// session order. Names in `known` (what the latest edits touched) are not repeated among the
/// calls. Only the latest edit is looked at: an older one's place is no longer where the work
/// is, even when the latest one's has nothing to add.
pub(super) fn around(
    records: &[Record],
    site: &EditSite,
    reads: &[(String, usize)],
    known: &[String],
) -> Option<Around> {
    let (text, anchor) = file_text(records, site, reads)?;
    let (function, calls) = surroundings(&text, anchor, known)?;
    Some(Around {
        path: site.path.clone(),
        function,
        calls,
        index: site.index,
    })
}

/// The fullest text of the edit's file the session holds, and the piece of it the edit is at:
/// the file before the edit from its result, and the replaced text in it; else the latest
/// read result that holds the replaced text (read before the edit) or the written one (after).
fn file_text<'s>(
    records: &[Record],
    site: &'s EditSite,
    reads: &[(String, usize)],
) -> Option<(String, &'s str)> {
    let before = site
        .result
        .and_then(|r| records.get(r))
        .and_then(file_before_edit);
    if let Some(text) = before.filter(|t| t.contains(&site.old)) {
        return Some((text, &site.old));
    }
    let reads = reads.iter().rev().filter(|(path, _)| *path == site.path);
    for (_, index) in reads {
        let Some(record) = records.get(*index) else {
            continue;
        };
        // Read from a copy: read in place, every read of the file looked at stayed decoded in
        // the transcript as long as it lived (see `Record::to_read_once`), which was 26 MB of
        // the extract's 28 MB heap peak on a 100 MiB kimi-cli context that reads one file
        // many times (issue 33).
        let record = record.to_read_once();
        let Some(message) = record.message() else {
            continue;
        };
        for part in &message.parts {
            let (Part::Text(text) | Part::ToolResult { text, .. }) = part else {
                continue;
            };
            let plain: Vec<&str> = text.lines().map(without_gutter).collect();
            let plain = plain.join("\n");
            for anchor in [&site.old, &site.new] {
                if !anchor.trim().is_empty() && plain.contains(anchor.as_str()) {
                    return Some((plain, anchor));
                }
            }
        }
    }
    None
}

/// The definition around `anchor` in `file` and the calls of the rest of its block, nearest
/// first up to [`CALLS`], then in file order; `None` when the anchor is not in the file, sits
/// at the top level (the edit is a whole definition: nothing is around it), or has neither.
fn surroundings(
    file: &str,
    anchor: &str,
    known: &[String],
) -> Option<(Option<String>, Vec<String>)> {
    let at = file.find(anchor)?;
    let lines: Vec<&str> = file.lines().collect();
    let first = file[..at].matches('\n').count();
    let last = (first + anchor.trim_end().matches('\n').count()).min(lines.len().checked_sub(1)?);
    let base = (first..=last).filter_map(|i| indent(lines[i])).min()?;
    if base == 0 {
        return None;
    }
    let less = |i: &usize| indent(lines[*i]).is_some_and(|n| n < base);
    let start = (0..first).rev().find(less).map_or(0, |i| i + 1);
    let end = (last + 1..lines.len()).find(less).unwrap_or(lines.len());
    let function = enclosing(&lines[..first], base);
    let mut found: Vec<(usize, usize, usize, String)> = Vec::new();
    for i in (start..end).filter(|i| !(first..=last).contains(i)) {
        let distance = if i < first { first - i } else { i - last };
        for (column, call) in calls(lines[i]) {
            let tail = call.rsplit(['.', ':']).next().unwrap_or(call);
            let listed = |name: &str| known.iter().any(|k| k == name);
            let seen = found.iter().any(|f| f.3 == call);
            if !seen && !listed(call) && !listed(tail) && function.as_deref() != Some(tail) {
                found.push((distance, i, column, call.to_owned()));
            }
        }
    }
    found.sort_by_key(|f| f.0);
    found.truncate(CALLS);
    found.sort_by_key(|f| (f.1, f.2));
    let calls: Vec<String> = found.into_iter().map(|f| f.3).collect();
    (function.is_some() || !calls.is_empty()).then_some((function, calls))
}

/// The width of a line's indentation (a tab counts four), `None` for a blank line, which
/// neither opens nor closes a block.
fn indent(line: &str) -> Option<usize> {
    let body = line.trim_start();
    (!body.is_empty()).then(|| {
        line[..line.len() - body.len()]
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum()
    })
}

/// The name of the nearest definition in `lines` (those above the edit) that encloses code
/// indented `base`: walking up, each line indented less than everything below
/// it is an opener, and the first opener that defines something names it.
fn enclosing(lines: &[&str], base: usize) -> Option<String> {
    let mut threshold = base;
    for (at, line) in lines.iter().enumerate().rev() {
        let Some(n) = indent(line).filter(|&n| n < threshold) else {
            continue;
        };
        if let Some(name) = definition(line) {
            return Some(name.to_owned());
        }
        if let Some(name) = split_signature(&lines[..=at], n) {
            return Some(name);
        }
        threshold = n;
        if n == 0 {
            break;
        }
    }
    None
}

/// The name a signature split over lines defines, given the lines up to its last one
/// (`) *Result {`), indented `n`: its parameters, one a line, are indented more, so the
/// signature opens on the nearest line above indented `n` or less (`func Attribute(`), and
/// read as one line it names what [`definition`] finds. gofmt, rustfmt and black split a
/// long signature so, and without this the function around an edit had no name whenever its
/// parameters did not fit one line.
fn split_signature(lines: &[&str], n: usize) -> Option<String> {
    let (tail, above) = lines.split_last()?;
    if !tail.trim_start().starts_with(')') {
        return None;
    }
    let head = above
        .iter()
        .rposition(|l| indent(l).is_some_and(|m| m <= n))?;
    let joined: Vec<&str> = lines[head..].iter().map(|l| l.trim()).collect();
    definition(&joined.join(" ")).map(str::to_owned)
}

/// Words that may stand before a definition's keyword or a method's name.
const MODIFIERS: [&str; 16] = [
    "pub",
    "async",
    "export",
    "default",
    "static",
    "public",
    "private",
    "protected",
    "internal",
    "override",
    "final",
    "abstract",
    "unsafe",
    "extern",
    "virtual",
    "inline",
];

/// Keywords that open a definition with a body, the name following.
const DEFINERS: [&str; 10] = [
    "func",
    "fn",
    "def",
    "fun",
    "function",
    "class",
    "impl",
    "trait",
    "interface",
    "module",
];

/// Words that open a block but define nothing, though they can look like a method's name.
const CONTROL: [&str; 16] = [
    "if", "for", "while", "switch", "catch", "with", "return", "else", "elif", "match", "do",
    "try", "foreach", "using", "lock", "when",
];

/// The name a line defines: after a definer keyword (`func (r *Repo) Head() …` names `Head`,
/// `impl<T> Stack<T>` names `Stack`), a `const|let|var name = … =>` arrow function, or a method
/// signature (`public void handle(Request r) {`, `async render(width) {`): words then a name
/// whose parenthesis closes on the line, followed by the opening `{`.
fn definition(line: &str) -> Option<&str> {
    let mut rest = line.trim();
    loop {
        let word = rest.split(|c: char| c.is_whitespace() || c == '(').next()?;
        let visibility = word == "pub" && rest[3..].starts_with('(');
        if visibility {
            rest = rest[rest.find(')')? + 1..].trim_start();
        } else if MODIFIERS.contains(&word) && rest[word.len()..].starts_with(char::is_whitespace) {
            rest = rest[word.len()..].trim_start();
        } else {
            break;
        }
    }
    if let Some(declared) = ["const ", "let ", "var "]
        .iter()
        .find_map(|w| rest.strip_prefix(w))
    {
        if declared.starts_with("fn ") {
            rest = declared;
        } else {
            let name = identifier(declared.trim_start());
            let arrow = declared.contains("=>") || declared.contains("= function");
            return (arrow && !name.is_empty()).then_some(name);
        }
    }
    let keyword = identifier(rest);
    if DEFINERS.contains(&keyword) {
        let mut after = rest[keyword.len()..].trim_start_matches([' ', '*']);
        // Go's receiver and Rust's generics come before the name.
        for (open, close) in [('(', ')'), ('<', '>')] {
            if after.starts_with(open) {
                after = after[after.find(close)? + 1..].trim_start();
            }
        }
        let name = identifier(after);
        return (!name.is_empty()).then_some(name);
    }
    let open = rest.find('(')?;
    let close = open + rest[open..].find(')')?;
    let words: Vec<&str> = rest[..open].split_whitespace().collect();
    let name = *words.last()?;
    let typed = words.iter().all(|w| {
        w.chars()
            .all(|c| c.is_alphanumeric() || "_$<>[]?,".contains(c))
    });
    if !rest.ends_with('{') {
        return None;
    }
    // After the parameters only a return type or a `throws` clause, then the body's `{`.
    let returns = rest[close + 1..rest.len() - 1]
        .chars()
        .all(|c| c.is_alphanumeric() || c.is_whitespace() || ":-><[],?*&'_.|".contains(c));
    let signature = typed
        && identifier(name) == name
        && !CONTROL.contains(&name)
        && !rest[open + 1..close].contains('(')
        && returns;
    signature.then_some(name)
}

/// The identifier `text` starts with (letters, digits, `_`, `$`), possibly empty.
fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The calls a line makes that name code (see [`is_code_name`]), each with its column: the
/// callee as written right before `(`, cut to its last two parts (`ag.FormatResumeCommand`,
/// `client.get_items` of `self.client.get_items`), so a call to `len` or `Fprintf` is no name.
fn calls(line: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    for (open, _) in line.match_indices('(') {
        let chain = line[..open]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':'))
            .map_or(0, |i| i + 1);
        let callee = line[chain..open].trim_start_matches([':', '.']);
        let name_at = callee.rfind(['.', ':']).map_or(0, |i| i + 1);
        if !is_code_name(&callee[name_at..]) {
            continue;
        }
        // The part before the name, if any: `ag` of `ag.FormatResumeCommand`.
        let head = callee[..name_at].trim_end_matches([':', '.']);
        let from = head.rfind(['.', ':']).map_or(0, |i| i + 1);
        let start = open - callee.len() + from;
        found.push((start, &line[start..open]));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO: &str = "package cli\n\nfunc check(id string) (bool, error) {\n\tstrat := GetStrategy()\n\tif hasConflict {\n\t\tbaseCommit := \"\"\n\t\tnewState := &strategy.SessionState{\n\t\t\tBaseCommit: baseCommit,\n\t\t}\n\t\tif saveErr := strategy.SaveSessionState(newState); saveErr != nil {\n\t\t\tfmt.Fprintf(os.Stderr, \"x\")\n\t\t}\n\t\tresumeCmd := ag.FormatResumeCommand(ag.ExtractAgentSessionID(id))\n\t\tif err := outputHookResponse(false, resumeCmd); err != nil {\n\t\t\treturn false, err\n\t\t}\n\t}\n\treturn false, nil\n}\n";

    #[test]
    fn the_block_reaches_down_to_its_closing_line_and_up_to_its_opener() {
        let anchor =
            "\t\tnewState := &strategy.SessionState{\n\t\t\tBaseCommit: baseCommit,\n\t\t}";
        let (function, calls) = surroundings(GO, anchor, &[]).unwrap();
        assert_eq!(function.as_deref(), Some("check"));
        assert_eq!(
            calls,
            [
                "strategy.SaveSessionState",
                "ag.FormatResumeCommand",
                "ag.ExtractAgentSessionID",
                "outputHookResponse"
            ]
        );
        // One level out, the block is the function's body; names already listed stay out.
        let known = ["GetStrategy".to_owned(), "outputHookResponse".to_owned()];
        let (_, calls) = surroundings(GO, "\tif hasConflict {\n\t\tbaseCommit", &known).unwrap();
        assert_eq!(
            calls,
            [
                "strategy.SaveSessionState",
                "ag.FormatResumeCommand",
                "ag.ExtractAgentSessionID"
            ]
        );
        // A whole definition has nothing around it; text the file lacks has no place.
        assert_eq!(surroundings(GO, "func check(", &[]), None);
        assert_eq!(surroundings(GO, "\tnot there", &[]), None);
    }

    #[test]
    fn the_nearest_calls_are_kept_in_file_order() {
        let mut body = String::from("def run(self):\n");
        for n in 0..12 {
            body.push_str(&format!("    self.step_{n}()\n"));
            if n == 9 {
                body.push_str("    edited = True\n");
            }
        }
        let (function, calls) = surroundings(&body, "    edited = True", &[]).unwrap();
        assert_eq!(function.as_deref(), Some("run"));
        let want: Vec<String> = (6..12).map(|n| format!("self.step_{n}")).collect();
        assert_eq!(calls, want);
    }

    #[test]
    fn definitions_are_named_across_languages() {
        for (line, name) in [
            ("func (r *Repo) Head() (*Ref, error) {", "Head"),
            ("pub(crate) async fn message(&mut self) {", "message"),
            ("impl<T> Stack<T> {", "Stack"),
            ("    async def fetch(self, url):", "fetch"),
            ("export default function App() {", "App"),
            ("export const useTodos = () => {", "useTodos"),
            (
                "  public static int parse(String s) throws IOException {",
                "parse",
            ),
            ("  async render(width: number): string[] {", "render"),
            ("class TodoList extends Component {", "TodoList"),
        ] {
            assert_eq!(definition(line), Some(name), "{line}");
        }
        for line in [
            "if (ready) {",
            "} else if (x) {",
            "describe(\"parser\", () => {",
            "t.Run(\"case\", func(t *testing.T) {",
            "for i := range items {",
            "const limit = 10;",
            "foo(bar) + 1 {",
            "func(t *testing.T) {",
        ] {
            assert_eq!(definition(line), None, "{line}");
        }
    }

    #[test]
    fn a_signature_split_over_lines_names_its_function() {
        let go = "func Attribute(\n\tbase *object.Tree,\n\tfiles []string,\n) *Result {\n\tfor _, f := range files {\n\t\tcontent := read(base, f)\n\t}\n}\n";
        let (function, _) = surroundings(go, "\t\tcontent := read", &[]).unwrap();
        assert_eq!(function.as_deref(), Some("Attribute"));
        let python = "class Repo:\n    def fetch(\n        self,\n        remote,\n    ):\n        pulled = self.pull(remote)\n";
        let (function, _) = surroundings(python, "        pulled = ", &[]).unwrap();
        assert_eq!(function.as_deref(), Some("fetch"));
        // A call's arguments closing on their own line define nothing: the walk goes on up.
        let call = "fn run() {\n    let x = go(\n        a,\n    );\n    if x {\n        stop();\n    }\n}\n";
        let (function, _) = surroundings(call, "        stop();", &[]).unwrap();
        assert_eq!(function.as_deref(), Some("run"));
    }

    #[test]
    fn calls_name_code_and_keep_one_qualifier() {
        let line = "\tif err := self.client.get_items(len(x), fmt.Sprintf(\"%d\", n)) || Builder::new_with(1) {";
        let got: Vec<&str> = calls(line).into_iter().map(|(_, c)| c).collect();
        assert_eq!(got, ["client.get_items", "Builder::new_with"]);
    }

    /// entireio's prefix up to its cut: the second edit of `checkConcurrentSessions` is found
    /// in Claude Code's copy of the file before it, and the block it sits in goes on to call
    /// `outputHookResponse`, the summary's next step; without that copy, the read of lines
    /// 124-148 before the edits still shows the block's first calls, though not the function.
    #[test]
    fn the_code_around_entireios_latest_edit() {
        use crate::transcript::claude_code::ClaudeCode;
        use crate::transcript::model::testing::{corpus, read_all};
        let lines = corpus("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
        let (mut records, _) = read_all(&ClaudeCode, &lines[..30]);
        let ex = crate::extract::extract(&records);
        let around = ex.around.unwrap();
        assert_eq!(around.path, "cmd/entire/cli/hooks_claudecode_handlers.go");
        assert_eq!(around.function.as_deref(), Some("checkConcurrentSessions"));
        assert_eq!(
            around.calls,
            [
                "strategy.SaveSessionState",
                "ag.FormatResumeCommand",
                "ag.ExtractAgentSessionID",
                "outputHookResponse"
            ]
        );
        for record in &mut records {
            record.raw = b"{}";
        }
        let around = crate::extract::extract(&records).around.unwrap();
        assert_eq!(around.function, None);
        assert_eq!(
            around.calls,
            [
                "strategy.SaveSessionState",
                "ag.FormatResumeCommand",
                "ag.ExtractAgentSessionID"
            ]
        );
    }

    /// The reads looked at for the file's text are read from copies: the session's own texts
    /// stay as they were read, still escaped, rather than decoded and kept with it (issue 33).
    #[test]
    fn the_reads_looked_at_stay_undecoded_in_the_session() {
        use crate::transcript::claude_code::ClaudeCode;
        use crate::transcript::model::testing::{corpus, read_all};
        let lines = corpus("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
        let (mut records, _) = read_all(&ClaudeCode, &lines[..30]);
        // Without Claude Code's copy of the file before the edit, the reads are looked at.
        for record in &mut records {
            record.raw = b"{}";
        }
        let escaped = |records: &[Record]| {
            records
                .iter()
                .filter_map(Record::message)
                .flat_map(|message| &message.parts)
                .filter(|part| {
                    matches!(part, Part::ToolResult { text, .. } if text.escaped_body().is_some())
                })
                .count()
        };
        let before = escaped(&records);
        assert!(before > 0, "the fixture's results are read escaped");
        let around = crate::extract::extract(&records).around.unwrap();
        assert_eq!(around.calls.len(), 3, "the read was looked at");
        assert_eq!(escaped(&records), before);
    }

    #[test]
    fn the_replaced_text_comes_from_any_edit_tools_keys() {
        let claude = r#"{"file_path":"a.go","old_string":"x := 1","new_string":"x := 2"}"#;
        assert_eq!(replaced(claude), Some(("x := 1".into(), "x := 2".into())));
        let pi = r#"{"path":"a.ts","oldText":"a","newText":"b"}"#;
        assert_eq!(replaced(pi), Some(("a".into(), "b".into())));
        let multi = r#"{"file_path":"a.rs","edits":[{"old_string":"p","new_string":"q"},{"old_string":"r","new_string":"s"}]}"#;
        assert_eq!(replaced(multi), Some(("p".into(), "q".into())));
        let create = r#"{"file_path":"a.rs","old_string":"","new_string":"fn main() {}"}"#;
        assert_eq!(replaced(create), None);
        assert_eq!(replaced(r#"{"file_path":"a.rs","content":"x"}"#), None);
    }
}
