"""With the real default model (SmolLM2 on llama-server): a fact remembered through the tool in
one session is the answer to a question in a new session, found by retrieval. Small models
wobble: each half may retry once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentframe_memory.options import MemoryOptions
from agentframe_memory.retriever import MemoryRetriever
from agentframe_memory.tools import MemoryTools

from agentframe_core import MemoryStore, Session, Stack, VerbatimBuilder

llamacpp = pytest.importorskip("agentframe_llamacpp")


def stack(runtime: Any, options: MemoryOptions, *, tools: bool) -> Stack:
    adapter = llamacpp.LlamaCppAdapter(runtime.options, runtime)
    return Stack(
        adapter=adapter,
        store=MemoryStore(),
        context=VerbatimBuilder(),
        retrievers=[] if tools else [MemoryRetriever(options)],
        tools=[MemoryTools(options)] if tools else [],
    )


async def test_remember_then_answer_in_a_new_session(llama_runtime: Any, tmp_path: Path) -> None:
    options = MemoryOptions(folder=tmp_path)
    saved: list[str] = []
    for _ in range(2):
        s = stack(llama_runtime, options, tools=True)
        result = await Session(s).run(
            "Use the remember tool to save this fact: the office door code is 4711."
        )
        await s.aclose()
        saved = [p.read_text() for p in tmp_path.rglob("*.md") if "4711" in p.read_text()]
        if saved:
            break
    assert saved, f"the model did not save the fact: {result.tool_calls} {result.reply!r}"

    replies = []
    for _ in range(2):
        s = stack(llama_runtime, options, tools=False)
        result = await Session(s).run("What is the office door code?")
        await s.aclose()
        replies.append(result.reply)
        if "4711" in result.reply:
            break
    assert "4711" in replies[-1], f"not answered from memory: {replies}"
