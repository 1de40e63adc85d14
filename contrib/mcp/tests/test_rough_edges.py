"""Issue 28's MCP rough edges, each as a user met it: relative paths of a server mean its
config file's folder; `mcp call` takes the name `mcp list` shows and respects allow_tools; a
`{"content": text}` structured result is not repeated; servers an agent cannot use are not
started; `config check` warns about a server that cannot start."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from agentframe_mcp import McpToolset
from agentframe_mcp.connection import State
from agentframe_mcp.content import to_tool_result
from mcp import types

from agentframe_core import AgentDefinition, MemoryStore, RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter, run_cli

HOSTILE = Path(__file__).parent / "servers" / "hostile.py"


def write_config(folder: Path, tools: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = {"adapter": {"use": "scripted", "replies": ["ok"]}, "store": "memory", "tools": tools}
    path = folder / "agentframe.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_servers_relative_args_and_cwd_mean_its_config_files_folder(tmp_path: Path) -> None:
    """Run from another folder: the inline server (agentframe.yaml) and the one of an mcp.json
    in a folder of its own both start."""
    stack = tmp_path / "stack"
    (stack / "servers").mkdir(parents=True)
    shutil.copy(HOSTILE, stack / "servers" / "hostile.py")
    (stack / "work").mkdir()
    (stack / "more" / "bin").mkdir(parents=True)
    shutil.copy(HOSTILE, stack / "more" / "bin" / "hostile.py")
    (stack / "more" / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "second": {
                        "command": sys.executable,
                        "args": ["./bin/hostile.py", "normal"],
                        "cwd": "bin",
                    }
                }
            }
        )
    )
    inline = {"command": sys.executable, "args": ["servers/hostile.py", "normal"], "cwd": "work"}
    config = write_config(
        stack,
        [{"use": "mcp", "project": False, "config": "more/mcp.json", "servers": {"first": inline}}],
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run_cli(elsewhere, "-c", str(config), "mcp", "list", "--json")
    rows = {row["server"]: row for row in json.loads(done.stdout)["servers"]}
    assert {name: row["state"] for name, row in rows.items()} == {
        "first": "ready",
        "second": "ready",
    }, done.stdout
    assert rows["first"]["args"] == [str((stack / "servers" / "hostile.py").resolve()), "normal"]
    assert done.returncode == 0


def test_mcp_call_and_doctor_take_the_listed_name_and_respect_allow_tools(tmp_path: Path) -> None:
    server = {"command": sys.executable, "args": [str(HOSTILE), "normal"]}
    config = write_config(
        tmp_path,
        [
            {
                "use": "mcp",
                "project": False,
                "servers": {"odd": server},
                "allow_tools": ["mcp_odd_shout"],
            }
        ],
    )
    listed = run_cli(
        tmp_path, "-c", str(config), "mcp", "call", "odd", "mcp_odd_shout", '{"text": "hi"}'
    )
    assert (listed.returncode, listed.stdout.strip()) == (0, "shouted"), listed.stderr
    left_out = run_cli(tmp_path, "-c", str(config), "mcp", "call", "odd", "sleep", "{}")
    assert left_out.returncode == 1
    assert "mcp_odd_sleep is left out by this config's allow_tools/deny_tools" in left_out.stdout
    doctor = run_cli(tmp_path, "-c", str(config), "doctor", "--quick", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["mcp server odd"]["detail"] == (
        "1 tool(s) offered to the model, of 5 (allow_tools/deny_tools)"
    )
    unknown = run_cli(tmp_path, "-c", str(config), "mcp", "call", "odd", "nothing", "{}")
    assert unknown.returncode == 1
    assert "has no tool 'nothing'; it offers: sleep, crash, grow, env, shout" in unknown.stdout


def test_a_structured_result_that_wraps_the_text_is_not_repeated() -> None:
    body = "line one\nline two"
    result = to_tool_result(
        types.CallToolResult(
            content=[types.TextContent(text=body)], structured_content={"content": body}
        )
    )
    assert result.content == body  # once: a file read costs its tokens once
    assert result.meta["structured_content"] == {"content": body}
    other = to_tool_result(
        types.CallToolResult(
            content=[types.TextContent(text=body)], structured_content={"lines": 2}
        )
    )
    assert other.content == body + '\n{"lines": 2}'


async def test_servers_an_agent_cannot_use_are_not_started(
    make_toolset: Callable[..., McpToolset], hostile: Callable[[str], dict[str, Any]]
) -> None:
    toolset = make_toolset({"used": hostile("normal"), "unused": hostile("normal")})
    agent = AgentDefinition(name="narrow", description="x", tools=["mcp_used_shout", "read"])
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    tools = await toolset.tools(RunContext("s", stack, agent))
    assert {t.name for t in tools} >= {"mcp_used_shout"}
    assert toolset.connections["used"].state is State.READY
    assert toolset.connections["unused"].state is State.IDLE
    everyone = await toolset.tools(RunContext("s", stack))  # an agent without `tools`: all
    assert toolset.connections["unused"].state is State.READY
    assert {t.name for t in everyone} >= {"mcp_used_shout", "mcp_unused_shout"}


def test_config_check_warns_about_a_server_that_cannot_start(tmp_path: Path) -> None:
    """The check lists the dispatchers' tools, which starts the servers: one that cannot start
    is a warning there (runs go on without it), as `doctor` fails it."""
    broken = {"command": str(tmp_path / "no-such-server")}
    config = write_config(tmp_path, [{"use": "mcp", "project": False, "servers": {"gone": broken}}])
    done = run_cli(tmp_path, "-c", str(config), "config", "check", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    (warning,) = report["warnings"]
    assert warning["message"].startswith("MCP server 'gone' could not be started")
