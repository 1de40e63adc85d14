"""A Store that keeps each session as an append-only JSON Lines log of operations.

Every write is one line (`append`, `enqueue`, `claim`, `compact`), so a compaction is applied
whole or not at all. A line cut short by a crash (always the last one) is cut off the file when
the log is read back, so the next write starts a line of its own and nothing acknowledged after
the crash is lost. Reads are served from the kernel's MemoryStore, rebuilt from the log on first
use. One process at a time: the turn lease (`LeasingStore`) is the MemoryStore's, in-process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentframe_core import AgentframeError, Compaction, Entry, MemoryStore, SessionInfo

log = logging.getLogger(__name__)

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,100}$")


class CorruptLogError(AgentframeError):
    """A session log has an unreadable line before its end: refuse rather than lose data."""


class JsonlStoreOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dir: Path
    #: fsync every line: durable across power loss, slower.
    fsync: bool = False


class JsonlStore:
    def __init__(self, options: JsonlStoreOptions) -> None:
        self.dir = options.dir.expanduser()
        self.dir.mkdir(parents=True, exist_ok=True)
        self.fsync = options.fsync
        self._memory = MemoryStore()
        self._loaded: set[str] = set()

    # -- the log -----------------------------------------------------------------------------

    def _path(self, session_id: str) -> Path:
        name = (
            session_id
            if _SAFE_NAME.match(session_id)
            else hashlib.sha256(session_id.encode()).hexdigest()
        )
        return self.dir / f"{name}.jsonl"

    def _write(self, session_id: str, record: dict[str, Any]) -> None:
        record["session"] = session_id
        with self._path(session_id).open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
            file.flush()
            if self.fsync:
                os.fsync(file.fileno())

    async def _load(self, session_id: str) -> None:
        if session_id in self._loaded:
            return
        path = self._path(session_id)
        if path.exists():
            await self._replay(path)
        self._loaded.add(session_id)  # only once the whole log was read

    async def _replay(self, path: Path) -> None:
        """Apply every line. Only the last line may be unreadable (a write cut short by a
        crash: that operation never completed); anywhere else it is an error, not a skip.
        A torn tail is then cut off, so that the next write does not land on its line."""
        data = path.read_bytes()
        lines = data.split(b"\n")
        complete = len(lines) - 1  # the part after the last newline is not a whole line
        good = 0  # bytes of the file that hold whole, applied lines
        for number, line in enumerate(lines, 1):
            if not line and number > complete:
                break
            try:
                await self._apply(json.loads(line.decode("utf-8")))
            except (ValueError, KeyError, TypeError) as err:
                if number < complete:
                    raise CorruptLogError(f"{path}:{number}: unreadable operation: {err}") from err
                log.warning("%s:%d: cutting off a line cut short by a crash", path, number)
                break
            good += len(line) + 1
        if good != len(data):
            _cut(path, good)

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

    # -- the Store contract: validate in memory first, then log --------------------------------

    async def append(self, session_id: str, entry: Entry) -> None:
        await self._load(session_id)
        await self._memory.append(session_id, entry)
        self._write(session_id, {"op": "append", "entry": entry.to_dict()})

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        await self._load(session_id)
        await self._memory.enqueue(session_id, entry)
        self._write(session_id, {"op": "enqueue", "entry": entry.to_dict()})

    async def claim_pending(self, session_id: str, at: int) -> int:
        await self._load(session_id)
        claimed = await self._memory.claim_pending(session_id, at)
        if claimed:
            self._write(session_id, {"op": "claim", "at": at})
        return claimed

    async def context(self, session_id: str) -> list[Entry]:
        await self._load(session_id)
        return await self._memory.context(session_id)

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        await self._load(session_id)
        await self._memory.compact(session_id, compaction)
        self._write(
            session_id,
            {
                "op": "compact",
                "marker": compaction.marker.to_dict(),
                "subsumes": sorted(compaction.subsumes),
            },
        )

    async def sessions(self) -> list[SessionInfo]:
        for path in self.dir.glob("*.jsonl"):
            with path.open(encoding="utf-8") as file:
                first = file.readline()
            try:
                session_id = json.loads(first)["session"]
            except (ValueError, KeyError, TypeError):
                log.warning("%s: not a session log", path)
                continue
            await self._load(session_id)
        return await self._memory.sessions()

    async def delete(self, session_id: str) -> None:
        await self._memory.delete(session_id)
        self._loaded.discard(session_id)
        self._path(session_id).unlink(missing_ok=True)

    # -- LeasingStore: in-process, like the store ----------------------------------------------

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        return await self._memory.acquire_lease(session_id, holder, ttl)

    async def release_lease(self, session_id: str, holder: str) -> None:
        await self._memory.release_lease(session_id, holder)

    async def lease_revoked(self, session_id: str) -> bool:
        return await self._memory.lease_revoked(session_id)


def _cut(path: Path, size: int) -> None:
    """Truncate `path` to `size` bytes (the whole lines before a torn tail), durably.
    A whole last line without its newline (cut right before it) gets its newline instead."""
    with path.open("r+b") as file:
        file.truncate(size if size <= path.stat().st_size else size - 1)
        if size > file.seek(0, os.SEEK_END):
            file.write(b"\n")
        file.flush()
        os.fsync(file.fileno())
