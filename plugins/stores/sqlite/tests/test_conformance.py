"""The SQLite store passes the Store conformance kit, on a real file, with its defaults."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from agentframe_store_sqlite import SqliteStore

from agentframe_core.testing import StoreConformance


class TestSqliteStore(StoreConformance):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[SqliteStore]:
        store = SqliteStore(tmp_path / "sessions.db")
        yield store
        await store.aclose()
