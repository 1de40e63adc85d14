"""The kernel's `scripted` adapter passes the adapter conformance kit, in both of its modes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import jsonschema
import pytest

from agentframe_core.llm import Completion, CompletionRequest, Usage
from agentframe_core.model import ToolCall
from agentframe_core.testing import AdapterConformance, ScriptedAdapter
from agentframe_core.testing.conformance.adapter import (
    ANSWER_SCHEMA,
    SCENARIOS,
    Scenario,
    check_completion,
    check_json,
    check_tool_calls,
    collect,
)


class TestScriptedNativeTools(AdapterConformance):
    """Native tool calls and a (scripted) JSON-schema capability."""

    @pytest.fixture
    def adapter(self, conformance_scenario: Scenario) -> ScriptedAdapter:
        return ScriptedAdapter(
            [conformance_scenario.example], cycle=True, native_tools=True, json_schema=True
        )


class TestScriptedTextTools(AdapterConformance):
    """No native tool calls: the loop parses tool calls from text, so none come back."""

    @pytest.fixture
    def adapter(self, conformance_scenario: Scenario) -> ScriptedAdapter:
        example = conformance_scenario.example
        reply = {"content": example.get("content", '{"tool": "add", "args": {"a": 2, "b": 3}}')}
        return ScriptedAdapter([reply], cycle=True, native_tools=False, json_schema=False)


# -- the kit catches broken adapters -------------------------------------------------------------


class _Broken(ScriptedAdapter):
    """A scripted adapter whose stream breaks one rule of the contract."""

    def __init__(self, fault: str) -> None:
        super().__init__(["Hello there, friend."], cycle=True)
        self.fault = fault

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
        completion = await self.complete(request)
        if self.fault == "completion_first":
            yield completion
            yield completion.content
        elif self.fault == "two_completions":
            yield completion.content
            yield completion
            yield completion
        elif self.fault == "lost_delta":
            yield completion.content[:5]
            yield completion
        elif self.fault == "no_completion":
            yield completion.content


@pytest.mark.parametrize(
    "fault", ["completion_first", "two_completions", "lost_delta", "no_completion"]
)
async def test_kit_rejects_a_broken_stream(fault: str) -> None:
    adapter = _Broken(fault)
    with pytest.raises(AssertionError):
        await collect(adapter.stream(SCENARIOS["reply"].request))


def test_kit_rejects_bad_tool_calls() -> None:
    request = SCENARIOS["tool_call"].request
    for calls in [
        (),
        (ToolCall("1", "multiply", {"a": 2, "b": 3}),),
        (ToolCall("1", "add", {"a": "two", "b": 3}),),
        (ToolCall("1", "add", {"a": 2, "b": 3}), ToolCall("1", "add", {"a": 1, "b": 1})),
        (ToolCall("", "add", {"a": 2, "b": 3}),),
    ]:
        with pytest.raises((AssertionError, jsonschema.ValidationError)):
            check_tool_calls(Completion(tool_calls=calls), request)


def test_kit_rejects_bad_replies() -> None:
    reply = SCENARIOS["reply"].request
    with pytest.raises(AssertionError, match="no tool was offered"):
        check_completion(Completion(tool_calls=(ToolCall("1", "add", {}),)), reply)
    with pytest.raises(AssertionError, match="cached_tokens"):
        check_completion(Completion("hi", usage=Usage(10, 2, 11)), reply)
    with pytest.raises(AssertionError, match="max_tokens"):
        check_completion(Completion("hi", usage=Usage(10, 40)), reply)
    with pytest.raises((AssertionError, jsonschema.ValidationError)):
        check_json(Completion('{"answer": 2, "unit": "plums"}'), ANSWER_SCHEMA)
    with pytest.raises(AssertionError, match="not JSON"):
        check_json(Completion("two apples"), ANSWER_SCHEMA)
