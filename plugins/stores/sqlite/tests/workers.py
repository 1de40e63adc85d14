"""Child of the two-writers test, run as `python workers.py PATH SESSION N OWN`: say `ready`,
wait for a line on stdin, then append N entries to SESSION and N to OWN (the file may not
exist yet: both children create and migrate it at once)."""

from __future__ import annotations

import asyncio
import sys

from agentframe_store_sqlite import SqliteStore

from agentframe_core import Entry, EntryKind


async def write(path: str, session_id: str, count: int, own_session: str) -> None:
    store = SqliteStore(path)
    try:
        for n in range(count):
            await store.append(session_id, Entry(kind=EntryKind.USER, content=f"shared {n}"))
            await store.append(own_session, Entry(kind=EntryKind.USER, content=f"own {n}"))
    finally:
        await store.aclose()


if __name__ == "__main__":
    print("ready", flush=True)
    sys.stdin.readline()
    path, session_id, count, own_session = sys.argv[1:]
    asyncio.run(write(path, session_id, int(count), own_session))
