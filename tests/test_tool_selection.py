"""Tool selection: above `limits.visible_tools` tools the model sees the most relevant ones and
`search_tools`, which reveals more; the choice holds across turns and runs of a session."""

from __future__ import annotations

import json
from pathlib import Path

from stacks import call

from agentframe_core import tool
from agentframe_core.engine.session import Outcome, Session
from agentframe_core.engine.toolselect import visible_limit
from agentframe_core.support.bm25 import bm25_scores
from agentframe_core.testing import run_cli


@tool(writes=False)
async def read_file(path: str) -> str:
    """Read a text file from the disk and return its lines."""
    return f"contents of {path}"


@tool
async def write_file(path: str, text: str) -> str:
    """Write text to a file on the disk, replacing it."""
    return "written"


@tool(writes=False)
async def get_weather(city: str) -> str:
    """The weather forecast for a city: temperature, rain and wind."""
    return f"sunny in {city}"


@tool(writes=False)
async def convert_currency(amount: float, currency: str) -> str:
    """Convert an amount of money into another currency at today's exchange rate."""
    return "12 EUR"


@tool(writes=False)
async def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return "sent"


@tool(terminal=True)
async def finish(answer: str) -> str:
    """Deliver the final answer."""
    return answer


TOOLS = [read_file, write_file, get_weather, convert_currency, send_email, finish]


def shown(request) -> list[str]:
    return [spec.name for spec in request.tools]


def test_bm25_ranks_the_matching_description_first() -> None:
    docs = ["read a file from the disk", "weather forecast for a city", "send an email"]
    scores = bm25_scores(docs, "What is the forecast in Paris? Check the weather.")
    assert scores[1] > 0 and scores[0] == 0 and scores[2] == 0
    # light stemming: "files" and "reading" find "file" and "read"
    assert bm25_scores(docs, "reading files")[0] > 0


def test_auto_follows_the_context_window() -> None:
    assert visible_limit("auto", 8192) == 8
    assert visible_limit("auto", 2048) == 4
    assert visible_limit("auto", 128_000) is None and visible_limit("auto", None) is None
    assert visible_limit(0, 8192) is None and visible_limit(3, None) == 3


async def test_the_model_sees_the_relevant_tools_and_finds_the_rest(make_stack) -> None:
    stack = make_stack(
        [
            call("search_tools", query="convert money currency"),
            call("convert_currency", amount=10, currency="EUR"),
            "It is 12 EUR.",
        ],
        TOOLS,
        visible_tools=3,
    )
    result = await Session(stack).run("What is the weather in Paris?")
    assert result.outcome is Outcome.COMPLETED, result
    first, second, third = stack.adapter.requests
    # the terminal tool is pinned; the weather tool matches; then search_tools
    assert shown(first) == ["get_weather", "finish", "search_tools"]
    assert "convert_currency" in result.tool_calls[0].result.content
    assert shown(second) == [*shown(first), "convert_currency"], "revealed tools are appended"
    assert shown(third) == shown(second)
    assert result.tool_calls[1].result.content == "12 EUR"


async def test_the_choice_holds_across_runs_of_a_session(make_stack) -> None:
    stack = make_stack(
        [call("search_tools", query="email"), "ok", "ok again"], TOOLS, visible_tools=3
    )
    session = Session(stack)
    await session.run("Is it going to rain in Oslo?")
    await session.run("And read notes.txt for me.")  # another topic: the prefix holds
    requests = stack.adapter.requests
    assert shown(requests[2]) == shown(requests[1]) == [*shown(requests[0]), "send_email"]
    assert requests[2].messages[0] == requests[1].messages[0], "the same system prompt"


async def test_text_tools_list_and_constrain_the_revealed_tools(make_stack) -> None:
    stack = make_stack(
        [
            json.dumps({"tool": "search_tools", "args": {"query": "send an email"}}),
            json.dumps({"tool": "send_email", "args": {"to": "a@b.c", "body": "hi"}}),
            json.dumps({"answer": "sent"}),
        ],
        TOOLS,
        native_tools=False,
        json_schema=True,
        visible_tools=3,
    )
    result = await Session(stack).run("What is the weather in Rome?")
    assert [r.result.content for r in result.tool_calls][1] == "sent"
    first, second, _ = stack.adapter.requests
    assert "send_email" not in first.messages[0].content
    assert "send_email" in second.messages[0].content
    assert "send_email" not in json.dumps(first.response_schema)
    assert "send_email" in json.dumps(second.response_schema)


async def test_off_by_default_for_an_unknown_window(make_stack) -> None:
    stack = make_stack(["hi"], TOOLS)
    await Session(stack).run("weather?")
    assert shown(stack.adapter.requests[0]) == [t.spec.name for t in TOOLS]


async def test_a_call_to_a_tool_not_shown_runs_and_shows_it(make_stack) -> None:
    stack = make_stack([call("send_email", to="a@b.c", body="hi"), "sent"], TOOLS, visible_tools=3)
    result = await Session(stack).run("What is the weather in Oslo?")
    assert result.tool_calls[0].result.content == "sent"
    first, second = (shown(r) for r in stack.adapter.requests)
    assert "send_email" not in first and second == [*first, "send_email"]


async def test_a_greeting_first_leaves_the_choice_to_the_first_real_question(make_stack) -> None:
    stack = make_stack(["hello", "sunny", "also sunny"], TOOLS, visible_tools=3)
    session = Session(stack)
    await session.run("Hi there!")
    await session.run("What is the weather in Paris?")
    await session.run("Thanks. And in Rome?")
    first, second, third = (shown(r) for r in stack.adapter.requests)
    assert first == ["finish", "search_tools"]
    assert second == third == ["get_weather", "finish", "search_tools"]


def test_run_v_and_doctor_say_how_many_tools_are_shown(tmp_path: Path) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        "adapter: {use: scripted, replies: ['ok']}\nstore: memory\n"
        "limits: {visible_tools: 2}\n"
        "tools:\n  - use: functions\n    import:\n"
        "      - agentframe_core.examples:add\n      - agentframe_core.examples:current_time\n"
        "      - agentframe_core.metatools:search_tool_results\n"
    )
    done = run_cli(tmp_path, "-v", "run", "add 2 and 3")
    assert done.returncode == 0, done.stderr
    assert "showing 1 of 3 tools (limits.visible_tools: 2); search_tools finds the rest" in (
        done.stderr
    )
    doctor = run_cli(tmp_path, "doctor", "--quick", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["tools"]["detail"] == (
        "3 tool(s); a run shows at most 2 of them (limits.visible_tools: 2) and search_tools "
        "for the rest"
    )
