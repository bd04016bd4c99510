//! How fast tiktoken-rs alone counts o200k tokens of a JSONL file.
//!
//! Usage: bpe-baseline [--threads N] [--message-parts] FILE
//!
//! Reads FILE, parses every non-blank line with serde_json into a `Value`, walks it and counts
//! `o200k_base_singleton().count_ordinary` tokens of every string value (object keys are not
//! counted). This is more text than `condense estimate --tokenizer o200k` counts (condense
//! counts only message parts), so it is a generous baseline. With --message-parts it counts
//! instead roughly what condense counts in a Claude Code log: of `message.content`, a string, or
//! the text of text, thinking and tool-result blocks and the name and compact JSON input of
//! tool-use blocks (blocks are counted one by one and the input's keys come out sorted, so the
//! total can differ from condense's by a few tokens). With --threads 1 (the default)
//! lines are handled in order on one thread and the parse and count times are reported apart;
//! with N > 1 lines are spread over a rayon pool of N threads, like condense does.
//! Prints one summary line on stdout.

use std::time::Instant;

use rayon::prelude::*;
use serde_json::Value;
use tiktoken_rs::CoreBPE;

#[derive(Default, Clone, Copy)]
struct Tally {
    strings: u64,
    string_bytes: u64,
    tokens: u64,
}

impl Tally {
    fn add(mut self, other: Tally) -> Tally {
        self.strings += other.strings;
        self.string_bytes += other.string_bytes;
        self.tokens += other.tokens;
        self
    }
}

fn walk(value: &Value, bpe: &CoreBPE, tally: &mut Tally) {
    match value {
        Value::String(s) => count(s, bpe, tally),
        Value::Array(items) => items.iter().for_each(|v| walk(v, bpe, tally)),
        Value::Object(map) => map.values().for_each(|v| walk(v, bpe, tally)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn count(text: &str, bpe: &CoreBPE, tally: &mut Tally) {
    tally.strings += 1;
    tally.string_bytes += text.len() as u64;
    tally.tokens += bpe.count_ordinary(text) as u64;
}

/// The message parts of one Claude Code log line, as condense reads them.
fn message_parts(line: &Value, bpe: &CoreBPE, tally: &mut Tally) {
    let content = &line["message"]["content"];
    if let Some(text) = content.as_str() {
        return count(text, bpe, tally);
    }
    for block in content.as_array().into_iter().flatten() {
        match block["type"].as_str().unwrap_or("") {
            "text" => count(block["text"].as_str().unwrap_or(""), bpe, tally),
            "thinking" => count(block["thinking"].as_str().unwrap_or(""), bpe, tally),
            "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                count(block["name"].as_str().unwrap_or(""), bpe, tally);
                count(&block["input"].to_string(), bpe, tally);
            }
            "tool_result" => match &block["content"] {
                Value::String(text) => count(text, bpe, tally),
                Value::Array(items) => items
                    .iter()
                    .filter(|item| item["type"] == "text")
                    .for_each(|item| count(item["text"].as_str().unwrap_or(""), bpe, tally)),
                _ => {}
            },
            _ => {}
        }
    }
}

fn parse(line: &[u8], number: usize) -> Value {
    serde_json::from_slice(line).unwrap_or_else(|e| {
        eprintln!("bpe-baseline: line {number}: {e}");
        std::process::exit(1)
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut threads = 1usize;
    let mut path = None;
    let mut parts_only = false;
    while let Some(arg) = args.next() {
        if arg == "--message-parts" {
            parts_only = true;
        } else if arg == "--threads" {
            threads = args.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| {
                eprintln!("bpe-baseline: --threads needs a number");
                std::process::exit(2)
            });
        } else {
            path = Some(arg);
        }
    }
    let Some(path) = path else {
        eprintln!("usage: bpe-baseline [--threads N] [--message-parts] FILE");
        std::process::exit(2)
    };

    let start = Instant::now();
    let bpe = tiktoken_rs::o200k_base_singleton();
    let init = start.elapsed().as_secs_f64();
    let measure = if parts_only { message_parts } else { walk };
    let what = if parts_only {
        "message parts"
    } else {
        "all strings"
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("bpe-baseline: {path}: {e}");
        std::process::exit(1)
    });
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let after_read = start.elapsed().as_secs_f64();

    let (tally, detail) = if threads <= 1 {
        let (mut parse_s, mut count_s) = (0.0, 0.0);
        let mut tally = Tally::default();
        for &(number, line) in &lines {
            let t0 = Instant::now();
            let value = parse(line, number);
            let t1 = Instant::now();
            measure(&value, bpe, &mut tally);
            let t2 = Instant::now();
            parse_s += (t1 - t0).as_secs_f64();
            count_s += (t2 - t1).as_secs_f64();
        }
        (tally, format!("parse {parse_s:.2} s, count {count_s:.2} s"))
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        let tally = pool.install(|| {
            lines
                .par_iter()
                .map(|&(number, line)| {
                    let mut tally = Tally::default();
                    measure(&parse(line, number), bpe, &mut tally);
                    tally
                })
                .reduce(Tally::default, Tally::add)
        });
        (tally, "parse+count in parallel".to_owned())
    };
    let total = start.elapsed().as_secs_f64();
    let mb = bytes.len() as f64 / (1 << 20) as f64;
    println!(
        "bpe-baseline threads={threads}, {what}: {mb:.1} MB in {total:.2} s = {:.2} MB/s of JSONL \
         (tables {init:.2} s, read {:.2} s, {detail}); {} lines, {} strings, {:.1} MB of string \
         text = {:.2} MB/s of text, {} o200k tokens",
        mb / total,
        after_read - init,
        lines.len(),
        tally.strings,
        tally.string_bytes as f64 / (1 << 20) as f64,
        tally.string_bytes as f64 / (1 << 20) as f64 / total,
        tally.tokens,
    );
}
