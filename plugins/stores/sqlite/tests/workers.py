"""Child processes for the multi-process tests, run as `python workers.py MODE PATH SESSION ...`.

`churn`: append and compact in a loop until killed, reporting on stdout each append and
compaction once it returned (and each compaction before it starts).
`write N OWN`: wait for a line on stdin, then append N entries to SESSION and N to OWN.
"""

from __future__ import annotations

import asyncio
import random
import sys

from agentframe_store_sqlite import SqliteStore

from agentframe_core import Compaction, Entry, EntryKind


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def churn(store: SqliteStore, session_id: str) -> None:
    """Compaction folds everything but the last 3 visible entries, every 40 appends; each
    marker lists what it subsumes in `meta`, so a checker can tell a half-applied one."""
    say("ready")
    count = 0
    while True:
        body = "x" * random.randrange(0, 4000)
        entry = Entry(kind=EntryKind.USER, content=f"message {count} {body}")
        await store.append(session_id, entry)
        say(f"appended {entry.id}")
        count += 1
        if count % 40 == 0:
            visible = await store.context(session_id)
            fold = [e.id for e in visible[:-3]]
            marker = Entry(
                kind=EntryKind.COMPACTION,
                content=f"summary of {len(fold)} entries",
                created_at=visible[0].created_at,
                meta={"subsumes": fold},
            )
            say(f"compacting {marker.id}")
            await store.compact(session_id, Compaction(marker, frozenset(fold)))
            say(f"compacted {marker.id}")


async def write(store: SqliteStore, session_id: str, count: int, own_session: str) -> None:
    for n in range(count):
        await store.append(session_id, Entry(kind=EntryKind.USER, content=f"shared {n}"))
        await store.append(own_session, Entry(kind=EntryKind.USER, content=f"own {n}"))


async def main(mode: str, path: str, session_id: str, *rest: str) -> None:
    if mode == "write":  # start together: open the (new) file and write at the same moment
        say("ready")
        sys.stdin.readline()
    store = SqliteStore(path)
    try:
        if mode == "churn":
            await churn(store, session_id)
        else:
            await write(store, session_id, int(rest[0]), rest[1])
    finally:
        await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
