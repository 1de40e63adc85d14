"""`Bash`: one command in the project folder, in a process group of its own.

At its timeout the whole group gets SIGTERM, and SIGKILL a moment later, so a child that
ignores SIGTERM or a grandchild sleeping in the background goes too; when the command
exits, what it left running in its group is killed as well (a Bash call owns its
processes). A kernel watchdog stops the group if agentframe itself dies. With a sandbox
(`sandbox.py`) the group's leader is bubblewrap, whose death takes the whole sandbox with it
(the command runs in a session and a pid namespace of their own). Output is kept
in bounded memory: the first and last `cap` bytes of each stream, with the count of what
was cut between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any, TypeVar

from agentframe_core import ToolResult, head_tail, start_watchdog

from .project import ToolError
from .sandbox import UNSANDBOXED, SandboxOptions, sandbox_argv

__all__ = ["run_command"]

#: Seconds between SIGTERM and SIGKILL, and that output may still arrive after the exit.
_GRACE = 1.0
_DRAIN = 0.5
_CHUNK = 1 << 16

T = TypeVar("T")


@dataclass(slots=True)
class _Capped:
    """The first and last `cap` bytes of a stream, and how many were dropped between."""

    cap: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, data: bytes) -> None:
        room = self.cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > 2 * self.cap:
            cut = len(self.tail) - self.cap
            self.dropped += cut
            del self.tail[:cut]

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[... {self.dropped} bytes of output omitted ...]\n{tail}"


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    output_chars: int,
    sandbox: SandboxOptions = UNSANDBOXED,
) -> ToolResult:
    """Run `command`, in `sandbox` when it is enabled (a `SandboxUnavailableError` when it
    cannot be made: never unsandboxed instead); wait in daemon threads (not asyncio's child
    watcher, whose `wait` also waits for every holder of the output pipes, a background
    grandchild included)."""
    shell = shutil.which("bash") or "/bin/sh"
    argv = [shell, "-c", command]
    if sandbox.enabled:
        argv = await asyncio.to_thread(sandbox_argv, argv, cwd, sandbox)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            process_group=0,
        )
    except OSError as error:  # the project folder is gone, no process can be started
        raise ToolError(f"cannot start {shell} in {cwd}: {error.strerror or error}") from None
    watchdog = None if sandbox.enabled else _watchdog(proc.pid)
    out, err = _Capped(output_chars), _Capped(output_chars)
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    readers = [
        _settled(partial(_drain, proc.stdout, out)),
        _settled(partial(_drain, proc.stderr, err)),
    ]
    exited = _settled(proc.wait)
    timed_out = False
    try:
        try:
            await asyncio.wait_for(asyncio.shield(exited), timeout)
        except TimeoutError:
            timed_out = True
            _kill_group(proc.pid, signal.SIGTERM)
            for _ in range(int(_GRACE / 0.05)):  # time to clean up, for every member
                if not _group_alive(proc.pid):
                    break
                await asyncio.sleep(0.05)
            _kill_group(proc.pid, signal.SIGKILL)  # the ones that ignored SIGTERM
        await asyncio.wait(readers, timeout=_DRAIN)  # output still in the pipes after the exit
    finally:
        _kill_group(proc.pid, signal.SIGKILL)  # what is left: at the timeout, or left behind
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        if watchdog is not None and watchdog.stdin is not None:
            watchdog.stdin.close()  # it exits by itself; the thread below reaps it
            _thread(watchdog.wait)
    meta = {"exit_code": proc.returncode, "timed_out": timed_out, "sandboxed": sandbox.enabled}
    return _result(out.text(), err.text(), meta, timeout, output_chars)


def _watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    """The kernel's watchdog of an unsandboxed command's group (a sandbox needs none:
    bubblewrap's `--die-with-parent` kills it with agentframe)."""
    try:
        return start_watchdog(pgid, _GRACE)
    except PermissionError:  # the group is gone already: the command ran and left nothing
        return None


def _thread(target: Callable[..., object], *args: object) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _drain(stream: IO[bytes], into: _Capped) -> None:
    with stream:
        while chunk := os.read(stream.fileno(), _CHUNK):
            into.add(chunk)


def _settled(target: Callable[[], T]) -> asyncio.Future[T]:
    """A future of what `target` returns, run in a daemon thread (asyncio's own executor
    would be held by a call that never returns)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(value: T) -> None:
        if not done.done():
            done.set_result(value)

    def run() -> None:
        value = target()
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, value)

    _thread(run)
    return done


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _result(stdout: str, stderr: str, meta: dict[str, Any], timeout: float, cap: int) -> ToolResult:
    """Claude Code's shape: stdout, then stderr; a failure says its exit code first."""
    code, timed_out = meta["exit_code"], meta["timed_out"]
    parts = [stdout.lstrip("\n").rstrip(), stderr.strip()]
    if timed_out:
        parts.append(f"Command timed out after {timeout:g} s; its process group was killed.")
    text = head_tail("\n".join(p for p in parts if p), cap)
    if timed_out:
        return ToolResult(text, is_error=True, meta=meta)
    if code:
        return ToolResult(f"Exit code {code}\n{text}".rstrip(), is_error=True, meta=meta)
    return ToolResult(text or "(no output)", meta=meta)
