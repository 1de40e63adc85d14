"""Helpers of the agentfs tests: drainer processes and their task folders. (Named uniquely: the
conftest puts this folder on `sys.path`.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from agentframe_agentfs import Folder
from agentframe_agentfs.liveness import read_beats

from agentframe_core.testing import eventually

HERE = Path(__file__).parent
BASE_DRAINER = HERE / "base_drainer.py"


def environment(cache: Path) -> dict[str, str]:
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(cache), "NO_COLOR": "1"}
    for name in ("AGENTFRAME_CONFIG", "AGENTFRAME_PROFILE", "AGENTFRAME_AGENTFS_DIR"):
        env.pop(name, None)
    return env


class DrainerProcess:
    """A drainer subprocess and its stderr log."""

    def __init__(self, process: subprocess.Popen[bytes], folder: Path, log: Path) -> None:
        self.process = process
        self.folder = folder
        self.log_path = log

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def logged(self, event: str) -> list[str]:
        """Task ids of this drainer's `claimed` or `answered` log lines (`-v` logs both)."""
        marker = f"agentframe_agentfs.drainer: {event} "
        return [
            line.split(marker, 1)[1].split()[0] for line in self.log.splitlines() if marker in line
        ]

    def answered(self) -> list[str]:
        return self.logged("answered")

    def claimed(self) -> list[str]:
        return self.logged("claimed")

    def wait_ready(self, timeout: float = 30.0) -> DrainerProcess:
        def beating() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"the drainer exited early:\n{self.log}")
            beats = read_beats(Folder(self.folder), with_info=True)
            return any(beat.info.get("pid") == self.pid for beat in beats)

        eventually(beating, timeout, what="the drainer's heartbeat")
        return self

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout)


def envelopes(folder: Path) -> list[dict[str, Any]]:
    """Every task envelope in the folder, oldest first."""
    tasks = [json.loads(p.read_text()) for p in (folder / "agent_inbox").glob("*.task.json")]
    return sorted(tasks, key=lambda task: task["created_at"])
