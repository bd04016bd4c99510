#!/usr/bin/env bash
# benches/scripts/kill.sh: issue 31's figures, in one command.
#
# Kills: `inject --in-place` is killed POINTS times with SIGKILL and POINTS/2 times each with
# SIGINT, SIGTERM and SIGHUP, on both write paths: the append path (a Claude Code session,
# 16 MB of records for SIGKILL, 4 MB for the others) and the replace path (a kimi-cli session
# grown to 20 MB). Half the kills are aimed at the write itself (the kill follows the session's
# first growth, or the backup's link made just before the rename, by 0 to a few hundred
# microseconds), half fall anywhere in a run's second half. After each, the next run must
# repair what was left and compact. One line per path and signal: kills that left the
# original, the whole result, a torn record (SIGKILL on the append path only; the next run
# removes it), and the sessions still torn after the next run (must be 0). Then the full disk:
# the append path at 16 tmpfs sizes and the replace path at 24 (it needs root and `unshare -m`;
# it says so when it is skipped): refused untouched, or written whole.
#
# Races: then benches/scripts/race.sh with RACE_RUNS runs of each of its 10 cases (400 in all) on
# sessions grown to RACE_MB megabytes, an agent writing through every compaction; its total
# line counts the agent lines lost (only in a backup, or nowhere) and outside the live context
# (both must be 0). RACE_RUNS=0 leaves the races out.
#
#   nice bash benches/scripts/kill.sh    Knobs: POINTS=100  RACE_RUNS=40  RACE_MB=100
#                                     PROFILE=dev|release (default release)
set -euo pipefail
cd "$(dirname "$0")/../.."
POINTS=${POINTS:-100}
RACE_RUNS=${RACE_RUNS:-40}
RACE_MB=${RACE_MB:-100}
PROFILE=${PROFILE:-release}
flags=()
[ "$PROFILE" = release ] && flags=(--release)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "kill: $POINTS points, $PROFILE build" >&2
status=0
CONDENSE_KILL_POINTS=$POINTS cargo test "${flags[@]}" --quiet --test cli torn:: -- \
  --nocapture --test-threads 1 >"$log" 2>&1 || status=$?
grep -E '^(kill-figures|full disk|SKIPPED)' "$log" | sed 's/^kill-figures //'
if [ "$status" -ne 0 ]; then
  grep -E '^(thread|assertion)' "$log" >&2 || cat "$log" >&2
  exit "$status"
fi
if [ "$RACE_RUNS" -gt 0 ]; then
  RUNS=$RACE_RUNS MB=$RACE_MB PROFILE=$PROFILE bash benches/scripts/race.sh
fi
