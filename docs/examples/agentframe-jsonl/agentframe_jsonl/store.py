"""A Store that keeps each session as an append-only JSON Lines log of operations.

Every write is one line (`append`, `enqueue`, `claim`, `compact`), so a compaction is applied
whole or not at all. Reads are served from the kernel's MemoryStore, kept up to date with the
log: each instance remembers how far it has replayed each log and replays only the lines added
since, so it sees what other processes wrote.

Several processes may share the folder. Each session has a lock file (`<name>.lock`, `flock`):
writers hold it exclusively for the whole write, readers hold it shared while they read the
log. So a line without its newline, seen under the lock, is a crash's leftover, never another
process's write in progress: readers skip it and the next writer cuts it off. The turn lease
(`LeasingStore`) is a small JSON file (`<name>.lease`) changed under the same lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentframe_core import (
    AgentframeError,
    Compaction,
    Entry,
    MemoryStore,
    SessionDeletedError,
    SessionInfo,
    atomic_write,
    read_text_file,
)

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
#: The largest lease file read (one holder name and two numbers).
_LEASE_LIMIT = 64 * 1024


class CorruptLogError(AgentframeError):
    """A session log has an unreadable line before its end: refuse rather than lose data."""


class JsonlStoreOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dir: Path
    #: fsync every write: a write that returned survives a power loss. Without it, it survives
    #: the crash of any process (it is in the OS's cache), not a crash of the machine.
    fsync: bool = True


@dataclass
class _Replayed:
    """How far this instance has replayed one log."""

    #: The log's first line: a random id, so a log deleted and created again is a new log
    #: (an inode number is not enough: a new file may reuse the deleted one's).
    first: bytes
    #: Bytes and lines replayed: whole lines only.
    offset: int
    lines: int


class JsonlStore:
    def __init__(self, options: JsonlStoreOptions) -> None:
        self.dir = options.dir.expanduser()
        self.dir.mkdir(parents=True, exist_ok=True)
        self.fsync = options.fsync
        self._memory = MemoryStore()
        self._replayed: dict[str, _Replayed] = {}

    # -- the files -----------------------------------------------------------------------------

    def _path(self, session_id: str, suffix: str = ".jsonl") -> Path:
        name = (
            session_id
            if _SAFE_NAME.match(session_id)
            else hashlib.sha256(session_id.encode()).hexdigest()
        )
        return self.dir / f"{name}{suffix}"

    @contextmanager
    def _locked(self, log: Path, *, exclusive: bool) -> Iterator[None]:
        """Hold the log's lock. The lock file is never deleted: a process could otherwise
        lock a file that the next one no longer finds. The lock is never held across an
        `await` that waits, so two tasks of one process never wait for each other."""
        with log.with_suffix(".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield  # closing the file releases the lock

    # -- the log: catch up, then write ----------------------------------------------------------

    async def _catch_up(self, session_id: str) -> None:
        """Replay the lines added to the log since this instance last read it (under the lock);
        forget the session if another process deleted it."""
        seen = self._replayed.get(session_id)
        path = self._path(session_id)
        try:
            file = path.open("rb")
        except FileNotFoundError:
            if seen is not None:
                await self._forget(session_id)
            return
        with file:
            first = file.readline()
            if seen is not None and seen.first != first:  # deleted, maybe created again
                await self._forget(session_id)
                seen = None
            if not first.endswith(b"\n"):
                return  # not even its first line is whole: a crash's leftover, nothing else
            seen = seen or self._replayed.setdefault(session_id, _Replayed(first, 0, 0))
            file.seek(seen.offset)
            data = file.read()
        await self._replay(path, seen, data)

    async def _replay(self, path: Path, seen: _Replayed, data: bytes) -> None:
        """Apply each whole line of `data`; the part after its last newline is a crash's
        leftover (see the module docstring). An unreadable whole line is an error, not a skip."""
        for line in data.split(b"\n")[:-1]:
            try:
                await self._apply(json.loads(line.decode("utf-8")))
            except (ValueError, KeyError, TypeError) as err:
                number = seen.lines + 1
                raise CorruptLogError(f"{path}:{number}: unreadable operation: {err}") from err
            seen.offset += len(line) + 1
            seen.lines += 1

    async def _apply(self, record: dict[str, Any]) -> None:
        session, op = record["session"], record["op"]
        if op == "append":
            await self._memory.append(session, Entry.from_dict(record["entry"]))
        elif op == "enqueue":
            await self._memory.enqueue(session, Entry.from_dict(record["entry"]))
        elif op == "claim":
            await self._memory.claim_pending(session, record["at"])
        elif op == "compact":
            marker = Entry.from_dict(record["marker"])
            await self._memory.compact(session, Compaction(marker, frozenset(record["subsumes"])))

    async def _forget(self, session_id: str) -> None:
        await self._memory.delete(session_id)
        self._replayed.pop(session_id, None)

    async def _write(self, session_id: str, record: dict[str, Any]) -> None:
        """Append one operation, already applied in memory (under the exclusive lock, caught
        up). A new log starts with its id line. Whatever lies past the replayed lines is a
        crash's leftover: cut off, so that this line starts a line of its own."""
        seen = self._replayed.get(session_id)
        lines = [] if seen else [{"op": "log", "log": secrets.token_hex(16)}]
        lines.append(record)
        data = b"".join(
            json.dumps({**line, "session": session_id}, ensure_ascii=False).encode() + b"\n"
            for line in lines
        )
        try:
            with self._path(session_id).open("ab") as file:
                file.truncate(seen.offset if seen else 0)
                file.write(data)
                file.flush()
                if self.fsync:
                    os.fsync(file.fileno())
        except BaseException:
            await self._forget(session_id)  # memory holds what the log may not: read it again
            raise
        if seen is None:
            first = data[: data.index(b"\n") + 1]
            self._replayed[session_id] = _Replayed(first, len(data), len(lines))
        else:
            seen.offset, seen.lines = seen.offset + len(data), seen.lines + 1

    # -- the Store contract: catch up, validate in memory, then log ---------------------------

    async def append(self, session_id: str, entry: Entry) -> None:
        with self._locked(self._path(session_id), exclusive=True):
            await self._catch_up_to_write(session_id)
            await self._memory.append(session_id, entry)
            await self._write(session_id, {"op": "append", "entry": entry.to_dict()})

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        with self._locked(self._path(session_id), exclusive=True):
            await self._catch_up_to_write(session_id)
            await self._memory.enqueue(session_id, entry)
            await self._write(session_id, {"op": "enqueue", "entry": entry.to_dict()})

    async def claim_pending(self, session_id: str, at: int) -> int:
        with self._locked(self._path(session_id), exclusive=True):
            await self._catch_up(session_id)
            claimed = await self._memory.claim_pending(session_id, at)
            if claimed:
                await self._write(session_id, {"op": "claim", "at": at})
            return claimed

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        record = {
            "op": "compact",
            "marker": compaction.marker.to_dict(),
            "subsumes": sorted(compaction.subsumes),
        }
        with self._locked(self._path(session_id), exclusive=True):
            await self._catch_up_to_write(session_id)
            await self._memory.compact(session_id, compaction)
            await self._write(session_id, record)

    async def _catch_up_to_write(self, session_id: str) -> None:
        await self._catch_up(session_id)
        lease = self._live_lease(session_id)
        if lease is not None and lease["revoked"]:
            raise SessionDeletedError(f"session {session_id!r} was deleted during a turn")

    async def context(self, session_id: str) -> list[Entry]:
        with self._locked(self._path(session_id), exclusive=False):
            await self._catch_up(session_id)
        return await self._memory.context(session_id)

    async def sessions(self) -> list[SessionInfo]:
        """Every log in the folder (its first line names its session), and every session this
        instance knew of, caught up: another process may have created or deleted it."""
        known = set(self._replayed)
        for path in self.dir.glob("*.jsonl"):
            try:
                with self._locked(path, exclusive=False), path.open("rb") as file:
                    known.add(json.loads(file.readline())["session"])
            except (OSError, ValueError, KeyError, TypeError):
                pass  # deleted meanwhile, a crash's leftover, or not a log of this store
        for session_id in known:
            with self._locked(self._path(session_id), exclusive=False):
                await self._catch_up(session_id)
        return await self._memory.sessions()

    async def delete(self, session_id: str) -> None:
        with self._locked(self._path(session_id), exclusive=True):
            self._path(session_id).unlink(missing_ok=True)
            await self._forget(session_id)
            lease = self._live_lease(session_id)
            if lease is not None:  # a turn is running: its next write fails
                self._put_lease(session_id, {**lease, "revoked": True})

    # -- LeasingStore: a lease file per session, under the session's lock ----------------------

    def _live_lease(self, session_id: str) -> dict[str, Any] | None:
        """The lease `{holder, expires (wall clock, s), revoked}`, unless there is none or it
        has expired. Only this store writes it, whole (`atomic_write`)."""
        path = self._path(session_id, ".lease")
        if not path.exists():
            return None
        text = read_text_file(path, _LEASE_LIMIT, "lease file")
        try:
            lease: dict[str, Any] = json.loads(text)
            live = float(lease["expires"]) > time.time()
        except (ValueError, KeyError, TypeError) as err:
            raise CorruptLogError(f"{path}: unreadable lease: {err}") from err
        return lease if live else None

    def _put_lease(self, session_id: str, lease: dict[str, Any]) -> None:
        atomic_write(self._path(session_id, ".lease"), json.dumps(lease), durable=self.fsync)

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        with self._locked(self._path(session_id), exclusive=True):
            lease = self._live_lease(session_id)
            if lease is not None and (lease["revoked"] or lease["holder"] != holder):
                return False
            self._put_lease(
                session_id, {"holder": holder, "expires": time.time() + ttl, "revoked": False}
            )
            return True

    async def release_lease(self, session_id: str, holder: str) -> None:
        with self._locked(self._path(session_id), exclusive=True):
            lease = self._live_lease(session_id)
            if lease is not None and lease["holder"] == holder:
                self._path(session_id, ".lease").unlink()

    async def lease_revoked(self, session_id: str) -> bool:
        with self._locked(self._path(session_id), exclusive=False):
            lease = self._live_lease(session_id)
        return lease is not None and bool(lease["revoked"])
