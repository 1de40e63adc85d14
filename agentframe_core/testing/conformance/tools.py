"""ToolDispatcherConformance: what every tool dispatcher must guarantee.

Subclass it and provide two fixtures: `dispatcher` (your part) and `sample_calls` (a list of
`ToolCall(id, name, arguments)` that your tools answer without error; at least one). Each call
gets `ctx`, a `RunContext` of session "conformance" on a stack with an in-memory store and no
model.

The rules, each checked by one test:

- `tools(ctx)` offers at least one `Tool`; names are unique, non-empty, and made of letters,
  digits, `_`, `-` and `.` only; each `parameters` is a valid JSON Schema (2020-12) of
  `"type": "object"`;
- every sample call names an offered tool, its arguments match that tool's schema, and
  `dispatch` returns a `ToolResult` with `str` content and `is_error` false;
- a call to a tool the dispatcher does not offer gives an error result or raises (the loop
  never sends one, but must not get a success for it);
- properties (hypothesis): a sample call succeeds under any call id, also when several copies
  of it run at once (the loop runs a reply's calls concurrently), so sample calls must be
  repeatable; any tool name the dispatcher does not offer is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, SchemaError, ValidationError

from agentframe_core.contract.model import ToolCall
from agentframe_core.contract.protocols import ToolDispatcher
from agentframe_core.contract.tools import Tool, ToolResult

from ._stack import run_context
from ._verdicts import require

__all__ = ["ToolDispatcherConformance"]

#: What the kit holds every dispatcher to: a dispatcher without it fails, told what to add.
REQUIRED = {"ToolDispatcher": "`tools(ctx)` and `dispatch(call, ctx)`"}
#: Nothing is optional: every dispatcher is held to every rule.
OPTIONAL: dict[str, str] = {}

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")

_PROPERTY = settings(
    max_examples=25,
    deadline=None,
    # One dispatcher serves every example, and each subclass runs these same methods.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.differing_executors,
    ],
)


def _check_tool(tool: Any) -> None:
    assert isinstance(tool, Tool), f"tools() returned {tool!r}, not a Tool"
    bad = sorted(set(tool.name) - _NAME_CHARS)
    assert tool.name and not bad, f"tool name {tool.name!r}: empty or has characters {bad}"
    try:
        Draft202012Validator.check_schema(tool.parameters)
    except SchemaError as err:
        raise AssertionError(
            f"tool {tool.name!r}: parameters is not a valid JSON Schema (2020-12): {err.message}"
        ) from err
    kind = tool.parameters.get("type")
    assert kind == "object", f"{tool.name}: parameters must be of type object, not {kind!r}"


async def _succeeds(dispatcher: ToolDispatcher, call: ToolCall) -> ToolResult:
    result = await dispatcher.dispatch(call, run_context())
    assert isinstance(result, ToolResult), f"{call.name}: dispatch returned {result!r}"
    assert isinstance(result.content, str), f"{call.name}: content is {result.content!r}"
    assert not result.is_error, f"{call.name}({call.arguments}) failed: {result.content}"
    return result


class ToolDispatcherConformance:
    """Subclass and provide `dispatcher` and `sample_calls`; see the module docstring."""

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

    #: Concurrent copies of each sample call in the concurrency property.
    concurrency: ClassVar[int] = 4

    @pytest.fixture
    def dispatcher(self) -> ToolDispatcher:
        raise NotImplementedError("provide a `dispatcher` fixture: your part")

    @pytest.fixture
    def sample_calls(self) -> list[ToolCall]:
        raise NotImplementedError(
            "provide a `sample_calls` fixture: ToolCall(id, name, arguments) that succeed"
        )

    async def test_is_a_dispatcher(self, dispatcher: Any) -> None:
        require(dispatcher, ToolDispatcher, role="tool dispatcher")

    async def test_tools_are_described(self, dispatcher: ToolDispatcher) -> None:
        tools = await dispatcher.tools(run_context())
        assert tools, "a dispatcher should offer at least one tool"
        names = [t.name for t in tools]
        twice = sorted({n for n in names if names.count(n) > 1})
        assert not twice, f"tool names must be unique; offered twice: {twice}"
        for tool in tools:
            _check_tool(tool)

    async def test_sample_calls_succeed_and_match_the_schema(
        self, dispatcher: ToolDispatcher, sample_calls: list[ToolCall]
    ) -> None:
        assert sample_calls, "`sample_calls` is empty: give at least one call that succeeds"
        tools = {t.name: t for t in await dispatcher.tools(run_context())}
        for call in sample_calls:
            assert call.name in tools, (
                f"sample call to unknown tool {call.name!r} ({sorted(tools)})"
            )
            try:
                Draft202012Validator(tools[call.name].parameters).validate(call.arguments)
            except ValidationError as err:
                raise AssertionError(
                    f"sample call {call.name}({call.arguments}) does not match the tool's "
                    f"schema: {err.message}"
                ) from err
            await _succeeds(dispatcher, call)

    async def test_unknown_tool_is_an_error_result_or_exception(
        self, dispatcher: ToolDispatcher
    ) -> None:
        await self._refused(dispatcher, "no-such-tool-anywhere")

    @_PROPERTY
    @given(call_id=st.text(max_size=40), data=st.data())
    async def test_property_any_call_id_and_concurrent_calls(
        self,
        dispatcher: ToolDispatcher,
        sample_calls: list[ToolCall],
        call_id: str,
        data: st.DataObject,
    ) -> None:
        """Ids are opaque, and calls do not interfere: a sample call under any id, run with
        copies of itself at once, succeeds each time."""
        chosen = data.draw(st.sampled_from(sample_calls), label="sample call")
        copies = [
            ToolCall(f"{call_id}{n}", chosen.name, dict(chosen.arguments))
            for n in range(self.concurrency)
        ]
        await asyncio.gather(*(_succeeds(dispatcher, call) for call in copies))

    @_PROPERTY
    @given(name=st.text(min_size=1, max_size=30))
    async def test_property_any_unknown_name_is_refused(
        self, dispatcher: ToolDispatcher, name: str
    ) -> None:
        offered = {t.name for t in await dispatcher.tools(run_context())}
        if name not in offered:
            await self._refused(dispatcher, name)

    async def _refused(self, dispatcher: ToolDispatcher, name: str) -> None:
        call = ToolCall("unknown-1", name, {})
        try:
            result = await dispatcher.dispatch(call, run_context())
        except Exception:
            return  # the loop wraps exceptions into error results
        assert isinstance(result, ToolResult) and result.is_error, (
            f"a call to the unknown tool {name!r} did not fail: {result!r}"
        )
