"""AG-UI over SSE: every event validates against `ag-ui-protocol`'s models, in the order
the protocol expects; client tools are pending tool calls; sub-agents are CUSTOM events."""

from __future__ import annotations

import json
from typing import Any

import httpx
from ag_ui.core import Event, EventType
from pydantic import TypeAdapter

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
TOOLS = ["servetools:delegate", "agentframe_core.examples:add"]


def run_input(thread: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": "run-1",
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **extra,
    }


async def read_events(url: str, body: dict[str, Any]) -> list[Any]:
    async with (
        httpx.AsyncClient() as http,
        http.stream("POST", f"{url}/ag-ui/helper", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line async for line in response.aiter_lines() if line.startswith("data: ")]
    return [EVENTS.validate_json(line.removeprefix("data: ")) for line in lines]


async def test_a_run_as_validated_ag_ui_events(serve: Any) -> None:
    served = await serve(
        [
            {
                "content": "Let me delegate.",
                "tool_calls": [{"name": "delegate", "arguments": {"task": "sum"}}],
            },
            {
                "content": "The helper is done.",
                "usage": {"prompt_tokens": 90, "completion_tokens": 6, "cached_tokens": 80},
            },
        ],
        tools=TOOLS,
    )
    user = {"id": "u1", "role": "user", "content": "Please delegate."}
    seen = await read_events(served.url, run_input("t1", [user]))
    assert [e.type for e in seen] == [
        EventType.RUN_STARTED,
        EventType.STEP_STARTED,
        EventType.TEXT_MESSAGE_START,
        *[EventType.TEXT_MESSAGE_CONTENT] * 3,
        EventType.CUSTOM,
        EventType.CUSTOM,
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
        EventType.CUSTOM,
        EventType.STEP_FINISHED,
        EventType.STEP_STARTED,
        *[EventType.TEXT_MESSAGE_START] + [EventType.TEXT_MESSAGE_CONTENT] * 4,
        EventType.TEXT_MESSAGE_END,
        EventType.STEP_FINISHED,
        EventType.RUN_FINISHED,
    ]
    assert seen[0].thread_id == "t1" and seen[0].run_id == "run-1"
    custom = [e for e in seen if e.type == EventType.CUSTOM]
    names = [c.name.removeprefix("agentframe.") for c in custom]
    assert names == ["child_started", "child_finished", "tool_time"]
    assert custom[0].value["session_id"] == "child-1"
    start = next(e for e in seen if e.type == EventType.TOOL_CALL_START)
    assert start.tool_call_name == "delegate" and start.parent_message_id == seen[2].message_id
    args = next(e for e in seen if e.type == EventType.TOOL_CALL_ARGS)
    assert json.loads(args.delta) == {"task": "sum"}
    result = next(e for e in seen if e.type == EventType.TOOL_CALL_RESULT)
    assert result.content == "the helper says: done" and result.tool_call_id == start.tool_call_id
    timed = custom[2].value
    assert timed["tool_call_id"] == start.tool_call_id and timed["seconds"] >= 0
    finished = seen[-1]
    assert finished.result["reply"] == "The helper is done."
    (usage,) = finished.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (90, 6, 80)
    assert finished.outcome.type == "success" and not finished.outcome.pending_tool_call_ids
    texts = "".join(e.delta for e in seen if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert texts == "Let me delegate.The helper is done."
    kinds = [k for k, _ in await served.entries("local.t1")]
    assert kinds == ["user", "assistant", "tool_call", "tool_result", "assistant"]


async def test_client_tools_are_pending_calls_answered_by_the_next_run(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "confirm", "arguments": {"question": "Go?"}}]}, "Going."]
    )
    tool = {
        "name": "confirm",
        "description": "Asks the user.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string"}}},
    }
    user = {"id": "u1", "role": "user", "content": "Do it."}
    seen = await read_events(served.url, run_input("t2", [user], tools=[tool]))
    start = next(e for e in seen if e.type == EventType.TOOL_CALL_START)
    assert start.tool_call_name == "confirm"
    assert EventType.TOOL_CALL_RESULT not in [e.type for e in seen]
    assert seen[-1].type == EventType.RUN_FINISHED
    assert seen[-1].outcome.pending_tool_call_ids == [start.tool_call_id]
    args = next(e for e in seen if e.type == EventType.TOOL_CALL_ARGS).delta
    messages = [
        user,
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": start.tool_call_id,
                    "type": "function",
                    "function": {"name": "confirm", "arguments": args},
                }
            ],
        },
        {"id": "r1", "role": "tool", "toolCallId": start.tool_call_id, "content": "yes"},
    ]
    again = await read_events(served.url, run_input("t2", messages, tools=[tool]))
    assert again[-1].result["reply"] == "Going."
    entries = await served.entries("local.t2")
    assert [k for k, _ in entries] == [
        "user",
        "assistant",
        "tool_call",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    assert entries[4][1] == "yes"


async def test_a_failed_run_is_run_error_and_bad_input_names_the_field(serve: Any) -> None:
    served = await serve([])  # the script is empty: the model call fails
    user = {"id": "u1", "role": "user", "content": "hi"}
    seen = await read_events(served.url, run_input("t3", [user]))
    assert seen[0].type == EventType.RUN_STARTED and seen[-1].type == EventType.RUN_ERROR
    assert "ScriptExhaustedError" in seen[-1].message
    async with httpx.AsyncClient(base_url=served.url) as http:
        bad = await http.post("/ag-ui/helper", json={"threadId": "t", "messages": []})
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "runId"
        unknown = await http.post("/ag-ui/nobody", json=run_input("t", [user]))
        assert unknown.status_code == 404 and "helper" in unknown.json()["error"]["message"]


async def test_a_question_is_asked_of_the_client_and_its_answer_goes_on(serve: Any) -> None:
    keys = {
        "AGENTFRAME_SERVE_API_KEYS": "alice=alice-key-0123456789abcdef,bob=bob-key-0123456789ab"
    }
    served = await serve(
        [{"tool_calls": [{"name": "remove", "arguments": {"path": "notes.txt"}}]}, "Removed."],
        tools=["servetools:remove"],
        environ=keys,
    )
    alice = {"authorization": "Bearer alice-key-0123456789abcdef"}
    bob = {"authorization": "Bearer bob-key-0123456789ab"}
    user = {"id": "u1", "role": "user", "content": "Remove notes.txt"}
    seen = []
    async with (
        httpx.AsyncClient(base_url=served.url) as http,
        http.stream("POST", "/ag-ui/helper", json=run_input("q1", [user]), headers=alice) as r,
    ):
        async for line in r.aiter_lines():
            if not line.startswith("data: "):
                continue
            event = EVENTS.validate_json(line.removeprefix("data: "))
            seen.append(event)
            if event.type == EventType.CUSTOM and event.name == "agentframe.question":
                asked = event.value
                assert asked["message"] == "Remove notes.txt?" and asked["schema"] is None
                path = f"/v1/questions/{asked['id']}"
                assert (
                    await http.post(path, json={"action": "accept"}, headers=bob)
                ).status_code == 404
                bad = await http.post(path, json={"action": "maybe"}, headers=alice)
                assert bad.status_code == 400 and bad.json()["error"]["param"] == "action"
                answered = await http.post(path, json={"action": "accept"}, headers=alice)
                assert answered.json()["action"] == "accept"
                again = await http.post(path, json={"action": "decline"}, headers=alice)
                assert again.status_code == 404  # answered already
    result = next(e for e in seen if e.type == EventType.TOOL_CALL_RESULT)
    assert result.content == "accept"
    assert seen[-1].type == EventType.RUN_FINISHED and seen[-1].result["reply"] == "Removed."


async def test_a_forms_answer_is_checked_against_its_fields(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "label", "arguments": {}}]}, "Labelled."],
        tools=["servetools:label"],
    )
    user = {"id": "u1", "role": "user", "content": "Label it"}
    results = []
    async with (
        httpx.AsyncClient(base_url=served.url) as http,
        http.stream("POST", "/ag-ui/helper", json=run_input("q2", [user])) as r,
    ):
        async for line in r.aiter_lines():
            event = EVENTS.validate_json(line[6:]) if line.startswith("data: ") else None
            if event is not None and event.type == EventType.TOOL_CALL_RESULT:
                results.append(event.content)
            if (
                event is None
                or event.type != EventType.CUSTOM
                or event.name != "agentframe.question"
            ):
                continue
            path = f"/v1/questions/{event.value['id']}"
            for content, param in [
                ({"count": 2}, "content.name"),  # required
                ({"name": "a", "count": "2"}, "content.count"),  # a string, not an integer
                ({"name": "a", "count": True}, "content.count"),
                ({"name": "a", "extra": 1}, "content.extra"),
            ]:
                refused = await http.post(path, json={"action": "accept", "content": content})
                assert refused.status_code == 400 and refused.json()["error"]["param"] == param
            accepted = {"action": "accept", "content": {"name": "a", "count": 2}}
            assert (await http.post(path, json=accepted)).status_code == 200
    assert results == ["accept {'name': 'a', 'count': 2}"]
