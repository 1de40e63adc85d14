"""OpenAI Responses, driven by the official `openai` client: an answer, its streaming
events, server-side and client-side tools, `previous_response_id`, GET and DELETE."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

USAGE = {"prompt_tokens": 50, "completion_tokens": 4, "cached_tokens": 40}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


async def test_an_answer_continued_by_previous_response_id(serve: Any) -> None:
    served = await serve([{"content": "Hello there.", "usage": USAGE}, "You said hi."])
    client = served.client()
    first = await client.responses.create(model="helper", input="hi", instructions="Be brief.")
    assert first.status == "completed" and first.output_text == "Hello there."
    assert first.usage is not None and first.usage.input_tokens_details.cached_tokens == 40
    assert first.usage.total_tokens == 54
    second = await client.responses.create(
        model="helper", input="what did I say?", previous_response_id=first.id
    )
    assert second.output_text == "You said hi." and second.previous_response_id == first.id
    session = second.model_extra["session_id"]
    assert session == first.model_extra["session_id"]
    assert await served.entries(f"local.{session}") == [
        ("notification", "Be brief."),
        ("user", "hi"),
        ("assistant", "Hello there."),
        ("user", "what did I say?"),
        ("assistant", "You said hi."),
    ]
    fetched = await client.responses.retrieve(first.id)
    assert fetched.output_text == "Hello there."
    await client.responses.delete(first.id)
    with pytest.raises(openai.NotFoundError):
        await client.responses.retrieve(first.id)
    with pytest.raises(openai.NotFoundError) as caught:
        await client.responses.create(model="helper", input="x", previous_response_id=first.id)
    assert caught.value.body["param"] == "previous_response_id"


async def test_streaming_events_in_order(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}, "It is 3."]
    )
    stream = await served.client().responses.create(model="helper", input="1+2?", stream=True)
    seen = [event async for event in stream]
    kinds = [e.type for e in seen]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in seen] == list(range(len(seen)))
    assert "".join(e.delta for e in seen if e.type == "response.output_text.delta") == "It is 3."
    assert seen[-1].response.output_text == "It is 3."
    session = seen[-1].response.model_extra["session_id"]
    kinds = [k for k, _ in await served.entries(f"local.{session}")]
    assert kinds == ["user", "assistant", "tool_call", "tool_result", "assistant"]


@pytest.mark.parametrize("stream", [False, True])
async def test_client_tools_are_function_calls_and_their_outputs_continue(
    serve: Any, stream: bool
) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, "Sunny in Oslo."]
    )
    client = served.client()
    if stream:
        events = [
            e
            async for e in await client.responses.create(
                model="helper", input="Oslo?", tools=[WEATHER], stream=True
            )
        ]
        done = [e for e in events if e.type == "response.function_call_arguments.done"]
        assert len(done) == 1 and json.loads(done[0].arguments) == {"city": "Oslo"}
        first = events[-1].response
    else:
        first = await client.responses.create(model="helper", input="Oslo?", tools=[WEATHER])
    (call,) = [item for item in first.output if item.type == "function_call"]
    assert call.name == "get_weather" and json.loads(call.arguments) == {"city": "Oslo"}
    second = await client.responses.create(
        model="helper",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}],
        tools=[WEATHER],
    )
    assert second.output_text == "Sunny in Oslo."
    entries = await served.entries(f"local.{second.model_extra['session_id']}")
    assert [k for k, _ in entries] == [
        "user",
        "assistant",
        "tool_call",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    assert entries[4][1] == "sunny"


async def test_a_client_resending_its_input_continues_one_session(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, "Sunny."]
    )
    client = served.client()
    first = await client.responses.create(model="helper", input="Oslo?", tools=[WEATHER])
    (call,) = first.output
    second = await client.responses.create(
        model="helper",
        tools=[WEATHER],
        input=[
            {"role": "user", "content": "Oslo?"},
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            },
            {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"},
        ],
    )
    assert second.output_text == "Sunny."
    assert second.model_extra["session_id"] == first.model_extra["session_id"]


async def test_bad_input_names_its_field(serve: Any) -> None:
    served = await serve(["unused"])
    client = served.client()
    with pytest.raises(openai.BadRequestError) as caught:
        await client.responses.create(model="helper", input=[{"type": "image", "url": "x"}])
    assert caught.value.body["param"] == "input[0].type"
    with pytest.raises(openai.NotFoundError) as missing:
        await client.responses.create(model="nope", input="hi")
    assert "helper" in missing.value.body["message"]
    assert served.requests == []
