"""A warm server: kept after its last user for `keep_alive` seconds, reused by later
processes, one server when several start at once, and stopped by its keeper when idle, also
after its owner was killed. Real processes, real llama-server."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentframe_llamacpp import LlamaRuntime
from agentframe_llamacpp.options import DEFAULT_MODEL
from agentframe_llamacpp.runtime import stop_state
from agentframe_llamacpp.server import pid_alive, read_state
from agentframe_llamacpp.testing import options_for_tests

from agentframe_core.testing import Child, eventually, start_together

CHILD = Path(__file__).with_name("warm_child.py")


@pytest.fixture
def state_dir(llama_runtime: LlamaRuntime, tmp_path: Path) -> Iterator[Path]:
    """A state folder of its own; whatever server is left in it is stopped afterwards."""
    folder = tmp_path / "llama"
    yield folder
    for state in folder.glob("*.json"):
        stop_state(state)


def state_file(state_dir: Path) -> Path:
    runtime = LlamaRuntime(options_for_tests(), state_dir=state_dir)
    return runtime.state_file(DEFAULT_MODEL)


def test_processes_starting_at_once_end_with_one_warm_server(state_dir: Path) -> None:
    said = start_together(
        [[sys.executable, CHILD, state_dir, "60", "race"] for _ in range(3)], timeout=180
    )
    pids = {int(lines[-1]) for lines in said}
    assert len(pids) == 1, f"three processes started {len(pids)} servers: {said}"
    (pid,) = pids
    assert pid_alive(pid), "the server must outlive the processes that used it"
    record = read_state(state_file(state_dir))
    assert record is not None and record.pid == pid
    assert record.holders == () and record.keep_alive == 60
    assert record.stops_at is not None and record.stops_at > time.time() + 30
    # a later process reuses it
    (again,) = start_together([[sys.executable, CHILD, state_dir, "60", "race"]], timeout=180)
    assert int(again[-1]) == pid
    # `llama start` on it: it runs until `llama stop`, off the idle timer
    runtime = LlamaRuntime(options_for_tests(), state_dir=state_dir)
    assert asyncio.run(runtime.start(DEFAULT_MODEL, detached=True)).record.pid == pid
    kept = read_state(state_file(state_dir))
    assert kept is not None and kept.keep_alive is None and kept.stops_at is None


def test_a_killed_owner_leaves_a_server_its_keeper_stops_when_idle(state_dir: Path) -> None:
    with Child([sys.executable, CHILD, state_dir, "3", "hold"]) as owner:
        line = owner.line(180)
        assert line is not None, owner.stderr()
        pid = int(line)
        record = read_state(state_file(state_dir))
        assert record is not None and record.holders == (owner.process.pid,)
        owner.kill()
    time.sleep(0.5)  # time on purpose: the server must not die with its holder meanwhile
    assert pid_alive(pid), "a killed holder must not take the warm server with it"
    eventually(lambda: not pid_alive(pid), 60, what="the idle server to be stopped")
    eventually(lambda: not state_file(state_dir).exists(), 30, what="its state file to go")
