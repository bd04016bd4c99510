#!/usr/bin/env bash
# Resumes one session of an opencode database headlessly against mock_api.py (in a network
# namespace of its own) and prints what opencode sent the model: the proof that a session
# condense writes into opencode.db is loaded by opencode itself.
# Usage: tests/agents/opencode-resume.sh DB SESSION_ID [QUESTION]
# DB is copied (never changed) into a throwaway HOME as ~/.local/share/opencode/opencode.db,
# the session's directory set to a fresh folder;
# `opencode run --session ID QUESTION` resumes it; tests/agents/sent.py prints the request,
# then a line says whether `opencode session list`, run in that folder, lists the session.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
db=$1 session=$2 question=${3:-RESUMED-Q: what comes next?}
work=$(mktemp -d /tmp/condense-opencode-resume.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT # KEEP=1 leaves it for a look
mkdir -p "$work/home/.local/share/opencode" "$work/proj"
cp "$db" "$work/home/.local/share/opencode/opencode.db"
# opencode runs a resumed session in its recorded `session.directory` (an error when that
# folder is gone), so the copy's session is moved to this folder.
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
with db:
    db.execute("UPDATE session SET directory = ? WHERE id = ?", (sys.argv[2], sys.argv[3]))' \
  "$work/home/.local/share/opencode/opencode.db" "$work/proj" "$session"
cd "$work/proj"
env -i PATH=/usr/bin:/bin HOME="$work/home" OPENCODE="$repo/target/agents/node_modules/.bin/opencode" \
  "$here/isolated.sh" "$work/rec" 300 bash -c '. "$1/opencode-env.sh"
    "$OPENCODE" session list --format json >"$4/list.json"
    exec "$OPENCODE" run --session "$2" "$3"' \
  _ "$here" "$session" "$question" "$work" >"$work/out.log" 2>&1 </dev/null || { cat "$work/out.log" >&2; exit 1; }
python3 "$here/sent.py" "$work/rec"
python3 -c 'import json, sys
listed = [s["id"] for s in json.load(open(sys.argv[1]))]
print("# opencode session list (in that folder):", "lists it" if sys.argv[2] in listed else "does NOT list it",
      f"({len(listed)} sessions)")' "$work/list.json" "$session"
