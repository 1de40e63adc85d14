"""What a durable run did, written to the session's store in one last step.

The loop runs on a private `Scratch` store seeded from the session's history. The commit then
repeats on the session's store what the run did there: it claims the queued messages the run
answered, appends the entries the run made (ids derived from the workflow id, so a commit cut
short and run again skips what it had written) and repeats each compaction (a context builder's
summary replacing older entries) with the same marker and the same entries.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentframe_core import Compaction, MemoryStore, StoredEntry

__all__ = ["Scratch", "commit"]


class Scratch(MemoryStore):
    """The run's private store; it remembers each compaction, for the commit to repeat."""

    def __init__(self) -> None:
        super().__init__()
        self.compactions: dict[str, Compaction] = {}  # marker id -> compaction

    async def compact(self, session_id: str, compaction: Compaction) -> None:
        await super().compact(session_id, compaction)
        self.compactions[compaction.marker.id] = compaction


async def commit(
    store: Any, session_id: str, before: list[StoredEntry], scratch: Scratch, prefix: str
) -> int:
    """Write to `store` what the run did on `scratch` since `before` (the session's history
    when it began); return how many entries this attempt wrote."""
    after = await scratch.history(session_id)
    await _claim(store, session_id, before, after)
    known = {record.entry.id for record in before}
    made = [record for record in after if record.entry.id not in known]
    ids = {record.entry.id: f"{prefix}-{n}" for n, record in enumerate(made)}
    written = 0
    for record in made:
        entry = replace(record.entry, id=ids[record.entry.id])
        compaction = scratch.compactions.get(record.entry.id)
        try:
            if compaction is not None:
                subsumes = frozenset(ids.get(i, i) for i in compaction.subsumes)
                await store.compact(session_id, Compaction(entry, subsumes))
            elif record.pending:
                await store.enqueue(session_id, entry)
            else:
                await store.append(session_id, entry)
            written += 1
        except ValueError:  # written by the attempt this one replaces
            continue
    return written


async def _claim(
    store: Any, session_id: str, before: list[StoredEntry], after: list[StoredEntry]
) -> None:
    """Claim in `store` the queued messages the run claimed: those queued up to the latest of
    them (a message queued after the run began is later still, and stays queued)."""
    still = {record.entry.id for record in after if record.pending}
    claimed = [r.entry for r in before if r.pending and r.entry.id not in still]
    if claimed:
        await store.claim_pending(session_id, max(entry.created_at for entry in claimed))
