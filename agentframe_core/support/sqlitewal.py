"""SQLite files that several processes open at once: WAL mode, switched on with retries;
and files only their owner may read (sessions and traces hold prompts and answers).

Standard library only, for the plugins that keep a SQLite file (the session store, the
memory retriever's index, the trace store).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

__all__ = ["create_private", "use_wal"]


def create_private(path: Path) -> None:
    """Create the database file `path`, empty, readable and writable by its owner only
    (0600), unless it exists (its mode is the owner's choice then). Call it before
    `sqlite3.connect`: SQLite gives the `-wal`, `-shm` and `-journal` files it creates the
    mode of the database file."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def use_wal(db: sqlite3.Connection, busy_timeout: float) -> str:
    """Switch the file of `db` to WAL mode (once in its life: the mode is stored in the file)
    and return the journal mode it has now: not "wal" where WAL cannot work (some network
    file systems).

    SQLite does not run its busy handler for this switch, so when several processes open a
    new file at once, the losers get "database is locked" at once: they retry here, within
    `busy_timeout` seconds."""
    deadline = time.monotonic() + busy_timeout
    pause = 0.001
    while True:
        try:
            mode = str(db.execute("PRAGMA journal_mode").fetchone()[0])
            if mode == "wal":
                return mode
            return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as err:
            busy = err.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
