"""Child of the crash test, run as `python workers.py DSN SCHEMA SESSION`: append and compact
in a loop until killed, reporting on stdout each append and compaction once it returned (and
each compaction before it starts). Several children share a session."""

from __future__ import annotations

import asyncio
import random
import sys

from agentframe_store_postgres import PostgresStore

from agentframe_core import Compaction, Entry, EntryKind


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def churn(store: PostgresStore, session_id: str) -> None:
    """Every 25 appends, fold all but the last 3 visible entries; each marker lists what it
    subsumes in `meta`, so a checker can tell a half-applied one."""
    await store.sessions()  # connected and migrated before saying ready
    say("ready")
    count = 0
    while True:
        body = "x" * random.randrange(0, 4000)
        entry = Entry(kind=EntryKind.USER, content=f"message {count} {body}")
        await store.append(session_id, entry)
        say(f"appended {entry.id}")
        count += 1
        if count % 25 == 0:
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


async def main(dsn: str, schema: str, session_id: str) -> None:
    store = PostgresStore(dsn, schema=schema, pool_min=1, pool_max=2)
    try:
        await churn(store, session_id)
    finally:
        await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
