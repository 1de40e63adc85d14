"""The in-memory Store (`use: memory`): the reference implementation of the Store contract.

Kept incrementally so that `context()` costs a list copy, not a scan: the visible entries are
maintained on every write, in `created_at` order.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from ..contract.model import Compaction, Entry, EntryKind, SessionInfo, now_ns, session_title
from ..contract.protocols import StoredEntry
from ..support.retention import sessions_to_prune
from ..support.turnlease import SessionDeletedError

__all__ = ["MemoryStore"]


@dataclass(slots=True)
class _Lease:
    holder: str
    expires: float  # time.monotonic()
    revoked: bool = False

    def live(self) -> bool:
        return self.expires > time.monotonic()


@dataclass(slots=True)
class _Session:
    created_at: int
    updated_at: int
    #: Every entry ever written, in arrival order, with its arrival rank (the tie-break of
    #: `created_at`, so that a claimed entry takes the place its arrival gave it).
    entries: dict[str, Entry] = field(default_factory=dict)
    rank: dict[str, int] = field(default_factory=dict)
    visible: list[Entry] = field(default_factory=list)
    pending: list[Entry] = field(default_factory=list)
    subsumed: set[str] = field(default_factory=set)

    def add(self, entry: Entry) -> None:
        if entry.id in self.entries:
            raise ValueError(f"entry {entry.id!r} is already in this session")
        self.entries[entry.id] = entry
        self.rank[entry.id] = len(self.rank)
        self.updated_at = now_ns()

    def order_key(self, entry: Entry) -> tuple[int, int]:
        return entry.created_at, self.rank[entry.id]

    def show(self, entry: Entry) -> None:
        key = self.order_key(entry)
        if not self.visible or self.order_key(self.visible[-1]) < key:
            self.visible.append(entry)
        else:
            self.visible.insert(bisect.bisect_right(self.visible, key, key=self.order_key), entry)


class MemoryStore:
    """Sessions in a dict. Not durable; for tests, scripts and plugin authors."""

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._leases: dict[str, _Lease] = {}
        self._watches: dict[tuple[str, str], Callable[[], None]] = {}

    def _session(self, session_id: str) -> _Session:
        self._refuse_deleted(session_id)
        session = self._sessions.get(session_id)
        if session is None:
            stamp = now_ns()
            session = self._sessions[session_id] = _Session(stamp, stamp)
        return session

    async def append(self, session_id: str, entry: Entry) -> None:
        session = self._session(session_id)
        session.add(entry)
        session.show(entry)

    async def enqueue(self, session_id: str, entry: Entry) -> None:
        session = self._session(session_id)
        session.add(entry)
        session.pending.append(entry)

    async def claim_pending(self, session_id: str, at: int) -> int:
        session = self._sessions.get(session_id)
        if session is None or not session.pending:
            return 0
        due = [e for e in session.pending if e.created_at <= at]
        if due:
            session.pending = [e for e in session.pending if e.created_at > at]
            for entry in due:
                if entry.id not in session.subsumed:
                    session.show(entry)
        return len(due)

    async def context(self, session_id: str) -> list[Entry]:
        session = self._sessions.get(session_id)
        return list(session.visible) if session else []

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        session = self._session(session_id)
        marker = compaction.marker
        if marker.kind is not EntryKind.COMPACTION:
            raise ValueError("a compaction marker must have kind 'compaction'")
        session.add(marker)
        session.subsumed |= compaction.subsumes & session.entries.keys()
        session.visible = [e for e in session.visible if e.id not in compaction.subsumes]
        session.show(marker)

    async def sessions(self) -> list[SessionInfo]:
        infos = [
            SessionInfo(sid, s.created_at, s.updated_at, len(s.entries), _title(s))
            for sid, s in self._sessions.items()
        ]
        return sorted(infos, key=lambda info: info.updated_at, reverse=True)

    async def delete(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        self._revoke(session_id)

    # -- turn leases (LocalLeasingStore: in this process, one event loop) ---------------------

    async def acquire_lease(self, session_id: str, holder: str, ttl: float) -> bool:
        lease = self._leases.get(session_id)
        if lease is not None and lease.live() and (lease.revoked or lease.holder != holder):
            return False
        self._leases[session_id] = _Lease(holder, time.monotonic() + ttl)
        return True

    async def release_lease(self, session_id: str, holder: str) -> None:
        lease = self._leases.get(session_id)
        if lease is not None and lease.holder == holder:
            del self._leases[session_id]

    async def lease_revoked(self, session_id: str) -> bool:
        lease = self._leases.get(session_id)
        return lease is not None and lease.revoked and lease.live()

    def watch_lease(
        self, session_id: str, holder: str, on_revoked: Callable[[], None]
    ) -> Callable[[], None]:
        key = (session_id, holder)
        self._watches[key] = on_revoked

        def stop() -> None:
            if self._watches.get(key) is on_revoked:
                del self._watches[key]

        return stop

    def _revoke(self, session_id: str) -> None:
        lease = self._leases.get(session_id)
        if lease is not None and lease.live():
            lease.revoked = True
            told = self._watches.pop((session_id, lease.holder), None)
            if told is not None:
                told()

    def _refuse_deleted(self, session_id: str) -> None:
        lease = self._leases.get(session_id)
        if lease is not None and lease.revoked and lease.live():
            raise SessionDeletedError(f"session {session_id!r} was deleted during a turn")

    # -- optional capabilities ---------------------------------------------------------------

    async def history(self, session_id: str) -> list[StoredEntry]:
        session = self._sessions.get(session_id)
        if session is None:
            return []
        pending = {e.id for e in session.pending}
        ordered = sorted(session.entries.values(), key=session.order_key)
        return [StoredEntry(e, e.id in pending, e.id in session.subsumed) for e in ordered]

    async def restore(self, session_id: str, records: Sequence[StoredEntry]) -> None:
        self._refuse_deleted(session_id)
        stamp = now_ns()
        session = _Session(stamp, stamp)
        for record in records:  # build aside: a bad record leaves the old session untouched
            session.add(record.entry)
            if record.subsumed:
                session.subsumed.add(record.entry.id)
            if record.pending:
                session.pending.append(record.entry)
            elif not record.subsumed:
                session.show(record.entry)
        if records:  # the session's own time, not the import's
            stamps = [record.entry.created_at for record in records]
            session.created_at, session.updated_at = min(stamps), max(stamps)
        self._sessions.pop(session_id, None)
        self._sessions[session_id] = session

    async def prune(
        self, *, older_than: timedelta | None = None, keep_last: int | None = None
    ) -> list[str]:
        infos = await self.sessions()  # newest first
        doomed = sessions_to_prune(
            [(info.id, info.updated_at) for info in infos],
            older_than=older_than,
            keep_last=keep_last,
        )
        for session_id in doomed:
            del self._sessions[session_id]
            self._revoke(session_id)
        return doomed

    async def search(self, session_id: str, query: str, limit: int = 10) -> list[Entry]:
        session = self._sessions.get(session_id)
        terms = query.lower().split()
        if session is None or not terms:
            return []
        scored = []
        for entry in session.entries.values():
            text = entry.content.lower()
            score = sum(text.count(term) for term in terms)
            if score:
                scored.append((-score, entry.created_at, entry))
        scored.sort(key=lambda item: item[:2])
        return [entry for *_, entry in scored[:limit]]


def _title(session: _Session) -> str | None:
    return next(filter(None, map(session_title, session.entries.values())), None)
