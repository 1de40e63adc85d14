"""One `llama-server` process: spawned in its own process group with its log in a file,
waited on until `/health` answers, stopped with its whole group, and described by a small
state file so other agentframe processes (and `agentframe llama`) can find it. A server this
process owns has a watchdog (the kernel's `start_watchdog`) that stops it if this process dies."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

import httpx

from agentframe_core import atomic_write, pid_alive, start_watchdog

from .crash import describe_exit
from .errors import ServerStartError

__all__ = [
    "Server",
    "ServerRecord",
    "adopt",
    "free_port",
    "log_tail",
    "pid_alive",
    "spawn",
    "wait_healthy",
]

LOG_ROTATE_BYTES = 5 * 1024 * 1024
#: Seconds a server gets to exit on SIGTERM before SIGKILL.
STOP_GRACE = 10.0


@dataclass(frozen=True, slots=True)
class ServerRecord:
    """What the state file says about a running server."""

    name: str
    pid: int
    host: str
    port: int
    model: str
    log: str
    started_at: float
    #: The agentframe process that started it; None when `agentframe llama start` did.
    owner: int | None
    #: Seconds it is kept once no holder is left: 0, stopped with its owner; None, until
    #: `agentframe llama stop` (`llama start`). Its model and options, hashed (`options`).
    keep_alive: float | None = 0.0
    options: str = ""
    #: The agentframe processes using it, and when the last one let go (`warm.py`).
    holders: tuple[int, ...] = ()
    last_used: float = 0.0
    #: The working folder of the process that started it (whose server it is).
    cwd: str = ""

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def stops_at(self) -> float | None:
        """When an idle warm server stops (None: not idle, or not on a timer)."""
        if not self.keep_alive or self.holders:
            return None
        return self.last_used + self.keep_alive


class Server:
    def __init__(
        self,
        record: ServerRecord,
        process: subprocess.Popen[bytes] | None,
        watchdog: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.record = record
        self.process = process
        self.watchdog = watchdog

    @property
    def owned(self) -> bool:
        """Started by this process, to be stopped when it exits (not kept warm)."""
        record = self.record
        return self.process is not None and record.owner == os.getpid() and record.keep_alive == 0

    @property
    def base_url(self) -> str:
        return self.record.base_url

    @property
    def uptime(self) -> float:
        return time.time() - self.record.started_at

    def alive(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        return pid_alive(self.record.pid)

    def stop(self, timeout: float = STOP_GRACE) -> None:
        """SIGTERM the server's process group (its watchdog too), then SIGKILL what is left
        after `timeout`. Blocks while it waits: from async code, use `astop`."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.record.pid, sig)
            if self._wait(timeout):
                break
        if self.watchdog is not None:
            if self.watchdog.stdin is not None:
                self.watchdog.stdin.close()
            self.watchdog.wait()

    async def astop(self, timeout: float = STOP_GRACE) -> None:
        """`stop` in a worker thread, so the event loop runs on while the server exits."""
        await asyncio.to_thread(self.stop, timeout)

    def _wait(self, timeout: float) -> bool:
        if self.process is not None:
            try:
                self.process.wait(timeout)
                return True
            except subprocess.TimeoutExpired:
                return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not pid_alive(self.record.pid):
                return True
            time.sleep(0.05)
        return False


def free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _open_log(path: Path) -> IO[bytes]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    return open(path, "ab")


def spawn(
    name: str,
    command: list[str],
    *,
    host: str,
    port: int,
    model: Path,
    log: Path,
    keep_alive: float | None,
    options: str,
) -> Server:
    """Start `command` in its own process group, output appended to `log`. A server kept
    after this process (`keep_alive` None or above 0) gets its own session (it outlives this
    process and its terminal); one stopped with it gets a watchdog that stops it when this
    process dies, however it dies."""
    detached = keep_alive != 0
    with _open_log(log) as log_file:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log_file.write(f"\n=== agentframe {stamp}: {' '.join(command)}\n".encode())
        log_file.flush()
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=detached,
            process_group=None if detached else 0,
        )
        guard = None if detached else _watch(process, log_file)
    record = ServerRecord(
        name=name,
        pid=process.pid,
        host=host,
        port=port,
        model=str(model),
        log=str(log),
        started_at=time.time(),
        owner=None if keep_alive is None else os.getpid(),
        keep_alive=keep_alive,
        options=options,
        holders=() if keep_alive is None else (os.getpid(),),
        last_used=time.time(),
        cwd=os.getcwd(),
    )
    return Server(record, process, guard)


def _watch(process: subprocess.Popen[bytes], log_file: IO[bytes]) -> subprocess.Popen[bytes] | None:
    """Start the watchdog of `process`, in its process group (so in this session: hence
    `process_group=0`, not a new session, for owned servers)."""
    try:
        return start_watchdog(process.pid, STOP_GRACE, log_file)
    except OSError:
        if process.poll() is not None:
            return None  # the server died at once (no group to join): wait_healthy says why
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


async def wait_healthy(server: Server, timeout: float) -> None:
    """Poll `/health` until it answers 200; fail with the log's tail if the process exits
    or `timeout` passes (stopping the server is left to the caller, which does it once)."""
    url = f"{server.base_url}/health"
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(timeout=2.0) as client:
        while True:
            if not server.alive():
                code = server.process.returncode if server.process else None
                raise ServerStartError(
                    f"llama-server for model {server.record.name!r} {describe_exit(code)} "
                    f"while starting. The end of its log ({server.record.log}):\n"
                    + log_tail(Path(server.record.log), 15)
                )
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(url)).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"llama-server for model {server.record.name!r} did not become healthy "
                    f"within {timeout:g}s (raise start_timeout for big models). The end of its "
                    f"log ({server.record.log}):\n" + log_tail(Path(server.record.log), 15)
                )
            await asyncio.sleep(0.1)


def log_tail(path: Path, lines: int) -> str:
    try:
        with open(path, errors="replace") as handle:
            return "".join(deque(handle, maxlen=lines)).rstrip()
    except OSError:
        return "(no log)"


def write_state(path: Path, record: ServerRecord) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(asdict(record), indent=1))


def read_state(path: Path) -> ServerRecord | None:
    try:
        data = json.loads(path.read_text())
        data["holders"] = tuple(int(pid) for pid in data.get("holders", ()))
        return ServerRecord(**data)
    except (OSError, ValueError, TypeError, AttributeError):
        return None


async def adopt(path: Path, model: Path, options: str) -> Server | None:
    """The server a state file describes, if it still runs, serves `model` with these
    `options` (hashed) and is healthy; a stale state file is removed."""
    record = read_state(path)
    if record is None:
        return None
    if record.model == str(model) and record.options == options and pid_alive(record.pid):
        with contextlib.suppress(httpx.HTTPError):
            async with httpx.AsyncClient(timeout=2.0) as client:
                if (await client.get(f"{record.base_url}/health")).status_code == 200:
                    return Server(record, None)
    if not pid_alive(record.pid):
        path.unlink(missing_ok=True)
    return None
