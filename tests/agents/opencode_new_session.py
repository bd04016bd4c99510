"""Writes a new two-message session into a copy of an opencode database with nothing but the
rows and fields listed in docs/agents/opencode.md ("A new session"), so that
tests/agents/opencode-resume.sh can show opencode listing and resuming it: the check behind
that section, and a recipe for condense's handoff writer.

Usage: python3 opencode_new_session.py SRC_DB DEST_DB DIRECTORY
Prints the new session's id. The user asks HANDOFF-Q1, the assistant answers HANDOFF-A1."""

import json
import random
import shutil
import sqlite3
import string
import sys
import time

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def opencode_id(prefix, millis, counter, descending=False):
    """An id of opencode's shape: prefix, 12 hex digits of (time in ms × 4096 + a counter), 14
    random base-62 characters; session ids invert the number so the newest sorts first."""
    number = millis * 0x1000 + counter
    if descending:
        number = ~number & 0xFFFFFFFFFFFF
    return f"{prefix}_{number:012x}" + "".join(random.choice(BASE62) for _ in range(14))


def main():
    src, dest, directory = sys.argv[1:]
    shutil.copyfile(src, dest)
    db = sqlite3.connect(dest)
    now = int(time.time() * 1000)
    session = opencode_id("ses", now, 0, descending=True)
    user = opencode_id("msg", now, 1)
    answer = opencode_id("msg", now + 1, 2)
    model = {"providerID": "mock", "modelID": "mock-model"}
    with db:
        db.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
            " VALUES (?, 'global', 'handed-over', ?, 'Handed over by condense', '1.18.33', ?, ?)",
            (session, directory, now, now + 1),
        )
        rows = [
            (user, now, {"role": "user", "time": {"created": now}, "agent": "build", "model": model},
             {"type": "text", "text": "HANDOFF-Q1: where were we?"}),
            (answer, now + 1, {"role": "assistant", "parentID": user, "mode": "build", "agent": "build",
                               "path": {"cwd": directory, "root": "/"}, "cost": 0,
                               "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                               "modelID": "mock-model", "providerID": "mock",
                               "time": {"created": now + 1, "completed": now + 1}, "finish": "stop"},
             {"type": "text", "text": "HANDOFF-A1: the reader yields the remainder now."}),
        ]
        for counter, (message, at, data, part) in enumerate(rows, start=3):
            db.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
                       (message, session, at, at, json.dumps(data)))
            db.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)"
                       " VALUES (?, ?, ?, ?, ?, ?)",
                       (opencode_id("prt", at, counter), message, session, at, at, json.dumps(part)))
    db.close()
    print(session)


if __name__ == "__main__":
    main()
