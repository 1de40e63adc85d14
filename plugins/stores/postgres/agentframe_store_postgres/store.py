"""`PostgresStore`: the Store contract (and export, prune, search, leases) in PostgreSQL.

Many processes on many machines share one database. Each write is one transaction that first
takes the session's transaction-level advisory lock, so writes to one session are serialised
(and a deletion cannot interleave with them) while other sessions proceed in parallel. Reads
are single statements (a snapshot each): a reader sees a compaction whole or not at all.
`enqueue` notifies `LISTEN`ers, so `wait_pending` wakes a worker when a message arrives.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import psycopg
from psycopg import AsyncConnection, sql
from psycopg_pool import AsyncConnectionPool

from agentframe_core import (
    Compaction,
    Entry,
    EntryKind,
    SessionDeletedError,
    SessionInfo,
    StoredEntry,
    now_ns,
    session_title,
    sessions_to_prune,
)

from .dsn import masked, scrub
from .errors import StoreDatabaseError
from .rows import COLUMNS, Row, decode, encode
from .schema import DELETED_SQLSTATE, SESSION_LOCK, migrate

__all__ = ["PostgresStore"]

Connection = AsyncConnection[Any]

_KEY = "(SELECT key FROM sessions WHERE id = %s)"
_TOUCH = """
    INSERT INTO sessions (id, created_at, updated_at, entries, title) VALUES (%s, %s, %s, %s, %s)
    ON CONFLICT (id) DO UPDATE SET
        updated_at = greatest(sessions.updated_at, excluded.updated_at),
        entries = sessions.entries + excluded.entries,
        title = coalesce(sessions.title, excluded.title)
    RETURNING key
"""
_ENTRY_COLUMNS = f"session, {COLUMNS}, pending, subsumed"
_ADD = f"SELECT agentframe_add({', '.join(['%s'] * 16)})"
_INSERT = f"INSERT INTO entries ({_ENTRY_COLUMNS}) VALUES ({', '.join(['%s'] * 13)})"
# one binary array, not a row per entry: 100k sequence numbers parse in C in a few ms
_VISIBLE = f"""
    SELECT coalesce(array_agg(seq ORDER BY created_at, seq), '{{}}') FROM entries
    WHERE session = {_KEY} AND NOT pending AND NOT subsumed
"""
_VISIBLE_ROWS = f"""
    SELECT seq, {COLUMNS} FROM entries WHERE session = {_KEY} AND NOT pending AND NOT subsumed
    ORDER BY created_at, seq
"""
_CLAIM = f"""
    UPDATE entries SET pending = false WHERE seq IN (
        SELECT seq FROM entries WHERE session = {_KEY} AND pending AND created_at <= %s
        FOR UPDATE SKIP LOCKED)
"""
_HISTORY = f"""
    SELECT {COLUMNS}, pending, subsumed FROM entries WHERE session = {_KEY}
    ORDER BY created_at, seq
"""
_SEARCH = f"""
    SELECT {COLUMNS} FROM entries, websearch_to_tsquery('simple', %s) AS query
    WHERE session = {_KEY} AND words @@ query
    ORDER BY ts_rank(words, query) DESC, created_at, seq
    LIMIT %s
"""
_ACQUIRE = """
    INSERT INTO leases AS l (session, holder, expires_at)
    VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s))
    ON CONFLICT (session) DO UPDATE
        SET holder = excluded.holder, expires_at = excluded.expires_at, revoked = false
        WHERE l.expires_at <= clock_timestamp() OR (l.holder = excluded.holder AND NOT l.revoked)
    RETURNING 1
"""
_REVOKED = "SELECT 1 FROM leases WHERE session = %s AND revoked AND expires_at > clock_timestamp()"
_PRUNE = """
    DELETE FROM sessions AS s USING unnest(%s::text[], %s::bigint[]) AS seen (id, updated_at)
    WHERE s.id = seen.id AND s.updated_at <= seen.updated_at
    RETURNING s.id
"""
#: Decoded entries a store keeps (about 1 KiB each for short messages).
_DECODED_LIMIT = 100_000
#: Words of a search query that are looked for; the rest are ignored.
_SEARCH_WORDS = 64
_WORD = re.compile(r"\w+")


class PostgresStore:
    """Sessions in PostgreSQL. Create it with a DSN; the pool opens (and the schema migrates)
    on first use, on the event loop that uses it; close it with `aclose()`."""

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "agentframe",
        pool_min: int = 1,
        pool_max: int = 10,
        connect_timeout: float = 10.0,
    ) -> None:
        self._dsn = dsn
        self.schema = schema
        self.pool_min, self.pool_max = pool_min, pool_max
        self.connect_timeout = connect_timeout
        self._options = f"-c search_path={schema}"
        self._channel = f"agentframe_pending_{schema}"
        self._pool: AsyncConnectionPool[Connection] | None = None
        self._opening = asyncio.Lock()
        self._closed = False
        # decoded entries by seq: rows never change but for their flags, and seqs never repeat
        self._decoded: dict[int, Entry] = {}

    def __repr__(self) -> str:
        return f"PostgresStore({masked(self._dsn)!r}, schema={self.schema!r})"

    # -- connections ----------------------------------------------------------------------------

    async def connect(self) -> Connection:
        """A new connection of its own (autocommit, this store's schema); the caller closes it."""
        try:
            return await AsyncConnection.connect(
                self._dsn,
                autocommit=True,
                options=self._options,
                connect_timeout=max(1, round(self.connect_timeout)),
            )
        except psycopg.Error as err:
            raise self._error("cannot connect", err) from None

    def _error(self, what: str, err: BaseException) -> StoreDatabaseError:
        return StoreDatabaseError(f"{self!r}: {what}: {scrub(str(err), self._dsn)}")

    async def _ready(self) -> AsyncConnectionPool[Connection]:
        """The pool, opened (and the schema migrated) on first use."""
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        if self._pool is not None:
            return self._pool
        async with self._opening:
            if self._pool is None:
                db = await self.connect()  # its error says why, where the pool's would not
                try:
                    await migrate(db, self.schema)
                except psycopg.Error as err:
                    raise self._error("cannot migrate the schema", err) from None
                finally:
                    await db.close()
                pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
                    self._dsn,
                    min_size=self.pool_min,
                    max_size=self.pool_max,
                    kwargs={"autocommit": True, "options": self._options},
                    open=False,
                    name=f"agentframe-{self.schema}",
                )
                await pool.open(wait=False)
                self._pool = pool
        return self._pool

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        pool = await self._ready()
        try:
            async with pool.connection() as db:
                yield db
        except psycopg.OperationalError as err:
            raise self._error("the database failed", err) from None

    @asynccontextmanager
    async def _write(self, session_id: str) -> AsyncIterator[Connection]:
        """One transaction holding the session's lock; a duplicate id is a `ValueError`."""
        try:
            async with self._connection() as db, db.transaction():
                await db.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (SESSION_LOCK, session_id)
                )
                yield db
        except psycopg.errors.UniqueViolation as err:
            raise ValueError(
                f"an entry id is already in session {session_id!r}: {err.diag.message_detail}"
            ) from None

    async def aclose(self) -> None:
        """Close the pool (its connections); the data stays in the database."""
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            await self._pool.close()

    # -- the Store contract -------------------------------------------------------------------

    async def append(self, session_id: str, entry: Entry) -> None:
        await self._add(session_id, entry, False)

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        await self._add(session_id, entry, True)

    async def _add(self, session_id: str, entry: Entry, pending: bool) -> None:
        """One round trip: `agentframe_add` (schema v4) does the whole write."""
        row = encode(entry)
        head = (
            session_id,
            now_ns(),
            _plain(session_title(entry)),
            pending,
            self._channel,
            _token(session_id),
        )
        try:
            async with self._connection() as db:
                await db.execute(_ADD, (*head, *row))
        except psycopg.errors.UniqueViolation:
            raise ValueError(f"entry {entry.id!r} is already in session {session_id!r}") from None
        except psycopg.Error as err:
            if err.sqlstate == DELETED_SQLSTATE:
                raise SessionDeletedError(
                    f"session {session_id!r} was deleted during a turn"
                ) from None
            raise

    async def claim_pending(self, session_id: str, at: int) -> int:
        async with self._connection() as db:
            cursor = await db.execute(_CLAIM, (session_id, at))
            return max(cursor.rowcount, 0)

    async def context(self, session_id: str) -> list[Entry]:
        """Visible rows by seq, each decoded once: a read after a few appends fetches and
        decodes those few (and returns the same Entry objects, which builders compare cheaply)."""
        decoded = self._decoded
        if len(decoded) > _DECODED_LIMIT:
            decoded.clear()
        async with self._connection() as db:
            found = await (await db.execute(_VISIBLE, (session_id,), binary=True)).fetchone()
            seqs: list[int] = found[0] if found else []
            missing = [seq for seq in seqs if seq not in decoded]
            if missing:
                query = f"SELECT seq, {COLUMNS} FROM entries WHERE seq = ANY(%s)"
                for row in await (await db.execute(query, (missing,))).fetchall():
                    decoded[row[0]] = decode(row[1:])
            if all(seq in decoded for seq in missing):
                return [decoded[seq] for seq in seqs]
            # rows went between the two reads (a deletion or restore): read once, whole
            rows = await (await db.execute(_VISIBLE_ROWS, (session_id,))).fetchall()
            return [decode(row[1:]) for row in rows]

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        marker = compaction.marker
        if marker.kind is not EntryKind.COMPACTION:
            raise ValueError("a compaction marker must have kind 'compaction'")
        row = encode(marker)
        subsumed = [entry_id.replace("\x00", "\ufffd") for entry_id in compaction.subsumes]
        async with self._write(session_id) as db:
            await _refuse_deleted(db, session_id)
            key = await _touch(db, session_id, 1, None)
            await db.execute(_INSERT, (key, *row, False, False))
            await db.execute(
                "UPDATE entries SET subsumed = true WHERE session = %s AND id = ANY(%s)",
                (key, subsumed),
            )

    async def sessions(self) -> list[SessionInfo]:
        async with self._connection() as db:
            cursor = await db.execute(
                "SELECT id, created_at, updated_at, entries, title FROM sessions "
                "ORDER BY updated_at DESC, key DESC"
            )
            return [SessionInfo(*row) for row in await cursor.fetchall()]

    async def delete(self, session_id: str) -> None:
        async with self._write(session_id) as db:
            await db.execute("DELETE FROM sessions WHERE id = %s", (session_id,))
            await _revoke(db, [session_id])

    # -- LeasingStore: one turn at a time per session, across processes and machines ----------

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        async with self._connection() as db:
            cursor = await db.execute(_ACQUIRE, (session_id, holder, ttl))
            return await cursor.fetchone() is not None

    async def release_lease(self, session_id: str, holder: str) -> None:
        async with self._connection() as db:
            await db.execute(
                "DELETE FROM leases WHERE session = %s AND holder = %s", (session_id, holder)
            )

    async def lease_revoked(self, session_id: str) -> bool:
        async with self._connection() as db:
            return await _revoked(db, session_id)

    # -- waking a worker: LISTEN/NOTIFY ---------------------------------------------------------

    async def wait_pending(self, session_id: str, timeout: float) -> bool:
        """Wait up to `timeout` seconds until the session has a pending (enqueued, unclaimed)
        entry; True if it has one. Holds a connection of its own (not the pool's) while it
        waits, woken by the NOTIFY that `enqueue` sends when it commits."""
        token = _token(session_id)
        db = await self.connect()
        try:
            await db.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
            if await _has_pending(db, session_id):  # enqueued before we listened
                return True
            async for notice in db.notifies(timeout=max(timeout, 0.0)):
                if notice.payload == token:
                    return True
            return await _has_pending(db, session_id)
        except psycopg.OperationalError as err:
            raise self._error("waiting for a message failed", err) from None
        finally:
            await db.close()

    # -- ExportableStore ----------------------------------------------------------------------

    async def history(self, session_id: str) -> list[StoredEntry]:
        async with self._connection() as db:
            rows = await (await db.execute(_HISTORY, (session_id,))).fetchall()
        return [StoredEntry(decode(row), row[-2], row[-1]) for row in rows]

    async def restore(self, session_id: str, records: Sequence[StoredEntry]) -> None:
        seen: set[str] = set()
        for record in records:  # checked before the transaction: a refused restore changes nothing
            if record.entry.id in seen:
                raise ValueError(f"entry {record.entry.id!r} appears twice in the records")
            seen.add(record.entry.id)
        rows: list[tuple[Row, bool, bool]] = [
            (encode(r.entry), r.pending, r.subsumed) for r in records
        ]
        title = next(filter(None, (session_title(r.entry) for r in records)), None)
        stamps = [r.entry.created_at for r in records] or [now_ns()]
        async with self._write(session_id) as db:
            await _refuse_deleted(db, session_id)
            await db.execute("DELETE FROM sessions WHERE id = %s", (session_id,))
            key = await _touch(db, session_id, len(rows), title)
            await db.execute(  # the session's own time, not the import's
                "UPDATE sessions SET created_at = %s, updated_at = %s WHERE key = %s",
                (min(stamps), max(stamps), key),
            )
            cursor = db.cursor()
            async with cursor.copy(f"COPY entries ({_ENTRY_COLUMNS}) FROM STDIN") as copy:
                for row, pending, subsumed in rows:
                    await copy.write_row((key, *row, pending, subsumed))

    # -- PrunableStore ------------------------------------------------------------------------

    async def prune(
        self, *, older_than: timedelta | None = None, keep_last: int | None = None
    ) -> list[str]:
        """Delete what the rules select; a session written to meanwhile is kept."""
        async with self._connection() as db, db.transaction():
            cursor = await db.execute(
                "SELECT id, updated_at FROM sessions ORDER BY updated_at DESC, key DESC"
            )
            newest_first = [(str(i), int(u)) for i, u in await cursor.fetchall()]
            doomed = sessions_to_prune(newest_first, older_than=older_than, keep_last=keep_last)
            if not doomed:
                return []
            updated = dict(newest_first)
            cursor = await db.execute(_PRUNE, (doomed, [updated[sid] for sid in doomed]))
            deleted = [sid for (sid,) in await cursor.fetchall()]
            await _revoke(db, deleted)
        return deleted

    # -- SearchableStore ----------------------------------------------------------------------

    async def search(self, session_id: str, query: str, limit: int = 10) -> list[Entry]:
        """Entries (subsumed ones too) holding any word of `query`, best match (ts_rank)
        first. The query is taken as plain words: no search syntax in it is interpreted."""
        words = _WORD.findall(query)[:_SEARCH_WORDS]
        if not words or limit <= 0:
            return []
        text = " or ".join(f'"{word}"' for word in words)
        async with self._connection() as db:
            rows = await (await db.execute(_SEARCH, (text, session_id, limit))).fetchall()
        return [decode(row) for row in rows]


# -- statements -------------------------------------------------------------------------------


def _token(session_id: str) -> str:
    """The NOTIFY payload for a session: short, fixed-size, and not the id itself."""
    return hashlib.blake2b(session_id.encode(), digest_size=16).hexdigest()


def _plain(title: str | None) -> str | None:
    """A title as a text column holds it (NUL cannot be stored)."""
    return None if title is None else title.replace("\x00", "\ufffd")


async def _touch(db: Connection, session_id: str, added: int, title: str | None) -> int:
    """Create the session or mark it updated, counting `added` entries; its key."""
    stamp = now_ns()
    cursor = await db.execute(_TOUCH, (session_id, stamp, stamp, added, _plain(title)))
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def _has_pending(db: Connection, session_id: str) -> bool:
    cursor = await db.execute(
        f"SELECT EXISTS (SELECT 1 FROM entries WHERE session = {_KEY} AND pending)",
        (session_id,),
    )
    row = await cursor.fetchone()
    return bool(row and row[0])


async def _revoked(db: Connection, session_id: str) -> bool:
    return await (await db.execute(_REVOKED, (session_id,))).fetchone() is not None


async def _refuse_deleted(db: Connection, session_id: str) -> None:
    """In a write transaction: refuse to write to a session deleted under a live lease."""
    if await _revoked(db, session_id):
        raise SessionDeletedError(f"session {session_id!r} was deleted during a turn")


async def _revoke(db: Connection, session_ids: list[str]) -> None:
    """Turn live leases into the deleted sessions' tombstones (see `LeasingStore`)."""
    await db.execute(
        "UPDATE leases SET revoked = true WHERE session = ANY(%s) "
        "AND expires_at > clock_timestamp()",
        (session_ids,),
    )
