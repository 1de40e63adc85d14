"""The kernel's `scripted` adapter passes the adapter conformance kit, in both of its modes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import jsonschema
import pytest

from agentframe_core.contract.llm import Completion, CompletionRequest, Usage
from agentframe_core.contract.model import ToolCall
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

    def received_text(self, adapter: ScriptedAdapter) -> str | None:
        return adapter.requests[-1].messages[-1].content if adapter.requests else None


class TestScriptedTextTools(AdapterConformance):
    """No native tool calls: the loop parses tool calls from text, so none come back."""

    @pytest.fixture
    def adapter(self, conformance_scenario: Scenario) -> ScriptedAdapter:
        example = conformance_scenario.example
        reply = {"content": example.get("content", '{"tool": "add", "args": {"a": 2, "b": 3}}')}
        return ScriptedAdapter([reply], cycle=True, native_tools=False, json_schema=False)

    def received_text(self, adapter: ScriptedAdapter) -> str | None:
        return adapter.requests[-1].messages[-1].content if adapter.requests else None


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


def test_kit_bounds_max_tokens_when_no_usage_is_reported() -> None:
    short = SCENARIOS["short"].request  # max_tokens=4
    with pytest.raises(AssertionError, match="max_tokens"):
        check_completion(Completion("one two three four five six seven"), short)
    check_completion(Completion("One, two"), short)


class _Mangling(ScriptedAdapter):
    """Sends the user's text to its 'backend' trimmed and without newlines."""

    async def complete(self, request: CompletionRequest) -> Completion:
        last = request.messages[-1]
        mangled = replace(last, content=" ".join(last.content.split()))
        return await super().complete(replace(request, messages=[*request.messages[:-1], mangled]))


class _MangledKit(TestScriptedNativeTools):
    @pytest.fixture
    def adapter(self, conformance_scenario: Scenario) -> ScriptedAdapter:
        return _Mangling([conformance_scenario.example], cycle=True)


async def test_kit_rejects_an_adapter_that_mangles_text() -> None:
    kit = _MangledKit()
    adapter = _Mangling([SCENARIOS["any_text"].example], cycle=True)
    with pytest.raises(AssertionError):
        await kit.test_any_text_arrives_intact.hypothesis.inner_test(  # type: ignore[attr-defined]
            kit, adapter, SCENARIOS["any_text"], " a\nb "
        )


async def test_kit_rejects_a_cancellation_test_that_cancels_nothing() -> None:
    kit = TestScriptedNativeTools()
    fast = ScriptedAdapter(["done"], cycle=True)  # one delta, at once: over before a cancel

    class _Whole(ScriptedAdapter):
        async def stream(self, request: CompletionRequest) -> AsyncIterator[str | Completion]:
            yield await self.complete(request)

    for adapter in (fast, _Whole(["done"], cycle=True)):
        with pytest.raises(AssertionError, match="before it could be cancelled"):
            await kit.test_a_call_cancelled_mid_stream_leaves_the_adapter_usable(
                adapter, SCENARIOS["slow"]
            )
