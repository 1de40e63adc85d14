"""RetrieverConformance: what every retriever must guarantee.

Subclass it and provide a `retriever` fixture (already holding its corpus) and a `query`
fixture: a query that should find something in that corpus. Tokens are estimated at four
characters each, the same estimate the loop uses.
"""

from __future__ import annotations

import pytest

from agentframe_core.protocols import Retriever, Snippet

from ._stack import run_context


def tokens(snippets: list[Snippet]) -> int:
    return sum(len(s.text) for s in snippets) // 4


class RetrieverConformance:
    @pytest.fixture
    def retriever(self) -> Retriever:
        raise NotImplementedError("provide a `retriever` fixture")

    @pytest.fixture
    def query(self) -> str:
        raise NotImplementedError("provide a `query` that finds something in the corpus")

    async def test_finds_something(self, retriever: Retriever, query: str) -> None:
        found = await retriever.retrieve(query, ctx=run_context(), budget_tokens=2_000)
        assert found and all(isinstance(s, Snippet) and s.text for s in found)

    @pytest.mark.parametrize("budget", [0, 10, 50, 400])
    async def test_respects_the_budget(self, retriever: Retriever, query: str, budget: int) -> None:
        found = await retriever.retrieve(query, ctx=run_context(), budget_tokens=budget)
        assert tokens(found) <= budget

    async def test_best_first(self, retriever: Retriever, query: str) -> None:
        found = await retriever.retrieve(query, ctx=run_context(), budget_tokens=2_000)
        scores = [s.score for s in found]
        assert scores == sorted(scores, reverse=True)

    @pytest.mark.parametrize("nonsense", ["", "zqxjvk wpfhgy", "\x00 ☃ \n"])
    async def test_nothing_matches_gives_nothing_or_lower_scores(
        self, retriever: Retriever, query: str, nonsense: str
    ) -> None:
        found = await retriever.retrieve(nonsense, ctx=run_context(), budget_tokens=500)
        relevant = await retriever.retrieve(query, ctx=run_context(), budget_tokens=500)
        best = max(s.score for s in relevant)
        assert all(s.score < best for s in found), "nonsense ranked as high as a real match"
