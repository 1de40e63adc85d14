"""An in-memory BM25 index that grows one document at a time.

bm25s precomputes every document's score per term into a sparse matrix, which makes queries
fast but means that adding one document changes the IDF of its terms for every other document:
its index can only be rebuilt, not extended. Here each term keeps a posting list (document row,
term frequency) that a new document appends to, and the Lucene BM25 variant that bm25s uses by
default (same k1, b, IDF and term-frequency formulas) is computed at query time over the posting
lists of the query's terms only, vectorised with numpy. Adding or removing a document costs
O(its distinct terms); a query costs O(the postings of its terms).

Removed documents stay in the posting lists as dead rows, masked out at query time, until they
outnumber the live ones; then the lists are rebuilt from the live documents' term counts.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt

__all__ = ["InvertedIndex"]

K1, B = 1.5, 0.75  # bm25s's defaults


class InvertedIndex:
    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self._lengths = np.zeros(1024, dtype=np.float32)
        self._alive = np.zeros(1024, dtype=np.float32)
        self._rows: dict[str, array[int]] = {}
        self._tfs: dict[str, array[float]] = {}
        self._df: dict[str, int] = {}
        self._terms_of: dict[int, dict[str, int]] = {}
        self._total_length = 0

    def __len__(self) -> int:
        return len(self.row_of)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self.row_of

    def add(self, doc_id: str, counts: Mapping[str, int]) -> None:
        """Index a document (replacing an earlier version with the same id)."""
        self.remove(doc_id)
        row = len(self.ids)
        self.ids.append(doc_id)
        self.row_of[doc_id] = row
        if row >= len(self._lengths):
            self._lengths = np.resize(self._lengths, row * 2)
            self._alive = np.resize(self._alive, row * 2)
        length = sum(counts.values())
        self._lengths[row], self._alive[row] = length, 1.0
        self._total_length += length
        self._terms_of[row] = dict(counts)
        for term, tf in counts.items():
            if term not in self._rows:
                self._rows[term], self._tfs[term] = array("i"), array("f")
            self._rows[term].append(row)
            self._tfs[term].append(tf)
            self._df[term] = self._df.get(term, 0) + 1

    def remove(self, doc_id: str) -> bool:
        row = self.row_of.pop(doc_id, None)
        if row is None:
            return False
        counts = self._terms_of.pop(row)
        self._alive[row] = 0.0
        self._total_length -= int(self._lengths[row])
        for term in counts:
            self._df[term] -= 1
        if len(self.ids) - len(self.row_of) > max(1024, len(self.row_of)):
            self._compact()
        return True

    def search(
        self, terms: Iterable[str], k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """The `k` best (id, score) pairs, best first; documents matching no term are left out."""
        live = len(self.row_of)
        if not live or k <= 0:
            return []
        average = self._total_length / live or 1.0
        scores: npt.NDArray[np.float32] | None = None
        for term in dict.fromkeys(terms):
            df = self._df.get(term, 0)
            if not df:
                continue
            rows = np.frombuffer(self._rows[term], dtype=np.int32).copy()
            tfs = np.frombuffer(self._tfs[term], dtype=np.float32).copy()
            idf = math.log(1 + (live - df + 0.5) / (df + 0.5))
            norm = K1 * ((1 - B) + B * self._lengths[rows] / average)
            if scores is None:
                scores = np.zeros(len(self.ids), dtype=np.float32)
            scores[rows] += idf * tfs / (tfs + norm) * self._alive[rows]
        if scores is None:
            return []
        return self._top(scores, k, allowed)

    def _top(
        self, scores: npt.NDArray[np.float32], k: int, allowed: set[str] | None
    ) -> list[tuple[str, float]]:
        hits = np.flatnonzero(scores > 0)
        if allowed is not None:
            hits = np.array([r for r in hits if self.ids[r] in allowed], dtype=np.int64)
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        ordered = sorted(hits.tolist(), key=lambda r: (-float(scores[r]), self.ids[r]))
        return [(self.ids[r], float(scores[r])) for r in ordered]

    def _compact(self) -> None:
        live = [(self.ids[row], self._terms_of[row]) for row in sorted(self._terms_of)]
        self._reset()
        for doc_id, counts in live:
            self.add(doc_id, counts)
