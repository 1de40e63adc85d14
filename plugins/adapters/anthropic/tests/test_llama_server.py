"""The adapter against a real Messages API server: llama.cpp's llama-server, which serves
`/v1/messages`, with SmolLM2-135M; and the official `anthropic` SDK against the same server
as the reference client for the wire format."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from agentframe_adapter_anthropic import AnthropicAdapter, AnthropicOptions

from agentframe_core import Completion, CompletionRequest, Message, ToolCall
from agentframe_core.testing import ADD_TOOL, AdapterConformance

anthropic = pytest.importorskip("anthropic", reason="the [test] extra installs the SDK")

SYSTEM = Message("system", "You are a terse, helpful assistant.")
TOOL_TURN = [
    Message("system", "Use the tools you are given."),
    Message("user", "What is 2+3? Use the add tool."),
    Message("assistant", "", (ToolCall("toolu_1", "add", {"a": 2, "b": 3}),)),
    Message("tool", "5", tool_call_id="toolu_1", name="add"),
]


def llama_adapter(url: str, **options: Any) -> AnthropicAdapter:
    base = {"base_url": url, "api_key_env": None, "temperature": 0.0}
    return AnthropicAdapter(AnthropicOptions(**{**base, **options}))


async def complete_and_stream(
    adapter: AnthropicAdapter, request: CompletionRequest
) -> tuple[Completion, Completion]:
    items = [item async for item in adapter.stream(request)]
    streamed = items[-1]
    assert isinstance(streamed, Completion)
    return await adapter.complete(request), streamed


class TestAnthropicAdapterOnLlamaServer(AdapterConformance):
    """SmolLM2's own template drops tools: the loop renders them into the prompt."""

    @pytest.fixture
    def adapter(self, llama_url: str) -> AnthropicAdapter:
        return llama_adapter(llama_url, native_tools=False)


NO_CALLS_FROM_SMOLLM2 = (
    "SmolLM2-135M does not start its reply with <tool_call> (measured for this adapter: it "
    "answers the add question in prose, with or without tool_choice any), and llama-server's "
    "/v1/messages carries no response_format, so no constrained decoding forces a call"
)


class TestAnthropicAdapterNativeToolsOnLlamaServer(AdapterConformance):
    """`tools`, `tool_use` and `tool_result` blocks through llama-server's Messages API
    conversion and its Jinja engine with the ChatML-with-tools template."""

    @pytest.fixture
    def adapter(self, llama_tools_url: str) -> AnthropicAdapter:
        return llama_adapter(llama_tools_url)

    async def test_native_tool_call(self) -> None:  # type: ignore[override]
        pytest.skip(NO_CALLS_FROM_SMOLLM2)

    async def test_native_tool_call_streamed(self) -> None:  # type: ignore[override]
        pytest.skip(NO_CALLS_FROM_SMOLLM2)


async def test_streaming_and_not_give_the_same_conversation(llama_tools_url: str) -> None:
    """Three turns, each answered both ways with greedy decoding from the same cached
    prefix (the first call of each warms it: a cold prompt is computed in other batches,
    which moves the last bits of the logits): the same text, stop and token counts."""
    adapter = llama_adapter(llama_tools_url)
    messages = [SYSTEM, Message("user", "Name three colours.")]
    for follow_up in ("Name one more.", "Which of them is the sky?", None):
        request = CompletionRequest(list(messages), tools=[ADD_TOOL], max_tokens=24)
        await adapter.complete(request)
        whole, streamed = await complete_and_stream(adapter, request)
        assert streamed.content == whole.content and whole.content.strip()
        assert streamed.finish_reason == whole.finish_reason
        assert streamed.usage.prompt_tokens == whole.usage.prompt_tokens
        assert streamed.usage.completion_tokens == whole.usage.completion_tokens
        messages.append(Message("assistant", whole.content))
        if follow_up:
            messages.append(Message("user", follow_up))
    await adapter.aclose()


async def test_the_sdk_agrees_with_the_adapter(llama_tools_url: str) -> None:
    """The official SDK sends the adapter's own body (tools, system and cache breakpoints,
    a `tool_use`/`tool_result` history) to the same server: the same reply, stop reason and
    token counts, streamed and not; the SDK's typed parse accepts every field."""
    adapter = llama_adapter(llama_tools_url, model="tools")  # the SDK needs a model
    request = CompletionRequest(TOOL_TURN, tools=[ADD_TOOL], max_tokens=32)
    body = adapter.body(request)
    assert body["messages"][1]["content"][0]["type"] == "tool_use"
    assert "cache_control" in body["tools"][-1]
    sdk = anthropic.AsyncAnthropic(
        base_url=llama_tools_url.removesuffix("/v1"), api_key="unused", max_retries=0
    )
    await adapter.complete(request)  # warm the prefix, as above
    whole, streamed = await complete_and_stream(adapter, request)
    # fields this SDK version has no parameter for (sampling, here) go in its `extra_body`
    named = set(inspect.signature(sdk.messages.create).parameters)
    kwargs = {k: v for k, v in body.items() if k in named}
    kwargs["extra_body"] = {k: v for k, v in body.items() if k not in named}
    reference = await sdk.messages.create(**kwargs)
    async with sdk.messages.stream(**kwargs) as stream:
        reference_streamed = await stream.get_final_message()
    for message in (reference, reference_streamed):
        text = "".join(b.text for b in message.content if b.type == "text")
        assert text == whole.content == streamed.content
        assert {"end_turn": "stop", "max_tokens": "length"}[message.stop_reason or ""] == (
            whole.finish_reason
        )
        usage = message.usage
        prompt = usage.input_tokens + (usage.cache_read_input_tokens or 0)
        assert prompt == whole.usage.prompt_tokens
        assert usage.output_tokens == whole.usage.completion_tokens
    await sdk.close()
    await adapter.aclose()


async def test_tools_and_results_reach_the_prompt(llama_tools_url: str) -> None:
    """The template renders the offered tools and the tool_use/tool_result history: a
    request with them costs the model more prompt than the same question without."""
    bare = CompletionRequest(TOOL_TURN[:2], max_tokens=1)
    with_tools = CompletionRequest(TOOL_TURN[:2], tools=[ADD_TOOL], max_tokens=1)
    history = CompletionRequest(TOOL_TURN, tools=[ADD_TOOL], max_tokens=1)
    adapter = llama_adapter(llama_tools_url)
    sizes = [(await adapter.complete(r)).usage.prompt_tokens for r in (bare, with_tools, history)]
    assert sizes[1] > sizes[0] + 100 and sizes[2] > sizes[1] + 10, sizes


async def test_cached_prompt_tokens_are_reported(llama_url: str) -> None:
    """llama-server reports its KV-cache reuse as `cache_read_input_tokens`."""
    adapter = llama_adapter(llama_url)
    request = CompletionRequest(
        [Message("system", "You answer briefly. " * 10), Message("user", "Name a fruit.")],
        max_tokens=6,
    )
    await adapter.complete(request)
    again, streamed = await complete_and_stream(adapter, request)
    for completion in (again, streamed):
        assert completion.usage.prompt_tokens > 30
        assert completion.usage.cached_tokens >= completion.usage.prompt_tokens - 2
