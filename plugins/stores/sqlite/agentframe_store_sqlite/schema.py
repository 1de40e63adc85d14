"""The file: its tables and indexes, the forward migrations that build them, and opening it.

The schema version is `PRAGMA user_version`, and `MIGRATIONS[v]` takes a file from version v
to v + 1, so a new file and an old one reach the current schema by the same path. A file whose
version is above `SCHEMA_VERSION` was written by a newer release: it is refused, untouched.
`PRAGMA application_id` marks the file as ours, so a path pointing at some other database is
refused too instead of being written into.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from agentframe_core import create_private, use_wal

from .errors import NewerSchemaError, StoreBusyError, StoreFileError

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "migrate", "open_database"]

APPLICATION_ID = 0x61667373  # "afss": agentframe session store
Synchronous = Literal["full", "normal"]


_V1_LOG = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    """CREATE TABLE sessions (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        entries INTEGER NOT NULL DEFAULT 0,
        title TEXT
    )""",
    "CREATE INDEX sessions_by_update ON sessions (updated_at)",
    # `seq` is the arrival order (the tie-break of created_at); origin and meta are JSON, NULL
    # for None and {}. Subsumed entries stay: history is auditable and exportable.
    """CREATE TABLE entries (
        seq INTEGER PRIMARY KEY,
        session INTEGER NOT NULL REFERENCES sessions (key),
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_call_id TEXT,
        tool_name TEXT,
        tag TEXT,
        origin TEXT,
        meta TEXT,
        created_at INTEGER NOT NULL,
        pending INTEGER NOT NULL DEFAULT 0,
        subsumed INTEGER NOT NULL DEFAULT 0,
        UNIQUE (session, id)
    )""",
    # Only visible entries are in this index: reading the context of a compacted session costs
    # its visible entries, however many are stored.
    """CREATE INDEX entries_visible ON entries (session, created_at)
        WHERE pending = 0 AND subsumed = 0""",
    "CREATE INDEX entries_pending ON entries (session, created_at) WHERE pending = 1",
)

_V2_SEARCH = (
    """CREATE VIRTUAL TABLE entries_fts USING fts5 (
        content, content = 'entries', content_rowid = 'seq',
        tokenize = 'unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
        INSERT INTO entries_fts (rowid, content) VALUES (new.seq, new.content);
    END""",
    """CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
        INSERT INTO entries_fts (entries_fts, rowid, content)
        VALUES ('delete', old.seq, old.content);
    END""",
    """CREATE TRIGGER entries_fts_update AFTER UPDATE OF content ON entries BEGIN
        INSERT INTO entries_fts (entries_fts, rowid, content)
        VALUES ('delete', old.seq, old.content);
        INSERT INTO entries_fts (rowid, content) VALUES (new.seq, new.content);
    END""",
    "INSERT INTO entries_fts (entries_fts) VALUES ('rebuild')",  # index what v1 stored
)

# Rows of `entries` never change but for their flags, so a reader may keep decoded entries by
# `seq` -- unless rows are deleted: SQLite may then give a new row a deleted row's seq. Every
# deletion bumps `generation`, and a reader that sees it move forgets what it decoded.
_V3_GENERATION = (
    "CREATE TABLE generation (n INTEGER NOT NULL)",
    "INSERT INTO generation (n) VALUES (0)",
    """CREATE TRIGGER entries_generation AFTER DELETE ON entries BEGIN
        UPDATE generation SET n = n + 1;
    END""",
)

# The turn lease of each session (one turn at a time across processes), and the tombstone of a
# session deleted while its lease was live: `revoked = 1` until the holder releases it or it
# expires (`expires_at`, wall-clock ns). Keyed by session id: a lease may precede the session.
_V4_LEASES = (
    """CREATE TABLE leases (
        session TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
)

#: `MIGRATIONS[v]`: the statements that take a file from schema version v to v + 1.
MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1_LOG, _V2_SEARCH, _V3_GENERATION, _V4_LEASES)
SCHEMA_VERSION = len(MIGRATIONS)


def open_database(
    path: Path, *, busy_timeout: float, synchronous: Synchronous
) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the store at `path`; refuse what is not ours."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        create_private(path)  # sessions hold prompts and answers: 0600, as its WAL files
        db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise StoreFileError(f"{path}: cannot open the session store: {err}") from err
    try:
        _identify(db, path)
        _use_wal(db, path, busy_timeout)
        db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        db.execute("PRAGMA foreign_keys = ON")
        migrate(db, path)
    except sqlite3.DatabaseError as err:
        db.close()
        if getattr(err, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise StoreBusyError(
                f"{path}: another process held the database locked for more than "
                f"{busy_timeout:g} s while opening it (`store.busy_timeout`)"
            ) from err
        raise StoreFileError(f"{path}: not a usable SQLite database: {err}") from err
    except BaseException:
        db.close()
        raise
    return db


def _use_wal(db: sqlite3.Connection, path: Path, busy_timeout: float) -> None:
    """Switch the file to WAL mode (see the kernel's `use_wal`), or say why it cannot be."""
    mode = use_wal(db, busy_timeout)
    if mode != "wal":
        raise StoreFileError(
            f"{path}: SQLite cannot use WAL mode here (journal mode stays {mode!r}); "
            "put the store on a local file system (`store.path`)"
        )


def _identify(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not ours, or is newer than us, before writing anything to it."""
    db.execute("BEGIN")  # one snapshot: another process may be creating the schema right now
    try:
        application_id, version, tables = db.execute(
            "SELECT application_id, user_version, (SELECT count(*) FROM sqlite_master) "
            "FROM pragma_application_id, pragma_user_version"
        ).fetchone()
    finally:
        db.execute("COMMIT")
    if application_id not in (0, APPLICATION_ID):
        raise StoreFileError(
            f"{path}: not an agentframe session store (application_id {application_id:#x}); "
            "set `store.path` to another file"
        )
    if application_id == 0 and tables:
        raise StoreFileError(
            f"{path}: a SQLite database of something else (it has tables, but is not an "
            "agentframe session store); set `store.path` to another file"
        )
    _check_version(version, path)


def _version(db: sqlite3.Connection) -> int:
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def _check_version(version: int, path: Path) -> None:
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            f"{path}: written by a newer agentframe-store-sqlite (schema version {version}; "
            f"this one reads up to {SCHEMA_VERSION}). The file was not modified. Upgrade with "
            "`pip install -U agentframe-store-sqlite`, or set `store.path` to another file."
        )


def migrate(db: sqlite3.Connection, path: Path, target: int = SCHEMA_VERSION) -> None:
    """Bring the file to schema version `target` in one transaction. Safe when several
    processes open a new file at once: the version is read again under the write lock."""
    if _version(db) >= target:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _version(db)
        _check_version(version, path)
        for step in range(version, target):
            for statement in MIGRATIONS[step]:
                db.execute(statement)
        if version < target:
            db.execute(f"PRAGMA user_version = {target}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
