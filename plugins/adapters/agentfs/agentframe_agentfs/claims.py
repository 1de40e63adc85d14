"""Claiming a task, so that two drainers never answer the same one.

A claim is `agent_inbox/<task_id>.claim`, created with `O_CREAT | O_EXCL`: the file system lets
exactly one creator win, across processes and, on NFSv3 and later, across machines. It names
its owner. The owner removes it after writing the `.done` sentinel, or when it gives the task
up (shutdown, cancellation).

A drainer that dies holding claims leaves them behind. Such a claim is stale when its owner's
heartbeat is older than the grace (or the owner is a dead process on this host), and another
drainer takes it over. Taking over has to remove a file some other drainer might be taking over
too, so it happens under an `flock` on `agent_inbox/.claims.lock`, and the new claim is again an
exclusive create: two take-overs of one task cannot both win.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

from agentframe_core import pid_alive

from .contract import MAX_NOTE_BYTES, Folder, TaskPaths, is_drainer_id, load_json_object, utc_now
from .liveness import beat_age

__all__ = ["Claim", "read_claim", "release", "take_over_if_stale", "try_claim"]

_HOST = socket.gethostname()


@dataclass(frozen=True, slots=True)
class Claim:
    drainer: str | None
    pid: int | None
    host: str | None
    #: Seconds since the claim was made.
    age: float


def try_claim(paths: TaskPaths, drainer: str) -> bool:
    """Claim the task for `drainer`; False when someone else holds it."""
    try:
        fd = os.open(paths.claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    record = {"drainer": drainer, "pid": os.getpid(), "host": _HOST, "claimed_at": utc_now()}
    with os.fdopen(fd, "w") as handle:
        handle.write(json.dumps(record))
    return True


def read_claim(paths: TaskPaths) -> Claim | None:
    """The claim on the task, or None when there is none. An unreadable or half-written claim
    has no known owner."""
    try:
        age = time.time() - os.stat(paths.claim).st_mtime
    except FileNotFoundError:
        return None
    data = load_json_object(paths.claim, MAX_NOTE_BYTES)
    pid = data.get("pid")
    return Claim(
        data["drainer"] if is_drainer_id(data.get("drainer")) else None,
        pid if isinstance(pid, int) else None,
        data.get("host") if isinstance(data.get("host"), str) else None,
        age,
    )


def owns(paths: TaskPaths, drainer: str) -> bool:
    claim = read_claim(paths)
    return claim is not None and claim.drainer == drainer


def release(paths: TaskPaths, drainer: str) -> None:
    """Give the task up, if the claim is still `drainer`'s."""
    if owns(paths, drainer):
        paths.claim.unlink(missing_ok=True)


def is_stale(folder: Folder, claim: Claim, grace: float) -> bool:
    """Is the claim's owner gone? A dead process on this host is gone at once; otherwise its
    heartbeat (or, with no heartbeat to go by, the claim itself) must be older than `grace`."""
    if claim.host == _HOST and claim.pid is not None and not pid_alive(claim.pid):
        return True
    age = beat_age(folder, claim.drainer) if claim.drainer else None
    return (age if age is not None else claim.age) > grace


def take_over_if_stale(folder: Folder, paths: TaskPaths, drainer: str, grace: float) -> bool:
    """Claim a task whose claim is stale (or gone); False when its owner is still alive."""
    with _lock(folder):
        claim = read_claim(paths)
        if claim is not None:
            if claim.drainer == drainer or not is_stale(folder, claim, grace):
                return False
            paths.claim.unlink(missing_ok=True)
        return try_claim(paths, drainer)


@contextlib.contextmanager
def _lock(folder: Folder) -> Iterator[None]:
    fd = os.open(folder.inbox / ".claims.lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
