#!/bin/sh
# Compact the newest pi session when it is due, with pi writing the summary in print mode, with
# no tools and no session of its own, then resume it with `pi --continue`.
#
#   MAX_CONTEXT=200000 sh examples/pi/pi-compact.sh && pi --continue
set -eu
session=$(condense sessions --latest --agent pi)
[ -n "$session" ] || { echo "no pi session found" >&2; exit 1; }
status=0
condense estimate --check --quiet --max-context "${MAX_CONTEXT:-200000}" "$session" || status=$?
case $status in
  0) exit 0 ;;
  3) ;;
  *) exit "$status" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The summariser: $SUMMARIZER (a shell command reading the request on stdin), else pi.
summarise() {
  if [ -n "${SUMMARIZER:-}" ]; then
    sh -c "$SUMMARIZER"
  else
    pi -p --no-session --no-tools --system-prompt "$(condense prompt --system)"
  fi
}
condense prompt --plan "$work/plan.json" "$session" | summarise > "$work/summary.md"
# pi appends a compaction entry, as its own /compact does: the file keeps every line.
condense inject --plan "$work/plan.json" --summary "$work/summary.md" --in-place "$session"
echo "compacted $session"
