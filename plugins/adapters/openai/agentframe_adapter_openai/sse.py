"""Server-sent events: the `data` of each event of a `text/event-stream` body."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

__all__ = ["sse_data"]


async def sse_data(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Yield each event's data (several `data:` lines joined by newlines), per the SSE spec:
    a blank line ends an event, `:` starts a comment, other fields are ignored."""
    buffer: list[str] = []
    async for line in lines:
        if not line:
            if buffer:
                yield "\n".join(buffer)
                buffer.clear()
            continue
        if line[0] == ":":
            continue
        name, _, value = line.partition(":")
        if name == "data":
            buffer.append(value[1:] if value[:1] == " " else value)
    if buffer:
        yield "\n".join(buffer)
