#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) each, two at a time, niced, logging to
# fuzz/logs/<target>.log. Needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
#   bash fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lines_detect record plan request inject extract)
[ -d fuzz/corpus ] || python3 fuzz/seed.py
mkdir -p fuzz/logs
nice -n 10 cargo +nightly fuzz build -s none
# Transcript::parse reads lines on a rayon pool: one thread per fuzzer keeps two fuzzers from
# fighting over the cores.
export RAYON_NUM_THREADS=1
run() {
  nice -n 10 cargo +nightly fuzz run -s none "$1" -- -dict=fuzz/jsonl.dict -max_len=16384 \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >"fuzz/logs/$1.log" 2>&1 || echo "$1: crashed, see fuzz/logs/$1.log and fuzz/artifacts/$1/"
  grep -a 'DONE' "fuzz/logs/$1.log" | tail -1 | sed "s/^/$1: /" || true
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  run "${targets[i]}" &
  if [ $((i + 1)) -lt ${#targets[@]} ]; then run "${targets[i + 1]}" & fi
  wait
done
