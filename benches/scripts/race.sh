#!/usr/bin/env bash
# benches/scripts/race.sh: the live-session race of issues 10 and 31, RUNS times per case (default 200).
#
# Each run: `prompt --plan` on a session, then `inject --plan … --in-place` while a child `sh`
# appends a line every 2 ms, in one of three writer styles: reopening the file per line (`>>`
# each time), keeping it open (`exec 3>>`, as Codex does), or reopening it and, every twentieth
# line, saving the whole file anew by rename (`cat S > S.w; … >> S.w; mv S.w S`); with whole
# lines or lines written in two chunks 1 ms apart. pi sessions take the append path,
# OpenAI-style lists (kimi context.jsonl) the replace path. Afterwards every line the writer
# wrote must be in the session itself (not only in a backup), inside the live context the agent
# resumes with (`estimate --per-message`), the session must parse (`condense estimate`, no
# warning), and the original must still be there (the session's first bytes, or a backup).
#
# The cases are the tests in tests/cli/race.rs (CI runs them 20 times each, on the real small
# sessions); this runs them one case at a time, each case's runs in parallel, and prints one
# line of figures per case: session size, lines written, lines lost, lines outside the live
# context, unparsable results, exit codes (1 = refused, which loses nothing: the writer held
# the file open, or replaced it, or never paused).
# MB grows the sessions to that many megabytes (their first half's texts get filler words), and
# the writer then writes 600 lines in bursts of 40 with 0.4 s pauses, through the whole
# compaction; two runs at a time.
# To measure another build's inject the same way (say, the one before issue 10), point
# CONDENSE_RACE_BIN at its binary; its failed checks are then reported after the figures.
#   bash benches/scripts/race.sh      Knobs: RUNS=200  MB=(unset: the real sessions)  LINES=(80, or 600 with MB)
#                                  PROFILE=dev|release (default dev, as CI; release with MB)
#                                  CONDENSE_RACE_BIN=path/to/condense
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-200}
MB=${MB:-}
PROFILE=${PROFILE:-$([ -n "$MB" ] && echo release || echo dev)}
flags=()
[ "$PROFILE" = release ] && flags=(--release)
env=(CONDENSE_RACE_RUNS="$RUNS")
[ -n "$MB" ] && env+=(CONDENSE_RACE_MB="$MB")
[ -n "${LINES:-}" ] && env+=(CONDENSE_RACE_LINES="$LINES")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "race: $RUNS runs per case${MB:+ on $MB MB sessions}, $PROFILE build${CONDENSE_RACE_BIN:+, inject from $CONDENSE_RACE_BIN}" >&2
status=0
env "${env[@]}" cargo test "${flags[@]}" --quiet --test cli race:: -- \
  --nocapture --test-threads 1 >"$log" 2>&1 || status=$?
grep '^race-figures ' "$log" | sed 's/^race-figures //'
awk '/^race-figures /{
  n = split($0, f, "|");
  for (i = 1; i <= n; i++) {
    if (f[i] ~ /runs [0-9]+ on/) { m = split(f[i], w, " "); for (j = 1; j < m; j++) if (w[j] == "runs") runs += w[j+1] }
    if (f[i] ~ /lines written/) { split(f[i], w, " "); written += w[3] }
    if (f[i] ~ /lines lost/) { split(f[i], w, " "); lost += w[3] }
    if (f[i] ~ /outside the live/) { split(f[i], w, " "); outside += w[6] }
    if (f[i] ~ /unparsable/) { split(f[i], w, " "); bad += w[3] }
    if (f[i] ~ /original lost/) { split(f[i], w, " "); orig += w[3] }
  }
} END { printf "total: %d races, %d lines written, %d lost (only in a backup or nowhere), %d outside the live context, %d unparsable, %d originals lost\n", runs, written, lost, outside, bad, orig }' "$log"
if [ "$status" -ne 0 ]; then
  grep -E '^(thread|assertion)' "$log" >&2 || cat "$log" >&2
  exit "$status"
fi
