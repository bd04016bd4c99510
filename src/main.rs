//! The `condense` binary: parse arguments, run, map the result to an exit status.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;

use condense::cli::Cli;
use condense::output::{sanitize, Stdout};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = BufWriter::with_capacity(1 << 16, Stdout::new());
    let result = condense::run(cli, &mut out).and_then(|outcome| {
        out.flush()?;
        Ok(outcome)
    });
    match result {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        // A reader that went away (`| head -1`) is not a failure.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("condense: error: {}", sanitize(&format!("{error:#}")));
            let usage = error.downcast_ref::<condense::UsageError>().is_some();
            ExitCode::from(if usage {
                condense::EXIT_USAGE
            } else {
                condense::EXIT_FAILURE
            })
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
