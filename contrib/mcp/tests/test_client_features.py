"""What a server asks of agentframe's client, against real servers (`servers/asking.py` on
the SDK's MCPServer, `servers/bigresource.py`): elicitation through `ctx.ask`, sampling by the
stack's adapter under its policy and bounds, progress as run events, cancellation sent on a
timeout, roots, and the resource and prompt meta tools."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from agentframe_mcp import McpOptions, McpToolset
from agentframe_mcp.elicitation import check_schema, with_defaults

from agentframe_core import (
    Answer,
    MemoryStore,
    Question,
    RunContext,
    Stack,
    ToolCall,
    VerbatimBuilder,
)
from agentframe_core.testing import ScriptedAdapter

SERVERS = Path(__file__).parent / "servers"
# One event loop for the module, so that one server serves most tests (starting one costs
# seconds on a loaded machine).
pytestmark = pytest.mark.asyncio(loop_scope="module")


def asking(marker: Path | None = None) -> dict[str, Any]:
    args = [str(SERVERS / "asking.py"), *([str(marker)] if marker else [])]
    return {"ask": {"command": sys.executable, "args": args}}


class Person:
    """Answers every question with `answer`, and keeps them."""

    def __init__(self, answer: Answer) -> None:
        self.answer, self.questions = answer, list[Question]()

    async def __call__(self, question: Question) -> Answer:
        self.questions.append(question)
        return self.answer


def context(
    replies: list[str] | None = None,
    person: Person | None = None,
    events: list[tuple[str, dict[str, Any]]] | None = None,
) -> RunContext:
    stack = Stack(
        adapter=ScriptedAdapter(replies=replies or ["ok"]),
        store=MemoryStore(),
        context=VerbatimBuilder(),
    )
    return RunContext(
        "s1",
        stack,
        on_question=person,
        on_event=(lambda kind, data: events.append((kind, data))) if events is not None else None,
    )


META = {"list_mcp_resources", "read_mcp_resource", "list_mcp_prompts", "get_mcp_prompt"}


async def call(toolset: McpToolset, ctx: RunContext, tool: str, **arguments: Any) -> Any:
    await toolset.tools(ctx)
    exposed = tool if tool in META else f"mcp_ask_{tool}"
    return await toolset.dispatch(ToolCall("c", exposed, arguments), ctx)


def toolset_of(servers: dict[str, Any], **options: Any) -> McpToolset:
    return McpToolset(McpOptions(project=False, servers=servers, **options))


@pytest.fixture(scope="module")
def marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("asking") / "marker"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared(marker: Path) -> AsyncIterator[McpToolset]:
    """asking.py with sampling allowed (3 a call, 4 a session) and a 1 s call timeout."""
    toolset = toolset_of(
        asking(marker),
        call_timeout=1,
        sampling={"policy": "auto", "max_requests": 3, "max_session_requests": 4},
    )
    yield toolset
    await toolset.aclose()


async def test_a_question_reaches_the_person_with_defaults_applied(shared: McpToolset) -> None:
    person = Person(Answer("accept", {"colour": "red"}))
    result = await call(shared, context(person=person), "ask_name")
    assert json.loads(result.content) == {
        "action": "accept",
        "content": {"colour": "red", "name": "Ada", "age": 36},
    }
    (question,) = person.questions
    assert question.source == "mcp:ask" and "Who are you?" in question.message
    assert [f.name for f in question.fields] == ["name", "age", "colour"]


async def test_nobody_to_ask_declines_and_says_so(
    shared: McpToolset, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "agentframe.mcp"):
        result = await call(shared, context(), "ask_name")
    assert json.loads(result.content)["action"] == "decline"
    assert "asked a question: declined (no one can answer" in caplog.text


async def test_the_policies_answer_without_asking() -> None:
    person = Person(Answer("accept", {}))
    toolset = toolset_of(asking(), elicitation="defaults", sampling={"policy": "deny"})
    try:
        answer = json.loads((await call(toolset, context(person=person), "ask_name")).content)
        assert answer == {"action": "accept", "content": {"name": "Ada", "age": 36}}
        denied = json.loads((await call(toolset, context(), "sample", times=1)).content)
        assert denied["answered"] == 0 and denied["refusal"]  # sampling is not even declared
    finally:
        await toolset.aclose()
    assert person.questions == []


async def test_a_huge_schema_is_refused_by_name(shared: McpToolset) -> None:
    person = Person(Answer("accept", {}))
    result = await call(shared, context(person=person), "ask_huge")
    assert "elicitation schema is 110124 bytes, more than 16 KiB: refused" in result.content
    assert person.questions == []


async def test_schemas_outside_the_subset_are_refused_and_defaults_fill_in() -> None:
    from agentframe_mcp.elicitation import ElicitationSchemaError

    with pytest.raises(ElicitationSchemaError, match="field 'deep'"):
        check_schema("s", {"type": "object", "properties": {"deep": {"type": "object"}}})
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    assert with_defaults(schema, {}) == {"a": "x"}
    assert with_defaults(schema, {"a": "y"}) == {"a": "y"}


async def test_sampling_is_answered_by_the_stack_model_and_a_flood_is_bounded(
    shared: McpToolset,
) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    ctx = context(replies=["one", "two", "three", "four"], events=events)
    first = json.loads((await call(shared, ctx, "sample", times=50)).content)
    assert first["answered"] == 3 and first["last"] == "three"
    assert "sampling.max_requests: 3" in first["refusal"]
    second = json.loads((await call(shared, ctx, "sample", times=50)).content)
    assert second["answered"] == 1 and "sampling.max_session_requests: 4" in second["refusal"]
    assert [kind for kind, _ in events].count("mcp_sampling") == 4
    request = ctx.stack.adapter.requests[0]  # type: ignore[attr-defined]
    assert request.max_tokens == 1024  # the server asked for 100,000


async def test_sampling_asks_first() -> None:
    person = Person(Answer("decline"))
    toolset = toolset_of(asking(), sampling={"policy": "ask"})
    try:
        asked = json.loads((await call(toolset, context(person=person), "sample", times=1)).content)
    finally:
        await toolset.aclose()
    assert asked["answered"] == 0 and "did not allow sampling" in asked["refusal"]
    assert "asks the model" in person.questions[0].message


async def test_progress_becomes_events_and_a_timeout_sends_cancelled(
    shared: McpToolset, marker: Path
) -> None:
    toolset = shared
    events: list[tuple[str, dict[str, Any]]] = []
    ctx = context(events=events)
    assert (await call(toolset, ctx, "progress")).content == "done"
    steps = [data for kind, data in events if kind == "mcp_progress"]
    assert [(s["progress"], s["total"], s["message"]) for s in steps] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]
    assert steps[0]["server"] == "ask" and steps[0]["tool"] == "progress"
    result = await call(toolset, ctx, "slow")
    assert result.is_error and "timed out after 1 s" in result.content
    roots = await call(toolset, ctx, "roots")  # the server is still there, and saw the cancel
    assert marker.read_text() == "cancelled"
    assert json.loads(roots.content) == [Path.cwd().resolve().as_uri()]


async def test_resources_and_prompts_through_meta_tools(shared: McpToolset) -> None:
    toolset = shared
    ctx = context()
    names = {t.name: t for t in await toolset.tools(ctx)}
    assert names["read_mcp_resource"].parameters["properties"]["server"]["enum"] == ["ask"]
    listed = json.loads((await call(toolset, ctx, "list_mcp_resources", server="ask")).content)
    assert listed[0]["uri"] == "note://hello"
    read = await call(toolset, ctx, "read_mcp_resource", server="ask", uri="note://hello")
    assert read.content == "[resource note://hello]\nhello from a resource"
    prompts = json.loads((await call(toolset, ctx, "list_mcp_prompts", server="ask")).content)
    assert prompts[0]["name"] == "greet" and prompts[0]["arguments"][0]["required"]
    got = await call(
        toolset, ctx, "get_mcp_prompt", server="ask", name="greet", arguments={"name": "Bo"}
    )
    assert got.content == "[user]\nPlease greet Bo warmly."


async def test_a_200_mb_resource_is_bounded_with_a_named_error() -> None:
    big = {"big": {"command": sys.executable, "args": [str(SERVERS / "bigresource.py")]}}
    toolset = toolset_of(big)
    ctx = context()
    names = {t.name for t in await toolset.tools(ctx)}
    assert "read_mcp_resource" in names and "get_mcp_prompt" not in names  # no prompts
    result = await toolset.dispatch(
        ToolCall("c", "read_mcp_resource", {"server": "big", "uri": "big://blob"}), ctx
    )
    assert result.is_error and "a reply longer than 32 MiB" in result.content
    listed = await toolset.dispatch(ToolCall("c", "list_mcp_resources", {"server": "big"}), ctx)
    await toolset.aclose()
    assert json.loads(listed.content)[0]["size"] == 200 * 1024 * 1024  # restarted, works


async def test_a_run_shows_progress_lines(tmp_path: Path) -> None:
    """Through the CLI: `agentframe run` shows each progress notification on stderr."""
    from agentframe_core.testing import run_cli

    call = {"name": "mcp_ask_progress", "arguments": {}}
    config = {
        "adapter": {"use": "scripted", "replies": [{"content": "", "tool_calls": [call]}, "ok"]},
        "store": {"use": "memory"},
        "tools": [{"use": "mcp", "project": False, "servers": asking()}],
    }
    (tmp_path / "agentframe.yaml").write_text(json.dumps(config))
    done = run_cli(tmp_path, "run", "go")
    assert done.returncode == 0, done.stderr
    assert "↳ ask/progress: 1.0/3.0 step 1" in done.stderr
    assert "↳ ask/progress: 3.0/3.0 step 3" in done.stderr


async def test_url_elicitation_shows_the_url_and_never_fetches_it() -> None:
    """URL mode: the person is shown the URL (credentials masked); nothing is fetched."""
    from agentframe_mcp.elicitation import answer_elicitation
    from mcp import types

    person = Person(Answer("accept"))
    params = types.ElicitRequestURLParams(
        mode="url",
        message="Connect your account",
        url="http://user:pw@127.0.0.1:9/connect",  # a closed port: a fetch would fail loudly
        elicitation_id="e1",
    )
    result = await answer_elicitation("ask", "ask", context(person=person), params)
    assert isinstance(result, types.ElicitResult) and result.action == "accept"
    (question,) = person.questions
    assert "127.0.0.1:9/connect" in question.message and "pw" not in question.message
    wrong = Person(Answer("accept", {"age": "old"}))  # not an integer: sent as cancel
    form = types.ElicitRequestFormParams(
        message="Age?",
        requested_schema={"type": "object", "properties": {"age": {"type": "integer"}}},
    )
    refused = await answer_elicitation("ask", "ask", context(person=wrong), form)
    assert isinstance(refused, types.ElicitResult) and refused.action == "cancel"
