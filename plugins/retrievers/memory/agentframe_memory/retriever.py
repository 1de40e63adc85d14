"""`memory-bm25`: the retriever. Three stages per turn, for the latest user message:

1. BM25 (hybrid: fused with embeddings) gives the top `candidates`;
2. when they do not all fit the budget, the model picks the ones worth loading (`select`);
3. the chosen ones are loaded in rank order within the budget, the last cut at a line.
"""

from __future__ import annotations

import asyncio
import logging
from functools import cached_property

from agentframe_core import RunContext, Snippet

from .bank import MemoryBank
from .budget import CHARS_PER_TOKEN, load_within, render
from .files import BadMemoryFile, Memory
from .hybrid import Embeddings, rrf
from .options import MemoryOptions
from .select import selected

__all__ = ["MemoryRetriever", "open_bank"]

log = logging.getLogger("agentframe.memory")


def open_bank(options: MemoryOptions) -> MemoryBank:
    return MemoryBank(
        options.scope_folder,
        max_file_bytes=options.max_file_bytes,
        duplicate_threshold=options.duplicate_threshold,
        stem=options.stem,
    )


class MemoryRetriever:
    def __init__(self, options: MemoryOptions) -> None:
        self.options = options
        self._embeddings = Embeddings()

    @cached_property
    def bank(self) -> MemoryBank:
        return open_bank(self.options)

    async def retrieve(self, query: str, *, ctx: RunContext, budget_tokens: int) -> list[Snippet]:
        if budget_tokens <= 0 or not query.strip():
            return []
        ranked = await asyncio.to_thread(self._candidates, query)
        if self.options.mode == "hybrid":
            ranked = await self._fused(query, ranked, ctx)
        if not ranked:
            return []
        fits = sum(len(render(m)) for m, _ in ranked) <= budget_tokens * CHARS_PER_TOKEN
        if self.options.select and not fits and len(ranked) > 1:
            chosen = await selected(query, [m for m, _ in ranked], ctx, self.options.max_selected)
            if chosen is not None:
                keep = {m.id for m in chosen}
                ranked = [(m, s) for m, s in ranked if m.id in keep]
        return load_within(ranked, budget_tokens)

    def _candidates(self, query: str) -> list[tuple[Memory, float]]:
        found = []
        for memory_id, score in self.bank.search(query, self.options.candidates):
            if score < self.options.min_score:
                continue
            try:
                found.append((self.bank.get(memory_id), score))
            except (BadMemoryFile, KeyError) as err:  # changed on disk since it was indexed
                log.warning("memory %s skipped: %s", memory_id, err)
        return found

    async def _fused(
        self, query: str, ranked: list[tuple[Memory, float]], ctx: RunContext
    ) -> list[tuple[Memory, float]]:
        embed = self._embeddings.embedder(ctx.stack.adapter)
        if embed is None:
            return ranked
        pool = (await asyncio.to_thread(self.bank.all))[: self.options.embedding_candidates]
        try:
            by_vector = await self._embeddings.ranking(embed, query, pool)
        except Exception as err:  # a failing embeddings endpoint degrades to BM25
            log.warning("memory embeddings failed (%s); using BM25 alone", err)
            return ranked
        known = {m.id: m for m in pool} | {m.id: m for m, _ in ranked}
        top = self.options.candidates
        fused = rrf([m.id for m, _ in ranked], by_vector[:top])[:top]
        return [(known[doc_id], score) for doc_id, score in fused]

    async def aclose(self) -> None:
        if "bank" in self.__dict__:
            self.bank.close()
