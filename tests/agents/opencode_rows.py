"""Reads opencode's SQLite database for the fixture and resume scripts (never while opencode runs).

  checkpoint SRC DEST         copy SRC (with its -wal) to DEST, the log folded into the file
  dump DB SESSION...          print those sessions' rows (session, message, part), every JSON
                              column parsed, in opencode's own order: messages by
                              (time_created, id), parts by (message_id, id)
  context DB SESSION          print the messages opencode's filterCompacted keeps, as
                              `role: text` lines, oldest first (what a resume starts from)
"""

import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path


def checkpoint(src, dest):
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "opencode.db"
        for suffix in ("", "-wal", "-shm"):
            if Path(src + suffix).exists():
                shutil.copyfile(src + suffix, str(copy) + suffix)
        db = sqlite3.connect(copy)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        shutil.copyfile(copy, dest)


def parsed(row):
    out = dict(row)
    for key, value in out.items():
        if isinstance(value, str) and value[:1] in "[{":
            try:
                out[key] = json.loads(value)
            except ValueError:
                pass
    return out


def rows(db, session):
    s = db.execute("SELECT * FROM session WHERE id = ?", (session,)).fetchone()
    if s is None:
        sys.exit(f"opencode_rows.py: no session {session}")
    messages = db.execute(
        "SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id", (session,)
    ).fetchall()
    parts = db.execute(
        "SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id", (session,)
    ).fetchall()
    return {"session": parsed(s), "messages": [parsed(m) for m in messages], "parts": [parsed(p) for p in parts]}


def filter_compacted(messages):
    """opencode's MessageV2.filterCompacted, over (info, parts) pairs oldest first."""
    kept, summarised, tail = [], set(), None
    for info, parts in reversed(messages):
        kept.append((info, parts))
        if tail:
            if info["id"] == tail:
                break
            continue
        if info["role"] == "user" and info["id"] in summarised:
            marker = next((p for p in parts if p["type"] == "compaction"), None)
            if marker is None:
                continue
            if not marker.get("tail_start_id"):
                break
            tail = marker["tail_start_id"]
            if info["id"] == tail:
                break
            continue
        if info["role"] == "assistant" and info.get("summary") is True and info.get("finish") and not info.get("error"):
            summarised.add(info.get("parentID"))
    kept.reverse()
    # A summary with a kept tail: the compaction request and its summary go first, then the
    # tail, then what came after the summary.
    marker_at = max(
        (i for i, (info, parts) in enumerate(kept)
         if info["role"] == "user" and any(p["type"] == "compaction" and "tail_start_id" in p for p in parts)),
        default=-1,
    )
    if marker_at < 0:
        return kept
    marker_info, marker_parts = kept[marker_at]
    tail = next(p["tail_start_id"] for p in marker_parts if p["type"] == "compaction" and "tail_start_id" in p)
    summary_at = next((i for i, (info, _) in enumerate(kept) if i > marker_at and info["role"] == "assistant"
                       and info.get("summary") is True and info.get("parentID") == marker_info["id"]), -1)
    tail_at = next((i for i, (info, _) in enumerate(kept) if info["id"] == tail), -1)
    if 0 <= tail_at < marker_at < summary_at:
        return kept[marker_at:summary_at + 1] + kept[tail_at:marker_at] + kept[summary_at + 1:]
    return kept


def main():
    command, db_path, *sessions = sys.argv[1:]
    if command == "checkpoint":
        checkpoint(db_path, sessions[0])
        return
    # A copy is read, so SQLite leaves no -shm/-wal beside the input (a WAL-mode database
    # opened even read-only gets them).
    tmp = tempfile.TemporaryDirectory()
    checkpoint(db_path, str(Path(tmp.name) / "read.db"))
    db = sqlite3.connect(Path(tmp.name) / "read.db")
    db.row_factory = sqlite3.Row
    if command == "dump":
        print(json.dumps({s: rows(db, s) for s in sessions}, indent=1))
    elif command == "context":
        r = rows(db, sessions[0])
        by_message = {}
        for p in r["parts"]:
            by_message.setdefault(p["message_id"], []).append(p["data"])
        pairs = [(dict(m["data"], id=m["id"]), by_message.get(m["id"], [])) for m in r["messages"]]
        for info, parts in filter_compacted(pairs):
            text = " | ".join(p.get("text", p["type"]) if p["type"] != "tool" else f"tool {p['tool']}" for p in parts)
            summary = " (summary)" if info.get("summary") is True else ""
            print(f"{info['role']}{summary}: {text[:100]}".replace("\n", " "))


if __name__ == "__main__":
    main()
