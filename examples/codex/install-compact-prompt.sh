#!/bin/sh
# Codex summarises a session by itself when its context fills up; `compact_prompt` in its
# config.toml replaces the instructions it gives the model for that summary. This puts one of
# condense's prompt bodies there (the style is the first argument, handoff by default).
#
#   sh examples/codex/install-compact-prompt.sh checkpoint
set -eu
config="${CODEX_HOME:-$HOME/.codex}/config.toml"
mkdir -p "$(dirname "$config")"
touch "$config"
if grep -q '^compact_prompt' "$config"; then
  # Its value may span many lines (a ''' string, as this script writes it): name them all.
  lines=$(awk -v q="'''" '
    /^compact_prompt/ && !start {
      start = NR; rest = substr($0, index($0, "=") + 1); i = index(rest, q)
      if (i && !index(substr(rest, i + 3), q)) multi = 1; else end = NR
      next
    }
    start && multi && !end && index($0, q) { end = NR }
    END { print start "-" (end ? end : NR) }' "$config")
  echo "$config already sets compact_prompt (lines $lines); remove the key and its value first" >&2
  exit 1
fi
body=$(condense prompt --body --style "${1:-handoff}")
case $body in
  *"'''"*) echo "the prompt holds ''' and cannot be a TOML literal string" >&2; exit 1 ;;
esac
# A top-level key must come before the first [table], so the prompt goes first.
tmp="$config.condense.$$"
{ printf "compact_prompt = '''\n%s\n'''\n\n" "$body"; cat "$config"; } > "$tmp"
mv "$tmp" "$config"
echo "compact_prompt set in $config"
