"""Warm servers: a server kept after the run that started it, for `keep_alive` idle seconds.

Like a local model runner's keep-alive: the next `agentframe run`, chat or sub-process on the
same model and options finds it through its state file and skips the start. Who uses it is
in the state file (`holders`: live agentframe processes; `last_used`: when the last one let
go); every change to that file is made under one lock file per server (`flock`), which also
makes two processes starting at once end with one server. The idle timer lives in a small
detached keeper process (`keeper.py`), so it runs on after the starting process exits, and
it drops holders that died without letting go (a SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO

from agentframe_core import pid_alive

from .errors import ServerStartError
from .server import ServerRecord, read_state, write_state

__all__ = ["held", "hold", "let_go", "live_holders", "locked", "start_keeper"]

#: How long a process waits for another's server start (or stop) before giving up.
LOCK_WAIT = 300.0


@contextlib.contextmanager
def locked(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the server's lock file (blocking, with a bound): one process at a time checks,
    starts, adopts or stops a server."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ServerStartError(
                        f"another process held {path} for {wait:g}s (starting or stopping the "
                        "server); try again, or `agentframe llama stop`"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.asynccontextmanager
async def held(path: Path) -> AsyncIterator[None]:
    """`locked` from async code: the wait runs in a thread, the event loop runs on."""
    lock = locked(path)
    taking = asyncio.ensure_future(asyncio.to_thread(lock.__enter__))
    try:
        await asyncio.shield(taking)
    except asyncio.CancelledError:  # the thread may still get the lock: let it go then
        taking.add_done_callback(lambda done: _release(lock, done))
        raise
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def _release(lock: contextlib.AbstractContextManager[None], taken: asyncio.Future[None]) -> None:
    if not taken.cancelled() and taken.exception() is None:
        lock.__exit__(None, None, None)


def live_holders(record: ServerRecord) -> tuple[int, ...]:
    return tuple(pid for pid in record.holders if pid_alive(pid))


def hold(state: Path, record: ServerRecord) -> ServerRecord:
    """This process uses the server (under the lock): it joins the holders."""
    holders = tuple(sorted({*live_holders(record), os.getpid()}))
    updated = replace(record, holders=holders, last_used=time.time())
    write_state(state, updated)
    return updated


def let_go(state: Path, pid: int, keep_alive: float) -> ServerRecord | None:
    """This process is done with the server `pid` (under the lock): it leaves the holders and
    the idle timer starts from now, with this process's `keep_alive`. Returns the record when
    the server should stop now (no holder left and `keep_alive` is 0)."""
    record = read_state(state)
    if record is None or record.pid != pid:
        return None
    holders = tuple(h for h in live_holders(record) if h != os.getpid())
    # on a keeper's timer: neither stopped with its owner (0) nor `llama start`'s (None)
    warm = bool(record.keep_alive)
    if warm and not holders and keep_alive == 0:
        return record
    kept = keep_alive if warm else record.keep_alive
    write_state(state, replace(record, holders=holders, last_used=time.time(), keep_alive=kept))
    return None


def start_keeper(state: Path, lock: Path, pid: int, log: IO[bytes]) -> None:
    """The detached keeper of server `pid`: it stops the server once no holder is left and
    `keep_alive` seconds passed since the last one let go (see `keeper.py`)."""
    keeper = subprocess.Popen(
        [sys.executable, "-I", "-m", "agentframe_llamacpp.keeper", str(state), str(lock), str(pid)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _keepers.append(keeper)  # reaped with this process; it outlives it, adopted by init


_keepers: list[subprocess.Popen[bytes]] = []
