"""The stdio transport: one server process in its own process group, its stderr in the log.

The SDK's `stdio_client` gives a server 2 s after stdin closes, then 2 s after SIGTERM: up to
6 s per server, too long for a stack that must close in 2 s. Here every wait is bounded by one
`grace` budget, the whole group is killed (children too), and stderr lines go to the
`agentframe.mcp.<server>` logger instead of the terminal. A server that ignores end of file
on stdin would outlive an agentframe killed with SIGKILL: the kernel's watchdog, in the
server's process group, stops the group then.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from agentframe_core import pid_alive, start_watchdog

__all__ = ["StdioProcess", "open_stdio"]

#: One JSON-RPC line may not exceed this (a hostile server cannot exhaust memory).
MAX_LINE = 32 * 1024 * 1024
#: Of the server's stderr, lines longer than this are cut in the log.
MAX_LOG_LINE = 4096


class StdioProcess:
    """The running server process, for the connection to watch and to stop."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        name: str,
        watchdog: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.process = process
        self.name = name
        self.watchdog = watchdog
        #: Set when its stdout closed or it exited: the connection is over.
        self.gone = asyncio.Event()
        #: Its last stderr lines, for error messages (`agentframe doctor`).
        self.stderr_tail: deque[str] = deque(maxlen=5)
        self.cut: str | None = None  # why agentframe disconnected it, if it did

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def stop(self, grace: float) -> None:
        """Close stdin, then SIGTERM, then SIGKILL the group: done within `grace` seconds."""
        process, loop = self.process, asyncio.get_running_loop()
        deadline = loop.time() + grace
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        for sig, share in ((None, 0.4), (signal.SIGTERM, 0.7), (signal.SIGKILL, 1.0)):
            if sig is not None:
                self._signal_group(sig)
            left = deadline - loop.time()
            wait = left * share if sig is not signal.SIGKILL else left
            if await self.wait_exit(max(wait, 0.0)):
                self._signal_group(signal.SIGKILL)  # children (and the watchdog) outliving it
                await self._reap_watchdog()
                return
        logging.getLogger(f"agentframe.mcp.{self.name}").warning(
            "server process %d did not exit after SIGKILL; abandoning it", process.pid
        )

    async def _reap_watchdog(self) -> None:
        """The group's SIGKILL ended the watchdog too: collect its exit status."""
        watchdog = self.watchdog
        if watchdog is None:
            return
        if watchdog.stdin is not None:
            watchdog.stdin.close()
        for _ in range(100):
            if watchdog.poll() is not None:
                return
            await asyncio.sleep(0.01)

    def kill_group(self) -> None:
        self._signal_group(signal.SIGKILL)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    async def wait_exit(self, seconds: float) -> bool:
        """Wait on the return code, not on `process.wait()`: that one also waits for the pipes,
        which a surviving child may hold open."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while self.process.returncode is None:
            if loop.time() >= end:
                return False
            await asyncio.sleep(0.01)
        return True


async def _spawn(
    command: str, args: list[str], env: dict[str, str], cwd: Path | None
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=cwd,
        process_group=0,  # its own group (one signal reaches its children), in our session
        limit=MAX_LINE,  # so that the watchdog can join the group
    )


def _watch(process: asyncio.subprocess.Process, grace: float) -> subprocess.Popen[bytes] | None:
    try:
        return start_watchdog(process.pid, grace)
    except OSError:
        if process.returncode is not None or not pid_alive(process.pid):
            return None  # it died at once: there is no group to join, nothing to guard
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        raise


async def _read_stdout(
    reader: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    handle: StdioProcess,
    log: logging.Logger,
) -> None:
    async with sink:
        try:
            handle.cut = await _forward(reader, sink, log)
        finally:
            handle.gone.set()  # before the sink closes: pending calls then see why


async def _forward(
    reader: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    log: logging.Logger,
) -> str | None:
    """Forward every message; why the server was cut off, if it was."""
    while True:
        try:
            line = await reader.readline()
        except (ValueError, asyncio.LimitOverrunError):
            log.error("the server sent a line longer than %d bytes; disconnecting", MAX_LINE)
            return f"it sent a reply longer than {MAX_LINE >> 20} MiB (the cap of one message)"
        if not line:
            return None  # EOF: the session fails every pending request at once
        if not line.strip():
            continue
        try:  # json first: pydantic's own JSON parser takes 5x the memory for a long line
            parsed = json.loads(line)
            message = mcp_types.jsonrpc_message_adapter.validate_python(parsed, by_name=False)
        except (ValueError, RecursionError) as err:
            log.warning("not a JSON-RPC message from the server: %s", str(err)[:200])
            continue
        try:
            await sink.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return None


async def _write_stdin(
    writer: asyncio.StreamWriter, source: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    async with source:
        async for item in source:
            data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                writer.write(data.encode() + b"\n")
                await writer.drain()
            except (ConnectionError, OSError):
                return


async def _log_stderr(
    reader: asyncio.StreamReader, handle: StdioProcess, log: logging.Logger
) -> None:
    while True:
        try:
            line = await reader.readline()
        except (ValueError, asyncio.LimitOverrunError):
            continue
        if not line:
            return
        text = line.decode(errors="replace").rstrip()
        if text:
            handle.stderr_tail.append(text[:MAX_LOG_LINE])
            log.info("%s", text[:MAX_LOG_LINE])


@contextlib.asynccontextmanager
async def open_stdio(
    name: str,
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: Path | None,
    *,
    grace: float,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
        StdioProcess,
    ]
]:
    """Start the server; yield the streams a `ClientSession` reads and writes, and the
    process. On exit the process group is stopped within `grace` seconds."""
    log = logging.getLogger(f"agentframe.mcp.{name}")
    process = await _spawn(command, args, env, cwd)
    handle = StdioProcess(process, name, _watch(process, grace))
    assert process.stdout and process.stdin and process.stderr
    in_send, in_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    out_send, out_recv = anyio.create_memory_object_stream[SessionMessage](16)
    tasks = [
        asyncio.create_task(_read_stdout(process.stdout, in_send, handle, log)),
        asyncio.create_task(_write_stdin(process.stdin, out_recv)),
        asyncio.create_task(_log_stderr(process.stderr, handle, log)),
    ]
    waiter = asyncio.create_task(process.wait())
    waiter.add_done_callback(lambda _: handle.gone.set())
    try:
        yield in_recv, out_send, handle
    finally:
        await asyncio.shield(_shutdown(handle, tasks, waiter, grace))
        for stream in (in_recv, out_send):
            stream.close()


async def _shutdown(
    handle: StdioProcess,
    tasks: list[asyncio.Task[None]],
    waiter: asyncio.Task[int],
    grace: float,
) -> None:
    await handle.stop(grace)
    for task in (*tasks, waiter):
        task.cancel()
    await asyncio.gather(*tasks, waiter, return_exceptions=True)
    transport = getattr(handle.process, "_transport", None)
    if transport is not None:
        transport.close()
