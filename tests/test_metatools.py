"""The native meta tools: report_inability ends the run with its own outcome; a result cut to
head and tail for the model is paged back whole from the store; earlier results are searchable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from stacks import call

from agentframe_core import FunctionToolset, tool
from agentframe_core.assembly.stack import Stack
from agentframe_core.cli.run import result_json
from agentframe_core.contract.tools import ToolResult
from agentframe_core.engine.session import Outcome, Session
from agentframe_core.metatools import load_tool_result, report_inability, search_tool_results

BIG = "".join(f"line {i:05d} of the report\n" for i in range(3_000))  # ~75 000 characters


@tool
def report() -> str:
    """A long report."""
    return BIG


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"In {city}: sunny, 21 degrees, light wind from the west"


META = [report_inability, load_tool_result, search_tool_results]


async def test_report_inability_ends_the_run_with_the_reason(
    make_stack: Callable[..., Stack],
) -> None:
    stack = make_stack(
        [call("report_inability", reason="I have no tool that books flights."), "never sent"],
        META,
    )
    result = await Session(stack).run("Book me a flight to Oslo.")
    assert result.outcome is Outcome.UNABLE
    assert result.reply == "I have no tool that books flights."
    assert result.turns == 1 and result_json(result)["outcome"] == "unable"
    stored = await stack.store.context(result.session_id)
    assert stored[-1].meta["outcome"] == "unable"


async def test_any_tool_result_may_end_the_run_and_an_unknown_outcome_is_terminal(
    make_stack: Callable[..., Stack],
) -> None:
    @tool
    def give_up() -> ToolResult:
        """Stop."""
        return ToolResult("stopped here", outcome="not-an-outcome")

    result = await Session(make_stack([call("give_up"), "never"], [give_up])).run("go")
    assert (result.outcome, result.reply) == (Outcome.TERMINAL_TOOL, "stopped here")


async def test_a_cut_result_is_paged_back_whole_from_the_store(
    make_stack: Callable[..., Stack],
) -> None:
    pages = [
        call("load_tool_result", call_id="r1", offset=offset, length=16_000)
        for offset in range(0, len(BIG), 16_000)
    ]
    replies = [
        {"tool_calls": [{"id": "r1", "name": "report", "arguments": {}}]},
        *pages,
        "done",
    ]
    stack = make_stack(replies, [report, *META], inline_result_chars=2_000, max_repeats=99)
    result = await Session(stack).run("Read the whole report.")
    assert result.outcome is Outcome.COMPLETED
    # the model saw the report cut to head and tail...
    second = stack.adapter.requests[1].messages  # type: ignore[attr-defined]
    shown = next(m.content for m in second if m.role == "tool")
    assert "characters omitted" in shown and len(shown) < 2_100
    # ...and read it back whole, page by page
    loaded = [r.result.content for r in result.tool_calls if r.call.name == "load_tool_result"]
    assert "".join(text.split("\n", 1)[1] for text in loaded) == BIG
    assert loaded[-1].splitlines()[0].endswith("the end]")


async def test_an_unknown_call_id_is_an_error_naming_the_known_ones(
    make_stack: Callable[..., Stack],
) -> None:
    replies = [
        {"tool_calls": [{"id": "w1", "name": "weather", "arguments": {"city": "Oslo"}}]},
        call("load_tool_result", call_id="nope"),
        "ok",
    ]
    result = await Session(make_stack(replies, [weather, *META])).run("weather?")
    record = result.tool_calls[-1].result
    assert record.is_error and "w1 (weather)" in record.content


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"])
async def test_earlier_results_are_searchable(
    make_stack: Callable[..., Stack], store_kind: str, tmp_path: Path
) -> None:
    replies = [
        {"tool_calls": [{"id": "w1", "name": "weather", "arguments": {"city": "Oslo"}}]},
        {"tool_calls": [{"id": "w2", "name": "weather", "arguments": {"city": "Lima"}}]},
        call("search_tool_results", query="Lima"),
        "done",
    ]
    stack = make_stack(replies, [weather, *META])
    if store_kind == "sqlite":
        store_module = pytest.importorskip("agentframe_store_sqlite.store")
        stack.store = store_module.SqliteStore(tmp_path / "s.db")
    try:
        result = await Session(stack).run("weather in Oslo and Lima?")
    finally:
        await stack.aclose()
    found = result.tool_calls[-1].result.content
    assert "call w2 (weather)" in found and "w1" not in found, found
    assert "Lima: sunny" in found


async def test_the_meta_tools_load_through_the_functions_dispatcher() -> None:
    from agentframe_core.parts.plugin import FunctionsOptions, _functions

    refs = [f"agentframe_core.metatools:{t.spec.name}" for t in META]
    toolset = _functions(FunctionsOptions.model_validate({"import": refs}))
    assert isinstance(toolset, FunctionToolset)
    from agentframe_core.testing.conformance._stack import run_context

    names = [t.name for t in await toolset.tools(run_context())]
    assert names == ["report_inability", "load_tool_result", "search_tool_results"]
