from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from agentframe_store_postgres.testing import postgres_dsn

__all__ = ["agentframe", "postgres_dsn"]

AGENTFRAME = Path(sys.executable).with_name("agentframe")


@dataclass
class DbosCli:
    """The `agentframe` CLI on one config and one DBOS system database (SQLite), as a user
    runs it: each command a real subprocess, the worker a real process of its own."""

    cfg: Path
    env: dict[str, str] = field(default_factory=dict)

    def __call__(self, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
        command = [AGENTFRAME, "--config", config or self.cfg, *args]
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120)

    def start_worker(self, *options: str) -> subprocess.Popen[str]:
        """A worker (with `options`) that has said it is ready (its first stderr line)."""
        worker = subprocess.Popen(
            [AGENTFRAME, "--config", self.cfg, "worker", "--poll-interval", "0.2", *options],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert worker.stderr is not None
        said = []  # `took over N run(s)` comes first with --recover-executor
        while not (line := worker.stderr.readline()).startswith("worker "):
            said.append(line)
            if not line:  # the worker ended without saying it was ready
                pytest.fail("".join(said)[-3000:])
        return worker

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
    env = {
        **os.environ,
        "AGENTFRAME_DBOS_URL": f"sqlite:///{tmp_path / 'dbos.sqlite'}",
        "HOME": str(tmp_path),
    }
    return DbosCli(tmp_path / "agentframe.yaml", env)
