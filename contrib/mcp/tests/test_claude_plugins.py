"""An installed Claude Code plugin's MCP servers become `use: mcp` servers named
PLUGIN:SERVER (both .mcp.json forms, `${CLAUDE_PLUGIN_ROOT}` standing for its folder)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from agentframe_core.testing import run_cli

ASKING = Path(__file__).parent / "servers" / "asking.py"


def plugin(root: Path, name: str, mcp: dict[str, Any]) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    shutil.copy(ASKING, root / "asking.py")
    (root / ".mcp.json").write_text(json.dumps(mcp))
    return root


def test_installed_plugins_servers_are_listed(tmp_path: Path) -> None:
    entry = {"command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/asking.py"]}
    flat = plugin(tmp_path / "p1", "greeter", {"ask": entry})
    wrapped = plugin(tmp_path / "p2", "other", {"mcpServers": {"ask": entry}})
    broken = tmp_path / "p3"
    plugin(broken, "broken", {"ask": "not a server"})
    project = tmp_path / "project"
    project.mkdir()
    config = {"adapter": {"use": "scripted", "replies": ["ok"]}, "tools": [{"use": "mcp"}]}
    (project / "agentframe.yaml").write_text(yaml.safe_dump(config))
    for folder in (flat, wrapped, broken):
        added = run_cli(project, "cc-plugins", "add", str(folder))
        assert added.returncode == 0, added.stderr
    done = run_cli(project, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["server"]: row for row in json.loads(done.stdout)["servers"]}
    assert set(rows) == {"greeter:ask", "other:ask"}
    assert all(row["state"] == "ready" for row in rows.values())
    assert "Claude Code plugin broken: its MCP servers are left out" in done.stderr

    (project / "agentframe.yaml").write_text(
        yaml.safe_dump({**config, "tools": [{"use": "mcp", "claude_plugins": False}]})
    )
    off = run_cli(project, "mcp", "list", "--json")
    assert json.loads(off.stdout)["servers"] == []


def test_a_plugin_that_cannot_be_read_leaves_out_only_its_own_servers(tmp_path: Path) -> None:
    """agentframe-compat lists the plugins (the `agentframe_plugin_mcp_servers` hook): one
    whose plugin.json turned unreadable after it was added is named and left out, the
    others' servers start."""
    entry = {"command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/asking.py"]}
    good = plugin(tmp_path / "p1", "greeter", {"ask": entry})
    spoiled = plugin(tmp_path / "p2", "spoiled", {"ask": entry})
    project = tmp_path / "project"
    project.mkdir()
    config = {"adapter": {"use": "scripted", "replies": ["ok"]}, "tools": [{"use": "mcp"}]}
    (project / "agentframe.yaml").write_text(yaml.safe_dump(config))
    for folder in (good, spoiled):
        added = run_cli(project, "cc-plugins", "add", str(folder))
        assert added.returncode == 0, added.stderr
    (spoiled / ".claude-plugin" / "plugin.json").write_text("{not json")
    done = run_cli(project, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    assert [row["server"] for row in json.loads(done.stdout)["servers"]] == ["greeter:ask"]
    assert "Claude Code plugin spoiled: its MCP servers are left out" in done.stderr
    assert "Traceback" not in done.stderr
