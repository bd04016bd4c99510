"""A stand-in for the model APIs that the agents call, so a test can resume a session with the
real agent and read the request it sends. It listens on 127.0.0.1 only, records every request
(method, path, body) as DIR/NNN.json, and answers each with the smallest valid streamed reply:
the Anthropic Messages API (`message_start` ... `message_stop`) for `/v1/messages`, the OpenAI
Responses API (`response.created` ... `response.completed`) for `/responses`, the OpenAI Chat
Completions API (`chat.completion.chunk` ... `[DONE]`) for `/chat/completions` (opencode's
openai-compatible provider, Qwen Code), the Gemini API (`models/M:generateContent`,
`:streamGenerateContent`) for Gemini CLI. Agents with a route of their own are pointed at a path
prefix: `/copilot` and `/droid` (GitHub Copilot CLI, Factory Droid: Messages API with thinking,
parallel reads and their compaction summaries) and `/gemini-legacy` (Gemini CLI 0.38, with
parallel `read_file` calls).

It stops by itself after --seconds, or once --requests requests have been answered.
Usage: python3 mock_api.py --record DIR --port-file FILE [--seconds 60] [--requests 20]
       [--input-tokens N] [--reply-bytes N]
"""

import argparse
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPLY = "MOCK-REPLY to: "
# The prompt size each reply reports; --input-tokens raises it to make an agent compact.
INPUT_TOKENS = 12


def last_user_text(request):
    """The newest user text in a request of either API, so each reply says what it answers and
    a session written against the mock tells its turns apart."""
    items = request.get("messages") or request.get("input") or request.get("contents") or []
    if isinstance(items, str):
        return items
    for item in reversed(items):
        if not isinstance(item, dict) or item.get("role") != "user":
            continue
        content = item.get("content", item.get("parts"))
        if isinstance(content, str):
            return content
        texts = [p.get("text", "") for p in content or [] if isinstance(p, dict) and "text" in p]
        if texts:
            return texts[-1]
    return ""


# Replies are padded to this many bytes (--reply-bytes): real answers are long, and a session
# whose answers are a line each gains little from compaction, too little for a size check.
REPLY_BYTES = 0
WORDS = (
    "parser reader line buffer newline remainder loop state test case input output file "
    "split yield iterator block byte offset length error result value field record entry "
    "session context summary tail head branch leaf parent child token count budget limit"
).split()


def filler(seed, size):
    """Prose-like words that never repeat a phrase: Gemini CLI stops a reply that loops."""
    words, state = [], seed or 1
    while sum(len(w) + 1 for w in words) < size:
        state = (state * 1103515245 + 12345) % 2**31
        words.append(WORDS[state % len(WORDS)] + ("." if state % 11 == 0 else ""))
    return " ".join(words)


def reply_text(request):
    question = last_user_text(request)[:80]
    text = REPLY + question
    if len(text) < REPLY_BYTES:
        text += "\n\n" + filler(sum(map(ord, question)), REPLY_BYTES - len(text))
    return text


def sse(events):
    """Server-sent events with an `event:` line each, as both APIs stream them."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


# A user turn containing this asks the mock for two parallel tool calls (Claude Code's Read of
# README.md and notes.txt in its working directory), so a session written against it has the
# sibling tool_use/tool_result lines of a parallel call.
TOOLS_TRIGGER = "MOCK-TOOLS"


def wants_tools(request):
    """Whether the newest message is a user turn with the trigger (not the tool results that
    answer the calls, or the mock would call tools forever)."""
    # Claude Code may end the list with a `system` message of settings; the turn is the last
    # user message.
    users = [m for m in request.get("messages") or [] if m.get("role") == "user"]
    if not users:
        return False
    content = users[-1].get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    if any(isinstance(p, dict) and p.get("type") == "tool_result" for p in parts):
        return False
    return any(TOOLS_TRIGGER in p.get("text", "") for p in parts if isinstance(p, dict))


def working_directory(request):
    """The directory Claude Code says it runs in (its environment note in the request)."""
    found = re.search(r"Primary working directory: ([^\\\"]+)", json.dumps(request))
    return found.group(1).strip() if found else "."


def anthropic_blocks_stream(model, n, blocks):
    """One streamed Messages API reply made of content blocks (`thinking`, `text`, `tool_use`),
    each opened, filled by its delta and closed, as the API streams them; a reply with a
    `tool_use` block stops for the tool results."""
    events = [
        {
            "type": "message_start",
            "message": {
                "id": f"msg_mock_{n}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1},
            },
        }
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        elif kind == "tool_use":
            start = dict(block, input={})
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        else:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    calls = any(block["type"] == "tool_use" for block in blocks)
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 9 if calls else 5},
        },
        {"type": "message_stop"},
    ]
    return sse(events)


def anthropic_tools_stream(model, n, cwd):
    """Two Read calls in one reply, streamed as two tool_use blocks."""
    calls = [(f"{cwd}/README.md", 0), (f"{cwd}/notes.txt", 1)]
    blocks = [
        {"type": "tool_use", "id": f"toolu_mock_{n}_{index}", "name": "Read", "input": {"file_path": path}}
        for path, index in calls
    ]
    return anthropic_blocks_stream(model, n, blocks)


def anthropic_stream(model, text, n):
    return anthropic_blocks_stream(model, n, [{"type": "text", "text": text}])


def anthropic_message(model, text, n):
    return json.dumps(
        {
            "id": f"msg_mock_{n}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 5},
        }
    ).encode()


def responses_stream(model, text, compaction):
    """A Responses API stream with one output item: a message, or, when Codex asks for a remote
    compaction (a `compaction_trigger` input item), the opaque `compaction` item it expects."""
    if compaction:
        item = {"type": "compaction", "id": "cmp_mock", "encrypted_content": "MOCK-ENCRYPTED-COMPACTION"}
        done = item
        parts = []
    else:
        item = {"type": "message", "id": "msg_mock", "status": "in_progress", "role": "assistant", "content": []}
        done = dict(item, status="completed", content=[{"type": "output_text", "text": text, "annotations": []}])
        part = {"item_id": "msg_mock", "output_index": 0, "content_index": 0}
        parts = [
            dict(part, type="response.content_part.added", part={"type": "output_text", "text": ""}),
            dict(part, type="response.output_text.delta", delta=text),
            dict(part, type="response.output_text.done", text=text),
        ]
    response = {
        "id": "resp_mock",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    usage = {
        "input_tokens": INPUT_TOKENS,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": INPUT_TOKENS + 5,
    }
    return sse(
        [
            {"type": "response.created", "response": response},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            *parts,
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            {
                "type": "response.completed",
                "response": dict(response, status="completed", output=[done], usage=usage),
            },
        ]
    )


# GitHub Copilot CLI and Factory Droid are pointed at base URLs of their own (`/copilot`,
# `/droid`) and speak the Anthropic Messages API there. Their route adds what their sessions need
# to show: a thinking block when the request turns thinking on, parallel reads with the agent's
# own read tool, and the summary its compaction asks for, in the shape its parser takes.
AGENT_PREFIXES = ("/copilot/", "/droid/")
# The read tool of each agent and its path argument: Copilot CLI's `view`, Droid's `Read`.
READ_TOOLS = {"view": "path", "Read": "file_path"}
COPILOT_SUMMARY_ASK = "Please create a detailed summary of the conversation so far"
DROID_SUMMARY_ASKS = ("Please summarize the following conversation:", "Please incorporate the new messages")


def all_user_text(request):
    """Every text of every user message and of the system prompt, where the agents put their
    compaction instructions."""
    system = request.get("system")
    texts = [system] if isinstance(system, str) else [p.get("text", "") for p in system or []]
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [p.get("text", "") for p in content or [] if isinstance(p, dict)]
    return "\n".join(texts)


def summary_reply(request):
    """The summary an agent's compaction asks for, or None when the request is no compaction:
    Copilot CLI reads XML sections and a `<checkpoint_title>`, Droid what is inside `<summary>`."""
    asked = all_user_text(request)
    count = len(request.get("messages") or [])
    if COPILOT_SUMMARY_ASK in asked:
        return (
            f"<overview>MOCK-SUMMARY of {count} messages: the user asked questions about a small "
            "project and the assistant answered them.</overview>\n"
            "<history>1. The user asked questions; the assistant read files and answered.</history>\n"
            "<work_done>Nothing was changed.</work_done>\n"
            "<technical_details>The replies came from a mock model.</technical_details>\n"
            "<important_files>README.md, notes.txt</important_files>\n"
            "<next_steps>Answer the next question.</next_steps>\n"
            "<checkpoint_title>Mock questions answered</checkpoint_title>"
        )
    if any(ask in asked for ask in DROID_SUMMARY_ASKS):
        return (
            f"<summary>MOCK-SUMMARY of {count} messages: the user asked questions about a small "
            "project; the assistant read files and answered. Next: answer the next question."
            "</summary>"
        )
    return None


def asked_for_reads(request):
    """The absolute paths a `MOCK-TOOLS` question names, when the newest text of the newest
    message is that question (not the tool results that answer the calls, nor an earlier
    question Copilot CLI lists in its summary message, which shares the question's message)."""
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    if last.get("role") != "user" or any(p.get("type") == "tool_result" for p in parts if isinstance(p, dict)):
        return []
    texts = [p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    return named_paths(texts[-1] if texts else "")


def named_paths(question):
    """The absolute paths a `MOCK-TOOLS` question names (none for any other question)."""
    if TOOLS_TRIGGER not in question:
        return []
    return [word.rstrip(".,;") for word in question.split() if word.startswith("/")]


def agent_messages_stream(request, model, n):
    """The reply of the Copilot CLI and Droid route: a summary for a compaction request, else
    parallel reads for a `MOCK-TOOLS` question, else the usual text; each after a thinking
    block when the request enables thinking (Copilot CLI does)."""
    blocks = []
    if (request.get("thinking") or {}).get("type") == "enabled":
        thought = "MOCK-THINKING about: " + last_user_text(request)[:60]
        blocks.append({"type": "thinking", "thinking": thought, "signature": f"mock-signature-{n}"})
    summary = summary_reply(request)
    tools = {tool.get("name") for tool in request.get("tools") or []}
    read = next((name for name in READ_TOOLS if name in tools), None)
    paths = asked_for_reads(request) if read else []
    if summary is not None:
        blocks.append({"type": "text", "text": summary})
    elif paths:
        blocks += [
            {"type": "tool_use", "id": f"toolu_mock_{n}_{i}", "name": read, "input": {READ_TOOLS[read]: path}}
            for i, path in enumerate(paths)
        ]
    else:
        blocks.append({"type": "text", "text": reply_text(request)})
    return anthropic_blocks_stream(model, n, blocks)


def sample(schema):
    """The smallest value a JSON schema accepts, for requests that ask for JSON output (Gemini
    CLI's model router asks for a complexity score)."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: sample(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "mock"


def gemini_response(model, text, parts=None):
    """One GenerateContentResponse of the Gemini API, whole or as one streamed chunk: the text,
    or the given parts (function calls)."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts or [{"text": text}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": INPUT_TOKENS,
            "candidatesTokenCount": 5,
            "totalTokenCount": INPUT_TOKENS + 5,
        },
        "modelVersion": model,
    }


# The legacy Gemini CLI (0.38, the last release to write `session-*.json`) is pointed at a base
# URL of its own, `/gemini-legacy`, where a `MOCK-TOOLS` question gets parallel `read_file` calls,
# so its fixture holds tool calls and their results as that version recorded them.
GEMINI_LEGACY_PREFIX = "/gemini-legacy/"


def gemini_read_calls(request):
    """`read_file` function calls for the absolute paths a `MOCK-TOOLS` question names, when the
    newest content is that question (not the function responses that answer the calls)."""
    contents = request.get("contents") or []
    last = contents[-1] if contents else {}
    parts = last.get("parts") or []
    if last.get("role") != "user" or any("functionResponse" in p for p in parts):
        return []
    texts = [p["text"] for p in parts if "text" in p]
    paths = named_paths(texts[-1] if texts else "")
    return [{"functionCall": {"name": "read_file", "args": {"file_path": path}}} for path in paths]


def chat_tool_calls(request, question):
    """The read calls a Chat Completions reply makes for a MOCK-TOOLS question: one call of the
    agent's own read tool (the offered tool named `read`, `read_file`, `view` or `Read`) per file
    name in the question, each path resolved against the directory the question names after
    `in`, or left as written. The tool's first parameter whose name holds "path" carries it."""
    tools = {t["function"]["name"]: t["function"] for t in request.get("tools") or [] if t.get("type") == "function"}
    name = next((n for n in ("read", "read_file", "view", "Read") if n in tools), None)
    if name is None:
        return []
    params = tools[name].get("parameters") or {}
    key = next((k for k in params.get("properties", {}) if "path" in k.lower()), "path")
    folder = re.search(r" in (/[^\s\"']+)", question)
    files = re.findall(r"\b[\w-]+\.(?:md|txt|rs|py|json)\b", question)
    base = folder.group(1).rstrip(".:") if folder else ""
    return [(name, {key: f"{base}/{f}" if base else f}) for f in files]


def wants_chat_tools(request):
    """Whether a Chat Completions request ends with a user turn holding the trigger (tool results
    come back as `tool` messages, so the turn after them gets a text answer)."""
    messages = request.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return False
    return TOOLS_TRIGGER in last_user_text(request)


# What the agents that speak Chat Completions ask when they compact: Qwen Code's directive
# ("... produce the <state_snapshot> XML."), opencode's ("Create a new anchored summary ...", or,
# with an earlier summary, its "<prior-summary>" block), Crush's ("Provide a detailed summary of
# our conversation above."). The answer is a short
# marked summary, not a padded reply: Qwen Code keeps a summary only when it is smaller than the
# history ("Compression was not beneficial").
SUMMARY_ASKS = ("<state_snapshot>", "anchored summary", "<prior-summary>", "summary of our conversation")
# The fixtures' questions are marked (OC-OLD-Q2, QW-TWICE-Q3, ...): a summary names the last
# one it was given, so a test tells a first summary from a second one.
QUESTION_MARK = re.compile(r"\b[A-Z]+(?:-[A-Z]+)*-Q\d+\b")


def summary_text(request):
    """The mock's summary, when the newest user text is a compaction request, else None."""
    question = last_user_text(request)
    if not any(ask in question for ask in SUMMARY_ASKS):
        return None
    # An earlier summary in the request (opencode puts it after the conversation) names an
    # older question: the marks are looked for in the rest.
    rest = re.sub(r"MOCK-SUMMARY up to \S+", "", json.dumps(request))
    marks = QUESTION_MARK.findall(rest)
    summary = f"MOCK-SUMMARY up to {marks[-1] if marks else 'the start'}: the answers are in the history."
    if "<state_snapshot>" in question:
        return f"<state_snapshot>\n{summary}\n</state_snapshot>"
    return summary


def chat_chunk(model, n, delta, finish=None):
    """One `chat.completion.chunk`: a delta, or the finish reason (with an empty delta)."""
    return chat_event(model, n, [{"index": 0, "delta": delta, "finish_reason": finish}])


def chat_event(model, n, choices, **extra):
    """A `chat.completion.chunk` server-sent event with these choices (and fields)."""
    chunk = {"id": f"chatcmpl-mock-{n}", "object": "chat.completion.chunk", "created": int(time.time()),
             "model": model, "choices": choices, **extra}
    return f"data: {json.dumps(chunk)}\n\n"


def chat_usage(request):
    """The usage figures of a Chat Completions reply. The prompt size is the request's (a token
    for every 4 bytes), or --input-tokens when that is larger: Qwen Code keeps a compression only
    when the estimated size afterwards is below the reported size before, so a fixed small
    figure would make every compression "not beneficial"."""
    prompt = max(INPUT_TOKENS, len(json.dumps(request)) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5}


def chat_stream(request, model, text, n, calls):
    """A streamed Chat Completions reply: the text in one delta, or the tool calls (each call's
    id, name and whole arguments in one delta), the finish reason, then a chunk with no choices
    and the usage figures (as the API sends them with `stream_options.include_usage`)."""
    out = chat_chunk(model, n, {"role": "assistant", "content": ""})
    if calls:
        for index, (name, args) in enumerate(calls):
            call = {"index": index, "id": f"call_mock_{n}_{index}", "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)}}
            out += chat_chunk(model, n, {"tool_calls": [call]})
        out += chat_chunk(model, n, {}, "tool_calls")
    else:
        out += chat_chunk(model, n, {"content": text})
        out += chat_chunk(model, n, {}, "stop")
    out += chat_event(model, n, [], usage=chat_usage(request))
    return (out + "data: [DONE]\n\n").encode()


def chat_completion(request, model, text, n, calls):
    """A whole (unstreamed) Chat Completions reply."""
    message = {"role": "assistant", "content": None if calls else text}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_mock_{n}_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(calls)
        ]
    return json.dumps(
        {
            "id": f"chatcmpl-mock-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": chat_usage(request),
        }
    ).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # stderr belongs to the test's own diagnostics

    def record(self, body):
        server = self.server
        with server.lock:
            server.count += 1
            n = server.count
        # Numbers the reply's ids, unique across runs, so an agent that keys turns by message id
        # (Claude Code's --resume-session-at) tells every reply apart.
        self.n = f"{server.token}_{n:03}"
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        entry = {"method": self.command, "path": self.path, "body": parsed}
        (server.record_dir / f"{n:03}.json").write_text(json.dumps(entry))
        if n >= server.max_requests:
            threading.Thread(target=server.shutdown, daemon=True).start()
        return parsed

    def reply(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record(b"")
        if self.path.split("?")[0].endswith("/models"):
            self.reply(200, b'{"data": [], "models": []}', "application/json")
        elif self.headers.get("Upgrade", "").lower() == "websocket":
            # Codex tries the Responses API over a WebSocket first; 426 makes it fall back to
            # HTTPS at once, where a 404 costs five retries with backoff.
            self.reply(426, b'{"error": {"type": "upgrade_required", "message": "mock"}}', "application/json")
        else:
            self.reply(404, b'{"error": {"type": "not_found", "message": "mock"}}', "application/json")

    def do_HEAD(self):
        self.reply(200, b"", "text/plain")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = self.record(body)
        request = request if isinstance(request, dict) else {}
        model = request.get("model") or "mock-model"
        text = reply_text(request)
        path = self.path.split("?")[0]
        if ":" in path.rsplit("/", 1)[-1]:
            # Gemini: POST /v1beta/models/MODEL:METHOD
            model, method = path.rsplit("/", 1)[-1].split(":", 1)
            config = request.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            if config.get("responseMimeType") == "application/json":
                text = json.dumps(sample(schema or {}))
            calls = gemini_read_calls(request) if path.startswith(GEMINI_LEGACY_PREFIX) else None
            if method == "streamGenerateContent":
                body = f"data: {json.dumps(gemini_response(model, text, calls))}\n\n".encode()
                self.reply(200, body, "text/event-stream")
            elif method == "countTokens":
                self.reply(200, json.dumps({"totalTokens": INPUT_TOKENS}).encode(), "application/json")
            else:
                self.reply(200, json.dumps(gemini_response(model, text)).encode(), "application/json")
        elif path.startswith(AGENT_PREFIXES) and path.endswith("/v1/messages") and request.get("stream"):
            self.reply(200, agent_messages_stream(request, model, self.n), "text/event-stream")
        elif path.endswith("/v1/messages/count_tokens"):
            self.reply(200, b'{"input_tokens": 12}', "application/json")
        elif path.endswith("/v1/messages"):
            if request.get("stream") and wants_tools(request):
                self.reply(200, anthropic_tools_stream(model, self.n, working_directory(request)), "text/event-stream")
            elif request.get("stream"):
                self.reply(200, anthropic_stream(model, text, self.n), "text/event-stream")
            else:
                self.reply(200, anthropic_message(model, text, self.n), "application/json")
        elif path.endswith("/chat/completions"):
            calls = chat_tool_calls(request, last_user_text(request)) if wants_chat_tools(request) else []
            text = summary_text(request) or text
            if request.get("stream"):
                self.reply(200, chat_stream(request, model, text, self.n, calls), "text/event-stream")
            else:
                self.reply(200, chat_completion(request, model, text, self.n, calls), "application/json")
        elif path.endswith("/responses"):
            items = request.get("input") if isinstance(request.get("input"), list) else []
            compaction = any(isinstance(i, dict) and i.get("type") == "compaction_trigger" for i in items)
            self.reply(200, responses_stream(model, text, compaction), "text/event-stream")
        else:
            self.reply(404, b'{"error": {"type": "not_found", "message": "mock"}}', "application/json")


def main():
    global INPUT_TOKENS, REPLY_BYTES
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True, type=Path)
    parser.add_argument("--port-file", required=True, type=Path)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--input-tokens", type=int, default=INPUT_TOKENS)
    parser.add_argument("--reply-bytes", type=int, default=REPLY_BYTES)
    args = parser.parse_args()
    INPUT_TOKENS = args.input_tokens
    REPLY_BYTES = args.reply_bytes
    args.record.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.record_dir = args.record
    server.max_requests = args.requests
    server.count = 0
    server.token = uuid.uuid4().hex[:8]
    server.lock = threading.Lock()
    deadline = threading.Timer(args.seconds, server.shutdown)
    deadline.daemon = True
    deadline.start()
    # Written last and renamed into place, so a reader never sees a half-written port.
    tmp = args.port_file.with_suffix(".tmp")
    tmp.write_text(str(server.server_address[1]))
    tmp.rename(args.port_file)
    server.serve_forever(poll_interval=0.1)
    server.server_close()


if __name__ == "__main__":
    main()
