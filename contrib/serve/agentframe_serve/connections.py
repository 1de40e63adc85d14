"""Slow and numerous clients cannot hold the server (slowloris): uvicorn bounds neither how
long a client may take to send a request's headers (one byte every few seconds held a
connection for ever) nor how many connections are open. Here each request has
`serve.header_timeout_seconds` from its first byte (a new connection: from opening) to its
last header, and at most `serve.max_connections` are open at once (one more is answered 503
and closed as it opens). The body's bound is the gate's (`serve.body_timeout_seconds`)."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import ServeSettings

__all__ = ["guarded_protocol"]

_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
    b"content-length: 37\r\nconnection: close\r\n\r\ntoo many connections: try again later\n"
)
_TOO_SLOW = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\n"
    b"content-length: 34\r\nconnection: close\r\n\r\nthe request headers came too slow\n"
)


def guarded_protocol(settings: ServeSettings) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with the header timeout and the connection cap of
    `settings` (for `uvicorn.Config(http=...)`)."""
    header_timeout = settings.header_timeout_seconds
    max_connections = settings.max_connections

    class GuardedH11Protocol(H11Protocol):
        _headers_due: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self._refuse(_TOO_MANY)
            else:
                self._expect_headers()

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:
                self._expect_headers()  # a request begins (or goes on arriving)
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._headers_came()

        def connection_lost(self, exc: Exception | None) -> None:
            self._headers_came()
            super().connection_lost(exc)

        def _expect_headers(self) -> None:
            if self._headers_due is None:
                self._headers_due = self.loop.call_later(header_timeout, self._too_slow)

        def _headers_came(self) -> None:
            if self._headers_due is not None:
                self._headers_due.cancel()
                self._headers_due = None

        def _too_slow(self) -> None:
            self._headers_due = None
            if self.conn.their_state is h11.IDLE:
                self._refuse(_TOO_SLOW)

        def _refuse(self, answer: bytes) -> None:
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()

    return GuardedH11Protocol
