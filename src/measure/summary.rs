//! The JSON report `estimate` prints of a measured file: its totals, the live context's size,
//! and, against a window, whether compaction is due (kimi-cli's rule) and when the agent itself
//! will compact (`--explain`).

use anyhow::Result;
use serde::Serialize;

use super::file::FileReport;
use super::{compaction_due, scaled_reserve, Context, Tally};
use crate::output::OrderedMap;
use crate::settings::{MaxContext, Settings};
use crate::transcript::{FormatId, PartKind, Role};
use crate::trigger::report::{check_compacts_at, Check, Explain};
use crate::UsageError;

/// What the report adds beside the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryOptions {
    /// When the agent itself compacts (`--explain`).
    pub explain: bool,
}

/// The JSON report of one file.
#[derive(Serialize)]
pub struct Summary {
    /// Its name.
    pub file: String,
    /// Its format's name.
    pub format: Option<&'static str>,
    /// The estimator it was counted with.
    pub tokenizer: &'static str,
    /// The model the session last names, when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The live context's size as the agent sees it: what `estimate` leads with.
    pub context: ContextSummary,
    /// The live context's main-chain tokens, by the estimator.
    pub tokens: u64,
    /// ... and messages.
    pub messages: u64,
    whole_file: FileTotals,
    by_role: OrderedMap<Counted>,
    by_part: OrderedMap<Counted>,
    bookkeeping: u64,
    sidechain: Counted,
    skipped_invalid: u64,
    /// The trigger against the window, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Trigger>,
    /// When the agent itself compacts (`--explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
}

impl Summary {
    /// The figure `--total` adds up: the context size.
    pub fn headline_tokens(&self) -> u64 {
        self.context.tokens
    }
}

/// The totals of every line of the file, the history outside the live context included.
#[derive(Serialize)]
struct FileTotals {
    tokens: u64,
    messages: u64,
}

#[derive(Serialize)]
struct Counted {
    count: u64,
    tokens: u64,
}

/// The live context's size.
#[derive(Serialize)]
pub struct ContextSummary {
    /// In tokens.
    pub tokens: u64,
    /// `usage` when a provider figure was found, `estimate` when the transcript records none.
    pub source: &'static str,
    /// The provider's figure it starts from, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<u64>,
    /// The estimate of what came after that figure (or of everything, without one).
    pub pending: u64,
}

/// The compaction trigger against a window.
#[derive(Serialize)]
pub struct Trigger {
    /// The window.
    pub max_context: u64,
    /// The model whose window `--max-context auto` took.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// The share of the window the context fills, in percent (one decimal).
    pub percent_used: f64,
    tokens_left: u64,
    /// Due at this share of the window.
    pub trigger_ratio: f64,
    /// Due when fewer tokens than this are left (scaled to the window, see [`scaled_reserve`]).
    pub reserved: u64,
    /// False when the config file turns compaction off: then it is never due.
    enabled: bool,
    /// Whether compaction is due.
    pub due: bool,
}

/// The line that follows several files' reports.
#[derive(Serialize)]
pub struct TotalLine {
    total: bool,
    files: usize,
    tokens: u64,
    messages: u64,
    context_tokens: u64,
}

impl TotalLine {
    /// The total of `summaries`.
    pub fn of(summaries: &[Summary]) -> Self {
        TotalLine {
            total: true,
            files: summaries.len(),
            tokens: summaries.iter().map(|s| s.tokens).sum(),
            messages: summaries.iter().map(|s| s.messages).sum(),
            context_tokens: summaries.iter().map(Summary::headline_tokens).sum(),
        }
    }
}

impl FileReport {
    /// The reserve against this file's window: the preset's is scaled when it does not fit (see
    /// [`scaled_reserve`]); one the user gave that does not fit is refused, as it would make
    /// compaction due at every run.
    fn reserve_for(&self, window: u64, settings: &Settings) -> Result<u64> {
        match scaled_reserve(settings.reserved, window, settings.trigger_ratio) {
            None => Ok(settings.reserved),
            Some(_) if settings.reserved_given => Err(UsageError(format!(
                "{}: a reserve of {} tokens does not fit a window of {window}: compaction would \
                 be due after every compaction; give --reserved (or the config file's reserved) \
                 below {}",
                self.name,
                settings.reserved,
                window.div_ceil(2)
            ))
            .into()),
            Some(scaled) => Ok(scaled),
        }
    }

    /// The report of this file by `settings`, against `window` when there is one.
    pub fn summary(
        &self,
        options: SummaryOptions,
        settings: &Settings,
        window: Option<MaxContext>,
    ) -> Result<Summary> {
        let measure = &self.measure;
        let tokenizer = measure.tokenizer;
        let tally = |t: &Tally| Counted {
            count: t.count,
            tokens: tokenizer.tokens(t.units),
        };
        let max_context = window
            .map(|max| crate::settings::window(max, self.model.as_deref(), settings, &self.name))
            .transpose()?;
        let reserved = max_context
            .map(|window| self.reserve_for(window, settings))
            .transpose()?
            .unwrap_or(settings.reserved);
        let context = measure.context();
        let explain = match (options.explain, max_context) {
            (true, Some(window)) => self.explain(window, reserved, settings, context),
            _ => None,
        };
        Ok(Summary {
            file: self.name.clone(),
            format: self.format.map(FormatId::as_str),
            tokenizer: tokenizer.name(),
            model: self.model.clone(),
            context: ContextSummary {
                tokens: context.tokens,
                source: if context.usage.is_some() {
                    "usage"
                } else {
                    "estimate"
                },
                usage: context.usage,
                pending: context.pending,
            },
            tokens: measure.tokens(),
            messages: measure.messages.count,
            whole_file: FileTotals {
                tokens: self.file.tokens(),
                messages: self.file.messages.count,
            },
            by_role: Role::ALL
                .iter()
                .zip(&measure.by_role)
                .map(|(role, t)| (role.as_str(), tally(t)))
                .collect(),
            by_part: PartKind::ALL
                .iter()
                .zip(&measure.by_part)
                .map(|(kind, t)| (kind.as_str(), tally(t)))
                .collect(),
            bookkeeping: self.file.bookkeeping,
            sidechain: tally(&self.file.sidechain),
            skipped_invalid: self.skipped,
            compaction: max_context
                .map(|max_context| self.trigger(max_context, reserved, settings, context)),
            explain,
        })
    }

    /// The trigger against `max_context`: kimi-cli's rule with `reserved`.
    fn trigger(
        &self,
        max_context: u64,
        reserved: u64,
        settings: &Settings,
        context: Context,
    ) -> Trigger {
        Trigger {
            max_context,
            model: self.model.clone(),
            percent_used: (context.tokens as f64 * 1000.0 / max_context.max(1) as f64).round()
                / 10.0,
            tokens_left: max_context.saturating_sub(context.tokens),
            trigger_ratio: settings.trigger_ratio,
            reserved,
            enabled: settings.enabled,
            due: settings.enabled
                && compaction_due(
                    context.tokens,
                    max_context,
                    settings.trigger_ratio,
                    reserved,
                ),
        }
    }

    /// When the agent of this file compacts by itself in `window`, beside `--check`'s trigger.
    fn explain(
        &self,
        window: u64,
        reserved: u64,
        settings: &Settings,
        context: Context,
    ) -> Option<Explain> {
        let native = self
            .format?
            .format()
            .native(window, self.model.as_deref())?;
        let check = Check {
            compacts_at: check_compacts_at(window, settings.trigger_ratio, reserved),
            trigger_ratio: settings.trigger_ratio,
            reserved,
            preset: settings.preset.name,
        };
        Some(Explain::new(
            native,
            self.model.clone(),
            context.tokens,
            check,
            &self.earlier,
        ))
    }
}
