"""`agentframe chat` as a real subprocess: Ctrl-C with piped stdin, and failed turns (issue 12,
item 7)."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from agentframe_core.testing import eventually


def _chat(workdir: Path, config: str) -> subprocess.Popen[str]:
    (workdir / "agentframe.yaml").write_text(config + f"store: {{use: jsonl, dir: {workdir}/s}}\n")
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(workdir / "cache"), "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "agentframe_core", "chat"],
        cwd=workdir,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_with_piped_stdin_leaves_cleanly(tmp_path: Path) -> None:
    """As in a terminal: Ctrl-C reaches the whole pipeline (`sleep 30 | agentframe chat`),
    so the chat's stdin ends while it handles the signal. It crashed 3 times out of 3."""
    config = f"adapter: {{use: scripted, replies: [hi]}}\nstore: {{use: jsonl, dir: {tmp_path}}}\n"
    (tmp_path / "agentframe.yaml").write_text(config)
    env = {**os.environ, "AGENTFRAME_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    pipeline = f"sleep 30 | {shlex.quote(sys.executable)} -m agentframe_core chat; echo exit=$?"
    for _ in range(3):
        shell = subprocess.Popen(
            ["bash", "-c", pipeline],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _wait_until_reading(shell.pid)
            os.killpg(shell.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
            out, err = shell.communicate(timeout=20)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shell.pid, signal.SIGKILL)
        assert "Fatal Python error" not in err and "Traceback" not in err, err
        assert "exit=0" in out, (out, err)


def _wait_until_reading(shell: int) -> None:
    """Until the chat's stdin reader thread is blocked reading the empty pipe: the chat has
    then installed its SIGINT handler (it does so before starting the reader)."""
    eventually(lambda: _blocked_on_a_pipe(shell), 60, what="the chat to read its stdin")


def _blocked_on_a_pipe(shell: int) -> bool:
    for pid in _children(shell):
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                wchan = Path(f"/proc/{pid}/task/{task}/wchan").read_text()
                if wchan.endswith("pipe_read"):  # anon_pipe_read on newer kernels
                    return True
    return False


def test_a_failed_turn_prints_its_error_and_the_chat_goes_on(tmp_path: Path) -> None:
    chat = _chat(tmp_path, "adapter: {use: scripted, replies: [first answer]}\n")
    try:
        out, err = chat.communicate("one\ntwo\nthree\n/exit\n", timeout=60)
    finally:
        chat.kill()
    assert "first answer" in out
    assert err.count("no reply left") == 2, err  # "two" failed, and "three" was still read
    assert "Traceback" not in err
    assert chat.returncode == 0, err


def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []
