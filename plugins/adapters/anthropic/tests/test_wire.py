"""The wire format, without a network: what goes out, and how replies are folded back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from agentframe_adapter_anthropic import AnthropicAdapter, AnthropicOptions, ProtocolError
from agentframe_adapter_anthropic.stream import MAX_EVENT_BYTES, StreamAssembler, sse_events
from agentframe_adapter_anthropic.wire import (
    RAW_ARGUMENTS,
    finish_reason,
    messages_to_wire,
    parse_message,
    parse_usage,
)

from agentframe_core import (
    CompletionRequest,
    ConfigError,
    Message,
    PluginHost,
    ToolCall,
    ToolSpec,
    load_config,
)

ADD = ToolSpec("add", "Add two numbers.", {"type": "object", "properties": {}})
CALL = ToolCall("toolu_1", "add", {"a": 2, "b": 3})
CONVERSATION = [
    Message("system", "Be brief."),
    Message("user", "What is 2+3?"),
    Message("assistant", "Adding.", (CALL, ToolCall("toolu_2", "add", {"a": 1, "b": 1}))),
    Message("tool", "5", tool_call_id="toolu_1", name="add"),
    Message("tool", "2", tool_call_id="toolu_2", name="add"),
    Message("user", "And now?"),
]


def adapter(**options: object) -> AnthropicAdapter:
    return AnthropicAdapter(AnthropicOptions(**{"api_key_env": None, **options}))


def test_tool_results_join_one_user_turn_after_the_calls() -> None:
    turns = messages_to_wire(CONVERSATION)
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [
        {"type": "text", "text": "Adding."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
        {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 1, "b": 1}},
    ]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "2"},
        {"type": "text", "text": "And now?"},
    ]


def test_system_text_is_top_level_and_empty_text_is_not_sent() -> None:
    body = adapter(cache="off").body(
        CompletionRequest([*CONVERSATION[:2], Message("assistant", "", (CALL,))], max_tokens=9)
    )
    assert body["system"] == [{"type": "text", "text": "Be brief."}]
    assert body["max_tokens"] == 9
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}
    ]


def test_breakpoints_mark_tools_system_and_the_last_turn() -> None:
    request = CompletionRequest(CONVERSATION, tools=[ADD])
    body = adapter().body(request)
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert str(body).count("cache_control") == 3
    hour = adapter(cache="1h").body(request)
    assert hour["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in str(adapter(cache="off").body(request))
    assert "cache_control" not in str(request), "the request itself was marked"


def test_breakpoints_never_exceed_the_apis_four() -> None:
    """Marks given in `extra_body` count: the adapter adds only what the limit leaves."""
    mark = {"cache_control": {"type": "ephemeral"}}
    extra = {"metadata": {"user_id": "u"}, "x": [mark, mark, mark]}
    body = adapter(extra_body=extra).body(CompletionRequest(CONVERSATION, tools=[ADD]))
    assert str(body).count("cache_control") == 4
    assert "cache_control" in body["tools"][-1] and "cache_control" not in body["system"][-1]
    assert extra["x"] == [mark, mark, mark] and "cache_control" not in str(extra["metadata"])


def test_key_and_version_headers_and_a_repr_without_the_key() -> None:
    built = adapter(api_key="sk-ant-secret", anthropic_version="2023-06-01")
    assert built._headers["x-api-key"] == "sk-ant-secret"
    assert built._headers["anthropic-version"] == "2023-06-01"
    assert "sk-ant-secret" not in repr(built) + repr(built.options) + str(built.options)


def test_usage_counts_cache_reads_and_writes_as_prompt_tokens() -> None:
    usage = parse_usage(
        {
            "input_tokens": 10,
            "cache_creation_input_tokens": 200,
            "cache_read_input_tokens": 3000,
            "output_tokens": 7,
        }
    )
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (3210, 7, 3000)
    assert parse_usage({"input_tokens": -1, "output_tokens": True}).total_tokens == 0


@pytest.mark.parametrize(
    ("stop", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "length"),
        ("pause_turn", "length"),
        ("refusal", "content_filter"),
        ("something_new", "something_new"),
        (None, None),
    ],
)
def test_stop_reasons_are_the_loops_finish_reasons(stop: str | None, finish: str | None) -> None:
    assert finish_reason(stop) == finish


def test_a_message_keeps_its_thinking_blocks_as_they_came() -> None:
    thinking = {"type": "thinking", "thinking": "2+3 is 5", "signature": "sig=="}
    redacted = {"type": "redacted_thinking", "data": "opaque"}
    data = {
        "content": [
            thinking,
            redacted,
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_9", "name": "add", "input": "not an object"},
        ],
        "stop_reason": "tool_use",
        "model": "m",
    }
    completion, blocks = parse_message(data, "u")
    assert blocks == [thinking, redacted]
    assert completion.content == "Adding." and completion.finish_reason == "tool_calls"
    assert completion.tool_calls[0].arguments == {RAW_ARGUMENTS: "not an object"}
    with pytest.raises(ProtocolError, match="no message content"):
        parse_message({"type": "message"}, "u")


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_sse_events_follow_the_spec_across_chunk_borders() -> None:
    body = b': c\r\n\r\nevent: ping\r\ndata: {"type"\r\ndata: : "ping"}\r\n\r\ndata: x'
    events = [e async for e in sse_events(_chunks(body[:7], body[7:30], body[30:]), "u")]
    assert events == [("ping", '{"type"\n: "ping"}'), ("message", "x")]


async def test_an_event_larger_than_the_cap_is_refused_without_buffering_it() -> None:
    endless = (b"data: " + b"a" * 65536 for _ in range(MAX_EVENT_BYTES // 65536 + 2))

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in endless:
            yield chunk

    with pytest.raises(ProtocolError, match="larger than"):
        [e async for e in sse_events(chunks(), "u")]


def test_events_out_of_place_are_named() -> None:
    assembler = StreamAssembler("u")
    with pytest.raises(ProtocolError, match="`content_block_start` event that came before"):
        assembler.feed("content_block_start", {"index": 0, "content_block": {"type": "text"}})
    assembler.feed("message_start", {"message": {"model": "m", "usage": {}}})
    with pytest.raises(ProtocolError, match="block 3, which was never started"):
        assembler.feed("content_block_delta", {"index": 3, "delta": {"type": "text_delta"}})
    assembler.feed("content_block_start", {"index": 0, "content_block": {"type": "text"}})
    with pytest.raises(ProtocolError, match="starts block 0 twice"):
        assembler.feed("content_block_start", {"index": 0, "content_block": {"type": "text"}})
    with pytest.raises(ProtocolError, match="text_delta without a string `text`"):
        assembler.feed("content_block_delta", {"index": 0, "delta": {"type": "text_delta"}})
    assembler.feed("content_block_stop", {"index": 0})
    with pytest.raises(ProtocolError, match="which had already stopped"):
        assembler.feed("content_block_delta", {"index": 0, "delta": {"type": "text_delta"}})


def test_config_refuses_a_bad_cache_mode_and_an_unset_key_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused by `config check` with file, line and YAML path, not at the first call."""
    monkeypatch.delenv("NOPE_KEY", raising=False)
    path = tmp_path / "agentframe.yaml"
    path.write_text("store: memory\nadapter:\n  use: anthropic\n  cache: 2h\n")
    with pytest.raises(ConfigError) as caught:
        load_config(PluginHost(), path)
    assert str(caught.value.issues[0]).startswith(f"{path}:4: adapter.cache:")
    path.write_text("store: memory\nadapter:\n  use: anthropic\n  api_key_env: NOPE_KEY\n")
    with pytest.raises(ConfigError) as caught:
        load_config(PluginHost(), path)
    assert str(caught.value.issues[0]).startswith(f"{path}:4: adapter.api_key_env: NOPE_KEY")
    monkeypatch.setenv("NOPE_KEY", "sk-ant-now-set")
    built = load_config(PluginHost(), path).adapter.build()
    assert isinstance(built, AnthropicAdapter) and built._headers["x-api-key"] == "sk-ant-now-set"
