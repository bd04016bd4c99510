#!/usr/bin/env bash
# prune.sh: how much `condense prune` takes off the live context of every real session in
# fixtures/corpus/, per format. Prints a Markdown table: the context as `estimate --context`
# reports it (the last provider figure plus the estimate after it, or the estimate alone when
# the file records none) before and after each setting, and the share freed. Settings:
#
#   default      condense prune FILE                    (keep 3 tool uses, min 100 tokens)
#   keep-turns   condense prune --keep-turns 1 FILE     (the last user turn stays verbatim)
#   all          --keep 0 --min-tokens 0 --clear-inputs --keep-thinking 1
#   all/fast     the same, counted with --tokenizer fast (which counts arguments and thinking,
#                which chars4 does not)
#
# Run from anywhere: bash benches/scripts/prune.sh   Knob: CONDENSE=path/to/condense (default:
# a release build of this tree).
set -euo pipefail

cd "$(dirname "$0")/../.."
if [ -z "${CONDENSE:-}" ]; then
  cargo build --release --quiet
  CONDENSE=target/release/condense
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

context() { # FILE [ESTIMATE ARGS...] -> context tokens
  local file=$1
  shift
  "$CONDENSE" estimate --context "$@" "$file" | sed -E 's/.*"context":\{"tokens":([0-9]+).*/\1/'
}

# after FILE ESTIMATE-ARGS -- PRUNE-ARGS -> context tokens after pruning
after() {
  local file=$1
  shift
  local estimate=()
  while [ "$1" != "--" ]; do estimate+=("$1"); shift; done
  shift
  local status=0
  "$CONDENSE" prune "${estimate[@]}" "$@" "$file" > "$tmp/out.jsonl" 2>/dev/null || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 4 ] || { echo "prune failed on $file" >&2; exit 1; }
  context "$tmp/out.jsonl" "${estimate[@]}"
}

share() { # BEFORE AFTER -> "AFTER (-P%)"
  awk -v b="$1" -v a="$2" 'BEGIN { if (b > 0) printf "%d (-%.0f%%)", a, 100 * (b - a) / b; else printf "%d", a }'
}

all=(--keep 0 --min-tokens 0 --clear-inputs --keep-thinking 1)
echo "| session | format | before | default | keep-turns 1 | all | before (fast) | all (fast) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for file in fixtures/corpus/*/*.jsonl; do
  format=$("$CONDENSE" estimate "$file" | sed -E 's/.*"format":"([a-z-]+)".*/\1/')
  before=$(context "$file")
  default=$(after "$file" --)
  turns=$(after "$file" -- --keep-turns 1)
  most=$(after "$file" -- "${all[@]}")
  fast_before=$(context "$file" --tokenizer fast)
  fast=$(after "$file" --tokenizer fast -- "${all[@]}")
  printf '| %s | %s | %d | %s | %s | %s | %d | %s |\n' "$(basename "$file")" "$format" "$before" \
    "$(share "$before" "$default")" "$(share "$before" "$turns")" "$(share "$before" "$most")" \
    "$fast_before" "$(share "$fast_before" "$fast")"
done
