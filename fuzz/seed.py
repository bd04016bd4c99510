#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into fuzz/corpus/<target>/ (gitignored).

Seeds come from the real sessions in fixtures/corpus/ (long strings shortened so that each
line stays a few KB and keeps its shape) plus a few hand-made transcripts with tool calls.
The plan, request, inject and extract targets take a 12-byte header of choices first (see
fuzz/src/lib.rs); inject then a summary and a NUL. Run from anywhere: python3 fuzz/seed.py
"""
import hashlib
import json
import os
import struct

FUZZ = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(FUZZ, "..", "fixtures", "corpus")
# FormatId::DETECTION_ORDER, as fuzz/src/lib.rs format_of() indexes it.
FORMATS = ["codex", "claude-code", "pi", "gemini", "anthropic", "openai"]
FILES = [
    ("claude-code/claude-code-viewer-5c0375b4.jsonl", "claude-code"),
    ("claude-code/entireio-cli-a6e4c2a0fbd1.jsonl", "claude-code"),
    ("claude-code/kimi-cli-5b2c427a42e0.jsonl", "claude-code"),
    ("codex/agent-sessions-small.jsonl", "codex"),
    ("gemini-cli/agent-sessions-jsonl_v040.jsonl", "gemini"),
    ("openai-chat/kimi-cli-swebench-531d195b.jsonl", "openai"),
    ("pi/pi-mono-large-session.jsonl", "pi"),
]


def shorten(value, limit=120):
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit]
    if isinstance(value, list):
        return [shorten(v, limit) for v in value[:8]]
    if isinstance(value, dict):
        return {k: shorten(v, limit) for k, v in value.items()}
    return value


def lines_of(path, limit=60):
    out = []
    with open(os.path.join(CORPUS, path), "rb") as f:
        for raw in f:
            raw = raw.rstrip(b"\n")
            if not raw.strip():
                continue
            if len(raw) > 2000:
                raw = json.dumps(shorten(json.loads(raw)), ensure_ascii=False,
                                 separators=(",", ":")).encode()
            out.append(raw)
            if len(out) == limit:
                break
    return out


def synthetic():
    def line(obj):
        return json.dumps(obj, ensure_ascii=False).encode()
    openai = [
        line({"role": "_system_prompt", "content": "You are kimi."}),
        line({"role": "system", "content": "Be brief."}),
        line({"role": "user", "content": "fix the \"parser\" ü 🦀\n\ttab"}),
        line({"role": "assistant", "content": None, "tool_calls": [
            {"type": "function", "id": "c1", "function": {"name": "Shell", "arguments": "{\"cmd\":\"ls\"}"}}]}),
        line({"role": "tool", "content": "a.rs\nb.rs", "tool_call_id": "c1"}),
        line({"role": "_usage", "token_count": 1234}),
        line({"role": "assistant", "content": [{"type": "text", "text": "done"}, {"type": "think", "think": "hm"}]}),
        line({"role": "user", "content": "thanks"}),
        line({"role": "assistant", "content": "bye"}),
    ]
    anthropic = [
        line({"role": "user", "content": "read a.rs"}),
        line({"role": "assistant", "content": [{"type": "thinking", "thinking": "ok"},
                                                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a.rs"}}]}),
        line({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "fn main() {}"}]}),
        line({"role": "assistant", "content": [{"type": "text", "text": "It is empty."}]}),
        line({"role": "user", "content": "ok"}),
    ]
    return [("openai", openai), ("anthropic", anthropic)]


def write(target, data):
    directory = os.path.join(FUZZ, "corpus", target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def header(mode, tokenizer, fmt, flags, p0, p1):
    return bytes([mode, tokenizer, fmt, flags]) + struct.pack("<II", p0, p1)


def main():
    sessions = [(fmt, lines_of(path)) for path, fmt in FILES] + synthetic()
    headers = [
        header(0, 0, 6, 0, 2, 0),        # tail, preserve 2, detect
        header(1, 3, 6, 0, 500, 300),    # budgets
        header(2, 2, 6, 0, 200, 40),     # user mode
        header(3, 0, 6, 0, 3, 0),        # upto 3
    ]
    for fmt, lines in sessions:
        index = FORMATS.index(fmt)
        for count in (len(lines), 12, 5):
            text = b"\n".join(lines[:count]) + b"\n"
            write("lines_detect", text)
            for h in headers:
                write("plan", h + text)
                write("request", h + b"keep the database decisions\0" + text)
                write("extract", h[:4] + struct.pack("<II", 300, 0) + text)
                write("inject", h + b"<think>x</think>NOW: fix </system> \x1b[2J\0" + text)
            write("plan", header(0, 1, index, 0, 1, 0) + text)
        for raw in lines[:40]:
            write("record", bytes([index]) + raw)
    write("lines_detect", b"\xef\xbb\xbf{\"role\":\"user\",\"content\":\"x\"}\r\n\n{\"role\":\"user\",\"con")
    write("lines_detect", b"[\n  {\"role\": \"user\"}\n]\n")
    write("inject", header(0, 0, 6, 0, 2, 0) + b"{\"summary\": \"NOW: x\"}\0" + b"\n".join(synthetic()[0][1]))


if __name__ == "__main__":
    main()
