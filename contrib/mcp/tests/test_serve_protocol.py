"""`mcp serve`'s protocol beyond tools, with the SDK's own client (the handshake over JSON-RPC,
in-process): progress and log messages while an agent runs, cancellation, prompts, resources
and completion. The stack is the scripted adapter and the kernel's memory store."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentframe_mcp.serve import AgentServer
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from agentframe_core import (
    AgentDefinition,
    Entry,
    EntryKind,
    FunctionToolset,
    MemoryStore,
    Question,
    RunContext,
    Stack,
    VerbatimBuilder,
)
from agentframe_core.testing import ScriptedAdapter, check_turns_well_formed

HELPER = AgentDefinition(
    name="helper", description="Adds numbers.", prompt="You add numbers with the add tool."
)
ADD = {"content": "", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}, "id": "c1"}]}
CAREFUL = {"content": "", "tool_calls": [{"name": "careful", "arguments": {}, "id": "c3"}]}
CONFIRM = {"content": "", "tool_calls": [{"name": "confirm", "arguments": {}, "id": "c4"}]}
SLOW = {"content": "", "tool_calls": [{"name": "wait", "arguments": {}, "id": "c2"}]}

started = asyncio.Event()


async def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


async def careful() -> str:
    """Log a warning that holds a secret."""
    logging.getLogger("agentframe.tools").warning("careful: Authorization: Bearer sk-abcdef1234")
    return "ok"


async def confirm(ctx: RunContext) -> str:
    """Ask the person for a name."""
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answer = await ctx.ask(Question("Which name?", form, source="tests"))
    return json.dumps([answer.action, answer.content, answer.reason])


async def wait() -> str:
    """Wait a long time (until cancelled)."""
    started.set()
    await asyncio.sleep(60)
    return "waited"


Serve = Callable[..., tuple[AgentServer, MemoryStore]]


@pytest.fixture
def serve(tmp_path: Path) -> Serve:
    def make(*replies: Any) -> tuple[AgentServer, MemoryStore]:
        store = MemoryStore()
        stack = Stack(
            adapter=ScriptedAdapter(list(replies)),
            store=store,
            context=VerbatimBuilder(),
            tools=[FunctionToolset([add, careful, confirm, wait])],
        )
        return AgentServer(stack, [HELPER], tmp_path), store

    return make


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_run_reports_progress_for_each_turn_and_tool_and_logs_at_the_level_set(
    serve: Serve,
) -> None:
    server, _ = serve(ADD, "2 + 3 = 5.", CAREFUL, "Done.")
    progress: list[tuple[float, str | None]] = []
    logged: list[tuple[str, Any]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append((params.level, params.data))

    async with Client(server.server(), mode="legacy", logging_callback=on_log) as client:
        result = await client.call_tool("helper", {"task": "2+3?"}, progress_callback=on_progress)
        assert not result.is_error
        assert [c.text for c in result.content if isinstance(c, types.TextContent)] == [
            "2 + 3 = 5."
        ]
        messages = [m or "" for _, m in progress]
        assert messages[0] == "turn 1: calling the model"
        assert messages[1].startswith("tool add: done (")
        assert messages[2:] == ["turn 2: calling the model"]
        assert [v for v, _ in progress] == [1, 2, 3]
        infos = [data for level, data in logged]
        assert infos[0].startswith("helper: started session ")
        assert "helper: tool add done" in infos and infos[-1] == "helper: completed in 2 turn(s)"
        assert all(level == "info" for level, _ in logged)  # no debug below `info`

        logged.clear()
        await client.set_logging_level("warning")
        second = await client.call_tool("helper", {"task": "again"})
        assert not second.is_error
        (record,) = logged  # the tool's own warning only: nothing below `warning`
        assert record[0] == "warning" and record[1].startswith("agentframe.tools: careful")
        assert "sk-abcdef1234" not in record[1]


async def test_cancelling_the_request_cancels_the_run_and_leaves_whole_turns(
    serve: Serve,
) -> None:
    server, store = serve(SLOW, "never reached")
    started.clear()
    async with Client(server.server(), mode="legacy") as client:
        call = asyncio.create_task(client.call_tool("helper", {"task": "wait for it"}))
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(100):  # the server's side ends once the cancellation arrives
            (info,) = await store.sessions()
            entries = await store.context(info.id)
            if entries[-1].kind.value == "tool_result":
                break
            await asyncio.sleep(0.05)
        assert [e.kind.value for e in entries] == ["user", "assistant", "tool_call", "tool_result"]
        assert "interrupted" in entries[-1].content
        check_turns_well_formed(entries, {})
        assert (await client.list_tools()).tools  # the connection goes on


async def test_each_agent_is_a_prompt_with_its_instructions_and_the_task(serve: Serve) -> None:
    server, _ = serve()
    async with Client(server.server(), mode="legacy") as client:
        (prompt,) = (await client.list_prompts()).prompts
        assert (prompt.name, prompt.description) == ("helper", "Adds numbers.")
        assert [(a.name, a.required) for a in prompt.arguments or []] == [("task", True)]
        got = await client.get_prompt("helper", {"task": "2+3?"})
        (message,) = got.messages
        assert message.role == "user" and isinstance(message.content, types.TextContent)
        assert message.content.text == "You add numbers with the add tool.\n\n## Task\n\n2+3?"
        with pytest.raises(MCPError, match="no agent 'nobody'; offered: helper"):
            await client.get_prompt("nobody", {"task": "x"})
        with pytest.raises(MCPError, match="`task` must be"):
            await client.get_prompt("helper", {"task": " "})


async def test_sessions_and_agents_are_resources_with_templates_and_completion(
    serve: Serve,
) -> None:
    server, store = serve(ADD, "2 + 3 = 5.")
    async with Client(server.server(), mode="legacy") as client:
        done = await client.call_tool("helper", {"task": "2+3?"})
        assert done.meta is not None
        session_id = done.meta["agentframe"]["session_id"]
        record = Entry(kind=EntryKind.NOTIFICATION, tag="serve-task", meta={"value": {}})
        await store.append(f"~serve.task.local.{session_id}", record)  # a record, not offered

        listed = await client.list_resources()
        assert [str(r.uri) for r in listed.resources] == [
            "agentframe://agents/helper",
            f"agentframe://sessions/{session_id}",
        ]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "agentframe://sessions/{id}",
            "agentframe://agents/{name}",
        ]
        read = await client.read_resource(f"agentframe://sessions/{session_id}")
        (contents,) = read.contents
        assert isinstance(contents, types.TextResourceContents)
        document = json.loads(contents.text)
        assert [e["kind"] for e in document["entries"]] == [
            "user",
            "assistant",
            "tool_call",
            "tool_result",
            "assistant",
        ]
        assert document["entries"][0]["content"] == "2+3?"
        agent = json.loads(
            (await client.read_resource("agentframe://agents/helper")).contents[0].text  # type: ignore[union-attr]
        )
        assert agent["prompt"] == "You add numbers with the add tool."
        for uri in ("agentframe://sessions/nope", "agentframe://agents/nobody", "file:///etc"):
            with pytest.raises(MCPError, match="Resource not found"):
                await client.read_resource(uri)

        sessions = types.ResourceTemplateReference(uri="agentframe://sessions/{id}")
        completed = await client.complete(sessions, {"name": "id", "value": session_id[:3]})
        assert completed.completion.values == [session_id]
        every = await client.complete(sessions, {"name": "id", "value": ""})
        assert every.completion.values == [session_id]
        agents = types.ResourceTemplateReference(uri="agentframe://agents/{name}")
        assert (
            await client.complete(agents, {"name": "name", "value": "he"})
        ).completion.values == ["helper"]
        assert (
            await client.complete(agents, {"name": "name", "value": "x"})
        ).completion.values == []
        prompt = types.PromptReference(name="helper")
        assert (
            await client.complete(prompt, {"name": "task", "value": "2"})
        ).completion.values == []


async def test_server_info_names_the_package_version(serve: Serve) -> None:
    from importlib.metadata import version

    server, _ = serve()
    async with Client(server.server(), mode="legacy") as client:
        info = client.server_info
        assert info is not None and (info.name, info.version) == (
            "agentframe",
            version("agentframe-mcp"),
        )
        assert version("agentframe-mcp") == "0.2.0"


async def answered(store: MemoryStore, session_id: str) -> list[Any]:
    entries = await store.context(session_id)
    (result,) = [e for e in entries if e.kind.value == "tool_result"]
    return list(json.loads(result.content))


async def test_an_agents_question_reaches_the_client_as_elicitation(serve: Serve) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []
    reply: dict[str, Any] = {"name": "Ada"}

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        asked.append((params.message, params.requested_schema))
        return types.ElicitResult(action="accept", content=reply)

    server, store = serve(CONFIRM, "Named.", CONFIRM, "Named.")
    async with Client(server.server(), mode="legacy", elicitation_callback=on_elicit) as client:
        first = await client.call_tool("helper", {"task": "name it"})
        reply = {"name": 7}  # does not fit the form
        second = await client.call_tool("helper", {"task": "name it again"})
    assert first.meta and second.meta
    assert asked[0][0] == "[tests] Which name?"
    assert asked[0][1]["required"] == ["name"]
    assert await answered(store, first.meta["agentframe"]["session_id"]) == [
        "accept",
        {"name": "Ada"},
        "",
    ]
    action, content, reason = await answered(store, second.meta["agentframe"]["session_id"])
    assert (action, content) == ("cancel", None)
    assert reason.startswith("the answer does not fit the form: 7 is not of type 'string'")


async def test_a_client_without_elicitation_has_the_question_declined_saying_why(
    serve: Serve,
) -> None:
    server, store = serve(CONFIRM, "Not named.")
    async with Client(server.server(), mode="legacy") as client:
        done = await client.call_tool("helper", {"task": "name it"})
    assert done.meta
    action, content, reason = await answered(store, done.meta["agentframe"]["session_id"])
    assert (action, content) == ("decline", None)
    assert "declared no form elicitation capability" in reason
