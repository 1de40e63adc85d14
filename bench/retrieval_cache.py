"""Cached prompt tokens over a 20-turn session with memory on, with retrieved context in the
system prompt (before: how the loop placed it until this change) and beside the latest user
message (after), on the real llama-server with the default model, in one run.

The bank holds 60 memories from the recall set (bench/data); the 20 user messages are
queries from the same set, so each turn retrieves different memories. Replies are capped at
16 tokens so the session fits the model's context. The figure is llama-server's own count
of prompt tokens served from its KV cache (`prompt_tokens_details.cached_tokens`).

    python bench/retrieval_cache.py [--turns 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from agentframe_llamacpp import LlamaCppAdapter, LlamaRuntime
from agentframe_memory.bank import MemoryBank
from agentframe_memory.options import MemoryOptions
from agentframe_memory.retriever import MemoryRetriever
from llama_options import bench_options

import agentframe_core.engine.session as loop
from agentframe_core import Message, Session, Stack
from agentframe_core.parts.memorystore import MemoryStore
from agentframe_core.parts.verbatim import VerbatimBuilder

DATA = Path(__file__).with_name("data") / "memory_recall.json"
AFTER = loop.place_retrieved


def before(messages: list[Message], block: str) -> list[Message]:
    """The old placement: the block appended to the system prompt."""
    if not block:
        return messages
    system = messages[0]
    return [Message(system.role, f"{system.content}\n\n{block}"), *messages[1:]]


async def session(folder: Path, queries: list[str], placement: str) -> tuple[int, int]:
    loop.place_retrieved = before if placement == "before" else AFTER  # type: ignore[assignment]
    # a server of its own (fresh KV cache, state outside the user's cache), stopped after
    runtime = LlamaRuntime(bench_options(max_tokens=16), state_dir=folder / f"llama-{placement}")
    adapter = LlamaCppAdapter(runtime.options, runtime)
    options = MemoryOptions(folder=folder, select=False)
    stack = Stack(
        adapter=adapter,
        store=MemoryStore(),
        context=VerbatimBuilder(),
        retrievers=[MemoryRetriever(options)],
    )
    stack.limits = stack.limits.model_copy(update={"retrieval_budget_tokens": 150})
    prompt = cached = 0
    try:
        s = Session(stack)
        for query in queries:
            result = await s.run(query)
            prompt += result.usage.prompt_tokens
            cached += result.usage.cached_tokens
            usage = result.usage
            print(f"  {placement} {usage.prompt_tokens} {usage.cached_tokens}", file=sys.stderr)
    finally:
        await stack.aclose()
        await runtime.astop_owned()
        loop.place_retrieved = AFTER
    return prompt, cached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    data = json.loads(DATA.read_text())
    queries = [q["query"] for q in data["queries"][: args.turns]]
    targets = {q["target"] for q in data["queries"][: args.turns]}
    chosen = [m for m in data["memories"] if m["id"] in targets]
    chosen += [m for m in data["memories"] if m["id"] not in targets][: 60 - len(chosen)]
    with tempfile.TemporaryDirectory() as tmp:
        bank = MemoryBank(Path(tmp) / "user")
        for m in chosen:
            bank.remember(m["title"], m["content"], "docs", tuple(m["tags"]))
        bank.close()
        print(f"{args.turns}-turn session, memory-bm25 on, SmolLM2 on llama-server")
        print(f"{'placement':42} {'prompt tokens':>14} {'cached':>8} {'cached %':>9}")
        for placement, label in [
            ("before", "before: in the system prompt"),
            ("after", "after: beside the latest user message"),
        ]:
            prompt, cached = asyncio.run(session(Path(tmp), queries, placement))
            share = 100 * cached / prompt if prompt else 0.0
            print(f"{label:42} {prompt:14} {cached:8} {share:8.1f}%")


if __name__ == "__main__":
    main()
