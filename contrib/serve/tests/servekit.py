"""What the serve tests share: a project on a scripted stack, free ports, the CLI's
command line and environment (a module of its own: `conftest` is not importable by name
once several test folders have one)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import yaml

from agentframe_core.testing import cli_env

HERE = Path(__file__).parent

AGENT = """---
name: {name}
description: {description}
---
You answer briefly.
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def write_project(
    root: Path,
    replies: list[Any],
    *,
    tools: list[str] | None = None,
    serve: Any = None,
    store: dict[str, Any] | None = None,
    extra_tools: list[dict[str, Any]] | None = None,
) -> Path:
    """A project: agents `helper` and `other`, scripted replies, sessions in SQLite, and
    `extra_tools` (dispatcher blocks) after the `functions` one."""
    agents = root / ".agentframe" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "helper.md").write_text(AGENT.format(name="helper", description="Helps."))
    (agents / "other.md").write_text(AGENT.format(name="other", description="Also helps."))
    config: dict[str, Any] = {
        "adapter": {"use": "scripted", "replies": replies},
        "store": store or {"use": "sqlite", "path": str(root / "sessions.db")},
        "tools": [
            {"use": "functions", "import": tools or ["agentframe_core.examples:add"]},
            *(extra_tools or []),
        ],
    }
    if serve is not None:
        config["serve"] = serve
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    return root


def environment(root: Path, **extra: str) -> dict[str, str]:
    """`run_cli`'s environment for a project at `root`, with these tools importable."""
    env = cli_env(root)
    path = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)
    return env | {"PYTHONPATH": path, **extra}
