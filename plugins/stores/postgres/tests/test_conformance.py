"""The PostgreSQL store passes the Store conformance kit, on a real server."""

from __future__ import annotations

import pytest
from agentframe_store_postgres import PostgresStore

from agentframe_core.testing import StoreConformance


class TestPostgresStore(StoreConformance):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> PostgresStore:
        return pg_store
