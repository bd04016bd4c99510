//! How far each estimator is from exact o200k counts and from the context growth the providers
//! recorded, on every real transcript in `fixtures/corpus/`. Prints Markdown tables (the ones in
//! the README). Run with `cargo bench --bench accuracy`.
//!
//! "Recorded growth" compares, within the part of a session after its last compaction, the
//! estimate of the main-chain messages between the first and the last usage record with the
//! difference of those two usage figures. Differences cancel the system prompt and tool schemas
//! that every usage figure includes but no transcript line holds.

use std::path::Path;

use condense::input::lines;
use condense::measure::RecordMeasure;
use condense::tokens::{Family, Tokenizer};
use condense::transcript::read::{detect_format, read_line};

const TOKENIZERS: [Tokenizer; 6] = [
    Tokenizer::Chars4,
    Tokenizer::Chars35,
    Tokenizer::KimiCode,
    Tokenizer::Fast(Family::Openai),
    Tokenizer::Fast(Family::Claude),
    Tokenizer::O200k,
];

struct FileFigures {
    name: String,
    /// Main-chain tokens per estimator, in `TOKENIZERS` order.
    totals: Vec<u64>,
    /// (estimated growth per estimator, recorded growth), when the file has two usage records.
    growth: Option<(Vec<u64>, u64)>,
}

fn measure_file(path: &Path) -> FileFigures {
    let bytes = std::fs::read(path).expect("corpus file");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let format = detect_format(&name, lines(&bytes, 1))
        .expect("detected")
        .expect("non-empty");
    let records: Vec<_> = lines(&bytes, 1)
        .filter(|l| !l.is_blank())
        .map(|l| read_line(format, &l).map_err(|_| ()).expect("readable"))
        .collect();
    let after_compaction = records
        .iter()
        .rposition(|r| r.compaction)
        .map_or(0, |i| i + 1);

    let mut totals = Vec::new();
    let mut growths = Vec::new();
    let mut recorded = None;
    for tokenizer in TOKENIZERS {
        let measures: Vec<RecordMeasure> = records
            .iter()
            .map(|r| RecordMeasure::of(tokenizer, r))
            .collect();
        let main_units = |range: &[RecordMeasure]| -> u64 {
            range
                .iter()
                .filter_map(|m| m.message.as_ref())
                .filter(|m| !m.sidechain)
                .map(|m| m.units)
                .sum()
        };
        totals.push(tokenizer.tokens(main_units(&measures)));

        let segment = &measures[after_compaction..];
        let with_usage: Vec<usize> = segment
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.usage.is_some() && !m.message.as_ref().is_some_and(|msg| msg.sidechain)
            })
            .map(|(i, _)| i)
            .collect();
        if let (Some(&first), Some(&last)) = (with_usage.first(), with_usage.last()) {
            let figure = |i: usize| segment[i].usage.as_ref().unwrap().context_tokens;
            if figure(last) > figure(first) {
                recorded = Some(figure(last) - figure(first));
                growths.push(tokenizer.tokens(main_units(&segment[first + 1..=last])));
            }
        }
    }
    FileFigures {
        name,
        totals,
        growth: recorded.map(|r| (growths, r)),
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    let files: Vec<FileFigures> = paths.iter().map(|p| measure_file(p)).collect();
    let names: Vec<&str> = TOKENIZERS.iter().map(|t| t.name()).collect();
    let o200k = TOKENIZERS.len() - 1;

    println!("Estimate ÷ exact o200k, main-chain messages of each session:\n");
    println!(
        "| session | o200k tokens | {} |",
        names[..o200k].join(" | ")
    );
    println!("|---|--:|{}", "--:|".repeat(o200k));
    for file in &files {
        let exact = file.totals[o200k].max(1) as f64;
        let ratios: Vec<String> = file.totals[..o200k]
            .iter()
            .map(|t| format!("{:.2}", *t as f64 / exact))
            .collect();
        println!(
            "| {} | {} | {} |",
            file.name,
            file.totals[o200k],
            ratios.join(" | ")
        );
    }

    println!("\nEstimated ÷ recorded context growth (provider usage figures):\n");
    println!("| session | recorded growth | {} |", names.join(" | "));
    println!("|---|--:|{}", "--:|".repeat(names.len()));
    for file in &files {
        if let Some((estimated, recorded)) = &file.growth {
            let ratios: Vec<String> = estimated
                .iter()
                .map(|t| format!("{:.2}", *t as f64 / *recorded as f64))
                .collect();
            println!("| {} | {recorded} | {} |", file.name, ratios.join(" | "));
        }
    }
}
