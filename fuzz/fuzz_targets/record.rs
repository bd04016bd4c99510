//! Each format's record parser on one line: the first byte picks the format. Reading never
//! panics; a record keeps its line's bytes; measuring it with every estimator never panics; the
//! format's parser also copes with lines `read_line` would have turned away (not objects).
#![no_main]

use condense::input::lines;
use condense::measure::{Measure, RecordMeasure};
use condense::transcript::read::read_line;
use condense_fuzz::{format_of, tokenizer_of};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let format = format_of(selector);
    let Some(line) = lines(text, 1).next() else {
        return;
    };
    if let Ok(record) = read_line(format, &line) {
        assert_eq!(record.raw, line.text);
        for byte in 0..6 {
            let tokenizer = tokenizer_of(byte);
            let measured = RecordMeasure::of(tokenizer, &record);
            let mut measure = Measure::new(tokenizer);
            measure.add(&measured);
            measure.add(&measured);
            let _ = measure.context();
            let _ = measure.tokens();
        }
        if let Some(message) = record.message() {
            let _ = message.call_ids().count() + message.answered_ids().count();
        }
    }
    if let Ok(text) = std::str::from_utf8(line.text) {
        if let Ok(record) = format.format().read(1, text) {
            assert_eq!(record.raw, text.as_bytes());
        }
    }
});
