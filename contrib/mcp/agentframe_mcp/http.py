"""The HTTP client of HTTP and SSE servers: a reply is at most as large as a stdio line.

The SDK caps each SSE event, but reads a JSON reply whole: a server answering with 2 GB
would be read into memory. This transport reads a JSON reply up to the cap and answers the
request with a JSON-RPC error past it (the call or listing fails, naming the cap; nothing
is parsed). Replies are asked for uncompressed, and a compressed one is refused, so the cap
counts the bytes that are parsed.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from .stdio import MAX_LINE

__all__ = ["MAX_REPLY", "capped_client"]

#: One reply (a JSON body, or one SSE event) may not exceed this.
MAX_REPLY = MAX_LINE
_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def capped_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """An httpx2 client whose replies are capped (the SDK's `McpHttpClientFactory` shape)."""
    return httpx2.AsyncClient(
        headers={**(headers or {}), "Accept-Encoding": "identity"},
        timeout=timeout or _TIMEOUT,
        auth=auth,
        transport=_CappedTransport(httpx2.AsyncHTTPTransport(), MAX_REPLY),
    )


class _CappedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int) -> None:
        self._inner, self._limit = inner, limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        headers = response.headers
        if headers.get("content-type", "").lower().startswith("text/event-stream"):
            return response  # the SDK caps each event
        encoding = headers.get("content-encoding", "identity").lower()
        if encoding != "identity":
            await response.aclose()
            return _refused(request, f"a reply compressed with {encoding[:40]!r} was refused")
        declared = headers.get("content-length", "")
        body = bytearray()
        too_big = declared.isdigit() and int(declared) > self._limit
        if not too_big:
            stream: Any = response.stream
            async for chunk in stream:
                body += chunk
                if len(body) > self._limit:
                    too_big = True
                    break
        await response.aclose()
        if too_big:
            return _refused(request, f"a reply larger than {self._limit >> 20} MiB was refused")
        return httpx2.Response(
            response.status_code,
            headers=headers,
            content=bytes(body),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _refused(request: httpx2.Request, why: str) -> httpx2.Response:
    """The answer to `request` in place of a reply it cannot take: a JSON-RPC error for a
    request (so its caller learns why at once), 413 for anything else."""
    try:
        sent = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        sent = None
    if not isinstance(sent, dict) or "id" not in sent or "method" not in sent:
        return httpx2.Response(413, request=request)
    error = {"code": -32603, "message": why}
    return httpx2.Response(
        200, json={"jsonrpc": "2.0", "id": sent["id"], "error": error}, request=request
    )
