"""An HTTP server whose reply is huge: refused past the cap, named, the other servers work."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agentframe_core.testing import run_cli

#: What the hostile server sends at most (so that the old code, which read it all, stays safe).
SENT = 100 * 1024 * 1024


class _Huge(http.server.BaseHTTPRequestHandler):
    """Answers every POST with a JSON body that never ends: declared 2 GB, or chunked."""

    declared = True

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.declared:
            self.send_header("Content-Length", str(2 << 30))
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b" " * (1 << 20)
        try:
            for _ in range(SENT >> 20):
                if self.declared:
                    self.wfile.write(chunk)
                else:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass  # the client stopped reading: what it should do

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(params=[True, False], ids=["content-length", "chunked"])
def huge_url(request: pytest.FixtureRequest) -> Iterator[str]:
    handler = type("Handler", (_Huge,), {"declared": request.param})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


def test_a_huge_http_reply_is_refused_at_the_cap(tmp_path: Path, huge_url: str) -> None:
    time_server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    servers = {"huge": {"type": "http", "url": huge_url}, "time": time_server}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = {"adapter": {"use": "scripted", "replies": ["ok"]}, "store": {"use": "memory"}}
    config["tools"] = [{"use": "mcp", "startup_timeout": 20}]
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    done = run_cli(tmp_path, "mcp", "list", "--json", timeout=120)
    assert done.returncode == 1, done.stderr
    rows = {r["server"]: r for r in json.loads(done.stdout)["servers"]}
    assert rows["huge"]["state"] == "failed"
    assert "a reply larger than 32 MiB was refused" in rows["huge"]["error"], rows["huge"]
    assert rows["time"]["state"] == "ready" and rows["time"]["tools"]
    assert "Traceback" not in done.stderr, done.stderr
