#!/usr/bin/env bash
# throughput.sh: how fast `condense estimate` reads a large transcript of each format, next
# to common tools reading the same bytes, and (calls.sh, run at the end) what one call costs.
# Issue 33's targets, each printed as met or NOT met with the figures of this run:
#   - every format through a pipe at least 0.8x its file speed (`cat FILE | condense estimate`
#     against `condense estimate FILE`);
#   - OpenAI chat / kimi-cli context.jsonl read at least as fast as Claude Code (MiB/s), at
#     least 10x python json.loads on the same file, with a peak memory at most 1.25x Claude
#     Code's;
#   - calls.sh's: an exact tokenizer's start-up, many small files, the model-free commands.
# (Issue 15's 2 GB/s is set aside by issue 33; the GB/s figures are still printed.)
#
# For each format of $FORMATS it builds one large file (below) and times, on that file:
#   cat FILE > /dev/null                        reading the bytes: no reader can go faster
#   wc -l FILE                                  reading the bytes and finding the newlines
#   condense estimate FILE                      chars4, the default estimator, file argument
#   cat FILE | condense estimate                the same through a pipe (standard input)
#   cat FILE | python3 drain.py                 the pipe alone: what the pipe costs, with the
#                                               1 MiB buffer condense asks for, and no work
#   condense estimate --tokenizer fast FILE     the character-class estimator
#   jq -c . FILE > /dev/null                    a JSON parse and re-serialisation (Claude Code only)
#   python3 json.loads per line                 a full JSON parse, line by line (loads.py)
#   python3 orjson.loads per line               the same with orjson (a parser written in Rust)
# and, when claude-code is among the formats, on a smaller Claude Code file ($BPE_MB MiB):
#   condense estimate --tokenizer o200k FILE    exact BPE
#   bpe-baseline/ (tiktoken-rs alone)           o200k counts of the same file, on 1 thread and on
#                                               all cores: of every JSON string value, and of
#                                               only the message parts condense counts
# Each figure is the best wall time of $RUNS runs after one warm-up run that fills the page cache
# (so disk speed is left out), with the CPU seconds (user + sys) of that run and the peak RSS over
# the runs (of the command's largest process: /usr/bin/time's %M).
#
# It prints the load average first, then progress on stderr; at the end, on stdout, one table
# per format: tool, MiB timed, MiB/s, wall s, CPU s, peak RSS, and ratios of MiB/s, each row's
# against `cat`, orjson and json.loads on the same format (x orjson = 3.00 means three times as
# fast as orjson); below each table, what estimate counted (the live context, and the whole file)
# and a line for each way condense ran (file, pipe, fast) against the issue's target, with
# condense's own CPU seconds from the file and through the pipe (the least of $RUNS extra runs
# each: the pipe's wall time also holds cat's CPU on the same cores, this does not). Then the
# exact BPE comparison: condense-o200k / baseline time ratio (target <= 1.3x). Then the same
# figures as docs/BENCHMARKS.md's Speed table, in markdown with the machine and the command, to
# paste there (a column per format; the pipe / file and x json.loads ratios as rows). The all-strings
# baseline counts more text than condense (metadata included), the message-parts one about the
# same text, so that is the like-for-like ratio. MiB = 2^20 bytes everywhere (the *_MB knobs
# and file names too).
#
# The files, in benches/data/ (git-ignored), reused while they have the expected size:
#   claude-code   fixtures/corpus/claude-code/*.jsonl, concatenated and repeated
#   codex         fixtures/corpus/codex/*.jsonl + fixtures/agents/codex-*.jsonl, concatenated and
#                 repeated; a `session_meta` line starts each copy of each rollout, as in Codex's
#                 own rollouts of forked threads (the corpus file already holds seven)
#   pi            fixtures/agents/pi-*.jsonl + fixtures/corpus/pi/*.jsonl: the session header of
#                 the first (a v3 header) once, then the files without their headers, repeated
#   openai-chat   fixtures/corpus/openai-chat/*.jsonl (kimi-cli context files), repeated
# Each copy of each file is newline-terminated; every file is as many copies as reach the size,
# so the smaller files (the prefix, the BPE file) are byte-for-byte prefixes of the large one,
# and each is one transcript that condense must detect as its format (checked, with each source
# file, before timing). What estimate counts by default, and what is timed here, is the live
# context (what the agent would send next), found by reading and parsing every line as for a
# real session. In these repeated files it is a small part for Codex (from the newest copy's
# compaction on) and pi (the path to the last entry), about half the tokens for Claude Code (the
# copies repeat uuids; the first line with a uuid wins, and every copy's lines hanging beside
# that chain join it) and the whole file for openai-chat, which has no such rule. The report
# shows both counts; --whole-file would count every message.
#
# jq and python are much slower than the rest: each is first run once on the $PREFIX_MB MiB
# prefix; if a run on the full file would take longer than $SLOW_S seconds it is timed on that
# prefix instead (the MiB column shows the size timed; MiB/s is of the bytes actually read).
# orjson $ORJSON_VERSION is installed from PyPI (pip) into a venv in benches/data/ the first time;
# when that fails its row is left out with a note, and jq and python3 are left out when missing.
#
# Run from anywhere:   bash benches/scripts/throughput.sh
# Knobs (environment): SIZE_MB=1024 PREFIX_MB=100 BPE_MB=30 RUNS=3 SLOW_S=3
#                      FORMATS=claude-code,codex,pi,openai-chat ORJSON_VERSION=3.13.0
#                      CONDENSE_BIN=PATH times that binary instead of building this checkout
#                      CALLS=1 runs calls.sh after the tables (0 leaves it out); its own knobs
#                      (SESSIONS, BIG_MB, ...) pass through
# With the defaults it takes 2.5-3.5 minutes on 2 cores (the first run also builds 4.4 GB of
# files in benches/data/ and installs orjson; building condense is not counted); the numbers are
# only meaningful on an otherwise idle machine (the load average is printed first, at the start
# of each format, and at the end). SIZE_MB=200 RUNS=1 takes under a minute.

set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD

SIZE_MB=${SIZE_MB:-1024}
BPE_MB=${BPE_MB:-30}
PREFIX_MB=${PREFIX_MB:-100}
RUNS=${RUNS:-3}
SLOW_S=${SLOW_S:-3}
FORMATS=${FORMATS:-claude-code,codex,pi,openai-chat}
ORJSON_VERSION=${ORJSON_VERSION:-3.13.0}
BUILD_TRIES=${BUILD_TRIES:-3}

DATA=$ROOT/benches/data
CONDENSE=${CONDENSE_BIN:-$ROOT/target/release/condense}
LOADS=$ROOT/benches/scripts/loads.py
DRAIN=$ROOT/benches/scripts/drain.py
VENV=$DATA/venv-orjson-$ORJSON_VERSION
BASELINE_DIR=$ROOT/benches/scripts/bpe-baseline
BASELINE_TARGET=$DATA/target-bpe-baseline
BASELINE=$BASELINE_TARGET/release/bpe-baseline

for knob in SIZE_MB BPE_MB PREFIX_MB RUNS SLOW_S BUILD_TRIES; do
    [[ ${!knob} =~ ^[0-9]+$ && ${!knob} -gt 0 ]] || { echo "throughput.sh: $knob must be a positive integer" >&2; exit 2; }
done
[[ $ORJSON_VERSION =~ ^[0-9][0-9.]*$ ]] || { echo "throughput.sh: ORJSON_VERSION must be a version number" >&2; exit 2; }
IFS=, read -r -a FORMAT_LIST <<<"$FORMATS"
((${#FORMAT_LIST[@]} > 0)) || { echo "throughput.sh: FORMATS is empty" >&2; exit 2; }
for format in "${FORMAT_LIST[@]}"; do
    case $format in
    claude-code | codex | pi | openai-chat) ;;
    *) echo "throughput.sh: unknown format '$format' in FORMATS (known: claude-code, codex, pi, openai-chat)" >&2; exit 2 ;;
    esac
done

note() { printf '%s\n' "$*" >&2; }
die() { printf 'throughput.sh: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
loadavg() { cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

mkdir -p "$DATA"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------------------------------------
# Timing one command.

HAVE_TIME=0
[[ -x /usr/bin/time ]] && /usr/bin/time -f '%e' true 2>/dev/null && HAVE_TIME=1

# run_once OUT CMD...: runs CMD with stdout to OUT; sets W (wall s), U (user+sys s, or ?) and
# R (peak RSS KiB, or ?). Aborts, showing stderr, when CMD fails.
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
# measure KEY LABEL GROUP FILE WARMUP CMD...: best wall time of $RUNS runs of CMD (after a
# warm-up run when WARMUP is 1), with @F@ in CMD replaced by FILE. Adds a row to the table of
# GROUP (a format, or bpe). KEY names the row for later look-ups; with a keep: prefix the stdout
# of the last run is kept in $TMP/out.KEY.
measure() {
    local key=$1 label=$2 group=$3 file=$4 warm=$5
    shift 5
    local args=() a i best='' cpu='' rss=0 bytes
    for a in "$@"; do args+=("${a//@F@/$file}"); done
    bytes=$(stat -c %s "$file")
    local out=/dev/null
    [[ $key == keep:* ]] && out=$TMP/out.${key#keep:}
    printf '  %-40s %-24s' "$label" "${file##*/}" >&2
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
    ROWS+=("${key#keep:}"$'\t'"$label"$'\t'"$group"$'\t'"${file##*/}"$'\t'"$bytes"$'\t'"$best"$'\t'"$cpu"$'\t'"$rss")
}

# own_cpu FORMAT FILE: condense's own CPU seconds (user + sys, the least of $RUNS runs each,
# after the timed runs warmed the cache) reading FILE as an argument and through `cat FILE |`,
# into OWN_FILE[FORMAT] and OWN_PIPE[FORMAT], and cat's in that pipe into OWN_CAT[FORMAT]. The
# pipe row's wall time also holds cat's CPU on the same cores; the pair says whether condense
# itself does more work through a pipe, and with cat's, what the cores allow the pipe at best.
declare -A OWN_FILE OWN_PIPE OWN_CAT
least() { awk -v u="$1" -v s="$2" -v b="$3" 'BEGIN { c = u + s; if (b != "" && b < c) c = b; printf "%.2f", c }'; }
own_cpu() {
    local format=$1 file=$2 i u s way best cat_best=''
    ((HAVE_TIME)) || return 0
    for way in file pipe; do
        best=''
        for ((i = 0; i < RUNS; i++)); do
            if [[ $way == file ]]; then
                /usr/bin/time -f '%U %S' -o "$TMP/own" "$CONDENSE" estimate "$file" >/dev/null
            else
                /usr/bin/time -f '%U %S' -o "$TMP/cat" cat "$file" |
                    /usr/bin/time -f '%U %S' -o "$TMP/own" "$CONDENSE" estimate >/dev/null
                read -r u s <"$TMP/cat"
                cat_best=$(least "$u" "$s" "$cat_best")
            fi
            read -r u s <"$TMP/own"
            best=$(least "$u" "$s" "$best")
        done
        if [[ $way == file ]]; then OWN_FILE[$format]=$best; else OWN_PIPE[$format]=$best; fi
    done
    OWN_CAT[$format]=$cat_best
}

# measure_slow KEY LABEL GROUP FULL PREFIX CMD...: one run on PREFIX (the warm-up); when the full
# file would take more than $SLOW_S s per run, the timed runs use PREFIX too.
measure_slow() {
    local key=$1 label=$2 group=$3 full=$4 prefix=$5
    shift 5
    local args=() a projected
    for a in "$@"; do args+=("${a//@F@/$prefix}"); done
    run_once /dev/null "${args[@]}"
    projected=$(awk -v w="$W" -v f="$(stat -c %s "$full")" -v p="$(stat -c %s "$prefix")" \
        'BEGIN { printf "%.1f", w * f / p }')
    if awk -v x="$projected" -v lim="$SLOW_S" 'BEGIN { exit !(x <= lim) }'; then
        measure "$key" "$label" "$group" "$full" 1 "$@"
    else
        note "  ($label: about ${projected} s per run on the full file, over SLOW_S=$SLOW_S: timed on the prefix)"
        measure "$key" "$label" "$group" "$prefix" 0 "$@"
    fi
}

# ---------------------------------------------------------------------------------------------
# Data: $DATA/FORMAT-<N>MiB.jsonl is FORMAT.head.jsonl (pi's session header; empty for the other
# formats) followed by FORMAT.unit.jsonl repeated, as many copies as reach N MiB. Every such file
# is a prefix of the larger ones.

# sources FORMAT: the fixture files FORMAT's unit is made of, one per line, in order.
sources() {
    case $1 in
    claude-code) printf '%s\n' "$ROOT"/fixtures/corpus/claude-code/*.jsonl ;;
    codex) printf '%s\n' "$ROOT"/fixtures/corpus/codex/*.jsonl "$ROOT"/fixtures/agents/codex-*.jsonl ;;
    # The agents' files first: the header kept is theirs, v3, the version pi writes today.
    pi) printf '%s\n' "$ROOT"/fixtures/agents/pi-*.jsonl "$ROOT"/fixtures/corpus/pi/*.jsonl ;;
    openai-chat) printf '%s\n' "$ROOT"/fixtures/corpus/openai-chat/*.jsonl ;;
    esac
}

# detected_as FORMAT: the name condense gives FORMAT in its output.
detected_as() { if [[ $1 == openai-chat ]]; then echo openai; else echo "$1"; fi; }

# check_format FILE FORMAT: condense must read FILE without an error or a skipped line, as FORMAT.
check_format() {
    local file=$1 want got
    want=$(detected_as "$2")
    "$CONDENSE" estimate "$file" >"$TMP/check" 2>"$TMP/err" ||
        die "${file#"$ROOT"/}: condense estimate failed: $(head -n 3 "$TMP/err")"
    got=$(grep -o '"format":"[^"]*"' "$TMP/check" | head -n 1 | cut -d '"' -f 4)
    [[ $got == "$want" ]] || die "${file#"$ROOT"/}: condense reads it as '$got', expected '$want'"
    grep -q '"skipped_invalid":0' "$TMP/check" || die "${file#"$ROOT"/}: condense skipped lines of it"
    [[ ! -s $TMP/err ]] || die "${file#"$ROOT"/}: condense warned: $(head -n 3 "$TMP/err")"
}

declare -A MADE_OF
# unit FORMAT: checks FORMAT's source files and writes $DATA/FORMAT.head.jsonl and
# $DATA/FORMAT.unit.jsonl; sets MADE_OF[FORMAT], a description for the report.
unit() {
    local format=$1 f files=() names=()
    mapfile -t files < <(sources "$format")
    for f in "${files[@]}"; do
        [[ -s $f ]] || die "no ${f#"$ROOT"/}"
        check_format "$f" "$format"
        names+=("${f#"$ROOT"/fixtures/}")
    done
    : >"$DATA/$format.head.jsonl.tmp"
    for f in "${files[@]}"; do
        if [[ $format == pi ]]; then
            # One session header, first, as in a session pi writes.
            head -n 1 "$f" | grep -q '^{"type":"session",' || die "${f#"$ROOT"/}: the first line is not a pi session header"
            [[ -s $DATA/$format.head.jsonl.tmp ]] || head -n 1 "$f" >"$DATA/$format.head.jsonl.tmp"
            # shellcheck disable=SC1003 # `$a\` is sed's, not a quote escape
            sed -e '1d' -e '$a\' "$f"
        else
            # `$a\` ends a last line that has no newline, which would glue it to the next copy.
            # shellcheck disable=SC1003
            sed -e '$a\' "$f"
        fi
    done >"$DATA/$format.unit.jsonl.tmp"
    mv "$DATA/$format.head.jsonl.tmp" "$DATA/$format.head.jsonl"
    mv "$DATA/$format.unit.jsonl.tmp" "$DATA/$format.unit.jsonl"
    local joined
    joined=$(printf '%s, ' "${names[@]}")
    if [[ $format == pi ]]; then
        MADE_OF[$format]="the header of ${names[0]} once, then copies of ${joined%, } (each without its header)"
    else
        MADE_OF[$format]="copies of ${joined%, }"
    fi
}

# data FORMAT MIB: prints the path of FORMAT-<MIB>MiB.jsonl, building it unless it already has the
# expected size.
data() {
    local format=$1 mb=$2
    local head_file=$DATA/$format.head.jsonl unit_file=$DATA/$format.unit.jsonl
    local path=$DATA/$format-${mb}MiB.jsonl head_bytes unit_bytes copies expected i
    head_bytes=$(stat -c %s "$head_file")
    unit_bytes=$(stat -c %s "$unit_file")
    copies=$(((mb * 1048576 - head_bytes + unit_bytes - 1) / unit_bytes))
    ((copies > 0)) || copies=1
    expected=$((head_bytes + copies * unit_bytes))
    if [[ -f $path && $(stat -c %s "$path") -eq $expected ]]; then
        note "  reusing ${path#"$ROOT"/} ($copies copies of the $format unit)"
    else
        note "  building ${path#"$ROOT"/} ($copies copies of the $format unit, $unit_bytes bytes each)"
        {
            cat "$head_file"
            for ((i = 0; i < copies; i++)); do cat "$unit_file"; done
        } >"$path.tmp"
        mv "$path.tmp" "$path"
    fi
    printf '%s\n' "$path"
}

# ---------------------------------------------------------------------------------------------
# Tools.

LOAD_START=$(loadavg)
START_SECONDS=$SECONDS
note "load average: $LOAD_START (nproc $(nproc))"
note "== building"
built=0
# CONDENSE_BIN times a binary built elsewhere (say, of an older commit, for a before/after).
[[ -n ${CONDENSE_BIN:-} ]] && { built=1; BUILD_TRIES=0; note "  timing $CONDENSE_BIN as it is"; }
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

WANT_BPE=0
[[ ,$FORMATS, == *,claude-code,* ]] && WANT_BPE=1
HAVE_BASELINE=0
if ((WANT_BPE)); then
    # Same crate versions as condense: seed the baseline's lock file from the repository's (cargo
    # drops the packages the baseline does not use).
    [[ -f $BASELINE_DIR/Cargo.lock ]] || cp "$ROOT/Cargo.lock" "$BASELINE_DIR/Cargo.lock"
    if CARGO_TARGET_DIR=$BASELINE_TARGET cargo build --release --quiet --manifest-path "$BASELINE_DIR/Cargo.toml" ||
        CARGO_TARGET_DIR=$BASELINE_TARGET cargo build --release --quiet --offline --manifest-path "$BASELINE_DIR/Cargo.toml"; then
        HAVE_BASELINE=1
    else
        note "  (benches/scripts/bpe-baseline did not build: the BPE comparison is skipped)"
    fi
fi

PYTHON=''
ORJSON_PY=''
PYTHON_NOTE='python3 not found: json.loads and orjson skipped'
if have python3; then
    PYTHON=python3
    PYTHON_NOTE="python $(python3 -c 'import sys; print(sys.version.split()[0])')"
    if ! { [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c 'import orjson' 2>/dev/null; }; then
        note "  installing orjson==$ORJSON_VERSION into ${VENV#"$ROOT"/} (pip)"
        rm -rf "$VENV"
        if ! { python3 -m venv "$VENV" && "$VENV/bin/python" -m pip install --quiet "orjson==$ORJSON_VERSION" &&
            "$VENV/bin/python" -c 'import orjson'; } >"$TMP/venv.log" 2>&1; then
            note "  (orjson==$ORJSON_VERSION could not be installed, its rows are skipped: $(tail -n 1 "$TMP/venv.log"))"
            rm -rf "$VENV"
        fi
    fi
    if [[ -x $VENV/bin/python ]]; then
        ORJSON_PY=$VENV/bin/python
        PYTHON_NOTE+=", orjson $("$ORJSON_PY" -c 'import orjson; print(orjson.__version__)') (venv ${VENV#"$ROOT"/})"
    else
        PYTHON_NOTE+=", orjson==$ORJSON_VERSION not installable: its rows skipped"
    fi
fi

# ---------------------------------------------------------------------------------------------
# Data.

note "== data"
declare -A FULL PREFIX
for format in "${FORMAT_LIST[@]}"; do
    unit "$format"
    FULL[$format]=$(data "$format" "$SIZE_MB")
    PREFIX[$format]=$(data "$format" "$((PREFIX_MB < SIZE_MB ? PREFIX_MB : SIZE_MB))")
    # The large file is checked by its timed runs (any error aborts, the format is checked after).
    check_format "${PREFIX[$format]}" "$format"
done
CC_BPE=''
((WANT_BPE)) && CC_BPE=$(data claude-code "$BPE_MB")

# ---------------------------------------------------------------------------------------------
# Timing.

declare -A LOAD_AT
note "== timing: best of $RUNS after a warm-up (seconds per run shown as they come)"
for format in "${FORMAT_LIST[@]}"; do
    full=${FULL[$format]}
    prefix=${PREFIX[$format]}
    LOAD_AT[$format]=$(loadavg)
    note "-- $format (load average ${LOAD_AT[$format]})"
    measure "cat:$format" "cat FILE > /dev/null" "$format" "$full" 1 cat @F@
    measure "wc:$format" "wc -l FILE" "$format" "$full" 1 wc -l @F@
    measure "keep:chars4:$format" "condense estimate FILE (chars4)" "$format" "$full" 1 \
        "$CONDENSE" estimate @F@
    got=$(grep -o '"format":"[^"]*"' "$TMP/out.chars4:$format" | head -n 1 | cut -d '"' -f 4)
    [[ $got == "$(detected_as "$format")" ]] || die "${full##*/}: condense reads it as '$got'"
    # shellcheck disable=SC2016 # the inner shell expands $1 and $2
    measure "pipe:$format" "cat FILE | condense estimate" "$format" "$full" 1 \
        bash -c 'set -o pipefail; cat "$1" | "$2" estimate' _ @F@ "$CONDENSE"
    if [[ -n $PYTHON ]]; then
        # shellcheck disable=SC2016 # the inner shell expands $1, $2 and $3
        measure "drain:$format" "cat FILE | (pipe alone)" "$format" "$full" 1 \
            bash -c 'set -o pipefail; cat "$1" | "$2" "$3" > /dev/null' _ @F@ "$PYTHON" "$DRAIN"
    fi
    measure "fast:$format" "condense estimate --tokenizer fast FILE" "$format" "$full" 1 \
        "$CONDENSE" estimate --tokenizer fast @F@
    own_cpu "$format" "$full"
    if [[ $format == claude-code ]]; then
        if have jq; then
            measure_slow "jq:$format" "jq -c . FILE > /dev/null" "$format" "$full" "$prefix" jq -c . @F@
        else
            note "  (jq not found: skipped)"
        fi
    fi
    if [[ -n $PYTHON ]]; then
        measure_slow "json:$format" "python3 json.loads per line" "$format" "$full" "$prefix" \
            "$PYTHON" "$LOADS" json @F@
    fi
    if [[ -n $ORJSON_PY ]]; then
        measure_slow "orjson:$format" "python3 orjson.loads per line" "$format" "$full" "$prefix" \
            "$ORJSON_PY" "$LOADS" orjson @F@
    fi
done

BASE_KEYS=()
if ((WANT_BPE)); then
    note "-- exact BPE (load average $(loadavg))"
    measure keep:o200k "condense estimate --tokenizer o200k FILE" bpe "$CC_BPE" 1 \
        "$CONDENSE" estimate --tokenizer o200k @F@
    if ((HAVE_BASELINE)); then
        NPROC=$(nproc)
        THREADS=(1)
        ((NPROC > 1)) && THREADS+=("$NPROC")
        for n in "${THREADS[@]}"; do
            measure "keep:all$n" "bpe-baseline all strings, $n thread(s)" bpe "$CC_BPE" 1 \
                "$BASELINE" --threads "$n" @F@
            BASE_KEYS+=("all$n")
        done
        for n in "${THREADS[@]}"; do
            measure "keep:parts$n" "bpe-baseline message parts, $n thread(s)" bpe "$CC_BPE" 1 \
                "$BASELINE" --threads "$n" --message-parts @F@
            BASE_KEYS+=("parts$n")
        done
    fi
fi

# ---------------------------------------------------------------------------------------------
# Report (stdout).

row_field() { printf '%s\n' "${ROWS[@]}" | awk -F'\t' -v k="$1" -v f="$2" '$1 == k { print $f }'; }
row_rate() { printf '%s\n' "${ROWS[@]}" | awk -F'\t' -v k="$1" '$1 == k && $6 > 0 { printf "%.0f", $5 / 1048576 / $6 }'; }
# counted FILE: "T tokens in M messages" of the live context, then of the whole file, from
# estimate's output.
counted() {
    local line=$1 live whole
    # The top-level count follows the `context` object: `},"tokens":N,"messages":M,`.
    live=$(sed -n 's/^{.*},"tokens":\([0-9]*\),"messages":\([0-9]*\),.*/\1 tokens in \2 messages/p' "$line" | head -n 1)
    whole=$(grep -o '"whole_file":{"tokens":[0-9]*,"messages":[0-9]*}' "$line" | head -n 1 |
        sed 's/.*"tokens":\([0-9]*\),"messages":\([0-9]*\)}/\1 tokens in \2 messages/')
    printf 'live context %s; whole file %s' "${live:-?}" "${whole:-?}"
}

# table GROUP: the rows of GROUP, with ratios to the cat, orjson and json.loads rows of GROUP.
table() {
    printf '%s\n' "${ROWS[@]}" | awk -F'\t' -v g="$1" '
        $3 != g { next }
        { n++; key[n] = $1; label[n] = $2; mb[n] = $5 / 1048576; wall[n] = $6; cpu[n] = $7; rss[n] = $8
          rate[n] = wall[n] > 0 ? mb[n] / wall[n] : 0
          split($1, k, ":"); ref[k[1]] = rate[n] }
        function ratio(i, r) { return (r in ref && ref[r] > 0) ? sprintf("%.2f", rate[i] / ref[r]) : "-" }
        END {
          # The ratio columns only where there is a cat row to compare with (not for bpe).
          ratios = "cat" in ref
          line = ratios ? "  %-40s %6s %8s %8s %7s %8s %7s %8s %8s\n" : "  %-40s %6s %8s %8s %7s %8s\n"
          printf line, "tool", "MiB", "MiB/s", "wall s", "cpu s", "RSS MiB", "x cat", "x orjson", "x json"
          printf line, "----", "---", "-----", "------", "-----", "-------", "-----", "--------", "------"
          for (i = 1; i <= n; i++) {
            r = rss[i] == "?" ? "?" : sprintf("%.1f", rss[i] / 1024)
            printf "  %-40s %6.0f %8.1f %8.3f %7s %8s", label[i], mb[i], rate[i], wall[i], cpu[i], r
            if (ratios) printf " %7s %8s %8s", ratio(i, "cat"), ratio(i, "orjson"), ratio(i, "json")
            printf "\n"
          }
        }'
}

# verdict OK-EXPRESSION: "met" or "NOT met", by awk.
verdict() { awk "BEGIN { exit !($1) }" && echo met || echo "NOT met"; }

echo
echo "condense throughput  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (+ uncommitted changes)')"
[[ -n ${CONDENSE_BIN:-} ]] && echo "condense timed: $CONDENSE_BIN (CONDENSE_BIN), not this checkout's build"
echo "nproc: $(nproc)   cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)   load average at start $LOAD_START, at end $(loadavg)"
echo "command: SIZE_MB=$SIZE_MB PREFIX_MB=$PREFIX_MB BPE_MB=$BPE_MB RUNS=$RUNS SLOW_S=$SLOW_S FORMATS=$FORMATS ORJSON_VERSION=$ORJSON_VERSION bash benches/scripts/throughput.sh"
echo "wall = best of $RUNS after a warm-up (page cache warm); cpu = user+sys of that run; RSS = peak over the runs"
echo "MiB = 2^20 bytes; x cat / x orjson / x json = this row's MiB/s divided by that of cat / orjson / json.loads on the same format"
echo "$PYTHON_NOTE; $(jq --version 2>/dev/null || echo 'no jq'); $(cat --version | head -n 1)"
if awk -v s="${LOAD_START%% *}" -v e="$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo 0)" -v n="$(nproc)" \
    'BEGIN { exit !(s > 0.25 * n || e > 0.25 * n) }'; then
    echo "WARNING: the machine was busy (load average above a quarter of nproc): the numbers are noisy"
fi
[[ $HAVE_TIME == 1 ]] || echo "(/usr/bin/time not found: seconds from bash's time, peak RSS unknown)"

for format in "${FORMAT_LIST[@]}"; do
    echo
    echo "$format: ${FULL[$format]##*/} ($(mib "$(stat -c %s "${FULL[$format]}")") MiB), load average ${LOAD_AT[$format]} at its start"
    echo "  made of ${MADE_OF[$format]}"
    table "$format"
    echo "  estimate counted: $(counted "$TMP/out.chars4:$format")"
    for mode in chars4 pipe fast; do
        rate=$(row_rate "$mode:$format")
        [[ -n $rate ]] || continue
        awk -v f="$format" -v m="$mode" -v r="$rate" 'BEGIN {
            name = (m == "chars4") ? "condense estimate FILE" : (m == "pipe") ? "cat FILE | condense estimate" : "condense estimate --tokenizer fast FILE"
            printf "  => %s, %s: %d MiB/s = %.2f GB/s\n", f, name, r, r * 1048576 / 1e9 }'
    done
    file_rate=$(row_rate "chars4:$format")
    pipe_rate=$(row_rate "pipe:$format")
    if [[ -n $file_rate && -n $pipe_rate ]]; then
        ratio=$(awk -v p="$pipe_rate" -v f="$file_rate" 'BEGIN { printf "%.2f", p / f }')
        echo "  target (issue 33): the pipe at least 0.80x the file: ${ratio}x: $(verdict "$ratio >= 0.80")"
        if [[ -n ${OWN_FILE[$format]:-} ]]; then
            awk -v f="${OWN_FILE[$format]}" -v p="${OWN_PIPE[$format]}" 'BEGIN {
                printf "  condense'"'"'s own CPU (user+sys, least of the runs): %.2f s from the file, %.2f s through the pipe: %.2fx (no target; the rest of the pipe'"'"'s wall time is cat'"'"'s CPU on the same cores)\n", f, p, p / f }'
            # The most the cores allow: the pipe's work (condense's own CPU through it and
            # cat's) spread over every core with none idle, against the file's wall time.
            awk -v p="${OWN_PIPE[$format]}" -v c="${OWN_CAT[$format]}" -v n="$(nproc)" \
                -v mib="$(mib "$(stat -c %s "${FULL[$format]}")")" -v fr="$file_rate" 'BEGIN {
                floor = (p + c) / n
                printf "  the cores'"'"' bound: cat'"'"'s CPU in the pipe %.2f s; (%.2f + %.2f) / %d cores = %.3f s of wall at the least, so the pipe is at most %.2fx the file on this machine\n", c, p, c, n, floor, (mib / floor) / fr }'
        fi
    fi
done

# Issue 33: the OpenAI chat / kimi-cli reader against Claude Code's, in this run.
if [[ ,$FORMATS, == *,openai-chat,* ]]; then
    echo
    echo "openai-chat (kimi-cli context.jsonl) against the other readers, this run:"
    openai_rate=$(row_rate chars4:openai-chat)
    json_rate=$(row_rate json:openai-chat)
    if [[ -n $json_rate ]]; then
        x_json=$(awk -v a="$openai_rate" -v b="$json_rate" 'BEGIN { printf "%.1f", a / b }')
        echo "  target (issue 33): at least 10x python json.loads on the same file: ${x_json}x: $(verdict "$x_json >= 10")"
    fi
    if [[ ,$FORMATS, == *,claude-code,* ]]; then
        cc_rate=$(row_rate chars4:claude-code)
        x_cc=$(awk -v a="$openai_rate" -v b="$cc_rate" 'BEGIN { printf "%.2f", a / b }')
        echo "  target (issue 33): at least as fast as Claude Code (MiB/s): $openai_rate against $cc_rate, ${x_cc}x: $(verdict "$x_cc >= 1")"
        openai_rss=$(row_field chars4:openai-chat 8)
        cc_rss=$(row_field chars4:claude-code 8)
        if [[ $openai_rss != '?' && $cc_rss != '?' ]]; then
            x_rss=$(awk -v a="$openai_rss" -v b="$cc_rss" 'BEGIN { printf "%.2f", a / b }')
            echo "  target (issue 33): peak memory at most 1.25x Claude Code's: $((openai_rss / 1024)) MiB against $((cc_rss / 1024)) MiB, ${x_rss}x: $(verdict "$x_rss <= 1.25")"
        fi
    fi
fi

if ((WANT_BPE)); then
    echo
    echo "exact BPE on ${CC_BPE##*/} ($(mib "$(stat -c %s "$CC_BPE")") MiB):"
    table bpe
    echo "  condense o200k: $(grep -o '"tokens":[0-9]*' "$TMP/out.o200k" | head -n 1 | cut -d: -f2) tokens of the main chain + $(grep -o '"sidechain":{"count":[0-9]*,"tokens":[0-9]*' "$TMP/out.o200k" | head -n 1 | sed 's/.*://') of sidechains (message parts only)"
    if ((HAVE_BASELINE)); then
        o200k_wall=$(row_field o200k 6)
        o200k_cpu=$(row_field o200k 7)
        for k in "${BASE_KEYS[@]}"; do
            echo "  $(cat "$TMP/out.$k")"
            awk -v c="$o200k_wall" -v b="$(row_field "$k" 6)" -v cc="$o200k_cpu" -v bc="$(row_field "$k" 7)" \
                'BEGIN { printf "    condense-o200k / this baseline: wall %.2fx, cpu %.2fx  (target <= 1.3x)\n", c / b, cc / bc }'
        done
        echo "  (all strings: every JSON string value, metadata included, so more text than condense counts;"
        echo "   message parts: about the text condense counts, so the like-for-like comparison)"
    fi
fi

# The Speed table of docs/BENCHMARKS.md: one column per format, the rows above by name, then
# the ratios the issue's targets are about, all of this run. Pasted as it is, with its first
# line saying where and how it was measured.
speed_table() {
    local format name key row rate cell
    echo
    echo "Speed table (markdown, for docs/BENCHMARKS.md; MiB/s of $(mib "$((SIZE_MB * 1048576))") MiB files unless a row says otherwise):"
    echo
    echo "Measured $(date -u '+%Y-%m-%d') at commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null), load average $LOAD_START at the start and $(loadavg) at the end; \`SIZE_MB=$SIZE_MB RUNS=$RUNS bash benches/scripts/throughput.sh\`, best of $RUNS, page cache warm."
    [[ -n ${CONDENSE_BIN:-} ]] && echo "(condense timed: $CONDENSE_BIN, named by CONDENSE_BIN, not this checkout's build.)"
    echo
    row='|'
    for format in "${FORMAT_LIST[@]}"; do
        case $format in
        claude-code) name='Claude Code' ;; codex) name=Codex ;; pi) name=pi ;; openai-chat) name='OpenAI chat / kimi-cli' ;;
        esac
        row+=" | $name"
    done
    echo "$row |"
    row='|---'
    for format in "${FORMAT_LIST[@]}"; do row+='|--:'; done
    echo "$row|"
    local rows=(
        'cat:`cat FILE > /dev/null`'
        'wc:`wc -l`'
        'chars4:`condense estimate FILE` (chars4)'
        'pipe:`cat FILE \| condense estimate`'
        'drain:`cat FILE \|` a reader that does nothing (the pipe alone)'
        'fast:`condense estimate --tokenizer fast FILE`'
        'orjson:Python orjson per line'
        'json:Python `json.loads` per line'
    )
    for entry in "${rows[@]}"; do
        key=${entry%%:*}
        row="| ${entry#*:}"
        for format in "${FORMAT_LIST[@]}"; do
            rate=$(row_rate "$key:$format")
            cell=${rate:--}
            # A row timed on the prefix (jq, python on a slow run) says so.
            if [[ -n $rate && $(row_field "$key:$format" 4) != "${FULL[$format]##*/}" ]]; then
                cell+=" (on $(mib "$(row_field "$key:$format" 5)") MiB)"
            fi
            row+=" | $cell"
        done
        echo "$row |"
    done
    row='| peak memory of `estimate FILE`'
    for format in "${FORMAT_LIST[@]}"; do
        cell=$(row_field "chars4:$format" 8)
        [[ -n $cell && $cell != '?' ]] && cell="$((cell / 1024)) MiB"
        row+=" | ${cell:--}"
    done
    echo "$row |"
    row='| pipe ÷ file (target ≥ 0.80)'
    for format in "${FORMAT_LIST[@]}"; do
        row+=" | $(awk -v p="$(row_rate "pipe:$format")" -v f="$(row_rate "chars4:$format")" 'BEGIN { if (p > 0 && f > 0) printf "%.2f", p / f; else printf "-" }')"
    done
    echo "$row |"
    row='| `estimate FILE` ÷ `json.loads` (target ≥ 10 for OpenAI chat)'
    for format in "${FORMAT_LIST[@]}"; do
        row+=" | $(awk -v a="$(row_rate "chars4:$format")" -v b="$(row_rate "json:$format")" 'BEGIN { if (a > 0 && b > 0) printf "%.1f", a / b; else printf "-" }')"
    done
    echo "$row |"
}
speed_table

if [[ ${CALLS:-1} == 1 ]]; then
    echo
    # The binary is built (or named) already: calls.sh times the same one.
    CONDENSE_BIN=$CONDENSE RUNS=$RUNS bash "$ROOT/benches/scripts/calls.sh"
fi

echo
echo "took $((SECONDS - START_SECONDS)) s in all (building included)"
