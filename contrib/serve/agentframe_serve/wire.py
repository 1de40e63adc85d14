"""The HTTP side of a run: a client that goes away cancels it, whether it waits for a JSON
answer or reads a server-sent event stream."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

__all__ = ["ClientGone", "EventStream", "sse", "unless_disconnected"]

log = logging.getLogger("agentframe.serve")
T = TypeVar("T")


class ClientGone(Exception):
    """The client disconnected before the answer was ready; its run was cancelled."""


async def _until_disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def unless_disconnected(request: Request, work: Awaitable[T]) -> T:
    """`work`'s result, or ClientGone (and `work` cancelled) if the client leaves first."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.create_task(_until_disconnected(request.receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, watcher):
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
    if task.cancelled():
        raise ClientGone()
    return task.result()


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: `event:` (when named) and one `data:` line of JSON."""
    line = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {line}\n\n".encode()


class EventStream:
    """An ASGI response sending `chunks` as `text/event-stream`. The client's disconnect
    closes `chunks` (whose `finally` cancels its run); `release` runs however it ends."""

    def __init__(
        self,
        chunks: AsyncGenerator[bytes, None],
        release: Callable[[], None],
        headers: dict[str, str] | None = None,
    ) -> None:
        self.chunks, self.release, self.headers = chunks, release, headers or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            head = {
                "content-type": "text/event-stream; charset=utf-8",
                "cache-control": "no-cache",
                "x-accel-buffering": "no",
                **self.headers,
            }
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(k.encode(), v.encode()) for k, v in head.items()],
                }
            )
            pump = asyncio.create_task(self._pump(send))
            watcher = asyncio.create_task(_until_disconnected(receive))
            try:
                await asyncio.wait({pump, watcher}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (pump, watcher):
                    if not task.done():
                        task.cancel()
                        with contextlib.suppress(BaseException):
                            await task
            if pump.done() and not pump.cancelled() and pump.exception() is not None:
                error = pump.exception()
                log.warning("a stream ended early: %s", type(error).__name__)
        finally:
            with contextlib.suppress(BaseException):
                await self.chunks.aclose()
            self.release()

    async def _pump(self, send: Send) -> None:
        async for chunk in self.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
