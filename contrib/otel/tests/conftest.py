"""A real OTLP receiver for the tests (the `receiver` fixture, and `received_spans`): Arize
Phoenix from PyPI, in a venv of its own.

Phoenix is large (about 850 MB installed), so it is installed once into
`<agentframe cache>/phoenix/<version>/` and reused; its own venv keeps its pins away from
the project's. It receives OTLP/HTTP at `/v1/traces` and shows the spans it stored over its
REST API (`/v1/projects/default/spans`): what a user's own backend would show.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from agentframe_otel.testing import span_exporter  # noqa: F401 (a fixture)

from agentframe_core import cache_dir
from agentframe_core.testing import eventually

VERSION = "20.26.1"
#: Starting Phoenix imports a large app; on a loaded two-core machine that takes minutes.
START_TIMEOUT = 600


def phoenix_python() -> Path:
    """The Python of the cached Phoenix venv, installing it first if need be."""
    home = cache_dir() / "phoenix" / VERSION
    python = home / "bin" / "python"
    done = home / ".installed"
    if done.is_file():
        return python
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f".{VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time; the others wait for it
        if not done.is_file():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", f"arize-phoenix=={VERSION}"],
                check=True,
            )
            done.write_text(VERSION)
    return python


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def phoenix(workdir: Path) -> Iterator[str]:
    """A running Phoenix receiver; yields its base URL."""
    port, grpc_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(workdir),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = open(workdir / "phoenix.log", "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [str(phoenix_python()), "-m", "phoenix.server.main", "serve"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            if process.poll() is not None:
                raise AssertionError((workdir / "phoenix.log").read_text()[-3000:])
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    return True
            except OSError:
                return False

        eventually(healthy, START_TIMEOUT, what="Phoenix to start")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def received_spans(url: str, trace_ids: set[str], count: int) -> list[dict[str, Any]]:
    """The spans Phoenix stored for these traces, once it has at least `count` of them."""

    def enough() -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{url}/v1/projects/default/spans?limit=1000", timeout=10) as r:
            spans = [s for s in json.load(r)["data"] if s["context"]["trace_id"] in trace_ids]
        return spans if len(spans) >= count else []

    return eventually(enough, 60, what=f"{count} spans of traces {sorted(trace_ids)}")


@pytest.fixture(scope="session")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Phoenix receiver for the whole session: its base URL."""
    with phoenix(tmp_path_factory.mktemp("phoenix")) as url:
        yield url


@pytest.fixture
def spans_received() -> Callable[[str, set[str], int], list[dict[str, Any]]]:
    return received_spans
