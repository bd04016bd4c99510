//! Measuring one prunable value: its tokens, the placeholder (or removal) that replaces it,
//! and the estimator units the live context loses when it is replaced, found by reading the
//! edited line back with the format's own reader.
//!
//! A site's text (a whole tool output, a call's arguments) is read once, when the site is
//! found, into a [`Spot`]: what measuring needs of it (its units, the placeholder's
//! [`Outline`]). Holding every text of the session until every site is found would hold a copy
//! of most of the session (111 MB of the 380 MB heap peak of `compact --budget 20000` on a
//! 100 MiB OpenAI-chat list, heaptrack). A spot is measured as soon as it is found (the tools'
//! names are gathered first, see [`super::plan`]), so only the site and its [`Sized`] outlive
//! the record's turn (every spot of the session held until every one was found, then measured
//! in a second pass, left that command's peak resident memory 10 MB higher: 224.7 MB against
//! 214.2 MB, `/usr/bin/time -f %M`).

use anyhow::{Context as _, Result};

use crate::prune::{argument_placeholder, is_placeholder, Outline, PLACEHOLDER};
use crate::tokens::Tokenizer;
use crate::transcript::json::value_at;
use crate::transcript::prune::rewrite::edit_line;
use crate::transcript::prune::{replacement, shrunk_arguments, Kind, Shape, Site};
use crate::transcript::{FormatId, Record};

/// Argument strings shorter than this are never replaced, whatever `--min-tokens` says: a
/// placeholder is about this long, so a shorter string would not shrink (and a placeholder
/// must never be long enough to be replaced again).
pub const MIN_ARGUMENT_CHARS: usize = 400;

/// A live record's message and its prunable values, measured.
pub struct Found<'t> {
    /// Its position in the live context.
    pub position: usize,
    /// Its record index.
    pub index: usize,
    /// The record.
    pub record: &'t Record<'t>,
    /// Its message's estimator units.
    pub units: u64,
    /// Its prunable values (their `text` taken out), each with its measure (`None` for
    /// arguments with nothing long enough to prune).
    pub values: Vec<(Site, Option<Sized>)>,
}

/// A prunable value, found, with what measuring it needs of its text (the text itself is
/// dropped when the value is found; see the module docs).
pub struct Spot {
    /// Where the value is; its `text` taken out (empty).
    pub site: Site,
    /// Its text's estimator units.
    pub units: u64,
    /// Whether its text is a placeholder prune wrote.
    pub placeholder: bool,
    /// Whether its text holds a placeholder anywhere (arguments pruned before keep their
    /// other keys around it).
    pub holds_placeholder: bool,
    /// What a result's placeholder says of it (results only).
    pub outline: Option<Outline>,
}

impl Spot {
    /// `site`, its text read and dropped.
    pub fn new(mut site: Site, tokenizer: Tokenizer) -> Spot {
        let text = std::mem::take(&mut site.text);
        Spot {
            units: tokenizer.text_units(&text),
            placeholder: is_placeholder(&text),
            holds_placeholder: text.contains(PLACEHOLDER),
            outline: (site.kind == Kind::Result).then(|| Outline::of(&text)),
            site,
        }
    }
}

/// A value measured: its size, what replaces it, and what that frees.
pub struct Sized {
    /// Its tokens now.
    pub tokens: u64,
    /// The JSON that replaces it, or `None` for a removal.
    pub json: Option<Vec<u8>>,
    /// True when it is a placeholder already.
    pub pruned: bool,
    /// The estimator units the context loses when it is replaced.
    pub saved_units: u64,
    /// Whether the replacement is shorter.
    pub shrinks: bool,
}

/// Measures one value of `record` (whose message has `units`); `None` for arguments with
/// nothing long enough to prune.
pub fn size(
    format: FormatId,
    record: &Record,
    units: u64,
    spot: &Spot,
    tokenizer: Tokenizer,
    argument_chars: usize,
) -> Result<Option<Sized>> {
    let raw = record.raw;
    let site = &spot.site;
    let tokens = tokenizer.tokens(spot.units);
    let (json, pruned) = match site.kind {
        Kind::Result => {
            let outline = spot
                .outline
                .as_ref()
                .context("a result without its outline")?;
            let text = outline.result_placeholder(site.tool.as_deref(), tokens);
            (Some(replacement(site.shape, &text)), spot.placeholder)
        }
        Kind::Arguments => {
            let Some(span) = value_at(raw, &site.path) else {
                return Ok(None);
            };
            let shrink = |text: &str| {
                (!is_placeholder(text)).then(|| {
                    argument_placeholder(tokenizer.tokens(tokenizer.text_units(text)), text)
                })
            };
            match shrunk_arguments(site.shape, &raw[span], argument_chars, &shrink) {
                Some(json) => (Some(json), false),
                // Nothing long left: already pruned, or short to begin with.
                None if spot.holds_placeholder => (None, true),
                None => return Ok(None),
            }
        }
        Kind::Thinking => (None, false),
    };
    let saved_units = if pruned {
        0
    } else {
        saved_units(format, record, spot, json.as_deref(), tokenizer, units)?
    };
    let shrinks = match (&json, site.shape) {
        (Some(json), _) => value_at(raw, &site.path).is_some_and(|span| json.len() < span.len()),
        (None, Shape::Remove | Shape::DropLine) => true,
        (None, _) => false,
    };
    Ok(Some(Sized {
        tokens,
        json,
        pruned,
        saved_units,
        shrinks,
    }))
}

/// The units the context loses when this one site is replaced: the record's message read
/// back from the edited line, measured against the message as it is.
fn saved_units(
    format: FormatId,
    record: &Record,
    spot: &Spot,
    json: Option<&[u8]>,
    tokenizer: Tokenizer,
    units: u64,
) -> Result<u64> {
    let site = &spot.site;
    if site.shape == Shape::DropLine {
        return Ok(units);
    }
    let edited = edit_line(record.raw, &[(site, json)])?;
    let text = std::str::from_utf8(&edited)?;
    let read = format
        .format()
        .read(record.line, text)
        .context("a pruned line no longer reads")?;
    let after = read
        .message()
        .map_or(0, |message| tokenizer.message_units(message));
    let saved = units.saturating_sub(after);
    // Arguments are sent to the model whether or not the estimator counts them (chars/4, as
    // kimi-cli's, counts text only): what shrinking them frees comes off the provider's figure
    // all the same, so it is measured as text.
    if let (Kind::Arguments, Some(json)) = (&site.kind, json) {
        let new = serde_json::from_slice::<String>(json)
            .unwrap_or_else(|_| String::from_utf8_lossy(json).into_owned());
        let freed = spot.units.saturating_sub(tokenizer.text_units(&new));
        return Ok(saved.max(freed));
    }
    Ok(saved)
}
