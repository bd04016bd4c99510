#!/usr/bin/env bash
# race.sh: the live-session race of issue 10, RUNS times per case (default 200).
#
# Each run: `prompt --plan` on a session, then `inject --plan … --in-place` while a child `sh`
# appends a line every 2 ms (80 lines), in one of two writer styles: reopening the file per
# line (`>>` each time) or keeping it open (`exec 3>>`, as Codex does); with whole lines or
# lines written in two chunks 1 ms apart. pi sessions take the append path, OpenAI-style lists
# (kimi context.jsonl) the replace path. Afterwards every line the writer wrote must be in the
# session itself, the session must parse (`condense estimate`, no warning), and the original
# must still be there (the session's first bytes, or a backup).
#
# The cases are the tests in tests/cli/race.rs (CI runs them 20 times each); this runs them
# one case at a time, each case's runs four in parallel, and prints one line of figures per
# case: lines written, lines lost, unparsable results, exit codes (1 = refused because the
# writer holds the file open for writing, which loses nothing).
# To measure another build's inject the same way (say, the one before issue 10), point
# CONDENSE_RACE_BIN at its binary; its failed checks are then reported after the figures.
#   bash benches/scripts/race.sh   Knobs: RUNS=200  PROFILE=dev|release (default dev, as CI)
#                                         CONDENSE_RACE_BIN=path/to/condense
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-200}
PROFILE=${PROFILE:-dev}
flags=()
[ "$PROFILE" = release ] && flags=(--release)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "race: $RUNS runs per case, $PROFILE build${CONDENSE_RACE_BIN:+, inject from $CONDENSE_RACE_BIN}" >&2
status=0
CONDENSE_RACE_RUNS=$RUNS cargo test "${flags[@]}" --quiet --test cli race:: -- \
  --nocapture --test-threads 1 >"$log" 2>&1 || status=$?
grep '^race-figures ' "$log" | sed 's/^race-figures //'
if [ "$status" -ne 0 ]; then
  grep -E '^(thread|assertion)' "$log" >&2 || cat "$log" >&2
  exit "$status"
fi
