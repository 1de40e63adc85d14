"""The turn lease part of `StoreConformance`: one turn at a time per session, deletion
tombstones, and the history concurrent runs leave behind. Every store is held to it: a store
without `LeasingStore` fails these tests instead of skipping them.

`check_turns_well_formed` is public: the SQLite plugin uses it on the history that eight real
`agentframe run --session S` processes leave.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

from ...contract.model import Entry, EntryKind
from ...contract.protocols import LeasingStore, Store
from ...engine.render import NO_RESULT
from ...support.turnlease import SessionDeletedError
from ._verdicts import raises, unmet

__all__ = ["LeaseConformance", "check_turns_well_formed"]


def _sid() -> str:
    return f"kit-lease-{uuid.uuid4().hex[:12]}"


def _leasing(store: Store) -> LeasingStore:
    """The store as a `LeasingStore`, which every store must be: else the test fails, saying
    which methods to add."""
    __tracebackhide__ = True
    if not isinstance(store, LeasingStore):
        unmet(store, LeasingStore, role="store", since="0.2")
    return store


def check_turns_well_formed(entries: Sequence[Entry], replies: dict[str, str]) -> None:
    """Assert that a session's history is a sequence of whole turns.

    - every tool call is directly followed (after the other calls of its reply) by its result;
    - `replies` maps each run's user-message text to the reply that run reported: it must be
      the first turn-ending answer after its message, so no other turn's reply sits between
      a message and its answer (a run whose message joined another's turn reports that turn's
      answer)."""
    open_calls: list[str] = []
    for index, entry in enumerate(entries):
        if entry.kind is EntryKind.TOOL_CALL:
            assert not open_calls or entries[index - 1].kind is EntryKind.TOOL_CALL, (
                f"entry {index}: a tool call after another call's result (two turns "
                f"interleaved): {entry}"
            )
            open_calls.append(entry.tool_call_id or "")
        elif entry.kind is EntryKind.TOOL_RESULT and open_calls:
            assert entry.tool_call_id in open_calls, (
                f"entry {index}: the result of call {entry.tool_call_id!r}, which is not one "
                f"of the open calls {open_calls} (two turns interleaved)"
            )
            open_calls.remove(entry.tool_call_id or "")
        else:
            assert not open_calls, (
                f"entry {index} ({entry.kind.value}) sits between tool calls {open_calls} and "
                "their results (two turns interleaved)"
            )
    assert not open_calls, f"tool calls {open_calls} have no results at the end of the history"
    for text, reply in replies.items():
        start = next(
            (i for i, e in enumerate(entries) if e.kind is EntryKind.USER and e.content == text),
            None,
        )
        assert start is not None, f"the message {text!r} of a finished run is not in the history"
        answer = next(
            (e for e in entries[start + 1 :] if _ends_turn(entries, e)),
            None,
        )
        assert answer is not None, f"{text!r} was never answered"
        assert answer.content == reply, (
            f"{text!r} reported {reply!r}, but the answer after it is {answer.content!r}"
        )


def _ends_turn(entries: Sequence[Entry], entry: Entry) -> bool:
    """An assistant entry with text and no tool calls of its own."""
    if entry.kind is not EntryKind.ASSISTANT or not entry.content:
        return False
    index = entries.index(entry)
    after = entries[index + 1] if index + 1 < len(entries) else None
    return after is None or after.kind is not EntryKind.TOOL_CALL


class LeaseConformance:
    """Mixed into `StoreConformance`."""

    async def test_a_turn_lease_is_held_by_one_holder_at_a_time(self, store: Store) -> None:
        leases, sid = _leasing(store), _sid()
        assert await leases.acquire_lease(sid, "a", 30), (
            "acquire_lease() of a free lease must take it and return True"
        )
        assert not await leases.acquire_lease(sid, "b", 30), (
            "acquire_lease() by b of a lease a holds (live) must return False, it returned True"
        )
        assert await leases.acquire_lease(sid, "a", 30), (
            "acquire_lease() by the holder of a live lease renews it and must return True"
        )
        assert await leases.acquire_lease(_sid(), "b", 30), (
            "a lease held in one session must not block another session's lease"
        )
        await leases.release_lease(sid, "b")
        assert not await leases.acquire_lease(sid, "b", 30), (
            "release_lease() by b, who does not hold the lease, must do nothing; b then took it"
        )
        await leases.release_lease(sid, "a")
        assert await leases.acquire_lease(sid, "b", 30), (
            "after its holder's release_lease(), the lease must be free: acquire_lease() by "
            "another holder returned False"
        )

    async def test_an_expired_lease_is_free_and_lost_to_its_holder(self, store: Store) -> None:
        leases, sid = _leasing(store), _sid()
        assert await leases.acquire_lease(sid, "killed", 0.05), (
            "acquire_lease() of a free lease must take it and return True"
        )
        await asyncio.sleep(0.1)
        assert await leases.acquire_lease(sid, "next", 30), (
            "a lease past its ttl is free: acquire_lease() by another holder must return True"
        )
        assert not await leases.acquire_lease(sid, "killed", 30), (
            "renewing a lease that expired and was taken by another holder must return False "
            "(the stalled holder learns it lost the turn), it returned True"
        )

    async def test_a_session_deleted_under_its_lease_refuses_writes(self, store: Store) -> None:
        leases, sid = _leasing(store), _sid()
        await store.append(sid, Entry(kind=EntryKind.USER, content="hello"))
        assert await leases.acquire_lease(sid, "turn", 30), (
            "acquire_lease() of a free lease must take it and return True"
        )
        assert not await leases.lease_revoked(sid), (
            "lease_revoked() must be False for a session that was not deleted"
        )
        await store.delete(sid)
        assert await leases.lease_revoked(sid), (
            "delete() of a session whose lease is live must revoke it: lease_revoked() "
            "returned False"
        )
        assert not await leases.acquire_lease(sid, "turn", 30), (
            "renewing a revoked lease (its session was deleted) must return False, so the "
            "running turn learns it: acquire_lease() by its holder returned True"
        )
        assert not await leases.acquire_lease(sid, "other", 30), (
            "a revoked lease is not free until it is released or expires: acquire_lease() by "
            "another holder returned True"
        )
        for name, write in (
            ("append()", store.append(sid, Entry(kind=EntryKind.ASSISTANT, content="late"))),
            ("enqueue()", store.enqueue(sid, Entry(kind=EntryKind.USER, content="late"))),
        ):
            with raises(SessionDeletedError, f"{name} to a session deleted under its lease"):
                await write
        got = await store.context(sid)
        assert got == [], f"a refused write to a deleted session must write nothing: {got!r}"
        listed = [info.id for info in await store.sessions()]
        assert sid not in listed, "a refused write must not bring a deleted session back"
        await leases.release_lease(sid, "turn")
        assert not await leases.lease_revoked(sid), (
            "release_lease() by its holder must end a revoked lease (the tombstone): "
            "lease_revoked() is still True"
        )
        await store.append(sid, fresh := Entry(kind=EntryKind.USER, content="new"))
        got = await store.context(sid)
        assert got == [fresh], "once the tombstone ends, the id is free for a new session"

    async def test_a_tombstone_ends_when_the_lease_expires(self, store: Store) -> None:
        leases, sid = _leasing(store), _sid()
        assert await leases.acquire_lease(sid, "killed", 0.05), (
            "acquire_lease() of a free lease must take it and return True"
        )
        await store.delete(sid)
        assert await leases.lease_revoked(sid), (
            "delete() of a session whose lease is live must revoke it: lease_revoked() "
            "returned False"
        )
        await asyncio.sleep(0.1)
        assert not await leases.lease_revoked(sid), (
            "a revoked lease past its ttl has ended (its holder was killed): lease_revoked() "
            "must return False"
        )
        assert await leases.acquire_lease(sid, "next", 30), (
            "a revoked lease past its ttl is free: acquire_lease() must return True"
        )

    async def test_deleting_a_session_without_a_lease_leaves_no_tombstone(
        self, store: Store
    ) -> None:
        leases, sid = _leasing(store), _sid()
        await store.append(sid, Entry(kind=EntryKind.USER, content="x"))
        await store.delete(sid)
        assert not await leases.lease_revoked(sid), (
            "delete() of a session with no live lease must leave no tombstone: "
            "lease_revoked() returned True"
        )
        await store.append(sid, Entry(kind=EntryKind.USER, content="y"))

    async def test_concurrent_runs_on_one_session_take_whole_turns(self, store: Store) -> None:
        """Eight runs of one session at once, each a tool call then an answer: every run takes
        its turn or reports the turn that answered its message, and the history never
        interleaves two turns (the next request shows no call without its result)."""
        _leasing(store)
        from ...contract.protocols import Stack
        from ...engine.session import Session
        from ...parts.functions import FunctionToolset
        from ...parts.scripted import ScriptedAdapter
        from ...parts.verbatim import VerbatimBuilder

        def lookup(key: str) -> str:
            """Look a key up."""
            return f"value of {key}"

        sid = _sid()

        async def one(n: int) -> Any:
            adapter = ScriptedAdapter(
                [
                    {"tool_calls": [{"name": "lookup", "arguments": {"key": f"k{n}"}}]},
                    {"content": f"answer of run {n}", "delay": 0.01},
                ],
                cycle=True,
            )
            stack = Stack(adapter, store, VerbatimBuilder(), tools=[FunctionToolset([lookup])])
            return await Session(stack, sid).run(f"question {n}")

        results = await asyncio.wait_for(asyncio.gather(*(one(n) for n in range(8))), 60)
        entries = await store.context(sid)
        check_turns_well_formed(entries, {f"question {n}": r.reply for n, r in enumerate(results)})
        assert any(not r.coalesced for r in results), (
            "of eight runs on one session, none took a turn of its own: all were coalesced"
        )
        stack = Stack(ScriptedAdapter(), store, VerbatimBuilder())
        from ...contract.protocols import RunContext

        messages = await stack.context.build(RunContext(sid, stack, None), "system")
        assert not any(NO_RESULT in m.content for m in messages), (
            "the next request holds a tool call without its result: two turns interleaved"
        )
