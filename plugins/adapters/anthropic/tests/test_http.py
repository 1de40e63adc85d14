"""The adapter over real HTTP (a local scripted Messages API server): replies, tools,
thinking, caching, retries, errors, and the SSE edge cases."""

from __future__ import annotations

import json
import socket
import time

import pytest
from agentframe_adapter_anthropic import (
    AnthropicAdapter,
    AnthropicOptions,
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    ModelNotFoundError,
    OverloadedError,
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from agentframe_adapter_anthropic.stream import MAX_BLOCKS
from agentframe_adapter_anthropic.testing import Action, ScriptedServer

from agentframe_core import Completion, CompletionRequest, Message, ToolSpec

HELLO = CompletionRequest([Message("user", "Say hello.")])
ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {}})


def adapter_for(server: ScriptedServer, **options: object) -> AnthropicAdapter:
    fast = {"backoff_base": 0.01, "backoff_max": 2.0, "api_key_env": None}
    return AnthropicAdapter(AnthropicOptions(base_url=server.url, **{**fast, **options}))


async def drain(
    adapter: AnthropicAdapter, request: CompletionRequest
) -> tuple[list[str], Completion]:
    items = [item async for item in adapter.stream(request)]
    last = items[-1]
    assert isinstance(last, Completion)
    return [i for i in items[:-1] if isinstance(i, str)], last


def events(*items: dict[str, object]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in items)


START = {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 3}}}
TEXT_BLOCK = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
HI = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}


# -- replies ----------------------------------------------------------------------------------


async def test_complete_sends_the_request_and_reads_the_reply(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_ANTHROPIC_KEY", "sk-ant-value")
    server.push(Action.reply("Hi there."))
    adapter = adapter_for(
        server, model="scripted-model", temperature=0.2, api_key_env="MY_ANTHROPIC_KEY"
    )
    completion = await adapter.complete(
        CompletionRequest([Message("system", "Be kind."), Message("user", "Say hi.")], max_tokens=9)
    )
    assert (completion.content, completion.finish_reason) == ("Hi there.", "stop")
    assert completion.usage.completion_tokens == 2 and completion.model == "scripted-model"
    sent = server.requests[-1]
    assert sent["headers"]["x-api-key"] == "sk-ant-value"
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    body = sent["body"]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("scripted-model", 9, 0.2)
    assert body["system"][0]["text"] == "Be kind."
    assert body["messages"][0]["content"][0]["text"] == "Say hi."
    await adapter.aclose()


async def test_streamed_tool_input_is_assembled(server: ScriptedServer) -> None:
    server.push(Action.reply("Adding.", [{"name": "add", "arguments": {"a": 2, "b": 30}}]))
    deltas, completion = await drain(
        adapter_for(server), CompletionRequest([Message("user", "2+30?")], tools=[ADD])
    )
    assert "".join(deltas) == completion.content == "Adding."
    (call,) = completion.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_0001", "add", {"a": 2, "b": 30})
    assert completion.finish_reason == "tool_calls"
    body = server.requests[-1]["body"]
    assert body["stream"] is True and body["tools"][0]["input_schema"] == ADD.parameters


@pytest.mark.parametrize("streamed", [False, True])
async def test_thinking_goes_back_unchanged_with_the_tool_results(
    server: ScriptedServer, streamed: bool
) -> None:
    """The API needs the thinking blocks of the turn that called tools, signature included,
    when the results follow; the kernel's messages cannot hold them, the adapter does."""
    thoughts = (("The user wants 2+3; the add tool does that.", "c2lnbmF0dXJl=="),)
    call = {"name": "add", "arguments": {"a": 2, "b": 3}}
    server.push(Action.reply("", [call], thinking=thoughts), Action.reply("5."))
    adapter = adapter_for(server, thinking_budget=2048, max_tokens=4096)
    request = CompletionRequest([Message("user", "2+3?")], tools=[ADD])
    first = (await drain(adapter, request))[1] if streamed else await adapter.complete(request)
    assert first.content == "" and first.tool_calls[0].name == "add"
    history = [
        *request.messages,
        Message("assistant", "", first.tool_calls),
        Message("tool", "5", tool_call_id=first.tool_calls[0].id, name="add"),
    ]
    await adapter.complete(CompletionRequest(history, tools=[ADD]))
    body = server.requests[-1]["body"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": thoughts[0][0], "signature": thoughts[0][1]},
        {
            "type": "tool_use",
            "id": first.tool_calls[0].id,
            "name": "add",
            "input": call["arguments"],
        },
    ]


@pytest.mark.parametrize(
    ("stop", "finish"), [("refusal", "content_filter"), ("pause_turn", "length")]
)
async def test_stop_reasons_reach_the_loop_mapped(
    server: ScriptedServer, stop: str, finish: str
) -> None:
    server.push(
        Action.reply("Partial", stop_reason=stop), Action.reply("Partial", stop_reason=stop)
    )
    adapter = adapter_for(server)
    assert (await adapter.complete(HELLO)).finish_reason == finish
    assert (await drain(adapter, HELLO))[1].finish_reason == finish


async def test_max_tokens_cuts_the_reply_as_length(server: ScriptedServer) -> None:
    server.push(Action.reply("one two three four"))
    completion = await adapter_for(server).complete(
        CompletionRequest([Message("user", "count")], max_tokens=2)
    )
    assert (completion.content, completion.finish_reason) == ("one two", "length")


# -- prompt caching -----------------------------------------------------------------------------


async def test_the_next_turn_reads_the_prefix_the_last_one_wrote(server: ScriptedServer) -> None:
    system = Message("system", "You are a careful assistant. " * 40)
    turn = [system, Message("user", "What is 2+3?")]
    server.push(Action.reply("", [{"name": "add", "arguments": {"a": 2, "b": 3}}]))
    adapter = adapter_for(server)
    first = await adapter.complete(CompletionRequest(turn, tools=[ADD]))
    assert first.usage.cached_tokens == 0 and first.usage.prompt_tokens > 300
    turn += [
        Message("assistant", "", first.tool_calls),
        Message("tool", "5", tool_call_id=first.tool_calls[0].id, name="add"),
    ]
    _, second = await drain(adapter, CompletionRequest(turn, tools=[ADD]))
    # everything the first request sent is read back; only the call and its result are new
    assert second.usage.cached_tokens == first.usage.prompt_tokens
    assert second.usage.prompt_tokens > second.usage.cached_tokens


async def test_cache_off_sends_no_breakpoint_and_reads_nothing(server: ScriptedServer) -> None:
    adapter = adapter_for(server, cache="off")
    request = CompletionRequest([Message("system", "Long. " * 200), Message("user", "Hi")])
    for _ in range(2):
        assert (await adapter.complete(request)).usage.cached_tokens == 0
    assert "cache_control" not in json.dumps(server.requests[-1]["body"])


# -- retries ------------------------------------------------------------------------------------


async def test_429_honours_retry_after_then_succeeds(server: ScriptedServer) -> None:
    server.push(
        Action.error(429, "rate_limit_error", "slow down", {"retry-after": "1"}),
        Action.reply("done"),
    )
    started = time.monotonic()
    assert (await adapter_for(server).complete(HELLO)).content == "done"
    assert time.monotonic() - started >= 1.0, "retry-after: 1 was not honoured"
    assert len(server.requests) == 2


async def test_retry_after_longer_than_backoff_max_fails_at_once(server: ScriptedServer) -> None:
    server.push(Action.error(429, "rate_limit_error", "quota", {"retry-after": "3600"}))
    with pytest.raises(RateLimitError, match="3600s") as caught:
        await adapter_for(server).complete(HELLO)
    assert caught.value.status == 429 and len(server.requests) == 1


async def test_overloaded_529_is_retried(server: ScriptedServer) -> None:
    server.push(Action.error(529, "overloaded_error", "Overloaded"), Action.reply("ok"))
    _, completion = await drain(adapter_for(server), HELLO)
    assert completion.content == "ok" and len(server.requests) == 2


async def test_overloaded_after_every_retry_is_an_overloaded_error(
    server: ScriptedServer,
) -> None:
    server.default = Action.error(529, "overloaded_error", "Overloaded")
    with pytest.raises(OverloadedError, match=r"overloaded \(529\) after 3 attempt"):
        await adapter_for(server, max_retries=2).complete(HELLO)
    assert len(server.requests) == 3


async def test_500_after_every_retry_names_the_url(server: ScriptedServer) -> None:
    server.default = Action.error(500, "api_error", "the GPU caught fire")
    with pytest.raises(ServerError, match="GPU caught fire") as caught:
        await adapter_for(server, max_retries=1).complete(HELLO)
    assert server.url in str(caught.value) and len(server.requests) == 2


async def test_a_dropped_connection_is_retried(server: ScriptedServer) -> None:
    server.push(Action.drop(), Action.reply("back"))
    assert (await adapter_for(server).complete(HELLO)).content == "back"
    server.push(Action.drop(), Action.drop())
    with pytest.raises(ConnectionFailedError, match="after 2 attempt"):
        await adapter_for(server, max_retries=1).complete(HELLO)


async def test_a_read_timeout_is_not_retried(server: ScriptedServer) -> None:
    server.push(Action.reply("late", delay=1.0))
    with pytest.raises(ConnectionFailedError, match="timeout"):
        await adapter_for(server, timeout=0.2).complete(HELLO)
    assert len(server.requests) == 1


# -- errors that are not retried ----------------------------------------------------------------


async def test_401_names_the_key_variable_never_the_key(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_ANTHROPIC_KEY", "sk-ant-secret-value")
    server.default = Action.error(401, "authentication_error", "invalid x-api-key")
    adapter = adapter_for(server, api_key_env="MY_ANTHROPIC_KEY")
    with pytest.raises(AuthenticationError) as caught:
        await adapter.complete(HELLO)
    message = str(caught.value)
    assert "$MY_ANTHROPIC_KEY" in message and "invalid x-api-key" in message
    assert "sk-ant-secret-value" not in message + repr(adapter) + repr(adapter.options)
    assert len(server.requests) == 1


async def test_400_is_not_retried(server: ScriptedServer) -> None:
    server.default = Action.error(400, "invalid_request_error", "messages: field required")
    with pytest.raises(BadRequestError, match="messages: field required"):
        await adapter_for(server).complete(HELLO)
    assert len(server.requests) == 1


async def test_an_unknown_model_is_named(server: ScriptedServer) -> None:
    with pytest.raises(ModelNotFoundError, match="'claude-9'"):
        await adapter_for(server, model="claude-9").complete(HELLO)
    assert await adapter_for(server).models() == ["scripted-model", "other-model"]


async def test_a_wrong_base_url_path_says_so(server: ScriptedServer) -> None:
    root = server.url.removesuffix("/v1")
    adapter = AnthropicAdapter(AnthropicOptions(base_url=root, api_key_env=None))
    with pytest.raises(BadRequestError, match="base_url") as caught:
        await adapter.complete(HELLO)
    assert f"{root}/messages" in str(caught.value)


async def test_nothing_listening_names_the_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    options = AnthropicOptions(base_url=url, api_key_env=None, max_retries=1, backoff_base=0.01)
    with pytest.raises(ConnectionFailedError, match="base_url right") as caught:
        await AnthropicAdapter(options).complete(HELLO)
    assert f"{url}/messages" in str(caught.value)


# -- broken and hostile streams -------------------------------------------------------------------


async def test_an_overloaded_error_event_mid_stream_is_named(server: ScriptedServer) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.push(Action.raw_stream(events(START, TEXT_BLOCK, HI, error)))
    seen: list[str | Completion] = []
    with pytest.raises(OverloadedError, match=r"mid-stream \(overloaded_error, after 2 char"):
        async for item in adapter_for(server).stream(HELLO):
            seen.append(item)
    assert seen == ["Hi"] and len(server.requests) == 1


async def test_malformed_event_data_is_a_protocol_error(server: ScriptedServer) -> None:
    server.push(Action.raw_stream(events(START, TEXT_BLOCK, HI) + "event: ping\ndata: {nope\n\n"))
    with pytest.raises(ProtocolError, match=r"malformed server-sent event `ping`.*\{nope"):
        await drain(adapter_for(server), HELLO)


async def test_pings_and_unknown_events_are_ignored(server: ScriptedServer) -> None:
    body = events(
        START,
        {"type": "ping"},
        TEXT_BLOCK,
        HI,
        {"type": "some_future_event", "x": 1},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    )
    server.push(Action.raw_stream(body))
    deltas, completion = await drain(adapter_for(server), HELLO)
    assert deltas == ["Hi"] and completion.finish_reason == "stop"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (3, 1)


async def test_too_many_blocks_are_refused(server: ScriptedServer) -> None:
    blocks = [
        {"type": "content_block_start", "index": i, "content_block": {"type": "text"}}
        for i in range(MAX_BLOCKS + 1)
    ]
    server.push(Action.raw_stream(events(START, *blocks)))
    with pytest.raises(ProtocolError, match=f"exceeds {MAX_BLOCKS} content blocks"):
        await drain(adapter_for(server), HELLO)


async def test_a_stream_cut_mid_reply_is_interrupted_and_not_retried(
    server: ScriptedServer,
) -> None:
    server.push(Action.cut(after=4))
    seen: list[str | Completion] = []
    with pytest.raises(StreamInterruptedError, match="broke after 7 characters"):
        async for item in adapter_for(server).stream(HELLO):
            seen.append(item)
    assert seen == ["one", " two"]  # start, block start, two words, then the cut
    assert len(server.requests) == 1, "a stream that delivered deltas must not be retried"


async def test_a_stream_without_message_stop_is_interrupted(server: ScriptedServer) -> None:
    server.push(Action.raw_stream(events(START, TEXT_BLOCK, HI)))
    with pytest.raises(StreamInterruptedError, match="no message_stop, after 2 characters"):
        await drain(adapter_for(server), HELLO)
