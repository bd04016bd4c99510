//! A compaction written back into an Anthropic message list.

use anyhow::Result;

use super::Anthropic;
use crate::transcript::write::{
    chat_user_line, push_kept, push_line, Compacted, Sink, WriteBack, WRAPPER,
};

impl WriteBack for Anthropic {
    /// The summary as the first user message after the kept leading records, then the tail.
    /// Two user messages in a row are fine: the Messages API merges consecutive turns.
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        push_kept(out, &compacted.lines_of(&compacted.lead));
        push_kept(out, &compacted.lines_of(&compacted.head));
        for text in &compacted.kept_user_texts {
            push_line(out, &chat_user_line(&[text]));
        }
        push_line(out, &chat_user_line(&[WRAPPER, compacted.summary]));
        push_kept(out, &compacted.lines_of(&compacted.tail));
        Ok(())
    }
}
