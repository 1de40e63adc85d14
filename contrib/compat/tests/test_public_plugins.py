"""Two public Claude Code plugins' hooks, unchanged (tests/files/claude-plugins-official):
hookify's `PreToolUse` hook blocks `rm -rf` by its own example rule, and
explanatory-output-style's `SessionStart` hook adds its context."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import agentframe_compat.plugin as compat
import pytest
from agentframe_claude_tools import ClaudeTools, ClaudeToolsOptions
from agentframe_compat.plugins import add_plugins

from agentframe_core import MemoryStore, PluginHost, Session, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

PLUGINS = Path(__file__).parent / "files" / "claude-plugins-official"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    shutil.copy(
        PLUGINS / "hookify" / "examples" / "dangerous-rm.local.md",
        root / ".claude" / "hookify.dangerous-rm.local.md",
    )
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("hookify", "explanatory-output-style"):  # as `agentframe cc-plugins add`
        add_plugins(PLUGINS / name)
    return root


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


async def test_public_plugin_hooks_block_and_add_context(project: Path) -> None:
    host = PluginHost()
    host.add("compat", compat)
    tools = ClaudeTools(ClaudeToolsOptions(root=project, allow=["Bash"]))
    (project / "build").mkdir()
    replies = [bash("rm -rf build"), bash("echo kept"), "done"]
    stack = Stack(ScriptedAdapter(replies), MemoryStore(), VerbatimBuilder(), tools=[tools])
    stack.hooks = host.pm.hook
    result = await Session(stack).run("clean up")
    blocked, allowed = (record.result.content for record in result.tool_calls)
    assert blocked.startswith("tool call refused: denied by PreToolUse hook 'python3")
    assert "hookify/hooks/hooks.json, hooks.PreToolUse[0].hooks[0]" in blocked
    assert (project / "build").is_dir()
    assert allowed.strip() == "kept"
    first = "\n".join(m.content for m in stack.adapter.requests[0].messages)
    assert "You are in 'explanatory' output style mode" in first
