#!/usr/bin/env bash
# limits.sh: peak memory (and wall time) of condense on the two extreme shapes of input,
# measured with /usr/bin/time -v:
#
#   one 200 MiB line     a transcript whose third line is a 200 MiB message (and a 50 MiB one:
#                        the long line's time must grow with its length, not its square)
#   1,000,000 lines      tiny messages, {"role":"user","content":"x"} (29 MB)
#   4,000,000 lines      the same, 4x longer: estimate's memory must not grow with it
#
# `estimate` streams its input in 2 MiB blocks (a block grows only to hold one long line), so
# its peak stays a few blocks on many lines and about one line's worth on the long line,
# whatever the file size. `split` (like prompt and inject) reads the whole transcript into
# memory by design, and holds every record; its peak is printed beside it for comparison.
#
# Inputs are generated into benches/data/ (git-ignored) and reused. Needs python3 only for the
# table; /usr/bin/time (GNU time) for the measurements.
#   bash benches/scripts/limits.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

[ -x /usr/bin/time ] || { echo "benches/scripts/limits.sh needs GNU time at /usr/bin/time" >&2; exit 1; }
cargo build --release --quiet
bin=target/release/condense
mkdir -p benches/data

long_line() { # long_line MIB FILE: a transcript whose third line is a MIB MiB message
  if [ ! -s "$2" ]; then
    {
      printf '{"role":"user","content":"q"}\n{"role":"assistant","content":"a"}\n'
      printf '{"role":"user","content":"'
      head -c $(($1 << 20)) /dev/zero | tr '\0' 'x'
      printf '"}\n{"role":"assistant","content":"done"}\n'
    } >"$2.tmp"
    mv "$2.tmp" "$2"
  fi
}
long=benches/data/limits-200MiB-line.jsonl
quarter=benches/data/limits-50MiB-line.jsonl
long_line 200 "$long"
long_line 50 "$quarter"
lines() { # lines N FILE
  if [ ! -s "$2" ]; then
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "{\"role\":\"user\",\"content\":\"x\"}" }' >"$2.tmp"
    mv "$2.tmp" "$2"
  fi
}
lines 1000000 benches/data/limits-1M-lines.jsonl
lines 4000000 benches/data/limits-4M-lines.jsonl

# measure LABEL INPUT COMMAND...: one row of the table, tab-separated.
measure() {
  local label=$1 input=$2
  shift 2
  local report
  report=$(mktemp)
  /usr/bin/time -v -o "$report" "$@" >/dev/null
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$report")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$report")
  rm -f "$report"
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(basename "$input")" "$(stat -c %s "$input")" "$rss" "$wall"
}

rows=$(mktemp)
for input in "$long" benches/data/limits-1M-lines.jsonl benches/data/limits-4M-lines.jsonl; do
  measure "estimate FILE" "$input" "$bin" estimate "$input" >>"$rows"
  measure "estimate < FILE" "$input" sh -c "\"$bin\" estimate < \"$input\"" >>"$rows"
  measure "split FILE" "$input" "$bin" split "$input" >>"$rows"
done
# The quarter-length line, best of three, for the linearity line below.
for _ in 1 2 3; do
  measure "estimate FILE" "$quarter" "$bin" estimate "$quarter" >>"$rows"
done

python3 - "$rows" <<'EOF'
import sys

def seconds(wall):
    # GNU time prints [h:]m:ss.ss
    total = 0.0
    for part in wall.split(":"):
        total = total * 60 + float(part)
    return total

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
# The quarter-length line ran three times: the table shows its fastest run.
quarter_rows = sorted((r for r in rows if r[1] == "limits-50MiB-line.jsonl"), key=lambda r: seconds(r[4]))
rows = [r for r in rows if r[1] != "limits-50MiB-line.jsonl"] + quarter_rows[:1]
print("| command | input | input MiB | peak RSS MiB | RSS / input | wall |")
print("|---|---|--:|--:|--:|--:|")
for label, name, size, rss_kb, wall in rows:
    size_mib = int(size) / 2**20
    rss_mib = int(rss_kb) / 1024
    print(f"| {label} | {name} | {size_mib:.0f} | {rss_mib:.0f} | {rss_mib / size_mib:.2f} | {wall} |")

by = {(label, name): int(rss) / 1024 for label, name, _, rss, _ in rows}
one = by[("estimate FILE", "limits-1M-lines.jsonl")]
four = by[("estimate FILE", "limits-4M-lines.jsonl")]
long = by[("estimate FILE", "limits-200MiB-line.jsonl")]
print()
print(f"estimate on 4x the lines: {four / one:.2f}x the memory "
      f"({'bounded' if four < one * 1.5 else 'NOT BOUNDED'}); "
      f"on the 200 MiB line: {long:.0f} MiB, {long / 200:.2f}x the line")
# A reader that re-scanned the growing line for every block would take 16x as long on 4x the
# line; a linear one about 4x (the start-up is the same for both).
big = min(seconds(w) for label, name, _, _, w in rows
          if (label, name) == ("estimate FILE", "limits-200MiB-line.jsonl"))
quarter = seconds(quarter_rows[0][4])
ratio = big / max(quarter, 0.01)
print(f"estimate on the 200 MiB line against the 50 MiB one: {big:.2f} s against "
      f"{quarter:.2f} s, {ratio:.1f}x for 4x the bytes "
      f"(target < 10x, linear: {'met' if ratio < 10 else 'NOT met'})")
EOF
rm -f "$rows"
