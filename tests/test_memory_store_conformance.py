"""The kernel's reference store passes the Store conformance kit, and does what the guide
specifies beyond it."""

from __future__ import annotations

import pytest

from agentframe_core import Compaction, Entry, EntryKind, now_ns
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.testing import StoreConformance


class TestMemoryStore(StoreConformance):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()


# -- what the guide specifies beyond the kit, as the reference store does it -----------------


async def test_search_covers_pending_entries_and_markers() -> None:
    """docs/plugin-authoring.md: every stored entry is searched, pending ones and compaction
    markers too."""
    store = MemoryStore()
    queued = Entry(kind=EntryKind.USER, content="a queued walrus")
    await store.enqueue("s", queued)
    marker = Entry(kind=EntryKind.COMPACTION, content="summary: the walrus spoke")
    await store.compact("s", Compaction(marker, frozenset()))
    assert {e.id for e in await store.search("s", "walrus")} == {queued.id, marker.id}


async def test_restoring_no_records_leaves_an_empty_session() -> None:
    """docs/plugin-authoring.md: `restore(sid, [])` leaves an empty session, listed with 0
    entries, both times the restore's."""
    store = MemoryStore()
    await store.append("s", Entry(kind=EntryKind.USER, content="replaced"))
    before = now_ns()
    await store.restore("s", [])
    [info] = await store.sessions()
    assert (info.id, info.entries) == ("s", 0)
    assert before <= info.created_at == info.updated_at <= now_ns()
    assert await store.history("s") == []
