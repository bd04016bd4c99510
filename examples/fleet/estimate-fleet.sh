#!/bin/sh
# The token count of every agent session on many machines: one report line per session file,
# tagged with its host, then one merged total line.
#
#   sh examples/fleet/estimate-fleet.sh laptop build-1 build-2 > fleet.jsonl
#
# With no host this machine alone is measured, with xargs only; with hosts, GNU parallel runs the
# same pipeline once on each (`--nonall`, over ssh; `:` is this machine) and tags every line with
# the host. Each host needs condense on its PATH. On a host, the sessions are measured in
# batches of 16 files, 4 batches at a time; `--no-total-line` keeps the batches' total lines out, so
# the merge step adds up each file exactly once, and `--keep-going` reports a bad file and goes on.
set -eu
# The list is a file, not a pipe, so that a `condense sessions` that fails fails the run.
measure='l=$(mktemp) && condense sessions -0 > "$l" &&
  xargs -0 -r -n 16 -P 4 condense estimate --format jsonl --no-total-line --keep-going < "$l"
  s=$?; rm -f "$l"; exit $s'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A bad file fails its batch (xargs exits 123, the error is on stderr), not the fleet report; a
# run that failed with nothing reported at all (every host unreachable) fails the script.
status=0
if [ "$#" -eq 0 ]; then
  sh -c "$measure" > "$work/local" || status=$?
  sed 's/^/local\t/' "$work/local"
else
  hosts=$(printf '%s,' "$@")
  parallel --will-cite --nonall --tag -S "${hosts%,}" "$measure" || status=$?
fi > "$work/tagged"
if [ "$status" -ne 0 ] && [ ! -s "$work/tagged" ]; then
  echo "estimate-fleet: no host reported (exit status $status); see the errors above" >&2
  exit 1
fi
# Merge: each tagged line becomes its report with a "host" field, then one total line.
jq -R -c 'split("\t") as [$host, $report] | ($report | fromjson) + {host: $host}' "$work/tagged" > "$work/reports"
cat "$work/reports"
jq -s -c '{total: true, hosts: (map(.host) | unique | length), files: length,
  tokens: (map(.tokens) | add // 0), context_tokens: (map(.context.tokens) | add // 0)}' "$work/reports"
