"""`Agent`: the stack in code. Its parts are validated and built as a config file's are, so an
Agent and a YAML stack with the same parts behave the same; its conversations keep their
session (and a `store: memory` its history) across runs, sync or async."""

from __future__ import annotations

import asyncio
import contextlib
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import agentframe_core
from agentframe_core import (
    Agent,
    ConfigError,
    EventLoopRunningError,
    FunctionToolset,
    Outcome,
    ProgressEvent,
    ResultEvent,
    RunContext,
    RunResult,
    TokenEvent,
    ToolEvent,
)
from agentframe_core.testing import ScriptedAdapter


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


CALL_ADD = {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}


def summary(result: RunResult) -> tuple[Any, ...]:
    """What a run did, without its ids and timings."""
    calls = [(r.name, r.arguments, r.content, r.is_error) for r in result.tool_calls]
    return result.outcome, result.reply, result.turns, calls


def test_an_agent_and_a_yaml_stack_with_the_same_parts_behave_the_same(tmp_path: Path) -> None:
    """The same scripted model, the same function tool, one by a config file through the
    facade the CLI uses and through `Agent.from_config`, one by `Agent(...)` in code."""
    config = tmp_path / "agentframe.yaml"
    config.write_text(
        textwrap.dedent(
            """\
            adapter:
              use: scripted
              replies:
                - tool_calls: [{name: add, arguments: {a: 2, b: 3}}]
                - "The sum is 5."
            store: memory
            context: verbatim
            tools:
              - use: functions
                import: ["agentframe_core.examples:add"]
            """
        )
    )
    by_facade = agentframe_core.run("2+3?", config=config, cwd=tmp_path)
    with Agent.from_config(config) as from_file:
        by_file = from_file.run_sync("2+3?")
    from agentframe_core.examples import add as example_add

    model = ScriptedAdapter([CALL_ADD, "The sum is 5."])
    with Agent(model, tools=[example_add], store="memory", context="verbatim") as in_code:
        by_code = in_code.run_sync("2+3?")
    assert summary(by_code) == summary(by_file) == summary(by_facade)
    assert summary(by_code)[3][0][:2] == ("add", {"a": 2, "b": 3})
    # the system prompt the model read is the same recipe's
    request = model.requests[0]
    assert "add" in {spec.name for spec in request.tools}


def test_a_conversation_keeps_its_session_and_the_memory_store_its_history() -> None:
    """The issue's bug: each sync call built a new stack, so `store: memory` forgot."""
    model = ScriptedAdapter(["first", "second"])
    with Agent(model) as agent:
        chat = agent.session()
        one, two = chat.run_sync("hello"), chat.run_sync("again")
    assert one.session_id == two.session_id == chat.id
    seen = [m.content for m in model.requests[1].messages if m.role != "system"]
    assert seen == ["hello", "first", "again"]


async def test_async_runs_stream_tool_calls_tokens_and_the_result_last() -> None:
    model = ScriptedAdapter([CALL_ADD, "The sum is 5."])
    async with Agent(model, tools=[add]) as agent:
        events = [event async for event in agent.run_stream("2+3?")]
    assert isinstance(events[-1], ResultEvent)
    assert events[-1].result.reply == "The sum is 5."
    tools = [e.record for e in events if isinstance(e, ToolEvent)]
    assert [(r.name, r.arguments, r.content) for r in tools] == [("add", {"a": 2, "b": 3}, "5")]
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == "The sum is 5."


async def test_a_stream_closed_early_cancels_its_run() -> None:
    """A consumer that stops reading (`aclose`, a `break` in `aclosing`) cancels the run:
    the tool it was waiting on is cancelled, not left running."""
    cancelled = asyncio.Event()

    async def slow(ctx: RunContext) -> str:
        """Wait a long time."""
        ctx.emit("waiting", {})
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    model = ScriptedAdapter([{"tool_calls": [{"name": "slow"}]}, "unreached"])
    async with Agent(model, tools=[slow]) as agent:
        async with contextlib.aclosing(agent.run_stream("wait")) as events:
            async for event in events:
                assert event == ProgressEvent("waiting", {})
                break
        await asyncio.wait_for(cancelled.wait(), timeout=60)


class Sum(BaseModel):
    total: int


def test_typed_output_and_override_for_tests() -> None:
    agent = Agent("openai:not-reached", tools=[add], output=Sum)
    assert agent.config.adapter.options.model == "not-reached"
    scripted = ScriptedAdapter([CALL_ADD, "five", '{"total": 5}'])
    with agent, agent.override(model=scripted):
        result = agent.run_sync("2+3?")
    assert result.outcome is Outcome.COMPLETED
    assert result.output == Sum(total=5)
    assert len(scripted.requests) == 3


def test_a_toolset_and_a_part_block_are_tools_too() -> None:
    model = ScriptedAdapter([{"tool_calls": [{"name": "current_time"}]}, CALL_ADD, "done"])
    block = {"use": "functions", "import": ["agentframe_core.examples:current_time"]}
    with Agent(model, tools=[FunctionToolset([add]), block]) as agent:
        result = agent.run_sync("time, then 2+3")
    assert [r.name for r in result.tool_calls] == ["current_time", "add"]
    assert not any(r.is_error for r in result.tool_calls)


def test_bad_parts_name_the_argument_and_what_is_installed() -> None:
    with pytest.raises(ConfigError) as unknown:
        Agent("nosuch:model")
    assert "Agent(model=...): use: unknown adapter 'nosuch'" in str(unknown.value)
    assert "scripted" in str(unknown.value)  # the installed ones are named
    with pytest.raises(ConfigError, match=r"Agent\(tools=\.\.\.\)\[0\]: imprt: unknown option"):
        Agent("scripted", tools=[{"use": "functions", "imprt": []}])
    with pytest.raises(ConfigError, match=r"Agent\(limits=\.\.\.\): max_turns"):
        Agent("scripted", limits={"max_turns": 0})


async def test_run_sync_inside_an_event_loop_says_what_to_do_instead() -> None:
    agent = Agent(ScriptedAdapter(["never"]))
    with pytest.raises(EventLoopRunningError, match=r"await agent\.run"):
        agent.run_sync("hi")
    await agent.aclose()


def test_from_definition_uses_the_files_prompt_and_turns(tmp_path: Path) -> None:
    path = tmp_path / "terse.md"
    path.write_text("---\nname: terse\ndescription: answers briefly\nmaxTurns: 1\n---\nBe terse.\n")
    model = ScriptedAdapter([CALL_ADD, "unreached"])
    with Agent.from_definition(path, model=model, tools=[add]) as agent:
        result = agent.run_sync("2+3?")
    assert "Be terse." in model.requests[0].messages[0].content
    assert result.outcome is Outcome.MAX_TURNS


def test_from_config_takes_a_dict() -> None:
    data = {"adapter": {"use": "scripted", "replies": ["hi"]}, "store": "memory"}
    with Agent.from_config(data) as agent:
        assert agent.run_sync("hello").reply == "hi"


def test_override_takes_a_block_and_checks_it() -> None:
    agent = Agent(ScriptedAdapter(["real"]))
    with agent, agent.override(model={"use": "scripted", "replies": ["overridden"]}):
        assert agent.run_sync("hi").reply == "overridden"
    with pytest.raises(ConfigError, match=r"Agent\(model=\.\.\.\): use: unknown adapter"):
        agent.override(model="nosuch").__enter__()
