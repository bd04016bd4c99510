#!/usr/bin/env bash
# Resumes a Qwen Code session file headlessly against mock_api.py (in a network namespace of
# its own) and prints what Qwen Code sent the model: the proof that a session condense writes
# is loaded by Qwen Code itself.
# Usage: tests/agents/qwen-resume.sh SESSION.jsonl [QUESTION]
# The file is copied (never changed) to ~/.qwen/projects/<cwd, non-alphanumerics as '-'>/chats/
# <its sessionId>.jsonl in a throwaway HOME, every record's `cwd` set to that folder;
# `qwen --resume ID -p QUESTION` resumes it;
# tests/agents/sent.py prints the request.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
file=$1 question=${2:-RESUMED-Q: what comes next?}
session=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["sessionId"])' "$file")
work=$(mktemp -d /tmp/condense-qwen-resume.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT # KEEP=1 leaves it for a look
mkdir -p "$work/proj"
chats="$work/home/.qwen/projects/$(printf '%s' "$work/proj" | tr -c 'a-zA-Z0-9' '-')/chats"
mkdir -p "$chats"
# Qwen Code resumes a session only from the project its first record's `cwd` names
# (SessionService.sessionBelongsToCurrentProject), so the copy is moved to this folder.
python3 -c 'import json, sys
out = open(sys.argv[2], "w")
for line in open(sys.argv[1]):
    record = json.loads(line)
    record["cwd"] = sys.argv[3]
    out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")' \
  "$file" "$chats/$session.jsonl" "$work/proj"
cd "$work/proj"
env -i PATH=/usr/bin:/bin HOME="$work/home" QWEN="$repo/target/agents/node_modules/.bin/qwen" \
  QWEN_NODE_BIN="$repo/target/node22/node_modules/.bin" \
  "$here/isolated.sh" "$work/rec" 300 bash -c '. "$1/qwen-env.sh"; exec "$QWEN" --resume "$2" -p "$3"' \
  _ "$here" "$session" "$question" >"$work/out.log" 2>&1 </dev/null || { cat "$work/out.log" >&2; exit 1; }
python3 "$here/sent.py" "$work/rec"
