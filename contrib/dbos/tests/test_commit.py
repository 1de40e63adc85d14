"""The commit of a durable run repeats on the session's store what the run did on its private
store: the session's store then shows what the run's store shows, whatever the run claimed,
appended or compacted, and a commit run again (a replay after a crash) changes nothing."""

from __future__ import annotations

from pathlib import Path

from agentframe_dbos.commit import Scratch, commit
from agentframe_store_sqlite import SqliteStore

from agentframe_core import (
    Compaction,
    Entry,
    EntryKind,
    Message,
    RunContext,
    Session,
    Stack,
    VerbatimBuilder,
)
from agentframe_core.testing import ScriptedAdapter


class CompactingBuilder(VerbatimBuilder):
    """Folds everything but the last two entries into a summary once the context has more
    than six: the compaction a shaper makes, small enough to follow."""

    async def build(self, ctx: RunContext, system: str) -> list[Message]:
        store = ctx.stack.store
        entries = await store.context(ctx.session_id)
        if len(entries) > 6:
            fold = entries[:-2]
            marker = Entry(
                kind=EntryKind.COMPACTION, content="summary", created_at=fold[-1].created_at
            )
            await store.compact(ctx.session_id, Compaction(marker, frozenset(e.id for e in fold)))
        return await super().build(ctx, system)


def shown(entries: list[Entry]) -> list[tuple[str, str]]:
    return [(e.kind.value, e.content) for e in entries]


async def test_the_session_shows_what_the_run_did_and_a_replay_changes_nothing(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "sessions.db")
    try:
        for n in range(3):
            await store.append("S", Entry(kind=EntryKind.USER, content=f"old {n}"))
        await store.enqueue("S", Entry(kind=EntryKind.USER, content="queued before the run"))
        before = await store.history("S")

        scratch = Scratch()
        await scratch.restore("S", before)
        adapter = ScriptedAdapter(["first answer", "second answer"])
        stack = Stack(adapter=adapter, store=scratch, context=CompactingBuilder())
        session = Session(stack, "S")
        await session.run("a prompt")
        await store.enqueue("S", Entry(kind=EntryKind.USER, content="queued during the run"))
        await session.run("another prompt")
        assert scratch.compactions, "the run compacted nothing: the test proves too little"

        assert await commit(store, "S", before, scratch, "wf") > 0
        expected = shown(await scratch.context("S"))
        assert shown(await store.context("S")) == expected
        pending = [r.entry.content for r in await store.history("S") if r.pending]
        assert pending == ["queued during the run"]  # the run never saw it

        assert await commit(store, "S", before, scratch, "wf") == 0  # the replay
        assert shown(await store.context("S")) == expected
    finally:
        await store.aclose()
