"""`agentframe mcp serve` as a real process for the tests: a project to serve, its
environment, the HTTP server started on a free port and its URL read from the line it prints."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

AGENT = """---
name: helper
description: Answers arithmetic questions briefly.
---
You answer in one sentence.
"""

ANSWER = {"content": "The answer is 42.", "usage": {"prompt_tokens": 11, "completion_tokens": 5}}


def write_project(folder: Path, replies: list[Any] | None = None, **config: Any) -> Path:
    """Agents `helper` and `other`, scripted replies (cycled), sessions in SQLite."""
    agents = folder / ".agentframe" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(AGENT)
    (agents / "other.md").write_text(AGENT.replace("helper", "other"))
    config = {
        "adapter": {"use": "scripted", "cycle": True, "replies": replies or [ANSWER]},
        "store": {"use": "sqlite", "path": str(folder / "sessions.db")},
        **config,
    }
    (folder / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return folder


def environment(cwd: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENTFRAME_CONFIG"}
    return env | {"AGENTFRAME_CACHE_DIR": str(cwd / "cache")}


def serve_http(cwd: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """`mcp serve ARGS --http 0` in `cwd`; its URL, read from the line it prints (the rest of
    its stderr is read on, so it never blocks on a full pipe)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "agentframe_core", "mcp", "serve", *args, "--http", "0"],
        cwd=cwd,
        env=environment(cwd),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()  # the first line, or "" if it died first
    match = re.fullmatch(r"listening on (http://127\.0\.0\.1:(\d+)/mcp)\n", line)
    if match is None:
        stop(process)
        raise AssertionError(f"no listening line, got {line!r}: {process.stderr.read()}")
    threading.Thread(target=process.stderr.read, daemon=True).start()
    return process, match[1]


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:`port`."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def stop(process: subprocess.Popen[Any]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
