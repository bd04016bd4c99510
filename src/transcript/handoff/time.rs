//! RFC 3339 timestamps in UTC with milliseconds: the agents all write
//! `2026-12-01T09:00:00.000Z`, and a handoff reads the source's last one and counts on from it.

use jiff::Timestamp;

/// Milliseconds since the Unix epoch of an RFC 3339 timestamp (`Z` or a `±hh:mm` offset,
/// fractional seconds optional); `None` when it is not one, or lies before the epoch.
pub fn parse_ms(text: &str) -> Option<u64> {
    let timestamp: Timestamp = text.parse().ok()?;
    u64::try_from(timestamp.as_millisecond()).ok()
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (the last moment a timestamp can name,
/// in the year 9999, for anything later).
pub fn format_ms(ms: u64) -> String {
    let timestamp = i64::try_from(ms)
        .ok()
        .and_then(|ms| Timestamp::from_millisecond(ms).ok())
        .unwrap_or(Timestamp::MAX);
    format!("{timestamp:.3}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_agents_timestamps() {
        let ms = parse_ms("2026-12-01T08:38:27.862Z").unwrap();
        assert_eq!(ms, 1_796_114_307_862);
        assert_eq!(format_ms(ms), "2026-12-01T08:38:27.862Z");
        assert_eq!(parse_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(format_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            parse_ms("2024-02-29T12:00:00.5+01:00"),
            parse_ms("2024-02-29T11:00:00.500Z")
        );
        assert_eq!(format_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-12-01T00:00:00",
            "1969-12-31T23:59:59Z",
        ] {
            assert_eq!(parse_ms(bad), None, "{bad}");
        }
    }
}
