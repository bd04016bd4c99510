//! The lossless-reading contract on every real transcript: each file is detected as the agent
//! that wrote it, every line reads into the model, and writing the lines back untouched gives
//! the file's exact bytes.

use condense::input::lines;
use condense::transcript::read::document;
use condense::transcript::read::{detect_format, read_line};
use condense::transcript::FormatId;

use crate::util::{fixture, CORPUS};

#[test]
fn every_corpus_file_reads_and_writes_back_byte_identical() {
    for (file, format) in CORPUS {
        let bytes = std::fs::read(fixture(file)).unwrap();
        let detected = detect_format(file, lines(&bytes, 1)).unwrap().unwrap();
        assert_eq!(detected.as_str(), format, "{file}");

        let mut written = Vec::with_capacity(bytes.len());
        let mut records = 0;
        for line in lines(&bytes, 1) {
            if line.is_blank() {
                written.extend_from_slice(line.full);
                continue;
            }
            let record = read_line(detected, &line)
                .unwrap_or_else(|bad| panic!("{file}:{}: {bad:?}", line.number));
            assert_eq!(record.line, line.number);
            // Write the record's own bytes back, then whatever framed them in the input.
            let prefix_len = subslice_offset(line.full, record.raw);
            written.extend_from_slice(&line.full[..prefix_len]);
            written.extend_from_slice(record.raw);
            written.extend_from_slice(&line.full[prefix_len + record.raw.len()..]);
            records += 1;
        }
        assert!(records > 0, "{file}");
        assert!(written == bytes, "{file}: written back differently");
    }
}

/// Where `inner` starts inside `outer`; panics unless it is a true sub-slice.
fn subslice_offset(outer: &[u8], inner: &[u8]) -> usize {
    let offset = (inner.as_ptr() as usize)
        .checked_sub(outer.as_ptr() as usize)
        .expect("the record's bytes lie inside its line");
    assert!(offset + inner.len() <= outer.len());
    offset
}

#[test]
fn the_legacy_gemini_json_is_read_as_the_jsonl_gemini_makes_of_it() {
    let file = "corpus/gemini-cli/entireio-cli-12cbfeaa512b-legacy.json";
    let bytes = std::fs::read(fixture(file)).unwrap();
    // As lines it is no transcript; as the document it is, it is Gemini CLI's, and no other
    // agent claims it.
    let error = detect_format(file, lines(&bytes, 1))
        .unwrap_err()
        .to_string();
    assert!(error.contains("not JSONL"), "{error}");
    let (format, jsonl) = document(file, &bytes).unwrap().unwrap();
    assert_eq!(format, FormatId::Gemini);
    assert_eq!(
        detect_format(file, lines(&jsonl, 1)).unwrap(),
        Some(FormatId::Gemini)
    );
    for line in lines(&jsonl, 1) {
        read_line(FormatId::Gemini, &line).unwrap();
    }
    // Every JSONL file of the corpus is no document.
    for (jsonl, _) in CORPUS {
        let bytes = std::fs::read(fixture(jsonl)).unwrap();
        assert!(document(jsonl, &bytes).is_none(), "{jsonl}");
    }
}
