"""Servers that hang, crash, ignore shutdown or change their tools: the agent never hangs."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentframe_mcp import McpToolset
from agentframe_mcp.connection import State

from agentframe_core import (
    MemoryStore,
    RunContext,
    Stack,
    ToolCall,
    VerbatimBuilder,
    pid_alive,
)
from agentframe_core.testing import ScriptedAdapter, eventually_async

Make = Callable[..., McpToolset]
Hostile = Callable[[str], dict[str, Any]]
HOSTILE = str(Path(__file__).parent / "servers" / "hostile.py")


async def test_a_server_that_never_answers_initialize_is_left_out_in_bounded_time(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({"mute": hostile("mute"), "ok": hostile("normal")}, startup_timeout=1.0)
    started = time.monotonic()
    names = {t.name for t in await toolset.tools(ctx)}
    took = time.monotonic() - started
    assert names == {f"mcp_ok_{n}" for n in ("sleep", "crash", "grow", "env", "shout")}
    mute = toolset.connections["mute"]
    assert mute.state is State.FAILED
    assert mute.error == "MCP server 'mute' did not answer initialize within 1 s"
    assert took < 1.0 + 1.5 + 0.5, took  # the timeout, the kill, slack
    assert mute.process is not None
    pid = mute.process.process.pid
    await eventually_async(lambda: not pid_alive(pid), 0.5, what="the mute server to die")
    # a call to it is an error result, not a hang
    result = await mute.call("sleep", {})
    assert result.is_error and "initialize" in result.content, result.content


async def test_a_server_killed_during_a_call_gives_an_error_within_a_second_then_restarts(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({"h": hostile("normal")})
    await toolset.tools(ctx)
    connection = toolset.connections["h"]
    assert connection.process is not None
    first_pid = connection.process.process.pid
    call = asyncio.create_task(toolset.dispatch(ToolCall("1", "mcp_h_sleep", {"seconds": 30}), ctx))
    await asyncio.sleep(0.3)
    os.kill(first_pid, 9)
    killed = time.monotonic()
    result = await asyncio.wait_for(call, 5)
    assert time.monotonic() - killed < 1.0
    assert result.is_error and "died during the call to sleep" in result.content, result.content
    assert "exit code -9" in result.content
    assert connection.state is State.DEAD
    # the next call restarts it (after the backoff delay) and works
    started = time.monotonic()
    again = await toolset.dispatch(ToolCall("2", "mcp_h_sleep", {"seconds": 0}), ctx)
    assert (again.content, again.is_error) == ("slept", False)
    assert time.monotonic() - started >= toolset.options.restart.delay(1) - 0.35
    assert connection.process.process.pid != first_pid and connection.state is State.READY


async def test_a_server_that_crashes_mid_call_says_how_and_keeps_its_stderr_out_of_the_terminal(
    make_toolset: Make,
    hostile: Hostile,
    ctx: RunContext,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.INFO, logger="agentframe.mcp")
    toolset = make_toolset({"h": hostile("normal")})
    await toolset.tools(ctx)
    shout = await toolset.dispatch(ToolCall("0", "mcp_h_shout", {"text": "hello on stderr"}), ctx)
    assert shout.content == "shouted"
    result = await toolset.dispatch(ToolCall("1", "mcp_h_crash", {"code": 7}), ctx)
    assert result.is_error and "exit code 7" in result.content, result.content
    assert "about to crash" in result.content  # the last stderr line tells why
    logged = [r.getMessage() for r in caplog.records if r.name == "agentframe.mcp.h"]
    assert "hello on stderr" in logged and "about to crash" in logged
    assert "hello on stderr" not in capfd.readouterr().err


async def test_a_server_that_ignores_shutdown_is_killed_with_its_children_within_2_s(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({"stubborn": hostile("stubborn")})
    await toolset.tools(ctx)
    connection = toolset.connections["stubborn"]
    assert connection.process is not None
    await asyncio.sleep(0.2)  # let it print its pids
    line = next(t for t in connection.process.stderr_tail if t.startswith("pids"))
    parent, child = map(int, re.findall(r"\d+", line))
    assert os.getpgid(parent) == parent == os.getpgid(child)  # its own group, child included
    stack = Stack(
        adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder(), tools=[toolset]
    )
    started = time.monotonic()
    await stack.aclose()
    assert time.monotonic() - started <= 2.0
    await eventually_async(
        lambda: not pid_alive(parent) and not pid_alive(child), 0.5, what="both to die"
    )


async def test_several_hanging_servers_close_together_in_2_s(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({f"s{i}": hostile("stubborn") for i in range(3)})
    assert len(await toolset.tools(ctx)) == 15
    started = time.monotonic()
    await toolset.aclose()
    assert time.monotonic() - started <= 2.0


async def test_list_changed_refreshes_the_tool_list(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({"h": hostile("normal")})
    before = {t.name for t in await toolset.tools(ctx)}
    grown = await toolset.dispatch(ToolCall("1", "mcp_h_grow", {}), ctx)
    assert grown.content == "grown"
    for _ in range(50):  # the notification may land just after the result
        if toolset.connections["h"].stale:
            break
        await asyncio.sleep(0.02)
    after = {t.name for t in await toolset.tools(ctx)}
    assert after - before == {"mcp_h_extra5"}
    added = await toolset.dispatch(ToolCall("2", "mcp_h_extra5", {}), ctx)
    assert added.content == "called extra5"


async def test_servers_start_concurrently(
    make_toolset: Make, hostile: Hostile, ctx: RunContext
) -> None:
    toolset = make_toolset({name: hostile("slow") for name in "abcd"})  # 1.5 s each to start
    started = time.monotonic()
    assert len(await toolset.tools(ctx)) == 20
    assert time.monotonic() - started < 4.5  # one after the other: at least 6 s


async def test_a_server_that_cannot_start_is_retried_with_backoff_then_given_up(
    make_toolset: Make, ctx: RunContext
) -> None:
    toolset = make_toolset(
        {"gone": {"command": "/nonexistent/mcp-server"}},
        restart={"max_retries": 2, "base_delay_ms": 50, "max_delay_ms": 50},
    )
    assert await toolset.tools(ctx) == []
    connection = toolset.connections["gone"]
    assert "could not be started" in (connection.error or "")
    results = [await connection.call("x", {}) for _ in range(3)]
    assert all(r.is_error for r in results)
    assert "gave up after 3 failures" in results[-1].content, results[-1].content


OWNER = """
import asyncio, sys
from agentframe_mcp import McpOptions, McpToolset
from agentframe_core import MemoryStore, RunContext, Stack, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

async def main() -> None:
    server = {"command": sys.executable, "args": [sys.argv[1], "stubborn"]}
    toolset = McpToolset(McpOptions(project=False, servers={"stubborn": server}))
    stack = Stack(ScriptedAdapter(), MemoryStore(), VerbatimBuilder(), tools=[toolset])
    await toolset.tools(RunContext("s", stack))
    process = toolset.connections["stubborn"].process
    while not any(t.startswith("pids") for t in process.stderr_tail):
        await asyncio.sleep(0.02)
    print(next(t for t in process.stderr_tail if t.startswith("pids")), flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


async def test_a_stubborn_server_dies_with_an_agentframe_killed_by_sigkill() -> None:
    """The server ignores end of file on stdin and SIGTERM, and has a child: with its owner
    SIGKILLed (no cleanup runs), the watchdog in its group still stops them all."""
    owner = await asyncio.create_subprocess_exec(
        sys.executable, "-c", OWNER, HOSTILE, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert owner.stdout is not None
        line = await asyncio.wait_for(owner.stdout.readline(), 60)
        parent, child = map(int, re.findall(r"\d+", line.decode()))
        assert pid_alive(parent) and pid_alive(child)
    finally:
        owner.kill()
        await owner.wait()
    await eventually_async(
        lambda: not pid_alive(parent) and not pid_alive(child), 5.0, what="both to die"
    )
