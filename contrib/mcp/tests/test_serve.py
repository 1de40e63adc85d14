"""`agentframe mcp serve`: agents as MCP tools, checked with the SDK's own client over stdio
and streamable HTTP, on a stack with the scripted adapter and a SQLite store."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from serving import environment, listening, serve_http, stop, write_project

from agentframe_core.testing import eventually


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A project with two agents and a stack: scripted replies, sessions in SQLite."""
    return write_project(tmp_path)


async def check_agents(session: ClientSession, cwd: Path) -> None:
    await session.initialize()
    listed = await session.list_tools()
    assert [t.name for t in listed.tools] == ["helper"]
    (tool,) = listed.tools
    assert tool.description == "Answers arithmetic questions briefly."
    assert tool.input_schema["required"] == ["task"]
    result = await session.call_tool("helper", {"task": "What is 6*7?"})
    assert isinstance(result, types.CallToolResult) and not result.is_error
    assert [c.text for c in result.content if isinstance(c, types.TextContent)] == [
        "The answer is 42."
    ]
    assert result.meta is not None
    meta = result.meta["agentframe"]
    assert meta["outcome"] == "completed" and meta["turns"] == 1
    assert meta["usage"] == {"prompt_tokens": 11, "completion_tokens": 5, "cached_tokens": 0}
    await in_the_store(cwd / "sessions.db", meta["session_id"], "What is 6*7?")
    bad = await session.call_tool("helper", {"task": "   "})
    assert isinstance(bad, types.CallToolResult) and bad.is_error


async def in_the_store(path: Path, session_id: str, task: str) -> None:
    from agentframe_store_sqlite import SqliteStore

    store = SqliteStore(path)
    try:
        entries = await store.context(session_id)
    finally:
        await store.aclose()
    assert [(e.kind.value, e.content) for e in entries] == [
        ("user", task),
        ("assistant", "The answer is 42."),
    ]


async def test_serve_over_stdio_lists_the_agents_and_runs_one(served: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentframe_core", "mcp", "serve", "--agent", "helper"],
        cwd=served,
        env=environment(served),
    )
    with open(served / "stderr.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await check_agents(session, served)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def http_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("served-http"))


@pytest.fixture(scope="module")
def http_server(http_project: Path) -> Iterator[str]:
    """One `mcp serve --http` for the module's tests (each call is a session of its own)."""
    process, url = serve_http(http_project, "-a", "helper")
    try:
        yield url
    finally:
        stop(process)


async def test_serve_over_streamable_http(http_server: str, http_project: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(http_server) as (read, write),
        ClientSession(read, write) as session,
    ):
        await check_agents(session, http_project)


async def test_use_mcp_reaches_an_http_server_agentframe_serving_its_agents(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both directions at once: `use: mcp` over streamable HTTP, with an expanded header."""
    from agentframe_mcp import McpOptions, McpToolset

    from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    monkeypatch.setenv("MCP_TEST_HEADER", "yes")
    server = {"type": "http", "url": http_server, "headers": {"X-Test": "${MCP_TEST_HEADER}"}}
    toolset = McpToolset(McpOptions(project=False, servers={"agents": server}))
    ctx = RunContext(
        "t", Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    )
    try:
        names = [t.name for t in await toolset.tools(ctx)]
        # the agent, and the meta tools for the prompts (agents) and resources (sessions)
        # that `mcp serve` offers
        assert names[0] == "mcp_agents_helper"
        assert {"list_mcp_resources", "read_mcp_resource", "get_mcp_prompt"} <= set(names)
        call = ToolCall("1", "mcp_agents_helper", {"task": "What is 6*7?"})
        result = await toolset.dispatch(call, ctx)
    finally:
        await toolset.aclose()
    assert (result.content, result.is_error) == ("The answer is 42.", False)
    assert result.meta["mcp_meta"]["agentframe"]["outcome"] == "completed"


@pytest.fixture
def sse_server() -> Iterator[str]:
    """The SDK's MCPServer over SSE on 127.0.0.1 (tests/servers/sse.py)."""
    port = free_port()
    script = str(Path(__file__).parent / "servers" / "sse.py")
    process = subprocess.Popen(
        [sys.executable, script, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:

        def up() -> bool:
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode() if process.stderr else "")
            return listening(port)

        eventually(up, 30, what=f"the SSE server to listen on port {port}")
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        stop(process)


async def test_use_mcp_reaches_an_sse_server(sse_server: str) -> None:
    from agentframe_mcp import McpOptions, McpToolset

    from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    toolset = McpToolset(
        McpOptions(project=False, servers={"loud": {"type": "sse", "url": sse_server}})
    )
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    ctx = RunContext("t", stack)
    try:
        assert [t.name for t in await toolset.tools(ctx)] == ["mcp_loud_shout"]
        result = await toolset.dispatch(ToolCall("1", "mcp_loud_shout", {"text": "hi"}), ctx)
    finally:
        await toolset.aclose()
    assert (result.content, result.is_error) == ("HI", False)
    assert result.meta["structured_content"] == {"result": "HI"}  # said by the text: kept only


async def test_serve_over_http_refuses_a_call_whose_meta_is_past_max_depth(
    http_server: str,
) -> None:
    """Over HTTP there is no environment to inherit: the depth comes in the call's `_meta`."""
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(http_server) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        deep = await session.call_tool("helper", {"task": "x"}, meta={"agentframe/depth": 3})  # type: ignore[typeddict-unknown-key]
        shallow = await session.call_tool("helper", {"task": "x"}, meta={"agentframe/depth": 2})  # type: ignore[typeddict-unknown-key]
    assert isinstance(deep, types.CallToolResult) and deep.is_error
    assert "nested 3 levels deep (past --max-depth 2)" in str(deep.content)
    assert isinstance(shallow, types.CallToolResult) and not shallow.is_error
