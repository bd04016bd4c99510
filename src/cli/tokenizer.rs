//! How tokens are counted: `--tokenizer` (and its old spellings `--family` and `--lang`), and
//! the estimator they select; shared by the commands that count.

use clap::{Args, ValueEnum};

use crate::tokens::{bpe, Estimator, Family, Tokenizer};

/// How tokens are counted; shared by the commands that count.
#[derive(Debug, Args)]
pub struct TokenizerArgs {
    /// The estimator [default: the session's own]
    ///
    /// The session's own is fast, weighted for the family of the first model the session names
    /// (Claude's for Claude Code and Anthropic lists that name none, OpenAI's otherwise), and
    /// chars4 for kimi-cli's format. chars4: characters of text and tool-result parts ÷ 4, floored once over the whole sum
    /// (kimi-cli). chars3.5: the same ÷ 3.5. kimi-code: ⌈ascii/4⌉ + non-ascii per string,
    /// plus the role, thinking, tool calls and 2000 per media part. fast: a one-pass
    /// character-class estimate of text, thinking, tool results and tool calls, weighted for
    /// the family of the model the session names (fast-openai, fast-claude, fast-claude-4.7
    /// name one). o200k, cl100k: exact OpenAI BPE counts of the same parts as fast. `--preset kimi` counts with chars4 and `--preset kimi-code` with
    /// kimi-code, as those agents do.
    #[arg(short, long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerName>,

    /// The old way to name fast's family (--tokenizer fast-claude is --family claude), kept
    /// for one release.
    #[arg(hide = true, long, value_enum)]
    pub family: Option<FamilyName>,

    /// The old way to name chars3.5 (--lang es) or chars4 (--lang en), kept for one release.
    #[arg(hide = true, long, value_enum)]
    pub lang: Option<Lang>,
}

impl TokenizerArgs {
    /// The estimator these flags select; `preset` is the one a named preset brings (see
    /// [`crate::settings::Settings::preset_tokenizer`]). With none of them, the session's own.
    pub fn estimator(&self, preset: Option<Tokenizer>) -> anyhow::Result<Estimator> {
        let family = |name: FamilyName| match name {
            FamilyName::Openai => Family::Openai,
            FamilyName::Claude => Family::Claude,
            FamilyName::Claude47 => Family::Claude47,
        };
        let named = match (self.tokenizer, self.lang, self.family) {
            (Some(name), _, _) => Some(name),
            (None, Some(Lang::En), _) => Some(TokenizerName::Chars4),
            (None, Some(Lang::Es), _) => Some(TokenizerName::Chars35),
            (None, None, Some(FamilyName::Openai)) => Some(TokenizerName::FastOpenai),
            (None, None, Some(FamilyName::Claude)) => Some(TokenizerName::FastClaude),
            (None, None, Some(FamilyName::Claude47)) => Some(TokenizerName::FastClaude47),
            (None, None, None) => None,
        };
        let Some(name) = named else {
            return Ok(preset.map_or(Estimator::Session, Estimator::Given));
        };
        let bpe_only = matches!(name, TokenizerName::O200k | TokenizerName::Cl100k);
        if bpe_only && !bpe::AVAILABLE {
            anyhow::bail!("this condense was built without the `bpe` feature, so o200k and cl100k are not available");
        }
        Ok(Estimator::Given(match name {
            TokenizerName::Chars4 => Tokenizer::Chars4,
            TokenizerName::Chars35 => Tokenizer::Chars35,
            TokenizerName::KimiCode => Tokenizer::KimiCode,
            // `--tokenizer fast --family F`, the old spelling of fast-F.
            TokenizerName::Fast => match self.family {
                Some(name) => Tokenizer::Fast(family(name)),
                None => return Ok(Estimator::SessionFamily),
            },
            TokenizerName::FastOpenai => Tokenizer::Fast(Family::Openai),
            TokenizerName::FastClaude => Tokenizer::Fast(Family::Claude),
            TokenizerName::FastClaude47 => Tokenizer::Fast(Family::Claude47),
            TokenizerName::O200k => Tokenizer::O200k,
            TokenizerName::Cl100k => Tokenizer::Cl100k,
        }))
    }
}

/// The estimators, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TokenizerName {
    /// Characters ÷ 4 (kimi-cli).
    Chars4,
    /// Characters ÷ 3.5 (Spanish).
    #[value(name = "chars3.5")]
    Chars35,
    /// kimi-code's estimator.
    KimiCode,
    /// Character classes, weighted for the family of the session's model.
    Fast,
    /// Character classes, weighted for OpenAI's o200k.
    FastOpenai,
    /// Character classes, weighted for Claude 3 to Opus 4.6.
    FastClaude,
    /// Character classes, weighted for Claude Opus 4.7.
    #[value(name = "fast-claude-4.7")]
    FastClaude47,
    /// Exact o200k_base BPE.
    O200k,
    /// Exact cl100k_base BPE.
    Cl100k,
}

/// Tokenizer families the `fast` estimator has weights for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FamilyName {
    /// o200k-like: OpenAI, also fine for Llama 3, Qwen 3 and Kimi.
    Openai,
    /// Claude 3 to Opus 4.6.
    Claude,
    /// Claude Opus 4.7.
    #[value(name = "claude-4.7")]
    Claude47,
}

/// Transcript languages with their own character rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// English (and most code): chars4.
    En,
    /// Spanish: chars3.5.
    Es,
}
