"""Several real processes on one file: the multi-process kit (eight `agentframe run` on one
session; churning writers killed with SIGKILL, checked through the Store protocol and then
with SQLite's own integrity check and rows), and two writers that create the file at once."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from agentframe_store_sqlite import SqliteStore

from agentframe_core.testing import StoreProcessConformance, start_together

WORKERS = Path(__file__).with_name("workers.py")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
#: A compaction with an entry it lists in `meta.subsumes` that is missing or not flagged.
HALF_APPLIED = """
    SELECT m.id, folded.value FROM entries m, json_each(m.meta, '$.subsumes') AS folded
    LEFT JOIN entries e ON e.session = m.session AND e.id = folded.value
    WHERE m.kind = 'compaction' AND coalesce(e.subsumed, 0) = 0"""
#: An entry flagged subsumed that no compaction of its session lists.
UNCLAIMED = """
    SELECT session, id FROM entries WHERE subsumed
    EXCEPT
    SELECT m.session, folded.value FROM entries m, json_each(m.meta, '$.subsumes') AS folded
    WHERE m.kind = 'compaction'"""


def integrity(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


class TestSqliteProcesses(StoreProcessConformance):
    @pytest.fixture
    def store_config(self, tmp_path: Path) -> dict[str, Any]:
        return {"use": "sqlite", "path": str(tmp_path / "sessions.db")}

    def check_after_kills(self, store_config: Mapping[str, Any], acknowledged: set[str]) -> None:
        """The file is intact, and its rows agree, in SQL over every session of the file:
        every acknowledged id is a row, every compaction's entries are flagged, and no entry
        is flagged subsumed by no compaction."""
        path = Path(store_config["path"])
        assert integrity(path) == "ok"
        with sqlite3.connect(path) as db:
            stored = {entry_id for (entry_id,) in db.execute("SELECT id FROM entries")}
            half_applied = db.execute(HALF_APPLIED).fetchall()
            unclaimed = db.execute(UNCLAIMED).fetchall()
        db.close()
        assert acknowledged <= stored, f"{len(acknowledged - stored)} acknowledged ids are missing"
        assert not half_applied, f"compactions half applied: {half_applied[:3]}"
        assert not unclaimed, f"entries flagged subsumed by no compaction: {unclaimed[:3]}"


async def test_two_processes_write_one_file_at_once(tmp_path: Path) -> None:
    path = tmp_path / "new" / "sessions.db"  # neither exists: both create and migrate it
    count = 150
    start_together(
        [sys.executable, str(WORKERS), str(path), "shared", str(count), f"own-{i}"]
        for i in range(2)
    )
    assert integrity(path) == "ok"
    store = SqliteStore(path)
    try:
        shared = await store.context("shared")
        contents = sorted(e.content for e in shared)
        assert contents == sorted(f"shared {n}" for n in range(count) for _ in range(2))
        stamps = [e.created_at for e in shared]
        assert stamps == sorted(stamps)
        for i in range(2):
            own = await store.context(f"own-{i}")
            assert [e.content for e in own] == [f"own {n}" for n in range(count)]
        infos = {info.id: info.entries for info in await store.sessions()}
        assert infos == {"shared": 2 * count, "own-0": count, "own-1": count}
    finally:
        await store.aclose()
