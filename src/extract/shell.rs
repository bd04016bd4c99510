//! A small shell lexer (simple commands, quotes, heredocs; not a shell) and what it tells: the
//! files a command line reads, creates, edits or deletes, whether it runs tests or only looks,
//! and the command without its output plumbing.

use super::go_packages::names_packages;
use super::paths::{clean_path, file_name};
use super::text::has;
use super::tools::Op;

/// True for a command that runs tests, or type-checks a project that may have none.
pub(super) fn is_test_command(command: &str) -> bool {
    const RUNNERS: [&str; 26] = [
        "cargo test",
        "cargo nextest",
        "pytest",
        "go test",
        "jest",
        "vitest",
        "npm test",
        "npm run test",
        "npm t ",
        "yarn test",
        "pnpm test",
        "pnpm run test",
        "bun test",
        "mise run test",
        "make test",
        "make check",
        "tox",
        "rspec",
        "node --test",
        "deno test",
        "unittest",
        // Type checks: what a project without tests verifies with.
        "tsc --noEmit",
        "npm run typecheck",
        "npm run type-check",
        "cargo check",
        "go vet",
    ];
    RUNNERS.iter().any(|r| has(command, r))
}

/// True for a command that only looks: its first word is a viewer or search, or a read-only
/// git subcommand.
pub(super) fn is_inspection(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let Some(first) = words.next() else {
        return true;
    };
    let verb = first.rsplit('/').next().unwrap_or(first);
    match verb {
        "ls" | "cat" | "head" | "tail" | "less" | "grep" | "rg" | "find" | "fd" | "wc" | "echo"
        | "pwd" | "which" | "tree" | "file" | "stat" | "du" | "df" | "awk" | "sort" | "nl"
        | "diff" => true,
        "sed" => !command.contains(" -i"),
        "git" => matches!(
            words.next(),
            Some("status" | "log" | "diff" | "show" | "branch" | "remote" | "rev-parse")
        ),
        _ => false,
    }
}

/// Files a shell command names, with what it does to them. A word is a path when its last
/// component has a file extension or is a well-known file name (see [`is_pathlike`](crate::extract::paths::is_pathlike)); the
/// verb decides the operation (`rm` deletes, `touch` / `>` / `tee` create, `sed -i` edits,
/// `cp` / `mv` create their target, anything else reads).
pub(super) fn shell_paths(command: &str) -> Vec<(String, Op)> {
    let mut paths = Vec::new();
    for words in simple_commands(command) {
        let mut words = words.as_slice();
        while let Some(first) = words.first() {
            let wrapper = matches!(
                first.as_str(),
                "sudo" | "env" | "time" | "nohup" | "command"
            ) || (first.contains('=') && !first.starts_with('-'));
            if !wrapper {
                break;
            }
            words = &words[1..];
        }
        let Some(verb) = words.first() else { continue };
        let verb = verb.rsplit('/').next().unwrap_or(verb).to_owned();
        let mut args: Vec<&str> = Vec::new();
        let mut redirects: Vec<(&str, Op)> = Vec::new();
        let mut i = 1;
        let mut in_place = false;
        let mut pattern_given = false;
        while i < words.len() {
            let w = words[i].as_str();
            i += 1;
            match w {
                ">" | ">|" | "1>" | "2>" | "&>" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Create));
                    }
                    i += 1;
                }
                ">>" | "2>>" | "&>>" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Edit));
                    }
                    i += 1;
                }
                "<" => {
                    if let Some(t) = words.get(i) {
                        redirects.push((t, Op::Read));
                    }
                    i += 1;
                }
                _ if takes_value(&verb, w) => {
                    pattern_given |= w == "-e";
                    i += 1;
                }
                // `find DIR -name X`: past the first option, words are tests and their values.
                _ if verb == "find" && w.starts_with('-') => break,
                _ if w.starts_with('-') => {
                    in_place |= w.starts_with("-i") || w == "--in-place" || w.contains("pi");
                }
                _ if w.starts_with('>') => {
                    let target = w.trim_start_matches('>');
                    let op = if w.starts_with(">>") {
                        Op::Edit
                    } else {
                        Op::Create
                    };
                    redirects.push((target, op));
                }
                _ => args.push(w),
            }
        }
        // The first operand of a search or stream editor is its pattern or script.
        // jq's is its filter (`jq .author.login out.json`), which reads like a dotfile.
        let scripted = matches!(
            verb.as_str(),
            "grep" | "rg" | "egrep" | "ag" | "ack" | "awk" | "sed" | "jq"
        );
        if scripted && !pattern_given && !args.is_empty() {
            args.remove(0);
        }
        if verb == "echo"
            || verb == "printf"
            || verb == "cd"
            || names_packages(&verb, args.first().copied())
        {
            args.clear();
        }
        let git = verb == "git";
        if git && !args.is_empty() {
            args.remove(0);
        }
        let sub = if git {
            words.get(1).map(String::as_str).unwrap_or("")
        } else {
            verb.as_str()
        };
        let last = args.len().saturating_sub(1);
        // `mv a.rs b.rs src/` (three operands or more, or a last one ending in `/`) moves into a
        // directory: what it creates is `src/a.rs` and `src/b.rs`, and `src/` is no file.
        let into_dir =
            matches!(sub, "mv" | "cp") && last > 0 && (last > 1 || args[last].ends_with('/'));
        for (n, arg) in args.iter().enumerate() {
            if into_dir {
                if n < last {
                    let source = if sub == "mv" { Op::Delete } else { Op::Read };
                    paths.extend(clean_path(arg).map(|path| (path, source)));
                    let moved = format!("{}/{}", args[last].trim_end_matches('/'), file_name(arg));
                    paths.extend(clean_path(&moved).map(|path| (path, Op::Create)));
                }
                continue;
            }
            let op = match sub {
                "rm" | "unlink" => Op::Delete,
                "touch" | "tee" => Op::Create,
                "mv" if n == last && n > 0 => Op::Create,
                "mv" => Op::Delete,
                "cp" if n == last && n > 0 => Op::Create,
                "sed" | "perl" if in_place => Op::Edit,
                _ => Op::Read,
            };
            if let Some(path) = clean_path(arg) {
                paths.push((path, op));
            }
        }
        for (target, op) in redirects {
            if let Some(path) = clean_path(target) {
                paths.push((path, op));
            }
        }
    }
    paths
}

/// True when option `option` of `verb` takes the next word as its value, which is not a file
/// (a module, a script, a pattern, a count, a message, a directory to run in, a crate).
fn takes_value(verb: &str, option: &str) -> bool {
    let verb = verb.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match verb {
        // `python -m pytest -k expr`: the module's options follow the interpreter's.
        "python" | "node" | "ruby" | "perl" | "bash" | "sh" | "zsh" => {
            matches!(option, "-c" | "-m" | "-e" | "-k" | "-p")
        }
        "pytest" => matches!(option, "-k" | "-m" | "-p"),
        "head" | "tail" => matches!(option, "-n" | "-c"),
        "git" => matches!(option, "-m" | "-C" | "-c" | "--message"),
        "grep" | "rg" | "egrep" => {
            matches!(option, "-e" | "-m" | "-g" | "--glob" | "-t" | "--type")
        }
        "sed" => option == "-e",
        "awk" => matches!(option, "-F" | "-v"),
        "cargo" => matches!(
            option,
            "-p" | "--package" | "--bin" | "--test" | "--features"
        ),
        "npm" | "pnpm" | "yarn" => matches!(option, "-w" | "--workspace" | "--filter"),
        // `gh pr view --json author -q .author.login`: a jq filter or a Go template.
        "gh" => matches!(option, "-q" | "--jq" | "-t" | "--template"),
        _ => false,
    }
}

/// The words of each simple command in a shell script: split at unquoted `;`, `&`, `|` and
/// newlines, quotes removed, heredoc bodies skipped. Good enough to find file names; not a
/// shell.
fn simple_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quoted = false; // the word had quotes, so an empty word still counts
    let mut heredocs: Vec<String> = Vec::new();
    let mut chars = script.chars().peekable();
    let flush_word = |words: &mut Vec<String>, word: &mut String, quoted: &mut bool| {
        if !word.is_empty() || *quoted {
            words.push(std::mem::take(word));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                quoted = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    if n != '\n' {
                        word.push(n);
                    }
                }
            }
            '#' if word.is_empty() && !quoted => {
                // A comment runs to the end of the line.
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                // `2>&1`, `&>` and `>&` are redirections, not separators.
                if c == '&' && (word.ends_with('>') || chars.peek() == Some(&'>')) {
                    word.push(c);
                    continue;
                }
                flush_word(&mut words, &mut word, &mut quoted);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
                if c == '\n' && !heredocs.is_empty() {
                    skip_heredocs(&mut chars, &mut heredocs);
                }
            }
            c if c.is_whitespace() => flush_word(&mut words, &mut word, &mut quoted),
            '<' if chars.peek() == Some(&'<') => {
                chars.next();
                if chars.peek() == Some(&'<') {
                    // A here-string `<<<`: its word follows as usual.
                    chars.next();
                    continue;
                }
                if chars.peek() == Some(&'-') {
                    chars.next();
                }
                flush_word(&mut words, &mut word, &mut quoted);
                while chars.peek().is_some_and(|c| *c == ' ') {
                    chars.next();
                }
                let mut delimiter = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || matches!(c, ';' | '&' | '|' | ')') {
                        break;
                    }
                    if c != '\'' && c != '"' {
                        delimiter.push(c);
                    }
                    chars.next();
                }
                if !delimiter.is_empty() {
                    heredocs.push(delimiter);
                }
            }
            c => word.push(c),
        }
    }
    flush_word(&mut words, &mut word, &mut quoted);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

/// Skips the bodies of pending heredocs, each up to its delimiter line.
fn skip_heredocs(chars: &mut std::iter::Peekable<std::str::Chars>, heredocs: &mut Vec<String>) {
    for delimiter in heredocs.drain(..) {
        loop {
            let mut line = String::new();
            let mut ended = false;
            for c in chars.by_ref() {
                if c == '\n' {
                    ended = true;
                    break;
                }
                line.push(c);
            }
            if line.trim() == delimiter || !ended {
                break;
            }
        }
    }
}

/// A command without a leading `cd DIR &&` and its output plumbing (see
/// [`without_plumbing`]): what runs, not where or how much of its output was shown.
pub(super) fn compact_command(command: &str) -> &str {
    let mut command = command.trim();
    if command.starts_with("cd ") {
        if let Some(at) = command.find("&&") {
            command = command[at + 2..].trim_start();
        }
    }
    without_plumbing(command)
}

/// Programs that, piped to at the end of a command line, only choose how much of its output
/// the agent sees.
const PLUMBING: [&str; 5] = ["head", "tail", "grep", "less", "cat"];

/// A command without what only shapes its output: trailing pipes into `head`, `tail`, `grep`
/// (`| tail -30`, `| grep -E "FAIL|ok"`) and a trailing `2>&1`. Two runs that differ only in
/// these ran the same thing, so the extract counts them as one command.
pub(super) fn without_plumbing(command: &str) -> &str {
    let mut command = command.trim();
    loop {
        let before = command;
        command = command.strip_suffix("2>&1").unwrap_or(command).trim_end();
        // The last unquoted single `|` (not `||`), if what follows it is plumbing.
        if let Some(at) = last_pipe(command) {
            let piped = command[at + 1..].trim_start();
            let program = piped.split_whitespace().next().unwrap_or("");
            if PLUMBING.contains(&program) && !piped.contains(['>', ';', '&']) {
                command = command[..at].trim_end();
            }
        }
        if command == before || command.is_empty() {
            return if command.is_empty() { before } else { command };
        }
    }
}

/// The byte index of the last `|` outside quotes that is a pipe, not half of `||`.
fn last_pipe(command: &str) -> Option<usize> {
    let bytes = command.as_bytes();
    let mut quote: Option<u8> = None;
    let mut last = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'\\' => i += 1,
            None if b == b'|' => {
                if bytes.get(i + 1) == Some(&b'|') {
                    i += 1;
                } else {
                    last = Some(i);
                }
            }
            None => {}
        }
        i += 1;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_that_are_not_files_are_ignored() {
        let paths: Vec<String> = shell_paths(
            "python -m sklearn.compose -c 'import a.b' && git push origin main 2>&1 | tail -30; echo done.txt; ls 0.25s v1.2.3 https://x.io/a.js *.rs $HOME/x.rs",
        )
        .into_iter()
        .map(|(p, _)| p)
        .collect();
        assert!(paths.is_empty(), "{paths:?}");
        let found = shell_paths(
            "cat > notes.md <<'EOF'\nsee other.md\nEOF\npytest tests/test_a.py::test_b -x && grep -n 'x' src/lib.rs:12 && find src -name '*.md'",
        );
        assert_eq!(
            found,
            [
                ("notes.md".to_owned(), Op::Create),
                ("tests/test_a.py".to_owned(), Op::Read),
                ("src/lib.rs".to_owned(), Op::Read),
            ]
        );
        let moved = shell_paths("git mv a.rs b.rs; mv c.txt d.txt; cp e.json f.json; touch g.md");
        assert_eq!(
            moved,
            [
                ("a.rs".to_owned(), Op::Delete),
                ("b.rs".to_owned(), Op::Create),
                ("c.txt".to_owned(), Op::Delete),
                ("d.txt".to_owned(), Op::Create),
                ("e.json".to_owned(), Op::Read),
                ("f.json".to_owned(), Op::Create),
                ("g.md".to_owned(), Op::Create),
            ]
        );
        // Into a directory: the files land in it, and the directory is no file.
        let into = shell_paths("mv src/a.rs b.rs lib/; cp c.json out/");
        assert_eq!(
            into,
            [
                ("src/a.rs".to_owned(), Op::Delete),
                ("lib/a.rs".to_owned(), Op::Create),
                ("b.rs".to_owned(), Op::Delete),
                ("lib/b.rs".to_owned(), Op::Create),
                ("c.json".to_owned(), Op::Read),
                ("out/c.json".to_owned(), Op::Create),
            ]
        );
    }

    #[test]
    fn a_go_doc_symbol_is_no_file_but_a_go_run_file_is() {
        let found = shell_paths(
            "go doc github.com/go-git/go-git/v5/config.Config 2>&1 | head -50 && go run main.go",
        );
        assert_eq!(found, vec![("main.go".to_owned(), Op::Read)]);
    }

    #[test]
    fn a_jq_filter_is_no_dotfile() {
        let found = shell_paths(
            "gh pr view --json author -q .author.login && jq -r .message.usage out.json && gh api x --jq .number",
        );
        assert_eq!(found, [("out.json".to_owned(), Op::Read)]);
    }

    #[test]
    fn test_commands_compact_to_what_runs() {
        assert_eq!(
            compact_command("cd packages/tui && npm test -- a.test.ts 2>&1 | tail -20"),
            "npm test -- a.test.ts"
        );
        assert_eq!(compact_command("cargo test"), "cargo test");
    }

    #[test]
    fn output_plumbing_is_not_part_of_the_command() {
        for piped in [
            "mise run test 2>&1 | tail -30",
            "mise run test | head -5",
            "mise run test 2>&1 | grep -E \"FAIL|ok\" | tail -3",
            "mise run test 2>&1",
        ] {
            assert_eq!(without_plumbing(piped), "mise run test", "{piped}");
        }
        // A pipe inside quotes, `||`, and a pipe into a real program stay.
        assert_eq!(
            without_plumbing("grep 'a|tail' f.txt"),
            "grep 'a|tail' f.txt"
        );
        assert_eq!(without_plumbing("make || tail x"), "make || tail x");
        assert_eq!(without_plumbing("cat a.txt | jq ."), "cat a.txt | jq .");
        assert_eq!(without_plumbing("| head"), "| head");
    }
}
