//! The line reader and format detection: `input::lines` and the block reader tile any input
//! exactly; `detect_format` and `read_line` never panic, and their errors never quote the input
//! at length; a whole `Transcript` keeps every byte.
#![no_main]

use std::io::{self, Read};

use condense::input::{lines, Block, Blocks};
use condense::transcript::load::{LoadOptions, Transcript};
use condense::transcript::read::{detect_format, read_line, BadLine};
use libfuzzer_sys::fuzz_target;

/// A reader that hands out `step` bytes at a time, so blocks see short reads.
struct Trickle<'a> {
    rest: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step).min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// Errors say what is wrong, not what the line holds.
fn check_error(message: &str) {
    assert!(
        message.len() < 600,
        "an error message quotes the input: {} bytes",
        message.len()
    );
}

fuzz_target!(|data: &[u8]| {
    // Lines tile the input, are numbered from 1, and only the last may lack a newline.
    let all: Vec<_> = lines(data, 1).collect();
    let mut rebuilt = Vec::with_capacity(data.len());
    for (index, line) in all.iter().enumerate() {
        assert_eq!(line.number, index + 1);
        assert!(!line.full.is_empty());
        let offset = line.text.as_ptr() as usize - line.full.as_ptr() as usize;
        assert!(offset + line.text.len() <= line.full.len());
        assert!(
            offset == 0 || (index == 0 && offset == 3),
            "only a BOM is skipped"
        );
        assert!(!line.text.contains(&b'\n'));
        assert!(index + 1 == all.len() || !line.is_unterminated());
        rebuilt.extend_from_slice(line.full);
    }
    assert_eq!(rebuilt, data);

    // Blocks hold complete lines with the same numbers, whatever size the reads come in.
    let step = 1 + usize::from(data.first().copied().unwrap_or(0) % 16);
    let mut blocks = Blocks::new(Trickle { rest: data, step });
    let mut from_blocks = Vec::new();
    while let Some(block) = blocks.next_block(Block::default()).expect("reading memory") {
        from_blocks.extend(block.lines().map(|l| (l.number, l.full.to_vec())));
    }
    let direct: Vec<_> = all.iter().map(|l| (l.number, l.full.to_vec())).collect();
    assert_eq!(from_blocks, direct);

    // Detection, then each line in the detected format.
    match detect_format("fuzz", all.iter().copied()) {
        Err(error) => check_error(&format!("{error:#}")),
        Ok(None) => assert!(all.iter().all(|l| l.is_blank())),
        Ok(Some(format)) => {
            for line in all.iter().filter(|l| !l.is_blank()) {
                match read_line(format, line) {
                    Ok(record) => assert_eq!(record.raw, line.text),
                    Err(BadLine::Incomplete) => assert!(line.is_unterminated()),
                    Err(BadLine::Invalid(error)) => check_error(&format!("{error:#}")),
                }
            }
        }
    }

    // A whole transcript, strict and lenient.
    for skip_invalid in [false, true] {
        let options = LoadOptions {
            from: None,
            skip_invalid,
            ..LoadOptions::default()
        };
        match Transcript::parse("fuzz", data, options) {
            Ok(transcript) => {
                condense_fuzz::check_transcript(&transcript, data);
                let non_blank = transcript.lines.iter().filter(|l| !l.is_blank()).count();
                let incomplete = usize::from(transcript.incomplete.is_some());
                if transcript.format.is_some() {
                    let mut read = transcript.record_lines.clone();
                    read.dedup();
                    assert_eq!(
                        read.len() + transcript.skipped.len() + incomplete,
                        non_blank
                    );
                }
                for skipped in &transcript.skipped {
                    check_error(skipped);
                }
            }
            Err(error) => check_error(&format!("{error:#}")),
        }
    }
});
