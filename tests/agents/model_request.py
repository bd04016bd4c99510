"""Prints what an agent sent the model in one request recorded by mock_api.py, as one JSON
object: the system prompt's sizes and one entry per content block, {role, type, text}, in order,
so a resume proof shows exactly the context the agent rebuilt. Reads the Anthropic Messages API
(`messages`, `system`), the Gemini API (`contents`, `systemInstruction`) and the OpenAI
Responses API (`input`, `instructions`).
Usage: python3 model_request.py RECORD_DIR [N]   (N: the request's number; by default the last
recorded conversation request: /v1/messages, Gemini's streamGenerateContent or /responses)"""

import json
import sys
from pathlib import Path


def anthropic_text(block):
    kind = block.get("type")
    if kind == "text":
        return block["text"]
    if kind == "thinking":
        return block.get("thinking", "")
    if kind == "tool_use":
        return f"{block['name']} {json.dumps(block.get('input'))}"
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        return f"{block.get('tool_use_id')}: {content}"
    return json.dumps(block)


def gemini_part(part):
    """A Gemini part as (type, text)."""
    if "functionCall" in part:
        call = part["functionCall"]
        return "functionCall", f"{call.get('name')} {json.dumps(call.get('args'))}"
    if "functionResponse" in part:
        response = part["functionResponse"]
        return "functionResponse", f"{response.get('name')}: {json.dumps(response.get('response'))}"
    return ("thought" if part.get("thought") else "text"), part.get("text", "")


def responses_item(item):
    """A Responses API input item as (role, type, text)."""
    kind = item.get("type", "message")
    if kind == "message":
        texts = [c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict)]
        return item.get("role"), "message", "\n".join(texts)
    if kind in ("function_call", "custom_tool_call"):
        return "assistant", kind, f"{item.get('name')} {item.get('arguments', item.get('input'))}"
    if kind in ("function_call_output", "custom_tool_call_output"):
        return "tool", kind, f"{item.get('call_id')}: {json.dumps(item.get('output'))}"
    if kind in ("compaction", "compaction_summary", "reasoning"):
        return "assistant", kind, f"encrypted_content: {len(item.get('encrypted_content') or '')} bytes"
    return item.get("role"), kind, json.dumps(item)[:200]


def blocks_of(body):
    """Every content block of a request body, with its role, in order."""
    blocks = []
    for message in body.get("messages") or []:
        content = message["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else content
        blocks += [{"role": message["role"], "type": b.get("type"), "text": anthropic_text(b)} for b in content]
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            kind, text = gemini_part(part)
            blocks.append({"role": content.get("role"), "type": kind, "text": text})
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        role, kind, text = responses_item(item)
        blocks.append({"role": role, "type": kind, "text": text})
    return blocks


def system_of(body):
    system = body.get("system", body.get("instructions"))
    if system is None and body.get("systemInstruction"):
        system = body["systemInstruction"].get("parts")
    if isinstance(system, str):
        return [system]
    return [b.get("text", "") for b in system or []]


def is_conversation(entry):
    path = entry["path"].split("?")[0]
    return path.endswith(("/v1/messages", ":streamGenerateContent", "/responses"))


def main():
    record = Path(sys.argv[1])
    requests = sorted(record.glob("[0-9][0-9][0-9].json"))
    if len(sys.argv) > 2:
        chosen = record / f"{int(sys.argv[2]):03}.json"
    else:
        conversation = [p for p in requests if is_conversation(json.loads(p.read_text()))]
        if not conversation:
            sys.exit(f"{record}: no conversation request was recorded")
        chosen = conversation[-1]
    body = json.loads(chosen.read_text())["body"]
    report = {"request": chosen.name, "system_bytes": [len(s) for s in system_of(body)], "messages": blocks_of(body)}
    json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
