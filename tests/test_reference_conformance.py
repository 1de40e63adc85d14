"""The kernel's own reference parts pass the conformance kits they ship."""

from __future__ import annotations

import pytest

from agentframe_core import FunctionToolset, Snippet, ToolCall
from agentframe_core.examples import add, current_time
from agentframe_core.parts.verbatim import VerbatimBuilder
from agentframe_core.testing import (
    ContextBuilderConformance,
    RetrieverConformance,
    ToolDispatcherConformance,
)


class TestVerbatimBuilder(ContextBuilderConformance):
    @pytest.fixture
    def builder(self):
        return VerbatimBuilder()


class TestFunctionToolset(ToolDispatcherConformance):
    @pytest.fixture
    def dispatcher(self):
        return FunctionToolset([add, current_time])

    @pytest.fixture
    def sample_calls(self):
        return [ToolCall("1", "add", {"a": 1, "b": 2}), ToolCall("2", "current_time", {})]


class KeywordRetriever:
    """A tiny retriever for exercising the kit: documents sharing a word with the query."""

    def __init__(self, documents: list[str]) -> None:
        self.documents = documents

    async def retrieve(self, query, *, ctx, budget_tokens):
        words = set(query.lower().split())
        scored = sorted(
            ((len(words & set(d.lower().split())), d) for d in self.documents), reverse=True
        )
        found, used = [], 0
        for score, document in scored:
            if score and used + len(document) <= 4 * budget_tokens:
                found.append(Snippet(document, "docs", float(score)))
                used += len(document)
        return found


class TestKeywordRetriever(RetrieverConformance):
    @pytest.fixture
    def retriever(self):
        return KeywordRetriever(
            ["the cat sat on the mat", "dogs bark at night", "a cat and a dog " * 20]
        )

    @pytest.fixture
    def query(self):
        return "where is the cat"
