"""How an answer file becomes the Completion the loop gets: structured tool calls pass through
whole when the adapter declares native tool calling, and are refused (loudly, never dropped)
when it does not; a fenced answer is unfenced only when the request asked for JSON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agentframe_agentfs import AgentFSAdapter, AgentFSOptions
from agentframe_agentfs.contract import atomic_write
from agentframe_agentfs.errors import MalformedAnswerError

from agentframe_core import CompletionRequest, Message, ToolCall
from agentframe_core.testing import ADD_TOOL, ANSWER_SCHEMA

TWO_CALLS = [
    {"id": "c1", "name": "add", "arguments": {"a": 1, "b": 2}},
    {"id": "c2", "name": "add", "arguments": {"a": 3, "b": 4}},
]


async def answered(
    adapter: AgentFSAdapter, request: CompletionRequest, answer: dict[str, Any]
) -> Any:
    """`adapter.complete(request)`, with `answer` written to each task it submits."""
    paths = adapter.folder.paths(adapter.envelope(request)["task_id"])

    async def drain() -> None:
        while True:
            while paths.done.exists() or not paths.task.exists():
                await asyncio.sleep(0.005)
            body = {"task_id": paths.id, **answer}
            atomic_write(paths.answer, json.dumps(body).encode())
            atomic_write(paths.done, b"")

    drainer = asyncio.create_task(drain())
    try:
        return await adapter.complete(request)
    finally:
        drainer.cancel()


def fs(tmp_path: Path, **options: Any) -> AgentFSAdapter:
    return AgentFSAdapter(AgentFSOptions(dir=tmp_path, timeout_seconds=10, **options))


def request(**fields: Any) -> CompletionRequest:
    return CompletionRequest([Message("user", "add 1+2 and 3+4")], **fields)


async def test_native_tools_pass_every_call_through(tmp_path: Path) -> None:
    adapter = fs(tmp_path, native_tools=True)
    completion = await answered(
        adapter, request(tools=[ADD_TOOL]), {"answer": "", "tool_calls": TWO_CALLS}
    )
    assert completion.tool_calls == (
        ToolCall("c1", "add", {"a": 1, "b": 2}),
        ToolCall("c2", "add", {"a": 3, "b": 4}),
    )
    assert completion.finish_reason == "tool_calls" and completion.content == ""


async def test_without_native_tools_structured_calls_are_refused_not_dropped(
    tmp_path: Path,
) -> None:
    adapter = fs(tmp_path)
    with pytest.raises(MalformedAnswerError, match="native_tools") as err:
        await answered(adapter, request(), {"answer": "", "tool_calls": TWO_CALLS})
    paths = adapter.folder.paths(adapter.envelope(request())["task_id"])
    assert str(paths.answer) in str(err.value)
    assert "c2" in paths.rejected(1).read_text()  # every call is kept for inspection


def test_without_native_tools_no_tools_travel_in_the_envelope(tmp_path: Path) -> None:
    envelope = fs(tmp_path).envelope(request(tools=[ADD_TOOL]))
    assert "tools" not in envelope and envelope["user"] == "add 1+2 and 3+4"
    assert fs(tmp_path, native_tools=True).envelope(request(tools=[ADD_TOOL]))["tools"]


FENCED = '```json\n{"answer": 2, "unit": "apples"}\n```'


async def test_a_fenced_answer_is_unfenced_when_json_was_asked_for(tmp_path: Path) -> None:
    adapter = fs(tmp_path, json_schema=True)
    completion = await answered(adapter, request(response_schema=ANSWER_SCHEMA), {"answer": FENCED})
    assert json.loads(completion.content) == {"answer": 2, "unit": "apples"}


async def test_any_other_answer_reaches_the_loop_as_written(tmp_path: Path) -> None:
    code = "```python\nprint(1)\n```"
    for text in (FENCED, code, "  spaced  "):
        adapter = fs(tmp_path / str(len(text)))
        assert (await answered(adapter, request(), {"answer": text})).content == text
