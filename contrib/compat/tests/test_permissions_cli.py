"""The permission rules through `agentframe run`, as a user meets them (issue 38): a scripted
model calls claude-tools' real tools in a project whose `.claude/settings.json` (or agent
file) holds the rules, and nothing a rule does not allow happens on disk."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli


@pytest.fixture(autouse=True)
def _trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """These projects are the user's own: the workspace trust step is not what is tested."""
    monkeypatch.setenv("AGENTFRAME_TRUST_ALL", "1")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _project(root: Path, permissions: dict[str, Any] | None, replies: list[Any]) -> Path:
    """A project whose settings hold `permissions` (None: no settings file)."""
    (root / ".claude").mkdir(parents=True)
    (root / ".git").mkdir()
    if permissions is not None:
        settings = json.dumps({"permissions": permissions})
        (root / ".claude" / "settings.json").write_text(settings)
    config = {
        "adapter": {"use": "scripted", "replies": [*replies, {"content": "done"}]},
        "store": {"use": "memory"},
        "context": {"use": "verbatim"},
        "tools": [{"use": "claude-tools", "root": "."}],
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def _run(cwd: Path, *args: str) -> list[dict[str, Any]]:
    done = run_cli(cwd, "run", "--json", *args, "go")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    calls: list[dict[str, Any]] = json.loads(done.stdout)["tool_calls"]
    return calls


BYPASSES = [
    "echo safe & touch pwned-bg",
    "echo safe `touch pwned-tick`",
    "echo safe $(touch pwned-sub)",
    "echo safe <(touch pwned-proc)",
    "echo safe > pwned-redirect",
    "echo safe; (touch pwned-subshell)",
    "X=$(touch pwned-assign) echo safe",
]


def test_an_allow_rule_allows_only_commands_it_covers(tmp_path: Path) -> None:
    replies = [_call("Bash", command="echo safe")] + [_call("Bash", command=c) for c in BYPASSES]
    cwd = _project(tmp_path / "p", {"allow": ["Bash(echo safe:*)"]}, replies)
    ran, *refused = _run(cwd)
    assert not ran["is_error"] and ran["result"].strip() == "safe"
    for call in refused:
        assert call["is_error"] and "no one can answer" in call["result"], call
    assert not list(cwd.glob("pwned*"))


def test_a_deny_rule_matches_every_command_the_line_runs(tmp_path: Path) -> None:
    lines = [
        "true & rm -f victim1",
        "echo $(rm -f victim2)",
        "echo `rm -f victim3`",
        "/bin/rm -f victim4",
        "timeout 5 rm -f victim5",
        "sh -c 'true; rm -f victim6'",
    ]
    cwd = _project(
        tmp_path / "p",
        {"allow": ["Bash"], "deny": ["Bash(rm:*)"]},
        [_call("Bash", command=line) for line in lines]
        + [_call("Bash", command="eval rm -f victim7")],
    )
    for n in range(1, 8):
        (cwd / f"victim{n}").write_text("keep me")
    *denied, unsure = _run(cwd)
    for call in denied:
        assert call["is_error"] and "rule 'Bash(rm:*)'" in call["result"], call
    assert unsure["is_error"] and "cannot be checked" in unsure["result"]
    assert sorted(p.name for p in cwd.glob("victim*")) == [f"victim{n}" for n in range(1, 8)]


def test_an_agent_files_bash_entry_is_read_the_same_way(tmp_path: Path) -> None:
    replies = [_call("Bash", command="echo safe")] + [_call("Bash", command=c) for c in BYPASSES]
    cwd = _project(tmp_path / "p", None, [*replies, _call("Bash", command="eval echo safe")])
    (cwd / ".claude" / "agents").mkdir()
    (cwd / ".claude" / "agents" / "safe.md").write_text(
        "---\nname: safe\ndescription: Echoes.\ntools: Bash(echo safe:*)\n---\nEcho.\n"
    )
    ran, *refused = _run(cwd, "--agent", "safe")
    assert not ran["is_error"] and ran["result"].strip() == "safe"
    for call in refused:
        assert call["is_error"] and "agent 'safe'" in call["result"], call
    assert "cannot check this command" in refused[-1]["result"]
    assert not list(cwd.glob("pwned*"))


def test_a_read_deny_rule_hides_files_from_grep_glob_and_ls(tmp_path: Path) -> None:
    """The gate matches only the folder a call names: a search of the whole project found
    `.env` and printed the key. Each file a walk finds is tried against the Read deny rules."""
    replies = [
        _call("Grep", pattern="KEY=", output_mode="content"),
        _call("Grep", pattern="KEY=", glob=".env", output_mode="content"),
        _call("Grep", pattern="KEY=", path="sub", output_mode="content"),
        _call("Glob", pattern="**/*"),
        _call("LS"),
        _call("Grep", pattern="KEY=", path="secrets/", output_mode="content"),
        _call("LS", path="secrets"),
    ]
    cwd = _project(tmp_path / "p", {"deny": ["Read(.env)", "Read(secrets/**)"]}, replies)
    (cwd / ".env").write_text("API_KEY=sk-top-secret-1\n")
    (cwd / "sub").mkdir()
    (cwd / "sub" / ".env").write_text("API_KEY=sk-top-secret-2\n")
    (cwd / "sub" / "settings.py").write_text("API_KEY=os.environ['API_KEY']\n")
    (cwd / "secrets").mkdir()
    (cwd / "secrets" / "prod.txt").write_text("DB_KEY=sk-top-secret-3\n")
    grep_all, grep_env, grep_sub, glob, ls, grep_secrets, ls_secrets = _run(cwd)
    shown = json.dumps([grep_all, grep_env, grep_sub, glob, ls, grep_secrets, ls_secrets])
    assert "sk-top-secret" not in shown
    assert "sub/settings.py:1:API_KEY=os.environ" in grep_all["result"]
    assert "hidden by a permission rule" in grep_all["result"]
    assert grep_env["result"].startswith("No matches found")
    assert grep_sub["result"].startswith("settings.py:1:") or "settings.py" in grep_sub["result"]
    assert "sub/settings.py" in glob["result"] and "prod.txt" not in glob["result"]
    assert ".env" not in glob["result"] and "secrets" not in ls["result"].split("(")[0]
    assert grep_secrets["is_error"] and "denied" in grep_secrets["result"]
    assert ls_secrets["is_error"] and "denied" in ls_secrets["result"]


class _Pages(BaseHTTPRequestHandler):
    """/page (counted), and /to-ip: a redirect from the name to the denied address."""

    hits: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        if self.path == "/to-ip":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{port}/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        _Pages.hits.append(self.headers.get("Host", ""))
        body = b"Release notes: version 4.2"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    _Pages.hits = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def test_webfetch_asks_with_no_rule_and_is_refused_in_dont_ask(tmp_path: Path, port: int) -> None:
    fetch = _call("WebFetch", url=f"http://127.0.0.1:{port}/page", prompt="version?")
    asked = _project(tmp_path / "asks", {"deny": ["Bash(rm:*)"]}, [fetch])
    (call,) = _run(asked)
    assert call["is_error"] and "no rule allows WebFetch" in call["result"]
    assert "no one can answer" in call["result"]
    refused = _project(tmp_path / "refuses", {"defaultMode": "dontAsk"}, [fetch])
    (call,) = _run(refused)
    assert call["is_error"] and "dontAsk mode" in call["result"]
    assert _Pages.hits == []


def test_a_denied_host_is_denied_in_every_spelling_and_after_a_redirect(
    tmp_path: Path, port: int
) -> None:
    spellings = ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::ffff:127.0.0.1]"]
    replies = [
        *(_call("WebFetch", url=f"http://{host}:{port}/page", prompt="v?") for host in spellings),
        _call("WebFetch", url=f"http://127.0.0.1.:{port}/page", prompt="v?"),
        _call("WebFetch", url=f"http://localhost:{port}/to-ip", prompt="v?"),
        _call("WebFetch", url=f"http://127.0.0.1:{port}/page", prompt="v?"),  # as told
        _call("WebFetch", url=f"http://localhost:{port}/page", prompt="v?"),
    ]
    rules = {"allow": ["WebFetch(domain:localhost)"], "deny": ["WebFetch(domain:127.0.0.1)"]}
    *denied, redirect, followed, allowed = _run(_project(tmp_path / "p", rules, replies))
    for call in [*denied, followed]:
        assert call["is_error"] and "rule 'WebFetch(domain:127.0.0.1)'" in call["result"], call
    assert not redirect["is_error"] and "REDIRECT DETECTED" in redirect["result"]
    assert f"Redirect URL: http://127.0.0.1:{port}/page" in redirect["result"]
    assert not allowed["is_error"] and "Release notes" in allowed["result"]
    assert _Pages.hits == [f"localhost:{port}"]  # only the allowed name reached the page
