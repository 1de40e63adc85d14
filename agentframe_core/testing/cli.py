"""Run the `agentframe` CLI as a user would: a real subprocess, isolated from the caller's
config and plugin cache."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["run_cli"]


def run_cli(
    cwd: Path,
    *args: str,
    timeout: float = 180,
    env: Mapping[str, str] | None = None,
    check: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess[str]:
    """`agentframe ARGS...` in `cwd`, with its cache in `cwd/cache` and its data (the default
    session database, memories) in `cwd/data`, no `$AGENTFRAME_CONFIG` and no colours; output
    captured as text. `env` adds variables (a store's DSN, `PYTHONPATH`); with `check`, an exit
    status other than 0 fails the test with the command's stderr."""
    done = subprocess.run(
        cli_command(*args),
        cwd=cwd,
        env={**cli_env(cwd), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )
    assert not check or done.returncode == 0, (
        f"agentframe {' '.join(args)} exited with status {done.returncode}: {done.stderr}"
    )
    return done


def cli_command(*args: str) -> list[str]:
    """The command line of `agentframe ARGS...` with this interpreter."""
    return [sys.executable, "-m", "agentframe_core", *args]


def cli_env(cwd: Path) -> dict[str, str]:
    """`run_cli`'s environment: this one, with the cache and data folders under `cwd`."""
    env = {
        **os.environ,
        "AGENTFRAME_CACHE_DIR": str(cwd / "cache"),
        "XDG_DATA_HOME": str(cwd / "data"),
        "NO_COLOR": "1",
    }
    env.pop("AGENTFRAME_CONFIG", None)
    return env
