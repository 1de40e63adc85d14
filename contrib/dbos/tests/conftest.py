from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agentframe_store_postgres.testing import postgres_dsn

from agentframe_core.testing import cli_command, cli_env, run_cli

__all__ = ["agentframe", "dbos_worker", "postgres_dsn"]

#: Seconds a worker has to say it is ready (it may create and migrate its system database).
READY_TIMEOUT = 120


def start_dbos_worker(
    cfg: Path,
    env: Mapping[str, str],
    *options: str,
    poll_interval: float = 0.2,
    ready: bool = True,
) -> subprocess.Popen[str]:
    """`agentframe --config CFG worker OPTIONS` in `cfg`'s folder, with `env` added to
    `run_cli`'s environment; with `ready`, once it has said so (its `worker ... on queue`
    stderr line, after any `took over N run(s)`): DBOS has then migrated its system database."""
    worker = subprocess.Popen(
        cli_command(
            "--config", str(cfg), "worker", "--poll-interval", str(poll_interval), *options
        ),
        cwd=cfg.parent,
        env={**cli_env(cfg.parent), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if ready:
        _wait_ready(worker)
    return worker


def _wait_ready(worker: subprocess.Popen[str]) -> None:
    """Read the worker's stderr up to its ready line; a worker silent for READY_TIMEOUT
    seconds is killed, which ends the reading."""
    assert worker.stderr is not None
    said: list[str] = []
    watchdog = threading.Timer(READY_TIMEOUT, worker.kill)
    watchdog.start()
    try:
        while not (line := worker.stderr.readline()).startswith("worker "):
            said.append(line)
            if not line:
                pytest.fail(f"the worker was not ready: {''.join(said)[-3000:]}")
    finally:
        watchdog.cancel()


@pytest.fixture
def dbos_worker() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """`start_dbos_worker`, each worker it started killed after the test if still running."""
    started: list[subprocess.Popen[str]] = []

    def start(
        cfg: Path,
        env: Mapping[str, str],
        *options: str,
        poll_interval: float = 0.2,
        ready: bool = True,
    ) -> subprocess.Popen[str]:
        worker = start_dbos_worker(cfg, env, *options, poll_interval=poll_interval, ready=ready)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        if worker.poll() is None:
            worker.kill()
        worker.wait(30)
        if worker.stderr is not None:
            worker.stderr.close()


@dataclass
class DbosCli:
    """The `agentframe` CLI on one config and one DBOS system database (SQLite), as a user
    runs it: each command a real subprocess (`run_cli` in the config's folder, with `env`
    added), the worker a real process of its own."""

    cfg: Path
    env: dict[str, str] = field(default_factory=dict)

    def __call__(self, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
        cfg = str(config or self.cfg)
        return run_cli(self.cfg.parent, "--config", cfg, *args, env=self.env, timeout=120)

    def start_worker(self, *options: str) -> subprocess.Popen[str]:
        """A worker (with `options`) that has said it is ready."""
        return start_dbos_worker(self.cfg, self.env, *options)

    @contextmanager
    def worker(self, *options: str) -> Iterator[subprocess.Popen[str]]:
        """A ready worker, stopped on exit (a stopping worker flushes its spans)."""
        worker = self.start_worker(*options)
        try:
            yield worker
        finally:
            worker.terminate()
            worker.wait(30)


@pytest.fixture
def agentframe(tmp_path: Path) -> DbosCli:
    """The CLI on `tmp_path/agentframe.yaml` (the test writes it) and a SQLite system
    database in `tmp_path`, with HOME there too."""
    env = {"AGENTFRAME_DBOS_URL": f"sqlite:///{tmp_path / 'dbos.sqlite'}", "HOME": str(tmp_path)}
    return DbosCli(tmp_path / "agentframe.yaml", env)
