"""targets.py: issue 26's "Done when" lines, for benches/scripts/eval.sh.

Usage: python3 benches/scripts/targets.py ROWS.jsonl

ROWS.jsonl is `condense eval --format jsonl` (one line per cut and summary: per-kind re-used and
carried counts, carried_total, and probes by kind where a probe file was written for the cut).
Prints, in Markdown, one line per target with its figures and `met` or `NOT met`:

- per cut, caveman against the native summary on the re-used paths, commands, errors and
  numbers (at least as many at >= 80 % of the cuts) and on all re-used entities (>= 60 %);
  the cuts compared are those that have both a native and a caveman row;
- over the cuts with probes, caveman's probes at >= 85 % of native's, and at least native's on
  now, file, error and test; bare at least native's on now, next and test.

A target with nothing to compare (no native summary: sessions cut with --at) says so instead of
a verdict.
"""

import json
import sys
from collections import defaultdict

NAMED = ("path", "command", "error", "number")


def verdict(ok):
    return "met" if ok else "NOT met"


def percent(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: targets.py ROWS.jsonl")
    rows = defaultdict(dict)
    with open(sys.argv[1], encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{sys.argv[1]}:{number}: not JSON: {error}")
            rows[(row["file"], row["cut_line"])][row["summary"]] = row

    print("### Issue 26's targets (caveman against the native summary)")
    print()
    cuts = [c for c in rows.values() if "native" in c and "caveman" in c]
    if not cuts:
        print("- no cut has both a native and a caveman summary: the per-cut targets are not measured")
    else:
        named = sum(
            1
            for c in cuts
            if sum(c["caveman"]["carried"][k] for k in NAMED)
            >= sum(c["native"]["carried"][k] for k in NAMED)
        )
        total = sum(1 for c in cuts if c["caveman"]["carried_total"] >= c["native"]["carried_total"])
        n = len(cuts)
        print(
            f"- caveman carries at least native's re-used paths+commands+errors+numbers at >= 80% "
            f"of cuts: {named}/{n} ({percent(named, n)}): {verdict(named >= 0.8 * n)}"
        )
        print(
            f"- caveman carries at least native's re-used entities in all at >= 60% of cuts: "
            f"{total}/{n} ({percent(total, n)}): {verdict(total >= 0.6 * n)}"
        )

    probes = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for cut in rows.values():
        if "native" not in cut:
            continue
        for name, row in cut.items():
            for kind, count in (row.get("probes") or {}).items():
                probes[name][kind][0] += count["carried"]
                probes[name][kind][1] += count["of"]
    if not probes.get("native"):
        print("- no cut with a native summary has probes: the probe targets are not measured")
        return

    def score(name, kinds=None):
        counts = probes[name]
        chosen = [k for k in counts if kinds is None or k in kinds]
        return sum(counts[k][0] for k in chosen), sum(counts[k][1] for k in chosen)

    native, of = score("native")
    caveman, _ = score("caveman")
    print(
        f"- caveman's probes >= 85% of native's: {caveman}/{of} against {native}/{of} "
        f"({percent(caveman, native)} of native): {verdict(caveman >= 0.85 * native)}"
    )
    for name, kinds in (("caveman", ("now", "file", "error", "test")), ("bare", ("now", "next", "test"))):
        for kind in kinds:
            mine, of = score(name, (kind,))
            theirs, _ = score("native", (kind,))
            print(
                f"- {name} >= native on {kind} probes: {mine}/{of} against {theirs}/{of}: "
                f"{verdict(mine >= theirs)}"
            )


if __name__ == "__main__":
    main()
