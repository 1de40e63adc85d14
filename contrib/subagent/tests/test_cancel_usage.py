"""Cancellation reaches every child; a call out of time reports every task; usage rolls up."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from agentframe_subagent import SubagentOptions

from agentframe_core import EntryKind, Session


async def test_cancelling_the_parent_cancels_every_running_child_within_a_second(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "sleep=30;say=late"} for _ in range(6)]
    stack, adapter = kit.make_stack([kit.call({"tasks": tasks}), "done"])
    session = Session(stack)
    run = asyncio.create_task(session.run("go"))
    while len(adapter.child_requests.get("worker", [])) < 4:
        await asyncio.sleep(0.01)
    cancelled = time.perf_counter()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert len(adapter.cancelled_at) == 4  # the 4 running children; 2 never started
    assert max(adapter.cancelled_at) - cancelled <= 1.0
    entries = await stack.store.context(session.id)
    results = [e for e in entries if e.kind is EntryKind.TOOL_RESULT]
    assert len(results) == 1 and results[0].meta.get("cancelled")  # history well-formed
    children = [s for s in await stack.store.sessions() if s.id != session.id]
    assert len(children) == 4
    for child in children:  # each child's lease was given back: it can run again
        assert await stack.store.acquire_lease(child.id, "someone", 5.0)


async def test_a_parallel_call_out_of_time_returns_one_result_per_task(kit: Any) -> None:
    tasks = [
        {"agent": "worker", "task": "say=quick"},
        {"agent": "reviewer", "task": "sleep=30;say=slow"},
        {"agent": "worker", "task": "fail"},
        {"agent": "worker", "task": "say=queued"},
    ]
    options = SubagentOptions(timeout=0.5, max_concurrency=3)
    stack, _ = kit.make_stack([kit.call({"tasks": tasks}), "done"], options=options)
    started = time.perf_counter()
    result = await Session(stack).run("go")
    assert time.perf_counter() - started < 1.5
    record = result.tool_calls[0].result
    statuses = [c["status"] for c in record.meta["children"]]
    assert statuses == ["done", "cancelled", "failed", "done"]
    assert (
        "[2] reviewer (cancelled)" in record.content
        and "[1] worker (done):\nquick" in record.content
    )


async def test_usage_rolls_up_from_the_children(kit: Any) -> None:
    tasks = [{"agent": "worker", "task": "say=a"}, {"agent": "reviewer", "task": "call=echo"}]
    first = kit.call({"tasks": tasks})
    first["usage"] = {"prompt_tokens": 100, "completion_tokens": 1}
    stack, _ = kit.make_stack(
        [first, {"content": "done", "usage": {"prompt_tokens": 7, "completion_tokens": 3}}]
    )
    result = await Session(stack).run("go")
    meta = result.tool_calls[0].result.meta
    assert [c["usage"]["prompt_tokens"] for c in meta["children"]] == [10, 20]
    assert result.tool_calls[0].result.meta["usage"] == {
        "prompt_tokens": 30,
        "completion_tokens": 15,
        "cached_tokens": 0,
    }
    assert result.usage.prompt_tokens == 107  # the parent's own
    assert result.children_usage.prompt_tokens == 30
    assert result.total_usage.prompt_tokens == 137
    assert result.total_usage.completion_tokens == 4 + 15
