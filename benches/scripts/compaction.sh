#!/usr/bin/env bash
# compaction.sh: how long the compaction commands take, and how much memory they use.
#
#   split, prompt, inject   on a 100 MB Claude Code session (targets: under 1 s each, peak
#                           memory under 2x the input)
#   caveman, bare           on 3, 30 and 300 MB sessions (targets: under 50 ms at 3 MB, and
#                           linear in the input size)
#
# Sessions are the real Claude Code transcripts of fixtures/corpus/claude-code/ concatenated
# (each copy newline-terminated) and repeated to the size wanted, so each stays one valid
# claude-code transcript; they are written to benches/data/ (git-ignored) and reused.
# Each figure is the best wall time of RUNS runs after a warm-up (page cache warm), with the peak
# RSS from /usr/bin/time. Run from anywhere: bash benches/scripts/compaction.sh   Knob: RUNS=5
set -euo pipefail

cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
DATA=benches/data
CONDENSE=target/release/condense
mkdir -p "$DATA"
cargo build --release --quiet

unit=$DATA/claude-code.unit.jsonl
if [ ! -s "$unit" ]; then
  for f in fixtures/corpus/claude-code/*.jsonl; do sed -e '$a\' "$f"; done > "$unit"
fi

# session MB -> path of a session of about that many megabytes (2^20 bytes).
session() {
  local mb=$1 path=$DATA/claude-code-session-$1MB.jsonl
  if [ ! -s "$path" ]; then
    local unit_bytes copies
    unit_bytes=$(stat -c %s "$unit")
    copies=$(( (mb * 1048576 + unit_bytes - 1) / unit_bytes ))
    for _ in $(seq "$copies"); do cat "$unit"; done > "$path"
  fi
  echo "$path"
}

# time_it LABEL MB COMMAND...: best wall seconds and peak RSS over RUNS runs after a warm-up.
time_it() {
  local label=$1 mb=$2
  shift 2
  "$@" > /dev/null 2>&1 || true
  local best="" rss=0
  for _ in $(seq "$RUNS"); do
    local start end took peak
    start=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$rss_file" "$@" > /dev/null 2>&1 || true
    peak=$(tail -1 "$rss_file")
    end=$EPOCHREALTIME
    took=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$took < $best" | bc -l)" = 1 ]; then best=$took; fi
    [ "$peak" -gt "$rss" ] 2>/dev/null && rss=$peak
  done
  printf '%-10s %6s MB  %8.3f s  %8.1f MB/s  peak %7.1f MB  (%.2fx input)\n' \
    "$label" "$mb" "$best" "$(echo "$mb / $best" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$rss / 1024 / $mb" | bc -l)"
}

echo "condense compaction commands  $(date -u '+%Y-%m-%d %H:%M UTC')  nproc $(nproc)  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
big=$(session 100)
summary=$(mktemp)
plan=$(mktemp)
rss_file=$(mktemp)
trap 'rm -f "$summary" "$plan" "$rss_file"' EXIT
echo "SUMMARY" > "$summary"
"$CONDENSE" prompt --plan "$plan" "$big" > /dev/null
time_it split 100 "$CONDENSE" split "$big"
time_it prompt 100 "$CONDENSE" prompt "$big"
time_it inject 100 "$CONDENSE" inject --plan "$plan" --summary "$summary" "$big"
echo
for mb in 3 30 300; do
  s=$(session "$mb")
  time_it caveman "$mb" "$CONDENSE" caveman "$s"
  time_it bare "$mb" "$CONDENSE" bare "$s"
done
