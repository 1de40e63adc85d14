"""Child processes: is one still running, and a watchdog that stops one when we die.

Standard library only: this file is also the watchdog's program, run as
`python -I -S processes.py PID GRACE` (no site-packages, so it starts in milliseconds).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import IO

__all__ = ["pid_alive", "start_watchdog"]

#: How often a watchdog checks that its process still runs (seconds).
_POLL = 0.5


def pid_alive(pid: int) -> bool:
    """Is `pid` a running process on this host? A process owned by another user counts as
    running; a zombie (dead, not yet reaped by its parent) does not."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): the signal test is all there is


def start_watchdog(
    pid: int, grace: float, output: int | IO[bytes] = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """Start a watchdog that stops the process group `pid` leads when this process dies,
    however it dies (SIGKILL included); it exits by itself once `pid` is gone.

    `pid` must lead a process group in this session (start it with `process_group=0`, not a
    new session): the watchdog joins that group, which keeps the group id from being reused
    while it lives. Its stdin is a pipe whose write end only this process holds (end of file
    means we are gone). To stop the child yourself, signal the group, then close the
    watchdog's stdin and wait for it.

    Why not PR_SET_PDEATHSIG: it needs `preexec_fn`, unsafe in a process with threads, and
    the signal follows the *thread* that forked, not the process."""
    return subprocess.Popen(
        [sys.executable, "-I", "-S", __file__, str(pid), str(grace)],
        stdin=subprocess.PIPE,
        stdout=output,
        stderr=subprocess.STDOUT,
        process_group=pid,
    )


def _watch(pid: int, grace: float) -> None:
    """Wait for the parent to go (end of file on stdin), then stop the group: SIGTERM, and
    SIGKILL (this watchdog included) if `pid` outlives `grace` seconds."""
    while True:
        ready, _, _ = select.select([0], [], [], _POLL)
        if ready and not os.read(0, 512):
            break
        if not pid_alive(pid):
            return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group's SIGTERM is for the others
    os.killpg(os.getpgrp(), signal.SIGTERM)
    deadline = time.monotonic() + grace
    while pid_alive(pid):
        if time.monotonic() > deadline:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        time.sleep(0.05)


if __name__ == "__main__":
    _watch(int(sys.argv[1]), float(sys.argv[2]))
