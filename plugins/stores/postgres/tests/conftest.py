"""A throwaway PostgreSQL server for the session, and a fresh schema per test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import psycopg
import pytest
from agentframe_store_postgres import PostgresStore
from agentframe_store_postgres.testing import postgres_dsn

__all__ = ["postgres_dsn"]


@pytest.fixture
def schema() -> str:
    return f"t_{uuid.uuid4().hex[:16]}"


@pytest.fixture
async def pg_store(postgres_dsn: str, schema: str) -> AsyncIterator[PostgresStore]:
    store = PostgresStore(postgres_dsn, schema=schema, pool_max=8)
    yield store
    await store.aclose()
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE".encode())
