"""`ScriptedServer`: a real Messages API HTTP server on 127.0.0.1 that plays a script.

For testing the adapter and stacks over the real wire (sockets, HTTP/1.1, chunked SSE with
the API's event order) without a model or a key: each request takes the next queued `Action`
(a reply, an error status, a dropped connection, a raw or cut stream), or `default`.

It keeps a prompt cache the way the API describes it: a `cache_control` mark writes the
prefix up to it (tools, then system, then messages); a later request that starts with a
written prefix reads it. Usage reports `cache_creation_input_tokens` and
`cache_read_input_tokens` accordingly, so caching is tested end to end. Tokens are counted
as one per 4 characters of each block's JSON (a stand-in for a tokenizer).

    with ScriptedServer() as server:
        server.push(Action.error(529, "overloaded_error"), Action.reply("hi"))
        adapter = AnthropicAdapter(AnthropicOptions(base_url=server.url, api_key_env=None))
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = ["Action", "ScriptedServer"]

ActionKind = Literal["reply", "status", "drop", "raw", "cut"]


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    content: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()
    #: (thinking text, signature) pairs, sent as thinking blocks before the text.
    thinking: tuple[tuple[str, str], ...] = ()
    stop_reason: str | None = None
    status: int = 200
    error_type: str = ""
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    #: `raw`: the body to send as an event stream; `cut`: events sent before the connection dies.
    raw: str = ""
    after: int = 0
    #: Seconds to wait before answering.
    delay: float = 0.0

    @classmethod
    def reply(
        cls,
        content: str = "",
        tool_calls: list[dict[str, Any]] | tuple[dict[str, Any], ...] = (),
        *,
        thinking: tuple[tuple[str, str], ...] = (),
        stop_reason: str | None = None,
        delay: float = 0.0,
    ) -> Action:
        return cls(
            "reply",
            content=content,
            tool_calls=tuple(tool_calls),
            thinking=thinking,
            stop_reason=stop_reason,
            delay=delay,
        )

    @classmethod
    def error(
        cls,
        status: int,
        error_type: str = "api_error",
        message: str = "",
        headers: dict[str, str] | None = None,
    ) -> Action:
        return cls(
            "status", status=status, error_type=error_type, message=message, headers=headers or {}
        )

    @classmethod
    def drop(cls) -> Action:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def raw_stream(cls, body: str) -> Action:
        """Answer 200 `text/event-stream` with `body` as is (malformed or odd events)."""
        return cls("raw", raw=body)

    @classmethod
    def cut(cls, after: int, content: str = "one two three four five six") -> Action:
        """Stream `after` events of a reply, then kill the connection mid-chunk."""
        return cls("cut", content=content, after=after)


class ScriptedServer:
    def __init__(self, models: tuple[str, ...] = ("scripted-model",)) -> None:
        self.models = list(models)
        self.default: Action = Action.reply("Hello from the scripted server.")
        self.requests: list[dict[str, Any]] = []
        self.cache: set[str] = set()
        self._queue: deque[Action] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def push(self, *actions: Action) -> None:
        with self._lock:
            self._queue.extend(actions)

    def next_action(self) -> Action:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default

    def record(self, path: str, headers: dict[str, str], body: Any) -> None:
        with self._lock:
            self.requests.append({"path": path, "headers": headers, "body": body})

    def call_id(self) -> str:
        return f"toolu_{next(self._ids):04d}"

    def usage(self, body: dict[str, Any], output_tokens: int) -> dict[str, int]:
        """Usage with the prompt cache applied: the longest written prefix this request
        starts with is read, and the prefix up to its last mark, beyond that, is written."""
        blocks = _prefix_blocks(body)
        sizes = [len(json.dumps(b, sort_keys=True)) // 4 + 1 for b, _ in blocks]
        keys, digest = [], hashlib.sha256()
        for block, _ in blocks:
            digest.update(json.dumps(block, sort_keys=True).encode())
            keys.append(digest.copy().hexdigest())
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        with self._lock:
            read = max((i + 1 for i, key in enumerate(keys) if key in self.cache), default=0)
            written = (marks[-1] + 1) if marks and marks[-1] + 1 > read else read
            self.cache.update(keys[i] for i in marks)
        total = sum(sizes)
        return {
            "input_tokens": total - sum(sizes[:written]),
            "cache_creation_input_tokens": sum(sizes[read:written]),
            "cache_read_input_tokens": sum(sizes[:read]),
            "output_tokens": output_tokens,
        }

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _prefix_blocks(body: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    """The request's blocks in the API's prefix order (tools, system, messages), each
    without its mark and whether it had one."""
    items: list[dict[str, Any]] = list(body.get("tools") or [])
    system = body.get("system")
    items += [{"type": "text", "text": system}] if isinstance(system, str) else system or []
    for turn in body.get("messages") or []:
        content = turn.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        items += [{**block, "role": turn.get("role")} for block in blocks or []]
    return [
        ({k: v for k, v in item.items() if k != "cache_control"}, "cache_control" in item)
        for item in items
    ]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (as scripted drops make it) is not worth a traceback."""


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                data = [{"id": m, "type": "model"} for m in server.models]
                self._json(200, {"data": data, "has_more": False})
            else:
                self._error(404, "not_found_error", f"no route {self.path}")

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                self._error(400, "invalid_request_error", "body is not JSON")
                return
            server.record(self.path, dict(self.headers), body)
            if self.path != "/v1/messages":
                self._error(404, "not_found_error", f"no route {self.path}")
                return
            action = server.next_action()
            if action.delay:
                time.sleep(action.delay)
            if action.kind == "drop":
                self.close_connection = True
                self.connection.close()
                return
            if action.kind == "status":
                text = action.message or f"scripted {action.status}"
                self._error(action.status, action.error_type, text, action.headers)
                return
            if action.kind == "raw":
                self._start_stream()
                self._chunk(action.raw)
                self._chunk("")
                return
            model = body.get("model") or server.models[0]
            if model not in server.models:
                self._error(404, "not_found_error", f"model: {model}")
                return
            words = action.content.split(" ") if action.content else []
            stop = action.stop_reason or ("tool_use" if action.tool_calls else "end_turn")
            if len(words) > int(body.get("max_tokens") or 4096):
                words, stop = words[: int(body["max_tokens"])], "max_tokens"
            blocks: list[dict[str, Any]] = [
                {"type": "thinking", "thinking": text, "signature": signature}
                for text, signature in action.thinking
            ]
            if words:
                blocks.append({"type": "text", "text": " ".join(words)})
            for call in action.tool_calls:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": server.call_id(),
                        "name": call["name"],
                        "input": call.get("arguments", {}),
                    }
                )
            usage = server.usage(body, len(words))
            message = {
                "id": f"msg_{next(server._ids)}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            }
            if body.get("stream"):
                self._stream(action, message)
            else:
                self._json(200, message)

        def _stream(self, action: Action, message: dict[str, Any]) -> None:
            usage = message["usage"]
            start = {**message, "content": [], "stop_reason": None}
            start["usage"] = {**usage, "output_tokens": 1}
            events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
            for index, block in enumerate(message["content"]):
                events += _block_events(index, block)
                if index == 0:
                    events.append({"type": "ping"})
            events.append(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                }
            )
            events.append({"type": "message_stop"})
            self._start_stream()
            for n, event in enumerate(events):
                if action.kind == "cut" and n == action.after:
                    self.wfile.write(b'40\r\nevent: content_block_delta\ndata: {"trunc')
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.close()
                    return
                self._chunk(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
            self._chunk("")

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

        def _chunk(self, text: str) -> None:
            data = text.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _error(
            self, status: int, kind: str, message: str, headers: dict[str, str] | None = None
        ) -> None:
            payload = {"type": "error", "error": {"type": kind, "message": message}}
            self._json(status, payload, headers)

        def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    """One content block as the API streams it: start (empty), deltas, stop."""
    kind = block["type"]
    head: dict[str, Any]
    if kind == "text":
        words = block["text"].split(" ")
        head = {"type": "text", "text": ""}
        deltas = [
            {"type": "text_delta", "text": w if i == 0 else " " + w} for i, w in enumerate(words)
        ]
    elif kind == "thinking":
        head = {"type": "thinking", "thinking": ""}
        text = block["thinking"]
        deltas = [
            {"type": "thinking_delta", "thinking": text[i : i + 8]} for i in range(0, len(text), 8)
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:
        head = {**block, "input": {}}
        arguments = json.dumps(block["input"])
        deltas = [
            {"type": "input_json_delta", "partial_json": arguments[i : i + 4]}
            for i in range(0, len(arguments), 4)
        ]
    return [
        {"type": "content_block_start", "index": index, "content_block": head},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]
