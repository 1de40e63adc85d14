"""Small records kept in the configured store, so that a restarted server and its replicas
on one PostgreSQL store see them: remembered Responses, A2A tasks, and the digests that
recognise a resent conversation.

A record is a session of its own, `~serve.<kind>.<owner>.<key>`, whose last entry holds the
value in its `meta`: a lookup is one `Store.context` read (no scan of other sessions), and a
record never enters the conversation the model sees. The owner (the key's name: letters,
digits, `_` and `-`) is part of the id, so one key's lookup never reaches another's record;
no session of a key (`<owner>.<id>`) starts with `~`, so `/v1/sessions` never lists one.
Records go with the store's `prune` like any session."""

from __future__ import annotations

import re
from typing import Any

from agentframe_core import Entry, EntryKind, Store

__all__ = ["Records"]

_KEY = re.compile(r"^[A-Za-z0-9_.:~-]{1,200}$")


class Records:
    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def _id(kind: str, owner: str, key: str) -> str | None:
        return f"~serve.{kind}.{owner}.{key}" if _KEY.match(key) else None

    async def put(self, kind: str, owner: str, key: str, value: dict[str, Any]) -> None:
        record = self._id(kind, owner, key)
        if record is not None:
            entry = Entry(kind=EntryKind.NOTIFICATION, tag=f"serve-{kind}", meta={"value": value})
            await self.store.append(record, entry)

    async def get(self, kind: str, owner: str, key: str) -> dict[str, Any] | None:
        record = self._id(kind, owner, key)
        entries = await self.store.context(record) if record is not None else []
        value = entries[-1].meta.get("value") if entries else None
        return value if isinstance(value, dict) else None

    async def values(self, kind: str, owner: str, key: str) -> list[dict[str, Any]]:
        """Every value put under `key` since it was last dropped, oldest first."""
        record = self._id(kind, owner, key)
        entries = await self.store.context(record) if record is not None else []
        found = (e.meta.get("value") for e in entries)
        return [value for value in found if isinstance(value, dict)]

    async def drop(self, kind: str, owner: str, key: str) -> None:
        record = self._id(kind, owner, key)
        if record is not None:
            await self.store.delete(record)
