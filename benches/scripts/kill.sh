#!/usr/bin/env bash
# kill.sh: issue 31's kills. `inject --in-place` of a Claude Code session (append path)
# is killed POINTS times with SIGKILL (half aimed at the write itself: the kill follows the
# session's first growth by 0 to a few hundred microseconds, half anywhere in a run's second
# half), and POINTS/2 times each with SIGINT, SIGTERM and SIGHUP; after each kill the next run
# must repair what was left and compact. Prints one line per signal: how many kills left the
# original, the whole result, a torn record (SIGKILL only; the next run removes it), and how
# many sessions stayed torn after the next run (must be 0). The full disk at 16 fill levels
# runs too (it needs root and `unshare -m`; it says so when it is skipped).
# Measured at 42b7bd2 (release, POINTS=100, on a loaded 2-core machine): SIGKILL 100 kills:
# 40 original, 45 whole, 15 torn then repaired by the next run, 0 torn after it; SIGINT,
# SIGTERM, SIGHUP 50 each: 0 torn (18/24/26 original, 32/26/24 whole); full disk at 16 tmpfs
# sizes: 14 refused untouched (7 of them at the append, after the journal), 2 appended.
#   bash benches/scripts/kill.sh   Knobs: POINTS=100  PROFILE=dev|release (default release)
set -euo pipefail
cd "$(dirname "$0")/../.."
POINTS=${POINTS:-100}
PROFILE=${PROFILE:-release}
flags=()
[ "$PROFILE" = release ] && flags=(--release)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "kill: $POINTS points, $PROFILE build" >&2
status=0
CONDENSE_KILL_POINTS=$POINTS cargo test "${flags[@]}" --quiet --test cli torn:: -- \
  --nocapture --test-threads 1 >"$log" 2>&1 || status=$?
grep -E '^(kill-figures|full disk|skipped)' "$log" | sed 's/^kill-figures //'
if [ "$status" -ne 0 ]; then
  grep -E '^(thread|assertion)' "$log" >&2 || cat "$log" >&2
  exit "$status"
fi
