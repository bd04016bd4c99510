"""Prints what an agent sent the model, from the requests mock_api.py recorded in DIR: the last
Chat Completions request that offered tools (the agent's own turn, not a title, memory or
summary side request), one line per message, `role: text` (tool calls and results named, long
texts cut, each further text part of a message on a `+` line), then a `# N messages, M bytes`
total. Usage: python3 sent.py DIR"""

import json
import sys
from pathlib import Path


def texts_of(content):
    """The texts of a message's content, one per part (a string content is one part)."""
    if isinstance(content, str):
        return [content]
    return [p.get("text", f"[{p.get('type')}]") for p in content or [] if isinstance(p, dict)]


def cut(text, width=110):
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def main():
    requests = []
    for path in sorted(Path(sys.argv[1]).glob("[0-9][0-9][0-9].json")):
        entry = json.loads(path.read_text())
        body = entry.get("body")
        if entry["path"].endswith("/chat/completions") and isinstance(body, dict) and body.get("tools"):
            requests.append(body)
    if not requests:
        sys.exit("sent.py: no Chat Completions request with tools was recorded")
    body = requests[-1]
    for m in body["messages"]:
        head = f"{m['role']}:"
        if m["role"] == "tool":
            head += f" [result of {m.get('tool_call_id')}]"
        for call in m.get("tool_calls") or []:
            head += f" [call {call['function']['name']} {call['function']['arguments']}]"
        texts = [t for t in texts_of(m.get("content")) if t]
        print(head, cut(texts[0]) if texts else "")
        for text in texts[1:]:
            print("   +", cut(text))
    print(f"# {len(body['messages'])} messages, {len(json.dumps(body['messages']))} bytes")


if __name__ == "__main__":
    main()
