"""A project whose `.mcp.json` serves its own agents and whose stack uses `use: mcp` reaches
itself: the depth marker bounds the chain, and the run ends cleanly."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import uuid
from pathlib import Path
from subprocess import CompletedProcess

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from agentframe_core.testing import run_cli

AGENT = "---\nname: helper\ndescription: Helps.\n---\nYou help.\n"


def recursive_project(tmp_path: Path, tag: str, max_depth: int) -> Path:
    """The README's own example (`agentframe mcp serve` in `.mcp.json`) in a project whose
    stack uses `use: mcp` and whose model always delegates to `helper` first."""
    agents = tmp_path / ".agentframe" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(AGENT)
    serve = ["-m", "agentframe_core", "mcp", "serve", "--max-depth", str(max_depth)]
    # the SDK starts a server with a few variables of its caller's environment, not all: each
    # level trusts the project as the test's own process does (AGENTFRAME_TRUST_ALL)
    env = {"MCP_RECURSION_TAG": tag, "AGENTFRAME_TRUST_ALL": "1"}
    server = {"command": sys.executable, "args": serve, "env": env}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"self": server}}))
    delegate = {"tool_calls": [{"name": "mcp_self_helper", "arguments": {"task": "again"}}]}
    config = {
        "adapter": {"use": "scripted", "cycle": True, "replies": [delegate, "done"]},
        "store": {"use": "memory"},
        # each level starts an interpreter that imports the MCP SDK: on a loaded two-core machine
        # a level can take a minute, and a level's call waits for the levels below it
        "tools": [{"use": "mcp", "startup_timeout": 300, "call_timeout": 600}],
    }
    (tmp_path / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def tagged_serves(tag: str) -> set[int]:
    """The `mcp serve` processes of this test (their environment holds its tag)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        # `serve` as an argument: a folder name (a worktree `mcpserver`) holds it too
        if f"MCP_RECURSION_TAG={tag}".encode() in environ and b"\0serve\0" in cmdline:
            found.add(int(entry.name))
    return found


def test_an_agent_served_to_itself_stops_at_the_depth_bound(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    cwd = recursive_project(tmp_path, tag, max_depth=2)
    done: list[CompletedProcess[str]] = []
    runner = threading.Thread(
        target=lambda: done.append(run_cli(cwd, "run", "go", "--json", timeout=900)),
        daemon=True,
    )
    seen: set[int] = set()
    runner.start()
    try:
        while runner.is_alive() and len(seen) <= 6:
            seen |= tagged_serves(tag)
            time.sleep(0.05)
        runner.join(1)
        assert len(seen) <= 6, f"{len(seen)} mcp serve processes: the chain does not stop"
    finally:
        for pid in tagged_serves(tag):  # only this test's processes
            os.kill(pid, signal.SIGKILL)
    assert done, "the run did not end"
    (result,) = done
    assert result.returncode == 0, result.stderr
    assert len(seen) == 3, seen  # levels 1 and 2 run their agent; level 3 refuses
    reply = json.loads(result.stdout)
    assert reply["reply"] == "done" and reply["outcome"] == "completed"
    (call,) = reply["tool_calls"]
    assert call["name"] == "mcp_self_helper" and not call["is_error"], call
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("depth", "refused"), [("2", False), ("3", True)])
async def test_serve_refuses_a_call_past_max_depth_with_a_named_error(
    tmp_path: Path, depth: str, refused: bool
) -> None:
    cwd = recursive_project(tmp_path, uuid.uuid4().hex, max_depth=2)
    (cwd / "agentframe.yaml").write_text(
        yaml.safe_dump({"adapter": {"use": "scripted", "replies": ["hi"]}, "store": "memory"})
    )
    env = {k: v for k, v in os.environ.items() if k != "AGENTFRAME_CONFIG"}
    env |= {"AGENTFRAME_CACHE_DIR": str(cwd / "cache"), "AGENTFRAME_MCP_DEPTH": depth}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentframe_core", "mcp", "serve", "--max-depth", "2"],
        cwd=cwd,
        env=env,
    )
    with open(cwd / "stderr.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("helper", {"task": "hello"})
    assert isinstance(result, types.CallToolResult)
    (text,) = [c.text for c in result.content if isinstance(c, types.TextContent)]
    assert result.is_error is refused, text
    if refused:
        assert "a call nested 3 levels deep (past --max-depth 2) is refused" in text
    else:
        assert text == "hi"
