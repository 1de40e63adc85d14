"""With the real default model: after a run, SmolLM2 writes the working memory through the
constrained schema, it is stored through the Store and given back on the next turn."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agentframe_working_memory.options import WorkingMemoryOptions
from agentframe_working_memory.retriever import TAG, WorkingMemoryRetriever, side_session

from agentframe_core import MemoryStore, Session, Stack, VerbatimBuilder

llamacpp = pytest.importorskip("agentframe_llamacpp")


async def test_the_real_model_keeps_the_working_memory(llama_runtime: Any) -> None:
    # Replies bounded, so two turns fit the 2,048-token window whatever the model says: a
    # fresh clone's CI once got a runaway reply to "Reply with OK." and a 2,064-token prompt.
    # (The working memory's own request has its own bound, `max_tokens` of the retriever.)
    options = llama_runtime.options.model_copy(update={"max_tokens": 256})
    adapter = llamacpp.LlamaCppAdapter(options, llama_runtime)
    stack = Stack(
        adapter=adapter,
        store=MemoryStore(),
        context=VerbatimBuilder(),
        retrievers=[WorkingMemoryRetriever(WorkingMemoryOptions(max_tokens=128))],
    )
    session = Session(stack)
    try:
        await session.run("We decided to use PostgreSQL. Reply with OK.")
        await session.run("What did we decide?")
        stored = await stack.store.context(side_session(session.id))
    finally:
        await stack.aclose()
    assert [e.tag for e in stored] == [TAG]
    notes = json.loads(stored[0].content)  # valid under the schema, bounded
    assert set(notes) == {"decisions", "open_tasks", "facts"}
    assert all(len(v) <= 8 and all(len(i) <= 200 for i in v) for v in notes.values())
    print("working memory written by SmolLM2:", notes)
