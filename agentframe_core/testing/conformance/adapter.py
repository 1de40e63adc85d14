"""`AdapterConformance`: the behaviour every `LLMAdapter` owes the loop.

Subclass it and provide an `adapter` fixture that builds your adapter:

    class TestMyAdapter(AdapterConformance):
        @pytest.fixture
        def adapter(self, conformance_scenario):
            return MyAdapter(...)

Each test plays one `Scenario`: a request a competent model answers in a known way (say
hello; call the `add` tool; answer as JSON matching a schema). Real adapters ignore the
`conformance_scenario` fixture; a scripted one (the kernel's `ScriptedAdapter`, or a scripted
HTTP server) can use `conformance_scenario.example` to play its part.

What is checked is what the loop relies on, whatever the backend:
- `complete` returns a `Completion` with consistent usage, and never mutates the request;
- `stream` yields `str` deltas, then exactly one `Completion`, last, whose content is the
  concatenation of the deltas; a stream abandoned early or a cancelled call leaves the adapter
  usable;
- `capabilities` is a stable `Capabilities`; tool calls come back only when tools were offered
  and the adapter declares native tool calling, each with a unique id, an offered name and
  arguments valid against the tool's schema; a declared JSON-schema capability is honoured,
  streamed or not;
- any text, quotes, newlines, emoji included, reaches the backend without breaking the call
  (a hypothesis property), and arrives as it was sent where the kit subclass overrides
  `received_text`.

Every adapter must be an `LLMAdapter` (`REQUIRED`); what is checked only where the adapter
declares it (`native_tools`, `json_schema`, `streaming`) or the kit subclass overrides
`received_text` is in `OPTIONAL`, and the tests of one it lacks skip, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ...contract.llm import Capabilities, Completion, CompletionRequest, ToolSpec
from ...contract.model import Message, ToolCall
from ...contract.protocols import LLMAdapter
from ._verdicts import kit_lacks, require, undeclared

__all__ = ["ADD_TOOL", "ANSWER_SCHEMA", "SCENARIOS", "AdapterConformance", "Scenario"]

#: What the kit holds every adapter to: an adapter without it fails, told what to add.
REQUIRED = {"LLMAdapter": "`capabilities`, `complete` and `stream`: what the loop calls"}
#: What the kit checks only where the adapter declares it (or the kit subclass overrides it):
#: without one, its tests skip, saying so.
OPTIONAL = {
    "native_tools": "structured tool calls; without it the loop parses calls from the text",
    "json_schema": "decoding constrained to `response_schema`",
    "streaming": "a long reply streamed in more than one delta",
    "received_text": "a kit hook: what the backend received, to prove any text arrives intact",
}

ADD_TOOL = ToolSpec(
    name="add",
    description="Add two numbers and return the sum.",
    parameters={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
)

#: Small and bounded, so a constrained tiny model finishes well within `max_tokens`.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "integer", "minimum": 0, "maximum": 99},
        "unit": {"enum": ["apples", "pears"]},
    },
    "required": ["answer", "unit"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Scenario:
    """A request, and a reply a conforming model could give (for scripted adapters)."""

    name: str
    request: CompletionRequest
    example: dict[str, Any] = field(default_factory=dict)


def _user(text: str, system: str = "You are a terse, helpful assistant.") -> list[Message]:
    return [Message("system", system), Message("user", text)]


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in [
        Scenario(
            "reply",
            CompletionRequest(_user("Say hello in five words or fewer."), max_tokens=32),
            {"content": "Hello there, nice to meet you!"},
        ),
        Scenario(
            "short",
            CompletionRequest(_user("Count from one to twenty in words."), max_tokens=4),
            {"content": "One, two"},
        ),
        Scenario(  # slow enough to be cancelled mid-call by a scripted backend
            "slow",
            CompletionRequest(_user("Count from one to twenty in words."), max_tokens=48),
            {"content": "One, two, three, four, five.", "delay": 1.0},
        ),
        Scenario(
            "any_text",
            CompletionRequest(_user("(replaced by the property's text)"), max_tokens=4),
            {"content": "ok"},
        ),
        Scenario(
            "tool_call",
            CompletionRequest(
                _user("Use the add tool to add 2 and 3.", "Use the tools you are given."),
                tools=[ADD_TOOL],
                max_tokens=64,
            ),
            {"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
        ),
        Scenario(
            "tool_history",
            CompletionRequest(
                [
                    *_user("What is 2 + 3? Use the add tool.", "Use the tools you are given."),
                    Message("assistant", "", (ToolCall("call_1", "add", {"a": 2, "b": 3}),)),
                    Message("tool", "5", tool_call_id="call_1", name="add"),
                ],
                tools=[ADD_TOOL],
                max_tokens=32,
            ),
            {"content": "2 + 3 = 5."},
        ),
        Scenario(
            "json_schema",
            CompletionRequest(
                _user(
                    "I have 3 apples and eat one. How many apples are left? Answer in JSON.",
                    "You answer in JSON.",
                ),
                response_schema=ANSWER_SCHEMA,
                max_tokens=48,
            ),
            {"content": '{"answer": 2, "unit": "apples"}'},
        ),
    ]
}

F = TypeVar("F", bound=Callable[..., Any])


def plays(name: str) -> Callable[[F], F]:
    """Mark the scenario a test plays (read by the `conformance_scenario` fixture)."""

    def mark(test: F) -> F:
        test.conformance_scenario = name  # type: ignore[attr-defined]
        return test

    return mark


async def collect(stream: AsyncIterator[str | Completion]) -> tuple[list[str], Completion]:
    """Drain a stream, checking its shape: `str` deltas, then exactly one `Completion`, last."""
    items = [item async for item in stream]
    assert items, "stream() yielded nothing: it must end with a Completion"
    last = items[-1]
    assert isinstance(last, Completion), f"the last item of stream() is {type(last).__name__}"
    deltas: list[str] = []
    for item in items[:-1]:
        assert isinstance(item, str), (
            f"stream() yielded a {type(item).__name__} before its end: only str deltas "
            "may come before the one Completion"
        )
        deltas.append(item)
    assert last.content == "".join(deltas), (
        "the Completion's content differs from the concatenated deltas: "
        f"{last.content!r} != {''.join(deltas)!r}"
    )
    return deltas, last


def check_completion(completion: Completion, request: CompletionRequest) -> None:
    """What every reply must satisfy, whatever was asked."""
    assert isinstance(completion, Completion), (
        f"complete() must return a Completion, not {type(completion).__name__}"
    )
    assert isinstance(completion.content, str), (
        f"Completion.content must be a str, not {type(completion.content).__name__}"
    )
    assert isinstance(completion.tool_calls, tuple), (
        f"Completion.tool_calls must be a tuple, not {type(completion.tool_calls).__name__}"
    )
    usage = completion.usage
    for name in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        value = getattr(usage, name)
        assert isinstance(value, int) and value >= 0, (
            f"usage.{name} must be a non-negative int, it is {value!r}"
        )
    assert usage.cached_tokens <= usage.prompt_tokens or usage.prompt_tokens == 0, (
        f"cached_tokens ({usage.cached_tokens}) exceeds prompt_tokens ({usage.prompt_tokens})"
    )
    assert completion.finish_reason is None or isinstance(completion.finish_reason, str), (
        f"Completion.finish_reason must be None or a str, not {completion.finish_reason!r}"
    )
    if request.max_tokens is not None:
        # with no usage reported, each word is at least one token: a lower bound to hold to
        tokens = usage.completion_tokens or len(completion.content.split())
        assert tokens <= request.max_tokens, (
            f"{tokens} completion tokens (words, when usage is not reported) for "
            f"max_tokens={request.max_tokens}: {completion.content!r}"
        )
    if not request.tools:
        assert completion.tool_calls == (), "tool calls came back though no tool was offered"


def check_tool_calls(completion: Completion, request: CompletionRequest) -> None:
    offered = {tool.name: tool for tool in request.tools}
    assert completion.tool_calls, f"no tool call; the model replied {completion.content!r}"
    ids = [call.id for call in completion.tool_calls]
    assert len(set(ids)) == len(ids), f"tool call ids are not unique: {ids}"
    for call in completion.tool_calls:
        assert isinstance(call, ToolCall), f"a tool call must be a ToolCall, not {call!r}"
        assert isinstance(call.id, str) and call.id, f"a tool call needs a non-empty id: {call}"
        assert call.name in offered, f"tool {call.name!r} was not offered ({sorted(offered)})"
        assert isinstance(call.arguments, dict), (
            f"tool call arguments must be decoded into a dict, not {call.arguments!r}"
        )
        try:
            jsonschema.validate(call.arguments, offered[call.name].parameters)
        except jsonschema.ValidationError as err:
            raise AssertionError(
                f"the arguments of tool call {call.name}({call.arguments}) do not match the "
                f"tool's schema: {err.message}"
            ) from err


def check_json(completion: Completion, schema: dict[str, Any]) -> None:
    try:
        value = json.loads(completion.content)
    except ValueError as err:
        raise AssertionError(f"not JSON: {completion.content!r} ({err})") from err
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as err:
        raise AssertionError(
            f"the reply {completion.content!r} does not match response_schema: {err.message}"
        ) from err
    assert completion.tool_calls == (), (
        "a reply constrained to a JSON schema must hold no tool calls, it has "
        f"{completion.tool_calls}"
    )


#: Short texts of any characters a request can carry (no lone surrogates).
ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=80)
#: One adapter per test serves every example, and each subclass runs the same method.
ANY_TEXT_SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.differing_executors,
    ],
)


class AdapterConformance:
    """Subclass and provide the `adapter` fixture; see the module docstring."""

    @pytest.fixture
    def conformance_scenario(self, request: pytest.FixtureRequest) -> Scenario:
        """The scenario the running test plays."""
        name = getattr(request.function, "conformance_scenario", "reply")
        return SCENARIOS[name]

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

    def received_text(self, adapter: Any) -> str | None:
        """The text of the last user message the backend received, as it received it.
        Override where the test can see the backend (a scripted adapter or server); by
        default `test_any_text_arrives_intact` skips."""
        return None

    # -- capabilities ----------------------------------------------------------------------

    @plays("reply")
    def test_capabilities_are_stable(self, adapter: LLMAdapter) -> None:
        first = adapter.capabilities
        assert isinstance(first, Capabilities), (
            f"capabilities must be a Capabilities, not {type(first).__name__}"
        )
        assert adapter.capabilities == first, "capabilities changed between two reads"
        window = first.context_window
        assert window is None or (isinstance(window, int) and window > 0), (
            f"capabilities.context_window must be None or a positive int, not {window!r}"
        )

    def test_satisfies_the_protocol(self, adapter: LLMAdapter) -> None:
        require(adapter, LLMAdapter, role="adapter")

    # -- plain replies ---------------------------------------------------------------------

    @plays("reply")
    async def test_complete_returns_a_completion(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        completion = await adapter.complete(request)
        check_completion(completion, request)
        assert completion.content.strip(), "an empty reply to a plain question"

    @plays("reply")
    async def test_request_is_not_mutated(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        messages, tools = copy.deepcopy(request.messages), copy.deepcopy(request.tools)
        await adapter.complete(request)
        await collect(adapter.stream(request))
        assert request.messages == messages and request.tools == tools, (
            "complete() or stream() changed the request's messages or tools: an adapter "
            "must copy what it rewrites (the loop reuses the request)"
        )

    @plays("short")
    async def test_max_tokens_bounds_the_reply(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        check_completion(await adapter.complete(request), request)

    @plays("reply")
    async def test_concurrent_requests(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        results = await asyncio.gather(adapter.complete(request), adapter.complete(request))
        for completion in results:
            check_completion(completion, request)

    @plays("any_text")
    @ANY_TEXT_SETTINGS
    @given(text=ANY_TEXT)
    async def test_any_text_keeps_the_call_working(
        self, adapter: LLMAdapter, conformance_scenario: Scenario, text: str
    ) -> None:
        base = conformance_scenario.request
        request = replace(base, messages=[base.messages[0], Message("user", text)])
        check_completion(await adapter.complete(request), request)

    @plays("any_text")
    @ANY_TEXT_SETTINGS
    @given(text=ANY_TEXT)
    async def test_any_text_arrives_intact(
        self, adapter: LLMAdapter, conformance_scenario: Scenario, text: str
    ) -> None:
        if self.received_text(adapter) is None and type(self).received_text is (
            AdapterConformance.received_text
        ):
            kit_lacks(
                self,
                "does not override `received_text`",
                gives=OPTIONAL["received_text"],
                remedy="override `received_text`",
            )
        base = conformance_scenario.request
        request = replace(base, messages=[base.messages[0], Message("user", text)])
        await adapter.complete(request)
        received = self.received_text(adapter)
        assert received == text, (
            f"the backend received {received!r} for the user message {text!r}: the adapter "
            "must send the text as it is"
        )

    # -- streaming -------------------------------------------------------------------------

    @plays("reply")
    async def test_stream_yields_deltas_then_one_completion(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        deltas, completion = await collect(adapter.stream(request))
        check_completion(completion, request)
        assert completion.content.strip(), "an empty streamed reply to a plain question"
        if adapter.capabilities.streaming and len(completion.content.split()) > 2:
            assert len(deltas) > 1, "a streaming adapter delivered a long reply in one piece"

    @plays("reply")
    async def test_abandoned_stream_leaves_the_adapter_usable(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        stream = adapter.stream(request)
        assert isinstance(stream, AsyncIterator), (
            f"stream() must return an async iterator, not {type(stream).__name__}"
        )
        await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]
        check_completion(await adapter.complete(request), request)

    @plays("slow")
    async def test_a_call_cancelled_mid_stream_leaves_the_adapter_usable(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        """Cancelled after its first delta, or after 0.3 s without one: in either case while
        the call is still running (a call that already ended proves nothing)."""
        request = conformance_scenario.request
        first = asyncio.Event()

        async def consume() -> None:
            async for _ in adapter.stream(request):
                first.set()
                await asyncio.sleep(0)  # the canceller runs between two deltas

        task = asyncio.ensure_future(consume())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first.wait(), 0.3)
        assert not task.done(), (
            "the call ended before it could be cancelled: the `slow` scenario must still be "
            "streaming at its first delta, or 0.3 s after it started without one (a scripted "
            "backend plays the scenario's `delay`, 1 s)"
        )
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert task.cancelled(), (
            "a cancelled stream() must end with CancelledError, not swallow the cancellation"
        )
        check_completion(await adapter.complete(request), request)

    # -- tools -----------------------------------------------------------------------------

    @plays("tool_call")
    async def test_native_tool_call(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        request = conformance_scenario.request
        completion = await adapter.complete(request)
        check_completion(completion, request)
        if adapter.capabilities.native_tools:
            check_tool_calls(completion, request)
        else:
            assert completion.tool_calls == (), (
                "an adapter without native tool calling returned structured tool calls: "
                "the loop parses tool calls from its text"
            )

    @plays("tool_call")
    async def test_native_tool_call_streamed(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        if not adapter.capabilities.native_tools:
            undeclared(adapter, "native_tools", gives=OPTIONAL["native_tools"])
        request = conformance_scenario.request
        _, completion = await collect(adapter.stream(request))
        check_completion(completion, request)
        check_tool_calls(completion, request)

    @plays("tool_history")
    async def test_tool_call_history_is_accepted(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        if not adapter.capabilities.native_tools:
            undeclared(adapter, "native_tools", gives=OPTIONAL["native_tools"])
        request = conformance_scenario.request
        check_completion(await adapter.complete(request), request)

    # -- constrained decoding --------------------------------------------------------------

    @plays("json_schema")
    async def test_json_schema_is_honoured(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        if not adapter.capabilities.json_schema:
            undeclared(adapter, "json_schema", gives=OPTIONAL["json_schema"])
        request = conformance_scenario.request
        assert request.response_schema is not None, "the json_schema scenario has a schema"
        completion = await adapter.complete(request)
        check_completion(completion, request)
        check_json(completion, request.response_schema)

    @plays("json_schema")
    async def test_json_schema_is_honoured_streamed(
        self, adapter: LLMAdapter, conformance_scenario: Scenario
    ) -> None:
        if not adapter.capabilities.json_schema:
            undeclared(adapter, "json_schema", gives=OPTIONAL["json_schema"])
        request = conformance_scenario.request
        assert request.response_schema is not None, "the json_schema scenario has a schema"
        _, completion = await collect(adapter.stream(request))
        check_completion(completion, request)
        check_json(completion, request.response_schema)
