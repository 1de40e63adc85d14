"""Function tools: the JSON schema comes from the signature and the docstring."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from agentframe_core import FunctionToolset, RunContext, ToolCall, tool
from agentframe_core.engine.functions import import_tool


class Point(BaseModel):
    x: int
    y: int


@tool
def search(query: str, limit: int = 5, mode: Literal["fast", "deep"] = "fast") -> list[str]:
    """Search the notes.

    Longer explanation that belongs to the description.

    Args:
        query: what to look for,
            over several lines
        limit: how many results
        mode: how hard to look

    Returns:
        matching lines
    """
    return [query] * limit


def test_schema_from_signature_and_docstring():
    spec = search.spec
    assert spec.name == "search"
    assert spec.description == (
        "Search the notes.\n\nLonger explanation that belongs to the description."
    )
    props = spec.parameters["properties"]
    assert spec.parameters["required"] == ["query"]
    assert props["query"]["type"] == "string"
    assert props["query"]["description"] == "what to look for, over several lines"
    assert props["limit"] == {
        "default": 5,
        "description": "how many results",
        "title": "Limit",
        "type": "integer",
    }
    assert props["mode"]["enum"] == ["fast", "deep"]
    assert spec.parameters["additionalProperties"] is False


async def test_sync_function_runs_and_result_is_json():
    toolset = FunctionToolset([search])
    result = await toolset.dispatch(ToolCall("1", "search", {"query": "a", "limit": 2}), None)
    assert result.content == '["a", "a"]' and not result.is_error


async def test_nested_models_and_context_parameter():
    @tool(name="move", description="Move a point.", writes=True)
    async def move(ctx: RunContext, p: Point, dx: int) -> Point:
        return Point(x=p.x + dx, y=p.y)

    assert move.spec.name == "move" and move.spec.writes
    assert "ctx" not in move.spec.parameters["properties"]
    toolset = FunctionToolset([move])
    result = await toolset.dispatch(ToolCall("1", "move", {"p": {"x": 1, "y": 2}, "dx": 3}), None)
    assert result.content == '{"x":4,"y":2}'
    bad = await toolset.dispatch(ToolCall("2", "move", {"p": {"x": "a"}, "dx": 3}), None)
    assert bad.is_error and "p.x" in bad.content and "p.y" in bad.content


def test_import_tool_errors_are_clear():
    assert import_tool("agentframe_core.examples:add").spec.name == "add"
    with pytest.raises(ValueError, match="not of the form"):
        import_tool("no_colon")
    with pytest.raises(ValueError, match="cannot import 'no_such_module_x'"):
        import_tool("no_such_module_x:f")
    with pytest.raises(ValueError, match="has no attribute 'nope'"):
        import_tool("agentframe_core.examples:nope")


def test_duplicate_names_are_refused():
    with pytest.raises(ValueError, match="two tools are named 'search'"):
        FunctionToolset([search, search])


def test_varargs_cannot_be_described():
    with pytest.raises(TypeError, match="cannot be described"):

        @tool
        def bad(*args: int) -> None:
            """Nope."""
