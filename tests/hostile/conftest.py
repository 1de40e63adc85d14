"""Hostile input through the real CLI: a subprocess capped at 1.5 GB of memory and a
timeout, whose stderr must name the problem and never show a traceback."""

from __future__ import annotations

import resource
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentframe_core.testing import run_cli

MEMORY_CAP = 1536 * 1024 * 1024
#: Startup on a loaded two-core machine takes a few seconds of its own; the work that the
#: limits bound must not add more than that.
TIMEOUT = 20.0

Hostile = Callable[..., subprocess.CompletedProcess[str]]


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """`hostile(*args, cwd=..., input=...)`: `agentframe ARGS` that must end by itself,
    within the memory cap, with no traceback; returns the finished process."""

    def run(*args: str | bytes, cwd: Path | None = None, **kwargs: Any) -> Any:
        done = run_cli(
            cwd or tmp_path,
            *args,  # type: ignore[arg-type]
            timeout=TIMEOUT,
            preexec_fn=_cap_memory,
            errors="replace",
            **kwargs,
        )
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        assert "MemoryError" not in done.stderr and "RecursionError" not in done.stderr
        return done

    return run
