"""One live worker per executor id: a lease row in the DBOS system database.

DBOS recovers a worker's pending runs when a worker of the same executor id launches, so two
live workers under one id both run them (a side-effecting tool ran 3 times). Before it
launches, a worker takes the lease of its id: a row `(executor_id, holder, host, pid,
expires_at)` in `agentframe_executor_leases`, renewed every third of `seconds` by a heartbeat
thread and deleted on a clean stop. A live holder's lease makes the new worker refuse to start
(`ExecutorInUseError`). A dead holder's lease expires after `seconds`; one on this host (same
host name, same PID namespace) whose process is gone is taken over at once, so a worker
restarted after `kill -9` starts without waiting. Times are the database's clock (PostgreSQL's
`clock_timestamp()`; SQLite is one machine), so skewed machines agree on expiry.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from agentframe_core import AgentframeError, pid_alive

__all__ = ["ExecutorInUseError", "ExecutorLease", "LeaseLostError", "host_identity"]

TABLE = "agentframe_executor_leases"
_CREATE = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    executor_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
)
"""
_NOW = {
    "postgresql": "extract(epoch from clock_timestamp())::double precision",
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
}


class ExecutorInUseError(AgentframeError):
    """A live worker holds this executor id's lease."""


class LeaseLostError(AgentframeError):
    """This worker's lease was taken or could not be renewed before it expired."""


def host_identity() -> str:
    """This host and PID namespace: a pid means the same process only within both."""
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = "-"
    return f"{socket.gethostname()}/{namespace}"


class ExecutorLease:
    """The lease of `executor_id` on the system database `engine` (a SQLAlchemy engine)."""

    def __init__(self, engine: Any, executor_id: str, seconds: float) -> None:
        self.engine, self.executor_id, self.seconds = engine, executor_id, seconds
        self.holder = secrets.token_hex(8)
        self.host, self.pid = host_identity(), os.getpid()
        self._now = _NOW["sqlite" if engine.dialect.name == "sqlite" else "postgresql"]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self, sql: str, **params: Any) -> Any:
        from sqlalchemy import text

        with self.engine.begin() as db:
            return db.execute(text(sql), {"id": self.executor_id, **params})

    def acquire(self) -> None:
        """Take the lease, or raise `ExecutorInUseError` naming who holds it and until when."""
        self._run(_CREATE)
        found = self._current()
        stale = None
        if found is not None and found["host"] == self.host and not pid_alive(found["pid"]):
            stale = found["holder"]  # its process is gone: no need to wait for the expiry
        self._run(
            f"""INSERT INTO {TABLE} (executor_id, holder, host, pid, expires_at)
            VALUES (:id, :holder, :host, :pid, {self._now} + :seconds)
            ON CONFLICT (executor_id) DO UPDATE SET holder = excluded.holder,
                host = excluded.host, pid = excluded.pid, expires_at = excluded.expires_at
            WHERE {TABLE}.expires_at <= {self._now} OR {TABLE}.holder = :stale""",
            holder=self.holder,
            host=self.host,
            pid=self.pid,
            seconds=self.seconds,
            stale=stale,
        )
        now = self._current()
        if now is None or now["holder"] != self.holder:
            held = now or found or {}
            raise ExecutorInUseError(
                f"executor id {self.executor_id!r} is in use by a live worker (pid "
                f"{held.get('pid')} on {str(held.get('host', '?')).split('/')[0]}; its lease "
                f"runs {held.get('left', 0):.0f} s more unless renewed): two workers under one "
                "id would both run its runs; give this one another --executor-id, or stop "
                "the other (a dead worker's lease expires)"
            )

    def _current(self) -> dict[str, Any] | None:
        row = self._run(
            f"SELECT holder, host, pid, expires_at - {self._now} FROM {TABLE} "
            "WHERE executor_id = :id"
        ).first()
        if row is None:
            return None
        return {"holder": row[0], "host": row[1], "pid": row[2], "left": float(row[3])}

    def renew(self) -> bool:
        """Push the expiry on; False when the lease is no longer ours."""
        done = self._run(
            f"UPDATE {TABLE} SET expires_at = {self._now} + :seconds "
            "WHERE executor_id = :id AND holder = :holder",
            seconds=self.seconds,
            holder=self.holder,
        )
        return bool(done.rowcount == 1)

    def keep(self, on_lost: Callable[[LeaseLostError], None]) -> None:
        """Renew every third of the lease in a thread; `on_lost` when it cannot."""

        def beat() -> None:
            last = time.monotonic()
            while not self._stop.wait(self.seconds / 3):
                try:
                    if self.renew():
                        last = time.monotonic()
                        continue
                    reason = "another worker took it over"
                except Exception as err:  # the database away for a moment: try again
                    if time.monotonic() - last < self.seconds * 2 / 3:
                        continue
                    reason = f"it could not be renewed ({type(err).__name__})"
                on_lost(LeaseLostError(f"executor id {self.executor_id!r}: lease lost: {reason}"))
                return

        self._thread = threading.Thread(target=beat, name="agentframe-lease", daemon=True)
        self._thread.start()

    def release(self) -> None:
        """Stop renewing and give the lease back (a restart need not wait for it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._run(
            f"DELETE FROM {TABLE} WHERE executor_id = :id AND holder = :holder",
            holder=self.holder,
        )
