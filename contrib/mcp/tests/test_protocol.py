"""The protocol revision a connection speaks (`protocol` of a server entry), against real
servers: the SDK's MCPServer (`servers/asking.py`) speaks 2026-07-28 when asked to and 2025-11-25
by default, and asks its question in both; a server that knows only `initialize`
(`servers/hostile.py`) is still reached with `protocol: auto`. The rounds of a request that
needs input (SEP-2322) are also checked alone, against a stand-in session."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from agentframe_mcp import McpOptions, McpToolset
from agentframe_mcp.rounds import MAX_ROUNDS, resolved
from mcp.client import InputRequiredRoundsExceededError

from agentframe_core import MemoryStore, RunContext, Stack, ToolCall, VerbatimBuilder
from agentframe_core.testing import ScriptedAdapter

SERVERS = Path(__file__).parent / "servers"


def toolset(script: str, *args: str, **entry: Any) -> McpToolset:
    server = {"command": sys.executable, "args": [str(SERVERS / script), *args], **entry}
    return McpToolset(McpOptions(project=False, elicitation="defaults", servers={"s": server}))


def context() -> RunContext:
    stack = Stack(adapter=ScriptedAdapter(), store=MemoryStore(), context=VerbatimBuilder())
    return RunContext("p", stack)


@pytest.mark.parametrize(
    ("entry", "revision"),
    [
        ({}, "2025-11-25"),
        ({"protocol": "legacy"}, "2025-11-25"),
        ({"protocol": "auto"}, "2026-07-28"),
    ],
)
async def test_the_question_of_a_call_is_answered_in_either_revision(
    entry: dict[str, str], revision: str
) -> None:
    tools = toolset("asking.py", **entry)
    ctx = context()
    try:
        await tools.tools(ctx)
        session = tools.connections["s"].session
        assert session is not None and session.protocol_version == revision
        result = await tools.dispatch(ToolCall("c", "mcp_s_greet_asked", {}), ctx)
    finally:
        await tools.aclose()
    assert (result.content, result.is_error) == (f"hello Ada ({revision})", False)


async def test_resources_and_prompts_are_read_on_a_2026_07_28_connection() -> None:
    tools = toolset("asking.py", protocol="auto")
    ctx = context()
    try:
        await tools.tools(ctx)
        note = await tools.dispatch(
            ToolCall("r", "read_mcp_resource", {"server": "s", "uri": "note://hello"}), ctx
        )
        prompt = await tools.dispatch(
            ToolCall(
                "p", "get_mcp_prompt", {"server": "s", "name": "greet", "arguments": {"name": "Bo"}}
            ),
            ctx,
        )
    finally:
        await tools.aclose()
    assert "hello from a resource" in note.content and not note.is_error
    assert "Please greet Bo warmly." in prompt.content and not prompt.is_error


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
async def test_a_changed_tool_list_is_heard_in_either_revision(protocol: str) -> None:
    """At 2026-07-28 on the `subscriptions/listen` stream the connection holds open."""
    tools = toolset("asking.py", protocol=protocol)
    ctx = context()
    try:
        before = {tool.name for tool in await tools.tools(ctx)}
        grown = await tools.dispatch(ToolCall("g", "mcp_s_grow", {}), ctx)
        assert grown.content == "added", grown.content
        for _ in range(100):  # the event may land just after the result
            if tools.connections["s"].stale:
                break
            await asyncio.sleep(0.02)
        after = {tool.name for tool in await tools.tools(ctx)}
        called = await tools.dispatch(ToolCall("n", "mcp_s_grown", {}), ctx)
    finally:
        await tools.aclose()
    assert after - before == {"mcp_s_grown"}
    assert called.content == "grown"


async def test_auto_reaches_a_server_that_knows_only_initialize() -> None:
    tools = toolset("hostile.py", "normal", protocol="auto")
    ctx = context()
    try:
        await tools.tools(ctx)
        session = tools.connections["s"].session
        assert session is not None and session.protocol_version == "2025-11-25"
        result = await tools.dispatch(ToolCall("c", "mcp_s_env", {"name": "NO_SUCH_VAR"}), ctx)
    finally:
        await tools.aclose()
    assert (result.content, result.is_error) == ("<unset>", False)


class AnsweringSession:
    """Stands in for a `ClientSession`: answers each input request with its key."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def dispatch_input_request(
        self, context: Any, request: types.InputRequest
    ) -> types.InputResponse:
        self.asked.append(context.request_id)
        return types.ElicitResult(action="accept", content={"key": context.request_id})


def asking_for(key: str, state: str | None) -> types.InputRequiredResult:
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message="?", requested_schema={"type": "object", "properties": {}}
        )
    )
    return types.InputRequiredResult(input_requests={key: question}, request_state=state)


async def test_each_round_sends_the_answers_and_the_state_back_untouched() -> None:
    session = AnsweringSession()
    sent: list[tuple[Any, str | None]] = []
    replies: list[Any] = [asking_for("a", '{"n": 1}'), asking_for("b", None), "done"]

    async def send(answers: Any, state: str | None) -> Any:
        sent.append((answers, state))
        return replies[len(sent) - 1]

    assert await resolved(session, send) == "done"  # type: ignore[arg-type]
    assert session.asked == ["a", "b"]
    assert [state for _, state in sent] == [None, '{"n": 1}', None]
    assert [sorted(answers or {}) for answers, _ in sent] == [[], ["a"], ["b"]]


async def test_a_server_that_never_stops_asking_is_cut_off() -> None:
    calls = 0

    async def send(answers: Any, state: str | None) -> Any:
        nonlocal calls
        calls += 1
        return asking_for("again", "s")

    with pytest.raises(InputRequiredRoundsExceededError):
        await resolved(AnsweringSession(), send)  # type: ignore[arg-type]
    assert calls == MAX_ROUNDS + 1
