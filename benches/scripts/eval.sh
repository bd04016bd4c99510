#!/usr/bin/env bash
# eval.sh: the eval scoreboard (issue 25). `condense eval` over every real compaction of
# the eval corpus (../shared/corpus/eval/, when present) and every fixture session
# (fixtures/corpus/, cut at their own compactions or at 70 % of their messages), for the
# agents' own summaries (native), caveman, bare and the frequency-list baseline at caveman's
# budget; hand probes from fixtures/probes/eval/ when that folder has any.
#
# Prints, in Markdown: the per-cut table, the totals by kind and the probes by kind of the eval
# corpus and issue 26's "Done when" lines for it (benches/scripts/targets.py over `eval
# --format jsonl`: per cut, caveman against the native summary on re-used paths, commands,
# errors and numbers and on all entities; the probe ratio and the per-kind probe targets; each
# line ends `met` or `NOT met`), then the same tables for the fixtures, then the release
# binary's time per eval-corpus session (wall, one run each, so only a bound on a shared
# machine). benches/quality/BASELINE-eval.md is this output, committed.
#
# A script rather than a third section of `cargo bench --bench quality`: `eval` computes the
# totals itself, so the scoreboard is two invocations of the binary, and the quality bench's
# goldens and goals (checked by tests/cli/quality.rs with its own older matchers) stay apart.
#
# Run from anywhere: bash benches/scripts/eval.sh > benches/quality/BASELINE-eval.md
# Knobs: EVAL_CORPUS=DIR (default ../shared/corpus/eval, or ../../shared/corpus/eval from a
# worktree under /work/wt/; its sessions are DIR/*/*.jsonl and DIR/*.jsonl), PROBES=DIR (default
# fixtures/probes/eval), EVAL_AT=N|P% (also cut the sessions with no compaction there, as
# `eval --at`; default none), CONDENSE_BIN=path. The Codex code-mode sessions and their probes:
# EVAL_CORPUS=fixtures/eval/codex PROBES=fixtures/eval/codex/probes EVAL_AT=70% bash bench/eval.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
if [ -z "${EVAL_CORPUS:-}" ]; then
  EVAL_CORPUS=../shared/corpus/eval
  [ -d "$EVAL_CORPUS" ] || EVAL_CORPUS=../../shared/corpus/eval
fi
PROBES=${PROBES:-fixtures/probes/eval}
if [ -z "${CONDENSE_BIN:-}" ]; then
  cargo build --release --quiet
  CONDENSE_BIN=target/release/condense
fi
probes=()
if compgen -G "$PROBES/*.txt" > /dev/null; then
  probes=(--probes "$PROBES")
fi
at=()
if [ -n "${EVAL_AT:-}" ]; then
  at=(--at "$EVAL_AT")
fi
sessions=()
if [ -d "$EVAL_CORPUS" ]; then
  shopt -s nullglob
  sessions=("$EVAL_CORPUS"/*/*.jsonl "$EVAL_CORPUS"/*.jsonl)
  shopt -u nullglob
fi

echo "# The eval scoreboard"
echo
echo "\`bash benches/scripts/eval.sh\` at $(git rev-parse --short HEAD) ($("$CONDENSE_BIN" --version))."
echo "Counts are re-used entities carried / re-used (docs/EVAL.md defines both); probes from"
echo "${probes[1]:-(none)}."
echo

if [ -d "$EVAL_CORPUS" ]; then
  # --skip-invalid: the last line of pi/pi-mono-2638daee.jsonl holds two JSON objects glued
  # together (as that pi version wrote it); it is after the file's graded compaction.
  echo "## The eval corpus ($EVAL_CORPUS)"
  echo
  "$CONDENSE_BIN" eval --format markdown --skip-invalid "${probes[@]}" "${at[@]}" \
    "${sessions[@]}"
  echo
  rows=$(mktemp)
  "$CONDENSE_BIN" eval --format jsonl --skip-invalid "${probes[@]}" "${at[@]}" \
    "${sessions[@]}" > "$rows" 2> /dev/null
  python3 benches/scripts/targets.py "$rows"
  rm -f "$rows"
  echo
else
  echo "note: $EVAL_CORPUS is not present; the eval corpus is skipped" >&2
  echo "(The eval corpus was not present; skipped.)"
  echo
fi

echo "## The fixture sessions (fixtures/corpus/; --at 70% where a session has no compaction)"
echo
"$CONDENSE_BIN" eval --format markdown --at 70% fixtures/corpus/*/*.jsonl 2> /dev/null
echo

if [ -d "$EVAL_CORPUS" ]; then
  echo "## Time per eval-corpus session (release build, one run each)"
  echo
  echo "CPU is user + system seconds of the process; wall includes waiting for a core, which on"
  echo "a shared machine can be several times the CPU."
  echo
  echo "| file | MB | cuts | CPU s | wall s |"
  echo "|---|--:|--:|--:|--:|"
  TIMEFORMAT='%R %U %S'
  for file in "${sessions[@]}"; do
    out=$(mktemp)
    times=$( { time "$CONDENSE_BIN" eval --skip-invalid "${at[@]}" "$file" > "$out" 2> /dev/null; } 2>&1 )
    rows=$(grep -c '"summary":"caveman"' "$out" || true)
    rm -f "$out"
    mb=$(awk -v b="$(wc -c < "$file")" 'BEGIN { printf "%.2f", b / 1048576 }')
    read -r wall user sys <<< "$times"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
    echo "| ${file#"$EVAL_CORPUS"/} | $mb | $rows | $cpu | $wall |"
  done
fi
