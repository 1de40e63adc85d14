"""The child of `StoreProcessConformance`'s kill test:

    python -m agentframe_core.testing.storechurn CONFIG SESSION EVERY

It builds the store from the `store:` block of the config file CONFIG exactly as `agentframe
run` does (the plugin host, the config's validation, the part's `build`), so any installed
store plugin can be tested. Then, until it is killed, it appends entries of random size to
SESSION, and after every EVERY appends compacts all but the last 3 visible entries. It says
on stdout, one line each: `ready` once the store answered; `appended ID` once an append
returned; `compacting ID FOLDED...` before a compaction starts (the marker's id, then the
ids it subsumes), `compacted ID` once it returned. The marker's `meta["subsumes"]` lists them
too, for checks of the stored data. Any error is one line on stderr and status 1 (never a
traceback); a closed stdout (the test is gone) ends it quietly.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from pathlib import Path
from typing import Any

from ..assembly.config import load_part
from ..assembly.plugins import PluginHost
from ..contract.model import Compaction, Entry, EntryKind
from ..contract.protocols import Closeable, Store
from ..contract.registry import Kind
from ..support.redact import redact_text

USAGE = "usage: python -m agentframe_core.testing.storechurn CONFIG SESSION EVERY"
#: Visible entries a compaction leaves unfolded.
KEEP = 3
#: The largest entry content, in characters.
MAX_CONTENT = 4000


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def build_store(config: Path) -> Any:
    """The store the config file selects, built as `agentframe run` builds it."""
    part = load_part(PluginHost(), Kind.STORE, config)
    assert part is not None  # only `only=` makes load_part return None
    return part.build()


async def churn(store: Store, session_id: str, every: int) -> None:
    await store.sessions()  # connected (and its schema created) before saying ready
    say("ready")
    count = 0
    while True:
        body = "x" * random.randrange(MAX_CONTENT)
        entry = Entry(kind=EntryKind.USER, content=f"message {count} {body}")
        await store.append(session_id, entry)
        say(f"appended {entry.id}")
        count += 1
        if count % every == 0:
            await compact(store, session_id)


async def compact(store: Store, session_id: str) -> None:
    fold = (await store.context(session_id))[:-KEEP]
    if not fold:
        return
    folded = [entry.id for entry in fold]
    marker = Entry(
        kind=EntryKind.COMPACTION,
        content=f"summary of {len(fold)} entries",
        created_at=fold[0].created_at,
        meta={"subsumes": folded},
    )
    say(f"compacting {marker.id} {' '.join(folded)}")
    await store.compact(session_id, Compaction(marker, frozenset(folded)))
    say(f"compacted {marker.id}")


async def run(config: Path, session_id: str, every: int) -> None:
    store = build_store(config)
    try:
        await churn(store, session_id, every)
    finally:
        if isinstance(store, Closeable):
            await store.aclose()


def main(argv: list[str]) -> int:
    try:
        config, session_id, every = Path(argv[0]), argv[1], int(argv[2])
    except (IndexError, ValueError):
        sys.stderr.write(USAGE + "\n")
        return 2
    try:
        asyncio.run(run(config, session_id, max(every, 1)))
    except BrokenPipeError:  # the test that read our lines is gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # one line, whatever the store raised
        sys.stderr.write(redact_text(f"storechurn: {type(err).__name__}: {err}") + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
