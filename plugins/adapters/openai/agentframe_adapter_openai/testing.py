"""`ScriptedServer`: a real OpenAI-compatible HTTP server on 127.0.0.1 that plays a script.

For testing adapters and stacks over the real wire (sockets, HTTP/1.1, chunked SSE) with no
model: each request takes the next queued `Action` (a reply, an error status, a dropped
connection, a broken stream), or the `default` one when the queue is empty.

    with ScriptedServer() as server:
        server.push(Action.status(429, headers={"Retry-After": "0"}), Action.reply("hi"))
        adapter = OpenAIAdapter(OpenAIOptions(base_url=server.url))
"""

from __future__ import annotations

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
    status: int = 200
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
        delay: float = 0.0,
    ) -> Action:
        return cls("reply", content=content, tool_calls=tuple(tool_calls), delay=delay)

    @classmethod
    def error(cls, status: int, message: str = "", headers: dict[str, str] | None = None) -> Action:
        return cls("status", status=status, message=message, headers=headers or {})

    @classmethod
    def drop(cls) -> Action:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def raw_stream(cls, body: str) -> Action:
        """Answer 200 `text/event-stream` with `body` as is (to send malformed events)."""
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

    @property
    def open_connections(self) -> int:
        """Connections the client has not closed yet (a keep-alive one stays open)."""
        return self._httpd.open_connections

    def call_id(self) -> str:
        return f"call_{next(self._ids)}"

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


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.open_connections = 0
        self._count_lock = threading.Lock()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serves one connection, request after request, until the client closes it."""
        with self._count_lock:
            self.open_connections += 1
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._count_lock:
                self.open_connections -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (as scripted drops make it) is not worth a traceback."""


def _words(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content") or "").split()) for m in body.get("messages", []))


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                data = [{"id": m, "object": "model"} for m in server.models]
                self._json(200, {"object": "list", "data": data})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                self._json(400, {"error": {"message": "body is not JSON"}})
                return
            server.record(self.path, dict(self.headers), body)
            if self.path != "/v1/chat/completions":
                self._json(404, {"error": {"message": f"no route {self.path}"}})
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
                self._json(action.status, {"error": {"message": text}}, action.headers)
                return
            if action.kind == "raw":
                self._start_stream()
                self._chunk(action.raw)
                self._chunk("")
                return
            model = body.get("model") or server.models[0]
            if model not in server.models:
                message = f"The model `{model}` does not exist."
                self._json(404, {"error": {"message": message, "code": "model_not_found"}})
                return
            words = action.content.split(" ") if action.content else []
            limit = body.get("max_tokens")
            finish = "tool_calls" if action.tool_calls else "stop"
            if limit is not None and len(words) > limit:
                words, finish = words[:limit], "length"
            content = " ".join(words)
            calls = [
                {
                    "id": server.call_id(),
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": json.dumps(call.get("arguments", {})),
                    },
                }
                for call in action.tool_calls
            ]
            usage = {
                "prompt_tokens": _words(body),
                "completion_tokens": len(words),
                "total_tokens": _words(body) + len(words),
                "prompt_tokens_details": {"cached_tokens": 0},
            }
            if body.get("stream"):
                self._stream(action, body, model, words, calls, finish, usage)
                return
            reply: dict[str, Any] = {"role": "assistant", "content": content or None}
            if calls:
                reply["tool_calls"] = calls
            choice = {"index": 0, "message": reply, "finish_reason": finish}
            self._json(
                200,
                {"object": "chat.completion", "model": model, "choices": [choice], "usage": usage},
            )

        def _stream(
            self,
            action: Action,
            body: dict[str, Any],
            model: str,
            words: list[str],
            calls: list[dict[str, Any]],
            finish: str,
            usage: dict[str, Any],
        ) -> None:
            deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
            deltas += [{"content": w if i == 0 else " " + w} for i, w in enumerate(words)]
            for index, call in enumerate(calls):
                arguments = call["function"]["arguments"]
                head = {
                    "index": index,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }
                deltas.append({"tool_calls": [head]})
                for start in range(0, len(arguments), 4):
                    piece = {
                        "index": index,
                        "function": {"arguments": arguments[start : start + 4]},
                    }
                    deltas.append({"tool_calls": [piece]})
            events: list[dict[str, Any]] = [
                {
                    "object": "chat.completion.chunk",
                    "model": model,
                    "choices": [{"index": 0, "delta": d, "finish_reason": None}],
                }
                for d in deltas
            ]
            events.append(
                {
                    "object": "chat.completion.chunk",
                    "model": model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                }
            )
            if (body.get("stream_options") or {}).get("include_usage"):
                events.append(
                    {
                        "object": "chat.completion.chunk",
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                )
            self._start_stream()
            for n, event in enumerate(events):
                if action.kind == "cut" and n == action.after:
                    self.wfile.write(b'40\r\ndata: {"trunc')  # a chunk that never ends
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.close()
                    return
                self._chunk(f"data: {json.dumps(event)}\n\n")
            self._chunk("data: [DONE]\n\n")
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
