"""The adapter over real HTTP (a local scripted server): retries, errors, streaming."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
from pathlib import Path

import pytest
from agentframe_adapter_openai import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    ModelNotFoundError,
    OpenAIAdapter,
    OpenAIOptions,
    ProtocolError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from agentframe_adapter_openai.testing import Action, ScriptedServer

from agentframe_core import (
    Completion,
    CompletionRequest,
    ConfigError,
    Message,
    PluginHost,
    ToolSpec,
    load_config,
)
from agentframe_core.testing import eventually, eventually_async

HELLO = CompletionRequest([Message("user", "Say hello.")])
ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {}})


def adapter_for(server: ScriptedServer, **options: object) -> OpenAIAdapter:
    fast = {"backoff_base": 0.01, "backoff_max": 2.0, "api_key_env": None}
    return OpenAIAdapter(OpenAIOptions(base_url=server.url, **{**fast, **options}))


async def drain(adapter: OpenAIAdapter, request: CompletionRequest) -> tuple[list[str], Completion]:
    items = [item async for item in adapter.stream(request)]
    last = items[-1]
    assert isinstance(last, Completion)
    return [i for i in items[:-1] if isinstance(i, str)], last


# -- replies --------------------------------------------------------------------------------


async def test_complete_sends_the_request_and_reads_the_reply(server: ScriptedServer) -> None:
    server.push(Action.reply("Hi there."))
    adapter = adapter_for(server, model="scripted-model", temperature=0.2, extra_body={"top_k": 5})
    completion = await adapter.complete(
        CompletionRequest([Message("user", "Say hi.")], max_tokens=9)
    )
    assert completion.content == "Hi there."
    assert completion.finish_reason == "stop"
    assert completion.usage.prompt_tokens == 2 and completion.usage.completion_tokens == 2
    body = server.requests[-1]["body"]
    assert body["model"] == "scripted-model"
    assert body["messages"] == [{"role": "user", "content": "Say hi."}]
    assert (body["max_tokens"], body["temperature"], body["top_k"]) == (9, 0.2, 5)
    await adapter.aclose()


async def test_streamed_tool_calls_are_assembled(server: ScriptedServer) -> None:
    server.push(Action.reply("Adding.", [{"name": "add", "arguments": {"a": 2, "b": 30}}]))
    adapter = adapter_for(server)
    deltas, completion = await drain(
        adapter, CompletionRequest([Message("user", "2+30?")], tools=[ADD])
    )
    assert "".join(deltas) == completion.content == "Adding."
    (call,) = completion.tool_calls
    assert (call.name, call.arguments) == ("add", {"a": 2, "b": 30})
    assert call.id.startswith("call_")
    body = server.requests[-1]["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["tools"][0]["function"]["name"] == "add"
    assert completion.usage.completion_tokens == 1


async def test_tools_are_not_sent_when_native_tools_is_off(server: ScriptedServer) -> None:
    adapter = adapter_for(server, native_tools=False)
    schema = {"type": "object"}
    await adapter.complete(
        CompletionRequest([Message("user", "x")], tools=[ADD], response_schema=schema)
    )
    body = server.requests[-1]["body"]
    assert "tools" not in body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }


async def test_a_server_that_ignores_stream_still_streams(server: ScriptedServer) -> None:
    adapter = adapter_for(server)
    # The scripted server answers JSON when `stream` is absent: drop it from the body.
    adapter.options.extra_body["stream"] = False
    deltas, completion = await drain(adapter, HELLO)
    assert deltas == [completion.content] == ["Hello from the scripted server."]


# -- retries ----------------------------------------------------------------------------------


async def test_429_honours_retry_after_then_succeeds(server: ScriptedServer) -> None:
    server.push(Action.error(429, "slow down", {"Retry-After": "1"}), Action.reply("done"))
    started = time.monotonic()
    completion = await adapter_for(server).complete(HELLO)
    assert completion.content == "done"
    assert time.monotonic() - started >= 1.0, "Retry-After: 1 was not honoured"
    assert len(server.requests) == 2


async def test_retry_after_longer_than_backoff_max_fails_at_once(server: ScriptedServer) -> None:
    server.push(Action.error(429, "quota", {"Retry-After": "3600"}))
    with pytest.raises(RateLimitError, match="3600s") as caught:
        await adapter_for(server).complete(HELLO)
    assert caught.value.status == 429 and len(server.requests) == 1


async def test_429_after_every_retry_is_a_rate_limit_error(server: ScriptedServer) -> None:
    server.default = Action.error(429, "busy", {"Retry-After": "0"})
    with pytest.raises(RateLimitError, match="after 3 attempt"):
        await adapter_for(server, max_retries=2).complete(HELLO)
    assert len(server.requests) == 3


async def test_500_is_retried_with_backoff(server: ScriptedServer) -> None:
    server.push(Action.error(500, "boom"), Action.error(503, "loading"), Action.reply("ok"))
    assert (await adapter_for(server).complete(HELLO)).content == "ok"
    assert len(server.requests) == 3


async def test_500_after_every_retry_names_the_url(server: ScriptedServer) -> None:
    server.default = Action.error(500, "the GPU caught fire")
    with pytest.raises(ServerError, match="GPU caught fire") as caught:
        await adapter_for(server, max_retries=1).complete(HELLO)
    assert server.url in str(caught.value) and len(server.requests) == 2


async def test_a_dropped_connection_is_retried(server: ScriptedServer) -> None:
    server.push(Action.drop(), Action.drop(), Action.reply("back"))
    assert (await adapter_for(server).complete(HELLO)).content == "back"
    server.push(Action.drop(), Action.reply("back again"))
    _, completion = await drain(adapter_for(server), HELLO)
    assert completion.content == "back again"


async def test_always_dropped_is_a_connection_error(server: ScriptedServer) -> None:
    server.default = Action.drop()
    with pytest.raises(ConnectionFailedError, match="after 2 attempt"):
        await adapter_for(server, max_retries=1).complete(HELLO)


# -- errors that are not retried ------------------------------------------------------------------


async def test_401_names_the_key_variable_and_is_not_retried(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret-value")
    server.default = Action.error(401, "Incorrect API key provided")
    adapter = adapter_for(server, api_key_env="MY_LLM_KEY")
    with pytest.raises(AuthenticationError) as caught:
        await adapter.complete(HELLO)
    message = str(caught.value)
    assert "$MY_LLM_KEY" in message and "Incorrect API key" in message
    assert "sk-secret-value" not in message and "sk-secret-value" not in repr(adapter.options)
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-secret-value"
    assert len(server.requests) == 1


def test_a_named_key_variable_that_is_unset_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused by `config check` with file, line and YAML path, not at the first call."""
    monkeypatch.delenv("NOPE_KEY", raising=False)
    path = tmp_path / "agentframe.yaml"
    path.write_text("store: memory\nadapter:\n  use: openai\n  api_key_env: NOPE_KEY\n")
    with pytest.raises(ConfigError) as caught:
        load_config(PluginHost(), path)
    (issue,) = caught.value.issues
    assert str(issue).startswith(f"{path}:4: adapter.api_key_env: NOPE_KEY is not set")
    monkeypatch.setenv("NOPE_KEY", "sk-now-set")
    assert load_config(PluginHost(), path).adapter.build()._headers["Authorization"]


def test_the_default_key_variable_and_an_explicit_key_may_be_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Local servers need no key: only a variable named on purpose must be set."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("NOPE_KEY", raising=False)
    assert "Authorization" not in OpenAIAdapter(OpenAIOptions())._headers
    with_key = OpenAIOptions(api_key="sk-given", api_key_env="NOPE_KEY")
    assert with_key.resolve_key() == ("sk-given", "the `api_key` option")


async def test_other_4xx_is_not_retried(server: ScriptedServer) -> None:
    server.default = Action.error(400, "messages: field required")
    with pytest.raises(BadRequestError, match="messages: field required"):
        await adapter_for(server).complete(HELLO)
    assert len(server.requests) == 1


async def test_an_unknown_model_lists_what_the_server_offers(server: ScriptedServer) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        await adapter_for(server, model="gpt-9").complete(HELLO)
    assert caught.value.available == ["scripted-model", "other-model"]
    assert "'gpt-9'" in str(caught.value) and "scripted-model, other-model" in str(caught.value)


async def test_a_wrong_base_url_path_says_so(server: ScriptedServer) -> None:
    root = server.url.removesuffix("/v1")
    adapter = OpenAIAdapter(OpenAIOptions(base_url=root, api_key_env=None))
    with pytest.raises(BadRequestError, match="base_url") as caught:
        await adapter.complete(HELLO)
    assert f"{root}/chat/completions" in str(caught.value)


async def test_nothing_listening_names_the_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    adapter = OpenAIAdapter(OpenAIOptions(base_url=url, max_retries=1, backoff_base=0.01))
    with pytest.raises(ConnectionFailedError, match="base_url right") as caught:
        await adapter.complete(HELLO)
    assert f"{url}/chat/completions" in str(caught.value)


async def test_a_read_timeout_is_not_retried(server: ScriptedServer) -> None:
    server.push(Action.reply("late", delay=1.0))
    with pytest.raises(ConnectionFailedError, match="timeout"):
        await adapter_for(server, timeout=0.2).complete(HELLO)
    assert len(server.requests) == 1


# -- broken streams -------------------------------------------------------------------------------


async def test_malformed_sse_is_a_protocol_error(server: ScriptedServer) -> None:
    good = '{"choices": [{"delta": {"content": "Hi"}, "finish_reason": null}]}'
    server.push(Action.raw_stream(f"data: {good}\n\ndata: {{not json\n\n"))
    seen: list[str | Completion] = []
    with pytest.raises(ProtocolError, match="malformed server-sent event") as caught:
        async for item in adapter_for(server).stream(HELLO):
            seen.append(item)
    assert seen == ["Hi"] and "{not json" in str(caught.value)


async def test_a_stream_cut_mid_reply_is_interrupted(server: ScriptedServer) -> None:
    server.push(Action.cut(after=3))
    seen: list[str | Completion] = []
    with pytest.raises(StreamInterruptedError, match="broke after"):
        async for item in adapter_for(server).stream(HELLO):
            seen.append(item)
    assert seen == ["one", " two"]  # the role event, then two words, then the cut
    assert len(server.requests) == 1, "a stream that delivered deltas must not be retried"


async def test_a_stream_without_an_end_is_interrupted(server: ScriptedServer) -> None:
    chunk = '{"choices": [{"delta": {"content": "Hi"}, "finish_reason": null}]}'
    server.push(Action.raw_stream(f"data: {chunk}\n\n"))
    with pytest.raises(StreamInterruptedError, match="before the reply was complete"):
        await drain(adapter_for(server), HELLO)


async def test_an_error_event_inside_a_stream_is_raised(server: ScriptedServer) -> None:
    server.push(Action.raw_stream('data: {"error": {"message": "context overflow"}}\n\n'))
    with pytest.raises(ServerError, match="context overflow"):
        await drain(adapter_for(server), HELLO)


# -- one adapter, several event loops -------------------------------------------------------------


def test_one_adapter_serves_several_event_loops(server: ScriptedServer) -> None:
    adapter = adapter_for(server)
    for _ in range(2):
        assert asyncio.run(adapter.complete(HELLO)).content.startswith("Hello")


async def test_a_client_left_on_another_live_loop_is_closed_there(server: ScriptedServer) -> None:
    """A loop in another thread keeps its idle connections registered (so alive): replacing
    the client, or closing the adapter from elsewhere, closes them on that loop."""
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    adapter = adapter_for(server)
    try:
        for _ in range(2):
            asyncio.run_coroutine_threadsafe(adapter.complete(HELLO), other).result(10)
            assert server.open_connections == 1
            await adapter.complete(HELLO)  # this loop: a new client, the other one closed
            await eventually_async(lambda: server.open_connections == 1, what="one open connection")
            asyncio.run_coroutine_threadsafe(adapter.complete(HELLO), other).result(10)
            await eventually_async(lambda: server.open_connections == 1, what="one open connection")
        await adapter.aclose()  # the client lives on `other`: closed there
        await eventually_async(lambda: server.open_connections == 0, what="no open connection")
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join(5)
        other.close()


def test_a_client_of_a_closed_loop_is_released(server: ScriptedServer) -> None:
    """Its connections cannot be closed through asyncio any more; dropping them lets the
    garbage collector close their sockets."""
    adapter = adapter_for(server)
    for _ in range(3):
        asyncio.run(adapter.complete(HELLO))
    gc.collect()
    eventually(lambda: server.open_connections <= 1, what="the released connections to close")
    assert server.open_connections == 1


async def test_a_server_that_says_nothing_of_its_window_leaves_it_unknown(
    server: ScriptedServer,
) -> None:
    adapter = adapter_for(server, model="scripted-model")
    assert await adapter.fetch_context_window() is None
    assert adapter.capabilities.context_window is None
    await adapter.aclose()
