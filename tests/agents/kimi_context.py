"""Prints, as one JSON object, what kimi-cli's own `Context` restores from a `context.jsonl`:
the messages (role and text), the checkpoint ids and usage figures it accepted in file order, the
next checkpoint id, and the token count. Usage: kimi-venv/bin/python kimi_context.py CONTEXT.jsonl

kimi-cli 1.49.0, `kimi_cli/soul/context.py`: `Context.restore` reads every line through
`_apply_context_record`; a `_usage` record sets the token count, a `_checkpoint` record sets
the next checkpoint id to its id + 1, anything else must validate as a kosong `Message`.
"""

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

from kimi_cli.soul.context import Context


class Recording(Context):
    """kimi's Context, noting each record it accepts (the class keeps only the last id)."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.checkpoint_ids: list[int] = []
        self.usage_counts: list[int] = []
        self.rejected: int = 0

    def _apply_context_record(self, line_json, **kwargs):
        kept = super()._apply_context_record(line_json, **kwargs)
        if not kept:
            self.rejected += 1
        elif line_json.get("role") == "_checkpoint":
            self.checkpoint_ids.append(line_json["id"])
        elif line_json.get("role") == "_usage":
            self.usage_counts.append(line_json["token_count"])
        return kept


async def main(source: str) -> None:
    # restore() only reads, but later kimi calls rotate the file: work on a copy regardless.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "context.jsonl"
        shutil.copyfile(source, path)
        context = Recording(path)
        await context.restore()
        report = {
            "messages": [
                {"role": m.role, "text": m.extract_text("\n"), "tool_call_id": m.tool_call_id}
                for m in context.history
            ],
            "checkpoint_ids": context.checkpoint_ids,
            "usage_counts": context.usage_counts,
            "n_checkpoints": context.n_checkpoints,
            "token_count": context.token_count,
            "token_count_with_pending": context.token_count_with_pending,
            "rejected": context.rejected,
        }
        print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: kimi_context.py CONTEXT.jsonl")
    asyncio.run(main(sys.argv[1]))
