"""`agentframe run`: an unknown --session is said, and --json reports errors and Ctrl-C as
JSON (issue 12, small items)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from agentframe_core.testing import eventually
from agentframe_core.testing.cli import run_cli


def _config(tmp_path: Path, adapter: str) -> None:
    (tmp_path / "agentframe.yaml").write_text(
        f"adapter: {adapter}\nstore: {{use: jsonl, dir: {tmp_path}/s}}\n"
    )


def test_an_unknown_session_is_said_on_stderr_unless_new(tmp_path: Path) -> None:
    _config(tmp_path, "{use: scripted, cycle: true, replies: [hi]}")
    typo = run_cli(tmp_path, "run", "--session", "typo", "hello")
    assert typo.returncode == 0, typo.stderr
    assert "no session 'typo'" in typo.stderr and "--new" in typo.stderr
    again = run_cli(tmp_path, "run", "--session", "typo", "hello again")
    assert "no session" not in again.stderr  # it exists now
    fresh = run_cli(tmp_path, "run", "--session", "fresh", "--new", "hello")
    assert fresh.returncode == 0 and "no session" not in fresh.stderr


def test_json_errors_are_json_objects(tmp_path: Path) -> None:
    _config(tmp_path, "{use: scripted, replies: []}")  # the first model call fails
    failed = run_cli(tmp_path, "run", "--json", "hello")
    assert failed.returncode == 1
    error = json.loads(failed.stdout)["error"]
    assert error["type"] == "ScriptExhaustedError" and "no reply left" in error["message"]
    _config(tmp_path, "{use: scripted, no_such_option: 1}")
    bad = run_cli(tmp_path, "run", "--json", "hello")
    assert bad.returncode == 2
    error = json.loads(bad.stdout)["error"]
    assert error["type"] == "config" and any("no_such_option" in i for i in error["issues"])


def test_ctrl_c_with_json_prints_json_and_exits_130(tmp_path: Path) -> None:
    _config(tmp_path, "{use: scripted, replies: [{content: slow, delay: 30}]}")
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    run = subprocess.Popen(
        [sys.executable, "-m", "agentframe_core", "run", "--json", "hello"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        eventually(
            lambda: any('"op": "claim"' in p.read_text() for p in (tmp_path / "s").glob("*.jsonl")),
            60,
            what="the turn to start",
        )
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=20)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert json.loads(out)["error"]["type"] == "interrupted"
    assert "Traceback" not in err
