"""ToolDispatcherConformance: what every tool dispatcher must guarantee.

Subclass it and provide a `dispatcher` fixture, and a `sample_calls` fixture: calls (by tool
name and arguments) that your tools should answer without error.
"""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from agentframe_core.model import ToolCall
from agentframe_core.protocols import ToolDispatcher
from agentframe_core.tools import Tool, ToolResult

from ._stack import run_context


class ToolDispatcherConformance:
    @pytest.fixture
    def dispatcher(self) -> ToolDispatcher:
        raise NotImplementedError("provide a `dispatcher` fixture")

    @pytest.fixture
    def sample_calls(self) -> list[ToolCall]:
        raise NotImplementedError("provide `sample_calls`: calls your tools answer without error")

    async def test_tools_are_described(self, dispatcher: ToolDispatcher) -> None:
        tools = await dispatcher.tools(run_context())
        assert tools, "a dispatcher should offer at least one tool"
        names = [t.name for t in tools]
        assert len(names) == len(set(names)), "tool names must be unique"
        for tool in tools:
            assert isinstance(tool, Tool)
            assert tool.name and all(c.isalnum() or c in "_-." for c in tool.name), tool.name
            Draft202012Validator.check_schema(tool.parameters)
            assert tool.parameters.get("type") == "object", f"{tool.name}: arguments are an object"

    async def test_sample_calls_succeed_and_match_the_schema(
        self, dispatcher: ToolDispatcher, sample_calls: list[ToolCall]
    ) -> None:
        tools = {t.name: t for t in await dispatcher.tools(run_context())}
        for call in sample_calls:
            assert call.name in tools, f"sample call to unknown tool {call.name!r}"
            Draft202012Validator(tools[call.name].parameters).validate(call.arguments)
            result = await dispatcher.dispatch(call, run_context())
            assert isinstance(result, ToolResult) and isinstance(result.content, str)
            assert not result.is_error, f"{call.name}: {result.content}"

    async def test_unknown_tool_is_an_error_result_or_exception(
        self, dispatcher: ToolDispatcher
    ) -> None:
        call = ToolCall("x", "no-such-tool-anywhere", {})
        try:
            result = await dispatcher.dispatch(call, run_context())
        except Exception:
            return  # the loop wraps exceptions into error results
        assert result.is_error
