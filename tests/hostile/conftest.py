"""Hostile input through the real CLI: a subprocess capped at 1.5 GB of memory and 20 s of
CPU, whose stderr must name the problem and never show a traceback."""

from __future__ import annotations

import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentframe_core.testing import run_cli

MEMORY_CAP = 1536 * 1024 * 1024
#: The bound on the work: CPU seconds, which a loaded machine does not stretch (at a load of
#: 10 a run took 15 s of wall time for 3 s of CPU). Over it the kernel kills the process.
CPU_CAP = 20
#: Only for a process that waits forever (a FIFO read, a lock): CPU time does not catch it.
TIMEOUT = 180.0

Hostile = Callable[..., subprocess.CompletedProcess[str]]


def _cap_memory_and_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_CAP, CPU_CAP + 1))


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """`hostile(*args, cwd=..., input=...)`: `agentframe ARGS` that must end by itself,
    within the memory cap, with no traceback; returns the finished process."""

    def run(*args: str | bytes, cwd: Path | None = None, **kwargs: Any) -> Any:
        done = run_cli(
            cwd or tmp_path,
            *args,  # type: ignore[arg-type]
            timeout=TIMEOUT,
            preexec_fn=_cap_memory_and_cpu,
            errors="replace",
            **kwargs,
        )
        assert done.returncode != -signal.SIGXCPU, f"over {CPU_CAP} s of CPU: {args}"
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        assert "MemoryError" not in done.stderr and "RecursionError" not in done.stderr
        return done

    return run
