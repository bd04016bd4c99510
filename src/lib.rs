//! condense: Unix filters over LLM-agent transcripts.

pub mod transcript;
