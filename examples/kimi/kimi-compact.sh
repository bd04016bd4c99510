#!/bin/sh
# Compact the newest kimi-cli session when it is due, with kimi itself writing the summary, then
# resume it. kimi-cli has no hooks, so this runs before `kimi --continue` (an alias does it).
#
#   MAX_CONTEXT=262144 sh examples/kimi/kimi-compact.sh && kimi --continue
set -eu
# Resolve the session once: the summariser's own run writes a newer kimi session.
session=$(condense sessions --latest --agent kimi)
[ -n "$session" ] || { echo "no kimi-cli session found" >&2; exit 1; }
status=0
condense estimate --check --quiet --max-context "${MAX_CONTEXT:-262144}" "$session" || status=$?
case $status in
  0) exit 0 ;;           # not due
  3) ;;                  # due: compact below
  *) exit "$status" ;;   # an error, already reported on stderr
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/scratch"
# The summariser: $SUMMARIZER (a shell command reading the request on stdin), else kimi in print
# mode. Print mode approves every tool call, so kimi runs the recipe's agent with no tools and
# no sub-agents (the model reads transcript text, which may ask for anything) and condense's
# system prompt; it records a session for its work directory, so that is a scratch one.
condense recipes kimi/summariser.yaml > "$work/summariser.yaml"
condense prompt --system > "$work/system.md"
summarise() {
  if [ -n "${SUMMARIZER:-}" ]; then
    sh -c "$SUMMARIZER"
  else
    kimi --quiet --agent-file "$work/summariser.yaml" --work-dir "$work/scratch"
  fi
}
condense prompt --plan "$work/plan.json" "$session" | summarise > "$work/summary.md"
condense inject --plan "$work/plan.json" --summary "$work/summary.md" --in-place "$session"
echo "compacted $session"
