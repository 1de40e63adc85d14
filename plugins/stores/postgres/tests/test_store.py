"""What the kit does not cover: NUL-safe text, LISTEN/NOTIFY wake-ups, SKIP LOCKED claims
between processes' pools, migrations, and connection strings that never show a password."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from agentframe_store_postgres import NewerSchemaError, PostgresStore, StoreDatabaseError
from agentframe_store_postgres.dsn import masked, scrub
from agentframe_store_postgres.plugin import PostgresOptions
from agentframe_store_postgres.schema import MIGRATIONS, SCHEMA_VERSION, migrate

from agentframe_core import Entry, EntryKind, StoredEntry, now_ns


async def test_text_with_nul_round_trips_and_stays_searchable(pg_store: PostgresStore) -> None:
    entry = Entry(
        kind=EntryKind.TOOL_RESULT,
        content="binary\x00output of grepfind",
        tool_call_id="c\x001",
        tag="t\x00",
        id="id\x00nul",
    )
    await pg_store.append("s", entry)
    assert await pg_store.context("s") == [entry]
    assert await pg_store.history("s") == [StoredEntry(entry)]
    assert await pg_store.search("s", "grepfind") == [entry]
    with pytest.raises(ValueError):
        await pg_store.append("s", Entry(kind=EntryKind.USER, content="again", id="id\x00nul"))


async def test_wait_pending_wakes_when_another_store_enqueues(
    postgres_dsn: str, schema: str, pg_store: PostgresStore
) -> None:
    other = PostgresStore(postgres_dsn, schema=schema)
    try:
        await pg_store.sessions()  # migrated
        assert not await pg_store.wait_pending("inbox", 0.2)  # nothing comes: times out
        started = time.monotonic()
        waiting = asyncio.create_task(pg_store.wait_pending("inbox", 30))
        await asyncio.sleep(0.5)
        await other.enqueue("elsewhere", Entry(kind=EntryKind.USER, content="not for inbox"))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await other.enqueue("inbox", Entry(kind=EntryKind.USER, content="wake up"))
        assert await asyncio.wait_for(waiting, 10)
        assert time.monotonic() - started < 10
        assert await pg_store.wait_pending("inbox", 0)  # already pending: at once
        assert await pg_store.claim_pending("inbox", now_ns()) == 1
        assert not await pg_store.wait_pending("inbox", 0)
    finally:
        await other.aclose()


async def test_concurrent_claims_take_each_pending_entry_once(
    postgres_dsn: str, schema: str, pg_store: PostgresStore
) -> None:
    stores = [PostgresStore(postgres_dsn, schema=schema) for _ in range(4)]
    try:
        for n in range(200):
            await pg_store.enqueue("s", Entry(kind=EntryKind.USER, content=f"m{n}"))
        at = now_ns()
        claims = await asyncio.gather(*(s.claim_pending("s", at) for s in stores for _ in range(5)))
        assert sum(claims) == 200
        assert len(await pg_store.context("s")) == 200
    finally:
        for store in stores:
            await store.aclose()


async def test_an_old_schema_is_migrated_and_keeps_its_entries(
    postgres_dsn: str, schema: str
) -> None:
    async with await psycopg.AsyncConnection.connect(
        postgres_dsn, autocommit=True, options=f"-c search_path={schema}"
    ) as db:
        await migrate(db, schema, target=1)  # as release 1 left it: no search, no leases
        await db.execute(
            "INSERT INTO sessions (id, created_at, updated_at, entries) VALUES ('old', 1, 1, 1)"
        )
        await db.execute(
            "INSERT INTO entries (session, id, kind, content, created_at) "
            "SELECT key, 'e1', 'user', 'kept across the upgrade', 1 FROM sessions"
        )
    store = PostgresStore(postgres_dsn, schema=schema)
    try:
        [entry] = await store.context("old")
        assert entry.content == "kept across the upgrade"
        assert await store.search("old", "upgrade") == [entry]
        assert await store.acquire_lease("old", "me", 5)
    finally:
        await store.aclose()
    assert SCHEMA_VERSION == len(MIGRATIONS) == 4


async def test_a_newer_or_foreign_schema_is_refused_untouched(
    postgres_dsn: str, schema: str
) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {schema}_newer".encode())
        db.execute(f"CREATE TABLE {schema}_newer.agentframe_schema (version int)".encode())
        db.execute(f"INSERT INTO {schema}_newer.agentframe_schema VALUES (99)".encode())
        db.execute(f"CREATE SCHEMA {schema}_other".encode())
        db.execute(f"CREATE TABLE {schema}_other.invoices (n int)".encode())
    try:
        newer = PostgresStore(postgres_dsn, schema=f"{schema}_newer")
        with pytest.raises(NewerSchemaError, match="schema version 99"):
            await newer.sessions()
        other = PostgresStore(postgres_dsn, schema=f"{schema}_other")
        with pytest.raises(StoreDatabaseError, match="holds tables of something else"):
            await other.sessions()
        with psycopg.connect(postgres_dsn) as db:
            tables = db.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_schema LIKE %s ORDER BY 1",
                (f"{schema}_%",),
            ).fetchall()
        assert tables == [(f"{schema}_newer", "agentframe_schema"), (f"{schema}_other", "invoices")]
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as db:
            for suffix in ("newer", "other"):
                db.execute(f"DROP SCHEMA {schema}_{suffix} CASCADE".encode())


async def test_a_failed_connection_never_shows_the_password() -> None:
    dsn = "postgresql://agent:s3cr3t-pw@127.0.0.1:1/db"  # port 1: refused
    store = PostgresStore(dsn, connect_timeout=2)
    assert "s3cr3t-pw" not in repr(store)
    with pytest.raises(StoreDatabaseError) as failure:
        await store.sessions()
    assert "s3cr3t-pw" not in str(failure.value)
    assert "cannot connect" in str(failure.value)
    await store.aclose()


def test_masking_covers_both_dsn_forms() -> None:
    assert masked("postgresql://u:pw@h:5/db") == "postgresql://***@h:5/db"
    assert masked("host=h password=pw user=u") == "host=h password=*** user=u"
    assert masked("host=h password='p w' user=u") == "host=h password='***' user=u"
    assert scrub("bad dsn near 'pw123'", "password=pw123") == "bad dsn near '***'"


@pytest.mark.parametrize("password", ["p@ssW0rdZ", "pa ss", "p@ss w0rd@"])
def test_a_password_with_at_signs_or_spaces_is_masked_whole(password: str) -> None:
    uri = f"postgresql://agent:{password}@127.0.0.1:5432/db"
    assert masked(uri) == "postgresql://***@127.0.0.1:5432/db"
    quoted = f"host=127.0.0.1 password='{password}' user=agent"
    assert masked(quoted) == "host=127.0.0.1 password='***' user=agent"
    assert scrub(f"failed near {password!r}", uri) == "failed near '***'"


def test_options_refuse_what_cannot_work(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="set `dsn` or `dsn_env`"):
        PostgresOptions()
    with pytest.raises(ValueError, match="lower-case letters"):
        PostgresOptions(dsn="host=h", schema="x; DROP TABLE y")
    with pytest.raises(ValueError, match="pool_max"):
        PostgresOptions(dsn="host=h", pool_min=5, pool_max=2)
    options = PostgresOptions(dsn_env="AGENTFRAME_TEST_DSN")
    monkeypatch.delenv("AGENTFRAME_TEST_DSN", raising=False)
    with pytest.raises(ValueError, match="AGENTFRAME_TEST_DSN is not set"):
        options.connection_string()
    monkeypatch.setenv("AGENTFRAME_TEST_DSN", "host=h password=pw")
    assert options.connection_string() == "host=h password=pw"
    assert "pw" not in repr(PostgresOptions(dsn="host=h password=pw"))


def test_missing_binaries_skip_or_fail_as_ci_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentframe_store_postgres.testing import REQUIRE_ENV, unavailable

    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no PostgreSQL"):
        unavailable("no PostgreSQL binaries")
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="requires PostgreSQL"):
        unavailable("no PostgreSQL binaries")
