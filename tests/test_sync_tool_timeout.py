"""A timed-out sync tool frees the run and the process; `isolate: true` also stops it
(issue 12, item 9). Real `agentframe run` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

NAPPER = '''
import pathlib, time

def nap(seconds: float, mark: str) -> str:
    """Sleep, then leave a mark."""
    time.sleep(seconds)
    pathlib.Path(mark).write_text("the nap finished")
    return "rested"
'''


ISOLATE = ", isolate: true"
#: The tool sleeps this long: a process that waited for it cannot end sooner, however slow the
#: machine (start-up included), so returning sooner proves it did not wait.
NAP = 10


def _run(tmp_path: Path, isolate: bool, script: str | None = None) -> tuple[float, dict, Path]:
    (tmp_path / "napper.py").write_text(NAPPER)
    mark = tmp_path / "mark"
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        f"    - tool_calls: [{{name: nap, arguments: {{seconds: {NAP}, mark: {mark}}}}}]\n"
        "    - done\n"
        f"store: {{use: jsonl, dir: {tmp_path}/s}}\n"
        f"tools: [{{use: functions, import: ['napper:nap']{ISOLATE if isolate else ''}}}]\n"
        "limits: {tool_timeout: 1}\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"),
    }
    argv = [sys.executable, "-m", "agentframe_core", "run", "--json", "nap"]
    if script is not None:
        argv = [sys.executable, "-c", script]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    return elapsed, json.loads(done.stdout), mark


def test_a_timed_out_sync_tool_does_not_hold_the_process(tmp_path: Path) -> None:
    elapsed, result, _ = _run(tmp_path, isolate=False)
    assert result["reply"] == "done"
    assert "timed out after 1 s" in result["tool_calls"][0]["result"]
    assert elapsed < NAP, f"the process waited {elapsed:.1f} s for the {NAP} s tool"


def test_the_facade_returns_when_a_sync_tool_times_out(tmp_path: Path) -> None:
    script = (
        "import json, agentframe_core\n"
        "r = agentframe_core.run('nap')\n"
        'print(json.dumps({"reply": r.reply}))\n'
    )
    elapsed, result, _ = _run(tmp_path, isolate=False, script=script)
    assert result["reply"] == "done" and elapsed < NAP, elapsed


def test_an_isolated_sync_tool_is_killed_at_its_timeout(tmp_path: Path) -> None:
    elapsed, result, mark = _run(tmp_path, isolate=True)
    assert "timed out after 1 s" in result["tool_calls"][0]["result"]
    assert elapsed < NAP, elapsed
    time.sleep(NAP + 1 - elapsed)  # past the moment the nap would have ended
    assert not mark.exists(), "the isolated tool ran on after its timeout"


def test_an_isolated_tool_returns_its_result(tmp_path: Path) -> None:
    (tmp_path / "napper.py").write_text(NAPPER)
    mark = tmp_path / "mark"
    (tmp_path / "agentframe.yaml").write_text(
        "adapter:\n  use: scripted\n  replies:\n"
        f"    - tool_calls: [{{name: nap, arguments: {{seconds: 0, mark: {mark}}}}}]\n"
        "    - done\n"
        f"store: {{use: jsonl, dir: {tmp_path}/s}}\n"
        "tools: [{use: functions, import: ['napper:nap'], isolate: true}]\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "AGENTFRAME_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "agentframe_core", "run", "--json", "nap"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tool_calls"][0]["result"] == "rested"
    assert mark.read_text() == "the nap finished"
