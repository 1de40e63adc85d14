"""Real drainers in real processes: `agentframe agent-mode serve`, and a base-contract one.

Every drainer is a subprocess with its own cache folder; it is ready when its heartbeat file
(which names its pid) appears, and whatever a test leaves running is killed at teardown.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))

from agentfs_procs import BASE_DRAINER, DrainerProcess, environment


@pytest.fixture(autouse=True)
def _no_profile_or_folder_from_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's profile or agent-mode folder would steer every `run_cli` and drainer."""
    for name in ("AGENTFRAME_PROFILE", "AGENTFRAME_AGENTFS_DIR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def start_drainer(tmp_path: Path) -> Iterator[Callable[..., DrainerProcess]]:
    """Start `agentframe agent-mode serve` answering with the scripted adapter."""
    started: list[DrainerProcess] = []

    def start(
        folder: Path,
        replies: list[Any],
        *,
        workers: int = 1,
        heartbeat_interval: float = 0.1,
        stale_after: float = 2.0,
        ready: bool = True,
    ) -> DrainerProcess:
        n = len(started)
        config = tmp_path / f"drainer-{n}.yaml"
        config.write_text(
            yaml.safe_dump({"adapter": {"use": "scripted", "cycle": True, "replies": replies}})
        )
        log = tmp_path / f"drainer-{n}.log"
        command = [
            sys.executable, "-m", "agentframe_core", "-v", "agent-mode", "serve",
            "--config", str(config), "--dir", str(folder), "--workers", str(workers),
            "--heartbeat-interval", str(heartbeat_interval), "--stale-after", str(stale_after),
            "--poll-interval", "0.2",
        ]  # fmt: skip
        with open(log, "wb") as stderr:
            process = subprocess.Popen(
                command,
                stderr=stderr,
                stdout=subprocess.DEVNULL,
                env=environment(tmp_path / "cache"),
            )
        drainer = DrainerProcess(process, folder, log)
        started.append(drainer)
        return drainer.wait_ready() if ready else drainer

    yield start
    for drainer in started:
        if drainer.process.poll() is None:
            drainer.process.kill()
            drainer.process.wait(10)


@pytest.fixture
def start_base_drainer(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start `base_drainer.py`, which knows only the base contract, with one of its rules."""
    started: list[subprocess.Popen[bytes]] = []

    def start(folder: Path, rule: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, str(BASE_DRAINER), str(folder), rule],
            env=environment(tmp_path / "cache"),
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)
