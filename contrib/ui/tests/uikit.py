"""What the UI tests share: a project on a scripted stack (agents `helper` and `other`, the
`add` tool and sub-agents, sessions in SQLite), sessions seeded through the real store, a
real tracing plugin's local trace store, and `agentframe serve` as a real process (a
module of its own: `conftest` is not importable by name once several test folders have one)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import yaml

from agentframe_core import Compaction, Entry, EntryKind, PluginHost, build_stack, load_config
from agentframe_core.testing import eventually

HERE = Path(__file__).parent
AGENT = "---\nname: {name}\ndescription: {name} helps.\n---\nYou answer briefly.\n"


def write_project(root: Path, replies: list[Any]) -> Path:
    agents = root / ".agentframe" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    for name in ("helper", "other"):
        (agents / f"{name}.md").write_text(AGENT.format(name=name))
    config = {
        "adapter": {"use": "scripted", "replies": replies},
        "store": {"use": "sqlite", "path": str(root / "sessions.db")},
        "tools": [
            {"use": "functions", "import": ["agentframe_core.examples:add", "uitools:remove"]},
            {"use": "subagents"},
        ],
        # the real tracing plugin (agentframe-otel): spans into the local trace store, under
        # the test's own data folder (XDG_DATA_HOME below), prompts and replies captured
        "telemetry": {"capture_content": True},
        # a secret the stack page must show masked
        "serve": {"public_url": "https://ui:hunter2@agents.example.org"},
    }
    (root / "agentframe.yaml").write_text(yaml.safe_dump(config))
    shutil.copytree(HERE / "data" / "kg", root / "kg", dirs_exist_ok=True)
    return root


async def _seed(
    root: Path, sessions: dict[str, list[Entry]], compact: dict[str, int], owner: str
) -> None:
    plugins = PluginHost()
    stack = build_stack(load_config(plugins, root / "agentframe.yaml"), plugins)
    async with stack:
        for name, entries in sessions.items():
            for entry in entries:
                await stack.store.append(f"{owner}.{name}", entry)
            if name in compact:
                folded = entries[: compact[name]]
                summary = Entry(
                    kind=EntryKind.COMPACTION,
                    content="The user asked about rivers; the assistant named the Danube.",
                    tag="shaper",
                    created_at=folded[-1].created_at + 1,
                    meta={"subsumed": len(folded)},
                )
                await stack.store.compact(
                    f"{owner}.{name}", Compaction(summary, frozenset(e.id for e in folded))
                )


def seed(
    root: Path, sessions: dict[str, list[Entry]], compact: dict[str, int], owner: str = "local"
) -> None:
    """Write `owner`'s `sessions` (ids as a client sees them) into the project's store,
    compacting the first `compact[id]` entries of those named there. (In a thread of its own:
    playwright's sync API keeps an event loop running in this one.)"""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _seed(root, sessions, compact, owner)).result()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def environment(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTFRAME_CONFIG",)}
    env.pop("AGENTFRAME_SERVE_API_KEYS", None)
    return env | {
        "AGENTFRAME_CACHE_DIR": str(root / "cache"),
        "XDG_DATA_HOME": str(root / "data"),
        "NO_COLOR": "1",
        # the tracing plugin's batch processor writes each run's spans soon after it ends
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_TRACES_EXPORTER": "none",
        "OTEL_METRICS_EXPORTER": "none",
        **extra,
    }


def start_serve(root: Path, *args: str, **env: str) -> tuple[subprocess.Popen[str], str]:
    """`agentframe serve` in `root` on a free port, once it answers /healthz."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "agentframe_core", "serve", "--port", str(port), *args],
        cwd=root,
        env=environment(root, **env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {process.communicate()[1]}")
        try:
            return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        eventually(healthy, 60, what="serve to answer /healthz")
    except AssertionError:
        process.kill()
        raise
    return process, url


def stop(process: subprocess.Popen[str]) -> str:
    """Stop the server; what it wrote on stderr."""
    if process.poll() is None:
        process.terminate()
    try:
        return process.communicate(timeout=20)[1]
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()[1]
