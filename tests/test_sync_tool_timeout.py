"""A timed-out sync tool frees the run and the process; `isolate: true` also stops it
(issue 12, item 9). Real `agentframe run` processes.

The tool blocks until a writer opens its FIFO, which no one does: it never ends by itself,
so no timing margin decides these tests. A process that waited for it would never exit (the
subprocess timeout fails the test); a tool still alive after its run is seen at once, by
opening the FIFO for writing without blocking (it fails with ENXIO only when no one holds
the FIFO open for reading)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

TOOLS = '''
import pathlib

def wait_for(fifo: str, mark: str) -> str:
    """Wait for a writer on the FIFO (none comes), then leave a mark."""
    with open(fifo):
        pathlib.Path(mark).write_text("released")
    return "released"

def rest(mark: str) -> str:
    """Leave a mark at once."""
    pathlib.Path(mark).write_text("rested")
    return "rested"
'''

#: Long enough for a loaded machine to start `agentframe run`; a process that waited for the
#: blocked tool would reach it, one that did not returns long before.
PROCESS_TIMEOUT = 180


def _run(
    tmp_path: Path,
    call: str,
    tool: str,
    options: str = "",
    script: str | None = None,
    timeout: int = 1,
) -> dict:
    (tmp_path / "blocking.py").write_text(TOOLS)
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        f"    - tool_calls: [{{name: {tool}, arguments: {call}}}]\n"
        "    - done\n"
        f"store: {{use: jsonl, dir: {tmp_path}/s}}\n"
        f"tools: [{{use: functions, import: ['blocking:{tool}']{options}}}]\n"
        f"limits: {{tool_timeout: {timeout}}}\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"),
    }
    argv = [sys.executable, "-m", "agentframe_core", "run", "--json", "go"]
    if script is not None:
        argv = [sys.executable, "-c", script]
    done = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=PROCESS_TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _blocked(tmp_path: Path, options: str = "", script: str | None = None) -> tuple[dict, Path]:
    fifo, mark = tmp_path / "fifo", tmp_path / "mark"
    os.mkfifo(fifo)
    call = f"{{fifo: {fifo}, mark: {mark}}}"
    return _run(tmp_path, call, "wait_for", options, script), fifo


def _someone_reads(fifo: Path) -> bool:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as err:
        if err.errno == errno.ENXIO:
            return False
        raise
    return True


def test_a_timed_out_sync_tool_does_not_hold_the_process(tmp_path: Path) -> None:
    result, _ = _blocked(tmp_path)
    assert result["reply"] == "done"
    assert "timed out after 1 s" in result["tool_calls"][0]["result"]
    assert not (tmp_path / "mark").exists()


def test_the_facade_returns_when_a_sync_tool_times_out(tmp_path: Path) -> None:
    script = (
        "import json, agentframe_core\n"
        "r = agentframe_core.run('go')\n"
        'print(json.dumps({"reply": r.reply}))\n'
    )
    result, _ = _blocked(tmp_path, script=script)
    assert result["reply"] == "done"


def test_an_isolated_sync_tool_is_killed_at_its_timeout(tmp_path: Path) -> None:
    result, fifo = _blocked(tmp_path, options=", isolate: true")
    assert "timed out after 1 s" in result["tool_calls"][0]["result"]
    assert not _someone_reads(fifo), "the isolated tool ran on after its timeout"
    assert not (tmp_path / "mark").exists()


def test_the_fifo_check_sees_a_reader(tmp_path: Path) -> None:
    """The check above can fail: while anyone holds the FIFO open for reading, it is seen."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert not _someone_reads(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert _someone_reads(fifo)
    finally:
        os.close(reader)


def test_an_isolated_tool_returns_its_result(tmp_path: Path) -> None:
    """The tool's process starts within its timeout, so this one is far beyond what a
    loaded machine needs to start Python (it was 1 s, and a child took 1.4 s)."""
    mark = tmp_path / "mark"
    result = _run(tmp_path, f"{{mark: {mark}}}", "rest", ", isolate: true", timeout=120)
    assert result["tool_calls"][0]["result"] == "rested"
    assert mark.read_text() == "rested"
