"""The rolling summary: written after a run (when the next starts) through the Store, given
back on later turns beside the user's message, kept across compaction and reopening."""

from __future__ import annotations

import json

import pytest
from agentframe_working_memory.options import WorkingMemoryOptions
from agentframe_working_memory.retriever import TAG, WorkingMemoryRetriever, side_session

from agentframe_core import (
    Compaction,
    Entry,
    EntryKind,
    MemoryStore,
    RunContext,
    Session,
    Stack,
    VerbatimBuilder,
)
from agentframe_core.testing import RetrieverConformance, ScriptedAdapter

NOTES = {"decisions": ["Use PostgreSQL 15"], "open_tasks": ["Write the migration"], "facts": []}


def stack(replies: list, store: object | None = None) -> Stack:
    return Stack(
        adapter=ScriptedAdapter(replies, json_schema=True),
        store=store or MemoryStore(),  # type: ignore[arg-type]
        context=VerbatimBuilder(),
        retrievers=[WorkingMemoryRetriever(WorkingMemoryOptions(max_tokens=128))],
    )


async def test_summarised_after_a_run_and_injected_on_the_next() -> None:
    s = stack(["Agreed: PostgreSQL 15.", json.dumps(NOTES), "Next, the migration."])
    session = Session(s)
    await session.run("Let's use PostgreSQL 15 for the store.")
    await session.run("What next?")
    answer, summarise, second = s.adapter.requests  # type: ignore[attr-defined]
    assert "Working memory" not in json.dumps([m.content for m in answer.messages])
    assert summarise.response_schema is not None and summarise.max_tokens == 128
    assert "Let's use PostgreSQL 15" in summarise.messages[1].content
    assert "What next?" not in summarise.messages[1].content  # not answered yet: next time
    assert "Working memory of this session" in second.messages[-1].content
    assert "- Use PostgreSQL 15" in second.messages[-1].content
    assert "Working memory" not in second.messages[0].content
    (stored,) = await s.store.context(side_session(session.id))
    assert stored.tag == TAG and json.loads(stored.content)["decisions"] == ["Use PostgreSQL 15"]


async def test_kept_across_compaction_and_a_new_retriever() -> None:
    store = MemoryStore()
    s = stack(["ok", json.dumps(NOTES), "ok"], store)
    session = Session(s)
    await session.run("Use PostgreSQL 15.")
    await session.run("go on")
    entries = await store.context(session.id)
    marker = Entry(kind=EntryKind.COMPACTION, content="(compacted)")
    await store.compact(session.id, Compaction(marker, frozenset(e.id for e in entries)))
    fresh = WorkingMemoryRetriever(WorkingMemoryOptions())
    s2 = stack([], store)  # no reply scripted: nothing new to summarise, no model call
    found = await fresh.retrieve("and now?", ctx=RunContext(session.id, s2), budget_tokens=200)
    assert found and "Use PostgreSQL 15" in found[0].text


async def test_a_bad_reply_keeps_the_old_notes() -> None:
    s = stack(["ok", json.dumps(NOTES), "ok", "not json at all", "ok"])
    session = Session(s)
    await session.run("one")
    await session.run("two")
    await session.run("three")
    last = s.adapter.requests[-1]  # type: ignore[attr-defined]
    assert "- Use PostgreSQL 15" in last.messages[-1].content


@pytest.mark.parametrize(
    "reply", ['{"decisions": "x"}', "[1, 2]", '{"facts": [' + '"y", ' * 50 + '"z"]}']
)
async def test_hostile_replies_are_refused_or_bounded(reply: str) -> None:
    s = stack(["ok", reply, "ok"])
    session = Session(s)
    await session.run("one")
    await session.run("two")
    stored = await s.store.context(side_session(session.id))
    for entry in stored:
        assert len(json.loads(entry.content)["facts"]) <= 8


class TestWorkingMemoryConformance(RetrieverConformance):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()

    @pytest.fixture
    def retriever(self, store: MemoryStore) -> WorkingMemoryRetriever:
        return WorkingMemoryRetriever(WorkingMemoryOptions(), store=store)

    @pytest.fixture
    async def query(self, store: MemoryStore) -> str:
        notes = dict(NOTES, facts=[f"fact number {n} about the deployment" for n in range(8)])
        entry = Entry(kind=EntryKind.ASSISTANT, content=json.dumps(notes), tag=TAG)
        await store.append(side_session("conformance"), entry)
        return "which facts about the deployment did we learn?"
