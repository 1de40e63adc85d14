"""The loop and the turn lease: one turn at a time per session, deletion stops a turn, a
killed holder blocks the next run only until its lease expires (issue 12, items 4 and 5)."""

from __future__ import annotations

import asyncio
import time

import pytest
from stacks import call

from agentframe_core import SessionDeletedError, tool
from agentframe_core.engine.session import Session


async def test_a_session_deleted_while_the_model_answers_gets_nothing_more(make_stack):
    stack = make_stack([{"content": "too late", "delay": 0.3}])
    session = Session(stack, "doomed")
    run = asyncio.create_task(session.run("hello"))
    while not stack.adapter.requests:
        await asyncio.sleep(0.001)
    await stack.store.delete("doomed")
    with pytest.raises(SessionDeletedError):
        await run
    assert await stack.store.context("doomed") == []
    assert await stack.store.sessions() == []
    assert await stack.store.acquire_lease("doomed", "next", 10)  # released: the id is free


async def test_deletion_stops_a_long_tool_within_the_lease_period(make_stack):
    @tool
    async def slow() -> str:
        """Takes long."""
        await asyncio.sleep(30)
        return "done"

    stack = make_stack([call("slow"), "never"], [slow], turn_lease_seconds=0.3)
    session = Session(stack, "doomed")
    run = asyncio.create_task(session.run("go"))
    while len(stack.adapter.requests) < 1 or not await stack.store.context("doomed"):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await stack.store.delete("doomed")
    with pytest.raises(SessionDeletedError):
        await asyncio.wait_for(run, 5)
    assert time.monotonic() - started < 1  # the renewal (every ttl/3) noticed it
    assert await stack.store.context("doomed") == []


async def test_a_run_waiting_for_its_turn_on_a_deleted_session_writes_nothing(make_stack):
    stack = make_stack(["answer"])
    assert await stack.store.acquire_lease("S", "another process", 0.3)
    waiting = asyncio.create_task(Session(stack, "S").run("hello"))
    await asyncio.sleep(0.05)
    await stack.store.delete("S")
    with pytest.raises(SessionDeletedError):
        await asyncio.wait_for(waiting, 5)
    assert await stack.store.context("S") == []
    assert not stack.adapter.requests


async def test_a_killed_holder_blocks_the_session_until_its_lease_expires(make_stack):
    stack = make_stack(["answer"])
    assert await stack.store.acquire_lease("S", "killed process", 0.4)
    started = time.monotonic()
    result = await asyncio.wait_for(Session(stack, "S").run("hello"), 5)
    assert result.reply == "answer" and not result.coalesced
    assert 0.3 < time.monotonic() - started < 2


async def test_a_queued_message_answered_by_the_holder_is_reported_not_answered_twice(make_stack):
    first = make_stack([{"content": "one answered", "delay": 0.2}, "both answered"])
    second = make_stack(["a second answer nobody asked for"])
    second.store = first.store
    running = asyncio.create_task(Session(first, "S").run("one"))
    while not first.adapter.requests:
        await asyncio.sleep(0.001)
    joined = await Session(second, "S").run("two")  # claimed by the running turn
    assert (await running).reply == "both answered"
    assert joined.coalesced and joined.reply == "both answered" and joined.turns == 0
    assert not second.adapter.requests


def test_the_reported_answer_is_the_first_after_the_message_not_a_later_turns() -> None:
    from agentframe_core import Entry, EntryKind
    from agentframe_core.support.turnlease import reply_to

    def entry(kind: EntryKind, content: str = "", **fields: object) -> Entry:
        return Entry(kind=kind, content=content, **fields)  # type: ignore[arg-type]

    mine = entry(EntryKind.USER, "mine")
    context = [
        entry(EntryKind.USER, "first"),
        mine,
        entry(EntryKind.ASSISTANT, "let me look"),
        entry(EntryKind.TOOL_CALL, "{}", tool_call_id="c1", tool_name="look"),
        entry(EntryKind.TOOL_RESULT, "found", tool_call_id="c1", tool_name="look"),
        entry(EntryKind.ASSISTANT, "not json", tag="parse-error"),
        entry(EntryKind.ASSISTANT, "the answer to both"),
        entry(EntryKind.USER, "later"),
        entry(EntryKind.ASSISTANT, "a later turn's answer"),
    ]
    assert reply_to(context, mine) == "the answer to both"
    assert reply_to(context[:5], mine) is None  # its turn has not answered yet


def _count_acquisitions(store: object) -> list[float]:
    """The ttl of every `acquire_lease` call on `store` from now on."""
    seen: list[float] = []
    real = store.acquire_lease  # type: ignore[attr-defined]

    async def counted(session_id: str, holder: str, ttl: float) -> bool:
        seen.append(ttl)
        return await real(session_id, holder, ttl)

    store.acquire_lease = counted  # type: ignore[attr-defined]
    return seen


@tool
async def nap() -> str:
    """Takes a while."""
    await asyncio.sleep(0.2)
    return "rested"


async def test_an_in_process_lease_is_taken_once_and_never_renewed(make_stack):
    stack = make_stack([call("nap"), "done"], [nap], turn_lease_seconds=0.03)
    acquired = _count_acquisitions(stack.store)
    assert (await Session(stack, "S").run("go")).reply == "done"
    assert len(acquired) == 1  # renewed every 10 ms before: about 20 times
    assert await stack.store.acquire_lease("S", "next", 10)  # and released


async def test_deleting_an_in_process_session_stops_its_turn_at_once(make_stack):
    @tool
    async def slow() -> str:
        """Takes long."""
        await asyncio.sleep(30)
        return "done"

    stack = make_stack([call("slow"), "never"], [slow])  # the default ttl: 15 s
    run = asyncio.create_task(Session(stack, "doomed").run("go"))
    while len(stack.adapter.requests) < 1 or not await stack.store.context("doomed"):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await stack.store.delete("doomed")
    with pytest.raises(SessionDeletedError):
        await asyncio.wait_for(run, 10)
    assert time.monotonic() - started < 0.5  # the renewal noticed it after ttl / 3 = 5 s before
    assert await stack.store.context("doomed") == [] and await stack.store.sessions() == []


class _SharedStore:
    """A LeasingStore that does not declare its leases local (as one shared between
    processes): every method the MemoryStore's, `watch_lease` left out."""

    def __init__(self, inner: object) -> None:
        self.inner = inner


for _name in (
    "append",
    "enqueue",
    "claim_pending",
    "context",
    "compact",
    "sessions",
    "delete",
    "acquire_lease",
    "release_lease",
    "lease_revoked",
):
    setattr(
        _SharedStore,
        _name,
        lambda self, *args, _name=_name: getattr(self.inner, _name)(*args),
    )


async def test_a_lease_not_declared_local_is_renewed_while_the_turn_runs(make_stack):
    stack = make_stack([call("nap"), "done"], [nap], turn_lease_seconds=0.06)
    stack.store = _SharedStore(stack.store)
    acquired = _count_acquisitions(stack.store.inner)
    assert (await Session(stack, "S").run("go")).reply == "done"
    assert len(acquired) >= 3 and set(acquired) == {0.06}
    assert await stack.store.acquire_lease("S", "next", 10)
