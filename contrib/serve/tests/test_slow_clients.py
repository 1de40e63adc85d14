"""Slow and numerous clients cannot hold a real `agentframe serve` (slowloris): headers and
bodies are bounded in time, connections in number. Raw sockets on 127.0.0.1 only, a
bounded number of them, each bounded in time."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

LIMITS = {"header_timeout_seconds": 1, "body_timeout_seconds": 1, "max_connections": 8}
#: How long a refused or timed-out connection may take to be closed on a loaded machine.
DEADLINE = 20.0


@contextlib.contextmanager
def connections(url: str, count: int) -> Iterator[list[socket.socket]]:
    """`count` sockets connected to the server at `url`, all closed on exit."""
    address = urlsplit(url)
    opened: list[socket.socket] = []
    try:
        for _ in range(count):
            opened.append(socket.create_connection((address.hostname, address.port), timeout=5))
        yield opened
    finally:
        for sock in opened:
            sock.close()


def answer(sock: socket.socket, deadline: float) -> bytes | None:
    """What the server sent before it closed the connection, or None if it still held it
    open at `deadline` (`time.monotonic()`)."""
    received = b""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(min(left, 1.0))
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk
    return None


def test_connections_beyond_the_cap_are_refused_and_idle_ones_closed(
    serve_process: Any,
) -> None:
    _, url = serve_process(["unused"], serve=LIMITS)
    with connections(url, 20) as opened:
        # a request line without its end: the first eight wait for their headers, the
        # twelve beyond the cap are answered 503 and closed at once
        for sock in opened:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        answers = [answer(sock, started + DEADLINE) for sock in opened]
    assert all(a is not None for a in answers), "a connection was held past the deadline"
    codes = [a.split(b" ", 2)[1] if a else b"reset" for a in answers if a is not None]
    assert codes.count(b"503") >= 12 and codes.count(b"408") >= 1, codes
    assert set(codes) <= {b"503", b"408"}, codes
    assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200  # served again


def test_a_client_trickling_its_headers_is_cut_off(serve_process: Any) -> None:
    _, url = serve_process(["unused"], serve=LIMITS)
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
    with connections(url, 1) as (sock,):
        started = time.monotonic()
        closed = None
        for byte in request:  # one byte, then up to 0.2 s of listening for the close
            sock.sendall(bytes([byte]))
            closed = answer(sock, time.monotonic() + 0.2)
            if closed is not None or time.monotonic() - started > DEADLINE:
                break
        took = time.monotonic() - started
    assert closed is not None and closed.startswith(b"HTTP/1.1 408"), closed
    assert took < DEADLINE


def test_a_body_that_does_not_arrive_is_answered_408(serve_process: Any) -> None:
    _, url = serve_process(["unused"], serve=LIMITS)
    with connections(url, 1) as (sock,):
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        got = answer(sock, time.monotonic() + DEADLINE)
    assert got is not None and got.startswith(b"HTTP/1.1 408"), got
    assert b"serve.body_timeout_seconds" in got
