"""Retrieval quality of memory-bm25 against bm25s and rank_bm25, on one labelled set.

The set (bench/data/memory_recall.json, made by bench/make_memory_data.py): 1,179 memories
cut from Python's reference documentation and 100 queries reworded from one of their
sentences. Reported, best first: recall@5 (the target is in the top 5) and MRR (1/rank of the
target, 0 beyond the top 100), for

- memory-bm25: the plugin's own bank (files written, index built by opening the bank);
- bm25s: `bm25s.BM25` built over the same terms, from scratch;
- rank_bm25 (BM25Okapi) over the same terms, and over lowercased whitespace tokens (how
  most projects that use it tokenise).

Stage 2 (the model picks up to 5 of the BM25 top 8) is measured through the plugin's own
selection code with a scripted model that picks the target whenever it is among the 8 (the
ceiling any selecting model can reach), and, with `--select`, with the real default model
(llama-server and SmolLM2; slow: one model call per query): recall@5 of what was picked.

    python bench/memory_recall.py [--select]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from agentframe_memory.analyzer import Analyzer
from agentframe_memory.bank import MemoryBank
from agentframe_memory.files import Memory, write_memory
from rank_bm25 import BM25Okapi

DATA = Path(__file__).with_name("data") / "memory_recall.json"
DEPTH = 100

Ranker = Callable[[str], list[str]]


def metrics(rank: Ranker, queries: list[dict[str, str]]) -> tuple[float, float]:
    hits = mrr = 0.0
    for q in queries:
        ranked = rank(q["query"])[:DEPTH]
        if q["target"] in ranked[:5]:
            hits += 1
        if q["target"] in ranked:
            mrr += 1 / (ranked.index(q["target"]) + 1)
    return hits / len(queries), mrr / len(queries)


def plugin_bank(
    folder: Path, memories: list[dict[str, object]]
) -> tuple[MemoryBank, dict[str, str]]:
    """The plugin's bank over the set; returns it and memory id -> label."""
    label = {}
    for m in memories:
        slug = str(m["id"]).lower().replace("_", "-")
        path = folder / "docs" / f"{slug}.md"
        write_memory(
            path, Memory(f"docs/{slug}", str(m["title"]), str(m["content"]), tuple(m["tags"]))
        )  # type: ignore[arg-type]
        label[f"docs/{path.stem}"] = str(m["id"])
    bank = MemoryBank(folder)
    bank.open()
    return bank, label


def text_of(m: dict[str, object]) -> str:
    return Memory("x/y", str(m["title"]), str(m["content"]), tuple(m["tags"])).indexed_text()  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--select", action="store_true", help="also stage 2 with the real model")
    parser.add_argument("--select-queries", type=int, default=100, help="of them, with --select")
    args = parser.parse_args()
    data = json.loads(DATA.read_text())
    memories, queries = data["memories"], data["queries"]
    ids = [str(m["id"]) for m in memories]
    analyzer = Analyzer()
    corpus_terms = [analyzer.terms(text_of(m)) for m in memories]

    with tempfile.TemporaryDirectory() as tmp:
        bank, label = plugin_bank(Path(tmp) / "user", memories)
        rows: list[tuple[str, Ranker]] = [
            ("memory-bm25 (the plugin)", lambda q: [label[i] for i, _ in bank.search(q, DEPTH)])
        ]
        native = bm25s.BM25()
        native.index(corpus_terms, show_progress=False)

        def bm25s_rank(q: str) -> list[str]:
            terms = analyzer.terms(q) or ["\x00"]
            found, _ = native.retrieve([terms], k=DEPTH, show_progress=False)
            return [ids[i] for i in found[0]]

        rows.append(("bm25s (same terms, built from scratch)", bm25s_rank))
        okapi = BM25Okapi(corpus_terms)
        rows.append(("rank_bm25 BM25Okapi (same terms)", ranker(okapi, analyzer.terms, ids)))
        plain = BM25Okapi([text_of(m).lower().split() for m in memories])
        rows.append(("rank_bm25 BM25Okapi (lowercase split)", ranker(plain, str.split, ids, True)))

        print(f"{len(memories)} memories, {len(queries)} queries ({data['source']})\n")
        print(f"{'retriever':44} {'recall@5':>9} {'MRR':>7}")
        for name, rank in rows:
            recall, mrr = metrics(rank, queries)
            print(f"{name:44} {recall:9.3f} {mrr:7.3f}")
        oracle = asyncio.run(stage2(bank, label, queries, None))
        print(f"{'+ stage 2, scripted oracle (ceiling)':44} {oracle:9.3f}")
        if args.select:
            few = queries[: args.select_queries]
            real = asyncio.run(stage2(bank, label, few, "llama"))
            alone, _ = metrics(rows[0][1], few)
            print(f"{f'+ stage 2, SmolLM2 picks from the top 8 ({len(few)} q)':44} {real:9.3f}")
            print(f"{f'  (memory-bm25 alone on those {len(few)} queries)':44} {alone:9.3f}")
        bank.close()


def ranker(
    model: BM25Okapi, split: Callable[[str], list[str]], ids: list[str], lower: bool = False
) -> Ranker:
    def rank(q: str) -> list[str]:
        scores = model.get_scores(split(q.lower() if lower else q))
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:DEPTH]]

    return rank


async def stage2(
    bank: MemoryBank, label: dict[str, str], queries: list[dict[str, str]], model: str | None
) -> float:
    """Recall@5 of the memories a model selects among the BM25 top 8 (None: a scripted model
    that picks the target when it is there)."""
    from agentframe_memory.select import selected

    from agentframe_core import RunContext, Stack
    from agentframe_core.parts.memorystore import MemoryStore
    from agentframe_core.parts.verbatim import VerbatimBuilder
    from agentframe_core.testing import ScriptedAdapter

    adapter: Any
    if model is None:
        adapter = ScriptedAdapter([], json_schema=True)
    else:
        from agentframe_llamacpp import LlamaCppAdapter, LlamaRuntime
        from llama_options import bench_options

        runtime = LlamaRuntime(bench_options(), state_dir=bank.folder.parent / "llama")
        adapter = LlamaCppAdapter(runtime.options, runtime)
    ctx = RunContext(
        "bench", Stack(adapter=adapter, store=MemoryStore(), context=VerbatimBuilder())
    )
    hits = 0
    try:
        for q in queries:
            candidates = [bank.get(i) for i, _ in bank.search(q["query"], 8)]
            if model is None:
                wanted = [str(n) for n, m in enumerate(candidates, 1) if label[m.id] == q["target"]]
                adapter.replies = [json.dumps({"ids": wanted})]
                adapter._next = 0
            chosen = await selected(q["query"], candidates, ctx, 5)
            picked = [label[m.id] for m in (chosen if chosen is not None else candidates[:5])]
            hits += q["target"] in picked
    finally:
        if model is not None:
            await adapter.aclose()
            await adapter.runtime.astop_owned()
    return hits / len(queries)


if __name__ == "__main__":
    main()
