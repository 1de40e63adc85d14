"""`agentframe ui`: serve's options passed on, and the browser opened only once the server
answers (a unit test: the server and the browser are doubles here; test_browser.py drives
the real ones)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from click.testing import CliRunner


def test_ui_serves_with_the_options_and_no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentframe_ui.cli as ui

    served: list[tuple[Any, ...]] = []
    opened: list[str] = []
    monkeypatch.setattr(ui, "serve_stack", lambda app, *args: served.append(args))
    monkeypatch.setattr(ui.webbrowser, "open", opened.append)
    args = ["ui", "--no-browser", "--port", "9123", "--agent", "helper", "--kg", "mykg"]
    result = CliRunner().invoke(ui.ui, args[1:])
    assert result.exit_code == 0, result.output
    assert served == [("127.0.0.1", 9123, ("helper",), "mykg")]
    assert "http://127.0.0.1:9123/" in result.output and opened == []


def test_the_browser_opens_once_the_server_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentframe_ui.cli as ui

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/healthz" else 404)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    opened: list[str] = []
    monkeypatch.setattr(ui.webbrowser, "open", opened.append)
    with ThreadingHTTPServer(("127.0.0.1", 0), Health) as server:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        ui._open_when_up(url, wait=2)
        assert opened == []  # not answering yet: given up after the wait
        threading.Thread(target=server.serve_forever, daemon=True).start()
        ui._open_when_up(url, wait=10)
        server.shutdown()
    assert opened == [url]
