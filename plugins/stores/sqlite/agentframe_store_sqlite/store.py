"""`SqliteStore`: the Store contract (and export, prune, search) over one SQLite file.

The event loop never touches the disk: writes run on one thread with its own connection, in
arrival order, each one `BEGIN IMMEDIATE` transaction; reads run on a second thread with a
second connection, so a `context()` never waits behind another session's fsync (WAL mode:
a reader sees the last commit, never a half-applied one). Several processes can share the
file; a writer waits up to the busy timeout while another process holds the write lock.
`bench/store.py` compares this with `asyncio.to_thread` and a connection per pool thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

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

from .errors import StoreBusyError
from .schema import Synchronous, open_database

__all__ = ["SqliteStore"]

T = TypeVar("T")

_KINDS = {kind.value: kind for kind in EntryKind}
_COLUMNS = "id, kind, content, tool_call_id, tool_name, tag, origin, meta, created_at"
_SESSION_KEY = "(SELECT key FROM sessions WHERE id = ?)"

_TOUCH_SESSION = """
    INSERT INTO sessions (id, created_at, updated_at, entries, title) VALUES (?1, ?2, ?2, ?3, ?4)
    ON CONFLICT (id) DO UPDATE SET
        updated_at = max(updated_at, excluded.updated_at),
        entries = entries + excluded.entries,
        title = coalesce(title, excluded.title)
    RETURNING key
"""
_INSERT_ENTRY = f"""
    INSERT INTO entries (session, {_COLUMNS}, pending, subsumed)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_CONTEXT = f"""
    SELECT seq FROM entries
    WHERE session = {_SESSION_KEY} AND pending = 0 AND subsumed = 0
    ORDER BY created_at, seq
"""
#: Decoded entries a reader keeps (about 1 KiB each for short messages).
_DECODED_LIMIT = 100_000
_HISTORY = f"""
    SELECT {_COLUMNS}, pending, subsumed FROM entries
    WHERE session = {_SESSION_KEY}
    ORDER BY created_at, seq
"""
_SEARCH = f"""
    SELECT {", ".join("e." + c for c in _COLUMNS.split(", "))}
    FROM entries_fts JOIN entries AS e ON e.seq = entries_fts.rowid
    WHERE entries_fts MATCH ? AND e.session = {_SESSION_KEY}
    ORDER BY bm25(entries_fts), e.created_at, e.seq
    LIMIT ?
"""


class Worker:
    """One connection and the one thread that uses it."""

    def __init__(self, role: str, path: Path, busy_timeout: float, synchronous: Synchronous):
        self.thread = ThreadPoolExecutor(1, thread_name_prefix=f"agentframe-sqlite-{role}")
        opening = self.thread.submit(
            open_database, path, busy_timeout=busy_timeout, synchronous=synchronous
        )
        try:
            self.db = opening.result()
        except BaseException:
            self.thread.shutdown()
            raise

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.thread, function, *args)

    def close(self) -> None:
        self.thread.submit(self.db.close).result()
        self.thread.shutdown()


class SqliteStore:
    """Sessions in one SQLite file. Create it with the path; close it with `aclose()`."""

    def __init__(
        self, path: Path | str, *, busy_timeout: float = 5.0, synchronous: Synchronous = "full"
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self._closed = False
        # the reader thread's decoded entries, by seq, and the deletion count they go with
        self._decoded: dict[int, Entry] = {}
        self._generation: int | None = None
        self._writer = Worker("write", self.path, busy_timeout, synchronous)  # migrates
        try:
            self._reader = Worker("read", self.path, busy_timeout, synchronous)
        except BaseException:
            self._writer.close()
            raise

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    async def _run(self, function: Callable[..., T], *args: Any) -> T:
        """Run a write on the writer thread."""
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        return await self._writer.run(function, *args)

    async def _read(self, function: Callable[..., T], *args: Any) -> T:
        """Run a read on the reader thread."""
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        return await self._reader.run(function, *args)

    async def aclose(self) -> None:
        """Close both connections (the last one checkpoints the WAL) and stop their threads."""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._reader.close)
        await asyncio.to_thread(self._writer.close)

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock up front (waiting up to the busy
        timeout for another process): never a read lock upgraded half-way."""
        db = self._writer.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            if err.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                raise
            raise StoreBusyError(
                f"{self.path}: another process held the write lock for more than "
                f"{self.busy_timeout:g} s; nothing was written (raise `store.busy_timeout` "
                "if that process is expected to hold it that long)"
            ) from err
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    # -- the Store contract -------------------------------------------------------------------

    async def append(self, session_id: str, entry: Entry) -> None:
        await self._run(self._add, session_id, entry, False)

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        await self._run(self._add, session_id, entry, True)

    def _add(self, session_id: str, entry: Entry, pending: bool) -> None:
        row = _encode(entry)
        with self._write() as db:
            _refuse_deleted(db, session_id)
            key = _touch(db, session_id, 1, session_title(entry))
            _insert(db, session_id, key, row, pending, False)

    async def claim_pending(self, session_id: str, at: int) -> int:
        return await self._run(self._claim, session_id, at)

    def _claim(self, session_id: str, at: int) -> int:
        where = f"session = {_SESSION_KEY} AND pending = 1 AND created_at <= ?"
        due = self._writer.db.execute(
            f"SELECT EXISTS (SELECT 1 FROM entries WHERE {where})", (session_id, at)
        )
        if not due.fetchone()[0]:  # the common case, without taking the write lock
            return 0
        with self._write() as db:
            return db.execute(
                f"UPDATE entries SET pending = 0 WHERE {where}", (session_id, at)
            ).rowcount

    async def context(self, session_id: str) -> list[Entry]:
        return await self._read(self._context, session_id)

    def _context(self, session_id: str) -> list[Entry]:
        """Visible rows by seq, decoded once: a context read after a few appends decodes only
        those few (and returns the same Entry objects, which builders compare cheaply)."""
        db, decoded = self._reader.db, self._decoded
        db.execute("BEGIN")  # one snapshot for the generation and the rows
        try:
            generation = db.execute("SELECT n FROM generation").fetchone()[0]
            if generation != self._generation or len(decoded) > _DECODED_LIMIT:
                decoded.clear()
                self._generation = generation
            seqs = [seq for (seq,) in db.execute(_CONTEXT, (session_id,))]
            missing = [seq for seq in seqs if seq not in decoded]
            for start in range(0, len(missing), 500):
                chunk = missing[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                query = f"SELECT seq, {_COLUMNS} FROM entries WHERE seq IN ({marks})"
                for row in db.execute(query, chunk):
                    decoded[row[0]] = _decode(row[1:])
        finally:
            db.execute("COMMIT")
        return [decoded[seq] for seq in seqs]

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        await self._run(self._compact, session_id, compaction)

    def _compact(self, session_id: str, compaction: Compaction) -> None:
        marker = compaction.marker
        if marker.kind is not EntryKind.COMPACTION:
            raise ValueError("a compaction marker must have kind 'compaction'")
        row = _encode(marker)
        with self._write() as db:
            _refuse_deleted(db, session_id)
            key = _touch(db, session_id, 1, None)
            _insert(db, session_id, key, row, False, False)
            db.executemany(
                "UPDATE entries SET subsumed = 1 WHERE session = ? AND id = ?",
                ((key, entry_id) for entry_id in compaction.subsumes),
            )

    async def sessions(self) -> list[SessionInfo]:
        return await self._read(self._sessions)

    def _sessions(self) -> list[SessionInfo]:
        rows = self._reader.db.execute(
            "SELECT id, created_at, updated_at, entries, title FROM sessions "
            "ORDER BY updated_at DESC, key DESC"
        )
        return [SessionInfo(*row) for row in rows]

    async def delete(self, session_id: str) -> None:
        await self._run(self._delete, session_id)

    def _delete(self, session_id: str) -> None:
        with self._write() as db:
            _drop(db, session_id)
            _revoke(db, session_id)

    # -- LeasingStore: one turn at a time per session, across processes ------------------------

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        return await self._run(self._acquire_lease, session_id, holder, ttl)

    def _acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        now = time.time_ns()
        with self._write() as db:
            taken = db.execute(
                "SELECT 1 FROM leases WHERE session = ? AND expires_at > ? "
                "AND (revoked = 1 OR holder != ?)",
                (session_id, now, holder),
            ).fetchone()
            if taken:
                return False
            db.execute(
                "INSERT OR REPLACE INTO leases (session, holder, expires_at) VALUES (?, ?, ?)",
                (session_id, holder, now + int(ttl * 1e9)),
            )
            return True

    async def release_lease(self, session_id: str, holder: str) -> None:
        await self._run(self._release_lease, session_id, holder)

    def _release_lease(self, session_id: str, holder: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM leases WHERE session = ? AND holder = ?", (session_id, holder))

    async def lease_revoked(self, session_id: str) -> bool:
        return await self._read(self._lease_revoked, session_id)

    def _lease_revoked(self, session_id: str) -> bool:
        return _revoked(self._reader.db, session_id)

    # -- ExportableStore ----------------------------------------------------------------------

    async def history(self, session_id: str) -> list[StoredEntry]:
        return await self._read(self._history, session_id)

    def _history(self, session_id: str) -> list[StoredEntry]:
        rows = self._reader.db.execute(_HISTORY, (session_id,))
        return [StoredEntry(_decode(row), bool(row[-2]), bool(row[-1])) for row in rows]

    async def restore(self, session_id: str, records: Sequence[StoredEntry]) -> None:
        await self._run(self._restore, session_id, records)

    def _restore(self, session_id: str, records: Sequence[StoredEntry]) -> None:
        seen: set[str] = set()
        for record in records:  # checked before the transaction: a refused restore changes nothing
            if record.entry.id in seen:
                raise ValueError(f"entry {record.entry.id!r} appears twice in the records")
            seen.add(record.entry.id)
        rows = [(*_encode(r.entry), r.pending, r.subsumed) for r in records]
        title = next(filter(None, (session_title(r.entry) for r in records)), None)
        stamps = [r.entry.created_at for r in records] or [now_ns()]
        with self._write() as db:
            _refuse_deleted(db, session_id)
            _drop(db, session_id)
            key = _touch(db, session_id, len(rows), title)
            db.execute(  # the session's own time, not the import's
                "UPDATE sessions SET created_at = ?, updated_at = ? WHERE key = ?",
                (min(stamps), max(stamps), key),
            )
            db.executemany(_INSERT_ENTRY, ((key, *row) for row in rows))

    # -- PrunableStore, and reclaiming space --------------------------------------------------

    async def prune(
        self, *, older_than: timedelta | None = None, keep_last: int | None = None
    ) -> list[str]:
        return await self._run(self._prune, older_than, keep_last)

    def _prune(self, older_than: timedelta | None, keep_last: int | None) -> list[str]:
        with self._write() as db:
            newest_first = db.execute(
                "SELECT id, updated_at FROM sessions ORDER BY updated_at DESC, key DESC"
            ).fetchall()
            doomed = sessions_to_prune(newest_first, older_than=older_than, keep_last=keep_last)
            for session_id in doomed:
                _drop(db, session_id)
                _revoke(db, session_id)
        return doomed

    async def vacuum(self) -> None:
        """Give the space of deleted sessions back to the file system: merge the search
        index, rebuild the file, and truncate the write-ahead log."""
        await self._run(self._vacuum)

    def _vacuum(self) -> None:
        with self._write() as db:
            db.execute("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')")
        self._writer.db.execute("VACUUM")
        self._writer.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- SearchableStore ----------------------------------------------------------------------

    async def search(self, session_id: str, query: str, limit: int = 10) -> list[Entry]:
        """Entries (subsumed ones too) holding any word of `query`, best match (bm25) first.
        The query is taken as plain words: FTS5 syntax in it is not interpreted."""
        return await self._read(self._search, session_id, query, limit)

    def _search(self, session_id: str, query: str, limit: int) -> list[Entry]:
        words = _WORD.findall(query)
        if not words or limit <= 0:
            return []
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        rows = self._reader.db.execute(_SEARCH, (match, session_id, limit))
        return [_decode(row) for row in rows]


_WORD = re.compile(r"\w+")


# -- rows ------------------------------------------------------------------------------------

Row = tuple[str, str, str, str | None, str | None, str | None, str | None, str | None, int]


def _encode(entry: Entry) -> Row:
    """The columns of `entry`, before any transaction starts (a bad entry writes nothing)."""
    return (
        entry.id,
        entry.kind.value,
        entry.content,
        entry.tool_call_id,
        entry.tool_name,
        entry.tag,
        None if entry.origin is None else _json(entry, "origin", entry.origin),
        _json(entry, "meta", entry.meta) if entry.meta else None,
        entry.created_at,
    )


def _json(entry: Entry, field: str, value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise TypeError(f"entry {entry.id!r}: {field} must be JSON-serialisable: {err}") from err


def _decode(row: Sequence[Any]) -> Entry:
    entry_id, kind, content, tool_call_id, tool_name, tag, origin, meta, created_at = row[:9]
    return Entry(
        kind=_KINDS.get(kind) or EntryKind(kind),
        content=content,
        id=entry_id,
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        tag=tag,
        origin=None if origin is None else json.loads(origin),
        created_at=created_at,
        meta={} if meta is None else json.loads(meta),
    )


def _touch(db: sqlite3.Connection, session_id: str, added: int, title: str | None) -> int:
    """Create the session or mark it updated, counting `added` entries; its key."""
    # fetchall: the RETURNING statement runs to its end now, not when the cursor is collected.
    [(key,)] = db.execute(_TOUCH_SESSION, (session_id, now_ns(), added, title)).fetchall()
    return int(key)


def _insert(
    db: sqlite3.Connection, session_id: str, key: int, row: Row, pending: bool, subsumed: bool
) -> None:
    try:
        db.execute(_INSERT_ENTRY, (key, *row, pending, subsumed))
    except sqlite3.IntegrityError as err:
        if "UNIQUE" not in str(err):
            raise
        raise ValueError(f"entry {row[0]!r} is already in session {session_id!r}") from err


def _revoked(db: sqlite3.Connection, session_id: str) -> bool:
    found = db.execute(
        "SELECT 1 FROM leases WHERE session = ? AND revoked = 1 AND expires_at > ?",
        (session_id, time.time_ns()),
    ).fetchone()
    return found is not None


def _refuse_deleted(db: sqlite3.Connection, session_id: str) -> None:
    """In a write transaction: refuse to write to a session deleted under a live lease."""
    if _revoked(db, session_id):
        raise SessionDeletedError(f"session {session_id!r} was deleted during a turn")


def _revoke(db: sqlite3.Connection, session_id: str) -> None:
    """Turn a live lease into the deleted session's tombstone (see `LeasingStore`)."""
    db.execute(
        "UPDATE leases SET revoked = 1 WHERE session = ? AND expires_at > ?",
        (session_id, time.time_ns()),
    )


def _drop(db: sqlite3.Connection, session_id: str) -> None:
    found = db.execute("SELECT key FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if found is not None:
        db.execute("DELETE FROM entries WHERE session = ?", found)
        db.execute("DELETE FROM sessions WHERE key = ?", found)
