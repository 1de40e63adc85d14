"""MCP tools through agentframe against the SDK alone, side by side in one process.

- a tool call: p50/p99 of `McpToolset.dispatch` (agentframe's stdio transport, the SDK's
  ClientSession, the result mapped to a ToolResult) against a direct `ClientSession.call_tool`
  over the SDK's `stdio_client`, each on its own copy of the same server (mcp-server-time),
  calls interleaved (each goes first every other time) so both see the same
  machine noise. Goal: <= 1.1x and <= 2 ms added.
- closing a stack whose server ignores shutdown (it ignores stdin closing and SIGTERM, and so
  does its child): agentframe's `Stack.aclose()` against leaving the SDK's `stdio_client`.
  Goal: <= 2 s.

    python bench/mcp.py [--calls 500] [--closes 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# This file is named mcp.py: without its folder on the path, `import mcp` finds the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

from agentframe_mcp import McpOptions, McpToolset  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder  # noqa: E402
from agentframe_core.testing import ScriptedAdapter  # noqa: E402

TIME = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
HOSTILE = Path(__file__).parent.parent / "contrib" / "mcp" / "tests" / "servers" / "hostile.py"
STUBBORN = [sys.executable, str(HOSTILE), "stubborn"]
ARGUMENTS = {"timezone": "Europe/Paris"}


def stack_with(toolset: McpToolset) -> Stack:
    return Stack(
        adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder(), tools=[toolset]
    )


def toolset_for(command: list[str]) -> McpToolset:
    server = {"command": command[0], "args": command[1:]}
    return McpToolset(McpOptions(project=False, servers={"s": server}, startup_timeout=60))


def quantiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples), cuts[98]


async def calls(count: int) -> None:
    toolset = toolset_for(TIME)
    stack = stack_with(toolset)
    ctx = RunContext("bench", stack)
    params = StdioServerParameters(command=TIME[0], args=TIME[1:])
    ours: list[float] = []
    direct: list[float] = []
    with open("/dev/null", "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
            stack,
        ):
            await session.initialize()
            await session.list_tools()
            await toolset.tools(ctx)
            call = ToolCall("b", "mcp_s_get_current_time", ARGUMENTS)
            for _ in range(20):  # warm both
                await session.call_tool("get_current_time", ARGUMENTS)
                await toolset.dispatch(call, ctx)
            for i in range(count):  # alternate who goes first: neither gets a warmer machine
                for who in ("direct", "ours") if i % 2 else ("ours", "direct"):
                    started = time.perf_counter()
                    if who == "direct":
                        await session.call_tool("get_current_time", ARGUMENTS)
                        direct.append(time.perf_counter() - started)
                    else:
                        result = await toolset.dispatch(call, ctx)
                        ours.append(time.perf_counter() - started)
                        assert not result.is_error, result.content
    (d50, d99), (o50, o99) = quantiles(direct), quantiles(ours)
    print(f"tool call, {count} each, interleaved (mcp-server-time get_current_time):")
    print(f"  direct ClientSession.call_tool   p50 {d50 * 1e3:7.3f} ms   p99 {d99 * 1e3:7.3f} ms")
    print(f"  agentframe McpToolset.dispatch   p50 {o50 * 1e3:7.3f} ms   p99 {o99 * 1e3:7.3f} ms")
    print(
        f"  ratio p50 {o50 / d50:.3f}x  p99 {o99 / d99:.3f}x   "
        f"added p50 {(o50 - d50) * 1e3:+.3f} ms  p99 {(o99 - d99) * 1e3:+.3f} ms"
    )


async def close_ours() -> float:
    toolset = toolset_for(STUBBORN)
    stack = stack_with(toolset)
    await toolset.tools(RunContext("bench", stack))
    started = time.perf_counter()
    await stack.aclose()
    return time.perf_counter() - started


async def close_sdk() -> float:
    params = StdioServerParameters(command=STUBBORN[0], args=STUBBORN[1:])
    with open("/dev/null", "w") as quiet:
        context: Any = stdio_client(params, errlog=quiet)
        read, write = await context.__aenter__()
        async with ClientSession(read, write) as session:
            await session.initialize()
        started = time.perf_counter()
        await context.__aexit__(None, None, None)
        return time.perf_counter() - started


async def closes(count: int) -> None:
    ours = [await close_ours() for _ in range(count)]
    sdk = [await close_sdk() for _ in range(count)]
    print(f"closing a server that ignores stdin EOF and SIGTERM (and its child), {count} each:")
    print(f"  agentframe Stack.aclose()        max {max(ours):.3f} s  (goal <= 2 s)")
    print(f"  the SDK's stdio_client exit      max {max(sdk):.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--closes", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(calls(args.calls))
    asyncio.run(closes(args.closes))


if __name__ == "__main__":
    main()
