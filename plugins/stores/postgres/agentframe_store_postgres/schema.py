"""The tables, the forward migrations that build them, and bringing a schema up to date.

The version lives in `agentframe_schema (version)`, and `MIGRATIONS[v]` takes a schema from
version v to v + 1, so a new schema and an old one reach the current one by the same path. A
version above `SCHEMA_VERSION` was written by a newer release: it is refused, untouched. A
schema holding tables but no `agentframe_schema` is someone else's: refused too. Migrating
holds a transaction-level advisory lock, so processes starting at once migrate once.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, sql

from .errors import NewerSchemaError, StoreDatabaseError

__all__ = ["DELETED_SQLSTATE", "MIGRATIONS", "SCHEMA_VERSION", "SESSION_LOCK", "migrate"]

#: The advisory lock class of migrations ("afsm"); sessions use SESSION_LOCK ("afss").
MIGRATION_LOCK = 0x6166736D
SESSION_LOCK = 0x61667373

# `seq` is the arrival order (the tie-break of created_at), never reused, so a reader may keep
# decoded rows by seq. PostgreSQL text cannot hold NUL: a field that has one is stored with
# U+FFFD in its column and exactly in `exact` (JSON of the fields that had one).
_V1_LOG = (
    """CREATE TABLE sessions (
        key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        entries bigint NOT NULL DEFAULT 0,
        title text
    )""",
    "CREATE INDEX sessions_by_update ON sessions (updated_at)",
    """CREATE TABLE entries (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
        id text NOT NULL,
        kind text NOT NULL,
        content text NOT NULL,
        tool_call_id text,
        tool_name text,
        tag text,
        origin text,
        meta text,
        exact text,
        created_at bigint NOT NULL,
        pending boolean NOT NULL DEFAULT false,
        subsumed boolean NOT NULL DEFAULT false,
        UNIQUE (session, id)
    )""",
    # only visible entries: a compacted session's context costs its visible entries
    """CREATE INDEX entries_visible ON entries (session, created_at, seq)
        WHERE NOT pending AND NOT subsumed""",
    "CREATE INDEX entries_pending ON entries (session, created_at) WHERE pending",
)

# Full-text search over the first 200,000 characters of each entry (a tsvector holds at most
# 1 MiB), with the `simple` configuration: lower-cased words, no stemming, no stop words.
_V2_SEARCH = (
    """ALTER TABLE entries ADD COLUMN words tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', left(content, 200000))) STORED""",
    "CREATE INDEX entries_words ON entries USING gin (words)",
)

# The turn lease of each session and the tombstone of a session deleted under a live lease
# (`revoked` until released or expired). Expiry is the database's clock, shared by every
# machine. Keyed by session id: a lease may precede its session.
_V3_LEASES = (
    """CREATE TABLE leases (
        session text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked boolean NOT NULL DEFAULT false
    )""",
)

#: The SQLSTATE `agentframe_add` raises for a session deleted under a live lease.
DELETED_SQLSTATE = "AF001"

# An append or enqueue in one round trip (one statement, its own transaction): the session's
# lock, the tombstone check, the session row, the entry, and the NOTIFY of an enqueue.
_V4_ADD = (
    f"""CREATE FUNCTION agentframe_add(
        p_session text, p_now bigint, p_title text, p_pending boolean,
        p_channel text, p_token text, p_id text, p_kind text, p_content text,
        p_tool_call_id text, p_tool_name text, p_tag text, p_origin text, p_meta text,
        p_exact text, p_created_at bigint
    ) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
        k bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock({SESSION_LOCK}, hashtext(p_session));
        IF EXISTS (SELECT 1 FROM leases WHERE session = p_session AND revoked
                   AND expires_at > clock_timestamp()) THEN
            RAISE EXCEPTION 'session % was deleted during a turn', p_session
                USING ERRCODE = '{DELETED_SQLSTATE}';
        END IF;
        INSERT INTO sessions (id, created_at, updated_at, entries, title)
        VALUES (p_session, p_now, p_now, 1, p_title)
        ON CONFLICT (id) DO UPDATE SET
            updated_at = greatest(sessions.updated_at, excluded.updated_at),
            entries = sessions.entries + 1,
            title = coalesce(sessions.title, excluded.title)
        RETURNING key INTO k;
        INSERT INTO entries (session, id, kind, content, tool_call_id, tool_name, tag, origin,
                             meta, exact, created_at, pending)
        VALUES (k, p_id, p_kind, p_content, p_tool_call_id, p_tool_name, p_tag, p_origin,
                p_meta, p_exact, p_created_at, p_pending);
        IF p_pending THEN
            PERFORM pg_notify(p_channel, p_token);
        END IF;
    END $$""",
)

#: `MIGRATIONS[v]`: the statements that take a schema from version v to v + 1.
MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1_LOG, _V2_SEARCH, _V3_LEASES, _V4_ADD)
SCHEMA_VERSION = len(MIGRATIONS)


async def migrate(db: AsyncConnection[Any], schema: str, target: int = SCHEMA_VERSION) -> None:
    """Create `schema` if missing and bring it to version `target`, in one transaction."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s, 0)", (MIGRATION_LOCK,))
        await db.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        version = await _version(db, schema)
        if version > SCHEMA_VERSION:
            raise NewerSchemaError(
                f"schema {schema!r}: written by a newer agentframe-store-postgres (schema "
                f"version {version}; this one reads up to {SCHEMA_VERSION}). Nothing was "
                "changed. Upgrade with `pip install -U agentframe-store-postgres`, or set "
                "`store.schema` to another schema."
            )
        for step in range(version, target):
            for statement in MIGRATIONS[step]:
                await db.execute(statement.encode())
        if version < target:
            await db.execute("UPDATE agentframe_schema SET version = %s", (target,))


async def _version(db: AsyncConnection[Any], schema: str) -> int:
    """The schema's version (0 when new); refuse a schema that holds other tables."""
    cursor = await db.execute(
        "SELECT count(*), count(*) FILTER (WHERE table_name = 'agentframe_schema') "
        "FROM information_schema.tables WHERE table_schema = %s",
        (schema,),
    )
    tables, ours = await cursor.fetchone() or (0, 0)
    if tables and not ours:
        raise StoreDatabaseError(
            f"schema {schema!r} holds tables of something else (no agentframe_schema table); "
            "set `store.schema` to another schema"
        )
    if not ours:
        await db.execute("CREATE TABLE agentframe_schema (version integer NOT NULL)")
        await db.execute("INSERT INTO agentframe_schema (version) VALUES (0)")
        return 0
    cursor = await db.execute("SELECT version FROM agentframe_schema")
    row = await cursor.fetchone()
    return int(row[0]) if row else 0
