"""The Messages API's streaming events, read off the wire and folded into one reply.

A stream is `message_start`, then for each content block `content_block_start`, its
`content_block_delta`s and `content_block_stop`, then `message_delta` (stop reason, final
usage) and `message_stop`; `ping` may come anywhere and `error` ends it. The server is not
trusted: every event, block count and reply size is bounded, and an event out of place is a
`ProtocolError` that names it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from agentframe_core import Completion, ToolCall, new_id

from .errors import ProtocolError
from .wire import Blocks, decode_input, finish_reason, parse_usage

__all__ = [
    "MAX_BLOCKS",
    "MAX_EVENT_BYTES",
    "MAX_REPLY_CHARS",
    "StreamAssembler",
    "decode_event",
    "sse_events",
]

#: One event's data; real events are a few hundred bytes (deltas are small pieces).
MAX_EVENT_BYTES = 1 << 20
#: Text, tool input and thinking of one reply together.
MAX_REPLY_CHARS = 16 << 20
#: Content blocks in one reply.
MAX_BLOCKS = 1024


async def sse_events(chunks: AsyncIterable[bytes], url: str) -> AsyncIterator[tuple[str, str]]:
    """`(event, data)` for each server-sent event, per the SSE spec (a blank line ends an
    event, `:` starts a comment, several `data:` lines join with newlines), refusing an event
    larger than `MAX_EVENT_BYTES` instead of buffering it."""
    event, size = "", 0
    data: list[str] = []
    async for line in _lines(chunks, url):
        if not line:
            if data:
                yield event or "message", "\n".join(data)
            event, data, size = "", [], 0
            continue
        size += len(line)
        if size > MAX_EVENT_BYTES:
            raise _too_big(url)
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield event or "message", "\n".join(data)


async def _lines(chunks: AsyncIterable[bytes], url: str) -> AsyncIterator[str]:
    pending = b""
    async for chunk in chunks:
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
        if len(pending) > MAX_EVENT_BYTES:
            raise _too_big(url)
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8", "replace")


def _too_big(url: str) -> ProtocolError:
    return ProtocolError(
        f"{url} streamed an event larger than {MAX_EVENT_BYTES} bytes: refused", url=url
    )


class _Block:
    __slots__ = ("data", "id", "kind", "name", "parts", "signature", "stopped")

    def __init__(self, start: dict[str, Any]) -> None:
        self.kind = str(start.get("type"))
        self.id = str(start.get("id") or "")
        self.name = str(start.get("name") or "")
        self.data = start.get("data")  # redacted_thinking: opaque, passed back as it came
        self.signature = str(start.get("signature") or "")
        first = start.get("text") if self.kind == "text" else start.get("thinking")
        self.parts: list[str] = [first] if isinstance(first, str) and first else []
        self.stopped = False


class StreamAssembler:
    """Folds decoded events into text deltas and, at the end, the Completion and the reply's
    thinking blocks (rebuilt exactly as the non-streamed reply would hold them)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.blocks: dict[int, _Block] = {}
        self.usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.model: str | None = None
        self.started = False
        self.finished = False
        self.chars = 0

    def feed(self, kind: str, event: dict[str, Any]) -> str:
        """Take one event (its `type` is `kind`); return its text delta ('' if none)."""
        if kind == "ping":
            return ""
        if kind == "message_start":
            message = event.get("message")
            if not isinstance(message, dict):
                raise self._bad(kind, "has no `message` object")
            self.started = True
            self.model = message.get("model") if isinstance(message.get("model"), str) else None
            self._usage(message.get("usage"))
            return ""
        if not self.started and kind.startswith(("content_block", "message_")):
            raise self._bad(kind, "came before message_start")
        if kind == "content_block_start":
            index, block = event.get("index"), event.get("content_block")
            if not isinstance(index, int) or not isinstance(block, dict):
                raise self._bad(kind, "needs an integer `index` and a `content_block` object")
            if index in self.blocks:
                raise self._bad(kind, f"starts block {index} twice")
            if len(self.blocks) >= MAX_BLOCKS:
                raise self._bad(kind, f"exceeds {MAX_BLOCKS} content blocks")
            self.blocks[index] = _Block(block)
            first = self.blocks[index].parts
            return self._grow(first[0]) if first and block.get("type") == "text" else ""
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_stop":
            self._block(kind, event).stopped = True
            return ""
        if kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self.stop_reason = delta["stop_reason"]
            self._usage(event.get("usage"))
            return ""
        if kind == "message_stop":
            self.finished = True
        return ""  # event types added to the API later are ignored, as its docs ask

    def _delta(self, event: dict[str, Any]) -> str:
        block = self._block("content_block_delta", event)
        delta = event.get("delta")
        if not isinstance(delta, dict):
            raise self._bad("content_block_delta", "has no `delta` object")
        kind = delta.get("type")
        piece = {
            "text_delta": "text",
            "input_json_delta": "partial_json",
            "thinking_delta": "thinking",
            "signature_delta": "signature",
        }.get(str(kind))
        if piece is None:
            return ""  # citations and delta types added later carry no text we keep
        value = delta.get(piece)
        if not isinstance(value, str):
            raise self._bad("content_block_delta", f"{kind} without a string `{piece}`")
        if kind == "signature_delta":
            block.signature += value
            self._grow_raw(len(value))
            return ""
        block.parts.append(value)
        if kind == "text_delta":
            return self._grow(value)
        self._grow_raw(len(value))
        return ""

    def _grow(self, text: str) -> str:
        self._grow_raw(len(text))
        return text

    def _grow_raw(self, size: int) -> None:
        self.chars += size
        if self.chars > MAX_REPLY_CHARS:
            raise ProtocolError(
                f"{self.url} streamed a reply longer than {MAX_REPLY_CHARS} characters: refused",
                url=self.url,
            )

    def _block(self, kind: str, event: dict[str, Any]) -> _Block:
        index = event.get("index")
        block = self.blocks.get(index) if isinstance(index, int) else None
        if block is None:
            raise self._bad(kind, f"names block {index!r}, which was never started")
        if block.stopped:
            raise self._bad(kind, f"names block {index}, which had already stopped")
        return block

    def _usage(self, usage: Any) -> None:
        """`message_delta`'s usage is cumulative: each field it has replaces the start's."""
        if isinstance(usage, dict):
            self.usage.update({k: v for k, v in usage.items() if v is not None})

    def _bad(self, kind: str, what: str) -> ProtocolError:
        return ProtocolError(f"{self.url} streamed a `{kind}` event that {what}", url=self.url)

    def completion(self) -> tuple[Completion, Blocks]:
        text: list[str] = []
        calls: list[ToolCall] = []
        thinking: Blocks = []
        for _, block in sorted(self.blocks.items()):
            if block.kind == "text":
                text.extend(block.parts)
            elif block.kind == "tool_use":
                arguments = decode_input("".join(block.parts))
                calls.append(ToolCall(block.id or new_id(), block.name, arguments))
            elif block.kind == "thinking":
                thinking.append(
                    {
                        "type": "thinking",
                        "thinking": "".join(block.parts),
                        "signature": block.signature,
                    }
                )
            elif block.kind == "redacted_thinking":
                thinking.append({"type": "redacted_thinking", "data": block.data})
        completion = Completion(
            content="".join(text),
            tool_calls=tuple(calls),
            usage=parse_usage(self.usage),
            finish_reason=finish_reason(self.stop_reason),
            model=self.model,
        )
        return completion, thinking


def decode_event(kind: str, data: str, url: str) -> dict[str, Any]:
    """One event's JSON data, which must be an object whose `type` (if any) is the event's."""
    try:
        event = json.loads(data)
    except ValueError as err:
        raise ProtocolError(
            f"malformed server-sent event `{kind}` from {url}: expected JSON after 'data:', "
            f"got {data[:200]!r}",
            url=url,
        ) from err
    if not isinstance(event, dict):
        raise ProtocolError(f"{url} streamed a non-object `{kind}` event: {data[:200]!r}", url=url)
    return event
