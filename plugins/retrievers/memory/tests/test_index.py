"""The incremental index computes exactly what bm25s computes from scratch."""

from __future__ import annotations

import random

import bm25s
import pytest
from agentframe_memory.analyzer import Analyzer
from agentframe_memory.inverted import InvertedIndex

WORDS = [
    "apple",
    "pear",
    "config",
    "editor",
    "neovim",
    "python",
    "class",
    "method",
    "server",
    "deploy",
    "backup",
    "cluster",
]


def corpus(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 40))) for _ in range(n)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scores_equal_bm25s_after_adds_and_removes(seed: int) -> None:
    analyzer = Analyzer()
    docs = corpus(300, seed)
    index = InvertedIndex()
    for i, text in enumerate(docs):
        index.add(str(i), analyzer.counts(text))
    removed = set(random.Random(seed).sample(range(300), 120))
    for i in removed:
        index.remove(str(i))
    kept = [i for i in range(300) if i not in removed]
    reference = bm25s.BM25()  # lucene, k1=1.5, b=0.75: the index's formulas
    reference.index([analyzer.terms(docs[i]) for i in kept], show_progress=False)
    for query in ["neovim editor", "backup cluster server", "python class method apple"]:
        terms = analyzer.terms(query)
        rows, scores = reference.retrieve([terms], k=10, show_progress=False)
        expected = [(str(kept[r]), float(s)) for r, s in zip(rows[0], scores[0], strict=True)]
        got = index.search(terms, 10)
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-5)
        cutoff = expected[-1][1] + 1e-4  # below it, ties may be cut either way
        assert {d for d, s in got if s > cutoff} == {d for d, s in expected if s > cutoff}


def test_compaction_after_many_removals_keeps_the_scores() -> None:
    analyzer = Analyzer()
    docs = corpus(3_000, 9)
    index = InvertedIndex()
    for i, text in enumerate(docs):
        index.add(str(i), analyzer.counts(text))
    for i in range(2_500):
        index.remove(str(i))
    assert len(index.ids) < 3_000  # dead rows were dropped
    reference = bm25s.BM25()
    reference.index([analyzer.terms(d) for d in docs[2_500:]], show_progress=False)
    terms = analyzer.terms("neovim editor backup")
    _, scores = reference.retrieve([terms], k=5, show_progress=False)
    got = index.search(terms, 5)
    assert [s for _, s in got] == pytest.approx([float(s) for s in scores[0]], rel=1e-5)
    assert all(int(d) >= 2_500 for d, _ in got)
