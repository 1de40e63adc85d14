"""OAuth against a real protected server (`servers/oauth_server.py`: the SDK's MCPServer and
authorization server routes), through the CLI as a user meets it: a run with no token says
to log in; `mcp login` runs the browser step on a loopback port (the browser being
`servers/browser.py`); tokens are kept 0600 and never shown; an expired token is refreshed;
a revoked one asks for a login again; `mcp logout` forgets them."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentframe_mcp.auth import TokenStore
from mcp.shared.auth import OAuthToken
from serving import listening

from agentframe_core.testing import eventually, run_cli

SERVERS = Path(__file__).parent / "servers"
TTL = 600  # seconds an access token lives (the test makes the client see it expired)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def oauth_url() -> Iterator[str]:
    port = _port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "oauth_server.py"), str(port), str(TTL)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        eventually(lambda: listening(port), 30, what="the OAuth server to listen")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(5)


def project(tmp_path: Path, url: str) -> Path:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"oauth": {"type": "http", "url": url}}})
    )
    (tmp_path / "agentframe.yaml").write_text(
        json.dumps({"adapter": {"use": "scripted", "replies": ["ok"]}, "tools": [{"use": "mcp"}]})
    )
    return tmp_path


def tokens(cwd: Path) -> tuple[Path, dict[str, Any]]:
    path = cwd / "data" / "agentframe" / "mcp" / "tokens" / "oauth.json"
    return path, json.loads(path.read_text())


def test_login_refresh_revocation_and_logout(
    tmp_path: Path, oauth_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER", f"{sys.executable} {SERVERS / 'browser.py'} %s")
    cwd = project(tmp_path, oauth_url)

    before = run_cli(cwd, "mcp", "call", "oauth", "whoami")
    assert before.returncode == 1
    assert "needs a login: run `agentframe mcp login oauth`" in before.stdout, before.stdout
    assert "Traceback" not in before.stdout + before.stderr

    login = run_cli(cwd, "mcp", "login", "oauth", "--timeout", "30")
    assert login.returncode == 0, login.stderr
    assert "logged in to oauth (2 tools)" in login.stdout
    assert "/authorize?" in login.stderr  # the URL, for when no browser opens
    path, stored = tokens(cwd)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stored["url"] == oauth_url
    first = stored["tokens"]["access_token"]
    assert first not in login.stdout + login.stderr

    called = run_cli(cwd, "mcp", "call", "oauth", "whoami")
    assert called.returncode == 0, called.stdout + called.stderr
    assert json.loads(called.stdout)["scopes"] == ["read"]
    assert first not in called.stdout + called.stderr

    # Expired, as the client knows it: refreshed before it is sent, without a person.
    path.write_text(json.dumps({**tokens(cwd)[1], "expires_at": time.time() - 1}))
    again = run_cli(cwd, "mcp", "call", "oauth", "whoami")
    assert again.returncode == 0, again.stdout + again.stderr
    assert tokens(cwd)[1]["tokens"]["access_token"] != first

    assert run_cli(cwd, "mcp", "call", "oauth", "revoke_all").returncode == 0
    revoked = run_cli(cwd, "mcp", "call", "oauth", "whoami")
    assert revoked.returncode == 1
    assert "needs a login (its token was refused): run `agentframe mcp login oauth`" in (
        revoked.stdout
    )

    out = run_cli(cwd, "mcp", "logout", "oauth")
    assert out.returncode == 0 and "logged out of oauth" in out.stdout
    assert not path.exists()


async def test_tokens_issued_for_another_url_are_not_sent(tmp_path: Path) -> None:
    """A server renamed onto another URL must not get the first one's tokens."""
    first = TokenStore("oauth", "http://127.0.0.1:1/mcp")
    first.path = tmp_path / "oauth.json"
    await first.set_tokens(OAuthToken(access_token="abc", refresh_token="r"))
    other = TokenStore("oauth", "http://127.0.0.1:2/mcp")
    other.path = first.path
    assert await other.get_tokens() is None
    assert await first.get_tokens() == OAuthToken(access_token="abc", refresh_token="r")
