"""The keeper of one warm server: `python -m agentframe_llamacpp.keeper STATE LOCK PID`.

Detached from the process that started the server (its own session), it checks every half
second, under the server's lock: that the state file still describes server PID (else another
process took over or stopped it, and the keeper ends), that the server still runs (else the
stale state file goes), which holders are alive (the dead ones are dropped). With no holder
left for the record's `keep_alive` seconds, it stops the server's process group (SIGTERM,
then SIGKILL after the grace) and removes the state file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from agentframe_core import pid_alive

from .errors import ServerStartError
from .server import STOP_GRACE, read_state, write_state
from .warm import live_holders, locked

#: Seconds between checks.
POLL = 0.5


def stop_group(pid: int, grace: float = STOP_GRACE) -> None:
    """SIGTERM the process group `pid` leads, SIGKILL it if `pid` outlives `grace`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while pid_alive(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        time.sleep(0.05)


def check(state: Path, pid: int, idle_since: float) -> tuple[bool, float]:
    """One look (under the lock): (go on watching?, when the server became idle)."""
    record = read_state(state)
    if record is None or record.pid != pid:
        return False, idle_since
    if not pid_alive(pid):
        state.unlink(missing_ok=True)
        return False, idle_since
    holders = live_holders(record)
    if holders != record.holders:
        write_state(state, replace(record, holders=holders))
    now = time.time()
    if holders or record.keep_alive is None:
        return True, now
    idle_since = max(idle_since, record.last_used)
    if now - idle_since < record.keep_alive:
        return True, idle_since
    print(f"agentframe keeper: idle for {record.keep_alive:g}s, stopping pid {pid}", flush=True)
    stop_group(pid)
    state.unlink(missing_ok=True)
    return False, idle_since


def watch(state: Path, lock: Path, pid: int) -> None:
    idle_since = time.time()
    going = True
    while going:
        try:
            with locked(lock, wait=STOP_GRACE):
                going, idle_since = check(state, pid, idle_since)
        except ServerStartError:  # a long start of another server under the lock: look again
            pass
        if going:
            time.sleep(POLL)


def main(argv: list[str]) -> None:
    watch(Path(argv[0]), Path(argv[1]), int(argv[2]))


if __name__ == "__main__":
    main(sys.argv[1:])
