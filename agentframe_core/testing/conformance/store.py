"""`StoreConformance`: the behaviour every session Store must show, as a pytest base class.

Subclass it in your plugin's tests and provide one fixture, `store`: a fresh, empty store per
test, usable from the test's event loop (asyncio_mode = "auto"):

    class TestMyStore(StoreConformance):
        @pytest.fixture
        async def store(self, tmp_path):
            store = MyStore(tmp_path / "sessions.db")
            yield store
            await store.aclose()

What the kit requires and what is optional is in `REQUIRED` and `OPTIONAL` below (also the
kit's `required` and `optional`): every store must be a `Store` and a `LeasingStore` (a store
without one fails, told which methods to add); `ExportableStore`, `PrunableStore` and
`SearchableStore` are checked where the store implements them (`isinstance` against the
runtime-checkable protocols), and the tests of one it lacks skip, saying so; so does the restart
test of a kit subclass that does not override `reopened` and `write_torn_tail`. On top of the
contract's docstrings, it holds a store to what the reference `MemoryStore` does:

- "insertion order" (the tie-break of `created_at`) is the order of the `append`, `enqueue` or
  `compact` calls that stored the entries: a claimed entry keeps its place among equal
  timestamps, and `context()` agrees with `history()`;
- an entry id is unique within a session: storing it again raises `ValueError` and changes
  nothing (a compaction whose marker id is taken applies nothing);
- `SessionInfo.entries` counts every stored entry (pending, subsumed and markers included);
- `origin` and `meta` survive as JSON values (a durable store cannot keep arbitrary objects);
- `search` finds words case-insensitively, in subsumed entries too (history stays searchable
  after a compaction), and never raises on any query text.

Tool calls and results. A store never decides what a compaction subsumes: the context builder
does, and the store applies exactly what it is told, neither refusing nor repairing a
compaction that splits a pair (that is the builder's bug, caught by the builder's kit). What a
store can break is the rest, and that is what the kit checks: a compaction is atomic (readers
see all of it or none of it), and for compactions that keep pairs whole, as a correct builder
makes them (never half of a pair, never a call whose result is not visible yet), `context()`
never shows a result without its call before it, nor hides the claimed result of a visible
call. A parked call (its result arrives later by `enqueue`) is visible alone until the result is
claimed; that is not a split.

The property tests run hypothesis in a worker thread and drive the store on the test's own event
loop (`asyncio.run_coroutine_threadsafe`), so a store bound to its loop (a connection pool) works.
Each example uses its own session ids, so one store serves a whole property test.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, ClassVar, NoReturn

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ...contract.model import Compaction, Entry, EntryKind, SessionInfo, now_ns
from ...contract.protocols import (
    ExportableStore,
    PrunableStore,
    SearchableStore,
    Store,
    StoredEntry,
)
from ._verdicts import kit_lacks, lacks, raises, require
from .lease import LeaseConformance

__all__ = ["StoreConformance"]

#: Runs a coroutine on the test's loop from the hypothesis thread, and returns its result.
Caller = Callable[[Coroutine[Any, Any, Any]], Any]

#: Text a model or a tool can produce: any valid Unicode (no lone surrogates).
TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | TEXT
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
#: Small offsets so that equal and out-of-order timestamps are common.
OFFSETS = st.integers(0, 12)
ORDINARY_KINDS = [EntryKind.USER, EntryKind.ASSISTANT, EntryKind.NOTIFICATION]


def _sid() -> str:
    return f"kit-{uuid.uuid4().hex[:12]}"


def _entry(kind: EntryKind = EntryKind.USER, content: str = "", **fields: Any) -> Entry:
    return Entry(kind=kind, content=content, **fields)


def _marker(created_at: int | None = None, content: str = "summary") -> Entry:
    if created_at is None:
        return Entry(kind=EntryKind.COMPACTION, content=content)
    return Entry(kind=EntryKind.COMPACTION, content=content, created_at=created_at)


def _ids(entries: Iterable[Entry]) -> list[str]:
    return [e.id for e in entries]


# -- the model a store is compared with -------------------------------------------------------


@dataclass
class _Model:
    """What one session must look like: every entry with its insertion rank and its state."""

    entries: dict[str, tuple[int, Entry]] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)
    subsumed: set[str] = field(default_factory=set)

    def add(self, entry: Entry, *, pending: bool = False) -> None:
        self.entries[entry.id] = (len(self.entries), entry)
        if pending:
            self.pending.add(entry.id)

    def ordered(self) -> list[Entry]:
        ranked = sorted(self.entries.values(), key=lambda pair: (pair[1].created_at, pair[0]))
        return [entry for _, entry in ranked]

    def context(self) -> list[Entry]:
        hidden = self.pending | self.subsumed
        return [e for e in self.ordered() if e.id not in hidden]

    def history(self) -> list[StoredEntry]:
        return [StoredEntry(e, e.id in self.pending, e.id in self.subsumed) for e in self.ordered()]

    def claim(self, at: int) -> int:
        due = {i for i in self.pending if self.entries[i][1].created_at <= at}
        self.pending -= due
        return len(due)

    def compact(self, marker: Entry, subsumes: Iterable[str]) -> None:
        self.add(marker)
        self.subsumed |= set(subsumes) & self.entries.keys()


def _check_context(context: list[Entry], model: _Model) -> None:
    """The checks behind `context == model.context()`, each with a message that says which."""
    times = [e.created_at for e in context]
    assert times == sorted(times), f"context is not ordered by created_at: {times}"
    shown = {e.id for e in context}
    assert not shown & model.subsumed, f"subsumed entries shown: {shown & model.subsumed}"
    assert not shown & model.pending, f"unclaimed entries shown: {shown & model.pending}"
    position = {e.id: i for i, e in enumerate(context)}
    calls = {e.tool_call_id: e for _, e in model.entries.values() if e.kind is EntryKind.TOOL_CALL}
    results = {
        e.tool_call_id: e for _, e in model.entries.values() if e.kind is EntryKind.TOOL_RESULT
    }
    for entry in context:
        if entry.kind is EntryKind.TOOL_RESULT and entry.tool_call_id in calls:
            call = calls[entry.tool_call_id]
            assert call.id in position and position[call.id] < position[entry.id], (
                f"tool result {entry.id} is shown without its call {call.id} before it"
            )
        if entry.kind is EntryKind.TOOL_CALL and entry.tool_call_id in results:
            result = results[entry.tool_call_id]
            if result.id not in model.pending:
                assert result.id in position, (
                    f"tool call {entry.id} is shown but its claimed result {result.id} is hidden"
                )
    assert _ids(context) == _ids(model.context()), "context differs from the expected one"
    assert context == model.context(), "context entries differ from what was stored"


# -- the kit ----------------------------------------------------------------------------------

#: What the kit holds every store to: a store without one fails, told what to add.
REQUIRED = {
    "Store": "the seven methods the loop and the CLI call",
    "LeasingStore": "the turn lease: one turn at a time per session, across processes",
}
#: What the kit checks only where the store has it: without one, its tests skip, saying so.
OPTIONAL = {
    "ExportableStore": "`agentframe sessions export` and `import`",
    "PrunableStore": "`agentframe sessions prune`",
    "SearchableStore": "full-text search of a session's history",
    "reopened, write_torn_tail": "the restart test of a store that keeps files",
}
_PROTOCOLS: dict[str, type] = {
    "ExportableStore": ExportableStore,
    "PrunableStore": PrunableStore,
    "SearchableStore": SearchableStore,
}


def _lacks(store: Any, capability: str) -> NoReturn:
    """Skip the running test: the store lacks the optional protocol `capability`."""
    __tracebackhide__ = True
    lacks(store, _PROTOCOLS[capability], gives=OPTIONAL[capability])


class StoreConformance(LeaseConformance):
    """Subclass and provide the `store` fixture (a fresh, empty store per test). A store
    that keeps files may also override `reopened` and `write_torn_tail` (crash tests)."""

    #: Read-only: the capabilities the kit requires and the optional ones, with what each is.
    required: ClassVar[dict[str, str]] = REQUIRED
    optional: ClassVar[dict[str, str]] = OPTIONAL

    #: Examples per property test; raise it locally when hunting a bug.
    max_examples: ClassVar[int] = 50
    #: Operations per example of the stateful test.
    steps: ClassVar[int] = 30
    #: Seconds one store call may take before the kit calls it hung.
    call_timeout: ClassVar[float] = 60.0

    @pytest.fixture
    def store(self) -> Any:
        raise NotImplementedError("subclass StoreConformance and override the `store` fixture")

    async def reopened(self, store: Any) -> Any:
        """A new instance on the same data, as after a restart (close `store` if needed).
        Override in a durable store's kit subclass; by default the crash tests skip."""
        __tracebackhide__ = True
        self._skip_torn_tail("reopened")

    def write_torn_tail(self, store: Any, session_id: str) -> None:
        """Leave the beginning of a write that a crash cut short, where the store keeps
        `session_id`. Override in a file-based store's kit subclass."""
        __tracebackhide__ = True
        self._skip_torn_tail("write_torn_tail")

    def _skip_torn_tail(self, hook: str) -> NoReturn:
        __tracebackhide__ = True
        kit_lacks(
            self,
            f"does not override `{hook}`",
            gives=OPTIONAL["reopened, write_torn_tail"],
            remedy="override `reopened` and `write_torn_tail`",
        )

    # -- helpers ------------------------------------------------------------------------------

    def _settings(self) -> settings:
        return settings(
            max_examples=self.max_examples,
            stateful_step_count=self.steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )

    async def _in_thread(self, body: Callable[[Caller], None]) -> None:
        """Run `body(call)` in a worker thread, where `call(coro)` runs `coro` on this loop."""
        loop = asyncio.get_running_loop()
        timeout = self.call_timeout

        def call(coro: Coroutine[Any, Any, Any]) -> Any:
            return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

        await asyncio.to_thread(body, call)

    # -- the Store contract -------------------------------------------------------------------

    async def test_is_a_store(self, store: Any) -> None:
        require(store, Store, role="store")

    async def test_unknown_session_is_empty(self, store: Store) -> None:
        got = await store.context("nobody")
        assert got == [], f"context() of a session never written must be [], not {got!r}"
        claimed = await store.claim_pending("nobody", now_ns())
        assert claimed == 0, f"claim_pending() of an unknown session must return 0, not {claimed}"
        await store.delete("nobody")
        listed = [s.id for s in await store.sessions()]
        assert listed == [], f"a fresh store's sessions() must be [], not {listed}"

    async def test_entries_round_trip_whole(self, store: Store) -> None:
        sid = _sid()
        big = "x" * 300_000 + "\N{SNOWMAN} end"
        written = [
            _entry(EntryKind.USER, "héllo\nworld \N{GRINNING FACE}", tag="greeting"),
            _entry(EntryKind.ASSISTANT, "", meta={"usage": {"in": 3, "out": 4}, "l": [1, 2.5]}),
            _entry(EntryKind.TOOL_CALL, '{"a": 1}', tool_call_id="c1", tool_name="add"),
            _entry(EntryKind.TOOL_RESULT, big, tool_call_id="c1", tool_name="add"),
            _entry(EntryKind.NOTIFICATION, "ping", origin={"host": "cli", "n": [1, None, True]}),
            _entry(EntryKind.USER, "origin is a string", origin="opaque-42"),
        ]
        for entry in written:
            await store.append(sid, entry)
        got = await store.context(sid)
        assert len(got) == len(written), (
            f"{len(written)} entries appended, context() has {len(got)}"
        )
        assert got[3].content == big, (
            f"a 300,000-character content came back as {len(got[3].content)} characters"
        )
        for sent, back in zip(written, got, strict=True):
            assert back == sent, (
                f"entry {sent.kind.value} {sent.id} must come back equal, every field "
                f"(content, tag, tool_call_id, tool_name, origin, meta, created_at)"
            )

    async def test_context_is_ordered_by_created_at_then_insertion(self, store: Store) -> None:
        sid = _sid()
        base = now_ns()
        late = _entry(content="late", created_at=base + 10)
        early = _entry(content="early", created_at=base)
        tie_a = _entry(content="tie a", created_at=base + 5)
        tie_b = _entry(content="tie b", created_at=base + 5)
        for entry in (late, early, tie_a, tie_b):
            await store.append(sid, entry)
        got = [e.content for e in await store.context(sid)]
        assert got == ["early", "tie a", "tie b", "late"], (
            "context() must be ordered by created_at, equal times in the order they were "
            f"appended (appended: late, early, tie a, tie b), got {got}"
        )

    async def test_context_is_a_copy(self, store: Store) -> None:
        sid = _sid()
        first = _entry(content="one")
        await store.append(sid, first)
        got = await store.context(sid)
        got.append(_entry(content="not stored"))
        got.clear()
        again = await store.context(sid)
        assert again == [first], (
            "context() must return a new list each call: changing the one it returned "
            f"changed what the store holds ({len(again)} entries now)"
        )

    async def test_sessions_are_isolated(self, store: Store) -> None:
        a, b = _sid(), _sid()
        in_a, in_b = _entry(content="a"), _entry(content="b")
        await store.append(a, in_a)
        await store.append(b, in_b)
        await store.enqueue(b, _entry(content="queued in b"))
        claimed = await store.claim_pending(a, now_ns())
        assert claimed == 0, f"claim_pending() of session a claimed {claimed} entries of b"
        got = await store.context(a)
        assert got == [in_a], f"session a must hold only its own entry, it holds {len(got)}"
        await store.delete(a)
        got = await store.context(b)
        assert got == [in_b], (
            "deleting session a must leave session b as it was (its queued entry still pending)"
        )

    async def test_an_id_is_stored_once_per_session(self, store: Store) -> None:
        sid, other = _sid(), _sid()
        entry = _entry(content="once")
        await store.append(sid, entry)
        with raises(ValueError, "append() of an id the session already holds"):
            await store.append(sid, _entry(content="again", id=entry.id))
        with raises(ValueError, "enqueue() of an id the session already holds"):
            await store.enqueue(sid, _entry(content="again", id=entry.id))
        got = await store.context(sid)
        assert got == [entry], f"a refused duplicate must change nothing; context() is {got!r}"
        claimed = await store.claim_pending(sid, now_ns())
        assert claimed == 0, f"a refused enqueue() left {claimed} pending entries behind"
        await store.append(other, entry)
        got = await store.context(other)
        assert got == [entry], "the same id in another session is another entry, and is stored"

    async def test_pending_entries_wait_for_their_claim(self, store: Store) -> None:
        sid = _sid()
        base = now_ns()
        first = _entry(content="first", created_at=base)
        queued_early = _entry(content="queued early", created_at=base + 1)
        queued_late = _entry(content="queued late", created_at=base + 100)
        after = _entry(content="after", created_at=base + 2)
        await store.append(sid, first)
        await store.enqueue(sid, queued_late)
        await store.enqueue(sid, queued_early)
        await store.append(sid, after)

        async def shown() -> list[str]:
            return [e.content for e in await store.context(sid)]

        got = await shown()
        assert got == ["first", "after"], f"enqueued entries must stay hidden until claimed: {got}"
        claimed = await store.claim_pending(sid, base + 50)
        assert claimed == 1, (
            f"claim_pending(at) must claim the 1 entry with created_at <= at: {claimed}"
        )
        got = await shown()
        assert got == ["first", "queued early", "after"], (
            f"a claimed entry must show at its created_at, the later one stay hidden: {got}"
        )
        claimed = await store.claim_pending(sid, base + 50)
        assert claimed == 0, f"claiming again must claim nothing, it returned {claimed}"
        claimed = await store.claim_pending(sid, base + 100)
        assert claimed == 1, f"claim_pending(created_at of the last) must claim it: {claimed}"
        got = await shown()
        assert got == ["first", "queued early", "after", "queued late"], f"after both claims: {got}"

    async def test_a_claimed_entry_keeps_its_insertion_rank_among_ties(self, store: Store) -> None:
        sid = _sid()
        stamp = now_ns()
        a, p, b = (_entry(content=c, created_at=stamp) for c in ("a", "pending", "b"))
        await store.append(sid, a)
        await store.enqueue(sid, p)
        await store.append(sid, b)
        claimed = await store.claim_pending(sid, stamp)
        assert claimed == 1, f"claim_pending() must claim the queued entry, it returned {claimed}"
        got = [e.content for e in await store.context(sid)]
        assert got == ["a", "pending", "b"], (
            "a claimed entry keeps the place its enqueue() gave it among equal created_at "
            f"(appended a, enqueued pending, appended b), got {got}"
        )

    async def test_compact_hides_subsumed_and_shows_the_marker(self, store: Store) -> None:
        sid = _sid()
        entries = [_entry(content=f"m{i}") for i in range(5)]
        for entry in entries:
            await store.append(sid, entry)
        marker = _marker(created_at=entries[0].created_at)
        await store.compact(sid, Compaction(marker, frozenset(_ids(entries[:3]))))
        got = [e.content for e in await store.context(sid)]
        assert got == ["summary", "m3", "m4"], (
            f"compact() must hide m0-m2 and show its marker at its created_at, got {got}"
        )
        again = _marker(created_at=marker.created_at, content="summary of the summary")
        await store.compact(sid, Compaction(again, frozenset({marker.id, entries[3].id})))
        got = [e.content for e in await store.context(sid)]
        assert got == ["summary of the summary", "m4"], (
            f"a later compaction may subsume an earlier marker, got {got}"
        )

    async def test_compact_with_a_taken_marker_id_applies_nothing(self, store: Store) -> None:
        sid = _sid()
        entries = [_entry(content=f"m{i}") for i in range(3)]
        for entry in entries:
            await store.append(sid, entry)
        clash = Entry(kind=EntryKind.COMPACTION, content="summary", id=entries[2].id)
        with raises(ValueError, "compact() with a marker whose id the session already holds"):
            await store.compact(sid, Compaction(clash, frozenset(_ids(entries[:2]))))
        got = [e.content for e in await store.context(sid)]
        assert got == ["m0", "m1", "m2"], f"a refused compaction must hide nothing, got {got}"

    async def test_compact_is_atomic_for_concurrent_readers(self, store: Store) -> None:
        sid = _sid()
        entries = [_entry(content=f"m{i}") for i in range(200)]
        for entry in entries[:100]:
            await store.append(sid, entry)
        await asyncio.gather(*(store.append(sid, e) for e in entries[100:]))
        before = await store.context(sid)
        marker = _marker(created_at=entries[0].created_at)
        compaction = Compaction(marker, frozenset(_ids(entries[:150])))
        reads = [store.context(sid) for _ in range(20)]
        _, *seen = await asyncio.gather(store.compact(sid, compaction), *reads)
        after = [marker, *entries[150:]]
        assert before == entries, (
            f"200 appends (100 of them concurrent) must all land in order; {len(before)} did"
        )
        got = await store.context(sid)
        assert got == after, "after compact(), context() must be the marker then m150-m199"
        for snapshot in seen:
            assert snapshot in (before, after), (
                f"a reader saw a half-applied compaction: {len(snapshot or [])} entries visible, "
                "neither all 200 before it nor the 51 after it"
            )

    async def test_concurrent_writes_all_land(self, store: Store) -> None:
        sids = [_sid() for _ in range(3)]
        entries = {sid: [_entry(content=f"{sid} {i}") for i in range(30)] for sid in sids}
        await asyncio.gather(
            *(store.append(sid, entry) for sid in sids for entry in entries[sid]),
            *(store.context(sid) for sid in sids),
        )
        for sid in sids:
            got = await store.context(sid)
            assert got == entries[sid], (
                f"90 concurrent append()s on 3 sessions must all land, in order: session "
                f"{sid} holds {len(got)} of its 30"
            )

    async def test_sessions_report_counts_and_recency(self, store: Store) -> None:
        a, b = _sid(), _sid()
        first = _entry(EntryKind.USER, "What is the weather?\nIn Paris.")
        await store.append(a, first)
        await store.append(b, _entry(EntryKind.ASSISTANT, "hello"))
        order = [s.id for s in await store.sessions()]
        assert order == [b, a], f"sessions() must list the most recently updated first: {order}"
        await store.enqueue(a, _entry(content="queued"))
        await store.append(a, second := _entry(content="second"))
        await store.compact(a, Compaction(_marker(), frozenset({first.id, second.id})))
        listed = await store.sessions()
        assert all(isinstance(s, SessionInfo) for s in listed), f"not SessionInfos: {listed}"
        infos = {s.id: s for s in listed}
        assert [s.id for s in listed] == [a, b], "sessions() must list the newest first"
        assert infos[a].entries == 4, (
            "SessionInfo.entries counts every stored entry (two appended, one queued, one "
            f"compaction marker: 4), not {infos[a].entries}"
        )
        assert infos[b].entries == 1, (
            f"one entry appended, SessionInfo.entries is {infos[b].entries}"
        )
        for info in infos.values():
            assert info.created_at <= info.updated_at, (
                f"session {info.id}: created_at {info.created_at} is after updated_at "
                f"{info.updated_at}"
            )
            assert info.title is None or isinstance(info.title, str), (
                f"session {info.id}: title must be None or a str, not {info.title!r}"
            )
        assert infos[a].updated_at > infos[b].updated_at, (
            "a write to a session must move its updated_at past an earlier-written session's"
        )

    async def test_delete_removes_everything_of_one_session(self, store: Store) -> None:
        gone, kept = _sid(), _sid()
        old = _entry(content="old")
        await store.append(gone, old)
        await store.enqueue(gone, _entry(content="queued"))
        await store.append(kept, kept_entry := _entry(content="kept"))
        await store.delete(gone)
        await store.delete(gone)  # twice is fine
        got = await store.context(gone)
        assert got == [], f"delete() must remove every entry, {len(got)} still in context()"
        claimed = await store.claim_pending(gone, now_ns())
        assert claimed == 0, f"delete() must remove pending entries too, {claimed} were claimed"
        listed = [s.id for s in await store.sessions()]
        assert listed == [kept], f"a deleted session must leave sessions(): {listed}"
        got = await store.context(kept)
        assert got == [kept_entry], "delete() of one session must leave the others"
        await store.append(gone, old)
        got = await store.context(gone)
        assert got == [old], (
            "a deleted session's ids are free again: append() after delete() starts a new session"
        )

    async def test_acknowledged_writes_survive_a_torn_tail(self, store: Store) -> None:
        """A crash tore the last write; every write acknowledged after it, across restarts,
        is still there (the next write does not land on the torn line)."""
        sid = _sid()
        await store.append(sid, first := _entry(content="before the crash"))
        self.write_torn_tail(store, sid)
        acknowledged = [first]
        for n in range(2):
            store = await self.reopened(store)
            await store.append(sid, entry := _entry(content=f"after the crash {n}"))
            acknowledged.append(entry)
        store = await self.reopened(store)
        got = [e.content for e in await store.context(sid)]
        assert got == [e.content for e in acknowledged], (
            "after a torn write and restarts, every acknowledged write must survive and "
            f"nothing else show: {got}"
        )

    async def test_any_interleaving_matches_the_model(self, store: Store) -> None:
        """Append, enqueue, claim and compact in any order: `context` (and `history`) always
        equal the model's, ordered, hiding exactly the subsumed and unclaimed entries, and
        never splitting a tool call from its result."""
        exportable = isinstance(store, ExportableStore)
        config = self._settings()

        def body(call: Caller) -> None:
            machine = _machine(store, call, exportable)
            run_state_machine_as_test(machine, settings=config)

        await self._in_thread(body)

    # -- ExportableStore ----------------------------------------------------------------------

    async def test_history_shows_every_entry_with_its_state(self, store: Store) -> None:
        if not isinstance(store, ExportableStore):
            _lacks(store, "ExportableStore")
        sid = _sid()
        base = now_ns()
        a = _entry(content="a", created_at=base)
        queued = _entry(content="queued", created_at=base + 5)
        b = _entry(content="b", created_at=base + 1)
        marker = _marker(created_at=base)
        await store.append(sid, a)
        await store.enqueue(sid, queued)
        await store.append(sid, b)
        await store.compact(sid, Compaction(marker, frozenset({a.id})))
        got = await store.history(sid)
        assert got == [
            StoredEntry(a, subsumed=True),
            StoredEntry(marker),
            StoredEntry(b),
            StoredEntry(queued, pending=True),
        ], (
            "history() must list every entry, subsumed and pending too, in context order, "
            "with its flags: a (subsumed), the marker, b, queued (pending)"
        )
        unknown = await store.history("nobody")
        assert unknown == [], f"history() of an unknown session must be [], not {unknown!r}"

    async def test_restore_recreates_history_exactly(self, store: Store) -> None:
        if not isinstance(store, ExportableStore):
            _lacks(store, "ExportableStore")
        records_strategy = st.lists(
            st.builds(
                StoredEntry,
                st.builds(
                    Entry,
                    kind=st.sampled_from(list(EntryKind)),
                    content=TEXT,
                    tool_call_id=st.none() | TEXT,
                    tool_name=st.none() | TEXT,
                    tag=st.none() | TEXT,
                    origin=JSON,
                    created_at=OFFSETS,
                    meta=st.dictionaries(TEXT, JSON, max_size=3),
                ),
                st.booleans(),
                st.booleans(),
            ),
            max_size=12,
            unique_by=lambda record: record.entry.id,
        )
        config = self._settings()

        def body(call: Caller) -> None:
            @config
            @given(records=records_strategy)
            def restores(records: list[StoredEntry]) -> None:
                records.sort(key=lambda r: r.entry.created_at)  # stable: ties keep list order
                sid = _sid()
                call(store.append(sid, _entry(content="replaced by the restore")))
                call(store.restore(sid, records))
                assert call(store.history(sid)) == records, (
                    "restore(records) must replace the session: history() is then exactly "
                    "those records, in order, with their flags"
                )
                visible = [r.entry for r in records if not (r.pending or r.subsumed)]
                assert call(store.context(sid)) == visible, (
                    "after restore(), context() must show the records neither pending nor subsumed"
                )
                pending = [r for r in records if r.pending]
                claimed = call(store.claim_pending(sid, 10**6))
                assert claimed == len(pending), (
                    f"{len(pending)} records were restored pending; claim_pending() claimed "
                    f"{claimed}"
                )
                shown = [r.entry for r in records if not r.subsumed]
                assert call(store.context(sid)) == shown, (
                    "restored pending entries, once claimed, must show (unless subsumed)"
                )
                call(store.delete(sid))

            restores()

        await self._in_thread(body)

    async def test_restore_refuses_duplicate_ids_and_keeps_the_session(self, store: Store) -> None:
        if not isinstance(store, ExportableStore):
            _lacks(store, "ExportableStore")
        sid = _sid()
        existing = _entry(content="existing")
        await store.append(sid, existing)
        twice = _entry(content="twice")
        with raises(ValueError, "restore() of records holding one id twice"):
            await store.restore(sid, [StoredEntry(twice), StoredEntry(twice)])
        got = await store.history(sid)
        assert got == [StoredEntry(existing)], (
            f"a refused restore() must leave the session as it was; history() is {got!r}"
        )

    async def test_restore_into_a_new_session_counts_in_sessions(self, store: Store) -> None:
        if not isinstance(store, ExportableStore):
            _lacks(store, "ExportableStore")
        source, copy = _sid(), _sid()
        await store.append(source, _entry(content="one"))
        await store.enqueue(source, _entry(content="two"))
        await store.restore(copy, await store.history(source))
        infos = {s.id: s for s in await store.sessions()}
        assert copy in infos, "a session created by restore() must be listed by sessions()"
        assert infos[copy].entries == 2, (
            f"a restored session of 2 records must count 2 entries, not {infos[copy].entries}"
        )
        assert await store.history(copy) == await store.history(source), (
            "restore(copy, history(source)) must give the copy the source's history"
        )

    async def test_a_restored_session_keeps_its_own_time(self, store: Store) -> None:
        """An imported session is as old as its entries, not as the import: `sessions()`
        shows its first and last entry's time, and `prune --older-than` sees it."""
        if not isinstance(store, ExportableStore):
            _lacks(store, "ExportableStore")
        sid, day = _sid(), 86_400 * 10**9
        old = now_ns() - 30 * day
        records = [
            StoredEntry(_entry(content="old question", created_at=old)),
            StoredEntry(_entry(EntryKind.ASSISTANT, "old answer", created_at=old + 5)),
        ]
        await store.restore(sid, records)
        [info] = [s for s in await store.sessions() if s.id == sid]
        assert (info.created_at, info.updated_at) == (old, old + 5), (
            "a restored session's created_at is its first entry's created_at and its "
            "updated_at its last entry's, not the time of the restore: "
            f"got ({info.created_at}, {info.updated_at}), want ({old}, {old + 5})"
        )
        if isinstance(store, PrunableStore):
            pruned = await store.prune(older_than=timedelta(days=1))
            assert pruned == [sid], (
                f"a session restored with 30-day-old entries must be pruned by "
                f"prune(older_than=1 day); it deleted {pruned}"
            )

    # -- PrunableStore ------------------------------------------------------------------------

    async def test_prune_keep_last(self, store: Store) -> None:
        if not isinstance(store, PrunableStore):
            _lacks(store, "PrunableStore")
        sids = [_sid() for _ in range(4)]
        for sid in sids:
            await store.append(sid, _entry(content=sid))
        deleted = await store.prune()
        assert deleted == [], f"prune() with no rule must delete nothing, it deleted {deleted}"
        deleted = await store.prune(keep_last=2)
        assert sorted(deleted) == sorted(sids[:2]), (
            "prune(keep_last=2) of 4 sessions must delete the 2 least recently updated "
            "and return their ids"
        )
        listed = [s.id for s in await store.sessions()]
        assert listed == sids[:1:-1], "prune(keep_last=2) must keep the 2 most recent sessions"
        got = await store.context(sids[0])
        assert got == [], "a pruned session's entries must be gone"
        deleted = await store.prune(keep_last=5)
        assert deleted == [], f"prune(keep_last=5) of 2 sessions deleted {deleted}"
        deleted = await store.prune(keep_last=0)
        assert sorted(deleted) == sorted(sids[2:]), "prune(keep_last=0) must delete every session"

    async def test_prune_keep_last_counts_conversations_not_records(self, store: Store) -> None:
        """A plugin's record (an id starting with `~`) takes no conversation's place, and goes
        once it is older than every conversation kept (`sessions_to_prune`)."""
        if not isinstance(store, PrunableStore):
            _lacks(store, "PrunableStore")
        older, old_record, newer, record = _sid(), f"~{_sid()}", _sid(), f"~{_sid()}"
        for sid in (older, old_record, newer, record):
            await store.append(sid, _entry(content=sid))
        deleted = await store.prune(keep_last=2)
        assert deleted == [], (
            f"prune(keep_last=2) of 2 conversations and 2 records deleted {deleted}"
        )
        deleted = await store.prune(keep_last=1)
        assert sorted(deleted) == sorted([older, old_record]), (
            "prune(keep_last=1) must delete the older conversation and the record older than "
            f"the one kept, not the newer record; it deleted {deleted}"
        )

    async def test_prune_older_than(self, store: Store) -> None:
        if not isinstance(store, PrunableStore):
            _lacks(store, "PrunableStore")
        old, new = _sid(), _sid()
        await store.append(old, _entry(content="old"))
        await asyncio.sleep(0.6)
        await store.append(new, _entry(content="new"))
        window = timedelta(seconds=0.3)
        deleted = await store.prune(older_than=timedelta(days=1))
        assert deleted == [], f"prune(older_than=1 day) of fresh sessions deleted {deleted}"
        updated = {s.id: s.updated_at for s in await store.sessions()}
        started = time.time_ns()
        deleted = await store.prune(older_than=window)
        finished = time.time_ns()
        assert old in deleted, (
            "prune(older_than=0.3 s) must delete a session last written 0.6 s ago"
        )
        window_ns = int(window.total_seconds() * 1e9)
        if updated[new] >= finished - window_ns:  # surely within the window at any moment
            assert new not in deleted, (
                "prune(older_than=0.3 s) deleted a session written within the window"
            )
            listed = [s.id for s in await store.sessions()]
            assert listed == [new], f"only the recent session must remain, sessions() is {listed}"
        assert updated[new] >= started - window_ns or new in deleted, (
            "prune(older_than) kept a session whose updated_at is before the window"
        )
        got = await store.context(old)
        assert got == [], "a pruned session's entries must be gone"

    async def test_prune_with_both_rules_deletes_either(self, store: Store) -> None:
        if not isinstance(store, PrunableStore):
            _lacks(store, "PrunableStore")
        old, a, b = _sid(), _sid(), _sid()
        await store.append(old, _entry(content="old"))
        await asyncio.sleep(0.6)
        await store.append(a, _entry(content="a"))
        await store.append(b, _entry(content="b"))
        deleted = await store.prune(older_than=timedelta(seconds=0.3), keep_last=1)
        assert old in deleted and a in deleted, (
            "prune(older_than, keep_last) must delete what either rule selects: the old "
            f"session and all but the newest; it deleted {deleted}"
        )
        assert set(deleted) <= {old, a, b}, f"prune() returned ids it never stored: {deleted}"

    # -- SearchableStore ----------------------------------------------------------------------

    async def test_search_finds_words_best_match_first(self, store: Store) -> None:
        if not isinstance(store, SearchableStore):
            _lacks(store, "SearchableStore")
        sid, other = _sid(), _sid()
        both = _entry(EntryKind.TOOL_RESULT, "The Quarterly REPORT lists revenue by region.")
        one = _entry(EntryKind.USER, "Please write a report about cats and dogs and birds.")
        neither = _entry(EntryKind.ASSISTANT, "Nothing relevant here at all.")
        for entry in (one, neither, both):
            await store.append(sid, entry)
        await store.append(other, _entry(content="a quarterly report in another session"))
        found = await store.search(sid, "quarterly report")
        assert found[:2] == [both, one], (
            "search('quarterly report') must find both words case-insensitively, the entry "
            "holding both first, then the one holding one, and nothing of another session: "
            f"got {[e.content for e in found]}"
        )
        assert neither not in found, "search() found an entry holding none of the words"
        limited = await store.search(sid, "quarterly report", limit=1)
        assert limited == [both], f"search(limit=1) must return the best match only: {limited!r}"
        assert await store.search(sid, "zebra") == [], "search() of an absent word must be []"
        assert await store.search("nobody", "report") == [], (
            "search() in an unknown session must be []"
        )

    async def test_search_reaches_subsumed_entries(self, store: Store) -> None:
        if not isinstance(store, SearchableStore):
            _lacks(store, "SearchableStore")
        sid = _sid()
        result = _entry(EntryKind.TOOL_RESULT, "stack trace: ZeroDivisionError in ledger.py")
        await store.append(sid, result)
        await store.compact(sid, Compaction(_marker(), frozenset({result.id})))
        found = await store.search(sid, "zerodivisionerror")
        assert found == [result], (
            f"search() must find subsumed entries too (history stays searchable after a "
            f"compaction): got {found!r}"
        )

    async def test_search_never_raises_on_query_text(self, store: Store) -> None:
        if not isinstance(store, SearchableStore):
            _lacks(store, "SearchableStore")
        sid = _sid()
        entries = [_entry(content=t) for t in ('say "hi" (now)', "AND OR NOT", "col:umn * ^x")]
        for entry in entries:
            await store.append(sid, entry)
        config = self._settings()

        def body(call: Caller) -> None:
            @config
            @given(query=TEXT | st.sampled_from(['"', "(", "*", "AND", "NEAR(", "a:b", "-x", "^"]))
            def searches(query: str) -> None:
                found = call(store.search(sid, query, limit=2))
                assert len(found) <= 2, f"search({query!r}, limit=2) returned {len(found)}"
                assert all(entry in entries for entry in found), (
                    f"search({query!r}) returned entries that were never stored: {found!r}"
                )

            searches()

        await self._in_thread(body)


# -- the stateful property ---------------------------------------------------------------------


def _machine(store: Any, call: Caller, exportable: bool) -> type[RuleBasedStateMachine]:
    """A state machine bound to one store."""
    bound = {"store": store, "call": staticmethod(call), "exportable": exportable}
    return type("StoreMachine", (_StoreMachine,), bound)


class _StoreMachine(RuleBasedStateMachine):
    """Each example works in a new session of `store`; `_machine` binds the store."""

    store: Any
    exportable: bool

    @staticmethod
    def call(awaitable: Any) -> Any:
        raise NotImplementedError  # bound by `_machine`

    def __init__(self) -> None:
        super().__init__()
        self.sid = _sid()
        self.model = _Model()
        self.base = now_ns()
        self.serial = itertools.count()
        #: tool_call_id -> the call entry, for calls whose result is not stored yet.
        self.parked: dict[str, Entry] = {}

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self.serial)}"

    @rule(kind=st.sampled_from(ORDINARY_KINDS), offset=OFFSETS, text=TEXT, queued=st.booleans())
    def write(self, kind: EntryKind, offset: int, text: str, queued: bool) -> None:
        entry = Entry(kind=kind, content=text, id=self._id("e"), created_at=self.base + offset)
        self.call(
            self.store.enqueue(self.sid, entry) if queued else self.store.append(self.sid, entry)
        )
        self.model.add(entry, pending=queued)

    @rule(offset=OFFSETS, delay=st.integers(0, 3), parked=st.booleans())
    def call_tool(self, offset: int, delay: int, parked: bool) -> None:
        call_id = self._id("c")
        tool_call = Entry(
            kind=EntryKind.TOOL_CALL,
            content='{"n": 1}',
            id=self._id("tc"),
            tool_call_id=call_id,
            tool_name="probe",
            created_at=self.base + offset,
        )
        self.call(self.store.append(self.sid, tool_call))
        self.model.add(tool_call)
        if parked:
            self.parked[call_id] = tool_call
        else:
            self._result(tool_call, delay, queued=False)

    @precondition(lambda self: bool(self.parked))
    @rule(data=st.data(), delay=st.integers(0, 3))
    def deliver_parked_result(self, data: st.DataObject, delay: int) -> None:
        call_id = data.draw(st.sampled_from(sorted(self.parked)))
        self._result(self.parked.pop(call_id), delay, queued=True)

    def _result(self, tool_call: Entry, delay: int, *, queued: bool) -> None:
        result = Entry(
            kind=EntryKind.TOOL_RESULT,
            content="probe result",
            id=self._id("tr"),
            tool_call_id=tool_call.tool_call_id,
            tool_name="probe",
            created_at=tool_call.created_at + delay,
        )
        self.call(
            self.store.enqueue(self.sid, result) if queued else self.store.append(self.sid, result)
        )
        self.model.add(result, pending=queued)

    @rule(offset=OFFSETS.map(lambda o: o + 2))
    def claim(self, offset: int) -> None:
        claimed = self.call(self.store.claim_pending(self.sid, self.base + offset))
        due = self.model.claim(self.base + offset)
        assert claimed == due, (
            f"claim_pending(at) must return how many pending entries it made visible: {due} "
            f"had created_at <= at, it returned {claimed}"
        )

    @precondition(lambda self: bool(self.model.context()))
    @rule(data=st.data(), offset=OFFSETS)
    def compact(self, data: st.DataObject, offset: int) -> None:
        visible = self.model.context()
        chosen = data.draw(st.sets(st.sampled_from(_ids(visible)), min_size=1))
        subsumes = _keep_pairs_whole(chosen, visible)
        marker = Entry(
            kind=EntryKind.COMPACTION,
            content=f"summary of {len(subsumes)}",
            id=self._id("m"),
            created_at=self.base + offset,
        )
        self.call(self.store.compact(self.sid, Compaction(marker, frozenset(subsumes))))
        self.model.compact(marker, subsumes)

    @invariant()
    def context_matches_the_model(self) -> None:
        _check_context(self.call(self.store.context(self.sid)), self.model)

    @invariant()
    def history_matches_the_model(self) -> None:
        if self.exportable:
            assert self.call(self.store.history(self.sid)) == self.model.history(), (
                "history() must list every entry stored, in context order, flagged pending "
                "until claimed and subsumed once compacted"
            )

    def teardown(self) -> None:
        if self.exportable:
            copy = _sid()
            self.call(self.store.restore(copy, self.model.history()))
            assert self.call(self.store.history(copy)) == self.model.history(), (
                "restore() of a session's history must recreate that history exactly"
            )
            assert self.call(self.store.context(copy)) == self.model.context(), (
                "restore() of a session's history must recreate its context exactly"
            )
            self.call(self.store.delete(copy))
        self.call(self.store.delete(self.sid))


def _keep_pairs_whole(chosen: set[str], visible: list[Entry]) -> set[str]:
    """What a correct context builder would subsume of `chosen`: never a call whose result is
    not visible, and a visible call and its result always together."""
    calls = {e.tool_call_id: e for e in visible if e.kind is EntryKind.TOOL_CALL}
    results = {e.tool_call_id: e for e in visible if e.kind is EntryKind.TOOL_RESULT}
    by_id = {e.id: e for e in visible}
    subsumes: set[str] = set()
    for entry_id in chosen:
        entry = by_id[entry_id]
        if entry.kind is EntryKind.TOOL_CALL:
            result = results.get(entry.tool_call_id)
            if result is not None:
                subsumes |= {entry.id, result.id}
        elif entry.kind is EntryKind.TOOL_RESULT:
            subsumes.add(entry.id)
            if entry.tool_call_id in calls:
                subsumes.add(calls[entry.tool_call_id].id)
        else:
            subsumes.add(entry.id)
    return subsumes
