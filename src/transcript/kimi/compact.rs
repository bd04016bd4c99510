//! A compaction written back as kimi-cli rewrites `context.jsonl` after compacting: the system
//! prompt, checkpoint 0, the summary message, the kept tail, and a usage record with the new
//! estimate.

use anyhow::Result;

use super::{is_kimi_file, Kimi};
use crate::transcript::model::Entry;
use crate::transcript::write::{
    chat_user_line, push_kept, push_line, Compacted, Sink, WriteBack, WRAPPER,
};

impl WriteBack for Kimi {
    /// The checkpoint and usage records are written only for kimi-cli files (ones holding `_`
    /// records); a plain OpenAI message list gets just the messages. Old `_checkpoint` and
    /// `_usage` records are not carried over, wherever they stood: kimi-cli numbers checkpoints
    /// from 0 in a new file, and a usage figure measured before the compaction no longer holds.
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let kimi = is_kimi_file(records);
        let renewed = |index: &&usize| {
            kimi && matches!(&records[**index].entry,
                Entry::Bookkeeping(kind) if kind == "_checkpoint" || kind == "_usage")
        };
        let kept = |list: &[usize]| -> Vec<usize> {
            list.iter().filter(|i| !renewed(i)).copied().collect()
        };
        push_kept(out, &compacted.lines_of(&kept(&compacted.lead)));
        if kimi {
            push_line(out, br#"{"role": "_checkpoint", "id": 0}"#);
        }
        push_kept(out, &compacted.lines_of(&kept(&compacted.head)));
        for text in &compacted.kept_user_texts {
            push_line(out, &chat_user_line(&[text]));
        }
        push_line(out, &chat_user_line(&[WRAPPER, compacted.summary]));
        push_kept(out, &compacted.lines_of(&kept(&compacted.tail)));
        if kimi {
            let usage = format!(
                r#"{{"role": "_usage", "token_count": {}}}"#,
                compacted.tokens_after
            );
            push_line(out, usage.as_bytes());
        }
        Ok(())
    }
}
