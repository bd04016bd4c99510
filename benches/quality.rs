//! What survives a compaction, in numbers: cuts every real session in `fixtures/corpus/`
//! (at the agent's own compaction, or at 70 % of its messages), runs the release `condense
//! caveman` and `condense bare` on the part before the cut, and scores them, the agent's own
//! LLM summary and a frequency-list baseline by entity coverage and by hand-written probes
//! (`fixtures/probes/`). Prints Markdown tables and issue 4's goals. Run with
//! `cargo bench --bench quality`; `tests/cli/quality.rs` checks the same goals in CI.
//!
//! How the cut, the entities and the probes are defined is in `quality/score.rs`.

#[path = "quality/score.rs"]
mod score;

use std::path::Path;
use std::process::Command;

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    // Cargo builds the binary with the bench profile (release) for bench targets.
    let condense = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_condense"))
            .args(args)
            .env_clear()
            .output()
            .expect("condense runs");
        assert!(
            output.status.success(),
            "condense {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("condense prints UTF-8")
    };
    let report = score::run(&fixtures, &condense);
    print!("{}", report.render());

    // The numbers above are only comparable with the test's if the outputs are the blessed ones.
    let stale: Vec<String> = report
        .goldens()
        .into_iter()
        .filter(|(name, text)| {
            std::fs::read_to_string(fixtures.join("probes").join(name))
                .ok()
                .as_deref()
                != Some(text)
        })
        .map(|(name, _)| name)
        .collect();
    if stale.is_empty() {
        println!("\nGolden outputs in fixtures/probes/ match.");
    } else {
        println!(
            "\nGolden outputs differ from these (review, then `CONDENSE_BLESS=1 cargo test --test cli quality`): {}",
            stale.join(", ")
        );
    }
}
