"""Against mcp-server-time from PyPI: listing, calls through the dispatcher and the loop, lazy
start, allow/deny, and the ToolDispatcherConformance kit."""

from __future__ import annotations

import json
import operator
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from agentframe_mcp import McpOptions, McpToolset
from agentframe_mcp.connection import State

from agentframe_core import MemoryStore, RunContext, Session, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter, ToolDispatcherConformance

Make = Callable[..., McpToolset]


async def test_tools_are_listed_with_the_servers_descriptions_and_schemas(
    make_toolset: Make, time_server: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"time": time_server})
    tools = {t.name: t for t in await toolset.tools(ctx)}
    assert set(tools) == {"mcp_time_get_current_time", "mcp_time_convert_time"}
    current = tools["mcp_time_get_current_time"]
    assert "current time" in current.description.lower()
    assert current.parameters["type"] == "object"
    assert "timezone" in current.parameters["properties"]


async def test_a_call_returns_the_servers_answer(
    make_toolset: Make, time_server: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"time": time_server})
    await toolset.tools(ctx)
    call = ToolCall(
        "c1",
        "mcp_time_convert_time",
        {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    )
    result = await toolset.dispatch(call, ctx)
    assert not result.is_error, result.content
    body = json.loads(result.content)
    assert body["target"]["datetime"].endswith("21:00:00+09:00")


async def test_servers_start_only_on_the_first_tools_call(
    make_toolset: Make, time_server: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"time": time_server})
    connection = toolset.connections["time"]
    assert connection.state is State.IDLE and connection.process is None
    await toolset.tools(ctx)
    # the first run may rebuild the connections (it learns the run's config file first)
    connection = toolset.connections["time"]
    assert connection.state is State.READY and connection.process is not None


async def test_the_loop_calls_an_mcp_tool_and_stores_its_result(
    make_toolset: Make, time_server: dict[str, Any]
) -> None:
    toolset = make_toolset({"time": time_server})
    adapter = ScriptedAdapter(
        [
            {
                "tool_calls": [
                    {"name": "mcp_time_get_current_time", "arguments": {"timezone": "UTC"}}
                ]
            },
            "It is late.",
        ]
    )
    stack = Stack(adapter=adapter, store=MemoryStore(), context=VerbatimBuilder(), tools=[toolset])
    result = await Session(stack).run("What time is it?")
    (record,) = result.tool_calls
    assert not record.result.is_error and '"timezone": "UTC"' in record.result.content
    offered = [spec.name for spec in adapter.requests[0].tools]
    assert "mcp_time_get_current_time" in offered


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"deny_servers": ["ti*"]}, set()),
        ({"allow_servers": ["other"]}, set()),
        ({"deny_tools": ["mcp_time_convert_*"]}, {"mcp_time_get_current_time"}),
        ({"allow_tools": ["mcp_time_convert_time"]}, {"mcp_time_convert_time"}),
    ],
)
async def test_servers_and_tools_can_be_allowed_or_denied(
    make_toolset: Make,
    time_server: dict[str, Any],
    ctx: RunContext,
    options: dict[str, Any],
    expected: set[str],
) -> None:
    toolset = make_toolset({"time": time_server}, **options)
    assert {t.name for t in await toolset.tools(ctx)} == expected
    missing = await toolset.dispatch(ToolCall("x", "mcp_time_convert_time", {}), ctx)
    assert ("no MCP tool named" in missing.content) == ("mcp_time_convert_time" not in expected)


class TestConformance(ToolDispatcherConformance):
    @pytest.fixture
    async def dispatcher(self, time_server: dict[str, Any]) -> AsyncIterator[McpToolset]:
        toolset = McpToolset(McpOptions(project=False, servers={"time": time_server}))
        yield toolset
        await toolset.aclose()

    @pytest.fixture
    def sample_calls(self) -> list[ToolCall]:
        return [
            ToolCall("1", "mcp_time_get_current_time", {"timezone": "Europe/Paris"}),
            ToolCall(
                "2",
                "mcp_time_convert_time",
                {"source_timezone": "UTC", "time": "08:30", "target_timezone": "America/Lima"},
            ),
        ]


async def test_the_same_tools_come_back_while_nothing_changed(
    make_toolset: Make, time_server: dict[str, Any], ctx: RunContext
) -> None:
    toolset = make_toolset({"time": time_server})
    first, second = await toolset.tools(ctx), await toolset.tools(ctx)
    assert len(first) == 2 and all(map(operator.is_, first, second))  # validators stay cached
