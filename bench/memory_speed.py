"""Speed of memory-bm25's index against bm25s and rank_bm25, side by side in one run.

- query time (k=8, one query at a time, tokenising included) at 1k, 10k and 100k memories:
  memory-bm25's incremental index, `bm25s.BM25` (precomputed sparse scores, numpy backend),
  and rank_bm25's BM25Okapi (scores every document per query);
- the index update per `remember` on a bank of 10k memory files (the whole write: the file,
  fsynced, and the SQLite row), against rebuilding the index from scratch (memory-bm25's
  in-memory index from stored term counts, and bm25s's `index()`).

Memories are 2-4 sentences drawn at random from the recall set's text (bench/data); queries
are the recall set's 100 queries. rank_bm25 is timed on 20 queries at 100k (it is slow).

    python bench/memory_speed.py [--sizes 1000,10000,100000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bm25s
import numpy as np
from agentframe_memory.analyzer import Analyzer
from agentframe_memory.bank import MemoryBank
from agentframe_memory.files import Memory, write_memory
from agentframe_memory.inverted import InvertedIndex
from rank_bm25 import BM25Okapi

DATA = Path(__file__).with_name("data") / "memory_recall.json"


def corpus(n: int, sentences: list[str], seed: int = 14) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(sentences, rng.randint(2, 4))) for _ in range(n)]


def per_call_ms(run: Callable[[str], object], queries: list[str]) -> float:
    run(queries[0])  # warm up
    times = []
    for q in queries:
        started = time.perf_counter()
        run(q)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def queries_at(
    size: int, analyzer: Analyzer, docs: list[str], queries: list[str]
) -> dict[str, float]:
    terms = [analyzer.terms(d) for d in docs]
    index = InvertedIndex()
    for i, t in enumerate(terms):
        index.add(str(i), {w: t.count(w) for w in set(t)})
    native = bm25s.BM25()
    native.index(terms, show_progress=False)
    okapi = BM25Okapi(terms)

    def ours(q: str) -> object:
        return index.search(analyzer.terms(q), 8)

    def theirs(q: str) -> object:
        return native.retrieve([analyzer.terms(q) or ["\x00"]], k=8, show_progress=False)

    def rank(q: str) -> object:
        scores = okapi.get_scores(analyzer.terms(q))
        return np.argpartition(-scores, 8)[:8]

    return {
        "memory-bm25": per_call_ms(ours, queries),
        "bm25s": per_call_ms(theirs, queries),
        "rank_bm25": per_call_ms(rank, queries[:20] if size > 10_000 else queries),
    }


def updates(folder: Path, docs: list[str], analyzer: Analyzer) -> dict[str, float]:
    """ms per remember on a bank of len(docs) files, and ms per full rebuild."""
    for i, text in enumerate(docs):
        write_memory(folder / "bench" / f"m{i}.md", Memory(f"bench/m{i}", f"Memory {i}", text))
    bank = MemoryBank(folder)
    started = time.perf_counter()
    bank.open()
    first_open = time.perf_counter() - started
    times = []
    for i in range(50):
        started = time.perf_counter()
        bank.remember(f"New fact {i}", f"{docs[i]} extra{i}", "new")
        times.append(time.perf_counter() - started)
    counts = [analyzer.counts(d) for d in docs]
    started = time.perf_counter()
    index = InvertedIndex()
    for i, c in enumerate(counts):
        index.add(str(i), c)
    rebuild = time.perf_counter() - started
    terms = [analyzer.terms(d) for d in docs]
    started = time.perf_counter()
    bm25s.BM25().index(terms, show_progress=False)
    bm25s_rebuild = time.perf_counter() - started
    bank.close()
    return {
        "remember": statistics.median(times) * 1000,
        "rebuild memory-bm25": rebuild * 1000,
        "rebuild bm25s": bm25s_rebuild * 1000,
        "first open (scan + index every file)": first_open * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--dir", type=Path, default=Path.cwd())
    args = parser.parse_args()
    data = json.loads(DATA.read_text())
    text = " ".join(str(m["content"]) for m in data["memories"])
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 30]
    queries = [q["query"] for q in data["queries"]]
    analyzer = Analyzer()

    print("query, median ms (k=8)")
    print(
        f"{'memories':>9} {'memory-bm25':>12} {'bm25s':>8} {'rank_bm25':>10} {'rank_bm25/ours':>15}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        t = queries_at(size, analyzer, corpus(size, sentences), queries)
        ratio = t["rank_bm25"] / t["memory-bm25"]
        ours, theirs, okapi = t["memory-bm25"], t["bm25s"], t["rank_bm25"]
        print(f"{size:>9} {ours:12.3f} {theirs:8.3f} {okapi:10.2f} {ratio:14.0f}x")

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        u = updates(Path(tmp) / "user", corpus(10_000, sentences, seed=7), analyzer)
    print("\nupdate at 10k memories, ms")
    for name, ms in u.items():
        print(f"  {name:40} {ms:10.1f}")
    print(f"  full rebuild / remember: {u['rebuild memory-bm25'] / u['remember']:.0f}x")


if __name__ == "__main__":
    main()
