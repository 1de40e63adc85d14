"""Hybrid retrieval: BM25 and embedding similarity, fused by reciprocal rank fusion.

Embeddings come from the stack's adapter when it has `async embed(texts) -> list[list[float]]`
(llama-server started with `--embeddings`, an OpenAI-compatible `/embeddings`). Memory vectors
are computed on first need and kept per process, keyed by the memory's text, so an edited memory
is embedded again. Without an `embed` method, hybrid is BM25, and the log says so once.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from .files import Memory

__all__ = ["Embeddings", "rrf"]

log = logging.getLogger("agentframe.memory")

RRF_K = 60


def rrf(*rankings: Sequence[str]) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: each ranking gives 1/(60 + rank) to its ids."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking, 1):
            fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


class Embeddings:
    def __init__(self) -> None:
        self._vectors: dict[str, tuple[str, Any]] = {}
        self._warned = False

    def embedder(self, adapter: Any) -> Any:
        embed = getattr(adapter, "embed", None)
        if embed is None and not self._warned:
            self._warned = True
            log.warning(
                "memory-bm25 mode hybrid: the adapter %s offers no embeddings; using BM25 alone",
                type(adapter).__name__,
            )
        return embed

    async def ranking(self, embed: Any, query: str, memories: Sequence[Memory]) -> list[str]:
        """Memory ids by cosine similarity to `query`, best first."""
        if not memories:
            return []
        missing = [m for m in memories if self._vectors.get(m.id, ("",))[0] != _digest(m)]
        texts = [query, *(f"{m.title}\n{m.content}" for m in missing)]
        vectors = np.asarray(await embed(texts), dtype=np.float32)
        for memory, vector in zip(missing, vectors[1:], strict=True):
            self._vectors[memory.id] = (_digest(memory), _unit(vector))
        matrix = np.stack([self._vectors[m.id][1] for m in memories])
        scores = matrix @ _unit(vectors[0])
        order = np.argsort(-scores, kind="stable")
        return [memories[i].id for i in order]


def _digest(memory: Memory) -> str:
    return hashlib.blake2b(f"{memory.title}\n{memory.content}".encode(), digest_size=8).hexdigest()


def _unit(vector: Any) -> Any:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector
