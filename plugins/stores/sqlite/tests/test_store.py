"""What the SQLite store adds to the kit: configuration, locking, search, and bad input."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from agentframe_store_sqlite import SqliteStore, StoreBusyError
from agentframe_store_sqlite.plugin import SqliteOptions, default_path

from agentframe_core import Compaction, ConfigError, Entry, EntryKind, PluginHost, load_config


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    store = SqliteStore(tmp_path / "sessions.db")
    yield store
    await store.aclose()


def test_the_default_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "agentframe" / "sessions.db"
    assert SqliteOptions().path == default_path()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local/share/agentframe/sessions.db"
    assert SqliteOptions(path="~/s.db").path == tmp_path / "home" / "s.db"


async def test_the_config_selects_and_checks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTFRAME_CACHE_DIR", str(tmp_path / "cache"))
    good = tmp_path / "good.yaml"
    good.write_text(
        f"adapter: scripted\nstore:\n  use: sqlite\n  path: {tmp_path}/s.db\n  busy_timeout: 2\n"
    )
    store = load_config(PluginHost(), good).store.build()
    try:
        assert isinstance(store, SqliteStore) and store.path == tmp_path / "s.db"
        assert store.busy_timeout == 2
    finally:
        await store.aclose()
    bad = tmp_path / "bad.yaml"
    for body, problem in [
        ("pth: x.db", "4: store.pth: unknown option for 'sqlite'"),
        ("synchronous: off", "4: store.synchronous: Input should be 'full' or 'normal'"),
        ("busy_timeout: 0", "4: store.busy_timeout: Input should be greater than 0"),
    ]:
        bad.write_text(f"adapter: scripted\nstore:\n  use: sqlite\n  {body}\n")
        with pytest.raises(ConfigError) as raised:
            load_config(PluginHost(), bad)
        assert f"{bad}:{problem}" in "\n".join(str(issue) for issue in raised.value.issues)


async def test_a_write_waits_for_another_writer_without_blocking_the_loop(
    store: SqliteStore,
) -> None:
    other = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's write transaction
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beating = asyncio.create_task(heartbeat())
    release.start()
    try:
        await store.append("s", Entry(kind=EntryKind.USER, content="after the lock"))
    finally:
        beating.cancel()
        release.join()
        other.close()
    assert ticks >= 5, "the event loop stood still while the write waited"
    assert [e.content for e in await store.context("s")] == ["after the lock"]


async def test_a_writer_holding_the_lock_too_long_is_a_clear_error(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db", busy_timeout=0.2)
    other = sqlite3.connect(store.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusyError, match=r"more than 0.2 s; nothing was written"):
            await store.append("s", Entry(kind=EntryKind.USER, content="blocked"))
        other.execute("ROLLBACK")
        assert await store.context("s") == []
        await store.append("s", entry := Entry(kind=EntryKind.USER, content="now"))
        assert await store.context("s") == [entry]
    finally:
        other.close()
        await store.aclose()


async def test_an_entry_that_is_not_json_writes_nothing(store: SqliteStore) -> None:
    with pytest.raises(TypeError, match="origin must be JSON-serialisable"):
        await store.append("s", Entry(kind=EntryKind.USER, origin=object()))
    marker = Entry(kind=EntryKind.COMPACTION, meta={"at": {1, 2}})
    with pytest.raises(TypeError, match="meta must be JSON-serialisable"):
        await store.compact("s", Compaction(marker, frozenset()))
    assert await store.sessions() == []


async def test_titles_come_from_the_first_user_message(store: SqliteStore) -> None:
    await store.append("s", Entry(kind=EntryKind.ASSISTANT, content="Welcome"))
    await store.append("s", Entry(kind=EntryKind.USER, content="   "))
    await store.enqueue("s", Entry(kind=EntryKind.USER, content="  Fix the build\nplease"))
    await store.append("s", Entry(kind=EntryKind.USER, content="second"))
    await store.append("long", Entry(kind=EntryKind.USER, content="x" * 200))
    titles = {info.id: info.title for info in await store.sessions()}
    assert titles == {"s": "Fix the build", "long": "x" * 80}


async def test_search_folds_case_and_accents_and_ranks(store: SqliteStore) -> None:
    cafe = Entry(kind=EntryKind.TOOL_RESULT, content="Le CAFÉ est fermé le lundi.")
    both = Entry(kind=EntryKind.USER, content="cafe opening hours: the cafe opens at 8")
    await store.append("s", cafe)
    await store.append("s", both)
    assert await store.search("s", "café") == [both, cafe]
    assert await store.search("s", "hours") == [both]
    assert await store.search("s", "   ") == []
    assert await store.search("s", "cafe", limit=0) == []


async def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    await store.aclose()
    await store.aclose()
    with pytest.raises(RuntimeError, match=r"SqliteStore\('.*s.db'\) is closed"):
        await store.context("s")


async def test_context_decodes_each_row_once_and_never_serves_a_reused_row(tmp_path):
    """Rows are decoded once and kept by seq; after deletions (which may hand a deleted row's
    seq to a new row) nothing kept is trusted."""
    from agentframe_store_sqlite import SqliteStore

    from agentframe_core import Entry, EntryKind, StoredEntry

    store = SqliteStore(tmp_path / "s.db")
    try:
        first = Entry(kind=EntryKind.USER, content="original", id="e1", created_at=1)
        await store.append("s", first)
        one = await store.context("s")
        await store.append("s", Entry(kind=EntryKind.ASSISTANT, content="reply", created_at=2))
        two = await store.context("s")
        assert two[0] is one[0]  # decoded once, the same object both times
        # another connection deletes the session and restores one with the same id, the same
        # created_at and other content: the new row takes the deleted row's seq
        other = SqliteStore(tmp_path / "s.db")
        try:
            await other.delete("s")
            edited = Entry(kind=EntryKind.USER, content="edited", id="e1", created_at=1)
            await other.restore("s", [StoredEntry(edited)])
        finally:
            await other.aclose()
        assert [e.content for e in await store.context("s")] == ["edited"]
    finally:
        await store.aclose()
