"""Real processes on one PostgreSQL schema: the multi-process kit (eight `agentframe run` on one
session; eight churning writers on two sessions killed with SIGKILL again and again, checked
through the Store protocol), then the schema's rows checked in SQL."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import psycopg
import pytest
from agentframe_store_postgres import PostgresStore

from agentframe_core.testing import StoreProcessConformance

DSN_ENV = "AGENTFRAME_TEST_PG"
#: A compaction with an entry it lists in `meta.subsumes` that is missing or not flagged.
HALF_APPLIED = """
    SELECT m.id, folded.id FROM entries m
    CROSS JOIN LATERAL jsonb_array_elements_text(m.meta::jsonb -> 'subsumes') AS folded (id)
    LEFT JOIN entries e ON e.session = m.session AND e.id = folded.id
    WHERE m.kind = 'compaction' AND e.subsumed IS NOT TRUE"""
#: An entry flagged subsumed that no compaction of its session lists.
UNCLAIMED = """
    SELECT session, id FROM entries WHERE subsumed
    EXCEPT
    SELECT m.session, folded.id FROM entries m
    CROSS JOIN LATERAL jsonb_array_elements_text(m.meta::jsonb -> 'subsumes') AS folded (id)
    WHERE m.kind = 'compaction'"""


class TestPostgresProcesses(StoreProcessConformance):
    @pytest.fixture
    def store_config(self, schema: str, pg_store: PostgresStore) -> dict[str, Any]:
        """`pg_store` drops the schema after the test."""
        return {"use": "postgres", "dsn_env": DSN_ENV, "schema": schema, "pool_max": 2}

    @pytest.fixture
    def store_env(self, postgres_dsn: str) -> dict[str, str]:
        return {DSN_ENV: postgres_dsn}

    def check_after_kills(self, store_config: Mapping[str, Any], acknowledged: set[str]) -> None:
        """In SQL, over the whole schema: every acknowledged id is a row, every compaction's
        entries are flagged, and no entry is flagged subsumed by no compaction."""
        schema = store_config["schema"]
        with psycopg.connect(os.environ[DSN_ENV], options=f"-c search_path={schema}") as db:
            stored = {entry_id for (entry_id,) in db.execute("SELECT id FROM entries")}
            half_applied = db.execute(HALF_APPLIED).fetchall()
            unclaimed = db.execute(UNCLAIMED).fetchall()
        assert acknowledged <= stored, f"{len(acknowledged - stored)} acknowledged ids are missing"
        assert not half_applied, f"compactions half applied: {half_applied[:3]}"
        assert not unclaimed, f"entries flagged subsumed by no compaction: {unclaimed[:3]}"
