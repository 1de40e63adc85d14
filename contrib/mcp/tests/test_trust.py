"""A project's `.mcp.json` servers start only in a trusted folder and once approved by name
(Claude Code's `enableAllProjectMcpServers`, `enabledMcpjsonServers`,
`disabledMcpjsonServers`); the commands that only look never start them; a config from
elsewhere leaves the working folder's `.mcp.json` alone unless it says `project: true`."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentframe_core.testing import run_cli


def marker_server(marker: Path) -> dict[str, Any]:
    """A server whose start leaves `marker` behind: proof that its command ran."""
    return {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Someone else's repository: a `.mcp.json` whose server leaves a mark, the real time
    server, and a stack with `use: mcp`."""
    monkeypatch.delenv("AGENTFRAME_TRUST_ALL")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    root = tmp_path / "clone"
    (root / ".git").mkdir(parents=True)
    time = {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
    servers = {"mark": marker_server(root / "started"), "time": time}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = {"adapter": {"use": "scripted", "replies": ["done"]}, "tools": [{"use": "mcp"}]}
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def test_inspection_commands_never_start_an_untrusted_folders_servers(clone: Path) -> None:
    for args in (
        ["doctor"],
        ["commands", "list"],
        ["agents", "list"],
        ["config", "show"],
        ["config", "check"],
    ):
        done = run_cli(clone, *args)
        assert "Traceback" not in done.stderr, (args, done.stderr)
    listed = run_cli(clone, "mcp", "list", "--json")
    assert json.loads(listed.stdout)["servers"] == []
    (note,) = json.loads(listed.stdout)["not_started"]
    assert note.startswith("untrusted: 2 MCP server(s)") and f"agentframe trust {clone}" in note
    assert "untrusted: 2 MCP server(s)" in run_cli(clone, "mcp", "list").stderr
    assert not (clone / "started").exists()


def test_a_run_in_an_untrusted_folder_is_refused_naming_agentframe_trust(clone: Path) -> None:
    done = run_cli(clone, "run", "hi")
    assert done.returncode != 0 and f"agentframe trust {clone}" in done.stderr
    assert "MCP server mark" in done.stderr and "Traceback" not in done.stderr
    assert not (clone / "started").exists()


def test_a_trusted_folders_servers_start_once_approved_by_name(clone: Path) -> None:
    assert run_cli(clone, "trust").returncode == 0
    unapproved = json.loads(run_cli(clone, "mcp", "list", "--json").stdout)
    assert unapproved["servers"] == [] and "enabledMcpjsonServers" in unapproved["not_started"][0]
    assert not (clone / "started").exists()
    local = clone / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"enabledMcpjsonServers": ["time"]}))
    listed = json.loads(run_cli(clone, "mcp", "list", "--json").stdout)
    assert [row["server"] for row in listed["servers"]] == ["time"]
    assert listed["servers"][0]["tools"] and "mark" in listed["not_started"][0]
    assert not (clone / "started").exists()
    # all approved, but a disabled server stays off whatever else says
    everything = {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["time"]}
    local.write_text(json.dumps(everything))
    listed = json.loads(run_cli(clone, "mcp", "list", "--json").stdout)
    assert [row["server"] for row in listed["servers"]] == ["mark"]
    assert (clone / "started").exists()


def test_a_config_from_elsewhere_reads_the_folders_mcp_json_only_when_asked(
    clone: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "mine" / "agentframe.yaml"
    mine.parent.mkdir()
    config = {"adapter": {"use": "scripted", "replies": ["done"]}, "tools": [{"use": "mcp"}]}
    mine.write_text(yaml.safe_dump(config))
    done = run_cli(clone, "--config", str(mine), "run", "hi")
    assert done.returncode == 0, done.stderr  # nothing of the clone would run: nothing asked
    listed = json.loads(run_cli(clone, "--config", str(mine), "mcp", "list", "--json").stdout)
    assert listed == {"servers": [], "not_started": []}
    config["tools"] = [{"use": "mcp", "project": True}]
    mine.write_text(yaml.safe_dump(config))
    asked = run_cli(clone, "--config", str(mine), "run", "hi")
    assert asked.returncode != 0 and "not a trusted folder" in asked.stderr
    assert not (clone / "started").exists()


def _answer_on_a_pty(cwd: Path, answer: bytes, *args: str) -> tuple[int, str]:
    """`agentframe ARGS` with a pty as its terminal (as `run_cli` isolates it); `answer`
    typed at the first `[y/N]`."""
    env = {**os.environ, "XDG_DATA_HOME": str(cwd / "data"), "NO_COLOR": "1"}
    env["AGENTFRAME_CACHE_DIR"] = str(cwd / "cache")
    env.pop("AGENTFRAME_CONFIG", None)
    main, sub = pty.openpty()
    command = [sys.executable, "-m", "agentframe_core", *args]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=sub, stdout=sub, stderr=sub)
    os.close(sub)
    seen, answered = b"", False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"[y/N]" in seen:
                os.write(main, answer)
                answered = True
        elif process.poll() is not None:
            break
    os.close(main)
    return process.wait(timeout=30), seen.decode(errors="replace")


def test_a_terminal_is_asked_to_approve_the_servers_and_the_answer_kept(clone: Path) -> None:
    assert run_cli(clone, "trust").returncode == 0
    code, screen = _answer_on_a_pty(clone, b"n\n", "run", "hi")
    assert code == 0, screen
    assert "mark: " in screen and "time: " in screen and not (clone / "started").exists()
    local = clone / ".claude" / "settings.local.json"
    assert json.loads(local.read_text()) == {"disabledMcpjsonServers": ["mark", "time"]}
    local.unlink()
    code, screen = _answer_on_a_pty(clone, b"y\n", "run", "hi")
    assert code == 0, screen
    assert json.loads(local.read_text()) == {"enabledMcpjsonServers": ["mark", "time"]}
    assert (clone / "started").exists()  # approved: started for the run
