#!/usr/bin/env bash
# calls.sh: issue 33's per-call rows, beside throughput.sh's per-byte ones.
#
#   start-up      `estimate --tokenizer o200k` (and cl100k) against chars4 on one small session:
#                 the extra wall time of an exact count (target: <= 30 ms)
#   many files    `estimate` over a directory of $SESSIONS small Claude Code sessions in a
#                 ~/.claude/projects shape (a folder per project, a file per session), passed by
#                 `find ... -print0 | xargs -0`, against `find ... | xargs wc -c` on the same
#                 files as the floor: per-file cost of each, and their ratio
#   model-free    caveman, bare, prune and `compact --budget` (no --llm) on a $BIG_MB MiB Claude
#                 Code session, and `compact --budget --in-place` on a fresh copy of it each run:
#                 ms per MiB (target: <= 100) and peak RSS against the input size (target: <= 2x);
#                 then `compact --budget` on throughput.sh's codex, pi and openai-chat files of
#                 the same size, where they exist (codex's without its compactions and token
#                 counts, so that it is one live context to compact)
# Each figure is the best wall time of $RUNS runs after one warm-up run (page cache warm), with
# the peak RSS of the runs (/usr/bin/time's %M); every target line says met or NOT met, with
# the figures of this run. Wall time is only meaningful on an otherwise idle machine; the load
# average is printed first and last.
#
# The files, in benches/data/ (git-ignored), are made from fixtures/corpus/claude-code/:
#   projects/    $SESSIONS sessions: each the first $SESSION_LINES lines of a corpus file, in
#                $PROJECTS project folders, named <n>.jsonl
#   big-cc.jsonl the corpus files, newline-terminated, repeated to $BIG_MB MiB
#
# Run from anywhere:   bash benches/scripts/calls.sh
# Knobs (environment): SESSIONS=10000 PROJECTS=40 SESSION_LINES=12 BIG_MB=100 RUNS=3
#                      CONDENSE_BIN=PATH times that binary instead of building this checkout

set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD

SESSIONS=${SESSIONS:-10000}
PROJECTS=${PROJECTS:-40}
SESSION_LINES=${SESSION_LINES:-12}
BIG_MB=${BIG_MB:-100}
RUNS=${RUNS:-3}
for knob in SESSIONS PROJECTS SESSION_LINES BIG_MB RUNS; do
    [[ ${!knob} =~ ^[0-9]+$ && ${!knob} -gt 0 ]] || { echo "calls.sh: $knob must be a positive integer" >&2; exit 2; }
done

DATA=$ROOT/benches/data
CONDENSE=${CONDENSE_BIN:-$ROOT/target/release/condense}
[[ -x /usr/bin/time ]] || { echo "calls.sh: needs /usr/bin/time (GNU time) for peak memory" >&2; exit 1; }

note() { printf '%s\n' "$*" >&2; }
loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?'; }

if [[ -z ${CONDENSE_BIN:-} ]]; then
    note "building condense (release)"
    cargo build --release --quiet
fi
mkdir -p "$DATA"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A run that writes its session in place is given a fresh copy each time: FRESH=(SOURCE COPY)
# makes COPY a copy of SOURCE before each run, untimed (synced, and with nothing condense left
# beside it: backup, undo journal).
FRESH=()

# best CMD...: runs CMD $RUNS times after a warm-up, stdout to /dev/null; sets W (best wall s)
# and R (peak RSS KiB over the runs), C (least CPU s, user + sys, 10 ms resolution). Aborts, showing stderr, when CMD fails (exit 4 aside).
best() {
    W='' R=0 C=''
    local i t0 t1 w m c
    for ((i = 0; i <= RUNS; i++)); do
        if ((${#FRESH[@]})); then
            rm -f -- "${FRESH[1]}" "${FRESH[1]}".?*
            cp -- "${FRESH[0]}" "${FRESH[1]}"
            sync -- "${FRESH[1]}"
        fi
        t0=$EPOCHREALTIME
        # Exit 4 is an answer, not a failure: nothing to prune, or a session that already fits.
        local rc=0
        /usr/bin/time -f '%M %U %S' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || rc=$?
        if ((rc != 0 && rc != 4)); then
            note "FAILED (exit $rc): $*"
            cat "$TMP/err" >&2
            exit 1
        fi
        t1=$EPOCHREALTIME
        ((i == 0)) && continue
        w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
        read -r m c < <(tail -n 1 "$TMP/time" | awk '{ print $1, $2 + $3 }')
        if [[ -z $W ]] || awk -v a="$w" -v b="$W" 'BEGIN { exit !(a < b) }'; then W=$w; fi
        if [[ -z $C ]] || awk -v a="$c" -v b="$C" 'BEGIN { exit !(a < b) }'; then C=$c; fi
        if ((m > R)); then R=$m; fi
    done
}

# verdict OK-EXPRESSION: "met" or "NOT met", by awk.
verdict() { awk "BEGIN { exit !($1) }" && echo met || echo "NOT met"; }

echo "calls.sh: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(loadavg), $($CONDENSE --version)"

# --- start-up --------------------------------------------------------------------------------
# One named session (125 kB), so that a fixture added to the corpus does not change the row.
small="$ROOT"/fixtures/corpus/claude-code/claude-code-viewer-5c0375b4.jsonl
best "$CONDENSE" estimate "$small"
base=$W base_cpu=$C
echo
echo "start-up: estimate on $(basename "$small") ($(wc -c <"$small") bytes), best of $RUNS"
printf '  %-28s %9s %9s %9s %9s\n' tokenizer "wall ms" "extra ms" "CPU ms" "extra CPU"
printf '  %-28s %9.1f %9s %9.0f %9s\n' chars4 "$(awk -v w="$base" 'BEGIN { print w * 1000 }')" - \
    "$(awk -v c="$base_cpu" 'BEGIN { print c * 1000 }')" -
for tokenizer in o200k cl100k; do
    best "$CONDENSE" estimate --tokenizer "$tokenizer" "$small"
    extra=$(awk -v w="$W" -v b="$base" 'BEGIN { printf "%.1f", (w - b) * 1000 }')
    extra_cpu=$(awk -v c="$C" -v b="$base_cpu" 'BEGIN { printf "%.0f", (c - b) * 1000 }')
    printf '  %-28s %9.1f %9s %9.0f %9s\n' "$tokenizer" "$(awk -v w="$W" 'BEGIN { print w * 1000 }')" "$extra" \
        "$(awk -v c="$C" 'BEGIN { print c * 1000 }')" "$extra_cpu"
    echo "  target: $tokenizer costs <= 30 ms more than chars4: $(verdict "$extra <= 30") ($extra ms wall; $extra_cpu ms CPU)"
done

# --- many files ------------------------------------------------------------------------------
projects=$DATA/projects-$SESSIONS-$PROJECTS-$SESSION_LINES
if [[ ! -f $projects/.complete ]]; then
    note "making $SESSIONS sessions in $projects"
    rm -rf "$projects"
    mkdir -p "$projects"
    mapfile -t sources < <(ls "$ROOT"/fixtures/corpus/claude-code/*.jsonl)
    for ((p = 0; p < PROJECTS; p++)); do mkdir -p "$projects/-home-user-project-$p"; done
    for ((s = 0; s < SESSIONS; s++)); do
        head -n "$SESSION_LINES" "${sources[s % ${#sources[@]}]}" >"$projects/-home-user-project-$((s % PROJECTS))/$s.jsonl"
    done
    touch "$projects/.complete"
fi
files=$(find "$projects" -name '*.jsonl' | wc -l)
bytes=$(find "$projects" -name '*.jsonl' -print0 | xargs -0 cat | wc -c)
best sh -c 'find "$1" -name "*.jsonl" -print0 | xargs -0 wc -c' sh "$projects"
floor=$W floor_rss=$R
best sh -c 'find "$1" -name "*.jsonl" -print0 | xargs -0 "$2" estimate' sh "$projects" "$CONDENSE"
echo
echo "many files: $files sessions, $((bytes / 1024)) KiB in all, best of $RUNS"
printf '  %-28s %9s %12s %10s\n' command "wall s" "us per file" "peak MiB"
printf '  %-28s %9.3f %12.1f %10.1f\n' "find | xargs wc -c" "$floor" \
    "$(awk -v w="$floor" -v n="$files" 'BEGIN { print w / n * 1e6 }')" "$(awk -v r="$floor_rss" 'BEGIN { print r / 1024 }')"
printf '  %-28s %9.3f %12.1f %10.1f\n' "find | xargs estimate" "$W" \
    "$(awk -v w="$W" -v n="$files" 'BEGIN { print w / n * 1e6 }')" "$(awk -v r="$R" 'BEGIN { print r / 1024 }')"
echo "  estimate / floor: $(awk -v a="$W" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')x (no target set: the floor is for scale)"

# --- model-free commands on a big session ----------------------------------------------------
big=$DATA/big-cc-$BIG_MB.jsonl
want=$((BIG_MB * 1048576))
if [[ ! -f $big ]] || (($(wc -c <"$big") < want)); then
    note "making $big"
    : >"$big.part"
    while (($(wc -c <"$big.part") < want)); do
        for f in "$ROOT"/fixtures/corpus/claude-code/*.jsonl; do awk 1 "$f" >>"$big.part"; done
    done
    mv "$big.part" "$big"
fi
size=$(wc -c <"$big")
mib=$(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1048576 }')
echo
echo "model-free: on $(basename "$big") ($mib MiB), best of $RUNS"
printf '  %-34s %9s %9s %10s %8s\n' command "wall s" "ms/MiB" "peak MiB" "x input"
# row COMMAND: the line of COMMAND, timed by `best`, and its target line.
row() {
    local command=$1 per ratio
    per=$(awk -v w="$W" -v m="$mib" 'BEGIN { printf "%.1f", w * 1000 / m }')
    ratio=$(awk -v r="$R" -v b="$size" 'BEGIN { printf "%.2f", r * 1024 / b }')
    printf '  %-34s %9.3f %9s %10.1f %8s\n' "$command" "$W" "$per" "$(awk -v r="$R" 'BEGIN { print r / 1024 }')" "$ratio"
    echo "  target: $command <= 100 ms/MiB: $(verdict "$per <= 100") ($per); peak <= 2x input: $(verdict "$ratio <= 2") (${ratio}x)"
}
for command in caveman bare prune "compact --budget 20000"; do
    # shellcheck disable=SC2086 # the command's words are split on purpose
    best "$CONDENSE" $command "$big"
    row "$command"
done
# In place, on a fresh copy each run: the session compared under the lock, checked and appended to.
FRESH=("$big" "$TMP/in-place.jsonl")
best "$CONDENSE" compact --budget 20000 --in-place "$TMP/in-place.jsonl"
FRESH=()
row "compact --budget 20000 --in-place"
# The other formats' files, where throughput.sh has built them (it owns how they are made):
# `compact --budget` plans a different rung on each (the pruned rung reads every tool output),
# so its peak is not the Claude Code one.
for format in codex pi openai-chat; do
    other=$DATA/$format-${BIG_MB}MiB.jsonl
    [[ -f $other ]] || { note "no $other (bash benches/scripts/throughput.sh builds it): $format row left out"; continue; }
    big=$other
    if [[ $format == codex ]]; then
        # The codex file is rollouts end to end, with their compactions: its live context
        # is the last rollout's tail, which fits, and compact would exit 4 having planned
        # nothing. Without the compaction markers and the token counts Codex reported (the
        # latest one is the size of that small tail), the whole file is one live context, as in
        # a long session never compacted, and the row measures a compaction.
        big=$DATA/codex-live-${BIG_MB}MiB.jsonl
        [[ -f $big && $big -nt $other ]] ||
            grep -v -e '"type":"compacted"' -e '"type":"token_count"' "$other" >"$big"
    fi
    size=$(wc -c <"$big")
    mib=$(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1048576 }')
    best "$CONDENSE" compact --budget 20000 "$big"
    row "compact --budget 20000 ($format)"
done
echo
echo "load average at the end: $(loadavg)"
