"""issue 23 #15: two workers under one executor id both ran the id's runs (a side-effecting
tool ran 3 times). A worker takes its id's lease in the system database before it launches:
a second live one is refused (a named error, exit 1); a dead one's lease is taken over at
once on the same host, and expires for a holder elsewhere. On SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

AGENTFRAME = Path(sys.executable).with_name("agentframe")


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


def _worker(cfg: Path, url: str, *options: str) -> subprocess.Popen[str]:
    command = [AGENTFRAME, "--config", cfg, "worker", "--poll-interval", "0.2", *options]
    env = {**os.environ, "AGENTFRAME_DBOS_URL": url, "HOME": str(cfg.parent)}
    return subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def _started(worker: subprocess.Popen[str]) -> None:
    assert worker.stderr is not None
    line = worker.stderr.readline()
    assert line.startswith("worker "), line + worker.stderr.read()[-2000:]


def _refused(worker: subprocess.Popen[str]) -> str:
    _, err = worker.communicate(timeout=90)
    assert worker.returncode == 1, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_a_second_live_worker_with_the_same_id_is_refused(cfg: Path, url: str) -> None:
    first = _worker(cfg, url, "--executor-id", "w1")
    try:
        _started(first)
        err = _refused(_worker(cfg, url, "--executor-id", "w1"))
        assert "executor id 'w1' is in use by a live worker" in err
        assert f"pid {first.pid}" in err
        assert first.poll() is None  # the first one goes on
        other = _worker(cfg, url, "--executor-id", "w2")  # another id is fine
        try:
            _started(other)
        finally:
            other.terminate()
            other.wait(30)
    finally:
        first.terminate()
        first.wait(30)
    again = _worker(cfg, url, "--executor-id", "w1")  # a clean stop gave the lease back
    try:
        _started(again)
    finally:
        again.terminate()
        again.wait(30)


def test_a_killed_workers_id_is_free_at_once_on_the_same_host(cfg: Path, url: str) -> None:
    first = _worker(cfg, url)
    _started(first)
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    second = _worker(cfg, url)
    try:
        started = time.monotonic()
        _started(second)
        assert time.monotonic() - started < 30  # it did not wait out the 30-second lease
    finally:
        second.terminate()
        second.wait(30)


def test_a_lease_held_elsewhere_expires(cfg: Path, url: str) -> None:
    warm = _worker(cfg, url)  # creates the system database and the lease table
    _started(warm)
    warm.terminate()
    warm.wait(30)
    _hold(url, "INSERT INTO {table} VALUES ('remote', 'h', 'elsewhere/1', 1, {now} + 120)")
    err = _refused(_worker(cfg, url, "--executor-id", "remote"))
    assert "in use by a live worker (pid 1 on elsewhere" in err
    _hold(url, "UPDATE {table} SET expires_at = {now} + 2")  # its holder stopped renewing
    time.sleep(2.5)
    later = _worker(cfg, url, "--executor-id", "remote")
    try:
        _started(later)
    finally:
        later.terminate()
        later.wait(30)


def _hold(url: str, sql: str) -> None:
    """Run `sql` on the lease table, as another host's worker would hold its lease."""
    if url.startswith("sqlite"):
        now = "(julianday('now') - 2440587.5) * 86400.0"
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            db.execute(sql.format(table="agentframe_executor_leases", now=now))
        return
    now = "extract(epoch from clock_timestamp())"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(sql.format(table="agentframe_executor_leases", now=now).encode())
