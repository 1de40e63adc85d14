"""The file: a new one, an old schema migrated forward, and the files that must be refused."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from pathlib import Path

import pytest
from agentframe_store_sqlite import SCHEMA_VERSION, NewerSchemaError, SqliteStore, StoreFileError
from agentframe_store_sqlite.schema import APPLICATION_ID, migrate, open_database

from agentframe_core import Entry, EntryKind
from agentframe_core.testing import start_together

OPENER = Path(__file__).with_name("opener.py")


def fingerprint(path: Path) -> dict[str, str]:
    """The bytes of the database and of its write-ahead log, if any (the -shm file is an index
    of the log that any reader rebuilds, not content)."""
    files = [path, path.with_name(path.name + "-wal")]
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.exists()}


async def test_a_new_file_is_created_with_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "sessions.db"
    store = SqliteStore(path)
    await store.append("s", Entry(kind=EntryKind.USER, content="hi"))
    await store.aclose()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_synchronous_and_busy_timeout_are_applied(tmp_path: Path) -> None:
    db = open_database(tmp_path / "s.db", busy_timeout=2.5, synchronous="normal")
    try:
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] == 2500
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        db.close()


async def test_a_version_1_file_is_migrated_and_its_entries_become_searchable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    migrate(db, path, target=1)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.execute(
        "INSERT INTO sessions (id, created_at, updated_at, entries, title) "
        "VALUES ('old', 1, 2, 2, 'hello')"
    )
    db.executemany(
        "INSERT INTO entries (session, id, kind, content, meta, created_at, subsumed) "
        "VALUES (1, ?, ?, ?, ?, ?, ?)",
        [
            ("e1", "user", "hello from version one", None, 10, 1),
            ("e2", "compaction", "the summary", '{"by": "hand"}', 10, 0),
        ],
    )
    db.close()

    store = SqliteStore(path)
    try:
        context = await store.context("old")
        assert [(e.id, e.meta) for e in context] == [("e2", {"by": "hand"})]
        found = await store.search("old", "version")
        assert [e.id for e in found] == ["e1"]  # indexed by the migration, subsumed or not
        await store.append("old", Entry(kind=EntryKind.TOOL_RESULT, content="fresh versions"))
        assert len(await store.search("old", "version versions")) == 2
    finally:
        await store.aclose()
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_a_file_from_a_newer_release_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    store = SqliteStore(path)
    await store.append("s", Entry(kind=EntryKind.USER, content="kept"))
    await store.aclose()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = fingerprint(path)
    with pytest.raises(NewerSchemaError) as raised:
        SqliteStore(path)
    message = str(raised.value)
    assert str(path) in message
    assert f"schema version {SCHEMA_VERSION + 1}" in message
    assert "upgrade" in message.lower() and "not modified" in message
    assert fingerprint(path) == before


@pytest.mark.parametrize(
    ("prepare", "reason"),
    [
        (lambda p: p.write_text("these are my notes, not a database\n" * 100), "not a usable"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE photos (x)").close(), "something else"),
        (
            lambda p: sqlite3.connect(p).execute("PRAGMA application_id = 42").close(),
            "not an agentframe session store",
        ),
        (lambda p: p.mkdir(), "cannot open"),
    ],
    ids=["text file", "other database", "other application", "folder"],
)
async def test_what_is_not_a_session_store_is_refused(
    tmp_path: Path, prepare: object, reason: str
) -> None:
    path = tmp_path / "sessions.db"
    prepare(path)  # type: ignore[operator]
    before = fingerprint(path) if path.is_file() else None
    with pytest.raises(StoreFileError) as raised:
        SqliteStore(path)
    assert str(path) in str(raised.value) and reason in str(raised.value)
    if before is not None:
        assert fingerprint(path) == before


def test_processes_opening_a_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    """SQLite runs no busy handler for the switch to WAL: the open path must retry it, and
    must read what it checks in one snapshot while another process creates the schema."""
    for attempt in range(8):
        path = tmp_path / f"race-{attempt}.db"
        start_together([sys.executable, str(OPENER), str(path)] for _ in range(6))
