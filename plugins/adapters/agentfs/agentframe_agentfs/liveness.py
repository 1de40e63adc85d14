"""Drainer heartbeats: the drainer's side (a file it rewrites) and the waiter's side (a check).

Each agentframe drainer owns `agent_heartbeat/<drainer id>.json` and rewrites it every
`interval` seconds with what it is doing; the file's modification time is the beat. A drainer
that stops cleanly deletes its file; one that dies leaves it to go stale. The base contract has
no heartbeat, so a drainer that never writes one (a coding assistant's skill) is not an error
unless the adapter says `heartbeat: required`.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .contract import MAX_NOTE_BYTES, Folder, atomic_write, load_json_object, utc_now
from .errors import DrainerLostError, NoDrainerError

__all__ = ["Beat", "Heartbeat", "HeartbeatMode", "Liveness", "read_beats"]

HeartbeatMode = Literal["auto", "required", "off"]
SUFFIX = ".json"


@dataclass(frozen=True, slots=True)
class Beat:
    drainer: str
    path: Path
    #: Seconds since the last beat.
    age: float
    info: dict[str, Any]


def read_beats(folder: Folder, *, with_info: bool = False) -> list[Beat]:
    """Every heartbeat file in the folder, freshest first."""
    now = time.time()
    beats = []
    try:
        entries = list(os.scandir(folder.heartbeats))
    except FileNotFoundError:
        return []
    for entry in entries:
        if not entry.name.endswith(SUFFIX):
            continue
        try:
            mtime = entry.stat().st_mtime
        except FileNotFoundError:
            continue
        info = load_json_object(entry.path, MAX_NOTE_BYTES) if with_info else {}
        beats.append(Beat(entry.name.removesuffix(SUFFIX), Path(entry.path), now - mtime, info))
    return sorted(beats, key=lambda beat: beat.age)


def beat_age(folder: Folder, drainer: str) -> float | None:
    """Seconds since `drainer` last beat, or None when it has no heartbeat file."""
    try:
        return time.time() - (folder.heartbeats / f"{drainer}{SUFFIX}").stat().st_mtime
    except (FileNotFoundError, ValueError):
        return None


class Heartbeat:
    """The file one drainer keeps fresh."""

    def __init__(self, folder: Folder, drainer: str, info: dict[str, Any]) -> None:
        self.path = folder.heartbeats / f"{drainer}{SUFFIX}"
        self.info = {
            "drainer": drainer,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": utc_now(),
            **info,
        }

    def beat(self, **stats: Any) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {**self.info, **stats, "beat_at": utc_now()}
        atomic_write(self.path, json.dumps(payload, indent=1).encode())

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


class Liveness:
    """The waiter's check: is a drainer alive to answer? Raises when the answer is no.

    `auto`: once a live heartbeat has been seen (by this adapter), every heartbeat going stale
    for longer than `grace` fails the wait. `required`: also fails when no heartbeat appears
    within `grace` of the wait starting. `off`: never fails.
    """

    def __init__(self, folder: Folder, mode: HeartbeatMode, grace: float) -> None:
        self.folder = folder
        self.mode = mode
        self.grace = grace
        self.seen = False
        #: How often a waiter must look, so that a lost drainer is noticed within the grace.
        self.interval = float("inf") if mode == "off" else min(0.25, grace / 4)
        self._next_check = 0.0

    def check(self, task_file: Path, waiting_since: float) -> None:
        if self.mode == "off":
            return
        now = time.monotonic()
        if now < self._next_check:
            return
        self._next_check = now + self.interval
        beats = read_beats(self.folder)
        freshest = beats[0] if beats else None
        if freshest is not None and freshest.age <= self.grace:
            self.seen = True
            return
        if self.seen:
            if freshest is None:
                detail = "every drainer has stopped (no heartbeat file is left)"
            else:
                detail = f"the last heartbeat ({freshest.drainer}) is {freshest.age:.1f}s old"
            raise DrainerLostError(task_file, detail, self.grace)
        if self.mode == "required" and now - waiting_since > self.grace:
            raise NoDrainerError(task_file, self.grace)
