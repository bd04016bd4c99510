#!/usr/bin/env bash
# bench/throughput.sh: how fast `condense estimate` reads a large transcript, next to common
# tools reading the same bytes.
#
# What it measures (wall-clock seconds, best of $RUNS runs after one warm-up run that fills the
# page cache, so disk speed is left out; peak RSS of the process tree):
#   wc -l FILE                                  the floor: reading the bytes and finding newlines
#   condense estimate FILE                      chars4, the default estimator, file argument
#   cat FILE | condense estimate                the same through a pipe (standard input)
#   condense estimate --tokenizer fast FILE     the character-class estimator
#   jq -c . FILE > /dev/null                    a full JSON parse and re-serialisation
#   python3: json.loads of every line           a full JSON parse, line by line
#   condense estimate --tokenizer o200k FILE    exact BPE, on a smaller file ($BPE_MB MB)
#   bench/bpe-baseline (tiktoken-rs alone)      o200k counts of the same smaller file, on 1 thread
#                                               and on all cores: of every JSON string value, and
#                                               of only the message parts condense counts
# and prints a table (tool, MB/s, seconds, CPU seconds, peak RSS, time per MB relative to
# condense chars4 on the same format) plus the condense-o200k / baseline time ratio
# (target <= 1.3x). The all-strings baseline counts more text than condense (metadata included,
# where condense counts only message parts), so both MB/s are printed plainly too; the
# message-parts baseline counts about the same text as condense and is the like-for-like ratio.
#
# The input is the real Claude Code transcripts of fixtures/corpus/claude-code/*.jsonl
# concatenated (each copy newline-terminated) and repeated until the file is $SIZE_MB MB, so it
# stays one valid claude-code transcript; a second file repeats fixtures/corpus/openai-chat
# (kimi-cli context files, OpenAI chat format) the same way. Smaller files are built the same
# way and are byte-for-byte prefixes of the large one. Files go to bench/data/ (git-ignored) and
# are reused when they already have the expected size.
#
# jq and python3 are much slower than the rest: each is first run once on the $PREFIX_MB MB
# file; if a run on the full file would take longer than $SLOW_S seconds it is timed on that
# prefix instead (the MB column shows the size timed; MB/s is of the bytes actually read).
#
# Run from anywhere:   bash bench/throughput.sh
# Knobs (environment): SIZE_MB=1024 BPE_MB=30 PREFIX_MB=100 RUNS=3 SLOW_S=10 MIXED=1
#                      (MIXED=0 skips the openai-chat file). MB means 2^20 bytes.
# Nothing is installed: jq, python3 and /usr/bin/time are used when present and skipped (with a
# note) when not. Without /usr/bin/time, bash's `time` gives the seconds and RSS is unknown.
# Takes about 3-4 minutes on 2 cores with the defaults; the numbers are only meaningful on an
# otherwise idle machine (the load average is printed first).

set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD

SIZE_MB=${SIZE_MB:-1024}
BPE_MB=${BPE_MB:-30}
PREFIX_MB=${PREFIX_MB:-100}
RUNS=${RUNS:-3}
SLOW_S=${SLOW_S:-10}
MIXED=${MIXED:-1}
BUILD_TRIES=${BUILD_TRIES:-3}

DATA=$ROOT/bench/data
CONDENSE=$ROOT/target/release/condense
BASELINE_DIR=$ROOT/bench/bpe-baseline
BASELINE_TARGET=$DATA/target-bpe-baseline
BASELINE=$BASELINE_TARGET/release/bpe-baseline

for knob in SIZE_MB BPE_MB PREFIX_MB RUNS SLOW_S BUILD_TRIES; do
    [[ ${!knob} =~ ^[0-9]+$ && ${!knob} -gt 0 ]] || { echo "throughput.sh: $knob must be a positive integer" >&2; exit 2; }
done

note() { printf '%s\n' "$*" >&2; }
die() { printf 'throughput.sh: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

mkdir -p "$DATA"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------------------------------------
# Timing one command.

HAVE_TIME=0
[[ -x /usr/bin/time ]] && /usr/bin/time -f '%e' true 2>/dev/null && HAVE_TIME=1

# run_once OUT CMD...: runs CMD with stdout to OUT; sets W (wall s), U (user+sys s, or ?) and
# R (peak RSS KB, or ?). Aborts, showing stderr, when CMD fails.
run_once() {
    local out=$1
    shift
    if ((HAVE_TIME)); then
        local t0=${EPOCHREALTIME:-} t1 e m u s
        if ! /usr/bin/time -f '%e %M %U %S' -o "$TMP/time" "$@" >"$out" 2>"$TMP/err"; then
            note "" "FAILED: $*"
            cat "$TMP/err" >&2
            exit 1
        fi
        t1=${EPOCHREALTIME:-}
        read -r e m u s <"$TMP/time"
        # %e has 10 ms resolution; bash's EPOCHREALTIME (when present) has 1 us.
        if [[ -n $t0 && -n $t1 ]]; then
            W=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        else
            W=$e
        fi
        U=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
        R=$m
    else
        local TIMEFORMAT='%R %U %S' r u s
        if ! { time "$@" >"$out" 2>"$TMP/err"; } 2>"$TMP/time"; then
            note "" "FAILED: $*"
            cat "$TMP/err" >&2
            exit 1
        fi
        read -r r u s <"$TMP/time"
        W=$r
        U=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
        R='?'
    fi
}

ROWS=()
# measure KEY LABEL FORMAT FILE WARMUP CMD...: best wall time of $RUNS runs of CMD (after a
# warm-up run when WARMUP is 1), with @F@ in CMD replaced by FILE. Adds a row to the table.
# KEY names the row for later look-ups; stdout of the last run is kept in $TMP/out.KEY.
measure() {
    local key=$1 label=$2 format=$3 file=$4 warm=$5
    shift 5
    local args=() a i best='' cpu='' rss=0 bytes
    for a in "$@"; do args+=("${a//@F@/$file}"); done
    bytes=$(stat -c %s "$file")
    local out=/dev/null
    [[ $key == keep:* ]] && out=$TMP/out.${key#keep:}
    printf '  %-44s %-26s' "$label" "${file##*/}" >&2
    if ((warm)); then
        run_once "$out" "${args[@]}"
        printf ' warm %s |' "$W" >&2
    fi
    for ((i = 0; i < RUNS; i++)); do
        run_once "$out" "${args[@]}"
        printf ' %s' "$W" >&2
        if [[ -z $best ]] || awk -v w="$W" -v b="$best" 'BEGIN { exit !(w < b) }'; then
            best=$W
            cpu=$U
        fi
        if [[ $R == '?' ]]; then rss='?'; elif [[ $rss != '?' ]] && ((R > rss)); then rss=$R; fi
    done
    printf '\n' >&2
    ROWS+=("${key#keep:}"$'\t'"$label"$'\t'"$format"$'\t'"${file##*/}"$'\t'"$bytes"$'\t'"$best"$'\t'"$cpu"$'\t'"$rss")
}

# measure_slow KEY LABEL FORMAT FULL PREFIX CMD...: one run on PREFIX (the warm-up); when the full
# file would take more than $SLOW_S s per run, the timed runs use PREFIX too.
measure_slow() {
    local key=$1 label=$2 format=$3 full=$4 prefix=$5
    shift 5
    local args=() a projected
    for a in "$@"; do args+=("${a//@F@/$prefix}"); done
    run_once /dev/null "${args[@]}"
    projected=$(awk -v w="$W" -v f="$(stat -c %s "$full")" -v p="$(stat -c %s "$prefix")" \
        'BEGIN { printf "%.1f", w * f / p }')
    if awk -v x="$projected" -v lim="$SLOW_S" 'BEGIN { exit !(x <= lim) }'; then
        measure "$key" "$label" "$format" "$full" 1 "$@"
    else
        note "  ($label: about ${projected} s per run on the full file, over SLOW_S=$SLOW_S: timed on the ${PREFIX_MB} MB prefix)"
        measure "$key" "$label" "$format" "$prefix" 0 "$@"
    fi
}

# ---------------------------------------------------------------------------------------------
# Data: FORMAT-<MB>MB.jsonl = the newline-terminated concatenation of the corpus files of that
# format, repeated N times, N the smallest count reaching MB. Every such file is a prefix of the
# larger ones.

# unit FORMAT: writes $DATA/FORMAT.unit.jsonl, one copy of the corpus files of FORMAT.
unit() {
    local format=$1 f
    local files=("$ROOT"/fixtures/corpus/"$format"/*.jsonl)
    [[ -e ${files[0]} ]] || die "no fixtures/corpus/$format/*.jsonl"
    for f in "${files[@]}"; do
        cat "$f"
        # A file without a final newline would glue its last line to the next copy's first.
        if [[ -s $f && $(tail -c 1 "$f" | wc -l) -eq 0 ]]; then printf '\n'; fi
    done >"$DATA/$format.unit.jsonl.tmp"
    mv "$DATA/$format.unit.jsonl.tmp" "$DATA/$format.unit.jsonl"
}

# data FORMAT MB: prints the path of FORMAT-<MB>MB.jsonl, building it unless it already has the
# expected size.
data() {
    local format=$1 mb=$2
    local unit_file=$DATA/$format.unit.jsonl path=$DATA/$format-${mb}MB.jsonl
    local unit_bytes copies expected i
    unit_bytes=$(stat -c %s "$unit_file")
    copies=$(((mb * 1048576 + unit_bytes - 1) / unit_bytes))
    expected=$((copies * unit_bytes))
    if [[ -f $path && $(stat -c %s "$path") -eq $expected ]]; then
        note "  reusing ${path#"$ROOT"/} ($copies copies of the $format corpus)"
    else
        note "  building ${path#"$ROOT"/} ($copies copies of the $format corpus, $unit_bytes bytes each)"
        for ((i = 0; i < copies; i++)); do cat "$unit_file"; done >"$path.tmp"
        mv "$path.tmp" "$path"
    fi
    printf '%s\n' "$path"
}

# ---------------------------------------------------------------------------------------------

LOAD_START=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')
note "== building (load average now: $LOAD_START)"
built=0
for ((try = 1; try <= BUILD_TRIES; try++)); do
    if cargo build --release --quiet; then
        built=1
        break
    fi
    if ((try < BUILD_TRIES)); then
        note "  cargo build failed (try $try of $BUILD_TRIES; src/ may be mid-edit): retrying in 60 s"
        sleep 60
    fi
done
((built)) || die "cargo build --release failed $BUILD_TRIES times"
[[ -x $CONDENSE ]] || die "no $CONDENSE after the build"

HAVE_BASELINE=0
# Same crate versions as condense: seed the baseline's lock file from the repository's (cargo
# drops the packages the baseline does not use).
[[ -f $BASELINE_DIR/Cargo.lock ]] || cp "$ROOT/Cargo.lock" "$BASELINE_DIR/Cargo.lock"
if CARGO_TARGET_DIR=$BASELINE_TARGET cargo build --release --quiet --manifest-path "$BASELINE_DIR/Cargo.toml" ||
    CARGO_TARGET_DIR=$BASELINE_TARGET cargo build --release --quiet --offline --manifest-path "$BASELINE_DIR/Cargo.toml"; then
    HAVE_BASELINE=1
else
    note "  (bench/bpe-baseline did not build: the BPE comparison is skipped)"
fi

note "== data"
unit claude-code
CC_FULL=$(data claude-code "$SIZE_MB")
CC_PREFIX=$(data claude-code "$((PREFIX_MB < SIZE_MB ? PREFIX_MB : SIZE_MB))")
CC_BPE=$(data claude-code "$BPE_MB")
OA_FULL=''
if [[ $MIXED == 1 ]]; then
    unit openai-chat
    OA_FULL=$(data openai-chat "$SIZE_MB")
fi

# Sanity: condense must read these files as one transcript of the intended format.
check_format() {
    local file=$1 want=$2 got
    got=$("$CONDENSE" estimate "$file" | grep -o '"format":"[^"]*"' | head -n 1)
    [[ $got == "\"format\":\"$want\"" ]] || die "${file##*/}: condense reports $got, expected $want"
}
check_format "$CC_BPE" claude-code
[[ -n $OA_FULL ]] && check_format "$DATA/openai-chat.unit.jsonl" openai

note "== timing: best of $RUNS after a warm-up (seconds per run shown as they come)"
measure wc "wc -l" claude-code "$CC_FULL" 1 wc -l @F@
measure keep:chars4 "condense estimate (chars4)" claude-code "$CC_FULL" 1 "$CONDENSE" estimate @F@
measure pipe "cat | condense estimate (chars4)" claude-code "$CC_FULL" 1 \
    bash -c 'set -o pipefail; cat "$1" | "$2" estimate' _ @F@ "$CONDENSE"
measure fast "condense estimate --tokenizer fast" claude-code "$CC_FULL" 1 \
    "$CONDENSE" estimate --tokenizer fast @F@
if have jq; then
    measure_slow jq "jq -c . > /dev/null" claude-code "$CC_FULL" "$CC_PREFIX" jq -c . @F@
else
    note "  (jq not found: skipped)"
fi
if have python3; then
    measure_slow python "python3 json.loads per line" claude-code "$CC_FULL" "$CC_PREFIX" \
        python3 -c 'import sys, json
loads = json.loads
with open(sys.argv[1], "rb") as f:
    for line in f:
        loads(line)' @F@
else
    note "  (python3 not found: skipped)"
fi
if [[ -n $OA_FULL ]]; then
    measure wc_oa "wc -l" openai-chat "$OA_FULL" 1 wc -l @F@
    measure keep:chars4_oa "condense estimate (chars4)" openai-chat "$OA_FULL" 1 "$CONDENSE" estimate @F@
    measure fast_oa "condense estimate --tokenizer fast" openai-chat "$OA_FULL" 1 \
        "$CONDENSE" estimate --tokenizer fast @F@
fi
measure keep:o200k "condense estimate --tokenizer o200k" claude-code "$CC_BPE" 1 \
    "$CONDENSE" estimate --tokenizer o200k @F@
BASE_KEYS=()
if ((HAVE_BASELINE)); then
    NPROC=$(nproc)
    THREADS=(1)
    ((NPROC > 1)) && THREADS+=("$NPROC")
    for n in "${THREADS[@]}"; do
        measure "keep:all$n" "bpe-baseline all strings, $n thread(s)" claude-code "$CC_BPE" 1 \
            "$BASELINE" --threads "$n" @F@
        BASE_KEYS+=("all$n")
    done
    for n in "${THREADS[@]}"; do
        measure "keep:parts$n" "bpe-baseline message parts, $n thread(s)" claude-code "$CC_BPE" 1 \
            "$BASELINE" --threads "$n" --message-parts @F@
        BASE_KEYS+=("parts$n")
    done
fi

# ---------------------------------------------------------------------------------------------
# Report (stdout).

echo
echo "condense throughput  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (+ uncommitted changes)')"
echo "nproc: $(nproc)   cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)   load average at start $LOAD_START, at end $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "wall = best of $RUNS after a warm-up (page cache warm); cpu = user+sys of that run; RSS = peak over the runs; MB = 2^20 bytes"
if awk -v s="${LOAD_START%% *}" -v e="$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo 0)" -v n="$(nproc)" \
    'BEGIN { exit !(s > 0.25 * n || e > 0.25 * n) }'; then
    echo "WARNING: the machine was busy (load average above a quarter of nproc): the numbers are noisy"
fi
[[ $HAVE_TIME == 1 ]] || echo "(/usr/bin/time not found: seconds from bash's time, peak RSS unknown)"
echo "x chars4 = time per MB relative to 'condense estimate (chars4)' on the same format (lower is faster)"
echo
printf '%s\n' "${ROWS[@]}" | awk -F'\t' '
    { key[NR] = $1; label[NR] = $2; fmt[NR] = $3; file[NR] = $4; mb[NR] = $5 / 1048576
      wall[NR] = $6; cpu[NR] = $7; rss[NR] = $8
      rate[NR] = wall[NR] > 0 ? mb[NR] / wall[NR] : 0
      if ($1 ~ /^chars4/) ref[$3] = rate[NR] }
    END {
      fmtline = "%-42s %-12s %7s %9s %8s %7s %9s %9s\n"
      printf fmtline, "tool", "format", "MB", "MB/s", "wall s", "cpu s", "RSS MB", "x chars4"
      printf fmtline, "----", "------", "--", "----", "------", "-----", "------", "--------"
      for (i = 1; i <= NR; i++) {
        r = rss[i] == "?" ? "?" : sprintf("%.1f", rss[i] / 1024)
        x = (fmt[i] in ref && rate[i] > 0) ? sprintf("%.2f", ref[fmt[i]] / rate[i]) : "-"
        printf "%-42s %-12s %7.0f %9.1f %8.3f %7s %9s %9s\n", label[i], fmt[i], mb[i], rate[i], wall[i], cpu[i], r, x
      }
    }'

row_wall() { printf '%s\n' "${ROWS[@]}" | awk -F'\t' -v k="$1" '$1 == k { print $6 }'; }
row_cpu() { printf '%s\n' "${ROWS[@]}" | awk -F'\t' -v k="$1" '$1 == k { print $7 }'; }

echo
echo "exact BPE on ${CC_BPE##*/} ($(awk -v b="$(stat -c %s "$CC_BPE")" 'BEGIN { printf "%.1f", b / 1048576 }') MB):"
echo "  condense o200k: $(grep -o '"tokens":[0-9]*' "$TMP/out.o200k" | head -n 1 | cut -d: -f2) tokens of the main chain + $(grep -o '"sidechain":{"count":[0-9]*,"tokens":[0-9]*' "$TMP/out.o200k" | head -n 1 | sed 's/.*://') of sidechains (message parts only)"
if ((HAVE_BASELINE)); then
    o200k_wall=$(row_wall o200k)
    o200k_cpu=$(row_cpu o200k)
    for k in "${BASE_KEYS[@]}"; do
        echo "  $(cat "$TMP/out.$k")"
        awk -v c="$o200k_wall" -v b="$(row_wall "$k")" -v cc="$o200k_cpu" -v bc="$(row_cpu "$k")" \
            'BEGIN { printf "    condense-o200k / this baseline: wall %.2fx, cpu %.2fx  (target <= 1.3x)\n", c / b, cc / bc }'
    done
    echo "  (all strings: every JSON string value, metadata included, so more text than condense counts;"
    echo "   message parts: about the text condense counts, so the like-for-like comparison)"
fi
