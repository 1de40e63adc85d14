"""issue 23 #15: two workers under one executor id both ran the id's runs (a side-effecting
tool ran 3 times). A worker takes its id's lease in the system database before it launches:
a second live one is refused (a named error, exit 1); a dead one's lease is taken over at
once on the same host, and expires for a holder elsewhere. On SQLite and on PostgreSQL."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from agentframe_core.testing import eventually


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'dbos.sqlite'}"
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    name = f"lease_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}".encode())
    yield dsn.replace("/postgres", f"/{name}")


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    file = tmp_path / "agentframe.yaml"
    file.write_text(f"adapter: scripted\nstore: {{use: sqlite, path: {tmp_path / 's.db'}}}\n")
    return file


Workers = Callable[..., subprocess.Popen[str]]


def _env(cfg: Path, url: str) -> dict[str, str]:
    return {"AGENTFRAME_DBOS_URL": url, "HOME": str(cfg.parent)}


def _refused(worker: subprocess.Popen[str]) -> str:
    _, err = worker.communicate(timeout=90)
    assert worker.returncode == 1, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_second_live_worker_with_the_same_id_is_refused(
    cfg: Path, url: str, dbos_worker: Workers
) -> None:
    env = _env(cfg, url)
    first = dbos_worker(cfg, env, "--executor-id", "w1")
    try:
        err = _refused(dbos_worker(cfg, env, "--executor-id", "w1", ready=False))
        assert "executor id 'w1' is in use by a live worker" in err
        assert f"pid {first.pid}" in err
        assert first.poll() is None  # the first one goes on
        other = dbos_worker(cfg, env, "--executor-id", "w2")  # another id is fine
        other.terminate()
        other.wait(30)
    finally:
        first.terminate()
        first.wait(30)
    again = dbos_worker(cfg, env, "--executor-id", "w1")  # a clean stop gave the lease back
    again.terminate()
    again.wait(30)


def test_a_killed_workers_id_is_free_at_once_on_the_same_host(
    cfg: Path, url: str, dbos_worker: Workers
) -> None:
    first = dbos_worker(cfg, _env(cfg, url))
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    started = time.monotonic()
    second = dbos_worker(cfg, _env(cfg, url))
    assert time.monotonic() - started < 30  # it did not wait out the 30-second lease
    second.terminate()
    second.wait(30)


def test_a_lease_held_elsewhere_expires(cfg: Path, url: str, dbos_worker: Workers) -> None:
    env = _env(cfg, url)
    warm = dbos_worker(cfg, env)  # creates the system database and the lease table
    warm.terminate()
    warm.wait(30)
    _sql(url, "INSERT INTO {table} VALUES ('remote', 'h', 'elsewhere/1', 1, {now} + 120)")
    err = _refused(dbos_worker(cfg, env, "--executor-id", "remote", ready=False))
    assert "in use by a live worker (pid 1 on elsewhere" in err
    _sql(url, "UPDATE {table} SET expires_at = {now} + 2")  # its holder stopped renewing
    expired = "SELECT count(*) FROM {table} WHERE expires_at < {now}"
    eventually(lambda: _sql(url, expired) == (1,), 60, what="the lease to expire")
    later = dbos_worker(cfg, env, "--executor-id", "remote")
    later.terminate()
    later.wait(30)


def _sql(url: str, sql: str) -> tuple[object, ...] | None:
    """Run `sql` on the lease table, as another host's worker would hold its lease; its
    first row."""
    if url.startswith("sqlite"):
        now = "(julianday('now') - 2440587.5) * 86400.0"
        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as db, db:
            row: tuple[object, ...] | None = db.execute(
                sql.format(table="agentframe_executor_leases", now=now)
            ).fetchone()
            return row
    now = "extract(epoch from clock_timestamp())"
    with psycopg.connect(url, autocommit=True) as db:
        cursor = db.execute(sql.format(table="agentframe_executor_leases", now=now).encode())
        return cursor.fetchone() if cursor.description else None
