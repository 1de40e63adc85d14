"""Stops an owned llama-server when the agentframe process that started it dies, however it
dies (SIGKILL included).

Run as `python -I -S watchdog.py SERVER_PID GRACE` with a pipe on stdin whose write end only
the agentframe process holds: end of file on stdin means that process is gone. The watchdog
runs in the server's process group, which keeps the group id from being reused while it
lives, so its `killpg` can only reach the server. It exits by itself once the server is gone.

This replaces a `preexec_fn` setting PR_SET_PDEATHSIG: `preexec_fn` is unsafe in a process
with threads (agentframe has some), and the death signal follows the *thread* that forked,
so a server started from a worker thread was killed when that thread ended. Standard library
only: it runs without site-packages.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

#: How often the watchdog checks that the server still runs (seconds).
POLL = 0.5


def pid_alive(pid: int) -> bool:
    """Is `pid` a running process? A zombie (dead, not yet reaped) is not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def watch(server: int, grace: float) -> None:
    """Wait for the parent to go (EOF on stdin), then stop the server's group: SIGTERM, and
    SIGKILL (this watchdog included) if it outlives `grace` seconds."""
    while True:
        ready, _, _ = select.select([0], [], [], POLL)
        if ready and not os.read(0, 512):
            break
        if not pid_alive(server):
            return
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group's SIGTERM is for the server
    os.killpg(os.getpgrp(), signal.SIGTERM)
    deadline = time.monotonic() + grace
    while pid_alive(server):
        if time.monotonic() > deadline:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        time.sleep(0.05)


if __name__ == "__main__":
    watch(int(sys.argv[1]), float(sys.argv[2]))
