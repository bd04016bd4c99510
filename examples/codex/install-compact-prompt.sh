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
  echo "$config already sets compact_prompt; remove that line first" >&2
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
