"""SQLite files that several processes open at once: WAL mode, switched on with retries.

Standard library only, for the plugins that keep a SQLite file (the session store, the
memory retriever's index).
"""

from __future__ import annotations

import sqlite3
import time

__all__ = ["use_wal"]


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
