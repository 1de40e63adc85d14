"""WebFetch against a real HTTP server on 127.0.0.1: HTML as text, the size cap (the rest is
never downloaded), the time limit, redirects, and every scheme but http(s) refused."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentframe_core import ToolCall

PAGE = (
    b"<!doctype html><html><head><title>t</title><style>p{}</style></head><body>"
    b"<h1>Release notes</h1><script>var secret = 1;</script><p>Version 4.2 &amp; more</p>"
    b"</body></html>"
)


class _Handler(BaseHTTPRequestHandler):
    sent: dict[str, int] = {}

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/page":
            self._reply(200, "text/html; charset=utf-8", PAGE)
        elif self.path == "/huge":  # 64 MiB, in pieces, counting what got out
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            sent = 0
            try:
                for _ in range(1024):
                    self.wfile.write(b"z" * (64 << 10))
                    sent += 64 << 10
            except (BrokenPipeError, ConnectionResetError):
                pass
            _Handler.sent["huge"] = sent
        elif self.path == "/slow":
            time.sleep(5)
            self._reply(200, "text/plain", b"late")
        elif self.path == "/to-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
        elif self.path == "/to-page":
            self.send_response(301)
            self.send_header("Location", "/page")
            self.end_headers()
        elif self.path == "/to-other-host":  # the same machine, by another name
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{self.server.server_address[1]}/page")
            self.end_headers()
        elif self.path == "/loop":
            self.send_response(307)
            self.send_header("Location", "/loop")
            self.end_headers()
        elif self.path == "/image":
            self._reply(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
        else:
            self._reply(404, "text/plain", b"no such page")

    def _reply(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
            self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


async def test_a_page_becomes_its_text(call: Any, server: str) -> None:
    result = await call("WebFetch", url=f"{server}/page", prompt="Which version?")
    assert not result.is_error, result.content
    assert "Release notes\nVersion 4.2 & more" in result.content
    assert "secret" not in result.content and "p{}" not in result.content
    assert "Prompt: Which version?" in result.content
    redirected = await call("WebFetch", url=f"{server}/to-page", prompt="x")
    assert f"URL: {server}/page" in redirected.content


async def test_the_body_is_cut_at_the_size_cap_and_not_downloaded(
    project: Path, ctx: Any, server: str
) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    tools = ClaudeTools(ClaudeToolsOptions(root=project, webfetch_max_bytes=100_000))
    call = ToolCall("1", "WebFetch", {"url": f"{server}/huge", "prompt": "x"})
    result = await tools.dispatch(call, ctx)
    assert not result.is_error
    assert "the body was cut at 100000 bytes" in result.content
    for _ in range(50):
        if "huge" in _Handler.sent:
            break
        time.sleep(0.1)
    assert _Handler.sent["huge"] < 32 << 20, _Handler.sent  # the server could not send it all


async def test_a_slow_server_times_out(project: Path, ctx: Any, server: str) -> None:
    from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions

    tools = ClaudeTools(ClaudeToolsOptions(root=project, webfetch_timeout=0.5))
    started = time.monotonic()
    result = await tools.dispatch(
        ToolCall("1", "WebFetch", {"url": f"{server}/slow", "prompt": "x"}), ctx
    )
    assert result.is_error and "timed out" in result.content
    assert time.monotonic() - started < 4


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "gopher://127.0.0.1/",
        "data:text/plain,hi",
        "/etc/passwd",
        "javascript:alert(1)",
    ],
)
async def test_other_schemes_are_refused(call: Any, url: str) -> None:
    result = await call("WebFetch", url=url, prompt="x")
    assert result.is_error and "only http and https" in result.content
    assert "root:" not in result.content


async def test_a_redirect_to_another_scheme_is_refused(call: Any, server: str) -> None:
    result = await call("WebFetch", url=f"{server}/to-file", prompt="x")
    assert result.is_error and "root:" not in result.content


async def test_errors_and_binary_bodies(call: Any, server: str) -> None:
    missing = await call("WebFetch", url=f"{server}/nope", prompt="x")
    assert missing.is_error and "Status: 404" in missing.content
    image = await call("WebFetch", url=f"{server}/image", prompt="x")
    assert not image.is_error and "binary content, not shown" in image.content
    refused = await call("WebFetch", url="http://user:hunter2@127.0.0.1:9/", prompt="x")
    assert refused.is_error and "hunter2" not in refused.content


async def test_a_redirect_to_another_host_is_returned_not_followed(call: Any, server: str) -> None:
    """The next call names the new host and passes the tool gate; following it here would
    take the fetch past a rule that denies that host."""
    result = await call("WebFetch", url=f"{server}/to-other-host", prompt="Which version?")
    assert not result.is_error, result.content
    port = server.rsplit(":", 1)[1]
    assert result.content.startswith("REDIRECT DETECTED: The URL redirects to a different host.")
    assert f"Redirect URL: http://localhost:{port}/page" in result.content
    assert "Status: 302" in result.content and "Release notes" not in result.content


async def test_a_redirect_loop_stops(call: Any, server: str) -> None:
    result = await call("WebFetch", url=f"{server}/loop", prompt="x")
    assert result.is_error and "more than 5 redirects" in result.content
