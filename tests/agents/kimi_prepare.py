"""Prints, as one JSON object, the compaction request kimi-cli itself would build for a
`context.jsonl`: `Context.restore`, then `SimpleCompaction(max_preserved_messages=N).prepare`
on the history, as `KimiSoul.compact_context` does. The request's text parts come out one per
item, so a test can compare the `## Message N` blocks with condense's byte for byte.
Usage: kimi-venv/bin/python kimi_prepare.py CONTEXT.jsonl [N] [CUSTOM_INSTRUCTION]
"""

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

from kimi_cli.soul.compaction import SimpleCompaction
from kimi_cli.soul.context import Context
from kimi_cli.wire.types import TextPart


async def main(source: str, preserve: int, instruction: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "context.jsonl"
        shutil.copyfile(source, path)
        context = Context(path)
        await context.restore()
        prepared = SimpleCompaction(max_preserved_messages=preserve).prepare(
            context.history, custom_instruction=instruction
        )
        request = prepared.compact_message
        report = {
            "parts": None
            if request is None
            else [part.text for part in request.content if isinstance(part, TextPart)],
            "preserved": [
                {"role": m.role, "text": m.extract_text("\n")} for m in prepared.to_preserve
            ],
        }
        print(json.dumps(report))


if __name__ == "__main__":
    if not 2 <= len(sys.argv) <= 4:
        sys.exit("usage: kimi_prepare.py CONTEXT.jsonl [N] [CUSTOM_INSTRUCTION]")
    preserve = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    asyncio.run(main(sys.argv[1], preserve, sys.argv[3] if len(sys.argv) > 3 else ""))
