"""A2A, driven by `a2a-sdk`'s own client: the agent card, message/send, message/stream,
tasks/get and tasks/cancel; a task is a run on the session of its context."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError

NAP = ["servetools:nap", "agentframe_core.examples:add"]
KEY = "a2a-key-0123456789abcdef"


def message(text: str, context: str) -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            message_id=uuid.uuid4().hex,
            context_id=context,
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
        )
    )


async def client_for(served: Any, *, streaming: bool, key: str | None = None) -> Any:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    http = httpx.AsyncClient(headers=headers, timeout=30)
    config = ClientConfig(streaming=streaming, httpx_client=http)
    return await create_client(f"{served.url}/a2a/helper", config)


async def test_the_card_and_message_send(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}, "It is 5."]
    )
    async with httpx.AsyncClient() as http:
        card = (await http.get(f"{served.url}/a2a/helper/.well-known/agent-card.json")).json()
    assert card["name"] == "helper" and card["capabilities"]["streaming"] is True
    assert card["supportedInterfaces"][0]["url"] == f"{served.url}/a2a/helper"
    client = await client_for(served, streaming=False)
    (response,) = [r async for r in client.send_message(message("2+3?", "ctx-1"))]
    task = response.task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert task.status.message.parts[0].text == "It is 5."
    assert "".join(p.text for a in task.artifacts for p in a.parts) == "It is 5."
    fetched = await client.get_task(GetTaskRequest(id=task.id))
    assert fetched.status.state == TaskState.TASK_STATE_COMPLETED and fetched.context_id == "ctx-1"
    kinds = [k for k, _ in await served.entries("local.ctx-1")]
    assert kinds == ["user", "assistant", "tool_call", "tool_result", "assistant"]
    await client.close()


async def test_message_stream_and_a_second_task_on_the_same_context(serve: Any) -> None:
    served = await serve(
        [
            {
                "content": "Adding now.",
                "tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 1}}],
            },
            "Two.",
            "Still two.",
        ]
    )
    client = await client_for(served, streaming=True)
    seen = [r async for r in client.send_message(message("1+1?", "ctx-2"))]
    kinds = [r.WhichOneof("payload") for r in seen]
    assert kinds[0] == "task" and "artifact_update" in kinds and kinds[-1] == "status_update"
    notes = [
        r.status_update.status.message.parts[0].text
        for r in seen
        if r.WhichOneof("payload") == "status_update" and r.status_update.status.message.parts
    ]
    assert "tool add done" in notes
    text = "".join(
        p.text
        for r in seen
        if r.WhichOneof("payload") == "artifact_update"
        for p in r.artifact_update.artifact.parts
    )
    assert text == "Adding now.Two."
    assert seen[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    again = [r async for r in client.send_message(message("and again?", "ctx-2"))]
    assert again[-1].status_update.status.message.parts[0].text == "Still two."
    entries = await served.entries("local.ctx-2")
    assert [c for k, c in entries if k == "user"] == ["1+1?", "and again?"]
    await client.close()


async def test_tasks_cancel_cancels_the_run(serve: Any) -> None:
    served = await serve(
        [{"tool_calls": [{"name": "nap", "arguments": {"seconds": 30}}]}], tools=NAP
    )
    client = await client_for(served, streaming=True)
    stream = client.send_message(message("nap", "ctx-3"))
    first = await anext(stream)
    task_id = first.task.id
    while not served.requests:  # the model asked for the nap
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)
    canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
    assert canceled.status.state == TaskState.TASK_STATE_CANCELED
    await stream.aclose()
    for _ in range(200):
        entries = await served.entries("local.ctx-3")
        if entries and entries[-1][0] == "tool_result":
            break
        await asyncio.sleep(0.02)
    assert [k for k, _ in entries] == ["user", "assistant", "tool_call", "tool_result"]
    assert "interrupted" in entries[-1][1]
    await client.close()


async def test_another_keys_task_is_not_found(serve: Any) -> None:
    other = "other-key-0123456789abcdef"
    served = await serve(
        ["done"], environ={"AGENTFRAME_SERVE_API_KEYS": f"mine={KEY},theirs={other}"}
    )
    mine = await client_for(served, streaming=False, key=KEY)
    (response,) = [r async for r in mine.send_message(message("hi", "ctx-4"))]
    theirs = await client_for(served, streaming=False, key=other)
    with pytest.raises(TaskNotFoundError):  # exactly as an id never used
        await theirs.get_task(GetTaskRequest(id=response.task.id))
    with pytest.raises(TaskNotFoundError):
        await theirs.get_task(GetTaskRequest(id=str(uuid.uuid4())))
    async with httpx.AsyncClient() as http:
        refused = await http.get(f"{served.url}/a2a/helper/.well-known/agent-card.json")
        assert refused.status_code == 401
    await mine.close()
    await theirs.close()


async def test_the_v0_3_method_names_answer_too(serve: Any) -> None:
    served = await serve(["hello"])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "messageId": "m1",
                "contextId": "ctx-5",
                "role": "user",
                "parts": [{"kind": "text", "text": "hi"}],
            }
        },
    }
    async with httpx.AsyncClient() as http:
        answer = (await http.post(f"{served.url}/a2a/helper", json=body)).json()
        assert answer["result"]["status"]["state"] == "completed", answer
        task_id = answer["result"]["id"]
        got = await http.post(
            f"{served.url}/a2a/helper",
            json={"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}},
        )
        assert got.json()["result"]["id"] == task_id
        unknown = await http.post(f"{served.url}/a2a/nobody", json=body)
        assert unknown.status_code == 404 and "helper" in unknown.json()["error"]["message"]
