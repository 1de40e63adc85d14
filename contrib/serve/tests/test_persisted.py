"""What serve remembers is in the store, not in its memory: a process SIGKILLed and started
again on the same SQLite store recognises a resent conversation, answers and continues its
Responses, and answers `tasks/get`; two processes on one PostgreSQL store share all three."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import openai
from a2a.types.a2a_pb2 import GetTaskRequest, TaskState
from test_a2a import message
from test_replicas import postgres_dsn, schema

__all__ = ["postgres_dsn", "schema"]


class _Served:
    def __init__(self, url: str) -> None:
        self.url = url


async def _a2a_send(url: str, text: str, context: str) -> str:
    from test_a2a import client_for

    client = await client_for(_Served(url), streaming=False)
    (response,) = [r async for r in client.send_message(message(text, context))]
    await client.close()
    return str(response.task.id)


async def _a2a_get(url: str, task_id: str) -> Any:
    from test_a2a import client_for

    client = await client_for(_Served(url), streaming=False)
    task = await client.get_task(GetTaskRequest(id=task_id))
    await client.close()
    return task


def _client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)


def test_a_restarted_server_remembers_conversations_responses_and_tasks(
    serve_process: Any,
) -> None:
    process, url = serve_process(["one", "two", "three"])
    client = _client(url)
    first = [{"role": "user", "content": "hello"}]
    chat = client.with_raw_response.chat.completions.create(model="helper", messages=first)
    session = chat.headers["x-session-id"]
    said = chat.parse().choices[0].message.content
    response = client.responses.create(model="helper", input="remember me")
    task_id = asyncio.run(_a2a_send(url, "a task", "ctx-kept"))
    process.send_signal(signal.SIGKILL)
    process.wait(30)

    _, url = serve_process(["again", "continued"])
    client = _client(url)
    resent = [*first, {"role": "assistant", "content": said}, {"role": "user", "content": "more"}]
    again = client.with_raw_response.chat.completions.create(model="helper", messages=resent)
    assert again.headers["x-session-id"] == session
    assert client.responses.retrieve(response.id).output_text == "two"
    continued = client.responses.create(
        model="helper", input="and now?", previous_response_id=response.id
    )
    assert continued.output_text == "continued"
    assert continued.session_id == response.session_id  # type: ignore[attr-defined]
    task = asyncio.run(_a2a_get(url, task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED and task.context_id == "ctx-kept"
    assert task.status.message.parts[0].text == "three"


def test_two_replicas_share_them(serve_process: Any, postgres_dsn: str, schema: str) -> None:
    store = {"use": "postgres", "dsn_env": "AGENTFRAME_TEST_PG", "schema": schema}
    replies = ["from a", "chat a", "task a"]
    _, url_a = serve_process(replies, store=store, AGENTFRAME_TEST_PG=postgres_dsn)
    _, url_b = serve_process(["from b", "chat b"], store=store, AGENTFRAME_TEST_PG=postgres_dsn)
    a, b = _client(url_a), _client(url_b)
    created = a.responses.create(model="helper", input="hi")
    first = [{"role": "user", "content": "hello"}]
    chat = a.with_raw_response.chat.completions.create(model="helper", messages=first)
    task_id = asyncio.run(_a2a_send(url_a, "a task", "ctx-shared"))
    assert b.responses.retrieve(created.id).output_text == "from a"
    continued = b.responses.create(model="helper", input="next", previous_response_id=created.id)
    assert continued.output_text == "from b"
    assert continued.session_id == created.session_id  # type: ignore[attr-defined]
    deleted = b.responses.delete(created.id)
    assert deleted is None
    try:
        _client(url_a).responses.retrieve(created.id)
    except openai.NotFoundError:
        pass
    else:
        raise AssertionError("a response deleted on one replica is still found on the other")
    said = {"role": "assistant", "content": "chat a"}
    resent = [*first, said, {"role": "user", "content": "more"}]
    again = b.with_raw_response.chat.completions.create(model="helper", messages=resent)
    assert again.headers["x-session-id"] == chat.headers["x-session-id"]
    task = asyncio.run(_a2a_get(url_b, task_id))
    assert task.status.state == TaskState.TASK_STATE_COMPLETED and task.context_id == "ctx-shared"
