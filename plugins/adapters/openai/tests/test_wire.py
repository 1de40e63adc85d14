"""The wire format, without a network: what goes out, and how replies are folded back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from agentframe_adapter_openai import OpenAIOptions
from agentframe_adapter_openai.retry import backoff_delay
from agentframe_adapter_openai.sse import sse_data
from agentframe_adapter_openai.wire import (
    RAW_ARGUMENTS,
    StreamAssembler,
    decode_arguments,
    message_to_wire,
    parse_completion,
    parse_usage,
)

from agentframe_core import Message, ToolCall


def test_messages_keep_tool_calls_and_results_paired() -> None:
    call = ToolCall("call_9", "add", {"a": 2, "b": 3})
    assistant = message_to_wire(Message("assistant", "", (call,)))
    assert assistant["content"] is None
    assert assistant["tool_calls"] == [
        {
            "id": "call_9",
            "type": "function",
            "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
        }
    ]
    tool = message_to_wire(Message("tool", "5", tool_call_id="call_9", name="add"))
    assert tool == {"role": "tool", "content": "5", "tool_call_id": "call_9"}


def test_usage_reads_cached_tokens_from_either_field() -> None:
    openai = {
        "usage": {
            "prompt_tokens": 50,
            "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 40},
        }
    }
    llama = {"usage": {"prompt_tokens": 50, "completion_tokens": 5}, "timings": {"cache_n": 44}}
    assert parse_usage(openai).cached_tokens == 40
    assert parse_usage(llama).cached_tokens == 44
    assert parse_usage({}).total_tokens == 0


def test_arguments_that_are_not_an_object_are_kept_for_the_loop_to_report() -> None:
    assert decode_arguments('{"a": 1}') == {"a": 1}
    assert decode_arguments("") == {}
    assert decode_arguments('{"a": 1') == {RAW_ARGUMENTS: '{"a": 1'}
    assert decode_arguments("[1, 2]") == {RAW_ARGUMENTS: "[1, 2]"}


def test_tool_call_deltas_are_assembled_by_index() -> None:
    assembler = StreamAssembler("u")
    chunks = [
        {"choices": [{"delta": {"role": "assistant", "content": "Let me "}}]},
        {"choices": [{"delta": {"content": "add."}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c1", "function": {"name": "add", "arguments": ""}}
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 1, "id": "c2", "function": {"name": "now", "arguments": "{}"}}
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 2,'}}]}}
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "function": {"name": "add", "arguments": ' "b": 3}'}}
                        ]
                    }
                }
            ]
        },
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}},
    ]
    deltas = [assembler.feed(chunk) for chunk in chunks]
    assert [d for d in deltas if d] == ["Let me ", "add."]
    completion = assembler.completion()
    assert completion.content == "Let me add."
    assert [(c.id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("c1", "add", {"a": 2, "b": 3}),
        ("c2", "now", {}),
    ]
    assert completion.finish_reason == "tool_calls"
    assert completion.usage.prompt_tokens == 9


def test_calls_without_ids_get_unique_ones() -> None:
    data = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"function": {"name": "add", "arguments": "{}"}},
                        {"function": {"name": "add", "arguments": "{}"}},
                    ],
                }
            }
        ]
    }
    ids = [call.id for call in parse_completion(data, "u").tool_calls]
    assert len(set(ids)) == 2 and all(ids)


async def _lines(text: str) -> AsyncIterator[str]:
    for line in text.split("\n"):
        yield line


async def test_sse_events_follow_the_spec() -> None:
    body = ': keep-alive\n\nevent: message\ndata: {"a":\ndata: 1}\n\ndata:[DONE]\n\n'
    events = [e async for e in sse_data(_lines(body))]
    assert events == ['{"a":\n1}', "[DONE]"]
    assert json.loads(events[0]) == {"a": 1}


def test_retry_delays_are_the_kernels_backoff_with_jitter() -> None:
    backoff = OpenAIOptions(backoff_base=0.5, backoff_max=3.0, max_retries=6).backoff()
    assert [backoff.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    for attempt in range(1, 6):
        delays = {backoff_delay(backoff, attempt) for _ in range(50)}
        full = backoff.delay(attempt)
        assert all(full / 2 <= d <= full for d in delays) and len(delays) > 1
