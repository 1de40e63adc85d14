"""OpenAI Chat Completions, driven by the official `openai` client: answers, streaming,
server-side and client-side tools, continuation, usage and errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

USAGE = {"prompt_tokens": 120, "completion_tokens": 7, "cached_tokens": 100}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


async def test_models_are_the_agents(serve: Any) -> None:
    served = await serve(["unused"])
    models = await served.client().models.list()
    assert [m.id for m in models.data] == ["general-purpose", "helper", "other", "planner"]
    one = await served.client().models.retrieve("helper")
    assert one.id == "helper" and one.owned_by == "agentframe"


async def test_an_answer_with_usage_and_its_session(serve: Any) -> None:
    served = await serve([{"content": "The answer is 42.", "usage": USAGE}])
    raw = await served.client().chat.completions.with_raw_response.create(
        model="helper", messages=[{"role": "user", "content": "What is 6*7?"}]
    )
    answer = raw.parse()
    assert answer.choices[0].message.content == "The answer is 42."
    assert answer.choices[0].finish_reason == "stop"
    assert answer.model == "helper" and answer.object == "chat.completion"
    assert answer.usage is not None and answer.usage.total_tokens == 127
    assert answer.usage.prompt_tokens_details is not None
    assert answer.usage.prompt_tokens_details.cached_tokens == 100
    session_id = raw.headers["x-session-id"]
    assert answer.model_extra is not None and answer.model_extra["session_id"] == session_id
    assert await served.entries(f"local.{session_id}") == [
        ("user", "What is 6*7?"),
        ("assistant", "The answer is 42."),
    ]
    system = served.requests[0].messages[0]
    assert system.role == "system" and "You answer briefly." in system.content


async def test_streaming_chunks_add_up_to_the_answer_and_end_with_usage(serve: Any) -> None:
    served = await serve([{"content": "The answer is 42.", "usage": USAGE}])
    stream = await served.client().chat.completions.create(
        model="helper",
        messages=[{"role": "user", "content": "What is 6*7?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "The answer is 42."
    assert chunks[0].choices[0].delta.role == "assistant"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop" and set(finishes[:-1]) == {None}
    assert len({c.id for c in chunks}) == 1
    last = chunks[-1]
    assert last.choices == [] and last.usage is not None
    assert last.usage.prompt_tokens_details.cached_tokens == 100


async def test_the_agents_own_tools_run_on_the_server(serve: Any) -> None:
    served = await serve([call("add", a=2, b=3), "The sum is 5."])
    answer = await served.client().chat.completions.create(
        model="helper", messages=[{"role": "user", "content": "2+3?"}]
    )
    assert answer.choices[0].message.content == "The sum is 5."
    assert answer.choices[0].message.tool_calls is None
    session = answer.model_extra["session_id"]
    kinds = [kind for kind, _ in await served.entries(f"local.{session}")]
    assert kinds == ["user", "assistant", "tool_call", "tool_result", "assistant"]
    assert answer.model_extra["agentframe"] == {"outcome": "completed", "turns": 2}


async def test_a_streamed_run_with_a_server_tool_reports_it_as_a_comment(serve: Any) -> None:
    served = await serve([call("add", a=2, b=3), "The sum is 5."])
    async with (
        httpx.AsyncClient() as http,
        http.stream(
            "POST",
            f"{served.url}/v1/chat/completions",
            json={
                "model": "helper",
                "messages": [{"role": "user", "content": "2+3?"}],
                "stream": True,
            },
        ) as response,
    ):
        lines = [line async for line in response.aiter_lines() if line]
    assert ": tool add done" in lines
    assert lines[-1] == "data: [DONE]"


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.mark.parametrize("stream", [False, True])
async def test_client_tools_come_back_as_tool_calls_and_their_results_continue(
    serve: Any, stream: bool
) -> None:
    served = await serve(
        [
            {"content": "Let me look.", **call("get_weather", city="Oslo")},
            "It is sunny in Oslo.",
        ]
    )
    client = served.client()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    if stream:
        chunks = [
            c
            async for c in await client.chat.completions.create(
                model="helper", messages=messages, tools=[WEATHER], stream=True
            )
        ]
        deltas = [d for c in chunks for d in (c.choices[0].delta.tool_calls or [])]
        calls = [
            {"id": d.id, "name": d.function.name, "arguments": d.function.arguments} for d in deltas
        ]
        content = "".join(c.choices[0].delta.content or "" for c in chunks)
        assert chunks[-1].choices[0].finish_reason == "tool_calls"
    else:
        answer = await client.chat.completions.create(
            model="helper", messages=messages, tools=[WEATHER]
        )
        choice = answer.choices[0]
        assert choice.finish_reason == "tool_calls"
        calls = [
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in choice.message.tool_calls or []
        ]
        content = choice.message.content or ""
    assert content == "Let me look."
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    offered = [t.name for t in served.requests[0].tools]
    assert "get_weather" in offered and "add" in offered
    messages += [
        {
            "role": "assistant",
            "content": content,
            "tool_calls": [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in calls
            ],
        },
        {"role": "tool", "tool_call_id": calls[0]["id"], "content": "sunny, 21 C"},
    ]
    raw = await client.chat.completions.with_raw_response.create(
        model="helper", messages=messages, tools=[WEATHER]
    )
    assert raw.parse().choices[0].message.content == "It is sunny in Oslo."
    session = raw.headers["x-session-id"]
    entries = await served.entries(f"local.{session}")
    assert [kind for kind, _ in entries] == [
        "user",
        "assistant",
        "tool_call",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    assert entries[4][1] == "sunny, 21 C"  # the parked call's lifted result
    seen = served.requests[1].messages
    assert any("sunny, 21 C" in m.content for m in seen)


async def test_a_chat_ui_resending_everything_continues_one_session(serve: Any) -> None:
    served = await serve(["Hello!", "Fine, thanks.", "Bye."])
    client = served.client()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be nice."},
        {"role": "user", "content": "Hi"},
    ]
    sessions = []
    for text in ["How are you?", "Goodbye"]:
        raw = await client.chat.completions.with_raw_response.create(
            model="helper", messages=messages
        )
        sessions.append(raw.headers["x-session-id"])
        messages += [{"role": "assistant", "content": raw.parse().choices[0].message.content}]
        messages += [{"role": "user", "content": text}]
    raw = await client.chat.completions.with_raw_response.create(model="helper", messages=messages)
    sessions.append(raw.headers["x-session-id"])
    assert len(set(sessions)) == 1
    assert await served.entries(f"local.{sessions[0]}") == [
        ("notification", "Be nice."),
        ("user", "Hi"),
        ("assistant", "Hello!"),
        ("user", "How are you?"),
        ("assistant", "Fine, thanks."),
        ("user", "Goodbye"),
        ("assistant", "Bye."),
    ]


async def _chat(client: Any, messages: list[dict[str, Any]], **extra: Any) -> tuple[str, str]:
    """The answer to `messages` and the session it was stored in."""
    raw = await client.chat.completions.with_raw_response.create(
        model="helper", messages=messages, **extra
    )
    return raw.parse().choices[0].message.content, raw.headers["x-session-id"]


async def test_two_clients_whose_chats_began_alike_never_share_a_session(serve: Any) -> None:
    served = await serve(["Hello!", "Hello!", "One.", "Two."])
    one, two = served.client(), served.client()
    hi = [{"role": "user", "content": "hi"}]
    _, first = await _chat(one, hi)
    _, second = await _chat(two, hi)
    assert first != second
    said = [*hi, {"role": "assistant", "content": "Hello!"}]
    _, third = await _chat(one, [*said, {"role": "user", "content": "I am client one"}])
    _, fourth = await _chat(two, [*said, {"role": "user", "content": "I am client two"}])
    # "hi" -> "Hello!" is both chats: neither session is continued by it, nothing is mixed
    assert len({first, second, third, fourth}) == 4
    for alike in (first, second):
        assert await served.entries(f"local.{alike}") == [("user", "hi"), ("assistant", "Hello!")]
    assert await served.entries(f"local.{third}") == [
        ("user", "hi"),
        ("assistant", "Hello!"),
        ("user", "I am client one"),
        ("assistant", "One."),
    ]
    assert ("user", "I am client two") in await served.entries(f"local.{fourth}")


async def test_a_session_that_moved_on_is_not_continued_by_its_old_history(serve: Any) -> None:
    served = await serve(["Hello!", "Later.", "Other."])
    client = served.client()
    hi = [{"role": "user", "content": "hi"}]
    _, first = await _chat(client, hi)
    said = [*hi, {"role": "assistant", "content": "Hello!"}]
    named = [*said, {"role": "user", "content": "more"}]
    assert await _chat(client, named, extra_body={"session_id": first}) == ("Later.", first)
    # the session's history is hi, Hello!, more, Later. now: a client resending only hi,
    # Hello! is another conversation
    _, other = await _chat(client, [*said, {"role": "user", "content": "else"}])
    assert other != first
    assert ("user", "else") not in await served.entries(f"local.{first}")


async def test_a_named_session_takes_only_what_follows_the_last_answer(serve: Any) -> None:
    served = await serve(["One.", "Two."])
    client = served.client()
    first = await client.chat.completions.create(
        model="helper",
        messages=[{"role": "user", "content": "a"}],
        extra_headers={"X-Session-Id": "my-chat"},
    )
    assert first.model_extra["session_id"] == "my-chat"
    await client.chat.completions.create(
        model="helper",
        messages=[
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "edited by the UI"},
            {"role": "user", "content": "b"},
        ],
        extra_body={"session_id": "my-chat"},
    )
    assert await served.entries("local.my-chat") == [
        ("user", "a"),
        ("assistant", "One."),
        ("user", "b"),
        ("assistant", "Two."),
    ]


async def test_an_unknown_model_names_the_agents(serve: Any) -> None:
    served = await serve(["unused"])
    with pytest.raises(openai.NotFoundError) as caught:
        await served.client().chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    error = caught.value.body
    assert error["code"] == "model_not_found" and error["param"] == "model"
    assert "'gpt-4o'" in error["message"]
    assert "general-purpose, helper, other, planner" in error["message"]


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ({"model": "helper"}, "messages", "Field required"),
        ({"model": "helper", "messages": []}, "messages", "at least 1"),
        (
            {"model": "helper", "messages": [{"role": "robot", "content": "x"}]},
            "messages[0].role",
            "'user'",
        ),
        (
            {"model": "helper", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages[0].content[0]",
            "only text parts",
        ),
        (
            {
                "model": "helper",
                "messages": [{"role": "tool", "tool_call_id": "nope", "content": "x"}],
            },
            "messages[0].tool_call_id",
            "no call 'nope'",
        ),
        (
            {"model": "helper", "messages": [{"role": "assistant", "content": "x"}]},
            "messages",
            "last message must be from the user",
        ),
        (
            {
                "model": "helper",
                "messages": [{"role": "user", "content": "x"}],
                "session_id": "a b",
            },
            "session_id",
            "letters, digits",
        ),
        (
            {
                "model": "helper",
                "messages": [{"role": "user", "content": "x"}],
                "tools": [{**WEATHER, "function": {**WEATHER["function"], "name": "add"}}],
            },
            "tools[0].function.name",
            "one of the agent's own tools",
        ),
    ],
)
async def test_a_bad_request_names_its_field(serve: Any, body: Any, param: str, words: str) -> None:
    served = await serve(["unused"])
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{served.url}/v1/chat/completions", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param
    assert words in error["message"] and error["message"].startswith(param)
    assert served.requests == []


async def test_a_run_that_fails_is_an_error_in_either_shape(serve: Any) -> None:
    served = await serve([])  # the script is empty: the model call fails
    client = served.client()
    hello = [{"role": "user", "content": "hi"}]
    with pytest.raises(openai.InternalServerError) as caught:
        await client.chat.completions.create(model="helper", messages=hello)
    assert caught.value.body["code"] == "run_failed"
    assert "ScriptExhaustedError" in caught.value.body["message"]
    stream = await client.chat.completions.create(model="helper", messages=hello, stream=True)
    with pytest.raises(openai.APIError, match="ScriptExhaustedError"):
        async for _ in stream:
            pass
    events = [
        e async for e in await client.responses.create(model="helper", input="hi", stream=True)
    ]
    assert events[-1].type == "response.failed"
    assert "ScriptExhaustedError" in events[-1].response.error.message
